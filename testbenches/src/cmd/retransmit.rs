//! `prnic-sim retransmit`.

use super::*;
use prnic_testbenches::retransmit::{stress, FabricKind, Stress};

/// The options of `prnic-sim retransmit` (its help text is on `Cmd::Retransmit`).
#[derive(clap::Args)]
pub struct Args {
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// The fabric: fig12 (calibrated: 2.0-3.4 us paths, 1 us jitter, 1.4% of frames held
    /// 6 us), straggler (one path in eight at 10 us) or jitter (8 us on every path).
    #[arg(long, value_enum, default_value_t = FabricKind::Fig12)]
    pub fabric: FabricKind,
    /// Packets per flow.
    #[arg(long, default_value_t = 768, value_parser = clap::value_parser!(u32).range(64..=1_000_000))]
    pub packets_per_flow: u32,
    /// Delay of the eighth path in ns, replacing the fabric's (the other seven take
    /// 2,000-3,200).
    #[arg(long, value_parser = parse_ns)]
    pub straggler_ns: Option<f64>,
    /// Jitter of every path in ns (uniform in 0..jitter), replacing the fabric's.
    #[arg(long, value_parser = parse_ns)]
    pub jitter_ns: Option<f64>,
    /// Share of frames held longer on every path, in percent, replacing the fabric's.
    #[arg(long, value_parser = parse_pct)]
    pub held_pct: Option<f64>,
    /// How much longer a held frame takes, in ns, replacing the fabric's.
    #[arg(long, value_parser = parse_ns)]
    pub held_ns: Option<f64>,
    /// Out-of-order threshold in packets (default: the config's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=255))]
    pub ooo_threshold: Option<u32>,
    /// Missing-share threshold in percent for the dual and policy runs (default: the
    /// config's).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub missing_share_pct: Option<u32>,
    /// Age-test bound of the policy run: a hole is also requested once this many packets
    /// above it have arrived (default: the fabric's reordering in packets, printed as
    /// the reorder bound).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=255))]
    pub loss_after: Option<u32>,
    /// The sender's tail probe in ns; 0 turns it off (default: the fabric round trip
    /// + 1 us).
    #[arg(long, value_parser = parse_ns)]
    pub probe_ns: Option<f64>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(a: Args) -> ExitCode {
    let Args {
        json,
        fabric,
        packets_per_flow,
        straggler_ns,
        jitter_ns,
        held_pct,
        held_ns,
        ooo_threshold,
        missing_share_pct,
        loss_after,
        probe_ns,
        seed,
    } = a;
    let mut st = Stress {
        packets_per_flow,
        seed,
        loss_after,
        probe_ns,
        ..Stress::new(fabric)
    };
    if let Some(d) = straggler_ns {
        st.paths[7].delay_ns = d;
    }
    if let Some(j) = jitter_ns {
        for p in &mut st.paths {
            p.jitter_ns = j;
        }
    }
    for p in &mut st.paths {
        if let Some(h) = held_pct {
            p.held = h / 100.0;
        }
        if let Some(h) = held_ns {
            p.held_ns = h;
        }
    }
    if let Some(t) = ooo_threshold {
        st.settings.ooo_threshold = t;
    }
    if let Some(p) = missing_share_pct {
        st.settings.missing_share_pct = p;
    }
    let bound = st.reorder_bound();
    if loss_after.is_none() && bound > 255 {
        eprintln!(
            "prnic-sim: error: the fabric reorders {bound} packets of one flow, over the age test's limit of 255 (reorder.loss_after); give --loss-after"
        );
        return ExitCode::from(2);
    }
    let r = stress(&st);
    if !print_json(json, &r) {
        out!(
            "{:?} fabric: {} flows, {} packets over {} paths; delay spread {:.1} us, jitter {:.1} us, {:.2}% of frames held {:.1} us, loss {}",
            r.fabric,
            r.flows,
            r.packets,
            r.paths,
            r.delay_spread_ns / 1000.0,
            r.jitter_ns / 1000.0,
            100.0 * r.held_share,
            r.held_ns / 1000.0,
            r.loss
        );
        out!(
            "round trip {:.1} us, reorder bound {} packets, tail probe {:.1} us; out-of-order threshold {}, the paper's missing share {}%",
            r.round_trip_us,
            r.reorder_bound_packets,
            r.probe_us,
            r.ooo_threshold,
            r.missing_share_pct
        );
        for (name, c) in [
            ("ooo threshold only", &r.ooo_only),
            ("both thresholds", &r.dual),
            ("policy (age test)", &r.policy),
        ] {
            out!(
                "{name:>18}: {:.4}% spurious; {} requests, {} PSNs resent ({} spurious), {} probes ({} spurious), {} timeouts ({} spurious); share {}%, loss after {}",
                100.0 * c.spurious_rate, c.requests, c.resent, c.spurious, c.probe_resent, c.probe_spurious, c.rto_resent, c.rto_spurious, c.missing_share_pct, c.loss_after
            );
            out!(
                "{:>18}  real losses {}: {} requested, {} probed, {} timed out; slowest resent {:.1} us after its send ({:.2} round trips); all placed: {}",
                "", c.real_losses, c.losses_requested, c.losses_probed, c.losses_timed_out, c.loss_to_resend_max_us, c.loss_to_resend_max_rtts, c.all_placed
            );
        }
    }
    if r.ooo_only.all_placed && r.dual.all_placed && r.policy.all_placed {
        ExitCode::SUCCESS
    } else {
        eprintln!("prnic-sim: error: some packets were never placed");
        ExitCode::from(1)
    }
}
