//! `RegSlice`: an AXI4-Stream register slice (an output register with a one-beat skid
//! register behind it), full throughput.
//!
//! ```text
//!  s_valid/s_data ─┬──────────────► output register ─► m_valid/m_data
//!  s_ready ◄─ !skid                ▲ loads when empty or m_ready
//!                  └─► skid register┘ (a beat that arrived while the output was held)
//! ```
//!
//! Both sides see only registers: `s_ready` is the skid register's empty flag (a copy of
//! its own), and `m_ready` reaches only the output register's enable and the two valid
//! flags (one LUT), so a slice cuts every combinational path through the handshake.
//! With `m_ready` held high a beat goes through every cycle, one cycle after it was
//! offered.

use crate::wiring::KeepDff;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct RegSlice<const N: usize> {
    pub clk: Signal<In, Clock>,
    /// Synchronous; empties both registers.
    pub rst: Signal<In, Bit>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    pub s_data: Signal<In, Bits<N>>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    pub m_data: Signal<Out, Bits<N>>,
    out_valid: DFF<Bit>,
    out_data: DFF<Bits<N>>,
    skid_valid: DFF<Bit>,
    skid_data: DFF<Bits<N>>,
    /// `!skid_valid`, a register of its own: it is `s_ready` (the writer's logic, with
    /// no inverter in front of it), `skid_valid` drives the 2N data enables and selects.
    /// 0 at power-up, so `s_ready` rises at the first clock edge.
    skid_free: KeepDff<Bit>,
    skid_next: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    load_out: Signal<Local, Bit>,
}

impl<const N: usize> Default for RegSlice<N> {
    fn default() -> Self {
        Self {
            clk: Default::default(),
            rst: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            s_data: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            m_data: Default::default(),
            out_valid: Default::default(),
            out_data: Default::default(),
            skid_valid: Default::default(),
            skid_data: Default::default(),
            skid_free: Default::default(),
            skid_next: Default::default(),
            accept: Default::default(),
            load_out: Default::default(),
        }
    }
}

impl<const N: usize> Logic for RegSlice<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, out_valid, out_data, skid_valid, skid_data);
        self.skid_free.clock.next = self.clk.val();
        self.accept.next = (self.s_valid.val() & self.skid_free.q.val());
        self.load_out.next = (self.m_ready.val() | !self.out_valid.q.val());
        // The skid register follows the input while it is empty; it keeps a beat only
        // when the output register could not take it.
        if !self.skid_valid.q.val() {
            self.skid_data.d.next = self.s_data.val();
        }
        if self.load_out.val() {
            if self.skid_valid.q.val() {
                self.out_data.d.next = self.skid_data.q.val();
                self.out_valid.d.next = true;
            } else {
                self.out_data.d.next = self.s_data.val();
                self.out_valid.d.next = self.accept.val();
            }
            self.skid_next.next = false;
        } else if self.accept.val() {
            self.skid_next.next = true;
        } else {
            self.skid_next.next = self.skid_valid.q.val();
        }
        if self.rst.val() {
            self.out_valid.d.next = false;
            self.skid_next.next = false;
        }
        self.skid_valid.d.next = self.skid_next.val();
        self.skid_free.d.next = !self.skid_next.val();
        self.s_ready.next = self.skid_free.q.val();
        self.m_valid.next = self.out_valid.q.val();
        self.m_data.next = self.out_data.q.val();
    }
}

/// `AxisSlice`: [`RegSlice`] for an AXI4-Stream beat (`tdata`, `tkeep`, `tlast`): one
/// slice per field (rust-hdl's const generics cannot add `D + K + 1`), all three
/// handshaking together, so they hold the same beat; synthesis merges their equal
/// control registers. With `m_tready` held high a beat goes through every cycle, one
/// cycle after it was offered.
#[derive(LogicBlock, Default)]
pub struct AxisSlice<const D: usize, const K: usize> {
    pub clk: Signal<In, Clock>,
    /// Synchronous; empties the slice.
    pub rst: Signal<In, Bit>,
    pub s_tvalid: Signal<In, Bit>,
    pub s_tready: Signal<Out, Bit>,
    pub s_tdata: Signal<In, Bits<D>>,
    pub s_tkeep: Signal<In, Bits<K>>,
    pub s_tlast: Signal<In, Bit>,
    pub m_tvalid: Signal<Out, Bit>,
    pub m_tready: Signal<In, Bit>,
    pub m_tdata: Signal<Out, Bits<D>>,
    pub m_tkeep: Signal<Out, Bits<K>>,
    pub m_tlast: Signal<Out, Bit>,
    data: RegSlice<D>,
    keep: RegSlice<K>,
    last: RegSlice<1>,
    /// The handshakes of `keep` and `last`, equal to `data`'s (Verilator's lint takes a
    /// name with "unused" as read on purpose).
    unused_hs: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize> Logic for AxisSlice<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        self.data.clk.next = self.clk.val();
        self.keep.clk.next = self.clk.val();
        self.last.clk.next = self.clk.val();
        self.data.rst.next = self.rst.val();
        self.keep.rst.next = self.rst.val();
        self.last.rst.next = self.rst.val();
        self.data.s_valid.next = self.s_tvalid.val();
        self.keep.s_valid.next = self.s_tvalid.val();
        self.last.s_valid.next = self.s_tvalid.val();
        self.data.m_ready.next = self.m_tready.val();
        self.keep.m_ready.next = self.m_tready.val();
        self.last.m_ready.next = self.m_tready.val();
        self.data.s_data.next = self.s_tdata.val();
        self.keep.s_data.next = self.s_tkeep.val();
        self.last.s_data.next = self.s_tlast.val().into();
        self.s_tready.next = self.data.s_ready.val();
        self.m_tvalid.next = self.data.m_valid.val();
        self.m_tdata.next = self.data.m_data.val();
        self.m_tkeep.next = self.keep.m_data.val();
        self.m_tlast.next = self.last.m_data.val().any();
        self.unused_hs.next = (self.keep.s_ready.val()
            | self.keep.m_valid.val()
            | self.last.s_ready.val()
            | self.last.m_valid.val());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Random `s_valid` and `m_ready` (a small LCG, seeded): every beat offered and
    /// accepted comes out once, in order; with both held high, one beat per cycle.
    fn run(seed: u64, p_valid: u64, p_ready: u64, cycles: u64, full_rate: bool) {
        let mut uut = RegSlice::<16>::default();
        uut.connect_all();
        let mut sim = simple_sim!(RegSlice<16>, clk, 100_000_000, ep, {
            let mut x = ep.init()?;
            let mut next = crate::testutil::percent(seed);
            let mut model: VecDeque<u64> = VecDeque::new();
            let mut sent = 0u64;
            let mut got = 0u64;
            for _ in 0..cycles {
                wait_clock_false!(ep, clk, x);
                // The inputs for the next rising edge; the outputs are registers, so
                // with them they give the handshakes that edge performs.
                let s_valid = next() < p_valid;
                let m_ready = next() < p_ready;
                if x.m_valid.val() && m_ready {
                    let want = model.pop_front();
                    sim_assert!(ep, want == Some(x.m_data.val().index() as u64), x);
                    got += 1;
                }
                x.s_valid.next = s_valid;
                x.s_data.next = (sent & 0xFFFF).into();
                if s_valid && x.s_ready.val() {
                    model.push_back(sent & 0xFFFF);
                    sent += 1;
                }
                x.m_ready.next = m_ready;
                wait_clock_true!(ep, clk, x);
            }
            // At most the two registers' beats are still inside.
            sim_assert!(ep, model.len() <= 2 && got + model.len() as u64 == sent, x);
            // `s_ready` rises at the first edge after power-up.
            if full_rate {
                sim_assert!(ep, sent == cycles - 1 && got == cycles - 2, x);
            }
            ep.done(x)
        });
        sim.run(Box::new(uut), cycles * 10_000 + 100_000).unwrap();
    }

    #[test]
    fn slice_keeps_order_under_random_stalls() {
        for seed in 1..4 {
            run(seed, 70, 60, 2_000, false);
        }
    }

    /// The three fields of a beat stay together under random stalls: `tkeep` and `tlast`
    /// are functions of `tdata`'s sequence number, checked on every beat taken.
    #[test]
    fn axis_slice_keeps_each_beat_whole() {
        let mut uut = AxisSlice::<16, 4>::default();
        uut.connect_all();
        let mut sim = simple_sim!(AxisSlice<16, 4>, clk, 100_000_000, ep, {
            let mut x = ep.init()?;
            let mut next = crate::testutil::percent(5);
            let (mut sent, mut got) = (0u64, 0u64);
            for _ in 0..3_000 {
                wait_clock_false!(ep, clk, x);
                let s_valid = next() < 65;
                let m_ready = next() < 55;
                if x.m_tvalid.val() && m_ready {
                    let n = x.m_tdata.val().index() as u64;
                    sim_assert!(ep, n == (got & 0xFFFF), x);
                    sim_assert!(ep, x.m_tkeep.val().index() as u64 == (n * 7) % 16, x);
                    sim_assert!(ep, x.m_tlast.val() == n.is_multiple_of(3), x);
                    got += 1;
                }
                x.s_tvalid.next = s_valid;
                x.s_tdata.next = (sent & 0xFFFF).into();
                x.s_tkeep.next = ((sent * 7) % 16).into();
                x.s_tlast.next = sent.is_multiple_of(3);
                if s_valid && x.s_tready.val() {
                    sent += 1;
                }
                x.m_tready.next = m_ready;
                wait_clock_true!(ep, clk, x);
            }
            sim_assert!(ep, got > 1_000 && sent - got <= 2, x);
            ep.done(x)
        });
        sim.run(Box::new(uut), 40_000_000).unwrap();
    }

    #[test]
    fn slice_passes_one_beat_per_cycle() {
        run(7, 100, 100, 500, true);
    }
}
