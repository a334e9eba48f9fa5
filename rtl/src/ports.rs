//! The MAC side of `prnic_top`: two ports in, one RX path; one TX path, two ports out.
//!
//! * [`RxPortArb`]: two AXI4-Stream inputs onto one, a whole frame at a time. When both
//!   ports have a frame waiting they take turns (round robin at frame boundaries); a
//!   frame, once started, keeps the output until its `tlast` beat, whatever `tvalid` does
//!   in between. A port's `tready` is low while the other port's frame passes; in
//!   `prnic_top` each port is a `MacRxFifo`, which holds whole frames meanwhile (the
//!   MAC itself is never held).
//! * The TX split needs no state: `tx_encap`'s `tdest` is constant through a frame, so
//!   `prnic_top` routes `tvalid` and `tready` by it (see there).

use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RxPortArb<const D: usize, const K: usize> {
    pub clk: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub s0_tvalid: Signal<In, Bit>,
    pub s0_tready: Signal<Out, Bit>,
    pub s0_tdata: Signal<In, Bits<D>>,
    pub s0_tkeep: Signal<In, Bits<K>>,
    pub s0_tlast: Signal<In, Bit>,
    pub s1_tvalid: Signal<In, Bit>,
    pub s1_tready: Signal<Out, Bit>,
    pub s1_tdata: Signal<In, Bits<D>>,
    pub s1_tkeep: Signal<In, Bits<K>>,
    pub s1_tlast: Signal<In, Bit>,
    pub m_tvalid: Signal<Out, Bit>,
    pub m_tready: Signal<In, Bit>,
    pub m_tdata: Signal<Out, Bits<D>>,
    pub m_tkeep: Signal<Out, Bits<K>>,
    pub m_tlast: Signal<Out, Bit>,
    /// The port the current output beat came from.
    pub m_port: Signal<Out, Bit>,
    /// A frame is passing: `sel` keeps the output until its last beat.
    locked: DFF<Bit>,
    sel: DFF<Bit>,
    /// The port that goes first when both wait.
    prio: DFF<Bit>,
    cur: Signal<Local, Bit>,
    go: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize> Default for RxPortArb<D, K> {
    fn default() -> Self {
        Self {
            clk: Default::default(),
            rst: Default::default(),
            s0_tvalid: Default::default(),
            s0_tready: Default::default(),
            s0_tdata: Default::default(),
            s0_tkeep: Default::default(),
            s0_tlast: Default::default(),
            s1_tvalid: Default::default(),
            s1_tready: Default::default(),
            s1_tdata: Default::default(),
            s1_tkeep: Default::default(),
            s1_tlast: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            m_tdata: Default::default(),
            m_tkeep: Default::default(),
            m_tlast: Default::default(),
            m_port: Default::default(),
            locked: Default::default(),
            sel: Default::default(),
            prio: Default::default(),
            cur: Default::default(),
            go: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize> Logic for RxPortArb<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, locked, sel, prio);
        if self.locked.q.val() {
            self.cur.next = self.sel.q.val();
        } else if self.prio.q.val() {
            self.cur.next = (self.s1_tvalid.val() | !self.s0_tvalid.val());
        } else {
            self.cur.next = (!self.s0_tvalid.val() & self.s1_tvalid.val());
        }
        if self.cur.val() {
            self.m_tvalid.next = self.s1_tvalid.val();
            self.m_tdata.next = self.s1_tdata.val();
            self.m_tkeep.next = self.s1_tkeep.val();
            self.m_tlast.next = self.s1_tlast.val();
        } else {
            self.m_tvalid.next = self.s0_tvalid.val();
            self.m_tdata.next = self.s0_tdata.val();
            self.m_tkeep.next = self.s0_tkeep.val();
            self.m_tlast.next = self.s0_tlast.val();
        }
        self.m_port.next = self.cur.val();
        self.s0_tready.next = (!self.cur.val() & self.m_tready.val());
        self.s1_tready.next = (self.cur.val() & self.m_tready.val());
        self.go.next = (self.m_tvalid.val() & self.m_tready.val());
        if self.go.val() {
            if self.m_tlast.val() {
                self.locked.d.next = false;
                self.prio.d.next = !self.cur.val();
            } else {
                self.locked.d.next = true;
                self.sel.d.next = self.cur.val();
            }
        }
        if self.rst.val() {
            self.locked.d.next = false;
            self.prio.d.next = false;
        }
    }
}
