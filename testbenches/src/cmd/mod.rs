//! One module per `prnic-sim` subcommand: its options (`Args`) and what it runs (`run`),
//! and here what they share: printing text or JSON, progress, option parsers.

pub(crate) use prnic_gen::PrnicConfig;
pub(crate) use std::process::ExitCode;

/// Print to stdout; a closed pipe (`prnic-sim ... | head`) ends output quietly instead of
/// panicking as `println!` does.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

/// With `--json`, print `r` as one JSON object and return true; without, return false
/// and let the caller print its table.
pub(crate) fn print_json<T: serde::Serialize>(json: bool, r: &T) -> bool {
    if json {
        match serde_json::to_string_pretty(r) {
            Ok(s) => out!("{s}"),
            Err(e) => eprintln!("prnic-sim: error: the report is not JSON: {e}"),
        }
    }
    json
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum BackendArg {
    Rtl,
    Model,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum DistArg {
    Uniform,
    Exponential,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum BdpArg {
    PerQp,
    Shared,
    Both,
}

/// A progress line on stderr for long runs: only on a terminal, never under `--json`.
pub(crate) struct Progress {
    tty: bool,
    total: u64,
    unit: &'static str,
}

impl Progress {
    pub(crate) fn new(json: bool, total: u64, unit: &'static str) -> Self {
        use std::io::IsTerminal;
        Progress {
            tty: !json && std::io::stderr().is_terminal(),
            total,
            unit,
        }
    }

    pub(crate) fn show(&self, done: u64) {
        use std::io::Write as _;
        if self.tty {
            let _ = write!(
                std::io::stderr(),
                "\r{done}/{} {} ({:.0}%)",
                self.total,
                self.unit,
                100.0 * done as f64 / self.total as f64
            );
        }
    }

    pub(crate) fn finish(&self) {
        if self.tty {
            eprintln!();
        }
    }
}

/// A finite number in `lo..=hi`, of what `unit` names.
fn parse_in(s: &str, unit: &str, lo: f64, hi: f64) -> Result<f64, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of {unit}"))?;
    if v.is_finite() && (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{v} is outside {lo}..={hi} {unit}"))
    }
}

/// A delay in ns: finite, 0..=1 s.
pub(crate) fn parse_ns(s: &str) -> Result<f64, String> {
    parse_in(s, "ns", 0.0, 1e9)
}

/// A percentage, 0..=100.
pub(crate) fn parse_pct(s: &str) -> Result<f64, String> {
    parse_in(s, "%", 0.0, 100.0)
}

pub mod bench;
pub mod credit_jitter;
pub mod credit_starvation;
pub mod fabric;
pub mod lookup_latency;
pub mod reorder;
pub mod retransmit;
pub mod rx_soak;
pub mod soak;
pub mod spray;
pub mod table_fill;
pub mod trace;
pub mod tx;
pub mod vpc_update;
