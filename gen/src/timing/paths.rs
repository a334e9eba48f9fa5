//! Register-to-register paths: arrival times propagated through the combinational cells
//! of a mapped netlist, from every start point to every end point.

use super::netlist::{
    is_clock_pin, lutram_arc, parse_netlist, point, readable, role, Cell, Graph, Netlist, Role,
};
use super::{DelayModel, ModuleTiming, Path_, Point, PointKind, Step, TimingError};
use std::collections::HashMap;

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

impl Starts {
    /// A start point driving net bit `b`, leaving after `tco`.
    fn add(&mut self, arr: &mut HashMap<u32, Arrival>, point: Point, tco: f64, b: u32) {
        arr.insert(
            b,
            Arrival {
                delay: tco,
                levels: 0.0,
                start: self.list.len(),
                prev: None,
            },
        );
        self.list.push((point, tco));
    }
}

/// The bits of the top's input (`outputs` false) or output ports, each with its label:
/// the port's name, indexed when the port is wider than one bit.
fn port_bits(nl: &Netlist, outputs: bool) -> impl Iterator<Item = (String, u32)> + '_ {
    nl.ports
        .iter()
        .filter(move |(_, out, _)| *out == outputs)
        .flat_map(|(name, _, bits)| {
            bits.iter().enumerate().filter_map(move |(bi, b)| {
                let label = if bits.len() == 1 {
                    name.clone()
                } else {
                    format!("{name}[{bi}]")
                };
                b.map(|b| (label, b))
            })
        })
}

/// The netlist's clocked cells (flip-flops, RAMs, hard blocks) with their roles.
fn clocked_cells(nl: &Netlist) -> impl Iterator<Item = (&Cell, Role)> {
    nl.cells.iter().filter_map(|c| {
        let r = role(&c.ty).unwrap();
        (r != Role::Comb).then_some((c, r))
    })
}

/// A clocked cell's name as a start or end point label.
fn cell_label(c: &Cell) -> String {
    c.name.trim_start_matches('\\').to_string()
}

/// Analyse a JSON netlist written by [`map_with_yosys`](super::map_with_yosys).
pub fn analyse(
    json_text: &str,
    top: &str,
    period_ns: f64,
    m: &DelayModel,
) -> Result<ModuleTiming, TimingError> {
    let t0 = std::time::Instant::now();
    let g = Graph::new(parse_netlist(json_text, top)?)?;
    let (starts, mut arr, mut bram_unreg) = start_points(&g, m);
    propagate(&g, m, &mut arr)?;
    let Ends {
        reg_paths,
        input_path,
        output_path,
        mut comb_io,
    } = end_points(&g, m, period_ns, &starts, &arr);
    let (nl, driver) = (&g.nl, &g.driver);
    let fanout = |b: u32| g.fanout(b);
    let name_of = |b: u32| g.name_of(b);
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

/// Every start point (input port bits, clocked cell outputs) with its arrival, and the
/// block RAMs read without their output register into logic.
fn start_points(g: &Graph, m: &DelayModel) -> (Starts, HashMap<u32, Arrival>, Vec<String>) {
    let (nl, loads) = (&g.nl, &g.loads);
    let name_of = |b: u32| g.name_of(b);
    // Start points.
    let mut starts = Starts { list: vec![] };
    let mut arr: HashMap<u32, Arrival> = HashMap::new();
    for (label, b) in port_bits(nl, false) {
        starts.add(&mut arr, point(PointKind::Port, &label), 0.0, b);
    }
    let mut bram_unreg = vec![];
    for (c, r) in clocked_cells(nl) {
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
                    cell_label(c)
                };
                starts.add(&mut arr, point(kind, &raw), tco, *b);
                if kind == PointKind::BramOut {
                    let feeds_logic = loads.get(b).is_some_and(|ls| {
                        ls.iter()
                            .any(|(ci, _)| role(&nl.cells[*ci].ty) == Some(Role::Comb))
                    });
                    if feeds_logic {
                        let n = readable(&cell_label(c));
                        if !bram_unreg.contains(&n) {
                            bram_unreg.push(n);
                        }
                    }
                }
            }
        }
    }

    (starts, arr, bram_unreg)
}

/// Arrival at every combinational output, in topological order (an iterative
/// depth-first search over the combinational cells); a loop is an error.
fn propagate(
    g: &Graph,
    m: &DelayModel,
    arr: &mut HashMap<u32, Arrival>,
) -> Result<(), TimingError> {
    let (nl, driver) = (&g.nl, &g.driver);
    let fanout = |b: u32| g.fanout(b);
    let name_of = |b: u32| g.name_of(b);
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

    Ok(())
}

/// The worst path into each end point, kept per (end register, start register) group;
/// the worst from an input port and to an output port; and port-to-port pairs.
struct Ends {
    reg_paths: HashMap<String, Path_>,
    input_path: Option<Path_>,
    output_path: Option<Path_>,
    comb_io: Vec<(String, String)>,
}

fn end_points(
    g: &Graph,
    m: &DelayModel,
    period_ns: f64,
    starts: &Starts,
    arr: &HashMap<u32, Arrival>,
) -> Ends {
    let nl = &g.nl;
    let fanout = |b: u32| g.fanout(b);
    let name_of = |b: u32| g.name_of(b);
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
    for (c, r) in clocked_cells(nl) {
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
                    cell_label(c)
                };
                consider(point(kind, &raw), tsu, *b, arr);
            }
        }
    }
    for (label, b) in port_bits(nl, true) {
        consider(point(PointKind::Port, &label), 0.0, b, arr);
    }
    Ends {
        reg_paths,
        input_path,
        output_path,
        comb_io,
    }
}
