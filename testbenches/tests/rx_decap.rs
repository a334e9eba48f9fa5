//! The receive path under Verilator: `rx_decap` and `rx_reorder` wired together, driven
//! with wire frames. Every placement (QP, address, rkey, length, payload bytes), every
//! reorder outcome and every drop counter is compared with the golden models. The last
//! tests put the reorder model in `rx_reorder`'s place, to vary its verdict latency and
//! hold its headers.

use prnic_rtl::rx_decap::{
    RX_DECAP_HDR_LATENCY, RX_DECAP_REPLY_LATENCY, RX_DECAP_VERDICT_TO_PLACE, RX_VERDICT_LATENCY_MAX,
};
use prnic_rtl::rx_reorder::RX_REORDER_LATENCY;
use prnic_testbenches::rx_decap::{
    compare, compare_decap, expected, max_wire_frame, RxModelPath, RxPath, RxRun, WireInput,
};
use prnic_testbenches::rx_reorder::default_settings;
use prnic_verif::reply::{reply_frame, Reply, ReplyPath, SREQ_BITMAP_BYTES};
use prnic_verif::rng::rng;
use prnic_verif::rx_decap::{wire_frame, RdmaPacket, RxDrop, OP_WRITE_LAST_IMM, OP_WRITE_MIDDLE};
use prnic_verif::rx_reorder::{ReorderModel, ReorderSettings, Verdict};
use proptest::prelude::*;

/// Tenants 0..7 own VNIs 0x100 + slot; slot 6 is disabled.
fn local_vni() -> [u32; 8] {
    std::array::from_fn(|i| {
        if i == 6 {
            0x106
        } else {
            0x8000_0100 + i as u32
        }
    })
}

struct Setup {
    path: RxPath,
    model: ReorderModel,
}

/// QPs 0..n, QP q owned by tenant q % 8 (slot 6 disabled), first PSN `base(q)`.
fn setup(n: u32, s: ReorderSettings) -> Setup {
    let mut path = RxPath::new(&local_vni(), &s);
    let mut model = ReorderModel::new(s);
    for q in 0..n {
        path.create_qp(q, (q % 8) as u8, base(q));
        model.configure(q, true, (q % 8) as u8, base(q));
    }
    Setup { path, model }
}

fn base(q: u32) -> u32 {
    (q * 0x1_0101) % (1 << 24)
}

fn packet(qp: u32, k: u32, len: usize, imm: bool, fill: u64) -> RdmaPacket {
    let mut r = rng(fill);
    RdmaPacket {
        vni: 0x100 + qp % 8,
        qp,
        psn: (base(qp) + k) % (1 << 24),
        opcode: if imm {
            OP_WRITE_LAST_IMM
        } else {
            OP_WRITE_MIDDLE
        },
        ack_req: k % 4 == 3,
        va: 0x7f00_0000_0000 + ((qp as u64) << 32) + k as u64 * 4096,
        rkey: 0x1000 + qp,
        imm: imm.then_some(0xc0de_0000 | k),
        payload: (0..len).map(|_| r() as u8).collect(),
    }
}

fn good(p: &RdmaPacket) -> WireInput {
    WireInput {
        bytes: wire_frame(p),
        bad_keep: false,
    }
}

fn run_and_check(
    st: &mut Setup,
    frames: &[WireInput],
    idle: impl FnMut(u64) -> bool,
    ready: impl FnMut(u64) -> bool,
) -> RxRun {
    let want = expected(frames, &local_vni(), &mut st.model);
    let run = st.path.run(frames, idle, ready);
    let diffs = compare(&st.path, &run, &want);
    assert!(diffs.is_empty(), "{diffs:#?}");
    run
}

/// One malformed frame of each kind, each followed by a good one that must be placed.
fn malformed(i: u32) -> (WireInput, RxDrop) {
    let p = packet(1, 1000 + i, 300, false, i as u64);
    let mut f = wire_frame(&p);
    let reason = RxDrop::ALL[(i as usize) % RxDrop::ALL.len()];
    let mut bad_keep = false;
    match reason {
        RxDrop::BadKeep => bad_keep = true,
        RxDrop::TooLong => {
            let q = packet(1, 1000 + i, max_wire_frame(), false, 1);
            f = wire_frame(&q);
        }
        RxDrop::Truncated => f.truncate(100),
        RxDrop::NotIpv4 => f[14] = 0x46,
        RxDrop::BadChecksum => f[25] ^= 0x10,
        RxDrop::BadPort => f[36] ^= 1,
        RxDrop::BadVxlan => f[42] = 0,
        RxDrop::UnknownVni => f[48] = 6,
        RxDrop::BadInner => f[97] = 1,
        RxDrop::BadOpcode => f[92] = 0x04,
        RxDrop::BadLength => f[118] ^= 1,
        RxDrop::BadIcrc => f[124 + i as usize % 200] ^= 0x04,
    }
    (WireInput { bytes: f, bad_keep }, reason)
}

#[test]
fn every_drop_reason_is_counted_and_the_next_frame_passes() {
    let mut st = setup(8, default_settings());
    let mut frames = vec![];
    let n = 2 * RxDrop::ALL.len() as u32;
    for i in 0..n {
        frames.push(malformed(i).0);
        frames.push(good(&packet(2, i, 200 + i as usize, i % 3 == 0, i as u64)));
    }
    let run = run_and_check(&mut st, &frames, |_| false, |_| true);
    assert_eq!(run.placements.len(), n as usize);
    for (r, n) in st.path.drops() {
        assert_eq!(n, 2, "{r:?}");
    }
    // Every good frame was placed within a bounded time of its last beat.
    let lat: Vec<u64> = run
        .place_done
        .iter()
        .zip(run.frame_done.iter().skip(1).step_by(2))
        .map(|(p, f)| p - f)
        .collect();
    let worst = *lat.iter().max().unwrap();
    // The bound: draining one maximum-length frame ahead of it, plus the pipeline (the
    // input never pauses here, so that backlog stays): the header out, rx_reorder's
    // verdict, placement's start, and the good frame's own three beats.
    let pipeline =
        RX_DECAP_HDR_LATENCY as u64 + RX_REORDER_LATENCY as u64 + RX_DECAP_VERDICT_TO_PLACE as u64;
    let bound = max_wire_frame().div_ceil(128) as u64 + pipeline + 3;
    println!("placement latency after each malformed frame: {lat:?} (bound {bound})");
    assert!(
        worst <= bound,
        "a good frame after a bad one took {worst} cycles"
    );
}

/// One flipped bit in any byte of the inner packet (from its IPv4 header through the
/// ICRC) is dropped and counted, unless it is in a field the ICRC masks (the frame is
/// then good); a good frame follows each. The payload bytes are caught by the ICRC
/// alone.
#[test]
fn a_flipped_bit_anywhere_in_the_inner_packet_is_dropped() {
    let mut st = setup(8, default_settings());
    let p = packet(3, 0, 150, true, 9);
    let f = wire_frame(&p);
    let mut frames = vec![];
    let mut masked = 0;
    for (k, i) in (64..f.len()).enumerate() {
        let mut x = f.clone();
        x[i] ^= 1 << (i % 8);
        masked += usize::from(prnic_verif::icrc::WIRE_MASKED_BYTES.contains(&i));
        frames.push(WireInput {
            bytes: x,
            bad_keep: false,
        });
        frames.push(good(&packet(
            2,
            k as u32,
            60 + k % 70,
            k % 5 == 0,
            k as u64,
        )));
    }
    let run = run_and_check(&mut st, &frames, |_| false, |_| true);
    let dropped: u64 = st.path.drops().iter().map(|(_, n)| n).sum();
    let icrc = st
        .path
        .drops()
        .iter()
        .find(|(r, _)| *r == RxDrop::BadIcrc)
        .unwrap()
        .1;
    assert_eq!(dropped as usize, f.len() - 64 - masked);
    // Every payload and ICRC byte fails on the ICRC alone.
    assert!(icrc as usize >= f.len() - 124 - 4, "{icrc}");
    // A copy with a masked byte flipped is the packet itself: the first is placed, the
    // others are duplicates that rx_reorder refuses.
    assert_eq!(run.placements.len(), frames.len() / 2 + 1);
    assert_eq!(st.path.decap.status_drop_verdict() as usize, masked - 1);
}

#[test]
fn every_payload_length_both_header_sizes() {
    let mut st = setup(4, default_settings());
    let mut frames = vec![];
    let mut k = 0;
    for len in 0..=300usize {
        for imm in [false, true] {
            frames.push(good(&packet(3, k, len, imm, len as u64)));
            k += 1;
        }
    }
    let run = run_and_check(&mut st, &frames, |_| false, |_| true);
    assert_eq!(
        run.placements.len(),
        600,
        "zero-length payloads place nothing"
    );
    // Every placed packet is reported done once, the two zero-length ones included
    // (prnic_top releases CQEs by this count).
    assert_eq!(run.places_done, 602);
}

#[test]
fn reordered_duplicated_multi_tenant_with_backpressure() {
    let mut st = setup(32, default_settings());
    let mut r = rng(5);
    let mut frames = vec![];
    // 32 QPs x 40 packets, shuffled within blocks of 4 per QP (so at most one
    // write-with-immediate waits at a time: a dropped one would block its QP for good,
    // as nothing here retransmits) and interleaved.
    let mut per_qp: Vec<Vec<WireInput>> = (0..32)
        .map(|q| {
            let mut v: Vec<WireInput> = (0..40)
                .map(|k| good(&packet(q, k, (r() % 2000) as usize, k % 5 == 4, r())))
                .collect();
            for c in v.chunks_mut(4) {
                for a in (1..c.len()).rev() {
                    let b = (r() % (a as u64 + 1)) as usize;
                    c.swap(a, b);
                }
            }
            v
        })
        .collect();
    while per_qp.iter().any(|v| !v.is_empty()) {
        let q = (r() % 32) as usize;
        if !per_qp[q].is_empty() {
            let f = per_qp[q].remove(0);
            if r().is_multiple_of(20) {
                frames.push(f.clone());
            }
            frames.push(f);
        }
    }
    let run = run_and_check(&mut st, &frames, |c| c % 7 == 3, |c| c % 5 != 0);
    // Under backpressure each placed packet is reported done once (zero-length ones,
    // which place no beat, included).
    let placed = run
        .outcomes
        .iter()
        .filter(|(_, o)| o.verdict == Verdict::Place)
        .count();
    assert_eq!(run.places_done, placed as u64);
    let cqes: usize = run.outcomes.iter().map(|(_, o)| o.cqes.len()).sum();
    assert!(cqes > 200, "{cqes} CQEs");
    assert!(run
        .outcomes
        .iter()
        .any(|(_, o)| o.verdict == Verdict::Duplicate));
}

#[test]
fn foreign_tenants_and_unknown_qps_are_never_placed() {
    let mut st = setup(16, default_settings());
    let mut frames = vec![];
    for k in 0..64u32 {
        let mut p = packet(k % 16, k / 16, 100, false, k as u64);
        match k % 4 {
            // Another tenant's VNI for this QP.
            0 => p.vni = 0x100 + (p.qp + 1) % 8,
            // A QP the config does not have.
            1 => p.qp = 5000 + k,
            // The disabled LOCAL_VNI slot.
            2 => p.vni = 0x106,
            _ => {}
        }
        frames.push(good(&p));
    }
    let run = run_and_check(&mut st, &frames, |_| false, |_| true);
    // Only the last kind (one in four) is placed; each QP's packets are in order.
    assert_eq!(run.placements.len(), 16);
    for p in &run.placements {
        assert_eq!(p.rkey, 0x1000 + p.qp);
    }
}

#[test]
fn back_to_back_4k_packets_cycles_per_packet() {
    let mut st = setup(2, default_settings());
    let n = 200u32;
    let frames: Vec<WireInput> = (0..n)
        .map(|k| good(&packet(1, k, 4096, k % 16 == 15, k as u64)))
        .collect();
    let beats_in: usize = frames.iter().map(|f| f.bytes.len().div_ceil(128)).sum();
    let run = run_and_check(&mut st, &frames, |_| false, |_| true);
    let span = run.place_done.last().unwrap() - run.place_done[0];
    let per = span as f64 / (n - 1) as f64;
    let in_per = beats_in as f64 / n as f64;
    println!("4 KiB payloads: {per:.2} cycles per packet at the placement output, {in_per:.2} input beats per packet");
    // Input beats bound the rate; placement keeps up with no bubble between packets.
    assert!(
        per <= in_per,
        "{per} cycles per packet for {in_per} input beats"
    );
    // One-beat frames (4-byte payloads: 128-byte wire frames) back to back.
    let mut st = setup(2, default_settings());
    let frames: Vec<WireInput> = (n..2 * n)
        .map(|k| good(&packet(1, k - n, 4, false, k as u64)))
        .collect();
    let run = run_and_check(&mut st, &frames, |_| false, |_| true);
    let span = run.place_done.last().unwrap() - run.place_done[0];
    let per = span as f64 / (n - 1) as f64;
    println!("one-beat frames: {per:.2} cycles per packet");
    assert!(per <= 1.0, "{per} cycles per one-beat packet");
}

#[test]
fn fuzzed_frames_then_valid_ones() {
    let mut st = setup(4, default_settings());
    let mut r = rng(9);
    let mut frames = vec![];
    for i in 0..120u32 {
        let kind = r() % 4;
        let mut f = wire_frame(&packet(0, 10_000 + i, (r() % 600) as usize, false, r()));
        match kind {
            0 => {
                let n = (r() % 700) as usize + 1;
                f = (0..n).map(|_| r() as u8).collect();
            }
            1 => {
                let n = (r() % f.len() as u64) as usize + 1;
                f.truncate(n);
            }
            2 => {
                for _ in 0..1 + r() % 4 {
                    let j = (r() % f.len() as u64) as usize;
                    f[j] = r() as u8;
                }
            }
            _ => f.extend((0..(r() % 9000)).map(|_| r() as u8)),
        }
        frames.push(WireInput {
            bytes: f,
            bad_keep: false,
        });
        frames.push(good(&packet(1, i, 64 + i as usize, i % 2 == 0, i as u64)));
    }
    let run = run_and_check(&mut st, &frames, |_| false, |c| c % 3 != 0);
    assert_eq!(
        run.placements.iter().filter(|p| p.qp == 1).count(),
        120,
        "every valid frame placed"
    );
}

/// A random reply of any kind on QP `qp`.
fn random_reply(r: &mut impl FnMut() -> u64, qp: u32) -> Reply {
    let mut missing = [0u8; SREQ_BITMAP_BYTES];
    for b in missing.iter_mut() {
        *b = r() as u8;
    }
    let psn = match r() % 3 {
        0 => 0xff_ffff,
        _ => r() as u32 & 0xff_ffff,
    };
    let kind = r() % 6;
    let ack = (r() % 2 == 1).then_some(r() as u32 & 0xff_ffff);
    Reply::from_record(kind, qp, psn, ack, missing).unwrap()
}

/// The reply as the peer sends it to tenant `slot`'s VNI.
fn reply_input(rep: &Reply, slot: u32, sport: u16) -> WireInput {
    let path = ReplyPath {
        vni: 0x100 + slot,
        outer_src_ip: 0x0a00_0002,
        outer_dst_ip: 0x0a00_0001,
        udp_src_port: sport,
        inner_dst_mac: [2, 0, 0, 0, 0, 1],
        inner_src_mac: [2, 0, 0, 0, 0, 2],
        inner_src_ip: 0xc0a8_0002,
        inner_dst_ip: 0xc0a8_0001,
    };
    WireInput {
        bytes: reply_frame(rep, &path),
        bad_keep: false,
    }
}

/// Reply frames of every kind between data frames, some malformed (a syndrome their
/// kind may not carry, a byte too many or too few, a flipped bit, an unknown VNI): each
/// good one comes out as a record equal to the one the peer framed, with its tenant;
/// each bad one is counted by reason; data placement goes on around them.
#[test]
fn replies_come_out_as_records_and_bad_ones_are_counted() {
    let mut st = setup(8, default_settings());
    let mut r = rng(31);
    let mut frames = vec![];
    let mut good_replies = 0;
    for k in 0..400u32 {
        let qp = (r() % 0x1_0000) as u32;
        let slot = (r() % 8) as u32;
        let rep = random_reply(&mut r, qp);
        let mut f = reply_input(&rep, slot, r() as u16);
        match r() % 8 {
            0 => f.bytes[104] ^= 0x40,
            1 => f.bytes.push(0),
            2 => {
                f.bytes.pop();
            }
            3 => {
                let i = 64 + (r() as usize) % (f.bytes.len() - 64);
                f.bytes[i] ^= 1 << (r() % 8);
            }
            _ => good_replies += (slot != 6) as usize,
        }
        frames.push(f);
        if k % 3 == 0 {
            let q = (r() % 8) as u32;
            frames.push(good(&packet(q, k, (r() % 400) as usize, k % 2 == 0, r())));
        }
    }
    let mut r2 = rng(32);
    let mut r3 = rng(33);
    let run = run_and_check(
        &mut st,
        &frames,
        |_| r2().is_multiple_of(4),
        |_| !r3().is_multiple_of(3),
    );
    // Half or more of the replies pass (the flipped bit may land in a masked byte).
    assert!(
        run.replies.len() >= good_replies,
        "{} of {good_replies}",
        run.replies.len()
    );
    let kinds: std::collections::HashSet<_> = run
        .replies
        .iter()
        .map(|(_, r)| std::mem::discriminant(r))
        .collect();
    assert_eq!(kinds.len(), 5, "every kind came out");
    let drops: u64 = st.path.drops().iter().map(|(_, n)| n).sum();
    assert!(drops > 100, "{:?}", st.path.drops());
}

/// One-beat replies back to back: one record per cycle, each a fixed
/// `RX_DECAP_REPLY_LATENCY` cycles after its frame's last beat, and none of them a drop.
#[test]
fn replies_back_to_back_one_per_cycle() {
    let mut st = setup(1, default_settings());
    let mut r = rng(5);
    let frames: Vec<WireInput> = (0..200)
        .map(|i| {
            let rep = match i % 3 {
                0 => Reply::Ack {
                    qp: i,
                    next: r() as u32 & 0xff_ffff,
                },
                1 => Reply::CreditGrant { qp: i },
                _ => Reply::CreditOnOff {
                    qp: i,
                    on: i % 2 == 0,
                },
            };
            reply_input(&rep, i % 6, i as u16)
        })
        .collect();
    let run = run_and_check(&mut st, &frames, |_| false, |_| true);
    assert_eq!(run.replies.len(), 200);
    assert_eq!(run.frame_done.len(), 200);
    let lat: std::collections::BTreeSet<u64> = run
        .reply_at
        .iter()
        .zip(&run.frame_done)
        .map(|(a, f)| a - f)
        .collect();
    assert_eq!(lat, [RX_DECAP_REPLY_LATENCY as u64].into(), "{lat:?}");
    assert_eq!(
        run.frame_done[199] - run.frame_done[0],
        199,
        "one frame per cycle"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]
    #[test]
    fn random_traffic_matches_the_models(seed in any::<u64>(), bad in 0u64..30, idle in 0u64..5, stall in 0u64..5) {
        let mut st = setup(8, default_settings());
        let mut r = rng(seed);
        let mut frames = vec![];
        for k in 0..60u32 {
            if r() % 100 < bad {
                frames.push(malformed(r() as u32 % 1000).0);
            }
            let q = (r() % 8) as u32;
            frames.push(good(&packet(q, k, (r() % 1500) as usize, r().is_multiple_of(3), r())));
        }
        let mut r2 = rng(seed ^ 1);
        let mut r3 = rng(seed ^ 2);
        run_and_check(&mut st, &frames, |_| r2() % 10 < idle, |_| r3() % 10 >= stall);
    }
}

#[test]
fn wire_frames_parse_with_etherparse() {
    let f = wire_frame(&packet(3, 0, 1000, true, 1));
    let s = etherparse::SlicedPacket::from_ethernet(&f).unwrap();
    match s.transport {
        Some(etherparse::TransportSlice::Udp(u)) => {
            assert_eq!(u.destination_port(), 4789);
            assert_eq!(u.length() as usize, f.len() - 34);
        }
        other => panic!("{other:?}"),
    }
    // The inner frame (after the 8-byte VXLAN header) parses too.
    let inner = etherparse::SlicedPacket::from_ethernet(&f[50..]).unwrap();
    match inner.transport {
        Some(etherparse::TransportSlice::Udp(u)) => assert_eq!(u.destination_port(), 4791),
        other => panic!("{other:?}"),
    }
}

#[test]
fn rx_soak_short_is_clean() {
    // The CI-sized version of `prnic-sim rx-soak` (10^6 packets on demand).
    let r = prnic_testbenches::rx_soak::rx_soak(6000, 7, |_| {});
    assert!(r.clean(), "{r:#?}");
    assert!(r.resets > 0 || r.segments < 3, "{r:#?}");
    assert!(r.placed > 3000, "{r:#?}");
    assert!(r.dropped.values().sum::<u64>() > 100, "{r:#?}");
}

/// [`setup`] with the reorder model in `rx_reorder`'s place, answering after `latency`
/// cycles.
fn model_setup(n: u32, latency: u64) -> (RxModelPath, ReorderModel) {
    let s = default_settings();
    let mut path = RxModelPath::new(&local_vni(), &s, latency);
    let mut model = ReorderModel::new(s);
    for q in 0..n {
        path.create_qp(q, (q % 8) as u8, base(q));
        model.configure(q, true, (q % 8) as u8, base(q));
    }
    (path, model)
}

fn model_run_and_check(
    path: &mut RxModelPath,
    model: &mut ReorderModel,
    frames: &[WireInput],
    idle: impl FnMut(u64) -> bool,
    ready: impl FnMut(u64) -> bool,
    hdr_ready: impl FnMut(u64) -> bool,
) -> RxRun {
    let want = expected(frames, &local_vni(), model);
    let run = path.run(frames, idle, ready, hdr_ready);
    let diffs = compare_decap(&path.decap, &run, &want);
    assert!(diffs.is_empty(), "latency {}: {diffs:#?}", path.latency);
    run
}

#[test]
fn latency_constants_hold() {
    // One frame at a time, everything empty: its header leaves RX_DECAP_HDR_LATENCY
    // cycles after its last beat, its first payload beat RX_DECAP_VERDICT_TO_PLACE after
    // its verdict.
    for latency in [1u64, 3, 9] {
        for k in 0..4u32 {
            // A fresh path each time: the check compares the block's cumulative counters
            // with one run's expectation.
            let (mut path, mut model) = model_setup(2, latency);
            let frames = [good(&packet(1, k, 500, k % 2 == 1, k as u64))];
            let run = model_run_and_check(
                &mut path,
                &mut model,
                &frames,
                |_| false,
                |_| true,
                |_| true,
            );
            let hdr = run.hdr_taken[0] - run.frame_done[0];
            let place = run.place_start[0] - (run.hdr_taken[0] + latency);
            assert_eq!(hdr, RX_DECAP_HDR_LATENCY as u64, "header latency");
            assert_eq!(
                place, RX_DECAP_VERDICT_TO_PLACE as u64,
                "verdict to placement"
            );
        }
    }
}

#[test]
fn any_verdict_latency_up_to_the_maximum_keeps_full_rate() {
    let n = 200u32;
    for latency in [1u64, 3, 8, 10, RX_VERDICT_LATENCY_MAX as u64] {
        // One-beat frames (4-byte payloads) back to back: one per cycle.
        let (mut path, mut model) = model_setup(2, latency);
        let frames: Vec<WireInput> = (0..n)
            .map(|k| good(&packet(1, k, 4, false, k as u64)))
            .collect();
        let run = model_run_and_check(
            &mut path,
            &mut model,
            &frames,
            |_| false,
            |_| true,
            |_| true,
        );
        let span = run.place_done.last().unwrap() - run.place_done[0];
        let per = span as f64 / (n - 1) as f64;
        println!("verdict latency {latency}: one-beat frames {per:.2} cycles per packet");
        assert!(
            per <= 1.0,
            "latency {latency}: {per} cycles per one-beat packet"
        );
        // 4 KiB payloads back to back: as many cycles as input beats.
        let (mut path, mut model) = model_setup(2, latency);
        let frames: Vec<WireInput> = (0..40)
            .map(|k| good(&packet(1, k, 4096, k % 4 == 3, k as u64)))
            .collect();
        let beats_in: usize = frames.iter().map(|f| f.bytes.len().div_ceil(128)).sum();
        let run = model_run_and_check(
            &mut path,
            &mut model,
            &frames,
            |_| false,
            |_| true,
            |_| true,
        );
        let span = run.place_done.last().unwrap() - run.place_done[0];
        let per = span as f64 / 39.0;
        let in_per = beats_in as f64 / 40.0;
        println!("verdict latency {latency}: 4 KiB payloads {per:.2} cycles per packet, {in_per:.2} input beats");
        assert!(
            per <= in_per,
            "latency {latency}: {per} cycles for {in_per} beats"
        );
    }
}

#[test]
fn verdict_latency_and_held_headers_match_the_models() {
    // Latencies past the maximum only slow the input down; held headers (rx_reorder's
    // downstream full) back up into the descriptor queue and the input.
    for (latency, seed) in [
        (1u64, 11u64),
        (5, 12),
        (RX_VERDICT_LATENCY_MAX as u64, 13),
        (24, 14),
    ] {
        let (mut path, mut model) = model_setup(8, latency);
        let mut r = rng(seed);
        let mut frames = vec![];
        for k in 0..150u32 {
            if r().is_multiple_of(5) {
                frames.push(malformed(r() as u32 % 1000).0);
            }
            let q = (r() % 8) as u32;
            let len = if r().is_multiple_of(3) {
                (r() % 8) as usize
            } else {
                (r() % 1500) as usize
            };
            frames.push(good(&packet(q, k, len, r().is_multiple_of(3), r())));
        }
        let mut r2 = rng(seed ^ 1);
        let mut r3 = rng(seed ^ 2);
        let mut r4 = rng(seed ^ 3);
        // Headers held in bursts (up to 40 cycles), as when rx_reorder's CQE queue fills.
        let mut held = 0u64;
        let run = model_run_and_check(
            &mut path,
            &mut model,
            &frames,
            |_| r2() % 10 < 2,
            |_| r3() % 10 < 8,
            move |_| {
                if held > 0 {
                    held -= 1;
                    return false;
                }
                if r4().is_multiple_of(50) {
                    held = r4() % 40;
                }
                true
            },
        );
        assert!(
            run.placements.len() > 80,
            "latency {latency}: {} placed",
            run.placements.len()
        );
    }
}
