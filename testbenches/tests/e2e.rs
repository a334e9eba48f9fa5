//! Two RNICs end to end (`prnic_top` twice, programmed through CSR by the DPU model)
//! through a sprayed fabric with jitter, loss and duplication: every payload byte placed
//! at its address exactly once, every CQE exactly once and in order, and the RX counters
//! read over CSR agree. The golden-model backend runs the same scenario.

use prnic_testbenches::e2e::{run, Backend, Scenario};
use std::path::PathBuf;

fn scenarios() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios")
}

fn load(name: &str) -> Scenario {
    let text = std::fs::read_to_string(scenarios().join(name)).unwrap();
    Scenario::parse(&text).unwrap()
}

#[test]
fn two_verilated_rnics_deliver_every_byte_and_cqe_once_in_order() {
    let mut s = load("two_rnics.toml");
    s.messages = 150;
    let r = run(&s, |_, _| {});
    println!("{}", serde_json::to_string_pretty(&r).unwrap());
    assert!(r.clean(), "{r:?}");
    // The scenario exercised what it claims to.
    assert!(
        r.fabric_lost > 0 && r.fabric_duplicated > 0,
        "no loss or duplication: {r:?}"
    );
    assert!(r.retransmitted_packets > 0 && r.cqes > 0 && r.peak_ooo_packets > 0);
    // RNIC B's own counters, read over CSR, agree with the checker.
    let c = &r.rx_counters;
    assert_eq!(c["cnt_rx_placed"], r.packets);
    assert_eq!(c["cnt_rx_cqes"], r.cqes);
    assert_eq!(
        c["cnt_rx_frames"],
        c["cnt_rx_placed"] + c["cnt_rx_drop_refused"],
        "every frame is placed or refused (none malformed here): {c:?}"
    );
    assert!(c["cnt_rx_reorder_duplicate"] > 0, "{c:?}");
}

/// The host side stalls half the cycles: placements back up, CQEs wait behind their data
/// and rx_reorder is held, and still nothing is lost, duplicated or reordered.
#[test]
fn host_backpressure_delays_but_never_reorders_or_loses() {
    let mut s = load("two_rnics.toml");
    s.messages = 60;
    s.host_backpressure = 0.5;
    let r = run(&s, |_, _| {});
    assert!(r.clean(), "{r:?}");
    assert_eq!(r.rx_counters["cnt_rx_placed"], r.packets);
}

#[test]
fn the_golden_model_backend_runs_the_same_scenario() {
    let mut s = load("two_rnics.toml");
    s.backend = Backend::Model;
    let r = run(&s, |_, _| {});
    assert!(r.clean(), "{r:?}");
    assert_eq!(r.messages_completed, s.messages);
}

#[test]
fn every_shipped_scenario_parses_and_runs_on_the_models() {
    let mut n = 0;
    for e in std::fs::read_dir(scenarios()).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            let text = std::fs::read_to_string(&p).unwrap();
            let mut s = Scenario::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            s.backend = Backend::Model;
            s.messages = s.messages.min(200);
            let r = run(&s, |_, _| {});
            assert!(r.clean(), "{}: {r:?}", p.display());
            n += 1;
        }
    }
    assert!(n >= 3, "only {n} scenario files");
}

#[test]
fn scenario_errors_name_the_field() {
    let good = std::fs::read_to_string(scenarios().join("two_rnics.toml")).unwrap();
    for (from, to, field) in [
        ("packet_bytes = 1024", "packet_bytes = 0", "packet_bytes"),
        ("window = 256", "window = 300", "window"),
        ("ooo_threshold = 32", "ooo_threshold = 256", "ooo_threshold"),
        ("tenants = 4", "tenants = 9", "tenants"),
        ("loss = 0.004", "loss = 0.7", "paths[0].loss"),
        ("backend = \"rtl\"", "backend = \"fpga\"", "backend"),
        ("seed = 1", "seed = 1\nspeed = 3", "speed"),
    ] {
        assert!(good.contains(from), "{from}");
        let e = Scenario::parse(&good.replacen(from, to, 1)).unwrap_err();
        assert!(e.contains(field) && !e.contains('\n'), "{to}: {e}");
    }
}
