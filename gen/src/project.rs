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

fn freq_hz(mhz: f64) -> u64 {
    (mhz * 1e6).round() as u64
}

/// The filelist (one path per line, relative to the output folder).
pub fn filelist(cfg: &PrnicConfig, header: &str) -> String {
    let mut s = String::new();
    for l in header.lines() {
        let _ = writeln!(s, "// {}", l.trim_start_matches("# "));
    }
    let _ = writeln!(
        s,
        "// Sources of {TOP2} (clk_mac {} MHz, clk_host {} MHz), relative to the output folder; read them in this order.",
        cfg.clock.mhz, cfg.clock.host_mhz
    );
    for f in sources() {
        let _ = writeln!(s, "{f}");
    }
    s
}

/// A non-project Vivado script: out-of-context synthesis, place and route of `prnic_2clk`
/// for the configured part, with the timing summary and utilisation written out.
pub fn vivado_tcl(cfg: &PrnicConfig, header: &str) -> String {
    let mut s = String::from(header);
    let _ = write!(
        s,
        "# Out-of-context compile of {TOP2} ({TOP} on clk_mac with its clk_host crossings) in
# Vivado (non-project mode), through the IP Integrator wrapper {WRAPPER} (the same
# ports, with interface attributes):
#   vivado -mode batch -source project/vivado_ooc.tcl [-tclargs <part> [<run folder>]]
# The part defaults to fpga.vivado_part of the config; results go to <run folder>
# (default: ooc_run in the current folder): post-route checkpoint, timing summary,
# clock-domain crossing and bus-skew reports, utilisation, and a timing_met /
# timing_failed marker. Exit status 1 if setup or hold slack is negative.

set here [file dirname [file normalize [info script]]]
set root [file dirname $here]
set part {{{part}}}
set run [file join [pwd] ooc_run]
if {{$argc >= 1}} {{ set part [lindex $argv 0] }}
if {{$argc >= 2}} {{ set run [file normalize [lindex $argv 1]] }}
file mkdir $run

",
        part = cfg.fpga.vivado_part
    );
    for f in sources() {
        let _ = writeln!(s, "read_verilog [file join $root {f}]");
    }
    let _ = write!(
        s,
        "read_xdc -mode out_of_context [file join $root constraints/prnic.xdc]
set_property USED_IN {{synthesis implementation out_of_context}} [get_files prnic.xdc]

synth_design -top {WRAPPER} -part $part -mode out_of_context -flatten_hierarchy rebuilt
write_checkpoint -force [file join $run post_synth.dcp]
report_utilization -file [file join $run utilization_synth.rpt]
opt_design
place_design
phys_opt_design
route_design
write_checkpoint -force [file join $run post_route.dcp]
report_timing_summary -max_paths 20 -file [file join $run timing_summary.rpt]
report_utilization -file [file join $run utilization.rpt]
# The crossings: every path between the clocks should be one of the FIFOs' (prnic.xdc).
report_cdc -details -file [file join $run cdc.rpt]
report_bus_skew -file [file join $run bus_skew.rpt]
set wns [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -setup]]
set whs [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -hold]]
puts \"prnic: {TOP2} at {mhz} MHz (clk_mac), {host} MHz (clk_host) on $part: worst setup slack $wns ns, worst hold slack $whs ns\"
if {{($wns ne {{}} && $wns < 0) || ($whs ne {{}} && $whs < 0)}} {{
    close [open [file join $run timing_failed] w]
    exit 1
}}
close [open [file join $run timing_met] w]
",
        mhz = cfg.clock.mhz,
        host = cfg.clock.host_mhz
    );
    s
}

/// The Quartus IP file: the Verilog and the SDC, relative to the `.qip` itself (the
/// IP Integrator wrapper is Vivado's alone).
pub fn qip(header: &str) -> String {
    let mut s = String::from(header);
    s.push_str("# Add to a Quartus project with: set_global_assignment -name QIP_FILE <out>/project/prnic.qip\n");
    for f in sources().iter().filter(|f| !f.contains(WRAPPER)) {
        let _ = writeln!(
            s,
            "set_global_assignment -name VERILOG_FILE [file join $::quartus(qip_path) .. {f}]"
        );
    }
    s.push_str(
        "set_global_assignment -name SDC_FILE [file join $::quartus(qip_path) .. constraints/prnic.sdc]\n",
    );
    s
}

/// A `.qsf` fragment for an out-of-context compile with `prnic_2clk` as the top: the
/// device and every port but the clocks a virtual pin (8,000-odd port bits cannot go to
/// device pins). Plain assignments, so it can be pasted into a project's `.qsf` (then add
/// `project/prnic.qip` as a `QIP_FILE`) or sourced with the project open, as
/// `quartus_ooc.tcl` does.
pub fn qsf(cfg: &PrnicConfig, top: &TwoClockTop, header: &str) -> String {
    let mut s = String::from(header);
    let _ = write!(
        s,
        "# Out-of-context settings for {TOP2} (project/quartus_ooc.tcl applies them).
set_global_assignment -name FAMILY \"{fam}\"
set_global_assignment -name DEVICE {dev}
set_global_assignment -name TOP_LEVEL_ENTITY {TOP2}
",
        fam = cfg.fpga.quartus_family,
        dev = cfg.fpga.quartus_device
    );
    for (p, _) in top.ports.iter().filter(|(_, d)| *d != Domain::Clock) {
        let target = if p.bits == 1 {
            p.name.clone()
        } else {
            format!("{{{}[*]}}", p.name)
        };
        let _ = writeln!(
            s,
            "set_instance_assignment -name VIRTUAL_PIN ON -to {target}"
        );
    }
    // Both stages of every pointer synchronizer (prnic.sdc bounds the paths into them).
    // FORCED, not FORCED IF ASYNCHRONOUS: Quartus takes all clocks as related unless a
    // clock group says otherwise, and prnic.sdc leaves that to the shell.
    for stage in ["stage1", "stage2"] {
        let _ = writeln!(
            s,
            "set_instance_assignment -name SYNCHRONIZER_IDENTIFICATION FORCED -to {{*|sync_ff|{stage}*}}"
        );
    }
    s
}

/// The Quartus counterpart of `vivado_tcl`: a new project in a run folder with the `.qsf`
/// fragment and the `.qip`, compiled.
pub fn quartus_tcl(header: &str) -> String {
    let mut s = String::from(header);
    let _ = write!(
        s,
        "# Out-of-context compile of {TOP2} in Quartus Prime Pro:
#   quartus_sh -t project/quartus_ooc.tcl [<run folder>]
# Creates project prnic_ooc in <run folder> (default: quartus_run in the current folder)
# with project/prnic_ooc.qsf and project/prnic.qip, then runs the full compile; the
# timing reports are in <run folder>/output_files.

package require ::quartus::project
package require ::quartus::flow

set here [file dirname [file normalize [info script]]]
set run [file join [pwd] quartus_run]
if {{[llength $quartus(args)] >= 1}} {{ set run [file normalize [lindex $quartus(args) 0]] }}
file mkdir $run
cd $run
project_new -overwrite -revision prnic_ooc prnic_ooc
source [file join $here prnic_ooc.qsf]
set_global_assignment -name QIP_FILE [file join $here prnic.qip]
export_assignments
execute_flow -compile
project_close
"
    );
    s
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

/// The IP Integrator wrapper: the same ports as `prnic_2clk`, each AXI port tagged with
/// its interface (`X_INTERFACE_INFO`), each interface's parameters (its clock's frequency
/// among them) on its first port, each clock associated with the interfaces of its domain
/// and with the reset.
pub fn wrapper(cfg: &PrnicConfig, top: &TwoClockTop, header: &str) -> String {
    let ports = top.port_list();
    let ifs = interfaces(&ports);
    let domain_of = |i: &Interface| top.domain(&i.ports[0].0.name).unwrap_or(Domain::Mac);
    let clocks = [
        ("clk_mac", Domain::Mac, freq_hz(cfg.clock.mhz)),
        ("clk_host", Domain::Host, freq_hz(cfg.clock.host_mhz)),
    ];
    let hz_of = |d: Domain| clocks.iter().find(|c| c.1 == d).map_or(0, |c| c.2);
    let mut attr: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    for (clk, d, hz) in clocks {
        let busif: Vec<&str> = ifs
            .iter()
            .filter(|i| domain_of(i) == d)
            .map(|i| i.name.as_str())
            .collect();
        attr.entry(clk).or_default().extend([
            format!("(* X_INTERFACE_INFO = \"xilinx.com:signal:clock:1.0 {clk} CLK\" *)"),
            format!(
                "(* X_INTERFACE_PARAMETER = \"XIL_INTERFACENAME {clk}, ASSOCIATED_BUSIF {}, ASSOCIATED_RESET rst, FREQ_HZ {hz}\" *)",
                busif.join(":")
            ),
        ]);
    }
    attr.entry("rst").or_default().extend([
        "(* X_INTERFACE_INFO = \"xilinx.com:signal:reset:1.0 rst RST\" *)".to_string(),
        "(* X_INTERFACE_PARAMETER = \"XIL_INTERFACENAME rst, POLARITY ACTIVE_HIGH\" *)".to_string(),
    ]);
    for i in &ifs {
        let hz = hz_of(domain_of(i));
        for (n, (p, sig)) in i.ports.iter().enumerate() {
            let bits = |s: &str| i.width(s);
            let (vlnv, extra) = match i.kind {
                Kind::Axis { .. } => {
                    let has = |s: &str| u8::from(bits(s) > 0);
                    (
                        "xilinx.com:interface:axis:1.0",
                        format!(
                            "TDATA_NUM_BYTES {}, TUSER_WIDTH {}, HAS_TKEEP {}, HAS_TLAST {}, HAS_TREADY {}, HAS_TSTRB 0, TID_WIDTH 0, TDEST_WIDTH 0",
                            bits("TDATA") / 8,
                            bits("TUSER"),
                            has("TKEEP"),
                            has("TLAST"),
                            has("TREADY")
                        ),
                    )
                }
                Kind::AxiLite => (
                    "xilinx.com:interface:aximm:1.0",
                    format!(
                        "PROTOCOL AXI4LITE, DATA_WIDTH {}, ADDR_WIDTH {}, HAS_PROT 0, HAS_WSTRB 1, HAS_BRESP 1, HAS_RRESP 1",
                        bits("WDATA"),
                        bits("AWADDR")
                    ),
                ),
            };
            let a = attr.entry(p.name.as_str()).or_default();
            a.push(format!(
                "(* X_INTERFACE_INFO = \"{vlnv} {} {sig}\" *)",
                i.name
            ));
            if n == 0 {
                a.push(format!(
                    "(* X_INTERFACE_PARAMETER = \"XIL_INTERFACENAME {}, {extra}, FREQ_HZ {hz}\" *)",
                    i.name
                ));
            }
        }
    }
    let mut s = String::new();
    for l in header.lines() {
        let _ = writeln!(s, "// {}", l.trim_start_matches("# "));
    }
    let _ = write!(
        s,
        "// The {TOP2} ports unchanged, with the attributes Vivado IP Integrator reads to infer
// {n} interfaces (AXI4-Stream and AXI4-Lite), each on its clock: clk_mac at {mac} Hz (MAC
// ports), clk_host at {host} Hz (host streams, CSR); reset `rst` active high, asynchronous
// (synchronized inside to each clock; hold it {stages} cycles of the slower clock or more).
// Ports outside an interface (credit messages, s_pcie_depth, build hash) stay plain ports
// on clk_mac. Read with the sources before it in project/prnic.f.

`default_nettype none
module {WRAPPER} (
",
        n = ifs.len(),
        mac = freq_hz(cfg.clock.mhz),
        host = freq_hz(cfg.clock.host_mhz),
        stages = prnic_rtl::prnic_top::RESET_SYNC_STAGES.max(prnic_rtl::cdc::RESET_SYNC_STAGES) + 1
    );
    let n = ports.len();
    for (k, p) in ports.iter().enumerate() {
        for a in attr.get(p.name.as_str()).into_iter().flatten() {
            let _ = writeln!(s, "    {a}");
        }
        let _ = writeln!(s, "    {}{}", decl(p), if k + 1 < n { "," } else { "" });
    }
    let _ = writeln!(s, ");\n\n    {TOP2} top (");
    for (k, p) in ports.iter().enumerate() {
        let _ = writeln!(
            s,
            "        .{0}({0}){1}",
            p.name,
            if k + 1 < n { "," } else { "" }
        );
    }
    let _ = writeln!(s, "    );\n\nendmodule\n`default_nettype wire");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn three() -> (Module, Module, Module) {
        let m = crate::blocks::modules(PrnicConfig::builtin()).unwrap();
        let find = |n: &str| m.iter().find(|x| x.name == n).unwrap().clone();
        (find(TOP), find(STREAM_CDC), find(CSR_CDC))
    }

    /// The constraints (output.rs) name each FIFO's cells by path: the pointer
    /// registers `wgray`/`rgray` (`gray_ff` with `gray`), the synchronizers' `sync_ff`
    /// with `stage1`, the memory `ram` (`mem`) and `rdata` (`q`). Those names must be in
    /// the Verilog.
    #[test]
    fn the_cells_the_crossing_constraints_name_are_in_the_verilog() {
        let (top, streams, csr) = three();
        let t = two_clock_top(&top, &streams, &csr).unwrap();
        for f in &t.fifos {
            let (inst, path) = f.split_once('/').unwrap();
            let m = if inst == "streams" { &streams } else { &csr };
            let module = |leaf: &str| {
                let name = format!("{}${}${leaf}", m.name, path.replace('/', "$"));
                let start = m
                    .verilog
                    .find(&format!("module {name}("))
                    .unwrap_or_else(|| panic!("{f}: no module {name}"));
                let end = start + m.verilog[start..].find("endmodule").unwrap();
                m.verilog[start..end].to_string()
            };
            assert!(module("rdata").contains("q <= d;"), "{f}/rdata");
            for leaf in ["wgray", "rgray"] {
                assert!(module(leaf).contains(" gray_ff("), "{f}/{leaf}");
                let core = format!("{}_{}_{leaf}", m.name, path.replace('/', "_"));
                let body = &m.verilog[m.verilog.find(&format!("module {core}(")).unwrap()..];
                assert!(body.contains("reg [") && body.contains(" gray "), "{core}");
            }
            assert!(module("ram").contains(" mem ["), "{f}/ram");
            for leaf in ["wsync", "rsync"] {
                let wrapper = module(leaf);
                assert!(wrapper.contains(" sync_ff("), "{f}/{leaf}");
                let core = format!("{}_{}_{leaf}", m.name, path.replace('/', "_"));
                let body = &m.verilog[m.verilog.find(&format!("module {core}(")).unwrap()..];
                assert!(
                    body.contains("reg [") && body.contains(" stage1 "),
                    "{core}"
                );
            }
        }
    }

    #[test]
    fn every_port_is_connected_once_on_the_right_clock() {
        let (top, streams, csr) = three();
        let t = two_clock_top(&top, &streams, &csr).unwrap();
        let conn = |inst: &str, port: &str| {
            let i = t.instances.iter().find(|i| i.name == inst).unwrap();
            i.conns.iter().find(|(p, _)| p == port).unwrap().1.clone()
        };
        assert_eq!(conn("core", "clk"), "clk_mac");
        assert_eq!(conn("streams", "clk_mac"), "clk_mac");
        assert_eq!(conn("streams", "clk_host"), "clk_host");
        assert_eq!(conn("csr", "clk_m"), "clk_mac");
        assert_eq!(conn("csr", "clk_s"), "clk_host");
        // The core's host streams and CSR port reach the top only through the crossings.
        assert_eq!(conn("core", "s_axis_tx_tdata"), "core_s_axis_tx_tdata");
        assert_eq!(
            conn("streams", "m_axis_core_tx_tdata"),
            "core_s_axis_tx_tdata"
        );
        assert_eq!(conn("streams", "s_axis_tx_tdata"), "s_axis_tx_tdata");
        assert_eq!(conn("core", "m_axis_cqe_tready"), "core_m_axis_cqe_tready");
        assert_eq!(conn("csr", "m_axil_rdata"), "core_s_axil_rdata");
        assert_eq!(conn("csr", "s_axil_rdata"), "s_axil_rdata");
        // The constraints name every asynchronous FIFO by its path.
        assert_eq!(
            t.fifos,
            [
                "streams/ack",
                "streams/place",
                "streams/tx",
                "csr/req",
                "csr/rsp"
            ]
        );
        for (name, d) in [
            ("s_axis_tx_tdata", Domain::Host),
            ("m_axis_place_tuser", Domain::Host),
            ("m_axis_ack_tready", Domain::Host),
            ("s_axil_awaddr", Domain::Host),
            ("s_axis_port1_rx_tuser", Domain::Mac),
            ("m_axis_port0_tx_tready", Domain::Mac),
            ("s_credit_send_valid", Domain::Mac),
            ("s_pcie_depth", Domain::Mac),
            ("id_build_hash", Domain::Static),
            ("rst", Domain::Async),
            ("clk_host", Domain::Clock),
        ] {
            assert_eq!(t.domain(name), Some(d), "{name}");
        }
        // Each core port once, and the top has every port of the core but its clock and
        // the streams it hands to the crossings, plus the two clocks.
        let core_own = top
            .ports
            .iter()
            .filter(|p| conn("core", &p.name) == p.name)
            .count();
        let host = t.ports.iter().filter(|(_, d)| *d == Domain::Host).count();
        assert_eq!(t.ports.len(), core_own + host + 2);
    }

    #[test]
    fn a_port_left_over_or_a_width_that_differs_is_refused() {
        let (top, streams, csr) = three();
        let mut s = streams.clone();
        s.ports.retain(|p| p.name != "m_axis_core_tx_tlast");
        let e = two_clock_top(&top, &s, &csr).unwrap_err().0;
        assert!(e.contains("s_axis_tx_tlast"), "{e}");
        let mut s = streams.clone();
        s.ports
            .iter_mut()
            .find(|p| p.name == "s_axis_core_place_tuser")
            .unwrap()
            .bits -= 1;
        let e = two_clock_top(&top, &s, &csr).unwrap_err().0;
        assert!(e.contains("core_m_axis_place_tuser"), "{e}");
        let mut c = csr.clone();
        c.ports.push(Port {
            name: "m_axil_extra".into(),
            dir: Dir::Output,
            bits: 1,
        });
        let e = two_clock_top(&top, &streams, &c).unwrap_err().0;
        assert!(e.contains("m_axil_extra"), "{e}");
    }
}
