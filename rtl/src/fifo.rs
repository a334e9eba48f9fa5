//! `Fifo`: a first-word-fall-through FIFO on one [`BankRam`], depth set from the config.
//!
//! The RAM's registered read port *is* the output register: the read address is the
//! head pointer (plus one when the head is popped), so `m_data` is the head entry in the
//! cycle `m_valid` is high, with no extra register stage and one entry per cycle in and
//! out. An entry written on one edge is visible at `m_data` after the next edge.
//!
//! ### Ports
//! * `s_valid`, `s_data`: write one entry (the writer checks `full` or `count` first;
//!   a write when full is dropped and sets `status_overflow`).
//! * `m_valid`, `m_data`, `m_pop`: the head entry; `m_pop` while `m_valid` removes it
//!   (`m_pop` without `m_valid` is ignored).
//! * `full`: registered; high when every entry is held (written and not popped,
//!   including one not yet visible). It does not depend on this cycle's `s_valid` or
//!   `m_pop`, so a writer may gate `s_valid` with it without a combinational loop.
//! * `rst`: synchronous; empties the FIFO (the RAM contents are not cleared).

use crate::ram::BankRam;
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
    ram: BankRam<Bits<N>>,
    /// Pointers count modulo 2 x depth, so full and empty differ.
    ptr_mask: Constant<Bits<17>>,
    depth: Constant<Bits<17>>,
    wr_ptr: DFF<Bits<17>>,
    head: DFF<Bits<17>>,
    out_valid: DFF<Bit>,
    overflow: DFF<Bit>,
    full_q: DFF<Bit>,
    wr_next: Signal<Local, Bits<17>>,
    pop: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    head_next: Signal<Local, Bits<17>>,
    /// The RAM's second read port is not needed; named for Verilator's unused idiom.
    unused_aux: Signal<Local, Bit>,
}

impl<const N: usize> Fifo<N> {
    /// `depth`: a power of two, 2..=65536.
    pub fn new(depth: usize) -> Self {
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
            ram: BankRam::new(depth),
            ptr_mask: Constant::new(((2 * depth - 1) as LiteralType).into()),
            depth: Constant::new((depth as LiteralType).into()),
            wr_ptr: Default::default(),
            head: Default::default(),
            out_valid: Default::default(),
            overflow: Default::default(),
            full_q: Default::default(),
            wr_next: Default::default(),
            pop: Default::default(),
            push: Default::default(),
            head_next: Default::default(),
            unused_aux: Default::default(),
        }
    }
}

impl<const N: usize> Logic for Fifo<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, wr_ptr, head, out_valid, overflow, full_q);
        self.ram.read_clock.next = self.clk.val();
        self.ram.write_clock.next = self.clk.val();

        self.pop.next = (self.m_pop.val() & self.out_valid.q.val());
        self.push.next = (self.s_valid.val() & !self.full_q.q.val());
        if self.pop.val() {
            self.head_next.next = ((self.head.q.val() + 1) & self.ptr_mask.val());
        } else {
            self.head_next.next = self.head.q.val();
        }
        self.head.d.next = self.head_next.val();
        if self.push.val() {
            self.wr_next.next = ((self.wr_ptr.q.val() + 1) & self.ptr_mask.val());
        } else {
            self.wr_next.next = self.wr_ptr.q.val();
        }
        self.wr_ptr.d.next = self.wr_next.val();
        self.full_q.d.next = (((self.wr_next.val() - self.head_next.val()) & self.ptr_mask.val())
            == self.depth.val());
        if (self.s_valid.val() & !self.push.val()) {
            self.overflow.d.next = true;
        }
        // The RAM returns the word at the next head; it is valid if it was written on an
        // edge before this one (entries [head_next, wr_ptr) ).
        self.ram.read_address.next = self.head_next.val().get_bits::<16>(0);
        self.out_valid.d.next = (self.head_next.val() != self.wr_ptr.q.val());
        self.ram.write_address.next = self.wr_ptr.q.val().get_bits::<16>(0);
        self.ram.write_data.next = self.s_data.val();
        self.ram.write_enable.next = self.push.val();
        self.unused_aux.next = self.ram.aux_read_data.val().any();

        if self.rst.val() {
            self.wr_ptr.d.next = 0.into();
            self.head.d.next = 0.into();
            self.out_valid.d.next = false;
            self.overflow.d.next = false;
            self.full_q.d.next = false;
        }
        self.m_valid.next = self.out_valid.q.val();
        self.m_data.next = self.ram.read_data.val();
        self.full.next = self.full_q.q.val();
        self.status_overflow.next = self.overflow.q.val();
    }
}
