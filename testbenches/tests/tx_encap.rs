//! `tx_encap` under Verilator against the golden model (`prnic_verif::tx_encap`): every output
//! frame byte for byte, re-parsed by an independent parser (etherparse), drops counted
//! by reason, the sink drained, AXI4-Stream rules kept under idle input and backpressure.

use etherparse::{NetSlice, SlicedPacket, TransportSlice};
use prnic_gen::PrnicConfig;
use prnic_testbenches::tx_encap::{
    expected, mixed_scenario, run, settings, TxCapture, TxEncapBench, BEAT_BYTES,
};
use prnic_verif::flow_table::{key, value_for, Value};
use prnic_verif::rng::rng;
use prnic_verif::sprayer::{Mode, SprayerModel};
use prnic_verif::tx_encap::{rocev2_frame, DropReason, PcapWriter, TxFrame, TxOutcome, TxSettings};
use proptest::prelude::*;
use std::collections::HashMap;

fn cfg() -> &'static PrnicConfig {
    PrnicConfig::builtin()
}

const MIN: u16 = 49152;
const MAX: u16 = 65535;

/// Check one wire frame with etherparse: outer IPv4 checksum and lengths, UDP 4789,
/// VXLAN I flag and VNI, and the inner frame as sent (with the BTH mark if `marked`).
fn reparse(frame: &[u8], inner: &[u8], vni: u32, marked: bool) {
    let p = SlicedPacket::from_ethernet(frame).expect("outer frame parses");
    let Some(NetSlice::Ipv4(ip)) = &p.net else {
        panic!("outer is not IPv4")
    };
    let h = ip.header();
    assert_eq!(
        h.to_header().calc_header_checksum(),
        h.header_checksum(),
        "outer IPv4 checksum"
    );
    assert_eq!(
        h.total_len() as usize,
        frame.len() - 14,
        "IPv4 total length"
    );
    assert_eq!(h.ttl(), 64);
    assert!(h.dont_fragment());
    let Some(TransportSlice::Udp(u)) = &p.transport else {
        panic!("outer is not UDP")
    };
    assert_eq!(u.destination_port(), 4789);
    assert!(u.source_port() >= MIN);
    assert_eq!(u.length() as usize, frame.len() - 34, "UDP length");
    assert_eq!(u.checksum(), 0);
    let vx = u.payload();
    assert_eq!(vx[0], 0x08, "VXLAN I flag");
    assert_eq!(
        u32::from_be_bytes([0, vx[4], vx[5], vx[6]]),
        vni,
        "VXLAN VNI"
    );
    let got = &vx[8..];
    let mut want = inner.to_vec();
    if marked {
        want[46] = 0x03;
    }
    assert_eq!(got, &want[..], "inner frame");
    // Frames built as RoCEv2 must still parse as such (fuzzed inner bytes need not).
    if inner.len() >= 34
        && usize::from(u16::from_be_bytes([inner[16], inner[17]])) + 14 == inner.len()
    {
        let ip_in = SlicedPacket::from_ethernet(got).expect("inner frame parses");
        assert!(matches!(ip_in.net, Some(NetSlice::Ipv4(_))));
    }
}

/// Run `frames` and compare with the model; returns the capture.
fn check(
    s: &TxSettings,
    table: &HashMap<u64, Value>,
    frames: &[TxFrame],
    gap: impl FnMut(u64) -> bool,
    ready: impl FnMut(u64) -> bool,
) -> TxCapture {
    let mut b = TxEncapBench::new(s, Mode::PerPacket, MIN, MAX);
    b.table.table = table.clone();
    let want = expected(
        s,
        table,
        frames,
        &mut SprayerModel::new(cfg().sprayer.hash_seed),
        Mode::PerPacket,
        MIN,
        MAX,
    );
    let sent: Vec<(&TxFrame, &Vec<u8>, u8)> = frames
        .iter()
        .zip(&want)
        .filter_map(|(f, o)| match o {
            TxOutcome::Sent { frame, port } => Some((f, frame, *port)),
            _ => None,
        })
        .collect();
    let beats: u64 = frames
        .iter()
        .map(|f| f.bytes.len().div_ceil(BEAT_BYTES) as u64)
        .sum();
    // Drain long enough for trailing dropped frames to be discarded and counted.
    let drain = 200 + 40 * prnic_testbenches::tx_soak::trailing_drops(&want);
    let cap = run(
        &mut b,
        frames,
        gap,
        ready,
        sent.len(),
        drain,
        drain + 40 * beats,
    )
    .expect("AXI4-Stream protocol");
    assert_eq!(
        cap.frames.len(),
        sent.len(),
        "frames on the wire (the sink drained)"
    );
    for (i, ((f, w, port), (got, dest, _))) in sent.iter().zip(&cap.frames).enumerate() {
        assert_eq!(got.len(), w.len(), "frame {i}: length");
        assert!(got == *w, "frame {i}: bytes differ from the model");
        assert_eq!(dest, port, "frame {i}: tdest");
        let v = table[&key(f.vni, prnic_verif::tx_encap::inner_dst_ip(&f.bytes))];
        let b = &f.bytes;
        let marked = s.bth_mark && b[14] == 0x45 && b[23] == 17 && b[36] == 0x12 && b[37] == 0xb7;
        reparse(got, &f.bytes, v.vni, marked);
    }
    assert_eq!(cap.in_beats, beats, "every input beat accepted");
    let mut count = [0u64; 6];
    for o in &want {
        match o {
            TxOutcome::Sent { .. } => count[0] += 1,
            TxOutcome::Dropped(r) => {
                count[1 + DropReason::ALL.iter().position(|x| x == r).unwrap()] += 1
            }
        }
    }
    assert_eq!(
        b.counters(),
        count,
        "counters: sent, too long, bad keep, short, not IPv4, miss"
    );
    cap
}

fn pattern(p: &'static [bool]) -> impl FnMut(u64) -> bool {
    move |c| p[c as usize % p.len()]
}

#[test]
fn mixed_tenants_hits_misses_and_malformed_frames_match_the_model() {
    let s = settings(cfg());
    let (table, frames) = mixed_scenario(1, 120, 4, 15, s.max_frame_bytes);
    let cap = check(&s, &table, &frames, |_| false, |_| true);
    assert!(cap.frames.len() > 60);
}

#[test]
fn backpressure_one_in_four_and_idle_input() {
    let s = settings(cfg());
    let (table, frames) = mixed_scenario(2, 60, 3, 10, s.max_frame_bytes);
    check(
        &s,
        &table,
        &frames,
        pattern(&[false, false, true]),
        pattern(&[true, true, true, false]),
    );
}

#[test]
fn marks_ecn_and_egress_port() {
    let mut s = settings(cfg());
    let mut table = HashMap::new();
    let mut v0 = value_for(11);
    v0.flags = 0x10;
    let mut v1 = value_for(12);
    v1.flags = 0x01;
    table.insert(key(7, 0x0a00_0001), v0);
    table.insert(key(7, 0x0a00_0002), v1);
    let f = |dst: u32, ecn: u8| TxFrame {
        bytes: rocev2_frame(300, dst, 9, 1, ecn, dst as u64),
        vni: 7,
        qp: 9,
        bad_keep_beat: None,
    };
    let frames = vec![f(0x0a00_0001, 2), f(0x0a00_0002, 1), f(0x0a00_0002, 3)];
    let cap = check(&s, &table, &frames, |_| false, |_| true);
    assert_eq!(
        cap.frames.iter().map(|x| x.1).collect::<Vec<_>>(),
        [0, 1, 1]
    );
    // Outer TOS = DSCP << 2 | inner ECN; the BTH Resv8a byte marked.
    assert_eq!(cap.frames[0].0[15], (26 << 2) | 2);
    assert_eq!(cap.frames[2].0[15], (26 << 2) | 3);
    assert_eq!(cap.frames[1].0[50 + 46], 0x03);
    s.bth_mark = false;
    let cap = check(&s, &table, &frames, |_| false, |_| true);
    assert_eq!(cap.frames[1].0[50 + 46], 0x00);
}

#[test]
fn every_length_around_the_beat_boundaries() {
    // Last inner beat from 1 to 128 bytes, either side of the 78-byte point where the
    // 50-byte header needs an extra output beat.
    let s = settings(cfg());
    let mut table = HashMap::new();
    table.insert(key(3, 0x0a00_0009), value_for(5));
    let frames: Vec<TxFrame> = (0..130)
        .map(|i| TxFrame {
            bytes: rocev2_frame(256 + i, 0x0a00_0009, 1, i as u32, 0, i as u64),
            vni: 3,
            qp: 1,
            bad_keep_beat: None,
        })
        .collect();
    let mut r = rng(3);
    check(
        &s,
        &table,
        &frames,
        |_| false,
        move |_| !r().is_multiple_of(3),
    );
}

#[test]
fn back_to_back_mtu_frames_leave_at_bus_rate() {
    // The inner frame of a 4 KiB RoCEv2 WRITE (Eth 14, IPv4 20, UDP 8, BTH 12, RETH 16,
    // payload 4096, ICRC 4) is 4170 bytes: 33 beats in and 33 beats out (4220 bytes).
    let s = settings(cfg());
    let mut table = HashMap::new();
    table.insert(key(3, 0x0a00_0009), value_for(5));
    for (len, out_beats) in [(4170usize, 33u64), (4200, 34)] {
        let frames: Vec<TxFrame> = (0..40)
            .map(|i| TxFrame {
                bytes: rocev2_frame(len, 0x0a00_0009, 1, i, 0, i as u64),
                vni: 3,
                qp: 1,
                bad_keep_beat: None,
            })
            .collect();
        let cap = check(&s, &table, &frames, |_| false, |_| true);
        assert_eq!(cap.beats, 40 * out_beats);
        // Steady state: cycles from the last beat of frame 10 to that of frame 39.
        let span = cap.frames[39].2 - cap.frames[9].2;
        assert!(
            span <= 30 * out_beats,
            "{len}-byte frames: {span} cycles for 30 frames of {out_beats} beats"
        );
        // Input side never waits more than one cycle per frame either.
        assert!(span <= 30 * (len.div_ceil(BEAT_BYTES) as u64 + 1));
    }
}

#[test]
fn a_frame_without_tlast_past_the_maximum_is_dropped_whole_and_the_next_passes() {
    let s = settings(cfg());
    let mut table = HashMap::new();
    table.insert(key(3, 0x0a00_0009), value_for(5));
    let mut huge = rocev2_frame(3000, 0x0a00_0009, 1, 0, 0, 1);
    huge.resize(20_000, 0xee); // 157 beats: far beyond the FIFO's 128
    let frames = vec![
        TxFrame {
            bytes: huge,
            vni: 3,
            qp: 1,
            bad_keep_beat: None,
        },
        TxFrame {
            bytes: rocev2_frame(500, 0x0a00_0009, 1, 1, 0, 2),
            vni: 3,
            qp: 1,
            bad_keep_beat: None,
        },
    ];
    let cap = check(&s, &table, &frames, |_| false, |_| true);
    assert_eq!(cap.frames.len(), 1);
}

#[test]
fn pcap_files_read_back_with_an_independent_reader() {
    let s = settings(cfg());
    let (table, frames) = mixed_scenario(4, 20, 2, 0, s.max_frame_bytes);
    let cap = check(&s, &table, &frames, |_| false, |_| true);
    let mut w = PcapWriter::new(Vec::new()).unwrap();
    for (f, _, cycle) in &cap.frames {
        w.frame(cycle * 3103 / 1000, f).unwrap();
    }
    let bytes = w.finish().unwrap();
    let mut r = pcap_file::pcap::PcapReader::new(&bytes[..]).unwrap();
    assert_eq!(r.header().datalink, pcap_file::DataLink::ETHERNET);
    let mut n = 0;
    while let Some(p) = r.next_packet() {
        let p = p.unwrap();
        assert_eq!(&p.data[..], &cap.frames[n].0[..]);
        n += 1;
    }
    assert_eq!(n, cap.frames.len());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn random_scenarios_and_handshakes(
        seed in any::<u64>(),
        n in 1usize..40,
        bad in 0u64..40,
        gap_pct in 0u64..60,
        ready_pct in 30u64..101,
    ) {
        let s = settings(cfg());
        let (table, frames) = mixed_scenario(seed, n, 3, bad, s.max_frame_bytes);
        let mut g = rng(seed ^ 1);
        let mut r = rng(seed ^ 2);
        check(&s, &table, &frames, move |_| g() % 100 < gap_pct, move |_| r() % 100 < ready_pct);
    }
}

#[test]
fn verilator_and_rust_hdl_agree_cycle_for_cycle() {
    // rust-hdl emits expressions without Verilog's precedence in mind; the same
    // stimulus through both simulators must give the same frames in the same cycles.
    let s = settings(cfg());
    let (table, mut frames) = mixed_scenario(9, 24, 2, 25, s.max_frame_bytes);
    for f in &mut frames {
        if f.bytes.len() > 700 {
            f.bytes.truncate(200 + f.bytes.len() % 500);
        }
    }
    let mut v = TxEncapBench::new(&s, Mode::PerPacket, MIN, MAX);
    v.table.table = table.clone();
    let mut h = prnic_testbenches::tx_encap::HdlTxEncap::new(cfg(), &s, Mode::PerPacket, MIN, MAX);
    h.table.table = table.clone();
    let pat = |c: u64| c % 5 == 3;
    let rdy = |c: u64| c % 4 != 1;
    let a = run(&mut v, &frames, pat, rdy, usize::MAX, 0, 1500).unwrap();
    let b = run(&mut h, &frames, pat, rdy, usize::MAX, 0, 1500).unwrap();
    assert!(a.frames.len() > 5, "{} frames left", a.frames.len());
    assert_eq!(a.frames, b.frames, "frames, ports and cycles");
    assert_eq!(a.in_beats, b.in_beats);
}

/// Random bytes, odd lengths, random `tuser` and `tkeep` faults: a fuzzed frame, then a
/// valid one, many times over. Every frame is accounted for (the counters must equal
/// the model's), and each valid frame leaves within a bound after its last beat.
#[test]
fn fuzzed_frames_never_block_the_next_valid_one() {
    let s = settings(cfg());
    let mut next = rng(77);
    let mut table = HashMap::new();
    table.insert(key(3, 0x0a00_0009), value_for(5));
    let mut frames = vec![];
    for i in 0..150u32 {
        let len = match next() % 4 {
            0 => 1 + next() as usize % 60,
            1 => 1 + next() as usize % 600,
            2 => 1 + next() as usize % 6000,
            _ => 4000 + next() as usize % 600,
        };
        let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        if next().is_multiple_of(2) && len > 34 {
            // A plausible header with random VNI / destination, so some hit the table.
            bytes[12] = 0x08;
            bytes[13] = 0x00;
            bytes[14] = 0x40 | (next() as u8 & 0xf);
            bytes[30..34].copy_from_slice(&0x0a00_0009u32.to_be_bytes());
        }
        let beats = len.div_ceil(BEAT_BYTES);
        frames.push(TxFrame {
            bytes,
            vni: if next().is_multiple_of(2) {
                3
            } else {
                next() as u32 & 0xff_ffff
            },
            qp: next() as u32 & 0xff_ffff,
            bad_keep_beat: next().is_multiple_of(5).then(|| next() as usize % beats),
        });
        frames.push(TxFrame {
            bytes: rocev2_frame(
                200 + (next() as usize % 3000),
                0x0a00_0009,
                1,
                i,
                0,
                i as u64,
            ),
            vni: 3,
            qp: 1,
            bad_keep_beat: None,
        });
    }
    let cap = check(&s, &table, &frames, |_| false, |_| true);
    // Each valid frame (odd index) leaves within this many cycles of its last input beat:
    // the frame itself (at most 26 beats here), the fuzzed frame ahead of it (at most
    // 34 stored beats to send or discard) and the header pipeline.
    const BOUND: u64 = 80;
    let mut out = cap.frames.iter().map(|f| f.2);
    let mut worst = 0;
    let want = expected(
        &s,
        &table,
        &frames,
        &mut SprayerModel::new(cfg().sprayer.hash_seed),
        Mode::PerPacket,
        MIN,
        MAX,
    );
    for (i, o) in want.iter().enumerate() {
        if let TxOutcome::Sent { .. } = o {
            let t = out.next().unwrap();
            if i % 2 == 1 {
                worst = worst.max(t - cap.in_last[i]);
            }
        }
    }
    eprintln!("worst cycles from a valid frame's last beat in to its last beat out: {worst}");
    assert!(
        worst <= BOUND,
        "a valid frame took {worst} cycles after its last beat"
    );
}

/// Reset in the middle of traffic (a frame half in, another half out): afterwards the
/// counters read zero, nothing stale leaves, and new traffic matches the model from a
/// fresh start (the sprayer's walk restarts too).
#[test]
fn reset_mid_traffic_recovers_cleanly() {
    let s = settings(cfg());
    let (table, frames) = mixed_scenario(5, 40, 2, 0, s.max_frame_bytes);
    let mut b = TxEncapBench::new(&s, Mode::PerPacket, MIN, MAX);
    b.table.table = table.clone();
    for cut in [150u64, 333, 401] {
        let part = run(
            &mut b,
            &frames,
            |_| false,
            |c| c % 3 != 0,
            usize::MAX,
            0,
            cut,
        )
        .unwrap();
        assert!(part.in_beats > 0 && part.beats > 0);
        b.reset(2);
        assert_eq!(b.counters(), [0; 6], "counters after reset");
        assert_eq!(b.dut.m_axis_tvalid(), 0, "output idle after reset");
        let want = expected(
            &s,
            &table,
            &frames,
            &mut SprayerModel::new(cfg().sprayer.hash_seed),
            Mode::PerPacket,
            MIN,
            MAX,
        );
        let sent = prnic_testbenches::tx_encap::sent_frames(&want);
        let after = run(
            &mut b,
            &frames,
            |_| false,
            |_| true,
            sent.len(),
            200,
            20_000,
        )
        .unwrap();
        assert_eq!(after.frames.len(), sent.len(), "cut at {cut}");
        for ((g, _, _), w) in after.frames.iter().zip(&sent) {
            assert!(
                g == *w,
                "cut at {cut}: a frame after reset differs from the model"
            );
        }
        // Reset for the next round.
        b.reset(2);
    }
}

/// A frame whose non-last beats carry an empty (or one-byte) tkeep adds almost no bytes;
/// it must still be cut off by its beat count, so it cannot fill the FIFO and stall the
/// input. It is dropped as too long, and the next frame passes.
#[test]
fn empty_tkeep_beats_cannot_stall_the_input() {
    use prnic_testbenches::tx_encap::{beats_of, TxDut};
    let s = settings(cfg());
    let mut b = TxEncapBench::new(&s, Mode::PerPacket, MIN, MAX);
    b.table.table.insert(key(3, 0x0a00_0009), value_for(5));
    let good = TxFrame {
        bytes: rocev2_frame(300, 0x0a00_0009, 1, 0, 0, 7),
        vni: 3,
        qp: 1,
        bad_keep_beat: None,
    };
    let mut beats = beats_of(&good);
    let first = beats[0].clone();
    let mut bad = vec![first.clone()];
    for i in 0..300 {
        let mut x = first.clone();
        x.last = false;
        x.keep = [0; 4];
        if i % 2 == 1 {
            x.keep[0] = 1;
        }
        bad.push(x);
    }
    bad.last_mut().unwrap().last = true;
    bad.append(&mut beats);
    let mut out_frames = 0;
    let mut i = 0;
    for _ in 0..5000 {
        b.drive_in(bad.get(i));
        b.set_out_ready(true);
        b.settle();
        let fire = i < bad.len() && b.in_ready();
        if b.out_beat().is_some_and(|o| o.last) {
            out_frames += 1;
        }
        prnic_testbenches::bridge::Dut::step(&mut b);
        if fire {
            i += 1;
        }
    }
    assert_eq!(
        i,
        bad.len(),
        "every beat accepted (the input never stalled)"
    );
    assert_eq!(out_frames, 1, "the good frame left");
    assert_eq!(b.counters(), [1, 1, 0, 0, 0, 0], "sent 1, too long 1");
}
