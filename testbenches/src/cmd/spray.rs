//! `prnic-sim spray`.

use super::*;

/// The options of `prnic-sim spray` (its help text is on `Cmd::Spray`).
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Packets of the one QP.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub packets: u64,
}

pub fn run(a: Args) -> ExitCode {
    let Args { json, packets } = a;
    let c = &PrnicConfig::builtin().sprayer;
    let rows = prnic_testbenches::spray::spray(
        c.port_min as u16,
        c.port_max as u16,
        packets,
        &[8, 16, 32, 64],
    );
    if !print_json(json, &rows) {
        out!(
            "{:<11} {:<11} {:>5} {:>9} {:>13} {:>13} {:>6} {:>8}",
            "mode",
            "hash",
            "paths",
            "packets",
            "max/mean",
            "min/mean",
            "used",
            "ports"
        );
        for r in &rows {
            out!(
                "{:<11} {:<11} {:>5} {:>9} {:>13.4} {:>13.4} {:>6} {:>8}",
                r.mode,
                r.switch_hash,
                r.paths,
                r.packets,
                r.max_over_mean,
                r.min_over_mean,
                r.paths_used,
                r.distinct_ports
            );
        }
    }
    ExitCode::SUCCESS
}
