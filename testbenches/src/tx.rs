//! Harness for the TX path (`tx_encap` alone, or inside `prnic_top`): an AXI4-Stream
//! source with idle gaps, a sink with backpressure that checks the protocol, and, for
//! the block alone, a flow-table responder that answers each lookup from a model table
//! `FLOW_TABLE_LATENCY` cycles later, as `flow_table` does.
//!
//! The harness is for the default config's 1024-bit bus (the bridge's port types are
//! generated for it).

use crate::bridge::{self, Dut};
use prnic_gen::PrnicConfig;
use prnic_rtl::flow_table::FLOW_TABLE_LATENCY;
use prnic_verif::flow_table::{key, Value};
use prnic_verif::sprayer::{flow_id, Mode, SprayerModel};
use prnic_verif::tx::{encapsulate, inner_dst_ip, TxFrame, TxOutcome, TxSettings};
use std::collections::{HashMap, VecDeque};

/// Bytes per beat of the default bus.
pub const BEAT_BYTES: usize = 128;
const DW: usize = BEAT_BYTES / 4;
const KW: usize = BEAT_BYTES / 32;

/// One input beat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beat {
    pub data: [u32; DW],
    pub keep: [u32; KW],
    pub last: bool,
    pub tuser: u64,
}

/// One output beat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutBeat {
    pub data: [u32; DW],
    pub keep: [u32; KW],
    pub last: bool,
    pub dest: u8,
}

/// The beats of a frame, `tkeep` low-justified on the last, except that the beat named
/// by `bad_keep_beat` has bit 0 of its `tkeep` toggled (always invalid: a hole in a full
/// beat, or a last beat that is not low-justified or empty).
pub fn beats_of(f: &TxFrame) -> Vec<Beat> {
    let n = f.bytes.len().div_ceil(BEAT_BYTES).max(1);
    (0..n)
        .map(|i| {
            let chunk = &f.bytes
                [(i * BEAT_BYTES).min(f.bytes.len())..((i + 1) * BEAT_BYTES).min(f.bytes.len())];
            let mut data = [0u32; DW];
            let mut keep = [0u32; KW];
            for (j, b) in chunk.iter().enumerate() {
                data[j / 4] |= (*b as u32) << (8 * (j % 4));
                keep[j / 32] |= 1 << (j % 32);
            }
            if f.bad_keep_beat == Some(i) {
                keep[0] ^= 1;
            }
            Beat {
                data,
                keep,
                last: i == n - 1,
                tuser: ((f.qp as u64 & 0xff_ffff) << 24) | (f.vni as u64 & 0xff_ffff),
            }
        })
        .collect()
}

/// A DUT with the TX path's two streams.
pub trait TxDut: Dut {
    fn drive_in(&mut self, beat: Option<&Beat>);
    fn set_out_ready(&mut self, ready: bool);
    fn settle(&mut self);
    fn in_ready(&self) -> bool;
    fn out_beat(&self) -> Option<OutBeat>;
    /// Work that must see this cycle's settled inputs before the edge (the responder).
    fn before_edge(&mut self) {}
}

macro_rules! tx_dut {
    ($t:ty, $tvalid:ident, $tdata:ident, $tkeep:ident, $tlast:ident, $tuser:ident, $tready:ident,
     $otready:ident, $otvalid:ident, $otdata:ident, $otkeep:ident, $otlast:ident, $otdest:ident) => {
        impl TxDut for $t {
            fn drive_in(&mut self, beat: Option<&Beat>) {
                match beat {
                    Some(b) => {
                        self.$tvalid(1);
                        self.$tdata(&b.data);
                        self.$tkeep(&b.keep);
                        self.$tlast(b.last as u64);
                        self.$tuser(b.tuser);
                    }
                    None => self.$tvalid(0),
                }
            }
            fn set_out_ready(&mut self, ready: bool) {
                self.$otready(ready as u64)
            }
            fn settle(&mut self) {
                self.eval();
            }
            fn in_ready(&self) -> bool {
                self.$tready() != 0
            }
            fn out_beat(&self) -> Option<OutBeat> {
                (self.$otvalid() != 0).then(|| OutBeat {
                    data: self.$otdata(),
                    keep: self.$otkeep(),
                    last: self.$otlast() != 0,
                    dest: self.$otdest() as u8,
                })
            }
        }
    };
}

tx_dut!(
    bridge::TxEncap,
    set_s_axis_tvalid,
    set_s_axis_tdata,
    set_s_axis_tkeep,
    set_s_axis_tlast,
    set_s_axis_tuser,
    s_axis_tready,
    set_m_axis_tready,
    m_axis_tvalid,
    m_axis_tdata,
    m_axis_tkeep,
    m_axis_tlast,
    m_axis_tdest
);
// The top has one AXI4-Stream per MAC port; the harness sees them as one stream whose
// `dest` is the port that carried the beat (both ports get the same `tready`).
impl TxDut for bridge::PrnicTop {
    fn drive_in(&mut self, beat: Option<&Beat>) {
        match beat {
            Some(b) => {
                self.set_s_axis_tx_tvalid(1);
                self.set_s_axis_tx_tdata(&b.data);
                self.set_s_axis_tx_tkeep(&b.keep);
                self.set_s_axis_tx_tlast(b.last as u64);
                self.set_s_axis_tx_tuser(b.tuser);
            }
            None => self.set_s_axis_tx_tvalid(0),
        }
    }
    fn set_out_ready(&mut self, ready: bool) {
        self.set_m_axis_port0_tx_tready(ready as u64);
        self.set_m_axis_port1_tx_tready(ready as u64);
    }
    fn settle(&mut self) {
        self.eval();
    }
    fn in_ready(&self) -> bool {
        self.s_axis_tx_tready() != 0
    }
    fn out_beat(&self) -> Option<OutBeat> {
        let p0 = self.m_axis_port0_tx_tvalid() != 0;
        let p1 = self.m_axis_port1_tx_tvalid() != 0;
        assert!(!(p0 && p1), "both MAC ports valid in one cycle");
        if p1 {
            Some(OutBeat {
                data: self.m_axis_port1_tx_tdata(),
                keep: self.m_axis_port1_tx_tkeep(),
                last: self.m_axis_port1_tx_tlast() != 0,
                dest: 1,
            })
        } else {
            p0.then(|| OutBeat {
                data: self.m_axis_port0_tx_tdata(),
                keep: self.m_axis_port0_tx_tkeep(),
                last: self.m_axis_port0_tx_tlast() != 0,
                dest: 0,
            })
        }
    }
}

/// A model flow table answering lookups a fixed number of cycles later, in order.
#[derive(Debug, Clone, Default)]
pub struct Responder {
    pub table: HashMap<u64, Value>,
    /// Cycles from a lookup to its answer (the flow table's is `FLOW_TABLE_LATENCY`).
    pub latency: u64,
    pending: VecDeque<(u64, Option<Value>)>,
    cycle: u64,
}

impl Responder {
    pub fn new(latency: u64) -> Self {
        Responder {
            latency,
            ..Default::default()
        }
    }

    /// Reset: lookups in flight are lost, as in the flow table's pipeline.
    pub fn reset(&mut self) {
        self.pending.clear();
    }

    /// This cycle's lookup (if any) in; this cycle's answer (if one is due) out.
    pub fn cycle(&mut self, lookup: Option<u64>) -> Option<Option<Value>> {
        if let Some(k) = lookup {
            self.pending
                .push_back((self.cycle + self.latency, self.table.get(&k).copied()));
        }
        let due = match self.pending.front() {
            Some(&(due, v)) if due == self.cycle => {
                self.pending.pop_front();
                Some(v)
            }
            _ => None,
        };
        self.cycle += 1;
        due
    }
}

/// `tx_encap` alone under Verilator, with a model flow table answering its lookups.
pub struct TxEncapBench {
    pub dut: bridge::TxEncap,
    pub table: Responder,
}

/// CSR inputs of `tx_encap` for one configuration.
fn cfg_words(s: &TxSettings, mode: Mode, min: u16, max: u16) -> [u64; 10] {
    [
        s.port_mac[0],
        s.port_mac[1],
        s.port_ip[0] as u64,
        s.port_ip[1] as u64,
        s.dscp as u64,
        s.ttl as u64,
        s.bth_mark as u64,
        mode as u64,
        min as u64,
        max as u64,
    ]
}

impl TxEncapBench {
    pub fn new(s: &TxSettings, mode: Mode, min: u16, max: u16) -> Self {
        let mut dut = bridge::TxEncap::new();
        let c = cfg_words(s, mode, min, max);
        dut.set_cfg_port0_mac(c[0]);
        dut.set_cfg_port1_mac(c[1]);
        dut.set_cfg_port0_ip(c[2]);
        dut.set_cfg_port1_ip(c[3]);
        dut.set_cfg_dscp(c[4]);
        dut.set_cfg_ttl(c[5]);
        dut.set_cfg_bth_mark(c[6]);
        dut.set_cfg_spray_mode(c[7]);
        dut.set_cfg_spray_min(c[8]);
        dut.set_cfg_spray_max(c[9]);
        let mut b = TxEncapBench {
            dut,
            table: Responder::new(FLOW_TABLE_LATENCY as u64),
        };
        b.reset(2);
        b
    }

    /// Synchronous reset for `cycles` cycles (the responder's lookups in flight are lost).
    pub fn reset(&mut self, cycles: u64) {
        self.dut.set_rst(1);
        for _ in 0..cycles {
            self.step();
        }
        self.dut.set_rst(0);
        self.table.reset();
    }

    /// Counters: frames sent, then drops by reason in `DropReason::ALL` order.
    pub fn counters(&self) -> [u64; 6] {
        let d = &self.dut;
        [
            d.status_frames(),
            d.status_drop_too_long(),
            d.status_drop_bad_keep(),
            d.status_drop_short(),
            d.status_drop_not_ipv4(),
            d.status_drop_miss(),
        ]
    }
}

fn value_words(v: Option<Value>) -> [u32; 4] {
    let b = v.map_or(0, |v| v.to_bits());
    [
        b as u32,
        (b >> 32) as u32,
        (b >> 64) as u32,
        (b >> 96) as u32 & 0xffff,
    ]
}

impl Dut for TxEncapBench {
    fn step(&mut self) {
        self.dut.eval();
        let lookup = (self.dut.m_lookup_valid() != 0).then(|| self.dut.m_lookup_key());
        match self.table.cycle(lookup) {
            Some(v) => {
                self.dut.set_s_result_valid(1);
                self.dut.set_s_result_hit(v.is_some() as u64);
                self.dut.set_s_result_value(&value_words(v));
            }
            None => self.dut.set_s_result_valid(0),
        }
        self.dut.step();
    }
    fn cycle(&self) -> u64 {
        self.dut.cycle()
    }
}

impl TxDut for TxEncapBench {
    fn drive_in(&mut self, beat: Option<&Beat>) {
        self.dut.drive_in(beat)
    }
    fn set_out_ready(&mut self, ready: bool) {
        self.dut.set_out_ready(ready)
    }
    fn settle(&mut self) {
        self.dut.eval()
    }
    fn in_ready(&self) -> bool {
        self.dut.in_ready()
    }
    fn out_beat(&self) -> Option<OutBeat> {
        self.dut.out_beat()
    }
}

/// `tx_encap` under rust-hdl's own simulator, for the two-simulator agreement test.
pub struct HdlTxEncap {
    pub uut: prnic_rtl::tx_encap::TxEncap<1024, 128>,
    pub table: Responder,
    cycle: u64,
}

fn to_bits<const N: usize>(w: &[u32]) -> rust_hdl::prelude::Bits<N> {
    let mut b = rust_hdl::prelude::Bits::<N>::default();
    for j in 0..N {
        b = b.replace_bit(j, w[j / 32] >> (j % 32) & 1 == 1);
    }
    b
}

fn from_bits<const N: usize, const W: usize>(b: rust_hdl::prelude::Bits<N>) -> [u32; W] {
    std::array::from_fn(|i| b.get_bits::<32>(32 * i).to_u32())
}

impl HdlTxEncap {
    pub fn new(cfg: &PrnicConfig, s: &TxSettings, mode: Mode, min: u16, max: u16) -> Self {
        let mut uut = prnic_gen::blocks::tx_encap::<1024, 128>(cfg);
        let c = cfg_words(s, mode, min, max);
        uut.cfg_port0_mac.next = c[0].into();
        uut.cfg_port1_mac.next = c[1].into();
        uut.cfg_port0_ip.next = c[2].into();
        uut.cfg_port1_ip.next = c[3].into();
        uut.cfg_dscp.next = c[4].into();
        uut.cfg_ttl.next = c[5].into();
        uut.cfg_bth_mark.next = c[6] != 0;
        uut.cfg_spray_mode.next = c[7].into();
        uut.cfg_spray_min.next = c[8].into();
        uut.cfg_spray_max.next = c[9].into();
        uut.clk.next = false.into();
        crate::hdl_sim::settle(&mut uut, "initial values");
        let mut h = HdlTxEncap {
            uut,
            table: Responder::new(FLOW_TABLE_LATENCY as u64),
            cycle: 0,
        };
        h.uut.rst.next = true;
        h.step();
        h.step();
        h.uut.rst.next = false;
        h
    }
}

impl Dut for HdlTxEncap {
    fn step(&mut self) {
        crate::hdl_sim::settle(&mut self.uut, "inputs");
        let u = &mut self.uut;
        let lookup = u
            .m_lookup_valid
            .val()
            .then(|| u.m_lookup_key.val().to_u64());
        match self.table.cycle(lookup) {
            Some(v) => {
                u.s_result_valid.next = true;
                u.s_result_hit.next = v.is_some();
                u.s_result_value.next = to_bits::<112>(&value_words(v));
            }
            None => u.s_result_valid.next = false,
        }
        crate::hdl_sim::cycle(u, |u, c| u.clk.next = c.into(), |_| ());
        self.cycle += 1;
    }
    fn cycle(&self) -> u64 {
        self.cycle
    }
}

impl TxDut for HdlTxEncap {
    fn drive_in(&mut self, beat: Option<&Beat>) {
        let u = &mut self.uut;
        u.s_axis_tvalid.next = beat.is_some();
        if let Some(b) = beat {
            u.s_axis_tdata.next = to_bits::<1024>(&b.data);
            u.s_axis_tkeep.next = to_bits::<128>(&b.keep);
            u.s_axis_tlast.next = b.last;
            u.s_axis_tuser.next = b.tuser.into();
        }
    }
    fn set_out_ready(&mut self, ready: bool) {
        self.uut.m_axis_tready.next = ready;
    }
    fn settle(&mut self) {
        crate::hdl_sim::settle(&mut self.uut, "inputs");
    }
    fn in_ready(&self) -> bool {
        self.uut.s_axis_tready.val()
    }
    fn out_beat(&self) -> Option<OutBeat> {
        let u = &self.uut;
        u.m_axis_tvalid.val().then(|| OutBeat {
            data: from_bits::<1024, DW>(u.m_axis_tdata.val()),
            keep: from_bits::<128, KW>(u.m_axis_tkeep.val()),
            last: u.m_axis_tlast.val(),
            dest: u.m_axis_tdest.val() as u8,
        })
    }
}

/// What the sink saw.
#[derive(Debug, Default, Clone)]
pub struct TxCapture {
    /// Each frame, its `tdest`, and the cycle its last beat left.
    pub frames: Vec<(Vec<u8>, u8, u64)>,
    /// Beats accepted by the sink.
    pub beats: u64,
    /// Cycle of the first and last accepted output beat.
    pub first_beat: Option<u64>,
    pub last_beat: u64,
    /// Cycles the source held a beat that was accepted, and the cycle the last input
    /// beat was accepted.
    pub in_beats: u64,
    /// The cycle each input frame's last beat was accepted.
    pub in_last: Vec<u64>,
    pub cycles: u64,
}

/// A stream-protocol violation seen by the sink.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Violation {
    /// A beat offered and not taken changed or disappeared.
    Unstable { cycle: u64 },
    /// `tkeep` not all ones before `tlast`, or not low-justified and non-empty on it.
    BadKeep { cycle: u64 },
    /// `tdest` changed inside a frame.
    DestChanged { cycle: u64 },
}

fn keep_bytes(keep: &[u32; KW]) -> Option<usize> {
    let mut n = 0;
    let mut ended = false;
    for i in 0..BEAT_BYTES {
        let bit = keep[i / 32] >> (i % 32) & 1 == 1;
        if bit && ended {
            return None;
        }
        if bit {
            n += 1;
        } else {
            ended = true;
        }
    }
    Some(n)
}

/// Drive `frames` through the DUT. `gap(cycle)` true leaves the input idle for a cycle
/// (only between beats: a beat once offered stays until taken); `ready(cycle)` is the
/// sink's `tready`. Runs until `expect_out` frames have left and then `drain` more
/// cycles (so a frame that should not leave would be seen), or `max_cycles`.
pub fn run<T: TxDut>(
    dut: &mut T,
    frames: &[TxFrame],
    gap: impl FnMut(u64) -> bool,
    ready: impl FnMut(u64) -> bool,
    expect_out: usize,
    drain: u64,
    max_cycles: u64,
) -> Result<TxCapture, Violation> {
    run_hooked(
        dut,
        frames,
        gap,
        ready,
        expect_out,
        drain,
        max_cycles,
        |_, _| {},
    )
}

/// [`run`], with `hook(dut, cycle)` called at the start of every cycle in which no input
/// beat is on offer. The hook may step the DUT (e.g. an AXI4-Lite access): it must leave
/// `tvalid` low and `tready` low while it does, which keeps both streams legal.
#[allow(clippy::too_many_arguments)]
pub fn run_hooked<T: TxDut>(
    dut: &mut T,
    frames: &[TxFrame],
    mut gap: impl FnMut(u64) -> bool,
    mut ready: impl FnMut(u64) -> bool,
    expect_out: usize,
    drain: u64,
    max_cycles: u64,
    mut hook: impl FnMut(&mut T, u64),
) -> Result<TxCapture, Violation> {
    let mut beats: VecDeque<Beat> = frames.iter().flat_map(beats_of).collect();
    let mut cap = TxCapture::default();
    let mut offered: Option<Beat> = None;
    let mut out_pending: Option<OutBeat> = None;
    let mut cur: Vec<u8> = vec![];
    let mut cur_dest: Option<u8> = None;
    let mut done_at: Option<u64> = None;
    for cycle in 0..max_cycles {
        if offered.is_none() {
            hook(dut, cycle);
        }
        if offered.is_none() && !beats.is_empty() && !gap(cycle) {
            offered = beats.pop_front();
        }
        dut.drive_in(offered.as_ref());
        let r = ready(cycle);
        dut.set_out_ready(r);
        dut.settle();
        let in_fire = offered.is_some() && dut.in_ready();
        let out = dut.out_beat();
        if let Some(p) = &out_pending {
            if out.as_ref() != Some(p) {
                return Err(Violation::Unstable { cycle });
            }
        }
        out_pending = None;
        if let Some(o) = out {
            if r {
                let n = keep_bytes(&o.keep).ok_or(Violation::BadKeep { cycle })?;
                if (!o.last && n != BEAT_BYTES) || (o.last && n == 0) {
                    return Err(Violation::BadKeep { cycle });
                }
                if cur_dest.is_some_and(|d| d != o.dest) {
                    return Err(Violation::DestChanged { cycle });
                }
                cur_dest = Some(o.dest);
                for j in 0..n {
                    cur.push((o.data[j / 4] >> (8 * (j % 4))) as u8);
                }
                cap.beats += 1;
                cap.first_beat.get_or_insert(cycle);
                cap.last_beat = cycle;
                if o.last {
                    cap.frames.push((std::mem::take(&mut cur), o.dest, cycle));
                    cur_dest = None;
                }
            } else {
                out_pending = Some(o);
            }
        }
        dut.step();
        if in_fire {
            if offered.as_ref().is_some_and(|b| b.last) {
                cap.in_last.push(cycle);
            }
            offered = None;
            cap.in_beats += 1;
        }
        cap.cycles = cycle + 1;
        if cap.frames.len() >= expect_out && beats.is_empty() && offered.is_none() {
            let d = *done_at.get_or_insert(cycle);
            if cycle >= d + drain {
                break;
            }
        }
    }
    dut.drive_in(None);
    Ok(cap)
}

/// The expected outcome of every frame, in order: one sprayer request per frame (the
/// hardware asks at each first beat, whatever becomes of the frame).
pub fn expected(
    s: &TxSettings,
    table: &HashMap<u64, Value>,
    frames: &[TxFrame],
    spray: &mut SprayerModel,
    mode: Mode,
    min: u16,
    max: u16,
) -> Vec<TxOutcome> {
    frames
        .iter()
        .map(|f| {
            let port = spray.port(mode, min, max, flow_id(f.vni, f.qp));
            let hit = table.get(&key(f.vni, inner_dst_ip(&f.bytes))).copied();
            encapsulate(s, f, hit, port)
        })
        .collect()
}

/// The default-mode expectation: `expected` with a fresh sprayer model in per-packet mode
/// over the config's default port range.
pub fn expected_default(
    cfg: &PrnicConfig,
    s: &TxSettings,
    table: &HashMap<u64, Value>,
    frames: &[TxFrame],
) -> Vec<TxOutcome> {
    expected(
        s,
        table,
        frames,
        &mut SprayerModel::new(cfg.sprayer.hash_seed),
        Mode::PerPacket,
        cfg.sprayer.port_min as u16,
        cfg.sprayer.port_max as u16,
    )
}

/// The frames the model sends, in order.
pub fn sent_frames(want: &[TxOutcome]) -> Vec<&Vec<u8>> {
    want.iter()
        .filter_map(|o| match o {
            TxOutcome::Sent { frame, .. } => Some(frame),
            _ => None,
        })
        .collect()
}

/// The TX settings the default config's CSR reset values give, with test addresses.
pub fn settings(cfg: &PrnicConfig) -> TxSettings {
    TxSettings {
        port_mac: [0x02_00_5e_10_00_01, 0x02_00_5e_10_00_02],
        port_ip: [0x0a01_0001, 0x0a01_0002],
        dscp: 26,
        ttl: 64,
        bth_mark: true,
        max_frame_bytes: cfg.packet.max_frame_bytes as usize,
    }
}

/// What a frame's outer header shows of the flow-table entry that sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    pub underlay_ip: u32,
    pub next_hop_mac: u64,
    pub vni: u32,
    /// Egress port (`tdest`, flags bit 0).
    pub port: u8,
}

impl Seen {
    /// The part of a table value the wire shows.
    pub fn of(v: &Value) -> Seen {
        Seen {
            underlay_ip: v.underlay_ip,
            next_hop_mac: v.next_hop_mac,
            vni: v.vni,
            port: v.flags & 1,
        }
    }
}

/// Send one RoCEv2 frame for `{VNI, inner destination IPv4}` = `k` through the TX path
/// of `prnic_top` and report what its outer header carries, or `None` if nothing left
/// within 200 cycles (a miss is dropped).
pub fn probe(d: &mut bridge::PrnicTop, k: u64) -> Option<Seen> {
    let f = TxFrame {
        bytes: prnic_verif::tx::rocev2_frame(128, k as u32, 7, 1, 0, k),
        vni: (k >> 32) as u32,
        qp: 7,
        bad_keep_beat: None,
    };
    let cap = run(d, &[f], |_| false, |_| true, 1, 0, 200).expect("AXI4-Stream protocol");
    let (o, dest, _) = cap.frames.first()?;
    Some(Seen {
        next_hop_mac: u64::from_be_bytes([0, 0, o[0], o[1], o[2], o[3], o[4], o[5]]),
        underlay_ip: u32::from_be_bytes([o[30], o[31], o[32], o[33]]),
        vni: u32::from_be_bytes([0, o[46], o[47], o[48]]),
        port: *dest,
    })
}

/// A mixed TX scenario: `tenants` tenants (VNIs 100..), each with a few destinations in
/// the table; frames of random length (64 bytes to the inner frame of a 4 KiB MTU
/// packet) to known and unknown destinations, with `bad_pct` percent malformed (too
/// short, not IPv4, bad `tkeep`, longer than `max_frame_bytes`).
pub fn mixed_scenario(
    seed: u64,
    frames: usize,
    tenants: u32,
    bad_pct: u64,
    max_frame_bytes: usize,
) -> (HashMap<u64, Value>, Vec<TxFrame>) {
    use prnic_verif::flow_table::{rng, value_for};
    use prnic_verif::tx::rocev2_frame;
    let mut next = rng(seed);
    let mut table = HashMap::new();
    let dsts: Vec<u32> = (0..8).map(|i| 0x0a00_0100 + i).collect();
    for t in 0..tenants {
        for d in &dsts[..6] {
            table.insert(key(100 + t, *d), value_for(next()));
        }
    }
    let mut out = vec![];
    for i in 0..frames {
        let r = next();
        let vni = 100 + (r % tenants as u64) as u32;
        let dst = dsts[(r >> 8) as usize % dsts.len()];
        let qp = 1 + (r >> 16) as u32 % 64;
        let len = 64 + (next() as usize % (4170 - 64 + 1));
        let ecn = (r >> 24) as u8 & 3;
        let mut f = TxFrame {
            bytes: rocev2_frame(len, dst, qp, i as u32, ecn, r),
            vni,
            qp,
            bad_keep_beat: None,
        };
        if next() % 100 < bad_pct {
            match next() % 4 {
                0 => f.bytes.truncate(14 + (next() as usize % 40)),
                1 => {
                    f.bytes[12] = 0x86;
                    f.bytes[13] = 0xdd;
                }
                2 => f.bad_keep_beat = Some(next() as usize % f.bytes.len().div_ceil(BEAT_BYTES)),
                _ => {
                    let extra = 1 + next() as usize % 300;
                    f.bytes.resize(max_frame_bytes + extra, 0x5a)
                }
            }
        }
        out.push(f);
    }
    (table, out)
}

/// `prnic-sim tx`: a mixed scenario checked against the model, and bus-rate figures.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TxReport {
    pub frames_in: usize,
    pub tenants: u32,
    pub frames_sent: u64,
    pub dropped: std::collections::BTreeMap<String, u64>,
    /// Frames whose bytes, port or drop differed from the golden model (must be 0).
    pub model_mismatches: u64,
    pub pcap: Option<String>,
    pub throughput: Vec<ThroughputRow>,
}

/// Back-to-back frames of one length, output always ready.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ThroughputRow {
    pub inner_bytes: usize,
    pub frames: usize,
    pub in_beats_per_frame: u64,
    pub out_beats_per_frame: u64,
    /// Steady state (after the first quarter of the frames).
    pub cycles_per_frame: f64,
    /// Cycles per frame without a valid output beat.
    pub idle_beats_per_frame: f64,
    pub wire_gbps: f64,
    pub bus_gbps: f64,
}

/// `tx_encap` in the config's default spray mode and range, answering from `table`.
pub fn bench_for(cfg: &PrnicConfig, s: &TxSettings, table: &HashMap<u64, Value>) -> TxEncapBench {
    let mut b = TxEncapBench::new(
        s,
        Mode::PerPacket,
        cfg.sprayer.port_min as u16,
        cfg.sprayer.port_max as u16,
    );
    b.table.table = table.clone();
    b
}

/// Run the mixed scenario; write the wire frames to `pcap` (timestamps in simulated
/// time at the configured clock).
pub fn scenario(
    cfg: &PrnicConfig,
    seed: u64,
    frames: usize,
    pcap: Option<&std::path::Path>,
) -> std::io::Result<TxReport> {
    let s = settings(cfg);
    let tenants = 4;
    let (table, fr) = mixed_scenario(seed, frames, tenants, 10, s.max_frame_bytes);
    let want = expected_default(cfg, &s, &table, &fr);
    let sent: Vec<(&Vec<u8>, u8)> = want
        .iter()
        .filter_map(|o| match o {
            TxOutcome::Sent { frame, port } => Some((frame, *port)),
            _ => None,
        })
        .collect();
    let mut b = bench_for(cfg, &s, &table);
    let beats: u64 = fr.iter().map(|f| beats_of(f).len() as u64).sum();
    let cap = run(
        &mut b,
        &fr,
        |_| false,
        |_| true,
        sent.len(),
        100,
        1000 + 4 * beats,
    )
    .map_err(|v| std::io::Error::other(format!("AXI4-Stream violation: {v:?}")))?;
    let mut mismatches = sent.len().abs_diff(cap.frames.len()) as u64;
    for ((w, p), (g, d, _)) in sent.iter().zip(&cap.frames) {
        if *w != g || p != d {
            mismatches += 1;
        }
    }
    let c = b.counters();
    let mut dropped = std::collections::BTreeMap::new();
    for (i, r) in prnic_verif::tx::DropReason::ALL.iter().enumerate() {
        dropped.insert(r.name().to_string(), c[i + 1]);
        let model = want
            .iter()
            .filter(|o| **o == TxOutcome::Dropped(*r))
            .count() as u64;
        mismatches += model.abs_diff(c[i + 1]);
    }
    if let Some(path) = pcap {
        let period_ps = 1e6 / cfg.clock.mhz;
        let mut w = prnic_verif::tx::PcapWriter::new(std::io::BufWriter::new(
            std::fs::File::create(path)
                .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?,
        ))?;
        for (f, _, cycle) in &cap.frames {
            w.frame((*cycle as f64 * period_ps / 1000.0) as u64, f)?;
        }
        w.finish()?;
    }
    Ok(TxReport {
        frames_in: fr.len(),
        tenants,
        frames_sent: c[0],
        dropped,
        model_mismatches: mismatches,
        pcap: pcap.map(|p| p.display().to_string()),
        throughput: [4170usize, 4200, 64]
            .iter()
            .map(|&len| throughput(cfg, len, 200))
            .collect(),
    })
}

/// Back-to-back frames of `len` bytes with the sink always ready.
pub fn throughput(cfg: &PrnicConfig, len: usize, frames: usize) -> ThroughputRow {
    let s = settings(cfg);
    let mut table = HashMap::new();
    table.insert(key(3, 0x0a00_0009), prnic_verif::flow_table::value_for(5));
    let fr: Vec<TxFrame> = (0..frames)
        .map(|i| TxFrame {
            bytes: prnic_verif::tx::rocev2_frame(len, 0x0a00_0009, 1, i as u32, 0, i as u64),
            vni: 3,
            qp: 1,
            bad_keep_beat: None,
        })
        .collect();
    let mut b = bench_for(cfg, &s, &table);
    let beats = fr.iter().map(|f| beats_of(f).len() as u64).sum::<u64>();
    let cap = run(
        &mut b,
        &fr,
        |_| false,
        |_| true,
        frames,
        0,
        1000 + 4 * beats,
    )
    .expect("AXI4-Stream protocol");
    let q = frames / 4;
    let span = (cap.frames[frames - 1].2 - cap.frames[q - 1].2) as f64;
    let n = (frames - q) as f64;
    let out_beats = cap.beats / frames as u64;
    let cpf = span / n;
    let ns = cpf * 1000.0 / cfg.clock.mhz;
    ThroughputRow {
        inner_bytes: len,
        frames,
        in_beats_per_frame: len.div_ceil(BEAT_BYTES) as u64,
        out_beats_per_frame: out_beats,
        cycles_per_frame: cpf,
        idle_beats_per_frame: cpf - out_beats as f64,
        wire_gbps: (len + 50) as f64 * 8.0 / ns,
        bus_gbps: cfg.bus_gbps(),
    }
}
