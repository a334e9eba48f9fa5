//! `prnic-sim credit-jitter`.

use super::*;

/// The options of `prnic-sim credit-jitter` (its help text is on `Cmd::CreditJitter`).
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Write throughput against jitter as an SVG chart.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<std::path::PathBuf>,
    /// QP counts.
    #[arg(long, value_delimiter = ',', default_values_t = [1u32, 2, 16, 512])]
    pub qps: Vec<u32>,
    /// Jitter values, in batch times (one batch time is 327.68 ns by default).
    #[arg(long, value_delimiter = ',', default_values_t = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0])]
    pub jitter_batches: Vec<f64>,
    /// Jitter distribution: uniform in 0..=jitter, or exponential with mean jitter/2.
    #[arg(long, value_enum, default_value = "uniform")]
    pub dist: DistArg,
    /// First-BDP allowance: per-qp (credit.bdp_bytes each), shared (the pipe divided
    /// among the QPs), or both.
    #[arg(long, value_enum, default_value = "both")]
    pub bdp: BdpArg,
    /// Grant slots per point (after a warm-up of a quarter as many).
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(100..=1_000_000))]
    pub slots: u64,
}

pub fn run(a: Args) -> ExitCode {
    let Args {
        json,
        plot,
        qps,
        jitter_batches,
        dist,
        bdp,
        slots,
    } = a;
    use prnic_testbenches::credit::{BdpMode, JitterDist};
    if qps.iter().any(|q| !(1..=2048).contains(q))
        || jitter_batches.iter().any(|j| !(0.0..=64.0).contains(j))
    {
        eprintln!("prnic-sim: error: --qps must be in 1..=2048 and --jitter-batches in 0..=64");
        return ExitCode::from(2);
    }
    let dist = match dist {
        DistArg::Uniform => JitterDist::Uniform,
        DistArg::Exponential => JitterDist::Exponential,
    };
    let modes: &[BdpMode] = match bdp {
        BdpArg::PerQp => &[BdpMode::PerQp],
        BdpArg::Shared => &[BdpMode::Shared],
        BdpArg::Both => &[BdpMode::PerQp, BdpMode::Shared],
    };
    let rows = prnic_testbenches::credit::sweep(
        PrnicConfig::builtin(),
        &qps,
        &jitter_batches,
        dist,
        modes,
        slots,
    );
    if let Some(p) = &plot {
        if let Err(e) = std::fs::write(p, prnic_testbenches::credit::svg_plot(&rows)) {
            eprintln!("prnic-sim: error: {}: {e}", p.display());
            return ExitCode::from(1);
        }
    }
    if !print_json(json, &rows) {
        out!("rule  QPs  BDP/QP KiB  jitter ns  throughput Gb/s  of line  starved");
        for r in &rows {
            out!(
                "{:<4} {:>4} {:>11} {:>10.1} {:>16.1} {:>7.2}% {:>7.2}%",
                r.rule,
                r.qps,
                r.bdp_bytes / 1024,
                r.jitter_ns,
                r.throughput_gbps,
                100.0 * r.throughput_gbps / r.line_rate_gbps,
                100.0 * r.starved_share
            );
        }
        if let Some(p) = &plot {
            out!("wrote {}", p.display());
        }
    }
    ExitCode::SUCCESS
}
