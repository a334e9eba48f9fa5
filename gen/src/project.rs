//! Project files for an out-of-context compile of the two-clock top `prnic_2clk` in a
//! vendor tool: the top itself (structural Verilog: `prnic_top` on `clk_mac` with the
//! host-stream crossing `host_cdc` and the CSR crossing `axil_cdc` to `clk_host`), a
//! filelist, a non-project Vivado script, a Quartus `.qip` and `.qsf` fragment, and a
//! thin Verilog wrapper whose attributes let Vivado IP Integrator infer the AXI4-Stream
//! and AXI4-Lite interfaces with their clock and reset (docs/integration.md).
//!
//! Every path the scripts name is relative to the output folder (`prnic generate --out`),
//! found from the script's own location, so the folder can be moved as a whole.

use crate::blocks::{Dir, GenError, Module, Port};
use crate::config::PrnicConfig;
use std::fmt::Write as _;

/// The single-clock core, the two-clock top compiled out of context, and its wrapper.
pub const TOP: &str = "prnic_top";
pub const TOP2: &str = "prnic_2clk";
pub const WRAPPER: &str = "prnic_2clk_ipi";
/// The crossings `prnic_2clk` instantiates around `prnic_top`.
pub const STREAM_CDC: &str = "host_cdc";
pub const CSR_CDC: &str = "axil_cdc";

/// The sources of an out-of-context compile, relative to the output folder, in order.
pub fn sources() -> Vec<String> {
    vec![
        format!("verilog/{TOP}.v"),
        format!("verilog/{STREAM_CDC}.v"),
        format!("verilog/{CSR_CDC}.v"),
        format!("project/{TOP2}.v"),
        format!("project/{WRAPPER}.v"),
    ]
}

/// Which clock a port of `prnic_2clk` is timed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Domain {
    /// The wire side: MAC ports, credit messages, `s_pcie_depth`.
    Mac,
    /// The host side: host streams and the CSR port.
    Host,
    /// A clock input.
    Clock,
    /// `rst`: asynchronous, synchronized inside to each clock.
    Async,
    /// `id_build_hash`: a constant the integrator ties off.
    Static,
}

/// One instance in `prnic_2clk`: module, instance name, and (port, net) for every port.
#[derive(Debug, Clone)]
pub struct Instance {
    pub module: &'static str,
    pub name: &'static str,
    pub conns: Vec<(String, String)>,
}

/// The two-clock top: its ports with their domains, internal wires, and instances.
#[derive(Debug, Clone)]
pub struct TwoClockTop {
    pub ports: Vec<(Port, Domain)>,
    pub wires: Vec<(String, usize)>,
    pub instances: Vec<Instance>,
    /// The asynchronous FIFOs, by instance path from the top (`csr/req`): each is one
    /// Gray write pointer and one Gray read pointer into a synchronizer and a memory
    /// read on the other clock, the only paths between the two clocks.
    pub fifos: Vec<String>,
}

impl TwoClockTop {
    pub fn port_list(&self) -> Vec<Port> {
        self.ports.iter().map(|(p, _)| p.clone()).collect()
    }
    pub fn domain(&self, port: &str) -> Option<Domain> {
        self.ports
            .iter()
            .find(|(p, _)| p.name == port)
            .map(|(_, d)| *d)
    }
}

/// The core-side name in `host_cdc` of `prnic_top`'s host stream port `name`
/// (`s_axis_tx_tdata` → `m_axis_core_tx_tdata`): the direction prefix flips, `core_`
/// follows `axis_`.
fn core_side(name: &str) -> Option<String> {
    let (dir, rest) = name.split_at_checked(2)?;
    let rest = rest.strip_prefix("axis_")?;
    let flip = match dir {
        "s_" => "m_",
        "m_" => "s_",
        _ => return None,
    };
    Some(format!("{flip}axis_core_{rest}"))
}

/// Wire `prnic_top` (on `clk_mac`), `host_cdc` and `axil_cdc` into `prnic_2clk` by name:
/// a `prnic_top` port that `host_cdc` also has on its host side goes through `host_cdc`
/// (whose port of that name becomes the top's); `prnic_top`'s `s_axil_*` go through
/// `axil_cdc`'s `m_axil_*` (its `s_axil_*` become the top's); clocks and reset are shared;
/// every other `prnic_top` port is the top's own, on `clk_mac`. Fails naming the port if
/// any instance port is left unconnected, a net has no driver or two, or widths differ.
pub fn two_clock_top(
    top: &Module,
    streams: &Module,
    csr: &Module,
) -> Result<TwoClockTop, GenError> {
    let err = |m: String| GenError(format!("{TOP2}: {m}"));
    let has = |m: &Module, n: &str| m.ports.iter().any(|p| p.name == n);
    let mut ports: Vec<(Port, Domain)> = vec![];
    let clock = |n: &str| Port {
        name: n.to_string(),
        dir: Dir::Input,
        bits: 1,
    };
    ports.push((clock("clk_mac"), Domain::Clock));
    ports.push((clock("clk_host"), Domain::Clock));
    ports.push((clock("rst"), Domain::Async));
    let mut core = vec![];
    let mut s_conns = vec![];
    let mut c_conns = vec![];
    for p in &top.ports {
        let n = p.name.as_str();
        let net = match n {
            "clk" => "clk_mac".to_string(),
            "rst" => "rst".to_string(),
            _ if has(streams, n) && core_side(n).is_some_and(|c| has(streams, &c)) => {
                let wire = format!("core_{n}");
                s_conns.push((core_side(n).unwrap(), wire.clone()));
                wire
            }
            _ if n.starts_with("s_axil_") => {
                let wire = format!("core_{n}");
                c_conns.push((n.replacen("s_axil_", "m_axil_", 1), wire.clone()));
                wire
            }
            _ => {
                let d = if n == "id_build_hash" {
                    Domain::Static
                } else {
                    Domain::Mac
                };
                ports.push((p.clone(), d));
                n.to_string()
            }
        };
        core.push((n.to_string(), net));
    }
    for (m, conns, clocks) in [
        (
            streams,
            &mut s_conns,
            [("clk_host", "clk_host"), ("clk_mac", "clk_mac")],
        ),
        (
            csr,
            &mut c_conns,
            [("clk_s", "clk_host"), ("clk_m", "clk_mac")],
        ),
    ] {
        for p in &m.ports {
            let n = p.name.as_str();
            if conns.iter().any(|(q, _)| q == n) {
                continue;
            }
            let net = if let Some((_, net)) = clocks.iter().find(|(c, _)| *c == n) {
                net.to_string()
            } else if n == "rst" {
                "rst".to_string()
            } else if has(top, n) && !n.contains("_core_") && !n.starts_with("m_axil_") {
                ports.push((p.clone(), Domain::Host));
                n.to_string()
            } else {
                return Err(err(format!("{}.{n} has no counterpart", m.name)));
            };
            conns.push((n.to_string(), net));
        }
    }
    let instances = vec![
        Instance {
            module: TOP,
            name: "core",
            conns: core,
        },
        Instance {
            module: STREAM_CDC,
            name: "streams",
            conns: s_conns,
        },
        Instance {
            module: CSR_CDC,
            name: "csr",
            conns: c_conns,
        },
    ];
    // Check every net: one driver (an output, or an input port of the top), widths equal.
    let modules = [top, streams, csr];
    let mut nets: std::collections::BTreeMap<String, Vec<(usize, bool)>> = Default::default();
    for (i, m) in instances.iter().zip(modules) {
        if i.conns.len() != m.ports.len() {
            return Err(err(format!("{} has unconnected ports", m.name)));
        }
        for (port, net) in &i.conns {
            let p = m
                .ports
                .iter()
                .find(|p| &p.name == port)
                .ok_or_else(|| err(format!("{}.{port} does not exist", m.name)))?;
            nets.entry(net.clone())
                .or_default()
                .push((p.bits, p.dir == Dir::Output));
        }
    }
    for (p, _) in &ports {
        nets.entry(p.name.clone())
            .or_default()
            .push((p.bits, p.dir == Dir::Input));
    }
    let mut wires = vec![];
    for (net, ends) in &nets {
        let drivers = ends.iter().filter(|(_, d)| *d).count();
        if drivers != 1 || ends.iter().any(|(b, _)| *b != ends[0].0) || ends.len() < 2 {
            return Err(err(format!(
                "net {net}: {drivers} drivers, {} ends, widths {:?}",
                ends.len(),
                ends.iter().map(|e| e.0).collect::<Vec<_>>()
            )));
        }
        if !ports.iter().any(|(p, _)| &p.name == net) {
            wires.push((net.clone(), ends[0].0));
        }
    }
    let mut fifos = vec![];
    for (i, m) in instances.iter().zip(modules) {
        fifos.extend(
            async_fifos(m)
                .into_iter()
                .map(|f| format!("{}/{f}", i.name)),
        );
    }
    if fifos.is_empty() {
        return Err(err("no asynchronous FIFO found in the crossings".into()));
    }
    Ok(TwoClockTop {
        ports,
        wires,
        instances,
        fifos,
    })
}

/// The asynchronous FIFOs inside `m`, by instance path (`req`, `tx`): rust-hdl names each
/// submodule by its path (`axil_cdc$req$wsync`), and every FIFO has a write-pointer
/// synchronizer `wsync` (rtl/src/cdc.rs).
pub fn async_fifos(m: &Module) -> Vec<String> {
    let prefix = format!("module {}$", m.name);
    m.verilog
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix))
        .filter_map(|l| l.split('(').next())
        .filter_map(|name| name.strip_suffix("$wsync"))
        .map(|path| path.replace('$', "/"))
        .collect()
}

/// `prnic_2clk` as structural Verilog.
pub fn two_clock_verilog(cfg: &PrnicConfig, t: &TwoClockTop, header: &str) -> String {
    let mut s = String::new();
    for l in header.lines() {
        let _ = writeln!(s, "// {}", l.trim_start_matches("# "));
    }
    let _ = write!(
        s,
        "// {TOP2}: {TOP} on two clocks, as a NIC shell instantiates it. The wire side (MAC
// ports, credit messages, s_pcie_depth) runs on clk_mac ({mac} MHz, {TOP}'s clock); the
// host streams (s_axis_tx, m_axis_place, m_axis_cqe, m_axis_ack) and the AXI4-Lite CSR
// port run on clk_host ({host} MHz) and cross in {STREAM_CDC} and {CSR_CDC} (asynchronous
// FIFOs, Gray-coded pointers, two-flop synchronizers). `rst` may be asynchronous to both
// clocks: each block synchronizes it to its own. Read with verilog/{TOP}.v,
// verilog/{STREAM_CDC}.v and verilog/{CSR_CDC}.v (project/prnic.f); docs/integration.md.

`default_nettype none
module {TOP2} (
",
        mac = cfg.clock.mhz,
        host = cfg.clock.host_mhz,
    );
    let n = t.ports.len();
    for (k, (p, _)) in t.ports.iter().enumerate() {
        let _ = writeln!(s, "    {}{}", decl(p), if k + 1 < n { "," } else { "" });
    }
    s.push_str(
        ");

",
    );
    for (net, bits) in &t.wires {
        if *bits == 1 {
            let _ = writeln!(s, "    wire {net};");
        } else {
            let _ = writeln!(s, "    wire [{}:0] {net};", bits - 1);
        }
    }
    for i in &t.instances {
        let _ = writeln!(
            s,
            "
    {} {} (",
            i.module, i.name
        );
        let n = i.conns.len();
        for (k, (port, net)) in i.conns.iter().enumerate() {
            let _ = writeln!(
                s,
                "        .{port}({net}){}",
                if k + 1 < n { "," } else { "" }
            );
        }
        s.push_str(
            "    );
",
        );
    }
    s.push_str(
        "
endmodule
`default_nettype wire
",
    );
    s
}

/// One bus interface of the top: its name (the common port prefix), kind and ports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    pub name: String,
    pub kind: Kind,
    /// (port, the interface's logical signal name, e.g. `TDATA`).
    pub ports: Vec<(Port, String)>,
}

impl Interface {
    /// The width of logical signal `sig` (`TDATA`...), 0 when the interface lacks it.
    pub fn width(&self, sig: &str) -> usize {
        self.ports
            .iter()
            .find(|(_, x)| x == sig)
            .map_or(0, |(p, _)| p.bits)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// AXI4-Stream; `master` when the interface drives `tvalid`.
    Axis { master: bool },
    /// AXI4-Lite slave.
    AxiLite,
}

const AXIS_SIGNALS: [&str; 6] = ["tdata", "tkeep", "tvalid", "tready", "tlast", "tuser"];
const AXIL_SIGNALS: [&str; 17] = [
    "awaddr", "awprot", "awvalid", "awready", "wdata", "wstrb", "wvalid", "wready", "bresp",
    "bvalid", "bready", "araddr", "arprot", "arvalid", "arready", "rdata", "rresp",
];

/// Group the top's ports into interfaces by name: `{s,m}_axis_<x>_t*` are AXI4-Stream,
/// `s_axil_*` AXI4-Lite. Other ports (clock, reset, the credit message ports, the build
/// hash) stay plain. An AXI4-Stream group must have `tvalid`, or it is not one.
pub fn interfaces(ports: &[Port]) -> Vec<Interface> {
    let mut out: Vec<Interface> = vec![];
    for p in ports {
        let found = if let Some(rest) = p.name.strip_prefix("s_axil_") {
            (AXIL_SIGNALS.contains(&rest) || rest == "rvalid" || rest == "rready").then(|| {
                (
                    "s_axil".to_string(),
                    Kind::AxiLite,
                    rest.to_ascii_uppercase(),
                )
            })
        } else if p.name.starts_with("s_axis_") || p.name.starts_with("m_axis_") {
            p.name.rsplit_once('_').and_then(|(base, sig)| {
                AXIS_SIGNALS.contains(&sig).then(|| {
                    (
                        base.to_string(),
                        Kind::Axis {
                            master: p.name.starts_with('m'),
                        },
                        sig.to_ascii_uppercase(),
                    )
                })
            })
        } else {
            None
        };
        if let Some((name, kind, sig)) = found {
            match out.iter_mut().find(|i| i.name == name) {
                Some(i) => i.ports.push((p.clone(), sig)),
                None => out.push(Interface {
                    name,
                    kind,
                    ports: vec![(p.clone(), sig)],
                }),
            }
        }
    }
    out.retain(|i| match i.kind {
        Kind::Axis { .. } => i.ports.iter().any(|(_, s)| s == "TVALID"),
        Kind::AxiLite => true,
    });
    out
}

fn decl(p: &Port) -> String {
    let dir = match p.dir {
        Dir::Input => "input ",
        Dir::Output => "output",
    };
    if p.bits == 1 {
        format!("{dir} wire {}", p.name)
    } else {
        format!("{dir} wire [{}:0] {}", p.bits - 1, p.name)
    }
}

mod vendor;
pub use vendor::{filelist, qip, qsf, quartus_tcl, vivado_tcl, wrapper};

#[cfg(test)]
mod tests;
