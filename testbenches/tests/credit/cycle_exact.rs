//! The credit blocks cycle by cycle: `credit_rx`'s grant order against the model, reset
//! in mid-traffic, `credit_tx`'s issue rate, and rust-hdl against Verilator.

use super::*;

/// `credit_rx` against `ReceiverModel`: random requests from a few QPs, with ON/OFF now
/// and then; the sequence of granted QPs is the model's (the model skips an OFF head,
/// where the RTL spends that slot, so only grants are compared, in order).
#[test]
fn credit_rx_grants_in_the_models_order() {
    use prnic_rtl::credit_rx::CREDIT_RX_GRANT_LATENCY;
    use prnic_testbenches::bridge::CreditRx;
    use prnic_verif::credit::ReceiverModel;
    use prnic_verif::rng::rng;
    for seed in 1..4u64 {
        let mut d: CreditRx = credit_rx(0xffff, 1);
        let mut m = ReceiverModel::default();
        let mut next = rng(seed);
        // Accepted events by cycle: Some(qp) = request, (qp, on) = ON/OFF.
        #[allow(clippy::type_complexity)]
        let mut log: Vec<(u64, Result<u32, (u32, bool)>)> = vec![];
        let mut applied = 0;
        let mut held: Option<u32> = None;
        let mut grants = 0;
        for c in 0..40_000u64 {
            if held.is_none() && next().is_multiple_of(40) {
                held = Some((next() % 5) as u32);
            }
            let onoff = next()
                .is_multiple_of(900)
                .then(|| ((next() % 5) as u32, next().is_multiple_of(2)));
            d.set_s_req_valid(held.is_some() as u64);
            d.set_s_req_qp(held.unwrap_or(0) as u64);
            d.set_s_onoff_valid(onoff.is_some() as u64);
            d.set_s_onoff_qp(onoff.map_or(0, |x| x.0) as u64);
            d.set_s_onoff_on(onoff.is_some_and(|x| x.1) as u64);
            d.set_s_pcie_depth(0);
            d.eval();
            if let Some(o) = onoff {
                log.push((c, Err(o)));
            } else if let Some(q) = held {
                if d.s_req_ready() != 0 {
                    log.push((c, Ok(q)));
                    held = None;
                }
            }
            d.step();
            if d.m_grant_valid() != 0 {
                // The slot took the ring's head CREDIT_RX_GRANT_LATENCY - 1 cycles before
                // this one; everything accepted before it is in.
                let slot = c + 1 - CREDIT_RX_GRANT_LATENCY as u64;
                while applied < log.len() && log[applied].0 < slot {
                    match log[applied].1 {
                        Ok(q) => m.request(q),
                        Err((q, on)) => m.onoff(q, on),
                    }
                    applied += 1;
                }
                let want = loop {
                    match m.slot() {
                        Some(q) => break Some(q),
                        None if m.idle_slots > 1_000_000 => break None,
                        None => {
                            // An OFF head (the RTL spent a slot on it) or nothing yet.
                            if (0..5).all(|q| m.pending(q) == 0) {
                                break None;
                            }
                        }
                    }
                };
                assert_eq!(
                    Some(d.m_grant_qp() as u32),
                    want,
                    "seed {seed}, cycle {c}, grant {grants}"
                );
                grants += 1;
            }
        }
        assert!(grants > 200, "{grants} grants");
    }
}

/// Reset in the middle of traffic: a send in the pipeline, every QP holding credit or
/// debt, grants still arriving. During the sweep nothing comes out and every grant is
/// dropped and counted (none conjures credit later); afterwards every QP is in its
/// initial state, so the block matches a fresh model event by event, counters included,
/// and every grant after the sweep counts (none lost).
#[test]
fn reset_mid_traffic_returns_every_qp_to_its_initial_state_and_conjures_nothing() {
    let CreditParams { batch, bdp, .. } = CreditParams::from_config(cfg());
    let qps = vec![0, 1, 7, 2047];
    let mut d = prnic_testbenches::credit::credit_tx(Rule::Eq2, batch, bdp);
    let before = compare_tx_on(
        &mut d,
        Rule::Eq2,
        batch,
        bdp,
        1500,
        random_tx_events(3, qps.clone(), batch as u64),
    );
    assert!(before.mismatches.is_empty(), "{:#?}", before.mismatches);
    assert!(d.status_grants() > 0 && d.status_requests() > 0);
    // A send of QP 7 goes in; reset comes with it still in the pipeline.
    d.set_s_grant_valid(0);
    d.set_s_send_valid(1);
    d.set_s_send_qp(7);
    d.set_s_send_remaining(3 * batch as u64);
    d.step();
    d.set_s_send_valid(0);
    d.set_rst(1);
    d.step();
    d.set_rst(0);
    // Grants for every QP all through the sweep.
    let mut sweep = 0u64;
    let mut presented = 0u32;
    let mut out = 0;
    while d.status_clearing() != 0 {
        d.set_s_grant_valid(1);
        d.set_s_grant_qp(qps[sweep as usize % qps.len()] as u64);
        presented += 1;
        d.step();
        out += d.m_send_valid() + d.m_req_valid() + d.m_onoff_valid() + d.m_credit_valid();
        sweep += 1;
        assert!(sweep < 10_000, "the sweep never ends");
    }
    d.set_s_grant_valid(0);
    assert_eq!(sweep, 2048, "one cycle per QP");
    assert_eq!(out, 0, "outputs during the sweep");
    assert_eq!(d.status_grants_dropped(), presented as u64);
    assert_eq!((d.status_grants(), d.status_requests()), (0, 0));
    // Nothing carried over: the same kind of traffic matches a fresh model exactly.
    let after = compare_tx_on(
        &mut d,
        Rule::Eq2,
        batch,
        bdp,
        1500,
        random_tx_events(4, qps, batch as u64),
    );
    assert!(after.mismatches.is_empty(), "{:#?}", after.mismatches);
    assert!(after.min_credit >= -(batch as i64));
}

/// The issue rule of `credit_tx` in cycles: send requests for different QPs are issued one
/// per cycle; the same QP at most once every `CREDIT_TX_QP_SPACING` cycles (its update
/// spans three stages), a request for a QP in flight waiting in the parking register;
/// a grant takes `CREDIT_TX_GRANT_LATENCY` cycles to show, one more when its QP is still
/// in the update then, and send requests wait while it is held.
#[test]
fn credit_tx_takes_one_event_per_cycle_and_the_same_qp_once_every_four() {
    use prnic_rtl::credit_tx::{CREDIT_TX_GRANT_LATENCY, CREDIT_TX_LATENCY, CREDIT_TX_QP_SPACING};
    let CreditParams { batch, bdp, .. } = CreditParams::from_config(cfg());
    let mut d = prnic_testbenches::credit::credit_tx(Rule::Eq2, batch, bdp);
    let spacing = CREDIT_TX_QP_SPACING as u64;
    let lat = CREDIT_TX_LATENCY as u64;
    // Each request is held until taken; the cycle each is issued in, relative to the
    // first: its decision's cycle on `m_send_*` less the latency (outputs after the edge
    // that ends cycle c are counted as cycle c, so an event issued in cycle 0 shows at
    // latency - 1).
    let issued = |d: &mut prnic_testbenches::bridge::CreditTx, qps: &[u32]| -> Vec<u64> {
        let start = d.cycle();
        let mut shown = vec![];
        let mut step = |d: &mut prnic_testbenches::bridge::CreditTx| {
            let c = d.cycle() - start;
            d.step();
            if d.m_send_valid() != 0 {
                shown.push(c + 1 - lat);
            }
        };
        for &qp in qps {
            d.set_s_send_valid(1);
            d.set_s_send_qp(qp as u64);
            d.set_s_send_remaining(4 * batch as u64);
            loop {
                d.eval();
                let ok = d.s_send_ready() != 0;
                let c = d.cycle() - start;
                step(d);
                if ok {
                    break;
                }
                assert!(c < 100, "request for QP {qp} never taken");
            }
        }
        d.set_s_send_valid(0);
        for _ in 0..2 * CREDIT_TX_GRANT_LATENCY {
            step(d);
        }
        shown
    };
    // The rule, from the spec: in order, one per cycle, the same QP `spacing` apart.
    let expect = |qps: &[u32]| -> Vec<u64> {
        let mut t: Vec<u64> = vec![];
        for (i, qp) in qps.iter().enumerate() {
            let mut at = t.last().map_or(0, |x| x + 1);
            if let Some(j) = qps[..i].iter().rposition(|q| q == qp) {
                at = at.max(t[j] + spacing);
            }
            t.push(at);
        }
        t
    };
    for qps in [
        vec![0, 1, 2, 3, 0, 1, 2, 3],
        vec![5, 5, 5],
        vec![0, 1, 0, 1, 2, 2048, 0],
        vec![7, 8, 9, 7, 10, 7],
    ] {
        // QP 2048 is QP 0 (numbers alias modulo the QP count).
        let aliased: Vec<u32> = qps.iter().map(|q| q % 2048).collect();
        assert_eq!(issued(&mut d, &qps), expect(&aliased), "requests {qps:?}");
    }
    assert_eq!(expect(&[0, 1, 2, 3, 0]), vec![0, 1, 2, 3, 4]);
    assert_eq!(expect(&[5, 5]), vec![0, spacing]);

    // A grant alone: its update shows CREDIT_TX_GRANT_LATENCY cycles after it came.
    let credit_at = |d: &mut prnic_testbenches::bridge::CreditTx,
                     events: &[(u64, Option<u32>, Option<u32>)]|
     -> Vec<(u64, u32, bool)> {
        // (cycle, grant QP, send QP) -> every m_credit event (cycle, qp, is a send)
        let start = d.cycle();
        let mut seen = vec![];
        for c in 0..40u64 {
            let e = events.iter().find(|e| e.0 == c);
            d.set_s_grant_valid(e.and_then(|e| e.1).is_some() as u64);
            d.set_s_grant_qp(e.and_then(|e| e.1).unwrap_or(0) as u64);
            d.set_s_send_valid(e.and_then(|e| e.2).is_some() as u64);
            d.set_s_send_qp(e.and_then(|e| e.2).unwrap_or(0) as u64);
            d.set_s_send_remaining(4 * batch as u64);
            d.eval();
            if e.and_then(|e| e.2).is_some() {
                assert!(d.s_send_ready() != 0, "send at {c} refused");
            }
            d.step();
            if d.m_credit_valid() != 0 {
                seen.push((
                    d.cycle() - start - 1,
                    d.m_credit_qp() as u32,
                    d.m_send_valid() != 0,
                ));
            }
        }
        d.set_s_grant_valid(0);
        d.set_s_send_valid(0);
        seen
    };
    let g = CREDIT_TX_GRANT_LATENCY as u64;
    let s = CREDIT_TX_LATENCY as u64;
    // Outputs after the edge that ends cycle c are counted as cycle c here, so an event
    // taken in cycle 0 shows at latency - 1.
    assert_eq!(
        credit_at(&mut d, &[(0, Some(9), None)]),
        vec![(g - 1, 9, false)]
    );
    // A send for QP 9 taken in cycle 1 is in S3a when the grant (arrived in 0) is ready to
    // go in cycle 4: the grant goes a cycle later.
    assert_eq!(
        credit_at(&mut d, &[(0, Some(9), None), (1, None, Some(9))]),
        vec![(1 + s - 1, 9, true), (g, 9, false)]
    );

    // Grants for one QP on every cycle: one goes in every CREDIT_TX_QP_SPACING cycles, the
    // queue fills and the rest are dropped and counted; none is lost silently.
    let (g0, d0) = (d.status_grants(), d.status_grants_dropped());
    let mut applied = 0u64;
    for c in 0..400u64 {
        d.set_s_grant_valid((c < 200) as u64);
        d.set_s_grant_qp(11);
        d.step();
        applied += (d.m_credit_valid() != 0 && d.m_send_valid() == 0) as u64;
    }
    d.set_s_grant_valid(0);
    let (granted, dropped) = (d.status_grants() - g0, d.status_grants_dropped() - d0);
    assert_eq!(granted, applied);
    assert_eq!(granted + dropped, 200);
    assert!(
        dropped > 0 && granted >= 200 / spacing,
        "{granted} applied, {dropped} dropped"
    );
}

/// The same stimulus through rust-hdl's simulator and the Verilator model: every output
/// identical on every cycle, `s_send_ready` before the edge included. This is what catches
/// rust-hdl's operator-precedence emission bug (it drops implicit precedence): the two
/// simulate different texts of the same design. Both rules, a reset in the middle of the
/// traffic, sends held until taken, grants on their own and in bursts.
#[test]
fn credit_tx_two_simulators_agree_cycle_by_cycle() {
    use prnic_testbenches::bridge::CreditTx;
    use prnic_verif::rng::rng;
    use rust_hdl::prelude::*;

    /// Every output of `credit_tx`, as numbers.
    fn outputs_vl(d: &CreditTx) -> Vec<u64> {
        vec![
            d.s_send_ready(),
            d.m_send_valid(),
            d.m_send_qp(),
            d.m_send_bytes(),
            d.m_send_credit(),
            d.m_credit_valid(),
            d.m_credit_qp(),
            d.m_credit_value(),
            d.m_credit_waiting(),
            d.m_req_valid(),
            d.m_req_qp(),
            d.m_onoff_valid(),
            d.m_onoff_qp(),
            d.m_onoff_on(),
            d.status_clearing(),
            d.status_requests(),
            d.status_grants(),
            d.status_wasted_bytes(),
            d.status_starved_cycles(),
            d.status_starved(),
            d.status_grants_dropped(),
            d.status_debt_error(),
        ]
    }
    fn outputs_hdl(u: &prnic_rtl::credit_tx::CreditTx) -> Vec<u64> {
        vec![
            u.s_send_ready.val() as u64,
            u.m_send_valid.val() as u64,
            u.m_send_qp.val().to_u64(),
            u.m_send_bytes.val().to_u64(),
            u.m_send_credit.val().to_u64(),
            u.m_credit_valid.val() as u64,
            u.m_credit_qp.val().to_u64(),
            u.m_credit_value.val().to_u64(),
            u.m_credit_waiting.val() as u64,
            u.m_req_valid.val() as u64,
            u.m_req_qp.val().to_u64(),
            u.m_onoff_valid.val() as u64,
            u.m_onoff_qp.val().to_u64(),
            u.m_onoff_on.val() as u64,
            u.status_clearing.val() as u64,
            u.status_requests.val().to_u64(),
            u.status_grants.val().to_u64(),
            u.status_wasted_bytes.val().to_u64(),
            u.status_starved_cycles.val().to_u64(),
            u.status_starved.val() as u64,
            u.status_grants_dropped.val().to_u64(),
            u.status_debt_error.val() as u64,
        ]
    }

    let CreditParams { batch, bdp, .. } = CreditParams::from_config(cfg());
    let qps = cfg().reorder.qps as u64;
    let mut checked_events = 0u32;
    for (rule, seed) in [(Rule::Eq1, 0x7e11u64), (Rule::Eq2, 0x7e12)] {
        let mut vl = CreditTx::new();
        let mut h = prnic_gen::blocks::credit_tx(cfg());
        h.clk.next = false.into();
        prnic_testbenches::hdl_sim::settle(&mut h, "initial values");
        let mut next = rng(seed);
        let mut send: Option<(u64, u64)> = None;
        // Two reset sweeps (one at the start, one with traffic in flight), traffic after
        // each: long enough for requests, grants, waste and starvation to show.
        let cycles = 2 * qps + 6000;
        for c in 0..cycles {
            let r = next();
            let rst = c == 0 || c == qps + 3000;
            if send.is_none() && !r.is_multiple_of(3) {
                // A few QPs, so the same QP comes back within the update's spacing, and
                // sends of every size from a few bytes to several batches.
                send = Some(((r >> 8) % 6, ((r >> 16) % (4 * batch as u64)) + 1));
            }
            let grant = (r >> 40).is_multiple_of(5) || (c % 700 < 40);
            let gqp = (r >> 44) % 6;
            let (sv, sq, sr) = send.map_or((0, 0, 0), |(q, b)| (1, q, b));
            vl.set_rst(rst as u64);
            vl.set_cfg_rule((rule == Rule::Eq2) as u64);
            vl.set_cfg_batch(batch as u64);
            vl.set_cfg_bdp(bdp as u64);
            vl.set_s_send_valid(sv);
            vl.set_s_send_qp(sq);
            vl.set_s_send_remaining(sr);
            vl.set_s_grant_valid(grant as u64);
            vl.set_s_grant_qp(gqp);
            vl.eval();
            h.rst.next = rst;
            h.cfg_rule.next = rule == Rule::Eq2;
            h.cfg_batch.next = (batch as LiteralType).into();
            h.cfg_bdp.next = (bdp as LiteralType).into();
            h.s_send_valid.next = sv == 1;
            h.s_send_qp.next = (sq as LiteralType).into();
            h.s_send_remaining.next = (sr as LiteralType).into();
            h.s_grant_valid.next = grant;
            h.s_grant_qp.next = (gqp as LiteralType).into();
            prnic_testbenches::hdl_sim::settle(&mut h, "inputs");
            let ready = vl.s_send_ready();
            assert_eq!(
                ready,
                h.s_send_ready.val() as u64,
                "{rule:?}: s_send_ready disagrees before the edge of cycle {c}"
            );
            if ready == 1 && !rst {
                send = None;
            }
            vl.step();
            h.clk.next = true.into();
            prnic_testbenches::hdl_sim::settle(&mut h, "rising edge");
            let (a, b) = (outputs_vl(&vl), outputs_hdl(&h));
            assert_eq!(a, b, "{rule:?}: simulators disagree after cycle {c}");
            checked_events += a[5] as u32;
            h.clk.next = false.into();
            prnic_testbenches::hdl_sim::settle(&mut h, "falling edge");
        }
        // The run must exercise the block, or agreement means nothing.
        let v = outputs_vl(&vl);
        assert!(
            v[15] > 20 && v[16] > 20 && v[18] > 0,
            "{rule:?}: requests {}, grants {}, starved cycles {}: too little happened",
            v[15],
            v[16],
            v[18]
        );
    }
    assert!(checked_events > 2000, "only {checked_events} events shown");
}
