//! `prnic-sim rx-soak`: a long run of the receive path (`rx_decap` + `rx_reorder`,
//! Verilated, wired cycle by cycle) with 8 tenants, reordering, duplicates, malformed and
//! foreign frames, idle input, placement backpressure and resets in the middle of
//! traffic, checked segment by segment against the models. A corrupted copy of a frame
//! has one byte changed anywhere in it: the outer headers' checks, the inner headers'
//! and the RoCEv2 ICRC must drop it, or it is the packet itself (a byte no check covers,
//! such as a MAC address, or a field the ICRC masks).
//!
//! Corrupted placements are checked without the model: every placement must carry the
//! QP, address, rkey and payload of a packet that was sent.
//!
//! Leaks are checked without the model: every packet's virtual address carries the
//! tenant slot of the VNI it was sent on, so a placement whose address names a tenant
//! other than the QP's owner is a packet of one tenant placed into another's QP.

use crate::rx_decap::{compare, expected, RxPath, WireInput};
use crate::rx_reorder::default_settings;
use prnic_verif::rng::rng;
use prnic_verif::rx_decap::{wire_frame, RdmaPacket, OP_WRITE_LAST_IMM, OP_WRITE_MIDDLE};
use prnic_verif::rx_reorder::ReorderModel;
use std::collections::{BTreeMap, BTreeSet};

const QPS: u32 = 64;
const PSN_MOD: u32 = 1 << 24;

/// Tenant slots 0..7 own VNIs 0x200 + slot; slot 6's VNI is disabled.
fn local_vni() -> [u32; 8] {
    std::array::from_fn(|i| {
        if i == 6 {
            0x206
        } else {
            0x8000_0200 + i as u32
        }
    })
}

fn qp_of(k: u32) -> u32 {
    (k * 31) % 2048
}

/// The tenant slot owning a QP (never the disabled slot 6: its VNI only appears on
/// foreign frames).
fn owner(qp: u32) -> u8 {
    match (qp % 8) as u8 {
        6 => 7,
        s => s,
    }
}

/// The address names the tenant slot the packet was sent on, the QP and the PSN.
fn va(slot: u8, qp: u32, psn: u32) -> u64 {
    ((slot as u64) << 56) | ((qp as u64) << 32) | psn as u64
}

#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct RxSoakReport {
    /// Good packets offered (each exactly once, unless cut by a reset).
    pub packets: u64,
    /// Extra frames offered: malformed, foreign, duplicates.
    pub extra_frames: u64,
    pub segments: u64,
    pub resets: u64,
    pub cycles: u64,
    pub placed: u64,
    pub cqes: u64,
    pub dropped: BTreeMap<String, u64>,
    pub verdict_drops: u64,
    /// Segments whose outputs differ from the models (must be 0).
    pub mismatches: u64,
    /// Placements into a QP of a tenant other than the VNI's (must be 0).
    pub tenant_leaks: u64,
    /// A (QP, PSN) placed twice (must be 0).
    pub duplicate_placements: u64,
    /// CQEs of one QP not in PSN order (must be 0).
    pub misordered_cqes: u64,
    /// Copies of a packet with one byte changed, anywhere in the frame.
    pub corrupted_frames: u64,
    /// Placements whose QP, address, rkey or payload no sent packet has (must be 0).
    pub corrupted_placements: u64,
    pub first_mismatch: Option<String>,
}

impl RxSoakReport {
    pub fn clean(&self) -> bool {
        self.mismatches == 0
            && self.tenant_leaks == 0
            && self.duplicate_placements == 0
            && self.misordered_cqes == 0
            && self.corrupted_placements == 0
    }
}

pub fn rx_soak(packets: u64, seed: u64, mut progress: impl FnMut(u64)) -> RxSoakReport {
    let s = default_settings();
    let vnis = local_vni();
    let mut r = rng(seed);
    let mut path = RxPath::new(&vnis, &s);
    let mut model = ReorderModel::new(s);
    let mut next_psn: Vec<u32> = (0..QPS).map(|_| (r() % PSN_MOD as u64) as u32).collect();
    let create = |path: &mut RxPath, model: &mut ReorderModel, next: &[u32]| {
        for k in 0..QPS {
            let q = qp_of(k);
            path.create_qp(q, owner(q), next[k as usize]);
            model.configure(q, true, owner(q), next[k as usize]);
        }
    };
    create(&mut path, &mut model, &next_psn);
    let mut out = RxSoakReport::default();
    let mut placed_set: BTreeSet<(u32, u64)> = BTreeSet::new();
    let mut last_cqe: BTreeMap<u32, u32> = BTreeMap::new();
    let mut imm_no = 0u32;
    // The packets of the segment by (QP, address): what a placement must carry.
    let mut sent: BTreeMap<(u32, u64), (u32, Vec<u8>)> = BTreeMap::new();
    while out.packets < packets {
        sent.clear();
        let seg_packets = (packets - out.packets).min(1500);
        // Per QP, its next run of packets, shuffled within blocks of 4, then interleaved.
        let mut per_qp: Vec<Vec<RdmaPacket>> = vec![vec![]; QPS as usize];
        for _ in 0..seg_packets {
            let k = (r() % QPS as u64) as u32;
            let q = qp_of(k);
            let psn = next_psn[k as usize];
            next_psn[k as usize] = (psn + 1) % PSN_MOD;
            let imm = psn % 5 == 4;
            imm_no += 1;
            per_qp[k as usize].push(RdmaPacket {
                vni: 0x200 + owner(q) as u32,
                qp: q,
                psn,
                opcode: if imm {
                    OP_WRITE_LAST_IMM
                } else {
                    OP_WRITE_MIDDLE
                },
                ack_req: r().is_multiple_of(8),
                va: va(owner(q), q, psn),
                rkey: 0x5000 + q,
                imm: imm.then_some(imm_no),
                payload: (0..(r() % 1400) as usize).map(|_| r() as u8).collect(),
            });
        }
        for v in per_qp.iter_mut() {
            for c in v.chunks_mut(4) {
                for a in (1..c.len()).rev() {
                    let b = (r() % (a as u64 + 1)) as usize;
                    c.swap(a, b);
                }
            }
            v.reverse();
        }
        let mut frames = vec![];
        while per_qp.iter().any(|v| !v.is_empty()) {
            let k = (r() % QPS as u64) as usize;
            let Some(p) = per_qp[k].pop() else { continue };
            // Faults are extra frames; the packet itself is always sent once.
            match r() % 40 {
                0 => {
                    // Another tenant's VNI for this QP (the address says so).
                    let mut f = p.clone();
                    let other = (owner(p.qp) + 1 + (r() % 7) as u8) % 8;
                    f.vni = 0x200 + other as u32;
                    f.va = va(other, p.qp, p.psn);
                    frames.push(WireInput {
                        bytes: wire_frame(&f),
                        bad_keep: false,
                    });
                }
                1 => {
                    // One byte changed anywhere in the frame.
                    let mut f = wire_frame(&p);
                    let j = (r() % f.len() as u64) as usize;
                    f[j] ^= 1 + (r() % 255) as u8;
                    out.corrupted_frames += 1;
                    frames.push(WireInput {
                        bytes: f,
                        bad_keep: false,
                    });
                }
                2 => {
                    let mut f = wire_frame(&p);
                    f.truncate((r() % f.len() as u64) as usize + 1);
                    frames.push(WireInput {
                        bytes: f,
                        bad_keep: false,
                    });
                }
                3 => {
                    let n = (r() % 600) as usize + 1;
                    frames.push(WireInput {
                        bytes: (0..n).map(|_| r() as u8).collect(),
                        bad_keep: false,
                    });
                }
                4 => frames.push(WireInput {
                    bytes: wire_frame(&p),
                    bad_keep: true,
                }),
                5 => {
                    let mut f = p.clone();
                    f.qp = 2048 + (r() % 60000) as u32;
                    frames.push(WireInput {
                        bytes: wire_frame(&f),
                        bad_keep: false,
                    });
                }
                _ => {}
            }
            sent.insert((p.qp, p.va), (p.rkey, p.payload.clone()));
            let dup = r().is_multiple_of(50);
            frames.push(WireInput {
                bytes: wire_frame(&p),
                bad_keep: false,
            });
            if dup {
                frames.push(WireInput {
                    bytes: wire_frame(&p),
                    bad_keep: false,
                });
            }
        }
        out.extra_frames += frames.len() as u64 - seg_packets;
        let want = expected(&frames, &vnis, &mut model);
        let idle_pct = r() % 20;
        let stall_pct = r() % 30;
        let mut ri = rng(r());
        let mut rs = rng(r());
        let reset_mid = r().is_multiple_of(4);
        let stop_at = reset_mid.then(|| r() % (frames.len() as u64 * 6) + 10);
        let run = path.run_until(
            &frames,
            |_| ri() % 100 < idle_pct,
            |_| rs() % 100 >= stall_pct,
            stop_at,
        );
        out.cycles += run.cycles;
        // Checks that need no model.
        for p in &run.placements {
            let slot = (p.va >> 56) as u8;
            if slot != owner(p.qp) {
                out.tenant_leaks += 1;
            }
            if !placed_set.insert((p.qp, p.va)) {
                out.duplicate_placements += 1;
            }
            if sent.get(&(p.qp, p.va)) != Some(&(p.rkey, p.data.clone())) {
                out.corrupted_placements += 1;
            }
        }
        for (q, o) in &run.outcomes {
            for &(psn, _) in &o.cqes {
                if let Some(&prev) = last_cqe.get(q) {
                    if psn.wrapping_sub(prev) % PSN_MOD >= PSN_MOD / 2 || psn == prev {
                        out.misordered_cqes += 1;
                    }
                }
                last_cqe.insert(*q, psn);
            }
        }
        out.placed += run.placements.len() as u64;
        out.cqes += run
            .outcomes
            .iter()
            .map(|(_, o)| o.cqes.len() as u64)
            .sum::<u64>();
        let mismatch = if reset_mid {
            // Cut short: what came out must be the start of what the models expect.
            let n = run.placements.len();
            let m = run.outcomes.len();
            (n > want.placements.len()
                || run.placements[..] != want.placements[..n]
                || m > want.outcomes.len()
                || run
                    .outcomes
                    .iter()
                    .zip(&want.outcomes)
                    .any(|(a, b)| a.1 != b.1 || (!a.1.cqes.is_empty() && a.0 != b.0)))
            .then(|| {
                format!(
                    "segment {}: output is not a prefix of the model's",
                    out.segments
                )
            })
        } else {
            let d = compare(&path, &run, &want);
            (!d.is_empty()).then(|| format!("segment {}: {d:?}", out.segments))
        };
        if let Some(m) = mismatch {
            out.mismatches += 1;
            out.first_mismatch.get_or_insert(m);
        }
        for (reason, n) in path.drops() {
            *out.dropped.entry(format!("{reason:?}")).or_insert(0) += n;
        }
        out.verdict_drops += path.decap.status_drop_verdict();
        out.segments += 1;
        out.packets += seg_packets;
        // Reset: mid-traffic when the run was cut, otherwise between segments (the
        // counters restart from zero either way, so each segment is counted once).
        path.reset();
        if reset_mid {
            out.resets += 1;
        }
        if path.decap.status_placed() != 0 || path.reorder.status_placed() != 0 {
            out.mismatches += 1;
            out.first_mismatch
                .get_or_insert("counters not cleared by reset".into());
        }
        // After a reset every QP is recreated at the next PSN its sender will use.
        model = ReorderModel::new(s);
        create(&mut path, &mut model, &next_psn);
        last_cqe.clear();
        progress(out.packets);
    }
    out
}
