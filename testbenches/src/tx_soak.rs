//! `prnic-sim soak`: a long TX scenario with random faults, checked against the golden
//! model frame by frame, with tenant isolation checked on every frame that leaves.
//!
//! The traffic is cut into segments of random size. Each segment mixes tenants, hits and
//! misses, malformed frames (too short, not IPv4, bad `tkeep`, too long), idle input and
//! random backpressure. Every third segment (on average) is cut short by a reset in the
//! middle of traffic: the frames that left before it must be exactly the model's first
//! frames (nothing lost, duplicated or out of order); frames the reset caught inside the
//! block are reported as `cut_by_reset` (documented loss). Other segments run until the
//! block drains and must match the model completely, counters included.

use crate::tx_encap::{bench_for, expected_default, mixed_scenario, run, settings};
use prnic_gen::PrnicConfig;
use prnic_verif::flow_table::key;
use prnic_verif::rng::rng;
use prnic_verif::tx_encap::{inner_dst_ip, DropReason, TxOutcome};

#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct SoakReport {
    pub packets: u64,
    pub segments: u64,
    pub resets: u64,
    pub sent: u64,
    pub dropped: std::collections::BTreeMap<String, u64>,
    /// Frames the model sends that never left (outside a reset's reach).
    pub lost: u64,
    /// Frames that left twice.
    pub duplicated: u64,
    /// Frames that left out of order, or differ from the model.
    pub misordered: u64,
    /// Frames that left with a VNI other than their sender's table entry.
    pub vni_leaks: u64,
    /// Frames inside the block when a reset came (documented loss).
    pub cut_by_reset: u64,
    pub protocol_violations: u64,
    /// Segments whose drop counters differ from the model's.
    pub counter_mismatches: u64,
    pub cycles: u64,
    /// What went wrong first, if anything (segment, check).
    pub first_failure: Option<String>,
}

impl SoakReport {
    pub fn clean(&self) -> bool {
        self.lost == 0
            && self.counter_mismatches == 0
            && self.duplicated == 0
            && self.misordered == 0
            && self.vni_leaks == 0
            && self.protocol_violations == 0
    }
}

/// Run `packets` frames; `progress` is called with the frames done so far.
pub fn soak(
    cfg: &PrnicConfig,
    packets: u64,
    seed: u64,
    mut progress: impl FnMut(u64),
) -> SoakReport {
    let s = settings(cfg);
    let mut r = SoakReport::default();
    let mut next = rng(seed);
    let mut b = bench_for(cfg, &s, &Default::default());
    while r.packets < packets {
        let n = (1 + next() % 400).min(packets - r.packets) as usize;
        let (table, frames) = mixed_scenario(
            next(),
            n,
            1 + (next() % 8) as u32,
            next() % 20,
            s.max_frame_bytes,
        );
        b.table.table = table.clone();
        let want = expected_default(cfg, &s, &table, &frames);
        // The VNI each sent frame must carry: its sender's table entry.
        let sent: Vec<(&Vec<u8>, u32)> = frames
            .iter()
            .zip(&want)
            .filter_map(|(f, o)| match o {
                TxOutcome::Sent { frame, .. } => {
                    Some((frame, table[&key(f.vni, inner_dst_ip(&f.bytes))].vni))
                }
                _ => None,
            })
            .collect();
        let beats: u64 = frames
            .iter()
            .map(|f| f.bytes.len().div_ceil(128) as u64)
            .sum();
        let cut = next().is_multiple_of(3);
        let max_cycles = if cut {
            1 + next() % (2 * beats + 10)
        } else {
            100 + 8 * beats
        };
        let gap_pct = next() % 30;
        let ready_pct = 50 + next() % 51;
        let mut g = rng(next());
        let mut rd = rng(next());
        let cap = match run(
            &mut b,
            &frames,
            move |_| g() % 100 < gap_pct,
            move |_| rd() % 100 < ready_pct,
            if cut { usize::MAX } else { sent.len() },
            // After the last frame leaves, each dropped frame behind it may still take up
            // to a frame's worth of beats to discard before its counter moves.
            if cut {
                0
            } else {
                60 + 40 * trailing_drops(&want)
            },
            max_cycles,
        ) {
            Ok(c) => c,
            Err(_) => {
                r.protocol_violations += 1;
                b.reset(2);
                continue;
            }
        };
        r.cycles += cap.cycles;
        // Left frames must be the model's first frames, in order, once each.
        let mut seen = std::collections::HashSet::new();
        for (i, (got, _, _)) in cap.frames.iter().enumerate() {
            if !seen.insert(got.clone()) {
                r.duplicated += 1;
            }
            match sent.get(i) {
                Some((w, vni)) => {
                    if got != *w {
                        r.misordered += 1;
                        r.first_failure.get_or_insert(format!(
                            "segment {}: frame {i} of {} left differs from the model (len {} vs {}; cut {cut})",
                            r.segments, cap.frames.len(), got.len(), w.len()
                        ));
                    }
                    let carried = u32::from_be_bytes([0, got[46], got[47], got[48]]);
                    if carried != *vni {
                        r.vni_leaks += 1;
                    }
                }
                None => {
                    r.misordered += 1;
                    r.first_failure.get_or_insert(format!(
                        "segment {}: frame {i} left but the model sends only {}",
                        r.segments,
                        sent.len()
                    ));
                }
            }
        }
        r.sent += cap.frames.len() as u64;
        if cut {
            // Frames wholly accepted before the reset that did not leave.
            let accepted = cap.in_last.len();
            let sent_of_accepted = want[..accepted]
                .iter()
                .filter(|o| matches!(o, TxOutcome::Sent { .. }))
                .count();
            r.cut_by_reset += sent_of_accepted.saturating_sub(cap.frames.len()) as u64;
            b.reset(2);
            r.resets += 1;
        } else {
            r.lost += sent.len().saturating_sub(cap.frames.len()) as u64;
            let c = b.counters();
            for (i, reason) in DropReason::ALL.iter().enumerate() {
                let model = want
                    .iter()
                    .filter(|o| **o == TxOutcome::Dropped(*reason))
                    .count() as u64;
                if c[i + 1] != model {
                    r.counter_mismatches += 1;
                    r.first_failure.get_or_insert(format!(
                        "segment {}: {} counter {} vs model {}",
                        r.segments,
                        reason.name(),
                        c[i + 1],
                        model
                    ));
                }
                *r.dropped.entry(reason.name().to_string()).or_default() += model;
            }
            // Counters restart for the next segment.
            b.reset(2);
        }
        r.segments += 1;
        r.packets += n as u64;
        progress(r.packets);
    }
    r
}

/// Frames after the last one the model sends (all dropped).
pub fn trailing_drops(want: &[TxOutcome]) -> u64 {
    want.iter()
        .rev()
        .take_while(|o| !matches!(o, TxOutcome::Sent { .. }))
        .count() as u64
}
