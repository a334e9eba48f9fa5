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
use serde_json::Value;
use std::collections::HashMap;
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

/// Map `verilog` (top module `top`) with Yosys and write the JSON netlist to `json`.
///
/// Each module named in `apart` is mapped on its own (Yosys `keep_hierarchy` during
/// `synth_xilinx`) and flattened into its parent only afterwards, for the walk. ABC maps a
/// netlist for the depth of its deepest path and then trades every shallower path up to
/// that depth for area, so in one flattened `prnic_top` the loop of `rx_reorder` sets the
/// depth every other block is mapped to; a timing-driven vendor flow maps each path to its
/// own slack instead. Mapping the top's blocks apart keeps each block at its own depth,
/// as `prnic synth` maps it alone (docs/timing.md has both counts of the same RTL).
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

// ---- netlist -------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    /// Combinational: arrival flows from inputs to outputs.
    Comb,
    /// Clocked: inputs are ends, outputs are starts.
    Seq,
    /// Both: some pins are combinational arcs (distributed RAM read, SRL address).
    Mixed,
}

struct Cell {
    name: String,
    ty: String,
    /// Where in the Verilog the cell comes from (`file.v:line`), if Yosys knows.
    src: Option<String>,
    params: HashMap<String, String>,
    /// (port, is_output, bits): a bit is a net id or None for a constant.
    pins: Vec<(String, bool, Vec<Option<u32>>)>,
}

struct Netlist {
    cells: Vec<Cell>,
    /// Top ports: (name, is_output, bits).
    ports: Vec<(String, bool, Vec<Option<u32>>)>,
    /// Best name per net bit.
    names: HashMap<u32, String>,
    /// Net bits of registers the Verilog marks `ASYNC_REG` (synchronizer stages).
    async_reg: std::collections::HashSet<u32>,
}

fn bits_of(v: &Value) -> Vec<Option<u32>> {
    v.as_array()
        .map(|a| a.iter().map(|b| b.as_u64().map(|x| x as u32)).collect())
        .unwrap_or_default()
}

/// How good a net name is for a report (lower is better).
fn name_rank(name: &str, hidden: bool) -> (u8, usize) {
    let cls = if hidden {
        3
    } else if name.ends_with(".q") || name.ends_with("$q") {
        0
    } else if name.contains('$') {
        2
    } else {
        1
    };
    (cls, name.len())
}

fn parse_netlist(text: &str, top: &str) -> Result<Netlist, TimingError> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| TimingError(format!("cannot read Yosys JSON: {e}")))?;
    let m = v
        .get("modules")
        .and_then(|m| m.get(top))
        .ok_or_else(|| TimingError(format!("module {top} missing from Yosys JSON")))?;
    let mut ports = vec![];
    if let Some(ps) = m.get("ports").and_then(Value::as_object) {
        for (n, p) in ps {
            let out = p.get("direction").and_then(Value::as_str) == Some("output");
            ports.push((n.clone(), out, bits_of(&p["bits"])));
        }
    }
    let mut cells = vec![];
    if let Some(cs) = m.get("cells").and_then(Value::as_object) {
        for (n, c) in cs {
            let ty = c["type"].as_str().unwrap_or("").to_string();
            let dirs = c.get("port_directions").and_then(Value::as_object);
            let mut pins = vec![];
            if let Some(conns) = c.get("connections").and_then(Value::as_object) {
                for (p, b) in conns {
                    let out = dirs
                        .and_then(|d| d.get(p))
                        .and_then(Value::as_str)
                        .map(|d| d == "output")
                        .ok_or_else(|| {
                            TimingError(format!("cell {n} ({ty}): no direction for pin {p}"))
                        })?;
                    pins.push((p.clone(), out, bits_of(b)));
                }
            }
            let mut params = HashMap::new();
            if let Some(ps) = c.get("parameters").and_then(Value::as_object) {
                for (k, val) in ps {
                    let s = match val {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    params.insert(k.clone(), s);
                }
            }
            let src = c
                .get("attributes")
                .and_then(|a| a.get("src"))
                .and_then(Value::as_str)
                .and_then(|s| s.split('|').find(|p| !p.contains("/share/yosys/")))
                .map(|p| {
                    let file = p.rsplit('/').next().unwrap_or(p);
                    match file.split_once(':') {
                        Some((f, rest)) => format!("{f}:{}", rest.split('.').next().unwrap_or("")),
                        None => file.to_string(),
                    }
                });
            cells.push(Cell {
                name: n.clone(),
                ty,
                src,
                params,
                pins,
            });
        }
    }
    let mut best: HashMap<u32, ((u8, usize), String)> = HashMap::new();
    let mut async_reg = std::collections::HashSet::new();
    if let Some(ns) = m.get("netnames").and_then(Value::as_object) {
        for (n, info) in ns {
            let hidden = info.get("hide_name").and_then(Value::as_u64) == Some(1);
            let bits = bits_of(&info["bits"]);
            let marked = info
                .get("attributes")
                .and_then(|a| a.get("ASYNC_REG"))
                .and_then(Value::as_str)
                .is_some_and(|v| v.eq_ignore_ascii_case("true"));
            if marked {
                async_reg.extend(bits.iter().flatten());
            }
            let width = bits.len();
            for (i, b) in bits.iter().enumerate() {
                let Some(b) = b else { continue };
                let label = if width == 1 {
                    n.clone()
                } else {
                    format!("{n}[{i}]")
                };
                let rank = name_rank(n, hidden);
                match best.get(b) {
                    Some((r, _)) if *r <= rank => {}
                    _ => {
                        best.insert(*b, (rank, label));
                    }
                }
            }
        }
    }
    let names = best.into_iter().map(|(k, (_, n))| (k, n)).collect();
    Ok(Netlist {
        cells,
        ports,
        names,
        async_reg,
    })
}

fn role(ty: &str) -> Option<Role> {
    Some(match ty {
        t if t.starts_with("LUT") => Role::Comb,
        "MUXF7" | "MUXF8" | "MUXF9" | "CARRY4" | "CARRY8" | "INV" | "BUFG" | "IBUF" | "OBUF"
        | "BUFGCTRL" | "BUFGCE" => Role::Comb,
        t if t.starts_with("FD") => Role::Seq,
        t if t.starts_with("RAMB") || t.starts_with("URAM") || t.starts_with("DSP") => Role::Seq,
        t if t.starts_with("RAM") || t.starts_with("SRL") => Role::Mixed,
        _ => return None,
    })
}

/// Read-address pins of a distributed RAM or SRL output pin (a combinational arc).
fn lutram_arc(ty: &str, in_pin: &str, out_pin: &str) -> bool {
    if ty.starts_with("SRL") {
        return in_pin == "A" || in_pin.starts_with("A") && in_pin.len() == 2;
    }
    // RAM32M/RAM64M/RAM32M16/RAM64M8: ADDRx -> DOx.
    if let (Some(a), Some(o)) = (in_pin.strip_prefix("ADDR"), out_pin.strip_prefix("DO")) {
        return a == o;
    }
    // RAM*X1D: A*/ADDR -> SPO, DPRA* -> DPO. RAM*X1S: A* -> O.
    match out_pin {
        "SPO" | "O" => in_pin.starts_with('A') && !in_pin.starts_with("ADDR"),
        "DPO" => in_pin.starts_with("DPRA"),
        _ => false,
    }
}

/// Is this clocked input pin one a path ends at (not the clock itself)?
fn is_clock_pin(pin: &str) -> bool {
    matches!(
        pin,
        "C" | "CLK" | "WCLK" | "CLKARDCLK" | "CLKBWRCLK" | "CLKA" | "CLKB"
    )
}

#[derive(Clone, Copy)]
struct Arrival {
    delay: f64,
    levels: f64,
    start: usize,
    /// Predecessor net bit and the cell traversed to reach here.
    prev: Option<(u32, usize)>,
}

struct Starts {
    /// (point, clock-to-out) per start id.
    list: Vec<(Point, f64)>,
}

/// Split a netlist name into (block path, signal) following rust-hdl's naming:
/// `rx_reorder.w_state.q[3]` → (`rx_reorder`, `w_state`).
fn block_and_signal(name: &str) -> (String, String) {
    let base = name.split('[').next().unwrap_or(name);
    let base = base
        .trim_start_matches('\\')
        .trim_end_matches(".q")
        .trim_end_matches("$q")
        .trim_end_matches(".read_data")
        .trim_end_matches("$read_data");
    let parts: Vec<&str> = base.split('.').collect();
    if parts.len() <= 1 {
        (
            String::new(),
            base.split('$').next().unwrap_or(base).to_string(),
        )
    } else {
        let sig = parts[parts.len() - 1];
        (
            parts[..parts.len() - 1].join("."),
            sig.split('$').next().unwrap_or(sig).to_string(),
        )
    }
}

fn readable(name: &str) -> String {
    let (b, s) = block_and_signal(name);
    let idx = name.find('[').map(|i| &name[i..]).unwrap_or("");
    if b.is_empty() {
        format!("{s}{idx}")
    } else {
        format!("{b}.{s}{idx}")
    }
}

fn point(kind: PointKind, raw: &str) -> Point {
    let (block, signal) = block_and_signal(raw);
    Point {
        kind,
        name: readable(raw),
        block,
        signal,
    }
}

/// Analyse a JSON netlist written by [`map_with_yosys`].
pub fn analyse(
    json_text: &str,
    top: &str,
    period_ns: f64,
    m: &DelayModel,
) -> Result<ModuleTiming, TimingError> {
    let t0 = std::time::Instant::now();
    let nl = parse_netlist(json_text, top)?;
    // Driver and loads per net bit.
    let mut driver: HashMap<u32, (usize, usize, usize)> = HashMap::new(); // cell, pin, bit
    let mut loads: HashMap<u32, Vec<(usize, usize)>> = HashMap::new(); // cell, pin
    let mut out_port_bits: HashMap<u32, Vec<(usize, usize)>> = HashMap::new();
    for (ci, c) in nl.cells.iter().enumerate() {
        if role(&c.ty).is_none() {
            return Err(TimingError(format!(
                "cell {} has a type the timing model does not know: {}",
                c.name, c.ty
            )));
        }
        for (pi, (_, out, bits)) in c.pins.iter().enumerate() {
            for (bi, b) in bits.iter().enumerate() {
                let Some(b) = b else { continue };
                if *out {
                    driver.insert(*b, (ci, pi, bi));
                } else {
                    loads.entry(*b).or_default().push((ci, pi));
                }
            }
        }
    }
    for (pi, (_, out, bits)) in nl.ports.iter().enumerate() {
        if *out {
            for (bi, b) in bits.iter().enumerate() {
                if let Some(b) = b {
                    out_port_bits.entry(*b).or_default().push((pi, bi));
                }
            }
        }
    }
    let fanout =
        |b: u32| loads.get(&b).map_or(0, Vec::len) + out_port_bits.get(&b).map_or(0, Vec::len);
    let name_of = |b: u32| {
        nl.names
            .get(&b)
            .cloned()
            .unwrap_or_else(|| format!("net{b}"))
    };

    // Start points.
    let mut starts = Starts { list: vec![] };
    let mut arr: HashMap<u32, Arrival> = HashMap::new();
    let mut in_port_start: HashMap<u32, usize> = HashMap::new();
    for (name, out, bits) in &nl.ports {
        if *out {
            continue;
        }
        for (bi, b) in bits.iter().enumerate() {
            let Some(b) = b else { continue };
            let label = if bits.len() == 1 {
                name.clone()
            } else {
                format!("{name}[{bi}]")
            };
            let id = starts.list.len();
            starts.list.push((point(PointKind::Port, &label), 0.0));
            in_port_start.insert(*b, id);
            arr.insert(
                *b,
                Arrival {
                    delay: 0.0,
                    levels: 0.0,
                    start: id,
                    prev: None,
                },
            );
        }
    }
    let mut bram_unreg = vec![];
    for c in &nl.cells {
        let r = role(&c.ty).unwrap();
        if r == Role::Comb {
            continue;
        }
        let is_bram = c.ty.starts_with("RAMB");
        let reg_out = |pin: &str| -> bool {
            // RAMB36E2/RAMB18E2: DOA_REG applies to DOUTADOUT*, DOB_REG to DOUTBDOUT*.
            let key = if pin.contains("DOUTB") || pin.starts_with("DOB") {
                "DOB_REG"
            } else {
                "DOA_REG"
            };
            c.params
                .get(key)
                .map(|v| v.trim_matches('"').chars().any(|ch| ch == '1'))
                .unwrap_or(false)
        };
        for (pin, out, bits) in &c.pins {
            if !*out {
                continue;
            }
            let (kind, tco) = if c.ty.starts_with("FD") {
                (PointKind::Register, m.ff_clk_to_q)
            } else if is_bram {
                if reg_out(pin) {
                    (PointKind::BramRegOut, m.bram_reg_clk_to_out)
                } else {
                    (PointKind::BramOut, m.bram_clk_to_out)
                }
            } else if r == Role::Mixed {
                (PointKind::Lutram, m.lutram_clk_to_out)
            } else {
                (PointKind::Hard, m.bram_reg_clk_to_out)
            };
            for b in bits.iter().flatten() {
                let raw = if kind == PointKind::Register {
                    name_of(*b)
                } else {
                    c.name.trim_start_matches('\\').to_string()
                };
                let id = starts.list.len();
                starts.list.push((point(kind, &raw), tco));
                arr.insert(
                    *b,
                    Arrival {
                        delay: tco,
                        levels: 0.0,
                        start: id,
                        prev: None,
                    },
                );
                if kind == PointKind::BramOut {
                    let feeds_logic = loads.get(b).is_some_and(|ls| {
                        ls.iter()
                            .any(|(ci, _)| role(&nl.cells[*ci].ty) == Some(Role::Comb))
                    });
                    if feeds_logic {
                        let n = readable(c.name.trim_start_matches('\\'));
                        if !bram_unreg.contains(&n) {
                            bram_unreg.push(n);
                        }
                    }
                }
            }
        }
    }

    // Combinational propagation in topological order (Kahn over comb cells).
    // For each comb/mixed cell, its outputs depend on its arc inputs.
    let is_dedicated = |drv_ty: &str, drv_pin: &str, drv_bit: usize, ld_ty: &str, ld_pin: &str| {
        (drv_ty.starts_with("LUT") && ld_ty.starts_with("MUXF7") && ld_pin != "S")
            || (drv_ty == "MUXF7" && ld_ty == "MUXF8" && ld_pin != "S")
            || (drv_ty == "MUXF8" && ld_ty == "MUXF9" && ld_pin != "S")
            || (drv_ty.starts_with("CARRY")
                && drv_pin == "CO"
                && ld_ty.starts_with("CARRY")
                && ld_pin == "CI"
                && drv_bit == if drv_ty == "CARRY8" { 7 } else { 3 })
    };
    // Input arcs of a cell's output pin: list of (in pin index, in bit index).
    let arcs = |c: &Cell, out_pin: &str, out_bit: usize| -> Vec<(usize, usize)> {
        let mut v = vec![];
        for (pi, (p, o, bits)) in c.pins.iter().enumerate() {
            if *o {
                continue;
            }
            for bi in 0..bits.len() {
                let ok = if c.ty.starts_with("CARRY") {
                    match p.as_str() {
                        "S" | "DI" => bi <= out_bit,
                        "CI" | "CYINIT" | "CI_TOP" => true,
                        _ => false,
                    }
                } else if role(&c.ty) == Some(Role::Mixed) {
                    lutram_arc(&c.ty, p, out_pin)
                } else {
                    true
                };
                if ok {
                    v.push((pi, bi));
                }
            }
        }
        v
    };
    let mut visiting: HashMap<u32, bool> = HashMap::new();
    // Iterative DFS.
    let comb_key =
        |ci: usize| matches!(role(&nl.cells[ci].ty), Some(Role::Comb) | Some(Role::Mixed));
    let mut order_stack: Vec<(u32, bool)> = vec![];
    let all_bits: Vec<u32> = {
        let mut v: Vec<u32> = driver.keys().copied().collect();
        v.sort_unstable();
        v
    };
    for &root in &all_bits {
        if arr.contains_key(&root) {
            continue;
        }
        order_stack.push((root, false));
        while let Some((b, expanded)) = order_stack.pop() {
            if arr.contains_key(&b) {
                continue;
            }
            let Some(&(ci, pi, bi)) = driver.get(&b) else {
                continue; // undriven: constant-like
            };
            if !comb_key(ci) {
                continue;
            }
            let c = &nl.cells[ci];
            let out_pin = &c.pins[pi].0;
            let ins = arcs(c, out_pin, bi);
            if !expanded {
                if visiting.get(&b) == Some(&true) {
                    return Err(TimingError(format!(
                        "combinational loop through {}",
                        name_of(b)
                    )));
                }
                visiting.insert(b, true);
                order_stack.push((b, true));
                for (ipi, ibi) in &ins {
                    if let Some(ib) = c.pins[*ipi].2[*ibi] {
                        if !arr.contains_key(&ib) {
                            if visiting.get(&ib) == Some(&true) {
                                return Err(TimingError(format!(
                                    "combinational loop through {}",
                                    name_of(ib)
                                )));
                            }
                            order_stack.push((ib, false));
                        }
                    }
                }
                continue;
            }
            visiting.insert(b, false);
            // All inputs evaluated (or constant/undriven): compute.
            let mut best: Option<Arrival> = None;
            for (ipi, ibi) in &ins {
                let Some(ib) = c.pins[*ipi].2[*ibi] else {
                    continue;
                };
                let Some(a) = arr.get(&ib).copied() else {
                    continue;
                };
                let in_pin = c.pins[*ipi].0.as_str();
                let (dty, dpin, dbit) = match driver.get(&ib) {
                    Some(&(dci, dpi, dbi)) => (
                        nl.cells[dci].ty.as_str(),
                        nl.cells[dci].pins[dpi].0.as_str(),
                        dbi,
                    ),
                    None => ("PORT", "", 0),
                };
                let dedicated = is_dedicated(dty, dpin, dbit, &c.ty, in_pin);
                let net = if dedicated { 0.0 } else { m.net(fanout(ib)) };
                let (cell_d, cell_l) = if c.ty.starts_with("LUT") || c.ty == "INV" {
                    (m.lut, 1.0)
                } else if c.ty.starts_with("MUXF") {
                    if in_pin == "S" {
                        (m.muxf + m.lut, 1.0)
                    } else {
                        (m.muxf, 0.0)
                    }
                } else if c.ty.starts_with("CARRY") {
                    let per = if c.ty == "CARRY8" { 1.0 } else { 0.5 };
                    if in_pin == "CI" && dedicated {
                        (m.carry_cascade, per)
                    } else {
                        (m.carry_entry, per)
                    }
                } else if c.ty.starts_with("BUF") || c.ty == "IBUF" || c.ty == "OBUF" {
                    (0.0, 0.0)
                } else {
                    // Distributed RAM / SRL read.
                    (m.lut + 0.03, 1.0)
                };
                let cand = Arrival {
                    delay: a.delay + net + cell_d,
                    levels: a.levels + cell_l,
                    start: a.start,
                    prev: Some((ib, ci)),
                };
                if best.is_none_or(|x| {
                    cand.delay > x.delay || (cand.delay == x.delay && cand.levels > x.levels)
                }) {
                    best = Some(cand);
                }
            }
            if let Some(bv) = best {
                arr.insert(b, bv);
            }
        }
    }

    // End points: clocked inputs and output ports.
    let mut reg_paths: HashMap<String, Path_> = HashMap::new();
    let mut input_path: Option<Path_> = None;
    let mut output_path: Option<Path_> = None;
    let mut comb_io: Vec<(String, String)> = vec![];
    let build_steps = |mut b: u32, arr: &HashMap<u32, Arrival>| -> Vec<Step> {
        let mut steps = vec![];
        while let Some(a) = arr.get(&b) {
            let (ty, src) = match a.prev {
                Some((_, ci)) => (nl.cells[ci].ty.clone(), nl.cells[ci].src.clone()),
                None => ("start".into(), None),
            };
            let raw = name_of(b);
            let generated = raw.contains("$abc$")
                || raw.contains("$auto$")
                || raw.contains("$techmap")
                || raw.starts_with('$')
                || raw.starts_with("net");
            let net = match (generated, src) {
                (true, Some(src)) => format!("({src})"),
                (true, None) => "(mapped logic)".to_string(),
                _ => readable(&raw),
            };
            steps.push(Step {
                cell_type: ty,
                net,
                arrival_ns: (a.delay * 1000.0).round() / 1000.0,
                levels: a.levels,
                fanout: fanout(b),
            });
            match a.prev {
                Some((pb, _)) => b = pb,
                None => break,
            }
        }
        steps.reverse();
        steps
    };
    let mut consider = |end: Point, tsu: f64, b: u32, arr: &HashMap<u32, Arrival>| {
        let Some(a) = arr.get(&b).copied() else {
            return;
        };
        let (sp, tco) = starts.list[a.start].clone();
        let net = m.net(fanout(b));
        let delay = a.delay + net + tsu;
        let period_budget = period_ns - m.margin;
        let path = Path_ {
            budget_levels: m.budget_levels(period_ns, tco, tsu),
            budget_ns: (period_budget * 1000.0).round() / 1000.0,
            levels: a.levels,
            delay_ns: (delay * 1000.0).round() / 1000.0,
            steps: build_steps(b, arr),
            start: sp.clone(),
            end: end.clone(),
        };
        let from_port = sp.kind == PointKind::Port;
        let to_port = end.kind == PointKind::Port;
        if from_port && to_port {
            comb_io.push((sp.name.clone(), end.name.clone()));
            return;
        }
        let slot = if from_port {
            &mut input_path
        } else if to_port {
            &mut output_path
        } else {
            let key = end.name.split('[').next().unwrap_or(&end.name).to_string()
                + "<-"
                + sp.name.split('[').next().unwrap_or(&sp.name);
            let e = reg_paths.entry(key).or_insert_with(|| path.clone());
            if path.excess(m) > e.excess(m)
                || (path.excess(m) == e.excess(m) && path.levels > e.levels)
            {
                *e = path;
            }
            return;
        };
        if slot
            .as_ref()
            .is_none_or(|p: &Path_| path.excess(m) > p.excess(m))
        {
            *slot = Some(path);
        }
    };
    for c in &nl.cells {
        let r = role(&c.ty).unwrap();
        if r == Role::Comb {
            continue;
        }
        for (pin, out, bits) in &c.pins {
            if *out || is_clock_pin(pin) {
                continue;
            }
            let (kind, tsu) = if c.ty.starts_with("FD") {
                let tsu = if pin == "D" {
                    m.ff_setup
                } else {
                    m.ff_setup + 0.05
                };
                (PointKind::Register, tsu)
            } else if c.ty.starts_with("RAMB") {
                (PointKind::BramIn, m.bram_setup)
            } else if r == Role::Mixed {
                // Read-address pins that are only read arcs still end here when they are
                // also the write address; treat every input as a write-side end.
                (PointKind::Lutram, m.lutram_setup)
            } else {
                (PointKind::Hard, m.bram_setup)
            };
            for b in bits.iter().flatten() {
                let raw = if kind == PointKind::Register {
                    // Name the register by its Q net.
                    c.pins
                        .iter()
                        .find(|(p, o, _)| *o && p == "Q")
                        .and_then(|(_, _, qb)| qb.first().copied().flatten())
                        .map(&name_of)
                        .unwrap_or_else(|| c.name.clone())
                } else {
                    c.name.trim_start_matches('\\').to_string()
                };
                consider(point(kind, &raw), tsu, *b, &arr);
            }
        }
    }
    for (name, out, bits) in &nl.ports {
        if !*out {
            continue;
        }
        for (bi, b) in bits.iter().enumerate() {
            let Some(b) = b else { continue };
            let label = if bits.len() == 1 {
                name.clone()
            } else {
                format!("{name}[{bi}]")
            };
            consider(point(PointKind::Port, &label), 0.0, *b, &arr);
        }
    }
    let mut reg_paths: Vec<Path_> = reg_paths.into_values().collect();
    reg_paths.sort_by(|a, b| {
        b.excess(m)
            .partial_cmp(&a.excess(m))
            .unwrap()
            .then(b.levels.partial_cmp(&a.levels).unwrap())
            .then(a.end.name.cmp(&b.end.name))
    });
    comb_io.sort();
    comb_io.dedup();
    let mut fo: Vec<(String, usize)> = driver
        .keys()
        .map(|b| (readable(&name_of(*b)), fanout(*b)))
        .collect();
    fo.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    fo.truncate(5);
    let count = |p: &str| nl.cells.iter().filter(|c| c.ty.starts_with(p)).count() as u64;
    let lutram_cells = nl
        .cells
        .iter()
        .filter(|c| role(&c.ty) == Some(Role::Mixed))
        .count() as u64;
    let _ = in_port_start;
    bram_unreg.sort();
    Ok(ModuleTiming {
        module: top.to_string(),
        period_ns,
        luts: count("LUT"),
        ffs: count("FD"),
        ramb36: count("RAMB36"),
        ramb18: count("RAMB18"),
        lutram_cells,
        carry4: count("CARRY"),
        reg_paths,
        input_path,
        output_path,
        comb_io,
        fanout: fo,
        bram_unregistered: bram_unreg,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

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

/// How data reaches a register from another clock domain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CrossingKind {
    /// Straight from a register of the other domain into a flip-flop marked `ASYNC_REG`
    /// (the first stage of a synchronizer), with no logic between.
    Synchronizer,
    /// Out of a distributed RAM written on the other clock and read without one: the
    /// storage of an asynchronous FIFO, whose pointers say when a word is safe to read.
    FifoMemory,
    /// Anything else: logic between the domains, or a flip-flop that is not a
    /// synchronizer stage. Each one is a bug.
    Unsynchronized,
}

/// One register bit fed from another clock domain.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Crossing {
    pub kind: CrossingKind,
    pub from: String,
    pub from_clock: String,
    pub to: String,
    pub to_clock: String,
}

/// Every crossing between the clock domains of one mapped module.
#[derive(Debug, Clone)]
pub struct CdcReport {
    /// The module's clock input ports.
    pub clocks: Vec<String>,
    pub crossings: Vec<Crossing>,
    /// Clocked cells whose clock is not a clock input port (a derived or gated clock):
    /// their domain is unknown, which is an error in itself.
    pub unclocked: Vec<String>,
}

impl CdcReport {
    pub fn count(&self, kind: CrossingKind) -> usize {
        self.crossings.iter().filter(|c| c.kind == kind).count()
    }

    /// True when every crossing goes through a synchronizer or a FIFO memory and every
    /// clocked cell is on a clock port.
    pub fn clean(&self) -> bool {
        self.unclocked.is_empty() && self.count(CrossingKind::Unsynchronized) == 0
    }
}

/// The clock-domain crossings of a JSON netlist written by [`map_with_yosys`]. A clock
/// domain is a clock input port: `clk`, or any input named `clk_<domain>`. Every clocked
/// cell input (not the clock) is traced back through LUTs, carry chains, muxes and
/// distributed-RAM read ports to the registers, RAMs and ports it depends on; a source
/// on another clock is a crossing, classified by [`CrossingKind`]. Input ports are not
/// followed: which domain a port belongs to is the integrator's contract
/// (docs/integration.md).
pub fn cdc_check(json_text: &str, top: &str) -> Result<CdcReport, TimingError> {
    let nl = parse_netlist(json_text, top)?;
    let mut clock_of_bit: HashMap<u32, String> = HashMap::new();
    let mut clocks = vec![];
    for (name, out, bits) in &nl.ports {
        if !*out && bits.len() == 1 && (name == "clk" || name.starts_with("clk_")) {
            if let Some(b) = bits[0] {
                clock_of_bit.insert(b, name.clone());
                clocks.push(name.clone());
            }
        }
    }
    clocks.sort();
    let mut driver: HashMap<u32, (usize, usize)> = HashMap::new(); // cell, pin
    for (ci, c) in nl.cells.iter().enumerate() {
        if role(&c.ty).is_none() {
            return Err(TimingError(format!(
                "cell {} has a type the CDC check does not know: {}",
                c.name, c.ty
            )));
        }
        for (pi, (_, out, bits)) in c.pins.iter().enumerate() {
            if *out {
                for b in bits.iter().flatten() {
                    driver.insert(*b, (ci, pi));
                }
            }
        }
    }
    let name_of = |b: u32| {
        nl.names
            .get(&b)
            .cloned()
            .unwrap_or_else(|| format!("net{b}"))
    };
    // Each clocked cell's domain, and a name for it: its first output bit.
    let mut unclocked = vec![];
    let domain: Vec<Option<String>> = nl
        .cells
        .iter()
        .map(|c| {
            if matches!(role(&c.ty), Some(Role::Comb)) {
                return None;
            }
            let clk = c
                .pins
                .iter()
                .find(|(p, out, _)| !*out && is_clock_pin(p))
                .and_then(|(_, _, bits)| bits.first().copied().flatten());
            let d = clk.and_then(|b| clock_of_bit.get(&b).cloned());
            if d.is_none() {
                unclocked.push(format!("{} ({})", readable(&c.name), c.ty));
            }
            d
        })
        .collect();
    let cell_name = |ci: usize| {
        nl.cells[ci]
            .pins
            .iter()
            .find(|(_, out, _)| *out)
            .and_then(|(_, _, bits)| bits.first().copied().flatten())
            .map(|b| readable(&name_of(b)))
            .unwrap_or_else(|| readable(&nl.cells[ci].name))
    };
    let mut found = std::collections::BTreeSet::new();
    for (ci, c) in nl.cells.iter().enumerate() {
        let Some(to_clock) = &domain[ci] else {
            continue;
        };
        let mixed = matches!(role(&c.ty), Some(Role::Mixed));
        // A synchronizer stage: a flip-flop whose output the Verilog marks ASYNC_REG.
        let sync_stage = !mixed
            && c.pins.iter().any(|(p, out, bits)| {
                *out && p == "Q" && bits.iter().flatten().all(|b| nl.async_reg.contains(b))
            });
        for (pin, out, bits) in &c.pins {
            if *out || is_clock_pin(pin) {
                continue;
            }
            // A distributed RAM's read addresses belong to its read ports (followed as
            // arcs from whoever reads it); its write pins are this domain's inputs.
            if mixed
                && c.pins
                    .iter()
                    .any(|(o, is_out, _)| *is_out && lutram_arc(&c.ty, pin, o))
                && !lutram_write_address(&c.ty, pin)
            {
                continue;
            }
            // (net bit, through logic) to visit.
            let mut todo: Vec<(u32, bool)> = bits.iter().flatten().map(|b| (*b, false)).collect();
            let mut seen = std::collections::HashSet::new();
            while let Some((b, logic)) = todo.pop() {
                if !seen.insert((b, logic)) {
                    continue;
                }
                let Some(&(di, dpin)) = driver.get(&b) else {
                    continue; // an input port or a constant
                };
                let d = &nl.cells[di];
                let out_pin = &d.pins[dpin].0;
                match role(&d.ty) {
                    Some(Role::Comb) => {
                        for (_, o, ib) in &d.pins {
                            if !*o {
                                todo.extend(ib.iter().flatten().map(|x| (*x, true)));
                            }
                        }
                    }
                    Some(Role::Mixed) => {
                        for (ip, o, ib) in &d.pins {
                            if !*o && lutram_arc(&d.ty, ip, out_pin) {
                                todo.extend(ib.iter().flatten().map(|x| (*x, true)));
                            }
                        }
                        if let Some(from_clock) = &domain[di] {
                            if from_clock != to_clock {
                                found.insert(Crossing {
                                    kind: CrossingKind::FifoMemory,
                                    from: cell_name(di),
                                    from_clock: from_clock.clone(),
                                    to: cell_name(ci),
                                    to_clock: to_clock.clone(),
                                });
                            }
                        }
                    }
                    _ => {
                        if let Some(from_clock) = &domain[di] {
                            if from_clock != to_clock {
                                let kind = if sync_stage && !logic {
                                    CrossingKind::Synchronizer
                                } else {
                                    CrossingKind::Unsynchronized
                                };
                                found.insert(Crossing {
                                    kind,
                                    from: readable(&name_of(b)),
                                    from_clock: from_clock.clone(),
                                    to: cell_name(ci),
                                    to_clock: to_clock.clone(),
                                });
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(CdcReport {
        clocks,
        crossings: found.into_iter().collect(),
        unclocked,
    })
}

/// The write address pins of a distributed RAM (also the read address of its
/// read-write port).
fn lutram_write_address(ty: &str, pin: &str) -> bool {
    match ty {
        "RAM32M16" | "RAM64M8" => pin == "ADDRH",
        "RAM32M" | "RAM64M" => pin == "ADDRD",
        t if t.ends_with("X1D") || t.ends_with("X1S") => {
            pin.starts_with('A') && !pin.starts_with("ADDR")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::child_modules;

    #[test]
    fn child_modules_are_the_top_s_direct_instances_only() {
        let v = "module top(clk);\nendmodule\nmodule top$a(clk);\nendmodule\n\
                 module top$a$q(d,q,clock);\nendmodule\nmodule top$b(d,q,clock);\nendmodule\n\
                 module topx$c(clk);\nendmodule\n";
        assert_eq!(child_modules(v, "top"), ["top$a", "top$b"]);
    }

    #[test]
    fn the_generated_top_has_its_blocks_as_children() {
        let top = crate::blocks::modules(crate::PrnicConfig::builtin())
            .unwrap()
            .into_iter()
            .find(|m| m.name == "prnic_top")
            .unwrap();
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
