//! `prnic-sim credit-starvation`.

use super::*;

/// The options of `prnic-sim credit-starvation` (its help text is on `Cmd::CreditStarvation`).
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Trace file: *.fst (GTKWave) or *.vcd.
    #[arg(long, value_name = "FILE")]
    pub fst: std::path::PathBuf,
    /// QPs (the first four have monitor signals in the trace).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=512))]
    pub qps: u32,
    /// Jitter, in batch times.
    #[arg(long, default_value_t = 1.0)]
    pub jitter_batches: f64,
    /// Grant slots to run.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(20..=100_000))]
    pub slots: u64,
}

pub fn run(a: Args) -> ExitCode {
    let Args {
        json,
        fst,
        qps,
        jitter_batches,
        slots,
    } = a;
    if !(0.0..=64.0).contains(&jitter_batches) {
        eprintln!("prnic-sim: error: --jitter-batches must be in 0..=64");
        return ExitCode::from(2);
    }
    if let Err(e) = prnic_testbenches::bridge::TraceFormat::from_path(&fst) {
        eprintln!("prnic-sim: error: {e}");
        return ExitCode::from(2);
    }
    let r = match prnic_testbenches::credit::starvation(
        PrnicConfig::builtin(),
        &fst,
        qps,
        jitter_batches,
        slots,
    ) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("prnic-sim: error: {e}");
            return ExitCode::from(1);
        }
    };
    if !print_json(json, &r) {
        for x in &r {
            let total: u64 = x.intervals.iter().map(|i| i.cycles).sum();
            out!(
                "{}: {} QPs, jitter {:.1} ns: {:.1} Gb/s, starved {:.2}% of the time in {} intervals ({} cycles)",
                x.rule, x.qps, x.jitter_ns, x.throughput_gbps, 100.0 * x.starved_share,
                x.intervals.len(), total
            );
            out!("  trace {}  (gtkwave -a {} {})", x.trace, x.gtkw, x.trace);
            let longest = prnic_testbenches::credit::longest_first(&x.intervals);
            for i in longest
                .iter()
                .take(prnic_testbenches::credit::REPORTED_INTERVALS)
            {
                out!(
                    "  starved from cycle {} ({:.1} ns) for {} cycles, QPs {:?}",
                    i.start_cycle,
                    i.start_ns,
                    i.cycles,
                    i.qps
                );
            }
        }
    }
    ExitCode::SUCCESS
}
