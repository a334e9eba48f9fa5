//! The Yosys JSON netlist as cells, pins and net bits, and the names a report gives them.

use super::{Point, PointKind, TimingError};
use serde_json::Value;
use std::collections::HashMap;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Role {
    /// Combinational: arrival flows from inputs to outputs.
    Comb,
    /// Clocked: inputs are ends, outputs are starts.
    Seq,
    /// Both: some pins are combinational arcs (distributed RAM read, SRL address).
    Mixed,
}

pub(super) struct Cell {
    pub(super) name: String,
    pub(super) ty: String,
    /// Where in the Verilog the cell comes from (`file.v:line`), if Yosys knows.
    pub(super) src: Option<String>,
    pub(super) params: HashMap<String, String>,
    /// (port, is_output, bits): a bit is a net id or None for a constant.
    pub(super) pins: Vec<(String, bool, Vec<Option<u32>>)>,
}

pub(super) struct Netlist {
    pub(super) cells: Vec<Cell>,
    /// Top ports: (name, is_output, bits).
    pub(super) ports: Vec<(String, bool, Vec<Option<u32>>)>,
    /// Best name per net bit.
    pub(super) names: HashMap<u32, String>,
    /// Net bits of registers the Verilog marks `ASYNC_REG` (synchronizer stages).
    pub(super) async_reg: std::collections::HashSet<u32>,
}

pub(super) fn bits_of(v: &Value) -> Vec<Option<u32>> {
    v.as_array()
        .map(|a| a.iter().map(|b| b.as_u64().map(|x| x as u32)).collect())
        .unwrap_or_default()
}

/// How good a net name is for a report (lower is better).
pub(super) fn name_rank(name: &str, hidden: bool) -> (u8, usize) {
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

pub(super) fn parse_netlist(text: &str, top: &str) -> Result<Netlist, TimingError> {
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

pub(super) fn role(ty: &str) -> Option<Role> {
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
pub(super) fn lutram_arc(ty: &str, in_pin: &str, out_pin: &str) -> bool {
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
pub(super) fn is_clock_pin(pin: &str) -> bool {
    matches!(
        pin,
        "C" | "CLK" | "WCLK" | "CLKARDCLK" | "CLKBWRCLK" | "CLKA" | "CLKB"
    )
}

/// Split a netlist name into (block path, signal) following rust-hdl's naming:
/// `rx_reorder.w_state.q[3]` → (`rx_reorder`, `w_state`).
pub(super) fn block_and_signal(name: &str) -> (String, String) {
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

pub(super) fn readable(name: &str) -> String {
    let (b, s) = block_and_signal(name);
    let idx = name.find('[').map(|i| &name[i..]).unwrap_or("");
    if b.is_empty() {
        format!("{s}{idx}")
    } else {
        format!("{b}.{s}{idx}")
    }
}

pub(super) fn point(kind: PointKind, raw: &str) -> Point {
    let (block, signal) = block_and_signal(raw);
    Point {
        kind,
        name: readable(raw),
        block,
        signal,
    }
}

/// Who drives and who loads each net bit of the netlist.
pub(super) struct Graph {
    pub(super) nl: Netlist,
    /// Driver per net bit: (cell, pin, bit).
    pub(super) driver: HashMap<u32, (usize, usize, usize)>,
    /// Cell input pins per net bit: (cell, pin).
    pub(super) loads: HashMap<u32, Vec<(usize, usize)>>,
    /// Output-port bits per net bit: (port, bit).
    pub(super) out_port_bits: HashMap<u32, Vec<(usize, usize)>>,
}

impl Graph {
    pub(super) fn new(nl: Netlist) -> Result<Self, TimingError> {
        let mut driver = HashMap::new();
        let mut loads: HashMap<u32, Vec<(usize, usize)>> = HashMap::new();
        let mut out_port_bits: HashMap<u32, Vec<(usize, usize)>> = HashMap::new();
        for (ci, c) in nl.cells.iter().enumerate() {
            if c.ty.starts_with("LD") {
                return Err(TimingError(format!(
                    "cell {} is a latch ({}): a combinational block leaves a signal unassigned on some path",
                    c.name, c.ty
                )));
            }
            if role(&c.ty).is_none() {
                return Err(TimingError(format!(
                    "cell {} has a type the timing model (prnic timing) does not know: {}",
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
        Ok(Graph {
            nl,
            driver,
            loads,
            out_port_bits,
        })
    }

    pub(super) fn fanout(&self, b: u32) -> usize {
        self.loads.get(&b).map_or(0, Vec::len) + self.out_port_bits.get(&b).map_or(0, Vec::len)
    }

    pub(super) fn name_of(&self, b: u32) -> String {
        self.nl
            .names
            .get(&b)
            .cloned()
            .unwrap_or_else(|| format!("net{b}"))
    }
}
