//! `prnic-sim fabric`.

use super::*;

/// The options of `prnic-sim fabric` (its help text is on `Cmd::Fabric`).
#[derive(clap::Args)]
pub struct Args {
    /// Scenario file.
    #[arg(long, value_name = "FILE")]
    pub config: std::path::PathBuf,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Override the file's backend.
    #[arg(long, value_enum)]
    pub backend: Option<BackendArg>,
    /// Override the file's number of messages.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub messages: Option<u32>,
    /// Override the file's host_mhz: RNIC B's host side (placement, CQE, ACK, CSR) on a
    /// clock of its own at this many MHz, through host_cdc and axil_cdc (rtl backend;
    /// 50..=1000, or 0 for one clock).
    #[arg(long, value_name = "MHZ")]
    pub host_mhz: Option<f64>,
    /// Write RNIC B's waveform (the whole prnic_top) to this file: *.fst for
    /// GTKWave, or *.vcd (rtl backend; keep --messages small, the top is wide). With a
    /// host clock, prnic_top (on clk_mac) is in FILE and each crossing, with both
    /// clocks, beside it: b.fst gives b.host_cdc.fst and b.axil_cdc.fst, on the same
    /// time base in ps.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<std::path::PathBuf>,
}

pub fn run(a: Args) -> ExitCode {
    let Args {
        config,
        json,
        backend,
        messages,
        host_mhz,
        trace,
    } = a;
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
    if let Some(h) = host_mhz {
        sc.host_mhz = h;
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
            "{} ({}): {}/{} messages, {} packets, {} bytes; last arrival {:.3} us, {:.1} Gb/s ({:.0}% of the {:.1} Gb/s one beat per cycle carries for this traffic), peak out-of-order {} packets, widest window used {} PSNs (of {})",
            r.name, r.backend, r.messages_completed, r.messages, r.packets, r.payload_bytes,
            r.last_arrival_us, r.throughput_gbps, 100.0 * r.throughput_gbps / r.rx_bound_gbps,
            r.rx_bound_gbps, r.peak_ooo_packets, r.peak_span_psns, sc.window
        );
        out!(
            "fabric: {} lost, {} duplicated, {} corrupted, {} queue drops, peak queue {} bytes; {} requests, {} probes, {} timeouts, {} packets resent ({} by the probe, {} of them on a late ACK); {} CQEs",
            r.fabric_lost, r.fabric_duplicated, r.fabric_corrupted, r.fabric_queue_drops, r.peak_fabric_queue_bytes,
            r.retransmission_requests, r.probes, r.timeouts, r.retransmitted_packets,
            r.probe_resent_packets, r.late_ack_resends, r.cqes
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
        eprintln!(
            "prnic-sim: error: the scenario did not deliver every message exactly once, in order"
        );
        ExitCode::from(1)
    }
}
