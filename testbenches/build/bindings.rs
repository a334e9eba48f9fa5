//! The Rust side of the bridge: a typed struct per verilated module (a setter per input,
//! a getter per output, wide ports as `u32` word arrays) over the C shim's functions.

use super::*;

fn camel(name: &str) -> String {
    name.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn mask(bits: usize) -> String {
    if bits >= 64 {
        "u64::MAX".into()
    } else {
        format!("0x{:x}u64", (1u64 << bits) - 1)
    }
}

/// The Rust binding of a module. A module left out by `PRNIC_MODELS` (`built` false) gets
/// the same API whose constructors panic with the reason, so every test still compiles
/// and only the tests that need the missing model fail.
pub(crate) fn binding_rs(m: &Module, built: bool) -> String {
    let ty = camel(m.name);
    let clks = clocks(m);
    let mut s = String::new();
    // extern blocks, one per variant
    for (suffix, _, _) in VARIANTS.iter().filter(|_| built) {
        let prefix = format!("V{}_{suffix}", m.name);
        let _ = writeln!(s, "extern \"C\" {{");
        let _ = writeln!(s, "    fn {prefix}_shim_new() -> *mut c_void;");
        let _ = writeln!(s, "    fn {prefix}_shim_free(p: *mut c_void);");
        let _ = writeln!(s, "    fn {prefix}_shim_trace_open(p: *mut c_void, path: *const c_char, period_ps: u64) -> c_int;");
        let _ = writeln!(s, "    fn {prefix}_shim_trace_flush(p: *mut c_void);");
        let _ = writeln!(s, "    fn {prefix}_shim_eval(p: *mut c_void);");
        if clks.is_empty() {
            let _ = writeln!(s, "    fn {prefix}_shim_step(p: *mut c_void, n: u64);");
        } else {
            let _ = writeln!(
                s,
                "    fn {prefix}_shim_set_period(p: *mut c_void, i: u32, ps: u64);"
            );
            let _ = writeln!(s, "    fn {prefix}_shim_time(p: *mut c_void) -> u64;");
            let _ = writeln!(s, "    fn {prefix}_shim_tick(p: *mut c_void) -> u32;");
        }
        for p in m.ports.iter().filter(|p| !p.is_clock()) {
            let n = &p.name;
            let _ = match (p.dir, is_wide(p.bits)) {
                (Dir::Input, false) => {
                    writeln!(s, "    fn {prefix}_shim_set_{n}(p: *mut c_void, v: u64);")
                }
                (Dir::Output, false) => {
                    writeln!(s, "    fn {prefix}_shim_get_{n}(p: *mut c_void) -> u64;")
                }
                (Dir::Input, true) => writeln!(
                    s,
                    "    fn {prefix}_shim_set_{n}(p: *mut c_void, w: *const u32);"
                ),
                (Dir::Output, true) => writeln!(
                    s,
                    "    fn {prefix}_shim_get_{n}(p: *mut c_void, w: *mut u32);"
                ),
            };
        }
        let _ = writeln!(s, "}}");
    }
    let dispatch = |call: &str| -> String {
        if built {
            format!(
                "match self.format {{ TraceFormat::Fst => unsafe {{ V{n}_fst_shim_{call} }}, TraceFormat::Vcd => unsafe {{ V{n}_vcd_shim_{call} }} }}",
                n = m.name
            )
        } else {
            // Never reached: the constructors of a stub panic. Keep `self` and the
            // arguments used so the stub compiles without warnings.
            let args = call
                .split_once('(')
                .map(|(_, a)| a.strip_suffix(')').unwrap_or(a))
                .unwrap_or("");
            format!("{{ let _ = (&self.format, {args}); unreachable!() }}")
        }
    };
    let new_body = if built {
        format!("let p = unsafe {{ V{}_fst_shim_new() }};\n        assert!(!p.is_null());\n        Self {{ p, format: TraceFormat::Fst, cycle: 0 }}", m.name)
    } else {
        format!(
            "panic!(\"the Verilator model of `{}` was not built: PRNIC_MODELS leaves it out\")",
            m.name
        )
    };
    let trace_new = if built {
        format!("match format {{\n            TraceFormat::Fst => unsafe {{ V{n}_fst_shim_new() }},\n            TraceFormat::Vcd => unsafe {{ V{n}_vcd_shim_new() }},\n        }}", n = m.name)
    } else {
        format!("{{ let _ = format; panic!(\"the Verilator model of `{}` was not built: PRNIC_MODELS leaves it out\") }}", m.name)
    };
    let (clock_doc, trace_time, step_api) = if clks.is_empty() {
        (
            "/// Set inputs, then [`Self::step_n`] advances rising edges of `clk`; outputs read \
             after a\n/// step are the registered state after that edge (plus any combinational \
             path from the\n/// current inputs). Inputs keep their values until set again."
                .to_string(),
            " at `period_ps` per cycle".to_string(),
            format!(
                "    /// Advance `n` clock cycles with the inputs as they are.
    pub fn step_n(&mut self, n: u64) {{
        {};
        self.cycle += n;
    }}
",
                dispatch("step(self.p, n)")
            ),
        )
    } else {
        let names = clks
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut api = String::new();
        for (i, c) in clks.iter().enumerate() {
            let _ = write!(
                api,
                "    /// `{c}` in the mask [`Self::tick`] returns.
    pub const {up}: u32 = 1 << {i};

    /// The period of `{c}` in picoseconds (4000 until set); set it before the first tick.
    pub fn set_{c}_period_ps(&mut self, ps: u64) {{
        {call};
    }}

",
                up = c.to_uppercase(),
                call = dispatch(&format!("set_period(self.p, {i}, ps)"))
            );
        }
        let _ = write!(
            api,
            "    /// Advance to the next rising edge of any clock (toggling the clocks in time
    /// order) and return the clocks that rose on it, as a mask of [`Self::{first}`] and
    /// the others. Inputs set since the last tick are applied first; outputs read after
    /// it are the state after that edge.
    pub fn tick(&mut self) -> u32 {{
        self.cycle += 1;
        {tick}
    }}

    /// `n` ticks with the inputs as they are.
    pub fn step_n(&mut self, n: u64) {{
        for _ in 0..n {{
            self.tick();
        }}
    }}

    /// Simulated time in picoseconds.
    pub fn time_ps(&self) -> u64 {{
        {time}
    }}
",
            first = clks[0].to_uppercase(),
            tick = dispatch("tick(self.p)"),
            time = dispatch("time(self.p)"),
        );
        (
            format!(
                "/// The clocks {names} each run at their own period (`set_<clock>_period_ps`); \
                 [`Self::tick`]\n/// advances to the next rising edge of any of them and \
                 says which rose. Set a domain's\n/// inputs after a tick on which its \
                 clock rose: they are what that domain's registers\n/// drove after the \
                 edge. Inputs keep their values until set again."
            ),
            " (the clocks' own periods; `period_ps` is unused)".to_string(),
            api,
        )
    };
    let _ = writeln!(
        s,
        "
/// Verilator model of the generated `{name}` module (default config).
///
{clock_doc}
pub struct {ty} {{
    p: *mut c_void,
    format: TraceFormat,
    cycle: u64,
}}

{allow}impl {ty} {{
    /// Verilog module name.
    pub const MODULE: &'static str = \"{name}\";

    /// A model without a trace.
    pub fn new() -> Self {{
        {new_body}
    }}

    /// A model that writes every cycle to `path`: FST for `*.fst`, VCD for `*.vcd`.
    /// Time in the trace is in picoseconds{trace_time}.
    pub fn with_trace(path: &Path, period_ps: u64) -> Result<Self, TraceError> {{
        let format = TraceFormat::from_path(path)?;
        let cpath = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| TraceError::BadPath(path.to_path_buf()))?;
        let p: *mut c_void = {trace_new};
        assert!(!p.is_null());
        let me = Self {{ p, format, cycle: 0 }};
        let rc: c_int = {open};
        if rc != 0 {{
            return Err(TraceError::CannotOpen(path.to_path_buf()));
        }}
        Ok(me)
    }}

{step_api}
    /// Settle combinational logic after changing inputs, without a clock edge.
    pub fn eval(&mut self) {{
        {eval};
    }}

    /// Flush the trace file (it is also closed when the model is dropped).
    pub fn flush_trace(&mut self) {{
        {flush};
    }}
",
        name = m.name,
        ty = ty,
        open = dispatch("trace_open(me.p, cpath.as_ptr(), period_ps)")
            .replace("self.format", "me.format"),
        clock_doc = clock_doc,
        trace_time = trace_time,
        step_api = step_api,
        eval = dispatch("eval(self.p)"),
        flush = dispatch("trace_flush(self.p)"),
        new_body = new_body,
        trace_new = trace_new,
        allow = if built {
            ""
        } else {
            "#[allow(unreachable_code, unused_variables)]\n"
        },
    );
    for p in m.ports.iter().filter(|p| !p.is_clock()) {
        let n = &p.name;
        let doc = format!(
            "/// `{}` ({} bit{}).",
            n,
            p.bits,
            if p.bits == 1 { "" } else { "s" }
        );
        let _ = match (p.dir, is_wide(p.bits)) {
            // A port that fills its word has no bits to check or mask.
            (Dir::Input, false) if p.bits == 64 => writeln!(
                s,
                "    {doc}\n    #[inline]\n    pub fn set_{n}(&mut self, v: u64) {{\n        {call};\n    }}",
                call = dispatch(&format!("set_{n}(self.p, v)"))
            ),
            (Dir::Input, false) => writeln!(
                s,
                "    {doc}\n    #[inline]\n    pub fn set_{n}(&mut self, v: u64) {{\n        debug_assert!(v & !{mk} == 0, \"{n}: value {{v:#x}} wider than {b} bits\");\n        let v = v & {mk};\n        {call};\n    }}",
                mk = mask(p.bits),
                b = p.bits,
                call = dispatch(&format!("set_{n}(self.p, v)"))
            ),
            (Dir::Output, false) => writeln!(
                s,
                "    {doc}\n    #[inline]\n    pub fn {n}(&self) -> u64 {{\n        {call}\n    }}",
                call = dispatch(&format!("get_{n}(self.p)"))
            ),
            (Dir::Input, true) if p.bits % 32 == 0 => writeln!(
                s,
                "    {doc} Word 0 holds bits 31:0.\n    #[inline]\n    pub fn set_{n}(&mut self, w: &[u32; {wn}]) {{\n        {call};\n    }}",
                wn = words(p.bits),
                call = dispatch(&format!("set_{n}(self.p, w.as_ptr())"))
            ),
            (Dir::Input, true) => {
                // Verilator assumes the unused bits of the top word are zero; mask them.
                let top_bits = p.bits - 32 * (words(p.bits) - 1);
                let top_mask = (1u32 << top_bits) - 1;
                writeln!(
                    s,
                    "    {doc} Word 0 holds bits 31:0.\n    #[inline]\n    pub fn set_{n}(&mut self, w: &[u32; {wn}]) {{\n        debug_assert!(w[{last}] & !{top_mask:#x}u32 == 0, \"{n}: value wider than {b} bits\");\n        let mut w = *w;\n        w[{last}] &= {top_mask:#x}u32;\n        {call};\n    }}",
                    wn = words(p.bits),
                    last = words(p.bits) - 1,
                    b = p.bits,
                    call = dispatch(&format!("set_{n}(self.p, w.as_ptr())"))
                )
            }
            (Dir::Output, true) => writeln!(
                s,
                "    {doc} Word 0 holds bits 31:0.\n    #[inline]\n    pub fn {n}(&self) -> [u32; {wn}] {{\n        let mut w = [0u32; {wn}];\n        {call};\n        w\n    }}",
                wn = words(p.bits),
                call = dispatch(&format!("get_{n}(self.p, w.as_mut_ptr())"))
            ),
        };
    }
    let _ = writeln!(
        s,
        "}}

impl Default for {ty} {{
    fn default() -> Self {{
        Self::new()
    }}
}}

impl Dut for {ty} {{
    fn step(&mut self) {{
        self.step_n(1);
    }}
    fn cycle(&self) -> u64 {{
        self.cycle
    }}
}}

impl Drop for {ty} {{
    fn drop(&mut self) {{
        {free};
    }}
}}
",
        free = if built {
            dispatch("free(self.p)")
        } else {
            "let _ = self.p".to_string()
        }
    );
    s
}

/// Port metadata as Rust constants, for tests that check the binding against the manifest.
pub(crate) fn ports_rs(m: &Module) -> String {
    let list: Vec<String> = m
        .ports
        .iter()
        .map(|p: &Port| {
            format!(
                "(\"{}\", {}, {})",
                p.name,
                matches!(p.dir, Dir::Input),
                p.bits
            )
        })
        .collect();
    format!(
        "/// `(name, is_input, bits)` of every port of `{}`, as verilated.\npub const {}_PORTS: &[(&str, bool, usize)] = &[{}];\n",
        m.name,
        m.name.to_uppercase(),
        list.join(", ")
    )
}
