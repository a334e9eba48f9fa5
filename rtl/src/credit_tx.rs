//! `credit_tx`: the sender side of the credit engine, one state word per QP in block RAM
//! (the Pegasus paper; docs/blocks/credit.md).
//!
//! ```text
//!  s_grant (qp) ──┐ S0          S1      S2                 S3                P1       P2
//!  s_send (qp, ──┴─► arbiter ─► PipeRam ─► latch ─► out reg ─► prep ─► update ─► u ─► OFF, ─► out regs ─► m_send (bytes)
//!   remaining)      (grant >    (per-QP word)       (forward    (forward │ ▲       debt      counters  ├► m_req (one per batch)
//!                    send)                           w1..w3)     w1)     │ └ w1 (same QP back to back)   └► m_onoff
//!                                                                        └► w1 ─► RAM write; w2, w3 (forwarding)
//! ```
//!
//! Per QP: `credit` (signed bytes), `free` (bytes of the first BDP not yet sent),
//! `rem` (remaining data, as last reported), `req_acc` (bytes sent since the last credit
//! request), `active`, `waiting` (it asked to send and was refused). Whether the QP is
//! OFF follows from credit, rem and active, so it is not stored.
//!
//! * **Send request** (`s_send_*`: a QP with `remaining` bytes to send asks how much it
//!   may send now; at most one batch per decision):
//!   * while `free > 0`: `min(remaining, batch, free)` without credit;
//!   * rule 0, **Eq.1**: `min(remaining, batch, credit)` if `credit > 0`;
//!   * rule 1, **Eq.2**: `min(remaining, batch)` whenever `credit >= 0`, so credit falls
//!     at most one batch below zero and later grants repay it.
//!
//!   Every byte sent counts towards the next credit request: one `m_req` per batch sent
//!   (including the first BDP, so the loop holds BDP/batch requests per QP).
//!   A QP whose data ends while it holds credit gives the surplus up (`wasted`).
//! * **Grant** (`s_grant_*`): `credit += batch`; for a QP with no data the grant first
//!   repays any debt and the rest is wasted.
//! * **ON/OFF**: a QP holding more credit than its remaining data sends OFF (`m_onoff`
//!   with `on = 0`), and ON once the surplus is used or more data arrives.
//! * **Counters**: requests sent, grants received, wasted bytes, starvation cycles
//!   (cycles in which some QP is active and every active QP is *waiting*: it asked to
//!   send and was refused for want of credit; counted incrementally per QP).
//! * QP numbers are taken modulo the QP count.
//! * **Reset** sweeps every QP word to its initial state (one QP per cycle, `free` =
//!   `cfg_bdp`); requests and grants are refused or dropped (counted) meanwhile.
//!
//! Grants take priority; `s_send_ready` is low in a cycle with a grant. Latency: the
//! decision for a send request (and its credit request and ON/OFF) is on the outputs
//! [`CREDIT_TX_LATENCY`] = 6 cycles after it is accepted (2 before the pipeline); one
//! event per cycle, the same QP back to back included.
//!
//! Timing: the word is read through `PipeRam`'s two registers (S1, S2) before any logic.
//! S2 replaces it by the result of any of the three events ahead that the RAM does not
//! hold yet (`w1`..`w3`); S3, the only loop, takes the previous event's result (`w1`)
//! when it is the same QP. `min(remaining, batch)` and what it leaves depend on the
//! request alone and come from S1/S2. In S3 free and credit are compared with it and
//! every difference, the saturating grant sum and the request accumulator plus each
//! possible amount are computed side by side from the word; the amount chosen selects
//! among them through AND-OR masks (a mux would let synthesis fold the adders back
//! behind the choice). S3 is still 7.5-10 levels, over the 5 of docs/timing.md: closing
//! it needs the next event's compares made a cycle ahead. What does not loop back (OFF
//! before and after, the debt flag, the outputs and the counters) is done in P1 and P2:
//! OFF is not stored but recomputed from credit, rem and active, which the word holds.
//! A bad input (a QP number beyond the QP count) aliases modulo the count.

use crate::ram::PipeRam;
use rust_hdl::prelude::*;

/// QP index width on every port (the RAM uses the low bits).
pub const QP_BITS: usize = 16;
/// Cycles from an accepted send request to its decision.
pub const CREDIT_TX_LATENCY: u32 = 6;
const STATE_BITS: usize = 160;

#[derive(LogicBlock)]
pub struct CreditTx {
    pub clk: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub s_send_valid: Signal<In, Bit>,
    pub s_send_ready: Signal<Out, Bit>,
    pub s_send_qp: Signal<In, Bits<QP_BITS>>,
    pub s_send_remaining: Signal<In, Bits<32>>,
    pub m_send_valid: Signal<Out, Bit>,
    pub m_send_qp: Signal<Out, Bits<QP_BITS>>,
    pub m_send_bytes: Signal<Out, Bits<32>>,
    /// The QP's credit after this decision (signed), for traces and checks.
    pub m_send_credit: Signal<Out, Bits<32>>,
    /// Every change of a QP's credit (send or grant): the QP and its new credit, for
    /// monitors and waveforms.
    pub m_credit_valid: Signal<Out, Bit>,
    pub m_credit_qp: Signal<Out, Bits<QP_BITS>>,
    pub m_credit_value: Signal<Out, Bits<32>>,
    pub m_credit_waiting: Signal<Out, Bit>,
    pub s_grant_valid: Signal<In, Bit>,
    pub s_grant_qp: Signal<In, Bits<QP_BITS>>,
    pub m_req_valid: Signal<Out, Bit>,
    pub m_req_qp: Signal<Out, Bits<QP_BITS>>,
    pub m_onoff_valid: Signal<Out, Bit>,
    pub m_onoff_qp: Signal<Out, Bits<QP_BITS>>,
    pub m_onoff_on: Signal<Out, Bit>,
    /// 0 = Eq.1, 1 = Eq.2 (CSR `CREDIT.RULE`).
    pub cfg_rule: Signal<In, Bit>,
    pub cfg_batch: Signal<In, Bits<32>>,
    pub cfg_bdp: Signal<In, Bits<32>>,
    pub status_clearing: Signal<Out, Bit>,
    pub status_requests: Signal<Out, Bits<32>>,
    pub status_grants: Signal<Out, Bits<32>>,
    pub status_wasted_bytes: Signal<Out, Bits<32>>,
    pub status_starved_cycles: Signal<Out, Bits<32>>,
    /// Some QP is active and no active QP may send (this cycle).
    pub status_starved: Signal<Out, Bit>,
    pub status_grants_dropped: Signal<Out, Bits<32>>,
    /// Sticky: some QP's credit went below -batch (never expected; for formal and tests).
    pub status_debt_error: Signal<Out, Bit>,

    ram: PipeRam<Bits<STATE_BITS>>,
    depth_m1: Constant<Bits<QP_BITS>>,
    ones: Constant<Bits<32>>,
    clearing: DFF<Bit>,
    clear_index: DFF<Bits<QP_BITS>>,
    s1_valid: DFF<Bit>,
    s1_grant: DFF<Bit>,
    s1_qp: DFF<Bits<QP_BITS>>,
    s1_remaining: DFF<Bits<32>>,
    s2_valid: DFF<Bit>,
    s2_grant: DFF<Bit>,
    s2_qp: DFF<Bits<QP_BITS>>,
    s2_remaining: DFF<Bits<32>>,
    /// S2's event is the same QP as the event 1, 2, 3, 4 cycles ahead of it.
    s2_f1: DFF<Bit>,
    s2_f2: DFF<Bit>,
    s2_f3: DFF<Bit>,
    s2_f4: DFF<Bit>,
    s3_valid: DFF<Bit>,
    s3_grant: DFF<Bit>,
    s3_qp: DFF<Bits<QP_BITS>>,
    s3_remaining: DFF<Bits<32>>,
    s3_f1: DFF<Bit>,
    /// S3's word unless the event just ahead was the same QP.
    s3_prep: DFF<Bits<STATE_BITS>>,
    /// Results of the last three events, newest first; `w1` is written to the RAM.
    w1_valid: DFF<Bit>,
    w1_qp: DFF<Bits<QP_BITS>>,
    w1_state: DFF<Bits<STATE_BITS>>,
    w2_valid: DFF<Bit>,
    w2_qp: DFF<Bits<QP_BITS>>,
    w2_state: DFF<Bits<STATE_BITS>>,
    w3_valid: DFF<Bit>,
    w3_qp: DFF<Bits<QP_BITS>>,
    w3_state: DFF<Bits<STATE_BITS>>,
    out_send_valid: DFF<Bit>,
    out_send_qp: DFF<Bits<QP_BITS>>,
    out_send_bytes: DFF<Bits<32>>,
    out_send_credit: DFF<Bits<32>>,
    out_req_valid: DFF<Bit>,
    out_credit_valid: DFF<Bit>,
    out_waiting: DFF<Bit>,
    out_onoff_valid: DFF<Bit>,
    out_onoff_on: DFF<Bit>,
    n_active: DFF<Bits<17>>,
    n_waiting: DFF<Bits<17>>,
    cnt_requests: DFF<Bits<32>>,
    cnt_grants: DFF<Bits<32>>,
    cnt_wasted: DFF<Bits<32>>,
    cnt_starved: DFF<Bits<32>>,
    cnt_grants_dropped: DFF<Bits<32>>,
    debt_error: DFF<Bit>,
    s3_rem_nz: DFF<Bit>,
    s2_lt: DFF<Bit>,
    s2_gt: DFF<Bit>,
    s2_rmb: DFF<Bits<32>>,
    s3_cap1: DFF<Bits<32>>,
    s3_rem_cap: DFF<Bits<32>>,
    s3_act_cap: DFF<Bit>,
    s3_cap_zero: DFF<Bit>,
    u_valid: DFF<Bit>,
    u_grant: DFF<Bit>,
    u_qp: DFF<Bits<QP_BITS>>,
    u_amt: DFF<Bits<32>>,
    u_credit_n: DFF<Bits<32>>,
    u_rem_n: DFF<Bits<32>>,
    u_active_n: DFF<Bit>,
    u_waiting_n: DFF<Bit>,
    u_credit: DFF<Bits<32>>,
    u_rem: DFF<Bits<32>>,
    u_active: DFF<Bit>,
    u_waiting: DFF<Bit>,
    u_wasted: DFF<Bits<32>>,
    u_req: DFF<Bit>,
    p_valid: DFF<Bit>,
    p_grant: DFF<Bit>,
    p_qp: DFF<Bits<QP_BITS>>,
    p_amt: DFF<Bits<32>>,
    p_credit_n: DFF<Bits<32>>,
    p_active_n: DFF<Bit>,
    p_waiting_n: DFF<Bit>,
    p_active: DFF<Bit>,
    p_waiting: DFF<Bit>,
    p_wasted: DFF<Bits<32>>,
    p_req: DFF<Bit>,
    p_gt_new: DFF<Bit>,
    p_pos_new: DFF<Bit>,
    p_gt_old: DFF<Bit>,
    p_pos_old: DFF<Bit>,
    p_debt: DFF<Bit>,
    ev_grant: Signal<Local, Bit>,
    ev_send: Signal<Local, Bit>,
    ev_qp: Signal<Local, Bits<QP_BITS>>,
    st: Signal<Local, Bits<STATE_BITS>>,
    prep: Signal<Local, Bits<STATE_BITS>>,
    credit: Signal<Local, Bits<32>>,
    free: Signal<Local, Bits<32>>,
    req_acc: Signal<Local, Bits<32>>,
    active: Signal<Local, Bit>,
    waiting: Signal<Local, Bit>,
    off: Signal<Local, Bit>,
    credit_pos: Signal<Local, Bit>,
    credit_nonneg: Signal<Local, Bit>,
    cap1: Signal<Local, Bits<32>>,
    amt: Signal<Local, Bits<32>>,
    free_n: Signal<Local, Bits<32>>,
    credit_a: Signal<Local, Bits<32>>,
    rem_n: Signal<Local, Bits<32>>,
    active_n: Signal<Local, Bit>,
    credit_n: Signal<Local, Bits<32>>,
    wasted_n: Signal<Local, Bits<32>>,
    acc_sum: Signal<Local, Bits<32>>,
    req_n: Signal<Local, Bit>,
    req_acc_n: Signal<Local, Bits<32>>,
    waiting_n: Signal<Local, Bit>,
    off_n: Signal<Local, Bit>,
    new_state: Signal<Local, Bits<STATE_BITS>>,
    init_state: Signal<Local, Bits<STATE_BITS>>,
    neg_batch: Signal<Local, Bits<32>>,
    debt_step: Signal<Local, Bit>,
    credit_ge_floor: Signal<Local, Bit>,
    /// The property Yosys proves (see the update); read by nothing else.
    floor_ok: Signal<Local, Bit>,
    granted: Signal<Local, Bits<32>>,
    granted_raw: Signal<Local, Bits<32>>,
    /// Spare word bits and the RAM's second read port (Verilator's unused idiom).
    rem_old: Signal<Local, Bits<32>>,
    free_nz: Signal<Local, Bit>,
    free_lt_cap: Signal<Local, Bit>,
    credit_lt_cap: Signal<Local, Bit>,
    k_free: Signal<Local, Bit>,
    k_cap: Signal<Local, Bit>,
    k_credit: Signal<Local, Bit>,
    amt_zero: Signal<Local, Bit>,
    free_m_cap: Signal<Local, Bits<32>>,
    credit_m_cap: Signal<Local, Bits<32>>,
    rem_m_free: Signal<Local, Bits<32>>,
    rem_m_credit: Signal<Local, Bits<32>>,
    acc_free: Signal<Local, Bits<32>>,
    acc_cap: Signal<Local, Bits<32>>,
    acc_credit: Signal<Local, Bits<32>>,
    /// `-cfg_batch`, registered (quasi-static configuration; keeps the negation out of
    /// P1's compare).
    neg_batch_p: DFF<Bits<32>>,
    m_free: Signal<Local, Bits<32>>,
    m_cap: Signal<Local, Bits<32>>,
    m_credit: Signal<Local, Bits<32>>,
    m_none: Signal<Local, Bits<32>>,
    m_capf: Signal<Local, Bits<32>>,
    m_keepf: Signal<Local, Bits<32>>,
    m_capc: Signal<Local, Bits<32>>,
    m_keepc: Signal<Local, Bits<32>>,
    cap_ok: Signal<Local, Bit>,
    unused_bits: Signal<Local, Bit>,
}

impl CreditTx {
    /// `qps`: QP contexts (a power of two, 2..=65536).
    pub fn new(qps: usize) -> Self {
        Self {
            clk: Default::default(),
            rst: Default::default(),
            s_send_valid: Default::default(),
            s_send_ready: Default::default(),
            s_send_qp: Default::default(),
            s_send_remaining: Default::default(),
            m_send_valid: Default::default(),
            m_send_qp: Default::default(),
            m_send_bytes: Default::default(),
            m_send_credit: Default::default(),
            m_credit_valid: Default::default(),
            m_credit_qp: Default::default(),
            m_credit_value: Default::default(),
            m_credit_waiting: Default::default(),
            s_grant_valid: Default::default(),
            s_grant_qp: Default::default(),
            m_req_valid: Default::default(),
            m_req_qp: Default::default(),
            m_onoff_valid: Default::default(),
            m_onoff_qp: Default::default(),
            m_onoff_on: Default::default(),
            cfg_rule: Default::default(),
            cfg_batch: Default::default(),
            cfg_bdp: Default::default(),
            status_clearing: Default::default(),
            status_requests: Default::default(),
            status_grants: Default::default(),
            status_wasted_bytes: Default::default(),
            status_starved_cycles: Default::default(),
            status_starved: Default::default(),
            status_grants_dropped: Default::default(),
            status_debt_error: Default::default(),
            ram: PipeRam::new(qps),
            depth_m1: Constant::new(((qps - 1) as LiteralType).into()),
            ones: Constant::new(0xffff_ffff_u64.into()),
            clearing: Default::default(),
            clear_index: Default::default(),
            s1_valid: Default::default(),
            s1_grant: Default::default(),
            s1_qp: Default::default(),
            s1_remaining: Default::default(),
            s2_valid: Default::default(),
            s2_grant: Default::default(),
            s2_qp: Default::default(),
            s2_remaining: Default::default(),
            s2_f1: Default::default(),
            s2_f2: Default::default(),
            s2_f3: Default::default(),
            s2_f4: Default::default(),
            s3_valid: Default::default(),
            s3_grant: Default::default(),
            s3_qp: Default::default(),
            s3_remaining: Default::default(),
            s3_f1: Default::default(),
            s3_prep: Default::default(),
            w1_valid: Default::default(),
            w1_qp: Default::default(),
            w1_state: Default::default(),
            w2_valid: Default::default(),
            w2_qp: Default::default(),
            w2_state: Default::default(),
            w3_valid: Default::default(),
            w3_qp: Default::default(),
            w3_state: Default::default(),
            out_send_valid: Default::default(),
            out_send_qp: Default::default(),
            out_send_bytes: Default::default(),
            out_send_credit: Default::default(),
            out_req_valid: Default::default(),
            out_credit_valid: Default::default(),
            out_waiting: Default::default(),
            out_onoff_valid: Default::default(),
            out_onoff_on: Default::default(),
            n_active: Default::default(),
            n_waiting: Default::default(),
            cnt_requests: Default::default(),
            cnt_grants: Default::default(),
            cnt_wasted: Default::default(),
            cnt_starved: Default::default(),
            cnt_grants_dropped: Default::default(),
            debt_error: Default::default(),
            ev_grant: Default::default(),
            ev_send: Default::default(),
            ev_qp: Default::default(),
            st: Default::default(),
            prep: Default::default(),
            credit: Default::default(),
            free: Default::default(),
            req_acc: Default::default(),
            active: Default::default(),
            waiting: Default::default(),
            off: Default::default(),
            credit_pos: Default::default(),
            credit_nonneg: Default::default(),
            cap1: Default::default(),
            amt: Default::default(),
            free_n: Default::default(),
            credit_a: Default::default(),
            rem_n: Default::default(),
            active_n: Default::default(),
            credit_n: Default::default(),
            wasted_n: Default::default(),
            acc_sum: Default::default(),
            req_n: Default::default(),
            req_acc_n: Default::default(),
            waiting_n: Default::default(),
            off_n: Default::default(),
            new_state: Default::default(),
            init_state: Default::default(),
            neg_batch: Default::default(),
            debt_step: Default::default(),
            credit_ge_floor: Default::default(),
            floor_ok: Default::default(),
            granted: Default::default(),
            granted_raw: Default::default(),
            unused_bits: Default::default(),
            s2_lt: Default::default(),
            s2_gt: Default::default(),
            s2_rmb: Default::default(),
            s3_cap1: Default::default(),
            s3_rem_cap: Default::default(),
            s3_act_cap: Default::default(),
            s3_cap_zero: Default::default(),
            m_free: Default::default(),
            m_cap: Default::default(),
            m_credit: Default::default(),
            m_none: Default::default(),
            m_capf: Default::default(),
            m_keepf: Default::default(),
            m_capc: Default::default(),
            m_keepc: Default::default(),
            cap_ok: Default::default(),
            s3_rem_nz: Default::default(),
            u_valid: Default::default(),
            u_grant: Default::default(),
            u_qp: Default::default(),
            u_amt: Default::default(),
            u_credit_n: Default::default(),
            u_rem_n: Default::default(),
            u_active_n: Default::default(),
            u_waiting_n: Default::default(),
            u_credit: Default::default(),
            u_rem: Default::default(),
            u_active: Default::default(),
            u_waiting: Default::default(),
            u_wasted: Default::default(),
            u_req: Default::default(),
            p_valid: Default::default(),
            p_grant: Default::default(),
            p_qp: Default::default(),
            p_amt: Default::default(),
            p_credit_n: Default::default(),
            p_active_n: Default::default(),
            p_waiting_n: Default::default(),
            p_active: Default::default(),
            p_waiting: Default::default(),
            p_wasted: Default::default(),
            p_req: Default::default(),
            p_gt_new: Default::default(),
            p_pos_new: Default::default(),
            p_gt_old: Default::default(),
            p_pos_old: Default::default(),
            p_debt: Default::default(),
            rem_old: Default::default(),
            free_nz: Default::default(),
            free_lt_cap: Default::default(),
            credit_lt_cap: Default::default(),
            k_free: Default::default(),
            k_cap: Default::default(),
            k_credit: Default::default(),
            amt_zero: Default::default(),
            free_m_cap: Default::default(),
            credit_m_cap: Default::default(),
            rem_m_free: Default::default(),
            rem_m_credit: Default::default(),
            acc_free: Default::default(),
            acc_cap: Default::default(),
            acc_credit: Default::default(),
            neg_batch_p: Default::default(),
        }
    }
}

impl Logic for CreditTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clk,
            clearing,
            clear_index,
            neg_batch_p,
            s1_valid,
            s1_grant,
            s1_qp,
            s1_remaining,
            s2_valid,
            s2_grant,
            s2_qp,
            s2_remaining,
            s2_f1,
            s2_f2,
            s2_f3,
            s2_f4,
            s3_valid,
            s3_grant,
            s3_qp,
            s3_remaining,
            s3_f1,
            s3_prep,
            w1_valid,
            w1_qp,
            w1_state,
            w2_valid,
            w2_qp,
            w2_state,
            w3_valid,
            w3_qp,
            w3_state,
            out_send_valid,
            out_send_qp,
            out_send_bytes,
            out_send_credit,
            out_req_valid,
            out_credit_valid,
            out_waiting,
            out_onoff_valid,
            out_onoff_on,
            n_active,
            n_waiting,
            cnt_requests,
            cnt_grants,
            cnt_wasted,
            cnt_starved,
            cnt_grants_dropped,
            debt_error,
            s3_rem_nz,
            s2_lt,
            s2_gt,
            s2_rmb,
            s3_cap1,
            s3_rem_cap,
            s3_act_cap,
            s3_cap_zero,
            u_valid,
            u_grant,
            u_qp,
            u_amt,
            u_credit_n,
            u_rem_n,
            u_active_n,
            u_waiting_n,
            u_credit,
            u_rem,
            u_active,
            u_waiting,
            u_wasted,
            u_req,
            p_valid,
            p_grant,
            p_qp,
            p_amt,
            p_credit_n,
            p_active_n,
            p_waiting_n,
            p_active,
            p_waiting,
            p_wasted,
            p_req,
            p_gt_new,
            p_pos_new,
            p_gt_old,
            p_pos_old,
            p_debt
        );
        self.ram.clk.next = self.clk.val();
        self.ram.read_enable.next = true;
        self.ram.out_enable.next = true;

        // ---- Stage 0: one event per cycle, grants first; read the QP's word. --------
        self.ev_grant.next =
            ((self.s_grant_valid.val() & !self.clearing.q.val()) & !self.rst.val());
        self.ev_send.next = (((self.s_send_valid.val() & !self.s_grant_valid.val())
            & !self.clearing.q.val())
            & !self.rst.val());
        if (self.s_grant_valid.val() & (self.clearing.q.val() | self.rst.val())) {
            self.cnt_grants_dropped.d.next = (self.cnt_grants_dropped.q.val() + 1);
        }
        // QP numbers are taken modulo the QP count (the low bits index the RAM), so the
        // forwarding compare sees the same QP the RAM does.
        if self.s_grant_valid.val() {
            self.ev_qp.next = (self.s_grant_qp.val() & self.depth_m1.val());
        } else {
            self.ev_qp.next = (self.s_send_qp.val() & self.depth_m1.val());
        }
        self.ram.read_address.next = self.ev_qp.val();
        self.s1_qp.d.next = self.ev_qp.val();
        self.s1_valid.d.next = (self.ev_grant.val() | self.ev_send.val());
        self.s1_grant.d.next = self.ev_grant.val();
        self.s1_remaining.d.next = self.s_send_remaining.val();

        // ---- S1: the RAM's read latch; which events ahead are the same QP. ---------
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_grant.d.next = self.s1_grant.q.val();
        self.s2_qp.d.next = self.s1_qp.q.val();
        self.s2_remaining.d.next = self.s1_remaining.q.val();
        // min(remaining, batch) and what it leaves depend on the request alone: S1 and S2
        // work them out so S3 starts from registers.
        self.s2_lt.d.next = (self.s1_remaining.q.val() < self.cfg_batch.val());
        self.s2_gt.d.next = (self.cfg_batch.val() < self.s1_remaining.q.val());
        self.s2_rmb.d.next = (self.s1_remaining.q.val() - self.cfg_batch.val());
        self.s2_f1.d.next = (self.s2_valid.q.val() & (self.s2_qp.q.val() == self.s1_qp.q.val()));
        self.s2_f2.d.next = (self.s3_valid.q.val() & (self.s3_qp.q.val() == self.s1_qp.q.val()));
        self.s2_f3.d.next = (self.w1_valid.q.val() & (self.w1_qp.q.val() == self.s1_qp.q.val()));
        self.s2_f4.d.next = (self.w2_valid.q.val() & (self.w2_qp.q.val() == self.s1_qp.q.val()));

        // ---- S2: the RAM's output register, or a newer word not yet written. -------
        // The event 2 ahead is in w1 now, 3 ahead in w2, 4 ahead in w3; the RAM read
        // (two cycles ago) saw every write before that.
        self.s3_valid.d.next = self.s2_valid.q.val();
        self.s3_grant.d.next = self.s2_grant.q.val();
        self.s3_qp.d.next = self.s2_qp.q.val();
        self.s3_remaining.d.next = self.s2_remaining.q.val();
        self.s3_rem_nz.d.next = self.s2_remaining.q.val().any();
        if self.s2_lt.q.val() {
            self.s3_cap1.d.next = self.s2_remaining.q.val();
            self.s3_rem_cap.d.next = 0.into();
        } else {
            self.s3_cap1.d.next = self.cfg_batch.val();
            self.s3_rem_cap.d.next = self.s2_rmb.q.val();
        }
        self.s3_act_cap.d.next = self.s2_gt.q.val();
        self.s3_cap_zero.d.next = (!self.s2_remaining.q.val().any() | !self.cfg_batch.val().any());
        self.s3_f1.d.next = self.s2_f1.q.val();
        if self.s2_f2.q.val() {
            self.prep.next = self.w1_state.q.val();
        } else if self.s2_f3.q.val() {
            self.prep.next = self.w2_state.q.val();
        } else if self.s2_f4.q.val() {
            self.prep.next = self.w3_state.q.val();
        } else {
            self.prep.next = self.ram.read_data.val();
        }
        self.s3_prep.d.next = self.prep.val();

        // ---- S3: update the QP word (the previous event's result if the same QP). ---
        if self.s3_f1.q.val() {
            self.st.next = self.w1_state.q.val();
        } else {
            self.st.next = self.s3_prep.q.val();
        }
        // Word: credit[31:0] (signed), free[63:32], req_acc[95:64], rem[127:96],
        // active[128], waiting[129]. OFF is not stored: it is a function of credit, rem
        // and active, so P1 recomputes the old value beside the new one.
        self.credit.next = self.st.val().get_bits::<32>(0);
        self.free.next = self.st.val().get_bits::<32>(32);
        self.req_acc.next = self.st.val().get_bits::<32>(64);
        self.rem_old.next = self.st.val().get_bits::<32>(96);
        self.active.next = self.st.val().get_bit(128);
        self.waiting.next = self.st.val().get_bit(129);
        self.credit_pos.next = (!self.credit.val().get_bit(31) & self.credit.val().any());
        self.credit_nonneg.next = !self.credit.val().get_bit(31);
        self.free_nz.next = self.free.val().any();

        // Every compare and difference the update may need is computed side by side from
        // the registers, so the amount chosen selects among results instead of feeding
        // further adders. The selections are AND-OR masks, not muxes, so synthesis does
        // not fold the adders back into one after the choice.
        self.cap1.next = self.s3_cap1.q.val();
        self.free_lt_cap.next = (self.free.val() < self.cap1.val());
        self.credit_lt_cap.next = (self.credit.val() < self.cap1.val());

        // Send: where the amount allowed now comes from (none of the three: 0).
        // * while free > 0: min(remaining, batch, free) without credit;
        // * Eq.2: min(remaining, batch) whenever credit >= 0;
        // * Eq.1: min(remaining, batch, credit) while credit > 0.
        self.k_free.next = false;
        self.k_cap.next = false;
        self.k_credit.next = false;
        if !self.s3_grant.q.val() {
            if self.free_nz.val() {
                if self.free_lt_cap.val() {
                    self.k_free.next = true;
                } else {
                    self.k_cap.next = true;
                }
            } else if self.cfg_rule.val() {
                if self.credit_nonneg.val() {
                    self.k_cap.next = true;
                }
            } else if self.credit_pos.val() {
                if self.credit_lt_cap.val() {
                    self.k_credit.next = true;
                } else {
                    self.k_cap.next = true;
                }
            }
        }
        if self.k_free.val() {
            self.m_free.next = self.ones.val();
        } else {
            self.m_free.next = 0.into();
        }
        if self.k_cap.val() {
            self.m_cap.next = self.ones.val();
        } else {
            self.m_cap.next = 0.into();
        }
        if self.k_credit.val() {
            self.m_credit.next = self.ones.val();
        } else {
            self.m_credit.next = 0.into();
        }
        self.m_none.next = !((self.m_free.val() | self.m_cap.val()) | self.m_credit.val());
        if self.free_nz.val() {
            self.m_capf.next = self.m_cap.val();
            self.m_capc.next = 0.into();
        } else {
            self.m_capf.next = 0.into();
            self.m_capc.next = self.m_cap.val();
        }
        self.m_keepf.next = !(self.m_free.val() | self.m_capf.val());
        self.m_keepc.next = !(self.m_credit.val() | self.m_capc.val());
        self.amt.next = (((self.free.val() & self.m_free.val())
            | (self.cap1.val() & self.m_cap.val()))
            | (self.credit.val() & self.m_credit.val()));
        // The amount is never 0 when taken from free (> 0) or credit (> 0).
        self.amt_zero.next = !((self.k_free.val() | self.k_credit.val())
            | (self.k_cap.val() & !self.s3_cap_zero.q.val()));

        self.free_m_cap.next = (self.free.val() - self.cap1.val());
        self.credit_m_cap.next = (self.credit.val() - self.cap1.val());
        self.rem_m_free.next = (self.s3_remaining.q.val() - self.free.val());
        self.rem_m_credit.next = (self.s3_remaining.q.val() - self.credit.val());
        self.acc_free.next = (self.req_acc.val() + self.free.val());
        self.acc_cap.next = (self.req_acc.val() + self.cap1.val());
        self.acc_credit.next = (self.req_acc.val() + self.credit.val());

        // free - amt while free > 0, credit - amt after.
        self.free_n.next =
            ((self.free_m_cap.val() & self.m_capf.val()) | (self.free.val() & self.m_keepf.val()));
        self.credit_a.next = ((self.credit_m_cap.val() & self.m_capc.val())
            | (self.credit.val() & self.m_keepc.val()));
        // What the QP has left: reported with each send request; kept across grants.
        // A send of min(remaining, batch) leaves remaining - batch when that is > 0;
        // one of free or credit (each < remaining) always leaves some.
        if self.s3_grant.q.val() {
            self.rem_n.next = self.rem_old.val();
            self.active_n.next = self.rem_old.val().any();
        } else {
            self.rem_n.next = ((((self.rem_m_free.val() & self.m_free.val())
                | (self.s3_rem_cap.q.val() & self.m_cap.val()))
                | (self.rem_m_credit.val() & self.m_credit.val()))
                | (self.s3_remaining.q.val() & self.m_none.val()));
            self.active_n.next = (((self.k_free.val() | self.k_credit.val())
                | (self.k_cap.val() & self.s3_act_cap.q.val()))
                | ((!self.k_cap.val() & !self.k_free.val()) & self.s3_rem_nz.q.val()));
        }
        // A grant adds a batch to an active QP and is wasted on an idle one; a QP whose
        // data ends gives its surplus up.
        // An idle QP's grant first repays any debt; the rest is wasted.
        // Saturating: credit held beyond 2^31 - 1 bytes stays there (found by the formal
        // check: the plain sum wrapped negative and broke the -batch floor). A grant
        // sends nothing, so it adds to the credit read.
        self.granted_raw.next = (self.credit.val() + self.cfg_batch.val());
        if (!self.credit.val().get_bit(31) & self.granted_raw.val().get_bit(31)) {
            self.granted.next = 0x7fff_ffff.into();
        } else {
            self.granted.next = self.granted_raw.val();
        }
        if self.s3_grant.q.val() {
            if (self.active.val() | self.granted.val().get_bit(31)) {
                self.credit_n.next = self.granted.val();
                self.wasted_n.next = 0.into();
            } else {
                self.credit_n.next = 0.into();
                self.wasted_n.next = self.granted.val();
            }
        } else if (!self.active_n.val() & !self.credit_a.val().get_bit(31)) {
            self.credit_n.next = 0.into();
            self.wasted_n.next = self.credit_a.val();
        } else {
            self.credit_n.next = self.credit_a.val();
            self.wasted_n.next = 0.into();
        }
        // One credit request per batch of bytes sent.
        self.acc_sum.next = ((((self.acc_free.val() & self.m_free.val())
            | (self.acc_cap.val() & self.m_cap.val()))
            | (self.acc_credit.val() & self.m_credit.val()))
            | (self.req_acc.val() & self.m_none.val()));
        self.req_n.next = (self.acc_sum.val() >= self.cfg_batch.val());
        if self.req_n.val() {
            self.req_acc_n.next = (self.acc_sum.val() - self.cfg_batch.val());
        } else {
            self.req_acc_n.next = self.acc_sum.val();
        }
        // Waiting: it asked and was refused; a grant or a send ends the wait.
        self.waiting_n.next =
            ((self.active_n.val() & !self.s3_grant.q.val()) & self.amt_zero.val());
        self.new_state.next = ((bit_cast::<STATE_BITS, 32>(self.rem_n.val()) << 96)
            | (bit_cast::<STATE_BITS, 1>(self.waiting_n.val().into()) << 129)
            | (bit_cast::<STATE_BITS, 1>(self.active_n.val().into()) << 128)
            | (bit_cast::<STATE_BITS, 32>(self.req_acc_n.val()) << 64)
            | (bit_cast::<STATE_BITS, 32>(self.free_n.val()) << 32)
            | bit_cast::<STATE_BITS, 32>(self.credit_n.val()));

        self.w1_valid.d.next = self.s3_valid.q.val();
        self.w1_qp.d.next = self.s3_qp.q.val();
        self.w1_state.d.next = self.new_state.val();
        self.w2_valid.d.next = self.w1_valid.q.val();
        self.w2_qp.d.next = self.w1_qp.q.val();
        self.w2_state.d.next = self.w1_state.q.val();
        self.w3_valid.d.next = self.w2_valid.q.val();
        self.w3_qp.d.next = self.w2_qp.q.val();
        self.w3_state.d.next = self.w2_state.q.val();
        // The RAM's write port: the newest result (the reset sweep below overrides it).
        self.ram.write_address.next = self.w1_qp.q.val();
        self.ram.write_data.next = self.w1_state.q.val();
        self.ram.write_enable.next = self.w1_valid.q.val();

        // The credit floor, one event at a time: a word that holds credit >= -batch is
        // written back with credit >= -batch. Yosys proves `floor_ok` for every input
        // (testbenches/tests/formal.rs); with the reset sweep writing 0 and this the only
        // other writer, every QP's credit stays >= -batch (for 1 <= batch < 2^31). The
        // same test as P1's debt flag, on the update's own signals; nothing reads it.
        self.neg_batch.next = (0 - self.cfg_batch.val());
        self.debt_step.next =
            (self.credit_n.val().get_bit(31) & (self.credit_n.val() < self.neg_batch.val()));
        self.credit_ge_floor.next =
            (!self.credit.val().get_bit(31) | (self.credit.val() >= self.neg_batch.val()));
        // S2 worked out min(remaining, batch): the step assumes that amount is at most
        // one batch, as it is whenever the batch does not change with the event in flight.
        self.cap_ok.next = (self.cap1.val() <= self.cfg_batch.val());
        self.floor_ok.next = ((((!self.cfg_batch.val().any() | self.cfg_batch.val().get_bit(31))
            | !self.credit_ge_floor.val())
            | !self.cap_ok.val())
            | !self.debt_step.val());

        // S3 -> P1: what the outputs, OFF and the counters need; none of it loops back.
        self.u_valid.d.next = self.s3_valid.q.val();
        self.u_grant.d.next = self.s3_grant.q.val();
        self.u_qp.d.next = self.s3_qp.q.val();
        self.u_amt.d.next = self.amt.val();
        self.u_credit_n.d.next = self.credit_n.val();
        self.u_rem_n.d.next = self.rem_n.val();
        self.u_active_n.d.next = self.active_n.val();
        self.u_waiting_n.d.next = self.waiting_n.val();
        self.u_credit.d.next = self.credit.val();
        self.u_rem.d.next = self.rem_old.val();
        self.u_active.d.next = self.active.val();
        self.u_waiting.d.next = self.waiting.val();
        self.u_wasted.d.next = self.wasted_n.val();
        self.u_req.d.next = self.req_n.val();

        // ---- P1: OFF before and after (credit > 0 and above the data left, active). --
        self.p_valid.d.next = self.u_valid.q.val();
        self.p_grant.d.next = self.u_grant.q.val();
        self.p_qp.d.next = self.u_qp.q.val();
        self.p_amt.d.next = self.u_amt.q.val();
        self.p_credit_n.d.next = self.u_credit_n.q.val();
        self.p_active_n.d.next = self.u_active_n.q.val();
        self.p_waiting_n.d.next = self.u_waiting_n.q.val();
        self.p_active.d.next = self.u_active.q.val();
        self.p_waiting.d.next = self.u_waiting.q.val();
        self.p_wasted.d.next = self.u_wasted.q.val();
        self.p_req.d.next = self.u_req.q.val();
        self.p_gt_new.d.next = (self.u_credit_n.q.val() > self.u_rem_n.q.val());
        self.p_pos_new.d.next =
            (!self.u_credit_n.q.val().get_bit(31) & self.u_credit_n.q.val().any());
        self.p_gt_old.d.next = (self.u_credit.q.val() > self.u_rem.q.val());
        self.p_pos_old.d.next = (!self.u_credit.q.val().get_bit(31) & self.u_credit.q.val().any());
        self.neg_batch_p.d.next = (0 - self.cfg_batch.val());
        self.p_debt.d.next = (self.u_credit_n.q.val().get_bit(31)
            & (self.u_credit_n.q.val() < self.neg_batch_p.q.val()));

        // ---- P2: outputs and counters. ---------------------------------------------
        self.off_n.next =
            ((self.p_active_n.q.val() & self.p_pos_new.q.val()) & self.p_gt_new.q.val());
        self.off.next = ((self.p_active.q.val() & self.p_pos_old.q.val()) & self.p_gt_old.q.val());
        self.out_send_valid.d.next = (self.p_valid.q.val() & !self.p_grant.q.val());
        self.out_send_qp.d.next = self.p_qp.q.val();
        self.out_send_bytes.d.next = self.p_amt.q.val();
        self.out_send_credit.d.next = self.p_credit_n.q.val();
        self.out_req_valid.d.next = (self.p_valid.q.val() & self.p_req.q.val());
        self.out_credit_valid.d.next = self.p_valid.q.val();
        self.out_waiting.d.next = self.p_waiting_n.q.val();
        self.out_onoff_valid.d.next = (self.p_valid.q.val() & (self.off_n.val() != self.off.val()));
        self.out_onoff_on.d.next = !self.off_n.val();
        if self.p_valid.q.val() {
            self.n_active.d.next = ((self.n_active.q.val()
                + bit_cast::<17, 1>(self.p_active_n.q.val().into()))
                - bit_cast::<17, 1>(self.p_active.q.val().into()));
            self.n_waiting.d.next = ((self.n_waiting.q.val()
                + bit_cast::<17, 1>(self.p_waiting_n.q.val().into()))
                - bit_cast::<17, 1>(self.p_waiting.q.val().into()));
            self.cnt_wasted.d.next = (self.cnt_wasted.q.val() + self.p_wasted.q.val());
        }
        if (self.p_valid.q.val() & self.p_req.q.val()) {
            self.cnt_requests.d.next = (self.cnt_requests.q.val() + 1);
        }
        if (self.p_valid.q.val() & self.p_grant.q.val()) {
            self.cnt_grants.d.next = (self.cnt_grants.q.val() + 1);
        }
        if (self.n_active.q.val().any() & (self.n_waiting.q.val() == self.n_active.q.val())) {
            self.cnt_starved.d.next = (self.cnt_starved.q.val() + 1);
        }
        if (self.p_valid.q.val() & self.p_debt.q.val()) {
            self.debt_error.d.next = true;
        }

        // ---- Reset: sweep every QP word to {free = BDP}. ---------------------------
        self.init_state.next = (bit_cast::<STATE_BITS, 32>(self.cfg_bdp.val()) << 32);
        if self.clearing.q.val() {
            self.ram.write_address.next = self.clear_index.q.val();
            self.ram.write_data.next = self.init_state.val();
            self.ram.write_enable.next = true;
            self.clear_index.d.next = (self.clear_index.q.val() + 1);
            if (self.clear_index.q.val() == self.depth_m1.val()) {
                self.clearing.d.next = false;
            }
        }
        if self.rst.val() {
            self.clearing.d.next = true;
            self.clear_index.d.next = 0.into();
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.s3_valid.d.next = false;
            self.w1_valid.d.next = false;
            self.w2_valid.d.next = false;
            self.w3_valid.d.next = false;
            self.u_valid.d.next = false;
            self.p_valid.d.next = false;
            // Also keeps the register chains to the outputs out of shift registers.
            self.p_qp.d.next = 0.into();
            self.p_amt.d.next = 0.into();
            self.p_credit_n.d.next = 0.into();
            self.p_waiting_n.d.next = false;
            self.out_send_valid.d.next = false;
            self.out_req_valid.d.next = false;
            self.out_credit_valid.d.next = false;
            self.out_onoff_valid.d.next = false;
            self.n_active.d.next = 0.into();
            self.n_waiting.d.next = 0.into();
            self.cnt_requests.d.next = 0.into();
            self.cnt_grants.d.next = 0.into();
            self.cnt_wasted.d.next = 0.into();
            self.cnt_starved.d.next = 0.into();
            self.cnt_grants_dropped.d.next = 0.into();
            self.debt_error.d.next = false;
        }

        self.unused_bits.next = (self.st.val().get_bits::<30>(130).any() | self.floor_ok.val());
        self.s_send_ready.next =
            ((!self.s_grant_valid.val() & !self.clearing.q.val()) & !self.rst.val());
        self.m_send_valid.next = self.out_send_valid.q.val();
        self.m_send_qp.next = self.out_send_qp.q.val();
        self.m_send_bytes.next = self.out_send_bytes.q.val();
        self.m_send_credit.next = self.out_send_credit.q.val();
        self.m_req_valid.next = self.out_req_valid.q.val();
        self.m_credit_valid.next = self.out_credit_valid.q.val();
        self.m_credit_qp.next = self.out_send_qp.q.val();
        self.m_credit_value.next = self.out_send_credit.q.val();
        self.m_credit_waiting.next = self.out_waiting.q.val();
        self.m_req_qp.next = self.out_send_qp.q.val();
        self.m_onoff_valid.next = self.out_onoff_valid.q.val();
        self.m_onoff_qp.next = self.out_send_qp.q.val();
        self.m_onoff_on.next = self.out_onoff_on.q.val();
        self.status_clearing.next = self.clearing.q.val();
        self.status_requests.next = self.cnt_requests.q.val();
        self.status_grants.next = self.cnt_grants.q.val();
        self.status_wasted_bytes.next = self.cnt_wasted.q.val();
        self.status_starved_cycles.next = self.cnt_starved.q.val();
        self.status_starved.next =
            (self.n_active.q.val().any() & (self.n_waiting.q.val() == self.n_active.q.val()));
        self.status_grants_dropped.next = self.cnt_grants_dropped.q.val();
        self.status_debt_error.next = self.debt_error.q.val();
    }
}
