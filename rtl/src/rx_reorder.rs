//! `rx_reorder`: per-QP receive windows for sprayed RoCEv2 traffic, after the Pegasus
//! paper's receiver ordering (per QP a PSN bitmap and the positions that raise a
//! completion; docs/blocks/rx_reorder.md).
//!
//! ```text
//!         A          B           C            D             E (loop)      F..L          outputs
//! hdr ─► capture ─► RAM read ─► word as of ─► head search ─► verdict,  ─► write back, ─► m_verdict
//! qp cmd  same-QP    decode p    event n−3,    done; facts    new word     CQE lanes,     m_cqe0..2
//!         flags      (one-hot,   head search   vs the head    (one event   count/highest, m_ack
//!                    parities)   (4 variants)  and look-ahead  per cycle)   request       m_nak
//! ```
//!
//! One header is accepted every cycle, back-to-back headers of one QP included, and its
//! results leave [`RX_REORDER_LATENCY`] cycles later. Only stage E is a loop: everything a
//! header needs from the headers just ahead of it is computed earlier, for each outcome
//! they may have, and chosen in E with one LUT.
//!
//! **Per-QP state: 398 bits of block RAM + 1 flag bit (≤ 80 bytes).**
//!
//! | bits | field |
//! |---|---|
//! | 255:0 | `R`: position `i` holds bit 8 of the last PSN that arrived at `i` (PSN mod 256) |
//! | 279:256 | head: the oldest PSN not yet arrived |
//! | 280, 304:281, 336:305 | slot 0: valid, PSN, immediate |
//! | 337, 361:338, 393:362 | slot 1: valid, PSN, immediate |
//! | 394, 397:395 | enabled; owner tenant (`LOCAL_VNI` slot) |
//! | (`nak_mem`) | a retransmission request was raised at this head |
//!
//! **Circular parity bitmap.** The window of head `h` holds PSNs `h .. h+255`, PSN `y` at
//! position `y mod 256`. Everything below the head has arrived and nothing 256 or more
//! above it can have, so a position's last arrival is either `y` or `y − 256`, and its
//! bit 8 tells which: the position "has arrived" when its bit equals the parity the window
//! expects there (`h[8]`, flipped below `h`'s position). Moving the head rewrites nothing:
//! the expected parities move with it. No 256-bit shift, no clearing.
//!
//! **Moving the head.** A packet accepted at the head moves it to the first position after
//! it that has not arrived: a priority search over 256 positions in two halves (per group
//! of 16, then across groups), over the positions after p and then the wrap-around.
//! It runs in C and D on the word as of event n−3, once for each outcome of events n−1 and
//! n−2 (each may write one position); E picks the result. Events n−1 and n−2 cannot have
//! moved anything else the search reads: the bitmap changes only by arrivals.
//!
//! **Look-ahead.** Where a header falls against the head (below, beyond the window, at it)
//! and which immediate slots are pending are computed in D against the head as of event
//! n−2, and again against each head event n−1 may move to; E picks with n−1's outcome.
//!
//! **Immediates** of write-with-immediates above the head wait in the QP's two slots until
//! the head passes them; one at the head completes at once and needs no slot; a third
//! pending one is refused (`IMM_FULL`, counted, not placed) and a request naming its PSN
//! leaves with the verdict, so the sender resends it without waiting for a timeout. A slot is pending while its PSN is not below the head, so passing it
//! frees it without a write.
//!
//! **Verdicts** (`m_verdict_code`): 0 place, 1 duplicate (below head or already arrived;
//! re-acknowledged), 2 beyond the window (PSN ≥ head + `cfg_window`), 3 unknown QP
//! (≥ the QP count), 4 QP disabled or owned by another tenant, 5 no immediate slot.
//!
//! **Completions**: when the head passes write-with-immediates, up to three CQEs leave in
//! one cycle on three lanes, lane 0 first (the arriving packet), then lanes 1 and 2 in PSN
//! order; the consumer serialises them in lane order.
//!
//! **ACK** (`m_ack_*`, the new head PSN) for an accepted packet with the BTH ack-request
//! bit, for one that closes a hole (the head passes PSNs that arrived before it), and for
//! every duplicate. **Retransmission request** (`m_nak_*`: head PSN and the bitmap of
//! missing PSNs at least `cfg_ooo_thresh` behind the highest, or at least
//! `cfg_loss_after` behind once the degree reaches that bound and it is the larger; the
//! closer ones may still be in flight) only when the out-of-order
//! degree (highest arrived − head) ≥ `cfg_ooo_thresh` *and* missing × 100 ≥
//! `cfg_miss_pct` × (degree + 1), *or* the degree passes and at least `cfg_loss_after`
//! packets above the head have arrived (the age test: a lone loss never reaches the
//! share; 0 turns it off); at most one per head position. Count and degree are
//! derived from the new word's bitmap in F..I, off the loop. **A refusal the sender
//! cannot otherwise see** (verdict 2 or 5) raises a request at once that names the
//! refused PSN alone (`m_nak_psn` = that PSN, bit 0 of the bitmap), on every refusal.
//!
//! **QP commands** (`s_qp_*`) take priority over headers and rewrite the QP's word; headers
//! then wait five cycles, so no header needs a command's word forwarded.
//! **Reset** sweeps every word to zero (every QP disabled), one per cycle; headers and QP
//! commands wait (`*_ready` low) meanwhile.
//!
//! `m_hold`: downstream cannot take the results of every header in flight; raise it while
//! fewer than [`RX_REORDER_LATENCY`] + 2 results fit (headers already accepted still leave).

use crate::psn::NotBelow4x4;
use crate::ram::{BitRam, PipeRam, RamSweep};
use crate::vecops::{
    Decode256, Group16, PopGroups, RotR16, SetFinish2, SetGroups, Spread16, Sum4, Thermo256,
    MAP_APART,
};
use array_init::array_init;
use rust_hdl::prelude::*;

/// QP number width on every port.
pub const QP_BITS: usize = 16;
/// The largest receive window (positions of the per-QP bitmap).
pub const MAX_WINDOW: usize = 256;
/// Bits of the per-QP word in block RAM.
pub const STATE_BITS: usize = 398;
/// Bits per QP in all: the word plus the request-sent flag kept in distributed RAM.
pub const STATE_BITS_PER_QP: usize = STATE_BITS + 1;
/// Cycles from an accepted header to its results.
pub const RX_REORDER_LATENCY: u32 = 13;
/// Cycles headers wait after an accepted QP command (its word is written back then).
pub const QP_CMD_HOLD_CYCLES: u32 = 5;

/// Verdict codes on `m_verdict_code`.
pub mod verdict {
    pub const PLACE: u64 = 0;
    pub const DUPLICATE: u64 = 1;
    pub const BEYOND_WINDOW: u64 = 2;
    pub const UNKNOWN_QP: u64 = 3;
    pub const BAD_QP: u64 = 4;
    pub const IMM_FULL: u64 = 5;
}

#[derive(LogicBlock)]
pub struct RxReorder {
    pub clk: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    /// QP create/destroy: `enable`, the owning tenant's `LOCAL_VNI` slot and the first
    /// expected PSN. Clears the QP's window.
    pub s_qp_valid: Signal<In, Bit>,
    pub s_qp_ready: Signal<Out, Bit>,
    pub s_qp_qp: Signal<In, Bits<QP_BITS>>,
    pub s_qp_enable: Signal<In, Bit>,
    pub s_qp_vni_slot: Signal<In, Bits<3>>,
    pub s_qp_psn: Signal<In, Bits<24>>,
    /// One parsed packet header per cycle.
    pub s_hdr_valid: Signal<In, Bit>,
    pub s_hdr_ready: Signal<Out, Bit>,
    pub s_hdr_qp: Signal<In, Bits<QP_BITS>>,
    pub s_hdr_psn: Signal<In, Bits<24>>,
    /// The `LOCAL_VNI` slot the packet arrived on.
    pub s_hdr_vni_slot: Signal<In, Bits<3>>,
    pub s_hdr_ack_req: Signal<In, Bit>,
    /// Write-with-immediate: raises a CQE carrying `s_hdr_imm`.
    pub s_hdr_has_imm: Signal<In, Bit>,
    pub s_hdr_imm: Signal<In, Bits<32>>,
    /// Downstream cannot take the results of every header in flight: stop accepting.
    pub m_hold: Signal<In, Bit>,
    pub m_verdict_valid: Signal<Out, Bit>,
    pub m_verdict_code: Signal<Out, Bits<3>>,
    pub m_verdict_qp: Signal<Out, Bits<QP_BITS>>,
    pub m_verdict_psn: Signal<Out, Bits<24>>,
    pub m_cqe_qp: Signal<Out, Bits<QP_BITS>>,
    pub m_cqe0_valid: Signal<Out, Bit>,
    pub m_cqe0_psn: Signal<Out, Bits<24>>,
    pub m_cqe0_imm: Signal<Out, Bits<32>>,
    pub m_cqe1_valid: Signal<Out, Bit>,
    pub m_cqe1_psn: Signal<Out, Bits<24>>,
    pub m_cqe1_imm: Signal<Out, Bits<32>>,
    pub m_cqe2_valid: Signal<Out, Bit>,
    pub m_cqe2_psn: Signal<Out, Bits<24>>,
    pub m_cqe2_imm: Signal<Out, Bits<32>>,
    pub m_ack_valid: Signal<Out, Bit>,
    pub m_ack_psn: Signal<Out, Bits<24>>,
    pub m_nak_valid: Signal<Out, Bit>,
    pub m_nak_psn: Signal<Out, Bits<24>>,
    /// Bit j: PSN `m_nak_psn` + j is missing (within [head, highest − `cfg_ooo_thresh`],
    /// or [head, highest − `cfg_loss_after`] once the degree reaches a larger
    /// `cfg_loss_after`);
    /// for a refusal (verdict 2 or 5), `m_nak_psn` is the refused PSN and only bit 0 is set.
    pub m_nak_missing: Signal<Out, Bits<MAX_WINDOW>>,
    /// Window in PSNs (1..=256; CSR `REORDER_WINDOW`).
    pub cfg_window: Signal<In, Bits<16>>,
    pub cfg_ooo_thresh: Signal<In, Bits<16>>,
    /// Missing share threshold in percent (0..=100).
    pub cfg_miss_pct: Signal<In, Bits<7>>,
    /// A hole is a loss once this many packets above it have arrived (0 = off).
    pub cfg_loss_after: Signal<In, Bits<8>>,
    pub status_clearing: Signal<Out, Bit>,
    pub status_placed: Signal<Out, Bits<32>>,
    pub status_duplicate: Signal<Out, Bits<32>>,
    pub status_beyond_window: Signal<Out, Bits<32>>,
    pub status_unknown_qp: Signal<Out, Bits<32>>,
    pub status_bad_qp: Signal<Out, Bits<32>>,
    pub status_imm_full: Signal<Out, Bits<32>>,
    pub status_cqes: Signal<Out, Bits<32>>,
    pub status_acks: Signal<Out, Bits<32>>,
    pub status_naks: Signal<Out, Bits<32>>,

    ram: PipeRam<Bits<STATE_BITS>>,
    nak_mem: BitRam,
    dec: Decode256,
    thm: Thermo256,
    sg_f: [SetGroups; 4],
    sg_u: [SetGroups; 4],
    sf: [SetFinish2; 4],
    thm_h: Thermo256,
    grp_w: Group16,
    grp_r: Group16,
    pg: PopGroups,
    sgh_w: SetGroups,
    sgh_u: SetGroups,
    rot_hi: RotR16,
    sum_a: [Sum4; 4],
    sfh: SetFinish2,
    rot_lo: RotR16,
    la_ge: NotBelow4x4,
    sum_b: Sum4,
    ntop_dec: Decode256,
    ntop_thm: Thermo256,
    depth_m1: Constant<Bits<16>>,
    one16: Constant<Bits<16>>,
    /// Stage E's verdict, mapped apart.
    e_verdict: LoopAccept,
    /// Every position: the full-window searches' mask.
    all256: Constant<Bits<256>>,
    spread: Spread16,
    sweep: RamSweep,
    cfg_block: DFF<Bits<3>>,
    cfg_wm1: DFF<Bits<24>>,
    cfg_q: DFF<Bits<8>>,
    cfg_never: DFF<Bit>,
    /// `cfg_loss_after`, with off as 511 (no count reaches it).
    cfg_la: DFF<Bits<9>>,
    /// `cfg_loss_after` where it is above `cfg_ooo_thresh`, else 256 (no degree reaches
    /// it): the naming bound.
    cfg_la2: DFF<Bits<9>>,
    /// The age test: packets arrived above the head ≥ `cfg_loss_after`.
    k_age: DFF<Bit>,
    /// The request's conditions with the age test instead of the share test.
    l_agep: DFF<Bit>,
    a_valid: DFF<Bit>,
    a_cfg: DFF<Bit>,
    a_qp: DFF<Bits<16>>,
    a_p: DFF<Bits<24>>,
    a_vs: DFF<Bits<3>>,
    a_ackreq: DFF<Bit>,
    a_hasimm: DFF<Bit>,
    a_imm: DFF<Bits<32>>,
    a_en: DFF<Bit>,
    b_valid: DFF<Bit>,
    b_cfg: DFF<Bit>,
    b_qp: DFF<Bits<16>>,
    b_p: DFF<Bits<24>>,
    b_vs: DFF<Bits<3>>,
    b_ackreq: DFF<Bit>,
    b_hasimm: DFF<Bit>,
    b_imm: DFF<Bits<32>>,
    b_en: DFF<Bit>,
    b_known: DFF<Bit>,
    b_writes: DFF<Bit>,
    c_valid: DFF<Bit>,
    c_cfg: DFF<Bit>,
    c_qp: DFF<Bits<16>>,
    c_p: DFF<Bits<24>>,
    c_vs: DFF<Bits<3>>,
    c_ackreq: DFF<Bit>,
    c_hasimm: DFF<Bit>,
    c_imm: DFF<Bits<32>>,
    c_en: DFF<Bit>,
    c_known: DFF<Bit>,
    c_writes: DFF<Bit>,
    d_valid: DFF<Bit>,
    d_cfg: DFF<Bit>,
    d_qp: DFF<Bits<16>>,
    d_p: DFF<Bits<24>>,
    d_vs: DFF<Bits<3>>,
    d_ackreq: DFF<Bit>,
    d_hasimm: DFF<Bit>,
    d_imm: DFF<Bits<32>>,
    d_en: DFF<Bit>,
    d_known: DFF<Bit>,
    d_writes: DFF<Bit>,
    e_valid: DFF<Bit>,
    e_cfg: DFF<Bit>,
    e_qp: DFF<Bits<16>>,
    e_p: DFF<Bits<24>>,
    e_vs: DFF<Bits<3>>,
    e_ackreq: DFF<Bit>,
    e_hasimm: DFF<Bit>,
    e_imm: DFF<Bits<32>>,
    e_en: DFF<Bit>,
    e_known: DFF<Bit>,
    e_writes: DFF<Bit>,
    b_s1: DFF<Bit>,
    b_s2: DFF<Bit>,
    b_s3: DFF<Bit>,
    b_s4: DFF<Bit>,
    b_s5: DFF<Bit>,
    b_oh: DFF<Bits<256>>,
    b_t: DFF<Bits<256>>,
    b_p1: DFF<Bits<24>>,
    b_pw: DFF<Bits<24>>,
    b_phi1: DFF<Bits<16>>,
    c_s1: DFF<Bit>,
    c_s2: DFF<Bit>,
    c_s3: DFF<Bit>,
    c_oh: DFF<Bits<256>>,
    c_e: DFF<Bits<256>>,
    c_m: DFF<Bits<256>>,
    c_v10: DFF<Bits<256>>,
    c_v01: DFF<Bits<256>>,
    c_f11: DFF<Bits<256>>,
    c_v11: DFF<Bits<256>>,
    /// The QP's word as of event n−4: read from the RAM, or the word of event n−4 or
    /// n−5, which the RAM does not hold yet; chosen in B, so C starts from a register.
    c_rword: DFF<Bits<STATE_BITS>>,
    /// C's bitmap as "not arrived" in this PSN's window (XOR the expected parities): the
    /// loop's bitmap before event n−3's arrival when n−3 is the same QP (`w_r` in C),
    /// else that of `c_rword`. For C's searches, which add n−3's arrival on their own:
    /// `c_oh3` is its position when it is the same QP, `c_v3` "not arrived" with its
    /// parity, and the loop's `w_pacc_g` says whether it was accepted.
    c_zr: DFF<Bits<256>>,
    c_oh3: DFF<Bits<256>>,
    c_v3: DFF<Bits<256>>,
    c_p1: DFF<Bits<24>>,
    c_pw: DFF<Bits<24>>,
    c_phi1: DFF<Bits<16>>,
    d_s1: DFF<Bit>,
    d_s2: DFF<Bit>,
    d_oh: DFF<Bits<256>>,
    d_e: DFF<Bits<256>>,
    d_state: DFF<Bits<STATE_BITS>>,
    d_p1: DFF<Bits<24>>,
    d_pw: DFF<Bits<24>>,
    d_phi1: DFF<Bits<16>>,
    e_s1: DFF<Bit>,
    /// A copy of `e_s1` for the 380-bit word mux alone (no reset, so it is not merged).
    e_s1r: DFF<Bit>,
    /// A copy of `d_s2` for the 398-bit word mux alone.
    d_s2r: DFF<Bit>,
    e_s2: DFF<Bit>,
    e_oh: DFF<Bits<256>>,
    e_e: DFF<Bits<256>>,
    e_state: DFF<Bits<STATE_BITS>>,
    e_below_d: DFF<Bit>,
    e_nw_d: DFF<Bit>,
    e_ath_d: DFF<Bit>,
    e_seen_d: DFF<Bit>,
    e_ge0_d: DFF<Bit>,
    e_ge1_d: DFF<Bit>,
    e_below_s: DFF<Bit>,
    e_nw_s: DFF<Bit>,
    e_ath_s: DFF<Bit>,
    e_ge0_s: DFF<Bit>,
    e_ge1_s: DFF<Bit>,
    /// Event n−2 was this QP's and was accepted (registered a cycle early from
    /// `d_s2` and `w_pacc`): picks the look-ahead variant in D and the head in E.
    e_b2: DFF<Bit>,
    /// A slot is valid and pending against the head D compared with: E's answer when
    /// event n−1 is another QP's.
    e_eff0n: DFF<Bit>,
    e_eff1n: DFF<Bit>,
    /// Valid header, known QP, enabled and owned by the arriving tenant: the part of the
    /// acceptance that does not depend on the events ahead.
    e_g0: DFF<Bit>,
    e_eqx: DFF<Bit>,
    e_parm: DFF<Bit>,
    e_p1: DFF<Bits<24>>,
    w_valid: DFF<Bit>,
    w_cfg: DFF<Bit>,
    w_writes: DFF<Bit>,
    w_qp: DFF<Bits<16>>,
    w_r: DFF<Bits<256>>,
    w_pacc: DFF<Bit>,
    /// `w_pacc` per group of 16 positions (the group of the PSN): the pending arrival's
    /// enable reaches each bitmap bit through a net of 16 loads, not 256.
    w_pacc_g: DFF<Bits<16>>,
    e_grp: DFF<Bits<16>>,
    w_pacc_d: DFF<Bit>,
    w_poh: DFF<Bits<256>>,
    w_ppar: DFF<Bit>,
    /// `w_ppar` again, for the "seen" bit in C and D alone (no reset, so it is not
    /// merged with `w_ppar`, whose net reaches about 500 loads).
    w_ppar_s: DFF<Bit>,
    /// n−2 is D's QP and its PSN at the position of D's (registered in C).
    d_s2eq: DFF<Bit>,
    /// C's PSN at the position of n−3's (registered in B).
    c_eq3: DFF<Bit>,
    /// D's group of 16 positions in the word as of event n−3, and whether n−3 (the same
    /// QP, accepted at D's position) decides the bit instead, with its parity (from C).
    d_rs16: DFF<Bits<16>>,
    d_fw3: DFF<Bit>,
    d_par3: DFF<Bit>,
    w_h: DFF<Bits<24>>,
    w_v0: DFF<Bit>,
    w_v1: DFF<Bit>,
    w_psn0: DFF<Bits<24>>,
    w_psn1: DFF<Bits<24>>,
    w_imm0: DFF<Bits<32>>,
    w_imm1: DFF<Bits<32>>,
    w_en: DFF<Bit>,
    w_vni: DFF<Bits<3>>,
    w_adv: DFF<Bit>,
    w_ins0: DFF<Bit>,
    w_ins1: DFF<Bit>,
    w_known: DFF<Bit>,
    w_enok: DFF<Bit>,
    w_below: DFF<Bit>,
    w_nw: DFF<Bit>,
    w_seen: DFF<Bit>,
    w_full: DFF<Bit>,
    w_hasimm: DFF<Bit>,
    w_ath: DFF<Bit>,
    w_p: DFF<Bits<24>>,
    w_p1: DFF<Bits<24>>,
    w_imm_in: DFF<Bits<32>>,
    w_ackreq: DFF<Bit>,
    w_s: DFF<Bits<24>>,
    w_rel0_psn: DFF<Bits<24>>,
    w_rel1_psn: DFF<Bits<24>>,
    w_rel0_imm: DFF<Bits<32>>,
    w_rel1_imm: DFF<Bits<32>>,
    w_eff0: DFF<Bit>,
    w_eff1: DFF<Bit>,
    w2_word: DFF<Bits<STATE_BITS>>,
    w3_word: DFF<Bits<STATE_BITS>>,
    g_valid: DFF<Bit>,
    g_wr: DFF<Bit>,
    g_cfg: DFF<Bit>,
    g_qp: DFF<Bits<16>>,
    g_p: DFF<Bits<24>>,
    g_imm: DFF<Bits<32>>,
    g_code: DFF<Bits<3>>,
    g_acc: DFF<Bit>,
    g_adv: DFF<Bit>,
    g_cqe0: DFF<Bit>,
    g_cqe1: DFF<Bit>,
    g_cqe2: DFF<Bit>,
    g_cqe1_psn: DFF<Bits<24>>,
    g_cqe2_psn: DFF<Bits<24>>,
    g_cqe1_imm: DFF<Bits<32>>,
    g_cqe2_imm: DFF<Bits<32>>,
    g_ack: DFF<Bit>,
    g_h: DFF<Bits<24>>,
    h_valid: DFF<Bit>,
    h_wr: DFF<Bit>,
    h_cfg: DFF<Bit>,
    h_qp: DFF<Bits<16>>,
    h_p: DFF<Bits<24>>,
    h_imm: DFF<Bits<32>>,
    h_code: DFF<Bits<3>>,
    h_acc: DFF<Bit>,
    h_adv: DFF<Bit>,
    h_cqe0: DFF<Bit>,
    h_cqe1: DFF<Bit>,
    h_cqe2: DFF<Bit>,
    h_cqe1_psn: DFF<Bits<24>>,
    h_cqe2_psn: DFF<Bits<24>>,
    h_cqe1_imm: DFF<Bits<32>>,
    h_cqe2_imm: DFF<Bits<32>>,
    h_ack: DFF<Bit>,
    h_h: DFF<Bits<24>>,
    i_valid: DFF<Bit>,
    i_wr: DFF<Bit>,
    i_cfg: DFF<Bit>,
    i_qp: DFF<Bits<16>>,
    i_p: DFF<Bits<24>>,
    i_imm: DFF<Bits<32>>,
    i_code: DFF<Bits<3>>,
    i_acc: DFF<Bit>,
    i_adv: DFF<Bit>,
    i_cqe0: DFF<Bit>,
    i_cqe1: DFF<Bit>,
    i_cqe2: DFF<Bit>,
    i_cqe1_psn: DFF<Bits<24>>,
    i_cqe2_psn: DFF<Bits<24>>,
    i_cqe1_imm: DFF<Bits<32>>,
    i_cqe2_imm: DFF<Bits<32>>,
    i_ack: DFF<Bit>,
    i_h: DFF<Bits<24>>,
    j_valid: DFF<Bit>,
    j_wr: DFF<Bit>,
    j_cfg: DFF<Bit>,
    j_qp: DFF<Bits<16>>,
    j_p: DFF<Bits<24>>,
    j_imm: DFF<Bits<32>>,
    j_code: DFF<Bits<3>>,
    j_acc: DFF<Bit>,
    j_adv: DFF<Bit>,
    j_cqe0: DFF<Bit>,
    j_cqe1: DFF<Bit>,
    j_cqe2: DFF<Bit>,
    j_cqe1_psn: DFF<Bits<24>>,
    j_cqe2_psn: DFF<Bits<24>>,
    j_cqe1_imm: DFF<Bits<32>>,
    j_cqe2_imm: DFF<Bits<32>>,
    j_ack: DFF<Bit>,
    j_h: DFF<Bits<24>>,
    k_valid: DFF<Bit>,
    k_wr: DFF<Bit>,
    k_cfg: DFF<Bit>,
    k_qp: DFF<Bits<16>>,
    k_p: DFF<Bits<24>>,
    k_imm: DFF<Bits<32>>,
    k_code: DFF<Bits<3>>,
    k_acc: DFF<Bit>,
    k_adv: DFF<Bit>,
    k_cqe0: DFF<Bit>,
    k_cqe1: DFF<Bit>,
    k_cqe2: DFF<Bit>,
    k_cqe1_psn: DFF<Bits<24>>,
    k_cqe2_psn: DFF<Bits<24>>,
    k_cqe1_imm: DFF<Bits<32>>,
    k_cqe2_imm: DFF<Bits<32>>,
    k_ack: DFF<Bit>,
    k_h: DFF<Bits<24>>,
    l_valid: DFF<Bit>,
    l_wr: DFF<Bit>,
    l_cfg: DFF<Bit>,
    l_qp: DFF<Bits<16>>,
    l_p: DFF<Bits<24>>,
    l_imm: DFF<Bits<32>>,
    l_code: DFF<Bits<3>>,
    l_acc: DFF<Bit>,
    l_adv: DFF<Bit>,
    l_cqe0: DFF<Bit>,
    l_cqe1: DFF<Bit>,
    l_cqe2: DFF<Bit>,
    l_cqe1_psn: DFF<Bits<24>>,
    l_cqe2_psn: DFF<Bits<24>>,
    l_cqe1_imm: DFF<Bits<32>>,
    l_cqe2_imm: DFF<Bits<32>>,
    l_ack: DFF<Bit>,
    l_h: DFF<Bits<24>>,
    g_arr: DFF<Bits<256>>,
    g_rel0: DFF<Bit>,
    g_rel1: DFF<Bit>,
    g_ord: DFF<Bit>,
    g_t: DFF<Bits<256>>,
    h_cnt16: DFF<Bits<80>>,
    h_hw_any: DFF<Bits<16>>,
    h_hu_any: DFF<Bits<16>>,
    h_hw_idx: DFF<Bits<64>>,
    h_hu_idx: DFF<Bits<64>>,
    h_rot: DFF<Bits<256>>,
    i_pos: DFF<Bits<8>>,
    i_found: DFF<Bit>,
    i_rot: DFF<Bits<256>>,
    j_count: DFF<Bits<9>>,
    j_hi: DFF<Bits<8>>,
    j_ntop: DFF<Bits<8>>,
    /// hi − `cfg_la2`, and hi < `cfg_la2` (its sign): with the age test's bound above the
    /// out-of-order threshold and reached, the request names only the PSNs at least the
    /// bound behind the highest (the ones closer may still be in flight).
    j_ntopl: DFF<Bits<8>>,
    j_hlow: DFF<Bit>,
    /// The naming bound's offset: `j_ntopl` or `j_ntop`.
    ntop_sel: Signal<Local, Bits<8>>,
    i_hil: Signal<Local, Bits<9>>,
    /// The partial products of span × q, each span (hi + 1) already gated by its bit of
    /// q at I: the gate shares the increment's LUT there, not a LUT level at J.
    j_pp: [DFF<Bits<9>>; 7],
    j_found: DFF<Bit>,
    j_rot: DFF<Bits<256>>,
    k_ooo: DFF<Bit>,
    k_found: DFF<Bit>,
    k_missing: DFF<Bits<256>>,
    k_l0123: DFF<Bits<17>>,
    k_l456: DFF<Bits<17>>,
    k_c100: DFF<Bits<17>>,
    /// NAK condition without the share test: accepted, found, out of order, and NAKs on.
    l_okp: DFF<Bit>,
    /// The share test's sign: missing share below the threshold. Kept apart from `l_okp`
    /// so the AND is made at L, where it joins the flag logic's LUT, not after K's carry.
    l_neg: DFF<Bit>,
    l_ok: Signal<Local, Bit>,
    /// Refused for want of room (no immediate slot, or beyond the window): a request
    /// naming the header's own PSN leaves with its verdict.
    l_ref: DFF<Bit>,
    l_rd: DFF<Bit>,
    k_rd: DFF<Bit>,
    lw_en: DFF<Bit>,
    lw_qp: DFF<Bits<16>>,
    lw_data: DFF<Bit>,
    l_wdata: Signal<Local, Bit>,
    l_missing: DFF<Bits<256>>,
    l_ncqe: DFF<Bits<2>>,
    o_valid: DFF<Bit>,
    o_code: DFF<Bits<3>>,
    o_qp: DFF<Bits<16>>,
    o_p: DFF<Bits<24>>,
    o_imm: DFF<Bits<32>>,
    o_cqe0: DFF<Bit>,
    o_cqe1: DFF<Bit>,
    o_cqe2: DFF<Bit>,
    o_cqe1_psn: DFF<Bits<24>>,
    o_cqe2_psn: DFF<Bits<24>>,
    o_cqe1_imm: DFF<Bits<32>>,
    o_cqe2_imm: DFF<Bits<32>>,
    o_ack: DFF<Bit>,
    o_h: DFF<Bits<24>>,
    o_nak: DFF<Bit>,
    o_nak_psn: DFF<Bits<24>>,
    o_missing: DFF<Bits<256>>,
    o_ncqe: DFF<Bits<2>>,
    cnt_placed: DFF<Bits<32>>,
    cnt_duplicate: DFF<Bits<32>>,
    cnt_beyond: DFF<Bits<32>>,
    cnt_unknown: DFF<Bits<32>>,
    cnt_bad_qp: DFF<Bits<32>>,
    cnt_imm_full: DFF<Bits<32>>,
    cnt_cqes: DFF<Bits<32>>,
    cnt_acks: DFF<Bits<32>>,
    cnt_naks: DFF<Bits<32>>,
    d_gf_any: [DFF<Bits<16>>; 4],
    d_gf_idx: [DFF<Bits<64>>; 4],
    d_gu_any: [DFF<Bits<16>>; 4],
    d_gu_idx: [DFF<Bits<64>>; 4],
    e_sv: [DFF<Bits<24>>; 4],
    i_sum4: [DFF<Bits<7>>; 4],
    ev_cfg: Signal<Local, Bit>,
    ev_hdr: Signal<Local, Bit>,
    a_known: Signal<Local, Bit>,
    w_r_applied: Signal<Local, Bits<256>>,
    w_pset: Signal<Local, Bits<256>>,
    w_word: Signal<Local, Bits<STATE_BITS>>,
    c_state: Signal<Local, Bits<STATE_BITS>>,
    d_word: Signal<Local, Bits<STATE_BITS>>,
    b_e: Signal<Local, Bits<256>>,
    b_v10: Signal<Local, Bits<256>>,
    b_v01: Signal<Local, Bits<256>>,
    z00: Signal<Local, Bits<256>>,
    z10: Signal<Local, Bits<256>>,
    z01: Signal<Local, Bits<256>>,
    z11: Signal<Local, Bits<256>>,
    d_h: Signal<Local, Bits<24>>,
    d_dp: Signal<Local, Bits<24>>,
    d_dw: Signal<Local, Bits<24>>,
    d_g0: Signal<Local, Bits<24>>,
    d_g0w: Signal<Local, Bits<24>>,
    d_g1w: Signal<Local, Bits<24>>,
    d_g1: Signal<Local, Bits<24>>,
    la_a: Signal<Local, Bit>,
    la_b: Signal<Local, Bit>,
    la_sel: Signal<Local, Bits<2>>,
    x_r: Signal<Local, Bits<256>>,
    x_h: Signal<Local, Bits<24>>,
    x_psn0: Signal<Local, Bits<24>>,
    x_psn1: Signal<Local, Bits<24>>,
    x_s: Signal<Local, Bits<24>>,
    x_imm0: Signal<Local, Bits<32>>,
    x_imm1: Signal<Local, Bits<32>>,
    x_en: Signal<Local, Bit>,
    x_vni: Signal<Local, Bits<3>>,
    x_below: Signal<Local, Bit>,
    x_nw: Signal<Local, Bit>,
    x_ath: Signal<Local, Bit>,
    x_seen: Signal<Local, Bit>,
    x_eff0: Signal<Local, Bit>,
    x_eff1: Signal<Local, Bit>,
    x_enok: Signal<Local, Bit>,
    x_acc: Signal<Local, Bit>,
    x_adv: Signal<Local, Bit>,
    x_ins0: Signal<Local, Bit>,
    x_ins1: Signal<Local, Bit>,
    x_a: Signal<Local, Bit>,
    f_code: Signal<Local, Bits<3>>,
    f_d0: Signal<Local, Bits<24>>,
    f_d1: Signal<Local, Bits<24>>,
    f_d01: Signal<Local, Bits<24>>,
    f_rel0: Signal<Local, Bit>,
    f_rel1: Signal<Local, Bit>,
    f_e: Signal<Local, Bits<256>>,
    i_hi: Signal<Local, Bits<8>>,
    l_sent: Signal<Local, Bit>,
    l_nak: Signal<Local, Bit>,
    unused_bits: Signal<Local, Bit>,
    hi_g: [Signal<Local, Bits<8>>; 7],
    pp0: Signal<Local, Bits<17>>,
    pp1: Signal<Local, Bits<17>>,
    pp2: Signal<Local, Bits<17>>,
    pp3: Signal<Local, Bits<17>>,
    pp4: Signal<Local, Bits<17>>,
    pp5: Signal<Local, Bits<17>>,
    pp6: Signal<Local, Bits<17>>,
    cs_s1: Signal<Local, Bits<17>>,
    cs_c1: Signal<Local, Bits<17>>,
    cs_s2: Signal<Local, Bits<17>>,
    cs_c2: Signal<Local, Bits<17>>,
    cs_s3: Signal<Local, Bits<17>>,
    cs_c3: Signal<Local, Bits<17>>,
    cs_s4: Signal<Local, Bits<17>>,
    cs_c4: Signal<Local, Bits<17>>,
    cs_a: Signal<Local, Bits<17>>,
    cs_b: Signal<Local, Bits<17>>,
    cs_c: Signal<Local, Bits<17>>,
    k_nc: Signal<Local, Bits<17>>,
    k_s: Signal<Local, Bits<17>>,
    k_cy: Signal<Local, Bits<17>>,
    k_diff: Signal<Local, Bits<17>>,
    c_rs16: Signal<Local, Bits<16>>,
    b_rword: Signal<Local, Bits<STATE_BITS>>,
    w_pset_z: Signal<Local, Bits<256>>,
    x_rw: Signal<Local, Bits<256>>,
    d_rs: Signal<Local, Bit>,
    la_dp: [Signal<Local, Bits<24>>; 4],
    la_dw: [Signal<Local, Bits<24>>; 4],
}

impl RxReorder {
    /// RAM bits for `qps` QP contexts: the window word and the NAK bit of each.
    pub fn ram_bits(qps: usize) -> usize {
        qps * STATE_BITS_PER_QP
    }

    /// `qps`: QP contexts (a power of two, 2..=65536).
    pub fn new(qps: usize) -> Self {
        Self {
            clk: Default::default(),
            rst: Default::default(),
            s_qp_valid: Default::default(),
            s_qp_ready: Default::default(),
            s_qp_qp: Default::default(),
            s_qp_enable: Default::default(),
            s_qp_vni_slot: Default::default(),
            s_qp_psn: Default::default(),
            s_hdr_valid: Default::default(),
            s_hdr_ready: Default::default(),
            s_hdr_qp: Default::default(),
            s_hdr_psn: Default::default(),
            s_hdr_vni_slot: Default::default(),
            s_hdr_ack_req: Default::default(),
            s_hdr_has_imm: Default::default(),
            s_hdr_imm: Default::default(),
            m_hold: Default::default(),
            m_verdict_valid: Default::default(),
            m_verdict_code: Default::default(),
            m_verdict_qp: Default::default(),
            m_verdict_psn: Default::default(),
            m_cqe_qp: Default::default(),
            m_cqe0_valid: Default::default(),
            m_cqe0_psn: Default::default(),
            m_cqe0_imm: Default::default(),
            m_cqe1_valid: Default::default(),
            m_cqe1_psn: Default::default(),
            m_cqe1_imm: Default::default(),
            m_cqe2_valid: Default::default(),
            m_cqe2_psn: Default::default(),
            m_cqe2_imm: Default::default(),
            m_ack_valid: Default::default(),
            m_ack_psn: Default::default(),
            m_nak_valid: Default::default(),
            m_nak_psn: Default::default(),
            m_nak_missing: Default::default(),
            cfg_window: Default::default(),
            cfg_ooo_thresh: Default::default(),
            cfg_miss_pct: Default::default(),
            cfg_loss_after: Default::default(),
            status_clearing: Default::default(),
            status_placed: Default::default(),
            status_duplicate: Default::default(),
            status_beyond_window: Default::default(),
            status_unknown_qp: Default::default(),
            status_bad_qp: Default::default(),
            status_imm_full: Default::default(),
            status_cqes: Default::default(),
            status_acks: Default::default(),
            status_naks: Default::default(),
            ram: PipeRam::new_one_reg(qps),
            nak_mem: BitRam::new(qps),
            dec: Default::default(),
            thm: Default::default(),
            sg_f: array_init(|_| SetGroups::new(false)),
            sg_u: array_init(|_| SetGroups::new(false)),
            sf: array_init(|_| SetFinish2::new_apart(false)),
            thm_h: Default::default(),
            grp_w: Default::default(),
            grp_r: Default::default(),
            pg: Default::default(),
            sgh_w: SetGroups::new_apart(true, false),
            sgh_u: SetGroups::new_apart(true, true),
            rot_hi: RotR16::new(16),
            sum_a: array_init(|_| Sum4::default()),
            sfh: SetFinish2::new_apart(true),
            rot_lo: RotR16::new(1),
            la_ge: Default::default(),
            sum_b: Default::default(),
            ntop_dec: Default::default(),
            ntop_thm: Default::default(),
            depth_m1: Constant::new(((qps - 1) as LiteralType).into()),
            one16: Constant::new(1.into()),
            all256: Constant::new(Bits::<256>::mask()),
            e_verdict: Default::default(),
            spread: Default::default(),
            sweep: RamSweep::new(qps),
            cfg_block: Default::default(),
            cfg_wm1: Default::default(),
            cfg_q: Default::default(),
            cfg_never: Default::default(),
            cfg_la: Default::default(),
            cfg_la2: Default::default(),
            k_age: Default::default(),
            l_agep: Default::default(),
            a_valid: Default::default(),
            a_cfg: Default::default(),
            a_qp: Default::default(),
            a_p: Default::default(),
            a_vs: Default::default(),
            a_ackreq: Default::default(),
            a_hasimm: Default::default(),
            a_imm: Default::default(),
            a_en: Default::default(),
            b_valid: Default::default(),
            b_cfg: Default::default(),
            b_qp: Default::default(),
            b_p: Default::default(),
            b_vs: Default::default(),
            b_ackreq: Default::default(),
            b_hasimm: Default::default(),
            b_imm: Default::default(),
            b_en: Default::default(),
            b_known: Default::default(),
            b_writes: Default::default(),
            c_valid: Default::default(),
            c_cfg: Default::default(),
            c_qp: Default::default(),
            c_p: Default::default(),
            c_vs: Default::default(),
            c_ackreq: Default::default(),
            c_hasimm: Default::default(),
            c_imm: Default::default(),
            c_en: Default::default(),
            c_known: Default::default(),
            c_writes: Default::default(),
            d_valid: Default::default(),
            d_cfg: Default::default(),
            d_qp: Default::default(),
            d_p: Default::default(),
            d_vs: Default::default(),
            d_ackreq: Default::default(),
            d_hasimm: Default::default(),
            d_imm: Default::default(),
            d_en: Default::default(),
            d_known: Default::default(),
            d_writes: Default::default(),
            e_valid: Default::default(),
            e_cfg: Default::default(),
            e_qp: Default::default(),
            e_p: Default::default(),
            e_vs: Default::default(),
            e_ackreq: Default::default(),
            e_hasimm: Default::default(),
            e_imm: Default::default(),
            e_en: Default::default(),
            e_known: Default::default(),
            e_writes: Default::default(),
            b_s1: Default::default(),
            b_s2: Default::default(),
            b_s3: Default::default(),
            b_s4: Default::default(),
            b_s5: Default::default(),
            b_oh: Default::default(),
            b_t: Default::default(),
            b_p1: Default::default(),
            b_pw: Default::default(),
            b_phi1: Default::default(),
            c_s1: Default::default(),
            c_s2: Default::default(),
            c_s3: Default::default(),
            c_oh: Default::default(),
            c_e: Default::default(),
            c_m: Default::default(),
            c_v10: Default::default(),
            c_v01: Default::default(),
            c_f11: Default::default(),
            c_v11: Default::default(),
            c_rword: Default::default(),
            c_zr: Default::default(),
            c_oh3: Default::default(),
            c_v3: Default::default(),
            c_p1: Default::default(),
            c_pw: Default::default(),
            c_phi1: Default::default(),
            d_s1: Default::default(),
            d_s2: Default::default(),
            d_oh: Default::default(),
            d_e: Default::default(),
            d_state: Default::default(),
            d_p1: Default::default(),
            d_pw: Default::default(),
            d_phi1: Default::default(),
            e_s1: Default::default(),
            e_s1r: Default::default(),
            d_s2r: Default::default(),
            e_s2: Default::default(),
            e_oh: Default::default(),
            e_e: Default::default(),
            e_state: Default::default(),
            e_below_d: Default::default(),
            e_nw_d: Default::default(),
            e_ath_d: Default::default(),
            e_seen_d: Default::default(),
            e_ge0_d: Default::default(),
            e_ge1_d: Default::default(),
            e_below_s: Default::default(),
            e_nw_s: Default::default(),
            e_ath_s: Default::default(),
            e_ge0_s: Default::default(),
            e_ge1_s: Default::default(),
            e_b2: Default::default(),
            e_eff0n: Default::default(),
            e_eff1n: Default::default(),
            e_g0: Default::default(),
            e_eqx: Default::default(),
            e_parm: Default::default(),
            e_p1: Default::default(),
            w_valid: Default::default(),
            w_cfg: Default::default(),
            w_writes: Default::default(),
            w_qp: Default::default(),
            w_r: Default::default(),
            w_pacc: Default::default(),
            w_pacc_g: Default::default(),
            e_grp: Default::default(),
            w_pacc_d: Default::default(),
            w_poh: Default::default(),
            w_ppar: Default::default(),
            w_ppar_s: Default::default(),
            d_s2eq: Default::default(),
            c_eq3: Default::default(),
            d_rs16: Default::default(),
            d_fw3: Default::default(),
            d_par3: Default::default(),
            w_h: Default::default(),
            w_v0: Default::default(),
            w_v1: Default::default(),
            w_psn0: Default::default(),
            w_psn1: Default::default(),
            w_imm0: Default::default(),
            w_imm1: Default::default(),
            w_en: Default::default(),
            w_vni: Default::default(),
            w_adv: Default::default(),
            w_ins0: Default::default(),
            w_ins1: Default::default(),
            w_known: Default::default(),
            w_enok: Default::default(),
            w_below: Default::default(),
            w_nw: Default::default(),
            w_seen: Default::default(),
            w_full: Default::default(),
            w_hasimm: Default::default(),
            w_ath: Default::default(),
            w_p: Default::default(),
            w_p1: Default::default(),
            w_imm_in: Default::default(),
            w_ackreq: Default::default(),
            w_s: Default::default(),
            w_rel0_psn: Default::default(),
            w_rel1_psn: Default::default(),
            w_rel0_imm: Default::default(),
            w_rel1_imm: Default::default(),
            w_eff0: Default::default(),
            w_eff1: Default::default(),
            w2_word: Default::default(),
            w3_word: Default::default(),
            g_valid: Default::default(),
            g_wr: Default::default(),
            g_cfg: Default::default(),
            g_qp: Default::default(),
            g_p: Default::default(),
            g_imm: Default::default(),
            g_code: Default::default(),
            g_acc: Default::default(),
            g_adv: Default::default(),
            g_cqe0: Default::default(),
            g_cqe1: Default::default(),
            g_cqe2: Default::default(),
            g_cqe1_psn: Default::default(),
            g_cqe2_psn: Default::default(),
            g_cqe1_imm: Default::default(),
            g_cqe2_imm: Default::default(),
            g_ack: Default::default(),
            g_h: Default::default(),
            h_valid: Default::default(),
            h_wr: Default::default(),
            h_cfg: Default::default(),
            h_qp: Default::default(),
            h_p: Default::default(),
            h_imm: Default::default(),
            h_code: Default::default(),
            h_acc: Default::default(),
            h_adv: Default::default(),
            h_cqe0: Default::default(),
            h_cqe1: Default::default(),
            h_cqe2: Default::default(),
            h_cqe1_psn: Default::default(),
            h_cqe2_psn: Default::default(),
            h_cqe1_imm: Default::default(),
            h_cqe2_imm: Default::default(),
            h_ack: Default::default(),
            h_h: Default::default(),
            i_valid: Default::default(),
            i_wr: Default::default(),
            i_cfg: Default::default(),
            i_qp: Default::default(),
            i_p: Default::default(),
            i_imm: Default::default(),
            i_code: Default::default(),
            i_acc: Default::default(),
            i_adv: Default::default(),
            i_cqe0: Default::default(),
            i_cqe1: Default::default(),
            i_cqe2: Default::default(),
            i_cqe1_psn: Default::default(),
            i_cqe2_psn: Default::default(),
            i_cqe1_imm: Default::default(),
            i_cqe2_imm: Default::default(),
            i_ack: Default::default(),
            i_h: Default::default(),
            j_valid: Default::default(),
            j_wr: Default::default(),
            j_cfg: Default::default(),
            j_qp: Default::default(),
            j_p: Default::default(),
            j_imm: Default::default(),
            j_code: Default::default(),
            j_acc: Default::default(),
            j_adv: Default::default(),
            j_cqe0: Default::default(),
            j_cqe1: Default::default(),
            j_cqe2: Default::default(),
            j_cqe1_psn: Default::default(),
            j_cqe2_psn: Default::default(),
            j_cqe1_imm: Default::default(),
            j_cqe2_imm: Default::default(),
            j_ack: Default::default(),
            j_h: Default::default(),
            k_valid: Default::default(),
            k_wr: Default::default(),
            k_cfg: Default::default(),
            k_qp: Default::default(),
            k_p: Default::default(),
            k_imm: Default::default(),
            k_code: Default::default(),
            k_acc: Default::default(),
            k_adv: Default::default(),
            k_cqe0: Default::default(),
            k_cqe1: Default::default(),
            k_cqe2: Default::default(),
            k_cqe1_psn: Default::default(),
            k_cqe2_psn: Default::default(),
            k_cqe1_imm: Default::default(),
            k_cqe2_imm: Default::default(),
            k_ack: Default::default(),
            k_h: Default::default(),
            l_valid: Default::default(),
            l_wr: Default::default(),
            l_cfg: Default::default(),
            l_qp: Default::default(),
            l_p: Default::default(),
            l_imm: Default::default(),
            l_code: Default::default(),
            l_acc: Default::default(),
            l_adv: Default::default(),
            l_cqe0: Default::default(),
            l_cqe1: Default::default(),
            l_cqe2: Default::default(),
            l_cqe1_psn: Default::default(),
            l_cqe2_psn: Default::default(),
            l_cqe1_imm: Default::default(),
            l_cqe2_imm: Default::default(),
            l_ack: Default::default(),
            l_h: Default::default(),
            g_arr: Default::default(),
            g_rel0: Default::default(),
            g_rel1: Default::default(),
            g_ord: Default::default(),
            g_t: Default::default(),
            h_cnt16: Default::default(),
            h_hw_any: Default::default(),
            h_hu_any: Default::default(),
            h_hw_idx: Default::default(),
            h_hu_idx: Default::default(),
            h_rot: Default::default(),
            i_pos: Default::default(),
            i_found: Default::default(),
            i_rot: Default::default(),
            j_count: Default::default(),
            j_hi: Default::default(),
            j_ntop: Default::default(),
            j_ntopl: Default::default(),
            j_hlow: Default::default(),
            ntop_sel: Default::default(),
            i_hil: Default::default(),
            j_pp: array_init(|_| Default::default()),
            j_found: Default::default(),
            j_rot: Default::default(),
            k_ooo: Default::default(),
            k_found: Default::default(),
            k_missing: Default::default(),
            k_l0123: Default::default(),
            k_l456: Default::default(),
            k_c100: Default::default(),
            l_okp: Default::default(),
            l_ref: Default::default(),
            l_neg: Default::default(),
            l_ok: Default::default(),
            l_rd: Default::default(),
            k_rd: Default::default(),
            lw_en: Default::default(),
            lw_qp: Default::default(),
            lw_data: Default::default(),
            l_wdata: Default::default(),
            l_missing: Default::default(),
            l_ncqe: Default::default(),
            o_valid: Default::default(),
            o_code: Default::default(),
            o_qp: Default::default(),
            o_p: Default::default(),
            o_imm: Default::default(),
            o_cqe0: Default::default(),
            o_cqe1: Default::default(),
            o_cqe2: Default::default(),
            o_cqe1_psn: Default::default(),
            o_cqe2_psn: Default::default(),
            o_cqe1_imm: Default::default(),
            o_cqe2_imm: Default::default(),
            o_ack: Default::default(),
            o_h: Default::default(),
            o_nak: Default::default(),
            o_nak_psn: Default::default(),
            o_missing: Default::default(),
            o_ncqe: Default::default(),
            cnt_placed: Default::default(),
            cnt_duplicate: Default::default(),
            cnt_beyond: Default::default(),
            cnt_unknown: Default::default(),
            cnt_bad_qp: Default::default(),
            cnt_imm_full: Default::default(),
            cnt_cqes: Default::default(),
            cnt_acks: Default::default(),
            cnt_naks: Default::default(),
            d_gf_any: array_init(|_| Default::default()),
            d_gf_idx: array_init(|_| Default::default()),
            d_gu_any: array_init(|_| Default::default()),
            d_gu_idx: array_init(|_| Default::default()),
            e_sv: array_init(|_| Default::default()),
            i_sum4: array_init(|_| Default::default()),
            ev_cfg: Default::default(),
            ev_hdr: Default::default(),
            a_known: Default::default(),
            w_r_applied: Default::default(),
            w_pset: Default::default(),
            w_word: Default::default(),
            c_state: Default::default(),
            d_word: Default::default(),
            b_e: Default::default(),
            b_v10: Default::default(),
            b_v01: Default::default(),
            z00: Default::default(),
            z10: Default::default(),
            z01: Default::default(),
            z11: Default::default(),
            d_h: Default::default(),
            d_dp: Default::default(),
            d_dw: Default::default(),
            d_g0: Default::default(),
            d_g0w: Default::default(),
            d_g1w: Default::default(),
            d_g1: Default::default(),
            la_a: Default::default(),
            la_b: Default::default(),
            la_sel: Default::default(),
            x_r: Default::default(),
            x_h: Default::default(),
            x_psn0: Default::default(),
            x_psn1: Default::default(),
            x_s: Default::default(),
            x_imm0: Default::default(),
            x_imm1: Default::default(),
            x_en: Default::default(),
            x_vni: Default::default(),
            x_below: Default::default(),
            x_nw: Default::default(),
            x_ath: Default::default(),
            x_seen: Default::default(),
            x_eff0: Default::default(),
            x_eff1: Default::default(),
            x_enok: Default::default(),
            x_acc: Default::default(),
            x_adv: Default::default(),
            x_ins0: Default::default(),
            x_ins1: Default::default(),
            x_a: Default::default(),
            f_code: Default::default(),
            f_d0: Default::default(),
            f_d1: Default::default(),
            f_d01: Default::default(),
            f_rel0: Default::default(),
            f_rel1: Default::default(),
            f_e: Default::default(),
            i_hi: Default::default(),
            l_sent: Default::default(),
            l_nak: Default::default(),
            unused_bits: Default::default(),
            hi_g: array_init(|_| Default::default()),
            pp0: Default::default(),
            pp1: Default::default(),
            pp2: Default::default(),
            pp3: Default::default(),
            pp4: Default::default(),
            pp5: Default::default(),
            pp6: Default::default(),
            cs_s1: Default::default(),
            cs_c1: Default::default(),
            cs_s2: Default::default(),
            cs_c2: Default::default(),
            cs_s3: Default::default(),
            cs_c3: Default::default(),
            cs_s4: Default::default(),
            cs_c4: Default::default(),
            cs_a: Default::default(),
            cs_b: Default::default(),
            cs_c: Default::default(),
            k_nc: Default::default(),
            k_s: Default::default(),
            k_cy: Default::default(),
            k_diff: Default::default(),
            c_rs16: Default::default(),
            b_rword: Default::default(),
            w_pset_z: Default::default(),
            x_rw: Default::default(),
            d_rs: Default::default(),
            la_dp: array_init(|_| Default::default()),
            la_dw: array_init(|_| Default::default()),
        }
    }
}

impl Logic for RxReorder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clk,
            cfg_block,
            cfg_wm1,
            cfg_q,
            cfg_never,
            cfg_la,
            cfg_la2,
            k_age,
            l_agep,
            a_valid,
            a_cfg,
            a_qp,
            a_p,
            a_vs,
            a_ackreq,
            a_hasimm,
            a_imm,
            a_en,
            b_valid,
            b_cfg,
            b_qp,
            b_p,
            b_vs,
            b_ackreq,
            b_hasimm,
            b_imm,
            b_en,
            b_known,
            b_writes,
            c_valid,
            c_cfg,
            c_qp,
            c_p,
            c_vs,
            c_ackreq,
            c_hasimm,
            c_imm,
            c_en,
            c_known,
            c_writes,
            d_valid,
            d_cfg,
            d_qp,
            d_p,
            d_vs,
            d_ackreq,
            d_hasimm,
            d_imm,
            d_en,
            d_known,
            d_writes,
            e_valid,
            e_cfg,
            e_qp,
            e_p,
            e_vs,
            e_ackreq,
            e_hasimm,
            e_imm,
            e_en,
            e_known,
            e_writes,
            b_s1,
            b_s2,
            b_s3,
            b_s4,
            b_s5,
            b_oh,
            b_t,
            b_p1,
            b_pw,
            b_phi1,
            c_s1,
            c_s2,
            c_s3,
            c_oh,
            c_e,
            c_m,
            c_v10,
            c_v01,
            c_f11,
            c_v11,
            c_p1,
            c_pw,
            c_phi1,
            d_s1,
            d_s2,
            d_oh,
            d_e,
            d_state,
            d_p1,
            d_pw,
            d_phi1,
            e_s1,
            e_s1r,
            d_s2r,
            e_s2,
            e_oh,
            e_e,
            e_state,
            e_below_d,
            e_nw_d,
            e_ath_d,
            e_seen_d,
            e_ge0_d,
            e_ge1_d,
            e_below_s,
            e_nw_s,
            e_ath_s,
            e_ge0_s,
            e_ge1_s,
            e_b2,
            e_eff0n,
            e_eff1n,
            e_g0,
            e_eqx,
            e_parm,
            e_p1,
            w_valid,
            w_cfg,
            w_writes,
            w_qp,
            w_r,
            w_pacc,
            w_pacc_d,
            w_poh,
            w_ppar,
            w_ppar_s,
            d_s2eq,
            c_eq3,
            d_rs16,
            d_fw3,
            d_par3,
            w_h,
            w_v0,
            w_v1,
            w_psn0,
            w_psn1,
            w_imm0,
            w_imm1,
            w_en,
            w_vni,
            w_adv,
            w_ins0,
            w_ins1,
            w_known,
            w_enok,
            w_below,
            w_nw,
            w_seen,
            w_full,
            w_hasimm,
            w_ath,
            w_p,
            w_p1,
            w_imm_in,
            w_ackreq,
            w_s,
            w_rel0_psn,
            w_rel1_psn,
            w_rel0_imm,
            w_rel1_imm,
            w_eff0,
            w_eff1,
            w2_word,
            g_valid,
            g_wr,
            g_cfg,
            g_qp,
            g_p,
            g_imm,
            g_code,
            g_acc,
            g_adv,
            g_cqe0,
            g_cqe1,
            g_cqe2,
            g_cqe1_psn,
            g_cqe2_psn,
            g_cqe1_imm,
            g_cqe2_imm,
            g_ack,
            g_h,
            h_valid,
            h_wr,
            h_cfg,
            h_qp,
            h_p,
            h_imm,
            h_code,
            h_acc,
            h_adv,
            h_cqe0,
            h_cqe1,
            h_cqe2,
            h_cqe1_psn,
            h_cqe2_psn,
            h_cqe1_imm,
            h_cqe2_imm,
            h_ack,
            h_h,
            i_valid,
            i_wr,
            i_cfg,
            i_qp,
            i_p,
            i_imm,
            i_code,
            i_acc,
            i_adv,
            i_cqe0,
            i_cqe1,
            i_cqe2,
            i_cqe1_psn,
            i_cqe2_psn,
            i_cqe1_imm,
            i_cqe2_imm,
            i_ack,
            i_h,
            j_valid,
            j_wr,
            j_cfg,
            j_qp,
            j_p,
            j_imm,
            j_code,
            j_acc,
            j_adv,
            j_cqe0,
            j_cqe1,
            j_cqe2,
            j_cqe1_psn,
            j_cqe2_psn,
            j_cqe1_imm,
            j_cqe2_imm,
            j_ack,
            j_h,
            k_valid,
            k_wr,
            k_cfg,
            k_qp,
            k_p,
            k_imm,
            k_code,
            k_acc,
            k_adv,
            k_cqe0,
            k_cqe1,
            k_cqe2,
            k_cqe1_psn,
            k_cqe2_psn,
            k_cqe1_imm,
            k_cqe2_imm,
            k_ack,
            k_h,
            l_valid,
            l_wr,
            l_cfg,
            l_qp,
            l_p,
            l_imm,
            l_code,
            l_acc,
            l_adv,
            l_cqe0,
            l_cqe1,
            l_cqe2,
            l_cqe1_psn,
            l_cqe2_psn,
            l_cqe1_imm,
            l_cqe2_imm,
            l_ack,
            l_h,
            g_arr,
            g_t,
            h_cnt16,
            h_hw_any,
            h_hu_any,
            h_hw_idx,
            h_hu_idx,
            h_rot,
            i_pos,
            i_found,
            i_rot,
            j_count,
            j_hi,
            j_ntop,
            j_ntopl,
            j_hlow,
            j_found,
            j_rot,
            k_ooo,
            k_found,
            k_missing,
            l_okp,
            l_ref,
            l_neg,
            l_rd,
            k_rd,
            lw_en,
            lw_qp,
            lw_data,
            l_missing,
            l_ncqe,
            o_valid,
            o_code,
            o_qp,
            o_p,
            o_imm,
            o_cqe0,
            o_cqe1,
            o_cqe2,
            o_cqe1_psn,
            o_cqe2_psn,
            o_cqe1_imm,
            o_cqe2_imm,
            o_ack,
            o_h,
            o_nak,
            o_nak_psn,
            o_missing,
            o_ncqe,
            cnt_placed,
            cnt_duplicate,
            cnt_beyond,
            cnt_unknown,
            cnt_bad_qp,
            cnt_imm_full,
            cnt_cqes,
            cnt_acks,
            cnt_naks,
            c_rword,
            c_zr,
            c_oh3,
            c_v3,
            w_pacc_g,
            e_grp,
            w3_word,
            k_l0123,
            k_l456,
            k_c100,
            g_rel0,
            g_rel1,
            g_ord
        );
        self.sweep.clk.next = self.clk.val();
        self.sweep.rst.next = self.rst.val();
        // The register arrays, clocked and holding by default like dff_setup's.
        self.d_gf_any[0].clock.next = self.clk.val();
        self.d_gf_any[0].d.next = self.d_gf_any[0].q.val();
        self.d_gf_idx[0].clock.next = self.clk.val();
        self.d_gf_idx[0].d.next = self.d_gf_idx[0].q.val();
        self.d_gu_any[0].clock.next = self.clk.val();
        self.d_gu_any[0].d.next = self.d_gu_any[0].q.val();
        self.d_gu_idx[0].clock.next = self.clk.val();
        self.d_gu_idx[0].d.next = self.d_gu_idx[0].q.val();
        self.e_sv[0].clock.next = self.clk.val();
        self.e_sv[0].d.next = self.e_sv[0].q.val();
        self.i_sum4[0].clock.next = self.clk.val();
        self.i_sum4[0].d.next = self.i_sum4[0].q.val();
        self.d_gf_any[1].clock.next = self.clk.val();
        self.d_gf_any[1].d.next = self.d_gf_any[1].q.val();
        self.d_gf_idx[1].clock.next = self.clk.val();
        self.d_gf_idx[1].d.next = self.d_gf_idx[1].q.val();
        self.d_gu_any[1].clock.next = self.clk.val();
        self.d_gu_any[1].d.next = self.d_gu_any[1].q.val();
        self.d_gu_idx[1].clock.next = self.clk.val();
        self.d_gu_idx[1].d.next = self.d_gu_idx[1].q.val();
        self.j_pp[0].clock.next = self.clk.val();
        self.j_pp[0].d.next = self.j_pp[0].q.val();
        self.j_pp[1].clock.next = self.clk.val();
        self.j_pp[1].d.next = self.j_pp[1].q.val();
        self.j_pp[2].clock.next = self.clk.val();
        self.j_pp[2].d.next = self.j_pp[2].q.val();
        self.j_pp[3].clock.next = self.clk.val();
        self.j_pp[3].d.next = self.j_pp[3].q.val();
        self.j_pp[4].clock.next = self.clk.val();
        self.j_pp[4].d.next = self.j_pp[4].q.val();
        self.j_pp[5].clock.next = self.clk.val();
        self.j_pp[5].d.next = self.j_pp[5].q.val();
        self.j_pp[6].clock.next = self.clk.val();
        self.j_pp[6].d.next = self.j_pp[6].q.val();
        self.e_sv[1].clock.next = self.clk.val();
        self.e_sv[1].d.next = self.e_sv[1].q.val();
        self.i_sum4[1].clock.next = self.clk.val();
        self.i_sum4[1].d.next = self.i_sum4[1].q.val();
        self.d_gf_any[2].clock.next = self.clk.val();
        self.d_gf_any[2].d.next = self.d_gf_any[2].q.val();
        self.d_gf_idx[2].clock.next = self.clk.val();
        self.d_gf_idx[2].d.next = self.d_gf_idx[2].q.val();
        self.d_gu_any[2].clock.next = self.clk.val();
        self.d_gu_any[2].d.next = self.d_gu_any[2].q.val();
        self.d_gu_idx[2].clock.next = self.clk.val();
        self.d_gu_idx[2].d.next = self.d_gu_idx[2].q.val();
        self.e_sv[2].clock.next = self.clk.val();
        self.e_sv[2].d.next = self.e_sv[2].q.val();
        self.i_sum4[2].clock.next = self.clk.val();
        self.i_sum4[2].d.next = self.i_sum4[2].q.val();
        self.d_gf_any[3].clock.next = self.clk.val();
        self.d_gf_any[3].d.next = self.d_gf_any[3].q.val();
        self.d_gf_idx[3].clock.next = self.clk.val();
        self.d_gf_idx[3].d.next = self.d_gf_idx[3].q.val();
        self.d_gu_any[3].clock.next = self.clk.val();
        self.d_gu_any[3].d.next = self.d_gu_any[3].q.val();
        self.d_gu_idx[3].clock.next = self.clk.val();
        self.d_gu_idx[3].d.next = self.d_gu_idx[3].q.val();
        self.e_sv[3].clock.next = self.clk.val();
        self.e_sv[3].d.next = self.e_sv[3].q.val();
        self.i_sum4[3].clock.next = self.clk.val();
        self.i_sum4[3].d.next = self.i_sum4[3].q.val();
        self.ram.clk.next = self.clk.val();
        self.nak_mem.clk.next = self.clk.val();
        self.ram.read_enable.next = true;
        self.ram.out_enable.next = true;

        // Quasi-static settings, registered once so no CSR path reaches the pipeline's
        // arithmetic: window − 1, and 100 − the missing-share threshold (a share above
        // 100% can never be met).
        self.cfg_wm1.d.next = (bit_cast::<24, 16>(self.cfg_window.val()) - 1);
        self.cfg_q.d.next = (100 - bit_cast::<8, 7>(self.cfg_miss_pct.val()));
        self.cfg_never.d.next = (self.cfg_miss_pct.val() > 100);
        if self.cfg_loss_after.val().any() {
            self.cfg_la.d.next = bit_cast::<9, 8>(self.cfg_loss_after.val());
        } else {
            self.cfg_la.d.next = 511.into();
        }
        if self.cfg_loss_after.val().any()
            & (bit_cast::<16, 8>(self.cfg_loss_after.val()) > self.cfg_ooo_thresh.val())
        {
            self.cfg_la2.d.next = bit_cast::<9, 8>(self.cfg_loss_after.val());
        } else {
            self.cfg_la2.d.next = 256.into();
        }

        // ============ Accept: QP commands first, one event per cycle. ================
        // A QP command rewrites its word five cycles later; headers wait until then, so
        // no header ever needs a command's result forwarded.
        self.ev_cfg.next = ((self.s_qp_valid.val() & !self.sweep.active.val()) & !self.rst.val());
        self.ev_hdr.next = ((((self.s_hdr_valid.val() & !self.s_qp_valid.val())
            & !self.sweep.active.val())
            & !self.rst.val())
            & (!self.m_hold.val() & !self.cfg_block.q.val().any()));
        if self.ev_cfg.val() {
            self.cfg_block.d.next = 5.into(); // QP_CMD_HOLD_CYCLES
        } else if self.cfg_block.q.val().any() {
            self.cfg_block.d.next = (self.cfg_block.q.val() - 1);
        }
        self.a_valid.d.next = (self.ev_cfg.val() | self.ev_hdr.val());
        self.a_cfg.d.next = self.ev_cfg.val();
        if self.s_qp_valid.val() {
            self.a_qp.d.next = self.s_qp_qp.val();
            self.a_p.d.next = self.s_qp_psn.val();
            self.a_vs.d.next = self.s_qp_vni_slot.val();
        } else {
            self.a_qp.d.next = self.s_hdr_qp.val();
            self.a_p.d.next = self.s_hdr_psn.val();
            self.a_vs.d.next = self.s_hdr_vni_slot.val();
        }
        self.a_ackreq.d.next = self.s_hdr_ack_req.val();
        self.a_hasimm.d.next = self.s_hdr_has_imm.val();
        self.a_imm.d.next = self.s_hdr_imm.val();
        self.a_en.d.next = self.s_qp_enable.val();

        // ============ A: read the QP's word; decode the PSN's position. ==============
        self.ram.read_address.next = self.a_qp.q.val();
        self.a_known.next = (self.a_qp.q.val() <= self.depth_m1.val());
        self.b_known.d.next = self.a_known.val();
        self.b_writes.d.next = (self.a_valid.q.val() & self.a_known.val());
        // Which events ahead write the same word: 1 to 5 cycles ahead.
        self.b_s1.d.next = ((self.a_qp.q.val() == self.b_qp.q.val()) & self.b_writes.q.val());
        self.b_s2.d.next = ((self.a_qp.q.val() == self.c_qp.q.val()) & self.c_writes.q.val());
        self.b_s3.d.next = ((self.a_qp.q.val() == self.d_qp.q.val()) & self.d_writes.q.val());
        self.b_s4.d.next = ((self.a_qp.q.val() == self.e_qp.q.val()) & self.e_writes.q.val());
        self.b_s5.d.next = ((self.a_qp.q.val() == self.w_qp.q.val()) & self.w_writes.q.val());
        self.dec.idx.next = self.a_p.q.val().get_bits::<8>(0);
        self.thm.idx.next = self.a_p.q.val().get_bits::<8>(0);
        self.b_oh.d.next = self.dec.oh.val();
        self.b_t.d.next = self.thm.lt.val();
        self.b_p1.d.next = (self.a_p.q.val() + 1);
        self.b_phi1.d.next = (self.a_p.q.val().get_bits::<16>(8) + 1);
        // The lowest PSN whose window still holds this one: p − (window − 1).
        self.b_pw.d.next = (self.a_p.q.val() - self.cfg_wm1.q.val());
        self.b_valid.d.next = self.a_valid.q.val();
        self.b_cfg.d.next = self.a_cfg.q.val();
        self.b_qp.d.next = self.a_qp.q.val();
        self.b_p.d.next = self.a_p.q.val();
        self.b_vs.d.next = self.a_vs.q.val();
        self.b_ackreq.d.next = self.a_ackreq.q.val();
        self.b_hasimm.d.next = self.a_hasimm.q.val();
        self.b_imm.d.next = self.a_imm.q.val();
        self.b_en.d.next = self.a_en.q.val();

        // The word the loop wrote last cycle (event n−k for the stage that reads it), with
        // its own arrival applied: the loop leaves it pending so that no accept signal
        // fans out to 256 bitmap bits in the loop's own cycle.
        self.spread.v.next = self.w_pacc_g.q.val();
        self.w_pset.next = (self.w_poh.q.val() & self.spread.out.val());
        if self.w_ppar.q.val() {
            self.w_r_applied.next = (self.w_r.q.val() | self.w_pset.val());
        } else {
            self.w_r_applied.next = (self.w_r.q.val() & !self.w_pset.val());
        }
        self.w_word.next = ((bit_cast::<STATE_BITS, 3>(self.w_vni.q.val()) << 395)
            | (bit_cast::<STATE_BITS, 1>(self.w_en.q.val().into()) << 394)
            | (bit_cast::<STATE_BITS, 32>(self.w_imm1.q.val()) << 362)
            | (bit_cast::<STATE_BITS, 24>(self.w_psn1.q.val()) << 338)
            | (bit_cast::<STATE_BITS, 1>(self.w_v1.q.val().into()) << 337)
            | (bit_cast::<STATE_BITS, 32>(self.w_imm0.q.val()) << 305)
            | (bit_cast::<STATE_BITS, 24>(self.w_psn0.q.val()) << 281)
            | (bit_cast::<STATE_BITS, 1>(self.w_v0.q.val().into()) << 280)
            | (bit_cast::<STATE_BITS, 24>(self.w_h.q.val()) << 256)
            | bit_cast::<STATE_BITS, 256>(self.w_r_applied.val()));

        // ============ B: expected parities; the search's variants; early forwarding. ==
        // Position i of the window that starts at this PSN p holds PSN p + ((i − p) mod
        // 256); its bit 8 is p[8], flipped for the positions below p's (the next lap).
        // A bitmap bit equal to that parity means "arrived in this window".
        if self.b_p.q.val().get_bit(8) {
            self.b_e.next = !self.b_t.q.val();
        } else {
            self.b_e.next = self.b_t.q.val();
        }
        self.c_e.d.next = self.b_e.val();
        self.c_m.d.next = (!self.b_t.q.val() & !self.b_oh.q.val());
        // The two events just ahead (n−1 now in C, n−2 in D) may yet be accepted: their
        // arrivals overwrite one bitmap bit each. The search runs once per outcome
        // (variant 10: n−1 only, 01: n−2 only, 11: both; 00 is the word as read), with the
        // overwritten positions forced to "not arrived" = (their parity ≠ expected).
        if self.c_p.q.val().get_bit(8) {
            self.b_v10.next = !self.b_e.val();
        } else {
            self.b_v10.next = self.b_e.val();
        }
        if self.d_p.q.val().get_bit(8) {
            self.b_v01.next = !self.b_e.val();
        } else {
            self.b_v01.next = self.b_e.val();
        }
        self.c_v10.d.next = self.b_v10.val();
        self.c_v01.d.next = self.b_v01.val();
        self.c_f11.d.next = (self.c_oh.q.val() | self.d_oh.q.val());
        self.c_v11.d.next =
            ((self.c_oh.q.val() & self.b_v10.val()) | (!self.c_oh.q.val() & self.b_v01.val()));
        // Events 4 and 5 ahead of C's (3 and 4 ahead of B's, now in the loop's W and in
        // w2) are not in the RAM in time for C; the rest is, in the RAM's read latch (no
        // output register: one LUT after the read, within the 3 levels of docs/timing.md).
        if self.b_s4.q.val() {
            self.b_rword.next = self.w_word.val();
        } else if self.b_s5.q.val() {
            self.b_rword.next = self.w2_word.q.val();
        } else {
            self.b_rword.next = self.ram.read_data.val();
        }
        self.c_rword.d.next = self.b_rword.val();
        // (`c_zr`, `c_oh3`: below, after the loop's new bitmap.)
        if self.e_p.q.val().get_bit(8) {
            self.c_v3.d.next = !self.b_e.val();
        } else {
            self.c_v3.d.next = self.b_e.val();
        }
        // Event 3 ahead (now in the loop's E) at this PSN's position.
        self.c_eq3.d.next =
            (self.b_p.q.val().get_bits::<8>(0) == self.e_p.q.val().get_bits::<8>(0));
        self.c_valid.d.next = self.b_valid.q.val();
        self.c_cfg.d.next = self.b_cfg.q.val();
        self.c_qp.d.next = self.b_qp.q.val();
        self.c_p.d.next = self.b_p.q.val();
        self.c_vs.d.next = self.b_vs.q.val();
        self.c_ackreq.d.next = self.b_ackreq.q.val();
        self.c_hasimm.d.next = self.b_hasimm.q.val();
        self.c_imm.d.next = self.b_imm.q.val();
        self.c_en.d.next = self.b_en.q.val();
        self.c_known.d.next = self.b_known.q.val();
        self.c_writes.d.next = self.b_writes.q.val();
        self.c_s1.d.next = self.b_s1.q.val();
        self.c_s2.d.next = self.b_s2.q.val();
        self.c_s3.d.next = self.b_s3.q.val();
        self.c_oh.d.next = self.b_oh.q.val();
        self.c_p1.d.next = self.b_p1.q.val();
        self.c_phi1.d.next = self.b_phi1.q.val();
        self.c_pw.d.next = self.b_pw.q.val();

        // ============ C: the word (as of event n−3); first half of the head search. ===
        // Event 3 ahead is in the loop's W now; the word of any other came in a register.
        if self.c_s3.q.val() {
            self.c_state.next = self.w_word.val();
        } else {
            self.c_state.next = self.c_rword.q.val();
        }
        // Not arrived, in the window that starts at this PSN: B's register with event
        // n−3's arrival applied where it was accepted (one LUT per position).
        self.w_pset_z.next = (self.c_oh3.q.val() & self.spread.out.val());
        self.z00.next = ((self.w_pset_z.val() & self.c_v3.q.val())
            | (!self.w_pset_z.val() & self.c_zr.q.val()));
        self.z10.next =
            ((self.d_oh.q.val() & self.c_v10.q.val()) | (!self.d_oh.q.val() & self.z00.val()));
        self.z01.next =
            ((self.e_oh.q.val() & self.c_v01.q.val()) | (!self.e_oh.q.val() & self.z00.val()));
        self.z11.next =
            ((self.c_f11.q.val() & self.c_v11.q.val()) | (!self.c_f11.q.val() & self.z00.val()));
        // Full window (the wrap-around) and the part after p.
        self.sg_f[0].v.next = self.z00.val();
        self.sg_f[0].m.next = self.all256.val();
        self.sg_f[1].v.next = self.z10.val();
        self.sg_f[1].m.next = self.all256.val();
        self.sg_f[2].v.next = self.z01.val();
        self.sg_f[2].m.next = self.all256.val();
        self.sg_f[3].v.next = self.z11.val();
        self.sg_f[3].m.next = self.all256.val();
        self.sg_u[0].v.next = self.z00.val();
        self.sg_u[0].m.next = self.c_m.q.val();
        self.sg_u[1].v.next = self.z10.val();
        self.sg_u[1].m.next = self.c_m.q.val();
        self.sg_u[2].v.next = self.z01.val();
        self.sg_u[2].m.next = self.c_m.q.val();
        self.sg_u[3].v.next = self.z11.val();
        self.sg_u[3].m.next = self.c_m.q.val();
        self.d_gf_any[0].d.next = self.sg_f[0].any.val();
        self.d_gf_idx[0].d.next = self.sg_f[0].idx.val();
        self.d_gu_any[0].d.next = self.sg_u[0].any.val();
        self.d_gu_idx[0].d.next = self.sg_u[0].idx.val();
        self.d_gf_any[1].d.next = self.sg_f[1].any.val();
        self.d_gf_idx[1].d.next = self.sg_f[1].idx.val();
        self.d_gu_any[1].d.next = self.sg_u[1].any.val();
        self.d_gu_idx[1].d.next = self.sg_u[1].idx.val();
        self.d_gf_any[2].d.next = self.sg_f[2].any.val();
        self.d_gf_idx[2].d.next = self.sg_f[2].idx.val();
        self.d_gu_any[2].d.next = self.sg_u[2].any.val();
        self.d_gu_idx[2].d.next = self.sg_u[2].idx.val();
        self.d_gf_any[3].d.next = self.sg_f[3].any.val();
        self.d_gf_idx[3].d.next = self.sg_f[3].idx.val();
        self.d_gu_any[3].d.next = self.sg_u[3].any.val();
        self.d_gu_idx[3].d.next = self.sg_u[3].idx.val();
        self.d_state.d.next = self.c_state.val();
        // For D's "seen": p's group of 16 positions in that word, selected from registers
        // (the loop's bitmap before event n−3's arrival, or the word read), and whether
        // n−3's arrival (in W) is at p's position, which then decides the bit.
        self.grp_w.v.next = self.w_r.q.val();
        self.grp_w.g.next = self.c_p.q.val().get_bits::<4>(4);
        self.grp_r.v.next = self.c_rword.q.val().get_bits::<256>(0);
        self.grp_r.g.next = self.c_p.q.val().get_bits::<4>(4);
        if self.c_s3.q.val() {
            self.c_rs16.next = self.grp_w.out.val();
        } else {
            self.c_rs16.next = self.grp_r.out.val();
        }
        self.d_rs16.d.next = self.c_rs16.val();
        self.d_fw3.d.next = ((self.c_s3.q.val() & self.c_eq3.q.val()) & self.w_pacc.q.val());
        self.d_par3.d.next = self.w_ppar_s.q.val();
        self.d_valid.d.next = self.c_valid.q.val();
        self.d_cfg.d.next = self.c_cfg.q.val();
        self.d_qp.d.next = self.c_qp.q.val();
        self.d_p.d.next = self.c_p.q.val();
        self.d_vs.d.next = self.c_vs.q.val();
        self.d_ackreq.d.next = self.c_ackreq.q.val();
        self.d_hasimm.d.next = self.c_hasimm.q.val();
        self.d_imm.d.next = self.c_imm.q.val();
        self.d_en.d.next = self.c_en.q.val();
        self.d_known.d.next = self.c_known.q.val();
        self.d_writes.d.next = self.c_writes.q.val();
        self.d_s1.d.next = self.c_s1.q.val();
        self.d_s2.d.next = self.c_s2.q.val();
        self.d_s2r.d.next = self.c_s2.q.val();
        self.d_s2eq.d.next = (self.c_s2.q.val()
            & (self.c_p.q.val().get_bits::<8>(0) == self.e_p.q.val().get_bits::<8>(0)));
        self.d_oh.d.next = self.c_oh.q.val();
        self.d_e.d.next = self.c_e.q.val();
        self.d_p1.d.next = self.c_p1.q.val();
        self.d_phi1.d.next = self.c_phi1.q.val();
        self.d_pw.d.next = self.c_pw.q.val();

        // ============ D: where the head would go; this event's facts. ===============
        // The new head if this packet is accepted at the head: the first position after
        // p not arrived (positions after p first, then the wrap-around). Past the top of
        // the window it continues in the next lap: bits 23:8 are p's + 1.
        self.sf[0].any_a.next = self.d_gu_any[0].q.val();
        self.sf[0].idx_a.next = self.d_gu_idx[0].q.val();
        self.sf[0].any_b.next = self.d_gf_any[0].q.val();
        self.sf[0].idx_b.next = self.d_gf_idx[0].q.val();
        if self.sf[0].from_b.val() {
            self.e_sv[0].d.next = ((bit_cast::<24, 16>(self.d_phi1.q.val()) << 8)
                | bit_cast::<24, 8>(self.sf[0].pos.val()));
        } else {
            self.e_sv[0].d.next = ((bit_cast::<24, 16>(self.d_p.q.val().get_bits::<16>(8)) << 8)
                | bit_cast::<24, 8>(self.sf[0].pos.val()));
        }
        self.sf[1].any_a.next = self.d_gu_any[1].q.val();
        self.sf[1].idx_a.next = self.d_gu_idx[1].q.val();
        self.sf[1].any_b.next = self.d_gf_any[1].q.val();
        self.sf[1].idx_b.next = self.d_gf_idx[1].q.val();
        if self.sf[1].from_b.val() {
            self.e_sv[1].d.next = ((bit_cast::<24, 16>(self.d_phi1.q.val()) << 8)
                | bit_cast::<24, 8>(self.sf[1].pos.val()));
        } else {
            self.e_sv[1].d.next = ((bit_cast::<24, 16>(self.d_p.q.val().get_bits::<16>(8)) << 8)
                | bit_cast::<24, 8>(self.sf[1].pos.val()));
        }
        self.sf[2].any_a.next = self.d_gu_any[2].q.val();
        self.sf[2].idx_a.next = self.d_gu_idx[2].q.val();
        self.sf[2].any_b.next = self.d_gf_any[2].q.val();
        self.sf[2].idx_b.next = self.d_gf_idx[2].q.val();
        if self.sf[2].from_b.val() {
            self.e_sv[2].d.next = ((bit_cast::<24, 16>(self.d_phi1.q.val()) << 8)
                | bit_cast::<24, 8>(self.sf[2].pos.val()));
        } else {
            self.e_sv[2].d.next = ((bit_cast::<24, 16>(self.d_p.q.val().get_bits::<16>(8)) << 8)
                | bit_cast::<24, 8>(self.sf[2].pos.val()));
        }
        self.sf[3].any_a.next = self.d_gu_any[3].q.val();
        self.sf[3].idx_a.next = self.d_gu_idx[3].q.val();
        self.sf[3].any_b.next = self.d_gf_any[3].q.val();
        self.sf[3].idx_b.next = self.d_gf_idx[3].q.val();
        if self.sf[3].from_b.val() {
            self.e_sv[3].d.next = ((bit_cast::<24, 16>(self.d_phi1.q.val()) << 8)
                | bit_cast::<24, 8>(self.sf[3].pos.val()));
        } else {
            self.e_sv[3].d.next = ((bit_cast::<24, 16>(self.d_p.q.val().get_bits::<16>(8)) << 8)
                | bit_cast::<24, 8>(self.sf[3].pos.val()));
        }
        // The word as of event n−2.
        if self.d_s2r.q.val() {
            self.d_word.next = self.w_word.val();
        } else {
            self.d_word.next = self.d_state.q.val();
        }
        self.d_h.next = self.d_word.val().get_bits::<24>(256);
        // Where p falls against that head: below it (half the PSN space behind), beyond the
        // window (the head is below p − (window − 1)), or at it. Each is one subtraction.
        self.d_dp.next = (self.d_p.q.val() - self.d_h.val());
        self.d_dw.next = (self.d_h.val() - self.d_pw.q.val());
        self.e_below_d.d.next = self.d_dp.val().get_bit(23);
        self.e_nw_d.d.next = self.d_dw.val().get_bit(23);
        self.e_ath_d.d.next = (self.d_p.q.val() == self.d_h.val());
        // Seen: the bit at p's position has p's parity. The bit as of event n−3 is in
        // C's group, or n−3's arrival; with n−2 the same QP and accepted at p's position,
        // n−2's arrival decides it.
        if self.d_fw3.q.val() {
            self.d_rs.next = self.d_par3.q.val();
        } else {
            self.d_rs.next = self
                .d_rs16
                .q
                .val()
                .get_bit(self.d_p.q.val().get_bits::<4>(0).index());
        }
        if (self.d_s2eq.q.val() & self.w_pacc.q.val()) {
            self.e_seen_d.d.next = (self.w_ppar_s.q.val() == self.d_p.q.val().get_bit(8));
        } else {
            self.e_seen_d.d.next = (self.d_rs.val() == self.d_p.q.val().get_bit(8));
        }
        // A slot is still pending while its PSN is not below the head.
        // Computed for both words the mux above chooses between, and chosen after the
        // subtraction: the carry chain does not wait for the mux.
        self.d_g0.next =
            (self.d_state.q.val().get_bits::<24>(281) - self.d_state.q.val().get_bits::<24>(256));
        self.d_g1.next =
            (self.d_state.q.val().get_bits::<24>(338) - self.d_state.q.val().get_bits::<24>(256));
        self.d_g0w.next = (self.w_psn0.q.val() - self.w_h.q.val());
        self.d_g1w.next = (self.w_psn1.q.val() - self.w_h.q.val());
        if self.d_s2r.q.val() {
            self.e_ge0_d.d.next = !self.d_g0w.val().get_bit(23);
            self.e_ge1_d.d.next = !self.d_g1w.val().get_bit(23);
        } else {
            self.e_ge0_d.d.next = !self.d_g0.val().get_bit(23);
            self.e_ge1_d.d.next = !self.d_g1.val().get_bit(23);
        }
        // Look-ahead: if the event just ahead (n−1, now in E) is accepted at the head,
        // the head becomes its search result. The same facts against each of its four
        // search variants, chosen by the outcomes it will see (n−2's, n−3's acceptance).
        // Slot PSNs not below each head variant: one short carry chain each (psn.rs),
        // so the pick of eight below still fits the stage.
        self.la_ge.d0.next = self.d_state.q.val().get_bits::<24>(281);
        self.la_ge.d1.next = self.d_state.q.val().get_bits::<24>(338);
        self.la_ge.w0.next = self.w_psn0.q.val();
        self.la_ge.w1.next = self.w_psn1.q.val();
        self.la_ge.h0.next = self.e_sv[0].q.val();
        self.la_ge.h1.next = self.e_sv[1].q.val();
        self.la_ge.h2.next = self.e_sv[2].q.val();
        self.la_ge.h3.next = self.e_sv[3].q.val();
        self.la_dp[0].next = (self.d_p.q.val() - self.e_sv[0].q.val());
        self.la_dw[0].next = (self.e_sv[0].q.val() - self.d_pw.q.val());
        self.la_dp[1].next = (self.d_p.q.val() - self.e_sv[1].q.val());
        self.la_dw[1].next = (self.e_sv[1].q.val() - self.d_pw.q.val());
        self.la_dp[2].next = (self.d_p.q.val() - self.e_sv[2].q.val());
        self.la_dw[2].next = (self.e_sv[2].q.val() - self.d_pw.q.val());
        self.la_dp[3].next = (self.d_p.q.val() - self.e_sv[3].q.val());
        self.la_dw[3].next = (self.e_sv[3].q.val() - self.d_pw.q.val());
        self.la_a.next = (self.e_s1.q.val() & self.w_pacc.q.val());
        self.la_b.next = self.e_b2.q.val();
        if self.la_a.val() {
            if self.la_b.val() {
                self.la_sel.next = 3.into();
            } else {
                self.la_sel.next = 1.into();
            }
        } else if self.la_b.val() {
            self.la_sel.next = 2.into();
        } else {
            self.la_sel.next = 0.into();
        }
        self.e_below_s.d.next = false;
        self.e_nw_s.d.next = false;
        self.e_ath_s.d.next = false;
        self.e_ge0_s.d.next = false;
        self.e_ge1_s.d.next = false;
        if (self.la_sel.val().index() == 0) {
            self.e_below_s.d.next = self.la_dp[0].val().get_bit(23);
            self.e_nw_s.d.next = self.la_dw[0].val().get_bit(23);
            self.e_ath_s.d.next = (self.d_p.q.val() == self.e_sv[0].q.val());
            if self.d_s2r.q.val() {
                self.e_ge0_s.d.next = self.la_ge.ge_w0.val().get_bit(0);
                self.e_ge1_s.d.next = self.la_ge.ge_w1.val().get_bit(0);
            } else {
                self.e_ge0_s.d.next = self.la_ge.ge_d0.val().get_bit(0);
                self.e_ge1_s.d.next = self.la_ge.ge_d1.val().get_bit(0);
            }
        }
        if (self.la_sel.val().index() == 1) {
            self.e_below_s.d.next = self.la_dp[1].val().get_bit(23);
            self.e_nw_s.d.next = self.la_dw[1].val().get_bit(23);
            self.e_ath_s.d.next = (self.d_p.q.val() == self.e_sv[1].q.val());
            if self.d_s2r.q.val() {
                self.e_ge0_s.d.next = self.la_ge.ge_w0.val().get_bit(1);
                self.e_ge1_s.d.next = self.la_ge.ge_w1.val().get_bit(1);
            } else {
                self.e_ge0_s.d.next = self.la_ge.ge_d0.val().get_bit(1);
                self.e_ge1_s.d.next = self.la_ge.ge_d1.val().get_bit(1);
            }
        }
        if (self.la_sel.val().index() == 2) {
            self.e_below_s.d.next = self.la_dp[2].val().get_bit(23);
            self.e_nw_s.d.next = self.la_dw[2].val().get_bit(23);
            self.e_ath_s.d.next = (self.d_p.q.val() == self.e_sv[2].q.val());
            if self.d_s2r.q.val() {
                self.e_ge0_s.d.next = self.la_ge.ge_w0.val().get_bit(2);
                self.e_ge1_s.d.next = self.la_ge.ge_w1.val().get_bit(2);
            } else {
                self.e_ge0_s.d.next = self.la_ge.ge_d0.val().get_bit(2);
                self.e_ge1_s.d.next = self.la_ge.ge_d1.val().get_bit(2);
            }
        }
        if (self.la_sel.val().index() == 3) {
            self.e_below_s.d.next = self.la_dp[3].val().get_bit(23);
            self.e_nw_s.d.next = self.la_dw[3].val().get_bit(23);
            self.e_ath_s.d.next = (self.d_p.q.val() == self.e_sv[3].q.val());
            if self.d_s2r.q.val() {
                self.e_ge0_s.d.next = self.la_ge.ge_w0.val().get_bit(3);
                self.e_ge1_s.d.next = self.la_ge.ge_w1.val().get_bit(3);
            } else {
                self.e_ge0_s.d.next = self.la_ge.ge_d0.val().get_bit(3);
                self.e_ge1_s.d.next = self.la_ge.ge_d1.val().get_bit(3);
            }
        }
        self.e_b2.d.next = (self.d_s2.q.val() & self.w_pacc.q.val());
        // What E needs when event n−1 is another QP's, decided here: a slot valid and
        // pending, and the header's own gate (valid, known QP, enabled, the tenant's).
        // A QP's enable and owner change only by a QP command, and headers wait five
        // cycles after one, so the word as of n−2 has them exactly.
        if self.d_s2r.q.val() {
            self.e_eff0n.d.next = (self.w_v0.q.val() & !self.d_g0w.val().get_bit(23));
            self.e_eff1n.d.next = (self.w_v1.q.val() & !self.d_g1w.val().get_bit(23));
        } else {
            self.e_eff0n.d.next =
                (self.d_state.q.val().get_bit(280) & !self.d_g0.val().get_bit(23));
            self.e_eff1n.d.next =
                (self.d_state.q.val().get_bit(337) & !self.d_g1.val().get_bit(23));
        }
        self.e_g0.d.next = ((((self.d_valid.q.val() & !self.d_cfg.q.val())
            & self.d_known.q.val())
            & self.d_word.val().get_bit(394))
            & (self.d_word.val().get_bits::<3>(395) == self.d_vs.q.val()));
        self.e_eqx.d.next =
            (self.d_p.q.val().get_bits::<8>(0) == self.e_p.q.val().get_bits::<8>(0));
        self.e_parm.d.next = (self.d_p.q.val().get_bit(8) == self.e_p.q.val().get_bit(8));
        self.e_state.d.next = self.d_word.val();
        self.e_valid.d.next = self.d_valid.q.val();
        self.e_cfg.d.next = self.d_cfg.q.val();
        self.e_qp.d.next = self.d_qp.q.val();
        self.e_p.d.next = self.d_p.q.val();
        self.e_vs.d.next = self.d_vs.q.val();
        self.e_ackreq.d.next = self.d_ackreq.q.val();
        self.e_hasimm.d.next = self.d_hasimm.q.val();
        self.e_imm.d.next = self.d_imm.q.val();
        self.e_en.d.next = self.d_en.q.val();
        self.e_known.d.next = self.d_known.q.val();
        self.e_writes.d.next = self.d_writes.q.val();
        self.e_s1.d.next = self.d_s1.q.val();
        self.e_s1r.d.next = self.d_s1.q.val();
        self.e_s2.d.next = self.d_s2.q.val();
        self.e_oh.d.next = self.d_oh.q.val();
        self.e_grp.d.next = (self.one16.val() << self.d_p.q.val().get_bits::<4>(4));
        self.e_e.d.next = self.d_e.q.val();
        self.e_p1.d.next = self.d_p1.q.val();

        // ============ E: the loop. One event per cycle, the event just ahead included. ==
        // The word: the one this stage wrote last cycle when it is the same QP (n−1),
        // else the one D prepared (exact as of n−2).
        if self.e_s1r.q.val() {
            self.x_r.next = self.w_r_applied.val();
            self.x_h.next = self.w_h.q.val();
            self.x_psn0.next = self.w_psn0.q.val();
            self.x_psn1.next = self.w_psn1.q.val();
            self.x_imm0.next = self.w_imm0.q.val();
            self.x_imm1.next = self.w_imm1.q.val();
            self.x_en.next = self.w_en.q.val();
            self.x_vni.next = self.w_vni.q.val();
        } else {
            self.x_r.next = self.e_state.q.val().get_bits::<256>(0);
            self.x_h.next = self.e_state.q.val().get_bits::<24>(256);
            self.x_psn0.next = self.e_state.q.val().get_bits::<24>(281);
            self.x_imm0.next = self.e_state.q.val().get_bits::<32>(305);
            self.x_psn1.next = self.e_state.q.val().get_bits::<24>(338);
            self.x_imm1.next = self.e_state.q.val().get_bits::<32>(362);
            self.x_en.next = self.e_state.q.val().get_bit(394);
            self.x_vni.next = self.e_state.q.val().get_bits::<3>(395);
        }
        // The facts D computed, or their look-ahead versions when n−1 moved the head;
        // "seen" from n−1's arrival at the same position (same parity = same PSN); the
        // immediate slots still pending (PSN not below the head, or n−1 filled it; with
        // n−1 another QP's, D's answer `e_eff0n` stands); and the verdict: `LoopAccept`.
        self.e_verdict.s1.next = self.e_s1.q.val();
        self.e_verdict.adv_1.next = self.w_adv.q.val();
        self.e_verdict.pacc_1.next = self.w_pacc.q.val();
        self.e_verdict.ins0_1.next = self.w_ins0.q.val();
        self.e_verdict.ins1_1.next = self.w_ins1.q.val();
        self.e_verdict.v0_1.next = self.w_v0.q.val();
        self.e_verdict.v1_1.next = self.w_v1.q.val();
        self.e_verdict.below_s.next = self.e_below_s.q.val();
        self.e_verdict.below_d.next = self.e_below_d.q.val();
        self.e_verdict.nw_s.next = self.e_nw_s.q.val();
        self.e_verdict.nw_d.next = self.e_nw_d.q.val();
        self.e_verdict.ath_s.next = self.e_ath_s.q.val();
        self.e_verdict.ath_d.next = self.e_ath_d.q.val();
        self.e_verdict.ge0_s.next = self.e_ge0_s.q.val();
        self.e_verdict.ge0_d.next = self.e_ge0_d.q.val();
        self.e_verdict.ge1_s.next = self.e_ge1_s.q.val();
        self.e_verdict.ge1_d.next = self.e_ge1_d.q.val();
        self.e_verdict.eqx.next = self.e_eqx.q.val();
        self.e_verdict.parm.next = self.e_parm.q.val();
        self.e_verdict.seen_d.next = self.e_seen_d.q.val();
        self.e_verdict.eff0n.next = self.e_eff0n.q.val();
        self.e_verdict.eff1n.next = self.e_eff1n.q.val();
        self.e_verdict.g0.next = self.e_g0.q.val();
        self.e_verdict.hasimm.next = self.e_hasimm.q.val();
        self.x_below.next = self.e_verdict.below.val();
        self.x_nw.next = self.e_verdict.nw.val();
        self.x_ath.next = self.e_verdict.ath.val();
        self.x_seen.next = self.e_verdict.seen.val();
        self.x_eff0.next = self.e_verdict.eff0.val();
        self.x_eff1.next = self.e_verdict.eff1.val();
        self.x_enok.next = self.e_g0.q.val();
        self.x_acc.next = self.e_verdict.acc.val();
        self.x_adv.next = self.e_verdict.adv.val();
        self.x_ins0.next = self.e_verdict.ins0.val();
        self.x_ins1.next = self.e_verdict.ins1.val();
        // The search variant this event's own outcome depends on.
        self.x_a.next = (self.e_s1.q.val() & self.w_pacc.q.val());
        if self.x_a.val() {
            if self.e_b2.q.val() {
                self.x_s.next = self.e_sv[3].q.val();
            } else {
                self.x_s.next = self.e_sv[1].q.val();
            }
        } else if self.e_b2.q.val() {
            self.x_s.next = self.e_sv[2].q.val();
        } else {
            self.x_s.next = self.e_sv[0].q.val();
        }
        // The new word. A QP command writes a fresh window: every position "arrived in
        // the previous lap" (the complement of the expected parity), head at its PSN.
        if self.e_cfg.q.val() {
            self.x_rw.next = !self.e_e.q.val();
        } else {
            self.x_rw.next = self.x_r.val();
        }
        self.w_r.d.next = self.x_rw.val();
        // B's register for C's searches (with n−3, now in E, the same QP: E's bitmap).
        if self.b_s3.q.val() {
            self.c_zr.d.next = (self.x_rw.val() ^ self.b_e.val());
            self.c_oh3.d.next = self.e_oh.q.val();
        } else {
            self.c_zr.d.next = (self.b_rword.val().get_bits::<256>(0) ^ self.b_e.val());
            self.c_oh3.d.next = 0.into();
        }
        if self.e_cfg.q.val() {
            self.w_h.d.next = self.e_p.q.val();
            self.w_v0.d.next = false;
            self.w_v1.d.next = false;
            self.w_en.d.next = self.e_en.q.val();
            self.w_vni.d.next = self.e_vs.q.val();
            self.w_pacc.d.next = false;
            self.w_pacc_g.d.next = 0.into();
        } else {
            if self.x_adv.val() {
                self.w_h.d.next = self.x_s.val();
            } else {
                self.w_h.d.next = self.x_h.val();
            }
            self.w_v0.d.next = (self.x_ins0.val() | self.x_eff0.val());
            self.w_v1.d.next = (self.x_ins1.val() | self.x_eff1.val());
            self.w_en.d.next = self.x_en.val();
            self.w_vni.d.next = self.x_vni.val();
            self.w_pacc.d.next = self.x_acc.val();
            if self.x_acc.val() {
                self.w_pacc_g.d.next = self.e_grp.q.val();
            } else {
                self.w_pacc_g.d.next = 0.into();
            }
        }
        if self.x_ins0.val() {
            self.w_psn0.d.next = self.e_p.q.val();
            self.w_imm0.d.next = self.e_imm.q.val();
        } else {
            self.w_psn0.d.next = self.x_psn0.val();
            self.w_imm0.d.next = self.x_imm0.val();
        }
        if self.x_ins1.val() {
            self.w_psn1.d.next = self.e_p.q.val();
            self.w_imm1.d.next = self.e_imm.q.val();
        } else {
            self.w_psn1.d.next = self.x_psn1.val();
            self.w_imm1.d.next = self.x_imm1.val();
        }
        self.w_poh.d.next = self.e_oh.q.val();
        self.w_ppar.d.next = self.e_p.q.val().get_bit(8);
        self.w_ppar_s.d.next = self.e_p.q.val().get_bit(8);
        self.w_pacc_d.d.next = self.w_pacc.q.val();
        self.w_adv.d.next = (self.x_adv.val() & !self.e_cfg.q.val());
        self.w_ins0.d.next = (self.x_ins0.val() & !self.e_cfg.q.val());
        self.w_ins1.d.next = (self.x_ins1.val() & !self.e_cfg.q.val());
        self.w_valid.d.next = (self.e_valid.q.val() & !self.e_cfg.q.val());
        self.w_cfg.d.next = self.e_cfg.q.val();
        self.w_writes.d.next = self.e_writes.q.val();
        self.w_qp.d.next = self.e_qp.q.val();
        // What the results stages need.
        self.w_known.d.next = self.e_known.q.val();
        self.w_enok.d.next = self.x_enok.val();
        self.w_below.d.next = self.x_below.val();
        self.w_nw.d.next = self.x_nw.val();
        self.w_seen.d.next = self.x_seen.val();
        self.w_full.d.next = (self.x_eff0.val() & self.x_eff1.val());
        self.w_hasimm.d.next = self.e_hasimm.q.val();
        self.w_ath.d.next = self.x_ath.val();
        self.w_p.d.next = self.e_p.q.val();
        self.w_p1.d.next = self.e_p1.q.val();
        self.w_imm_in.d.next = self.e_imm.q.val();
        self.w_ackreq.d.next = self.e_ackreq.q.val();
        self.w_s.d.next = self.x_s.val();
        self.w_rel0_psn.d.next = self.x_psn0.val();
        self.w_rel1_psn.d.next = self.x_psn1.val();
        self.w_rel0_imm.d.next = self.x_imm0.val();
        self.w_rel1_imm.d.next = self.x_imm1.val();
        self.w_eff0.d.next = self.x_eff0.val();
        self.w_eff1.d.next = self.x_eff1.val();

        // ============ F: write the word back; the verdict; the new window's bitmap. ===
        self.ram.write_address.next = self.w_qp.q.val();
        self.ram.write_data.next = self.w_word.val();
        self.ram.write_enable.next = self.w_writes.q.val();
        self.w2_word.d.next = self.w_word.val();
        self.w3_word.d.next = self.w2_word.q.val();
        if !self.w_known.q.val() {
            self.f_code.next = 3.into();
        } else if !self.w_enok.q.val() {
            self.f_code.next = 4.into();
        } else if self.w_below.q.val() {
            self.f_code.next = 1.into();
        } else if self.w_nw.q.val() {
            self.f_code.next = 2.into();
        } else if self.w_seen.q.val() {
            self.f_code.next = 1.into();
        } else if ((self.w_hasimm.q.val() & !self.w_ath.q.val()) & self.w_full.q.val()) {
            self.f_code.next = 5.into();
        } else {
            self.f_code.next = 0.into();
        }
        // Slots the head passed: pending before this event and below the new head.
        self.f_d0.next = (self.w_rel0_psn.q.val() - self.w_s.q.val());
        self.f_d1.next = (self.w_rel1_psn.q.val() - self.w_s.q.val());
        self.f_d01.next = (self.w_rel0_psn.q.val() - self.w_rel1_psn.q.val());
        self.f_rel0.next =
            ((self.w_adv.q.val() & self.w_eff0.q.val()) & self.f_d0.val().get_bit(23));
        self.f_rel1.next =
            ((self.w_adv.q.val() & self.w_eff1.q.val()) & self.f_d1.val().get_bit(23));
        // Lanes 1 and 2 (chosen in G): released slots in PSN order.
        self.g_rel0.d.next = self.f_rel0.val();
        self.g_rel1.d.next = self.f_rel1.val();
        self.g_ord.d.next = self.f_d01.val().get_bit(23);
        self.g_cqe1_psn.d.next = self.w_rel0_psn.q.val();
        self.g_cqe1_imm.d.next = self.w_rel0_imm.q.val();
        self.g_cqe2_psn.d.next = self.w_rel1_psn.q.val();
        self.g_cqe2_imm.d.next = self.w_rel1_imm.q.val();
        // ACK: asked for, or a hole closed (the head moved past p + 1), or a duplicate.
        self.g_ack.d.next = (((self.w_valid.q.val() & self.w_pacc.q.val())
            & (self.w_ackreq.q.val()
                | (self.w_adv.q.val() & (self.w_s.q.val() != self.w_p1.q.val()))))
            | (self.w_valid.q.val() & (self.f_code.val() == 1)));
        self.g_cqe0.d.next = ((self.w_adv.q.val() & self.w_hasimm.q.val()) & self.w_valid.q.val());
        self.g_code.d.next = self.f_code.val();
        self.g_acc.d.next = (self.w_valid.q.val() & self.w_pacc.q.val());
        self.g_adv.d.next = self.w_adv.q.val();
        self.g_valid.d.next = self.w_valid.q.val();
        self.g_wr.d.next = self.w_writes.q.val();
        self.g_cfg.d.next = self.w_cfg.q.val();
        self.g_qp.d.next = self.w_qp.q.val();
        self.g_p.d.next = self.w_p.q.val();
        self.g_imm.d.next = self.w_imm_in.q.val();
        self.g_h.d.next = self.w_h.q.val();
        // Arrived in the new window: bitmap bit = the parity its position expects.
        self.thm_h.idx.next = self.w_h.q.val().get_bits::<8>(0);
        if self.w_h.q.val().get_bit(8) {
            self.f_e.next = !self.thm_h.lt.val();
        } else {
            self.f_e.next = self.thm_h.lt.val();
        }
        self.g_arr.d.next = !(self.w_r_applied.val() ^ self.f_e.val());
        self.g_t.d.next = self.thm_h.lt.val();

        // ============ G: count, highest arrived, missing bitmap (first halves). ========
        self.pg.v.next = self.g_arr.q.val();
        self.h_cnt16.d.next = self.pg.counts.val();
        // Offsets from the head grow from the head's position to the top, then wrap:
        // positions below the head's hold the highest offsets.
        self.sgh_w.v.next = self.g_arr.q.val();
        self.sgh_w.m.next = self.g_t.q.val();
        self.sgh_u.v.next = self.g_arr.q.val();
        self.sgh_u.m.next = self.g_t.q.val();
        self.h_hw_any.d.next = self.sgh_w.any.val();
        self.h_hw_idx.d.next = self.sgh_w.idx.val();
        self.h_hu_any.d.next = self.sgh_u.any.val();
        self.h_hu_idx.d.next = self.sgh_u.idx.val();
        self.rot_hi.v.next = !self.g_arr.q.val();
        self.rot_hi.amt.next = self.g_h.q.val().get_bits::<4>(4);
        self.h_rot.d.next = self.rot_hi.out.val();

        // ============ H ================================================================
        self.sum_a[0].a.next = ((bit_cast::<28, 5>(self.h_cnt16.q.val().get_bits::<5>(15)) << 21)
            | (bit_cast::<28, 5>(self.h_cnt16.q.val().get_bits::<5>(10)) << 14)
            | (bit_cast::<28, 5>(self.h_cnt16.q.val().get_bits::<5>(5)) << 7)
            | bit_cast::<28, 5>(self.h_cnt16.q.val().get_bits::<5>(0)));
        self.i_sum4[0].d.next = self.sum_a[0].total.val().get_bits::<7>(0);
        self.sum_a[1].a.next = ((bit_cast::<28, 5>(self.h_cnt16.q.val().get_bits::<5>(35)) << 21)
            | (bit_cast::<28, 5>(self.h_cnt16.q.val().get_bits::<5>(30)) << 14)
            | (bit_cast::<28, 5>(self.h_cnt16.q.val().get_bits::<5>(25)) << 7)
            | bit_cast::<28, 5>(self.h_cnt16.q.val().get_bits::<5>(20)));
        self.i_sum4[1].d.next = self.sum_a[1].total.val().get_bits::<7>(0);
        self.sum_a[2].a.next = ((bit_cast::<28, 5>(self.h_cnt16.q.val().get_bits::<5>(55)) << 21)
            | (bit_cast::<28, 5>(self.h_cnt16.q.val().get_bits::<5>(50)) << 14)
            | (bit_cast::<28, 5>(self.h_cnt16.q.val().get_bits::<5>(45)) << 7)
            | bit_cast::<28, 5>(self.h_cnt16.q.val().get_bits::<5>(40)));
        self.i_sum4[2].d.next = self.sum_a[2].total.val().get_bits::<7>(0);
        self.sum_a[3].a.next = ((bit_cast::<28, 5>(self.h_cnt16.q.val().get_bits::<5>(75)) << 21)
            | (bit_cast::<28, 5>(self.h_cnt16.q.val().get_bits::<5>(70)) << 14)
            | (bit_cast::<28, 5>(self.h_cnt16.q.val().get_bits::<5>(65)) << 7)
            | bit_cast::<28, 5>(self.h_cnt16.q.val().get_bits::<5>(60)));
        self.i_sum4[3].d.next = self.sum_a[3].total.val().get_bits::<7>(0);
        self.sfh.any_a.next = self.h_hw_any.q.val();
        self.sfh.idx_a.next = self.h_hw_idx.q.val();
        self.sfh.any_b.next = self.h_hu_any.q.val();
        self.sfh.idx_b.next = self.h_hu_idx.q.val();
        self.i_pos.d.next = self.sfh.pos.val();
        self.i_found.d.next = self.sfh.found.val();
        self.rot_lo.v.next = self.h_rot.q.val();
        self.rot_lo.amt.next = self.h_h.q.val().get_bits::<4>(0);
        self.i_rot.d.next = self.rot_lo.out.val();

        // ============ I ================================================================
        self.sum_b.a.next = ((bit_cast::<28, 7>(self.i_sum4[3].q.val()) << 21)
            | (bit_cast::<28, 7>(self.i_sum4[2].q.val()) << 14)
            | (bit_cast::<28, 7>(self.i_sum4[1].q.val()) << 7)
            | bit_cast::<28, 7>(self.i_sum4[0].q.val()));
        self.j_count.d.next = self.sum_b.total.val();
        self.i_hi.next = (self.i_pos.q.val() - self.i_h.q.val().get_bits::<8>(0));
        self.j_hi.d.next = self.i_hi.val();
        // span = hi + 1; q's bit i ? span : 0 is (q's bit i ? hi : 0) + q's bit i.
        self.hi_g[0].next = 0.into();
        if self.cfg_q.q.val().get_bit(0) {
            self.hi_g[0].next = self.i_hi.val();
        }
        self.j_pp[0].d.next = (bit_cast::<9, 8>(self.hi_g[0].val())
            + bit_cast::<9, 1>(self.cfg_q.q.val().get_bit(0).into()));
        self.hi_g[1].next = 0.into();
        if self.cfg_q.q.val().get_bit(1) {
            self.hi_g[1].next = self.i_hi.val();
        }
        self.j_pp[1].d.next = (bit_cast::<9, 8>(self.hi_g[1].val())
            + bit_cast::<9, 1>(self.cfg_q.q.val().get_bit(1).into()));
        self.hi_g[2].next = 0.into();
        if self.cfg_q.q.val().get_bit(2) {
            self.hi_g[2].next = self.i_hi.val();
        }
        self.j_pp[2].d.next = (bit_cast::<9, 8>(self.hi_g[2].val())
            + bit_cast::<9, 1>(self.cfg_q.q.val().get_bit(2).into()));
        self.hi_g[3].next = 0.into();
        if self.cfg_q.q.val().get_bit(3) {
            self.hi_g[3].next = self.i_hi.val();
        }
        self.j_pp[3].d.next = (bit_cast::<9, 8>(self.hi_g[3].val())
            + bit_cast::<9, 1>(self.cfg_q.q.val().get_bit(3).into()));
        self.hi_g[4].next = 0.into();
        if self.cfg_q.q.val().get_bit(4) {
            self.hi_g[4].next = self.i_hi.val();
        }
        self.j_pp[4].d.next = (bit_cast::<9, 8>(self.hi_g[4].val())
            + bit_cast::<9, 1>(self.cfg_q.q.val().get_bit(4).into()));
        self.hi_g[5].next = 0.into();
        if self.cfg_q.q.val().get_bit(5) {
            self.hi_g[5].next = self.i_hi.val();
        }
        self.j_pp[5].d.next = (bit_cast::<9, 8>(self.hi_g[5].val())
            + bit_cast::<9, 1>(self.cfg_q.q.val().get_bit(5).into()));
        self.hi_g[6].next = 0.into();
        if self.cfg_q.q.val().get_bit(6) {
            self.hi_g[6].next = self.i_hi.val();
        }
        self.j_pp[6].d.next = (bit_cast::<9, 8>(self.hi_g[6].val())
            + bit_cast::<9, 1>(self.cfg_q.q.val().get_bit(6).into()));
        self.j_ntop.d.next = (self.i_hi.val() - self.cfg_ooo_thresh.val().get_bits::<8>(0));
        // hi − bound in 9 bits (−256..=255 fits): its low byte is the offset, its sign
        // says hi < bound.
        // One subtraction for both (a compare beside it put a LUT before its carry), and
        // the sign kept as it is (its inverse cost a LUT after the carry).
        self.i_hil.next = (bit_cast::<9, 8>(self.i_hi.val()) - self.cfg_la2.q.val());
        self.j_ntopl.d.next = self.i_hil.val().get_bits::<8>(0);
        self.j_hlow.d.next = self.i_hil.val().get_bit(8);
        self.j_found.d.next = self.i_found.q.val();
        self.j_rot.d.next = self.i_rot.q.val();

        // ============ J: the missing share (first half); the named PSNs. ===============
        // missing × 100 ≥ pct × span  ⟺  span × (100 − pct) − count × 100 ≥ 0, in 17-bit
        // two's complement. Sums of three go through a carry-save level (one LUT per bit)
        // before their one carry chain.
        self.pp0.next = bit_cast::<17, 9>(self.j_pp[0].q.val());
        self.pp1.next = (bit_cast::<17, 9>(self.j_pp[1].q.val()) << 1);
        self.pp2.next = (bit_cast::<17, 9>(self.j_pp[2].q.val()) << 2);
        self.pp3.next = (bit_cast::<17, 9>(self.j_pp[3].q.val()) << 3);
        self.pp4.next = (bit_cast::<17, 9>(self.j_pp[4].q.val()) << 4);
        self.pp5.next = (bit_cast::<17, 9>(self.j_pp[5].q.val()) << 5);
        self.pp6.next = (bit_cast::<17, 9>(self.j_pp[6].q.val()) << 6);
        self.cs_s1.next = ((self.pp0.val() ^ self.pp1.val()) ^ self.pp2.val());
        self.cs_c1.next = ((((self.pp0.val() & self.pp1.val())
            | (self.pp0.val() & self.pp2.val()))
            | (self.pp1.val() & self.pp2.val()))
            << 1);
        self.cs_s2.next = ((self.cs_s1.val() ^ self.cs_c1.val()) ^ self.pp3.val());
        self.cs_c2.next = ((((self.cs_s1.val() & self.cs_c1.val())
            | (self.cs_s1.val() & self.pp3.val()))
            | (self.cs_c1.val() & self.pp3.val()))
            << 1);
        self.k_l0123.d.next = (self.cs_s2.val() + self.cs_c2.val());
        self.cs_s3.next = ((self.pp4.val() ^ self.pp5.val()) ^ self.pp6.val());
        self.cs_c3.next = ((((self.pp4.val() & self.pp5.val())
            | (self.pp4.val() & self.pp6.val()))
            | (self.pp5.val() & self.pp6.val()))
            << 1);
        self.k_l456.d.next = (self.cs_s3.val() + self.cs_c3.val());
        self.cs_a.next = (bit_cast::<17, 9>(self.j_count.q.val()) << 6);
        self.cs_b.next = (bit_cast::<17, 9>(self.j_count.q.val()) << 5);
        self.cs_c.next = (bit_cast::<17, 9>(self.j_count.q.val()) << 2);
        self.cs_s4.next = ((self.cs_a.val() ^ self.cs_b.val()) ^ self.cs_c.val());
        self.cs_c4.next = ((((self.cs_a.val() & self.cs_b.val())
            | (self.cs_a.val() & self.cs_c.val()))
            | (self.cs_b.val() & self.cs_c.val()))
            << 1);
        self.k_c100.d.next = (self.cs_s4.val() + self.cs_c4.val());
        // The request names the PSNs at least the out-of-order threshold behind the
        // highest: offsets 0..=hi − thresh; or, once hi reaches an age bound above the
        // threshold, at least the bound behind: offsets 0..=hi − bound.
        self.ntop_sel.next = self.j_ntop.q.val();
        if !self.j_hlow.q.val() {
            self.ntop_sel.next = self.j_ntopl.q.val();
        }
        self.ntop_dec.idx.next = self.ntop_sel.val();
        self.ntop_thm.idx.next = self.ntop_sel.val();
        self.k_missing.d.next =
            (self.j_rot.q.val() & (self.ntop_dec.oh.val() | self.ntop_thm.lt.val()));
        // Compared here from `j_hi`, not in I behind the subtraction that forms it.
        self.k_ooo.d.next = (bit_cast::<16, 8>(self.j_hi.q.val()) >= self.cfg_ooo_thresh.val());
        self.k_found.d.next = self.j_found.q.val();
        // The age test: a lone loss never reaches the share, but every packet above it
        // that arrives ages it (count ≤ 256; off is 511).
        self.k_age.d.next = (self.j_count.q.val() >= self.cfg_la.q.val());

        // ============ K: the missing share (second half): l0123 + l456 − c100. =========
        self.k_nc.next = !self.k_c100.q.val();
        self.k_s.next = ((self.k_l0123.q.val() ^ self.k_l456.q.val()) ^ self.k_nc.val());
        self.k_cy.next = ((((self.k_l0123.q.val() & self.k_l456.q.val())
            | (self.k_l0123.q.val() & self.k_nc.val()))
            | (self.k_l456.q.val() & self.k_nc.val()))
            << 1);
        // The carry-save word's bit 0 is free: the +1 of the two's complement goes there.
        self.k_diff.next = (self.k_s.val() + (self.k_cy.val() | 1));
        self.l_okp.d.next = (((self.k_acc.q.val() & self.k_found.q.val()) & self.k_ooo.q.val())
            & !self.cfg_never.q.val());
        self.l_neg.d.next = self.k_diff.val().get_bit(16);
        self.l_agep.d.next = (((self.k_acc.q.val() & self.k_found.q.val()) & self.k_ooo.q.val())
            & self.k_age.q.val());
        // Verdicts 2 (beyond the window) and 5 (no immediate slot).
        self.l_ref.d.next =
            (self.k_valid.q.val() & ((self.k_code.q.val() == 2) | (self.k_code.q.val() == 5)));
        self.l_missing.d.next = self.k_missing.q.val();
        self.l_ncqe.d.next = ((bit_cast::<2, 1>(self.k_cqe0.q.val().into())
            + bit_cast::<2, 1>(self.k_cqe1.q.val().into()))
            + bit_cast::<2, 1>(self.k_cqe2.q.val().into()));

        // ============ L: once per head position (a flag per QP, read and written here). =
        // The flag is read at J into a register (a 2,048-deep distributed-RAM read leaves
        // no room for logic after it). The two writes it cannot see, by the two headers
        // ahead, are forwarded at K. `k_rd` has no reset (`l_rd`, after it, has one, and
        // decides): with one, a synthesis run mapped the read's mux tree 4 levels deep
        // (budget 3 after a distributed-RAM read); without, within it.
        self.nak_mem.read_address.next = self.j_qp.q.val();
        self.k_rd.d.next = self.nak_mem.read_data.val();
        self.nak_mem.write_address.next = self.l_qp.q.val();
        self.l_sent.next = (self.l_rd.q.val() & !self.l_adv.q.val());
        self.l_ok.next = ((self.l_okp.q.val() & !self.l_neg.q.val()) | self.l_agep.q.val());
        self.l_nak.next = (self.l_ok.val() & !self.l_sent.val());
        // A QP command clears the flag; a header keeps it until the head moves.
        self.nak_mem.write_enable.next = self.l_wr.q.val();
        self.l_wdata.next = (!self.l_cfg.q.val() & (self.l_sent.val() | self.l_nak.val()));
        self.nak_mem.write_data.next = self.l_wdata.val();
        self.lw_en.d.next = self.l_wr.q.val();
        self.lw_qp.d.next = self.l_qp.q.val();
        self.lw_data.d.next = self.l_wdata.val();
        if (self.l_wr.q.val() & (self.k_qp.q.val() == self.l_qp.q.val())) {
            self.l_rd.d.next = self.l_wdata.val();
        } else if (self.lw_en.q.val() & (self.k_qp.q.val() == self.lw_qp.q.val())) {
            self.l_rd.d.next = self.lw_data.q.val();
        } else {
            self.l_rd.d.next = self.k_rd.q.val();
        }
        // A refusal's request names the refused PSN alone (bit 0 of the bitmap). A
        // refused header is not accepted, so it never raises the share request too.
        self.o_nak.d.next = (self.l_nak.val() | self.l_ref.q.val());
        if self.l_ref.q.val() {
            self.o_nak_psn.d.next = self.l_p.q.val();
            self.o_missing.d.next = 1.into();
        } else {
            self.o_nak_psn.d.next = self.l_h.q.val();
            self.o_missing.d.next = self.l_missing.q.val();
        }
        self.o_valid.d.next = self.l_valid.q.val();
        self.o_code.d.next = self.l_code.q.val();
        self.o_qp.d.next = self.l_qp.q.val();
        self.o_p.d.next = self.l_p.q.val();
        self.o_imm.d.next = self.l_imm.q.val();
        self.o_cqe0.d.next = self.l_cqe0.q.val();
        self.o_cqe1.d.next = self.l_cqe1.q.val();
        self.o_cqe2.d.next = self.l_cqe2.q.val();
        self.o_cqe1_psn.d.next = self.l_cqe1_psn.q.val();
        self.o_cqe1_imm.d.next = self.l_cqe1_imm.q.val();
        self.o_cqe2_psn.d.next = self.l_cqe2_psn.q.val();
        self.o_cqe2_imm.d.next = self.l_cqe2_imm.q.val();
        self.o_ack.d.next = self.l_ack.q.val();
        self.o_h.d.next = self.l_h.q.val();
        self.o_ncqe.d.next = self.l_ncqe.q.val();

        // The per-header results ride along from G to L.
        self.h_valid.d.next = self.g_valid.q.val();
        self.h_wr.d.next = self.g_wr.q.val();
        self.h_cfg.d.next = self.g_cfg.q.val();
        self.h_qp.d.next = self.g_qp.q.val();
        self.h_p.d.next = self.g_p.q.val();
        self.h_imm.d.next = self.g_imm.q.val();
        self.h_code.d.next = self.g_code.q.val();
        self.h_acc.d.next = self.g_acc.q.val();
        self.h_adv.d.next = self.g_adv.q.val();
        self.h_cqe0.d.next = self.g_cqe0.q.val();
        // g_cqe1/2_* hold slot 0 and slot 1 as they were; lane 1 is the lower PSN.
        self.h_cqe1.d.next = (self.g_rel0.q.val() | self.g_rel1.q.val());
        self.h_cqe2.d.next = (self.g_rel0.q.val() & self.g_rel1.q.val());
        if (self.g_rel0.q.val() & (!self.g_rel1.q.val() | self.g_ord.q.val())) {
            self.h_cqe1_psn.d.next = self.g_cqe1_psn.q.val();
            self.h_cqe1_imm.d.next = self.g_cqe1_imm.q.val();
            self.h_cqe2_psn.d.next = self.g_cqe2_psn.q.val();
            self.h_cqe2_imm.d.next = self.g_cqe2_imm.q.val();
        } else {
            self.h_cqe1_psn.d.next = self.g_cqe2_psn.q.val();
            self.h_cqe1_imm.d.next = self.g_cqe2_imm.q.val();
            self.h_cqe2_psn.d.next = self.g_cqe1_psn.q.val();
            self.h_cqe2_imm.d.next = self.g_cqe1_imm.q.val();
        }
        if (!self.g_rel1.q.val() | !self.g_rel0.q.val()) {
            self.h_cqe2_psn.d.next = 0.into();
            self.h_cqe2_imm.d.next = 0.into();
        }
        self.h_ack.d.next = self.g_ack.q.val();
        self.h_h.d.next = self.g_h.q.val();
        self.i_valid.d.next = self.h_valid.q.val();
        self.i_wr.d.next = self.h_wr.q.val();
        self.i_cfg.d.next = self.h_cfg.q.val();
        self.i_qp.d.next = self.h_qp.q.val();
        self.i_p.d.next = self.h_p.q.val();
        self.i_imm.d.next = self.h_imm.q.val();
        self.i_code.d.next = self.h_code.q.val();
        self.i_acc.d.next = self.h_acc.q.val();
        self.i_adv.d.next = self.h_adv.q.val();
        self.i_cqe0.d.next = self.h_cqe0.q.val();
        self.i_cqe1.d.next = self.h_cqe1.q.val();
        self.i_cqe2.d.next = self.h_cqe2.q.val();
        self.i_cqe1_psn.d.next = self.h_cqe1_psn.q.val();
        self.i_cqe1_imm.d.next = self.h_cqe1_imm.q.val();
        self.i_cqe2_psn.d.next = self.h_cqe2_psn.q.val();
        self.i_cqe2_imm.d.next = self.h_cqe2_imm.q.val();
        self.i_ack.d.next = self.h_ack.q.val();
        self.i_h.d.next = self.h_h.q.val();
        self.j_valid.d.next = self.i_valid.q.val();
        self.j_wr.d.next = self.i_wr.q.val();
        self.j_cfg.d.next = self.i_cfg.q.val();
        self.j_qp.d.next = self.i_qp.q.val();
        self.j_p.d.next = self.i_p.q.val();
        self.j_imm.d.next = self.i_imm.q.val();
        self.j_code.d.next = self.i_code.q.val();
        self.j_acc.d.next = self.i_acc.q.val();
        self.j_adv.d.next = self.i_adv.q.val();
        self.j_cqe0.d.next = self.i_cqe0.q.val();
        self.j_cqe1.d.next = self.i_cqe1.q.val();
        self.j_cqe2.d.next = self.i_cqe2.q.val();
        self.j_cqe1_psn.d.next = self.i_cqe1_psn.q.val();
        self.j_cqe1_imm.d.next = self.i_cqe1_imm.q.val();
        self.j_cqe2_psn.d.next = self.i_cqe2_psn.q.val();
        self.j_cqe2_imm.d.next = self.i_cqe2_imm.q.val();
        self.j_ack.d.next = self.i_ack.q.val();
        self.j_h.d.next = self.i_h.q.val();
        self.k_valid.d.next = self.j_valid.q.val();
        self.k_wr.d.next = self.j_wr.q.val();
        self.k_cfg.d.next = self.j_cfg.q.val();
        self.k_qp.d.next = self.j_qp.q.val();
        self.k_p.d.next = self.j_p.q.val();
        self.k_imm.d.next = self.j_imm.q.val();
        self.k_code.d.next = self.j_code.q.val();
        self.k_acc.d.next = self.j_acc.q.val();
        self.k_adv.d.next = self.j_adv.q.val();
        self.k_cqe0.d.next = self.j_cqe0.q.val();
        self.k_cqe1.d.next = self.j_cqe1.q.val();
        self.k_cqe2.d.next = self.j_cqe2.q.val();
        self.k_cqe1_psn.d.next = self.j_cqe1_psn.q.val();
        self.k_cqe1_imm.d.next = self.j_cqe1_imm.q.val();
        self.k_cqe2_psn.d.next = self.j_cqe2_psn.q.val();
        self.k_cqe2_imm.d.next = self.j_cqe2_imm.q.val();
        self.k_ack.d.next = self.j_ack.q.val();
        self.k_h.d.next = self.j_h.q.val();
        self.l_valid.d.next = self.k_valid.q.val();
        self.l_wr.d.next = self.k_wr.q.val();
        self.l_cfg.d.next = self.k_cfg.q.val();
        self.l_qp.d.next = self.k_qp.q.val();
        self.l_p.d.next = self.k_p.q.val();
        self.l_imm.d.next = self.k_imm.q.val();
        self.l_code.d.next = self.k_code.q.val();
        self.l_acc.d.next = self.k_acc.q.val();
        self.l_adv.d.next = self.k_adv.q.val();
        self.l_cqe0.d.next = self.k_cqe0.q.val();
        self.l_cqe1.d.next = self.k_cqe1.q.val();
        self.l_cqe2.d.next = self.k_cqe2.q.val();
        self.l_cqe1_psn.d.next = self.k_cqe1_psn.q.val();
        self.l_cqe1_imm.d.next = self.k_cqe1_imm.q.val();
        self.l_cqe2_psn.d.next = self.k_cqe2_psn.q.val();
        self.l_cqe2_imm.d.next = self.k_cqe2_imm.q.val();
        self.l_ack.d.next = self.k_ack.q.val();
        self.l_h.d.next = self.k_h.q.val();

        // ============ Counters, of the results leaving now. ==============================
        if self.o_valid.q.val() {
            if (self.o_code.q.val() == 0) {
                self.cnt_placed.d.next = (self.cnt_placed.q.val() + 1);
            }
            if (self.o_code.q.val() == 1) {
                self.cnt_duplicate.d.next = (self.cnt_duplicate.q.val() + 1);
            }
            if (self.o_code.q.val() == 2) {
                self.cnt_beyond.d.next = (self.cnt_beyond.q.val() + 1);
            }
            if (self.o_code.q.val() == 3) {
                self.cnt_unknown.d.next = (self.cnt_unknown.q.val() + 1);
            }
            if (self.o_code.q.val() == 4) {
                self.cnt_bad_qp.d.next = (self.cnt_bad_qp.q.val() + 1);
            }
            if (self.o_code.q.val() == 5) {
                self.cnt_imm_full.d.next = (self.cnt_imm_full.q.val() + 1);
            }
        }
        self.cnt_cqes.d.next = (self.cnt_cqes.q.val() + bit_cast::<32, 2>(self.o_ncqe.q.val()));
        if self.o_ack.q.val() {
            self.cnt_acks.d.next = (self.cnt_acks.q.val() + 1);
        }
        if self.o_nak.q.val() {
            self.cnt_naks.d.next = (self.cnt_naks.q.val() + 1);
        }

        // ============ Reset: sweep every QP word to zero (disabled). ====================
        // The request flags are not swept: a QP command clears its QP's flag, and a
        // disabled QP never reads it.
        if self.sweep.active.val() {
            self.ram.write_address.next = self.sweep.index.val();
            self.ram.write_data.next = 0.into();
            self.ram.write_enable.next = true;
        }
        // Every register is reset, the pipeline's data included: a chain of registers
        // without a reset is mapped to a shift-register LUT, whose clock-to-out costs
        // two logic levels of the next stage.
        if self.rst.val() {
            self.cfg_block.d.next = 0.into();
            self.a_valid.d.next = false;
            self.b_valid.d.next = false;
            self.b_writes.d.next = false;
            self.c_valid.d.next = false;
            self.c_writes.d.next = false;
            self.d_valid.d.next = false;
            self.d_writes.d.next = false;
            self.e_valid.d.next = false;
            self.e_writes.d.next = false;
            self.w_valid.d.next = false;
            self.w_writes.d.next = false;
            self.w_pacc.d.next = false;
            self.w_pacc_g.d.next = 0.into();
            self.w_adv.d.next = false;
            self.g_valid.d.next = false;
            self.g_wr.d.next = false;
            self.g_ack.d.next = false;
            self.g_cqe0.d.next = false;
            self.g_cqe1.d.next = false;
            self.g_cqe2.d.next = false;
            self.g_acc.d.next = false;
            self.h_valid.d.next = false;
            self.h_wr.d.next = false;
            self.i_valid.d.next = false;
            self.i_wr.d.next = false;
            self.j_valid.d.next = false;
            self.j_wr.d.next = false;
            self.k_valid.d.next = false;
            self.k_wr.d.next = false;
            self.l_valid.d.next = false;
            self.l_wr.d.next = false;
            self.l_okp.d.next = false;
            self.l_agep.d.next = false;
            self.k_age.d.next = false;
            self.l_ref.d.next = false;
            self.o_valid.d.next = false;
            self.l_rd.d.next = false;
            self.lw_en.d.next = false;
            self.lw_data.d.next = false;
            self.lw_qp.d.next = 0.into();
            self.o_nak.d.next = false;
            self.o_ack.d.next = false;
            self.o_cqe0.d.next = false;
            self.o_cqe1.d.next = false;
            self.o_cqe2.d.next = false;
            self.o_ncqe.d.next = 0.into();
            self.cnt_placed.d.next = 0.into();
            self.cnt_duplicate.d.next = 0.into();
            self.cnt_beyond.d.next = 0.into();
            self.cnt_unknown.d.next = 0.into();
            self.cnt_bad_qp.d.next = 0.into();
            self.cnt_imm_full.d.next = 0.into();
            self.cnt_cqes.d.next = 0.into();
            self.cnt_acks.d.next = 0.into();
            self.cnt_naks.d.next = 0.into();
            self.b_cfg.d.next = false;
            self.b_vs.d.next = 0.into();
            self.b_ackreq.d.next = false;
            self.b_hasimm.d.next = false;
            self.b_imm.d.next = 0.into();
            self.b_en.d.next = false;
            self.b_known.d.next = false;
            self.c_cfg.d.next = false;
            self.c_vs.d.next = 0.into();
            self.c_ackreq.d.next = false;
            self.c_hasimm.d.next = false;
            self.c_imm.d.next = 0.into();
            self.c_en.d.next = false;
            self.c_known.d.next = false;
            self.d_cfg.d.next = false;
            self.d_vs.d.next = 0.into();
            self.d_ackreq.d.next = false;
            self.d_hasimm.d.next = false;
            self.d_imm.d.next = 0.into();
            self.d_en.d.next = false;
            self.d_known.d.next = false;
            self.e_cfg.d.next = false;
            self.e_vs.d.next = 0.into();
            self.e_ackreq.d.next = false;
            self.e_hasimm.d.next = false;
            self.e_imm.d.next = 0.into();
            self.e_en.d.next = false;
            self.e_known.d.next = false;
            self.b_p1.d.next = 0.into();
            self.c_p1.d.next = 0.into();
            self.d_p1.d.next = 0.into();
            self.e_p1.d.next = 0.into();
            self.w_p1.d.next = 0.into();
            self.b_phi1.d.next = 0.into();
            self.c_phi1.d.next = 0.into();
            self.d_phi1.d.next = 0.into();
            self.b_pw.d.next = 0.into();
            self.c_pw.d.next = 0.into();
            self.d_pw.d.next = 0.into();
            self.g_cfg.d.next = false;
            self.g_qp.d.next = 0.into();
            self.g_p.d.next = 0.into();
            self.g_imm.d.next = 0.into();
            self.g_code.d.next = 0.into();
            self.g_adv.d.next = false;
            self.g_cqe1_psn.d.next = 0.into();
            self.g_cqe1_imm.d.next = 0.into();
            self.g_cqe2_psn.d.next = 0.into();
            self.g_cqe2_imm.d.next = 0.into();
            self.g_h.d.next = 0.into();
            self.h_cfg.d.next = false;
            self.h_qp.d.next = 0.into();
            self.h_p.d.next = 0.into();
            self.h_imm.d.next = 0.into();
            self.h_code.d.next = 0.into();
            self.h_adv.d.next = false;
            self.h_cqe1_psn.d.next = 0.into();
            self.h_cqe1_imm.d.next = 0.into();
            self.h_cqe2_psn.d.next = 0.into();
            self.h_cqe2_imm.d.next = 0.into();
            self.h_h.d.next = 0.into();
            self.i_cfg.d.next = false;
            self.i_qp.d.next = 0.into();
            self.i_p.d.next = 0.into();
            self.i_imm.d.next = 0.into();
            self.i_code.d.next = 0.into();
            self.i_adv.d.next = false;
            self.i_cqe1_psn.d.next = 0.into();
            self.i_cqe1_imm.d.next = 0.into();
            self.i_cqe2_psn.d.next = 0.into();
            self.i_cqe2_imm.d.next = 0.into();
            self.i_h.d.next = 0.into();
            self.j_cfg.d.next = false;
            self.j_qp.d.next = 0.into();
            self.j_p.d.next = 0.into();
            self.j_imm.d.next = 0.into();
            self.j_code.d.next = 0.into();
            self.j_adv.d.next = false;
            self.j_cqe1_psn.d.next = 0.into();
            self.j_cqe1_imm.d.next = 0.into();
            self.j_cqe2_psn.d.next = 0.into();
            self.j_cqe2_imm.d.next = 0.into();
            self.j_h.d.next = 0.into();
            self.k_cfg.d.next = false;
            self.k_qp.d.next = 0.into();
            self.k_p.d.next = 0.into();
            self.k_imm.d.next = 0.into();
            self.k_code.d.next = 0.into();
            self.k_adv.d.next = false;
            self.k_cqe1_psn.d.next = 0.into();
            self.k_cqe1_imm.d.next = 0.into();
            self.k_cqe2_psn.d.next = 0.into();
            self.k_cqe2_imm.d.next = 0.into();
            self.k_h.d.next = 0.into();
            self.l_cfg.d.next = false;
            self.l_qp.d.next = 0.into();
            self.l_p.d.next = 0.into();
            self.l_imm.d.next = 0.into();
            self.l_code.d.next = 0.into();
            self.l_adv.d.next = false;
            self.l_cqe1_psn.d.next = 0.into();
            self.l_cqe1_imm.d.next = 0.into();
            self.l_cqe2_psn.d.next = 0.into();
            self.l_cqe2_imm.d.next = 0.into();
            self.l_h.d.next = 0.into();
            self.w_p.d.next = 0.into();
            self.w_imm_in.d.next = 0.into();
            self.w_ackreq.d.next = false;
            self.o_qp.d.next = 0.into();
            self.o_p.d.next = 0.into();
            self.o_imm.d.next = 0.into();
            self.o_code.d.next = 0.into();
            self.o_cqe1_psn.d.next = 0.into();
            self.o_cqe1_imm.d.next = 0.into();
            self.o_cqe2_psn.d.next = 0.into();
            self.o_cqe2_imm.d.next = 0.into();
            self.o_h.d.next = 0.into();
            self.o_nak_psn.d.next = 0.into();
            self.i_found.d.next = false;
            self.j_found.d.next = false;
            self.k_found.d.next = false;
            self.k_ooo.d.next = false;
            self.i_rot.d.next = 0.into();
            self.j_rot.d.next = 0.into();
            self.k_missing.d.next = 0.into();
            self.l_missing.d.next = 0.into();
            self.o_missing.d.next = 0.into();
            self.h_acc.d.next = false;
            self.h_ack.d.next = false;
            self.i_acc.d.next = false;
            self.i_ack.d.next = false;
            self.j_acc.d.next = false;
            self.j_ack.d.next = false;
            self.k_acc.d.next = false;
            self.k_ack.d.next = false;
            self.l_acc.d.next = false;
            self.l_ack.d.next = false;
            self.h_cqe0.d.next = false;
            self.h_cqe1.d.next = false;
            self.h_cqe2.d.next = false;
            self.i_cqe0.d.next = false;
            self.i_cqe1.d.next = false;
            self.i_cqe2.d.next = false;
            self.j_cqe0.d.next = false;
            self.j_cqe1.d.next = false;
            self.j_cqe2.d.next = false;
            self.k_cqe0.d.next = false;
            self.k_cqe1.d.next = false;
            self.k_cqe2.d.next = false;
            self.l_cqe0.d.next = false;
            self.l_cqe1.d.next = false;
            self.l_cqe2.d.next = false;
            self.a_cfg.d.next = false;
            self.a_ackreq.d.next = false;
            self.a_hasimm.d.next = false;
            self.a_en.d.next = false;
            self.b_s1.d.next = false;
            self.b_s2.d.next = false;
            self.b_s3.d.next = false;
            self.b_s4.d.next = false;
            self.b_s5.d.next = false;
            self.c_s1.d.next = false;
            self.c_s2.d.next = false;
            self.c_s3.d.next = false;
            self.c_oh3.d.next = 0.into();
            self.d_s1.d.next = false;
            self.d_s2.d.next = false;
            self.e_s1.d.next = false;
            self.e_s2.d.next = false;
            self.e_below_d.d.next = false;
            self.e_nw_d.d.next = false;
            self.e_ath_d.d.next = false;
            self.e_seen_d.d.next = false;
            self.e_ge0_d.d.next = false;
            self.e_ge1_d.d.next = false;
            self.e_below_s.d.next = false;
            self.e_nw_s.d.next = false;
            self.e_ath_s.d.next = false;
            self.e_ge0_s.d.next = false;
            self.e_ge1_s.d.next = false;
            self.e_b2.d.next = false;
            self.e_eff0n.d.next = false;
            self.e_eff1n.d.next = false;
            self.e_g0.d.next = false;
            self.e_eqx.d.next = false;
            self.e_parm.d.next = false;
            self.w_cfg.d.next = false;
            self.w_pacc_d.d.next = false;
            self.w_ppar.d.next = false;
            self.d_s2eq.d.next = false;
            self.c_eq3.d.next = false;
            self.d_rs16.d.next = 0.into();
            self.d_fw3.d.next = false;
            self.d_par3.d.next = false;
            self.w_v0.d.next = false;
            self.w_v1.d.next = false;
            self.w_en.d.next = false;
            self.w_ins0.d.next = false;
            self.w_ins1.d.next = false;
            self.w_known.d.next = false;
            self.w_enok.d.next = false;
            self.w_below.d.next = false;
            self.w_nw.d.next = false;
            self.w_seen.d.next = false;
            self.w_full.d.next = false;
            self.w_hasimm.d.next = false;
            self.w_ath.d.next = false;
            self.w_eff0.d.next = false;
            self.w_eff1.d.next = false;
            self.g_rel0.d.next = false;
            self.g_rel1.d.next = false;
            self.g_ord.d.next = false;
            for i in 0..4 {
                self.d_gf_any[i].d.next = 0.into();
            }
            for i in 0..4 {
                self.d_gf_idx[i].d.next = 0.into();
            }
            for i in 0..4 {
                self.d_gu_any[i].d.next = 0.into();
            }
            for i in 0..4 {
                self.d_gu_idx[i].d.next = 0.into();
            }
            for i in 0..4 {
                self.e_sv[i].d.next = 0.into();
            }
            for i in 0..4 {
                self.i_sum4[i].d.next = 0.into();
            }
            self.a_qp.d.next = 0.into();
            self.a_p.d.next = 0.into();
            self.a_vs.d.next = 0.into();
            self.a_imm.d.next = 0.into();
            self.b_qp.d.next = 0.into();
            self.b_p.d.next = 0.into();
            self.c_qp.d.next = 0.into();
            self.c_p.d.next = 0.into();
            self.d_qp.d.next = 0.into();
            self.d_p.d.next = 0.into();
            self.e_qp.d.next = 0.into();
            self.e_p.d.next = 0.into();
            self.b_oh.d.next = 0.into();
            self.b_t.d.next = 0.into();
            self.c_oh.d.next = 0.into();
            self.c_e.d.next = 0.into();
            self.c_m.d.next = 0.into();
            self.c_v10.d.next = 0.into();
            self.c_v01.d.next = 0.into();
            self.c_f11.d.next = 0.into();
            self.c_v11.d.next = 0.into();
            self.d_oh.d.next = 0.into();
            self.d_e.d.next = 0.into();
            self.e_oh.d.next = 0.into();
            self.e_e.d.next = 0.into();
            self.w_qp.d.next = 0.into();
            self.w_r.d.next = 0.into();
            self.e_grp.d.next = 0.into();
            self.w_poh.d.next = 0.into();
            self.w_h.d.next = 0.into();
            self.w_psn0.d.next = 0.into();
            self.w_psn1.d.next = 0.into();
            self.w_imm0.d.next = 0.into();
            self.w_imm1.d.next = 0.into();
            self.w_vni.d.next = 0.into();
            self.w_s.d.next = 0.into();
            self.w_rel0_psn.d.next = 0.into();
            self.w_rel1_psn.d.next = 0.into();
            self.w_rel0_imm.d.next = 0.into();
            self.w_rel1_imm.d.next = 0.into();
            self.g_arr.d.next = 0.into();
            self.g_t.d.next = 0.into();
            self.h_cnt16.d.next = 0.into();
            self.h_hw_any.d.next = 0.into();
            self.h_hu_any.d.next = 0.into();
            self.h_hw_idx.d.next = 0.into();
            self.h_hu_idx.d.next = 0.into();
            self.h_rot.d.next = 0.into();
            self.i_pos.d.next = 0.into();
            self.j_count.d.next = 0.into();
            self.j_hi.d.next = 0.into();
            self.j_ntop.d.next = 0.into();
            self.j_ntopl.d.next = 0.into();
            self.j_hlow.d.next = true;
            self.j_pp[0].d.next = 0.into();
            self.j_pp[1].d.next = 0.into();
            self.j_pp[2].d.next = 0.into();
            self.j_pp[3].d.next = 0.into();
            self.j_pp[4].d.next = 0.into();
            self.j_pp[5].d.next = 0.into();
            self.j_pp[6].d.next = 0.into();
            self.k_l0123.d.next = 0.into();
            self.k_l456.d.next = 0.into();
            self.k_c100.d.next = 0.into();
            self.l_ncqe.d.next = 0.into();
        }

        // Bits computed and not needed (the low bits of sign-only subtractions, spare
        // word bits), named in Verilator's idiom for deliberately unused signals.
        self.unused_bits.next = (((self.k_diff.val().get_bits::<16>(0).any()
            | (self.cs_c1.val().get_bit(0) | self.cs_a.val().get_bits::<6>(0).any()))
            | (((((self.sf[0].found.val() | self.sf[1].found.val())
                | (self.sf[2].found.val() | self.sf[3].found.val()))
                | ((self.d_s1.q.val() | self.sfh.from_b.val())
                    | (self.sum_a[0].total.val().get_bits::<2>(7).any()
                        | self.sum_a[1].total.val().get_bits::<2>(7).any())))
                | (((self.sum_a[2].total.val().get_bits::<2>(7).any()
                    | self.sum_a[3].total.val().get_bits::<2>(7).any())
                    | (self.j_hi.q.val().any()
                        | (self.w2_word.q.val().get_bits::<2>(396).any()
                            | self.w3_word.q.val().get_bits::<2>(396).any())))
                    | ((self.d_dp.val().get_bits::<23>(0).any()
                        | self.d_dw.val().get_bits::<23>(0).any())
                        | (self.d_g0.val().get_bits::<23>(0).any()
                            | (self.d_g1.val().get_bits::<23>(0).any()
                                | self.f_d0.val().get_bits::<23>(0).any())))))
                | (((self.f_d1.val().get_bits::<23>(0).any()
                    | self.f_d01.val().get_bits::<23>(0).any())
                    | ((self.la_dp[0].val().get_bits::<23>(0).any()
                        | self.la_dw[0].val().get_bits::<23>(0).any())
                        | (self.la_dp[1].val().get_bits::<23>(0).any()
                            | self.la_dw[1].val().get_bits::<23>(0).any())))
                    | ((self.la_dp[2].val().get_bits::<23>(0).any()
                        | self.la_dw[2].val().get_bits::<23>(0).any())
                        | (self.la_dp[3].val().get_bits::<23>(0).any()
                            | self.la_dw[3].val().get_bits::<23>(0).any())))))
            | (self.d_g0w.val().get_bits::<23>(0).any()
                | self.d_g1w.val().get_bits::<23>(0).any()));
        // Neither ready looks at `rst`: the reset's net reaches nearly every register
        // here (about 9,800 loads), and through `rx_decap`'s header handshake it ended
        // paths 0.6 ns over budget. A command or header offered in a reset cycle is
        // taken and dropped (`ev_cfg`/`ev_hdr` do look at `rst`); `clearing` holds both
        // low from the next cycle until the sweep ends. Inside `prnic_top` both senders
        // (`rx_decap`, the QP command register) are reset in the same cycle.
        self.s_qp_ready.next = !self.sweep.active.val();
        self.s_hdr_ready.next = (((!self.s_qp_valid.val() & !self.sweep.active.val())
            & !self.m_hold.val())
            & !self.cfg_block.q.val().any());
        self.m_verdict_valid.next = self.o_valid.q.val();
        self.m_verdict_code.next = self.o_code.q.val();
        self.m_verdict_qp.next = self.o_qp.q.val();
        self.m_verdict_psn.next = self.o_p.q.val();
        self.m_cqe_qp.next = self.o_qp.q.val();
        self.m_cqe0_valid.next = self.o_cqe0.q.val();
        self.m_cqe0_psn.next = self.o_p.q.val();
        self.m_cqe0_imm.next = self.o_imm.q.val();
        self.m_cqe1_valid.next = self.o_cqe1.q.val();
        self.m_cqe1_psn.next = self.o_cqe1_psn.q.val();
        self.m_cqe1_imm.next = self.o_cqe1_imm.q.val();
        self.m_cqe2_valid.next = self.o_cqe2.q.val();
        self.m_cqe2_psn.next = self.o_cqe2_psn.q.val();
        self.m_cqe2_imm.next = self.o_cqe2_imm.q.val();
        self.m_ack_valid.next = self.o_ack.q.val();
        self.m_ack_psn.next = self.o_h.q.val();
        self.m_nak_valid.next = self.o_nak.q.val();
        self.m_nak_psn.next = self.o_nak_psn.q.val();
        self.m_nak_missing.next = self.o_missing.q.val();
        self.status_clearing.next = self.sweep.active.val();
        self.status_placed.next = self.cnt_placed.q.val();
        self.status_duplicate.next = self.cnt_duplicate.q.val();
        self.status_beyond_window.next = self.cnt_beyond.q.val();
        self.status_unknown_qp.next = self.cnt_unknown.q.val();
        self.status_bad_qp.next = self.cnt_bad_qp.q.val();
        self.status_imm_full.next = self.cnt_imm_full.q.val();
        self.status_cqes.next = self.cnt_cqes.q.val();
        self.status_acks.next = self.cnt_acks.q.val();
        self.status_naks.next = self.cnt_naks.q.val();
    }
}

/// Stage E's acceptance: one header's verdict bits from D's facts (both forms: against
/// the head as of n−2, `_d`, and against the head n−1 moved to, `_s`) and n−1's outcome
/// (`*_1`), when n−1 is the same QP (`s1`). Every input is a register, and the leaf is
/// marked [`MAP_APART`]: mapped with the block around it, ABC shares the look-ahead
/// selects among the outputs and builds the loop 5 LUT levels deep, where each output
/// is a function of a few of these inputs, 2 levels.
#[derive(LogicBlock, Default)]
struct LoopAccept {
    s1: Signal<In, Bit>,
    adv_1: Signal<In, Bit>,
    pacc_1: Signal<In, Bit>,
    ins0_1: Signal<In, Bit>,
    ins1_1: Signal<In, Bit>,
    v0_1: Signal<In, Bit>,
    v1_1: Signal<In, Bit>,
    below_s: Signal<In, Bit>,
    below_d: Signal<In, Bit>,
    nw_s: Signal<In, Bit>,
    nw_d: Signal<In, Bit>,
    ath_s: Signal<In, Bit>,
    ath_d: Signal<In, Bit>,
    ge0_s: Signal<In, Bit>,
    ge0_d: Signal<In, Bit>,
    ge1_s: Signal<In, Bit>,
    ge1_d: Signal<In, Bit>,
    eqx: Signal<In, Bit>,
    parm: Signal<In, Bit>,
    seen_d: Signal<In, Bit>,
    eff0n: Signal<In, Bit>,
    eff1n: Signal<In, Bit>,
    g0: Signal<In, Bit>,
    hasimm: Signal<In, Bit>,
    below: Signal<Out, Bit>,
    nw: Signal<Out, Bit>,
    ath: Signal<Out, Bit>,
    seen: Signal<Out, Bit>,
    eff0: Signal<Out, Bit>,
    eff1: Signal<Out, Bit>,
    acc: Signal<Out, Bit>,
    adv: Signal<Out, Bit>,
    ins0: Signal<Out, Bit>,
    ins1: Signal<Out, Bit>,
}

impl Logic for LoopAccept {
    fn update(&mut self) {
        let s1 = self.s1.val();
        // n−1 moved the head: the look-ahead facts.
        let la = s1 && self.adv_1.val();
        let pick = |s: bool, d: bool| if la { s } else { d };
        let below = pick(self.below_s.val(), self.below_d.val());
        let nw = pick(self.nw_s.val(), self.nw_d.val());
        let ath = pick(self.ath_s.val(), self.ath_d.val());
        let ge0 = pick(self.ge0_s.val(), self.ge0_d.val());
        let ge1 = pick(self.ge1_s.val(), self.ge1_d.val());
        // n−1's arrival at the same position decides "seen".
        let seen = if s1 && self.pacc_1.val() && self.eqx.val() {
            self.parm.val()
        } else {
            self.seen_d.val()
        };
        // A slot is taken if n−1 filled it, or it holds a PSN not below the head.
        let (eff0, eff1) = if s1 {
            (
                self.ins0_1.val() || (self.v0_1.val() && ge0),
                self.ins1_1.val() || (self.v1_1.val() && ge1),
            )
        } else {
            (self.eff0n.val(), self.eff1n.val())
        };
        let g1 = self.g0.val() && !below && !nw;
        let slot = self.hasimm.val() && !ath && !seen;
        let acc = g1 && !seen && !(slot && eff0 && eff1);
        self.below.next = below;
        self.nw.next = nw;
        self.ath.next = ath;
        self.seen.next = seen;
        self.eff0.next = eff0;
        self.eff1.next = eff1;
        self.acc.next = acc;
        self.adv.next = acc && ath;
        self.ins0.next = g1 && slot && !eff0;
        self.ins1.next = g1 && slot && eff0 && !eff1;
    }
    fn connect(&mut self) {
        self.below.connect();
        self.nw.connect();
        self.ath.connect();
        self.seen.connect();
        self.eff0.connect();
        self.eff1.connect();
        self.acc.connect();
        self.adv.connect();
        self.ins0.connect();
        self.ins1.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "\
// {MAP_APART}
reg la;
reg ge0;
reg ge1;
reg g1;
reg slot;
always @(*) begin
   la = s1 & adv_1;
   ge0 = la ? ge0_s : ge0_d;
   ge1 = la ? ge1_s : ge1_d;
   below = la ? below_s : below_d;
   nw = la ? nw_s : nw_d;
   ath = la ? ath_s : ath_d;
   seen = (s1 & pacc_1 & eqx) ? parm : seen_d;
   eff0 = s1 ? (ins0_1 | (v0_1 & ge0)) : eff0n;
   eff1 = s1 ? (ins1_1 | (v1_1 & ge1)) : eff1n;
   g1 = g0 & ~below & ~nw;
   slot = hasimm & ~ath & ~seen;
   acc = g1 & ~seen & ~(slot & eff0 & eff1);
   adv = acc & ath;
   ins0 = g1 & slot & ~eff0;
   ins1 = g1 & slot & eff0 & ~eff1;
end
"
        ))
    }
}
