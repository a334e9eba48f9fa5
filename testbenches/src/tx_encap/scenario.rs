//! The TX scenarios `prnic-sim tx` runs: the mixed-tenant scenario and the bus rate of
//! back-to-back frames.

use super::*;

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
        bytes: prnic_verif::tx_encap::rocev2_frame(128, k as u32, 7, 1, 0, k),
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
    use prnic_verif::flow_table::value_for;
    use prnic_verif::rng::rng;
    use prnic_verif::tx_encap::rocev2_frame;
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
    for (i, r) in prnic_verif::tx_encap::DropReason::ALL.iter().enumerate() {
        dropped.insert(r.name().to_string(), c[i + 1]);
        let model = want
            .iter()
            .filter(|o| **o == TxOutcome::Dropped(*r))
            .count() as u64;
        mismatches += model.abs_diff(c[i + 1]);
    }
    if let Some(path) = pcap {
        let period_ps = 1e6 / cfg.clock.mhz;
        let mut w = prnic_verif::tx_encap::PcapWriter::new(std::io::BufWriter::new(
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
            bytes: prnic_verif::tx_encap::rocev2_frame(len, 0x0a00_0009, 1, i as u32, 0, i as u64),
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
