//! Leaf helpers that rust-hdl 0.46 cannot express in `#[hdl_gen]` code.
//!
//! `hdl_gen` has no concatenation and no way to turn a loop index into a constant, so a
//! byte reversal or a "count of a low-justified byte mask" would have to be spelled out
//! term by term for every width. These leaves are a few lines of custom Verilog each,
//! with a Rust `update` for rust-hdl's own simulator: combinational wiring, and one
//! flip-flop that synthesis must keep.
//!
//! * [`ByteSwap`]: network byte order ⇄ AXI4-Stream lane order. AXI4-Stream carries byte
//!   `i` of a frame in `tdata[8i+7:8i]`; headers are easier to read and build as one
//!   big-endian number, so the first 64 bytes of a beat are byte-reversed once.
//! * [`KeepCount`]: the number of valid bytes of a beat whose `tkeep` is low-justified
//!   (`0..01..1`), as an OR of one-hot terms that synthesis balances into a tree.
//! * [`KeepBytes`]: a byte-lane mask (`tkeep`) spread over the bits of its lanes.
//! * [`KeepDff`]: a flip-flop that synthesis keeps as its own cell, for the copies of a
//!   register that a wide fan-out is split over.
//! * [`low_ones`]: a constant with its low bits set, for the masks written as
//!   `Constant`s (rust-hdl's `Bits` has no such constructor).

use rust_hdl::prelude::*;

/// `Bits<W>` with bits `0..n` set (`n` ≤ `W`).
pub fn low_ones<const W: usize>(n: usize) -> Bits<W> {
    assert!(n <= W);
    let mut b: Bits<W> = Default::default();
    for i in 0..n {
        b = b.replace_bit(i, true);
    }
    b
}

/// A flip-flop that synthesis keeps as its own cell. The copies of one register that a
/// wide fan-out is split over have the same input, and Yosys `opt_merge` (like vendor
/// tools without a `keep`) would merge them back into one net of a thousand loads.
/// Same behaviour as rust-hdl's `DFF`.
#[derive(LogicBlock, Default)]
pub struct KeepDff<T: Synth> {
    pub d: Signal<In, T>,
    pub q: Signal<Out, T>,
    pub clock: Signal<In, Clock>,
}

impl<T: Synth> Logic for KeepDff<T> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            self.q.next = self.d.val()
        }
    }

    fn connect(&mut self) {
        self.q.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
initial begin
   q = {:x};
end

(* keep *)
always @(posedge clock) begin
   q <= d;
end
",
            T::default().verilog()
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "keep_dff".into(),
            clock: "clock".into(),
            inputs: vec!["d".into()],
            outputs: vec!["q".into()],
        }]
    }
}

/// `data_out` is `data_in` with its bytes in reverse order (`N` a multiple of 8).
#[derive(LogicBlock, Default)]
pub struct ByteSwap<const N: usize> {
    pub data_in: Signal<In, Bits<N>>,
    pub data_out: Signal<Out, Bits<N>>,
}

impl<const N: usize> Logic for ByteSwap<N> {
    fn update(&mut self) {
        let x = self.data_in.val();
        let mut y: Bits<N> = Default::default();
        for b in 0..N / 8 {
            y.set_bits::<8>(8 * (N / 8 - 1 - b), x.get_bits::<8>(8 * b));
        }
        self.data_out.next = y;
    }

    fn connect(&mut self) {
        self.data_out.connect();
    }

    fn hdl(&self) -> Verilog {
        assert!(N.is_multiple_of(8), "ByteSwap width {N}");
        let bytes: Vec<String> = (0..N / 8)
            .map(|b| format!("data_in[{}:{}]", 8 * b + 7, 8 * b))
            .collect();
        Verilog::Custom(format!(
            "always @(*) begin\n   data_out = {{{}}};\nend\n",
            bytes.join(", ")
        ))
    }
}

/// `bytes` is `keep` with each bit repeated over its byte lane (`D` = 8 `K` bits).
#[derive(LogicBlock, Default)]
pub struct KeepBytes<const D: usize, const K: usize> {
    pub keep: Signal<In, Bits<K>>,
    pub bytes: Signal<Out, Bits<D>>,
}

impl<const D: usize, const K: usize> Logic for KeepBytes<D, K> {
    fn update(&mut self) {
        let k = self.keep.val();
        let mut y: Bits<D> = Default::default();
        for b in 0..K {
            if k.get_bit(b) {
                y.set_bits::<8>(8 * b, 0xffu64.into());
            }
        }
        self.bytes.next = y;
    }

    fn connect(&mut self) {
        self.bytes.connect();
    }

    fn hdl(&self) -> Verilog {
        assert_eq!(D, 8 * K, "KeepBytes: D = 8K");
        let lanes: Vec<String> = (0..K)
            .rev()
            .map(|b| format!("{{8{{keep[{b}]}}}}"))
            .collect();
        Verilog::Custom(format!(
            "always @(*) begin
   bytes = {{{}}};
end
",
            lanes.join(", ")
        ))
    }
}

/// `count` is the number of ones of a low-justified mask `keep` (`K` bits, count up to
/// `K`, 16 bits wide). For any other mask the result is the position of the highest
/// `1 -> 0` edge plus one, ORed over edges; callers validate the mask separately.
#[derive(LogicBlock, Default)]
pub struct KeepCount<const K: usize> {
    pub keep: Signal<In, Bits<K>>,
    pub count: Signal<Out, Bits<16>>,
}

impl<const K: usize> Logic for KeepCount<K> {
    fn update(&mut self) {
        let k = self.keep.val();
        let mut c = 0u64;
        for i in 0..K {
            let next = if i + 1 < K { k.get_bit(i + 1) } else { false };
            if k.get_bit(i) && !next {
                c |= (i + 1) as u64;
            }
        }
        self.count.next = c.into();
    }

    fn connect(&mut self) {
        self.count.connect();
    }

    fn hdl(&self) -> Verilog {
        assert!(K < 65536, "KeepCount width {K}");
        Verilog::Custom(format!(
            "\
// One-hot edge of a low-justified mask, then an OR of each edge's position + 1.
wire [{msb}:0] edge_hot = keep & ~(keep >> 1);
integer i;
always @(*) begin
   count = 16'd0;
   for (i = 0; i < {k}; i = i + 1) begin
      count = count | ({{16{{edge_hot[i]}}}} & (i[15:0] + 16'd1));
   end
end
",
            msb = K - 1,
            k = K
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byteswap_reverses() {
        let mut uut = ByteSwap::<32>::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_testbench(move |mut ep: Sim<ByteSwap<32>>| {
            let mut x = ep.init()?;
            x.data_in.next = 0x1122_3344u64.into();
            x = ep.wait(1, x)?;
            sim_assert_eq!(ep, x.data_out.val(), 0x4433_2211u64, x);
            ep.done(x)
        });
        sim.run(Box::new(uut), 10).unwrap();
    }

    #[test]
    fn keepcount_counts_low_justified_masks() {
        let mut uut = KeepCount::<16>::default();
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_testbench(move |mut ep: Sim<KeepCount<16>>| {
            let mut x = ep.init()?;
            for n in 0..=16u64 {
                x.keep.next = ((1u64 << n) - 1).into();
                x = ep.wait(1, x)?;
                sim_assert_eq!(ep, x.count.val(), n, x);
            }
            ep.done(x)
        });
        sim.run(Box::new(uut), 100).unwrap();
    }
}
