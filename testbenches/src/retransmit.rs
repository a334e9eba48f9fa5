//! The spurious-retransmission stress (the Pegasus paper's receiver ordering; docs/blocks/rx_reorder.md):
//! 127 flows sprayed packet by packet over paths with different delays and jitter, with a
//! rare real loss, into the Verilated `rx_reorder`. Every retransmission request goes back
//! to the sender, which resends each named PSN once; a resent PSN whose original copy
//! still arrives was requested needlessly (spurious). The same traffic runs twice: with
//! the out-of-order threshold alone (missing share 0%) and with both thresholds.

use crate::rx_reorder::{default_settings, Stream};
use prnic_gen::PrnicConfig;
use prnic_verif::ecmp::SwitchHash;
use prnic_verif::fabric::{Fabric, PathSpec, Selection};
use prnic_verif::rx_reorder::{Header, ReorderSettings, Verdict};
use std::collections::{BTreeSet, VecDeque};

/// The stress scenario.
#[derive(Debug, Clone)]
pub struct Stress {
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
    /// `rx_reorder`'s thresholds for the dual run (the other run uses the same
    /// out-of-order threshold with a missing share of 0%).
    pub settings: ReorderSettings,
    pub seed: u64,
}

impl Stress {
    /// 127 flows of 768 packets in bursts of 256 (1 MiB) at 400 Gb/s over 8 paths of
    /// 100 Gb/s, each with 1 us of jitter and 1e-4 loss: seven with delays of 2.0 to
    /// 3.2 us and one straggler at 10 us (a congested path), whose packets arrive some 90
    /// packets late.
    pub fn paper() -> Self {
        Stress {
            flows: 127,
            packets_per_flow: 768,
            burst: 256,
            packet_bytes: 4096,
            rate_gbps: 400.0,
            paths: (0..8)
                .map(|k| PathSpec {
                    rate_gbps: 100.0,
                    delay_ns: if k == 7 {
                        10_000.0
                    } else {
                        2000.0 + 200.0 * k as f64
                    },
                    jitter_ns: 1000.0,
                    loss: 1e-4,
                    dup: 0.0,
                    queue_bytes: 64 << 20,
                })
                .collect(),
            reverse_delay_ns: 2000.0,
            rto_ns: 50_000.0,
            settings: default_settings(),
            seed: 1,
        }
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
    /// Originals the fabric lost.
    pub real_losses: u64,
    /// Of those, PSNs placed in the end.
    pub real_losses_recovered: u64,
    /// Head PSNs resent after the retransmission timeout.
    pub rto_resent: u64,
    /// Of those, PSNs whose original copy arrived anyway.
    pub rto_spurious: u64,
    pub cycles: u64,
    pub all_placed: bool,
}

/// `prnic-sim retransmit`.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct RetransmitReport {
    pub flows: u32,
    pub packets: u64,
    pub paths: usize,
    pub ooo_threshold: u32,
    pub missing_share_pct: u32,
    pub spurious_rate_ooo_only: f64,
    pub spurious_rate_dual: f64,
    pub real_losses: u64,
    pub real_losses_recovered: u64,
    pub ooo_only: RunCounts,
    pub dual: RunCounts,
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
/// window), resends the PSNs a request names once each, and resends a flow's head PSN
/// when its acknowledged head has not moved for `rto_ns` (tail losses, and losses the
/// thresholds do not report). Every 8th packet and every resend asks for an ACK.
pub fn run(st: &Stress, s: ReorderSettings) -> RunCounts {
    let cfg = PrnicConfig::builtin();
    let period_ns = cfg.clock_period_ns();
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
    let total = st.flows as u64 * st.packets_per_flow as u64;
    let pkt_ns = st.packet_bytes as f64 * 8.0 / st.rate_gbps;
    let mut next_psn = vec![0u32; nf];
    let mut acked = vec![0u32; nf];
    let mut last_progress = vec![0f64; nf];
    let mut cur = 0usize;
    let mut burst_left = st.burst;
    let mut resend: VecDeque<(f64, u32, u32)> = VecDeque::new();
    let mut acks: VecDeque<(f64, u32, u32)> = VecDeque::new();
    let mut resent: BTreeSet<(u32, u32)> = BTreeSet::new();
    let mut rto_resent: BTreeSet<(u32, u32)> = BTreeSet::new();
    let mut orig_arrived: BTreeSet<(u32, u32)> = BTreeSet::new();
    let mut placed: BTreeSet<(u32, u32)> = BTreeSet::new();
    let mut arrivals: VecDeque<(u32, u32, u8)> = VecDeque::new();
    let mut out = RunCounts {
        missing_share_pct: s.missing_share_pct,
        loss_after: s.loss_after,
        ..Default::default()
    };
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
            }
        }
        for f in 0..nf {
            if acked[f] < next_psn[f] && now - last_progress[f] > st.rto_ns {
                rto_resent.insert((f as u32, acked[f]));
                resend.push_back((now, f as u32, acked[f]));
                last_progress[f] = now;
            }
        }
        // Sender: one packet per packet time, resends first, then bursts round robin
        // over the flows the window lets send.
        if now >= next_send_ns {
            if resend.front().is_some_and(|&(t, _, _)| t <= now) {
                let (_, f, p) = resend.pop_front().unwrap();
                fabric.send(now, frame(f, p, 1, st.packet_bytes));
                next_send_ns = now + pkt_ns;
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
                for p in n.missing {
                    if resent.insert((h.qp, p)) {
                        resend.push_back((now + st.reverse_delay_ns, h.qp, p));
                    }
                }
            }
        }
        cycle += 1;
    }
    out.cycles = cycle;
    out.resent = resent.len() as u64;
    out.spurious = resent.iter().filter(|k| orig_arrived.contains(k)).count() as u64;
    out.rto_resent = rto_resent.len() as u64;
    out.rto_spurious = rto_resent
        .iter()
        .filter(|k| orig_arrived.contains(k))
        .count() as u64;
    let lost: Vec<(u32, u32)> = (0..st.flows)
        .flat_map(|f| (0..st.packets_per_flow).map(move |p| (f, p)))
        .filter(|k| !orig_arrived.contains(k))
        .collect();
    out.real_losses = lost.len() as u64;
    out.real_losses_recovered = lost.iter().filter(|k| placed.contains(k)).count() as u64;
    out.all_placed = placed.len() as u64 == total;
    out
}

/// Both runs on the same traffic and fabric seed.
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
    let dual = run(st, s);
    let packets = st.flows as u64 * st.packets_per_flow as u64;
    RetransmitReport {
        flows: st.flows,
        packets,
        paths: st.paths.len(),
        ooo_threshold: s.ooo_threshold,
        missing_share_pct: s.missing_share_pct,
        spurious_rate_ooo_only: ooo_only.spurious as f64 / packets as f64,
        spurious_rate_dual: dual.spurious as f64 / packets as f64,
        real_losses: dual.real_losses,
        real_losses_recovered: dual.real_losses_recovered,
        ooo_only,
        dual,
    }
}
