//! `prnic-sim retransmit`.

use super::*;

/// The options of `prnic-sim retransmit` (its help text is on `Cmd::Retransmit`).
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Packets per flow.
    #[arg(long, default_value_t = 768, value_parser = clap::value_parser!(u32).range(64..=1_000_000))]
    pub packets_per_flow: u32,
    /// Delay of the eighth (straggler) path in ns; the other seven take 2,000-3,200.
    #[arg(long, default_value_t = 10_000.0, value_parser = parse_ns)]
    pub straggler_ns: f64,
    /// Jitter of every path in ns (uniform in 0..jitter).
    #[arg(long, default_value_t = 1_000.0, value_parser = parse_ns)]
    pub jitter_ns: f64,
    /// Out-of-order threshold in packets (default: the config's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=255))]
    pub ooo_threshold: Option<u32>,
    /// Missing-share threshold in percent for the dual run (default: the config's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub missing_share_pct: Option<u32>,
    /// Age test for the dual run: a hole is also requested once this many packets above
    /// it have arrived; 0 is off (default: the config's `reorder.loss_after`).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=255))]
    pub loss_after: Option<u32>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(a: Args) -> ExitCode {
    let Args {
        json,
        packets_per_flow,
        straggler_ns,
        jitter_ns,
        ooo_threshold,
        missing_share_pct,
        loss_after,
        seed,
    } = a;
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
    if let Some(n) = loss_after {
        st.settings.loss_after = n;
    }
    for p in &mut st.paths {
        p.jitter_ns = jitter_ns;
    }
    let r = prnic_testbenches::retransmit::stress(&st);
    if !print_json(json, &r) {
        out!(
            "{} flows, {} packets over {} paths; out-of-order threshold {}, missing share {}%, loss after {} packets (0 = off)",
            r.flows,
            r.packets,
            r.paths,
            r.ooo_threshold,
            r.missing_share_pct,
            r.dual.loss_after
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
