//! The vendor files around the two-clock top: the filelist, the Vivado and Quartus
//! out-of-context scripts and settings, and the IP Integrator wrapper.

use super::*;

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
