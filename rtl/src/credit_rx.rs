//! `credit_rx`: the receiver side of the credit engine (the Pegasus paper; docs/blocks/credit.md).
//!
//! ```text
//!  s_req (qp)   ──┐            stage 0: read QP word      stage 1: update, write back
//!  s_onoff      ──┼─► arbiter ─► BankRam {pending, off, ─► (forwarded from the last write)
//!  grant slot ────┘  (onoff >    in_ring} per QP            ├─► ring FIFO push (round robin)
//!   ▲ pacing: one slot per batch time    slot > req)        └─► m_grant (qp)
//!   └ acc += den each cycle (1 in `slowdown` under PCIe backpressure); slot when acc >= num
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
//!   nobody to grant waits three cycles (for a request just taken) and then passes
//!   unused (`idle_slots`); slots never bank up.
//! * **PCIe backpressure**: while `s_pcie_depth > cfg_bp_threshold`, the accumulator
//!   advances one cycle in `cfg_bp_slowdown` (0 means 16), stretching the slot interval
//!   by that factor.
//! * **ON/OFF**: an OFF QP keeps its requests but leaves the ring when it reaches the head
//!   (that slot passes unused); ON puts it back if it has requests.
//! * Grants leave on `m_grant_*`, the high-priority output, with no backpressure.
//! * QP numbers are taken modulo the QP count.
//! * **Reset** sweeps every QP word to zero; requests are refused meanwhile.

use crate::credit_tx::QP_BITS;
use crate::fifo::Fifo;
use crate::ram::BankRam;
use rust_hdl::prelude::*;

const WORD_BITS: usize = 32;

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

    ram: BankRam<Bits<WORD_BITS>>,
    ring: Fifo<QP_BITS>,
    depth_m1: Constant<Bits<QP_BITS>>,
    slot_num: Constant<Bits<48>>,
    slot_den: Constant<Bits<48>>,
    clearing: DFF<Bit>,
    clear_index: DFF<Bits<QP_BITS>>,
    acc: DFF<Bits<48>>,
    bp_count: DFF<Bits<4>>,
    slot_pending: DFF<Bit>,
    slot_wait: DFF<Bits<2>>,
    slot_empty: Signal<Local, Bit>,
    slot_lost: Signal<Local, Bit>,
    idle_head: Signal<Local, Bit>,
    ev_qp: Signal<Local, Bits<QP_BITS>>,
    s1_valid: DFF<Bit>,
    s1_kind: DFF<Bits<2>>,
    s1_qp: DFF<Bits<QP_BITS>>,
    s1_on: DFF<Bit>,
    w_valid: DFF<Bit>,
    w_qp: DFF<Bits<QP_BITS>>,
    w_word: DFF<Bits<WORD_BITS>>,
    out_valid: DFF<Bit>,
    out_qp: DFF<Bits<QP_BITS>>,
    cnt_requests: DFF<Bits<32>>,
    cnt_grants: DFF<Bits<32>>,
    cnt_idle: DFF<Bits<32>>,
    cnt_slots: DFF<Bits<32>>,
    bp: Signal<Local, Bit>,
    tick: Signal<Local, Bit>,
    acc_next: Signal<Local, Bits<48>>,
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
    /// The ring cannot overflow (one entry per QP at most); spare word bits; the RAM's
    /// second read port.
    unused_ring: Signal<Local, Bit>,
}

impl CreditRx {
    /// `qps`: QP contexts (power of two); one grant slot every `slot_num / slot_den`
    /// cycles.
    pub fn new(qps: usize, slot_num: u64, slot_den: u64) -> Self {
        assert!(slot_den > 0 && slot_num >= slot_den && slot_num < (1 << 47));
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
            ram: BankRam::new(qps),
            ring: Fifo::new(qps),
            depth_m1: Constant::new(((qps - 1) as LiteralType).into()),
            slot_num: Constant::new(slot_num.into()),
            slot_den: Constant::new(slot_den.into()),
            clearing: Default::default(),
            clear_index: Default::default(),
            acc: Default::default(),
            bp_count: Default::default(),
            slot_pending: Default::default(),
            slot_wait: Default::default(),
            slot_empty: Default::default(),
            slot_lost: Default::default(),
            idle_head: Default::default(),
            ev_qp: Default::default(),
            s1_valid: Default::default(),
            s1_kind: Default::default(),
            s1_qp: Default::default(),
            s1_on: Default::default(),
            w_valid: Default::default(),
            w_qp: Default::default(),
            w_word: Default::default(),
            out_valid: Default::default(),
            out_qp: Default::default(),
            cnt_requests: Default::default(),
            cnt_grants: Default::default(),
            cnt_idle: Default::default(),
            cnt_slots: Default::default(),
            bp: Default::default(),
            tick: Default::default(),
            acc_next: Default::default(),
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
            clearing,
            clear_index,
            acc,
            bp_count,
            slot_pending,
            slot_wait,
            s1_valid,
            s1_kind,
            s1_qp,
            s1_on,
            w_valid,
            w_qp,
            w_word,
            out_valid,
            out_qp,
            cnt_requests,
            cnt_grants,
            cnt_idle,
            cnt_slots
        );
        self.ram.read_clock.next = self.clk.val();
        self.ram.write_clock.next = self.clk.val();
        self.ring.clk.next = self.clk.val();
        self.ring.rst.next = self.rst.val();

        // ---- Pacing: a rational accumulator, stretched under PCIe backpressure. ----
        self.bp.next = (self.s_pcie_depth.val() > self.cfg_bp_threshold.val());
        // No slots during the reset sweep.
        self.tick.next = ((!self.bp.val() | (self.bp_count.q.val() == 0)) & !self.clearing.q.val());
        if self.bp.val() {
            if (self.bp_count.q.val() == 0) {
                self.bp_count.d.next = (self.cfg_bp_slowdown.val() - 1);
            } else {
                self.bp_count.d.next = (self.bp_count.q.val() - 1);
            }
        } else {
            self.bp_count.d.next = 0.into();
        }
        // ---- Stage 0: one event per cycle: ON/OFF, then a slot, then a request. -----
        // ON/OFF has no ready: it always goes first (a due slot waits a cycle; the
        // accumulator keeps running, so the pacing does not drift).
        self.ev_onoff.next =
            ((self.s_onoff_valid.val() & !self.clearing.q.val()) & !self.rst.val());
        self.ev_slot.next = (((self.slot_pending.q.val() & self.ring.m_valid.val())
            & !self.s_onoff_valid.val())
            & !self.clearing.q.val());
        self.ev_req.next = ((((self.s_req_valid.val() & !self.ev_slot.val())
            & !self.s_onoff_valid.val())
            & !self.clearing.q.val())
            & !self.rst.val());
        // A due slot with nobody in the ring waits three cycles (a request taken just
        // before it reaches the ring that late), then passes unused; slots never bank up.
        self.slot_empty.next = (((self.slot_pending.q.val() & !self.ring.m_valid.val())
            & !self.s_onoff_valid.val())
            & !self.clearing.q.val());
        if self.slot_empty.val() {
            self.slot_wait.d.next = (self.slot_wait.q.val() + 1);
        } else {
            self.slot_wait.d.next = 0.into();
        }
        self.slot_lost.next = (self.slot_empty.val() & (self.slot_wait.q.val() == 3));
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
            self.s1_kind.d.next = 1.into();
        } else if self.ev_slot.val() {
            self.ev_qp.next = self.ring.m_data.val();
            self.s1_kind.d.next = 0.into();
        } else {
            self.ev_qp.next = (self.s_req_qp.val() & self.depth_m1.val());
            self.s1_kind.d.next = 2.into();
        }
        self.ram.read_address.next = self.ev_qp.val();
        self.s1_qp.d.next = self.ev_qp.val();
        self.s1_valid.d.next = ((self.ev_slot.val() | self.ev_onoff.val()) | self.ev_req.val());
        self.s1_on.d.next = self.s_onoff_on.val();

        // A new slot (set after the clears above, so it is never lost).
        self.acc_next.next = (self.acc.q.val() + self.slot_den.val());
        if self.tick.val() {
            if (self.acc_next.val() >= self.slot_num.val()) {
                self.acc.d.next = (self.acc_next.val() - self.slot_num.val());
                self.slot_pending.d.next = true;
                self.cnt_slots.d.next = (self.cnt_slots.q.val() + 1);
            } else {
                self.acc.d.next = self.acc_next.val();
            }
        }

        // ---- Stage 1: update the QP word (forwarded if the last event wrote it). ----
        if (self.w_valid.q.val() & (self.w_qp.q.val() == self.s1_qp.q.val())) {
            self.word.next = self.w_word.q.val();
        } else {
            self.word.next = self.ram.read_data.val();
        }
        // Word: pending[15:0], off[16], in_ring[17].
        self.pending.next = self.word.val().get_bits::<16>(0);
        self.off.next = self.word.val().get_bit(16);
        self.in_ring.next = self.word.val().get_bit(17);
        self.grant.next = false;
        self.push.next = false;
        self.pending_n.next = self.pending.val();
        self.off_n.next = self.off.val();
        self.in_ring_n.next = self.in_ring.val();
        if (self.s1_kind.q.val() == 0) {
            // The head of the ring: grant one credit, back to the tail if more wait.
            if self.off.val() {
                self.in_ring_n.next = false;
            } else {
                self.grant.next = true;
                self.pending_n.next = (self.pending.val() - 1);
                if (self.pending.val() > 1) {
                    self.push.next = true;
                } else {
                    self.in_ring_n.next = false;
                }
            }
        } else if (self.s1_kind.q.val() == 1) {
            self.off_n.next = !self.s1_on.q.val();
            if ((self.s1_on.q.val() & !self.in_ring.val()) & self.pending.val().any()) {
                self.push.next = true;
                self.in_ring_n.next = true;
            }
        } else {
            // 65,535 requests held for one QP is far beyond any window; more saturate.
            if !self.pending.val().all() {
                self.pending_n.next = (self.pending.val() + 1);
            }
            if (!self.in_ring.val() & !self.off.val()) {
                self.push.next = true;
                self.in_ring_n.next = true;
            }
        }
        self.word_n.next = ((bit_cast::<WORD_BITS, 1>(self.in_ring_n.val().into()) << 17)
            | (bit_cast::<WORD_BITS, 1>(self.off_n.val().into()) << 16)
            | bit_cast::<WORD_BITS, 16>(self.pending_n.val()));
        self.ram.write_address.next = self.s1_qp.q.val();
        self.ram.write_data.next = self.word_n.val();
        self.ram.write_enable.next = self.s1_valid.q.val();
        self.w_valid.d.next = self.s1_valid.q.val();
        self.w_qp.d.next = self.s1_qp.q.val();
        self.w_word.d.next = self.word_n.val();
        self.ring.s_valid.next = (self.s1_valid.q.val() & self.push.val());
        self.ring.s_data.next = self.s1_qp.q.val();
        self.out_valid.d.next = (self.s1_valid.q.val() & self.grant.val());
        self.out_qp.d.next = self.s1_qp.q.val();
        if (self.s1_valid.q.val() & self.grant.val()) {
            self.cnt_grants.d.next = (self.cnt_grants.q.val() + 1);
        }
        // Unused slots: an empty ring, or an OFF QP at the head (both can happen in one
        // cycle when slots are very close together).
        self.idle_head.next =
            ((self.s1_valid.q.val() & (self.s1_kind.q.val() == 0)) & !self.grant.val());
        self.cnt_idle.d.next = ((self.cnt_idle.q.val()
            + bit_cast::<32, 1>(self.slot_lost.val().into()))
            + bit_cast::<32, 1>(self.idle_head.val().into()));
        if self.ev_req.val() {
            self.cnt_requests.d.next = (self.cnt_requests.q.val() + 1);
        }
        self.unused_ring.next = (((self.ring.full.val() | self.ring.status_overflow.val())
            | self.ram.aux_read_data.val().any())
            | self.word.val().get_bits::<14>(18).any());

        // ---- Reset: sweep every QP word to zero. -----------------------------------
        if self.clearing.q.val() {
            self.ram.write_address.next = self.clear_index.q.val();
            self.ram.write_data.next = 0.into();
            self.ram.write_enable.next = true;
            self.clear_index.d.next = (self.clear_index.q.val() + 1);
            if (self.clear_index.q.val() == self.depth_m1.val()) {
                self.clearing.d.next = false;
            }
        }
        if self.rst.val() {
            self.clearing.d.next = true;
            self.clear_index.d.next = 0.into();
            self.acc.d.next = 0.into();
            self.bp_count.d.next = 0.into();
            self.slot_pending.d.next = false;
            self.slot_wait.d.next = 0.into();
            self.s1_valid.d.next = false;
            self.w_valid.d.next = false;
            self.out_valid.d.next = false;
            self.cnt_requests.d.next = 0.into();
            self.cnt_grants.d.next = 0.into();
            self.cnt_idle.d.next = 0.into();
            self.cnt_slots.d.next = 0.into();
        }

        self.s_req_ready.next = (((!self.ev_slot.val() & !self.s_onoff_valid.val())
            & !self.clearing.q.val())
            & !self.rst.val());
        self.m_grant_valid.next = self.out_valid.q.val();
        self.m_grant_qp.next = self.out_qp.q.val();
        self.status_clearing.next = self.clearing.q.val();
        self.status_requests.next = self.cnt_requests.q.val();
        self.status_grants.next = self.cnt_grants.q.val();
        self.status_idle_slots.next = self.cnt_idle.q.val();
        self.status_slots.next = self.cnt_slots.q.val();
    }
}
