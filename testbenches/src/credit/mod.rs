//! Harnesses for the credit engine: `credit_tx` and `credit_rx` under Verilator, and the
//! credit loop (N QPs sending to one receiver through a credit path with delay and
//! jitter) built from the two Verilated blocks.

use crate::bridge::{self, Dut};
use prnic_gen::PrnicConfig;
use prnic_rtl::credit_rx::CREDIT_RX_GRANT_LATENCY;
use prnic_rtl::credit_tx::{
    CREDIT_TX_GRANT_LATENCY, CREDIT_TX_GRANT_QUEUE, CREDIT_TX_LATENCY, CREDIT_TX_QP_SPACING,
};
use prnic_verif::credit::{Rule, SenderModel};
use prnic_verif::rng::rng;
use std::collections::{BTreeMap, HashMap, VecDeque};

mod jitter;
mod plot;
mod starvation;

pub use jitter::*;
pub use plot::*;
pub use starvation::*;

/// `credit_tx` out of reset, its QP sweep done.
pub fn credit_tx(rule: Rule, batch: u32, bdp: u32) -> bridge::CreditTx {
    let mut d = bridge::CreditTx::new();
    d.set_cfg_rule((rule == Rule::Eq2) as u64);
    d.set_cfg_batch(batch as u64);
    d.set_cfg_bdp(bdp as u64);
    bridge::reset_and_sweep(&mut d, |d, v| d.set_rst(v), |d| d.status_clearing());
    d
}

/// `credit_rx` out of reset, its QP sweep done.
pub fn credit_rx(bp_threshold: u16, bp_slowdown: u8) -> bridge::CreditRx {
    let mut d = bridge::CreditRx::new();
    d.set_cfg_bp_threshold(bp_threshold as u64);
    d.set_cfg_bp_slowdown(bp_slowdown as u64);
    bridge::reset_and_sweep(&mut d, |d, v| d.set_rst(v), |d| d.status_clearing());
    d
}

/// An event for `credit_tx`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxEvent {
    Send { qp: u32, remaining: u64 },
    Grant { qp: u32 },
}

/// What `credit_tx` did, event by event, next to the model.
#[derive(Debug, Default, Clone)]
pub struct TxCompare {
    pub events: usize,
    pub mismatches: Vec<String>,
    pub min_credit: i64,
    pub starved_rtl: u64,
    pub starved_model: u64,
}

/// Drive `n` events from `next_event` into `credit_tx` (grants whenever they come; a
/// send request is held until `s_send_ready`) and compare every output with the model.
/// The RTL reports every event it applies on `m_credit_*` (with `m_send_*` for a send),
/// so the model applies each event in the cycle the RTL shows it, in the RTL's order:
/// send requests in the order they were accepted, grants in the order they arrived.
/// Every event is issued [`CREDIT_TX_LATENCY`] cycles before it shows. A send request
/// must be issued in the cycle it was accepted, unless its QP was issued fewer than
/// [`CREDIT_TX_QP_SPACING`] cycles before (then it is parked): it goes in the cycle its
/// QP is free again, or, when a grant went first, in the cycle after that grant. No
/// grant shows sooner than [`CREDIT_TX_GRANT_LATENCY`] after it arrived.
/// `next_event` sees the model, so a sender can report what it has left.
pub fn compare_tx(
    rule: Rule,
    batch: u32,
    bdp: u32,
    n: usize,
    next_event: impl FnMut(&SenderModel) -> Option<TxEvent>,
) -> TxCompare {
    let mut d = credit_tx(rule, batch, bdp);
    compare_tx_on(&mut d, rule, batch, bdp, n, next_event)
}

/// [`compare_tx`] on a `credit_tx` that is already running (reset and swept), against a
/// fresh model: every QP must be in its initial state and every counter zero.
pub fn compare_tx_on(
    d: &mut bridge::CreditTx,
    rule: Rule,
    batch: u32,
    bdp: u32,
    n: usize,
    mut next_event: impl FnMut(&SenderModel) -> Option<TxEvent>,
) -> TxCompare {
    let mut m = SenderModel::new(rule, batch as u64, bdp as u64);
    let mut out = TxCompare {
        min_credit: i64::MAX,
        ..Default::default()
    };
    // The RTL takes QP numbers modulo its QP count; so does the model here.
    let mask = PrnicConfig::builtin().reorder.qps - 1;
    // Events the RTL has taken and not yet shown: (cycle taken, qp, remaining).
    let mut sends: VecDeque<(u64, u32, u64)> = VecDeque::new();
    let mut grants: VecDeque<(u64, u32)> = VecDeque::new();
    let lat = CREDIT_TX_LATENCY as u64;
    let grant_lat = CREDIT_TX_GRANT_LATENCY as u64;
    let spacing = CREDIT_TX_QP_SPACING as u64;
    // Issue cycles seen so far (an output's cycle less `lat`): each QP's last, and the
    // last grant's.
    let mut last_issue: HashMap<u32, u64> = HashMap::new();
    let mut last_grant_issue: Option<u64> = None;
    let mut i = 0;
    let mut c = 0u64;
    let mut pending: Option<TxEvent> = None;
    let mut since_output = 0u64;
    let dropped_before = d.status_grants_dropped();
    let mut tail = 0;
    // The longest the RTL may rightly stay silent with events taken: a full grant queue,
    // each grant behind a QP in flight, then the grant path; four times that is a hang.
    let give_up = 4 * (grant_lat + CREDIT_TX_GRANT_QUEUE as u64 * CREDIT_TX_QP_SPACING as u64);
    // After the last event: until every event has shown, then a few cycles more for
    // anything spurious. An event that never shows fails after a generous wait.
    while i < n || tail < 4 {
        let outstanding = !sends.is_empty() || !grants.is_empty();
        if i >= n && !outstanding {
            tail += 1;
        }
        if outstanding && since_output > give_up {
            out.mismatches.push(format!(
                "cycle {c}: {} send(s) and {} grant(s) taken and never applied",
                sends.len(),
                grants.len()
            ));
            break;
        }
        if pending.is_none() && i < n {
            pending = next_event(&m);
        }
        let ev = pending;
        match ev {
            Some(TxEvent::Grant { qp }) => {
                d.set_s_grant_valid(1);
                d.set_s_grant_qp(qp as u64);
                d.set_s_send_valid(0);
            }
            Some(TxEvent::Send { qp, remaining }) => {
                d.set_s_grant_valid(0);
                d.set_s_send_valid(1);
                d.set_s_send_qp(qp as u64);
                d.set_s_send_remaining(remaining);
            }
            None => {
                d.set_s_grant_valid(0);
                d.set_s_send_valid(0);
            }
        }
        d.eval();
        match ev {
            Some(TxEvent::Grant { qp }) => {
                grants.push_back((c, qp & mask));
                i += 1;
                pending = None;
            }
            Some(TxEvent::Send { qp, remaining }) if d.s_send_ready() != 0 => {
                sends.push_back((c, qp & mask, remaining));
                i += 1;
                pending = None;
            }
            Some(TxEvent::Send { .. }) | None => {}
        }
        // The RTL counts a starved cycle on the edge after the outputs show the event
        // that made it starve: count the model's state, as of the outputs seen, here.
        out.starved_model += m.starved() as u64;
        d.step();
        c += 1;
        since_output += 1;
        // Outputs after edge c-1 belong to cycle c.
        let send_v = d.m_send_valid() != 0;
        let req_v = d.m_req_valid() != 0;
        let onoff = (d.m_onoff_valid() != 0).then(|| d.m_onoff_on() != 0);
        if d.m_credit_valid() == 0 {
            if send_v || req_v || onoff.is_some() {
                out.mismatches.push(format!(
                    "cycle {c}: send {send_v}, request {req_v}, on/off {onoff:?} without an event on m_credit"
                ));
            }
            continue;
        }
        since_output = 0;
        let qp = d.m_credit_qp() as u32;
        let credit = d.m_credit_value() as u32 as i32 as i64;
        out.min_credit = out.min_credit.min(credit);
        let (exp_req, exp_onoff, exp_credit) = if send_v {
            let Some((taken, sqp, remaining)) = sends.pop_front() else {
                out.mismatches
                    .push(format!("cycle {c}: a send no request asked for"));
                continue;
            };
            let issued = c.saturating_sub(lat);
            // The first cycle the QP could go again, from the issues the RTL showed.
            let free = last_issue.get(&sqp).map_or(0, |l| l + spacing);
            let on_time = issued == taken.max(free)
                || (free > taken && issued > free && last_grant_issue == Some(issued - 1));
            if !on_time {
                out.mismatches.push(format!(
                    "cycle {c}: send for QP {sqp} issued in cycle {issued}, taken in {taken}, \
                     its QP free from {free}, the last grant issued in {last_grant_issue:?}"
                ));
            }
            if qp != sqp || d.m_send_qp() as u32 != sqp {
                out.mismatches.push(format!(
                    "cycle {c}: send for QP {qp}, the request was QP {sqp}"
                ));
            }
            let r = m.send(sqp, remaining);
            let got = (d.m_send_bytes(), d.m_send_credit() as u32 as i32 as i64);
            if got != (r.bytes, r.credit) {
                out.mismatches.push(format!(
                    "cycle {c}: QP {sqp} sends {got:?} (bytes, credit), model {:?}",
                    (r.bytes, r.credit)
                ));
            }
            (r.request, r.onoff, r.credit)
        } else {
            let Some((arrived, gqp)) = grants.pop_front() else {
                out.mismatches
                    .push(format!("cycle {c}: a grant nobody sent"));
                continue;
            };
            last_grant_issue = Some(c.saturating_sub(lat));
            let took = c - arrived;
            if took < grant_lat {
                out.mismatches.push(format!(
                    "cycle {c}: grant for QP {gqp} applied {took} cycles after it came, under {grant_lat}"
                ));
            }
            if qp != gqp {
                out.mismatches.push(format!(
                    "cycle {c}: grant applied to QP {qp}, sent to QP {gqp}"
                ));
            }
            let on = m.grant(gqp);
            (false, on, m.qps.get(&gqp).map_or(0, |q| q.credit))
        };
        last_issue.insert(qp, c.saturating_sub(lat));
        if credit != exp_credit {
            out.mismatches.push(format!(
                "cycle {c}: QP {qp} credit {credit}, model {exp_credit}"
            ));
        }
        if req_v != exp_req || (req_v && d.m_req_qp() as u32 != qp) {
            out.mismatches.push(format!(
                "cycle {c}: QP {qp} request {req_v}, model {exp_req}"
            ));
        }
        if onoff != exp_onoff || (onoff.is_some() && d.m_onoff_qp() as u32 != qp) {
            out.mismatches.push(format!(
                "cycle {c}: QP {qp} on/off {onoff:?}, model {exp_onoff:?}"
            ));
        }
    }
    for (name, rtl, model) in [
        ("requests", d.status_requests(), m.requests),
        ("grants", d.status_grants(), m.grants),
        ("wasted bytes", d.status_wasted_bytes(), m.wasted),
    ] {
        if rtl != model {
            out.mismatches
                .push(format!("{name}: RTL {rtl}, model {model}"));
        }
    }
    let dropped = d.status_grants_dropped() - dropped_before;
    if dropped != 0 {
        out.mismatches
            .push(format!("{dropped} grants dropped (queue full)"));
    }
    if d.status_debt_error() != 0 {
        out.mismatches.push("debt error flag set".into());
    }
    out.starved_rtl = d.status_starved_cycles();
    out.events = i;
    out
}

/// A random event source over `qps` QPs: applications post messages of random size
/// (up to three batches), senders report what they have left (the model's view), and
/// grants arrive, some for idle QPs.
pub fn random_tx_events(
    seed: u64,
    qps: Vec<u32>,
    batch: u64,
) -> impl FnMut(&SenderModel) -> Option<TxEvent> {
    let mut next = rng(seed);
    move |m: &SenderModel| {
        let r = next();
        let qp = qps[r as usize % qps.len()];
        let left = m.qps.get(&qp).map_or(0, |q| q.rem);
        let new = if (r >> 16).is_multiple_of(6) {
            1 + next() % (3 * batch)
        } else {
            0
        };
        Some(if (r >> 24).is_multiple_of(4) {
            TxEvent::Grant { qp }
        } else {
            TxEvent::Send {
                qp,
                remaining: left + new,
            }
        })
    }
}

/// `credit_rx` with scripted requests, ON/OFF and PCIe depth; returns the grants as
/// (cycle, qp).
pub fn run_rx(
    d: &mut bridge::CreditRx,
    cycles: u64,
    mut req: impl FnMut(u64) -> Option<u32>,
    mut onoff: impl FnMut(u64) -> Option<(u32, bool)>,
    mut depth: impl FnMut(u64) -> u16,
) -> Vec<(u64, u32)> {
    let mut grants = vec![];
    let mut held: Option<u32> = None;
    for c in 0..cycles {
        if held.is_none() {
            held = req(c);
        }
        d.set_s_req_valid(held.is_some() as u64);
        d.set_s_req_qp(held.unwrap_or(0) as u64);
        let o = onoff(c);
        d.set_s_onoff_valid(o.is_some() as u64);
        d.set_s_onoff_qp(o.map_or(0, |x| x.0) as u64);
        d.set_s_onoff_on(o.is_some_and(|x| x.1) as u64);
        d.set_s_pcie_depth(depth(c) as u64);
        d.eval();
        if held.is_some() && d.s_req_ready() != 0 {
            held = None;
        }
        d.step();
        if d.m_grant_valid() != 0 {
            grants.push((c, d.m_grant_qp() as u32));
        }
    }
    grants
}

/// The credit engine's parameters, taken from the config: the one mapping every credit
/// harness, test and scenario uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CreditParams {
    /// `credit.batch_bytes`: bytes one grant covers.
    pub batch: u32,
    /// `credit.bdp_bytes`: the window a QP may send before credits are needed.
    pub bdp: u32,
    /// One batch time in clock cycles is `slot_num / slot_den`: the grant pacing
    /// ([`PrnicConfig::grant_slot_fraction`]).
    pub slot_num: u64,
    pub slot_den: u64,
}

impl CreditParams {
    pub fn from_config(cfg: &PrnicConfig) -> Self {
        let (slot_num, slot_den) = cfg.grant_slot_fraction();
        Self {
            batch: cfg.credit.batch_bytes,
            bdp: cfg.credit.bdp_bytes,
            slot_num,
            slot_den,
        }
    }
}
