//! `FrameMerge`: two AXI4-Stream inputs onto one output, whole frames at a time, taking
//! turns: the merge of the host's frames and `reply_tx`'s reply frames in front of
//! `tx_encap` (docs/blocks/frame_merge.md).
//!
//! ```text
//!  s0_axis_* (host frames)  ─┐
//!                            ├─► grant mux ─► register slice ─► m_axis_*
//!  s1_axis_* (reply frames) ─┘   (grant and mid-frame flags: registers)
//! ```
//!
//! * **Frames are never cut.** The grant changes only between frames: at a granted
//!   frame's accepted `tlast` beat, or while the granted input offers nothing and no
//!   frame of it is under way. A frame's beats leave back to back in its input's order,
//!   `tuser` with them.
//! * **Turns.** At the end of a frame the grant passes to the other input if that input
//!   offers a beat, and stays otherwise. So a frame waits for at most one frame of the
//!   other input, and a stream of frames on one input keeps the grant with no gap. For
//!   the host this bounds a reply's cost to the reply's own beats (one or two); for
//!   replies, their wait to one host frame.
//! * **No bubble.** The grant for the next frame is decided in the cycle its
//!   predecessor's `tlast` goes through, so with `m_axis_tready` high one beat leaves
//!   per cycle across frame boundaries, whichever input they come from. An idle
//!   granted input hands the grant over one cycle after the other offers a beat.
//! * **Registered handshake.** The output is a register slice, so `m_axis_tready`
//!   reaches only the slice, and each input's `tready` is the slice's registered ready
//!   gated by the registered grant: one LUT.
//!
//! Latency: a beat offered to the granted input with the slice empty is on `m_axis_*`
//! one edge later ([`FRAME_MERGE_LATENCY`]).

use crate::slice::{AxisSlice, RegSlice};
use rust_hdl::prelude::*;

/// Edges from a beat accepted on a granted input to the same beat on `m_axis_*`.
pub const FRAME_MERGE_LATENCY: u64 = 1;

#[derive(LogicBlock, Default)]
pub struct FrameMerge<const D: usize, const K: usize, const U: usize> {
    pub clk: Signal<In, Clock>,
    /// Synchronous: empties the output slice and gives the grant to input 0.
    pub rst: Signal<In, Bit>,
    pub s0_axis_tdata: Signal<In, Bits<D>>,
    pub s0_axis_tkeep: Signal<In, Bits<K>>,
    pub s0_axis_tvalid: Signal<In, Bit>,
    pub s0_axis_tready: Signal<Out, Bit>,
    pub s0_axis_tlast: Signal<In, Bit>,
    pub s0_axis_tuser: Signal<In, Bits<U>>,
    pub s1_axis_tdata: Signal<In, Bits<D>>,
    pub s1_axis_tkeep: Signal<In, Bits<K>>,
    pub s1_axis_tvalid: Signal<In, Bit>,
    pub s1_axis_tready: Signal<Out, Bit>,
    pub s1_axis_tlast: Signal<In, Bit>,
    pub s1_axis_tuser: Signal<In, Bits<U>>,
    pub m_axis_tdata: Signal<Out, Bits<D>>,
    pub m_axis_tkeep: Signal<Out, Bits<K>>,
    pub m_axis_tvalid: Signal<Out, Bit>,
    pub m_axis_tready: Signal<In, Bit>,
    pub m_axis_tlast: Signal<Out, Bit>,
    pub m_axis_tuser: Signal<Out, Bits<U>>,
    /// Frames that have left from input 1 (the replies), wrapping.
    pub status_frames_1: Signal<Out, Bits<32>>,
    /// 1: input 1 holds the grant.
    grant: DFF<Bit>,
    /// A frame of the granted input is under way (a beat of it went, its `tlast` not yet).
    mid: DFF<Bit>,
    frames_1: DFF<Bits<32>>,
    out: AxisSlice<D, K>,
    out_user: RegSlice<U>,
    in_valid: Signal<Local, Bit>,
    in_last: Signal<Local, Bit>,
    other_valid: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    /// The user slice's handshake, equal to the beat slice's.
    unused_hs: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize, const U: usize> Logic for FrameMerge<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clk, grant, mid, frames_1);
        self.out.clk.next = self.clk.val();
        self.out_user.clk.next = self.clk.val();
        self.out.rst.next = self.rst.val();
        self.out_user.rst.next = self.rst.val();
        if self.grant.q.val() {
            self.in_valid.next = self.s1_axis_tvalid.val();
            self.in_last.next = self.s1_axis_tlast.val();
            self.other_valid.next = self.s0_axis_tvalid.val();
            self.out.s_tdata.next = self.s1_axis_tdata.val();
            self.out.s_tkeep.next = self.s1_axis_tkeep.val();
            self.out_user.s_data.next = self.s1_axis_tuser.val();
        } else {
            self.in_valid.next = self.s0_axis_tvalid.val();
            self.in_last.next = self.s0_axis_tlast.val();
            self.other_valid.next = self.s1_axis_tvalid.val();
            self.out.s_tdata.next = self.s0_axis_tdata.val();
            self.out.s_tkeep.next = self.s0_axis_tkeep.val();
            self.out_user.s_data.next = self.s0_axis_tuser.val();
        }
        self.out.s_tlast.next = self.in_last.val();
        self.out.s_tvalid.next = self.in_valid.val();
        self.out_user.s_valid.next = self.in_valid.val();
        self.take.next = (self.in_valid.val() & self.out.s_tready.val());
        self.s0_axis_tready.next = (self.out.s_tready.val() & !self.grant.q.val());
        self.s1_axis_tready.next = (self.out.s_tready.val() & self.grant.q.val());
        if self.take.val() {
            self.mid.d.next = !self.in_last.val();
            if self.in_last.val() {
                // The turn passes to the other input if it waits.
                if self.other_valid.val() {
                    self.grant.d.next = !self.grant.q.val();
                }
                if self.grant.q.val() {
                    self.frames_1.d.next = self.frames_1.q.val() + 1;
                }
            }
        } else if (!self.mid.q.val() & !self.in_valid.val()) & self.other_valid.val() {
            // Nothing of the granted input is under way or offered.
            self.grant.d.next = !self.grant.q.val();
        }
        if self.rst.val() {
            self.grant.d.next = false;
            self.mid.d.next = false;
            self.frames_1.d.next = 0.into();
        }
        self.out.m_tready.next = self.m_axis_tready.val();
        self.out_user.m_ready.next = self.m_axis_tready.val();
        self.m_axis_tdata.next = self.out.m_tdata.val();
        self.m_axis_tkeep.next = self.out.m_tkeep.val();
        self.m_axis_tvalid.next = self.out.m_tvalid.val();
        self.m_axis_tlast.next = self.out.m_tlast.val();
        self.m_axis_tuser.next = self.out_user.m_data.val();
        self.status_frames_1.next = self.frames_1.q.val();
        self.unused_hs.next = (self.out_user.s_ready.val() | self.out_user.m_valid.val());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Uut = FrameMerge<16, 2, 8>;

    /// One input's frames: frame `f` of input `i` has `len(f)` beats; beat `b` carries
    /// `tdata = i << 15 | f << 4 | b`, `tuser = f` (8 bits), `tkeep = 3`.
    fn beat(i: u64, f: u64, b: u64) -> u64 {
        (i << 15) | ((f & 0x7FF) << 4) | b
    }

    struct Run {
        /// Output frames in order: (input, frame number, beats).
        frames: Vec<(u64, u64, u64)>,
        /// Cycles with a beat on the output.
        beats_out: u64,
        /// Cycles from the first output beat to the last.
        span: u64,
        /// The most frames of the other input that left while one input's frame was
        /// offered and waiting.
        max_overtaken: u64,
        /// `status_frames_1` at the end.
        status_frames_1: u64,
    }

    /// Drives both inputs with frames of 1..=`max_len` beats (input 0) and 1..=2 (input
    /// 1), each input offering with probability `p0`/`p1` percent per cycle and holding
    /// a beat once offered (AXI4-Stream), and `m_axis_tready` high with probability
    /// `p_ready`. Checks every output beat against the frame it must belong to.
    fn run(seed: u64, p0: u64, p1: u64, p_ready: u64, cycles: u64, max_len: u64) -> Run {
        let mut uut = Uut::default();
        uut.connect_all();
        let out = std::sync::Arc::new(std::sync::Mutex::new(None));
        let out2 = out.clone();
        let mut sim = simple_sim!(Uut, clk, 100_000_000, ep, {
            let mut x = ep.init()?;
            let mut next = crate::testutil::percent(seed);
            // Per input: frame number, beat within it, its length, offered now.
            let mut f = [0u64; 2];
            let mut b = [0u64; 2];
            let mut len = [1u64; 2];
            let mut on = [false; 2];
            let mut waiting_since: [Option<u64>; 2] = [None, None];
            let mut overtaken = [0u64; 2];
            let mut max_overtaken = 0u64;
            let mut cur: Option<(u64, u64, u64)> = None;
            let mut frames = vec![];
            let mut first_out = None;
            let mut last_out = 0;
            let mut beats_out = 0;
            x.rst.next = true;
            wait_clock_true!(ep, clk, x);
            wait_clock_false!(ep, clk, x);
            x.rst.next = false;
            for cyc in 0..cycles {
                wait_clock_false!(ep, clk, x);
                let m_ready = next() < p_ready;
                if x.m_axis_tvalid.val() && m_ready {
                    let d = x.m_axis_tdata.val().index() as u64;
                    let (i, fr, bt) = (d >> 15, (d >> 4) & 0x7FF, d & 0xF);
                    let c = cur.get_or_insert((i, fr, 0));
                    // The beat continues the frame under way: same input, same frame,
                    // the next beat.
                    sim_assert!(ep, (c.0, c.1, c.2) == (i, fr, bt), x);
                    sim_assert!(ep, x.m_axis_tuser.val().index() as u64 == (fr & 0xFF), x);
                    sim_assert!(ep, x.m_axis_tkeep.val().index() == 3, x);
                    c.2 += 1;
                    if x.m_axis_tlast.val() {
                        frames.push(*c);
                        cur = None;
                    }
                    first_out.get_or_insert(cyc);
                    last_out = cyc;
                    beats_out += 1;
                }
                x.m_axis_tready.next = m_ready;
                let p = [p0, p1];
                let maxl = [max_len, 2];
                for i in 0..2 {
                    // A beat offered stays until taken; a new one is offered at random.
                    if !on[i] && next() < p[i] {
                        on[i] = true;
                        if b[i] == 0 {
                            len[i] = 1 + next() % maxl[i];
                            waiting_since[i].get_or_insert(cyc);
                        }
                    }
                }
                x.s0_axis_tvalid.next = on[0];
                x.s0_axis_tdata.next = beat(0, f[0], b[0]).into();
                x.s0_axis_tkeep.next = 3.into();
                x.s0_axis_tlast.next = b[0] + 1 == len[0];
                x.s0_axis_tuser.next = (f[0] & 0xFF).into();
                x.s1_axis_tvalid.next = on[1];
                x.s1_axis_tdata.next = beat(1, f[1], b[1]).into();
                x.s1_axis_tkeep.next = 3.into();
                x.s1_axis_tlast.next = b[1] + 1 == len[1];
                x.s1_axis_tuser.next = (f[1] & 0xFF).into();
                // `tready` is registered: what it shows now, the coming edge acts on.
                let ready = [x.s0_axis_tready.val(), x.s1_axis_tready.val()];
                for i in 0..2 {
                    if on[i] && ready[i] {
                        if b[i] == 0 {
                            waiting_since[i] = None;
                            overtaken[i] = 0;
                        }
                        b[i] += 1;
                        if b[i] == len[i] {
                            f[i] += 1;
                            b[i] = 0;
                            // A frame of the other input, offered and waiting, was
                            // passed over once more (counted where the grant acts).
                            if waiting_since[1 - i].is_some() && !(on[1 - i] && ready[1 - i]) {
                                overtaken[1 - i] += 1;
                                max_overtaken = max_overtaken.max(overtaken[1 - i]);
                            }
                        }
                        on[i] = false;
                    }
                }
                wait_clock_true!(ep, clk, x);
            }
            *out2.lock().unwrap() = Some(Run {
                frames,
                beats_out,
                span: last_out + 1 - first_out.unwrap_or(last_out + 1),
                max_overtaken,
                status_frames_1: x.status_frames_1.val().index() as u64,
            });
            ep.done(x)
        });
        sim.run(Box::new(uut), cycles * 10_000 + 100_000).unwrap();
        let r = out.lock().unwrap().take().unwrap();
        // Each input's frames leave in order, none skipped.
        for i in 0..2 {
            let mine: Vec<u64> = r.frames.iter().filter(|f| f.0 == i).map(|f| f.1).collect();
            assert!(
                mine.iter().enumerate().all(|(k, &f)| f == k as u64 & 0x7FF),
                "input {i}: {mine:?}"
            );
        }
        r
    }

    #[test]
    fn frames_stay_whole_and_in_order_under_gaps_and_backpressure() {
        for seed in 1..=6 {
            let r = run(seed, 60, 30, 70, 3000, 5);
            let n1 = r.frames.iter().filter(|f| f.0 == 1).count();
            assert!(n1 > 100 && r.frames.len() - n1 > 100, "{}", r.frames.len());
            // A frame waits for at most one frame of the other input.
            assert!(r.max_overtaken <= 1, "seed {seed}: {}", r.max_overtaken);
            // The count is taken at the input; at most the slice's two beats (two
            // one-beat frames) have not left yet.
            assert!((n1 as u64..=n1 as u64 + 2).contains(&r.status_frames_1));
        }
    }

    #[test]
    fn one_beat_per_cycle_across_frames_and_inputs() {
        // Both inputs always offer, the output never waits: no idle cycle, and the two
        // inputs take turns frame by frame.
        let r = run(7, 100, 100, 100, 2000, 4);
        assert_eq!(r.beats_out, r.span, "idle output cycles");
        assert!(r.beats_out >= 1990, "{}", r.beats_out);
        assert!(r.frames.windows(2).all(|w| w[0].0 != w[1].0));
        // One input alone keeps the grant with no gap either.
        let r = run(8, 100, 0, 100, 2000, 4);
        assert_eq!(r.beats_out, r.span);
        assert!(r.frames.iter().all(|f| f.0 == 0));
    }

    #[test]
    fn frame_merge_generates_verilog_for_both_buses() {
        let mut a = FrameMerge::<1024, 128, 48>::default();
        a.connect_all();
        assert!(generate_verilog(&a).contains("module top"));
        let mut b = FrameMerge::<512, 64, 48>::default();
        b.connect_all();
        assert!(generate_verilog(&b).contains("module top"));
    }
}
