//! `prnic`: the P-RNIC RTL generator.

use clap::{Parser, Subcommand};
use prnic_gen::timing::ModuleTiming;
use prnic_gen::{output, PrnicConfig};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "prnic",
    version,
    about = "Generate synthesizable Verilog for the P-RNIC data path from one config",
    long_about = "Generate synthesizable Verilog for the P-RNIC data path (flow table, VXLAN \
encapsulation, source-port spraying, reorder bitmaps, credit engine, CSRs) from one TOML \
config, with a manifest, a latency and size report, and timing constraints.\n\n\
A config file may set any subset of the parameters; the rest take the built-in defaults \
(`prnic config --dump` prints them). Bad input exits with status 2 and one line naming the \
problem; the output folder is then left untouched."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Write Verilog, manifest.json, report.md, register outputs, constraints/ and the vendor
    /// project files (project/: filelist, Vivado and Quartus scripts, IP Integrator wrapper).
    ///
    /// The output folder is replaced atomically: on any error it is left as it was. An
    /// existing folder is only replaced if prnic wrote it (it holds manifest.json).
    Generate {
        /// Config file (TOML); defaults apply to every field it does not set.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Output folder.
        #[arg(long, value_name = "DIR", default_value = "out")]
        out: PathBuf,
    },
    /// Print the register map, generated from the one register description, in one of
    /// its output formats (the same files `generate` writes under regmap/).
    Regmap {
        /// Config file (TOML): reset values and the config hash come from it.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = RegmapFormat::Md)]
        format: RegmapFormat,
    },
    /// Synthesise the generated modules with Yosys (synth_xilinx -family xcup) and report
    /// LUTs, FFs, BRAM and the worst register-to-register paths in logic levels and
    /// estimated delay; writes a Markdown report (docs/timing.md explains the count).
    ///
    /// Needs yosys (scripts/setup.sh). All modules take a few minutes.
    Synth {
        /// Config file (TOML).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Only these modules (repeatable); default all.
        #[arg(long = "module", value_name = "NAME")]
        modules: Vec<String>,
        /// Where to write the Markdown report.
        #[arg(long, value_name = "FILE", default_value = "docs/hardware-report.md")]
        out: PathBuf,
        /// Print the figures as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Timing from open tools: the worst register-to-register paths of each module, in
    /// logic levels and estimated delay at the configured clock, against the per-path
    /// budget of docs/timing.md.
    ///
    /// Each path names its start and end register as the rust-hdl block and signal they
    /// come from. With --check it is the timing gate: exit status 1 when any path is
    /// over budget. Needs yosys (scripts/setup.sh).
    Timing {
        /// Config file (TOML).
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Only these modules (repeatable); default all.
        #[arg(long = "module", value_name = "NAME")]
        modules: Vec<String>,
        /// Paths to print per module, worst first.
        #[arg(long, value_name = "N", default_value_t = 5)]
        paths: usize,
        /// Print each printed path element by element.
        #[arg(long)]
        detail: bool,
        /// Exit with status 1 if any register-to-register path is over budget.
        #[arg(long)]
        check: bool,
        /// Print the analysis as JSON.
        #[arg(long)]
        json: bool,
        /// Analyse this Yosys JSON netlist (`write_json` after `synth_xilinx`) instead of
        /// synthesising; needs --top.
        #[arg(long, value_name = "FILE", requires = "top")]
        netlist: Option<PathBuf>,
        /// The netlist's top module (with --netlist).
        #[arg(long, value_name = "NAME")]
        top: Option<String>,
    },
    /// Show or check the effective configuration.
    Config {
        /// Config file (TOML); defaults apply to every field it does not set.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        /// Print the effective config as TOML (defaults merged with FILE).
        #[arg(long)]
        dump: bool,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum RegmapFormat {
    /// Markdown (docs/regmap.md)
    Md,
    /// C header
    C,
    /// SystemRDL 2.0
    Rdl,
    /// JSON
    Json,
    /// Rust constants
    Rust,
}

fn load(path: Option<&Path>) -> Result<PrnicConfig, String> {
    match path {
        None => Ok(PrnicConfig::builtin().clone()),
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("cannot read config {}: {e}", p.display()))?;
            PrnicConfig::from_toml(&text).map_err(|e| format!("config {}: {e}", p.display()))
        }
    }
}

/// Why a command failed: bad input (exit 2) or a gate that did not pass (exit 1).
enum Fail {
    Input(String),
    Gate(String),
}

impl From<String> for Fail {
    fn from(s: String) -> Self {
        Fail::Input(s)
    }
}

struct GateFailed(String);

impl From<GateFailed> for Fail {
    fn from(g: GateFailed) -> Self {
        Fail::Gate(g.0)
    }
}

fn run(cli: Cli) -> Result<(), Fail> {
    match cli.cmd {
        Cmd::Generate { config, out } => {
            let cfg = load(config.as_deref())?;
            let files = output::all_files(&cfg).map_err(|e| e.to_string())?;
            output::write_atomically(&out, &files).map_err(|e| e.to_string())?;
            let n_v = files
                .keys()
                .filter(|p| p.extension().is_some_and(|e| e == "v"))
                .count();
            eprintln!(
                "prnic: wrote {} files ({} Verilog modules) to {} for config {}",
                files.len(),
                n_v,
                out.display(),
                cfg.hash_hex()
            );
            Ok(())
        }
        Cmd::Regmap { config, format } => {
            let cfg = load(config.as_deref())?;
            let text = match format {
                RegmapFormat::Md => prnic_gen::csr::regmap_md(&cfg),
                RegmapFormat::C => prnic_gen::csr::c_header(&cfg),
                RegmapFormat::Rdl => prnic_gen::csr::systemrdl(&cfg),
                RegmapFormat::Json => prnic_gen::csr::json(&cfg),
                RegmapFormat::Rust => prnic_gen::csr::rust_consts(),
            };
            use std::io::Write as _;
            let _ = std::io::stdout().write_all(text.as_bytes());
            Ok(())
        }
        Cmd::Synth {
            config,
            modules,
            out,
            json,
        } => {
            let cfg = load(config.as_deref())?;
            let rows = prnic_gen::synth::synth(&cfg, &modules).map_err(|e| e.to_string())?;
            let report = prnic_gen::synth::report(&cfg, &rows);
            std::fs::write(&out, report)
                .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
            print_rows(json, &rows, |r| r.summary_line())?;
            eprintln!("prnic: wrote {}", out.display());
            Ok(())
        }
        Cmd::Timing {
            config,
            modules,
            paths,
            detail,
            check,
            json,
            netlist,
            top,
        } => {
            let cfg = load(config.as_deref())?;
            let rows = match (netlist, top) {
                (Some(n), Some(t)) => {
                    let text = std::fs::read_to_string(&n)
                        .map_err(|e| format!("cannot read {}: {e}", n.display()))?;
                    vec![prnic_gen::timing::analyse(
                        &text,
                        &t,
                        cfg.clock_period_ns(),
                        &prnic_gen::timing::DelayModel::ULTRASCALE_PLUS_2,
                    )
                    .map_err(|e| e.to_string())?]
                }
                _ => prnic_gen::synth::synth(&cfg, &modules).map_err(|e| e.to_string())?,
            };
            print_rows(json, &rows, |r| r.listing(paths, detail))?;
            let over: usize = rows.iter().map(|r| r.violations().count()).sum();
            if check && over > 0 {
                return Err(GateFailed(format!(
                    "timing: {over} register-to-register path groups over budget"
                ))
                .into());
            }
            Ok(())
        }
        Cmd::Config { config, dump } => {
            let cfg = load(config.as_deref())?;
            if dump {
                // A closed pipe (`prnic config --dump | head`) is not an error.
                use std::io::Write as _;
                let _ = std::io::stdout().write_all(cfg.to_toml().as_bytes());
            } else {
                eprintln!(
                    "prnic: config is valid (hash {}); use --dump to print it",
                    cfg.hash_hex()
                );
            }
            Ok(())
        }
    }
}

/// Print `rows` as one JSON array with `--json`, else each row's text. A closed pipe
/// (`prnic ... | head`) is not an error.
fn print_rows(
    json: bool,
    rows: &[ModuleTiming],
    text: impl Fn(&ModuleTiming) -> String,
) -> Result<(), Fail> {
    use std::io::Write as _;
    let out = if json {
        serde_json::to_string_pretty(rows).map_err(|e| e.to_string())? + "\n"
    } else {
        rows.iter().map(text).collect()
    };
    let _ = std::io::stdout().write_all(out.as_bytes());
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail::Input(msg)) => {
            eprintln!("prnic: error: {msg}");
            ExitCode::from(2)
        }
        Err(Fail::Gate(msg)) => {
            eprintln!("prnic: {msg}");
            ExitCode::from(1)
        }
    }
}
