//! `credit_tx`: the sender side of the credit engine, one state word per QP in block RAM
//! (the Pegasus paper; docs/blocks/credit.md).
//!
//! ```text
//!  s_grant ─► grant queue ─┐ S0         S1      S2                 S3a       S3b      S3c       P1     P2
//!  s_send (qp, ────────────┴► issue ─► PipeRam ─► latch ─► out reg ─► every   ─► choose ─► request ─► OFF ─► out regs ─► m_send (bytes)
//!   remaining)       (grant first;     (per-QP word)       (forward   compare,    amount,   and its    debt  counters   ├► m_req (one per batch)
//!                     no QP twice in                        w1..w3)   sum and     masks     counter             └► m_onoff
//!                     4 cycles)                                       difference            │
//!                                                                                          └► w1 ─► RAM write; w2, w3 (forwarding)
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
//!   send and was refused for want of credit; counted incrementally per QP), grants
//!   dropped (arriving during reset or with the grant queue full).
//! * QP numbers are taken modulo the QP count.
//! * **Reset** sweeps every QP word to its initial state (one QP per cycle, `free` =
//!   `cfg_bdp`); requests are refused and grants dropped (counted) meanwhile.
//!
//! **Issue.** A QP's update takes three cycles (S3a..S3c), so a QP has at most one event
//! in those stages and the two before them: an event is issued only when its QP is not
//! in S1, S2 or S3a, i.e. the same QP at most once every [`CREDIT_TX_QP_SPACING`] cycles;
//! different QPs go one per cycle. Grants have no ready (a real credit path cannot wait):
//! they enter a [`CREDIT_TX_GRANT_QUEUE`]-entry queue, whose head moves to an issue
//! register when that is empty; the grant there is issued before any send request, and
//! while it waits for its QP `s_send_ready` is low. So grants are issued at most one
//! every two cycles (a credit path brings one per batch per QP). `s_send_ready` comes
//! from registers only (the QP compares are not in front of it): a send request is
//! taken whatever its QP, and one whose QP is in flight waits in a parking register,
//! with `s_send_ready` low, until its QP has left S3a. Requests are issued in the order
//! they were taken, and in the same cycles as if each had waited on the input. A full
//! queue drops the grant and counts it.
//!
//! **Latency.** A send request's decision (and its credit request and ON/OFF) is on the
//! outputs [`CREDIT_TX_LATENCY`] = 8 cycles after it is issued: the cycle it is taken
//! in, or the cycle it leaves the parking register (at most [`CREDIT_TX_QP_SPACING`] − 1
//! later while no grant waits). A grant's effect is on the outputs
//! [`CREDIT_TX_GRANT_LATENCY`] = 12 cycles after it arrives when the queue is empty and
//! its QP is not in flight.
//!
//! **Timing.** The word is read through `PipeRam`'s two registers (S1, S2) before any
//! logic; S2 replaces it by the result of any of the three events ahead that the RAM does
//! not hold yet (`w1`..`w3`), so the word reaches S3a from a register. The update is
//! split so that no stage has more than one carry chain: S3a computes every compare,
//! difference and sum the update may need from the word (`free < cap`, `credit - cap`,
//! `req_acc + free`, `batch - req_acc`, ...); S3b chooses the amount and selects the new
//! free, credit and remaining data among those results through AND-OR masks (a mux would
//! let synthesis fold the adders back behind the choice), and compares each candidate
//! amount with the bytes still needed for the next request; S3c picks the request and
//! the new accumulator the same way. The loop is S3a → S3b → S3c → w1 → S2's forwarding
//! mux → S3a: four registers, each stage within the 5 levels of docs/timing.md. What does
//! not loop back (OFF before and after, the debt flag, the outputs and the counters) is
//! done in P1 and P2. A bad input (a QP number beyond the QP count) aliases modulo the
//! count.

use crate::fifo::Fifo;
use crate::ram::{PipeRam, RamSweep};
use rust_hdl::prelude::*;

/// QP index width on every port (the RAM uses the low bits).
pub const QP_BITS: usize = 16;
/// Cycles from a send request's issue (the cycle it is taken in, unless it is parked)
/// to its decision.
pub const CREDIT_TX_LATENCY: u32 = 8;
/// Cycles from a grant to its effect on the outputs (`m_credit_*`, ON/OFF), with the
/// grant queue empty and the QP not in flight: 3 through the queue, 1 in the issue
/// register, then as a send.
pub const CREDIT_TX_GRANT_LATENCY: u32 = 4 + CREDIT_TX_LATENCY;
/// Entries of the grant queue.
pub const CREDIT_TX_GRANT_QUEUE: usize = 16;
/// The same QP is issued at most once in this many cycles.
pub const CREDIT_TX_QP_SPACING: u32 = 4;
const STATE_BITS: usize = 160;

#[derive(LogicBlock)]
pub struct CreditTx {
    pub clk: Signal<In, Clock>,
    /// Synchronous reset. A send request offered in a reset cycle may be taken and is
    /// dropped: reset its sender in the same cycle.
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
    /// Grants waiting to be issued (QP numbers, already taken modulo the QP count).
    gq: Fifo<QP_BITS>,
    /// The grant to issue next, taken from the queue's head when empty, so that the
    /// issue decision reaches these two registers and not the queue's counters.
    g_hold_valid: DFF<Bit>,
    g_hold_qp: DFF<Bits<QP_BITS>>,
    /// The send request taken while its QP was in flight, parked until the QP leaves
    /// S3a (`s_send_ready` is low while it is here, so it keeps the requests in order).
    park_valid: DFF<Bit>,
    park_qp: DFF<Bits<QP_BITS>>,
    park_remaining: DFF<Bits<32>>,
    depth_m1: Constant<Bits<QP_BITS>>,
    ones: Constant<Bits<32>>,
    sweep: RamSweep,
    s1_valid: DFF<Bit>,
    s1_grant: DFF<Bit>,
    s1_qp: DFF<Bits<QP_BITS>>,
    s1_remaining: DFF<Bits<32>>,
    s2_valid: DFF<Bit>,
    s2_grant: DFF<Bit>,
    s2_qp: DFF<Bits<QP_BITS>>,
    s2_remaining: DFF<Bits<32>>,
    /// S2's event is the same QP as the event 4, 5, 6 cycles ahead of it (in w1, w2,
    /// w3 when S2 reads them).
    s2_f2: DFF<Bit>,
    s2_f3: DFF<Bit>,
    s2_f4: DFF<Bit>,
    s2_lt: DFF<Bit>,
    s2_gt: DFF<Bit>,
    s2_rmb: DFF<Bits<32>>,
    s3_valid: DFF<Bit>,
    s3_grant: DFF<Bit>,
    s3_qp: DFF<Bits<QP_BITS>>,
    s3_remaining: DFF<Bits<32>>,
    /// S3a's word: from the RAM or forwarded from w1..w3.
    s3_prep: DFF<Bits<STATE_BITS>>,
    s3_rem_nz: DFF<Bit>,
    s3_cap1: DFF<Bits<32>>,
    s3_rem_cap: DFF<Bits<32>>,
    s3_act_cap: DFF<Bit>,
    s3_cap_zero: DFF<Bit>,
    // ---- S3a -> S3b: the word's fields and every compare, difference and sum. ----
    b_valid: DFF<Bit>,
    b_grant: DFF<Bit>,
    b_qp: DFF<Bits<QP_BITS>>,
    b_remaining: DFF<Bits<32>>,
    b_rem_nz: DFF<Bit>,
    b_rem_cap: DFF<Bits<32>>,
    b_act_cap: DFF<Bit>,
    b_cap_zero: DFF<Bit>,
    b_cap1: DFF<Bits<32>>,
    /// `cfg_batch` as S3a used it (the floor check in S3c compares with the same value).
    b_batch: DFF<Bits<32>>,
    b_credit: DFF<Bits<32>>,
    b_free: DFF<Bits<32>>,
    b_acc: DFF<Bits<32>>,
    b_rem_old: DFF<Bits<32>>,
    b_active: DFF<Bit>,
    b_waiting: DFF<Bit>,
    b_credit_pos: DFF<Bit>,
    b_credit_nonneg: DFF<Bit>,
    b_free_nz: DFF<Bit>,
    b_free_lt_cap: DFF<Bit>,
    b_credit_lt_cap: DFF<Bit>,
    b_free_m_cap: DFF<Bits<32>>,
    b_credit_m_cap: DFF<Bits<32>>,
    b_rem_m_free: DFF<Bits<32>>,
    b_rem_m_credit: DFF<Bits<32>>,
    b_acc_free: DFF<Bits<32>>,
    b_acc_cap: DFF<Bits<32>>,
    b_acc_credit: DFF<Bits<32>>,
    /// Bytes still to send before the next credit request: `batch - req_acc`.
    b_need: DFF<Bits<32>>,
    /// `req_acc > batch` (only after the batch was lowered with data in flight).
    b_acc_gt_batch: DFF<Bit>,
    b_ge_none: DFF<Bit>,
    b_n_none: DFF<Bits<32>>,
    b_granted_raw: DFF<Bits<32>>,
    // ---- S3b -> S3c: the amount chosen and the new fields, each candidate's request. --
    c_valid: DFF<Bit>,
    c_grant: DFF<Bit>,
    c_qp: DFF<Bits<QP_BITS>>,
    c_batch: DFF<Bits<32>>,
    c_cap1: DFF<Bits<32>>,
    c_credit: DFF<Bits<32>>,
    c_rem_old: DFF<Bits<32>>,
    c_active: DFF<Bit>,
    c_waiting: DFF<Bit>,
    c_acc: DFF<Bits<32>>,
    c_amt: DFF<Bits<32>>,
    c_amt_zero: DFF<Bit>,
    c_free_n: DFF<Bits<32>>,
    c_credit_a: DFF<Bits<32>>,
    c_rem_n: DFF<Bits<32>>,
    c_active_n: DFF<Bit>,
    c_granted: DFF<Bits<32>>,
    c_k_free: DFF<Bit>,
    c_k_cap: DFF<Bit>,
    c_k_credit: DFF<Bit>,
    /// Whether each candidate amount reaches the next request (`req_acc + x >= batch`),
    /// and the accumulator it leaves then (`req_acc + x - batch`).
    c_ge_free: DFF<Bit>,
    c_ge_cap: DFF<Bit>,
    c_ge_credit: DFF<Bit>,
    c_ge_none: DFF<Bit>,
    c_n_free: DFF<Bits<32>>,
    c_n_cap: DFF<Bits<32>>,
    c_n_credit: DFF<Bits<32>>,
    c_n_none: DFF<Bits<32>>,
    c_a_free: DFF<Bits<32>>,
    c_a_cap: DFF<Bits<32>>,
    c_a_credit: DFF<Bits<32>>,
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
    /// `-cfg_batch`, registered (quasi-static configuration; keeps the negation out of
    /// P1's compare).
    neg_batch_p: DFF<Bits<32>>,
    // ---- S0 ----
    g_qp: Signal<Local, Bits<QP_BITS>>,
    g_haz: Signal<Local, Bit>,
    send_qp: Signal<Local, Bits<QP_BITS>>,
    s_haz: Signal<Local, Bit>,
    park_haz: Signal<Local, Bit>,
    s_take: Signal<Local, Bit>,
    g_push: Signal<Local, Bit>,
    ev_grant: Signal<Local, Bit>,
    ev_send: Signal<Local, Bit>,
    ev_qp: Signal<Local, Bits<QP_BITS>>,
    prep: Signal<Local, Bits<STATE_BITS>>,
    // ---- S3a ----
    st: Signal<Local, Bits<STATE_BITS>>,
    credit: Signal<Local, Bits<32>>,
    free: Signal<Local, Bits<32>>,
    req_acc: Signal<Local, Bits<32>>,
    rem_old: Signal<Local, Bits<32>>,
    // ---- S3b ----
    credit_nonneg: Signal<Local, Bit>,
    k_free: Signal<Local, Bit>,
    k_cap: Signal<Local, Bit>,
    k_credit: Signal<Local, Bit>,
    m_free: Signal<Local, Bits<32>>,
    m_cap: Signal<Local, Bits<32>>,
    m_credit: Signal<Local, Bits<32>>,
    m_none: Signal<Local, Bits<32>>,
    m_capf: Signal<Local, Bits<32>>,
    m_keepf: Signal<Local, Bits<32>>,
    m_capc: Signal<Local, Bits<32>>,
    m_keepc: Signal<Local, Bits<32>>,
    active_n: Signal<Local, Bit>,
    // ---- S3c ----
    k_none: Signal<Local, Bit>,
    pick_free: Signal<Local, Bits<32>>,
    pick_cap: Signal<Local, Bits<32>>,
    pick_credit: Signal<Local, Bits<32>>,
    pick_none: Signal<Local, Bits<32>>,
    mk_free: Signal<Local, Bits<32>>,
    mk_cap: Signal<Local, Bits<32>>,
    mk_credit: Signal<Local, Bits<32>>,
    mk_none: Signal<Local, Bits<32>>,
    req_n: Signal<Local, Bit>,
    req_acc_n: Signal<Local, Bits<32>>,
    credit_n: Signal<Local, Bits<32>>,
    wasted_n: Signal<Local, Bits<32>>,
    waiting_n: Signal<Local, Bit>,
    new_state: Signal<Local, Bits<STATE_BITS>>,
    init_state: Signal<Local, Bits<STATE_BITS>>,
    neg_batch: Signal<Local, Bits<32>>,
    debt_step: Signal<Local, Bit>,
    credit_ge_floor: Signal<Local, Bit>,
    cap_ok: Signal<Local, Bit>,
    /// The property Yosys proves (see S3c); read by nothing else.
    floor_ok: Signal<Local, Bit>,
    // ---- P2 ----
    off: Signal<Local, Bit>,
    off_n: Signal<Local, Bit>,
    /// Spare word bits and the property (Verilator's unused idiom).
    unused_bits: Signal<Local, Bit>,
}

impl CreditTx {
    /// RAM bits for `qps` QP contexts: one state word each.
    pub fn ram_bits(qps: usize) -> usize {
        qps * STATE_BITS
    }

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
            gq: Fifo::new(CREDIT_TX_GRANT_QUEUE),
            g_hold_valid: Default::default(),
            g_hold_qp: Default::default(),
            park_valid: Default::default(),
            park_qp: Default::default(),
            park_remaining: Default::default(),
            depth_m1: Constant::new(((qps - 1) as LiteralType).into()),
            ones: Constant::new(0xffff_ffff_u64.into()),
            sweep: RamSweep::new(qps),
            s1_valid: Default::default(),
            s1_grant: Default::default(),
            s1_qp: Default::default(),
            s1_remaining: Default::default(),
            s2_valid: Default::default(),
            s2_grant: Default::default(),
            s2_qp: Default::default(),
            s2_remaining: Default::default(),
            s2_f2: Default::default(),
            s2_f3: Default::default(),
            s2_f4: Default::default(),
            s2_lt: Default::default(),
            s2_gt: Default::default(),
            s2_rmb: Default::default(),
            s3_valid: Default::default(),
            s3_grant: Default::default(),
            s3_qp: Default::default(),
            s3_remaining: Default::default(),
            s3_prep: Default::default(),
            s3_rem_nz: Default::default(),
            s3_cap1: Default::default(),
            s3_rem_cap: Default::default(),
            s3_act_cap: Default::default(),
            s3_cap_zero: Default::default(),
            b_valid: Default::default(),
            b_grant: Default::default(),
            b_qp: Default::default(),
            b_remaining: Default::default(),
            b_rem_nz: Default::default(),
            b_rem_cap: Default::default(),
            b_act_cap: Default::default(),
            b_cap_zero: Default::default(),
            b_cap1: Default::default(),
            b_batch: Default::default(),
            b_credit: Default::default(),
            b_free: Default::default(),
            b_acc: Default::default(),
            b_rem_old: Default::default(),
            b_active: Default::default(),
            b_waiting: Default::default(),
            b_credit_pos: Default::default(),
            b_credit_nonneg: Default::default(),
            b_free_nz: Default::default(),
            b_free_lt_cap: Default::default(),
            b_credit_lt_cap: Default::default(),
            b_free_m_cap: Default::default(),
            b_credit_m_cap: Default::default(),
            b_rem_m_free: Default::default(),
            b_rem_m_credit: Default::default(),
            b_acc_free: Default::default(),
            b_acc_cap: Default::default(),
            b_acc_credit: Default::default(),
            b_need: Default::default(),
            b_acc_gt_batch: Default::default(),
            b_ge_none: Default::default(),
            b_n_none: Default::default(),
            b_granted_raw: Default::default(),
            c_valid: Default::default(),
            c_grant: Default::default(),
            c_qp: Default::default(),
            c_batch: Default::default(),
            c_cap1: Default::default(),
            c_credit: Default::default(),
            c_rem_old: Default::default(),
            c_active: Default::default(),
            c_waiting: Default::default(),
            c_acc: Default::default(),
            c_amt: Default::default(),
            c_amt_zero: Default::default(),
            c_free_n: Default::default(),
            c_credit_a: Default::default(),
            c_rem_n: Default::default(),
            c_active_n: Default::default(),
            c_granted: Default::default(),
            c_k_free: Default::default(),
            c_k_cap: Default::default(),
            c_k_credit: Default::default(),
            c_ge_free: Default::default(),
            c_ge_cap: Default::default(),
            c_ge_credit: Default::default(),
            c_ge_none: Default::default(),
            c_n_free: Default::default(),
            c_n_cap: Default::default(),
            c_n_credit: Default::default(),
            c_n_none: Default::default(),
            c_a_free: Default::default(),
            c_a_cap: Default::default(),
            c_a_credit: Default::default(),
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
            neg_batch_p: Default::default(),
            g_qp: Default::default(),
            g_haz: Default::default(),
            send_qp: Default::default(),
            s_haz: Default::default(),
            park_haz: Default::default(),
            s_take: Default::default(),
            g_push: Default::default(),
            ev_grant: Default::default(),
            ev_send: Default::default(),
            ev_qp: Default::default(),
            prep: Default::default(),
            st: Default::default(),
            credit: Default::default(),
            free: Default::default(),
            req_acc: Default::default(),
            rem_old: Default::default(),
            credit_nonneg: Default::default(),
            k_free: Default::default(),
            k_cap: Default::default(),
            k_credit: Default::default(),
            m_free: Default::default(),
            m_cap: Default::default(),
            m_credit: Default::default(),
            m_none: Default::default(),
            m_capf: Default::default(),
            m_keepf: Default::default(),
            m_capc: Default::default(),
            m_keepc: Default::default(),
            active_n: Default::default(),
            k_none: Default::default(),
            pick_free: Default::default(),
            pick_cap: Default::default(),
            pick_credit: Default::default(),
            pick_none: Default::default(),
            mk_free: Default::default(),
            mk_cap: Default::default(),
            mk_credit: Default::default(),
            mk_none: Default::default(),
            req_n: Default::default(),
            req_acc_n: Default::default(),
            credit_n: Default::default(),
            wasted_n: Default::default(),
            waiting_n: Default::default(),
            new_state: Default::default(),
            init_state: Default::default(),
            neg_batch: Default::default(),
            debt_step: Default::default(),
            credit_ge_floor: Default::default(),
            cap_ok: Default::default(),
            floor_ok: Default::default(),
            off: Default::default(),
            off_n: Default::default(),
            unused_bits: Default::default(),
        }
    }
}

impl Logic for CreditTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clk,
            g_hold_valid,
            g_hold_qp,
            park_valid,
            park_qp,
            park_remaining,
            s1_valid,
            s1_grant,
            s1_qp,
            s1_remaining,
            s2_valid,
            s2_grant,
            s2_qp,
            s2_remaining,
            s2_f2,
            s2_f3,
            s2_f4,
            s2_lt,
            s2_gt,
            s2_rmb,
            s3_valid,
            s3_grant,
            s3_qp,
            s3_remaining,
            s3_prep,
            s3_rem_nz,
            s3_cap1,
            s3_rem_cap,
            s3_act_cap,
            s3_cap_zero,
            b_valid,
            b_grant,
            b_qp,
            b_remaining,
            b_rem_nz,
            b_rem_cap,
            b_act_cap,
            b_cap_zero,
            b_cap1,
            b_batch,
            b_credit,
            b_free,
            b_acc,
            b_rem_old,
            b_active,
            b_waiting,
            b_credit_pos,
            b_credit_nonneg,
            b_free_nz,
            b_free_lt_cap,
            b_credit_lt_cap,
            b_free_m_cap,
            b_credit_m_cap,
            b_rem_m_free,
            b_rem_m_credit,
            b_acc_free,
            b_acc_cap,
            b_acc_credit,
            b_need,
            b_acc_gt_batch,
            b_ge_none,
            b_n_none,
            b_granted_raw,
            c_valid,
            c_grant,
            c_qp,
            c_batch,
            c_cap1,
            c_credit,
            c_rem_old,
            c_active,
            c_waiting,
            c_acc,
            c_amt,
            c_amt_zero,
            c_free_n,
            c_credit_a,
            c_rem_n,
            c_active_n,
            c_granted,
            c_k_free,
            c_k_cap,
            c_k_credit,
            c_ge_free,
            c_ge_cap,
            c_ge_credit,
            c_ge_none,
            c_n_free,
            c_n_cap,
            c_n_credit,
            c_n_none,
            c_a_free,
            c_a_cap,
            c_a_credit,
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
            p_debt,
            neg_batch_p
        );
        self.sweep.clk.next = self.clk.val();
        self.sweep.rst.next = self.rst.val();
        self.ram.clk.next = self.clk.val();
        self.ram.read_enable.next = true;
        self.ram.out_enable.next = true;
        self.gq.clk.next = self.clk.val();
        self.gq.rst.next = self.rst.val();

        // ---- Grants: into the queue (they cannot wait), or dropped and counted. -----
        self.g_push.next = (((self.s_grant_valid.val() & !self.gq.full.val())
            & !self.sweep.active.val())
            & !self.rst.val());
        self.gq.s_valid.next = self.g_push.val();
        self.gq.s_data.next = (self.s_grant_qp.val() & self.depth_m1.val());
        if (self.s_grant_valid.val() & !self.g_push.val()) {
            self.cnt_grants_dropped.d.next = (self.cnt_grants_dropped.q.val() + 1);
        }

        // ---- Stage 0: issue one event; a QP in S1, S2 or S3a waits. ----------------
        // QP numbers are taken modulo the QP count (the low bits index the RAM), so the
        // compares see the same QP the RAM does. The grant comes from a register.
        self.gq.m_pop.next = (self.gq.m_valid.val() & !self.g_hold_valid.q.val());
        if self.gq.m_pop.val() {
            self.g_hold_valid.d.next = true;
            self.g_hold_qp.d.next = self.gq.m_data.val();
        }
        self.g_qp.next = self.g_hold_qp.q.val();
        self.send_qp.next = (self.s_send_qp.val() & self.depth_m1.val());
        self.g_haz.next = (((self.s1_valid.q.val() & (self.s1_qp.q.val() == self.g_qp.val()))
            | (self.s2_valid.q.val() & (self.s2_qp.q.val() == self.g_qp.val())))
            | (self.s3_valid.q.val() & (self.s3_qp.q.val() == self.g_qp.val())));
        self.s_haz.next = (((self.s1_valid.q.val() & (self.s1_qp.q.val() == self.send_qp.val()))
            | (self.s2_valid.q.val() & (self.s2_qp.q.val() == self.send_qp.val())))
            | (self.s3_valid.q.val() & (self.s3_qp.q.val() == self.send_qp.val())));
        self.park_haz.next = (((self.s1_valid.q.val()
            & (self.s1_qp.q.val() == self.park_qp.q.val()))
            | (self.s2_valid.q.val() & (self.s2_qp.q.val() == self.park_qp.q.val())))
            | (self.s3_valid.q.val() & (self.s3_qp.q.val() == self.park_qp.q.val())));
        self.ev_grant.next = (((self.g_hold_valid.q.val() & !self.g_haz.val())
            & !self.sweep.active.val())
            & !self.rst.val());
        // `s_send_ready` comes from registers only: the send-request slice in `prnic_top`
        // loads its 43 bits on it, so the QP compares above must not be in front of it
        // (they were: 4 levels, 3.32 ns of the 2.95 ns cycle). A request is taken
        // whatever its QP; one whose QP is in flight is parked, and issued from the
        // parking register when that QP has left S3a. No request is taken while one is
        // parked or a grant is held, so requests keep their order and grants go first.
        // It does not look at `rst`: a request taken in a reset cycle is dropped (S1's
        // valid and the parking register are cleared in that cycle), and the sender in
        // `prnic_top` is reset in the same cycle; `clearing` is high from the cycle after.
        self.s_send_ready.next =
            ((!self.park_valid.q.val() & !self.g_hold_valid.q.val()) & !self.sweep.active.val());
        self.s_take.next = (self.s_send_valid.val() & self.s_send_ready.val());
        // While a request is parked none is taken, so `ev_send` is then the parked one's.
        self.ev_send.next = ((self.s_take.val() & !self.s_haz.val())
            | (((self.park_valid.q.val() & !self.park_haz.val()) & !self.g_hold_valid.q.val())
                & !self.sweep.active.val()));
        // The parking register follows the input while it is empty, so its 48 enables
        // come from `park_valid` and not from the take.
        if !self.park_valid.q.val() {
            self.park_qp.d.next = self.send_qp.val();
            self.park_remaining.d.next = self.s_send_remaining.val();
        }
        self.park_valid.d.next = ((self.s_take.val() & self.s_haz.val())
            | (self.park_valid.q.val() & !self.ev_send.val()));
        if self.ev_grant.val() {
            self.g_hold_valid.d.next = false;
        }
        // A held grant owns the read port: if its QP is in flight nothing is issued.
        if self.g_hold_valid.q.val() {
            self.ev_qp.next = self.g_qp.val();
        } else if self.park_valid.q.val() {
            self.ev_qp.next = self.park_qp.q.val();
        } else {
            self.ev_qp.next = self.send_qp.val();
        }
        self.ram.read_address.next = self.ev_qp.val();
        self.s1_qp.d.next = self.ev_qp.val();
        self.s1_valid.d.next = (self.ev_grant.val() | self.ev_send.val());
        self.s1_grant.d.next = self.ev_grant.val();
        if self.park_valid.q.val() {
            self.s1_remaining.d.next = self.park_remaining.q.val();
        } else {
            self.s1_remaining.d.next = self.s_send_remaining.val();
        }

        // ---- S1: the RAM's read latch; which events ahead are the same QP. ---------
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_grant.d.next = self.s1_grant.q.val();
        self.s2_qp.d.next = self.s1_qp.q.val();
        self.s2_remaining.d.next = self.s1_remaining.q.val();
        // min(remaining, batch) and what it leaves depend on the request alone: S1 and S2
        // work them out so S3a starts from registers.
        self.s2_lt.d.next = (self.s1_remaining.q.val() < self.cfg_batch.val());
        self.s2_gt.d.next = (self.cfg_batch.val() < self.s1_remaining.q.val());
        self.s2_rmb.d.next = (self.s1_remaining.q.val() - self.cfg_batch.val());
        // The events in S3c, w1 and w2 now are in w1, w2 and w3 when S2 reads them.
        self.s2_f2.d.next = (self.c_valid.q.val() & (self.c_qp.q.val() == self.s1_qp.q.val()));
        self.s2_f3.d.next = (self.w1_valid.q.val() & (self.w1_qp.q.val() == self.s1_qp.q.val()));
        self.s2_f4.d.next = (self.w2_valid.q.val() & (self.w2_qp.q.val() == self.s1_qp.q.val()));

        // ---- S2: the RAM's output register, or a newer word not yet written. -------
        // The RAM read (two cycles ago) saw every write before w3's; the issue rule keeps
        // the QP out of S3a..S3c.
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

        // ---- S3a: every compare, difference and sum the update may need. -----------
        // Word: credit[31:0] (signed), free[63:32], req_acc[95:64], rem[127:96],
        // active[128], waiting[129]. OFF is not stored: it is a function of credit, rem
        // and active, so P1 recomputes the old value beside the new one.
        self.st.next = self.s3_prep.q.val();
        self.credit.next = self.st.val().get_bits::<32>(0);
        self.free.next = self.st.val().get_bits::<32>(32);
        self.req_acc.next = self.st.val().get_bits::<32>(64);
        self.rem_old.next = self.st.val().get_bits::<32>(96);
        self.b_valid.d.next = self.s3_valid.q.val();
        self.b_grant.d.next = self.s3_grant.q.val();
        self.b_qp.d.next = self.s3_qp.q.val();
        self.b_remaining.d.next = self.s3_remaining.q.val();
        self.b_rem_nz.d.next = self.s3_rem_nz.q.val();
        self.b_rem_cap.d.next = self.s3_rem_cap.q.val();
        self.b_act_cap.d.next = self.s3_act_cap.q.val();
        self.b_cap_zero.d.next = self.s3_cap_zero.q.val();
        self.b_cap1.d.next = self.s3_cap1.q.val();
        self.b_batch.d.next = self.cfg_batch.val();
        self.b_credit.d.next = self.credit.val();
        self.b_free.d.next = self.free.val();
        self.b_acc.d.next = self.req_acc.val();
        self.b_rem_old.d.next = self.rem_old.val();
        self.b_active.d.next = self.st.val().get_bit(128);
        self.b_waiting.d.next = self.st.val().get_bit(129);
        self.b_credit_pos.d.next = (!self.credit.val().get_bit(31) & self.credit.val().any());
        self.b_credit_nonneg.d.next = !self.credit.val().get_bit(31);
        self.b_free_nz.d.next = self.free.val().any();
        self.b_free_lt_cap.d.next = (self.free.val() < self.s3_cap1.q.val());
        self.b_credit_lt_cap.d.next = (self.credit.val() < self.s3_cap1.q.val());
        self.b_free_m_cap.d.next = (self.free.val() - self.s3_cap1.q.val());
        self.b_credit_m_cap.d.next = (self.credit.val() - self.s3_cap1.q.val());
        self.b_rem_m_free.d.next = (self.s3_remaining.q.val() - self.free.val());
        self.b_rem_m_credit.d.next = (self.s3_remaining.q.val() - self.credit.val());
        self.b_acc_free.d.next = (self.req_acc.val() + self.free.val());
        self.b_acc_cap.d.next = (self.req_acc.val() + self.s3_cap1.q.val());
        self.b_acc_credit.d.next = (self.req_acc.val() + self.credit.val());
        self.b_need.d.next = (self.cfg_batch.val() - self.req_acc.val());
        self.b_acc_gt_batch.d.next = (self.cfg_batch.val() < self.req_acc.val());
        self.b_ge_none.d.next = (self.req_acc.val() >= self.cfg_batch.val());
        self.b_n_none.d.next = (self.req_acc.val() - self.cfg_batch.val());
        // A grant sends nothing, so it adds to the credit read (saturated in S3b).
        self.b_granted_raw.d.next = (self.credit.val() + self.cfg_batch.val());

        // ---- S3b: the amount, the new fields, each candidate's request. ------------
        // Send: where the amount allowed now comes from (none of the three: 0).
        // * while free > 0: min(remaining, batch, free) without credit;
        // * Eq.2: min(remaining, batch) whenever credit >= 0;
        // * Eq.1: min(remaining, batch, credit) while credit > 0.
        self.credit_nonneg.next = self.b_credit_nonneg.q.val();
        self.k_free.next = false;
        self.k_cap.next = false;
        self.k_credit.next = false;
        if !self.b_grant.q.val() {
            if self.b_free_nz.q.val() {
                if self.b_free_lt_cap.q.val() {
                    self.k_free.next = true;
                } else {
                    self.k_cap.next = true;
                }
            } else if self.cfg_rule.val() {
                if self.credit_nonneg.val() {
                    self.k_cap.next = true;
                }
            } else if self.b_credit_pos.q.val() {
                if self.b_credit_lt_cap.q.val() {
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
        if self.b_free_nz.q.val() {
            self.m_capf.next = self.m_cap.val();
            self.m_capc.next = 0.into();
        } else {
            self.m_capf.next = 0.into();
            self.m_capc.next = self.m_cap.val();
        }
        self.m_keepf.next = !(self.m_free.val() | self.m_capf.val());
        self.m_keepc.next = !(self.m_credit.val() | self.m_capc.val());
        self.c_k_free.d.next = self.k_free.val();
        self.c_k_cap.d.next = self.k_cap.val();
        self.c_k_credit.d.next = self.k_credit.val();
        self.c_amt.d.next = (((self.b_free.q.val() & self.m_free.val())
            | (self.b_cap1.q.val() & self.m_cap.val()))
            | (self.b_credit.q.val() & self.m_credit.val()));
        // The amount is never 0 when taken from free (> 0) or credit (> 0).
        self.c_amt_zero.d.next = !((self.k_free.val() | self.k_credit.val())
            | (self.k_cap.val() & !self.b_cap_zero.q.val()));
        // free - amt while free > 0, credit - amt after.
        self.c_free_n.d.next = ((self.b_free_m_cap.q.val() & self.m_capf.val())
            | (self.b_free.q.val() & self.m_keepf.val()));
        self.c_credit_a.d.next = ((self.b_credit_m_cap.q.val() & self.m_capc.val())
            | (self.b_credit.q.val() & self.m_keepc.val()));
        // What the QP has left: reported with each send request; kept across grants.
        // A send of min(remaining, batch) leaves remaining - batch when that is > 0;
        // one of free or credit (each < remaining) always leaves some.
        if self.b_grant.q.val() {
            self.c_rem_n.d.next = self.b_rem_old.q.val();
            self.active_n.next = self.b_rem_old.q.val().any();
        } else {
            self.c_rem_n.d.next = ((((self.b_rem_m_free.q.val() & self.m_free.val())
                | (self.b_rem_cap.q.val() & self.m_cap.val()))
                | (self.b_rem_m_credit.q.val() & self.m_credit.val()))
                | (self.b_remaining.q.val() & self.m_none.val()));
            self.active_n.next = (((self.k_free.val() | self.k_credit.val())
                | (self.k_cap.val() & self.b_act_cap.q.val()))
                | ((!self.k_cap.val() & !self.k_free.val()) & self.b_rem_nz.q.val()));
        }
        self.c_active_n.d.next = self.active_n.val();
        // Saturating: credit held beyond 2^31 - 1 bytes stays there (found by the formal
        // check: the plain sum wrapped negative and broke the -batch floor).
        if (!self.b_credit.q.val().get_bit(31) & self.b_granted_raw.q.val().get_bit(31)) {
            self.c_granted.d.next = 0x7fff_ffff.into();
        } else {
            self.c_granted.d.next = self.b_granted_raw.q.val();
        }
        // One credit request per batch sent: req_acc + x >= batch is x >= batch -
        // req_acc (or req_acc was above the batch already), and it leaves
        // req_acc + x - batch = x - (batch - req_acc). Both for each candidate x.
        self.c_ge_free.d.next =
            (self.b_acc_gt_batch.q.val() | (self.b_free.q.val() >= self.b_need.q.val()));
        self.c_ge_cap.d.next =
            (self.b_acc_gt_batch.q.val() | (self.b_cap1.q.val() >= self.b_need.q.val()));
        self.c_ge_credit.d.next =
            (self.b_acc_gt_batch.q.val() | (self.b_credit.q.val() >= self.b_need.q.val()));
        self.c_ge_none.d.next = self.b_ge_none.q.val();
        self.c_n_free.d.next = (self.b_free.q.val() - self.b_need.q.val());
        self.c_n_cap.d.next = (self.b_cap1.q.val() - self.b_need.q.val());
        self.c_n_credit.d.next = (self.b_credit.q.val() - self.b_need.q.val());
        self.c_n_none.d.next = self.b_n_none.q.val();
        self.c_a_free.d.next = self.b_acc_free.q.val();
        self.c_a_cap.d.next = self.b_acc_cap.q.val();
        self.c_a_credit.d.next = self.b_acc_credit.q.val();
        self.c_acc.d.next = self.b_acc.q.val();
        self.c_valid.d.next = self.b_valid.q.val();
        self.c_grant.d.next = self.b_grant.q.val();
        self.c_qp.d.next = self.b_qp.q.val();
        self.c_batch.d.next = self.b_batch.q.val();
        self.c_cap1.d.next = self.b_cap1.q.val();
        self.c_credit.d.next = self.b_credit.q.val();
        self.c_rem_old.d.next = self.b_rem_old.q.val();
        self.c_active.d.next = self.b_active.q.val();
        self.c_waiting.d.next = self.b_waiting.q.val();

        // ---- S3c: the request, the accumulator, credit and waste; the new word. ----
        self.k_none.next =
            !((self.c_k_free.q.val() | self.c_k_cap.q.val()) | self.c_k_credit.q.val());
        self.req_n.next = ((((self.c_k_free.q.val() & self.c_ge_free.q.val())
            | (self.c_k_cap.q.val() & self.c_ge_cap.q.val()))
            | (self.c_k_credit.q.val() & self.c_ge_credit.q.val()))
            | (self.k_none.val() & self.c_ge_none.q.val()));
        if self.c_ge_free.q.val() {
            self.pick_free.next = self.c_n_free.q.val();
        } else {
            self.pick_free.next = self.c_a_free.q.val();
        }
        if self.c_ge_cap.q.val() {
            self.pick_cap.next = self.c_n_cap.q.val();
        } else {
            self.pick_cap.next = self.c_a_cap.q.val();
        }
        if self.c_ge_credit.q.val() {
            self.pick_credit.next = self.c_n_credit.q.val();
        } else {
            self.pick_credit.next = self.c_a_credit.q.val();
        }
        if self.c_ge_none.q.val() {
            self.pick_none.next = self.c_n_none.q.val();
        } else {
            self.pick_none.next = self.c_acc.q.val();
        }
        if self.c_k_free.q.val() {
            self.mk_free.next = self.ones.val();
        } else {
            self.mk_free.next = 0.into();
        }
        if self.c_k_cap.q.val() {
            self.mk_cap.next = self.ones.val();
        } else {
            self.mk_cap.next = 0.into();
        }
        if self.c_k_credit.q.val() {
            self.mk_credit.next = self.ones.val();
        } else {
            self.mk_credit.next = 0.into();
        }
        if self.k_none.val() {
            self.mk_none.next = self.ones.val();
        } else {
            self.mk_none.next = 0.into();
        }
        self.req_acc_n.next = ((((self.pick_free.val() & self.mk_free.val())
            | (self.pick_cap.val() & self.mk_cap.val()))
            | (self.pick_credit.val() & self.mk_credit.val()))
            | (self.pick_none.val() & self.mk_none.val()));
        // A grant adds a batch to an active QP; an idle QP's grant first repays any debt
        // and the rest is wasted. A QP whose data ends gives its surplus up.
        if self.c_grant.q.val() {
            if (self.c_active.q.val() | self.c_granted.q.val().get_bit(31)) {
                self.credit_n.next = self.c_granted.q.val();
                self.wasted_n.next = 0.into();
            } else {
                self.credit_n.next = 0.into();
                self.wasted_n.next = self.c_granted.q.val();
            }
        } else if (!self.c_active_n.q.val() & !self.c_credit_a.q.val().get_bit(31)) {
            self.credit_n.next = 0.into();
            self.wasted_n.next = self.c_credit_a.q.val();
        } else {
            self.credit_n.next = self.c_credit_a.q.val();
            self.wasted_n.next = 0.into();
        }
        // Waiting: it asked and was refused; a grant or a send ends the wait.
        self.waiting_n.next =
            ((self.c_active_n.q.val() & !self.c_grant.q.val()) & self.c_amt_zero.q.val());
        self.new_state.next = ((bit_cast::<STATE_BITS, 32>(self.c_rem_n.q.val()) << 96)
            | (bit_cast::<STATE_BITS, 1>(self.waiting_n.val().into()) << 129)
            | (bit_cast::<STATE_BITS, 1>(self.c_active_n.q.val().into()) << 128)
            | (bit_cast::<STATE_BITS, 32>(self.req_acc_n.val()) << 64)
            | (bit_cast::<STATE_BITS, 32>(self.c_free_n.q.val()) << 32)
            | bit_cast::<STATE_BITS, 32>(self.credit_n.val()));

        self.w1_valid.d.next = self.c_valid.q.val();
        self.w1_qp.d.next = self.c_qp.q.val();
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
        // and every state three cycles earlier (testbenches/tests/formal.rs); with the
        // reset sweep writing 0 and this the only other writer, every QP's credit stays
        // >= -batch (for 1 <= batch < 2^31). The credit read, the batch and the amount
        // are the values S3a used, carried along; nothing but the property reads them
        // here, so synthesis removes the property and its registers.
        self.neg_batch.next = (0 - self.c_batch.q.val());
        self.debt_step.next =
            (self.credit_n.val().get_bit(31) & (self.credit_n.val() < self.neg_batch.val()));
        self.credit_ge_floor.next =
            (!self.c_credit.q.val().get_bit(31) | (self.c_credit.q.val() >= self.neg_batch.val()));
        // S2 worked out min(remaining, batch): the step assumes that amount is at most
        // one batch, as it is whenever the batch does not change with the event in flight.
        self.cap_ok.next = (self.c_cap1.q.val() <= self.c_batch.q.val());
        self.floor_ok.next = ((((!self.c_batch.q.val().any() | self.c_batch.q.val().get_bit(31))
            | !self.credit_ge_floor.val())
            | !self.cap_ok.val())
            | !self.debt_step.val());

        // S3c -> P1: what the outputs, OFF and the counters need; none of it loops back.
        self.u_valid.d.next = self.c_valid.q.val();
        self.u_grant.d.next = self.c_grant.q.val();
        self.u_qp.d.next = self.c_qp.q.val();
        self.u_amt.d.next = self.c_amt.q.val();
        self.u_credit_n.d.next = self.credit_n.val();
        self.u_rem_n.d.next = self.c_rem_n.q.val();
        self.u_active_n.d.next = self.c_active_n.q.val();
        self.u_waiting_n.d.next = self.waiting_n.val();
        self.u_credit.d.next = self.c_credit.q.val();
        self.u_rem.d.next = self.c_rem_old.q.val();
        self.u_active.d.next = self.c_active.q.val();
        self.u_waiting.d.next = self.c_waiting.q.val();
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
        if self.sweep.active.val() {
            self.ram.write_address.next = self.sweep.index.val();
            self.ram.write_data.next = self.init_state.val();
            self.ram.write_enable.next = true;
        }
        if self.rst.val() {
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.s3_valid.d.next = false;
            self.b_valid.d.next = false;
            self.c_valid.d.next = false;
            self.g_hold_valid.d.next = false;
            self.park_valid.d.next = false;
            // Also keeps register chains through the stages out of shift registers (a
            // shift register's output leaves less of the cycle than a flip-flop's).
            self.s3_remaining.d.next = 0.into();
            self.s3_grant.d.next = false;
            self.s3_act_cap.d.next = false;
            self.c_waiting.d.next = false;
            self.c_active.d.next = false;
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

        self.unused_bits.next = ((self.st.val().get_bits::<30>(130).any() | self.floor_ok.val())
            | self.gq.status_overflow.val());
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
        self.status_clearing.next = self.sweep.active.val();
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
