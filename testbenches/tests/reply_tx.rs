//! `reply_tx` (Verilator): every reply kind, with random fields, random gaps on the
//! record port and random `m_axis_tready`, comes out as the inner frame the golden model
//! builds from the published format (`prnic_verif::reply::reply_inner`,
//! docs/reply-frames.md), byte for byte: ICRC, IPv4 checksum and lengths included. Each
//! frame is also wrapped in the model's outer headers and parsed back by the model's
//! strict parser, which checks the ICRC by the InfiniBand rules. Fields a kind does not
//! carry are driven with junk, which must not reach the frame; kinds 6 and 7 are dropped
//! and counted. With the output never waiting, one reply leaves per cycle, each
//! `REPLY_TX_LATENCY` cycles after it was taken. The same checks run the block in
//! rust-hdl's own simulator on both buses: the 512-bit one, whose Verilog model is not
//! built for the default config, sends a request in two beats.

use std::collections::VecDeque;

use prnic_rtl::reply_tx::{ReplyTx as HdlReplyTx, REPLY_INNER_BYTES, REPLY_TX_LATENCY};
use prnic_testbenches::bridge::{Dut, ReplyTx};
use prnic_testbenches::hdl_sim;
use prnic_verif::reply::{parse_reply, reply_frame, reply_inner, Reply, ReplyPath};
use prnic_verif::rng::rng;
use rust_hdl::prelude::*;

const SRC_MAC: [u8; 6] = [0x02, 0x11, 0x22, 0x33, 0x44, 0x55];
const DST_MAC: [u8; 6] = [0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee];

/// One record as the port takes it, and the reply it stands for (`None`: a bad kind).
struct Record {
    kind: u64,
    qp: u32,
    psn: u32,
    ack: bool,
    ack_psn: u32,
    bitmap: [u8; 32],
    vni: u32,
    src_ip: u32,
    dst_ip: u32,
    reply: Option<Reply>,
}

fn record(r: &mut impl FnMut() -> u64) -> Record {
    let kind = r() % 8;
    let mut bitmap = [0u8; 32];
    for b in bitmap.iter_mut() {
        *b = r() as u8;
    }
    let field = |r: &mut dyn FnMut() -> u64, edge: u32| match r() % 4 {
        0 => 0,
        1 => edge,
        _ => r() as u32 & edge,
    };
    let qp = field(r, 0xff_ffff);
    let psn = field(r, 0xff_ffff);
    let ack = r() % 2 == 1;
    let ack_psn = field(r, 0xff_ffff);
    let (vni, src_ip, dst_ip) = (r() as u32 & 0xff_ffff, r() as u32, field(r, u32::MAX));
    let reply = Reply::from_record(kind, qp, psn, ack.then_some(ack_psn), bitmap);
    Record {
        kind,
        qp,
        psn,
        ack,
        ack_psn,
        bitmap,
        vni,
        src_ip,
        dst_ip,
        reply,
    }
}

fn path(rec: &Record) -> ReplyPath {
    ReplyPath {
        vni: rec.vni,
        outer_src_ip: 0x0a00_0001,
        outer_dst_ip: 0x0a00_0002,
        udp_src_port: 0xc123,
        inner_dst_mac: DST_MAC,
        inner_src_mac: SRC_MAC,
        inner_src_ip: rec.src_ip,
        inner_dst_ip: rec.dst_ip,
    }
}

fn mac(m: [u8; 6]) -> u64 {
    m.iter().fold(0, |a, &b| a << 8 | b as u64)
}

/// The block's ports as the run drives them, under either simulator.
trait Rtx {
    fn set_rst(&mut self, on: bool);
    /// The record offered this cycle (if any) and `m_axis_tready`.
    fn drive(&mut self, rec: Option<&Record>, ready: bool);
    fn step(&mut self);
    fn cycle(&self) -> u64;
    fn s_ready(&self) -> bool;
    /// The beat on `m_axis`: its kept bytes, `tlast`, `tuser`.
    fn beat(&self) -> Option<(Vec<u8>, bool, u64)>;
    /// `status_frames`, `status_drop_kind`.
    fn counters(&self) -> (u64, u64);
}

impl Rtx for ReplyTx {
    fn set_rst(&mut self, on: bool) {
        ReplyTx::set_rst(self, on as u64);
    }
    fn drive(&mut self, rec: Option<&Record>, ready: bool) {
        self.set_cfg_src_mac(mac(SRC_MAC));
        self.set_cfg_dst_mac(mac(DST_MAC));
        self.set_m_axis_tready(ready as u64);
        let Some(rec) = rec else {
            self.set_s_valid(0);
            return;
        };
        self.set_s_valid(1);
        self.set_s_kind(rec.kind);
        self.set_s_qp(rec.qp as u64);
        self.set_s_psn(rec.psn as u64);
        self.set_s_ack(rec.ack as u64);
        self.set_s_ack_psn(rec.ack_psn as u64);
        let mut w = [0u32; 8];
        for (i, c) in rec.bitmap.chunks(4).enumerate() {
            w[i] = u32::from_le_bytes(c.try_into().unwrap());
        }
        self.set_s_bitmap(&w);
        self.set_s_vni(rec.vni as u64);
        self.set_s_src_ip(rec.src_ip as u64);
        self.set_s_dst_ip(rec.dst_ip as u64);
    }
    fn step(&mut self) {
        Dut::step(self);
    }
    fn cycle(&self) -> u64 {
        Dut::cycle(self)
    }
    fn s_ready(&self) -> bool {
        ReplyTx::s_ready(self) == 1
    }
    fn beat(&self) -> Option<(Vec<u8>, bool, u64)> {
        if self.m_axis_tvalid() == 0 {
            return None;
        }
        let data = self.m_axis_tdata();
        let keep = self.m_axis_tkeep();
        let bytes = (0..128)
            .filter(|lane| keep[lane / 32] >> (lane % 32) & 1 == 1)
            .map(|lane| (data[lane / 4] >> (8 * (lane % 4))) as u8)
            .collect();
        Some((bytes, self.m_axis_tlast() == 1, self.m_axis_tuser()))
    }
    fn counters(&self) -> (u64, u64) {
        (self.status_frames(), self.status_drop_kind())
    }
}

/// The block in rust-hdl's simulator, `D`-bit bus.
struct Hdl<const D: usize, const K: usize> {
    u: HdlReplyTx<D, K>,
    cycles: u64,
}

impl<const D: usize, const K: usize> Hdl<D, K> {
    fn new() -> Self {
        let mut u = HdlReplyTx::<D, K>::default();
        u.connect_all();
        u.clk.next = false.into();
        hdl_sim::settle(&mut u, "initial values");
        Hdl { u, cycles: 0 }
    }
}

fn lit<const N: usize>(v: u64) -> Bits<N> {
    (v as LiteralType).into()
}

impl<const D: usize, const K: usize> Rtx for Hdl<D, K> {
    fn set_rst(&mut self, on: bool) {
        self.u.rst.next = on;
    }
    fn drive(&mut self, rec: Option<&Record>, ready: bool) {
        let u = &mut self.u;
        u.cfg_src_mac.next = lit(mac(SRC_MAC));
        u.cfg_dst_mac.next = lit(mac(DST_MAC));
        u.m_axis_tready.next = ready;
        u.s_valid.next = rec.is_some();
        let Some(rec) = rec else {
            return;
        };
        u.s_kind.next = lit(rec.kind);
        u.s_qp.next = lit(rec.qp as u64);
        u.s_psn.next = lit(rec.psn as u64);
        u.s_ack.next = rec.ack;
        u.s_ack_psn.next = lit(rec.ack_psn as u64);
        let mut b: Bits<256> = Default::default();
        for j in 0..256 {
            b = b.replace_bit(j, rec.bitmap[j / 8] >> (j % 8) & 1 == 1);
        }
        u.s_bitmap.next = b;
        u.s_vni.next = lit(rec.vni as u64);
        u.s_src_ip.next = lit(rec.src_ip as u64);
        u.s_dst_ip.next = lit(rec.dst_ip as u64);
    }
    fn step(&mut self) {
        hdl_sim::cycle(&mut self.u, |u, c| u.clk.next = c.into(), |_| ());
        self.cycles += 1;
    }
    fn cycle(&self) -> u64 {
        self.cycles
    }
    fn s_ready(&self) -> bool {
        self.u.s_ready.val()
    }
    fn beat(&self) -> Option<(Vec<u8>, bool, u64)> {
        let u = &self.u;
        if !u.m_axis_tvalid.val() {
            return None;
        }
        let (data, keep) = (u.m_axis_tdata.val(), u.m_axis_tkeep.val());
        let bytes = (0..K)
            .filter(|&lane| keep.get_bit(lane))
            .map(|lane| data.get_bits::<8>(8 * lane).index() as u8)
            .collect();
        Some((bytes, u.m_axis_tlast.val(), u.m_axis_tuser.val().to_u64()))
    }
    fn counters(&self) -> (u64, u64) {
        (
            self.u.status_frames.val().to_u64(),
            self.u.status_drop_kind.val().to_u64(),
        )
    }
}

/// What a run saw.
struct Run {
    /// Cycle each record was taken, and the cycle its frame's first beat was offered.
    taken: Vec<u64>,
    first_beat: Vec<u64>,
    cycles: u64,
    ready_low: u64,
}

/// `n` records offered with probability `p_valid`%, the output ready `p_ready`% of
/// cycles; checks every frame against the model and the counters at the end.
fn run(d: &mut impl Rtx, seed: u64, n: usize, p_valid: u64, p_ready: u64) -> Run {
    let mut r = rng(seed);
    d.drive(None, false);
    d.set_rst(true);
    d.step();
    d.set_rst(false);
    // s_ready rises on the first edge after reset.
    assert!(!d.s_ready());
    d.step();
    assert!(d.s_ready());
    let records: Vec<Record> = (0..n).map(|_| record(&mut r)).collect();
    let mut next = 0;
    // Taken good records, oldest first.
    let mut expect: VecDeque<usize> = VecDeque::new();
    let (mut frame, mut frames, mut bad) = (Vec::<u8>::new(), 0u64, 0u64);
    let mut run = Run {
        taken: vec![],
        first_beat: vec![],
        cycles: 0,
        ready_low: 0,
    };
    let mut idle = 0;
    while (next < n || !expect.is_empty()) && idle < 1_000 {
        let cycle = d.cycle();
        let ready = r() % 100 < p_ready;
        let beat = d.beat();
        if let Some((bytes, last, user)) = &beat {
            let i = *expect.front().expect("a frame nobody asked for");
            if frame.is_empty() {
                run.first_beat.push(cycle);
            }
            if ready {
                frame.extend_from_slice(bytes);
                if *last {
                    let rec = &records[i];
                    let reply = rec.reply.as_ref().unwrap();
                    let p = path(rec);
                    assert_eq!(
                        frame,
                        reply_inner(reply, &p),
                        "seed {seed} record {i}: {reply:?}"
                    );
                    let mut wire = reply_frame(reply, &p)[..50].to_vec();
                    wire.extend_from_slice(&frame);
                    assert_eq!(
                        parse_reply(&wire).as_ref(),
                        Ok(reply),
                        "seed {seed} record {i}"
                    );
                    assert_eq!(
                        *user,
                        (rec.qp as u64) << 24 | rec.vni as u64,
                        "seed {seed} record {i}: tuser"
                    );
                    frame.clear();
                    frames += 1;
                    expect.pop_front();
                }
            }
        }
        let offer = next < n && r() % 100 < p_valid;
        if !d.s_ready() {
            run.ready_low += 1;
        }
        d.drive(offer.then(|| &records[next]), ready);
        if offer && d.s_ready() {
            if records[next].reply.is_some() {
                expect.push_back(next);
                run.taken.push(cycle);
            } else {
                bad += 1;
            }
            next += 1;
        }
        idle = if offer || beat.is_some() { 0 } else { idle + 1 };
        d.step();
    }
    assert!(
        expect.is_empty(),
        "seed {seed}: {} frames never left",
        expect.len()
    );
    for _ in 0..4 {
        d.step();
    }
    assert_eq!(d.counters(), (frames, bad), "seed {seed}: counters");
    assert!(bad > 0 && frames > 0, "seed {seed}");
    run.cycles = d.cycle();
    run
}

#[test]
fn every_kind_matches_the_model_under_gaps_and_backpressure() {
    for (seed, p_valid, p_ready) in [(1, 70, 60), (2, 100, 30), (3, 40, 100), (4, 100, 90)] {
        let run = run(&mut ReplyTx::new(), seed, 4_000, p_valid, p_ready);
        // Backpressure fills the FIFO, and s_ready drops rather than losing a frame.
        if p_ready < 50 {
            assert!(run.ready_low > 0, "seed {seed}");
        }
    }
}

#[test]
fn one_reply_per_cycle_at_a_fixed_latency() {
    // The output never waits: every record is taken on the cycle it is offered and its
    // frame's beat is offered REPLY_TX_LATENCY cycles later (one beat per reply on the
    // 1024-bit bus: every inner reply fits 128 bytes).
    assert!(REPLY_INNER_BYTES.iter().all(|&b| b <= 128));
    let run = run(&mut ReplyTx::new(), 5, 2_000, 100, 100);
    assert_eq!(run.ready_low, 0);
    assert_eq!(run.taken.len(), run.first_beat.len());
    for (t, f) in run.taken.iter().zip(&run.first_beat) {
        assert_eq!(f - t, REPLY_TX_LATENCY as u64);
    }
    // Taken on consecutive cycles (bad kinds are taken too, and leave a gap).
    let span = run.taken.last().unwrap() - run.taken.first().unwrap();
    assert!(span < 2_000, "span {span}");
}

#[test]
fn rust_hdl_simulation_on_both_buses() {
    // 1024 bits: the same frames from rust-hdl's simulation of the Rust source as from
    // Verilator's of the Verilog; 512 bits: a request in two beats.
    run(&mut Hdl::<1024, 128>::new(), 6, 300, 70, 60);
    run(&mut Hdl::<512, 64>::new(), 7, 300, 70, 60);
    // The 512-bit bus, output always ready: one beat per cycle, a request's two beats
    // back to back, the first at the same latency.
    let fast = run(&mut Hdl::<512, 64>::new(), 8, 300, 100, 100);
    for (t, f) in fast.taken.iter().zip(&fast.first_beat) {
        assert!(f - t >= REPLY_TX_LATENCY as u64, "{t} {f}");
    }
    assert_eq!(fast.first_beat[0] - fast.taken[0], REPLY_TX_LATENCY as u64);
}
