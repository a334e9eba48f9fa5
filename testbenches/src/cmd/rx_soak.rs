//! `prnic-sim rx-soak`.

use super::*;

/// The options of `prnic-sim rx-soak` (its help text is on `Cmd::RxSoak`).
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Good packets to run (each also risks extra malformed or foreign copies).
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
    let bar = Progress::new(json, packets, "packets");
    let r = prnic_testbenches::rx_soak::rx_soak(packets, seed, |d| bar.show(d));
    bar.finish();
    if !print_json(json, &r) {
        out!(
            "{} packets (+{} malformed, foreign or duplicate frames) in {} segments ({} resets mid-traffic), {} cycles: {} placed, {} CQEs, dropped {:?}, {} refused by rx_reorder",
            r.packets, r.extra_frames, r.segments, r.resets, r.cycles, r.placed, r.cqes, r.dropped, r.verdict_drops
        );
        out!(
            "model mismatches {}, tenant leaks {}, duplicate placements {}, misordered CQEs {}, corrupted placements {} (of {} frames with a byte changed anywhere)",
            r.mismatches,
            r.tenant_leaks,
            r.duplicate_placements,
            r.misordered_cqes,
            r.corrupted_placements,
            r.corrupted_frames
        );
    }
    if r.clean() {
        ExitCode::SUCCESS
    } else {
        eprintln!(
            "prnic-sim: error: the RX soak found a problem: {}",
            r.first_mismatch
                .as_deref()
                .unwrap_or("leaks, duplicates, misordered CQEs or corrupted placements")
        );
        ExitCode::from(1)
    }
}
