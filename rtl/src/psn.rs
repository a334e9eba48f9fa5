//! PSN comparisons built for one carry chain of 10 bits instead of 24.
//!
//! PSNs are 24-bit serial numbers: `a` is "not below" `b` when `(a − b) mod 2^24 < 2^23`,
//! i.e. bit 23 of the difference is clear. Written as a subtraction, that is one LUT and
//! three CARRY8s (4 levels, docs/timing.md) before anything can use the bit.
//!
//! [`NotBelow4x4`] forms the same bit with a shorter chain. Bit 23 of `a − b` is
//! `a[23] ^ ~b[23] ^ c`, where `c` is 1 when `a[22:0] ≥ b[22:0]`. That comparison is
//! taken three bits at a time: per group `j` a LUT gives "greater" (`gt`) and "greater
//! or equal" (`ge`) from the group's six inputs, and the sum `{a[23], gt, 1} +
//! {~b[23], ge, 1}` carries exactly as the comparison does (a greater group generates,
//! an equal one propagates, a smaller one kills; the bottom `1 + 1` is the carry-in that
//! makes equality count). Its bit 9 is bit 23 of `a − b`. One LUT and a 10-bit chain:
//! 2.5 levels at most, where the subtraction took 4.

use rust_hdl::prelude::*;

/// Sixteen "not below" bits: each of four PSNs (`d0`, `d1`, `w0`, `w1`) against each of
/// four heads (`h0`..`h3`). Bit `i` of `ge_x` is "`x` is not below `h_i`".
#[derive(LogicBlock, Default)]
pub struct NotBelow4x4 {
    pub d0: Signal<In, Bits<24>>,
    pub d1: Signal<In, Bits<24>>,
    pub w0: Signal<In, Bits<24>>,
    pub w1: Signal<In, Bits<24>>,
    pub h0: Signal<In, Bits<24>>,
    pub h1: Signal<In, Bits<24>>,
    pub h2: Signal<In, Bits<24>>,
    pub h3: Signal<In, Bits<24>>,
    pub ge_d0: Signal<Out, Bits<4>>,
    pub ge_d1: Signal<Out, Bits<4>>,
    pub ge_w0: Signal<Out, Bits<4>>,
    pub ge_w1: Signal<Out, Bits<4>>,
}

/// `a` is not below `b` in 24-bit serial-number order.
pub fn not_below(a: Bits<24>, b: Bits<24>) -> bool {
    !(a - b).get_bit(23)
}

impl Logic for NotBelow4x4 {
    fn update(&mut self) {
        let heads = [self.h0.val(), self.h1.val(), self.h2.val(), self.h3.val()];
        let row = |a: Bits<24>| -> Bits<4> {
            let mut r: Bits<4> = Default::default();
            for (i, h) in heads.iter().enumerate() {
                r = r.replace_bit(i, not_below(a, *h));
            }
            r
        };
        self.ge_d0.next = row(self.d0.val());
        self.ge_d1.next = row(self.d1.val());
        self.ge_w0.next = row(self.w0.val());
        self.ge_w1.next = row(self.w1.val());
    }
    fn connect(&mut self) {
        self.ge_d0.connect();
        self.ge_d1.connect();
        self.ge_w0.connect();
        self.ge_w1.connect();
    }
    fn hdl(&self) -> Verilog {
        // Group 7 holds bits 23:21; bit 23 is masked there, since it enters at the top.
        Verilog::Custom(
            "\
wire [95:0] a = {w1, w0, d1, d0};
wire [95:0] b = {h3, h2, h1, h0};
reg [15:0] ge;
reg [9:0] x;
reg [9:0] y;
// Only bit 9 of each sum is read: it is bit 23 of a - b.
/* verilator lint_off UNUSEDSIGNAL */
reg [9:0] t;
/* verilator lint_on UNUSEDSIGNAL */
reg [2:0] u;
reg [2:0] v;
integer s;
integer i;
integer j;
always @(*) begin
   for (s = 0; s < 4; s = s + 1) begin
      for (i = 0; i < 4; i = i + 1) begin
         x[0] = 1'b1;
         y[0] = 1'b1;
         for (j = 0; j < 8; j = j + 1) begin
            u = a[24*s + 3*j +: 3] & ((j == 7) ? 3'b011 : 3'b111);
            v = b[24*i + 3*j +: 3] & ((j == 7) ? 3'b011 : 3'b111);
            x[j + 1] = (u[2] & ~v[2])
               | (~(u[2] ^ v[2]) & ((u[1] & ~v[1]) | (~(u[1] ^ v[1]) & (u[0] & ~v[0]))));
            y[j + 1] = x[j + 1] | (u == v);
         end
         x[9] = a[24*s + 23];
         y[9] = ~b[24*i + 23];
         t = x + y;
         ge[4*s + i] = ~t[9];
      end
   end
   ge_d0 = ge[3:0];
   ge_d1 = ge[7:4];
   ge_w0 = ge[11:8];
   ge_w1 = ge[15:12];
end
"
            .into(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_below_is_serial_number_order() {
        let b = |v: u64| -> Bits<24> { v.into() };
        assert!(not_below(b(5), b(5)));
        assert!(not_below(b(6), b(5)));
        assert!(!not_below(b(4), b(5)));
        assert!(not_below(b(0), b(0xFF_FFFF)));
        assert!(!not_below(b(0xFF_FFFF), b(0)));
        assert!(not_below(b(0x7F_FFFF), b(0)));
        assert!(!not_below(b(0x80_0000), b(0)));
    }
}
