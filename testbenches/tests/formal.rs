//! Formal checks with Yosys's SAT solver: the credit floor of `credit_tx`, and that the
//! flow table never finds a key in two places (further down; about 15 minutes, so it is
//! `#[ignore]`d in the default suite and run by `.ci/run`).
//!
//! `credit_tx` writes a QP's word back through one update function (the reset sweep is
//! the only other writer, and writes credit 0). The check proves, for every input and
//! every register and RAM value three cycles before, that the update (stages S3a, S3b
//! and S3c) maps a word with credit >= -batch to a word with credit >= -batch
//! (`floor_ok` in the RTL; batch in 1..2^31). By induction
//! over the writes, no QP's credit ever falls below -batch. A mutant whose Eq.2 branch
//! ignores the sign of the credit must fail the same check.

use prnic_gen::PrnicConfig;
use std::process::Command;

/// Run a Yosys script whose proof output is teed to `log`; returns the log and removes
/// the scratch folder.
fn yosys(script: &str, log: &std::path::Path, dir: &std::path::Path) -> String {
    let out = Command::new("yosys")
        .args(["-q", "-p", script])
        .output()
        .expect("yosys (scripts/setup.sh)");
    assert!(
        out.status.success(),
        "yosys: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = std::fs::read_to_string(log).unwrap();
    std::fs::remove_dir_all(dir).ok();
    s
}

fn prove(verilog: &str, tag: &str) -> String {
    let dir = std::env::temp_dir().join(format!("prnic-formal-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let v = dir.join("credit_tx.v");
    std::fs::write(&v, verilog).unwrap();
    let log = dir.join("sat.log");
    // The RAM's cells are removed and every flip-flop's initial value dropped, so the
    // state is unconstrained: the proof covers every reachable and unreachable state,
    // not just the reset state. The update spans three stages (S3a..S3c), so the
    // property is proved on the third step from any state: what S3c sees is then what
    // S3a and S3b computed from an arbitrary word, inputs changing at every step.
    let script = format!(
        "read_verilog {}; hierarchy -top credit_tx; proc; flatten; delete t:$mem*; \
         setattr -unset init; tee -o {} sat -seq 3 -prove-skip 2 -prove floor_ok 1",
        v.display(),
        log.display()
    );
    yosys(&script, &log, &dir)
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

// ---- The flow table never reports two hits -------------------------------------------
//
// Checked on a small instance of the same RTL (2 slots per way, 2 stash entries): the
// logic per way, slot and stash entry is the same at every size; only the counts grow.
// Yosys flattens it, maps its RAMs to flip-flops and exposes the state the invariant
// talks about as ports; a harness written here computes the invariant from those ports
// and `sat -tempinduct` proves it in every state reachable from power-up (all
// flip-flops and RAM words zero, i.e. an empty table), for any inputs on every port,
// resets included.
//
// The invariant, over what a lookup can see:
// * unique: no two visible places hold the same valid key. A way slot is visible if it
//   is valid, it is its key's own slot (the index its hash gives), and it is not a copy
//   awaiting its purge (`pend_*`, or found this cycle by the write just executed:
//   `present`); a stash entry is visible if valid.
// * the lookup about to be answered has at most one hit (the four ways and the stash
//   groups), and the multi-hit check never fires.
// * ranges: the slot registers of pending purges and of the write in flight hold slots
//   of the table;
// * copies: each way's copy of the register that says a write has a fresh pre-read
//   (`k_fresh`) equals the master copy (`c_fresh`). Each copy is computed from itself, so
//   copies that differed would go on differing as long as writes keep coming.
// The pre-read, the command stage and the lookup pipeline between the RAM read and the
// hit registers are one-cycle relations that the induction (up to 6 steps) unrolls.

const FT_DEPTH: usize = 2;
const FT_STASH: usize = 2;
const FT_SEEDS: [u64; 4] = [11, 22, 33, 44];
/// Stash hit groups of three entries (the RTL pads the last one).
const FT_GROUPS: usize = FT_STASH.div_ceil(3);

/// The parity expressions of the low `log2(FT_DEPTH)` bits of way `w`'s hash of the
/// 56-bit key `key[off + 55 : off]`, from the reference H3 model (not the RTL's).
fn home_bits(w: usize, key: &str, off: usize) -> Vec<String> {
    let h = prnic_verif::hash::H3::new(FT_SEEDS[w], 56, 16);
    (0..FT_DEPTH.trailing_zeros() as usize)
        .map(|b| {
            let terms: Vec<String> = (0..56)
                .filter(|&t| (h.hash(1u64 << t) >> b) & 1 == 1)
                .map(|t| format!("{key}[{}]", off + t))
                .collect();
            format!("(^{{1'b0, {}}})", terms.join(", "))
        })
        .collect()
}

/// `key[off + 55 : off]`'s own slot index in way `w`, as a Verilog expression.
fn home(w: usize, key: &str, off: usize) -> String {
    let mut b = home_bits(w, key, off);
    b.reverse();
    format!("{{{}}}", b.join(", "))
}

/// At most one of `terms` is true.
fn at_most_one(terms: &[String]) -> String {
    let mut pairs = vec!["1'b1".to_string()];
    for a in 0..terms.len() {
        for b in a + 1..terms.len() {
            pairs.push(format!("~({} & {})", terms[a], terms[b]));
        }
    }
    pairs.join(" & ")
}

fn flow_table_harness() -> String {
    let ib = FT_DEPTH.trailing_zeros();
    let mut v = String::new();
    let mut p = |s: String| {
        v.push_str(&s);
        v.push('\n');
    };
    p(
        "module harness(input clk, input rst, input s_lookup_valid, input [55:0] s_lookup_key, \
       input [15:0] s_lookup_tag, input s_update_valid, input [1:0] s_update_op, \
       input [1:0] s_update_way, input [15:0] s_update_index, input [55:0] s_update_key, \
       input [111:0] s_update_value, input cfg_clear_errors, input s_read_valid, \
       input s_read_stash, input [1:0] s_read_way, input [15:0] s_read_index, output ok);"
            .into(),
    );
    let mut ports = vec![];
    for w in 0..4 {
        for i in 0..FT_DEPTH {
            p(format!("wire [168:0] m{w}_{i};"));
            ports.push(format!(".\\way${w}.mem[{i}] (m{w}_{i})"));
        }
        p(format!(
            "wire pend{w}, pres{w}, hit{w}; wire [15:0] pslot{w}, islot{w};"
        ));
        for (port, wire) in [
            (format!("pend_valid${w}$q"), format!("pend{w}")),
            (format!("pend_slot${w}$q"), format!("pslot{w}")),
            (format!("infl_slot${w}$q"), format!("islot{w}")),
            (format!("present${w}"), format!("pres{w}")),
            (format!("whit${w}$q"), format!("hit{w}")),
        ] {
            ports.push(format!(".\\{port} ({wire})"));
        }
    }
    for j in 0..FT_STASH {
        p(format!("wire sv{j}; wire [55:0] sk{j};"));
        ports.push(format!(".\\stash_valid${j}$q (sv{j})"));
        ports.push(format!(".\\stash_key${j}$q (sk{j})"));
    }
    for g in 0..FT_GROUPS {
        p(format!("wire gany{g}, gtwo{g};"));
        ports.push(format!(".\\g_any${g}$q (gany{g})"));
        ports.push(format!(".\\g_two${g}$q (gtwo{g})"));
    }
    p("wire several, cfr;".into());
    ports.push(".\\chk_several$q (several)".into());
    ports.push(".\\c_fresh$q (cfr)".into());
    for w in 0..4 {
        p(format!("wire kfr{w};"));
        ports.push(format!(".\\k_fresh${w}$q (kfr{w})"));
    }
    let inputs = [
        "clk",
        "rst",
        "s_lookup_valid",
        "s_lookup_key",
        "s_lookup_tag",
        "s_update_valid",
        "s_update_op",
        "s_update_way",
        "s_update_index",
        "s_update_key",
        "s_update_value",
        "cfg_clear_errors",
        "s_read_valid",
        "s_read_stash",
        "s_read_way",
        "s_read_index",
    ];
    let mut conns: Vec<String> = inputs.iter().map(|i| format!(".{i}({i})")).collect();
    conns.extend(ports);
    p(format!("ft_dut dut({});", conns.join(", ")));

    // Visible places: (valid, key).
    let mut places = vec![];
    for w in 0..4 {
        for i in 0..FT_DEPTH {
            p(format!(
                "wire pv{w}_{i} = m{w}_{i}[168] & ({} == {ib}'d{i}) \
                 & ~(pend{w} & (pslot{w} == 16'd{i})) & ~(pres{w} & (islot{w} == 16'd{i}));",
                home(w, &format!("m{w}_{i}"), 112)
            ));
            places.push((format!("pv{w}_{i}"), format!("m{w}_{i}[167:112]")));
        }
    }
    for j in 0..FT_STASH {
        places.push((format!("sv{j}"), format!("sk{j}")));
    }
    let mut dup = vec![];
    for a in 0..places.len() {
        for b in a + 1..places.len() {
            dup.push(format!(
                "({} & {} & ({} == {}))",
                places[a].0, places[b].0, places[a].1, places[b].1
            ));
        }
    }
    p(format!("wire unique = ~({});", dup.join(" | ")));
    // The lookup about to be answered: way hits and stash groups.
    let mut hits: Vec<String> = (0..4).map(|w| format!("hit{w}")).collect();
    hits.extend((0..FT_GROUPS).map(|g| format!("gany{g}")));
    let mut one = vec![at_most_one(&hits)];
    one.extend((0..FT_GROUPS).map(|g| format!("~gtwo{g}")));
    p(format!("wire hit_ok = {};", one.join(" & ")));
    // Slot registers hold slots of the table: the RAM ignores the high index bits that
    // the pending-purge compares see.
    let mut ranges = vec![];
    for w in 0..4 {
        ranges.push(format!(
            "(pslot{w} < 16'd{FT_DEPTH}) & (islot{w} < 16'd{FT_DEPTH})"
        ));
    }
    p(format!("wire ranges = {};", ranges.join(" & ")));
    // Each way's copy of the write-freshness register equals the master copy: the copies
    // feed themselves back (through `take`), so an induction cannot infer it.
    let copies: Vec<String> = (0..4).map(|w| format!("(kfr{w} == cfr)")).collect();
    p(format!("wire copies = {};", copies.join(" & ")));
    p("assign ok = unique & hit_ok & ~several & ranges & copies;".into());
    p("endmodule".into());
    v
}

/// Prove `ok` of the flow-table harness by temporal induction; returns Yosys's log.
fn prove_flow_table(verilog: &str, tag: &str) -> String {
    let dir = std::env::temp_dir().join(format!("prnic-formal-ft-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (v, h, log) = (dir.join("ft.v"), dir.join("harness.v"), dir.join("sat.log"));
    std::fs::write(&v, verilog).unwrap();
    std::fs::write(&h, flow_table_harness()).unwrap();
    let mut exposed = vec!["w:way$*.mem[*]".to_string()];
    for w in 0..4 {
        exposed.push(format!(
            "w:pend_valid${w}$q w:pend_slot${w}$q w:infl_slot${w}$q w:present${w} w:whit${w}$q"
        ));
    }
    for j in 0..FT_STASH {
        exposed.push(format!("w:stash_valid${j}$q w:stash_key${j}$q"));
    }
    for g in 0..FT_GROUPS {
        exposed.push(format!("w:g_any${g}$q w:g_two${g}$q"));
    }
    exposed.push("w:chk_several$q w:c_fresh$q w:k_fresh$*$q".into());
    let script = format!(
        "read_verilog {v}; hierarchy -top top; proc; flatten; memory -nomap; memory_map; \
         opt_clean; rename top ft_dut; expose {exp}; read_verilog {h}; hierarchy -top harness; \
         proc; flatten; opt_clean; tee -o {log} sat -tempinduct -prove ok 1 -set-init-zero \
         -maxsteps 6",
        v = v.display(),
        h = h.display(),
        log = log.display(),
        exp = exposed.join(" ")
    );
    yosys(&script, &log, &dir)
}

fn small_flow_table() -> String {
    use rust_hdl::prelude::*;
    let mut u = prnic_rtl::flow_table::FlowTable::new(FT_DEPTH, FT_STASH, FT_SEEDS);
    u.connect_all();
    generate_verilog(&u)
}

#[test]
#[ignore = "about 15 min; run by .ci/run: cargo test -p prnic-testbenches --test formal -- --ignored"]
fn the_flow_table_never_finds_a_key_in_two_places() {
    let log = prove_flow_table(&small_flow_table(), "rtl");
    // The induction lengths tried (shown with --nocapture).
    for l in log
        .lines()
        .filter(|l| l.contains("proven") || l.contains("failed"))
    {
        eprintln!("{l}");
    }
    assert!(log.contains("Induction step proven: SUCCESS"), "{log}");
}

#[test]
#[ignore = "about 2 min; run by .ci/run with the proof it checks"]
fn the_flow_table_check_fails_when_a_write_leaves_a_copy_behind() {
    // The mutant never finds the written key's copy in way 1: writing a key to way 1 and
    // then to way 0 leaves it in both, and a lookup finds both.
    let v = small_flow_table();
    let needle = "present$1 = (";
    assert_eq!(v.matches(needle).count(), 1, "mutation point moved");
    let log = prove_flow_table(&v.replace(needle, "present$1 = 1'b0 & ("), "mutant");
    // A reachable counterexample: from the empty table, not just an unreachable state.
    assert!(
        log.contains("model found for base case: FAIL"),
        "the mutant passed: {log}"
    );
}
