//! `MacRxFifo`: the RX frame FIFO of one MAC port. The MAC never waits (`s_tready` is
//! constant 1); a frame that cannot be taken whole is dropped whole, and counted.
//!
//! ```text
//!  MAC ─ s_tdata/tkeep/tlast/tuser ─► admit? ─► data queues (tdata, tkeep, tlast) ─► store and forward ─► m_*
//!                                        └────► frame queue (one bad bit per frame) ─┘
//! ```
//!
//! A 100/200/400G MAC RX interface (Xilinx CMAC/DCMAC, Intel F-tile) has no
//! backpressure: a beat comes whenever `tvalid` is high. The block behind this FIFO may
//! stall (two ports share one RX path), so each port stores whole frames and hands them
//! on at the pace the RX path takes them.
//!
//! * **Admission, whole frames.** At a frame's first beat the FIFO decides: the frame is
//!   taken if `max_beats` entries are free (the longest frame the config allows),
//!   otherwise every beat of it is discarded and `status_drop_full` pulses once. So a
//!   frame is never cut by a full queue, and no beat of a dropped frame is stored.
//! * **Bad frames.** The MAC marks a frame bad with `tuser` on its `tlast` beat (CMAC
//!   flags an FCS error so). Its beats are already stored; the frame queue records it
//!   bad and the output side discards it whole; `status_drop_error` pulses at its
//!   `tlast`.
//! * **Too long.** A frame still without `tlast` at its `max_beats`-th beat is cut
//!   there (that beat is stored as its last), recorded bad, and the rest of it
//!   discarded; `status_drop_long` pulses once.
//! * **Store and forward.** A frame leaves only once its last beat is in (its frame
//!   queue entry exists), so the output never waits for the MAC in the middle of a frame
//!   and a bad frame can be discarded before any beat of it leaves.
//!
//! The counts that gate admission are registers (the three possible next values'
//! compares, picked by push and pop), so the MAC side's decisions start at flip-flops.

use crate::fifo::Fifo;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct MacRxFifo<const D: usize, const K: usize> {
    pub clk: Signal<In, Clock>,
    /// Synchronous; empties the FIFO (a frame arriving during reset is discarded).
    pub rst: Signal<In, Bit>,
    pub s_tvalid: Signal<In, Bit>,
    /// Constant 1: the MAC is never held.
    pub s_tready: Signal<Out, Bit>,
    pub s_tdata: Signal<In, Bits<D>>,
    pub s_tkeep: Signal<In, Bits<K>>,
    pub s_tlast: Signal<In, Bit>,
    /// Bad frame (FCS or other MAC error), valid with `tlast`.
    pub s_tuser: Signal<In, Bit>,
    pub m_tvalid: Signal<Out, Bit>,
    /// A beat leaves when `m_tvalid & m_tready & m_grant`. In `prnic_top`, `m_tready`
    /// is the RX path's and `m_grant` the port arbiter's registered grant for this port,
    /// so the pop is one LUT of inputs that all start at flip-flops or at `m_tready`.
    pub m_tready: Signal<In, Bit>,
    pub m_grant: Signal<In, Bit>,
    pub m_tdata: Signal<Out, Bits<D>>,
    pub m_tkeep: Signal<Out, Bits<K>>,
    pub m_tlast: Signal<Out, Bit>,
    /// Frames dropped, by reason: no room for a whole frame, marked bad by the MAC,
    /// longer than `max_beats`. Running counts (wrapping), cleared by `rst`; each counts
    /// a frame two cycles after the beat that decided its drop.
    pub status_drop_full: Signal<Out, Bits<32>>,
    pub status_drop_error: Signal<Out, Bits<32>>,
    pub status_drop_long: Signal<Out, Bits<32>>,
    q_data: Fifo<D>,
    q_keep: Fifo<K>,
    q_last: Fifo<1>,
    /// One entry per stored frame: 1 = discard it.
    q_frame: Fifo<1>,
    /// Stored beats (the data queues' occupancy).
    level: DFF<Bits<17>>,
    /// Fewer than `max_beats` entries are free now (registered from the next level's
    /// compares; 0 at power-up, an empty FIFO).
    tight: DFF<Bit>,
    room_at: Constant<Bits<17>>,
    room_at_m1: Constant<Bits<17>>,
    room_at_p1: Constant<Bits<17>>,
    max_m1: Constant<Bits<17>>,
    max_m2: Constant<Bits<17>>,
    /// Inside a frame (after its first beat); the frame is being stored / discarded.
    in_frame: DFF<Bit>,
    storing: DFF<Bit>,
    /// Beats of the current frame stored so far, and "that count is max_beats - 1".
    beats: DFF<Bits<17>>,
    at_max: DFF<Bit>,
    drop_full: DFF<Bit>,
    drop_error: DFF<Bit>,
    drop_long: DFF<Bit>,
    cnt_full: DFF<Bits<32>>,
    cnt_error: DFF<Bits<32>>,
    cnt_long: DFF<Bits<32>>,
    first: Signal<Local, Bit>,
    keep_beat: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    push_last: Signal<Local, Bit>,
    cut: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    bad: Signal<Local, Bit>,
    up: Signal<Local, Bit>,
    down: Signal<Local, Bit>,
    lvl_inc: Signal<Local, Bits<17>>,
    lvl_dec: Signal<Local, Bits<17>>,
    m_up: Signal<Local, Bits<17>>,
    m_down: Signal<Local, Bits<17>>,
    m_hold: Signal<Local, Bits<17>>,
    lvl_ones: Constant<Bits<17>>,
    /// The queues' own full/overflow flags and the copies' valids: admission reserves
    /// room for a whole frame, so no queue can overflow, and the four queues move in
    /// step (Verilator's lint knows `*unused*` as deliberately unread).
    unused_status: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize> MacRxFifo<D, K> {
    /// RAM bits of a FIFO `depth` beats deep: data, keep, last and the frame mark.
    pub fn ram_bits(depth: usize) -> usize {
        depth * (D + K + 2)
    }

    /// `depth`: entries (beats), a power of two; `max_beats`: the longest frame taken,
    /// in beats, 2..=`depth / 2` (so that a frame can be taken while another leaves).
    pub fn new(depth: usize, max_beats: usize) -> Self {
        assert!(
            depth.is_power_of_two() && max_beats >= 2 && 2 * max_beats <= depth,
            "MacRxFifo depth {depth}, max_beats {max_beats}"
        );
        let at = (depth - max_beats) as LiteralType;
        Self {
            clk: Default::default(),
            rst: Default::default(),
            s_tvalid: Default::default(),
            s_tready: Default::default(),
            s_tdata: Default::default(),
            s_tkeep: Default::default(),
            s_tlast: Default::default(),
            s_tuser: Default::default(),
            m_tvalid: Default::default(),
            m_tready: Default::default(),
            m_grant: Default::default(),
            m_tdata: Default::default(),
            m_tkeep: Default::default(),
            m_tlast: Default::default(),
            status_drop_full: Default::default(),
            status_drop_error: Default::default(),
            status_drop_long: Default::default(),
            q_data: Fifo::new(depth),
            q_keep: Fifo::new(depth),
            q_last: Fifo::new(depth),
            q_frame: Fifo::new(depth),
            level: Default::default(),
            tight: Default::default(),
            room_at: Constant::new(at.into()),
            room_at_m1: Constant::new((at - 1).into()),
            room_at_p1: Constant::new((at + 1).into()),
            max_m1: Constant::new(((max_beats - 1) as LiteralType).into()),
            max_m2: Constant::new(((max_beats - 2) as LiteralType).into()),
            in_frame: Default::default(),
            storing: Default::default(),
            beats: Default::default(),
            at_max: Default::default(),
            drop_full: Default::default(),
            drop_error: Default::default(),
            drop_long: Default::default(),
            cnt_full: Default::default(),
            cnt_error: Default::default(),
            cnt_long: Default::default(),
            first: Default::default(),
            keep_beat: Default::default(),
            push: Default::default(),
            push_last: Default::default(),
            cut: Default::default(),
            pop: Default::default(),
            bad: Default::default(),
            up: Default::default(),
            down: Default::default(),
            lvl_inc: Default::default(),
            lvl_dec: Default::default(),
            m_up: Default::default(),
            m_down: Default::default(),
            m_hold: Default::default(),
            lvl_ones: Constant::new(0x1_ffff.into()),
            unused_status: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize> Logic for MacRxFifo<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, level, tight, in_frame, storing, beats, at_max, drop_full, drop_error,
            drop_long, cnt_full, cnt_error, cnt_long
        );
        self.q_data.clk.next = self.clk.val();
        self.q_keep.clk.next = self.clk.val();
        self.q_last.clk.next = self.clk.val();
        self.q_frame.clk.next = self.clk.val();
        self.q_data.rst.next = self.rst.val();
        self.q_keep.rst.next = self.rst.val();
        self.q_last.rst.next = self.rst.val();
        self.q_frame.rst.next = self.rst.val();
        self.s_tready.next = true;

        // ---- MAC side: admit, store, cut. ----
        self.first.next = (self.s_tvalid.val() & !self.in_frame.q.val());
        // This beat is stored: the frame's first beat when there is room, or a later
        // beat of a frame being stored.
        self.keep_beat.next = ((self.first.val() & !self.tight.q.val())
            | ((self.s_tvalid.val() & self.in_frame.q.val()) & self.storing.q.val()));
        // The frame reaches max_beats without tlast: this beat is stored as its last.
        self.cut.next = (((self.keep_beat.val() & !self.first.val()) & self.at_max.q.val())
            & !self.s_tlast.val());
        self.push.next = (self.keep_beat.val() & !self.rst.val());
        self.push_last.next = (self.s_tlast.val() | self.cut.val());
        self.q_data.s_valid.next = self.push.val();
        self.q_data.s_data.next = self.s_tdata.val();
        self.q_keep.s_valid.next = self.push.val();
        self.q_keep.s_data.next = self.s_tkeep.val();
        self.q_last.s_valid.next = self.push.val();
        self.q_last.s_data.next = self.push_last.val().into();
        self.q_frame.s_valid.next = (self.push.val() & self.push_last.val());
        self.q_frame.s_data.next = (self.cut.val() | self.s_tuser.val()).into();
        if self.s_tvalid.val() {
            self.in_frame.d.next = !self.s_tlast.val();
            if self.first.val() {
                self.storing.d.next = !self.tight.q.val();
            } else if self.cut.val() {
                self.storing.d.next = false;
            }
            if self.keep_beat.val() {
                if self.first.val() {
                    self.beats.d.next = 1.into();
                } else {
                    self.beats.d.next = (self.beats.q.val() + 1);
                }
            }
        }
        // `beats` after this edge will equal max_beats - 1 (so the next beat is the last
        // one a frame may have).
        if self.keep_beat.val() {
            if self.first.val() {
                self.at_max.d.next = (self.max_m1.val() == 1);
            } else {
                self.at_max.d.next = (self.beats.q.val() == self.max_m2.val());
            }
        } else if self.first.val() {
            self.at_max.d.next = false;
        }
        self.drop_full.d.next = (self.first.val() & self.tight.q.val());
        self.drop_error.d.next =
            ((self.keep_beat.val() & self.s_tlast.val()) & (self.s_tuser.val() & !self.cut.val()));
        self.drop_long.d.next = self.cut.val();
        // The counters add a registered bit: their carry chains start at flip-flops.
        self.cnt_full.d.next =
            (self.cnt_full.q.val() + bit_cast::<32, 1>(self.drop_full.q.val().into()));
        self.cnt_error.d.next =
            (self.cnt_error.q.val() + bit_cast::<32, 1>(self.drop_error.q.val().into()));
        self.cnt_long.d.next =
            (self.cnt_long.q.val() + bit_cast::<32, 1>(self.drop_long.q.val().into()));
        self.status_drop_full.next = self.cnt_full.q.val();
        self.status_drop_error.next = self.cnt_error.q.val();
        self.status_drop_long.next = self.cnt_long.q.val();

        // ---- Output side: whole frames only, bad ones discarded. ----
        self.bad.next = self.q_frame.m_data.val().any();
        self.m_tvalid.next =
            ((self.q_data.m_valid.val() & self.q_frame.m_valid.val()) & !self.bad.val());
        self.m_tdata.next = self.q_data.m_data.val();
        self.m_tkeep.next = self.q_keep.m_data.val();
        self.m_tlast.next = self.q_last.m_data.val().any();
        self.pop.next = ((self.q_data.m_valid.val() & self.q_frame.m_valid.val())
            & (self.bad.val() | (self.m_tready.val() & self.m_grant.val())));
        self.q_data.m_pop.next = self.pop.val();
        self.q_keep.m_pop.next = self.pop.val();
        self.q_last.m_pop.next = self.pop.val();
        self.q_frame.m_pop.next = (self.pop.val() & self.q_last.m_data.val().any());

        self.unused_status.next = (((self.q_data.full.val() | self.q_data.status_overflow.val())
            | (self.q_keep.full.val() | self.q_keep.status_overflow.val()))
            | (((self.q_last.full.val() | self.q_last.status_overflow.val())
                | (self.q_frame.full.val() | self.q_frame.status_overflow.val()))
                | (self.q_keep.m_valid.val() | self.q_last.m_valid.val())));

        // ---- Occupancy and room (for the level after this edge). ----
        self.up.next = (self.push.val() & !self.pop.val());
        self.down.next = (!self.push.val() & self.pop.val());
        // level + 1 and level - 1 start at the register; push and pop only pick one
        // through AND-OR masks (a mux would let synthesis share one adder behind the
        // choice, which put the MAC-side admission logic in front of its carry chain).
        self.lvl_inc.next = (self.level.q.val() + 1);
        self.lvl_dec.next = (self.level.q.val() - 1);
        self.m_up.next = 0.into();
        self.m_down.next = 0.into();
        if self.up.val() {
            self.m_up.next = self.lvl_ones.val();
            self.tight.d.next = (self.level.q.val() > self.room_at_m1.val());
        } else if self.down.val() {
            self.m_down.next = self.lvl_ones.val();
            self.tight.d.next = (self.level.q.val() > self.room_at_p1.val());
        } else {
            self.tight.d.next = (self.level.q.val() > self.room_at.val());
        }
        self.m_hold.next = !(self.m_up.val() | self.m_down.val());
        self.level.d.next = (((self.lvl_inc.val() & self.m_up.val())
            | (self.lvl_dec.val() & self.m_down.val()))
            | (self.level.q.val() & self.m_hold.val()));
        if self.rst.val() {
            self.level.d.next = 0.into();
            self.tight.d.next = false;
            self.in_frame.d.next = false;
            self.storing.d.next = false;
            self.drop_full.d.next = false;
            self.drop_error.d.next = false;
            self.drop_long.d.next = false;
            self.cnt_full.d.next = 0.into();
            self.cnt_error.d.next = 0.into();
            self.cnt_long.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[derive(Clone, Copy, Default)]
    struct Counts {
        frames: u64,
        delivered: u64,
        full: u64,
        error: u64,
        long: u64,
    }

    /// A MAC that never waits: frames of 1..=6 beats (the FIFO takes 4), some marked bad,
    /// with random idle gaps (`p_gap` percent of cycles); the RX side takes a beat in
    /// `p_ready` percent of cycles. Checks: every frame that leaves is a whole good frame
    /// of at most 4 beats, in arrival order, with its beats in order; every frame is
    /// delivered or counted by exactly one reason.
    fn run(seed: u64, p_gap: u64, p_ready: u64, cycles: u64) -> Counts {
        let result = std::sync::Arc::new(std::sync::Mutex::new(Counts::default()));
        let out = result.clone();
        let mut uut = MacRxFifo::<16, 2>::new(16, 4);
        uut.connect_all();
        let mut sim = simple_sim!(MacRxFifo<16, 2>, clk, 100_000_000, ep, {
            let mut x = ep.init()?;
            let mut next = crate::testutil::percent(seed);
            let mut c = Counts::default();
            // The frame being sent: id, length, beat, bad.
            let (mut id, mut len, mut beat, mut bad) = (0u64, 0u64, 0u64, false);
            // Good frames sent (id, length) not yet delivered or skipped.
            let mut good: VecDeque<(u64, u64)> = VecDeque::new();
            let mut rx_beat = 0u64;
            for _ in 0..cycles {
                wait_clock_false!(ep, clk, x);
                // Ready and grant vary apart: a beat leaves only with both.
                let m_ready = next() < p_ready;
                let m_grant = next() < 80;
                if x.m_tvalid.val() && m_ready && m_grant {
                    let w = x.m_tdata.val().index() as u64;
                    let (fid, fbeat) = (w >> 4, w & 15);
                    // Skip good frames that were dropped (full) before this one.
                    while good.front().is_some_and(|&(g, _)| g != fid) {
                        good.pop_front();
                    }
                    let glen = good.front().map(|&(_, l)| l);
                    sim_assert!(ep, glen.is_some() && fbeat == rx_beat, x);
                    rx_beat += 1;
                    let last = x.m_tlast.val();
                    sim_assert!(ep, last == (rx_beat == glen.unwrap_or(0)), x);
                    if last {
                        good.pop_front();
                        c.delivered += 1;
                        rx_beat = 0;
                    }
                }
                c.full = x.status_drop_full.val().index() as u64;
                c.error = x.status_drop_error.val().index() as u64;
                c.long = x.status_drop_long.val().index() as u64;
                let send = if beat > 0 { true } else { next() >= p_gap };
                if send && beat == 0 {
                    id += 1;
                    len = 1 + next() % 6;
                    bad = next() < 15;
                    if !bad && len <= 4 {
                        good.push_back((id & 0xFFF, len));
                    }
                    c.frames += 1;
                }
                x.s_tvalid.next = send;
                x.s_tdata.next = (((id & 0xFFF) << 4) | beat).into();
                x.s_tkeep.next = 3.into();
                x.s_tlast.next = send && beat + 1 == len;
                x.s_tuser.next = send && beat + 1 == len && bad;
                x.m_tready.next = m_ready;
                x.m_grant.next = m_grant;
                if send {
                    beat = if beat + 1 == len { 0 } else { beat + 1 };
                }
                wait_clock_true!(ep, clk, x);
            }
            sim_assert!(ep, x.s_tready.val(), x);
            *out.lock().unwrap() = c;
            ep.done(x)
        });
        sim.run(Box::new(uut), cycles * 10_000 + 100_000).unwrap();
        let c = *result.lock().unwrap();
        c
    }

    #[test]
    fn mac_rx_fifo_delivers_whole_good_frames_and_counts_every_drop() {
        for seed in 1..4 {
            // Slow RX side: the FIFO fills and drops whole frames.
            let c = run(seed, 10, 40, 4_000);
            // Frames still inside at the end: at most what 16 entries hold.
            let accounted = c.delivered + c.full + c.error + c.long;
            assert!(
                c.frames >= accounted && c.frames - accounted <= 16,
                "seed {seed}"
            );
            assert!(
                c.full > 0 && c.error > 0 && c.long > 0 && c.delivered > 0,
                "seed {seed}"
            );
            // Fast RX side, gaps: nothing dropped for room.
            let c = run(seed, 50, 100, 4_000);
            assert_eq!(c.full, 0, "seed {seed}");
            assert!(
                c.frames - (c.delivered + c.error + c.long) <= 2,
                "seed {seed}"
            );
        }
    }
}
