//! The credit engine under Verilator: `credit_tx` event by event against the golden
//! model, `credit_rx`'s fairness, pacing, ON/OFF and PCIe slowdown, and the credit loop.

use prnic_gen::PrnicConfig;
use prnic_testbenches::bridge::Dut;
use prnic_testbenches::credit::{
    compare_tx, compare_tx_on, credit_rx, random_tx_events, run_rx, CreditParams, TxEvent,
};
use prnic_verif::credit::{Rule, SenderModel};
use proptest::prelude::*;

fn cfg() -> &'static PrnicConfig {
    PrnicConfig::builtin()
}

fn check_tx(rule: Rule, seed: u64, n: usize, qps: Vec<u32>, batch: u32, bdp: u32) {
    let gen = random_tx_events(seed, qps, batch as u64);
    let r = compare_tx(rule, batch, bdp, n, gen);
    assert!(
        r.mismatches.is_empty(),
        "{:?}: {:#?}",
        rule,
        &r.mismatches[..r.mismatches.len().min(8)]
    );
    assert!(
        r.min_credit >= -(batch as i64),
        "credit fell to {}",
        r.min_credit
    );
    assert_eq!(r.starved_rtl, r.starved_model, "starved cycles");
}

#[test]
fn credit_tx_matches_the_model_eq1_and_eq2() {
    let CreditParams { batch, bdp, .. } = CreditParams::from_config(cfg());
    for rule in [Rule::Eq1, Rule::Eq2] {
        check_tx(rule, 1, 4000, vec![0, 1, 7, 2047], batch, bdp);
        // A small BDP so the credit phase starts early, and same-QP back-to-back events.
        check_tx(rule, 2, 4000, vec![5], batch, batch);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn credit_tx_random_sequences(seed in any::<u64>(), nq in 1usize..6, eq2 in any::<bool>(), bdp_batches in 1u32..4) {
        let qps: Vec<u32> = (0..nq as u32).map(|i| (i * 397) % 2048).collect();
        let rule = if eq2 { Rule::Eq2 } else { Rule::Eq1 };
        let batch = 16384;
        check_tx(rule, seed, 1500, qps, batch, bdp_batches * batch);
    }
}

/// The model's own invariants over long random runs: credit never below -batch, and no
/// credit lost or duplicated: grants = bytes sent on credit + wasted + credit held.
#[test]
fn model_conserves_credit() {
    for rule in [Rule::Eq1, Rule::Eq2] {
        let mut m = SenderModel::new(rule, 16384, 32768);
        let mut gen = random_tx_events(9, vec![1, 2, 3], 16384);
        for _ in 0..200_000 {
            match gen(&m).unwrap() {
                TxEvent::Send { qp, remaining } => {
                    m.send(qp, remaining);
                }
                TxEvent::Grant { qp } => {
                    m.grant(qp);
                }
            }
            for q in m.qps.values() {
                assert!(q.credit >= -16384);
            }
        }
        let held: i64 = m.qps.values().map(|q| q.credit).sum();
        assert_eq!(
            (m.grants * 16384) as i64,
            m.sent_on_credit as i64 + m.wasted as i64 + held,
            "{rule:?}"
        );
    }
}

#[test]
fn first_bdp_goes_without_credit_then_eq1_waits_and_eq2_overdraws_one_batch() {
    let batch = 16384u32;
    for (rule, expect_after_bdp) in [(Rule::Eq1, 0u64), (Rule::Eq2, 16384)] {
        let mut sends = 0;
        let r = compare_tx(rule, batch, 4 * batch, 6, |_m| {
            sends += 1;
            Some(TxEvent::Send {
                qp: 3,
                remaining: 1 << 30,
            })
        });
        assert!(r.mismatches.is_empty(), "{:?}", r.mismatches);
        // Replay on the model for the amounts (the RTL matched it above).
        let mut m = SenderModel::new(rule, batch as u64, 4 * batch as u64);
        let got: Vec<u64> = (0..6).map(|_| m.send(3, 1 << 30).bytes).collect();
        assert_eq!(&got[..4], &[16384; 4], "first BDP");
        assert_eq!(got[4], expect_after_bdp, "{rule:?} after the BDP");
        assert_eq!(got[5], 0, "{rule:?}: at most one batch of overdraft");
        assert_eq!(m.requests, 4 + (expect_after_bdp / 16384));
    }
}

#[test]
fn on_off_when_credit_exceeds_the_data_left() {
    let batch = 16384u32;
    let mut m = SenderModel::new(Rule::Eq1, batch as u64, batch as u64);
    m.send(1, 20000); // BDP: 16384 sent, 3616 left
    assert_eq!(m.grant(1), Some(false), "16384 credit > 3616 left: OFF");
    let d = m.send(1, 3616);
    assert_eq!(d.bytes, 3616);
    assert_eq!(
        m.wasted,
        16384 - 3616,
        "surplus given up at the end of the data"
    );
    // And the RTL agrees on the same sequence.
    let seq = [
        TxEvent::Send {
            qp: 1,
            remaining: 20000,
        },
        TxEvent::Grant { qp: 1 },
        TxEvent::Send {
            qp: 1,
            remaining: 3616,
        },
    ];
    let mut it = seq.iter();
    let r = compare_tx(Rule::Eq1, batch, batch, 3, |_| it.next().copied());
    assert!(r.mismatches.is_empty(), "{:?}", r.mismatches);
}

#[test]
fn credit_rx_round_robin_is_fair_and_paced_without_drift() {
    let CreditParams {
        slot_num: num,
        slot_den: den,
        ..
    } = CreditParams::from_config(cfg());
    let mut d = credit_rx(1024, 2);
    let start = d.cycle();
    let cycles = 200_000u64;
    // Two QPs keep requesting (one request per cycle, alternating), a third never does.
    let g = run_rx(
        &mut d,
        cycles,
        |c| Some(if c % 2 == 0 { 10 } else { 20 }),
        |_| None,
        |_| 0,
    );
    let slots = d.status_slots();
    let expect = ((d.cycle() - start - 1) * den) / num;
    assert!(
        slots.abs_diff(expect) <= 1,
        "{slots} slots, expected {expect} (no drift)"
    );
    let (mut a, mut b) = (0i64, 0i64);
    for (_, q) in &g {
        match q {
            10 => a += 1,
            20 => b += 1,
            _ => panic!("grant to QP {q}, which never asked"),
        }
        assert!((a - b).abs() <= 1, "round robin: {a} vs {b}");
    }
    assert!(
        g.len() as u64 + 1 >= slots,
        "{} grants in {slots} slots",
        g.len()
    );
    // Grant spacing is the slot interval (528/5 = 105.6 cycles: 105 or 106).
    for w in g.windows(2) {
        let gap = w[1].0 - w[0].0;
        assert!(gap == num / den || gap == num.div_ceil(den), "gap {gap}");
    }
}

#[test]
fn credit_rx_grants_every_request_once_and_skips_off_qps() {
    let mut d = credit_rx(1024, 2);
    // QP 1: 5 requests; QP 2: 5 requests but OFF from the start until cycle 3000.
    let mut reqs = vec![1u32, 2, 1, 2, 1, 2, 1, 2, 1, 2];
    let g = run_rx(
        &mut d,
        6000,
        |_| reqs.pop(),
        |c| match c {
            0 => Some((2, false)),
            3000 => Some((2, true)),
            _ => None,
        },
        |_| 0,
    );
    let before: Vec<u32> = g.iter().filter(|x| x.0 < 3000).map(|x| x.1).collect();
    assert!(
        before.iter().all(|q| *q == 1),
        "an OFF QP was granted: {before:?}"
    );
    assert_eq!(g.iter().filter(|x| x.1 == 1).count(), 5);
    assert_eq!(
        g.iter().filter(|x| x.1 == 2).count(),
        5,
        "ON again: its requests are served"
    );
    assert_eq!(d.status_requests(), 10);
    assert_eq!(d.status_grants(), 10);
}

#[test]
fn pcie_backpressure_slows_grants_by_the_csr_factor() {
    let mut fast = credit_rx(100, 3);
    run_rx(&mut fast, 30_000, |_| Some(4), |_| None, |_| 50);
    let mut slow = credit_rx(100, 3);
    run_rx(&mut slow, 30_000, |_| Some(4), |_| None, |_| 500);
    let (f, s) = (fast.status_slots() as f64, slow.status_slots() as f64);
    assert!(
        (f / s - 3.0).abs() < 0.05,
        "slots {f} without, {s} with backpressure"
    );
}

/// The credit loop on the Verilator models: with Eq.2 throughput stays at or above 99%
/// of line rate for jitter up to one batch time; Eq.1 falls below it once jitter exceeds
/// what the QPs' free window leaves.
#[test]
fn credit_loop_eq2_holds_99_percent_up_to_one_batch_of_jitter() {
    use prnic_testbenches::credit::{sweep, BdpMode, JitterDist};
    let rows = sweep(
        cfg(),
        &[1, 2, 16],
        &[0.0, 0.5, 1.0],
        JitterDist::Uniform,
        &[BdpMode::PerQp, BdpMode::Shared],
        1000,
    );
    for r in &rows {
        let frac = r.throughput_gbps / r.line_rate_gbps;
        if r.rule == "eq2" {
            assert!(frac >= 0.99, "{r:?}");
        }
    }
    let eq1_at_one_batch: Vec<f64> = rows
        .iter()
        .filter(|r| r.rule == "eq1" && r.jitter_batches == 1.0 && r.bdp_bytes <= 131072)
        .map(|r| r.throughput_gbps / r.line_rate_gbps)
        .collect();
    assert!(!eq1_at_one_batch.is_empty());
    assert!(
        eq1_at_one_batch.iter().all(|f| *f < 0.99),
        "Eq.1 should fall: {eq1_at_one_batch:?}"
    );
    // With exponential jitter of the same mean, the same holds for Eq.2 at half a batch.
    let exp = sweep(
        cfg(),
        &[2],
        &[0.5],
        JitterDist::Exponential,
        &[BdpMode::Shared],
        1000,
    );
    assert!(
        exp.iter()
            .filter(|r| r.rule == "eq2")
            .all(|r| r.throughput_gbps / r.line_rate_gbps >= 0.99),
        "{exp:?}"
    );
}

/// CREDIT_BATCH is a 32-bit register: a batch of 2^24 bytes or more must not wrap the
/// bytes-since-last-request count (found in review: requests were lost).
#[test]
fn large_batches_keep_every_request() {
    let batch = (1u32 << 24) + 16;
    for rule in [Rule::Eq1, Rule::Eq2] {
        let mut n = 0;
        let r = compare_tx(rule, batch, 4 * batch, 40, |_m| {
            n += 1;
            Some(if n % 5 == 0 {
                TxEvent::Grant { qp: 2 }
            } else {
                TxEvent::Send {
                    qp: 2,
                    remaining: u32::MAX as u64,
                }
            })
        });
        assert!(r.mismatches.is_empty(), "{rule:?}: {:?}", r.mismatches);
    }
}

/// Out-of-range QP numbers alias modulo the QP count, in the RAM and in the forwarding
/// path alike: back-to-back events on QP 5 and QP 5 + 2048 act on one QP.
#[test]
fn qp_numbers_alias_modulo_the_qp_count() {
    let seq = [
        TxEvent::Send {
            qp: 5,
            remaining: 1 << 20,
        },
        TxEvent::Send {
            qp: 5 + 2048,
            remaining: 1 << 20,
        },
        TxEvent::Send {
            qp: 5,
            remaining: 1 << 20,
        },
    ];
    let mut it = seq.iter();
    let r = compare_tx(Rule::Eq1, 16384, 2 * 16384, 3, |_| it.next().copied());
    assert!(
        r.mismatches.is_empty(),
        "the model sees QP 5 three times: {:?}",
        r.mismatches
    );
}

/// Credit saturates at 2^31 - 1 instead of wrapping negative (found by the formal check,
/// testbenches/tests/formal.rs).
#[test]
fn credit_saturates_instead_of_wrapping() {
    let batch = 1u32 << 30;
    let seq = [
        TxEvent::Send {
            qp: 9,
            remaining: u32::MAX as u64,
        },
        TxEvent::Grant { qp: 9 },
        TxEvent::Grant { qp: 9 },
        TxEvent::Grant { qp: 9 },
        TxEvent::Send {
            qp: 9,
            remaining: u32::MAX as u64,
        },
        TxEvent::Send {
            qp: 9,
            remaining: u32::MAX as u64,
        },
    ];
    let mut it = seq.iter();
    let r = compare_tx(Rule::Eq1, batch, batch, seq.len(), |_| it.next().copied());
    assert!(r.mismatches.is_empty(), "{:?}", r.mismatches);
    assert!(r.min_credit >= 0, "credit wrapped to {}", r.min_credit);
}

mod cycle_exact;
