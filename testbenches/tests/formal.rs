//! Formal checks with Yosys's SAT solver: the credit floor of `credit_tx`, and that the
//! flow table never finds a key in two places (further down; about 15 minutes, so it is
//! `#[ignore]`d in the default suite and run by `.ci/run`).
//!
//! `credit_tx` writes a QP's word back through one update function (the reset sweep is
//! the only other writer, and writes credit 0). The check proves, for every input and
//! every register and RAM value, that the update maps a word with credit >= -batch to a
//! word with credit >= -batch (`floor_ok` in the RTL; batch in 1..2^31). By induction
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
    // state before the step is unconstrained: the proof covers every reachable and
    // unreachable state, not just the reset state.
    let script = format!(
        "read_verilog {}; hierarchy -top credit_tx; proc; flatten; delete t:$mem*; \
         setattr -unset init; tee -o {} sat -seq 1 -prove floor_ok 1",
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
// The invariant, over what a lookup can see (a way slot counts for the key it holds only
// if it is that key's own slot, the index its hash gives; the stash with the pending
// second half of an update applied):
// * unique: no two visible places hold the same valid key;
// * the pre-read is good: when `pre_valid`, each way's `aux_read_data` is the word now
//   at the pre-read key's own slot;
// * an update's second half is pending only when `pre_valid` is low;
// * the lookup in stage 1 sees at most one place holding its key (RAM read data and
//   stash), stage 2 has at most one hit bit, and the multi-hit check never fires.

const FT_DEPTH: usize = 2;
const FT_STASH: usize = 2;
const FT_SEEDS: [u64; 4] = [11, 22, 33, 44];

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
        p(format!("wire [168:0] rd{w}, aux{w}; wire hit{w};"));
        ports.push(format!(".\\way${w}$read_data (rd{w})"));
        ports.push(format!(".\\way${w}$aux_read_data (aux{w})"));
        ports.push(format!(".\\s2_way_hit${w}$q (hit{w})"));
    }
    for j in 0..FT_STASH {
        p(format!("wire sv{j}, shit{j}; wire [55:0] sk{j};"));
        ports.push(format!(".\\stash_valid${j}$q (sv{j})"));
        ports.push(format!(".\\stash_key${j}$q (sk{j})"));
        ports.push(format!(".\\s2_stash_hit${j}$q (shit{j})"));
    }
    p("wire u2s, u2w, u2p, prev, several; wire [15:0] u2i; wire [55:0] u2k, prek, s1k;".into());
    for (port, wire) in [
        ("u2_is_stash$q", "u2s"),
        ("u2_is_write$q", "u2w"),
        ("u2_purge$q", "u2p"),
        ("u2_index$q", "u2i"),
        ("u2_key$q", "u2k"),
        ("pre_valid$q", "prev"),
        ("pre_key$q", "prek"),
        ("s1_key$q", "s1k"),
        ("chk_several$q", "several"),
    ] {
        ports.push(format!(".\\{port} ({wire})"));
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
                "wire pv{w}_{i} = m{w}_{i}[168] & ({} == {ib}'d{i});",
                home(w, &format!("m{w}_{i}"), 112)
            ));
            places.push((format!("pv{w}_{i}"), format!("m{w}_{i}[167:112]")));
        }
    }
    for j in 0..FT_STASH {
        p(format!("wire tg{j} = u2s & (u2i == 16'd{j});"));
        p(format!(
            "wire ps{j} = tg{j} ? u2w : (sv{j} & ~(u2p & (sk{j} == u2k)));"
        ));
        p(format!("wire [55:0] pks{j} = tg{j} ? u2k : sk{j};"));
        places.push((format!("ps{j}"), format!("pks{j}")));
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
    // The pre-read.
    let mut aux = vec!["1'b1".to_string()];
    for w in 0..4 {
        let slot = home(w, "prek", 0);
        let mut word = format!("m{w}_0");
        for i in 1..FT_DEPTH {
            word = format!("(({slot} == {ib}'d{i}) ? m{w}_{i} : {word})");
        }
        aux.push(format!("(aux{w} == {word})"));
    }
    p(format!("wire pre_ok = ~prev | ({});", aux.join(" & ")));
    p("wire u2_ok = ~((u2s | u2p) & prev);".into());
    // The lookup in flight.
    let mut s1 = vec![];
    for w in 0..4 {
        s1.push(format!("(rd{w}[168] & (rd{w}[167:112] == s1k))"));
    }
    for j in 0..FT_STASH {
        s1.push(format!("(sv{j} & (sk{j} == s1k))"));
    }
    p(format!("wire s1_ok = {};", at_most_one(&s1)));
    let mut s2: Vec<String> = (0..4).map(|w| format!("hit{w}")).collect();
    s2.extend((0..FT_STASH).map(|j| format!("shit{j}")));
    p(format!("wire s2_ok = {};", at_most_one(&s2)));
    p("assign ok = unique & pre_ok & u2_ok & s1_ok & s2_ok & ~several;".into());
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
            "w:way${w}$read_data w:way${w}$aux_read_data w:s2_way_hit${w}$q"
        ));
    }
    for j in 0..FT_STASH {
        exposed.push(format!(
            "w:stash_valid${j}$q w:stash_key${j}$q w:s2_stash_hit${j}$q"
        ));
    }
    exposed.push(
        "w:u2_is_stash$q w:u2_is_write$q w:u2_purge$q w:u2_index$q w:u2_key$q \
         w:pre_valid$q w:pre_key$q w:s1_key$q w:chk_several$q"
            .into(),
    );
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
    // The mutant does not invalidate the key's slot in way 1 when the key is written
    // elsewhere: writing a key to way 1 and then to way 0 leaves it in both.
    let v = small_flow_table();
    let needle = "way$1$write_enable = upd_present$1;";
    assert_eq!(v.matches(needle).count(), 1, "mutation point moved");
    let log = prove_flow_table(&v.replace(needle, "way$1$write_enable = 1'b0;"), "mutant");
    // A reachable counterexample: from the empty table, not just an unreachable state.
    assert!(
        log.contains("model found for base case: FAIL"),
        "the mutant passed: {log}"
    );
}
