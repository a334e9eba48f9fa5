//! `prnic-sim`: scenarios, benchmarks and waveforms on the Verilator models of prnic's
//! generated Verilog. Every figure it prints is measured in that run; `--json` prints the
//! same figures as one JSON object for scripts and CI.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod cmd;

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
    Bench(cmd::bench::Args),
    /// Fill the flow table with random keys until the first insertion fails (per seed),
    /// program the Verilator model with the result and look every key up in hardware.
    TableFill(cmd::table_fill::Args),
    /// Measure flow-table lookup latency and throughput on the Verilator model.
    LookupLatency(cmd::lookup_latency::Args),
    /// Spray quality: one QP's packets through the Verilator sprayer and an ECMP model
    /// (switch hash of the outer 5-tuple) over 8, 16, 32 and 64 paths, per mode.
    Spray(cmd::spray::Args),
    /// CSR accesses and modeled channel time (4 MB/s) to install a VPC of N flows: address
    /// check before every command versus the per-RNIC state machine.
    VpcUpdate(cmd::vpc_update::Args),
    /// TX path: a mixed scenario (4 tenants, hits, misses, 10% malformed frames) through
    /// the Verilator model of tx_encap, checked against the golden model, and the bus
    /// rate of back-to-back frames (4 KiB MTU frames, a length that needs an extra beat,
    /// and 64-byte frames).
    Tx(cmd::tx::Args),
    /// Credit loop on the Verilator models of credit_tx and credit_rx: N QPs send to one
    /// receiver through a credit path with a fixed loop delay (the one the first BDP
    /// exactly covers) and jitter. One row per rule, jitter, QP count and BDP mode.
    CreditJitter(cmd::credit_jitter::Args),
    /// A credit-starvation scenario in a waveform: Eq.1 with jitter, traced (FST or VCD
    /// by extension) with each QP's credit, requests and grants, a GTKWave save file
    /// next to it, the starvation intervals, and the same run with Eq.2 (FILE-eq2.fst).
    CreditStarvation(cmd::credit_starvation::Args),
    /// Soak the TX path: a long run of mixed tenants, misses, malformed frames, idle
    /// input, backpressure and resets mid-traffic, checked frame by frame against the
    /// golden model. Reports lost, duplicated and misordered frames and VNI leaks (all
    /// must be 0; the exit status is 1 otherwise).
    Soak(cmd::soak::Args),
    /// Header throughput of rx_reorder: 127 QPs of reordered, duplicated, lost and
    /// foreign packets offered back to back, then one QP in order back to back; every
    /// outcome is checked against the golden model. Prints packets per cycle and the
    /// per-QP state size.
    Reorder(cmd::reorder::Args),
    /// Spurious-retransmission stress (the paper's Fig. 12): 127 flows sprayed over 8
    /// paths with a stated reordering and rare real loss, into rx_reorder. The same
    /// traffic runs with the out-of-order threshold alone, with the paper's two
    /// thresholds, and with the two plus the age test bounded by the fabric's reordering
    /// (the policy). A resent PSN whose original arrived anyway is spurious; rates are
    /// per packet sent. Also reports how soon each real loss was resent, in fabric
    /// round trips.
    Retransmit(cmd::retransmit::Args),
    /// Soak the RX path (rx_decap + rx_reorder): 8 tenants, 64 QPs, reordering,
    /// duplicates, malformed, foreign-tenant and unknown-QP frames, idle input, placement
    /// backpressure and resets mid-traffic, checked against the models segment by
    /// segment. Reports mismatches, tenant leaks, duplicate placements and misordered
    /// CQEs (all must be 0; the exit status is 1 otherwise).
    RxSoak(cmd::rx_soak::Args),
    /// Run a fabric scenario file (TOML; see testbenches/scenarios/README.md): RDMA
    /// WRITE messages on many QPs and tenants from a sender RNIC through a multipath
    /// fabric (rate, delay, jitter, loss, duplication, queue per path; ECMP or round
    /// robin) into a receiver RNIC. backend = "rtl" runs two Verilated prnic_tops
    /// programmed through CSR by the DPU model; backend = "model" runs the golden models
    /// at any rate. Every payload byte and CQE is checked exactly once and in order (the
    /// exit status is 1 otherwise). Reports last_arrival_us, peak_ooo_packets, peak_span_psns,
    /// throughput_gbps beside rx_bound_gbps (what one beat per cycle carries for the
    /// traffic), timeouts, probes, messages_completed and more. Bad files exit with
    /// status 2.
    Fabric(cmd::fabric::Args),
    /// Write a waveform of the sprayer under the benchmark stimulus (FST or VCD by the
    /// file's extension), with real time in picoseconds at the configured clock.
    Trace(cmd::trace::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Bench(a) => cmd::bench::run(a),
        Cmd::TableFill(a) => cmd::table_fill::run(a),
        Cmd::LookupLatency(a) => cmd::lookup_latency::run(a),
        Cmd::Spray(a) => cmd::spray::run(a),
        Cmd::VpcUpdate(a) => cmd::vpc_update::run(a),
        Cmd::Tx(a) => cmd::tx::run(a),
        Cmd::CreditJitter(a) => cmd::credit_jitter::run(a),
        Cmd::CreditStarvation(a) => cmd::credit_starvation::run(a),
        Cmd::Soak(a) => cmd::soak::run(a),
        Cmd::Reorder(a) => cmd::reorder::run(a),
        Cmd::Retransmit(a) => cmd::retransmit::run(a),
        Cmd::RxSoak(a) => cmd::rx_soak::run(a),
        Cmd::Fabric(a) => cmd::fabric::run(a),
        Cmd::Trace(a) => cmd::trace::run(a),
    }
}
