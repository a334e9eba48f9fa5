use super::fault::{CrashAfter, RestartAt};
use super::*;
use crate::csr::{Channel, RnicModel};
use crate::flow_table::value_for;
use crate::rng::rng;

const HASH: u64 = 0x1234_5678_9abc_def0;

fn geom() -> Geometry {
    // Small, so inserts relocate and overflow into the stash.
    Geometry {
        slots_per_way: 16,
        stash: 4,
        seeds: [5, 6, 7, 8],
    }
}

fn all_locs(g: &Geometry) -> Vec<Loc> {
    let mut v: Vec<Loc> = (0..4)
        .flat_map(|w| (0..g.slots_per_way).map(move |i| Loc::Slot(w, i)))
        .collect();
    v.extend((0..g.stash).map(Loc::Stash));
    v
}

/// Apply `ops` until the first error (the injected crash).
fn apply_until_error<L: RnicLink>(dpu: &mut Dpu<L>, ops: &[Op]) {
    for op in ops {
        if dpu.apply(*op).is_err() {
            break;
        }
    }
}

/// A new DPU process recovers over `rnic` from the surviving log `wal`, and agrees with
/// the RNIC on every location.
fn recover_in_agreement<L: RnicLink>(rnic: L, g: &Geometry, wal: Wal, what: &str) -> Dpu<L> {
    let mut d = Dpu::recover(rnic, g.clone(), HASH, CheckMode::StateMachine, wal).unwrap();
    assert!(d.audit(&all_locs(g)).unwrap().is_empty(), "{what}");
    d
}

/// A mix of inserts (with relocations) and deletes that all succeed on `geom()`.
fn ops() -> Vec<Op> {
    let mut t = SoftTable::new(geom());
    let mut next = rng(3);
    let mut keys = vec![];
    let mut ops = vec![];
    while ops.len() < 90 {
        let r = next();
        let op = if r.is_multiple_of(8) && !keys.is_empty() {
            Op::Delete(keys.swap_remove(r as usize % keys.len()))
        } else {
            let k = r >> 20;
            Op::Insert(k, value_for(r))
        };
        let ok = match op {
            Op::Insert(k, v) => t.insert(k, v).is_ok(),
            Op::Delete(k) => t.delete(k).is_ok(),
        };
        if ok {
            if let Op::Insert(k, _) = op {
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
            ops.push(op);
        }
    }
    ops
}

#[test]
fn a_crash_at_any_access_is_recovered_from_the_log() {
    let g = geom();
    let ops = ops();
    // Crash-free run: the reference end state and the number of accesses.
    let mut dpu = Dpu::new(
        Channel::new(RnicModel::new(g.clone(), HASH)),
        g.clone(),
        HASH,
        CheckMode::StateMachine,
    );
    for op in &ops {
        dpu.apply(*op).unwrap();
    }
    let total = dpu.link.accesses();
    let reference = dpu.table().image().clone();
    let mut relocations = 0;
    for r in &dpu.wal.records {
        if let WalRecord::Begin { writes, .. } = r {
            relocations += writes.len().saturating_sub(1);
        }
    }
    assert!(
        relocations > 5,
        "the sequence must relocate keys ({relocations})"
    );
    println!(
        "{} ops, {relocations} relocations, cut at each of {total} CSR accesses",
        ops.len()
    );
    for cut in 0..total {
        let link = CrashAfter {
            inner: RnicModel::new(g.clone(), HASH),
            left: cut,
        };
        let mut dpu = Dpu::new(link, g.clone(), HASH, CheckMode::StateMachine);
        let mut done = 0;
        for op in &ops {
            match dpu.apply(*op) {
                Ok(()) => done += 1,
                Err(DpuError::Csr(CsrError::Crashed)) => break,
                Err(e) => panic!("cut {cut}: {e:?}"),
            }
        }
        // A new DPU process: the log survived, the RNIC kept what landed.
        let wal = dpu.wal.clone();
        let mut d2 = recover_in_agreement(
            dpu.link.inner,
            &g,
            wal,
            &format!("cut {cut}: RNIC and DPU disagree after recovery"),
        );
        // Finish the sequence: the end state is the crash-free one.
        let committed = d2
            .wal
            .records
            .iter()
            .filter(|r| matches!(r, WalRecord::Commit { .. }))
            .count();
        assert!(committed >= done);
        for op in &ops[committed..] {
            d2.apply(*op).unwrap();
        }
        assert!(d2.audit(&all_locs(&g)).unwrap().is_empty());
        for l in all_locs(&g) {
            assert_eq!(
                d2.table().image().at(l),
                reference.at(l),
                "cut {cut}: end state differs at {l:?}"
            );
        }
    }
}

#[test]
fn the_state_machine_follows_an_rnic_restart_in_the_middle_of_an_update() {
    let g = geom();
    let ops = ops();
    for at in [0u64, 7, 50, 133, 400] {
        let link = RestartAt {
            rnic: RnicModel::new(g.clone(), HASH),
            at,
            count: 0,
            down_probes: 3,
        };
        let mut dpu = Dpu::new(link, g.clone(), HASH, CheckMode::StateMachine);
        for op in &ops {
            dpu.apply(*op).unwrap();
        }
        assert_eq!(dpu.state, RnicState::ChannelEstablished);
        assert_eq!(dpu.restarts_seen, 1, "restart at access {at}");
        assert!(
            dpu.audit(&all_locs(&g)).unwrap().is_empty(),
            "restart at {at}: tables differ"
        );
    }
}

#[test]
fn an_rnic_that_never_comes_back_is_down_and_commands_fail_cleanly() {
    let g = geom();
    let link = RestartAt {
        rnic: RnicModel::new(g.clone(), HASH),
        at: 20,
        count: 0,
        down_probes: u32::MAX,
    };
    let mut dpu = Dpu::new(link, g.clone(), HASH, CheckMode::StateMachine);
    dpu.max_probes = 10;
    let mut last = Ok(());
    for op in ops().into_iter().take(10) {
        last = dpu.apply(op);
        if last.is_err() {
            break;
        }
    }
    assert_eq!(last, Err(DpuError::RnicDown));
    assert_eq!(dpu.state, RnicState::Down);
}

#[test]
fn an_rnic_restart_while_the_dpu_is_down_is_caught_by_recovery() {
    let g = geom();
    let ops = ops();
    for cut in [100u64, 333, 600] {
        let link = CrashAfter {
            inner: RnicModel::new(g.clone(), HASH),
            left: cut,
        };
        let mut dpu = Dpu::new(link, g.clone(), HASH, CheckMode::StateMachine);
        apply_until_error(&mut dpu, &ops);
        let wal = dpu.wal.clone();
        let mut rnic = dpu.link.inner;
        rnic.restart();
        recover_in_agreement(
            rnic,
            &g,
            wal,
            &format!("cut {cut}: RNIC restarted while the DPU was down"),
        );
    }
}

#[test]
fn a_crash_during_the_re_push_after_a_restart_is_recovered() {
    let g = geom();
    let ops = ops();
    // Restart at access 400; then crash the DPU at every access of the re-push window.
    for cut in (400u64..700).step_by(7) {
        let link = CrashAfter {
            inner: RestartAt::new(RnicModel::new(g.clone(), HASH), 400),
            left: cut,
        };
        let mut dpu = Dpu::new(link, g.clone(), HASH, CheckMode::StateMachine);
        apply_until_error(&mut dpu, &ops);
        let wal = dpu.wal.clone();
        recover_in_agreement(
            dpu.link.inner,
            &g,
            wal,
            &format!("crash at {cut} after a restart at 400"),
        );
    }
}

#[test]
fn per_command_checking_also_follows_a_restart() {
    let g = geom();
    let ops = ops();
    let link = RestartAt::new(RnicModel::new(g.clone(), HASH), 1500);
    let mut dpu = Dpu::new(link, g.clone(), HASH, CheckMode::PerCommand);
    for op in &ops {
        dpu.apply(*op).unwrap();
    }
    assert_eq!(dpu.restarts_seen, 1);
    assert!(dpu.audit(&all_locs(&g)).unwrap().is_empty());
}

#[test]
fn a_failed_push_is_finished_before_the_next_change() {
    let g = geom();
    let ops = ops();
    for at in [10u64, 95, 402] {
        let link = super::fault::SlvErrAt {
            inner: RnicModel::new(g.clone(), HASH),
            at,
            count: 0,
        };
        let mut dpu = Dpu::new(link, g.clone(), HASH, CheckMode::StateMachine);
        let mut failed = 0;
        for op in &ops {
            if let Err(e) = dpu.apply(*op) {
                assert!(matches!(e, DpuError::Csr(CsrError::SlvErr { .. })), "{e:?}");
                failed += 1;
            }
        }
        assert_eq!(failed, 1);
        // The failed change was finished by the next one: nothing is left open.
        let begins = dpu
            .wal
            .records
            .iter()
            .filter(|r| matches!(r, WalRecord::Begin { .. }))
            .count();
        let commits = dpu
            .wal
            .records
            .iter()
            .filter(|r| matches!(r, WalRecord::Commit { .. }))
            .count();
        assert_eq!(begins, commits, "SLVERR at {at}: open transactions left");
        assert!(
            dpu.audit(&all_locs(&g)).unwrap().is_empty(),
            "SLVERR at {at}: tables differ"
        );
    }
}

#[test]
fn a_different_device_at_the_address_is_refused() {
    let g = geom();
    let mut dpu = Dpu::new(
        RnicModel::new(g.clone(), HASH ^ 1),
        g,
        HASH,
        CheckMode::StateMachine,
    );
    assert_eq!(
        dpu.apply(Op::Insert(1, value_for(1))),
        Err(DpuError::WrongDevice)
    );
}
