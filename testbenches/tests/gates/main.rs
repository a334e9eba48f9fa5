//! Lint and synthesis gates on every module `prnic generate` emits (default config):
//! * `verilator --lint-only -Wall` with only the committed rust-hdl waivers;
//! * `iverilog -g2005` parses and elaborates;
//! * `yosys synth_xilinx` completes, infers no latch and finds no combinational loop;
//! * `prnic_top` has no combinational path from an input port to an output port, and
//!   neither has `prnic_2clk` (composed from its blocks' own paths and its netlist).

use std::path::PathBuf;
use std::process::Command;

use prnic_gen::PrnicConfig;

/// A scratch folder, removed when the test passes and kept for a look when it fails.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn workdir(tag: &str) -> Scratch {
    let d = std::env::temp_dir().join(format!("prnic-gates-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    Scratch(d)
}

fn waivers() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/lint/rust-hdl.vlt")
}

fn run(cmd: &mut Command) -> (bool, String) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}; run scripts/setup.sh"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// Each module's Verilog written to its own file, as `prnic generate` names them, in a
/// scratch folder that lasts as long as the first value.
fn emitted(tag: &str) -> (Scratch, Vec<(String, PathBuf)>) {
    let dir = workdir(tag);
    let modules = prnic_gen::blocks::modules(PrnicConfig::builtin()).unwrap();
    assert!(!modules.is_empty());
    let files = modules
        .into_iter()
        .map(|m| {
            let p = dir.join(format!("{}.v", m.name));
            std::fs::write(&p, &m.verilog).unwrap();
            (m.name.to_string(), p)
        })
        .collect();
    (dir, files)
}

#[test]
fn verilator_lint_wall_passes_with_only_the_waivers() {
    let (_dir, files) = emitted("lint");
    for (name, file) in files {
        let (ok, text) = run(Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", &name])
            .arg(waivers())
            .arg(&file));
        assert!(
            ok && !text.contains("%Warning"),
            "verilator -Wall on {name}:\n{text}"
        );
    }
}

#[test]
fn iverilog_2005_parses() {
    let (_dir, files) = emitted("iverilog");
    for (name, file) in files {
        let (ok, text) = run(Command::new("iverilog")
            .args(["-g2005", "-o", "/dev/null", "-s", &name])
            .arg(&file));
        assert!(ok && text.trim().is_empty(), "iverilog on {name}:\n{text}");
    }
}

/// `prnic_top`'s instances of blocks that are also emitted (and gated) on their own.
const TOP_BLOCKS: [&str; 9] = [
    "csr", "flow", "tx", "ctx", "crx", "rxd", "rxr", "mac0", "mac1",
];

/// The top's copies of the synchronized reset: one per block it resets (the two
/// credit-port slices share one) and one for its own registers.
const RESET_COPIES: usize = 13;

/// The flip-flop and memory cells a combinational cone stops at.
const STATE_CELLS: &str = "$dff,$dffe,$adff,$adffe,$sdff,$sdffe,$sdffce,$dffsr,$aldff,$mem_v2,$mem";

/// `rx_reorder`'s serial-number compare leaf (`psn.rs`), as emitted, run in Icarus
/// against the plain subtraction: 16 compares on each of 3,000 vectors, edge cases at
/// every group boundary and at the half-range, then random ones.
#[test]
fn psn_compare_leaf_agrees_with_the_subtraction_in_icarus() {
    let dir = workdir("psn");
    let modules = prnic_gen::blocks::modules(PrnicConfig::builtin()).unwrap();
    let rxr = modules.iter().find(|m| m.name == "rx_reorder").unwrap();
    let start = rxr
        .verilog
        .find("module rx_reorder$la_ge(")
        .expect("leaf emitted");
    let end = start + rxr.verilog[start..].find("endmodule").unwrap() + "endmodule".len();
    let leaf = &rxr.verilog[start..end];

    let mut r = prnic_verif::rng::rng(0x9E37_79B9_7F4A_7C15);
    let mut rnd = move || (r() >> 40) as u32;
    let offsets: Vec<u32> = (0..24)
        .flat_map(|k| [1u32 << k, (1u32 << k) - 1, (1u32 << k) + 1])
        .collect();
    let (mut vecs, mut exps) = (String::new(), String::new());
    let n = 3000;
    for v in 0..n {
        // Heads h0..h3, then PSNs d0, d1, w0, w1 near them (or anywhere).
        let h: Vec<u32> = (0..4).map(|_| rnd()).collect();
        let a: Vec<u32> = (0..4)
            .map(|k| {
                let off = offsets[(v * 4 + k) % offsets.len()];
                let base = h[(v + k) % 4];
                match (v / offsets.len()) % 3 {
                    0 => base.wrapping_add(off) & 0xFF_FFFF,
                    1 => base.wrapping_sub(off) & 0xFF_FFFF,
                    _ => rnd(),
                }
            })
            .collect();
        let mut exp = 0u32;
        for (s, av) in a.iter().enumerate() {
            for (i, hv) in h.iter().enumerate() {
                if (av.wrapping_sub(*hv) & 0xFF_FFFF) >> 23 == 0 {
                    exp |= 1 << (4 * s + i);
                }
            }
        }
        // {w1, w0, d1, d0, h3, h2, h1, h0}
        let words = [a[3], a[2], a[1], a[0], h[3], h[2], h[1], h[0]];
        vecs += &words.iter().map(|w| format!("{w:06x}")).collect::<String>();
        vecs += "\n";
        exps += &format!("{exp:04x}\n");
    }
    std::fs::write(dir.join("vec.hex"), vecs).unwrap();
    std::fs::write(dir.join("exp.hex"), exps).unwrap();
    let tb = format!(
        "{leaf}
module tb;
   reg [191:0] vec [0:{last}];
   reg [15:0] exp [0:{last}];
   reg [191:0] x;
   wire [3:0] d0, d1, w0, w1;
   rx_reorder$la_ge u(.d0(x[119:96]), .d1(x[143:120]), .w0(x[167:144]),
      .w1(x[191:168]), .h0(x[23:0]), .h1(x[47:24]), .h2(x[71:48]), .h3(x[95:72]),
      .ge_d0(d0), .ge_d1(d1), .ge_w0(w0), .ge_w1(w1));
   integer k, bad;
   initial begin
      $readmemh(\"vec.hex\", vec);
      $readmemh(\"exp.hex\", exp);
      bad = 0;
      for (k = 0; k <= {last}; k = k + 1) begin
         x = vec[k];
         #1;
         if ({{w1, w0, d1, d0}} !== exp[k]) begin
            if (bad < 5) $display(\"vector %0d: got %h, want %h\", k, {{w1, w0, d1, d0}}, exp[k]);
            bad = bad + 1;
         end
      end
      $display(\"mismatches %0d of {n}\", bad);
      $finish;
   end
endmodule
",
        last = n - 1
    );
    std::fs::write(dir.join("tb.v"), tb).unwrap();
    let (ok, text) = run(Command::new("iverilog")
        .current_dir(&dir)
        .args(["-g2005", "-o", "tb.vvp", "tb.v"]));
    assert!(ok, "iverilog:\n{text}");
    let (ok, text) = run(Command::new("vvp").current_dir(&dir).args(["-n", "tb.vvp"]));
    assert!(
        ok && text.contains(&format!("mismatches 0 of {n}")),
        "vvp:\n{text}"
    );
}

/// After `proc; flatten`: the input ports in the combinational fan-in of any output
/// port (the cone stops at flip-flops and at memories, whose reads are registered).
/// Every handshake of `prnic_top` is registered on the way out, so there must be none:
/// a path from one neighbour's input to another's output would leave the two a shared
/// cycle budget (docs/integration.md). `rst` included: it goes through one inverter into
/// the first flip-flop of the reset synchronizer and nowhere else, so it may be
/// asynchronous to `clk` (the constraints false-path it).
fn comb_in_to_out() -> String {
    format!(
        "memory -nomap; opt_clean; \
         select -assert-none o:* %ci*:-{STATE_CELLS} i:* %i; \
         select -assert-max 1 i:rst %co*:-{STATE_CELLS} t:* %i; \
         select -assert-count 1 i:rst %co*:-{STATE_CELLS} w:rst_ok_meta.d %i; "
    )
}

/// No latch and no combinational loop in any module, checked by Yosys on the RTL as
/// elaborated (`proc`), where every latch appears as a `$dlatch` cell before mapping
/// turns it into an LDCE; `check -assert` on the flattened RTL fails on loops and
/// multiple drivers (after LUT mapping `check` no longer sees loops through LUT cells,
/// so it runs before synthesis). A design of one latch fails it
/// (`yosys_gate_fails_on_a_latch`).
///
/// `prnic_top` is also synthesized here, with the blocks it contains as black boxes (its
/// glue, the port arbiter and the event queues): its reset's per-block copies must
/// survive a flattening synthesis (one module instance each, none merged into another,
/// rtl/src/reset.rs), and synth_xilinx's own "found logic loop" warning fails the gate.
/// Every module is synthesized whole by the timing gate (`.ci/run`), where a latch
/// cell is a type the timing model refuses, and by `prnic synth`.
#[test]
fn yosys_no_latches_no_loops() {
    let (_dir, files) = emitted("yosys");
    let jobs: Vec<_> = files
        .into_iter()
        .map(|(name, file)| {
            std::thread::spawn(move || {
                let top = if name == "prnic_top" {
                    format!(
                        "{}design -reset; read_verilog {}; blackbox {}; hierarchy -check -top {name}; \
                         synth_xilinx -flatten -top {name}; \
                         select -assert-count {RESET_COPIES} t:prnic_top_rst_*; {NO_LATCH} t:LDCE t:LDPE; stat",
                        comb_in_to_out(),
                        file.display(),
                        TOP_BLOCKS.map(|b| format!("prnic_top${b}")).join(" ")
                    )
                } else {
                    String::new()
                };
                let script = format!(
                    "read_verilog {}; hierarchy -check -top {name}; proc; \
                     setattr -mod -unset keep_hierarchy *; flatten; check -assert; {NO_LATCH}; {top}",
                    file.display()
                );
                let (ok, text) = run(Command::new("yosys").args(["-q", "-p", &script]));
                (name, ok && !text.contains("logic loop"), text)
            })
        })
        .collect();
    for j in jobs {
        let (name, ok, text) = j.join().unwrap();
        assert!(
            ok,
            "yosys on {name}:\n{}",
            text.lines().take(40).collect::<Vec<_>>().join("\n")
        );
    }
}

/// The latch cells of Yosys's RTL and gate libraries.
const NO_LATCH: &str = "select -assert-none t:$dlatch t:$adlatch t:$dlatchsr t:$_DLATCH_*";

/// The latch check of [`yosys_no_latches_no_loops`] on a design that has one. A gate that
/// cannot fail is no gate.
#[test]
fn yosys_gate_fails_on_a_latch() {
    let dir = workdir("latch");
    let v = dir.join("latch.v");
    std::fs::write(
        &v,
        "module latch(input e, input d, output reg q); always @(*) if (e) q = d; endmodule\n",
    )
    .unwrap();
    let script = format!(
        "read_verilog {}; hierarchy -check -top latch; proc; flatten; check -assert; {NO_LATCH}",
        v.display()
    );
    let (ok, text) = run(Command::new("yosys").args(["-q", "-p", &script]));
    assert!(!ok && text.contains("proc_dlatch"), "{text}");
}

/// For each output port of `module`, the input ports in its combinational fan-in, as
/// `(input, output)` pairs (Yosys, after `proc; flatten`).
fn comb_pairs(file: &std::path::Path, module: &str, outputs: &[String]) -> Vec<(String, String)> {
    let list = file.with_extension("comb.txt");
    let _ = std::fs::remove_file(&list);
    let mut script = format!(
        "read_verilog {}; hierarchy -check -top {module}; proc; \
         setattr -mod -unset keep_hierarchy *; flatten; memory -nomap; opt_clean; ",
        file.display()
    );
    for o in outputs {
        script += &format!(
            "tee -q -a {l} log OUTPUT {o}; tee -q -a {l} select -list o:{o} %ci*:-{STATE_CELLS} i:* %i; ",
            l = list.display()
        );
    }
    let (ok, text) = run(Command::new("yosys").args(["-q", "-p", &script]));
    assert!(ok, "yosys on {module}:\n{text}");
    let mut pairs = vec![];
    let mut out = String::new();
    for line in std::fs::read_to_string(&list).unwrap().lines() {
        if let Some(o) = line.strip_prefix("OUTPUT ") {
            out = o.trim().to_string();
        } else if let Some(i) = line.trim().strip_prefix(&format!("{module}/")) {
            pairs.push((i.to_string(), out.clone()));
        }
    }
    pairs
}

/// `prnic_2clk`, the top a shell instantiates, has no combinational path from an input
/// port to an output port. Composed from its blocks: `prnic_top` has no input-to-output
/// path at all (`yosys_no_latches_no_loops`); the crossings' own paths are
/// found by Yosys and followed through the generated netlist of `prnic_2clk`. The one
/// path inside `host_cdc` (placement and CQEs share a FIFO, so each one's ready depends
/// on the other's valid) joins two registers of `prnic_top` and is found here, so the
/// test shows it looks; it must not reach a port of `prnic_2clk`.
#[test]
fn the_two_clock_top_has_no_path_from_an_input_port_to_an_output_port() {
    use prnic_gen::blocks::Dir;
    use prnic_gen::project;
    let modules = prnic_gen::blocks::modules(PrnicConfig::builtin()).unwrap();
    let find = |n: &str| modules.iter().find(|m| m.name == n).unwrap();
    let top = project::two_clock_top(
        find(project::TOP),
        find(project::STREAM_CDC),
        find(project::CSR_CDC),
    )
    .unwrap();
    let dir = workdir("comb-2clk");
    // Per instance: (input port, output port) pairs with a combinational path.
    let mut found = 0;
    let mut through: Vec<(&str, Vec<(String, String)>)> = vec![];
    for inst in &top.instances {
        if inst.module == project::TOP {
            through.push((inst.name, vec![]));
            continue;
        }
        let m = find(inst.module);
        let file = dir.join(format!("{}.v", m.name));
        std::fs::write(&file, &m.verilog).unwrap();
        let outputs: Vec<String> = m
            .ports
            .iter()
            .filter(|p| p.dir == Dir::Output)
            .map(|p| p.name.clone())
            .collect();
        let pairs = comb_pairs(&file, m.name, &outputs);
        found += pairs.len();
        through.push((inst.name, pairs));
    }
    assert!(
        found > 0,
        "the known path through host_cdc was not found: the search does not look"
    );
    // Follow every net from each input port of prnic_2clk through instance inputs and
    // their combinational pairs to the nets their outputs drive.
    let is_top = |net: &str, dir: Dir| top.ports.iter().any(|(p, _)| p.name == net && p.dir == dir);
    for (start, _) in top.ports.iter().filter(|(p, _)| p.dir == Dir::Input) {
        let mut seen = vec![start.name.clone()];
        let mut todo = vec![(start.name.clone(), start.name.clone())];
        while let Some((net, path)) = todo.pop() {
            assert!(
                !is_top(&net, Dir::Output),
                "{}: combinational path {path}",
                project::TOP2
            );
            for (inst, pairs) in &through {
                let conns = &top
                    .instances
                    .iter()
                    .find(|i| i.name == *inst)
                    .unwrap()
                    .conns;
                for (port, _) in conns.iter().filter(|(_, n)| *n == net) {
                    for (_, out) in pairs.iter().filter(|(i, _)| i == port) {
                        if let Some((_, next)) = conns.iter().find(|(p, _)| p == out) {
                            if !seen.contains(next) {
                                seen.push(next.clone());
                                todo.push((
                                    next.clone(),
                                    format!("{path} -> {inst}.{port} -> {inst}.{out} -> {next}"),
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The generated register outputs are valid in their own languages: the SystemRDL file
/// elaborates in the reference compiler (systemrdl-compiler), the C header compiles.
#[test]
fn register_outputs_compile_in_their_own_languages() {
    let cfg = PrnicConfig::builtin();
    let dir = workdir("regs");
    let rdl = dir.join("prnic_regs.rdl");
    std::fs::write(&rdl, prnic_gen::csr::systemrdl(cfg)).unwrap();
    let script = format!(
        "from systemrdl import RDLCompiler\nc = RDLCompiler()\nc.compile_file({:?})\nroot = c.elaborate()\nprint(sum(1 for n in root.descendants() if type(n).__name__ == 'RegNode'))",
        rdl.display().to_string()
    );
    let (ok, text) = run(Command::new("python3").args(["-c", &script]));
    assert!(
        ok,
        "SystemRDL does not elaborate (run scripts/setup.sh for systemrdl-compiler):\n{text}"
    );
    let words: usize = prnic_regs::registers()
        .iter()
        .map(|r| r.offsets().len())
        .sum();
    assert_eq!(text.trim(), words.to_string(), "registers in the RDL");
    let h = dir.join("prnic_regs.h");
    std::fs::write(&h, prnic_gen::csr::c_header(cfg)).unwrap();
    let c = dir.join("use.c");
    std::fs::write(&c, "#include \"prnic_regs.h\"\nint main(void) { return (PRNIC_ID_MAGIC == 0 && PRNIC_MAGIC == 0x50524e43u) ? 0 : 1; }\n").unwrap();
    let (ok, text) = run(Command::new("cc")
        .args(["-std=c99", "-Wall", "-Werror", "-fsyntax-only"])
        .arg(&c)
        .current_dir(&dir));
    assert!(ok, "C header:\n{text}");
}

/// Configs far from the default still generate Verilog that passes the lint gate.
#[test]
fn non_default_configs_pass_verilator_lint() {
    let configs = [
        "[flow_table]\nentries = 256\nstash = 0\n",
        "[flow_table]\nentries = 262144\nstash = 64\n",
        "[flow_table]\nstash = 1\n[sprayer]\nmode = \"per-flow\"\nport_min = 1\nport_max = 7\n",
        "[clock]\nmhz = 250.0\n[axis]\ndata_bits = 1024\n[ports]\ncount = 1\nrate_gbps = 100\n",
    ];
    for (i, text) in configs.iter().enumerate() {
        let cfg = PrnicConfig::from_toml(text).unwrap();
        let dir = workdir(&format!("cfg{i}"));
        for m in prnic_gen::blocks::modules(&cfg).unwrap() {
            let p = dir.join(format!("{}.v", m.name));
            std::fs::write(&p, &m.verilog).unwrap();
            let (ok, out) = run(Command::new("verilator")
                .args(["--lint-only", "-Wall", "--top-module", m.name])
                .arg(waivers())
                .arg(&p));
            assert!(
                ok && !out.contains("%Warning"),
                "config {i}, {}:\n{out}",
                m.name
            );
        }
    }
}

/// `prnic synth` reports real figures for a module (the sprayer: small and quick).
#[test]
fn prnic_synth_reports_the_sprayer() {
    let rows = prnic_gen::synth::synth(PrnicConfig::builtin(), &["sprayer".to_string()]).unwrap();
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert!(r.luts > 50 && r.ffs > 50, "{r:?}");
    assert_eq!((r.ramb36, r.ramb18), (0, 0), "{r:?}");
    let worst = r
        .worst()
        .expect("the sprayer has register-to-register paths");
    assert!(worst.levels > 0.0 && worst.delay_ns > 0.0, "{worst:?}");
    let md = prnic_gen::synth::report(PrnicConfig::builtin(), &rows);
    assert!(md.contains("| `sprayer` |"));
    assert!(prnic_gen::synth::synth(PrnicConfig::builtin(), &["nope".to_string()]).is_err());
}

mod timing;
