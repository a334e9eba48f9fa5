//! `rx_events`: `rx_reorder`'s per-header results, handed to the host as two AXI4-Streams.
//!
//! ```text
//!  rx_reorder ─ CQE lanes 0..2 (up to 3 per cycle) ─► CQE queue ─► N ─► C ─► one CQE per beat ─► slice ─► m_axis_cqe_*
//!             ─ ACK / request ──────────────────────► ACK queue ─► one record per beat ────────────────► m_axis_ack_*
//!             ◄─ m_hold: a queue has fewer than `margin` free entries
//! ```
//!
//! `rx_reorder` has no backpressure on its results: it stops taking headers when told to
//! hold, and the results already in its pipeline still come out. So each queue counts its
//! entries and raises `m_hold` while fewer than [`HOLD_MARGIN`] are free, more than the
//! pipeline holds. `status_overflow` would report a result lost anyway (never expected).
//!
//! **A CQE never overtakes its data.** `rx_reorder` raises a CQE with the verdict that
//! completes it, while the payload of that packet (and of the packets before it) is still
//! leaving `rx_decap`. Each CQE record is tagged with the number of "place" verdicts so
//! far; it leaves only once `rx_decap` has reported that many placements finished
//! (`s_place_done`). Placements leave in verdict order, so by then every packet the CQE
//! covers has been placed.
//!
//! **Registered decisions (timing).** The record being sent sits in a head register C,
//! with its release decision `c_rel` registered: `done` had reached the record's tag one
//! cycle earlier (conservative, since `done` only grows). The queue's head moves into a
//! skid entry N while N is empty, and from N (or straight from the queue) into C when C
//! frees, so the queue's pop is a register and C's send decision never reaches the queue's
//! counters. The CQE stream leaves through a register slice ([`RegSlice`]), so the host's
//! `tready` reaches only the slice; the ACK stream leaves from its queue's output
//! register. A CQE leaves two cycles later than through a single head register (C and
//! the slice), three when it waited for its last placement; one CQE per beat still goes
//! out.
//!
//! `m_axis_cqe_tdata` (128 bits): `[23:0]` PSN, `[47:32]` QP, `[95:64]` immediate, the
//! rest 0. CQEs of one QP leave in PSN order, as `rx_reorder` raised them.
//!
//! `m_axis_ack_tdata` (384 bits): `[15:0]` QP, `[16]` ACK, `[17]` request,
//! `[55:32]` ACK PSN (the QP's next expected PSN), `[87:64]` request base PSN,
//! `[383:128]` missing bitmap (bit j: base + j missing). A record can carry both.

use crate::fifo::Fifo;
use crate::rx_reorder::RX_REORDER_LATENCY;
use crate::slice::RegSlice;
use crate::wiring::KeepDff;
use rust_hdl::prelude::*;

/// One CQE record: QP, three lanes of `{valid, PSN, immediate}`, and the place tag.
pub const CQE_REC_BITS: usize = 16 + 3 * 57 + 16;
/// One ACK record: QP, `{ack, PSN}`, `{request, PSN}`, missing bitmap.
pub const ACK_REC_BITS: usize = 16 + 25 + 25 + 256;
/// Queue depth (entries) of each queue.
pub const EVENT_DEPTH: usize = 64;
/// Free entries below which `rx_reorder` is held: every header its pipeline holds
/// ([`RX_REORDER_LATENCY`]), the hold's own register, and the queue's write register.
pub const HOLD_MARGIN: usize = RX_REORDER_LATENCY as usize + 3;

#[derive(LogicBlock)]
pub struct RxEvents {
    pub clk: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub s_qp: Signal<In, Bits<16>>,
    /// `rx_reorder`'s verdict, and whether it places the packet.
    pub s_verdict_valid: Signal<In, Bit>,
    pub s_verdict_place: Signal<In, Bit>,
    /// Placements finished this cycle (`rx_decap`'s `m_place_done`).
    pub s_place_done: Signal<In, Bits<2>>,
    pub s_cqe0_valid: Signal<In, Bit>,
    pub s_cqe0_psn: Signal<In, Bits<24>>,
    pub s_cqe0_imm: Signal<In, Bits<32>>,
    pub s_cqe1_valid: Signal<In, Bit>,
    pub s_cqe1_psn: Signal<In, Bits<24>>,
    pub s_cqe1_imm: Signal<In, Bits<32>>,
    pub s_cqe2_valid: Signal<In, Bit>,
    pub s_cqe2_psn: Signal<In, Bits<24>>,
    pub s_cqe2_imm: Signal<In, Bits<32>>,
    pub s_ack_valid: Signal<In, Bit>,
    pub s_ack_psn: Signal<In, Bits<24>>,
    pub s_nak_valid: Signal<In, Bit>,
    pub s_nak_psn: Signal<In, Bits<24>>,
    pub s_nak_missing: Signal<In, Bits<256>>,
    pub m_hold: Signal<Out, Bit>,
    pub m_axis_cqe_tvalid: Signal<Out, Bit>,
    pub m_axis_cqe_tready: Signal<In, Bit>,
    pub m_axis_cqe_tdata: Signal<Out, Bits<128>>,
    pub m_axis_ack_tvalid: Signal<Out, Bit>,
    pub m_axis_ack_tready: Signal<In, Bit>,
    pub m_axis_ack_tdata: Signal<Out, Bits<384>>,
    pub status_overflow: Signal<Out, Bit>,
    cqe_q: Fifo<CQE_REC_BITS>,
    ack_q: Fifo<ACK_REC_BITS>,
    cqe_level: DFF<Bits<8>>,
    ack_level: DFF<Bits<8>>,
    hold: DFF<Bit>,
    /// The head record, taken from the queue: valid, the record, and whether its tag was
    /// reached by `done` as of the previous cycle (registered, so the release decision
    /// that pops the queue starts at a flip-flop).
    c_valid: DFF<Bit>,
    c_rec: DFF<Bits<CQE_REC_BITS>>,
    c_rel: DFF<Bit>,
    /// The record after C (a skid entry): the queue is popped while it is empty, so the
    /// queue's pop is a register and C's send decision never reaches the queue.
    n_valid: DFF<Bit>,
    n_rec: DFF<Bits<CQE_REC_BITS>>,
    /// The lane of the head record to send next.
    lane: DFF<Bits<2>>,
    /// A copy of `n_valid` for the queue's pop (`n_valid` enables the 204 bits of N).
    n_busy: KeepDff<Bit>,
    n_next: Signal<Local, Bit>,
    /// The CQE stream's register slice: the host's `tready` reaches only it. (The ACK
    /// stream leaves from the queue's output register, so it needs none.)
    cqe_out: RegSlice<128>,
    /// Place verdicts so far, and placements finished so far (both mod 2^16).
    places: DFF<Bits<16>>,
    done: DFF<Bits<16>>,
    tag: Signal<Local, Bits<16>>,
    lag_head: Signal<Local, Bits<16>>,
    lag_c: Signal<Local, Bits<16>>,
    lag_n: Signal<Local, Bits<16>>,
    n_take: Signal<Local, Bit>,
    c_free: Signal<Local, Bit>,
    hold_at: Constant<Bits<8>>,
    cqe_push: Signal<Local, Bit>,
    ack_push: Signal<Local, Bit>,
    cqe_pop: Signal<Local, Bit>,
    ack_pop: Signal<Local, Bit>,
    ack_rec: Signal<Local, Bits<ACK_REC_BITS>>,
    take0: Signal<Local, Bit>,
    take1: Signal<Local, Bit>,
    take2: Signal<Local, Bit>,
    cur: Signal<Local, Bits<2>>,
    more: Signal<Local, Bit>,
    cqe_go: Signal<Local, Bit>,
    /// `level >= hold_at` for the level one up, the same, one down (from the registers).
    hold_at_m1: Constant<Bits<8>>,
    hold_at_p1: Constant<Bits<8>>,
    cqe_hold_up: Signal<Local, Bit>,
    cqe_hold_same: Signal<Local, Bit>,
    cqe_hold_down: Signal<Local, Bit>,
    ack_hold_up: Signal<Local, Bit>,
    ack_hold_same: Signal<Local, Bit>,
    ack_hold_down: Signal<Local, Bit>,
    cqe_hold_next: Signal<Local, Bit>,
    ack_hold_next: Signal<Local, Bit>,
    /// The queues' `full`: the hold keeps them from it (overflow is still reported); and
    /// the lags' low bits (only their sign is read).
    unused_full: Signal<Local, Bit>,
}

impl RxEvents {
    /// RAM bits of the CQE and ACK queues.
    pub const RAM_BITS: usize = EVENT_DEPTH * (CQE_REC_BITS + ACK_REC_BITS);

    pub fn new() -> Self {
        Self {
            clk: Default::default(),
            rst: Default::default(),
            s_qp: Default::default(),
            s_verdict_valid: Default::default(),
            s_verdict_place: Default::default(),
            s_place_done: Default::default(),
            s_cqe0_valid: Default::default(),
            s_cqe0_psn: Default::default(),
            s_cqe0_imm: Default::default(),
            s_cqe1_valid: Default::default(),
            s_cqe1_psn: Default::default(),
            s_cqe1_imm: Default::default(),
            s_cqe2_valid: Default::default(),
            s_cqe2_psn: Default::default(),
            s_cqe2_imm: Default::default(),
            s_ack_valid: Default::default(),
            s_ack_psn: Default::default(),
            s_nak_valid: Default::default(),
            s_nak_psn: Default::default(),
            s_nak_missing: Default::default(),
            m_hold: Default::default(),
            m_axis_cqe_tvalid: Default::default(),
            m_axis_cqe_tready: Default::default(),
            m_axis_cqe_tdata: Default::default(),
            m_axis_ack_tvalid: Default::default(),
            m_axis_ack_tready: Default::default(),
            m_axis_ack_tdata: Default::default(),
            status_overflow: Default::default(),
            cqe_q: Fifo::new(EVENT_DEPTH),
            ack_q: Fifo::new(EVENT_DEPTH),
            cqe_level: Default::default(),
            ack_level: Default::default(),
            hold: Default::default(),
            c_valid: Default::default(),
            c_rec: Default::default(),
            c_rel: Default::default(),
            n_valid: Default::default(),
            n_rec: Default::default(),
            lane: Default::default(),
            n_busy: Default::default(),
            n_next: Default::default(),
            cqe_out: Default::default(),
            places: Default::default(),
            done: Default::default(),
            tag: Default::default(),
            lag_head: Default::default(),
            lag_c: Default::default(),
            lag_n: Default::default(),
            n_take: Default::default(),
            c_free: Default::default(),
            hold_at: Constant::new(((EVENT_DEPTH - HOLD_MARGIN) as LiteralType).into()),
            hold_at_m1: Constant::new(((EVENT_DEPTH - HOLD_MARGIN - 1) as LiteralType).into()),
            hold_at_p1: Constant::new(((EVENT_DEPTH - HOLD_MARGIN + 1) as LiteralType).into()),
            cqe_push: Default::default(),
            ack_push: Default::default(),
            cqe_pop: Default::default(),
            ack_pop: Default::default(),
            ack_rec: Default::default(),
            take0: Default::default(),
            take1: Default::default(),
            take2: Default::default(),
            cur: Default::default(),
            more: Default::default(),
            cqe_go: Default::default(),
            cqe_hold_up: Default::default(),
            cqe_hold_same: Default::default(),
            cqe_hold_down: Default::default(),
            ack_hold_up: Default::default(),
            ack_hold_same: Default::default(),
            ack_hold_down: Default::default(),
            cqe_hold_next: Default::default(),
            ack_hold_next: Default::default(),
            unused_full: Default::default(),
        }
    }
}

impl Default for RxEvents {
    fn default() -> Self {
        Self::new()
    }
}

impl Logic for RxEvents {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, cqe_level, ack_level, hold, c_valid, c_rec, c_rel, n_valid, n_rec, lane,
            places, done
        );
        self.cqe_q.clk.next = self.clk.val();
        self.ack_q.clk.next = self.clk.val();
        self.cqe_q.rst.next = self.rst.val();
        self.ack_q.rst.next = self.rst.val();
        self.cqe_out.clk.next = self.clk.val();
        self.cqe_out.rst.next = self.rst.val();
        self.n_busy.clock.next = self.clk.val();

        // Place tags: a CQE waits for the placement of the packet whose verdict raised it.
        if (self.s_verdict_valid.val() & self.s_verdict_place.val()) {
            self.tag.next = (self.places.q.val() + 1);
        } else {
            self.tag.next = self.places.q.val();
        }
        self.places.d.next = self.tag.val();
        self.done.d.next = (self.done.q.val() + bit_cast::<16, 2>(self.s_place_done.val()));

        // Enqueue: one record per result that carries anything.
        self.cqe_push.next =
            ((self.s_cqe0_valid.val() | self.s_cqe1_valid.val()) | self.s_cqe2_valid.val());
        self.ack_push.next = (self.s_ack_valid.val() | self.s_nak_valid.val());
        self.cqe_q.s_valid.next = self.cqe_push.val();
        self.cqe_q.s_data.next = (bit_cast::<CQE_REC_BITS, 16>(self.s_qp.val())
            | (bit_cast::<CQE_REC_BITS, 1>(self.s_cqe0_valid.val().into()) << 16)
            | (bit_cast::<CQE_REC_BITS, 24>(self.s_cqe0_psn.val()) << 17)
            | (bit_cast::<CQE_REC_BITS, 32>(self.s_cqe0_imm.val()) << 41)
            | (bit_cast::<CQE_REC_BITS, 1>(self.s_cqe1_valid.val().into()) << 73)
            | (bit_cast::<CQE_REC_BITS, 24>(self.s_cqe1_psn.val()) << 74)
            | (bit_cast::<CQE_REC_BITS, 32>(self.s_cqe1_imm.val()) << 98)
            | (bit_cast::<CQE_REC_BITS, 1>(self.s_cqe2_valid.val().into()) << 130)
            | (bit_cast::<CQE_REC_BITS, 24>(self.s_cqe2_psn.val()) << 131)
            | (bit_cast::<CQE_REC_BITS, 32>(self.s_cqe2_imm.val()) << 155)
            | (bit_cast::<CQE_REC_BITS, 16>(self.tag.val()) << 187));
        self.ack_q.s_valid.next = self.ack_push.val();
        self.ack_q.s_data.next = (bit_cast::<ACK_REC_BITS, 16>(self.s_qp.val())
            | (bit_cast::<ACK_REC_BITS, 1>(self.s_ack_valid.val().into()) << 16)
            | (bit_cast::<ACK_REC_BITS, 24>(self.s_ack_psn.val()) << 17)
            | (bit_cast::<ACK_REC_BITS, 1>(self.s_nak_valid.val().into()) << 41)
            | (bit_cast::<ACK_REC_BITS, 24>(self.s_nak_psn.val()) << 42)
            | (bit_cast::<ACK_REC_BITS, 256>(self.s_nak_missing.val()) << 66));

        // CQE head: the queue's head moves into N (a skid entry) while N is empty, and
        // from there, or straight from the queue, into C when C is empty or sends its last
        // lane. The queue's pop is `!n_valid`, a register. `c_rel` is C's release
        // decision, registered: `done` had reached C's tag one cycle ago (conservative;
        // `done` only grows). It is computed for the record C holds next cycle.
        // `done >= tag` modulo 2^16 (far fewer than 2^15 placements are ever in flight):
        // the difference's top bit clear. Written as `< 32768`, synthesis built a second
        // carry chain for the compare behind the subtraction's (5.5 levels).
        self.lag_head.next = (self.done.q.val() - self.cqe_q.m_data.val().get_bits::<16>(187));
        self.lag_n.next = (self.done.q.val() - self.n_rec.q.val().get_bits::<16>(187));
        self.lag_c.next = (self.done.q.val() - self.c_rec.q.val().get_bits::<16>(187));
        self.take0.next = (self.c_rec.q.val().get_bit(16) & (self.lane.q.val() == 0));
        self.take1.next = (self.c_rec.q.val().get_bit(73) & (self.lane.q.val() <= 1));
        self.take2.next = self.c_rec.q.val().get_bit(130);
        if self.take0.val() {
            self.cur.next = 0.into();
        } else if self.take1.val() {
            self.cur.next = 1.into();
        } else {
            self.cur.next = 2.into();
        }
        self.cqe_go.next = (((self.c_valid.q.val() & self.c_rel.q.val())
            & ((self.take0.val() | self.take1.val()) | self.take2.val()))
            & self.cqe_out.s_ready.val());
        // Another valid lane after the one sent?
        self.more.next = (((self.cur.val() == 0)
            & (self.c_rec.q.val().get_bit(73) | self.c_rec.q.val().get_bit(130)))
            | ((self.cur.val() == 1) & self.c_rec.q.val().get_bit(130)));
        // C is free when empty, when it sends its last lane, or when it holds a record
        // with no lane left (never pushed that way: dropped rather than stuck).
        self.c_free.next = ((!self.c_valid.q.val() | (self.cqe_go.val() & !self.more.val()))
            | !((self.take0.val() | self.take1.val()) | self.take2.val()));
        self.n_take.next = (self.cqe_q.m_valid.val() & !self.n_busy.q.val());
        self.cqe_q.m_pop.next = !self.n_busy.q.val();
        self.cqe_pop.next = self.n_take.val();
        if !self.n_valid.q.val() {
            self.n_rec.d.next = self.cqe_q.m_data.val();
        }
        if self.c_free.val() {
            if self.n_valid.q.val() {
                self.c_valid.d.next = true;
                self.c_rec.d.next = self.n_rec.q.val();
                self.c_rel.d.next = !self.lag_n.val().get_bit(15);
            } else {
                self.c_valid.d.next = self.cqe_q.m_valid.val();
                self.c_rec.d.next = self.cqe_q.m_data.val();
                self.c_rel.d.next = !self.lag_head.val().get_bit(15);
            }
            self.n_next.next = false;
        } else {
            self.c_rel.d.next = !self.lag_c.val().get_bit(15);
            self.n_next.next = (self.n_valid.q.val() | self.n_take.val());
        }
        if self.cqe_go.val() {
            if self.more.val() {
                self.lane.d.next = (self.cur.val() + 1);
            } else {
                self.lane.d.next = 0.into();
            }
        }
        self.cqe_out.s_valid.next = self.cqe_go.val();
        if self.cur.val() == 0 {
            self.cqe_out.s_data.next = (bit_cast::<128, 24>(self.c_rec.q.val().get_bits::<24>(17))
                | (bit_cast::<128, 16>(self.c_rec.q.val().get_bits::<16>(0)) << 32)
                | (bit_cast::<128, 32>(self.c_rec.q.val().get_bits::<32>(41)) << 64));
        } else if self.cur.val() == 1 {
            self.cqe_out.s_data.next = (bit_cast::<128, 24>(self.c_rec.q.val().get_bits::<24>(74))
                | (bit_cast::<128, 16>(self.c_rec.q.val().get_bits::<16>(0)) << 32)
                | (bit_cast::<128, 32>(self.c_rec.q.val().get_bits::<32>(98)) << 64));
        } else {
            self.cqe_out.s_data.next =
                (bit_cast::<128, 24>(self.c_rec.q.val().get_bits::<24>(131))
                    | (bit_cast::<128, 16>(self.c_rec.q.val().get_bits::<16>(0)) << 32)
                    | (bit_cast::<128, 32>(self.c_rec.q.val().get_bits::<32>(155)) << 64));
        }
        self.m_axis_cqe_tvalid.next = self.cqe_out.m_valid.val();
        self.m_axis_cqe_tdata.next = self.cqe_out.m_data.val();
        self.cqe_out.m_ready.next = self.m_axis_cqe_tready.val();

        // ACK queue head: one record per beat, from the queue's output register.
        self.ack_rec.next = self.ack_q.m_data.val();
        self.m_axis_ack_tvalid.next = self.ack_q.m_valid.val();
        self.ack_pop.next = (self.ack_q.m_valid.val() & self.m_axis_ack_tready.val());
        self.ack_q.m_pop.next = self.ack_pop.val();
        self.m_axis_ack_tdata.next = (bit_cast::<384, 16>(self.ack_rec.val().get_bits::<16>(0))
            | (bit_cast::<384, 1>(self.ack_rec.val().get_bits::<1>(16)) << 16)
            | (bit_cast::<384, 1>(self.ack_rec.val().get_bits::<1>(41)) << 17)
            | (bit_cast::<384, 24>(self.ack_rec.val().get_bits::<24>(17)) << 32)
            | (bit_cast::<384, 24>(self.ack_rec.val().get_bits::<24>(42)) << 64)
            | (bit_cast::<384, 256>(self.ack_rec.val().get_bits::<256>(66)) << 128));

        // Occupancy, and the hold. The three possible next levels' compares come from
        // the level registers, so push and pop only pick one (one LUT).
        if (self.cqe_push.val() & !self.cqe_pop.val()) {
            self.cqe_level.d.next = (self.cqe_level.q.val() + 1);
        } else if (!self.cqe_push.val() & self.cqe_pop.val()) {
            self.cqe_level.d.next = (self.cqe_level.q.val() - 1);
        }
        if (self.ack_push.val() & !self.ack_pop.val()) {
            self.ack_level.d.next = (self.ack_level.q.val() + 1);
        } else if (!self.ack_push.val() & self.ack_pop.val()) {
            self.ack_level.d.next = (self.ack_level.q.val() - 1);
        }
        self.cqe_hold_up.next = (self.cqe_level.q.val() >= self.hold_at_m1.val());
        self.cqe_hold_same.next = (self.cqe_level.q.val() >= self.hold_at.val());
        self.cqe_hold_down.next = (self.cqe_level.q.val() >= self.hold_at_p1.val());
        self.ack_hold_up.next = (self.ack_level.q.val() >= self.hold_at_m1.val());
        self.ack_hold_same.next = (self.ack_level.q.val() >= self.hold_at.val());
        self.ack_hold_down.next = (self.ack_level.q.val() >= self.hold_at_p1.val());
        if (self.cqe_push.val() & !self.cqe_pop.val()) {
            self.cqe_hold_next.next = self.cqe_hold_up.val();
        } else if (!self.cqe_push.val() & self.cqe_pop.val()) {
            self.cqe_hold_next.next = self.cqe_hold_down.val();
        } else {
            self.cqe_hold_next.next = self.cqe_hold_same.val();
        }
        if (self.ack_push.val() & !self.ack_pop.val()) {
            self.ack_hold_next.next = self.ack_hold_up.val();
        } else if (!self.ack_push.val() & self.ack_pop.val()) {
            self.ack_hold_next.next = self.ack_hold_down.val();
        } else {
            self.ack_hold_next.next = self.ack_hold_same.val();
        }
        self.hold.d.next = (self.cqe_hold_next.val() | self.ack_hold_next.val());
        if self.rst.val() {
            self.cqe_level.d.next = 0.into();
            self.ack_level.d.next = 0.into();
            self.hold.d.next = false;
            self.lane.d.next = 0.into();
            self.c_valid.d.next = false;
            self.n_next.next = false;
            self.places.d.next = 0.into();
            self.done.d.next = 0.into();
        }
        self.n_valid.d.next = self.n_next.val();
        self.n_busy.d.next = self.n_next.val();
        self.m_hold.next = self.hold.q.val();
        self.unused_full.next = ((self.cqe_q.full.val() | self.ack_q.full.val())
            | ((self.lag_head.val().get_bits::<15>(0).any()
                | self.lag_n.val().get_bits::<15>(0).any())
                | self.lag_c.val().get_bits::<15>(0).any()));
        self.status_overflow.next =
            (self.cqe_q.status_overflow.val() | self.ack_q.status_overflow.val());
    }
}
