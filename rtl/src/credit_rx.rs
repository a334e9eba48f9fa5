//! `credit_rx`: the receiver side of the credit engine (the Pegasus paper; docs/blocks/credit.md).
//!
//! ```text
//!  s_req (qp)   ──┐         S0            S1      S2                S3
//!  s_onoff      ──┼─► arbiter ─► PipeRam read ─► latch ─► out reg ─► prep ─► update ─► w1 ─► RAM write
//!  grant slot ────┘  (onoff >   {pending, off,            (forward   (forward  │ ▲    w2, w3 (forwarding)
//!   ▲                slot > req) in_ring} per QP           w1..w3)    w1)      │ └─── (same QP back to back)
//!   │                                                                          ├─► push reg ─► ring FIFO
//!   │                                                                          └─► grant reg ─► m_grant
//!   └ pacing: z += den (or den - num once z >= 0); a slot when z >= 0
//! ```
//!
//! * **Requests**: each `s_req` asks for one batch of credit; the QP's pending count
//!   goes up and, if it is not in the ring and not OFF, the QP joins the ring.
//! * **Round robin**: the ring is a FIFO of QPs with pending requests, each at most once.
//!   A grant slot pops the head QP, grants it one credit and puts it back at the tail if
//!   it still has requests. Two QPs requesting continuously alternate.
//! * **Pacing**: one slot per batch time at the aggregate line rate, `num / den` cycles
//!   as an exact fraction from the config (328 ns = 528/5 cycles for 16 KiB at 400 Gb/s and
//!   322.265625 MHz): a rational accumulator, so there is no cumulative drift. A slot with
//!   nobody to grant waits [`SLOT_WAIT`] cycles (for a request just taken, which reaches
//!   the ring that late) and then passes unused (`idle_slots`); slots never bank up.
//! * **PCIe backpressure**: while `s_pcie_depth > cfg_bp_threshold` (sampled into a
//!   register, so it acts one cycle later), the accumulator advances one cycle in
//!   `cfg_bp_slowdown` (0 means 16), stretching the slot interval by that factor.
//! * **ON/OFF**: an OFF QP keeps its requests but leaves the ring when it reaches the head
//!   (that slot passes unused); ON puts it back if it has requests.
//! * Grants leave on `m_grant_*`, the high-priority output, with no backpressure,
//!   [`CREDIT_RX_GRANT_LATENCY`] cycles after the slot takes the ring's head.
//! * QP numbers are taken modulo the QP count.
//! * **Reset** sweeps every QP word to zero; requests are refused meanwhile.
//!
//! Timing: the per-QP word is read through `PipeRam`'s two registers (S1, S2) before any
//! logic. Its read-modify-write is one cycle (S3, the only loop), so events on one QP
//! may follow each other every cycle: S2 takes the word from the RAM or from the results
//! of the three events ahead that the RAM does not hold yet (`w1`..`w3`), and S3 takes the
//! previous event's result (`w1`) when it was the same QP. The pacing accumulator holds
//! `acc + den - num`, so its sign bit is the slot decision and its update is one adder,
//! as wide as the config's `num` needs (10 bits by default; the bits above are constant
//! copies of the sign and synthesis drops them).

use crate::credit_tx::QP_BITS;
use crate::fifo::Fifo;
use crate::ram::{PipeRam, RamSweep};
use rust_hdl::prelude::*;

const WORD_BITS: usize = 32;
/// Cycles a due slot waits for a ring with nobody in it: a request taken in the cycle
/// before the slot is in the ring's head this many cycles later (S3, push register, then
/// the FIFO's three edges).
pub const SLOT_WAIT: u64 = 6;
/// Cycles from the slot that takes the ring's head (S0) to its grant on `m_grant_*`.
pub const CREDIT_RX_GRANT_LATENCY: u32 = 4;

#[derive(LogicBlock)]
pub struct CreditRx {
    pub clk: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub s_req_valid: Signal<In, Bit>,
    pub s_req_ready: Signal<Out, Bit>,
    pub s_req_qp: Signal<In, Bits<QP_BITS>>,
    pub s_onoff_valid: Signal<In, Bit>,
    pub s_onoff_qp: Signal<In, Bits<QP_BITS>>,
    pub s_onoff_on: Signal<In, Bit>,
    pub m_grant_valid: Signal<Out, Bit>,
    pub m_grant_qp: Signal<Out, Bits<QP_BITS>>,
    /// Depth of the internal (PCIe-side) queue.
    pub s_pcie_depth: Signal<In, Bits<16>>,
    pub cfg_bp_threshold: Signal<In, Bits<16>>,
    pub cfg_bp_slowdown: Signal<In, Bits<4>>,
    pub status_clearing: Signal<Out, Bit>,
    pub status_requests: Signal<Out, Bits<32>>,
    pub status_grants: Signal<Out, Bits<32>>,
    pub status_idle_slots: Signal<Out, Bits<32>>,
    pub status_slots: Signal<Out, Bits<32>>,

    ram: PipeRam<Bits<WORD_BITS>>,
    ring: Fifo<QP_BITS>,
    depth_m1: Constant<Bits<QP_BITS>>,
    /// Pacing constants: `den - num` (the reset value and the step after a slot) and
    /// `den`, both as 48-bit two's complement; the accumulator's sign bit as a mask, and
    /// the bits below it.
    z_init: Constant<Bits<48>>,
    z_den: Constant<Bits<48>>,
    z_sign: Constant<Bits<48>>,
    z_low: Constant<Bits<48>>,
    slot_wait_max: Constant<Bits<3>>,
    sweep: RamSweep,
    /// `acc + den - num`, stored XORed with its reset value so the power-up zero means
    /// what reset means: a slot is due at the next tick when it is >= 0.
    z: DFF<Bits<48>>,
    z_val: Signal<Local, Bits<48>>,
    bp: DFF<Bit>,
    bp_count: DFF<Bits<4>>,
    slot_pending: DFF<Bit>,
    slot_wait: DFF<Bits<3>>,
    slot_empty: Signal<Local, Bit>,
    slot_lost: Signal<Local, Bit>,
    idle_head: Signal<Local, Bit>,
    ev_qp: Signal<Local, Bits<QP_BITS>>,
    ev_kind: Signal<Local, Bits<2>>,
    s1_valid: DFF<Bit>,
    s1_kind: DFF<Bits<2>>,
    s1_qp: DFF<Bits<QP_BITS>>,
    s1_on: DFF<Bit>,
    s2_valid: DFF<Bit>,
    s2_kind: DFF<Bits<2>>,
    s2_qp: DFF<Bits<QP_BITS>>,
    s2_on: DFF<Bit>,
    /// S2's event is the same QP as the event 1, 2, 3, 4 cycles ahead of it.
    s2_f1: DFF<Bit>,
    s2_f2: DFF<Bit>,
    s2_f3: DFF<Bit>,
    s2_f4: DFF<Bit>,
    s3_valid: DFF<Bit>,
    s3_kind: DFF<Bits<2>>,
    s3_qp: DFF<Bits<QP_BITS>>,
    s3_on: DFF<Bit>,
    s3_f1: DFF<Bit>,
    /// S3's word unless the event just ahead was the same QP.
    s3_prep: DFF<Bits<WORD_BITS>>,
    /// The step S3 takes: +1 (a request, count not saturated) or -1 (a grant slot, QP
    /// not OFF), decided in S2 against the word S3 will see (the result S3 is computing
    /// when the event ahead is the same QP).
    s3_up: DFF<Bit>,
    s3_down: DFF<Bit>,
    /// Results of the last three events, newest first; `w1` is written to the RAM.
    w1_valid: DFF<Bit>,
    w1_qp: DFF<Bits<QP_BITS>>,
    w1_word: DFF<Bits<WORD_BITS>>,
    /// The pending count in `w1_word` is 0xffff (a request adds nothing).
    w1_all: DFF<Bit>,
    w2_all: DFF<Bit>,
    w3_all: DFF<Bit>,
    w2_valid: DFF<Bit>,
    w2_qp: DFF<Bits<QP_BITS>>,
    w2_word: DFF<Bits<WORD_BITS>>,
    w3_valid: DFF<Bit>,
    w3_qp: DFF<Bits<QP_BITS>>,
    w3_word: DFF<Bits<WORD_BITS>>,
    push_valid: DFF<Bit>,
    push_qp: DFF<Bits<QP_BITS>>,
    out_valid: DFF<Bit>,
    out_qp: DFF<Bits<QP_BITS>>,
    /// Unused slots of the cycle before, added to the counter a cycle later.
    idle_inc: DFF<Bits<2>>,
    cnt_requests: DFF<Bits<32>>,
    cnt_grants: DFF<Bits<32>>,
    cnt_idle: DFF<Bits<32>>,
    cnt_slots: DFF<Bits<32>>,
    tick: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    z_sum: Signal<Local, Bits<48>>,
    ev_slot: Signal<Local, Bit>,
    ev_onoff: Signal<Local, Bit>,
    ev_req: Signal<Local, Bit>,
    word: Signal<Local, Bits<WORD_BITS>>,
    pending: Signal<Local, Bits<16>>,
    off: Signal<Local, Bit>,
    in_ring: Signal<Local, Bit>,
    pending_n: Signal<Local, Bits<16>>,
    off_n: Signal<Local, Bit>,
    in_ring_n: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    grant: Signal<Local, Bit>,
    word_n: Signal<Local, Bits<WORD_BITS>>,
    ram_all: Signal<Local, Bit>,
    up: Signal<Local, Bit>,
    down: Signal<Local, Bit>,
    prep: Signal<Local, Bits<WORD_BITS>>,
    prep_all: Signal<Local, Bit>,
    all_n: Signal<Local, Bit>,
    step: Signal<Local, Bits<16>>,
    gt0: Signal<Local, Bit>,
    gt1: Signal<Local, Bit>,
    /// The RAM's word, its pending count or its state bits.
    /// The ring cannot overflow (one entry per QP at most); spare word bits.
    unused_ring: Signal<Local, Bit>,
}

impl CreditRx {
    /// RAM bits for `qps` QP contexts: one request word each, and the ring that holds
    /// each QP at most once.
    pub fn ram_bits(qps: usize) -> usize {
        qps * (WORD_BITS + QP_BITS)
    }

    /// `qps`: QP contexts (power of two); one grant slot every `slot_num / slot_den`
    /// cycles.
    pub fn new(qps: usize, slot_num: u64, slot_den: u64) -> Self {
        assert!(slot_den > 0 && slot_num >= slot_den && slot_num < (1 << 47));
        // The accumulator holds values in [den - num, den): a two's complement number of
        // `bits` bits (sign included), sign-extended to 48.
        let mut bits = 1;
        while !((-(1i64 << (bits - 1))) <= slot_den as i64 - slot_num as i64
            && (slot_den as i64) <= (1i64 << (bits - 1)))
        {
            bits += 1;
        }
        let mask48 = (1u64 << 48) - 1;
        let z_init = (slot_den as i64 - slot_num as i64) as u64 & mask48;
        Self {
            clk: Default::default(),
            rst: Default::default(),
            s_req_valid: Default::default(),
            s_req_ready: Default::default(),
            s_req_qp: Default::default(),
            s_onoff_valid: Default::default(),
            s_onoff_qp: Default::default(),
            s_onoff_on: Default::default(),
            m_grant_valid: Default::default(),
            m_grant_qp: Default::default(),
            s_pcie_depth: Default::default(),
            cfg_bp_threshold: Default::default(),
            cfg_bp_slowdown: Default::default(),
            status_clearing: Default::default(),
            status_requests: Default::default(),
            status_grants: Default::default(),
            status_idle_slots: Default::default(),
            status_slots: Default::default(),
            ram: PipeRam::new(qps),
            ring: Fifo::new(qps),
            depth_m1: Constant::new(((qps - 1) as LiteralType).into()),
            z_init: Constant::new(z_init.into()),
            z_den: Constant::new(slot_den.into()),
            z_sign: Constant::new((1u64 << (bits - 1)).into()),
            z_low: Constant::new(((1u64 << (bits - 1)) - 1).into()),
            slot_wait_max: Constant::new(SLOT_WAIT.into()),
            sweep: RamSweep::new(qps),
            z: Default::default(),
            bp: Default::default(),
            bp_count: Default::default(),
            slot_pending: Default::default(),
            slot_wait: Default::default(),
            slot_empty: Default::default(),
            slot_lost: Default::default(),
            idle_head: Default::default(),
            ev_qp: Default::default(),
            ev_kind: Default::default(),
            s1_valid: Default::default(),
            s1_kind: Default::default(),
            s1_qp: Default::default(),
            s1_on: Default::default(),
            s2_valid: Default::default(),
            s2_kind: Default::default(),
            s2_qp: Default::default(),
            s2_on: Default::default(),
            s2_f1: Default::default(),
            s2_f2: Default::default(),
            s2_f3: Default::default(),
            s2_f4: Default::default(),
            s3_valid: Default::default(),
            s3_kind: Default::default(),
            s3_qp: Default::default(),
            s3_on: Default::default(),
            s3_f1: Default::default(),
            s3_prep: Default::default(),
            s3_up: Default::default(),
            s3_down: Default::default(),
            w1_valid: Default::default(),
            w1_qp: Default::default(),
            w1_word: Default::default(),
            w1_all: Default::default(),
            w2_all: Default::default(),
            w3_all: Default::default(),
            w2_valid: Default::default(),
            w2_qp: Default::default(),
            w2_word: Default::default(),
            w3_valid: Default::default(),
            w3_qp: Default::default(),
            w3_word: Default::default(),
            push_valid: Default::default(),
            push_qp: Default::default(),
            out_valid: Default::default(),
            out_qp: Default::default(),
            idle_inc: Default::default(),
            cnt_requests: Default::default(),
            cnt_grants: Default::default(),
            cnt_idle: Default::default(),
            cnt_slots: Default::default(),
            tick: Default::default(),
            fire: Default::default(),
            z_sum: Default::default(),
            z_val: Default::default(),
            ev_slot: Default::default(),
            ev_onoff: Default::default(),
            ev_req: Default::default(),
            word: Default::default(),
            pending: Default::default(),
            off: Default::default(),
            in_ring: Default::default(),
            pending_n: Default::default(),
            off_n: Default::default(),
            in_ring_n: Default::default(),
            push: Default::default(),
            grant: Default::default(),
            word_n: Default::default(),
            ram_all: Default::default(),
            up: Default::default(),
            down: Default::default(),
            prep: Default::default(),
            prep_all: Default::default(),
            all_n: Default::default(),
            step: Default::default(),
            gt0: Default::default(),
            gt1: Default::default(),
            unused_ring: Default::default(),
        }
    }
}

impl Logic for CreditRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clk,
            z,
            bp,
            bp_count,
            slot_pending,
            slot_wait,
            s1_valid,
            s1_kind,
            s1_qp,
            s1_on,
            s2_valid,
            s2_kind,
            s2_qp,
            s2_on,
            s2_f1,
            s2_f2,
            s2_f3,
            s2_f4,
            s3_valid,
            s3_kind,
            s3_qp,
            s3_on,
            s3_f1,
            s3_prep,
            s3_up,
            s3_down,
            w1_valid,
            w1_qp,
            w1_word,
            w1_all,
            w2_all,
            w3_all,
            w2_valid,
            w2_qp,
            w2_word,
            w3_valid,
            w3_qp,
            w3_word,
            push_valid,
            push_qp,
            out_valid,
            out_qp,
            idle_inc,
            cnt_requests,
            cnt_grants,
            cnt_idle,
            cnt_slots
        );
        self.sweep.clk.next = self.clk.val();
        self.sweep.rst.next = self.rst.val();
        self.ram.clk.next = self.clk.val();
        self.ram.read_enable.next = true;
        self.ram.out_enable.next = true;
        self.ring.clk.next = self.clk.val();
        self.ring.rst.next = self.rst.val();

        // ---- Pacing: a rational accumulator, stretched under PCIe backpressure. ----
        // The depth compare is registered so the accumulator's enable starts at a flop.
        self.bp.d.next = (self.s_pcie_depth.val() > self.cfg_bp_threshold.val());
        // No slots during the reset sweep.
        self.tick.next =
            ((!self.bp.q.val() | (self.bp_count.q.val() == 0)) & !self.sweep.active.val());
        if self.bp.q.val() {
            if (self.bp_count.q.val() == 0) {
                self.bp_count.d.next = (self.cfg_bp_slowdown.val() - 1);
            } else {
                self.bp_count.d.next = (self.bp_count.q.val() - 1);
            }
        } else {
            self.bp_count.d.next = 0.into();
        }
        // ---- S0: one event per cycle: ON/OFF, then a slot, then a request. ---------
        // ON/OFF has no ready: it always goes first (a due slot waits a cycle; the
        // accumulator keeps running, so the pacing does not drift).
        self.ev_onoff.next =
            ((self.s_onoff_valid.val() & !self.sweep.active.val()) & !self.rst.val());
        // No slot is pending during the sweep (reset clears it and no tick sets it), so
        // the pop needs no `clearing` term.
        self.ev_slot.next =
            ((self.slot_pending.q.val() & self.ring.m_valid.val()) & !self.s_onoff_valid.val());
        self.ev_req.next = ((((self.s_req_valid.val() & !self.ev_slot.val())
            & !self.s_onoff_valid.val())
            & !self.sweep.active.val())
            & !self.rst.val());
        // A due slot with nobody in the ring waits SLOT_WAIT cycles (a request taken just
        // before it reaches the ring that late), then passes unused; slots never bank up.
        self.slot_empty.next =
            ((self.slot_pending.q.val() & !self.ring.m_valid.val()) & !self.s_onoff_valid.val());
        if self.slot_empty.val() {
            self.slot_wait.d.next = (self.slot_wait.q.val() + 1);
        } else {
            self.slot_wait.d.next = 0.into();
        }
        self.slot_lost.next =
            (self.slot_empty.val() & (self.slot_wait.q.val() == self.slot_wait_max.val()));
        if self.slot_lost.val() {
            self.slot_pending.d.next = false;
            self.slot_wait.d.next = 0.into();
        }
        if self.ev_slot.val() {
            self.slot_pending.d.next = false;
        }
        self.ring.m_pop.next = self.ev_slot.val();
        // QP numbers are taken modulo the QP count (the low bits index the RAM).
        if self.s_onoff_valid.val() {
            self.ev_qp.next = (self.s_onoff_qp.val() & self.depth_m1.val());
            self.ev_kind.next = 1.into();
        } else if self.ev_slot.val() {
            self.ev_qp.next = self.ring.m_data.val();
            self.ev_kind.next = 0.into();
        } else {
            self.ev_qp.next = (self.s_req_qp.val() & self.depth_m1.val());
            self.ev_kind.next = 2.into();
        }
        self.ram.read_address.next = self.ev_qp.val();
        self.s1_qp.d.next = self.ev_qp.val();
        self.s1_kind.d.next = self.ev_kind.val();
        self.s1_valid.d.next = ((self.ev_slot.val() | self.ev_onoff.val()) | self.ev_req.val());
        self.s1_on.d.next = self.s_onoff_on.val();

        // A new slot (set after the clears above, so it is never lost). The sign bit of
        // `z` is the decision; after a slot the step is den - num instead of den.
        self.z_val.next = (self.z.q.val() ^ self.z_init.val());
        self.fire.next = !(self.z_val.val() & self.z_sign.val()).any();
        if self.fire.val() {
            self.z_sum.next = (self.z_val.val() + self.z_init.val());
        } else {
            self.z_sum.next = (self.z_val.val() + self.z_den.val());
        }
        if self.tick.val() {
            // Sign-extend from the accumulator's own width: the bits above are copies of
            // its sign, so synthesis keeps one adder of that width.
            if (self.z_sum.val() & self.z_sign.val()).any() {
                self.z.d.next = ((self.z_sum.val() | !self.z_low.val()) ^ self.z_init.val());
            } else {
                self.z.d.next = ((self.z_sum.val() & self.z_low.val()) ^ self.z_init.val());
            }
            if self.fire.val() {
                self.slot_pending.d.next = true;
                self.cnt_slots.d.next = (self.cnt_slots.q.val() + 1);
            }
        }

        // ---- S1: the RAM's read latch; which events ahead are the same QP. ---------
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_kind.d.next = self.s1_kind.q.val();
        self.s2_qp.d.next = self.s1_qp.q.val();
        self.s2_on.d.next = self.s1_on.q.val();
        self.s2_f1.d.next = (self.s2_valid.q.val() & (self.s2_qp.q.val() == self.s1_qp.q.val()));
        self.s2_f2.d.next = (self.s3_valid.q.val() & (self.s3_qp.q.val() == self.s1_qp.q.val()));
        self.s2_f3.d.next = (self.w1_valid.q.val() & (self.w1_qp.q.val() == self.s1_qp.q.val()));
        self.s2_f4.d.next = (self.w2_valid.q.val() & (self.w2_qp.q.val() == self.s1_qp.q.val()));

        // ---- S2: the RAM's output register, or a newer word not yet written. -------
        // The event 2 ahead is in w1 now, 3 ahead in w2, 4 ahead in w3; the RAM read
        // (two cycles ago) saw every write before that.
        self.s3_valid.d.next = self.s2_valid.q.val();
        self.s3_kind.d.next = self.s2_kind.q.val();
        self.s3_qp.d.next = self.s2_qp.q.val();
        self.s3_on.d.next = self.s2_on.q.val();
        self.s3_f1.d.next = self.s2_f1.q.val();
        self.ram_all.next = self.ram.read_data.val().get_bits::<16>(0).all();
        if self.s2_f2.q.val() {
            self.prep.next = self.w1_word.q.val();
            self.prep_all.next = self.w1_all.q.val();
        } else if self.s2_f3.q.val() {
            self.prep.next = self.w2_word.q.val();
            self.prep_all.next = self.w2_all.q.val();
        } else if self.s2_f4.q.val() {
            self.prep.next = self.w3_word.q.val();
            self.prep_all.next = self.w3_all.q.val();
        } else {
            self.prep.next = self.ram.read_data.val();
            self.prep_all.next = self.ram_all.val();
        }
        self.s3_prep.d.next = self.prep.val();

        // ---- S3: update the QP word (the previous event's result if the same QP). ---
        if self.s3_f1.q.val() {
            self.word.next = self.w1_word.q.val();
        } else {
            self.word.next = self.s3_prep.q.val();
        }
        // Word: pending[15:0], off[16], in_ring[17].
        self.pending.next = self.word.val().get_bits::<16>(0);
        self.off.next = self.word.val().get_bit(16);
        self.in_ring.next = self.word.val().get_bit(17);
        self.gt0.next = self.pending.val().any();
        self.gt1.next = self.pending.val().get_bits::<15>(1).any();
        // The count moves by one step decided a stage earlier (S2): -1 for a grant, +1 for
        // a request unless saturated (65,535 requests held for one QP is far beyond any
        // window), so only the forward mux comes before the adder.
        self.up.next = self.s3_up.q.val();
        self.down.next = self.s3_down.q.val();
        if self.up.val() {
            self.step.next = 1.into();
        } else if self.down.val() {
            self.step.next = 0xffff.into();
        } else {
            self.step.next = 0.into();
        }
        self.pending_n.next = (self.pending.val() + self.step.val());
        self.all_n.next = ((((self.pending.val() == 0xffff) & !self.up.val()) & !self.down.val())
            | (((self.pending.val() == 0xfffe) & self.up.val())
                | (!self.gt0.val() & self.down.val())));
        self.w1_all.d.next = self.all_n.val();
        self.grant.next = false;
        self.push.next = false;
        self.off_n.next = self.off.val();
        self.in_ring_n.next = self.in_ring.val();
        if (self.s3_kind.q.val() == 0) {
            // The head of the ring: grant one credit, back to the tail if more wait.
            if self.off.val() {
                self.in_ring_n.next = false;
            } else {
                self.grant.next = true;
                if self.gt1.val() {
                    self.push.next = true;
                } else {
                    self.in_ring_n.next = false;
                }
            }
        } else if (self.s3_kind.q.val() == 1) {
            self.off_n.next = !self.s3_on.q.val();
            if ((self.s3_on.q.val() & !self.in_ring.val()) & self.gt0.val()) {
                self.push.next = true;
                self.in_ring_n.next = true;
            }
        } else if (!self.in_ring.val() & !self.off.val()) {
            self.push.next = true;
            self.in_ring_n.next = true;
        }
        self.word_n.next = ((bit_cast::<WORD_BITS, 1>(self.in_ring_n.val().into()) << 17)
            | (bit_cast::<WORD_BITS, 1>(self.off_n.val().into()) << 16)
            | bit_cast::<WORD_BITS, 16>(self.pending_n.val()));
        // S2's step (see S3), against this result when it is the same QP.
        if self.s2_f1.q.val() {
            self.s3_up.d.next = ((self.s2_kind.q.val() == 2) & !self.all_n.val());
            self.s3_down.d.next = ((self.s2_kind.q.val() == 0) & !self.off_n.val());
        } else {
            self.s3_up.d.next = ((self.s2_kind.q.val() == 2) & !self.prep_all.val());
            self.s3_down.d.next = ((self.s2_kind.q.val() == 0) & !self.prep.val().get_bit(16));
        }
        self.w1_valid.d.next = self.s3_valid.q.val();
        self.w1_qp.d.next = self.s3_qp.q.val();
        self.w1_word.d.next = self.word_n.val();
        self.w2_valid.d.next = self.w1_valid.q.val();
        self.w2_qp.d.next = self.w1_qp.q.val();
        self.w2_word.d.next = self.w1_word.q.val();
        self.w3_valid.d.next = self.w2_valid.q.val();
        self.w3_qp.d.next = self.w2_qp.q.val();
        self.w3_word.d.next = self.w2_word.q.val();
        self.w2_all.d.next = self.w1_all.q.val();
        self.w3_all.d.next = self.w2_all.q.val();
        // The ring's write is registered: the FIFO's occupancy counters then start at a
        // flop, not at the end of the word update.
        self.push_valid.d.next = (self.s3_valid.q.val() & self.push.val());
        self.push_qp.d.next = self.s3_qp.q.val();
        self.ring.s_valid.next = self.push_valid.q.val();
        self.ring.s_data.next = self.push_qp.q.val();
        self.out_valid.d.next = (self.s3_valid.q.val() & self.grant.val());
        self.out_qp.d.next = self.s3_qp.q.val();
        if (self.s3_valid.q.val() & self.grant.val()) {
            self.cnt_grants.d.next = (self.cnt_grants.q.val() + 1);
        }
        // Unused slots: an empty ring, or an OFF QP at the head (both can happen in one
        // cycle when slots are very close together).
        self.idle_head.next =
            ((self.s3_valid.q.val() & (self.s3_kind.q.val() == 0)) & !self.grant.val());
        // Counted a cycle later from a register, so the counter's adder starts at a flop.
        self.idle_inc.d.next = (bit_cast::<2, 1>(self.slot_lost.val().into())
            + bit_cast::<2, 1>(self.idle_head.val().into()));
        self.cnt_idle.d.next = (self.cnt_idle.q.val() + bit_cast::<32, 2>(self.idle_inc.q.val()));
        if self.ev_req.val() {
            self.cnt_requests.d.next = (self.cnt_requests.q.val() + 1);
        }
        self.unused_ring.next = ((self.ring.full.val() | self.ring.status_overflow.val())
            | self.word.val().get_bits::<14>(18).any());

        // ---- The RAM's write port: the newest result, or the reset sweep. ----------
        self.ram.write_address.next = self.w1_qp.q.val();
        self.ram.write_data.next = self.w1_word.q.val();
        self.ram.write_enable.next = self.w1_valid.q.val();
        if self.sweep.active.val() {
            self.ram.write_address.next = self.sweep.index.val();
            self.ram.write_data.next = 0.into();
            self.ram.write_enable.next = true;
        }
        if self.rst.val() {
            self.z.d.next = 0.into();
            self.bp_count.d.next = 0.into();
            self.slot_pending.d.next = false;
            self.slot_wait.d.next = 0.into();
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.s3_valid.d.next = false;
            self.w1_valid.d.next = false;
            self.w2_valid.d.next = false;
            self.w3_valid.d.next = false;
            self.push_valid.d.next = false;
            self.out_valid.d.next = false;
            self.idle_inc.d.next = 0.into();
            self.cnt_requests.d.next = 0.into();
            self.cnt_grants.d.next = 0.into();
            self.cnt_idle.d.next = 0.into();
            self.cnt_slots.d.next = 0.into();
        }

        self.s_req_ready.next = (((!self.ev_slot.val() & !self.s_onoff_valid.val())
            & !self.sweep.active.val())
            & !self.rst.val());
        self.m_grant_valid.next = self.out_valid.q.val();
        self.m_grant_qp.next = self.out_qp.q.val();
        self.status_clearing.next = self.sweep.active.val();
        self.status_requests.next = self.cnt_requests.q.val();
        self.status_grants.next = self.cnt_grants.q.val();
        self.status_idle_slots.next = self.cnt_idle.q.val();
        self.status_slots.next = self.cnt_slots.q.val();
    }
}
