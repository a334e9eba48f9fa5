//! `prnic timing`: logic levels and an estimated delay for every register-to-register path
//! of a generated module, from open tools only.
//!
//! Yosys maps the module to UltraScale+ cells (`synth_xilinx -family xcup -flatten`) and
//! writes the netlist as JSON; this module walks that netlist. A path starts at a clocked
//! output (flip-flop, block RAM, distributed RAM, shift register) or an input port, and
//! ends at a clocked input or an output port.
//!
//! **Logic levels** are counted the way Vivado's timing report counts them, with the
//! simplifications docs/timing.md lists:
//! - a LUT with the MUXF7/F8/F9 it feeds is one level (the MUXF cells ride on the LUT's
//!   slice; a MUXF select driven from routing is a level of its own);
//! - a carry chain is one level per 8 bits it spans (one CARRY8 on UltraScale+). Yosys 0.23
//!   maps carries to CARRY4 for every family, so each CARRY4 counts half a level;
//! - a distributed-RAM or shift-register read (address to data) is a level, like a LUT.
//!
//! **Estimated delay** adds documented per-element figures ([`DelayModel`]) along the path,
//! with a net delay that grows with the driver's fan-out, so a 1024-bit mux select driven
//! from one register shows up here as it would after placement. It is an estimate for
//! steering the RTL, not a sign-off: the vendor flow `prnic generate` writes is that.
//!
//! **Budget** per path: the clock period, less the start's clock-to-out, the end's setup
//! and a margin for clock uncertainty, divided by the delay of one level. A block RAM whose
//! output register (DO_REG) is unused has a long clock-to-out, so the budget after it is
//! short: that is how a RAM read that feeds logic shows up.

use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// Per-element delays (ns) for UltraScale+ at speed grade -2, rounded from the public data
/// sheet (DS923) and typical routing; docs/timing.md explains each figure.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct DelayModel {
    /// Flip-flop clock to Q.
    pub ff_clk_to_q: f64,
    /// Block RAM clock to data out, output register unused (DO_REG = 0).
    pub bram_clk_to_out: f64,
    /// Block RAM clock to data out through its output register (DO_REG = 1).
    pub bram_reg_clk_to_out: f64,
    /// Distributed RAM / shift register: write clock to data out.
    pub lutram_clk_to_out: f64,
    /// One LUT, input to output.
    pub lut: f64,
    /// MUXF7/F8/F9, data input to output.
    pub muxf: f64,
    /// Entering a carry chain through S/DI, to CO/O of the same 4-bit cell.
    pub carry_entry: f64,
    /// CI to CO/O through one further 4-bit carry cell.
    pub carry_cascade: f64,
    /// A routed net with one load.
    pub net_base: f64,
    /// Added per doubling of the net's fan-out.
    pub net_per_fanout_doubling: f64,
    /// Flip-flop D (and CE, SR) setup.
    pub ff_setup: f64,
    /// Block RAM address/data/enable setup.
    pub bram_setup: f64,
    /// Distributed RAM / shift register write setup.
    pub lutram_setup: f64,
    /// Clock uncertainty and skew kept free in every path.
    pub margin: f64,
}

impl DelayModel {
    pub const ULTRASCALE_PLUS_2: DelayModel = DelayModel {
        ff_clk_to_q: 0.10,
        bram_clk_to_out: 1.25,
        bram_reg_clk_to_out: 0.40,
        lutram_clk_to_out: 0.95,
        lut: 0.12,
        muxf: 0.08,
        carry_entry: 0.25,
        carry_cascade: 0.04,
        net_base: 0.30,
        net_per_fanout_doubling: 0.06,
        ff_setup: 0.05,
        bram_setup: 0.40,
        lutram_setup: 0.30,
        margin: 0.15,
    };

    /// One logic level as the budget counts it: a LUT and a net with a fan-out of four.
    pub fn level(&self) -> f64 {
        self.lut + self.net(4)
    }

    /// A net's delay for `fanout` loads.
    pub fn net(&self, fanout: usize) -> f64 {
        self.net_base + self.net_per_fanout_doubling * (fanout.max(1) as f64).log2()
    }

    /// Whole levels that fit between a start with clock-to-out `tco` and an end with setup
    /// `tsu` in `period_ns`.
    pub fn budget_levels(&self, period_ns: f64, tco: f64, tsu: f64) -> f64 {
        ((period_ns - tco - tsu - self.margin) / self.level()).floor()
    }
}

/// What a path starts or ends at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PointKind {
    Register,
    /// Block RAM output with DO_REG unused.
    BramOut,
    /// Block RAM output through its output register.
    BramRegOut,
    /// Block RAM input (address, data, enable).
    BramIn,
    /// Distributed RAM or shift register (read data as a start, write pins as an end).
    Lutram,
    Port,
    /// Other hard blocks (DSP).
    Hard,
}

/// One end of a path.
#[derive(Debug, Clone, Serialize)]
pub struct Point {
    pub kind: PointKind,
    /// Netlist name, e.g. `rx_reorder.w_state[12]`.
    pub name: String,
    /// The rust-hdl block (instance path) it belongs to, `""` for the top.
    pub block: String,
    /// The signal (struct field) within that block.
    pub signal: String,
}

/// One element along a path.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    pub cell_type: String,
    /// A readable name for what the cell drives.
    pub net: String,
    pub arrival_ns: f64,
    pub levels: f64,
    pub fanout: usize,
}

/// The worst path between two points.
#[derive(Debug, Clone, Serialize)]
pub struct Path_ {
    pub start: Point,
    pub end: Point,
    pub levels: f64,
    /// Levels the budget allows between this start and end.
    pub budget_levels: f64,
    pub delay_ns: f64,
    /// Delay this start and end allow: the period less the margin.
    pub budget_ns: f64,
    pub steps: Vec<Step>,
}

impl Path_ {
    pub fn within_budget(&self) -> bool {
        self.levels <= self.budget_levels + 1e-9 && self.delay_ns <= self.budget_ns + 1e-9
    }
    /// How far over its budget the path is (positive = over), in levels.
    pub fn excess(&self, m: &DelayModel) -> f64 {
        (self.levels - self.budget_levels).max((self.delay_ns - self.budget_ns) / m.level())
    }
}

/// Timing of one module.
#[derive(Debug, Clone, Serialize)]
pub struct ModuleTiming {
    pub module: String,
    pub period_ns: f64,
    pub luts: u64,
    pub ffs: u64,
    pub ramb36: u64,
    pub ramb18: u64,
    pub lutram_cells: u64,
    pub carry4: u64,
    /// The worst register-to-register paths, worst first (one per end register).
    pub reg_paths: Vec<Path_>,
    /// The worst path from an input port and to an output port, if any.
    pub input_path: Option<Path_>,
    pub output_path: Option<Path_>,
    /// Input ports with a purely combinational path to an output port.
    pub comb_io: Vec<(String, String)>,
    /// Nets with the largest fan-out (name, loads).
    pub fanout: Vec<(String, usize)>,
    /// Block RAMs whose read data feeds logic before a register.
    pub bram_unregistered: Vec<String>,
    pub seconds: f64,
}

impl ModuleTiming {
    pub fn worst(&self) -> Option<&Path_> {
        self.reg_paths.first()
    }
    pub fn violations(&self) -> impl Iterator<Item = &Path_> {
        self.reg_paths.iter().filter(|p| !p.within_budget())
    }
    /// `prnic synth`'s line for the module: cells, block RAMs and its worst path.
    pub fn summary_line(&self) -> String {
        let worst = self.worst().map(path_line).unwrap_or_default();
        format!(
            "{:<12} {:>6} LUTs {:>6} FFs {:>4} RAMB36 {:>4} RAMB18  worst {}\n",
            self.module, self.luts, self.ffs, self.ramb36, self.ramb18, worst
        )
    }
    /// `prnic timing`'s listing of the module: its `paths` worst paths, each element by
    /// element with `detail`.
    pub fn listing(&self, paths: usize, detail: bool) -> String {
        let mut text = format!(
            "{}: {} path groups, {} over budget (levels/budget, est. ns/budget)\n",
            self.module,
            self.reg_paths.len(),
            self.violations().count()
        );
        for p in self.reg_paths.iter().take(paths) {
            text += &format!("  {}\n", path_line(p));
            if detail {
                for st in &p.steps {
                    text += &format!(
                        "      {:>5.1} {:>6.2} ns  {:<8} {} (fan-out {})\n",
                        st.levels, st.arrival_ns, st.cell_type, st.net, st.fanout
                    );
                }
            }
        }
        text
    }
}

/// Yosys is missing, failed, or wrote something this module cannot read.
#[derive(Debug)]
pub struct TimingError(pub String);

impl std::fmt::Display for TimingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The modules `top` instantiates directly, as rust-hdl names them in `verilog`
/// (`top$inst`), in the order they are declared.
pub fn child_modules(verilog: &str, top: &str) -> Vec<String> {
    let prefix = format!("module {top}$");
    verilog
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .filter_map(|rest| rest.split('(').next())
        .filter(|inst| !inst.contains('$'))
        .map(|inst| format!("{top}${inst}"))
        .collect()
}

/// The modules of `verilog` whose body carries the mark
/// [`MAP_APART`](prnic_rtl::vecops::MAP_APART), in the order they are declared: decoders
/// of one value (`rx_reorder`'s thermometers and one-hot decoders) that take two levels
/// wherever they sit, mapped apart so ABC keeps them at that depth (see
/// [`map_with_yosys`]).
pub fn marked_apart(verilog: &str) -> Vec<String> {
    let mut module: Option<&str> = None;
    let mut out: Vec<String> = Vec::new();
    for l in verilog.lines() {
        if let Some(rest) = l.strip_prefix("module ") {
            module = rest.split('(').next().map(str::trim);
        } else if l.contains(prnic_rtl::vecops::MAP_APART) {
            if let Some(m) = module.filter(|m| !out.iter().any(|o| o == m)) {
                out.push(m.to_string());
            }
        }
    }
    out
}

/// Map `verilog` (top module `top`) with Yosys and write the JSON netlist to `json`.
///
/// Each module named in `apart` is mapped on its own (Yosys `keep_hierarchy` during
/// `synth_xilinx`) and flattened into its parent only afterwards, for the walk. ABC maps a
/// netlist for the depth of its deepest path and then trades every shallower path up to
/// that depth for area, so in one flattened `prnic_top` the loop of `rx_reorder` sets the
/// depth every other block is mapped to; a timing-driven vendor flow maps each path to its
/// own slack instead. Mapping the top's blocks apart keeps each block at its own depth,
/// as `prnic synth` maps it alone (docs/timing.md has both counts of the same RTL). For the
/// same reason a block's decoders ([`marked_apart`]) are mapped each on its own: inside
/// `rx_reorder` ABC stretched its 256-bit thermometers from two levels to five.
pub fn map_with_yosys(
    verilog: &Path,
    top: &str,
    json: &Path,
    apart: &[String],
) -> Result<(), TimingError> {
    let keep: String = apart
        .iter()
        .map(|m| format!("setattr -mod -set keep_hierarchy 1 {m}; "))
        .collect();
    // Flattened for the walk afterwards: the blocks mapped apart, and the modules the
    // Verilog itself keeps apart (reset copies, synchronizers).
    let unkeep = "setattr -mod -unset keep_hierarchy *; flatten; opt_clean; ";
    let script = format!(
        "read_verilog {v}; hierarchy -top {top}; {keep}\
         synth_xilinx -family xcup -flatten -noiopad -noclkbuf -top {top}; {unkeep}\
         write_json {j}",
        v = verilog.display(),
        j = json.display()
    );
    let out = Command::new("yosys")
        .args(["-q", "-p", &script])
        .output()
        .map_err(|e| TimingError(format!("cannot run yosys ({e}); run scripts/setup.sh")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(TimingError(format!(
            "yosys failed on {top}: {}",
            err.lines().last().unwrap_or("")
        )));
    }
    Ok(())
}

mod cdc;
mod netlist;
mod paths;

pub use cdc::{cdc_check, CdcReport, Crossing, CrossingKind};
pub use paths::analyse;

/// One line per path: levels, delay, start → end.
pub fn path_line(p: &Path_) -> String {
    format!(
        "{:>4.1}/{:<2} levels {:>5.2}/{:.2} ns  {} -> {}",
        p.levels, p.budget_levels, p.delay_ns, p.budget_ns, p.start.name, p.end.name
    )
}

/// A Markdown table of path steps.
pub fn path_steps_md(p: &Path_) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "| element | net | levels | arrival (ns) | fan-out |");
    let _ = writeln!(s, "|---|---|---:|---:|---:|");
    for st in &p.steps {
        let _ = writeln!(
            s,
            "| {} | `{}` | {} | {:.2} | {} |",
            st.cell_type, st.net, st.levels, st.arrival_ns, st.fanout
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::{child_modules, marked_apart};

    fn builtin_module(name: &str) -> crate::blocks::Module {
        crate::blocks::modules(crate::PrnicConfig::builtin())
            .unwrap()
            .into_iter()
            .find(|m| m.name == name)
            .unwrap()
    }

    #[test]
    fn marked_modules_are_found_once_each_at_any_depth() {
        let mark = prnic_rtl::vecops::MAP_APART;
        let v = format!(
            "module top(clk);\nendmodule\nmodule top$a$thm(idx, lt);\n// {mark}\n\
             // {mark}\nendmodule\nmodule top$b(d);\nendmodule\nmodule top$dec(i);\n\
             // {mark}\nendmodule\n"
        );
        assert_eq!(marked_apart(&v), ["top$a$thm", "top$dec"]);
    }

    #[test]
    fn rx_reorder_s_leaves_of_registers_are_marked() {
        let mut apart = marked_apart(&builtin_module("rx_reorder").verilog);
        apart.sort();
        assert_eq!(
            apart,
            [
                "dec",
                "e_verdict",
                "ntop_dec",
                "ntop_thm",
                "sf$0",
                "sf$1",
                "sf$2",
                "sf$3",
                "sfh",
                "sgh_u",
                "sgh_w",
                "thm",
                "thm_h"
            ]
            .map(|d| format!("rx_reorder${d}"))
        );
    }

    #[test]
    fn child_modules_are_the_top_s_direct_instances_only() {
        let v = "module top(clk);\nendmodule\nmodule top$a(clk);\nendmodule\n\
                 module top$a$q(d,q,clock);\nendmodule\nmodule top$b(d,q,clock);\nendmodule\n\
                 module topx$c(clk);\nendmodule\n";
        assert_eq!(child_modules(v, "top"), ["top$a", "top$b"]);
    }

    #[test]
    fn the_generated_top_has_its_blocks_as_children() {
        let top = builtin_module("prnic_top");
        let kids = child_modules(&top.verilog, top.name);
        for b in [
            "csr", "flow", "tx", "ctx", "crx", "rxd", "rxr", "mac0", "mac1", "arb",
        ] {
            assert!(
                kids.contains(&format!("prnic_top${b}")),
                "{b} missing: {kids:?}"
            );
        }
        assert!(kids.iter().all(|k| k.matches('$').count() == 1));
    }
}
