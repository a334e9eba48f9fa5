//! `reply_tx` (Verilator): every reply kind, with random fields, random gaps on the
//! record port and random `m_axis_tready`, comes out as the inner frame the golden model
//! builds from the published format (`prnic_verif::reply::reply_inner`,
//! docs/reply-frames.md), byte for byte: ICRC, IPv4 checksum and lengths included. Each
//! frame is also wrapped in the model's outer headers and parsed back by the model's
//! strict parser, which checks the ICRC by the InfiniBand rules. Fields a kind does not
//! carry are driven with junk, which must not reach the frame; kinds 6 and 7 are dropped
//! and counted. With the output never waiting, one reply leaves per cycle, each
//! `REPLY_TX_LATENCY` cycles after it was taken.

use std::collections::VecDeque;

use prnic_rtl::reply_tx::{REPLY_INNER_BYTES, REPLY_TX_LATENCY};
use prnic_testbenches::bridge::{Dut, ReplyTx};
use prnic_verif::reply::{parse_reply, reply_frame, reply_inner, Reply, ReplyPath};
use prnic_verif::rng::rng;

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
    let reply = match kind {
        0 => Some(Reply::Ack { qp, next: psn }),
        1 => Some(Reply::Request {
            qp,
            ack: ack.then_some(ack_psn),
            base: psn,
            missing: bitmap,
        }),
        2 => Some(Reply::CreditRequest { qp }),
        3 => Some(Reply::CreditGrant { qp }),
        4 | 5 => Some(Reply::CreditOnOff { qp, on: kind == 4 }),
        _ => None,
    };
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

fn drive(d: &mut ReplyTx, rec: Option<&Record>) {
    let Some(rec) = rec else {
        d.set_s_valid(0);
        return;
    };
    d.set_s_valid(1);
    d.set_s_kind(rec.kind);
    d.set_s_qp(rec.qp as u64);
    d.set_s_psn(rec.psn as u64);
    d.set_s_ack(rec.ack as u64);
    d.set_s_ack_psn(rec.ack_psn as u64);
    let mut w = [0u32; 8];
    for (i, c) in rec.bitmap.chunks(4).enumerate() {
        w[i] = u32::from_le_bytes(c.try_into().unwrap());
    }
    d.set_s_bitmap(&w);
    d.set_s_vni(rec.vni as u64);
    d.set_s_src_ip(rec.src_ip as u64);
    d.set_s_dst_ip(rec.dst_ip as u64);
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
fn run(seed: u64, n: usize, p_valid: u64, p_ready: u64) -> Run {
    let mut r = rng(seed);
    let mut d = ReplyTx::new();
    d.set_cfg_src_mac(mac(SRC_MAC));
    d.set_cfg_dst_mac(mac(DST_MAC));
    d.set_rst(1);
    d.step();
    d.set_rst(0);
    // s_ready rises on the first edge after reset.
    assert_eq!(d.s_ready(), 0);
    d.step();
    assert_eq!(d.s_ready(), 1);
    let records: Vec<Record> = (0..n).map(|_| record(&mut r)).collect();
    let mut next = 0;
    // Taken good records, oldest first, with the cycle they were taken.
    let mut expect: VecDeque<(usize, u64)> = VecDeque::new();
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
        if d.m_axis_tvalid() == 1 {
            let (i, _) = *expect.front().expect("a frame nobody asked for");
            if frame.is_empty() {
                run.first_beat.push(cycle);
            }
            if ready {
                let data = d.m_axis_tdata();
                let keep = d.m_axis_tkeep();
                for lane in 0..128 {
                    if keep[lane / 32] >> (lane % 32) & 1 == 1 {
                        frame.push((data[lane / 4] >> (8 * (lane % 4))) as u8);
                    }
                }
                if d.m_axis_tlast() == 1 {
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
                        d.m_axis_tuser(),
                        (rec.qp as u64) << 24 | rec.vni as u64,
                        "seed {seed} record {i}: tuser"
                    );
                    frame.clear();
                    frames += 1;
                    expect.pop_front();
                }
            }
        }
        d.set_m_axis_tready(ready as u64);
        let offer = next < n && r() % 100 < p_valid;
        if d.s_ready() == 0 {
            run.ready_low += 1;
        }
        if offer {
            drive(&mut d, Some(&records[next]));
            if d.s_ready() == 1 {
                if records[next].reply.is_some() {
                    expect.push_back((next, cycle));
                    run.taken.push(cycle);
                } else {
                    bad += 1;
                }
                next += 1;
            }
        } else {
            drive(&mut d, None);
        }
        idle = if offer || d.m_axis_tvalid() == 1 {
            0
        } else {
            idle + 1
        };
        d.step();
    }
    assert!(
        expect.is_empty(),
        "seed {seed}: {} frames never left",
        expect.len()
    );
    d.step_n(4);
    assert_eq!(d.status_frames(), frames, "seed {seed}");
    assert_eq!(d.status_drop_kind(), bad, "seed {seed}");
    assert!(bad > 0 && frames > 0, "seed {seed}");
    run.cycles = d.cycle();
    run
}

#[test]
fn every_kind_matches_the_model_under_gaps_and_backpressure() {
    for (seed, p_valid, p_ready) in [(1, 70, 60), (2, 100, 30), (3, 40, 100), (4, 100, 90)] {
        let run = run(seed, 4_000, p_valid, p_ready);
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
    let run = run(5, 2_000, 100, 100);
    assert_eq!(run.ready_low, 0);
    assert_eq!(run.taken.len(), run.first_beat.len());
    for (t, f) in run.taken.iter().zip(&run.first_beat) {
        assert_eq!(f - t, REPLY_TX_LATENCY as u64);
    }
    // Taken on consecutive cycles (bad kinds are taken too, and leave a gap).
    let span = run.taken.last().unwrap() - run.taken.first().unwrap();
    assert!(span < 2_000, "span {span}");
}
