//! The credit loop built from the two Verilated blocks (N QPs, one receiver, a credit
//! path with delay and jitter), and the jitter sweep `prnic-sim credit-jitter` runs.

use super::*;

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
pub(super) enum QpState {
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
    let CreditParams {
        batch,
        slot_num: num,
        slot_den: den,
        ..
    } = CreditParams::from_config(cfg);
    let bdp = lc.bdp;
    let mut d = match &lc.trace {
        Some(p) => bridge::CreditScope::with_trace(p, cfg.clock_period_ps())?,
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
    // credit_tx's grant queue: a grant takes CREDIT_TX_GRANT_LATENCY - CREDIT_TX_LATENCY
    // cycles more than a send request to reach the update, which the grant path gives
    // back the same way.
    let rx_extra = CREDIT_RX_GRANT_LATENCY.saturating_sub(2) as u64
        + CREDIT_TX_GRANT_LATENCY.saturating_sub(CREDIT_TX_LATENCY) as u64;
    // Likewise credit_tx's requests and ON/OFF leave CREDIT_TX_LATENCY - 2 cycles later
    // than they did when the loop was measured: the request path is that much shorter.
    let tx_extra = CREDIT_TX_LATENCY.saturating_sub(2) as u64;
    let req_delay = half.saturating_sub(tx_extra).max(1);
    let mut state = vec![QpState::Queued; n];
    let mut granted_while_asked = vec![false; n];
    // credit_tx applies a grant CREDIT_TX_GRANT_LATENCY cycles after it arrives, later
    // when grants queue or its QP is in the update, so a QP asked soon after a grant
    // came may be refused before the grant counts: such a refusal re-queues the QP
    // instead of parking it until its next grant.
    let grant_window = CREDIT_TX_GRANT_LATENCY as u64
        + (CREDIT_TX_GRANT_QUEUE as u64) * CREDIT_TX_QP_SPACING as u64;
    let mut last_grant: Vec<Option<u64>> = vec![None; n];
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
        // frees, with room for the cycles credit_tx may hold a request (its QP still in
        // the update, or a grant going first: up to CREDIT_TX_QP_SPACING - 1).
        let ahead = CREDIT_TX_LATENCY as u64 + CREDIT_TX_QP_SPACING as u64 - 1;
        let s = (!asking && link_free <= (c + 1 + ahead) * den)
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
            last_grant[q as usize] = Some(c);
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
            granted_while_asked[q as usize] =
                last_grant[q as usize].is_some_and(|t| c < t + grant_window);
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
                    let u = prnic_verif::rng::unit(next());
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
                    start_ns: (now * cfg.clock_period_ps()) as f64 / 1000.0,
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
