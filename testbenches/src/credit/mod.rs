//! Harnesses for the credit engine: `credit_tx` and `credit_rx` under Verilator, and the
//! credit loop (N QPs sending to one receiver through a credit path with delay and
//! jitter) built from the two Verilated blocks.

use crate::bridge::{self, Dut};
use prnic_gen::PrnicConfig;
use prnic_rtl::credit_rx::CREDIT_RX_GRANT_LATENCY;
use prnic_rtl::credit_tx::CREDIT_TX_LATENCY;
use prnic_verif::credit::{Rule, SenderModel};
use prnic_verif::flow_table::rng;
use std::collections::BTreeMap;

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

/// Drive `n` events from `next_event` into `credit_tx` (one per cycle when accepted;
/// grants take priority as in the RTL, so a send waits while a grant is presented) and
/// compare every output with the model fed the same events in the order the RTL
/// accepted them. `next_event` sees the model, so a sender can report what it has left.
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
    // Expected outputs by the cycle they appear.
    let mut exp_send: BTreeMap<u64, (u32, u64, i64)> = BTreeMap::new();
    let mut exp_req: BTreeMap<u64, u32> = BTreeMap::new();
    let mut exp_onoff: BTreeMap<u64, (u32, bool)> = BTreeMap::new();
    let mut starved_after: Vec<bool> = vec![];
    let start = d.cycle();
    let mut i = 0;
    let mut c = 0u64;
    let mut pending: Option<TxEvent> = None;
    let mut tail = 0;
    let lat = CREDIT_TX_LATENCY as u64;
    while i < n || tail < lat + 2 {
        if i >= n {
            tail += 1;
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
        let accepted = match ev {
            Some(TxEvent::Grant { .. }) => true,
            Some(TxEvent::Send { .. }) => d.s_send_ready() != 0,
            None => false,
        };
        if accepted {
            // The RTL takes QP numbers modulo its QP count; so does the model here.
            let mask = PrnicConfig::builtin().reorder.qps - 1;
            match ev.unwrap() {
                TxEvent::Grant { qp } => {
                    let qp = qp & mask;
                    if let Some(on) = m.grant(qp) {
                        exp_onoff.insert(c + lat, (qp, on));
                    }
                }
                TxEvent::Send { qp, remaining } => {
                    let qp = qp & mask;
                    let r = m.send(qp, remaining);
                    exp_send.insert(c + lat, (qp, r.bytes, r.credit));
                    if r.request {
                        exp_req.insert(c + lat, qp);
                    }
                    if let Some(on) = r.onoff {
                        exp_onoff.insert(c + lat, (qp, on));
                    }
                }
            }
            i += 1;
            pending = None;
        }
        starved_after.push(m.starved());
        d.step();
        c += 1;
        // Outputs after edge c-1 belong to cycle c.
        let got_send = (d.m_send_valid() != 0).then(|| {
            (
                d.m_send_qp() as u32,
                d.m_send_bytes(),
                d.m_send_credit() as u32 as i32 as i64,
            )
        });
        if let Some((_, _, cr)) = got_send {
            out.min_credit = out.min_credit.min(cr);
        }
        if got_send != exp_send.get(&c).copied() {
            out.mismatches.push(format!(
                "cycle {c}: send {got_send:?}, model {:?}",
                exp_send.get(&c)
            ));
        }
        let got_req = (d.m_req_valid() != 0).then(|| d.m_req_qp() as u32);
        if got_req != exp_req.get(&c).copied() {
            out.mismatches.push(format!(
                "cycle {c}: request {got_req:?}, model {:?}",
                exp_req.get(&c)
            ));
        }
        let got_onoff =
            (d.m_onoff_valid() != 0).then(|| (d.m_onoff_qp() as u32, d.m_onoff_on() != 0));
        if got_onoff != exp_onoff.get(&c).copied() {
            out.mismatches.push(format!(
                "cycle {c}: on/off {got_onoff:?}, model {:?}",
                exp_onoff.get(&c)
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
    if d.status_debt_error() != 0 {
        out.mismatches.push("debt error flag set".into());
    }
    // The RTL counts a starved cycle CREDIT_TX_LATENCY edges after the event that caused
    // it.
    let edges = (d.cycle() - start) as usize;
    out.starved_model = starved_after[..edges.saturating_sub(CREDIT_TX_LATENCY as usize)]
        .iter()
        .filter(|s| **s)
        .count() as u64;
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

/// The default config's credit parameters.
pub fn params(cfg: &PrnicConfig) -> (u32, u32, (u64, u64)) {
    (
        cfg.credit.batch_bytes,
        cfg.credit.bdp_bytes,
        cfg.grant_slot_fraction(),
    )
}
