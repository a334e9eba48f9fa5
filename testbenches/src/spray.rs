//! `prnic-sim spray`: spray quality. One QP sends N packets; the Verilator model of the
//! sprayer picks each packet's outer UDP source port; an ECMP model (switch hash of the
//! outer 5-tuple, modulo the path count) picks its path. Per mode and path count we
//! report how evenly the paths are loaded.

use crate::bridge::Sprayer;
use crate::sprayer::{Inputs, SprayerSim};
use prnic_verif::ecmp::{FiveTuple, PathLoad, SwitchHash};
use prnic_verif::sprayer::{flow_id, Mode};
use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct SprayRow {
    pub mode: &'static str,
    pub switch_hash: &'static str,
    pub paths: u32,
    pub packets: u64,
    pub max_over_mean: f64,
    pub min_over_mean: f64,
    pub paths_used: usize,
    pub distinct_ports: usize,
}

/// The ports the sprayer gives `packets` back-to-back packets of one QP.
pub fn ports(mode: Mode, port_min: u16, port_max: u16, packets: u64) -> Vec<u16> {
    let mut dut = Sprayer::new();
    let mut i = Inputs {
        rst: true,
        mode: mode as u8,
        port_min,
        port_max,
        ..Default::default()
    };
    dut.clock(&i);
    dut.clock(&i);
    i.rst = false;
    i.req_valid = true;
    i.flow = flow_id(0x12_3456, 0x42);
    let mut out = Vec::with_capacity(packets as usize);
    let mut sent = 0;
    while (out.len() as u64) < packets {
        i.req_valid = sent < packets;
        let o = dut.clock(&i);
        sent += i.req_valid as u64;
        if o.port_valid {
            out.push(o.port);
        }
    }
    out
}

pub fn spray(port_min: u16, port_max: u16, packets: u64, path_counts: &[u32]) -> Vec<SprayRow> {
    let mut rows = vec![];
    for (mode, name) in [
        (Mode::PerPacket, "per-packet"),
        (Mode::PerFlow, "per-flow"),
        (Mode::Fixed, "fixed"),
    ] {
        let ports = ports(mode, port_min, port_max, packets);
        let distinct = ports.iter().collect::<std::collections::HashSet<_>>().len();
        for (hash, hname) in [
            (SwitchHash::Crc32, "crc32"),
            (SwitchHash::XorFold16, "xor-fold16"),
        ] {
            for &paths in path_counts {
                let mut load = PathLoad::new(paths);
                for &p in &ports {
                    let t = FiveTuple {
                        src_ip: 0x0a00_0001,
                        dst_ip: 0x0a00_0102,
                        src_port: p,
                        dst_port: 4789,
                        proto: 17,
                    };
                    load.add(hash.path(&t, paths));
                }
                rows.push(SprayRow {
                    mode: name,
                    switch_hash: hname,
                    paths,
                    packets: load.total(),
                    max_over_mean: load.max_over_mean(),
                    min_over_mean: load.min_over_mean(),
                    paths_used: load.paths_used(),
                    distinct_ports: distinct,
                });
            }
        }
    }
    rows
}
