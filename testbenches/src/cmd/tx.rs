//! `prnic-sim tx`.

use super::*;

/// The options of `prnic-sim tx` (its help text is on `Cmd::Tx`).
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Write the frames that left to this classic pcap file (Wireshark, tshark).
    #[arg(long, value_name = "FILE")]
    pub pcap: Option<std::path::PathBuf>,
    /// Frames in the mixed scenario.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub frames: u64,
    /// Seed of the scenario.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(a: Args) -> ExitCode {
    let Args {
        json,
        pcap,
        frames,
        seed,
    } = a;
    let r = match prnic_testbenches::tx_encap::scenario(
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
            r.frames_in,
            r.tenants,
            r.frames_sent,
            r.dropped,
            r.model_mismatches
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
