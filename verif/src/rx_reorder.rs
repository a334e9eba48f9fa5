//! Golden model of the receive windows (`rx_reorder`), written from the behaviour
//! the Pegasus paper describes (receiver ordering; docs/blocks/rx_reorder.md) with absolute PSNs and sets,
//! not from the RTL's relative bitmaps.
//!
//! Per QP: the head (oldest PSN not arrived), the set of PSNs arrived above it, the
//! immediates of write-with-immediates waiting for the head, and whether a
//! retransmission request was already raised at this head.

use std::collections::{BTreeMap, BTreeSet};

/// PSNs are 24 bits; arithmetic wraps.
pub const PSN_MOD: u32 = 1 << 24;
/// Write-with-immediates held above the head per QP (the RTL's two slots).
pub const IMM_SLOTS: usize = 2;

/// What happened to a packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Verdict {
    Place,
    Duplicate,
    BeyondWindow,
    UnknownQp,
    /// Disabled, or owned by another tenant.
    BadQp,
    ImmFull,
}

impl Verdict {
    /// The RTL's `m_verdict_code`.
    pub fn code(self) -> u64 {
        match self {
            Verdict::Place => 0,
            Verdict::Duplicate => 1,
            Verdict::BeyondWindow => 2,
            Verdict::UnknownQp => 3,
            Verdict::BadQp => 4,
            Verdict::ImmFull => 5,
        }
    }

    pub fn from_code(c: u64) -> Option<Self> {
        Some(match c {
            0 => Verdict::Place,
            1 => Verdict::Duplicate,
            2 => Verdict::BeyondWindow,
            3 => Verdict::UnknownQp,
            4 => Verdict::BadQp,
            5 => Verdict::ImmFull,
            _ => return None,
        })
    }
}

/// A parsed packet header as `rx_reorder` sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub qp: u32,
    pub psn: u32,
    /// The `LOCAL_VNI` slot (tenant) the packet arrived on.
    pub vni_slot: u8,
    pub ack_req: bool,
    /// Write-with-immediate.
    pub imm: Option<u32>,
}

/// A retransmission request: the head and the PSNs missing in [head, highest]; for a
/// refusal (beyond the window, no immediate slot), the refused PSN as both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Nak {
    pub head: u32,
    pub missing: Vec<u32>,
}

/// Everything one header produces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub verdict: Verdict,
    /// CQEs `(psn, immediate)` raised now, in PSN order.
    pub cqes: Vec<(u32, u32)>,
    /// ACK carrying the head PSN.
    pub ack: Option<u32>,
    pub nak: Option<Nak>,
}

#[derive(Debug, Clone, Default)]
struct Qp {
    enabled: bool,
    vni_slot: u8,
    head: u32,
    arrived: BTreeSet<u32>,
    imms: BTreeMap<u32, u32>,
    nak_sent: bool,
}

/// Thresholds and sizes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReorderSettings {
    pub qps: u32,
    pub window: u32,
    pub ooo_threshold: u32,
    pub missing_share_pct: u32,
    /// A hole is taken for a loss once this many packets above the head have arrived
    /// (with the degree at `ooo_threshold`), whatever the share; 0 = off.
    pub loss_after: u32,
}

/// The receive windows of every QP.
#[derive(Debug, Clone)]
pub struct ReorderModel {
    pub settings: ReorderSettings,
    qps: BTreeMap<u32, Qp>,
}

fn fwd(from: u32, to: u32) -> u32 {
    to.wrapping_sub(from) % PSN_MOD
}

impl ReorderModel {
    pub fn new(settings: ReorderSettings) -> Self {
        Self {
            settings,
            qps: BTreeMap::new(),
        }
    }

    /// Create (or destroy, `enable = false`) a QP: a fresh window expecting `psn`.
    pub fn configure(&mut self, qp: u32, enable: bool, vni_slot: u8, psn: u32) {
        if qp >= self.settings.qps {
            return;
        }
        self.qps.insert(
            qp,
            Qp {
                enabled: enable,
                vni_slot,
                head: psn % PSN_MOD,
                ..Default::default()
            },
        );
    }

    /// The head PSN of a QP (the next PSN it can complete).
    pub fn head(&self, qp: u32) -> Option<u32> {
        self.qps.get(&qp).filter(|q| q.enabled).map(|q| q.head)
    }

    /// Write-with-immediates a QP holds above its head.
    pub fn held_immediates(&self, qp: u32) -> usize {
        self.qps.get(&qp).map_or(0, |q| q.imms.len())
    }

    pub fn packet(&mut self, h: &Header) -> Outcome {
        let s = self.settings;
        let mut out = Outcome {
            verdict: Verdict::Place,
            cqes: vec![],
            ack: None,
            nak: None,
        };
        if h.qp >= s.qps {
            out.verdict = Verdict::UnknownQp;
            return out;
        }
        let q = self.qps.entry(h.qp).or_default();
        if !q.enabled || q.vni_slot != h.vni_slot {
            out.verdict = Verdict::BadQp;
            return out;
        }
        let psn = h.psn % PSN_MOD;
        let d = fwd(q.head, psn);
        out.verdict = if d >= PSN_MOD / 2 || q.arrived.contains(&psn) && d < s.window {
            Verdict::Duplicate
        } else if d >= s.window {
            Verdict::BeyondWindow
        } else if h.imm.is_some() && d != 0 && q.imms.len() >= IMM_SLOTS {
            Verdict::ImmFull
        } else {
            Verdict::Place
        };
        if out.verdict == Verdict::Duplicate {
            out.ack = Some(q.head);
            return out;
        }
        if matches!(out.verdict, Verdict::BeyondWindow | Verdict::ImmFull) {
            // The sender cannot see the refusal otherwise: name the PSN at once.
            out.nak = Some(Nak {
                head: psn,
                missing: vec![psn],
            });
        }
        if out.verdict != Verdict::Place {
            return out;
        }
        q.arrived.insert(psn);
        if let Some(imm) = h.imm {
            q.imms.insert(psn, imm);
        }
        let mut moved = false;
        let before = q.head;
        while q.arrived.remove(&q.head) {
            if let Some(imm) = q.imms.remove(&q.head) {
                out.cqes.push((q.head, imm));
            }
            q.head = (q.head + 1) % PSN_MOD;
            moved = true;
        }
        if moved {
            q.nak_sent = false;
        }
        // Acknowledge when asked, and when a hole closes: the head passed PSNs that had
        // arrived before this packet.
        if h.ack_req || fwd(before, q.head) > 1 {
            out.ack = Some(q.head);
        }
        if let Some(hi) = q.arrived.iter().map(|&p| fwd(q.head, p)).max() {
            let span = hi + 1;
            let above = q.arrived.len() as u32;
            let missing = span - above;
            let share = missing * 100 >= s.missing_share_pct * span;
            let aged = s.loss_after > 0 && above >= s.loss_after;
            if !q.nak_sent && hi >= s.ooo_threshold && (share || aged) {
                q.nak_sent = true;
                // Named: missing PSNs at least the threshold behind the highest; once the
                // highest is an age bound above the threshold ahead, at least the bound
                // behind it (the ones closer may still be in flight).
                let behind = if s.loss_after > s.ooo_threshold && hi >= s.loss_after {
                    s.loss_after
                } else {
                    s.ooo_threshold
                };
                out.nak = Some(Nak {
                    head: q.head,
                    missing: (0..=hi - behind)
                        .map(|k| (q.head + k) % PSN_MOD)
                        .filter(|p| !q.arrived.contains(p))
                        .collect(),
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> ReorderModel {
        let mut m = ReorderModel::new(ReorderSettings {
            qps: 8,
            window: 256,
            ooo_threshold: 4,
            missing_share_pct: 25,
            loss_after: 0,
        });
        m.configure(1, true, 2, 100);
        m
    }

    fn hdr(psn: u32, imm: Option<u32>) -> Header {
        Header {
            qp: 1,
            psn,
            vni_slot: 2,
            ack_req: false,
            imm,
        }
    }

    #[test]
    fn completions_wait_for_the_head_and_leave_in_psn_order() {
        let mut m = model();
        assert_eq!(m.packet(&hdr(102, Some(0xb))).cqes, vec![]);
        assert_eq!(m.packet(&hdr(101, Some(0xa))).cqes, vec![]);
        assert_eq!(m.packet(&hdr(100, None)).cqes, vec![(101, 0xa), (102, 0xb)]);
        assert_eq!(m.head(1), Some(103));
    }

    #[test]
    fn duplicates_windows_tenants_and_slots() {
        let mut m = model();
        assert_eq!(m.packet(&hdr(99, None)).verdict, Verdict::Duplicate);
        assert_eq!(
            m.packet(&hdr(100 + 256, None)).verdict,
            Verdict::BeyondWindow
        );
        let mut foreign = hdr(100, None);
        foreign.vni_slot = 3;
        assert_eq!(m.packet(&foreign).verdict, Verdict::BadQp);
        assert_eq!(m.packet(&hdr(105, Some(1))).verdict, Verdict::Place);
        assert_eq!(m.packet(&hdr(105, Some(1))).verdict, Verdict::Duplicate);
        assert_eq!(m.packet(&hdr(106, Some(2))).verdict, Verdict::Place);
        assert_eq!(m.packet(&hdr(107, Some(3))).verdict, Verdict::ImmFull);
        // At the head no slot is needed.
        assert_eq!(m.packet(&hdr(100, Some(4))).cqes, vec![(100, 4)]);
    }

    #[test]
    fn retransmission_needs_both_thresholds_once_per_head() {
        let mut m = model();
        // 101..=104 arrive: degree 4, missing 1 of 5 = 20% < 25%: no request.
        for p in 101..=104 {
            assert!(m.packet(&hdr(p, None)).nak.is_none());
        }
        // 106: degree 6, missing {100, 105} = 2 of 7 = 28.6%: request, naming the missing
        // PSNs at least 4 behind 106.
        let n = m.packet(&hdr(106, None)).nak.expect("request");
        assert_eq!(n.head, 100);
        assert_eq!(n.missing, vec![100]);
        // Not again at the same head.
        assert!(m.packet(&hdr(110, None)).nak.is_none());
    }

    #[test]
    fn a_lone_loss_is_requested_once_enough_packets_arrive_above_it() {
        let mut m = model();
        m.settings.loss_after = 8;
        // 100 is lost; 101..=107 arrive: 7 above the head, 1 missing of 8 (12.5%).
        for p in 101..=107 {
            assert!(m.packet(&hdr(p, None)).nak.is_none(), "{p}");
        }
        // The eighth packet above it ages the hole: a request naming 100 (at least 4
        // behind 108), though the share is 1 of 9.
        let n = m.packet(&hdr(108, None)).nak.expect("request");
        assert_eq!((n.head, n.missing), (100, vec![100]));
        // Off (0), the same traffic raises none.
        let mut off = model();
        assert!((101..=120).all(|p| off.packet(&hdr(p, None)).nak.is_none()));
    }

    #[test]
    fn an_age_bound_above_the_threshold_names_only_psns_that_far_behind() {
        let mut m = model();
        m.settings.loss_after = 8;
        m.settings.missing_share_pct = 100;
        // 100 and 104 are missing; the eighth packet above the head (109) ages the hole.
        for p in [101, 102, 103, 105, 106, 107, 108] {
            assert!(m.packet(&hdr(p, None)).nak.is_none(), "{p}");
        }
        // 104 is 5 behind the highest: past the out-of-order threshold (4) but not the
        // age bound (8), so it may still be in flight and is not named.
        let n = m.packet(&hdr(109, None)).nak.expect("request");
        assert_eq!((n.head, n.missing), (100, vec![100]));
        // 100 arrives; the head moves to 104, which the next request names once 8
        // packets above it have arrived.
        assert!(m.packet(&hdr(100, None)).nak.is_none());
        for p in [110, 111] {
            assert!(m.packet(&hdr(p, None)).nak.is_none(), "{p}");
        }
        let n = m.packet(&hdr(112, None)).nak.expect("request");
        assert_eq!((n.head, n.missing), (104, vec![104]));
        // With the bound at or below the threshold, the threshold names: 109 after
        // 101..=103 (4 above the head, at least 3; degree 9) names every missing PSN at
        // least 4 behind it.
        let mut t = model();
        t.settings.loss_after = 3;
        t.settings.missing_share_pct = 100;
        for p in [101, 102, 103] {
            assert!(t.packet(&hdr(p, None)).nak.is_none(), "{p}");
        }
        let n = t.packet(&hdr(109, None)).nak.expect("request");
        assert_eq!((n.head, n.missing), (100, vec![100, 104, 105]));
    }

    #[test]
    fn refusals_name_their_psn_every_time() {
        let mut m = model();
        let named = |psn| {
            Some(Nak {
                head: psn,
                missing: vec![psn],
            })
        };
        let far = m.packet(&hdr(100 + 256, None));
        assert_eq!((far.verdict, far.nak), (Verdict::BeyondWindow, named(356)));
        assert_eq!(m.packet(&hdr(105, Some(1))).verdict, Verdict::Place);
        assert_eq!(m.packet(&hdr(106, Some(2))).verdict, Verdict::Place);
        for _ in 0..2 {
            let o = m.packet(&hdr(107, Some(3)));
            assert_eq!(
                (o.verdict, o.nak, o.ack),
                (Verdict::ImmFull, named(107), None)
            );
        }
        // Unknown and foreign QPs are the sender's own error: no request.
        let mut foreign = hdr(108, None);
        foreign.vni_slot = 3;
        assert!(m.packet(&foreign).nak.is_none());
    }
}
