//! `prnic-sim vpc-update`.

use super::*;

/// The options of `prnic-sim vpc-update` (its help text is on `Cmd::VpcUpdate`).
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Flows in the VPC.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=30_000))]
    pub flows: u64,
    /// Run through the Verilator model of prnic_top instead of the register model.
    #[arg(long)]
    pub verilator: bool,
}

pub fn run(a: Args) -> ExitCode {
    let Args {
        json,
        flows,
        verilator,
    } = a;
    let cfg = PrnicConfig::builtin();
    let g = prnic_testbenches::flow_table::geometry(cfg);
    let hash = u64::from_str_radix(&cfg.hash_hex(), 16).expect("hex");
    let r = prnic_testbenches::vpc::vpc_update(&g, hash, flows as usize, verilator);
    if !print_json(json, &r) {
        for row in &r.rows {
            out!(
                "{:<26} {} flows: {} accesses ({} reads, {} writes, {} probes), {:.4} s modeled, audit clean: {}",
                row.mode, row.flows, row.accesses, row.reads, row.writes, row.probes, row.modeled_seconds, row.audit_clean
            );
        }
        out!(
            "speedup {:.2}x (paper: 3.54 s -> 1.5 s = {:.2}x)",
            r.speedup,
            r.paper_speedup
        );
    }
    if r.rows.iter().all(|x| x.audit_clean) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
