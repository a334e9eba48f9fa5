//! The timing and CDC gates: the level count and the crossing check proven on designs
//! whose answer is known, then held on the generated modules.

use super::*;

/// The level count on designs whose depth is known by construction: a 32-bit adder
/// between registers is 1 LUT + 4 carry levels (as Vivado counts CARRY8 cells), a
/// 16-input AND is 2 LUT levels, and a register fed through a 9-level chain is over the
/// 5-level budget at 322 MHz. A gate that cannot fail is no gate.
#[test]
fn timing_counts_known_depths() {
    let dir = workdir("timing");
    let v = dir.join("probe.v");
    std::fs::write(
        &v,
        "module probe(input clk, input [31:0] a, input [31:0] b, input [15:0] w,
                      input [63:0] c, output reg [31:0] sum, output reg all, output reg deep);
           reg [31:0] ra, rb; reg [15:0] rw; reg [63:0] rc;
           // A population count as a chain of 64 additions: far deeper than 5 levels.
           reg [6:0] cnt; integer i;
           always @(*) begin
             cnt = 7'd0;
             for (i = 0; i < 64; i = i + 1) cnt = cnt + {6'd0, rc[i]};
           end
           always @(posedge clk) begin
             ra <= a; rb <= b; rw <= w; rc <= c;
             sum <= ra + rb;
             all <= &rw;
             deep <= (cnt == 7'd37);
           end
         endmodule\n",
    )
    .unwrap();
    let json = dir.join("probe.json");
    prnic_gen::timing::map_with_yosys(&v, "probe", &json, &[]).unwrap();
    let text = std::fs::read_to_string(&json).unwrap();
    let m = prnic_gen::timing::DelayModel::ULTRASCALE_PLUS_2;
    let r = prnic_gen::timing::analyse(&text, "probe", 3.103, &m).unwrap();
    let to = |end: &str| {
        r.reg_paths
            .iter()
            .filter(|p| p.end.name.starts_with(end))
            .map(|p| p.levels)
            .fold(0.0f64, f64::max)
    };
    assert_eq!(to("sum"), 5.0, "32-bit add: {:#?}", r.reg_paths);
    // Two LUT6 levels at best; ABC's area-oriented mapping sometimes spends a third.
    assert!(
        (2.0..=3.0).contains(&to("all")),
        "16-input AND: {}",
        to("all")
    );
    assert!(to("deep") > 5.0, "the deep chain: {}", to("deep"));
    assert!(r.violations().any(|p| p.end.name.starts_with("deep")));
    assert!(r.violations().all(|p| p.end.name.starts_with("deep")));
    assert_eq!(m.budget_levels(3.103, m.ff_clk_to_q, m.ff_setup), 5.0);
    assert_eq!(m.budget_levels(3.103, m.bram_clk_to_out, m.ff_setup), 3.0);
}

/// The CDC check on a design whose crossings are known by construction: a proper
/// two-flip-flop synchronizer, a LUTRAM written on one clock and read on the other, a
/// register of one clock sampled by an unmarked flip-flop of the other, and a crossing
/// through logic into a marked flip-flop. The last two must be reported, the first two
/// accepted. A gate that cannot fail is no gate.
#[test]
fn cdc_check_tells_synchronized_from_unsynchronized() {
    use prnic_gen::timing::{cdc_check, CrossingKind};
    let dir = workdir("cdc");
    let v = dir.join("probe.v");
    std::fs::write(
        &v,
        "module probe(input clk_a, input clk_b, input [3:0] d, input [1:0] e, input [4:0] wa,
                      input [4:0] ra,
                      output [3:0] q_sync, output reg [3:0] q_mem, output reg q_bad,
                      output [1:0] q_logic);
           reg [3:0] a_reg; reg a_x, a_y;
           always @(posedge clk_a) begin a_reg <= d; a_x <= e[0]; a_y <= e[1]; end
           (* ASYNC_REG = \"TRUE\" *) reg [3:0] s1; (* ASYNC_REG = \"TRUE\" *) reg [3:0] s2;
           always @(posedge clk_b) begin s1 <= a_reg; s2 <= s1; end
           assign q_sync = s2;
           reg [3:0] mem [0:31];
           always @(posedge clk_a) mem[wa] <= d;
           always @(posedge clk_b) q_mem <= mem[ra];
           always @(posedge clk_b) q_bad <= a_x;
           (* ASYNC_REG = \"TRUE\" *) reg l1; (* ASYNC_REG = \"TRUE\" *) reg l2;
           always @(posedge clk_b) begin l1 <= a_x ^ a_y; l2 <= l1; end
           assign q_logic = {l2, l1};
         endmodule\n",
    )
    .unwrap();
    let json = dir.join("probe.json");
    prnic_gen::timing::map_with_yosys(&v, "probe", &json, &[]).unwrap();
    let r = cdc_check(&std::fs::read_to_string(&json).unwrap(), "probe").unwrap();
    assert_eq!(r.clocks, ["clk_a", "clk_b"]);
    assert!(r.unclocked.is_empty(), "{:?}", r.unclocked);
    let to = |kind: CrossingKind, to: &str| {
        r.crossings
            .iter()
            .filter(|c| c.kind == kind && c.to.starts_with(to))
            .count()
    };
    let want = [
        (CrossingKind::Synchronizer, "s1", 4),
        (CrossingKind::FifoMemory, "q_mem", 4),
        (CrossingKind::Unsynchronized, "q_bad", 1),
        (CrossingKind::Unsynchronized, "l1", 2),
    ];
    for (kind, reg, n) in want {
        assert_eq!(to(kind, reg), n, "{kind:?} into {reg}: {:#?}", r.crossings);
    }
    assert_eq!(
        r.count(CrossingKind::Unsynchronized),
        3,
        "{:#?}",
        r.crossings
    );
    assert!(!r.clean());
}

/// The CDC gate: in every generated module with more than one clock, every signal that
/// crosses between clocks goes through a synchronizer or an asynchronous FIFO's memory.
#[test]
fn cdc_gate_every_crossing_is_synchronized() {
    let mut checked = 0;
    let modules = prnic_gen::blocks::modules(PrnicConfig::builtin()).unwrap();
    let (_dir, files) = emitted("cdc-gate");
    for (name, file) in files {
        let m = modules.iter().find(|m| m.name == name).unwrap();
        if m.clock_ports().len() < 2 {
            continue;
        }
        let json = file.with_extension("json");
        prnic_gen::timing::map_with_yosys(&file, &name, &json, &[]).unwrap();
        let r =
            prnic_gen::timing::cdc_check(&std::fs::read_to_string(&json).unwrap(), &name).unwrap();
        assert!(
            r.clean(),
            "{name}: unsynchronized crossings {:#?}, cells on no clock port {:?}",
            r.crossings
                .iter()
                .filter(|c| c.kind == prnic_gen::timing::CrossingKind::Unsynchronized)
                .collect::<Vec<_>>(),
            r.unclocked
        );
        // The crossings there must be: both Gray pointers through synchronizers.
        assert!(
            r.count(prnic_gen::timing::CrossingKind::Synchronizer) > 0,
            "{name}: {:#?}",
            r.crossings
        );
        eprintln!(
            "{name}: clocks {:?}; {} register bits through synchronizers, {} out of FIFO memory, 0 unsynchronized",
            r.clocks,
            r.count(prnic_gen::timing::CrossingKind::Synchronizer),
            r.count(prnic_gen::timing::CrossingKind::FifoMemory)
        );
        checked += 1;
    }
    assert!(checked >= 1, "no module with two clocks was checked");
}

/// The timing gate (docs/timing.md): every register-to-register path of every module of
/// the default build within its budget. Yosys on every module takes about 15 minutes on
/// 2 cores, so CI runs it (`.ci/run`) rather than the default suite.
#[test]
#[ignore]
fn timing_gate_every_path_within_budget() {
    let t = std::time::Instant::now();
    let rows = prnic_gen::synth::synth(PrnicConfig::builtin(), &[]).unwrap();
    let mut over = vec![];
    for r in &rows {
        eprintln!("{}: mapped and walked in {:.0} s", r.module, r.seconds);
        for p in r.violations() {
            over.push(format!("{}: {}", r.module, prnic_gen::timing::path_line(p)));
        }
    }
    eprintln!(
        "{} modules on two workers in {:.0} s",
        rows.len(),
        t.elapsed().as_secs_f64()
    );
    assert!(
        over.is_empty(),
        "{} paths over budget:\n{}",
        over.len(),
        over.join("\n")
    );
}
