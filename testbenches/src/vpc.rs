//! `prnic-sim vpc-update`: CSR accesses and modeled channel time to install a VPC of N
//! flows, checking the RNIC's address before every CSR command versus only around
//! restarts (the per-RNIC state machine). The channel is 8 bytes per access at 4 MB/s.

use crate::dpu_link::VerilatorRnic;
use prnic_verif::csr::{Channel, RnicLink, RnicModel};
use prnic_verif::dpu::{touched, CheckMode, Dpu, Op};
use prnic_verif::flow_table::{key, value_for, Geometry};
use prnic_verif::rng::rng;
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct ModeRow {
    pub mode: &'static str,
    pub flows: usize,
    pub accesses: u64,
    pub reads: u64,
    pub writes: u64,
    pub probes: u64,
    pub modeled_seconds: f64,
    pub accesses_per_flow: f64,
    /// The RNIC's table, read back through CSR afterwards, equals the DPU's.
    pub audit_clean: bool,
}

#[derive(Debug, Serialize)]
pub struct VpcReport {
    pub backend: &'static str,
    pub flows: usize,
    pub bytes_per_access: u64,
    pub channel_bytes_per_s: f64,
    pub rows: Vec<ModeRow>,
    /// modeled_seconds(per-command) / modeled_seconds(state machine).
    pub speedup: f64,
    /// The paper's production figure for one VPC flow update: 3.54 s -> 1.5 s.
    pub paper_speedup: f64,
}

fn flows(n: usize) -> Vec<Op> {
    let mut next = rng(0x7bc);
    let mut seen = std::collections::HashSet::new();
    let mut v = vec![];
    while v.len() < n {
        let r = next();
        let k = key(0x00_1234, r as u32);
        if seen.insert(k) {
            v.push(Op::Insert(k, value_for(r)));
        }
    }
    v
}

/// Install `ops`; returns the install's (reads, writes, probes) and whether the RNIC's
/// table, read back through CSR afterwards, equals the DPU's.
fn run<L: RnicLink>(
    link: L,
    g: &Geometry,
    hash: u64,
    mode: CheckMode,
    ops: &[Op],
) -> ((u64, u64, u64), bool) {
    let mut dpu = Dpu::new(Channel::new(link), g.clone(), hash, mode);
    for op in ops {
        dpu.apply(*op).expect("install");
    }
    // Counted before the audit: report the install alone, not the read-backs.
    let counts = (dpu.link.reads, dpu.link.writes, dpu.link.probes);
    let locs = touched(&dpu.wal, g);
    let clean = dpu.audit(&locs).expect("read back").is_empty();
    (counts, clean)
}

pub fn vpc_update(g: &Geometry, config_hash: u64, n: usize, verilator: bool) -> VpcReport {
    let ops = flows(n);
    let mut rows = vec![];
    for (mode, name) in [
        (CheckMode::PerCommand, "address-check-per-command"),
        (CheckMode::StateMachine, "state-machine"),
    ] {
        let ((reads, writes, probes), clean) = if verilator {
            run(VerilatorRnic::new(), g, config_hash, mode, &ops)
        } else {
            run(
                RnicModel::new(g.clone(), config_hash),
                g,
                config_hash,
                mode,
                &ops,
            )
        };
        let ch = Channel {
            reads,
            writes,
            probes,
            ..Channel::new(())
        };
        rows.push(ModeRow {
            mode: name,
            flows: n,
            accesses: ch.accesses(),
            reads: ch.reads,
            writes: ch.writes,
            probes: ch.probes,
            modeled_seconds: ch.seconds(),
            accesses_per_flow: ch.accesses() as f64 / n as f64,
            audit_clean: clean,
        });
    }
    let speedup = rows[0].modeled_seconds / rows[1].modeled_seconds;
    let c = Channel::new(());
    VpcReport {
        backend: if verilator { "verilator" } else { "model" },
        flows: n,
        bytes_per_access: c.bytes_per_access,
        channel_bytes_per_s: c.bytes_per_s,
        rows,
        speedup,
        paper_speedup: 3.54 / 1.5,
    }
}
