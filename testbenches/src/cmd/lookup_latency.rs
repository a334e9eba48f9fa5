//! `prnic-sim lookup-latency`.

use super::*;

/// The options of `prnic-sim lookup-latency` (its help text is on `Cmd::LookupLatency`).
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Back-to-back lookups to run.
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub lookups: u64,
}

pub fn run(a: Args) -> ExitCode {
    let Args { json, lookups } = a;
    let r = prnic_testbenches::flow_table::lookup_latency(PrnicConfig::builtin(), lookups);
    if !print_json(json, &r) {
        out!(
            "lookup latency {} cycles = {:.2} ns at {} MHz (budget {} ns = {} cycles); {:.4} lookups/cycle over {} lookups; in order: {}",
            r.lookup_latency_cycles, r.lookup_latency_ns, r.clock_mhz, r.budget_ns, r.budget_cycles, r.lookups_per_cycle, r.lookups, r.results_in_order
        );
    }
    ExitCode::SUCCESS
}
