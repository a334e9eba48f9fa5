//! Harness for the `sprayer` block: one cycle-level interface over both simulators, so the
//! two-simulator agreement test and the benchmark drive the Verilator model and rust-hdl's
//! own simulator with exactly the same stimulus.

use crate::bridge;
use prnic_rtl::sprayer::Sprayer as HdlBlock;
use rust_hdl::prelude::*;

/// Every input of the sprayer for one cycle.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Inputs {
    pub rst: bool,
    pub req_valid: bool,
    pub flow: u64,
    pub mode: u8,
    pub port_min: u16,
    pub port_max: u16,
}

/// Every output of the sprayer after one rising edge.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outputs {
    pub port_valid: bool,
    pub port: u16,
    pub cfg_error: bool,
}

/// A simulator of the sprayer, one rising edge per call.
pub trait SprayerSim {
    fn clock(&mut self, i: &Inputs) -> Outputs;
}

impl SprayerSim for bridge::Sprayer {
    fn clock(&mut self, i: &Inputs) -> Outputs {
        self.set_rst(i.rst as u64);
        self.set_s_req_valid(i.req_valid as u64);
        self.set_s_req_flow(i.flow);
        self.set_cfg_mode(i.mode as u64);
        self.set_cfg_port_min(i.port_min as u64);
        self.set_cfg_port_max(i.port_max as u64);
        self.step_n(1);
        Outputs {
            port_valid: self.m_port_valid() != 0,
            port: self.m_port() as u16,
            cfg_error: self.status_cfg_error() != 0,
        }
    }
}

/// The rust-hdl block under rust-hdl's own simulator, clocked by a hand-rolled loop
/// (about 80x faster than the `Simulation` testbench-thread API, measured here).
pub struct HdlSprayer {
    uut: HdlBlock,
}

impl HdlSprayer {
    pub fn new(hash_seed: u64) -> Self {
        let mut uut = HdlBlock::new(hash_seed);
        uut.connect_all();
        // Settle the initial values with the clock low.
        uut.clk.next = false.into();
        crate::hdl_sim::settle(&mut uut, "initial values");
        HdlSprayer { uut }
    }
}

impl SprayerSim for HdlSprayer {
    fn clock(&mut self, i: &Inputs) -> Outputs {
        let u = &mut self.uut;
        u.rst.next = i.rst;
        u.s_req_valid.next = i.req_valid;
        u.s_req_flow.next = (i.flow as LiteralType).into();
        u.cfg_mode.next = (i.mode as LiteralType).into();
        u.cfg_port_min.next = (i.port_min as LiteralType).into();
        u.cfg_port_max.next = (i.port_max as LiteralType).into();
        crate::hdl_sim::cycle(
            u,
            |u, c| u.clk.next = c.into(),
            |u| Outputs {
                port_valid: u.m_port_valid.val(),
                port: u.m_port.val().to_u16(),
                cfg_error: u.status_cfg_error.val(),
            },
        )
    }
}

/// A deterministic stimulus stream for benchmarks and agreement runs: requests on most
/// cycles, all modes, range changes now and then, and an occasional reset.
pub fn stimulus(seed: u64, cycles: usize) -> Vec<Inputs> {
    let mut next = prnic_verif::rng::xorshift64star(seed | 1);
    let mut mode = 0u8;
    let (mut lo, mut hi) = (49152u16, 65535u16);
    (0..cycles)
        .map(|c| {
            let r = next();
            if c % 97 == 0 {
                mode = (r >> 8) as u8 & 3;
            }
            if c % 251 == 0 {
                lo = (r >> 16) as u16;
                hi = lo.wrapping_add((r >> 32) as u16 % 3000);
            }
            Inputs {
                rst: c % 1009 == 1008,
                req_valid: r & 7 != 0,
                flow: (r >> 13) & 0xffff_ffff_ffff,
                mode,
                port_min: lo,
                port_max: hi,
            }
        })
        .collect()
}
