//! `prnic-sim bench`.

use super::*;

/// The options of `prnic-sim bench` (its help text is on `Cmd::Bench`).
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Cycles to run on the Verilator model.
    #[arg(long, default_value_t = 2_000_000, value_parser = clap::value_parser!(u64).range(1000..))]
    pub cycles: u64,
    /// Cycles to run on rust-hdl's simulator (about 100x slower).
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(100..))]
    pub hdl_cycles: u64,
    /// Cycles of the whole prnic_top on Verilator (a reset, then its flow-table sweep).
    #[arg(long, default_value_t = 200_000, value_parser = clap::value_parser!(u64).range(100..))]
    pub top_cycles: u64,
    /// Cycles of the whole prnic_top on rust-hdl's simulator (a few hundred per second).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(2..=100_000))]
    pub top_hdl_cycles: u64,
}

pub fn run(a: Args) -> ExitCode {
    let Args {
        json,
        cycles,
        hdl_cycles,
        top_cycles,
        top_hdl_cycles,
    } = a;
    let r = prnic_testbenches::bench::bench(
        PrnicConfig::builtin(),
        cycles,
        hdl_cycles,
        top_cycles,
        top_hdl_cycles,
    );
    if !print_json(json, &r) {
        out!("models: {}", r.model_build);
        out!("block: {}", r.block);
        out!(
            "verilator (harness, all ports per cycle): {:>14.0} cycles/s over {} cycles",
            r.verilator_cycles_per_s,
            r.verilator_cycles
        );
        out!(
            "verilator (raw step_n):                   {:>14.0} cycles/s over {} cycles",
            r.verilator_raw_cycles_per_s,
            r.verilator_raw_cycles
        );
        out!(
            "rust-hdl simulate() loop:                 {:>14.0} cycles/s over {} cycles",
            r.rust_hdl_cycles_per_s,
            r.rust_hdl_cycles
        );
        out!(
            "ratio verilator/rust-hdl:                 {:>14.1}",
            r.ratio
        );
        out!(
            "outputs agree:                            {:>14}",
            r.outputs_agree
        );
        out!(
            "prnic_top: verilator {:.0} cycles/s over {} cycles, rust-hdl {:.0} cycles/s over {} cycles, ratio {:.0}",
            r.top.verilator_cycles_per_s,
            r.top.verilator_cycles,
            r.top.rust_hdl_cycles_per_s,
            r.top.rust_hdl_cycles,
            r.top.ratio
        );
    }
    if r.outputs_agree && r.top.outputs_agree {
        ExitCode::SUCCESS
    } else {
        eprintln!("prnic-sim: error: the two simulators disagreed during the benchmark");
        ExitCode::from(1)
    }
}
