//! `prnic-sim reorder`.

use super::*;

/// The options of `prnic-sim reorder` (its help text is on `Cmd::Reorder`).
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Packets per QP in the mixed run.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub per_qp: u32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(a: Args) -> ExitCode {
    let Args { json, per_qp, seed } = a;
    let r = prnic_testbenches::rx_reorder::reorder_scenario(per_qp, seed);
    if !print_json(json, &r) {
        out!(
            "{} QPs x {} bytes of state, window {}: {} headers in {} cycles = {:.3} packets/cycle (one QP back to back: {:.3})",
            r.qps, r.state_bytes_per_qp, r.window, r.headers, r.header_cycles, r.packets_per_cycle, r.same_qp_packets_per_cycle
        );
        out!(
            "placed {}, duplicates {}, CQEs {}, retransmission requests {}, model mismatches {}",
            r.placed,
            r.duplicates,
            r.cqes,
            r.retransmission_requests,
            r.model_mismatches
        );
    }
    if r.model_mismatches == 0 {
        ExitCode::SUCCESS
    } else {
        eprintln!("prnic-sim: error: rx_reorder differs from the golden model");
        ExitCode::from(1)
    }
}
