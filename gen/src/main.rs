//! `prnic`: the P-RNIC RTL generator.

use clap::{Parser, Subcommand};
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
    /// Write Verilog, manifest.json, report.md and constraints/ for a config.
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
    /// Synthesise the generated modules with Yosys (synth_xilinx) and report LUTs, FFs,
    /// BRAM, DSP and the longest path between registers; writes a Markdown report.
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

fn run(cli: Cli) -> Result<(), String> {
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
            use std::io::Write as _;
            let text = if json {
                serde_json::to_string_pretty(&rows).expect("serialise") + "\n"
            } else {
                rows.iter()
                    .map(|r| format!("{:<11} {:>6} LUTs {:>6} FFs {:>4} RAMB36 {:>3} DSP  longest path {} cells\n", r.module, r.luts, r.ffs, r.ramb36, r.dsps, r.longest_path_cells))
                    .collect()
            };
            let _ = std::io::stdout().write_all(text.as_bytes());
            eprintln!("prnic: wrote {}", out.display());
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("prnic: error: {msg}");
            ExitCode::from(2)
        }
    }
}
