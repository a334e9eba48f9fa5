//! Golden models of the credit engine (REFERENCE.md, "Credits"), and the credit-loop
//! model used to study Eq.1 against Eq.2 under jitter.
//!
//! * [`SenderModel`]: per-QP credit accounting of `credit_tx`, event by event.
//! * [`ReceiverModel`]: `credit_rx`'s request counts, round-robin grant order and paced
//!   grant slots.
//! * [`credit_loop`]: N QPs send to one receiver through a credit path with a loop delay
//!   and jitter; delivered throughput as a fraction of line rate.

use std::collections::{BTreeMap, VecDeque};

/// The send rule (CSR `CREDIT.RULE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Rule {
    /// Eq.1: send min(remaining data, remaining credit).
    Eq1,
    /// Eq.2: send a full batch whenever credit >= 0 (one batch of overdraft).
    Eq2,
}

impl Rule {
    pub fn name(self) -> &'static str {
        match self {
            Rule::Eq1 => "eq1",
            Rule::Eq2 => "eq2",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QpCredit {
    pub credit: i64,
    pub free: u64,
    pub rem: u64,
    pub req_acc: u64,
    pub active: bool,
    /// It asked to send and was refused; a grant or a send ends the wait.
    pub waiting: bool,
    pub off: bool,
}

/// The outcome of one send request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SendDecision {
    pub bytes: u64,
    /// The QP's credit afterwards.
    pub credit: i64,
    /// A credit request goes to the receiver.
    pub request: bool,
    /// ON (true) or OFF (false) goes to the receiver.
    pub onoff: Option<bool>,
}

/// `credit_tx` at transaction level.
#[derive(Debug, Clone)]
pub struct SenderModel {
    pub rule: Rule,
    pub batch: u64,
    pub bdp: u64,
    pub qps: BTreeMap<u32, QpCredit>,
    pub requests: u64,
    pub grants: u64,
    pub wasted: u64,
    /// Bytes sent against credit (after the first BDP), for the conservation check.
    pub sent_on_credit: u64,
}

impl SenderModel {
    pub fn new(rule: Rule, batch: u64, bdp: u64) -> Self {
        SenderModel {
            rule,
            batch,
            bdp,
            qps: BTreeMap::new(),
            requests: 0,
            grants: 0,
            wasted: 0,
            sent_on_credit: 0,
        }
    }

    fn qp(&mut self, qp: u32) -> QpCredit {
        *self.qps.entry(qp).or_insert(QpCredit {
            free: self.bdp,
            ..Default::default()
        })
    }

    fn finish(&mut self, qp: u32, old: QpCredit, mut q: QpCredit) -> Option<bool> {
        q.off = q.active && q.credit > 0 && q.credit as u64 > q.rem;
        self.qps.insert(qp, q);
        (q.off != old.off).then_some(!q.off)
    }

    /// QP `qp` has `remaining` bytes and asks how much it may send now.
    pub fn send(&mut self, qp: u32, remaining: u64) -> SendDecision {
        let old = self.qp(qp);
        let mut q = old;
        let cap = remaining.min(self.batch);
        let bytes = if q.free > 0 {
            let b = cap.min(q.free);
            q.free -= b;
            b
        } else {
            let b = match self.rule {
                Rule::Eq1 if q.credit > 0 => cap.min(q.credit as u64),
                Rule::Eq2 if q.credit >= 0 => cap,
                _ => 0,
            };
            q.credit -= b as i64;
            self.sent_on_credit += b;
            b
        };
        q.rem = remaining - bytes;
        q.active = q.rem > 0;
        q.waiting = q.active && bytes == 0;
        if !q.active && q.credit > 0 {
            self.wasted += q.credit as u64;
            q.credit = 0;
        }
        q.req_acc += bytes;
        let request = q.req_acc >= self.batch;
        if request {
            q.req_acc -= self.batch;
            self.requests += 1;
        }
        let onoff = self.finish(qp, old, q);
        SendDecision {
            bytes,
            credit: q.credit,
            request,
            onoff,
        }
    }

    /// A grant arrives for `qp`.
    pub fn grant(&mut self, qp: u32) -> Option<bool> {
        let old = self.qp(qp);
        let mut q = old;
        self.grants += 1;
        q.waiting = false;
        // The RTL holds credit in 32 bits and saturates at 2^31 - 1.
        let t = (q.credit + self.batch as i64).min(i32::MAX as i64);
        if q.active || t < 0 {
            q.credit = t;
        } else {
            self.wasted += t as u64;
            q.credit = 0;
        }
        self.finish(qp, old, q)
    }

    /// Some QP is active and every active QP is waiting for credit.
    pub fn starved(&self) -> bool {
        let active = self.qps.values().filter(|q| q.active).count();
        let waiting = self.qps.values().filter(|q| q.waiting).count();
        active > 0 && waiting == active
    }
}

/// `credit_rx` at transaction level: per-QP request counts, round-robin over the QPs
/// with requests (a QP is served once per round), OFF QPs skipped.
#[derive(Debug, Clone, Default)]
pub struct ReceiverModel {
    pending: BTreeMap<u32, u64>,
    off: BTreeMap<u32, bool>,
    ring: VecDeque<u32>,
    in_ring: BTreeMap<u32, bool>,
    pub requests: u64,
    pub grants: u64,
    pub idle_slots: u64,
}

impl ReceiverModel {
    pub fn request(&mut self, qp: u32) {
        self.requests += 1;
        *self.pending.entry(qp).or_default() += 1;
        self.enlist(qp);
    }

    fn enlist(&mut self, qp: u32) {
        let off = *self.off.get(&qp).unwrap_or(&false);
        let inr = self.in_ring.entry(qp).or_default();
        if !*inr && !off && self.pending[&qp] > 0 {
            *inr = true;
            self.ring.push_back(qp);
        }
    }

    pub fn onoff(&mut self, qp: u32, on: bool) {
        self.off.insert(qp, !on);
        self.pending.entry(qp).or_default();
        if on {
            self.enlist(qp);
        }
    }

    /// A grant slot: the QP granted, if any. An OFF QP met at the head leaves the ring
    /// and the slot passes unused (it rejoins when it turns ON).
    pub fn slot(&mut self) -> Option<u32> {
        if let Some(qp) = self.ring.pop_front() {
            self.in_ring.insert(qp, false);
            if !*self.off.get(&qp).unwrap_or(&false) {
                let p = self.pending.get_mut(&qp).unwrap();
                *p -= 1;
                self.grants += 1;
                self.enlist(qp);
                return Some(qp);
            }
        }
        self.idle_slots += 1;
        None
    }

    pub fn pending(&self, qp: u32) -> u64 {
        *self.pending.get(&qp).unwrap_or(&0)
    }
}

/// One point of the credit-loop study.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LoopResult {
    pub rule: Rule,
    pub qps: u32,
    pub jitter_ns: f64,
    pub throughput_gbps: f64,
    pub line_rate_gbps: f64,
    /// Share of time with some QP active and none able to send.
    pub starved_share: f64,
}

/// Parameters of the credit loop, in clock cycles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoopParams {
    pub rule: Rule,
    pub qps: u32,
    pub batch: u64,
    pub bdp: u64,
    /// One batch time in cycles, as a fraction `num / den` (the grant pacing).
    pub slot_num: u64,
    pub slot_den: u64,
    /// Fixed part of the loop (request path + grant path), cycles.
    pub base_delay: u64,
    /// Extra grant-path delay, uniform in `0..=jitter` cycles, per grant.
    pub jitter: u64,
    pub cycles: u64,
    pub seed: u64,
}

/// The credit loop in the model: every QP always has data; each batch a QP sends takes
/// one batch time on its own sender link; the receiver's downlink is the bottleneck and
/// the receiver paces grants to it. Returns delivered bytes per cycle as a fraction of
/// one batch per slot, and the share of starved cycles.
pub fn credit_loop(p: &LoopParams) -> (f64, f64) {
    let mut next = crate::flow_table::rng(p.seed);
    let mut tx = SenderModel::new(p.rule, p.batch, p.bdp);
    let mut rx = ReceiverModel::default();
    // Events in flight, by arrival cycle.
    let mut req_q: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    let mut grant_q: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    let slot_cycles = (p.slot_num as f64 / p.slot_den as f64).ceil() as u64;
    // When each QP's sender link is free again.
    let mut busy_until = vec![0u64; p.qps as usize];
    let mut acc = 0u64;
    let mut delivered = 0u64;
    let mut starved = 0u64;
    let warm = p.cycles / 5;
    let big = 1u64 << 40;
    for c in 0..p.cycles {
        if let Some(v) = req_q.remove(&c) {
            for q in v {
                rx.request(q);
            }
        }
        if let Some(v) = grant_q.remove(&c) {
            for q in v {
                if let Some(on) = tx.grant(q) {
                    rx.onoff(q, on);
                }
            }
        }
        acc += p.slot_den;
        if acc >= p.slot_num {
            acc -= p.slot_num;
            if let Some(q) = rx.slot() {
                let d = p.base_delay / 2 + next() % (p.jitter + 1);
                grant_q.entry(c + d.max(1)).or_default().push(q);
            }
        }
        for q in 0..p.qps {
            if busy_until[q as usize] <= c {
                let d = tx.send(q, big);
                if d.bytes > 0 {
                    busy_until[q as usize] = c + slot_cycles * d.bytes.div_ceil(p.batch);
                    if c >= warm {
                        delivered += d.bytes;
                    }
                }
                if d.request {
                    req_q
                        .entry(c + (p.base_delay - p.base_delay / 2).max(1))
                        .or_default()
                        .push(q);
                }
                if let Some(on) = d.onoff {
                    rx.onoff(q, on);
                }
            }
        }
        if c >= warm && tx.starved() {
            starved += 1;
        }
    }
    let span = (p.cycles - warm) as f64;
    let slots = span * p.slot_den as f64 / p.slot_num as f64;
    (
        delivered as f64 / (slots * p.batch as f64),
        starved as f64 / span,
    )
}
