//! Golden models of the credit engine (the Pegasus paper; docs/blocks/credit.md).
//!
//! * [`SenderModel`]: per-QP credit accounting of `credit_tx`, event by event.
//! * [`ReceiverModel`]: `credit_rx`'s request counts and round-robin grant order.
//!
//! The credit loop itself (N QPs, a credit path with delay and jitter) runs on the
//! Verilated blocks: `prnic_testbenches::credit::run_loop`.

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
