//! `prnic-sim table-fill`.

use super::*;

/// The options of `prnic-sim table-fill` (its help text is on `Cmd::TableFill`).
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Seeds for the random keys.
    #[arg(long, value_delimiter = ',', default_values_t = [1u64, 2, 3, 4, 5])]
    pub seeds: Vec<u64>,
}

pub fn run(a: Args) -> ExitCode {
    let Args { json, seeds } = a;
    let r = prnic_testbenches::flow_table::table_fill(PrnicConfig::builtin(), &seeds);
    if !print_json(json, &r) {
        out!(
            "entries {} ({} ways x {} slots + {} stash)",
            r.entries,
            4,
            r.slots_per_way,
            r.stash
        );
        for i in 0..r.seeds.len() {
            out!(
                "seed {:>4}: load factor at first failure {:.4} ({} keys), stash used {}, hardware hits {}/{}",
                r.seeds[i], r.load_factor_at_first_failure[i], r.keys_inserted[i], r.stash_used[i], r.hardware_hits[i], r.keys_inserted[i]
            );
        }
        out!(
            "load factor min {:.4}, mean {:.4}",
            r.load_factor_min,
            r.load_factor_mean
        );
    }
    let ok = r.hardware_hits == r.keys_inserted;
    if !ok {
        eprintln!("prnic-sim: error: some inserted keys did not hit in the Verilator model");
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
