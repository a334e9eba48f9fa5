//! The DPU control plane against the Verilator model of `prnic_top`: every table change
//! goes through CSR, is read back through CSR, and is seen by the data path; the log
//! recovers a DPU crash at any access; the state machine follows an RNIC restart.

use prnic_gen::PrnicConfig;
use prnic_testbenches::dpu_link::VerilatorRnic;
use prnic_testbenches::tx_encap::{probe, Seen};
use prnic_verif::csr::CsrError;
use prnic_verif::dpu::fault::{CrashAfter, RestartAt};
use prnic_verif::dpu::{touched, CheckMode, Dpu, DpuError, Op, RnicState};
use prnic_verif::flow_table::{key, value_for, Geometry, Value};
use prnic_verif::rng::rng;

fn geometry() -> Geometry {
    prnic_testbenches::flow_table::geometry(PrnicConfig::builtin())
}

fn hash() -> u64 {
    u64::from_str_radix(&PrnicConfig::builtin().hash_hex(), 16).unwrap()
}

/// Inserts and deletes over a few VNIs; all succeed.
fn ops(n: usize, seed: u64) -> Vec<Op> {
    let mut next = rng(seed);
    let mut keys: Vec<u64> = vec![];
    let mut ops = vec![];
    while ops.len() < n {
        let r = next();
        if r.is_multiple_of(4) && !keys.is_empty() {
            ops.push(Op::Delete(keys.swap_remove(r as usize % keys.len())));
        } else {
            let k = key((r % 3) as u32 + 100, (r >> 32) as u32);
            if !keys.contains(&k) {
                keys.push(k);
                ops.push(Op::Insert(k, value_for(r)));
            }
        }
    }
    ops
}

/// The data path's view of `key`: a frame sent through the TX path, its outer header
/// read back (`None`: dropped as a miss).
fn lookup(d: &mut prnic_testbenches::bridge::PrnicTop, key: u64) -> Option<Seen> {
    probe(d, key)
}

#[test]
fn programmed_through_csr_read_back_and_seen_by_the_data_path() {
    let g = geometry();
    let mut dpu = Dpu::new(
        VerilatorRnic::new(),
        g.clone(),
        hash(),
        CheckMode::StateMachine,
    );
    let ops = ops(200, 1);
    for op in &ops {
        dpu.apply(*op).unwrap();
    }
    let locs = touched(&dpu.wal, &g);
    assert!(
        dpu.audit(&locs).unwrap().is_empty(),
        "RNIC table differs from the DPU's"
    );
    let present: Vec<(u64, Value)> = dpu
        .table()
        .keys()
        .map(|k| (*k, dpu.table().lookup(*k).unwrap()))
        .collect();
    assert!(present.len() > 50);
    for (k, v) in present {
        assert_eq!(lookup(&mut dpu.link.dut, k), Some(Seen::of(&v)));
    }
    for op in &ops {
        if let Op::Delete(k) = op {
            if dpu.table().lookup(*k).is_none() {
                assert_eq!(
                    lookup(&mut dpu.link.dut, *k),
                    None,
                    "deleted key still hits"
                );
            }
        }
    }
}

#[test]
fn a_dpu_crash_at_every_access_is_recovered_from_the_log() {
    let g = geometry();
    let ops = ops(12, 2);
    // Crash-free run for the access count.
    let mut dpu = Dpu::new(
        VerilatorRnic::new(),
        g.clone(),
        hash(),
        CheckMode::StateMachine,
    );
    for op in &ops {
        dpu.apply(*op).unwrap();
    }
    let total = dpu.link.accesses;
    let locs = touched(&dpu.wal, &g);
    assert!(total > 80, "{total} accesses");
    println!("{} ops, cut at each of {total} CSR accesses", ops.len());
    for cut in 0..total {
        let mut d = Dpu::new(
            CrashAfter {
                inner: VerilatorRnic::new(),
                left: cut,
            },
            g.clone(),
            hash(),
            CheckMode::StateMachine,
        );
        for op in &ops {
            match d.apply(*op) {
                Ok(()) => {}
                Err(DpuError::Csr(CsrError::Crashed)) => break,
                Err(e) => panic!("cut {cut}: {e:?}"),
            }
        }
        let wal = d.wal.clone();
        let mut d2 = Dpu::recover(
            d.link.inner,
            g.clone(),
            hash(),
            CheckMode::StateMachine,
            wal,
        )
        .unwrap();
        assert!(
            d2.audit(&locs).unwrap().is_empty(),
            "cut at access {cut}: tables differ after recovery"
        );
    }
}

#[test]
fn an_rnic_restart_in_the_middle_of_an_update_is_followed() {
    let g = geometry();
    let ops = ops(20, 3);
    for at in [5u64, 37, 101] {
        let mut dpu = Dpu::new(
            RestartAt::new(VerilatorRnic::new(), at),
            g.clone(),
            hash(),
            CheckMode::StateMachine,
        );
        for op in &ops {
            dpu.apply(*op).unwrap();
        }
        assert_eq!(dpu.state, RnicState::ChannelEstablished);
        assert_eq!(dpu.restarts_seen, 1);
        let locs = touched(&dpu.wal, &g);
        assert!(
            dpu.audit(&locs).unwrap().is_empty(),
            "restart at {at}: tables differ"
        );
    }
}
