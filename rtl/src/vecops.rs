//! Combinational leaves over 256-bit vectors, the per-position work of `rx_reorder`'s
//! circular windows: decode, thermometer, first/last set bit in two halves (so a pipeline
//! register can sit between them), population count in three stages, and rotation in
//! two.
//!
//! Each leaf is a few lines of custom Verilog (rust-hdl's `#[hdl_gen]` has no loop
//! index constants and no concatenation) and a Rust `update` for rust-hdl's own
//! simulator; the two-simulator agreement test of `rx_reorder` exercises both.
//!
//! Widths are fixed at 256 positions in 16 groups of 16: the window size of the P-RNIC's
//! per-QP bitmaps. The group split is what keeps each half within a few logic levels:
//! a 16-input function is two LUT6 levels, a 16-way select one LUT6 with MUXF7/F8.

use rust_hdl::prelude::*;

/// Positions of a window.
pub const N: usize = 256;
/// Positions per group.
const G: usize = 16;
/// Groups.
const NG: usize = N / G;

/// Marks a leaf's Verilog for `prnic timing` to map on its own (docs/timing.md, "How a
/// path is measured"): a decoder of one value, two levels wherever it is placed, which
/// Yosys's ABC would otherwise stretch to the depth of the deepest path of the block
/// around it to save LUTs.
pub const MAP_APART: &str = "prnic-timing: map apart";

/// `oh[i] = (idx == i)`.
#[derive(LogicBlock, Default)]
pub struct Decode256 {
    pub idx: Signal<In, Bits<8>>,
    pub oh: Signal<Out, Bits<N>>,
}

impl Logic for Decode256 {
    fn update(&mut self) {
        let mut y: Bits<N> = Default::default();
        y = y.replace_bit(self.idx.val().index(), true);
        self.oh.next = y;
    }
    fn connect(&mut self) {
        self.oh.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
// {MAP_APART}
// Predecoded halves: one LUT4 per half, then one LUT2 per position.
reg [15:0] hi_eq;
reg [15:0] lo_eq;
integer g;
integer k;
always @(*) begin
   for (k = 0; k < 16; k = k + 1) begin
      hi_eq[k] = (idx[7:4] == k[3:0]);
      lo_eq[k] = (idx[3:0] == k[3:0]);
   end
   for (g = 0; g < 16; g = g + 1) begin
      for (k = 0; k < 16; k = k + 1) begin
         oh[16*g + k] = hi_eq[g] & lo_eq[k];
      end
   end
end
"
        ))
    }
}

/// `lt[i] = (i < idx)`: a thermometer, all positions before `idx`.
#[derive(LogicBlock, Default)]
pub struct Thermo256 {
    pub idx: Signal<In, Bits<8>>,
    pub lt: Signal<Out, Bits<N>>,
}

impl Logic for Thermo256 {
    fn update(&mut self) {
        self.lt.next = crate::wiring::low_ones(self.idx.val().index());
    }
    fn connect(&mut self) {
        self.lt.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
// {MAP_APART}
// Predecoded halves: position 16g+k is below idx when group g is below idx's group,
// or is idx's group and k is below idx's low half. One LUT4 per predecoded signal, then
// one LUT3 per position: two levels where a comparator chain would take five.
reg [15:0] hi_gt;
reg [15:0] hi_eq;
reg [15:0] lo_gt;
integer g;
integer k;
always @(*) begin
   for (k = 0; k < 16; k = k + 1) begin
      hi_gt[k] = (idx[7:4] > k[3:0]);
      hi_eq[k] = (idx[7:4] == k[3:0]);
      lo_gt[k] = (idx[3:0] > k[3:0]);
   end
   for (g = 0; g < 16; g = g + 1) begin
      for (k = 0; k < 16; k = k + 1) begin
         lt[16*g + k] = hi_gt[g] | (hi_eq[g] & lo_gt[k]);
      end
   end
end
"
        ))
    }
}

/// First half of a priority search over the positions set in both `v` and `m` (`v`
/// and not `m` when built with `invert_m`): per group of 16 positions, whether any is
/// set (`any[g]`) and the index within the group of the first one (`idx[4g+3:4g]`), the
/// lowest (`from_top` false) or the highest (`from_top` true).
#[derive(LogicBlock, Default)]
pub struct SetGroups {
    pub v: Signal<In, Bits<N>>,
    pub m: Signal<In, Bits<N>>,
    pub any: Signal<Out, Bits<NG>>,
    pub idx: Signal<Out, Bits<64>>,
    _from_top: bool,
    _invert_m: bool,
    _apart: bool,
}

impl SetGroups {
    pub fn new(from_top: bool) -> Self {
        Self {
            _from_top: from_top,
            ..Default::default()
        }
    }

    /// As [`SetGroups::new`], searching `v & ~m` when `invert_m`, and marked
    /// [`MAP_APART`]: for a search of registers (the mask inside, so no gate is left
    /// in front of it), two or three LUT levels wherever it is placed.
    pub fn new_apart(from_top: bool, invert_m: bool) -> Self {
        Self {
            _from_top: from_top,
            _invert_m: invert_m,
            _apart: true,
            ..Default::default()
        }
    }
}

impl Logic for SetGroups {
    fn update(&mut self) {
        let v = if self._invert_m {
            self.v.val() & !self.m.val()
        } else {
            self.v.val() & self.m.val()
        };
        let mut any: Bits<NG> = Default::default();
        let mut idx: Bits<64> = Default::default();
        for g in 0..NG {
            let bits: Vec<usize> = (0..G).filter(|&k| v.get_bit(g * G + k)).collect();
            let pick = if self._from_top {
                bits.last()
            } else {
                bits.first()
            };
            if let Some(&k) = pick {
                any = any.replace_bit(g, true);
                idx.set_bits::<4>(4 * g, (k as u64).into());
            }
        }
        self.any.next = any;
        self.idx.next = idx;
    }
    fn connect(&mut self) {
        self.any.connect();
        self.idx.connect();
    }
    fn hdl(&self) -> Verilog {
        // The loop visits positions so that the last match wins: ascending for the
        // highest, descending for the lowest.
        let (from, cond, step) = if self._from_top {
            ("0", "k < 16", "k = k + 1")
        } else {
            ("15", "k >= 0", "k = k - 1")
        };
        let apart = if self._apart {
            format!("// {MAP_APART}\n")
        } else {
            String::new()
        };
        let m = if self._invert_m { "~m" } else { "m" };
        Verilog::Custom(format!(
            "\
{apart}wire [255:0] vm = v & {m};
integer g;
integer k;
always @(*) begin
   idx = 64'd0;
   for (g = 0; g < 16; g = g + 1) begin
      any[g] = |vm[16*g +: 16];
      for (k = {from}; {cond}; {step}) begin
         if (vm[16*g + k]) idx[4*g +: 4] = k[3:0];
      end
   end
end
"
        ))
    }
}

/// Second half of a priority search: the first group with a set bit (lowest or highest,
/// as in [`SetGroups`]), and the position `16 × group + index`; `found` low when no
/// bit is set (`pos` is then 0).
#[derive(LogicBlock, Default)]
pub struct SetFinish {
    pub any: Signal<In, Bits<NG>>,
    pub idx: Signal<In, Bits<64>>,
    pub found: Signal<Out, Bit>,
    pub pos: Signal<Out, Bits<8>>,
    _from_top: bool,
}

impl SetFinish {
    pub fn new(from_top: bool) -> Self {
        Self {
            _from_top: from_top,
            ..Default::default()
        }
    }
}

impl Logic for SetFinish {
    fn update(&mut self) {
        let any = self.any.val();
        let groups: Vec<usize> = (0..NG).filter(|&g| any.get_bit(g)).collect();
        let pick = if self._from_top {
            groups.last()
        } else {
            groups.first()
        };
        match pick {
            Some(&g) => {
                self.found.next = true;
                let k = self.idx.val().get_bits::<4>(4 * g).index();
                self.pos.next = ((16 * g + k) as u64).into();
            }
            None => {
                self.found.next = false;
                self.pos.next = 0.into();
            }
        }
    }
    fn connect(&mut self) {
        self.found.connect();
        self.pos.connect();
    }
    fn hdl(&self) -> Verilog {
        let (from, cond, step) = if self._from_top {
            ("0", "g < 16", "g = g + 1")
        } else {
            ("15", "g >= 0", "g = g - 1")
        };
        Verilog::Custom(format!(
            "\
integer g;
reg [3:0] grp;
always @(*) begin
   grp = 4'd0;
   for (g = {from}; {cond}; {step}) begin
      if (any[g]) grp = g[3:0];
   end
   found = |any;
   pos = found ? {{grp, idx[4*grp +: 4]}} : 8'd0;
end
"
        ))
    }
}

/// Second half of a priority search over two [`SetGroups`] results searched in turn:
/// set `a` first, then set `b` (a circular search: `a` is the part of the window after
/// a start position, `b` the whole window for the wrap-around). `found` is low when
/// neither has a set bit; `from_b` says the position came from `b`.
///
/// The search is a tree of 4-way priority muxes (see `hdl`): three LUT levels from a
/// group's "any" to the position.
#[derive(LogicBlock, Default)]
pub struct SetFinish2 {
    pub any_a: Signal<In, Bits<NG>>,
    pub idx_a: Signal<In, Bits<64>>,
    pub any_b: Signal<In, Bits<NG>>,
    pub idx_b: Signal<In, Bits<64>>,
    pub found: Signal<Out, Bit>,
    pub from_b: Signal<Out, Bit>,
    pub pos: Signal<Out, Bits<8>>,
    _from_top: bool,
    _apart: bool,
}

impl SetFinish2 {
    pub fn new(from_top: bool) -> Self {
        Self {
            _from_top: from_top,
            ..Default::default()
        }
    }

    /// As [`SetFinish2::new`], marked [`MAP_APART`]: for a search whose inputs are all
    /// registers, so mapping it on its own folds nothing away and keeps it as shallow
    /// as it can be, whatever the block around it.
    pub fn new_apart(from_top: bool) -> Self {
        Self {
            _from_top: from_top,
            _apart: true,
            ..Default::default()
        }
    }

    /// Search order of the 32 groups (`a` = 0..16, `b` = 16..32): rank 0 first.
    fn rank(&self, g: usize) -> usize {
        let (set, k) = (g / NG, g % NG);
        let within = if self._from_top { NG - 1 - k } else { k };
        set * NG + within
    }
}

impl Logic for SetFinish2 {
    fn update(&mut self) {
        let (aa, ab) = (self.any_a.val(), self.any_b.val());
        let any = |g: usize| {
            if g < NG {
                aa.get_bit(g)
            } else {
                ab.get_bit(g - NG)
            }
        };
        let mut best: Option<usize> = None;
        for g in 0..2 * NG {
            if any(g) && best.is_none_or(|b| self.rank(g) < self.rank(b)) {
                best = Some(g);
            }
        }
        match best {
            Some(g) => {
                let idx = if g < NG {
                    self.idx_a.val()
                } else {
                    self.idx_b.val()
                };
                let k = idx.get_bits::<4>(4 * (g % NG)).index();
                self.found.next = true;
                self.from_b.next = g >= NG;
                self.pos.next = ((16 * (g % NG) + k) as u64).into();
            }
            None => {
                self.found.next = false;
                self.from_b.next = false;
                self.pos.next = 0.into();
            }
        }
    }
    fn connect(&mut self) {
        self.found.connect();
        self.from_b.connect();
        self.pos.connect();
    }
    fn hdl(&self) -> Verilog {
        // A tree of 4-way priority muxes over the 32 groups in search order: 8 nodes of
        // 4 groups, then 2 of 4 nodes, then a then b. A node's value is 7 inputs (three
        // "any"s and four values: one LUT6 with its MUXF7), and the "any" of a node is
        // an OR formed beside it, so the position is 3 LUT levels deep and no group bit
        // drives more than one node.
        let mut by_rank = [0usize; 2 * NG];
        for g in 0..2 * NG {
            by_rank[self.rank(g)] = g;
        }
        let mut s = String::new();
        if self._apart {
            s += &format!("// {MAP_APART}\n");
        }
        s += "wire [31:0] c = {any_b, any_a};\nwire [127:0] ix = {idx_b, idx_a};\n";
        s += "reg [7:0] aa;\nreg [63:0] va;\nreg [1:0] ab;\nreg [15:0] vb;\n";
        s += "always @(*) begin\n";
        for j in 0..2 * NG / 4 {
            let g: Vec<usize> = (0..4).map(|k| by_rank[4 * j + k]).collect();
            let v = |k: usize| format!("{{4'd{}, ix[{}:{}]}}", g[k] % NG, 4 * g[k] + 3, 4 * g[k]);
            // The last node's last value is 0 unless its group has a set bit, so `pos`
            // is 0 when nothing is found.
            let last = if j == 2 * NG / 4 - 1 {
                format!("(c[{}] ? {} : 8'd0)", g[3], v(3))
            } else {
                v(3)
            };
            s += &format!(
                "   aa[{j}] = c[{}] | c[{}] | c[{}] | c[{}];\n",
                g[0], g[1], g[2], g[3]
            );
            s += &format!(
                "   va[{}:{}] = c[{}] ? {} : (c[{}] ? {} : (c[{}] ? {} : {}));\n",
                8 * j + 7,
                8 * j,
                g[0],
                v(0),
                g[1],
                v(1),
                g[2],
                v(2),
                last
            );
        }
        for k in 0..2 {
            let n = |i: usize| 4 * k + i;
            let va = |i: usize| format!("va[{}:{}]", 8 * n(i) + 7, 8 * n(i));
            s += &format!(
                "   ab[{k}] = aa[{}] | aa[{}] | aa[{}] | aa[{}];\n",
                n(0),
                n(1),
                n(2),
                n(3)
            );
            s += &format!(
                "   vb[{}:{}] = aa[{}] ? {} : (aa[{}] ? {} : (aa[{}] ? {} : {}));\n",
                8 * k + 7,
                8 * k,
                n(0),
                va(0),
                n(1),
                va(1),
                n(2),
                va(2),
                va(3)
            );
        }
        s += "   pos = ab[0] ? vb[7:0] : vb[15:8];\n";
        // `from_b` straight from the groups' "any"s (two levels), not through the tree's.
        s += "   found = ab[0] | ab[1];\n   from_b = ~(|any_a) & (|any_b);\nend\n";
        Verilog::Custom(s)
    }
}

/// `out[i] = v[i / 16]`: one bit per group of 16 positions, spread over the group.
#[derive(LogicBlock, Default)]
pub struct Spread16 {
    pub v: Signal<In, Bits<NG>>,
    pub out: Signal<Out, Bits<N>>,
}

impl Logic for Spread16 {
    fn update(&mut self) {
        let v = self.v.val();
        let mut y: Bits<N> = Default::default();
        for i in 0..N {
            y = y.replace_bit(i, v.get_bit(i / G));
        }
        self.out.next = y;
    }
    fn connect(&mut self) {
        self.out.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "\
integer i;
always @(*) begin
   for (i = 0; i < 256; i = i + 1) begin
      out[i] = v[i / 16];
   end
end
"
            .into(),
        )
    }
}

/// `out = v[16 × g + 15 : 16 × g]`: group `g` of the 256 positions, a 16-way select per
/// bit (one LUT6 with its MUXF7/F8).
#[derive(LogicBlock, Default)]
pub struct Group16 {
    pub v: Signal<In, Bits<N>>,
    pub g: Signal<In, Bits<4>>,
    pub out: Signal<Out, Bits<G>>,
}

impl Logic for Group16 {
    fn update(&mut self) {
        self.out.next = self.v.val().get_bits::<G>(self.g.val().index() * G);
    }
    fn connect(&mut self) {
        self.out.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "\
always @(*) begin
   out = v[{g, 4'd0} +: 16];
end
"
            .into(),
        )
    }
}

/// First half of a population count: the number of set bits in each group of 16
/// (`counts[5g+4:5g]`, 0..=16).
#[derive(LogicBlock, Default)]
pub struct PopGroups {
    pub v: Signal<In, Bits<N>>,
    pub counts: Signal<Out, Bits<80>>,
}

impl Logic for PopGroups {
    fn update(&mut self) {
        let v = self.v.val();
        let mut c: Bits<80> = Default::default();
        for g in 0..NG {
            let n = (0..G).filter(|&k| v.get_bit(g * G + k)).count();
            c.set_bits::<5>(5 * g, (n as u64).into());
        }
        self.counts.next = c;
    }
    fn connect(&mut self) {
        self.counts.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "\
function [2:0] pop4(input [3:0] b);
   pop4 = {&b, ((b[0] ^ b[1]) & (b[2] ^ b[3])) | ((b[0] & b[1]) ^ (b[2] & b[3])), ^b};
endfunction
function [4:0] add5(input [4:0] a, input [4:0] b);
   reg c1, c2, c3, c4;
   begin
      c1 = a[0] & b[0];
      c2 = (a[1] & b[1]) | (c1 & (a[1] ^ b[1]));
      c3 = (a[2] & b[2]) | (c2 & (a[2] ^ b[2]));
      c4 = (a[3] & b[3]) | (c3 & (a[3] ^ b[3]));
      add5 = {a[4] ^ b[4] ^ c4, a[3] ^ b[3] ^ c3, a[2] ^ b[2] ^ c2, a[1] ^ b[1] ^ c1, a[0] ^ b[0]};
   end
endfunction
integer g;
reg [2:0] q0, q1, q2, q3;
reg [4:0] h0, h1;
always @(*) begin
   counts = 80'd0;
   for (g = 0; g < 16; g = g + 1) begin
      // A tree of gate-level adders: four 4-bit counts, two sums of two, one sum. No
      // `+`, so synthesis infers no carry chain and maps each count to two LUT6 levels
      // (with MUXF7/F8) instead of LUTs around three carry chains.
      q0 = pop4(v[16*g +: 4]);
      q1 = pop4(v[16*g + 4 +: 4]);
      q2 = pop4(v[16*g + 8 +: 4]);
      q3 = pop4(v[16*g + 12 +: 4]);
      // One 5-bit adder (no carry out: every sum here, at most 16, fits in 5 bits)
      // serves both levels; synthesis folds the zero-extension of the first.
      h0 = add5({2'b0, q0}, {2'b0, q1});
      h1 = add5({2'b0, q2}, {2'b0, q3});
      counts[5*g +: 5] = add5(h0, h1);
   end
end
"
            .into(),
        )
    }
}

/// The sum of four 7-bit values (0..=508), as two additions in parallel and one after:
/// a population count's second and third halves (16 group counts → 4 → 1).
#[derive(LogicBlock, Default)]
pub struct Sum4 {
    pub a: Signal<In, Bits<28>>,
    pub total: Signal<Out, Bits<9>>,
}

impl Logic for Sum4 {
    fn update(&mut self) {
        let a = self.a.val();
        let t: u64 = (0..4).map(|i| a.get_bits::<7>(7 * i).to_u64()).sum();
        self.total.next = t.into();
    }
    fn connect(&mut self) {
        self.total.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(
            "\
wire [7:0] lo = {1'b0, a[6:0]} + {1'b0, a[13:7]};
wire [7:0] hi = {1'b0, a[20:14]} + {1'b0, a[27:21]};
always @(*) begin
   total = {1'b0, lo} + {1'b0, hi};
end
"
            .into(),
        )
    }
}

/// `out[j] = v[(j + step × amt) mod 256]`: rotate right by `amt` steps of `step`
/// positions (1 or 16). Two of them in series (16, then 1) rotate by any of 256
/// positions in two pipeline stages: each is a 16-way select per bit.
#[derive(LogicBlock, Default)]
pub struct RotR16 {
    pub v: Signal<In, Bits<N>>,
    pub amt: Signal<In, Bits<4>>,
    pub out: Signal<Out, Bits<N>>,
    _step: usize,
}

impl RotR16 {
    pub fn new(step: usize) -> Self {
        assert!(step == 1 || step == 16, "RotR16 step {step}");
        Self {
            _step: step,
            ..Default::default()
        }
    }
}

impl Logic for RotR16 {
    fn update(&mut self) {
        let v = self.v.val();
        let a = self.amt.val().index() * self._step;
        let mut y: Bits<N> = Default::default();
        for j in 0..N {
            y = y.replace_bit(j, v.get_bit((j + a) % N));
        }
        self.out.next = y;
    }
    fn connect(&mut self) {
        self.out.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
wire [511:0] twice = {{v, v}};
wire [8:0] shift = {{5'd0, amt}} * 9'd{step};
always @(*) begin
   out = twice[shift +: 256];
end
",
            step = self._step
        ))
    }
}

#[cfg(test)]
mod tests;
