//! `prnic-sim soak`.

use super::*;

/// The options of `prnic-sim soak` (its help text is on `Cmd::Soak`).
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Frames to run (10,000,000 takes tens of minutes).
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    pub packets: u64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(a: Args) -> ExitCode {
    let Args {
        json,
        packets,
        seed,
    } = a;
    let bar = Progress::new(json, packets, "frames");
    let r =
        prnic_testbenches::tx_soak::soak(PrnicConfig::builtin(), packets, seed, |d| bar.show(d));
    bar.finish();
    if !print_json(json, &r) {
        out!(
            "{} frames in {} segments ({} resets mid-traffic), {} cycles: {} sent, dropped {:?}",
            r.packets,
            r.segments,
            r.resets,
            r.cycles,
            r.sent,
            r.dropped
        );
        out!(
            "lost {}, duplicated {}, misordered {}, VNI leaks {}, protocol violations {}; {} frames inside the block at a reset",
            r.lost, r.duplicated, r.misordered, r.vni_leaks, r.protocol_violations, r.cut_by_reset
        );
    }
    if r.clean() {
        ExitCode::SUCCESS
    } else {
        eprintln!("prnic-sim: error: the soak found lost, duplicated, misordered or leaked frames");
        ExitCode::from(1)
    }
}
