//! The vendor project files `prnic generate` writes (project/, constraints/): without the
//! vendor tools, each script runs in `tclsh` with the vendor commands replaced by stubs
//! that fail on any file that does not exist and record what the flow asked for; the
//! IP Integrator wrapper lints clean in Verilator, Icarus and Yosys; the two-clock top
//! it wraps runs CSR transactions in Icarus on two clocks.

use prnic_gen::{output, project, PrnicConfig};
use std::path::{Path, PathBuf};
use std::process::Command;

fn two_clock_top(cfg: &PrnicConfig) -> project::TwoClockTop {
    let m = prnic_gen::blocks::modules(cfg).unwrap();
    let find = |n: &str| m.iter().find(|x| x.name == n).unwrap();
    project::two_clock_top(
        find(project::TOP),
        find(project::STREAM_CDC),
        find(project::CSR_CDC),
    )
    .unwrap()
}

/// A generated output folder (`out`) in a scratch folder of its own, removed when the
/// test passes and kept for a look when it fails.
struct Generated {
    out: PathBuf,
}

impl std::ops::Deref for Generated {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.out
    }
}

impl Drop for Generated {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(self.out.parent().unwrap());
        }
    }
}

fn generated(tag: &str, cfg: &PrnicConfig) -> Generated {
    let d = std::env::temp_dir().join(format!("prnic-project-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let out = d.join("out");
    output::write_atomically(&out, &output::all_files(cfg).unwrap()).unwrap();
    Generated { out }
}

fn run(cmd: &mut Command) -> (bool, String) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}; run scripts/setup.sh"));
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

/// Run `script` in tclsh after `stubs`, from `cwd`, with `args` as the script's own
/// arguments; the stubs print `CALL <command> <args>` for the test to read.
fn tclsh(stubs: &str, script: &Path, cwd: &Path) -> (bool, String) {
    let driver = cwd.join("driver.tcl");
    std::fs::write(
        &driver,
        format!("{stubs}\nsource {{{}}}\nputs DONE\n", script.display()),
    )
    .unwrap();
    run(Command::new("tclsh").arg(&driver).current_dir(cwd))
}

const VIVADO_STUBS: &str = r#"
set argc 0
set argv {}
proc need {f} { if {![file isfile $f]} { error "missing file: $f" }; puts "CALL file [file normalize $f]" }
proc read_verilog {f} { need $f }
proc read_xdc {args} { need [lindex $args end]; puts "CALL read_xdc $args" }
proc get_files {f} { return $f }
proc set_property {args} { puts "CALL set_property $args" }
proc synth_design {args} { puts "CALL synth_design $args" }
foreach c {opt_design place_design phys_opt_design route_design} { proc $c {args} "puts {CALL $c}" }
proc write_checkpoint {args} { close [open [lindex $args end] w] }
proc report_utilization {args} { close [open [lindex $args end] w] }
proc report_timing_summary {args} { close [open [lindex $args end] w] }
proc report_cdc {args} { close [open [lindex $args end] w] }
proc report_bus_skew {args} { close [open [lindex $args end] w] }
proc get_timing_paths {args} { return path0 }
proc get_property {p o} { return 0.125 }
"#;

#[test]
fn vivado_script_reads_existing_files_and_compiles_out_of_context_for_the_part() {
    let cfg = PrnicConfig::builtin();
    let out = generated("vivado", cfg);
    let run_dir = out.parent().unwrap().to_path_buf();
    let (ok, text) = tclsh(VIVADO_STUBS, &out.join("project/vivado_ooc.tcl"), &run_dir);
    assert!(ok && text.contains("DONE"), "{text}");
    for f in project::sources() {
        let p = out.join(&f).canonicalize().unwrap();
        assert!(
            text.contains(&format!("CALL file {}", p.display())),
            "{f} not read:\n{text}"
        );
    }
    assert!(
        text.contains("CALL read_xdc -mode out_of_context"),
        "{text}"
    );
    assert!(
        text.contains("USED_IN {synthesis implementation out_of_context} prnic.xdc"),
        "{text}"
    );
    let synth = text
        .lines()
        .find(|l| l.starts_with("CALL synth_design"))
        .expect("synth_design called");
    for want in [
        format!("-top {}", project::WRAPPER),
        format!("-part {}", cfg.fpga.vivado_part),
        "-mode out_of_context".to_string(),
    ] {
        assert!(synth.contains(&want), "{synth} lacks {want}");
    }
    assert!(text.contains("CALL route_design"), "{text}");
    // Slack 0.125 ns from the stub: timing met, reports where the header says.
    for f in [
        "timing_met",
        "timing_summary.rpt",
        "cdc.rpt",
        "bus_skew.rpt",
        "utilization.rpt",
        "post_route.dcp",
    ] {
        assert!(run_dir.join("ooc_run").join(f).is_file(), "{f} missing");
    }
}

#[test]
fn vivado_script_exits_1_on_negative_slack_and_takes_the_part_from_its_arguments() {
    let out = generated("vivado-fail", PrnicConfig::builtin());
    let run_dir = out.parent().unwrap().to_path_buf();
    let stubs = VIVADO_STUBS
        .replace("return 0.125", "return -0.250")
        .replace(
            "set argc 0\nset argv {}",
            "set argc 2\nset argv {xcu250-figd2104-2L-e myrun}",
        );
    let (ok, text) = tclsh(&stubs, &out.join("project/vivado_ooc.tcl"), &run_dir);
    assert!(!ok && !text.contains("DONE"), "{text}");
    assert!(text.contains("-part xcu250-figd2104-2L-e"), "{text}");
    assert!(text.contains("worst setup slack -0.250 ns"), "{text}");
    assert!(run_dir.join("myrun/timing_failed").is_file());
}

#[test]
fn quartus_script_qsf_and_qip_name_existing_files_and_make_every_port_but_the_clocks_virtual() {
    let cfg = PrnicConfig::builtin();
    let out = generated("quartus", cfg);
    let run_dir = out.parent().unwrap().to_path_buf();
    let stubs = r#"
rename package _package
proc package {sub args} {
    if {$sub eq "require" && [string match ::quartus::* [lindex $args 0]]} { return }
    _package $sub {*}$args
}
array set quartus {args {}}
proc project_new {args} { puts "CALL project_new $args" }
proc set_global_assignment {-name name value} {
    puts "CALL global $name $value"
    if {[string match *_FILE $name]} {
        if {![file isfile $value]} { error "missing file: $value" }
        if {$name eq "QIP_FILE"} {
            set ::quartus(qip_path) [file dirname $value]
            source $value
        }
    }
}
proc set_instance_assignment {-name name value -to target} { puts "CALL instance $name $value $target" }
proc export_assignments {} {}
proc execute_flow {args} { puts "CALL execute_flow $args" }
proc project_close {} {}
"#;
    let (ok, text) = tclsh(stubs, &out.join("project/quartus_ooc.tcl"), &run_dir);
    assert!(ok && text.contains("DONE"), "{text}");
    assert!(text.contains("CALL execute_flow -compile"), "{text}");
    assert!(
        text.contains(&format!("CALL global DEVICE {}", cfg.fpga.quartus_device)),
        "{text}"
    );
    assert!(
        text.contains(&format!("CALL global FAMILY {}", cfg.fpga.quartus_family)),
        "{text}"
    );
    assert!(
        text.contains(&format!("CALL global TOP_LEVEL_ENTITY {}", project::TOP2)),
        "{text}"
    );
    assert!(text.contains("CALL global SDC_FILE"), "{text}");
    let top = two_clock_top(cfg);
    for p in &top.port_list() {
        let target = if p.bits == 1 {
            p.name.clone()
        } else {
            format!("{}[*]", p.name)
        };
        let line = format!("CALL instance VIRTUAL_PIN ON {target}\n");
        assert_eq!(
            text.contains(&line),
            !p.name.starts_with("clk_"),
            "VIRTUAL_PIN for {}",
            p.name
        );
    }
}

#[test]
fn wrapper_lints_clean_and_tags_every_axi_port() {
    let cfg = PrnicConfig::builtin();
    let out = generated("wrapper", cfg);
    let files: Vec<PathBuf> = project::sources().iter().map(|f| out.join(f)).collect();
    let vlt = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scripts/lint/rust-hdl.vlt");
    let (ok, text) = run(Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", project::WRAPPER])
        .arg(&vlt)
        .args(&files));
    assert!(ok && !text.contains("%Warning"), "verilator:\n{text}");
    let (ok, text) = run(Command::new("iverilog")
        .args(["-g2005", "-o", "/dev/null", "-s", project::WRAPPER])
        .args(&files));
    assert!(ok && text.trim().is_empty(), "iverilog:\n{text}");
    let reads: String = files
        .iter()
        .map(|f| format!("read_verilog {}; ", f.display()))
        .collect();
    let (ok, text) = run(Command::new("yosys").args([
        "-q",
        "-p",
        &format!(
            "{reads}hierarchy -check -top {}; select -assert-count 1 w:s_axis_tx_tdata a:X_INTERFACE_INFO %i",
            project::WRAPPER
        ),
    ]));
    assert!(ok, "yosys:\n{text}");

    // Every AXI4-Stream and AXI4-Lite port of the top is in exactly one interface, and
    // each clock is associated with the interfaces of its domain, at its frequency.
    let v = std::fs::read_to_string(out.join(format!("project/{}.v", project::WRAPPER))).unwrap();
    let top = two_clock_top(cfg);
    let ifs = project::interfaces(&top.port_list());
    for p in &top.port_list() {
        let axi = p.name.starts_with("s_axil_")
            || ((p.name.starts_with("s_axis_") || p.name.starts_with("m_axis_"))
                && p.name.rsplit_once("_t").is_some());
        let n = ifs
            .iter()
            .filter(|i| i.ports.iter().any(|(q, _)| q.name == p.name))
            .count();
        assert_eq!(n, usize::from(axi), "{} in {n} interfaces", p.name);
    }
    let host = [
        "s_axis_tx",
        "m_axis_place",
        "m_axis_cqe",
        "m_axis_ack",
        "s_axil",
    ];
    let mac: Vec<&str> = ifs
        .iter()
        .map(|i| i.name.as_str())
        .filter(|n| !host.contains(n))
        .collect();
    assert_eq!(mac.len() + host.len(), ifs.len(), "{ifs:?}");
    assert!(mac.contains(&"s_axis_port0_rx") && mac.contains(&"m_axis_port0_tx"));
    for (clk, names, mhz) in [
        ("clk_mac", mac.join(":"), cfg.clock.mhz),
        ("clk_host", host.join(":"), cfg.clock.host_mhz),
    ] {
        let want = format!(
            "XIL_INTERFACENAME {clk}, ASSOCIATED_BUSIF {names}, ASSOCIATED_RESET rst, FREQ_HZ {}",
            (mhz * 1e6).round()
        );
        assert!(v.contains(&want), "{want}");
    }
    assert!(
        v.contains("XIL_INTERFACENAME s_axil, PROTOCOL AXI4LITE, DATA_WIDTH 32, ADDR_WIDTH 12, HAS_PROT 0, HAS_WSTRB 1, HAS_BRESP 1, HAS_RRESP 1, FREQ_HZ 250000000"),
        "s_axil on clk_host"
    );
    assert!(
        v.contains("TDATA_NUM_BYTES 128, TUSER_WIDTH 160"),
        "m_axis_place parameters"
    );
}

#[test]
fn a_device_name_that_could_break_the_scripts_is_refused_naming_the_field() {
    for (toml, field) in [
        (
            "[fpga]\nvivado_part = \"xcvu9p]; exec rm\"\n",
            "fpga.vivado_part",
        ),
        ("[fpga]\nquartus_device = \"\"\n", "fpga.quartus_device"),
        (
            "[fpga]\nquartus_family = \"Agilex \\\"7\"\n",
            "fpga.quartus_family",
        ),
    ] {
        let e = PrnicConfig::from_toml(toml).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{field}: ")), "{e}");
        assert_eq!(e.lines().count(), 1);
    }
    let cfg = PrnicConfig::from_toml("[fpga]\nvivado_part = \"xcu250-figd2104-2L-e\"\n").unwrap();
    let tcl = project::vivado_tcl(&cfg, "");
    assert!(tcl.contains("set part {xcu250-figd2104-2L-e}"));
}

/// An Icarus testbench for `prnic_2clk_ipi`: both clocks at the configured periods, every
/// input tied to 0 but the CSR master, and CSR reads and writes from `clk_host`, each
/// printed as `R <addr> <data> <resp> after <n> clk_host cycles` or `W <addr> <resp> after
/// <n> ...` (n: from valid to the response).
fn two_clock_bench(cfg: &PrnicConfig, top: &project::TwoClockTop, build_hash: u32) -> String {
    use prnic_gen::blocks::Dir;
    let half = |mhz: f64| (1e6 / mhz / 2.0).round() as u64;
    let mut s = format!(
        "`timescale 1ps/1ps
module tb;
    reg clk_mac = 0, clk_host = 0, rst = 1;
    always #{} clk_mac = ~clk_mac;
    always #{} clk_host = ~clk_host;
    reg [31:0] id_build_hash = 32'h{build_hash:08x};
",
        half(cfg.clock.mhz),
        half(cfg.clock.host_mhz)
    );
    for p in top.port_list() {
        if ["clk_mac", "clk_host", "rst", "id_build_hash"].contains(&p.name.as_str()) {
            continue;
        }
        let kind = if p.dir == Dir::Input { "reg " } else { "wire" };
        let init = if p.dir == Dir::Input { " = 0" } else { "" };
        s += &format!("    {kind} [{}:0] {}{init};\n", p.bits - 1, p.name);
    }
    s += &format!("    {} dut (\n", project::WRAPPER);
    let names: Vec<String> = top
        .port_list()
        .iter()
        .map(|p| format!("        .{0}({0})", p.name))
        .collect();
    s += &names.join(",\n");
    s += r#"
    );
    integer waited;
    reg aw, w, ar;
    // The readies are registers of clk_host: the value before a rising edge is the one
    // that edge samples, so the master looks at them on the falling edge.
    task tick; begin
        @(posedge clk_host); waited = waited + 1;
        if (waited > 20000) begin $display("TIMEOUT"); $finish; end
    end endtask
    task rd(input [11:0] a); begin
        waited = 0;
        #1 s_axil_araddr = a; s_axil_arvalid = 1; s_axil_rready = 1;
        ar = 0;
        while (!ar) begin @(negedge clk_host); ar = s_axil_arready; tick; end
        #1 s_axil_arvalid = 0;
        while (!s_axil_rvalid) tick;
        $display("R %h %h %0d after %0d clk_host cycles", a, s_axil_rdata, s_axil_rresp, waited);
        tick; #1 s_axil_rready = 0;
    end endtask
    task wr(input [11:0] a, input [31:0] d); begin
        waited = 0;
        #1 s_axil_awaddr = a; s_axil_awvalid = 1; s_axil_wdata = d; s_axil_wstrb = 4'hf;
        s_axil_wvalid = 1; s_axil_bready = 1;
        while (s_axil_awvalid || s_axil_wvalid) begin
            @(negedge clk_host); aw = s_axil_awready; w = s_axil_wready;
            tick;
            #1 if (aw) s_axil_awvalid = 0;
            if (w) s_axil_wvalid = 0;
        end
        while (!s_axil_bvalid) tick;
        $display("W %h %0d after %0d clk_host cycles", a, s_axil_bresp, waited);
        tick; #1 s_axil_bready = 0;
    end endtask
    initial begin
        repeat (8) @(posedge clk_host);
        #1 rst = 0;
        repeat (8) @(posedge clk_host);
        rd(12'h000); rd(12'h008); rd(12'h010);
        wr(12'h020, 32'h5eed_c0de); rd(12'h020);
        rd(12'hffc);
        $display("DONE");
        $finish;
    end
endmodule
"#;
    s
}

#[test]
fn the_two_clock_top_runs_csr_transactions_from_clk_host_in_icarus() {
    let cfg = PrnicConfig::builtin();
    let out = generated("icarus", cfg);
    let top = two_clock_top(cfg);
    let dir = out.parent().unwrap();
    let tb = dir.join("tb.v");
    std::fs::write(&tb, two_clock_bench(cfg, &top, 0xc0ff_ee01)).unwrap();
    let vvp = dir.join("tb.vvp");
    let (ok, text) = run(Command::new("iverilog")
        .args(["-g2005", "-s", "tb", "-o"])
        .arg(&vvp)
        .args(project::sources().iter().map(|f| out.join(f)))
        .arg(&tb));
    assert!(ok, "iverilog:\n{text}");
    let (ok, text) = run(Command::new("vvp").arg("-n").arg(&vvp));
    assert!(ok && text.contains("DONE"), "vvp:\n{text}");
    // 0xffc is no register: the CSR block answers SLVERR (2) through the crossing.
    assert!(
        !prnic_regs::registers().iter().any(|r| r.offset == 0xffc),
        "pick another unmapped address"
    );
    let hash_lo = u32::from_str_radix(&cfg.hash_hex()[8..], 16).unwrap();
    for want in [
        format!("R 000 {:08x} 0", prnic_regs::MAGIC),
        format!("R 008 {hash_lo:08x} 0"),
        "R 010 c0ffee01 0".to_string(),
        "W 020 0".to_string(),
        "R 020 5eedc0de 0".to_string(),
        "R ffc 00000000 2".to_string(),
    ] {
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("{want} after "))),
            "no `{want}` in:\n{text}"
        );
    }
}

/// The XDC and SDC are Tcl: each runs in `tclsh` with its commands as stubs. Every port
/// a constraint names is a port of the two-clock top, every port but the clocks and
/// the static ones gets an input or output delay, and every asynchronous FIFO gets its
/// three crossing paths bounded (and its two pointers skew-bounded).
#[test]
fn the_constraints_are_tcl_that_names_only_real_ports_and_bounds_every_crossing() {
    let cfg = PrnicConfig::builtin();
    let out = generated("constraints", cfg);
    let top = two_clock_top(cfg);
    let run_dir = out.parent().unwrap().to_path_buf();
    let ports: Vec<String> = top.ports.iter().map(|(p, _)| p.name.clone()).collect();
    let stubs = format!(
        r#"
set ports {{{ports}}}
proc get_ports {{names}} {{
    global ports
    foreach n $names {{
        regsub {{\[\*\]$}} $n {{}} n
        if {{[lsearch -exact $ports $n] < 0}} {{ error "no port $n" }}
    }}
    return $names
}}
set ::TimeQuestInfo(nameofexecutable) quartus_sta
foreach c {{get_clocks get_cells get_keepers}} {{ proc $c {{args}} "return \[list $c \$args\]" }}
foreach c {{create_clock set_input_delay set_output_delay set_false_path set_max_delay
           set_min_delay set_data_delay set_bus_skew set_max_skew set_net_delay
           set_property derive_clock_uncertainty}} {{
    proc $c {{args}} "puts \"CALL $c \$args\""
}}
"#,
        ports = ports.join(" ")
    );
    for (file, skew) in [("prnic.xdc", "set_bus_skew"), ("prnic.sdc", "set_max_skew")] {
        let (ok, text) = tclsh(&stubs, &out.join("constraints").join(file), &run_dir);
        assert!(ok && text.contains("DONE"), "{file}:\n{text}");
        for (p, d) in &top.ports {
            if matches!(d, project::Domain::Clock | project::Domain::Static) || p.name == "rst" {
                continue;
            }
            let io = if p.dir == prnic_gen::blocks::Dir::Input {
                "CALL set_input_delay"
            } else {
                "CALL set_output_delay"
            };
            assert!(
                text.lines().any(|l| l.starts_with(io)
                    && l.split_whitespace()
                        .any(|w| w.trim_matches(|c| c == '{' || c == '}') == p.name
                            || w.trim_matches(|c| c == '{' || c == '}')
                                == format!("{}[*]", p.name))),
                "{file}: no I/O delay for {}",
                p.name
            );
        }
        for f in &top.fifos {
            let sep = if file.ends_with("xdc") { "/" } else { "|" };
            let f = f.replace('/', sep);
            let count = |cmd: &str| {
                text.lines()
                    .filter(|l| l.starts_with(&format!("CALL {cmd} ")) && l.contains(&f))
                    .count()
            };
            assert_eq!(count("set_max_delay"), 3, "{file}: {f}");
            assert_eq!(count(skew), 2, "{file}: {f}");
            if file.ends_with("sdc") {
                assert_eq!(count("set_data_delay"), 3, "{file}: {f}");
                assert_eq!(count("set_net_delay"), 2, "{file}: {f}");
            }
        }
    }
}
