//! Clock-domain crossings of a mapped netlist.

use super::netlist::{is_clock_pin, lutram_arc, parse_netlist, readable, role, Graph, Role};
use super::TimingError;
use std::collections::HashMap;

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

/// The clock-domain crossings of a JSON netlist written by [`map_with_yosys`](super::map_with_yosys). A clock
/// domain is a clock input port: `clk`, or any input named `clk_<domain>`. Every clocked
/// cell input (not the clock) is traced back through LUTs, carry chains, muxes and
/// distributed-RAM read ports to the registers, RAMs and ports it depends on; a source
/// on another clock is a crossing, classified by [`CrossingKind`]. Input ports are not
/// followed: which domain a port belongs to is the integrator's contract
/// (docs/integration.md).
pub fn cdc_check(json_text: &str, top: &str) -> Result<CdcReport, TimingError> {
    let g = Graph::new(parse_netlist(json_text, top)?)?;
    let nl = &g.nl;
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
    let name_of = |b: u32| g.name_of(b);
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
                let Some(&(di, dpin, _)) = g.driver.get(&b) else {
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
