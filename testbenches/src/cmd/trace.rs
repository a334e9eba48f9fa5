//! `prnic-sim trace`.

use super::*;

/// The options of `prnic-sim trace` (its help text is on `Cmd::Trace`).
#[derive(clap::Args)]
pub struct Args {
    /// Output trace file: *.fst (compact, for GTKWave) or *.vcd.
    #[arg(long, value_name = "FILE")]
    pub out: std::path::PathBuf,
    /// Cycles to simulate.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub cycles: u64,
}

pub fn run(a: Args) -> ExitCode {
    let Args { out, cycles } = a;
    let cfg = PrnicConfig::builtin();
    let period_ps = cfg.clock_period_ps();
    let mut dut = match prnic_testbenches::bridge::Sprayer::with_trace(&out, period_ps) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("prnic-sim: error: {e}");
            return ExitCode::from(2);
        }
    };
    let stim = prnic_testbenches::sprayer::stimulus(0x7ace, 4096);
    for c in 0..cycles as usize {
        prnic_testbenches::sprayer::SprayerSim::clock(&mut dut, &stim[c % stim.len()]);
    }
    drop(dut);
    eprintln!(
        "prnic-sim: wrote {cycles} cycles of sprayer to {} ({period_ps} ps per cycle)",
        out.display()
    );
    ExitCode::SUCCESS
}
