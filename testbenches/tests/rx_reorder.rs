//! `rx_reorder` under Verilator: every verdict, CQE, ACK and retransmission request against
//! the golden model, plus invariants checked from the stimulus alone (placed once per
//! PSN, CQEs once and in PSN order with the sender's immediate, nothing foreign placed).

use prnic_testbenches::bridge::reset_and_sweep;
use prnic_testbenches::rx_reorder::{
    compare, default_settings, rx_reorder, Compare, Event, Traffic,
};
use prnic_verif::rx_reorder::{Header, ReorderModel, ReorderSettings, Verdict, PSN_MOD};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

fn run(s: ReorderSettings, events: &[Event]) -> Compare {
    let mut d = rx_reorder(&s);
    let mut m = ReorderModel::new(s);
    let r = compare(&mut d, &mut m, events);
    assert!(r.mismatches.is_empty(), "{:#?}", r.mismatches);
    r
}

fn hdr(qp: u32, psn: u32, slot: u8, imm: Option<u32>) -> Event {
    Event::Hdr(Header {
        qp,
        psn: psn % PSN_MOD,
        vni_slot: slot,
        ack_req: false,
        imm,
    })
}

fn create(qp: u32, slot: u8, psn: u32) -> Event {
    Event::Qp {
        qp,
        enable: true,
        vni_slot: slot,
        psn,
    }
}

/// Invariants that need no model: from the events and the outcomes alone.
fn check_invariants(events: &[Event], r: &Compare) {
    // The owner and first PSN of each QP, and each (qp, psn)'s immediate as sent.
    let mut owner: BTreeMap<u32, (bool, u8, u32)> = BTreeMap::new();
    let mut imm_of: BTreeMap<(u32, u32), Option<u32>> = BTreeMap::new();
    for e in events {
        match *e {
            Event::Qp {
                qp,
                enable,
                vni_slot,
                psn,
            } => {
                owner.insert(qp, (enable, vni_slot, psn));
            }
            Event::Hdr(h) => {
                imm_of.insert((h.qp, h.psn), h.imm);
            }
            Event::Idle => {}
        }
    }
    let mut placed: BTreeSet<(u32, u32)> = BTreeSet::new();
    let mut next_cqe_after: BTreeMap<u32, u32> = BTreeMap::new();
    let mut cqes: BTreeSet<(u32, u32)> = BTreeSet::new();
    for (h, o) in &r.outcomes {
        if o.verdict == Verdict::Place {
            let (en, slot, _) = owner.get(&h.qp).copied().expect("placed on an unknown QP");
            assert!(en, "placed on a disabled QP: {h:?}");
            assert_eq!(slot, h.vni_slot, "placed across tenants: {h:?}");
            assert!(placed.insert((h.qp, h.psn)), "placed twice: {h:?}");
        }
        for &(psn, imm) in &o.cqes {
            assert!(cqes.insert((h.qp, psn)), "CQE twice: qp {} psn {psn}", h.qp);
            assert!(placed.contains(&(h.qp, psn)), "CQE before placement: {psn}");
            assert_eq!(
                imm_of.get(&(h.qp, psn)),
                Some(&Some(imm)),
                "wrong immediate"
            );
            // In PSN order: each CQE's distance from the QP's first PSN grows.
            let start = owner[&h.qp].2;
            let dist = psn.wrapping_sub(start) % PSN_MOD;
            if let Some(&prev) = next_cqe_after.get(&h.qp) {
                assert!(dist > prev, "CQE out of order on qp {}", h.qp);
            }
            next_cqe_after.insert(h.qp, dist);
            // Every PSN from the start up to it has been placed.
            for k in 0..=dist {
                assert!(
                    placed.contains(&(h.qp, (start + k) % PSN_MOD)),
                    "CQE {psn} before PSN {} arrived",
                    start + k
                );
            }
        }
    }
}

#[test]
fn out_of_order_completions_wait_for_the_head() {
    let s = default_settings();
    let ev = vec![
        create(3, 1, 1000),
        hdr(3, 1003, 1, Some(0xc3)),
        hdr(3, 1001, 1, Some(0xc1)),
        hdr(3, 1002, 1, None),
        hdr(3, 1000, 1, None),
        hdr(3, 1004, 1, Some(0xc4)),
    ];
    let r = run(s, &ev);
    check_invariants(&ev, &r);
    let cqes: Vec<Vec<(u32, u32)>> = r.outcomes.iter().map(|(_, o)| o.cqes.clone()).collect();
    assert_eq!(
        cqes,
        vec![
            vec![],
            vec![],
            vec![],
            vec![(1001, 0xc1), (1003, 0xc3)],
            vec![(1004, 0xc4)]
        ]
    );
}

#[test]
fn every_drop_reason_and_its_counter() {
    let s = default_settings();
    let ev = vec![
        create(1, 2, 50),
        Event::Qp {
            qp: 9,
            enable: false,
            vni_slot: 2,
            psn: 0,
        },
        hdr(1, 50, 2, None),       // place, head 51
        hdr(1, 50, 2, None),       // duplicate (below head)
        hdr(1, 53, 2, None),       // place
        hdr(1, 53, 2, None),       // duplicate (already arrived)
        hdr(1, 51 + 256, 2, None), // beyond the window
        hdr(1, 52, 3, None),       // another tenant's VNI
        hdr(9, 0, 2, None),        // disabled QP
        hdr(4000, 0, 2, None),     // unknown QP (the config has 2048)
        hdr(1, 60, 2, Some(1)),    // held in slot 0
        hdr(1, 61, 2, Some(2)),    // held in slot 1
        hdr(1, 62, 2, Some(3)),    // no slot left
        hdr(1, 51, 2, Some(4)),    // at the head: no slot needed
    ];
    let mut d = rx_reorder(&s);
    let mut m = ReorderModel::new(s);
    let r = compare(&mut d, &mut m, &ev);
    assert!(r.mismatches.is_empty(), "{:#?}", r.mismatches);
    let v: Vec<Verdict> = r.outcomes.iter().map(|(_, o)| o.verdict).collect();
    use Verdict::*;
    assert_eq!(
        v,
        vec![
            Place,
            Duplicate,
            Place,
            Duplicate,
            BeyondWindow,
            BadQp,
            BadQp,
            UnknownQp,
            Place,
            Place,
            ImmFull,
            Place
        ]
    );
    assert_eq!(d.status_placed(), 5);
    assert_eq!(d.status_duplicate(), 2);
    assert_eq!(d.status_beyond_window(), 1);
    assert_eq!(d.status_bad_qp(), 2);
    assert_eq!(d.status_unknown_qp(), 1);
    assert_eq!(d.status_imm_full(), 1);
    // Duplicates are re-acknowledged with the head.
    assert_eq!(r.outcomes[1].1.ack, Some(51));
    assert_eq!(d.status_acks(), 2);
    assert_eq!(d.status_cqes(), 1);
    // The two refusals the sender cannot see raise a request naming their own PSN, at
    // once; no other header here raises one.
    let named: Vec<(Verdict, u32, Vec<u32>)> = r
        .outcomes
        .iter()
        .filter_map(|(h, o)| o.nak.clone().map(|n| (o.verdict, h.psn, n.missing)))
        .collect();
    let far = r.outcomes[4].0.psn;
    assert_eq!(
        named,
        vec![(BeyondWindow, far, vec![far]), (ImmFull, 62, vec![62])]
    );
    assert_eq!(d.status_naks(), 2);
}

#[test]
fn back_to_back_headers_of_one_qp_one_per_cycle() {
    let s = default_settings();
    let n = 2000u32;
    let mut ev = vec![create(7, 0, PSN_MOD - 1000)];
    // In order across the PSN wrap, every 8th a write-with-immediate.
    for i in 0..n {
        ev.push(hdr(7, PSN_MOD - 1000 + i, 0, (i % 8 == 7).then_some(i)));
    }
    let r = run(s, &ev);
    check_invariants(&ev, &r);
    assert_eq!(r.headers, n as usize);
    assert_eq!(r.header_cycles, n as u64, "one header per cycle");
    let cqes: usize = r.outcomes.iter().map(|(_, o)| o.cqes.len()).sum();
    assert_eq!(cqes, (n / 8) as usize);
}

#[test]
fn retransmission_requests_name_the_missing_psns() {
    let s = ReorderSettings {
        ooo_threshold: 8,
        missing_share_pct: 30,
        ..default_settings()
    };
    // Head 0 lost, then 1..=8 arrive: degree 8 but only 1 of 9 missing (11%): no request.
    // Then 10..=12 skip 9: 2 of 13 missing (15%), still none; 20 arrives: degree 20,
    // missing {0, 9, 13..=19} = 9 of 21 (43%): a request naming those at least 8 behind
    // 20, within 0..=12: PSNs 0 and 9.
    let mut ev = vec![create(2, 5, 0)];
    for p in (1..=8).chain(10..=12).chain([20, 21]) {
        ev.push(hdr(2, p, 5, None));
    }
    let r = run(s, &ev);
    let naks: Vec<_> = r
        .outcomes
        .iter()
        .filter_map(|(h, o)| o.nak.clone().map(|n| (h.psn, n)))
        .collect();
    assert_eq!(naks.len(), 1, "{naks:?}");
    assert_eq!(naks[0].0, 20);
    let want: Vec<u32> = vec![0, 9];
    assert_eq!(naks[0].1.missing, want);
}

/// A lone loss never reaches the missing share; the age test requests it once
/// `loss_after` packets above it have arrived, and only then.
#[test]
fn a_lone_loss_is_requested_by_its_age() {
    let s = ReorderSettings {
        ooo_threshold: 8,
        missing_share_pct: 25,
        loss_after: 20,
        ..default_settings()
    };
    // PSN 0 is lost; 1..=40 arrive: 1 missing in up to 41 (2.4%), under the share.
    let mut ev = vec![create(2, 5, 0)];
    for p in 1..=40 {
        ev.push(hdr(2, p, 5, None));
    }
    let r = run(s, &ev);
    let naks: Vec<(u32, u32, Vec<u32>)> = r
        .outcomes
        .iter()
        .filter_map(|(h, o)| o.nak.clone().map(|n| (h.psn, n.head, n.missing)))
        .collect();
    // The 20th packet above the hole (PSN 20) raises the one request, naming PSN 0.
    assert_eq!(naks, vec![(20, 0, vec![0])]);
    // Off, the same traffic raises none.
    let r = run(ReorderSettings { loss_after: 0, ..s }, &ev);
    assert!(r.outcomes.iter().all(|(_, o)| o.nak.is_none()));
}

#[test]
fn reset_disables_every_qp() {
    let s = default_settings();
    let mut d = rx_reorder(&s);
    let mut m = ReorderModel::new(s);
    let ev = vec![create(5, 0, 0), hdr(5, 0, 0, None)];
    let r = compare(&mut d, &mut m, &ev);
    assert_eq!(r.outcomes[0].1.verdict, Verdict::Place);
    let cycles = reset_and_sweep(&mut d, |d, v| d.set_rst(v), |d| d.status_clearing());
    assert_eq!(cycles, s.qps, "the sweep takes one cycle per QP");
    let mut m = ReorderModel::new(s);
    let r = compare(&mut d, &mut m, &[hdr(5, 1, 0, None)]);
    assert!(r.mismatches.is_empty(), "{:?}", r.mismatches);
    assert_eq!(r.outcomes[0].1.verdict, Verdict::BadQp);
    assert_eq!(d.status_placed(), 0, "counters cleared");
}

fn traffic_run(t: Traffic, s: ReorderSettings) -> Compare {
    let ev = t.events(&s);
    let r = run(s, &ev);
    check_invariants(&ev, &r);
    r
}

#[test]
fn many_tenants_permuted_duplicated_lost() {
    let s = default_settings();
    let r = traffic_run(
        Traffic {
            qps: 64,
            per_qp: 300,
            msg: 5,
            reorder_distance: 24,
            dup_pct: 5,
            loss_pct: 1,
            foreign_pct: 3,
            idle_pct: 10,
            seed: 11,
        },
        s,
    );
    let count = |v: Verdict| r.outcomes.iter().filter(|(_, o)| o.verdict == v).count();
    // The stimulus exercises every path (the model agrees on each header).
    for v in [
        Verdict::Place,
        Verdict::Duplicate,
        Verdict::BadQp,
        Verdict::UnknownQp,
        Verdict::ImmFull,
    ] {
        assert!(count(v) > 0, "no {v:?} in {} headers", r.headers);
    }
    assert!(r.outcomes.iter().any(|(_, o)| o.nak.is_some()));
    assert!(r.outcomes.iter().any(|(_, o)| o.cqes.len() >= 2));
    // Every refusal for want of a slot names its PSN to the sender, at once.
    for (h, o) in r
        .outcomes
        .iter()
        .filter(|(_, o)| o.verdict == Verdict::ImmFull)
    {
        let n = o.nak.as_ref().expect("a refusal raises a request");
        assert_eq!((n.head, n.missing.as_slice()), (h.psn, &[h.psn][..]));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    #[test]
    fn random_permutations_duplications_losses(
        seed in any::<u64>(),
        qps in 1u32..40,
        distance in 1usize..80,
        msg in 1u32..9,
        dup in 0u32..15,
        loss in 0u32..5,
        window in prop::sample::select(vec![32u32, 64, 128, 256]),
        ooo in 1u32..31,
        pct in 0u32..=100,
        age in prop_oneof![Just(0u32), 1u32..80],
    ) {
        let s = ReorderSettings { window, ooo_threshold: ooo, missing_share_pct: pct, loss_after: age, ..default_settings() };
        traffic_run(
            Traffic { qps, per_qp: 120, msg, reorder_distance: distance, dup_pct: dup, loss_pct: loss, foreign_pct: 2, idle_pct: 5, seed },
            s,
        );
    }
}

#[test]
fn spurious_retransmission_stress_small() {
    use prnic_testbenches::retransmit::{stress, Stress};
    let mut st = Stress {
        flows: 16,
        packets_per_flow: 512,
        ..Stress::paper()
    };
    for p in &mut st.paths {
        p.loss = 2e-3;
    }
    let r = stress(&st);
    for c in [&r.ooo_only, &r.dual] {
        assert!(c.all_placed, "{c:?}");
    }
    assert!(r.real_losses > 0, "the scenario loses packets: {r:?}");
    assert_eq!(r.real_losses_recovered, r.real_losses);
    // The straggler path makes packets late by more than the out-of-order threshold, so
    // the threshold alone asks for some needlessly; the missing share filters most.
    assert!(r.ooo_only.spurious > 0, "{r:?}");
    assert!(
        r.dual.spurious * 2 <= r.ooo_only.spurious,
        "dual {} vs ooo-only {}",
        r.dual.spurious,
        r.ooo_only.spurious
    );
}

#[test]
fn fig12_stress_small_policy_resends_every_loss_within_two_round_trips() {
    use prnic_testbenches::retransmit::{stress, FabricKind, Stress};
    let mut st = Stress {
        flows: 16,
        packets_per_flow: 768,
        ..Stress::new(FabricKind::Fig12)
    };
    for p in &mut st.paths {
        p.loss = 5e-4;
    }
    let r = stress(&st);
    for c in [&r.ooo_only, &r.dual, &r.policy] {
        assert!(c.all_placed, "{c:?}");
        assert_eq!(c.real_losses_recovered, c.real_losses, "{c:?}");
    }
    let c = &r.policy;
    assert!(c.real_losses >= 3, "the scenario loses packets: {c:?}");
    // Held frames are later than the out-of-order threshold: the threshold alone asks
    // for them needlessly. The policy's bounds come from the fabric's stated reordering,
    // so it asks for them only when a real loss passes the age test while one is in
    // flight, and finds every loss (by request or by the tail probe) within two round
    // trips, with no timeout.
    assert!(r.ooo_only.spurious > 50, "{r:?}");
    let policy_spurious = c.spurious + c.probe_spurious + c.rto_spurious;
    assert!(
        policy_spurious * 20 <= r.ooo_only.spurious,
        "policy {policy_spurious} vs threshold alone {}",
        r.ooo_only.spurious
    );
    assert_eq!(c.losses_requested + c.losses_probed, c.real_losses, "{c:?}");
    assert!(c.losses_requested > 0, "{c:?}");
    assert_eq!(c.rto_resent, 0, "{c:?}");
    assert!(c.loss_to_resend_max_rtts <= 2.0, "{c:?}");
}

#[test]
fn verilator_and_rust_hdl_agree_on_every_output_every_cycle() {
    let s = ReorderSettings {
        ooo_threshold: 6,
        missing_share_pct: 20,
        loss_after: 10,
        ..default_settings()
    };
    let t = Traffic {
        qps: 6,
        per_qp: 40,
        msg: 3,
        reorder_distance: 12,
        dup_pct: 5,
        loss_pct: 3,
        foreign_pct: 3,
        idle_pct: 10,
        seed: 3,
    };
    let ev = t.events(&s);
    let a = prnic_testbenches::rx_reorder::hdl_agreement(&s, &ev);
    assert!(a.diffs.is_empty(), "{}", a.diffs.join("\n"));
    let headers = ev.iter().filter(|e| matches!(e, Event::Hdr(_))).count() as u64;
    assert_eq!(a.verdicts, headers);
    assert!(a.cqes > 0 && a.naks > 0, "{a:?}");
}
