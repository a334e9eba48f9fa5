//! `prnic-sim` as a user runs it.

use std::process::Command;

#[test]
fn bench_json_reports_both_simulators_and_their_ratio() {
    let o = Command::new(env!("CARGO_BIN_EXE_prnic-sim"))
        .args(["bench", "--json", "--cycles", "5000", "--hdl-cycles", "500"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for k in [
        "verilator_cycles_per_s",
        "rust_hdl_cycles_per_s",
        "ratio",
        "verilator_raw_cycles_per_s",
    ] {
        assert!(
            v[k].as_f64().is_some_and(|x| x > 0.0),
            "{k} missing or not positive: {v}"
        );
    }
    assert_eq!(v["verilator_cycles"], 5000);
    assert_eq!(v["rust_hdl_cycles"], 500);
    assert_eq!(v["outputs_agree"], true);
}

#[test]
fn bad_arguments_exit_2() {
    let o = Command::new(env!("CARGO_BIN_EXE_prnic-sim"))
        .args(["bench", "--cycles", "5"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}
