//! Formal check with Yosys's SAT solver: the credit floor of `credit_tx`.
//!
//! `credit_tx` writes a QP's word back through one update function (the reset sweep is
//! the only other writer, and writes credit 0). The check proves, for every input and
//! every register and RAM value, that the update maps a word with credit >= -batch to a
//! word with credit >= -batch (`floor_ok` in the RTL; batch in 1..2^31). By induction
//! over the writes, no QP's credit ever falls below -batch. A mutant whose Eq.2 branch
//! ignores the sign of the credit must fail the same check.

use prnic_gen::PrnicConfig;
use std::process::Command;

fn prove(verilog: &str, tag: &str) -> String {
    let dir = std::env::temp_dir().join(format!("prnic-formal-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let v = dir.join("credit_tx.v");
    std::fs::write(&v, verilog).unwrap();
    let log = dir.join("sat.log");
    // The RAM's cells are removed and every flip-flop's initial value dropped, so the
    // state before the step is unconstrained: the proof covers every reachable and
    // unreachable state, not just the reset state.
    let script = format!(
        "read_verilog {}; hierarchy -top credit_tx; proc; flatten; delete t:$mem*; \
         setattr -unset init; tee -o {} sat -seq 1 -prove floor_ok 1",
        v.display(),
        log.display()
    );
    let out = Command::new("yosys")
        .args(["-q", "-p", &script])
        .output()
        .expect("yosys (scripts/setup.sh)");
    assert!(
        out.status.success(),
        "yosys: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = std::fs::read_to_string(&log).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    s
}

#[test]
fn credit_never_falls_below_minus_one_batch() {
    let m = prnic_gen::blocks::modules(PrnicConfig::builtin())
        .unwrap()
        .into_iter()
        .find(|m| m.name == "credit_tx")
        .unwrap();
    let log = prove(&m.verilog, "rtl");
    assert!(log.contains("no model found: SUCCESS"), "{log}");

    // The check can fail: let Eq.2 send whatever the sign of the credit.
    let needle = "if (credit_nonneg) begin";
    assert_eq!(m.verilog.matches(needle).count(), 1, "mutation point moved");
    let mutant = m.verilog.replace(needle, "if (1'b1) begin");
    let log = prove(&mutant, "mutant");
    assert!(
        log.contains("model found: FAIL"),
        "the mutant passed: {log}"
    );
}
