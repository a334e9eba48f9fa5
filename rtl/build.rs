//! Generates the CSR block's rust-hdl source from the one register description in
//! `prnic-regs`: a typed port per register field (`cfg_*` for configuration, `hw_*` for
//! values the blocks drive, `clr_*` / `cmd_*` pulses), so no block ever decodes an
//! address, and adding a register is a change to the description only.

use prnic_regs::{registers, Access, Field, Kind, Register, Reset};
use std::fmt::Write as _;

fn lc(s: &str) -> String {
    s.to_ascii_lowercase()
}

fn port(prefix: &str, r: &Register, f: &Field) -> String {
    format!("{prefix}_{}_{}", lc(r.name), lc(f.name))
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let regs = registers();
    prnic_regs::check(&regs).unwrap_or_else(|e| panic!("register description: {e}"));
    let mut decl = String::new(); // struct fields
    let mut init = String::new(); // constructor
    let mut sel = String::new(); // address decode, before everything that uses it
    let mut upd = String::new(); // update body
    let mut setup: Vec<String> = vec![]; // DFFs for dff_setup!

    macro_rules! d { ($($t:tt)*) => { let _ = writeln!(decl, $($t)*); } }
    macro_rules! i { ($($t:tt)*) => { let _ = writeln!(init, $($t)*); } }
    macro_rules! u { ($($t:tt)*) => { let _ = writeln!(upd, $($t)*); } }

    // Per register: a write select, a read select and the read value.
    for r in &regs {
        let n = lc(r.name);
        for (k, off) in r.offsets().iter().enumerate() {
            d!("    wsel_{n}_{k}: Signal<Local, Bit>,");
            d!("    rsel_{n}_{k}: Signal<Local, Bit>,");
            d!("    rval_{n}_{k}: Signal<Local, Bits<32>>,");
            i!("            wsel_{n}_{k}: Default::default(),\n            rsel_{n}_{k}: Default::default(),\n            rval_{n}_{k}: Default::default(),");
            let _ = writeln!(sel, "        self.wsel_{n}_{k}.next = (self.wr_go.val() & (self.s_axil_awaddr.val() == {off}));");
            let _ = writeln!(sel, "        self.rsel_{n}_{k}.next = (self.rd_go.val() & (self.s_axil_araddr.val() == {off}));");
        }
    }

    for r in &regs {
        let n = lc(r.name);
        match &r.kind {
            Kind::Reg(fields) => {
                // Read value: OR of the fields at their offsets.
                let mut terms: Vec<String> = vec![];
                let is_cmd = fields.iter().all(|f| f.access == Access::Wo);
                if is_cmd {
                    d!("    pub cmd_{n}_valid: Signal<Out, Bit>,");
                    d!("    cmd_{n}_valid_q: DFF<Bit>,");
                    i!("            cmd_{n}_valid: Default::default(),\n            cmd_{n}_valid_q: Default::default(),");
                    setup.push(format!("cmd_{n}_valid_q"));
                    // A write with no byte strobe set carries no command.
                    u!("        self.cmd_{n}_valid_q.d.next = (self.wsel_{n}_0.val() & self.s_axil_wstrb.val().any());");
                    u!("        self.cmd_{n}_valid.next = self.cmd_{n}_valid_q.q.val();");
                }
                for f in fields {
                    let w = f.width;
                    let fname = format!("{n}_{}", lc(f.name));
                    let lsb = f.lsb;
                    match (f.access, f.reset) {
                        (Access::Rw, _) => {
                            let p = port("cfg", r, f);
                            d!("    pub {p}: Signal<Out, Bits<{w}>>,");
                            d!("    {fname}_q: DFF<Bits<{w}>>,");
                            d!("    {fname}_reset: Constant<Bits<{w}>>,");
                            i!("            {p}: Default::default(),\n            {fname}_q: Default::default(),\n            {fname}_reset: Constant::new(reset(\"{}\", \"{}\").into()),", r.name, f.name);
                            setup.push(format!("{fname}_q"));
                            u!("        if self.wsel_{n}_0.val() {{");
                            u!("            self.{fname}_q.d.next = ((self.{fname}_q.q.val() & !self.wmask.val().get_bits::<{w}>({lsb})) | (self.s_axil_wdata.val().get_bits::<{w}>({lsb}) & self.wmask.val().get_bits::<{w}>({lsb})));");
                            u!("        }}");
                            u!("        if self.rst.val() {{\n            self.{fname}_q.d.next = self.{fname}_reset.val();\n        }}");
                            u!("        self.{p}.next = self.{fname}_q.q.val();");
                            terms.push(format!(
                                "(bit_cast::<32, {w}>(self.{fname}_q.q.val()) << {lsb})"
                            ));
                        }
                        (Access::Ro, Reset::Hw) => {
                            let p = port("hw", r, f);
                            d!("    pub {p}: Signal<In, Bits<{w}>>,");
                            i!("            {p}: Default::default(),");
                            terms.push(format!("(bit_cast::<32, {w}>(self.{p}.val()) << {lsb})"));
                        }
                        (Access::Ro, Reset::Value(_)) | (Access::Ro, Reset::Config(_)) => {
                            d!("    {fname}_const: Constant<Bits<{w}>>,");
                            i!("            {fname}_const: Constant::new(reset(\"{}\", \"{}\").into()),", r.name, f.name);
                            terms.push(format!(
                                "(bit_cast::<32, {w}>(self.{fname}_const.val()) << {lsb})"
                            ));
                        }
                        (Access::W1c, Reset::Hw) => {
                            let p = port("hw", r, f);
                            let c = port("clr", r, f);
                            d!("    pub {p}: Signal<In, Bits<{w}>>,");
                            d!("    pub {c}: Signal<Out, Bits<{w}>>,");
                            d!("    {fname}_clr_q: DFF<Bits<{w}>>,");
                            i!("            {p}: Default::default(),\n            {c}: Default::default(),\n            {fname}_clr_q: Default::default(),");
                            setup.push(format!("{fname}_clr_q"));
                            u!("        self.{fname}_clr_q.d.next = 0.into();");
                            u!("        if self.wsel_{n}_0.val() {{\n            self.{fname}_clr_q.d.next = (self.s_axil_wdata.val().get_bits::<{w}>({lsb}) & self.wmask.val().get_bits::<{w}>({lsb}));\n        }}");
                            u!("        self.{c}.next = self.{fname}_clr_q.q.val();");
                            terms.push(format!("(bit_cast::<32, {w}>(self.{p}.val()) << {lsb})"));
                        }
                        (Access::W1c, Reset::Internal) => {
                            // The CSR block's own sticky flag: set by a bad access.
                            d!("    {fname}_q: DFF<Bits<{w}>>,");
                            i!("            {fname}_q: Default::default(),");
                            setup.push(format!("{fname}_q"));
                            u!("        if self.wsel_{n}_0.val() {{\n            self.{fname}_q.d.next = (self.{fname}_q.q.val() & !(self.s_axil_wdata.val().get_bits::<{w}>({lsb}) & self.wmask.val().get_bits::<{w}>({lsb})));\n        }}");
                            u!("        if self.bad_access.val() {{\n            self.{fname}_q.d.next = 1.into();\n        }}");
                            u!("        if self.rst.val() {{\n            self.{fname}_q.d.next = 0.into();\n        }}");
                            terms.push(format!(
                                "(bit_cast::<32, {w}>(self.{fname}_q.q.val()) << {lsb})"
                            ));
                        }
                        (Access::Wo, _) => {
                            let p = format!("cmd_{n}_{}", lc(f.name));
                            d!("    pub {p}: Signal<Out, Bits<{w}>>,");
                            d!("    {fname}_cmd_q: DFF<Bits<{w}>>,");
                            i!("            {p}: Default::default(),\n            {fname}_cmd_q: Default::default(),");
                            setup.push(format!("{fname}_cmd_q"));
                            u!("        if self.wsel_{n}_0.val() {{\n            self.{fname}_cmd_q.d.next = self.s_axil_wdata.val().get_bits::<{w}>({lsb});\n        }}");
                            u!("        self.{p}.next = self.{fname}_cmd_q.q.val();");
                        }
                        (a, r0) => panic!(
                            "{}.{}: unsupported access {a:?} with {r0:?}",
                            r.name, f.name
                        ),
                    }
                }
                let value = if terms.is_empty() {
                    "0.into()".to_string()
                } else {
                    terms.join(" | ")
                };
                u!("        self.rval_{n}_0.next = {value};");
                if !r.writable() {
                    u!("        if self.wsel_{n}_0.val() {{\n            self.ro_write.next = true;\n        }}");
                }
            }
            Kind::Counter64 { internal } => {
                d!("    {n}_shadow: DFF<Bits<32>>,");
                i!("            {n}_shadow: Default::default(),");
                setup.push(format!("{n}_shadow"));
                let src = if *internal {
                    d!("    {n}_count: DFF<Bits<64>>,");
                    i!("            {n}_count: Default::default(),");
                    setup.push(format!("{n}_count"));
                    format!("self.{n}_count.q.val()")
                } else {
                    d!("    pub hw_{n}: Signal<In, Bits<64>>,");
                    i!("            hw_{n}: Default::default(),");
                    format!("self.hw_{n}.val()")
                };
                u!("        self.rval_{n}_0.next = {src}.get_bits::<32>(0);");
                u!("        self.rval_{n}_1.next = self.{n}_shadow.q.val();");
                u!("        if self.rsel_{n}_0.val() {{\n            self.{n}_shadow.d.next = {src}.get_bits::<32>(32);\n        }}");
                u!("        if (self.wsel_{n}_0.val() | self.wsel_{n}_1.val()) {{\n            self.ro_write.next = true;\n        }}");
            }
        }
    }
    // Read mux and address hit: AND-OR over every register word.
    let mut sels = vec![];
    let mut rdat = vec![];
    let mut wsels = vec![];
    for r in &regs {
        let n = lc(r.name);
        for k in 0..r.offsets().len() {
            sels.push(format!("self.rsel_{n}_{k}.val()"));
            wsels.push(format!("self.wsel_{n}_{k}.val()"));
            d!("    rterm_{n}_{k}: Signal<Local, Bits<32>>,");
            i!("            rterm_{n}_{k}: Default::default(),");
            u!("        if self.rsel_{n}_{k}.val() {{\n            self.rterm_{n}_{k}.next = self.rval_{n}_{k}.val();\n        }} else {{\n            self.rterm_{n}_{k}.next = 0.into();\n        }}");
            rdat.push(format!("self.rterm_{n}_{k}.val()"));
        }
    }
    let mut code = String::new();
    let _ = writeln!(
        code,
        "// Generated by prnic-rtl/build.rs from prnic-regs. Do not edit."
    );
    let _ = writeln!(code, "#[derive(LogicBlock)]\npub struct Csr {{");
    code.push_str(&decl);
    code.push_str("}\n\n");
    let _ = writeln!(code, "impl Csr {{\n    /// Build the block; `reset(register, field)` gives each RW field's reset value and each\n    /// RO constant (config-derived ones are resolved by the generator).\n    pub fn build(reset: impl Fn(&str, &str) -> u64) -> Self {{\n        let _ = &reset;\n        Self {{");
    code.push_str(&init);
    let _ = writeln!(code, "        }}\n    }}\n}}\n");
    let _ = writeln!(
        code,
        "impl Logic for Csr {{\n    #[hdl_gen]\n    fn update(&mut self) {{"
    );
    for s in &setup {
        let _ = writeln!(code, "        self.{s}.clock.next = self.clk.val();\n        self.{s}.d.next = self.{s}.q.val();");
    }
    let _ = writeln!(code, "        self.ro_write.next = false;");
    let _ = writeln!(code, "{}", COMMON_PRE);
    // Decode first and the error decision right after it: every local is assigned before
    // anything reads it, so the emitted always-block has no combinational self-loop.
    code.push_str(&sel);
    let _ = writeln!(code, "        self.rd_hit.next = {};", sels.join(" | "));
    let _ = writeln!(code, "        self.wr_hit.next = {};", wsels.join(" | "));
    let _ = writeln!(code, "{}", COMMON_ERR);
    code.push_str(&upd);
    let _ = writeln!(code, "        self.rd_data.next = {};", rdat.join(" | "));
    let _ = writeln!(code, "{}", COMMON_POST);
    let _ = writeln!(code, "    }}\n}}");
    // The common signals are declared in the struct by hand below.
    let code = code.replace(
        "pub struct Csr {\n",
        &format!("pub struct Csr {{\n{COMMON_FIELDS}"),
    );
    let code = code.replace(
        "        Self {\n",
        &format!("        Self {{\n{COMMON_INIT}"),
    );
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("csr_gen.rs");
    std::fs::write(out, code).unwrap();
}

/// The AXI4-Lite slave and the CSR block's own counters, common to every register map.
const COMMON_FIELDS: &str = "    pub clk: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub s_axil_awaddr: Signal<In, Bits<12>>,
    pub s_axil_awvalid: Signal<In, Bit>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    pub s_axil_wvalid: Signal<In, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bready: Signal<In, Bit>,
    pub s_axil_araddr: Signal<In, Bits<12>>,
    pub s_axil_arvalid: Signal<In, Bit>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rready: Signal<In, Bit>,
    bvalid_q: DFF<Bit>,
    bresp_q: DFF<Bits<2>>,
    rvalid_q: DFF<Bit>,
    rresp_q: DFF<Bits<2>>,
    rdata_q: DFF<Bits<32>>,
    wr_go: Signal<Local, Bit>,
    rd_go: Signal<Local, Bit>,
    wr_hit: Signal<Local, Bit>,
    rd_hit: Signal<Local, Bit>,
    wr_bad: Signal<Local, Bit>,
    rd_bad: Signal<Local, Bit>,
    bad_access: Signal<Local, Bit>,
    ro_write: Signal<Local, Bit>,
    rd_data: Signal<Local, Bits<32>>,
    wmask: Signal<Local, Bits<32>>,
    wm0: Signal<Local, Bits<32>>,
    wm1: Signal<Local, Bits<32>>,
    wm2: Signal<Local, Bits<32>>,
    wm3: Signal<Local, Bits<32>>,
";

const COMMON_INIT: &str = "            clk: Default::default(),
            rst: Default::default(),
            s_axil_awaddr: Default::default(),
            s_axil_awvalid: Default::default(),
            s_axil_awready: Default::default(),
            s_axil_wdata: Default::default(),
            s_axil_wstrb: Default::default(),
            s_axil_wvalid: Default::default(),
            s_axil_wready: Default::default(),
            s_axil_bresp: Default::default(),
            s_axil_bvalid: Default::default(),
            s_axil_bready: Default::default(),
            s_axil_araddr: Default::default(),
            s_axil_arvalid: Default::default(),
            s_axil_arready: Default::default(),
            s_axil_rdata: Default::default(),
            s_axil_rresp: Default::default(),
            s_axil_rvalid: Default::default(),
            s_axil_rready: Default::default(),
            bvalid_q: Default::default(),
            bresp_q: Default::default(),
            rvalid_q: Default::default(),
            rresp_q: Default::default(),
            rdata_q: Default::default(),
            wr_go: Default::default(),
            rd_go: Default::default(),
            wr_hit: Default::default(),
            rd_hit: Default::default(),
            wr_bad: Default::default(),
            rd_bad: Default::default(),
            bad_access: Default::default(),
            ro_write: Default::default(),
            rd_data: Default::default(),
            wmask: Default::default(),
            wm0: Default::default(),
            wm1: Default::default(),
            wm2: Default::default(),
            wm3: Default::default(),
";

/// Handshakes, computed before the per-register code: a write is taken when address and
/// data are both valid and no response is pending; a read when no read response is.
const COMMON_PRE: &str = "        dff_setup!(self, clk, bvalid_q, bresp_q, rvalid_q, rresp_q, rdata_q);
        self.wr_go.next = (((self.s_axil_awvalid.val() & self.s_axil_wvalid.val()) & !self.bvalid_q.q.val()) & !self.rst.val());
        self.rd_go.next = ((self.s_axil_arvalid.val() & !self.rvalid_q.q.val()) & !self.rst.val());
        if self.s_axil_wstrb.val().get_bit(0) { self.wm0.next = 0xff.into(); } else { self.wm0.next = 0.into(); }
        if self.s_axil_wstrb.val().get_bit(1) { self.wm1.next = 0xff00.into(); } else { self.wm1.next = 0.into(); }
        if self.s_axil_wstrb.val().get_bit(2) { self.wm2.next = 0xff0000.into(); } else { self.wm2.next = 0.into(); }
        if self.s_axil_wstrb.val().get_bit(3) { self.wm3.next = 0xff00_0000_u64.into(); } else { self.wm3.next = 0.into(); }
        self.wmask.next = (((self.wm0.val() | self.wm1.val()) | self.wm2.val()) | self.wm3.val());";

/// SLVERR decision: an unmapped or misaligned address.
const COMMON_ERR: &str = "        self.wr_bad.next = (self.wr_go.val() & !self.wr_hit.val());
        self.rd_bad.next = (self.rd_go.val() & !self.rd_hit.val());
        self.bad_access.next = (self.wr_bad.val() | self.rd_bad.val());";

/// Responses, after the per-register code.
const COMMON_POST: &str = "        self.s_axil_awready.next = self.wr_go.val();
        self.s_axil_wready.next = self.wr_go.val();
        self.s_axil_arready.next = self.rd_go.val();
        if self.wr_go.val() {
            self.bvalid_q.d.next = true;
            if self.wr_bad.val() { self.bresp_q.d.next = 2.into(); } else { self.bresp_q.d.next = 0.into(); }
        } else if self.s_axil_bready.val() {
            self.bvalid_q.d.next = false;
        }
        if self.rd_go.val() {
            self.rvalid_q.d.next = true;
            self.rdata_q.d.next = self.rd_data.val();
            if self.rd_bad.val() { self.rresp_q.d.next = 2.into(); } else { self.rresp_q.d.next = 0.into(); }
        } else if self.s_axil_rready.val() {
            self.rvalid_q.d.next = false;
        }
        if (self.wr_bad.val() & self.rd_bad.val()) {
            self.cnt_csr_bad_access_count.d.next = (self.cnt_csr_bad_access_count.q.val() + 2);
        } else if self.bad_access.val() {
            self.cnt_csr_bad_access_count.d.next = (self.cnt_csr_bad_access_count.q.val() + 1);
        }
        if self.ro_write.val() {
            self.cnt_csr_ro_write_count.d.next = (self.cnt_csr_ro_write_count.q.val() + 1);
        }
        if self.rst.val() {
            self.bvalid_q.d.next = false;
            self.rvalid_q.d.next = false;
            self.cnt_csr_bad_access_count.d.next = 0.into();
            self.cnt_csr_ro_write_count.d.next = 0.into();
        }
        self.s_axil_bvalid.next = self.bvalid_q.q.val();
        self.s_axil_bresp.next = self.bresp_q.q.val();
        self.s_axil_rvalid.next = self.rvalid_q.q.val();
        self.s_axil_rresp.next = self.rresp_q.q.val();
        self.s_axil_rdata.next = self.rdata_q.q.val();";
