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

/// Jitter distribution of the credit path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JitterDist {
    /// Uniform in `0..=jitter`.
    Uniform,
    /// Exponential with mean `jitter / 2` (the same mean as uniform), capped at 4x.
    Exponential,
}

/// One run of the credit loop.
#[derive(Debug, Clone)]
pub struct LoopConfig {
    pub rule: Rule,
    pub qps: u32,
    /// Extra grant-path delay per grant, cycles (maximum for uniform).
    pub jitter: u64,
    pub dist: JitterDist,
    /// Fixed request path + grant path delay, cycles.
    pub loop_delay: u64,
    /// Grant slots to run (after a warm-up of a quarter as many).
    pub slots: u64,
    pub seed: u64,
    /// Bytes each QP may send before it needs credit (config `credit.bdp_bytes`, or the
    /// pipe shared among the QPs).
    pub bdp: u32,
    /// Write an FST/VCD of `credit_scope` here.
    pub trace: Option<std::path::PathBuf>,
}

/// A stretch of cycles in which every active QP sat without usable credit.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Starvation {
    /// Cycle of the model, and its time in the trace (cycle x the integer clock period
    /// in ps the trace uses, 3103 ps by default).
    pub start_cycle: u64,
    pub start_ns: f64,
    pub cycles: u64,
    pub qps: Vec<u32>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct LoopOutcome {
    /// Delivered bytes over the measured window / (slots x batch).
    pub throughput_fraction: f64,
    pub starved_share: f64,
    pub starved_cycles: u64,
    pub cycles: u64,
    pub intervals: Vec<Starvation>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum QpState {
    Queued,
    Asked,
    Parked,
}

/// The fixed loop delay for which the first BDP exactly fills the loop: BDP / batch
/// slots, less the slot the batch itself takes on the wire.
pub fn default_loop_delay(cfg: &PrnicConfig) -> u64 {
    let batches = (cfg.credit.bdp_bytes / cfg.credit.batch_bytes) as f64;
    ((batches - 1.0) * cfg.batch_cycles()).round() as u64
}

/// N QPs with unlimited data share one sender link at line rate and send to one
/// receiver. Requests and ON/OFF take `loop_delay / 2` cycles to reach `credit_rx`;
/// grants take `loop_delay / 2` plus jitter to reach `credit_tx`. The sender's scheduler
/// asks the next QP in line (one decision in flight) when its link is about to be free;
/// a refused QP waits for a grant before it is asked again.
/// Fails only when the trace file cannot be opened.
pub fn run_loop(cfg: &PrnicConfig, lc: &LoopConfig) -> Result<LoopOutcome, bridge::TraceError> {
    let (batch, _, (num, den)) = params(cfg);
    let bdp = lc.bdp;
    let mut d = match &lc.trace {
        Some(p) => bridge::CreditScope::with_trace(p, trace_period_ps(cfg))?,
        None => bridge::CreditScope::new(),
    };
    d.set_cfg_rule((lc.rule == Rule::Eq2) as u64);
    d.set_cfg_batch(batch as u64);
    d.set_cfg_bdp(bdp as u64);
    d.set_cfg_bp_threshold(0xffff);
    d.set_cfg_bp_slowdown(1);
    bridge::reset_and_sweep(&mut d, |d, v| d.set_rst(v), |d| d.clearing());
    let mut next = rng(lc.seed);
    let n = lc.qps as usize;
    let half = lc.loop_delay / 2;
    // The loop delay is the whole loop: the grant path is shortened by the cycles
    // credit_rx's pipeline takes beyond the 2 the loop was first measured with, so the
    // figures stay comparable as the blocks' latency changes.
    let rx_extra = CREDIT_RX_GRANT_LATENCY.saturating_sub(2) as u64;
    // Likewise credit_tx's requests and ON/OFF leave CREDIT_TX_LATENCY - 2 cycles later
    // than they did when the loop was measured: the request path is that much shorter.
    let tx_extra = CREDIT_TX_LATENCY.saturating_sub(2) as u64;
    let req_delay = half.saturating_sub(tx_extra).max(1);
    let mut state = vec![QpState::Queued; n];
    let mut granted_while_asked = vec![false; n];
    let mut poll: std::collections::VecDeque<u32> = (0..lc.qps).collect();
    let mut req_at: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    let mut onoff_at: BTreeMap<u64, Vec<(u32, bool)>> = BTreeMap::new();
    let mut grant_at: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
    let mut req_q: std::collections::VecDeque<u32> = Default::default();
    let mut onoff_q: std::collections::VecDeque<(u32, bool)> = Default::default();
    let mut grant_q: std::collections::VecDeque<u32> = Default::default();
    // The sender link: when it is free, in 1/den cycles (a batch takes num/den cycles).
    let mut link_free = 0u64;
    let mut asking = false;
    let total = (lc.slots + lc.slots / 4) * num / den;
    let warm = (lc.slots / 4) * num / den;
    let mut delivered = 0u64;
    let mut starved = 0u64;
    let mut intervals: Vec<Starvation> = vec![];
    let mut cur: Option<Starvation> = None;
    for c in 0..total {
        if let Some(v) = req_at.remove(&c) {
            req_q.extend(v);
        }
        if let Some(v) = onoff_at.remove(&c) {
            onoff_q.extend(v);
        }
        if let Some(v) = grant_at.remove(&c) {
            grant_q.extend(v);
        }
        // Inputs for this cycle.
        let g = grant_q.front().copied();
        d.set_tx_grant_valid(g.is_some() as u64);
        d.set_tx_grant_qp(g.unwrap_or(0) as u64);
        // Ask ahead so the decision (CREDIT_TX_LATENCY cycles) is back when the link
        // frees.
        let s = (!asking && link_free <= (c + 1 + CREDIT_TX_LATENCY as u64) * den)
            .then(|| poll.front().copied())
            .flatten();
        d.set_tx_send_valid(s.is_some() as u64);
        d.set_tx_send_qp(s.unwrap_or(0) as u64);
        d.set_tx_send_remaining(u32::MAX as u64);
        let r = req_q.front().copied();
        d.set_rx_req_valid(r.is_some() as u64);
        d.set_rx_req_qp(r.unwrap_or(0) as u64);
        let o = onoff_q.front().copied();
        d.set_rx_onoff_valid(o.is_some() as u64);
        d.set_rx_onoff_qp(o.map_or(0, |x| x.0) as u64);
        d.set_rx_onoff_on(o.is_some_and(|x| x.1) as u64);
        d.eval();
        if let Some(q) = g {
            grant_q.pop_front();
            match state[q as usize] {
                QpState::Parked => {
                    state[q as usize] = QpState::Queued;
                    poll.push_back(q);
                }
                QpState::Asked => granted_while_asked[q as usize] = true,
                _ => {}
            }
        }
        if s.is_some() && d.tx_send_ready() != 0 {
            let q = poll.pop_front().unwrap();
            state[q as usize] = QpState::Asked;
            asking = true;
            granted_while_asked[q as usize] = false;
        }
        if r.is_some() && d.rx_req_ready() != 0 {
            req_q.pop_front();
        }
        if o.is_some() {
            onoff_q.pop_front();
        }
        d.step();
        // Outputs of this edge.
        if d.tx_sent_valid() != 0 {
            let q = d.tx_sent_qp() as u32;
            let b = d.tx_sent_bytes();
            asking = false;
            if b > 0 {
                if c >= warm {
                    delivered += b;
                }
                // Back in line for its next batch.
                state[q as usize] = QpState::Queued;
                poll.push_back(q);
                link_free = link_free.max((c + 1) * den) + b * num / batch as u64;
            } else if granted_while_asked[q as usize] {
                state[q as usize] = QpState::Queued;
                poll.push_back(q);
            } else {
                state[q as usize] = QpState::Parked;
            }
        }
        if d.tx_req_valid() != 0 {
            req_at
                .entry(c + req_delay)
                .or_default()
                .push(d.tx_req_qp() as u32);
        }
        if d.tx_onoff_valid() != 0 {
            onoff_at
                .entry(c + req_delay)
                .or_default()
                .push((d.tx_onoff_qp() as u32, d.tx_onoff_on() != 0));
        }
        if d.rx_grant_valid() != 0 {
            let j = match lc.dist {
                JitterDist::Uniform => next() % (lc.jitter + 1),
                JitterDist::Exponential => {
                    let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
                    let mean = lc.jitter as f64 / 2.0;
                    ((-mean * (1.0 - u).ln()).round() as u64).min(4 * lc.jitter)
                }
            };
            grant_at
                .entry(c + (lc.loop_delay - half).saturating_sub(rx_extra).max(1) + j)
                .or_default()
                .push(d.rx_grant_qp() as u32);
        }
        if c >= warm {
            if d.starved() != 0 {
                starved += 1;
                // The edge just taken: its trace time is (cycles stepped - 1) x period.
                let now = d.cycle() - 1;
                let st = cur.get_or_insert(Starvation {
                    start_cycle: now,
                    // Trace time: the bridge's integer period in ps.
                    start_ns: (now * trace_period_ps(cfg)) as f64 / 1000.0,
                    cycles: 0,
                    qps: (0..lc.qps)
                        .filter(|q| state[*q as usize] == QpState::Parked)
                        .collect(),
                });
                st.cycles += 1;
            } else if let Some(st) = cur.take() {
                intervals.push(st);
            }
        }
    }
    if let Some(st) = cur.take() {
        intervals.push(st);
    }
    let span = (total - warm) as f64;
    let slots = span * den as f64 / num as f64;
    Ok(LoopOutcome {
        throughput_fraction: delivered as f64 / (slots * batch as f64),
        starved_share: starved as f64 / span,
        starved_cycles: starved,
        cycles: total,
        intervals,
    })
}

/// One row of `prnic-sim credit-jitter`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct JitterRow {
    pub rule: &'static str,
    pub jitter_ns: f64,
    pub jitter_batches: f64,
    pub dist: JitterDist,
    pub qps: u32,
    /// Bytes each QP sends before it needs credit.
    pub bdp_bytes: u32,
    pub throughput_gbps: f64,
    pub line_rate_gbps: f64,
    pub starved_share: f64,
}

/// How each QP's first-BDP allowance is set in a sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BdpMode {
    /// `credit.bdp_bytes` per QP (the config's meaning).
    PerQp,
    /// The pipe shared: `credit.bdp_bytes / qps` per QP, at least one batch.
    Shared,
}

pub fn bdp_for(cfg: &PrnicConfig, mode: BdpMode, qps: u32) -> u32 {
    let b = cfg.credit.batch_bytes;
    match mode {
        BdpMode::PerQp => cfg.credit.bdp_bytes,
        BdpMode::Shared => (cfg.credit.bdp_bytes / qps).max(b) / b * b,
    }
}

/// The credit loop on the Verilator models for every rule, jitter, QP count and BDP mode.
pub fn sweep(
    cfg: &PrnicConfig,
    qps: &[u32],
    jitter_batches: &[f64],
    dist: JitterDist,
    modes: &[BdpMode],
    slots: u64,
) -> Vec<JitterRow> {
    let t = cfg.batch_cycles();
    let mut rows = vec![];
    for &mode in modes {
        for &n in qps {
            for rule in [Rule::Eq1, Rule::Eq2] {
                for &jb in jitter_batches {
                    let lc = LoopConfig {
                        rule,
                        qps: n,
                        jitter: (jb * t).round() as u64,
                        dist,
                        loop_delay: default_loop_delay(cfg),
                        slots,
                        seed: 1,
                        trace: None,
                        bdp: bdp_for(cfg, mode, n),
                    };
                    let o = run_loop(cfg, &lc).expect("no trace, so no trace error");
                    rows.push(JitterRow {
                        rule: rule.name(),
                        jitter_ns: jb * cfg.batch_time_ns(),
                        jitter_batches: jb,
                        dist,
                        qps: n,
                        bdp_bytes: lc.bdp,
                        throughput_gbps: o.throughput_fraction * cfg.line_rate_gbps(),
                        line_rate_gbps: cfg.line_rate_gbps(),
                        starved_share: o.starved_share,
                    });
                }
            }
        }
    }
    rows
}

/// Throughput against jitter, one line per rule, QP count and BDP, as an SVG.
pub fn svg_plot(rows: &[JitterRow]) -> String {
    use std::fmt::Write as _;
    let (w, h, l, r, t, b) = (760.0, 440.0, 70.0, 230.0, 30.0, 50.0);
    let xmax = rows
        .iter()
        .map(|x| x.jitter_batches)
        .fold(0.0, f64::max)
        .max(1.0);
    let line = rows.first().map_or(400.0, |x| x.line_rate_gbps);
    let ymin =
        (rows.iter().map(|x| x.throughput_gbps).fold(line, f64::min) / 10.0).floor() * 10.0 - 10.0;
    let px = |x: f64| l + (w - l - r) * x / xmax;
    let py = |y: f64| t + (h - t - b) * (line + 5.0 - y) / (line + 5.0 - ymin);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="{}" y="18" text-anchor="middle" font-size="14">Credit loop: delivered throughput against credit-path jitter</text>
<line x1="{l}" y1="{}" x2="{}" y2="{}" stroke="black"/><line x1="{l}" y1="{t}" x2="{l}" y2="{}" stroke="black"/>
<text x="{}" y="{}" text-anchor="middle">jitter (batch times, 1 = {:.1} ns)</text>
<text x="16" y="{}" transform="rotate(-90 16 {})" text-anchor="middle">Gb/s</text>
"#,
        (w - r + l) / 2.0,
        h - b,
        w - r,
        h - b,
        h - b,
        (w - r + l) / 2.0,
        h - 12.0,
        rows.first()
            .map_or(0.0, |x| x.jitter_ns / x.jitter_batches.max(1e-9)),
        (h - b + t) / 2.0,
        (h - b + t) / 2.0
    );
    let mut y = ymin;
    while y <= line + 0.1 {
        let _ = writeln!(
            s,
            r##"<line x1="{l}" y1="{0}" x2="{1}" y2="{0}" stroke="#ddd"/><text x="{2}" y="{3}" text-anchor="end">{y:.0}</text>"##,
            py(y),
            w - r,
            l - 6.0,
            py(y) + 4.0
        );
        y += 10.0;
    }
    let mut x = 0.0;
    while x <= xmax + 1e-9 {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{x}</text>"#,
            px(x),
            h - b + 16.0
        );
        x += if xmax > 2.0 { 1.0 } else { 0.25 };
    }
    let _ = writeln!(
        s,
        r##"<line x1="{l}" y1="{0}" x2="{1}" y2="{0}" stroke="#999" stroke-dasharray="2,2"/>"##,
        py(0.99 * line),
        w - r
    );
    let mut keys: Vec<(&str, u32, u32)> =
        rows.iter().map(|x| (x.rule, x.qps, x.bdp_bytes)).collect();
    keys.dedup();
    let dashes = ["", "6,3", "2,3", "8,3,2,3", "1,1"];
    for (i, k) in keys.iter().enumerate() {
        let color = if k.0 == "eq1" { "#c0392b" } else { "#1f6fb2" };
        let dash = dashes[(i / 2) % dashes.len()];
        let pts: Vec<String> = rows
            .iter()
            .filter(|x| (x.rule, x.qps, x.bdp_bytes) == *k)
            .map(|x| format!("{:.1},{:.1}", px(x.jitter_batches), py(x.throughput_gbps)))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline fill="none" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}" points="{}"/>"#,
            pts.join(" ")
        );
        let ly = t + 16.0 * i as f64 + 10.0;
        let _ = writeln!(
            s,
            r#"<line x1="{}" y1="{ly}" x2="{}" y2="{ly}" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}"/><text x="{}" y="{}">{} {} QPs, BDP {} KiB/QP</text>"#,
            w - r + 10.0,
            w - r + 40.0,
            w - r + 46.0,
            ly + 4.0,
            if k.0 == "eq1" { "Eq.1" } else { "Eq.2" },
            k.1,
            k.2 / 1024
        );
    }
    s.push_str("</svg>\n");
    s
}

/// The whole picoseconds per cycle of a `credit_scope` trace: the trace, the interval
/// report and the save file's markers all use this one period.
fn trace_period_ps(cfg: &PrnicConfig) -> u64 {
    (1e6 / cfg.clock.mhz) as u64
}

/// How many starved intervals `credit-starvation` reports, longest first; the save file
/// puts named markers A, B, ... on the same ones.
pub const REPORTED_INTERVALS: usize = 5;

/// The intervals longest first (the earlier of two equally long ones first): the order
/// `credit-starvation` prints them and marks them in the save file.
pub fn longest_first(intervals: &[Starvation]) -> Vec<&Starvation> {
    let mut v: Vec<&Starvation> = intervals.iter().collect();
    v.sort_by_key(|i| (std::cmp::Reverse(i.cycles), i.start_cycle));
    v
}

/// A GTKWave save file for a `credit_scope` trace: the starvation flag, then each
/// monitored QP's credit (signed decimal, and an analog trace eight rows high), wait
/// flag, receiver-held requests and counters, grouped. It opens on the longest starved
/// interval: the primary marker at its start, the view from 100 cycles before it to 100
/// after, and named markers A, B, ... on the intervals the command reports.
pub fn gtkw(trace: &std::path::Path, qps: u32, intervals: &[Starvation], period_ps: u64) -> String {
    use std::fmt::Write as _;
    // Signal area of a 1600-pixel-wide window (the rest is the signal and tree panes).
    const WAVE_PX: f64 = 1150.0;
    let ps = |i: &Starvation| i.start_cycle * period_ps;
    let listed = longest_first(intervals);
    let mut s = format!("[dumpfile] \"{}\"\n", trace.display());
    match listed.first() {
        Some(l) => {
            let from = l.start_cycle.saturating_sub(100) * period_ps;
            let span = (l.cycles + 200) as f64 * period_ps as f64;
            // GTKWave shows 2^-zoom / 200 time units (ps here) per pixel.
            let zoom = -(200.0 * span / WAVE_PX).log2();
            let mut named: Vec<String> = listed
                .iter()
                .take(REPORTED_INTERVALS)
                .map(|i| ps(i).to_string())
                .collect();
            named.resize(26, "-1".into());
            let _ = write!(
                s,
                "[timestart] {from}\n[size] 1600 900\n[pos] -1 -1\n*{zoom:.6} {} {}\n",
                ps(l),
                named.join(" ")
            );
        }
        None => s.push_str("[timestart] 0\n[size] 1600 900\n[pos] -1 -1\n"),
    }
    s.push_str("[sst_width] 220\n[signals_width] 300\n[sst_expanded] 1\n");
    s.push_str("@200\n-Starvation (every active QP waiting for credit)\n@28\ncredit_scope.starved\n@24\ncredit_scope.starved_cycles[31:0]\n");
    for q in 0..qps.min(4) {
        let _ = write!(
            s,
            "@200\n-QP {q}\n@424\ncredit_scope.qp{q}_credit[31:0]\n@8424\ncredit_scope.qp{q}_credit[31:0]\n@20000\n-\n-\n-\n-\n-\n-\n-\n@28\ncredit_scope.qp{q}_waiting\n@24\ncredit_scope.qp{q}_rx_pending[15:0]\ncredit_scope.qp{q}_requests[31:0]\ncredit_scope.qp{q}_grants[31:0]\n"
        );
    }
    s.push_str("@200\n-Credit path\n@28\ncredit_scope.tx_req_valid\ncredit_scope.rx_grant_valid\ncredit_scope.tx_grant_valid\ncredit_scope.tx_sent_valid\n@24\ncredit_scope.tx_sent_bytes[31:0]\n");
    s
}

/// `prnic-sim credit-starvation`: one run per rule with a trace, and the intervals.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StarvationReport {
    pub rule: &'static str,
    pub qps: u32,
    pub jitter_ns: f64,
    pub trace: String,
    pub gtkw: String,
    pub throughput_gbps: f64,
    pub starved_share: f64,
    pub intervals: Vec<Starvation>,
}

pub fn starvation(
    cfg: &PrnicConfig,
    trace: &std::path::Path,
    qps: u32,
    jitter_batches: f64,
    slots: u64,
) -> std::io::Result<Vec<StarvationReport>> {
    let mut out = vec![];
    for rule in [Rule::Eq1, Rule::Eq2] {
        let path = if rule == Rule::Eq1 {
            trace.to_path_buf()
        } else {
            let stem = trace
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("trace");
            let ext = trace.extension().and_then(|s| s.to_str()).unwrap_or("fst");
            trace.with_file_name(format!("{stem}-eq2.{ext}"))
        };
        let lc = LoopConfig {
            rule,
            qps,
            jitter: (jitter_batches * cfg.batch_cycles()).round() as u64,
            dist: JitterDist::Uniform,
            loop_delay: default_loop_delay(cfg),
            slots,
            seed: 1,
            trace: Some(path.clone()),
            bdp: bdp_for(cfg, BdpMode::Shared, qps),
        };
        let o = run_loop(cfg, &lc).map_err(|e| std::io::Error::other(e.to_string()))?;
        let save = path.with_extension("gtkw");
        std::fs::write(&save, gtkw(&path, qps, &o.intervals, trace_period_ps(cfg)))?;
        out.push(StarvationReport {
            rule: rule.name(),
            qps,
            jitter_ns: jitter_batches * cfg.batch_time_ns(),
            trace: path.display().to_string(),
            gtkw: save.display().to_string(),
            throughput_gbps: o.throughput_fraction * cfg.line_rate_gbps(),
            starved_share: o.starved_share,
            intervals: o.intervals,
        });
    }
    Ok(out)
}
