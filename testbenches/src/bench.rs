//! `prnic-sim bench`: simulated cycles per second of the proving block (the sprayer) under
//! the Verilator model and under rust-hdl's own simulator, measured in the same run on the
//! same stimulus, and their ratio. Wall-clock figures vary with the machine and its load;
//! the ratio, measured side by side, is the figure to compare across runs.

use crate::bridge::Sprayer;
use crate::sprayer::{stimulus, HdlSprayer, Inputs, Outputs, SprayerSim};
use serde::Serialize;
use std::time::Instant;

#[derive(Debug, Serialize)]
pub struct BenchResult {
    /// The Verilator and C++ optimisation that built the models (testbenches/build.rs).
    pub model_build: &'static str,
    pub block: &'static str,
    /// Cycles through the Rust harness: set every input, step, read every output.
    pub verilator_cycles: u64,
    pub verilator_cycles_per_s: f64,
    /// Raw model speed: `step_n` with inputs held (no per-cycle FFI port traffic).
    pub verilator_raw_cycles: u64,
    pub verilator_raw_cycles_per_s: f64,
    pub rust_hdl_cycles: u64,
    pub rust_hdl_cycles_per_s: f64,
    /// verilator_cycles_per_s / rust_hdl_cycles_per_s.
    pub ratio: f64,
    /// The two simulators gave the same outputs on every cycle both ran.
    pub outputs_agree: bool,
    /// The whole top, in both simulators.
    pub top: TopBench,
}

/// The stimulus window replayed cyclically, so generating it costs nothing per cycle.
const WINDOW: usize = 4096;

fn run<S: SprayerSim>(
    sim: &mut S,
    stim: &[Inputs],
    cycles: u64,
    record: usize,
) -> (f64, Vec<Outputs>) {
    let mut rec = Vec::with_capacity(record);
    let t = Instant::now();
    for c in 0..cycles as usize {
        let o = sim.clock(&stim[c % stim.len()]);
        if c < record {
            rec.push(o);
        }
    }
    (t.elapsed().as_secs_f64(), rec)
}

pub fn bench(
    cfg: &prnic_gen::PrnicConfig,
    verilator_cycles: u64,
    rust_hdl_cycles: u64,
    top_cycles: u64,
    top_hdl_cycles: u64,
) -> BenchResult {
    let hash_seed = cfg.sprayer.hash_seed;
    let stim = stimulus(0xbe7c, WINDOW);
    let record = rust_hdl_cycles as usize;

    let mut vl = Sprayer::new();
    let (vl_s, vl_out) = run(&mut vl, &stim, verilator_cycles, record);

    let mut raw = Sprayer::new();
    let raw_cycles = verilator_cycles * 4;
    let t = Instant::now();
    raw.clock(&stim[1]);
    raw.step_n(raw_cycles - 1);
    let raw_s = t.elapsed().as_secs_f64();

    let mut hdl = HdlSprayer::new(hash_seed);
    let (hdl_s, hdl_out) = run(&mut hdl, &stim, rust_hdl_cycles, record);

    let vl_rate = verilator_cycles as f64 / vl_s;
    let hdl_rate = rust_hdl_cycles as f64 / hdl_s;
    BenchResult {
        model_build: env!("PRNIC_MODEL_BUILD"),
        block: "sprayer",
        verilator_cycles,
        verilator_cycles_per_s: vl_rate,
        verilator_raw_cycles: raw_cycles,
        verilator_raw_cycles_per_s: raw_cycles as f64 / raw_s,
        rust_hdl_cycles,
        rust_hdl_cycles_per_s: hdl_rate,
        ratio: vl_rate / hdl_rate,
        outputs_agree: {
            let n = vl_out.len().min(hdl_out.len());
            n > 0 && vl_out[..n] == hdl_out[..n]
        },
        top: bench_top(cfg, top_cycles, top_hdl_cycles),
    }
}

/// The whole `prnic_top` in both simulators on the same stimulus (a reset, then the
/// flow table's reset sweep with idle inputs): cycles per second and their ratio.
#[derive(Debug, Serialize)]
pub struct TopBench {
    pub block: &'static str,
    pub verilator_cycles: u64,
    pub verilator_cycles_per_s: f64,
    pub rust_hdl_cycles: u64,
    pub rust_hdl_cycles_per_s: f64,
    pub ratio: f64,
    /// `s_axis_tx_tready` reads the same in both after the rust-hdl run's cycles.
    pub outputs_agree: bool,
}

pub fn bench_top(
    cfg: &prnic_gen::PrnicConfig,
    verilator_cycles: u64,
    rust_hdl_cycles: u64,
) -> TopBench {
    use crate::bridge::{Dut, PrnicTop};
    let mut vl = PrnicTop::new();
    let t = Instant::now();
    vl.set_rst(1);
    vl.step();
    vl.set_rst(0);
    vl.step_n(verilator_cycles - 1);
    let vl_s = t.elapsed().as_secs_f64();
    let mut vl2 = PrnicTop::new();
    vl2.set_rst(1);
    vl2.step();
    vl2.set_rst(0);
    vl2.step_n(rust_hdl_cycles - 1);
    let vl_ready = vl2.s_axis_tx_tready();

    let mut top = prnic_gen::blocks::prnic_top::<1024, 128>(cfg);
    top.clk.next = false.into();
    crate::hdl_sim::settle(&mut top, "initial values");
    let t = Instant::now();
    let mut hdl_ready = false;
    for c in 0..rust_hdl_cycles {
        top.rst.next = c == 0;
        hdl_ready = crate::hdl_sim::cycle(
            &mut top,
            |u, k| u.clk.next = k.into(),
            |u| u.s_axis_tx_tready.val(),
        );
    }
    let hdl_s = t.elapsed().as_secs_f64();
    let vl_rate = verilator_cycles as f64 / vl_s;
    let hdl_rate = rust_hdl_cycles as f64 / hdl_s;
    TopBench {
        block: "prnic_top",
        verilator_cycles,
        verilator_cycles_per_s: vl_rate,
        rust_hdl_cycles,
        rust_hdl_cycles_per_s: hdl_rate,
        ratio: vl_rate / hdl_rate,
        outputs_agree: (vl_ready != 0) == hdl_ready,
    }
}
