//! Generates the CSR block's rust-hdl source from the one register description in
//! `prnic-regs`: a typed port per register field (`cfg_*` for configuration, `hw_*` for
//! values the blocks drive, `clr_*` / `cmd_*` pulses), so no block ever decodes an
//! address, and adding a register is a change to the description only.
//!
//! The block is pipelined so that no register-to-register path is longer than the
//! timing budget (docs/timing.md) and no input port reaches an output port without a
//! flip-flop; `rtl/src/csr.rs` documents the stages, and the stage names below (C0–C2 on
//! the write side, R0–R2 on the read side) are the ones it uses.

use prnic_regs::{registers, Access, Field, Kind, Register, Reset};
use std::collections::BTreeMap;
use std::fmt::Write as _;

fn lc(s: &str) -> String {
    s.to_ascii_lowercase()
}

fn port(prefix: &str, r: &Register, f: &Field) -> String {
    format!("{prefix}_{}_{}", lc(r.name), lc(f.name))
}

/// Word address bits that pick a word inside a read group (R1 mux); the bits above them
/// pick the group (R2 mux). 16 words is two levels of 4:1 LUT6 muxes, which ABC maps
/// cheaply; it maps a 32:1 mux into the same two levels only by duplicating logic
/// (about 30 LUTs per bit instead of 5).
const GROUP_WORD_BITS: u32 = 4;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let regs = registers();
    prnic_regs::check(&regs).unwrap_or_else(|e| panic!("register description: {e}"));
    let mut decl = String::new(); // struct fields
    let mut sel = String::new(); // address decode, before everything that uses it
    let mut upd = String::new(); // update body
    let mut setup: Vec<String> = vec![]; // DFFs for dff_setup!
                                         // Constructor expressions other than `Default::default()`, by struct field.
    let mut init_of: BTreeMap<String, String> = BTreeMap::new();
    // Read words by group (address bits 11:7) and by index in the group (bits 6:2).
    let mut groups: BTreeMap<u32, Vec<(u32, String)>> = BTreeMap::new();

    macro_rules! d { ($($t:tt)*) => { let _ = writeln!(decl, $($t)*); } }
    macro_rules! u { ($($t:tt)*) => { let _ = writeln!(upd, $($t)*); } }

    // Per word: the read value, a write select (C1) where a write changes something,
    // and a read select (R1) where a read latches a counter's shadow.
    let mut mapped: Vec<u32> = vec![]; // word addresses that answer OKAY
    let mut read_only: Vec<u32> = vec![]; // and of those, the ones a write cannot change
    for r in &regs {
        let n = lc(r.name);
        for (k, off) in r.offsets().iter().enumerate() {
            d!("    rval_{n}_{k}: Signal<Local, Bits<32>>,");
            if r.writable() {
                d!("    wsel_{n}_{k}: Signal<Local, Bit>,");
                let _ = writeln!(sel, "        self.wsel_{n}_{k}.next = (self.w1_go.val() & (self.wa_q.q.val() == {off}));");
            } else {
                read_only.push(off >> 2);
            }
            if matches!(r.kind, Kind::Counter64 { .. }) && k == 0 {
                d!("    rsel_{n}_{k}: Signal<Local, Bit>,");
                let _ = writeln!(sel, "        self.rsel_{n}_{k}.next = (self.r1_go.val() & (self.ra_q.q.val() == {off}));");
            }
            let word = off >> 2;
            mapped.push(word);
            groups
                .entry(word >> GROUP_WORD_BITS)
                .or_default()
                .push((word & ((1 << GROUP_WORD_BITS) - 1), format!("rval_{n}_{k}")));
        }
    }
    let word_list = |w: &[u32]| {
        w.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    init_of.insert(
        "mapped_words".into(),
        format!("Constant::new(word_map(&[{}]))", word_list(&mapped)),
    );
    init_of.insert(
        "read_only_words".into(),
        format!("Constant::new(word_map(&[{}]))", word_list(&read_only)),
    );

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
                    setup.push(format!("cmd_{n}_valid_q"));
                    // A write with no byte strobe set carries no command.
                    u!("        self.cmd_{n}_valid_q.d.next = (self.wsel_{n}_0.val() & self.ws_q.q.val().any());");
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
                            init_of.insert(
                                format!("{fname}_reset"),
                                format!(
                                    "Constant::new(reset(\"{}\", \"{}\").into())",
                                    r.name, f.name
                                ),
                            );
                            setup.push(format!("{fname}_q"));
                            u!("        if self.wsel_{n}_0.val() {{");
                            u!("            self.{fname}_q.d.next = ((self.{fname}_q.q.val() & !self.wmask.val().get_bits::<{w}>({lsb})) | (self.wd_q.q.val().get_bits::<{w}>({lsb}) & self.wmask.val().get_bits::<{w}>({lsb})));");
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
                            terms.push(format!("(bit_cast::<32, {w}>(self.{p}.val()) << {lsb})"));
                        }
                        (Access::Ro, Reset::Value(_)) | (Access::Ro, Reset::Config(_)) => {
                            d!("    {fname}_const: Constant<Bits<{w}>>,");
                            init_of.insert(
                                format!("{fname}_const"),
                                format!(
                                    "Constant::new(reset(\"{}\", \"{}\").into())",
                                    r.name, f.name
                                ),
                            );
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
                            setup.push(format!("{fname}_clr_q"));
                            u!("        self.{fname}_clr_q.d.next = 0.into();");
                            u!("        if self.wsel_{n}_0.val() {{\n            self.{fname}_clr_q.d.next = (self.wd_q.q.val().get_bits::<{w}>({lsb}) & self.wmask.val().get_bits::<{w}>({lsb}));\n        }}");
                            u!("        self.{c}.next = self.{fname}_clr_q.q.val();");
                            terms.push(format!("(bit_cast::<32, {w}>(self.{p}.val()) << {lsb})"));
                        }
                        (Access::W1c, Reset::Internal) => {
                            // The CSR block's own sticky flag: set by a bad access (C2/R2),
                            // which wins over a clear (C1) in the same cycle.
                            d!("    {fname}_q: DFF<Bits<{w}>>,");
                            setup.push(format!("{fname}_q"));
                            u!("        if self.wsel_{n}_0.val() {{\n            self.{fname}_q.d.next = (self.{fname}_q.q.val() & !(self.wd_q.q.val().get_bits::<{w}>({lsb}) & self.wmask.val().get_bits::<{w}>({lsb})));\n        }}");
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
                            setup.push(format!("{fname}_cmd_q"));
                            u!("        if self.wsel_{n}_0.val() {{\n            self.{fname}_cmd_q.d.next = self.wd_q.q.val().get_bits::<{w}>({lsb});\n        }}");
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
            }
            Kind::Counter64 { internal } => {
                d!("    {n}_shadow: DFF<Bits<32>>,");
                setup.push(format!("{n}_shadow"));
                if *internal {
                    // Two 32-bit halves and a registered carry, so no carry chain spans
                    // more than 32 bits. The halves alone are not the count while a
                    // carry is pending, but `hi` one cycle later is exactly the high
                    // word of the count now (hi(t+1) = hi(t) + c(t), and nothing else
                    // moves hi): so a LO read samples `lo` in R1 and latches `hi` into
                    // the shadow in R2, and LO-then-HI is one exact 64-bit value.
                    d!("    {n}_lo: DFF<Bits<32>>,");
                    d!("    {n}_hi: DFF<Bits<32>>,");
                    d!("    {n}_c: DFF<Bit>,");
                    d!("    {n}_lo_rd: DFF<Bit>,");
                    // The increment is a register too (the count moves one cycle after
                    // the access's verdict): two verdicts picked into 0/1/2 in front of
                    // the carry chain made the counter 6 levels.
                    d!("    {n}_inc: DFF<Bits<2>>,");
                    for s in ["lo", "hi", "c", "lo_rd", "inc"] {
                        setup.push(format!("{n}_{s}"));
                    }
                    // The carry out of `lo + inc` (inc <= 2) from `lo`'s top 31 bits all
                    // ones, not from a 33rd adder bit: that would be a ninth CARRY4.
                    u!("        self.{n}_lo.d.next = (self.{n}_lo.q.val() + bit_cast::<32, 2>(self.{n}_inc.q.val()));");
                    u!("        self.{n}_c.d.next = ((self.{n}_lo.q.val().get_bits::<31>(1) == 0x7fff_ffff_u64) & (self.{n}_inc.q.val().get_bit(1) | (self.{n}_inc.q.val().get_bit(0) & self.{n}_lo.q.val().get_bit(0))));");
                    u!("        self.{n}_hi.d.next = (self.{n}_hi.q.val() + bit_cast::<32, 1>(self.{n}_c.q.val().into()));");
                    u!("        if self.rst.val() {{\n            self.{n}_lo.d.next = 0.into();\n            self.{n}_hi.d.next = 0.into();\n            self.{n}_c.d.next = false;\n            self.{n}_inc.d.next = 0.into();\n        }}");
                    u!("        self.{n}_lo_rd.d.next = self.rsel_{n}_0.val();");
                    u!("        if self.{n}_lo_rd.q.val() {{\n            self.{n}_shadow.d.next = self.{n}_hi.q.val();\n        }}");
                    u!("        self.rval_{n}_0.next = self.{n}_lo.q.val();");
                } else {
                    // A block's counter: LO and HI are sampled from the port in the same
                    // cycle (R1).
                    d!("    pub hw_{n}: Signal<In, Bits<64>>,");
                    u!("        if self.rsel_{n}_0.val() {{\n            self.{n}_shadow.d.next = self.hw_{n}.val().get_bits::<32>(32);\n        }}");
                    u!("        self.rval_{n}_0.next = self.hw_{n}.val().get_bits::<32>(0);");
                }
                u!("        self.rval_{n}_1.next = self.{n}_shadow.q.val();");
            }
        }
    }

    // R1: per group, the word picked by address bits 5:2; R2: the group. Each is a
    // variable part-select of the words packed side by side.
    let mut rmux = String::new();
    // Address bits needed to tell `n` slots apart: a group only muxes as many slots as its
    // highest word needs; an address past them aliases a word, but it is unmapped, and
    // unmapped reads are zeroed below.
    let bits_for = |n: u32| 32 - n.saturating_sub(1).leading_zeros();
    let packed = |k: u32, slots: Vec<(u32, String)>| -> String {
        let terms: Vec<String> = slots
            .iter()
            .map(|(i, v)| format!("(bit_cast::<{}, 32>({v}) << {})", 32 << k, 32 * i))
            .collect();
        terms.join(" | ")
    };
    for (g, words) in &groups {
        d!("    grp_{g}: DFF<Bits<32>>,");
        setup.push(format!("grp_{g}"));
        let k = bits_for(words.iter().map(|(i, _)| i + 1).max().unwrap_or(1));
        if k == 0 {
            let _ = writeln!(
                rmux,
                "        self.grp_{g}.d.next = self.{}.val();",
                words[0].1
            );
            continue;
        }
        d!("    grp_{g}_words: Signal<Local, Bits<{}>>,", 32 << k);
        d!("    grp_{g}_bit: Signal<Local, Bits<{}>>,", k + 5);
        let slots = words
            .iter()
            .map(|(i, v)| (*i, format!("self.{v}.val()")))
            .collect();
        let _ = writeln!(
            rmux,
            "        self.grp_{g}_words.next = {};",
            packed(k, slots)
        );
        let _ = writeln!(rmux, "        self.grp_{g}_bit.next = (bit_cast::<{}, {k}>(self.ra_q.q.val().get_bits::<{k}>(2)) << 5);", k + 5);
        let _ = writeln!(rmux, "        self.grp_{g}.d.next = self.grp_{g}_words.val().get_bits::<32>(self.grp_{g}_bit.val().index());");
    }
    // R2 picks among the groups that hold words, numbered densely: their number comes
    // from a look-up of the group address in R1 (one LUT level), so R2 is a small mux.
    let k2 = bits_for(groups.len() as u32);
    d!("    ra2_q: DFF<Bits<{k2}>>,");
    d!("    ra2_bit: Signal<Local, Bits<{}>>,", k2 + 5);
    d!("    grp_all: Signal<Local, Bits<{}>>,", 32 << k2);
    let hi_bits = 10 - GROUP_WORD_BITS;
    let _ = writeln!(
        rmux,
        "        match self.ra_q.q.val().get_bits::<{hi_bits}>({}).index() {{",
        2 + GROUP_WORD_BITS
    );
    for (i, g) in groups.keys().enumerate() {
        let _ = writeln!(rmux, "            {g} => {{\n                self.ra2_q.d.next = {i}.into();\n            }}");
    }
    let _ = writeln!(rmux, "            _ => {{\n                self.ra2_q.d.next = 0.into();\n            }}\n        }}");
    let slots = groups
        .keys()
        .enumerate()
        .map(|(i, g)| (i as u32, format!("self.grp_{g}.q.val()")))
        .collect();
    let _ = writeln!(
        rmux,
        "        self.ra2_bit.next = (bit_cast::<{}, {k2}>(self.ra2_q.q.val()) << 5);",
        k2 + 5
    );
    let _ = writeln!(rmux, "        self.grp_all.next = {};", packed(k2, slots));
    let _ = writeln!(rmux, "        self.rd_data.next = self.grp_all.val().get_bits::<32>(self.ra2_bit.val().index());");
    // An unmapped or misaligned address reads as zero (it shares bits 6:2 with a word).
    let _ = writeln!(rmux, "        if !self.rd_ok_q.q.val() {{\n            self.rd_data.next = 0.into();\n        }}");

    let decl = format!("{COMMON_FIELDS}{decl}");
    let init: String = decl
        .lines()
        .filter_map(|l| l.trim().trim_start_matches("pub ").split(':').next())
        .filter(|name| !name.is_empty())
        .map(|name| {
            let e = init_of
                .get(name)
                .map_or("Default::default()", |e| e.as_str());
            format!("            {name}: {e},\n")
        })
        .collect();

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
    setup.push("ra2_q".into());
    for s in &setup {
        let _ = writeln!(code, "        self.{s}.clock.next = self.clk.val();\n        self.{s}.d.next = self.{s}.q.val();");
    }
    let _ = writeln!(code, "{}", COMMON_PRE);
    // Decode first and the error decision right after it: every local is assigned before
    // anything reads it, so the emitted always-block has no combinational self-loop.
    code.push_str(&sel);
    let _ = writeln!(code, "{}", COMMON_ERR);
    code.push_str(&upd);
    code.push_str(&rmux);
    let _ = writeln!(code, "{}", COMMON_POST);
    let _ = writeln!(code, "    }}\n}}");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("csr_gen.rs");
    std::fs::write(out, code).unwrap();
}

/// The AXI4-Lite slave and its pipeline, common to every register map.
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
    awready_q: DFF<Bit>,
    wa_q: DFF<Bits<12>>,
    wd_q: DFF<Bits<32>>,
    ws_q: DFF<Bits<4>>,
    w1_q: DFF<Bit>,
    w2_q: DFF<Bit>,
    wr_bad_q: DFF<Bit>,
    ro_write_q: DFF<Bit>,
    bvalid_q: DFF<Bit>,
    bresp_q: DFF<Bits<2>>,
    arready_q: DFF<Bit>,
    ra_q: DFF<Bits<12>>,
    r1_q: DFF<Bit>,
    r2_q: DFF<Bit>,
    rd_ok_q: DFF<Bit>,
    rd_bad_q: DFF<Bit>,
    rvalid_q: DFF<Bit>,
    rresp_q: DFF<Bits<2>>,
    rdata_q: DFF<Bits<32>>,
    wr_acc: Signal<Local, Bit>,
    rd_acc: Signal<Local, Bit>,
    w1_go: Signal<Local, Bit>,
    r1_go: Signal<Local, Bit>,
    wr_hit: Signal<Local, Bit>,
    rd_hit: Signal<Local, Bit>,
    wr_ro: Signal<Local, Bit>,
    mapped_words: Constant<Bits<1024>>,
    read_only_words: Constant<Bits<1024>>,
    bad_access: Signal<Local, Bit>,
    rd_data: Signal<Local, Bits<32>>,
    wmask: Signal<Local, Bits<32>>,
    wm0: Signal<Local, Bits<32>>,
    wm1: Signal<Local, Bits<32>>,
    wm2: Signal<Local, Bits<32>>,
    wm3: Signal<Local, Bits<32>>,
";

/// C0/R0: take a request into the capture registers when the registered ready is up
/// (never during reset); move the stage valids on. Also what the registered C2/R2
/// decisions add to the block's own counters, which the per-register code reads.
const COMMON_PRE: &str = "        dff_setup!(self, clk, awready_q, wa_q, wd_q, ws_q, w1_q, w2_q, wr_bad_q, ro_write_q, bvalid_q, bresp_q, arready_q, ra_q, r1_q, r2_q, rd_ok_q, rd_bad_q, rvalid_q, rresp_q, rdata_q);
        self.wr_acc.next = (((self.s_axil_awvalid.val() & self.s_axil_wvalid.val()) & self.awready_q.q.val()) & !self.rst.val());
        self.rd_acc.next = ((self.s_axil_arvalid.val() & self.arready_q.q.val()) & !self.rst.val());
        if self.wr_acc.val() {
            self.wa_q.d.next = self.s_axil_awaddr.val();
            self.wd_q.d.next = self.s_axil_wdata.val();
            self.ws_q.d.next = self.s_axil_wstrb.val();
        }
        if self.rd_acc.val() {
            self.ra_q.d.next = self.s_axil_araddr.val();
        }
        self.w1_q.d.next = self.wr_acc.val();
        self.r1_q.d.next = self.rd_acc.val();
        self.w1_go.next = (self.w1_q.q.val() & !self.rst.val());
        self.r1_go.next = (self.r1_q.q.val() & !self.rst.val());
        self.w2_q.d.next = self.w1_go.val();
        self.r2_q.d.next = self.r1_go.val();
        if self.ws_q.q.val().get_bit(0) { self.wm0.next = 0xff.into(); } else { self.wm0.next = 0.into(); }
        if self.ws_q.q.val().get_bit(1) { self.wm1.next = 0xff00.into(); } else { self.wm1.next = 0.into(); }
        if self.ws_q.q.val().get_bit(2) { self.wm2.next = 0xff0000.into(); } else { self.wm2.next = 0.into(); }
        if self.ws_q.q.val().get_bit(3) { self.wm3.next = 0xff00_0000_u64.into(); } else { self.wm3.next = 0.into(); }
        self.wmask.next = (((self.wm0.val() | self.wm1.val()) | self.wm2.val()) | self.wm3.val());
        self.bad_access.next = (self.wr_bad_q.q.val() | self.rd_bad_q.q.val());
        if (self.wr_bad_q.q.val() & self.rd_bad_q.q.val()) {
            self.cnt_csr_bad_access_inc.d.next = 2.into();
        } else if self.bad_access.val() {
            self.cnt_csr_bad_access_inc.d.next = 1.into();
        } else {
            self.cnt_csr_bad_access_inc.d.next = 0.into();
        }
        if self.ro_write_q.q.val() {
            self.cnt_csr_ro_write_inc.d.next = 1.into();
        } else {
            self.cnt_csr_ro_write_inc.d.next = 0.into();
        }";

/// C1/R1 decisions, registered for C2/R2: an unmapped or misaligned address is SLVERR;
/// a write to a word with nothing writable counts. Both are a look-up of the word
/// address in a constant bitmap (a MUXF tree), not an OR over every word's select.
const COMMON_ERR: &str = "        self.wr_hit.next = ((self.wa_q.q.val().get_bits::<2>(0) == 0) & self.mapped_words.val().get_bit(self.wa_q.q.val().get_bits::<10>(2).index()));
        self.wr_ro.next = ((self.wa_q.q.val().get_bits::<2>(0) == 0) & self.read_only_words.val().get_bit(self.wa_q.q.val().get_bits::<10>(2).index()));
        self.rd_hit.next = ((self.ra_q.q.val().get_bits::<2>(0) == 0) & self.mapped_words.val().get_bit(self.ra_q.q.val().get_bits::<10>(2).index()));
        self.wr_bad_q.d.next = (self.w1_go.val() & !self.wr_hit.val());
        self.ro_write_q.d.next = (self.w1_go.val() & self.wr_ro.val());
        self.rd_bad_q.d.next = (self.r1_go.val() & !self.rd_hit.val());
        self.rd_ok_q.d.next = self.rd_hit.val();";

/// C2/R2: responses. A ready is registered: it rises the cycle after the previous
/// response is taken, so no input port reaches an output port.
const COMMON_POST: &str = "        if self.w2_q.q.val() {
            self.bvalid_q.d.next = true;
            if self.wr_bad_q.q.val() { self.bresp_q.d.next = 2.into(); } else { self.bresp_q.d.next = 0.into(); }
        } else if self.s_axil_bready.val() {
            self.bvalid_q.d.next = false;
        }
        if self.r2_q.q.val() {
            self.rvalid_q.d.next = true;
            self.rdata_q.d.next = self.rd_data.val();
            if self.rd_bad_q.q.val() { self.rresp_q.d.next = 2.into(); } else { self.rresp_q.d.next = 0.into(); }
        } else if self.s_axil_rready.val() {
            self.rvalid_q.d.next = false;
        }
        self.awready_q.d.next = ((((!self.wr_acc.val() & !self.w1_q.q.val()) & !self.w2_q.q.val()) & !(self.bvalid_q.q.val() & !self.s_axil_bready.val())) & !self.rst.val());
        self.arready_q.d.next = ((((!self.rd_acc.val() & !self.r1_q.q.val()) & !self.r2_q.q.val()) & !(self.rvalid_q.q.val() & !self.s_axil_rready.val())) & !self.rst.val());
        if self.rst.val() {
            self.bvalid_q.d.next = false;
            self.rvalid_q.d.next = false;
        }
        self.s_axil_awready.next = self.awready_q.q.val();
        self.s_axil_wready.next = self.awready_q.q.val();
        self.s_axil_arready.next = self.arready_q.q.val();
        self.s_axil_bvalid.next = self.bvalid_q.q.val();
        self.s_axil_bresp.next = self.bresp_q.q.val();
        self.s_axil_rvalid.next = self.rvalid_q.q.val();
        self.s_axil_rresp.next = self.rresp_q.q.val();
        self.s_axil_rdata.next = self.rdata_q.q.val();";
