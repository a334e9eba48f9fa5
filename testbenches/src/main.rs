//! `prnic-sim`: scenarios, benchmarks and waveforms on the Verilator models of prnic's
//! generated Verilog. Every figure it prints is measured in that run; `--json` prints the
//! same figures as one JSON object for scripts and CI.

use clap::{Parser, Subcommand};
use prnic_gen::PrnicConfig;
use prnic_testbenches::bench;
use std::process::ExitCode;

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
fn print_json<T: serde::Serialize>(json: bool, r: &T) -> bool {
    if json {
        match serde_json::to_string_pretty(r) {
            Ok(s) => out!("{s}"),
            Err(e) => eprintln!("prnic-sim: error: the report is not JSON: {e}"),
        }
    }
    json
}

#[derive(Parser)]
#[command(
    name = "prnic-sim",
    version,
    about = "Run prnic's Verilator models: benchmarks, scenarios and waveforms",
    long_about = "Run prnic's Verilator models of the generated Verilog (default config): \
benchmarks, named scenarios and waveform traces. Every figure is measured in the run that \
prints it; --json prints one JSON object instead of a table."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Simulated cycles per second of the sprayer under Verilator and rust-hdl's simulator,
    /// measured side by side on the same stimulus, and their ratio.
    Bench {
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// Cycles to run on the Verilator model.
        #[arg(long, default_value_t = 2_000_000, value_parser = clap::value_parser!(u64).range(1000..))]
        cycles: u64,
        /// Cycles to run on rust-hdl's simulator (about 100x slower).
        #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(100..))]
        hdl_cycles: u64,
        /// Cycles of the whole prnic_top on Verilator (a reset, then its flow-table sweep).
        #[arg(long, default_value_t = 200_000, value_parser = clap::value_parser!(u64).range(100..))]
        top_cycles: u64,
        /// Cycles of the whole prnic_top on rust-hdl's simulator (a few hundred per second).
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(2..=100_000))]
        top_hdl_cycles: u64,
    },
    /// Fill the flow table with random keys until the first insertion fails (per seed),
    /// program the Verilator model with the result and look every key up in hardware.
    TableFill {
        #[arg(long)]
        json: bool,
        /// Seeds for the random keys.
        #[arg(long, value_delimiter = ',', default_values_t = [1u64, 2, 3, 4, 5])]
        seeds: Vec<u64>,
    },
    /// Measure flow-table lookup latency and throughput on the Verilator model.
    LookupLatency {
        #[arg(long)]
        json: bool,
        /// Back-to-back lookups to run.
        #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
        lookups: u64,
    },
    /// Spray quality: one QP's packets through the Verilator sprayer and an ECMP model
    /// (switch hash of the outer 5-tuple) over 8, 16, 32 and 64 paths, per mode.
    Spray {
        #[arg(long)]
        json: bool,
        /// Packets of the one QP.
        #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
        packets: u64,
    },
    /// CSR accesses and modeled channel time (4 MB/s) to install a VPC of N flows: address
    /// check before every command versus the per-RNIC state machine.
    VpcUpdate {
        #[arg(long)]
        json: bool,
        /// Flows in the VPC.
        #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=30_000))]
        flows: u64,
        /// Run through the Verilator model of prnic_top instead of the register model.
        #[arg(long)]
        verilator: bool,
    },
    /// TX path: a mixed scenario (4 tenants, hits, misses, 10% malformed frames) through
    /// the Verilator model of tx_encap, checked against the golden model, and the bus
    /// rate of back-to-back frames (4 KiB MTU frames, a length that needs an extra beat,
    /// and 64-byte frames).
    Tx {
        #[arg(long)]
        json: bool,
        /// Write the frames that left to this classic pcap file (Wireshark, tshark).
        #[arg(long, value_name = "FILE")]
        pcap: Option<std::path::PathBuf>,
        /// Frames in the mixed scenario.
        #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
        frames: u64,
        /// Seed of the scenario.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Credit loop on the Verilator models of credit_tx and credit_rx: N QPs send to one
    /// receiver through a credit path with a fixed loop delay (the one the first BDP
    /// exactly covers) and jitter. One row per rule, jitter, QP count and BDP mode.
    CreditJitter {
        #[arg(long)]
        json: bool,
        /// Write throughput against jitter as an SVG chart.
        #[arg(long, value_name = "FILE.svg")]
        plot: Option<std::path::PathBuf>,
        /// QP counts.
        #[arg(long, value_delimiter = ',', default_values_t = [1u32, 2, 16, 512])]
        qps: Vec<u32>,
        /// Jitter values, in batch times (one batch time is 327.68 ns by default).
        #[arg(long, value_delimiter = ',', default_values_t = [0.0, 0.25, 0.5, 1.0, 2.0, 4.0])]
        jitter_batches: Vec<f64>,
        /// Jitter distribution: uniform in 0..=jitter, or exponential with mean jitter/2.
        #[arg(long, value_enum, default_value = "uniform")]
        dist: DistArg,
        /// First-BDP allowance: per-qp (credit.bdp_bytes each), shared (the pipe divided
        /// among the QPs), or both.
        #[arg(long, value_enum, default_value = "both")]
        bdp: BdpArg,
        /// Grant slots per point (after a warm-up of a quarter as many).
        #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(100..=1_000_000))]
        slots: u64,
    },
    /// A credit-starvation scenario in a waveform: Eq.1 with jitter, traced (FST or VCD
    /// by extension) with each QP's credit, requests and grants, a GTKWave save file
    /// next to it, the starvation intervals, and the same run with Eq.2 (FILE-eq2.fst).
    CreditStarvation {
        #[arg(long)]
        json: bool,
        /// Trace file: *.fst (GTKWave) or *.vcd.
        #[arg(long, value_name = "FILE")]
        fst: std::path::PathBuf,
        /// QPs (the first four have monitor signals in the trace).
        #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=512))]
        qps: u32,
        /// Jitter, in batch times.
        #[arg(long, default_value_t = 1.0)]
        jitter_batches: f64,
        /// Grant slots to run.
        #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(20..=100_000))]
        slots: u64,
    },
    /// Soak the TX path: a long run of mixed tenants, misses, malformed frames, idle
    /// input, backpressure and resets mid-traffic, checked frame by frame against the
    /// golden model. Reports lost, duplicated and misordered frames and VNI leaks (all
    /// must be 0; the exit status is 1 otherwise).
    Soak {
        #[arg(long)]
        json: bool,
        /// Frames to run (10,000,000 takes tens of minutes).
        #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
        packets: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Header throughput of rx_reorder: 127 QPs of reordered, duplicated, lost and
    /// foreign packets offered back to back, then one QP in order back to back; every
    /// outcome is checked against the golden model. Prints packets per cycle and the
    /// per-QP state size.
    Reorder {
        #[arg(long)]
        json: bool,
        /// Packets per QP in the mixed run.
        #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        per_qp: u32,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Spurious-retransmission stress: 127 flows sprayed over 8 paths of different delay
    /// and jitter with rare real loss, into rx_reorder, run with the out-of-order
    /// threshold alone and with both thresholds. A resent PSN whose original arrived
    /// anyway is spurious; rates are per packet sent.
    Retransmit {
        #[arg(long)]
        json: bool,
        /// Packets per flow.
        #[arg(long, default_value_t = 768, value_parser = clap::value_parser!(u32).range(64..=1_000_000))]
        packets_per_flow: u32,
        /// Delay of the eighth (straggler) path in ns; the other seven take 2,000-3,200.
        #[arg(long, default_value_t = 10_000.0, value_parser = parse_ns)]
        straggler_ns: f64,
        /// Jitter of every path in ns (uniform in 0..jitter).
        #[arg(long, default_value_t = 1_000.0, value_parser = parse_ns)]
        jitter_ns: f64,
        /// Out-of-order threshold in packets (default: the config's).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=255))]
        ooo_threshold: Option<u32>,
        /// Missing-share threshold in percent for the dual run (default: the config's).
        #[arg(long, value_parser = clap::value_parser!(u32).range(0..=100))]
        missing_share_pct: Option<u32>,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Soak the RX path (rx_decap + rx_reorder): 8 tenants, 64 QPs, reordering,
    /// duplicates, malformed, foreign-tenant and unknown-QP frames, idle input, placement
    /// backpressure and resets mid-traffic, checked against the models segment by
    /// segment. Reports mismatches, tenant leaks, duplicate placements and misordered
    /// CQEs (all must be 0; the exit status is 1 otherwise).
    RxSoak {
        #[arg(long)]
        json: bool,
        /// Good packets to run (each also risks extra malformed or foreign copies).
        #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
        packets: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Run a fabric scenario file (TOML; see testbenches/scenarios/README.md): RDMA
    /// WRITE messages on many QPs and tenants from a sender RNIC through a multipath
    /// fabric (rate, delay, jitter, loss, duplication, queue per path; ECMP or round
    /// robin) into a receiver RNIC. backend = "rtl" runs two Verilated prnic_tops
    /// programmed through CSR by the DPU model; backend = "model" runs the golden models
    /// at any rate. Every payload byte and CQE is checked exactly once and in order (the
    /// exit status is 1 otherwise). Reports last_arrival_us, peak_ooo_packets,
    /// throughput_gbps, messages_completed and more. Bad files exit with status 2.
    Fabric {
        /// Scenario file.
        #[arg(long, value_name = "FILE")]
        config: std::path::PathBuf,
        #[arg(long)]
        json: bool,
        /// Override the file's backend.
        #[arg(long, value_enum)]
        backend: Option<BackendArg>,
        /// Override the file's number of messages.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
        messages: Option<u32>,
        /// Write RNIC B's waveform (the whole prnic_top) to this file: *.fst for
        /// GTKWave, or *.vcd (rtl backend; keep --messages small, the top is wide).
        #[arg(long, value_name = "FILE")]
        trace: Option<std::path::PathBuf>,
    },
    /// Write a waveform of the sprayer under the benchmark stimulus (FST or VCD by the
    /// file's extension), with real time in picoseconds at the configured clock.
    Trace {
        /// Output trace file: *.fst (compact, for GTKWave) or *.vcd.
        #[arg(long, value_name = "FILE")]
        out: std::path::PathBuf,
        /// Cycles to simulate.
        #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
        cycles: u64,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum BackendArg {
    Rtl,
    Model,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum DistArg {
    Uniform,
    Exponential,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum BdpArg {
    PerQp,
    Shared,
    Both,
}

/// A progress line on stderr for long runs: only on a terminal, never under `--json`.
struct Progress {
    tty: bool,
    total: u64,
    unit: &'static str,
}

impl Progress {
    fn new(json: bool, total: u64, unit: &'static str) -> Self {
        use std::io::IsTerminal;
        Progress {
            tty: !json && std::io::stderr().is_terminal(),
            total,
            unit,
        }
    }

    fn show(&self, done: u64) {
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

    fn finish(&self) {
        if self.tty {
            eprintln!();
        }
    }
}

/// A delay in ns: finite, 0..=1 s.
fn parse_ns(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .parse()
        .map_err(|_| format!("`{s}` is not a number of ns"))?;
    if v.is_finite() && (0.0..=1e9).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{v} is outside 0..=1000000000 ns"))
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Tx {
            json,
            pcap,
            frames,
            seed,
        } => {
            let r = match prnic_testbenches::tx::scenario(
                PrnicConfig::builtin(),
                seed,
                frames as usize,
                pcap.as_deref(),
            ) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("prnic-sim: error: {e}");
                    return ExitCode::from(1);
                }
            };
            if !print_json(json, &r) {
                out!(
                    "mixed scenario: {} frames from {} tenants, {} sent, dropped {:?}, model mismatches {}",
                    r.frames_in, r.tenants, r.frames_sent, r.dropped, r.model_mismatches
                );
                if let Some(p) = &r.pcap {
                    out!("wrote {p}");
                }
                for t in &r.throughput {
                    out!(
                        "{:>5}-byte frames back to back: {} beats in, {} out, {:.2} cycles/frame ({:.2} idle), {:.1} Gb/s on the wire of a {:.1} Gb/s bus",
                        t.inner_bytes, t.in_beats_per_frame, t.out_beats_per_frame, t.cycles_per_frame,
                        t.idle_beats_per_frame, t.wire_gbps, t.bus_gbps
                    );
                }
            }
            if r.model_mismatches == 0 {
                ExitCode::SUCCESS
            } else {
                eprintln!("prnic-sim: error: the model and the RTL disagree");
                ExitCode::from(1)
            }
        }
        Cmd::CreditJitter {
            json,
            plot,
            qps,
            jitter_batches,
            dist,
            bdp,
            slots,
        } => {
            use prnic_testbenches::credit::{BdpMode, JitterDist};
            if qps.iter().any(|q| !(1..=2048).contains(q))
                || jitter_batches.iter().any(|j| !(0.0..=64.0).contains(j))
            {
                eprintln!(
                    "prnic-sim: error: --qps must be in 1..=2048 and --jitter-batches in 0..=64"
                );
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
        Cmd::CreditStarvation {
            json,
            fst,
            qps,
            jitter_batches,
            slots,
        } => {
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
        Cmd::Soak {
            json,
            packets,
            seed,
        } => {
            let bar = Progress::new(json, packets, "frames");
            let r = prnic_testbenches::soak::soak(PrnicConfig::builtin(), packets, seed, |d| {
                bar.show(d)
            });
            bar.finish();
            if !print_json(json, &r) {
                out!(
                    "{} frames in {} segments ({} resets mid-traffic), {} cycles: {} sent, dropped {:?}",
                    r.packets, r.segments, r.resets, r.cycles, r.sent, r.dropped
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
        Cmd::Reorder { json, per_qp, seed } => {
            let r = prnic_testbenches::reorder::reorder_scenario(per_qp, seed);
            if !print_json(json, &r) {
                out!(
                    "{} QPs x {} bytes of state, window {}: {} headers in {} cycles = {:.3} packets/cycle (one QP back to back: {:.3})",
                    r.qps, r.state_bytes_per_qp, r.window, r.headers, r.header_cycles, r.packets_per_cycle, r.same_qp_packets_per_cycle
                );
                out!(
                    "placed {}, duplicates {}, CQEs {}, retransmission requests {}, model mismatches {}",
                    r.placed, r.duplicates, r.cqes, r.retransmission_requests, r.model_mismatches
                );
            }
            if r.model_mismatches == 0 {
                ExitCode::SUCCESS
            } else {
                eprintln!("prnic-sim: error: rx_reorder differs from the golden model");
                ExitCode::from(1)
            }
        }
        Cmd::Retransmit {
            json,
            packets_per_flow,
            straggler_ns,
            jitter_ns,
            ooo_threshold,
            missing_share_pct,
            seed,
        } => {
            let mut st = prnic_testbenches::retransmit::Stress {
                packets_per_flow,
                seed,
                ..prnic_testbenches::retransmit::Stress::paper()
            };
            st.paths[7].delay_ns = straggler_ns;
            if let Some(t) = ooo_threshold {
                st.settings.ooo_threshold = t;
            }
            if let Some(p) = missing_share_pct {
                st.settings.missing_share_pct = p;
            }
            for p in &mut st.paths {
                p.jitter_ns = jitter_ns;
            }
            let r = prnic_testbenches::retransmit::stress(&st);
            if !print_json(json, &r) {
                out!(
                    "{} flows, {} packets over {} paths; out-of-order threshold {}, missing share {}%",
                    r.flows, r.packets, r.paths, r.ooo_threshold, r.missing_share_pct
                );
                for (name, c) in [
                    ("ooo threshold only", &r.ooo_only),
                    ("both thresholds", &r.dual),
                ] {
                    out!(
                        "{name:>18}: {} requests, {} PSNs resent, {} spurious ({:.4}%); {} timeout resends ({} spurious); all placed: {}",
                        c.requests, c.resent, c.spurious, 100.0 * c.spurious as f64 / r.packets as f64, c.rto_resent, c.rto_spurious, c.all_placed
                    );
                }
                out!(
                    "real losses {}, recovered {}",
                    r.real_losses,
                    r.real_losses_recovered
                );
            }
            if r.ooo_only.all_placed && r.dual.all_placed {
                ExitCode::SUCCESS
            } else {
                eprintln!("prnic-sim: error: some packets were never placed");
                ExitCode::from(1)
            }
        }
        Cmd::RxSoak {
            json,
            packets,
            seed,
        } => {
            let bar = Progress::new(json, packets, "packets");
            let r = prnic_testbenches::rx_soak::rx_soak(packets, seed, |d| bar.show(d));
            bar.finish();
            if !print_json(json, &r) {
                out!(
                    "{} packets (+{} malformed, foreign or duplicate frames) in {} segments ({} resets mid-traffic), {} cycles: {} placed, {} CQEs, dropped {:?}, {} refused by rx_reorder",
                    r.packets, r.extra_frames, r.segments, r.resets, r.cycles, r.placed, r.cqes, r.dropped, r.verdict_drops
                );
                out!(
                    "model mismatches {}, tenant leaks {}, duplicate placements {}, misordered CQEs {}",
                    r.mismatches, r.tenant_leaks, r.duplicate_placements, r.misordered_cqes
                );
            }
            if r.clean() {
                ExitCode::SUCCESS
            } else {
                eprintln!(
                    "prnic-sim: error: the RX soak found a problem: {}",
                    r.first_mismatch
                        .as_deref()
                        .unwrap_or("leaks, duplicates or misordered CQEs")
                );
                ExitCode::from(1)
            }
        }
        Cmd::Fabric {
            config,
            json,
            backend,
            messages,
            trace,
        } => {
            use prnic_testbenches::e2e::{run, run_traced, Backend, Scenario};
            let text = match std::fs::read_to_string(&config) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("prnic-sim: error: {}: {e}", config.display());
                    return ExitCode::from(2);
                }
            };
            let mut sc = match Scenario::parse(&text) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("prnic-sim: error: {}: {e}", config.display());
                    return ExitCode::from(2);
                }
            };
            if let Some(b) = backend {
                sc.backend = match b {
                    BackendArg::Rtl => Backend::Rtl,
                    BackendArg::Model => Backend::Model,
                };
            }
            if let Some(m) = messages {
                sc.messages = m;
            }
            if let Err(e) = sc.check() {
                eprintln!("prnic-sim: error: {}: {e}", config.display());
                return ExitCode::from(2);
            }
            if sc.name.is_empty() {
                sc.name = config
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
            }
            if trace.is_some() && sc.backend != Backend::Rtl {
                eprintln!("prnic-sim: error: --trace needs the rtl backend (the file says model)");
                return ExitCode::from(2);
            }
            let bar = Progress::new(json, sc.messages as u64, "messages");
            let r = match &trace {
                Some(t) => match run_traced(&sc, t, |d, _| bar.show(d as u64)) {
                    Ok(r) => r,
                    Err(e) => {
                        bar.finish();
                        eprintln!("prnic-sim: error: {e}");
                        return ExitCode::from(2);
                    }
                },
                None => run(&sc, |d, _| bar.show(d as u64)),
            };
            bar.finish();
            if !print_json(json, &r) {
                out!(
                    "{} ({}): {}/{} messages, {} packets, {} bytes; last arrival {:.3} us, {:.1} Gb/s, peak out-of-order {} packets, widest window used {} PSNs (of {})",
                    r.name, r.backend, r.messages_completed, r.messages, r.packets, r.payload_bytes,
                    r.last_arrival_us, r.throughput_gbps, r.peak_ooo_packets, r.peak_span_psns, sc.window
                );
                out!(
                    "fabric: {} lost, {} duplicated, {} queue drops, peak queue {} bytes; {} requests, {} timeouts, {} packets resent; {} CQEs",
                    r.fabric_lost, r.fabric_duplicated, r.fabric_queue_drops, r.peak_fabric_queue_bytes,
                    r.retransmission_requests, r.timeouts, r.retransmitted_packets, r.cqes
                );
                out!(
                    "checks: misplaced {}, placed twice {}, never placed {}, CQE wrong {}, twice {}, misordered {}, missing {}",
                    r.misplaced, r.placed_twice, r.packets_never_placed, r.cqe_wrong, r.cqe_twice,
                    r.cqe_misordered, r.cqes_missing
                );
            }
            if let (false, Some(w)) = (json, &r.without_credits) {
                out!(
                    "with credits: {:.1} Gb/s, peak fabric queue {} bytes, {} queue drops, {} timeouts; without: {:.1} Gb/s, peak fabric queue {} bytes, {} queue drops, {} timeouts",
                    r.throughput_gbps, r.peak_fabric_queue_bytes, r.fabric_queue_drops, r.timeouts,
                    w.throughput_gbps, w.peak_fabric_queue_bytes, w.fabric_queue_drops, w.timeouts
                );
            }
            if r.clean() && r.without_credits.as_ref().is_none_or(|w| w.clean()) {
                ExitCode::SUCCESS
            } else {
                eprintln!("prnic-sim: error: the scenario did not deliver every message exactly once, in order");
                ExitCode::from(1)
            }
        }
        Cmd::TableFill { json, seeds } => {
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
                eprintln!(
                    "prnic-sim: error: some inserted keys did not hit in the Verilator model"
                );
            }
            if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Cmd::LookupLatency { json, lookups } => {
            let r = prnic_testbenches::flow_table::lookup_latency(PrnicConfig::builtin(), lookups);
            if !print_json(json, &r) {
                out!(
                    "lookup latency {} cycles = {:.2} ns at {} MHz (budget {} ns = {} cycles); {:.4} lookups/cycle over {} lookups; in order: {}",
                    r.lookup_latency_cycles, r.lookup_latency_ns, r.clock_mhz, r.budget_ns, r.budget_cycles, r.lookups_per_cycle, r.lookups, r.results_in_order
                );
            }
            ExitCode::SUCCESS
        }
        Cmd::Spray { json, packets } => {
            let c = &PrnicConfig::builtin().sprayer;
            let rows = prnic_testbenches::spray::spray(
                c.port_min as u16,
                c.port_max as u16,
                packets,
                &[8, 16, 32, 64],
            );
            if !print_json(json, &rows) {
                out!(
                    "{:<11} {:<11} {:>5} {:>9} {:>13} {:>13} {:>6} {:>8}",
                    "mode",
                    "hash",
                    "paths",
                    "packets",
                    "max/mean",
                    "min/mean",
                    "used",
                    "ports"
                );
                for r in &rows {
                    out!(
                        "{:<11} {:<11} {:>5} {:>9} {:>13.4} {:>13.4} {:>6} {:>8}",
                        r.mode,
                        r.switch_hash,
                        r.paths,
                        r.packets,
                        r.max_over_mean,
                        r.min_over_mean,
                        r.paths_used,
                        r.distinct_ports
                    );
                }
            }
            ExitCode::SUCCESS
        }
        Cmd::VpcUpdate {
            json,
            flows,
            verilator,
        } => {
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
        Cmd::Trace { out, cycles } => {
            let cfg = PrnicConfig::builtin();
            let period_ps = (1e6 / cfg.clock.mhz).round() as u64;
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
        Cmd::Bench {
            json,
            cycles,
            hdl_cycles,
            top_cycles,
            top_hdl_cycles,
        } => {
            let r = bench::bench(
                PrnicConfig::builtin(),
                cycles,
                hdl_cycles,
                top_cycles,
                top_hdl_cycles,
            );
            if !print_json(json, &r) {
                out!("block: {}", r.block);
                out!(
                    "verilator (harness, all ports per cycle): {:>14.0} cycles/s over {} cycles",
                    r.verilator_cycles_per_s,
                    r.verilator_cycles
                );
                out!(
                    "verilator (raw step_n):                   {:>14.0} cycles/s over {} cycles",
                    r.verilator_raw_cycles_per_s,
                    r.verilator_raw_cycles
                );
                out!(
                    "rust-hdl simulate() loop:                 {:>14.0} cycles/s over {} cycles",
                    r.rust_hdl_cycles_per_s,
                    r.rust_hdl_cycles
                );
                out!(
                    "ratio verilator/rust-hdl:                 {:>14.1}",
                    r.ratio
                );
                out!(
                    "outputs agree:                            {:>14}",
                    r.outputs_agree
                );
                out!(
                    "prnic_top: verilator {:.0} cycles/s over {} cycles, rust-hdl {:.0} cycles/s over {} cycles, ratio {:.0}",
                    r.top.verilator_cycles_per_s,
                    r.top.verilator_cycles,
                    r.top.rust_hdl_cycles_per_s,
                    r.top.rust_hdl_cycles,
                    r.top.ratio
                );
            }
            if r.outputs_agree && r.top.outputs_agree {
                ExitCode::SUCCESS
            } else {
                eprintln!("prnic-sim: error: the two simulators disagreed during the benchmark");
                ExitCode::from(1)
            }
        }
    }
}
