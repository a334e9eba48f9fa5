//! `BankRam`: a simple dual-port RAM (one write port, one registered read port) whose depth
//! is set at construction from the config, not by a const generic.
//!
//! rust-hdl's own `RAM<D, N>` fixes the address width at compile time; the flow table's
//! depth comes from `PrnicConfig`, so this block takes it as a value and emits
//! `reg [W-1:0] mem[0:depth-1]` with a registered read, which Yosys maps to block RAM.
//! No initial contents are ever emitted (a 8K-deep table must not carry an initial block).
//!
//! ### Ports
//! * `read_address` (16 bits, low `log2(depth)` bits used), `read_data`: registered read;
//!   a read and a write of the same address on one edge return the **old** word.
//! * `write_address`, `write_data`, `write_enable`: one whole word per edge.
//! * `aux_read_data`: the word at `write_address` as it was before the edge (read-first),
//!   registered — port A of a true dual-port BRAM, used for CSR read-back.

use rust_hdl::prelude::*;

/// The address ports are 16 bits for every depth; the bits above `log2(depth)` are
/// unused, named in Verilator's idiom for deliberately unused signals.
fn unused_address_bits(a: usize) -> String {
    if a < 16 {
        format!("wire _unused_ok = &{{1'b0, read_address[15:{a}], write_address[15:{a}]}};\n")
    } else {
        String::new()
    }
}

#[derive(LogicBlock)]
pub struct BankRam<D: Synth> {
    pub read_address: Signal<In, Bits<16>>,
    pub read_clock: Signal<In, Clock>,
    pub read_data: Signal<Out, D>,
    pub write_address: Signal<In, Bits<16>>,
    pub write_clock: Signal<In, Clock>,
    pub write_data: Signal<In, D>,
    pub write_enable: Signal<In, Bit>,
    /// The word at `write_address` before this edge's write (read-first), one cycle
    /// later: a second, slow read path (CSR read-back) on the write port.
    pub aux_read_data: Signal<Out, D>,
    // Simulation storage; the leading underscore keeps it out of the derived Block walk.
    _sim: Vec<D>,
}

impl<D: Synth> BankRam<D> {
    /// `depth` must be a power of two between 2 and 65536.
    pub fn new(depth: usize) -> Self {
        assert!(
            depth.is_power_of_two() && (2..=65536).contains(&depth),
            "BankRam depth {depth}"
        );
        Self {
            read_address: Default::default(),
            read_clock: Default::default(),
            read_data: Default::default(),
            write_address: Default::default(),
            write_clock: Default::default(),
            write_data: Default::default(),
            write_enable: Default::default(),
            aux_read_data: Default::default(),
            _sim: vec![D::default(); depth],
        }
    }

    fn addr_bits(&self) -> usize {
        self._sim.len().trailing_zeros() as usize
    }
}

impl<D: Synth> Logic for BankRam<D> {
    fn update(&mut self) {
        let mask = self._sim.len() - 1;
        if self.read_clock.pos_edge() {
            self.read_data.next = self._sim[self.read_address.val().index() & mask];
        }
        if self.write_clock.pos_edge() {
            let a = self.write_address.val().index() & mask;
            self.aux_read_data.next = self._sim[a];
            if self.write_enable.val() {
                self._sim[a] = self.write_data.val();
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
        self.aux_read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
reg [{msb}:0] mem [0:{last}];
// The address ports are 16 bits for every depth; only the low log2(depth) bits index.
wire [{amsb}:0] read_index = read_address[{amsb}:0];
wire [{amsb}:0] write_index = write_address[{amsb}:0];
{unused}
always @(posedge read_clock) begin
   read_data <= mem[read_index];
end

always @(posedge write_clock) begin
   aux_read_data <= mem[write_index];
   if (write_enable) begin
      mem[write_index] <= write_data;
   end
end
",
            msb = D::BITS - 1,
            last = self._sim.len() - 1,
            amsb = self.addr_bits() - 1,
            // Verilator's idiom for deliberately unused bits: a wire named *unused*.
            unused = unused_address_bits(self.addr_bits()),
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![
            TimingInfo {
                name: "ram_read".into(),
                clock: "read_clock".into(),
                inputs: vec!["read_address".into()],
                outputs: vec!["read_data".into()],
            },
            TimingInfo {
                name: "ram_write".into(),
                clock: "write_clock".into(),
                inputs: vec![
                    "write_address".into(),
                    "write_data".into(),
                    "write_enable".into(),
                ],
                outputs: vec!["aux_read_data".into()],
            },
        ]
    }
}

/// `DistRam`: one `T` per entry, read asynchronously, written on the clock (distributed
/// RAM, LUTRAM). [`BitRam`] is the one-bit form: `rx_reorder` keeps its "retransmission
/// request sent at this head" flags there, read and written in its last stage, so they
/// stay out of the per-QP word's loop. `flow_table` keeps a copy of its stash entries in
/// one for read-back, so software reads them through a few LUTs instead of a wide select.
#[derive(LogicBlock)]
pub struct DistRam<T: Synth> {
    pub clk: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<16>>,
    pub read_data: Signal<Out, T>,
    pub write_address: Signal<In, Bits<16>>,
    pub write_data: Signal<In, T>,
    pub write_enable: Signal<In, Bit>,
    _sim: Vec<T>,
}

/// One-bit [`DistRam`].
pub type BitRam = DistRam<Bit>;

impl<T: Synth> DistRam<T> {
    /// `depth` must be a power of two between 2 and 65536.
    pub fn new(depth: usize) -> Self {
        assert!(
            depth.is_power_of_two() && (2..=65536).contains(&depth),
            "DistRam depth {depth}"
        );
        Self {
            clk: Default::default(),
            read_address: Default::default(),
            read_data: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            write_enable: Default::default(),
            _sim: vec![T::default(); depth],
        }
    }
}

impl<T: Synth> Logic for DistRam<T> {
    fn update(&mut self) {
        let mask = self._sim.len() - 1;
        if self.clk.pos_edge() && self.write_enable.val() {
            self._sim[self.write_address.val().index() & mask] = self.write_data.val();
        }
        self.read_data.next = self._sim[self.read_address.val().index() & mask];
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let a = self._sim.len().trailing_zeros() as usize;
        let width = match T::BITS {
            1 => String::new(),
            w => format!("[{}:0] ", w - 1),
        };
        Verilog::Custom(format!(
            "\
reg {width}mem [0:{last}];
wire [{amsb}:0] read_index = read_address[{amsb}:0];
wire [{amsb}:0] write_index = write_address[{amsb}:0];
{unused}
always @(*) begin
   read_data = mem[read_index];
end

always @(posedge clk) begin
   if (write_enable) begin
      mem[write_index] <= write_data;
   end
end
",
            last = self._sim.len() - 1,
            amsb = a - 1,
            unused = unused_address_bits(a),
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "distram_write".into(),
            clock: "clk".into(),
            inputs: vec![
                "write_address".into(),
                "write_data".into(),
                "write_enable".into(),
            ],
            outputs: vec![],
        }]
    }
}

/// `PipeRam`: a simple dual-port block RAM whose read data is registered twice, so no
/// logic ever follows the RAM's own output: the first register is the RAM's read latch,
/// the second is the block RAM output register (Xilinx `DO_REG`), which a place-and-route
/// tool packs into the RAM. A read's data is on `read_data` two edges after its address.
///
/// ### Ports
/// * `read_address` (16 bits, low `log2(depth)` bits used), `read_enable`: on an edge with
///   `read_enable` high the word at `read_address` enters the read latch (a word written on
///   the same edge is returned as it was before: read-first).
/// * `out_enable`: on an edge with `out_enable` high the latch moves to `read_data`.
///   Blocks that read every cycle tie both enables high; a FIFO stalls them.
/// * `write_address`, `write_data`, `write_enable`: one whole word per edge.
///
/// [`PipeRam::new_one_reg`] builds it without the output register, for a block that
/// registers the word itself with one LUT in front (a forwarding mux): `read_data` is
/// the read latch, one edge after the address, and `out_enable` is not used.
#[derive(LogicBlock)]
pub struct PipeRam<D: Synth> {
    pub clk: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<16>>,
    pub read_enable: Signal<In, Bit>,
    pub out_enable: Signal<In, Bit>,
    pub read_data: Signal<Out, D>,
    pub write_address: Signal<In, Bits<16>>,
    pub write_data: Signal<In, D>,
    pub write_enable: Signal<In, Bit>,
    // Simulation state; the leading underscores keep it out of the derived Block walk.
    _sim: Vec<D>,
    _latch: D,
    _one_reg: bool,
}

impl<D: Synth> PipeRam<D> {
    /// `depth` must be a power of two between 2 and 65536.
    pub fn new(depth: usize) -> Self {
        assert!(
            depth.is_power_of_two() && (2..=65536).contains(&depth),
            "PipeRam depth {depth}"
        );
        Self {
            clk: Default::default(),
            read_address: Default::default(),
            read_enable: Default::default(),
            out_enable: Default::default(),
            read_data: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            write_enable: Default::default(),
            _sim: vec![D::default(); depth],
            _latch: D::default(),
            _one_reg: false,
        }
    }

    /// As [`PipeRam::new`], without the output register: `read_data` one edge after the
    /// address.
    pub fn new_one_reg(depth: usize) -> Self {
        Self {
            _one_reg: true,
            ..Self::new(depth)
        }
    }
}

impl<D: Synth> Logic for PipeRam<D> {
    fn update(&mut self) {
        if self.clk.pos_edge() {
            let mask = self._sim.len() - 1;
            // Both registers sample before the write: read-first, and the output register
            // takes the latch as it was before this edge.
            if self.out_enable.val() && !self._one_reg {
                self.read_data.next = self._latch;
            }
            if self.read_enable.val() {
                self._latch = self._sim[self.read_address.val().index() & mask];
                if self._one_reg {
                    self.read_data.next = self._latch;
                }
            }
            if self.write_enable.val() {
                self._sim[self.write_address.val().index() & mask] = self.write_data.val();
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let a = self._sim.len().trailing_zeros() as usize;
        let read = if self._one_reg {
            "\
// The RAM's read latch is `read_data` (no output register).
wire unused_out_enable = out_enable;
always @(posedge clk) begin
   if (read_enable) begin
      read_data <= mem[read_index];
   end
"
        } else {
            "\
// The RAM's read latch; `read_data` is the output register (DO_REG) after it.
reg [MSB:0] latch;
always @(posedge clk) begin
   if (read_enable) begin
      latch <= mem[read_index];
   end
   if (out_enable) begin
      read_data <= latch;
   end
"
        };
        Verilog::Custom(format!(
            "\
reg [{msb}:0] mem [0:{last}];
wire [{amsb}:0] read_index = read_address[{amsb}:0];
wire [{amsb}:0] write_index = write_address[{amsb}:0];
{unused}
{read}   if (write_enable) begin
      mem[write_index] <= write_data;
   end
end
",
            msb = D::BITS - 1,
            last = self._sim.len() - 1,
            amsb = a - 1,
            unused = unused_address_bits(a),
            read = read.replace("MSB", &(D::BITS - 1).to_string()),
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "pipe_ram".into(),
            clock: "clk".into(),
            inputs: vec![
                "read_address".into(),
                "read_enable".into(),
                "out_enable".into(),
                "write_address".into(),
                "write_data".into(),
                "write_enable".into(),
            ],
            outputs: vec!["read_data".into()],
        }]
    }
}

/// `RamSweep`: after a reset, walks the addresses of a per-QP RAM (`PipeRam`) once, one
/// per cycle, so that its block writes every word's initial value: the reset sweep of
/// `credit_tx`, `credit_rx` and `rx_reorder`. Their RAMs have no initial contents (a
/// reset must also clear them at run time), so each word is written back.
///
/// ### Ports
/// * `clk`, `rst`: `rst` (synchronous) starts the sweep at address 0, and restarts it
///   when it comes during one.
/// * `active`: a register, high from the edge after `rst` until `depth` addresses have
///   been given; the block writes its RAM and refuses work meanwhile.
/// * `index`: a register, the address to write in this cycle while `active` is high.
#[derive(LogicBlock)]
pub struct RamSweep {
    pub clk: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub active: Signal<Out, Bit>,
    pub index: Signal<Out, Bits<16>>,
    clearing: DFF<Bit>,
    clear_index: DFF<Bits<16>>,
    last: Constant<Bits<16>>,
}

impl RamSweep {
    /// `depth`: the RAM's words, 1..=65536.
    pub fn new(depth: usize) -> Self {
        assert!((1..=65536).contains(&depth), "RamSweep depth {depth}");
        Self {
            clk: Default::default(),
            rst: Default::default(),
            active: Default::default(),
            index: Default::default(),
            clearing: Default::default(),
            clear_index: Default::default(),
            last: Constant::new(((depth - 1) as LiteralType).into()),
        }
    }
}

impl Logic for RamSweep {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, clearing, clear_index);
        if self.clearing.q.val() {
            self.clear_index.d.next = (self.clear_index.q.val() + 1);
            if (self.clear_index.q.val() == self.last.val()) {
                self.clearing.d.next = false;
            }
        }
        if self.rst.val() {
            self.clearing.d.next = true;
            self.clear_index.d.next = 0.into();
        }
        self.active.next = self.clearing.q.val();
        self.index.next = self.clear_index.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One reset, then `depth` active cycles giving 0..depth in order, then idle; a reset
    /// in the middle starts again at 0.
    #[test]
    fn sweep_gives_every_address_once_in_order_after_each_reset() {
        let depth = 5;
        let mut uut = RamSweep::new(depth);
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(5, |x: &mut Box<RamSweep>| x.clk.next = !x.clk.val());
        sim.add_testbench(move |mut sim: Sim<RamSweep>| {
            let mut x = sim.init()?;
            let mut seen = vec![];
            for cycle in 0..20u64 {
                // Reset on cycle 0 and again on cycle 9 (mid-way through the second walk).
                x.rst.next = cycle == 0 || cycle == 9;
                wait_clock_true!(sim, clk, x);
                if x.active.val() {
                    seen.push((cycle, x.index.val().index()));
                }
                wait_clock_false!(sim, clk, x);
            }
            // Sampled after each edge: the edge that takes the reset starts at address 0.
            let want: Vec<(u64, usize)> = (0..5)
                .map(|c| (c, c as usize))
                .chain((9..14).map(|c| (c, c as usize - 9)))
                .collect();
            sim_assert!(sim, seen == want, x);
            sim.done(x)
        });
        sim.run(Box::new(uut), 1_000).unwrap();
    }
}
