//! The first-word-fall-through queues the blocks share: [`Fifo`] (below, with a `full`
//! flag and an overflow status), [`BramFifo`] (block RAM, the writer keeps the count) and
//! [`LutFifo`] (distributed RAM, for small wide queues).
//!
//! `Fifo`: a first-word-fall-through FIFO on one [`PipeRam`], depth set from the config.
//!
//! ```text
//!  s_valid/s_data ─► RAM ─► read latch ─► output register ─► m_valid/m_data
//!                    (wr_ptr)  (stage A)     (stage B, DO_REG)   m_pop
//! ```
//!
//! The head entry sits in the RAM's output register, so `m_data` comes straight from a
//! register and no logic ever follows the RAM's own read. The two read stages form a
//! two-entry elastic pipeline: stage B loads when it is empty or popped, stage A when
//! stage B takes its word or it is empty, so one entry per cycle goes in and out.
//! `m_pop` reaches only the two stage enables (one LUT) and the occupancy count.
//!
//! ### Ports
//! * `s_valid`, `s_data`: write one entry (the writer checks `full` first; a write when
//!   full is dropped and sets `status_overflow`).
//! * `m_valid`, `m_data`, `m_pop`: the head entry; `m_pop` while `m_valid` removes it
//!   (`m_pop` without `m_valid` is ignored).
//! * `full`: registered; high when every entry is held (in the RAM or in the read
//!   stages). It does not depend on this cycle's `s_valid` or `m_pop`, so a writer may
//!   gate `s_valid` with it without a combinational loop.
//! * `rst`: synchronous; empties the FIFO (the RAM contents are not cleared).
//!
//! Latency: an entry written on one edge is at `m_data` three edges later when the FIFO
//! was empty (RAM write, read latch, output register).

use crate::ram::{DistRam, PipeRam};
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Fifo<const N: usize> {
    pub clk: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub s_valid: Signal<In, Bit>,
    pub s_data: Signal<In, Bits<N>>,
    pub m_valid: Signal<Out, Bit>,
    pub m_data: Signal<Out, Bits<N>>,
    pub m_pop: Signal<In, Bit>,
    pub full: Signal<Out, Bit>,
    pub status_overflow: Signal<Out, Bit>,
    ram: PipeRam<Bits<N>>,
    /// RAM pointers, modulo the depth (the occupancy count tells full from empty).
    addr_mask: Constant<Bits<17>>,
    depth_m1: Constant<Bits<17>>,
    wr_ptr: DFF<Bits<17>>,
    rd_ptr: DFF<Bits<17>>,
    /// Entries written to the RAM and not yet read into stage A.
    in_ram: DFF<Bits<17>>,
    /// `in_ram` is not zero (registered copy, so stage A's enable is one LUT).
    ram_nonempty: DFF<Bit>,
    /// Entries held anywhere (RAM and both stages); `at_full`: `count` = depth.
    count: DFF<Bits<17>>,
    at_full: DFF<Bit>,
    a_valid: DFF<Bit>,
    b_valid: DFF<Bit>,
    overflow: DFF<Bit>,
    pop: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    load_b: Signal<Local, Bit>,
    load_a: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    /// `in_ram ± 1` and `count ± 1`, kept as registers so that the handshakes only
    /// select among registers: no adder follows `m_pop` or `s_valid`. Their power-up
    /// values (1 and -1) match the counts' 0 without a reset.
    in_ram_inc: DFFWithInit<Bits<17>>,
    in_ram_dec: DFFWithInit<Bits<17>>,
    count_inc: DFFWithInit<Bits<17>>,
    count_dec: DFFWithInit<Bits<17>>,
    in_ram_up: Signal<Local, Bit>,
    in_ram_down: Signal<Local, Bit>,
    count_up: Signal<Local, Bit>,
    count_down: Signal<Local, Bit>,
    in_ram_ge2: Signal<Local, Bit>,
    in_ram_eq1: Signal<Local, Bit>,
    count_eq_m1: Signal<Local, Bit>,
}

impl<const N: usize> Fifo<N> {
    /// `depth`: a power of two, 4..=65536.
    pub fn new(depth: usize) -> Self {
        assert!(
            depth.is_power_of_two() && (4..=65536).contains(&depth),
            "Fifo depth {depth}"
        );
        Self {
            clk: Default::default(),
            rst: Default::default(),
            s_valid: Default::default(),
            s_data: Default::default(),
            m_valid: Default::default(),
            m_data: Default::default(),
            m_pop: Default::default(),
            full: Default::default(),
            status_overflow: Default::default(),
            ram: PipeRam::new(depth),
            addr_mask: Constant::new(((depth - 1) as LiteralType).into()),
            depth_m1: Constant::new(((depth - 1) as LiteralType).into()),
            wr_ptr: Default::default(),
            rd_ptr: Default::default(),
            in_ram: Default::default(),
            ram_nonempty: Default::default(),
            count: Default::default(),
            at_full: Default::default(),
            a_valid: Default::default(),
            b_valid: Default::default(),
            overflow: Default::default(),
            pop: Default::default(),
            push: Default::default(),
            load_b: Default::default(),
            load_a: Default::default(),
            take: Default::default(),
            in_ram_inc: DFFWithInit::new(1.into()),
            in_ram_dec: DFFWithInit::new(0x1FFFF.into()),
            count_inc: DFFWithInit::new(1.into()),
            count_dec: DFFWithInit::new(0x1FFFF.into()),
            in_ram_up: Default::default(),
            in_ram_down: Default::default(),
            count_up: Default::default(),
            count_down: Default::default(),
            in_ram_ge2: Default::default(),
            in_ram_eq1: Default::default(),
            count_eq_m1: Default::default(),
        }
    }
}

impl<const N: usize> Logic for Fifo<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clk,
            wr_ptr,
            rd_ptr,
            in_ram,
            ram_nonempty,
            count,
            at_full,
            a_valid,
            b_valid,
            overflow,
            in_ram_inc,
            in_ram_dec,
            count_inc,
            count_dec
        );
        self.ram.clk.next = self.clk.val();

        self.pop.next = (self.m_pop.val() & self.b_valid.q.val());
        self.push.next = (self.s_valid.val() & !self.at_full.q.val());
        // Stage B (the output register) loads when empty or popped; stage A (the read
        // latch) when stage B takes its word or it holds none. A takes a RAM word only if
        // one is there.
        self.load_b.next = (self.pop.val() | !self.b_valid.q.val());
        self.load_a.next = (self.load_b.val() | !self.a_valid.q.val());
        self.take.next = (self.load_a.val() & self.ram_nonempty.q.val());
        self.ram.read_address.next = self.rd_ptr.q.val().get_bits::<16>(0);
        self.ram.read_enable.next = self.load_a.val();
        self.ram.out_enable.next = self.load_b.val();
        if self.load_b.val() {
            self.b_valid.d.next = self.a_valid.q.val();
        }
        if self.load_a.val() {
            self.a_valid.d.next = self.ram_nonempty.q.val();
        }
        if self.take.val() {
            self.rd_ptr.d.next = ((self.rd_ptr.q.val() + 1) & self.addr_mask.val());
        }
        if self.push.val() {
            self.wr_ptr.d.next = ((self.wr_ptr.q.val() + 1) & self.addr_mask.val());
        }
        // Occupancy: entries in the RAM not yet read, and entries held anywhere. Each
        // count keeps its value plus and minus one in registers, and the flags that gate
        // reads and writes come from compares of the registers, so the handshakes reach
        // the flops through one LUT (a select among registers, no adder).
        self.in_ram_up.next = (self.push.val() & !self.take.val());
        self.in_ram_down.next = (!self.push.val() & self.take.val());
        if self.in_ram_up.val() {
            self.in_ram.d.next = self.in_ram_inc.q.val();
            self.in_ram_inc.d.next = (self.in_ram_inc.q.val() + 1);
            self.in_ram_dec.d.next = self.in_ram.q.val();
        } else if self.in_ram_down.val() {
            self.in_ram.d.next = self.in_ram_dec.q.val();
            self.in_ram_inc.d.next = self.in_ram.q.val();
            self.in_ram_dec.d.next = (self.in_ram_dec.q.val() - 1);
        }
        self.in_ram_ge2.next = self.in_ram.q.val().get_bits::<16>(1).any();
        self.in_ram_eq1.next = (self.in_ram.q.val() == 1);
        self.ram_nonempty.d.next = ((self.push.val() | self.in_ram_ge2.val())
            | (self.in_ram_eq1.val() & !self.take.val()));
        self.count_up.next = (self.push.val() & !self.pop.val());
        self.count_down.next = (!self.push.val() & self.pop.val());
        if self.count_up.val() {
            self.count.d.next = self.count_inc.q.val();
            self.count_inc.d.next = (self.count_inc.q.val() + 1);
            self.count_dec.d.next = self.count.q.val();
        } else if self.count_down.val() {
            self.count.d.next = self.count_dec.q.val();
            self.count_inc.d.next = self.count.q.val();
            self.count_dec.d.next = (self.count_dec.q.val() - 1);
        }
        self.count_eq_m1.next = (self.count.q.val() == self.depth_m1.val());
        self.at_full.d.next = (((self.push.val() & !self.pop.val()) & self.count_eq_m1.val())
            | (self.at_full.q.val() & !self.pop.val()));
        if (self.s_valid.val() & !self.push.val()) {
            self.overflow.d.next = true;
        }
        self.ram.write_address.next = self.wr_ptr.q.val().get_bits::<16>(0);
        self.ram.write_data.next = self.s_data.val();
        self.ram.write_enable.next = self.push.val();

        if self.rst.val() {
            self.wr_ptr.d.next = 0.into();
            self.rd_ptr.d.next = 0.into();
            self.in_ram.d.next = 0.into();
            self.in_ram_inc.d.next = 1.into();
            self.in_ram_dec.d.next = 0x1FFFF.into();
            self.count_inc.d.next = 1.into();
            self.count_dec.d.next = 0x1FFFF.into();
            self.ram_nonempty.d.next = false;
            self.count.d.next = 0.into();
            self.at_full.d.next = false;
            self.a_valid.d.next = false;
            self.b_valid.d.next = false;
            self.overflow.d.next = false;
        }
        self.m_valid.next = self.b_valid.q.val();
        self.m_data.next = self.ram.read_data.val();
        self.full.next = self.at_full.q.val();
        self.status_overflow.next = self.overflow.q.val();
    }
}

/// `LutFifo`: a first-word-fall-through queue on a [`DistRam`] (distributed RAM, read
/// without a clock), its head in one register: for small, wide queues (`rx_decap`'s
/// descriptors and verdicts, `reply_tx`'s frames).
///
/// The head register loads the entry at the read pointer when it is empty or popped, so
/// `m_pop` reaches only the head's enable and the read pointer; no count is kept (an
/// up/down count puts an adder behind the push and pop selects). Pointers carry one bit
/// more than the address, so a full RAM is not mistaken for an empty one. The writer
/// keeps at most `depth` entries in it (the RAM and the head together hold `depth + 1`).
/// An entry written on one edge is on `m_data` two edges later when the queue was empty.
#[derive(LogicBlock)]
pub struct LutFifo<const N: usize> {
    pub clk: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub s_valid: Signal<In, Bit>,
    pub s_data: Signal<In, Bits<N>>,
    pub m_valid: Signal<Out, Bit>,
    pub m_data: Signal<Out, Bits<N>>,
    pub m_pop: Signal<In, Bit>,
    ram: DistRam<Bits<N>>,
    ptr_mask: Constant<Bits<8>>,
    wr: DFF<Bits<8>>,
    rd: DFF<Bits<8>>,
    head_valid: DFF<Bit>,
    head: DFF<Bits<N>>,
    nonempty: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
}

impl<const N: usize> LutFifo<N> {
    /// `depth`: a power of two, 2..=64.
    pub fn new(depth: usize) -> Self {
        assert!(depth <= 64, "LutFifo depth {depth}");
        Self {
            clk: Default::default(),
            rst: Default::default(),
            s_valid: Default::default(),
            s_data: Default::default(),
            m_valid: Default::default(),
            m_data: Default::default(),
            m_pop: Default::default(),
            ram: DistRam::new(depth),
            ptr_mask: Constant::new(((2 * depth - 1) as LiteralType).into()),
            wr: Default::default(),
            rd: Default::default(),
            head_valid: Default::default(),
            head: Default::default(),
            nonempty: Default::default(),
            load: Default::default(),
        }
    }
}

impl<const N: usize> Logic for LutFifo<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, wr, rd, head_valid, head);
        self.ram.clk.next = self.clk.val();
        self.nonempty.next = (self.wr.q.val() != self.rd.q.val());
        self.load.next = (self.m_pop.val() | !self.head_valid.q.val());
        self.ram.read_address.next = bit_cast::<16, 8>(self.rd.q.val());
        self.ram.write_address.next = bit_cast::<16, 8>(self.wr.q.val());
        self.ram.write_data.next = self.s_data.val();
        self.ram.write_enable.next = self.s_valid.val();
        if self.s_valid.val() {
            self.wr.d.next = ((self.wr.q.val() + 1) & self.ptr_mask.val());
        }
        if self.load.val() {
            self.head_valid.d.next = self.nonempty.val();
            self.head.d.next = self.ram.read_data.val();
            if self.nonempty.val() {
                self.rd.d.next = ((self.rd.q.val() + 1) & self.ptr_mask.val());
            }
        }
        if self.rst.val() {
            self.wr.d.next = 0.into();
            self.rd.d.next = 0.into();
            self.head_valid.d.next = false;
        }
        self.m_valid.next = self.head_valid.q.val();
        self.m_data.next = self.head.q.val();
    }
}

/// `BramFifo`: a first-word-fall-through queue on a [`PipeRam`] (block RAM, its read
/// latch and output register), for `rx_decap`'s stored beats.
///
/// The RAM writes `s_data` at the write pointer in every cycle `s_en` is high; only
/// `s_valid` (which implies `s_en`) keeps the entry and moves the pointer. The writer
/// drives `s_en` from a register and raises it only while the pointer's slot is free, so
/// the RAM's write enables (about 120 on a 1024-bit bus) follow a flip-flop, not the
/// handshake: behind `tvalid` through the port arbiter they were 3.6 ns of the 2.95 ns
/// cycle (docs/timing.md).
///
/// The output register (`m_data`) loads when empty or popped, the read latch when the
/// output register takes its word or it holds none. The latch's enable is built from a
/// copy of the output register's valid flag: computed from the flag itself, it would
/// follow the net that enables every bit of the output register, and pay for that
/// fan-out on the way into the block RAM. As in [`LutFifo`], no count is kept and the
/// writer keeps at most `depth` entries in it.
#[derive(LogicBlock)]
pub struct BramFifo<const N: usize> {
    pub clk: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub s_en: Signal<In, Bit>,
    pub s_valid: Signal<In, Bit>,
    pub s_data: Signal<In, Bits<N>>,
    pub m_valid: Signal<Out, Bit>,
    pub m_data: Signal<Out, Bits<N>>,
    pub m_pop: Signal<In, Bit>,
    ram: PipeRam<Bits<N>>,
    ptr_mask: Constant<Bits<16>>,
    wr: DFF<Bits<16>>,
    rd: DFF<Bits<16>>,
    a_valid: DFF<Bit>,
    b_valid: DFF<Bit>,
    b_valid_r: DFF<Bit>,
    nonempty: Signal<Local, Bit>,
    load_b: Signal<Local, Bit>,
    load_br: Signal<Local, Bit>,
    load_a: Signal<Local, Bit>,
}

impl<const N: usize> BramFifo<N> {
    /// `depth`: a power of two, 2..=32768.
    pub fn new(depth: usize) -> Self {
        assert!(depth <= 32768, "BramFifo depth {depth}");
        Self {
            clk: Default::default(),
            rst: Default::default(),
            s_en: Default::default(),
            s_valid: Default::default(),
            s_data: Default::default(),
            m_valid: Default::default(),
            m_data: Default::default(),
            m_pop: Default::default(),
            ram: PipeRam::new(depth),
            ptr_mask: Constant::new(((2 * depth - 1) as LiteralType).into()),
            wr: Default::default(),
            rd: Default::default(),
            a_valid: Default::default(),
            b_valid: Default::default(),
            b_valid_r: Default::default(),
            nonempty: Default::default(),
            load_b: Default::default(),
            load_br: Default::default(),
            load_a: Default::default(),
        }
    }
}

impl<const N: usize> Logic for BramFifo<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, wr, rd, a_valid, b_valid, b_valid_r);
        self.ram.clk.next = self.clk.val();
        self.nonempty.next = (self.wr.q.val() != self.rd.q.val());
        self.load_b.next = (self.m_pop.val() | !self.b_valid.q.val());
        self.load_br.next = (self.m_pop.val() | !self.b_valid_r.q.val());
        self.load_a.next = (self.load_br.val() | !self.a_valid.q.val());
        self.ram.read_address.next = self.rd.q.val();
        self.ram.read_enable.next = self.load_a.val();
        self.ram.out_enable.next = self.load_b.val();
        self.ram.write_address.next = self.wr.q.val();
        self.ram.write_data.next = self.s_data.val();
        self.ram.write_enable.next = self.s_en.val();
        if self.load_b.val() {
            self.b_valid.d.next = self.a_valid.q.val();
        }
        if self.load_br.val() {
            self.b_valid_r.d.next = self.a_valid.q.val();
        }
        if self.load_a.val() {
            self.a_valid.d.next = self.nonempty.val();
            if self.nonempty.val() {
                self.rd.d.next = ((self.rd.q.val() + 1) & self.ptr_mask.val());
            }
        }
        if self.s_valid.val() {
            self.wr.d.next = ((self.wr.q.val() + 1) & self.ptr_mask.val());
        }
        if self.rst.val() {
            self.wr.d.next = 0.into();
            self.rd.d.next = 0.into();
            self.a_valid.d.next = false;
            self.b_valid.d.next = false;
            self.b_valid_r.d.next = false;
        }
        self.m_valid.next = self.b_valid.q.val();
        self.m_data.next = self.ram.read_data.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Depth 8, random writes (only when not `full`) and pops from power-up, without a
    /// reset: every entry comes out once, in order; `full` is high exactly when 8 are
    /// held; with writes and pops every cycle, one entry per cycle goes through.
    fn run(seed: u64, p_write: u64, p_pop: u64, cycles: u64, full_rate: bool) {
        let mut uut = Fifo::<16>::new(8);
        uut.connect_all();
        let mut sim = simple_sim!(Fifo<16>, clk, 100_000_000, ep, {
            let mut x = ep.init()?;
            let mut next = crate::testutil::percent(seed);
            let mut model: VecDeque<u64> = VecDeque::new();
            let mut written = 0u64;
            let mut read = 0u64;
            for _ in 0..cycles {
                wait_clock_false!(ep, clk, x);
                sim_assert!(ep, x.full.val() == (model.len() == 8), x);
                let write = (next() < p_write) && !x.full.val();
                let pop = next() < p_pop;
                if x.m_valid.val() && pop {
                    let want = model.pop_front();
                    sim_assert!(ep, want == Some(x.m_data.val().index() as u64), x);
                    read += 1;
                }
                x.s_valid.next = write;
                x.s_data.next = (written & 0xFFFF).into();
                x.m_pop.next = pop;
                if write {
                    model.push_back(written & 0xFFFF);
                    written += 1;
                }
                wait_clock_true!(ep, clk, x);
            }
            sim_assert!(ep, !x.status_overflow.val(), x);
            if full_rate {
                // Three edges from a write to `m_data` when empty.
                sim_assert!(ep, written == cycles && read + 3 >= cycles, x);
            }
            ep.done(x)
        });
        sim.run(Box::new(uut), cycles * 10_000 + 100_000).unwrap();
    }

    #[test]
    fn fifo_keeps_order_and_full_under_random_traffic() {
        for seed in 1..4 {
            run(seed, 60, 50, 3_000, false);
            run(seed, 80, 30, 1_000, false);
        }
    }

    #[test]
    fn fifo_passes_one_entry_per_cycle() {
        run(5, 100, 100, 500, true);
    }
}
