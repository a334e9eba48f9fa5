//! Project files for an out-of-context compile of `prnic_top` in a vendor tool: a
//! filelist, a non-project Vivado script, a Quartus `.qip` and `.qsf` fragment, and a
//! thin Verilog wrapper whose attributes let Vivado IP Integrator infer the AXI4-Stream
//! and AXI4-Lite interfaces with their clock and reset (docs/integration.md).
//!
//! Every path the scripts name is relative to the output folder (`prnic generate --out`),
//! found from the script's own location, so the folder can be moved as a whole.

use crate::blocks::{Dir, Module, Port};
use crate::config::PrnicConfig;
use std::fmt::Write as _;

/// The top module compiled out of context, and its wrapper.
pub const TOP: &str = "prnic_top";
pub const WRAPPER: &str = "prnic_top_ipi";

/// The sources of an out-of-context compile, relative to the output folder, in order.
pub fn sources() -> Vec<String> {
    vec![format!("verilog/{TOP}.v"), format!("project/{WRAPPER}.v")]
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
pub fn interfaces(top: &Module) -> Vec<Interface> {
    let mut out: Vec<Interface> = vec![];
    for p in &top.ports {
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

fn freq_hz(cfg: &PrnicConfig) -> u64 {
    (cfg.clock.mhz * 1e6).round() as u64
}

/// The filelist (one path per line, relative to the output folder).
pub fn filelist(cfg: &PrnicConfig, header: &str) -> String {
    let mut s = String::new();
    for l in header.lines() {
        let _ = writeln!(s, "// {}", l.trim_start_matches("# "));
    }
    let _ = writeln!(
        s,
        "// Sources of {TOP} at {} MHz, relative to the output folder; read them in this order.",
        cfg.clock.mhz
    );
    for f in sources() {
        let _ = writeln!(s, "{f}");
    }
    s
}

/// A non-project Vivado script: out-of-context synthesis, place and route of `prnic_top`
/// for the configured part, with the timing summary and utilisation written out.
pub fn vivado_tcl(cfg: &PrnicConfig, header: &str) -> String {
    let mut s = String::from(header);
    let _ = write!(
        s,
        "# Out-of-context compile of {TOP} in Vivado (non-project mode), through the IP
# Integrator wrapper {WRAPPER} (the same ports, with interface attributes):
#   vivado -mode batch -source project/vivado_ooc.tcl [-tclargs <part> [<run folder>]]
# The part defaults to fpga.vivado_part of the config; results go to <run folder>
# (default: ooc_run in the current folder): post-route checkpoint, timing summary,
# utilisation, and a timing_met / timing_failed marker. Exit status 1 if timing fails.

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
set wns [get_property SLACK [get_timing_paths -max_paths 1 -nworst 1 -setup]]
puts \"prnic: {TOP} at {mhz} MHz on $part: worst setup slack $wns ns\"
if {{$wns ne {{}} && $wns < 0}} {{
    close [open [file join $run timing_failed] w]
    exit 1
}}
close [open [file join $run timing_met] w]
",
        mhz = cfg.clock.mhz
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

/// A `.qsf` fragment for an out-of-context compile with `prnic_top` as the top: the
/// device and every port but the clock a virtual pin (8,000-odd port bits cannot go to
/// device pins). Plain assignments, so it can be pasted into a project's `.qsf` (then add
/// `project/prnic.qip` as a `QIP_FILE`) or sourced with the project open, as
/// `quartus_ooc.tcl` does.
pub fn qsf(cfg: &PrnicConfig, top: &Module, header: &str) -> String {
    let mut s = String::from(header);
    let _ = write!(
        s,
        "# Out-of-context settings for {TOP} (project/quartus_ooc.tcl applies them).
set_global_assignment -name FAMILY \"{fam}\"
set_global_assignment -name DEVICE {dev}
set_global_assignment -name TOP_LEVEL_ENTITY {TOP}
",
        fam = cfg.fpga.quartus_family,
        dev = cfg.fpga.quartus_device
    );
    for p in top.ports.iter().filter(|p| p.name != "clk") {
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
    s
}

/// The Quartus counterpart of `vivado_tcl`: a new project in a run folder with the `.qsf`
/// fragment and the `.qip`, compiled.
pub fn quartus_tcl(header: &str) -> String {
    let mut s = String::from(header);
    let _ = write!(
        s,
        "# Out-of-context compile of {TOP} in Quartus Prime Pro:
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

/// The IP Integrator wrapper: the same ports as `prnic_top`, each AXI port tagged with its
/// interface (`X_INTERFACE_INFO`), each interface's parameters on its first port, and the
/// clock associated with every interface and with the reset.
pub fn wrapper(cfg: &PrnicConfig, top: &Module, header: &str) -> String {
    let ifs = interfaces(top);
    let hz = freq_hz(cfg);
    let mut attr: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    let busif: Vec<&str> = ifs.iter().map(|i| i.name.as_str()).collect();
    attr.entry("clk").or_default().extend([
        "(* X_INTERFACE_INFO = \"xilinx.com:signal:clock:1.0 clk CLK\" *)".to_string(),
        format!(
            "(* X_INTERFACE_PARAMETER = \"XIL_INTERFACENAME clk, ASSOCIATED_BUSIF {}, ASSOCIATED_RESET rst, FREQ_HZ {hz}\" *)",
            busif.join(":")
        ),
    ]);
    attr.entry("rst").or_default().extend([
        "(* X_INTERFACE_INFO = \"xilinx.com:signal:reset:1.0 rst RST\" *)".to_string(),
        "(* X_INTERFACE_PARAMETER = \"XIL_INTERFACENAME rst, POLARITY ACTIVE_HIGH\" *)".to_string(),
    ]);
    for i in &ifs {
        for (n, (p, sig)) in i.ports.iter().enumerate() {
            let (vlnv, extra) = match i.kind {
                Kind::Axis { .. } => {
                    let bits = |s: &str| i.width(s);
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
                Kind::AxiLite => {
                    let bits = |s: &str| i.width(s);
                    (
                        "xilinx.com:interface:aximm:1.0",
                        format!(
                            "PROTOCOL AXI4LITE, DATA_WIDTH {}, ADDR_WIDTH {}, HAS_PROT 0, HAS_WSTRB 1, HAS_BRESP 1, HAS_RRESP 1",
                            bits("WDATA"),
                            bits("AWADDR")
                        ),
                    )
                }
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
        "// The {TOP} ports unchanged, with the attributes Vivado IP Integrator reads to infer
// {n} interfaces (AXI4-Stream and AXI4-Lite) on clock `clk` at {hz} Hz, reset `rst`
// active high (synchronized inside; hold it {stages} cycles or more). Ports outside an
// interface (credit messages, build hash) stay plain ports. Read together with
// verilog/{TOP}.v (project/prnic.f).

`default_nettype none
module {WRAPPER} (
",
        n = ifs.len(),
        stages = prnic_rtl::prnic_top::RESET_SYNC_STAGES
    );
    let n = top.ports.len();
    for (k, p) in top.ports.iter().enumerate() {
        for a in attr.get(p.name.as_str()).into_iter().flatten() {
            let _ = writeln!(s, "    {a}");
        }
        let _ = writeln!(s, "    {}{}", decl(p), if k + 1 < n { "," } else { "" });
    }
    let _ = writeln!(s, ");\n\n    {TOP} core (");
    for (k, p) in top.ports.iter().enumerate() {
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
