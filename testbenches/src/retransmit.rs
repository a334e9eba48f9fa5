//! The spurious-retransmission stress (the Pegasus paper's receiver ordering and its
//! Fig. 12; docs/blocks/rx_reorder.md): 127 flows sprayed packet by packet over paths
//! with a stated reordering (delay spread, jitter, held frames) and a rare real loss,
//! into the Verilated `rx_reorder`. Every retransmission request goes back to the
//! sender, which resends each named PSN once; a resent PSN whose original copy still
//! arrives was resent needlessly (spurious). The same traffic runs three times: with the
//! out-of-order threshold alone (missing share 0%), with the paper's two thresholds, and
//! with the two plus the age test bounded by the fabric's reordering (the policy).

use crate::rx_reorder::{default_settings, Stream};
use prnic_gen::PrnicConfig;
use prnic_verif::ecmp::SwitchHash;
use prnic_verif::fabric::{Fabric, PathSpec, Selection};
use prnic_verif::rx_reorder::{Header, ReorderSettings, Verdict};
use std::collections::{BTreeSet, VecDeque};

/// The fabrics of the stress. Each states its reordering: the paths' delay spread, their
/// jitter, and how often and how long a frame is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FabricKind {
    /// The calibrated stress for the paper's Fig. 12: eight paths of 2.0-3.4 us, 1 us of
    /// jitter, and 1.4% of frames held 6 us (a frame waiting behind a burst in a switch).
    /// The held frames arrive 60-90 packets late, sparse among the rest.
    Fig12,
    /// One path in eight persistently at 10 us, about 90 packets late: lateness
    /// concentrated on one path.
    Straggler,
    /// No straggler, 8 us of jitter on every path: lateness everywhere.
    Jitter,
}

/// The stress scenario.
#[derive(Debug, Clone)]
pub struct Stress {
    pub fabric: FabricKind,
    pub flows: u32,
    pub packets_per_flow: u32,
    /// Packets a flow sends back to back before the next flow's turn.
    pub burst: u32,
    pub packet_bytes: usize,
    /// Sender line rate.
    pub rate_gbps: f64,
    pub paths: Vec<PathSpec>,
    /// Receiver to sender delay of ACKs and retransmission requests.
    pub reverse_delay_ns: f64,
    /// Retransmission timeout: a flow's head resent when its ACKs stall this long.
    pub rto_ns: f64,
    /// `rx_reorder`'s thresholds for the paper's dual run. The out-of-order run uses the
    /// same out-of-order threshold with a missing share of 0% and no age test; the
    /// policy run adds the age test with `reorder_bound()`.
    pub settings: ReorderSettings,
    /// Age-test bound of the policy run; `None` takes `reorder_bound()`.
    pub loss_after: Option<u32>,
    /// The sender's tail probe (0 = off); `None` takes `round_trip_ns()` + 1 us.
    pub probe_ns: Option<f64>,
    pub seed: u64,
}

impl Stress {
    /// 127 flows of 768 packets of 4 KiB in bursts of 256 (1 MiB) at 400 Gb/s over 8
    /// paths of 100 Gb/s with 1e-4 loss, on the given fabric.
    pub fn new(fabric: FabricKind) -> Self {
        let paths = (0..8)
            .map(|k| {
                let spread = 2000.0 + 200.0 * k as f64;
                let (delay_ns, jitter_ns, held) = match fabric {
                    FabricKind::Fig12 => (spread, 1000.0, 0.014),
                    FabricKind::Straggler if k == 7 => (10_000.0, 1000.0, 0.0),
                    FabricKind::Straggler => (spread, 1000.0, 0.0),
                    FabricKind::Jitter => (spread, 8000.0, 0.0),
                };
                PathSpec {
                    rate_gbps: 100.0,
                    delay_ns,
                    jitter_ns,
                    loss: 1e-4,
                    dup: 0.0,
                    queue_bytes: 64 << 20,
                    held,
                    held_ns: if held > 0.0 { 6000.0 } else { 0.0 },
                    corrupt: 0.0,
                }
            })
            .collect();
        Stress {
            fabric,
            flows: 127,
            packets_per_flow: 768,
            burst: 256,
            packet_bytes: 4096,
            rate_gbps: 400.0,
            paths,
            reverse_delay_ns: 2000.0,
            rto_ns: 50_000.0,
            settings: default_settings(),
            loss_after: None,
            probe_ns: None,
            seed: 1,
        }
    }

    /// The straggler fabric (the stress's fabric before the calibrated one).
    pub fn paper() -> Self {
        Self::new(FabricKind::Straggler)
    }

    /// Time between two packets of one flow while it sends.
    pub fn packet_ns(&self) -> f64 {
        self.packet_bytes as f64 * 8.0 / self.rate_gbps
    }

    /// The longest a packet can take one way without queueing: delay, all its jitter and
    /// a hold.
    pub fn slowest_ns(&self) -> f64 {
        self.paths
            .iter()
            .map(|p| p.delay_ns + p.jitter_ns + if p.held > 0.0 { p.held_ns } else { 0.0 })
            .fold(0.0, f64::max)
    }

    /// The fastest a packet can go one way.
    pub fn fastest_ns(&self) -> f64 {
        self.paths
            .iter()
            .map(|p| p.delay_ns)
            .fold(f64::INFINITY, f64::min)
    }

    /// The fabric round trip: the slowest packet and its reply. No timeout may be
    /// shorter, and "within 2 round trips" is measured against it.
    pub fn round_trip_ns(&self) -> f64 {
        self.slowest_ns() + self.reverse_delay_ns
    }

    /// The reordering one flow can see, in packets: the delay spread (slowest minus
    /// fastest) over the time between two of its packets, plus one. A hole with this
    /// many packets above it is no longer in flight. This is the bound a config sets
    /// as `reorder.loss_after` for a fabric whose spread it knows (docs/blocks/rx_reorder.md).
    pub fn reorder_bound(&self) -> u32 {
        ((self.slowest_ns() - self.fastest_ns()) / self.packet_ns()).ceil() as u32 + 1
    }

    /// The share of an out-of-order threshold's span that can be in flight at once
    /// without any loss or hold, in percent: the packets one flow sends over the paths'
    /// delay spread plus jitter, over the threshold. A missing share at or below it can
    /// be plain reordering.
    pub fn in_flight_share_pct(&self) -> u32 {
        let spread = self
            .paths
            .iter()
            .map(|p| p.delay_ns + p.jitter_ns)
            .fold(0.0, f64::max)
            - self.fastest_ns();
        let pkts = spread / self.packet_ns();
        ((100.0 * pkts / self.settings.ooo_threshold as f64).ceil() as u32).min(100)
    }

    /// The policy run's thresholds, each set from the fabric's stated reordering: the
    /// out-of-order threshold as given, the missing share at least the share that can be
    /// in flight (`in_flight_share_pct`), and the age test at the reorder bound.
    pub fn policy_settings(&self) -> ReorderSettings {
        ReorderSettings {
            missing_share_pct: self
                .settings
                .missing_share_pct
                .max(self.in_flight_share_pct()),
            loss_after: self.loss_after.unwrap_or_else(|| self.reorder_bound()),
            ..self.settings
        }
    }

    fn probe(&self) -> f64 {
        self.probe_ns.unwrap_or(self.round_trip_ns() + 1000.0)
    }
}

/// One run's counts.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct RunCounts {
    pub missing_share_pct: u32,
    /// The age test's bound (packets above the head; 0 = off).
    pub loss_after: u32,
    pub requests: u64,
    /// PSNs resent because a request named them.
    pub resent: u64,
    /// Of those, PSNs whose original copy arrived anyway.
    pub spurious: u64,
    /// Heads resent by the sender's tail probe.
    pub probe_resent: u64,
    /// Of those, PSNs whose original copy arrived anyway.
    pub probe_spurious: u64,
    /// Head PSNs resent after the retransmission timeout.
    pub rto_resent: u64,
    /// Of those, PSNs whose original copy arrived anyway.
    pub rto_spurious: u64,
    /// Every retransmission whose original arrived anyway (requests, probe, timeout),
    /// per packet sent.
    pub spurious_rate: f64,
    /// Originals the fabric lost.
    pub real_losses: u64,
    /// Of those, PSNs placed in the end.
    pub real_losses_recovered: u64,
    /// Of the real losses: named by a request, found by the probe, resent by the timeout.
    pub losses_requested: u64,
    pub losses_probed: u64,
    pub losses_timed_out: u64,
    /// From a lost packet's send to the sender's decision to resend it (the request's
    /// arrival, the probe or the timeout), the slowest over the real losses, in us and
    /// in fabric round trips (`round_trip_ns`).
    pub loss_to_resend_max_us: f64,
    pub loss_to_resend_max_rtts: f64,
    pub cycles: u64,
    pub all_placed: bool,
}

/// `prnic-sim retransmit`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RetransmitReport {
    pub fabric: FabricKind,
    pub flows: u32,
    pub packets: u64,
    pub paths: usize,
    /// The fabric's stated reordering.
    pub delay_spread_ns: f64,
    pub jitter_ns: f64,
    pub held_share: f64,
    pub held_ns: f64,
    pub loss: f64,
    pub round_trip_us: f64,
    /// The reordering one flow can see, in packets (the policy's age bound by default).
    pub reorder_bound_packets: u32,
    pub probe_us: f64,
    pub ooo_threshold: u32,
    /// The paper's dual run's missing share (the config's).
    pub missing_share_pct: u32,
    pub spurious_rate_ooo_only: f64,
    pub spurious_rate_dual: f64,
    pub spurious_rate_policy: f64,
    pub real_losses: u64,
    pub real_losses_recovered: u64,
    pub ooo_only: RunCounts,
    pub dual: RunCounts,
    pub policy: RunCounts,
}

fn frame(flow: u32, psn: u32, attempt: u8, bytes: usize) -> Vec<u8> {
    let mut f = vec![0u8; bytes.max(64)];
    f[12] = 0x08;
    f[14] = 0x45;
    f[23] = 17;
    f[26..30].copy_from_slice(&[10, 0, 0, 1]);
    f[30..34].copy_from_slice(&[10, 0, 0, 2]);
    // Per-packet spraying: the UDP source port walks with the PSN.
    let port = 49152 + ((flow.wrapping_mul(7919) + psn) % 16384) as u16;
    f[34..36].copy_from_slice(&port.to_be_bytes());
    f[36..38].copy_from_slice(&4789u16.to_be_bytes());
    f[42..46].copy_from_slice(&flow.to_be_bytes());
    f[46..50].copy_from_slice(&psn.to_be_bytes());
    f[50] = attempt;
    f
}

fn parse(f: &[u8]) -> (u32, u32, u8) {
    (
        u32::from_be_bytes(f[42..46].try_into().unwrap()),
        u32::from_be_bytes(f[46..50].try_into().unwrap()),
        f[50],
    )
}

/// One run of the stress with the given thresholds.
///
/// The sender keeps each flow within the receive window (PSN < acknowledged head +
/// window) and resends the PSNs a request names, once each. Every 8th packet and every
/// resend asks for an ACK. Two timers catch what no request names:
/// - the tail probe: a flow that has sent nothing for `probe_ns` (longer than any round
///   trip, so the ACK of its last packet is back) and whose ACK is short of what it
///   sent resends its head, if the head too was last sent over `probe_ns` ago: a loss
///   with too few packets behind it to pass any threshold (TCP's tail loss probe). Each
///   ACK that then moves the head short of where the flow stopped has the new head
///   resent too, if it was sent over `probe_ns` ago;
/// - the timeout: a flow's head is resent when its ACKs stall for `rto_ns`.
pub fn run(st: &Stress, s: ReorderSettings) -> RunCounts {
    let cfg = PrnicConfig::builtin();
    let period_ns = cfg.clock_period_ns();
    let probe_ns = st.probe();
    let mut rx = Stream::new(&s);
    for f in 0..st.flows {
        rx.create(f, (f % 8) as u8, 0);
    }
    let mut fabric = Fabric::new(
        st.paths.clone(),
        Selection::Ecmp(SwitchHash::Crc32),
        st.seed,
    );
    let nf = st.flows as usize;
    let ppf = st.packets_per_flow as usize;
    let total = st.flows as u64 * st.packets_per_flow as u64;
    let pkt_ns = st.packet_ns();
    let mut next_psn = vec![0u32; nf];
    let mut acked = vec![0u32; nf];
    let mut last_progress = vec![0f64; nf];
    let mut last_sent = vec![0f64; nf];
    let mut probed = vec![0f64; nf];
    let mut chase_to = vec![0u32; nf];
    // When each packet was last sent, and its original.
    let mut sent_at = vec![0f64; nf * ppf];
    let mut first_sent = vec![0f64; nf * ppf];
    // When the sender first decided to resend each packet.
    let mut resend_decided: Vec<Option<f64>> = vec![None; nf * ppf];
    let mut cur = 0usize;
    let mut burst_left = st.burst;
    let mut resend: VecDeque<(f64, u32, u32)> = VecDeque::new();
    let mut acks: VecDeque<(f64, u32, u32)> = VecDeque::new();
    let mut resent: BTreeSet<(u32, u32)> = BTreeSet::new();
    let mut probe_resent: BTreeSet<(u32, u32)> = BTreeSet::new();
    let mut rto_resent: BTreeSet<(u32, u32)> = BTreeSet::new();
    let mut orig_arrived: BTreeSet<(u32, u32)> = BTreeSet::new();
    let mut placed: BTreeSet<(u32, u32)> = BTreeSet::new();
    let mut arrivals: VecDeque<(u32, u32, u8)> = VecDeque::new();
    let mut out = RunCounts {
        missing_share_pct: s.missing_share_pct,
        loss_after: s.loss_after,
        ..Default::default()
    };
    let idx = |f: usize, p: u32| f * ppf + p as usize;
    let mut next_send_ns = 0.0;
    let mut cycle: u64 = 0;
    let limit = total * 400 + 10_000_000;
    while (placed.len() as u64) < total && cycle < limit {
        let now = cycle as f64 * period_ns;
        while acks.front().is_some_and(|&(t, _, _)| t <= now) {
            let (_, f, head) = acks.pop_front().unwrap();
            let f = f as usize;
            if head > acked[f] {
                acked[f] = head;
                last_progress[f] = now;
                // Chasing after a probe: the new head is the next hole.
                if head < chase_to[f] && now - sent_at[idx(f, head)] > probe_ns {
                    probe_resent.insert((f as u32, head));
                    resend_decided[idx(f, head)].get_or_insert(now);
                    resend.push_back((now, f as u32, head));
                }
            }
        }
        for f in 0..nf {
            if acked[f] >= next_psn[f] {
                continue;
            }
            let head = acked[f];
            if probe_ns > 0.0
                && now - last_sent[f].max(probed[f]) > probe_ns
                && now - sent_at[idx(f, head)] > probe_ns
            {
                probed[f] = now;
                chase_to[f] = next_psn[f];
                probe_resent.insert((f as u32, head));
                resend_decided[idx(f, head)].get_or_insert(now);
                resend.push_back((now, f as u32, head));
            }
            if now - last_progress[f] > st.rto_ns {
                rto_resent.insert((f as u32, head));
                resend_decided[idx(f, head)].get_or_insert(now);
                resend.push_back((now, f as u32, head));
                last_progress[f] = now;
            }
        }
        // Sender: one packet per packet time, resends first, then bursts round robin
        // over the flows the window lets send.
        if now >= next_send_ns {
            if resend.front().is_some_and(|&(t, _, _)| t <= now) {
                let (_, f, p) = resend.pop_front().unwrap();
                if p >= acked[f as usize] {
                    fabric.send(now, frame(f, p, 1, st.packet_bytes));
                    sent_at[idx(f as usize, p)] = now;
                    next_send_ns = now + pkt_ns;
                }
            } else {
                for _ in 0..=nf {
                    let f = cur;
                    let open =
                        next_psn[f] < st.packets_per_flow && next_psn[f] < acked[f] + s.window;
                    if open && burst_left > 0 {
                        if next_psn[f] == acked[f] {
                            last_progress[f] = now;
                        }
                        fabric.send(now, frame(f as u32, next_psn[f], 0, st.packet_bytes));
                        sent_at[idx(f, next_psn[f])] = now;
                        first_sent[idx(f, next_psn[f])] = now;
                        last_sent[f] = now;
                        next_psn[f] += 1;
                        burst_left -= 1;
                        next_send_ns = now + pkt_ns;
                        break;
                    }
                    cur = (cur + 1) % nf;
                    burst_left = st.burst;
                }
            }
        }
        for (_, fr) in fabric.poll(now) {
            arrivals.push_back(parse(&fr));
        }
        let h = arrivals.pop_front().map(|(f, p, a)| {
            if a == 0 {
                orig_arrived.insert((f, p));
            }
            Header {
                qp: f,
                psn: p,
                vni_slot: (f % 8) as u8,
                ack_req: a != 0 || p % 8 == 7,
                imm: None,
            }
        });
        if let Some((h, o)) = rx.cycle(h) {
            if o.verdict == Verdict::Place {
                placed.insert((h.qp, h.psn));
            }
            if let Some(head) = o.ack {
                acks.push_back((now + st.reverse_delay_ns, h.qp, head));
            }
            if let Some(n) = o.nak {
                out.requests += 1;
                let at = now + st.reverse_delay_ns;
                for p in n.missing {
                    if resent.insert((h.qp, p)) {
                        resend_decided[idx(h.qp as usize, p)].get_or_insert(at);
                        resend.push_back((at, h.qp, p));
                    }
                }
            }
        }
        cycle += 1;
    }
    out.cycles = cycle;
    let spurious =
        |set: &BTreeSet<(u32, u32)>| set.iter().filter(|k| orig_arrived.contains(k)).count() as u64;
    out.resent = resent.len() as u64;
    out.spurious = spurious(&resent);
    out.probe_resent = probe_resent.len() as u64;
    out.probe_spurious = spurious(&probe_resent);
    out.rto_resent = rto_resent.len() as u64;
    out.rto_spurious = spurious(&rto_resent);
    let all: BTreeSet<(u32, u32)> = resent
        .iter()
        .chain(&probe_resent)
        .chain(&rto_resent)
        .copied()
        .collect();
    out.spurious_rate = spurious(&all) as f64 / total as f64;
    let lost: Vec<(u32, u32)> = (0..st.flows)
        .flat_map(|f| (0..st.packets_per_flow).map(move |p| (f, p)))
        .filter(|k| !orig_arrived.contains(k))
        .collect();
    out.real_losses = lost.len() as u64;
    out.real_losses_recovered = lost.iter().filter(|k| placed.contains(k)).count() as u64;
    out.losses_requested = lost.iter().filter(|k| resent.contains(k)).count() as u64;
    out.losses_probed = lost.iter().filter(|k| probe_resent.contains(k)).count() as u64;
    out.losses_timed_out = lost.iter().filter(|k| rto_resent.contains(k)).count() as u64;
    let worst_ns = lost
        .iter()
        .map(|&(f, p)| {
            let i = idx(f as usize, p);
            resend_decided[i].map_or(f64::INFINITY, |t| t - first_sent[i])
        })
        .fold(0.0, f64::max);
    out.loss_to_resend_max_us = worst_ns / 1000.0;
    out.loss_to_resend_max_rtts = worst_ns / st.round_trip_ns();
    out.all_placed = placed.len() as u64 == total;
    out
}

/// The three runs on the same traffic and fabric seed: the out-of-order threshold alone,
/// the paper's two thresholds, and the policy (the two plus the age test).
pub fn stress(st: &Stress) -> RetransmitReport {
    let s = st.settings;
    let ooo_only = run(
        st,
        ReorderSettings {
            missing_share_pct: 0,
            loss_after: 0,
            ..s
        },
    );
    let dual = run(st, ReorderSettings { loss_after: 0, ..s });
    let policy = run(st, st.policy_settings());
    let packets = st.flows as u64 * st.packets_per_flow as u64;
    let p0 = &st.paths[0];
    let held = st.paths.iter().find(|p| p.held > 0.0);
    RetransmitReport {
        fabric: st.fabric,
        flows: st.flows,
        packets,
        paths: st.paths.len(),
        delay_spread_ns: st.paths.iter().map(|p| p.delay_ns).fold(0.0, f64::max) - st.fastest_ns(),
        jitter_ns: p0.jitter_ns,
        held_share: held.map_or(0.0, |p| p.held),
        held_ns: held.map_or(0.0, |p| p.held_ns),
        loss: p0.loss,
        round_trip_us: st.round_trip_ns() / 1000.0,
        reorder_bound_packets: st.reorder_bound(),
        probe_us: st.probe() / 1000.0,
        ooo_threshold: s.ooo_threshold,
        missing_share_pct: s.missing_share_pct,
        spurious_rate_ooo_only: ooo_only.spurious_rate,
        spurious_rate_dual: dual.spurious_rate,
        spurious_rate_policy: policy.spurious_rate,
        real_losses: policy.real_losses,
        real_losses_recovered: policy.real_losses_recovered,
        ooo_only,
        dual,
        policy,
    }
}
