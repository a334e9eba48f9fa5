//! `rx_decap`: VXLAN decapsulation and RoCEv2 parsing on the receive path, with direct
//! placement (the Pegasus paper's receiver ordering; docs/blocks/rx_decap.md).
//!
//! ```text
//!  s_axis_wire ──┬──────────────────────────────────────────► data FIFO (stored beats) ──────┐
//!  (tready is a  ├─► header window ─► C1 field checks ─┐                                       │
//!   register)    └─► I1 ─► I2 tkeep, byte count ───────┴► C2 ─► C3 ─► C4 ─► C5 ─► desc FIFO   │
//!                                                                                     │       │
//!              m_hdr (register + skid) ◄── issue: header sent, verdict slot reserved ─┤       │
//!                  │ rx_reorder                                   ready FIFO ◄────────┘       │
//!                  ▼                                                  │                       ▼
//!  s_verdict ─► register ─► verdict FIFO ─────────────────► next (2 entries) ─► placement: realign
//!                                                                  payload to byte 0 ─► m_axis_place
//! ```
//!
//! Frames are **stored and forwarded**: nothing of a frame reaches placement before its
//! last beat has been checked and `rx_reorder` has accepted its PSN. A frame is
//! * dropped here, counted by reason (`status_drop_*`, first failing check wins):
//!   1 `bad_keep` (tkeep not low-justified on the last beat or not full before it),
//!   2 `too_long` (more than `max_frame` bytes), 3 `truncated` (shorter than its headers
//!   and ICRC), 4 `not_ipv4` (outer EtherType, version/IHL 0x45, protocol UDP),
//!   5 `bad_checksum` (outer IPv4 header), 6 `bad_port` (outer UDP port not 4789),
//!   7 `bad_vxlan` (I flag clear), 8 `unknown_vni` (not an enabled `LOCAL_VNI`),
//!   9 `bad_inner` (inner EtherType, 0x45, UDP, port 4791, or a destination QP above
//!   16 bits), 10 `bad_opcode` (neither an RC RDMA WRITE, 0x06..=0x0b, nor a reply with
//!   a syndrome its kind may carry), 11 `bad_length` (outer IPv4, UDP or inner IPv4
//!   length, or the RETH length or the reply kind's length, disagrees with the frame),
//!   12 `bad_icrc` (the RoCEv2 ICRC of the inner packet, [`IcrcCheck`]);
//! * or, a data packet, its header goes to `rx_reorder` (`m_hdr_*`) and its verdict
//!   comes back in order on `s_verdict_*`: 0 places the payload, anything else discards
//!   it (`status_drop_verdict`);
//! * or, a reply (ACK 0x11, request 0xC0, credit message 0xC1..=0xC4;
//!   docs/reply-frames.md), it leaves as one record on `m_reply_*`
//!   ([`RX_DECAP_REPLY_LATENCY`] cycles after its last beat) and its beats are
//!   discarded. A reply passes the same outer, VNI, inner and ICRC checks as data.
//!
//! **Packet format** (P-RNIC): every data packet carries BTH + RETH; the write-with-
//! immediate opcodes (0x09, 0x0b) add ImmDt. Payload starts at byte 120 (124 with an
//! immediate) of the wire frame and ends 4 bytes (the ICRC) before its end.
//!
//! **Placement**: `m_axis_place_*` carries the payload from byte 0 of the first beat,
//! `tkeep` low-justified on the last beat; the command (`m_place_qp/va/rkey/len`) is
//! steady for the whole packet. A zero-length payload places nothing.
//!
//! ### Pipeline
//! Every stage is one register deep, so no register-to-register path has more than five
//! logic levels (docs/timing.md); the stages are:
//! * **Port.** An accepted beat goes straight into the data FIFO and, if it is one of
//!   the first 128 bytes, into the header window. `s_axis_wire_tready` is a register
//!   computed a cycle ahead from occupancy counts that leave room for the beats and frames
//!   accepted meanwhile.
//! * **I1, I2.** The beat's `tkeep` is registered, then judged (all ones; low-justified)
//!   and counted.
//! * **C1..C5.** C1 compares every header field of the window with its constant, matches
//!   the VNI, classifies the opcode (data, or a reply kind with its frame length) and
//!   adds the checksum words in pairs, in the cycle after the last beat; C2 joins I2's
//!   byte count; C3..C5 finish the checksum sum, the lengths and the placement shape
//!   (output beats, flush or tail beat, last-beat `tkeep`) and pick the first failing
//!   check. C5 writes the descriptor to the descriptor FIFO; a good reply's descriptor
//!   is marked to be discarded, and its record is registered onto `m_reply_*` (a
//!   request's bitmap, bytes 112..144, travels from the window and `ext` beside C1..C5).
//! * **Issue.** A good descriptor's header goes out through a register and a skid entry
//!   once a verdict FIFO slot is reserved for its answer; every descriptor moves on to
//!   the ready FIFO in order. `s_verdict_*` is registered into the verdict FIFO.
//! * **Next.** A two-entry queue of descriptors whose verdict is known; its second entry
//!   lets it take from the FIFOs on registered state alone.
//! * **Placement** takes one stored beat per cycle: output beat j is bytes [R, K) of
//!   stored beat j + skip followed by bytes [0, R) of the next (R = 120 or 124 modulo K).
//!   A packet whose payload sits in one stored beat sends it as that beat is consumed
//!   (tail); one whose last output beat starts in its last stored beat sends it in a
//!   flush cycle after. The next packet starts in the cycle the last one finishes.
//!
//! ### Latency and rate
//! A frame's header is on `m_hdr_valid` [`RX_DECAP_HDR_LATENCY`] cycles after its last
//! beat is accepted; its first payload beat is on `m_axis_place_tvalid`
//! [`RX_DECAP_VERDICT_TO_PLACE`] cycles after its verdict is on `s_verdict_valid`
//! (queues empty, placement idle). One frame per cycle and one beat per cycle are
//! sustained for any verdict latency up to [`RX_VERDICT_LATENCY_MAX`], which sizes the
//! descriptor and verdict queues.
//!
//! `s_axis_wire_tready` does not depend on `tvalid`; `m_axis_place_tvalid`,
//! `m_hdr_valid` (gated by `rst`), and every `m_hdr_*` and `m_place_*` field are
//! registers.

use crate::crc::{IcrcCheck, ICRC_CHECK_LATENCY};
use crate::fifo::{BramFifo, LutFifo};
use crate::rx_reorder::RX_REORDER_LATENCY;
use crate::wiring::{ByteSwap, KeepCount, KeepDff};
use rust_hdl::prelude::*;

/// The longest header-to-verdict latency of `rx_reorder` (cycles from `m_hdr_valid` and
/// `m_hdr_ready` both high to `s_verdict_valid`) at which one frame per cycle still
/// flows: `rx_reorder`'s, since `prnic_top` joins the two directly.
pub const RX_VERDICT_LATENCY_MAX: usize = RX_REORDER_LATENCY as usize;
/// Cycles a frame counts as in flight besides `rx_reorder`'s latency: from its first
/// beat accepted to its descriptor taken for placement (one-beat frames, queues empty).
pub const RX_DECAP_LOOP_CYCLES: usize = 13;
/// The in-flight counts are compared a few cycles late (registered events and flags),
/// so the limits sit this far below the capacities.
const ROOM_MARGIN: usize = 4;
/// Descriptors (frames between their first beat and placement) in flight; also the depth
/// of the verdict FIFO. One frame per cycle needs `loop + latency + margin` of them.
pub const RX_DESC_DEPTH: usize =
    (RX_DECAP_LOOP_CYCLES + RX_VERDICT_LATENCY_MAX + ROOM_MARGIN).next_power_of_two();
// The queues cover the longest verdict latency (checked when the crate compiles).
const _: () = assert!(RX_DESC_DEPTH >= RX_DECAP_LOOP_CYCLES + RX_VERDICT_LATENCY_MAX + ROOM_MARGIN);
/// Registers from the port to C4's (I1, C1..C4): C5 reads a frame's checks this many
/// cycles after its last beat, and the ICRC verdict must be there by then.
const C5_AFTER_LAST_BEAT: usize = 5;
const _: () = assert!(ICRC_CHECK_LATENCY == C5_AFTER_LAST_BEAT);
/// Cycles from a frame's last beat accepted to its header on `m_hdr_valid` (queues
/// empty).
pub const RX_DECAP_HDR_LATENCY: usize = 9;
/// Cycles from a reply frame's last beat accepted to its record on `m_reply_valid`.
pub const RX_DECAP_REPLY_LATENCY: usize = 7;
/// Cycles from a verdict on `s_verdict_valid` to the packet's first payload beat on
/// `m_axis_place_tvalid` (queues empty, placement idle).
pub const RX_DECAP_VERDICT_TO_PLACE: usize = 7;
pub use crate::tx_encap::OUTER_BYTES;
const DESC_BITS: usize = 256;
const HDR_BITS: usize = 1024;

// Descriptor layout (descriptor and ready FIFOs, next queue), bit offsets:
// drop[0] reason[4:1] beats[20:5] beats==1[21] flush[22] tail[23] no-output[24]
// last-keep shift[31:25] imm?[32] qp[48:33] va[112:49] rkey[144:113] paylen[160:145]
// psn[184:161] slot[187:185] ack[188] imm[220:189] reply[221] reply kind[224:222]
// reply acknowledges[225] ACK opcode[226]; 227..255 spare.

#[derive(LogicBlock)]
pub struct RxDecap<const D: usize, const K: usize> {
    pub clk: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub s_axis_wire_tvalid: Signal<In, Bit>,
    pub s_axis_wire_tready: Signal<Out, Bit>,
    pub s_axis_wire_tdata: Signal<In, Bits<D>>,
    pub s_axis_wire_tkeep: Signal<In, Bits<K>>,
    pub s_axis_wire_tlast: Signal<In, Bit>,
    pub m_hdr_valid: Signal<Out, Bit>,
    pub m_hdr_ready: Signal<In, Bit>,
    pub m_hdr_qp: Signal<Out, Bits<16>>,
    pub m_hdr_psn: Signal<Out, Bits<24>>,
    pub m_hdr_vni_slot: Signal<Out, Bits<3>>,
    pub m_hdr_ack_req: Signal<Out, Bit>,
    pub m_hdr_has_imm: Signal<Out, Bit>,
    pub m_hdr_imm: Signal<Out, Bits<32>>,
    pub s_verdict_valid: Signal<In, Bit>,
    pub s_verdict_code: Signal<In, Bits<3>>,
    pub m_axis_place_tvalid: Signal<Out, Bit>,
    pub m_axis_place_tready: Signal<In, Bit>,
    pub m_axis_place_tdata: Signal<Out, Bits<D>>,
    pub m_axis_place_tkeep: Signal<Out, Bits<K>>,
    pub m_axis_place_tlast: Signal<Out, Bit>,
    pub m_place_qp: Signal<Out, Bits<16>>,
    pub m_place_va: Signal<Out, Bits<64>>,
    pub m_place_rkey: Signal<Out, Bits<32>>,
    pub m_place_len: Signal<Out, Bits<32>>,
    /// `LOCAL_VNI0..7`: VNI in bits 23:0, enable in bit 31 (the CSR layout).
    pub cfg_local_vni0: Signal<In, Bits<32>>,
    pub cfg_local_vni1: Signal<In, Bits<32>>,
    pub cfg_local_vni2: Signal<In, Bits<32>>,
    pub cfg_local_vni3: Signal<In, Bits<32>>,
    pub cfg_local_vni4: Signal<In, Bits<32>>,
    pub cfg_local_vni5: Signal<In, Bits<32>>,
    pub cfg_local_vni6: Signal<In, Bits<32>>,
    pub cfg_local_vni7: Signal<In, Bits<32>>,
    /// Placed packets whose data has all left this cycle (0..=2): a last beat taken
    /// downstream, and a zero-length placed packet once every beat before it has left.
    /// `prnic_top` holds each CQE until its packet is counted here.
    pub m_place_done: Signal<Out, Bits<2>>,
    /// A reply frame (docs/reply-frames.md) that passed every check: one record per
    /// frame, `reply_tx`'s record read back. No ready: a record is valid for one cycle,
    /// at most one per cycle. `kind` 0 ACK, 1 request, 2 credit request, 3 grant, 4 ON,
    /// 5 OFF; `psn` the next expected PSN (ACK) or the bitmap's base (request); `ack` and
    /// `ack_psn` a request that also acknowledges (an ACK has `ack` set); `bitmap` bit j:
    /// PSN base + j is missing (requests only).
    pub m_reply_valid: Signal<Out, Bit>,
    pub m_reply_kind: Signal<Out, Bits<3>>,
    pub m_reply_qp: Signal<Out, Bits<16>>,
    pub m_reply_vni_slot: Signal<Out, Bits<3>>,
    pub m_reply_psn: Signal<Out, Bits<24>>,
    pub m_reply_ack: Signal<Out, Bit>,
    pub m_reply_ack_psn: Signal<Out, Bits<24>>,
    pub m_reply_bitmap: Signal<Out, Bits<256>>,
    /// Reply records delivered on `m_reply_*`.
    pub status_replies: Signal<Out, Bits<32>>,
    pub status_frames: Signal<Out, Bits<32>>,
    pub status_placed: Signal<Out, Bits<32>>,
    pub status_drop_bad_keep: Signal<Out, Bits<32>>,
    pub status_drop_too_long: Signal<Out, Bits<32>>,
    pub status_drop_truncated: Signal<Out, Bits<32>>,
    pub status_drop_not_ipv4: Signal<Out, Bits<32>>,
    pub status_drop_bad_checksum: Signal<Out, Bits<32>>,
    pub status_drop_bad_port: Signal<Out, Bits<32>>,
    pub status_drop_bad_vxlan: Signal<Out, Bits<32>>,
    pub status_drop_unknown_vni: Signal<Out, Bits<32>>,
    pub status_drop_bad_inner: Signal<Out, Bits<32>>,
    pub status_drop_bad_opcode: Signal<Out, Bits<32>>,
    pub status_drop_bad_length: Signal<Out, Bits<32>>,
    pub status_drop_bad_icrc: Signal<Out, Bits<32>>,
    pub status_drop_verdict: Signal<Out, Bits<32>>,

    data_fifo: BramFifo<D>,
    desc_fifo: LutFifo<DESC_BITS>,
    ready_fifo: LutFifo<DESC_BITS>,
    verdict_fifo: LutFifo<3>,
    keep_count: KeepCount<K>,
    /// The inner packet's ICRC, from the port's beats; its verdict joins C5.
    icrc: IcrcCheck<D, K>,
    hdr_swap: ByteSwap<HDR_BITS>,
    c_max_frame: Constant<Bits<16>>,
    /// `max_beats - 2` (modulo 2^16), and whether `max_beats` is 1.
    c_max_beats_m2: Constant<Bits<16>>,
    c_max_beats_1: Constant<Bit>,
    c_km1: Constant<Bits<16>>,
    c_skip: Constant<Bits<16>>,
    /// No header beat is skipped (K = 128): a tail beat can be the first one.
    c_skip0: Constant<Bit>,
    /// Shifts of the realignment: the kept top 8 bytes of the previous beat right by
    /// R - (K - 8) bytes, the current beat left by K - R bytes.
    c_psh120: Constant<Bits<16>>,
    c_psh124: Constant<Bits<16>>,
    c_shl120: Constant<Bits<16>>,
    c_shl124: Constant<Bits<16>>,
    c_top8: Constant<Bits<16>>,
    c_hdr_beat1: Constant<Bits<16>>,
    c_ones: Constant<Bits<K>>,
    c_kshift: Constant<Bits<16>>,
    c_kmask: Constant<Bits<16>>,
    /// Occupancy limits, `ROOM_MARGIN` below the capacities.
    c_flight_lo: Constant<Bits<8>>,
    c_data_lo: Constant<Bits<16>>,
    c_pending_lo: Constant<Bits<8>>,
    c_slot: [Constant<Bits<3>>; 8],
    /// The header spans two beats (K < 128).
    c_hdr2: Constant<Bit>,
    /// The index of the beat holding bytes 128..144 (a request's last bitmap bytes),
    /// minus one.
    c_ext_m1: Constant<Bits<16>>,

    // ---- Port: frame state, updated as beats are accepted.
    ready_q: DFF<Bit>,
    /// `ready_q & !in_over`, a register of its own: the data FIFO's RAM write enable.
    store_en: DFF<Bit>,
    in_mid: DFF<Bit>,
    /// Stored beats of the frame so far (saturates at the maximum), and whether the next
    /// beat is past the maximum (taken and discarded).
    in_beats: DFF<Bits<16>>,
    in_over: DFF<Bit>,
    /// `in_beats` = `max_beats - 1` (from reset on): the next stored beat is the last kept.
    in_at_max: DFF<Bit>,
    /// The next beat is the frame's second.
    in_is1: DFF<Bit>,
    /// The header window (beat 0, and beat 1 when K < 128).
    hdr: DFF<Bits<HDR_BITS>>,
    /// Bytes 128..144 of the frame (the end of a request's bitmap), loaded like the
    /// window while `in_is_ext` says the next beat is theirs.
    ext: DFF<Bits<128>>,
    in_is_ext: DFF<Bit>,
    // Occupancy: frames from their first beat until their descriptor is taken for
    // placement, stored beats until placement consumes them, verdicts reserved and not
    // yet taken. Each counts registered events, so its flag is a few cycles late.
    flight: DFF<Bits<8>>,
    flight_lo: DFF<Bit>,
    ev_frame: DFF<Bit>,
    ev_take: DFF<Bit>,
    dcount: DFF<Bits<16>>,
    data_lo: DFF<Bit>,
    ev_store: DFF<Bit>,
    ev_consume: DFF<Bit>,
    v_pending: DFF<Bits<8>>,
    v_room: DFF<Bit>,
    ev_issue: DFF<Bit>,
    ev_verdict: DFF<Bit>,
    // I1: the accepted beat's tkeep; I2: judged and counted.
    i1_valid: DFF<Bit>,
    i1_keep: DFF<Bits<K>>,
    i1_last: DFF<Bit>,
    i1_store: DFF<Bit>,
    i1_nb: DFF<Bits<16>>,
    i2_valid: DFF<Bit>,
    i2_last: DFF<Bit>,
    i2_keep_all: DFF<Bit>,
    i2_gap_free: DFF<Bit>,
    i2_cnt: DFF<Bits<16>>,
    i2_nb: DFF<Bits<16>>,
    i2_store: DFF<Bit>,
    in_err_keep: DFF<Bit>,
    // C1: header fields against their constants, checksum words in pairs.
    c1_valid: DFF<Bit>,
    c1_bad4: DFF<Bit>,
    c1_bad6: DFF<Bit>,
    c1_bad7: DFF<Bit>,
    c1_bad9: DFF<Bit>,
    c1_bad10: DFF<Bit>,
    c1_has_imm: DFF<Bit>,
    c1_p: [DFF<Bits<20>>; 5],
    c1_vhit: [DFF<Bit>; 8],
    c1_ip_len: DFF<Bits<16>>,
    c1_udp_len: DFF<Bits<16>>,
    c1_in_len: DFF<Bits<16>>,
    c1_reth_len: DFF<Bits<32>>,
    c1_f: DFF<Bits<DESC_BITS>>,
    /// A reply opcode, and its kind's frame length.
    c1_reply: DFF<Bit>,
    c1_rlen: DFF<Bits<16>>,
    /// A request's bitmap (bytes 112..144), carried to C5 beside the descriptor.
    c1_bm: DFF<Bits<256>>,
    // C2: the frame's byte count joins.
    c2_valid: DFF<Bit>,
    c2_err_keep: DFF<Bit>,
    c2_len: DFF<Bits<16>>,
    c2_beats: DFF<Bits<16>>,
    c2_bad4: DFF<Bit>,
    c2_bad6: DFF<Bit>,
    c2_bad7: DFF<Bit>,
    c2_bad9: DFF<Bit>,
    c2_bad10: DFF<Bit>,
    c2_vhit: DFF<Bit>,
    c2_has_imm: DFF<Bit>,
    c2_q0: DFF<Bits<20>>,
    c2_q1: DFF<Bits<20>>,
    c2_q2: DFF<Bits<20>>,
    /// Header length fields plus what precedes them, to compare with the byte count.
    c2_ip14: DFF<Bits<16>>,
    c2_udp34: DFF<Bits<16>>,
    c2_in64: DFF<Bits<16>>,
    c2_reth_h: DFF<Bits<16>>,
    c2_reth_hi0: DFF<Bit>,
    c2_f: DFF<Bits<DESC_BITS>>,
    c2_reply: DFF<Bit>,
    /// The BTH PSN plus one (an ACK's record), carried to C5.
    c2_psn1: DFF<Bits<24>>,
    c3_psn1: DFF<Bits<24>>,
    c4_psn1: DFF<Bits<24>>,
    c5_psn1: DFF<Bits<24>>,
    c3_reply: DFF<Bit>,
    c3_lt108: DFF<Bit>,
    c2_bm: DFF<Bits<256>>,
    // C3
    c3_valid: DFF<Bit>,
    c3_err_keep: DFF<Bit>,
    c3_too_long: DFF<Bit>,
    c3_trunc: DFF<Bit>,
    c3_bad4: DFF<Bit>,
    c3_bad6: DFF<Bit>,
    c3_bad7: DFF<Bit>,
    c3_bad9: DFF<Bit>,
    c3_bad10: DFF<Bit>,
    c3_vhit: DFF<Bit>,
    c3_short: DFF<Bit>,
    c3_len_neq: DFF<Bit>,
    c3_paylen: DFF<Bits<16>>,
    c3_sm: DFF<Bits<16>>,
    c3_last1: DFF<Bit>,
    c3_r0: DFF<Bits<20>>,
    c3_r1: DFF<Bits<20>>,
    c3_f: DFF<Bits<DESC_BITS>>,
    c3_bm: DFF<Bits<256>>,
    // C4
    c4_valid: DFF<Bit>,
    c4_a_any: DFF<Bit>,
    c4_a_code: DFF<Bits<4>>,
    c4_bad6: DFF<Bit>,
    c4_bad7: DFF<Bit>,
    c4_bad9: DFF<Bit>,
    c4_bad10: DFF<Bit>,
    c4_vhit: DFF<Bit>,
    c4_len_bad: DFF<Bit>,
    c4_x: DFF<Bits<20>>,
    c4_out: DFF<Bits<16>>,
    c4_sm: DFF<Bits<16>>,
    c4_sm1: DFF<Bit>,
    c4_sm2: DFF<Bit>,
    c4_ksh: DFF<Bits<7>>,
    c4_f: DFF<Bits<DESC_BITS>>,
    c4_bm: DFF<Bits<256>>,
    // C5
    c5_valid: DFF<Bit>,
    c5_a_any: DFF<Bit>,
    c5_a_code: DFF<Bits<4>>,
    c5_cks_ok: DFF<Bit>,
    c5_b_any: DFF<Bit>,
    c5_b_code: DFF<Bits<4>>,
    c5_f: DFF<Bits<DESC_BITS>>,
    c5_bm: DFF<Bits<256>>,
    // ---- Reply records, registered from C5.
    r_valid: DFF<Bit>,
    r_kind: DFF<Bits<3>>,
    r_qp: DFF<Bits<16>>,
    r_slot: DFF<Bits<3>>,
    r_psn: DFF<Bits<24>>,
    r_ack: DFF<Bit>,
    r_ack_psn: DFF<Bits<24>>,
    r_bm: DFF<Bits<256>>,
    cnt_replies: DFF<Bits<32>>,
    // ---- Issue: m_hdr register and its skid entry.
    h_valid: DFF<Bit>,
    h_f: DFF<Bits<DESC_BITS>>,
    sk_valid: DFF<Bit>,
    sk_f: DFF<Bits<DESC_BITS>>,
    vin_valid: DFF<Bit>,
    vin_code: DFF<Bits<3>>,
    // ---- Next: descriptors with their verdict, in order (n0 first).
    n0_valid: DFF<Bit>,
    n0_f: DFF<Bits<DESC_BITS>>,
    n0_place: DFF<Bit>,
    n0_vbad: DFF<Bit>,
    n0_emit: DFF<Bit>,
    n0_fin: DFF<Bit>,
    n1_valid: DFF<Bit>,
    n1_f: DFF<Bits<DESC_BITS>>,
    n1_place: DFF<Bit>,
    n1_vbad: DFF<Bit>,
    n1_emit: DFF<Bit>,
    n1_fin: DFF<Bit>,
    // ---- Placement.
    e_active: DFF<Bit>,
    /// Stored beats remain to be consumed (active and not in the flush cycle).
    e_cons: DFF<Bit>,
    e_flush: DFF<Bit>,
    e_place: DFF<Bit>,
    /// Consuming the current stored beat sends an output beat.
    e_emit: DFF<Bit>,
    e_first: DFF<Bit>,
    /// The current stored beat is the packet's last; and the packet ends with it (no
    /// flush beat follows).
    e_last: DFF<Bit>,
    e_fin: DFF<Bit>,
    e_left: DFF<Bits<16>>,
    e_flushf: DFF<Bit>,
    e_tailf: DFF<Bit>,
    e_h124: DFF<Bit>,
    /// The last output beat keeps all ones shifted right by this many bytes.
    e_ksh: DFF<Bits<7>>,
    e_qp: DFF<Bits<16>>,
    e_va: DFF<Bits<64>>,
    e_rkey: DFF<Bits<32>>,
    e_len: DFF<Bits<16>>,
    /// The top 8 bytes of the last consumed beat (all a realigned beat takes of it).
    prev: DFF<Bits<64>>,
    o_valid: DFF<Bit>,
    /// `o_valid` again, for the control logic: `o_valid` itself drives the enable of
    /// every output register bit, and logic after that net would pay for its fan-out
    /// (kept: synthesis would merge two registers with one input).
    o_valid2: KeepDff<Bit>,
    o_data: DFF<Bits<D>>,
    o_keep: DFF<Bits<K>>,
    o_last: DFF<Bit>,
    o_qp: DFF<Bits<16>>,
    o_va: DFF<Bits<64>>,
    o_rkey: DFF<Bits<32>>,
    o_len: DFF<Bits<16>>,
    /// Zero-length placed packets started and not yet reported on `m_place_done`.
    empties: DFF<Bits<8>>,
    empties_nz: DFF<Bit>,
    empty_ev: DFF<Bit>,
    // Counter events, one cycle after the packet starts.
    k_valid: DFF<Bit>,
    k_reason: DFF<Bits<4>>,
    k_vbad: DFF<Bit>,
    k_placed: DFF<Bit>,
    cnt_frames: DFF<Bits<32>>,
    cnt_placed: DFF<Bits<32>>,
    cnt_drop: [DFF<Bits<32>>; 13],
    cnt_verdict: DFF<Bits<32>>,
    // Locals.
    vni_cfg: [Signal<Local, Bits<32>>; 8],
    in_fire: Signal<Local, Bit>,
    over_nx: Signal<Local, Bit>,
    mid_nx: Signal<Local, Bit>,
    /// The port's next state in the two cases, from registers and `tlast` alone: after a
    /// taken beat (`*_f`) and after none (`*_n`).
    over_f: Signal<Local, Bit>,
    ready_f: Signal<Local, Bit>,
    ready_n: Signal<Local, Bit>,
    beat_wide: Signal<Local, Bits<HDR_BITS>>,
    keep_gap: Signal<Local, Bit>,
    h: Signal<Local, Bits<HDR_BITS>>,
    vni: Signal<Local, Bits<24>>,
    opcode: Signal<Local, Bits<8>>,
    syn: Signal<Local, Bits<8>>,
    op_ack: Signal<Local, Bit>,
    op_req: Signal<Local, Bit>,
    op_credit: Signal<Local, Bit>,
    op_reply: Signal<Local, Bit>,
    rack: Signal<Local, Bit>,
    f_reply: Signal<Local, Bits<DESC_BITS>>,
    syn_ack: Signal<Local, Bit>,
    reply_ok: Signal<Local, Bit>,
    rkind: Signal<Local, Bits<3>>,
    trunc: Signal<Local, Bit>,
    vhit: Signal<Local, Bit>,
    vslot: Signal<Local, Bits<3>>,
    hdr4: Signal<Local, Bits<16>>,
    c2_hdr4: Signal<Local, Bits<16>>,
    ksh: Signal<Local, Bits<16>>,
    sh_flush: Signal<Local, Bit>,
    sh_tail: Signal<Local, Bit>,
    sh_none: Signal<Local, Bit>,
    reason: Signal<Local, Bits<4>>,
    drop: Signal<Local, Bit>,
    d_drop: Signal<Local, Bit>,
    pass: Signal<Local, Bit>,
    hdr_push: Signal<Local, Bit>,
    out_take: Signal<Local, Bit>,
    r_drop: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    x_place: Signal<Local, Bit>,
    x_vbad: Signal<Local, Bit>,
    x_emit: Signal<Local, Bit>,
    x_fin: Signal<Local, Bit>,
    ld0: Signal<Local, Bit>,
    out_free: Signal<Local, Bit>,
    out_free2: Signal<Local, Bit>,
    consume: Signal<Local, Bit>,
    flush_go: Signal<Local, Bit>,
    start: Signal<Local, Bit>,
    emit_now: Signal<Local, Bit>,
    last_sel: Signal<Local, Bit>,
    rp: Signal<Local, Bits<64>>,
    cur: Signal<Local, Bits<D>>,
    curx: Signal<Local, Bits<D>>,
    realign: Signal<Local, Bits<D>>,
    last_taken: Signal<Local, Bit>,
    empty_go: Signal<Local, Bit>,
    unused_bits: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize> RxDecap<D, K> {
    /// Beats the data FIFO holds: two largest frames, and at least a one-beat frame per
    /// descriptor in flight (the reorder round trip is about 18 cycles).
    pub fn data_fifo_depth(max_frame_bytes: usize) -> usize {
        (2 * max_frame_bytes.div_ceil(K))
            .next_power_of_two()
            .max(RX_DESC_DEPTH)
    }

    /// RAM bits for `max_frame_bytes` (outer headers included): the data FIFO, and
    /// the descriptor, ready and verdict FIFOs.
    pub fn ram_bits(max_frame_bytes: usize) -> usize {
        Self::data_fifo_depth(max_frame_bytes) * D + RX_DESC_DEPTH * (2 * DESC_BITS + 3)
    }

    /// `max_frame_bytes`: the largest wire frame accepted (outer headers included).
    pub fn new(max_frame_bytes: usize) -> Self {
        assert!(D == 8 * K && (K == 64 || K == 128), "RxDecap bus {D}");
        let skip = 120 / K;
        let r120 = 120 - skip * K;
        let r124 = 124 - skip * K;
        let max_beats = max_frame_bytes.div_ceil(K);
        // The byte count (beats before the last, times K, plus the last beat's bytes)
        // must fit 16 bits even for a frame past the maximum.
        assert!(
            (max_beats + 1) * K < 65536,
            "RxDecap max frame {max_frame_bytes}"
        );
        let data_depth = Self::data_fifo_depth(max_frame_bytes);
        let top = 8 * (K - 8);
        Self {
            data_fifo: BramFifo::new(data_depth),
            desc_fifo: LutFifo::new(RX_DESC_DEPTH),
            ready_fifo: LutFifo::new(RX_DESC_DEPTH),
            verdict_fifo: LutFifo::new(RX_DESC_DEPTH),
            c_max_frame: Constant::new((max_frame_bytes as LiteralType).into()),
            c_max_beats_m2: Constant::new(
                (((max_beats as LiteralType).wrapping_sub(2)) & 0xffff).into(),
            ),
            c_max_beats_1: Constant::new(max_beats == 1),
            c_km1: Constant::new(((K - 1) as LiteralType).into()),
            c_skip: Constant::new((skip as LiteralType).into()),
            c_skip0: Constant::new(skip == 0),
            c_psh120: Constant::new(((8 * r120 - top) as LiteralType).into()),
            c_psh124: Constant::new(((8 * r124 - top) as LiteralType).into()),
            c_shl120: Constant::new(((8 * (K - r120)) as LiteralType).into()),
            c_shl124: Constant::new(((8 * (K - r124)) as LiteralType).into()),
            c_top8: Constant::new((top as LiteralType).into()),
            c_hdr_beat1: Constant::new(((8 * K) as LiteralType).into()),
            c_ones: Constant::new(!Bits::<K>::default()),
            c_kshift: Constant::new((K.trailing_zeros() as LiteralType).into()),
            c_kmask: Constant::new(((K - 1) as LiteralType).into()),
            c_flight_lo: Constant::new(((RX_DESC_DEPTH - ROOM_MARGIN) as LiteralType).into()),
            c_data_lo: Constant::new(((data_depth - ROOM_MARGIN) as LiteralType).into()),
            c_pending_lo: Constant::new(((RX_DESC_DEPTH - ROOM_MARGIN) as LiteralType).into()),
            c_slot: std::array::from_fn(|i| Constant::new((i as LiteralType).into())),
            c_hdr2: Constant::new(K < 128),
            c_ext_m1: Constant::new(((128 / K - 1) as LiteralType).into()),
            clk: Default::default(),
            rst: Default::default(),
            s_axis_wire_tvalid: Default::default(),
            s_axis_wire_tready: Default::default(),
            s_axis_wire_tdata: Default::default(),
            s_axis_wire_tkeep: Default::default(),
            s_axis_wire_tlast: Default::default(),
            m_hdr_valid: Default::default(),
            m_hdr_ready: Default::default(),
            m_hdr_qp: Default::default(),
            m_hdr_psn: Default::default(),
            m_hdr_vni_slot: Default::default(),
            m_hdr_ack_req: Default::default(),
            m_hdr_has_imm: Default::default(),
            m_hdr_imm: Default::default(),
            s_verdict_valid: Default::default(),
            s_verdict_code: Default::default(),
            m_axis_place_tvalid: Default::default(),
            m_axis_place_tready: Default::default(),
            m_axis_place_tdata: Default::default(),
            m_axis_place_tkeep: Default::default(),
            m_axis_place_tlast: Default::default(),
            m_place_qp: Default::default(),
            m_place_va: Default::default(),
            m_place_rkey: Default::default(),
            m_place_len: Default::default(),
            cfg_local_vni0: Default::default(),
            cfg_local_vni1: Default::default(),
            cfg_local_vni2: Default::default(),
            cfg_local_vni3: Default::default(),
            cfg_local_vni4: Default::default(),
            cfg_local_vni5: Default::default(),
            cfg_local_vni6: Default::default(),
            cfg_local_vni7: Default::default(),
            m_place_done: Default::default(),
            m_reply_valid: Default::default(),
            m_reply_kind: Default::default(),
            m_reply_qp: Default::default(),
            m_reply_vni_slot: Default::default(),
            m_reply_psn: Default::default(),
            m_reply_ack: Default::default(),
            m_reply_ack_psn: Default::default(),
            m_reply_bitmap: Default::default(),
            status_replies: Default::default(),
            status_frames: Default::default(),
            status_placed: Default::default(),
            status_drop_bad_keep: Default::default(),
            status_drop_too_long: Default::default(),
            status_drop_truncated: Default::default(),
            status_drop_not_ipv4: Default::default(),
            status_drop_bad_checksum: Default::default(),
            status_drop_bad_port: Default::default(),
            status_drop_bad_vxlan: Default::default(),
            status_drop_unknown_vni: Default::default(),
            status_drop_bad_inner: Default::default(),
            status_drop_bad_opcode: Default::default(),
            status_drop_bad_length: Default::default(),
            status_drop_bad_icrc: Default::default(),
            status_drop_verdict: Default::default(),
            keep_count: Default::default(),
            icrc: Default::default(),
            hdr_swap: Default::default(),
            ready_q: Default::default(),
            store_en: Default::default(),
            in_mid: Default::default(),
            in_beats: Default::default(),
            in_over: Default::default(),
            in_at_max: Default::default(),
            in_is1: Default::default(),
            hdr: Default::default(),
            ext: Default::default(),
            in_is_ext: Default::default(),
            flight: Default::default(),
            flight_lo: Default::default(),
            ev_frame: Default::default(),
            ev_take: Default::default(),
            dcount: Default::default(),
            data_lo: Default::default(),
            ev_store: Default::default(),
            ev_consume: Default::default(),
            v_pending: Default::default(),
            v_room: Default::default(),
            ev_issue: Default::default(),
            ev_verdict: Default::default(),
            i1_valid: Default::default(),
            i1_keep: Default::default(),
            i1_last: Default::default(),
            i1_store: Default::default(),
            i1_nb: Default::default(),
            i2_valid: Default::default(),
            i2_last: Default::default(),
            i2_keep_all: Default::default(),
            i2_gap_free: Default::default(),
            i2_cnt: Default::default(),
            i2_nb: Default::default(),
            i2_store: Default::default(),
            in_err_keep: Default::default(),
            c1_valid: Default::default(),
            c1_bad4: Default::default(),
            c1_bad6: Default::default(),
            c1_bad7: Default::default(),
            c1_bad9: Default::default(),
            c1_bad10: Default::default(),
            c1_has_imm: Default::default(),
            c1_p: Default::default(),
            c1_vhit: Default::default(),
            c1_ip_len: Default::default(),
            c1_udp_len: Default::default(),
            c1_in_len: Default::default(),
            c1_reth_len: Default::default(),
            c1_f: Default::default(),
            c1_reply: Default::default(),
            c1_rlen: Default::default(),
            c1_bm: Default::default(),
            c2_valid: Default::default(),
            c2_err_keep: Default::default(),
            c2_len: Default::default(),
            c2_beats: Default::default(),
            c2_bad4: Default::default(),
            c2_bad6: Default::default(),
            c2_bad7: Default::default(),
            c2_bad9: Default::default(),
            c2_bad10: Default::default(),
            c2_vhit: Default::default(),
            c2_has_imm: Default::default(),
            c2_q0: Default::default(),
            c2_q1: Default::default(),
            c2_q2: Default::default(),
            c2_ip14: Default::default(),
            c2_udp34: Default::default(),
            c2_in64: Default::default(),
            c2_reth_h: Default::default(),
            c2_reth_hi0: Default::default(),
            c2_f: Default::default(),
            c2_reply: Default::default(),
            c2_psn1: Default::default(),
            c3_psn1: Default::default(),
            c4_psn1: Default::default(),
            c5_psn1: Default::default(),
            c3_reply: Default::default(),
            c3_lt108: Default::default(),
            c2_bm: Default::default(),
            c3_valid: Default::default(),
            c3_err_keep: Default::default(),
            c3_too_long: Default::default(),
            c3_trunc: Default::default(),
            c3_bad4: Default::default(),
            c3_bad6: Default::default(),
            c3_bad7: Default::default(),
            c3_bad9: Default::default(),
            c3_bad10: Default::default(),
            c3_vhit: Default::default(),
            c3_short: Default::default(),
            c3_len_neq: Default::default(),
            c3_paylen: Default::default(),
            c3_sm: Default::default(),
            c3_last1: Default::default(),
            c3_r0: Default::default(),
            c3_r1: Default::default(),
            c3_f: Default::default(),
            c3_bm: Default::default(),
            c4_valid: Default::default(),
            c4_a_any: Default::default(),
            c4_a_code: Default::default(),
            c4_bad6: Default::default(),
            c4_bad7: Default::default(),
            c4_bad9: Default::default(),
            c4_bad10: Default::default(),
            c4_vhit: Default::default(),
            c4_len_bad: Default::default(),
            c4_x: Default::default(),
            c4_out: Default::default(),
            c4_sm: Default::default(),
            c4_sm1: Default::default(),
            c4_sm2: Default::default(),
            c4_ksh: Default::default(),
            c4_f: Default::default(),
            c4_bm: Default::default(),
            c5_valid: Default::default(),
            c5_a_any: Default::default(),
            c5_a_code: Default::default(),
            c5_cks_ok: Default::default(),
            c5_b_any: Default::default(),
            c5_b_code: Default::default(),
            c5_f: Default::default(),
            c5_bm: Default::default(),
            r_valid: Default::default(),
            r_kind: Default::default(),
            r_qp: Default::default(),
            r_slot: Default::default(),
            r_psn: Default::default(),
            r_ack: Default::default(),
            r_ack_psn: Default::default(),
            r_bm: Default::default(),
            cnt_replies: Default::default(),
            h_valid: Default::default(),
            h_f: Default::default(),
            sk_valid: Default::default(),
            sk_f: Default::default(),
            vin_valid: Default::default(),
            vin_code: Default::default(),
            n0_valid: Default::default(),
            n0_f: Default::default(),
            n0_place: Default::default(),
            n0_vbad: Default::default(),
            n0_emit: Default::default(),
            n0_fin: Default::default(),
            n1_valid: Default::default(),
            n1_f: Default::default(),
            n1_place: Default::default(),
            n1_vbad: Default::default(),
            n1_emit: Default::default(),
            n1_fin: Default::default(),
            e_active: Default::default(),
            e_cons: Default::default(),
            e_flush: Default::default(),
            e_place: Default::default(),
            e_emit: Default::default(),
            e_first: Default::default(),
            e_last: Default::default(),
            e_fin: Default::default(),
            e_left: Default::default(),
            e_flushf: Default::default(),
            e_tailf: Default::default(),
            e_h124: Default::default(),
            e_ksh: Default::default(),
            e_qp: Default::default(),
            e_va: Default::default(),
            e_rkey: Default::default(),
            e_len: Default::default(),
            prev: Default::default(),
            o_valid: Default::default(),
            o_valid2: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_last: Default::default(),
            o_qp: Default::default(),
            o_va: Default::default(),
            o_rkey: Default::default(),
            o_len: Default::default(),
            empties: Default::default(),
            empties_nz: Default::default(),
            empty_ev: Default::default(),
            k_valid: Default::default(),
            k_reason: Default::default(),
            k_vbad: Default::default(),
            k_placed: Default::default(),
            cnt_frames: Default::default(),
            cnt_placed: Default::default(),
            cnt_drop: Default::default(),
            cnt_verdict: Default::default(),
            vni_cfg: Default::default(),
            in_fire: Default::default(),
            over_nx: Default::default(),
            mid_nx: Default::default(),
            over_f: Default::default(),
            ready_f: Default::default(),
            ready_n: Default::default(),
            beat_wide: Default::default(),
            keep_gap: Default::default(),
            h: Default::default(),
            vni: Default::default(),
            opcode: Default::default(),
            syn: Default::default(),
            op_ack: Default::default(),
            op_req: Default::default(),
            op_credit: Default::default(),
            op_reply: Default::default(),
            rack: Default::default(),
            f_reply: Default::default(),
            syn_ack: Default::default(),
            reply_ok: Default::default(),
            rkind: Default::default(),
            trunc: Default::default(),
            vhit: Default::default(),
            vslot: Default::default(),
            hdr4: Default::default(),
            c2_hdr4: Default::default(),
            ksh: Default::default(),
            sh_flush: Default::default(),
            sh_tail: Default::default(),
            sh_none: Default::default(),
            reason: Default::default(),
            drop: Default::default(),
            d_drop: Default::default(),
            pass: Default::default(),
            hdr_push: Default::default(),
            out_take: Default::default(),
            r_drop: Default::default(),
            take: Default::default(),
            x_place: Default::default(),
            x_vbad: Default::default(),
            x_emit: Default::default(),
            x_fin: Default::default(),
            ld0: Default::default(),
            out_free: Default::default(),
            out_free2: Default::default(),
            consume: Default::default(),
            flush_go: Default::default(),
            start: Default::default(),
            emit_now: Default::default(),
            last_sel: Default::default(),
            rp: Default::default(),
            cur: Default::default(),
            curx: Default::default(),
            realign: Default::default(),
            last_taken: Default::default(),
            empty_go: Default::default(),
            unused_bits: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize> Logic for RxDecap<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clk,
            ready_q,
            store_en,
            in_mid,
            in_beats,
            in_over,
            in_at_max,
            in_is1,
            hdr,
            flight,
            flight_lo,
            ev_frame,
            ev_take,
            dcount,
            data_lo,
            ev_store,
            ev_consume,
            v_pending,
            v_room,
            ev_issue,
            ev_verdict,
            i1_valid,
            i1_keep,
            i1_last,
            i1_store,
            i1_nb,
            i2_valid,
            i2_last,
            i2_keep_all,
            i2_gap_free,
            i2_cnt,
            i2_nb,
            i2_store,
            in_err_keep,
            c1_valid,
            c1_bad4,
            c1_bad6,
            c1_bad7,
            c1_bad9,
            c1_bad10,
            c1_has_imm,
            c1_ip_len,
            c1_udp_len,
            c1_in_len,
            c1_reth_len,
            c1_f,
            c1_reply,
            c1_rlen,
            c1_bm,
            c2_valid,
            c2_err_keep,
            c2_len,
            c2_beats,
            c2_bad4,
            c2_bad6,
            c2_bad7,
            c2_bad9,
            c2_bad10,
            c2_vhit,
            c2_has_imm,
            c2_q0,
            c2_q1,
            c2_q2,
            c2_ip14,
            c2_udp34,
            c2_in64,
            c2_reth_h,
            c2_reth_hi0,
            c2_f,
            c3_valid,
            c3_err_keep,
            c3_too_long,
            c3_trunc,
            c3_bad4,
            c3_bad6,
            c3_bad7,
            c3_bad9,
            c3_bad10,
            c3_vhit,
            c3_short,
            c3_len_neq,
            c3_paylen,
            c3_sm,
            c3_last1,
            c3_r0,
            c3_r1,
            c3_f,
            c4_valid,
            c4_a_any,
            c4_a_code,
            c4_bad6,
            c4_bad7,
            c4_bad9,
            c4_bad10,
            c4_vhit,
            c4_len_bad,
            c4_x,
            c4_out,
            c4_sm,
            c4_sm1,
            c4_sm2,
            c4_ksh,
            c4_f,
            c5_valid,
            c5_a_any,
            c5_a_code,
            c5_cks_ok,
            c5_b_any,
            c5_b_code,
            c5_f,
            c5_bm,
            c2_reply,
            c2_bm,
            c2_psn1,
            c3_psn1,
            c4_psn1,
            c5_psn1,
            c3_reply,
            c3_lt108,
            c3_bm,
            c4_bm,
            r_valid,
            r_kind,
            r_qp,
            r_slot,
            r_psn,
            r_ack,
            r_ack_psn,
            r_bm,
            cnt_replies,
            ext,
            in_is_ext,
            h_valid,
            h_f,
            sk_valid,
            sk_f,
            vin_valid,
            vin_code,
            n0_valid,
            n0_f,
            n0_place,
            n0_vbad,
            n0_emit,
            n0_fin,
            n1_valid,
            n1_f,
            n1_place,
            n1_vbad,
            n1_emit,
            n1_fin,
            e_active,
            e_cons,
            e_flush,
            e_place,
            e_emit,
            e_first,
            e_last,
            e_fin,
            e_left,
            e_flushf,
            e_tailf,
            e_h124,
            e_ksh,
            e_qp,
            e_va,
            e_rkey,
            e_len,
            prev,
            o_valid,
            o_valid2,
            o_data,
            o_keep,
            o_last,
            o_qp,
            o_va,
            o_rkey,
            o_len,
            empties,
            empties_nz,
            empty_ev,
            k_valid,
            k_reason,
            k_vbad,
            k_placed,
            cnt_frames,
            cnt_placed,
            cnt_verdict
        );
        for i in 0..13 {
            self.cnt_drop[i].clock.next = self.clk.val();
            self.cnt_drop[i].d.next = self.cnt_drop[i].q.val();
        }
        for i in 0..5 {
            self.c1_p[i].clock.next = self.clk.val();
            self.c1_p[i].d.next = self.c1_p[i].q.val();
        }
        for i in 0..8 {
            self.c1_vhit[i].clock.next = self.clk.val();
            self.c1_vhit[i].d.next = self.c1_vhit[i].q.val();
        }
        self.data_fifo.clk.next = self.clk.val();
        self.icrc.clk.next = self.clk.val();
        self.desc_fifo.clk.next = self.clk.val();
        self.ready_fifo.clk.next = self.clk.val();
        self.verdict_fifo.clk.next = self.clk.val();
        self.data_fifo.rst.next = self.rst.val();
        self.desc_fifo.rst.next = self.rst.val();
        self.ready_fifo.rst.next = self.rst.val();
        self.verdict_fifo.rst.next = self.rst.val();

        // ================= Port: accept a beat, store it, keep the header window ========
        // Neither `in_fire` nor `s_axis_wire_tready` looks at `rst`: every register a beat
        // taken in a reset cycle would set is reset in that cycle, or is data whose valid
        // is, and inside `prnic_top` the port arbiter and the MAC FIFOs on the other side
        // of the handshake are reset in the same cycle. `ready_q` is low from the cycle
        // after. Gating them put the reset's 14,000-load net ahead of the arbiter's
        // `tready` and the MAC FIFOs' pops (5 levels into their block RAMs, budget 4).
        self.in_fire.next = (self.s_axis_wire_tvalid.val() & self.ready_q.q.val());
        // Beats past the maximum are accepted and discarded, so a frame that never ends
        // cannot fill the data FIFO.
        // The next state is chosen by `in_fire` between two forms computed from registers
        // and `tlast` alone, so `tvalid` (two LUTs deep from the MAC FIFOs through the port
        // arbiter) meets one more LUT before `ready_q`, `store_en` and `in_over`. Formed
        // behind `in_fire` it met three (5 levels, 3.48 ns of the 2.95 ns cycle in
        // `prnic_top`).
        self.over_f.next =
            (!self.s_axis_wire_tlast.val() & (self.in_over.q.val() | self.in_at_max.q.val()));
        // Ready a cycle ahead: a new frame needs flight room, a stored beat data room.
        self.ready_f.next = ((!self.s_axis_wire_tlast.val() | self.flight_lo.q.val())
            & (self.over_f.val() | self.data_lo.q.val()));
        self.ready_n.next = ((self.in_mid.q.val() | self.flight_lo.q.val())
            & (self.in_over.q.val() | self.data_lo.q.val()));
        if self.in_fire.val() {
            self.over_nx.next = self.over_f.val();
            self.mid_nx.next = !self.s_axis_wire_tlast.val();
            self.ready_q.d.next = (self.ready_f.val() & !self.rst.val());
            // `store_en` is `ready_q & !in_over` as registers: the data FIFO's RAM writes
            // whenever it is high (its slot is free then: `ready_q` means data room) and
            // keeps the beat on `s_valid`.
            self.store_en.d.next = ((self.ready_f.val() & !self.over_f.val()) & !self.rst.val());
        } else {
            self.over_nx.next = self.in_over.q.val();
            self.mid_nx.next = self.in_mid.q.val();
            self.ready_q.d.next = (self.ready_n.val() & !self.rst.val());
            self.store_en.d.next = ((self.ready_n.val() & !self.in_over.q.val()) & !self.rst.val());
        }
        self.in_over.d.next = self.over_nx.val();
        self.in_mid.d.next = self.mid_nx.val();
        if self.in_fire.val() {
            self.in_is1.d.next = (!self.in_mid.q.val() & !self.s_axis_wire_tlast.val());
            if self.s_axis_wire_tlast.val() {
                self.in_beats.d.next = 0.into();
                self.in_at_max.d.next = self.c_max_beats_1.val();
            } else if !self.in_over.q.val() {
                self.in_beats.d.next = (self.in_beats.q.val() + 1);
                self.in_at_max.d.next = (self.in_beats.q.val() == self.c_max_beats_m2.val());
            }
        }
        self.data_fifo.s_en.next = self.store_en.q.val();
        self.data_fifo.s_valid.next = (self.in_fire.val() & !self.in_over.q.val());
        self.data_fifo.s_data.next = self.s_axis_wire_tdata.val();
        // The header window: beat 0 at byte 0, beat 1 at byte K (when K < 128). It is
        // complete in the cycle after the last beat, when C1 reads it. Between frames it
        // loads the bus in every cycle, beat or not, and holds from a frame's first beat
        // on: its 1,024 enables follow `in_mid` (a register), not `tvalid` through the port
        // arbiter (3.43 ns of the 2.95 ns cycle when they did). C1 reads it only in the
        // cycle after a last beat, which the first beat's load or the hold covers.
        self.beat_wide.next = bit_cast::<HDR_BITS, D>(self.s_axis_wire_tdata.val());
        if !self.in_mid.q.val() {
            self.hdr.d.next = self.beat_wide.val();
        } else if ((self.in_fire.val() & self.c_hdr2.val()) & self.in_is1.q.val()) {
            self.hdr.d.next = (self.hdr.q.val() | (self.beat_wide.val() << self.c_hdr_beat1.val()));
        }
        // Bytes 128..144, for a request's bitmap: loaded in every cycle in which the next
        // beat is the one holding them, so its enables follow a register, as the window's.
        if self.in_is_ext.q.val() {
            self.ext.d.next = self.s_axis_wire_tdata.val().get_bits::<128>(0);
        }
        if self.in_fire.val() {
            self.in_is_ext.d.next =
                (!self.s_axis_wire_tlast.val() & (self.in_beats.q.val() == self.c_ext_m1.val()));
        }
        self.ev_frame.d.next = (self.in_fire.val() & !self.in_mid.q.val());
        // The ICRC sees every taken beat; its verdict is ready with C4's registers.
        self.icrc.in_valid.next = self.in_fire.val();
        self.icrc.in_data.next = self.s_axis_wire_tdata.val();
        self.icrc.in_keep.next = self.s_axis_wire_tkeep.val();
        self.icrc.in_first.next = !self.in_mid.q.val();
        self.icrc.in_second.next = self.in_is1.q.val();
        self.ev_store.d.next = (self.in_fire.val() & !self.in_over.q.val());
        self.i1_valid.d.next = self.in_fire.val();
        self.i1_keep.d.next = self.s_axis_wire_tkeep.val();
        self.i1_last.d.next = self.s_axis_wire_tlast.val();
        self.i1_store.d.next = !self.in_over.q.val();
        self.i1_nb.d.next = self.in_beats.q.val();

        // ================= I1 -> I2: judge and count tkeep ===============================
        self.keep_count.keep.next = self.i1_keep.q.val();
        self.keep_gap.next = ((self.i1_keep.q.val() >> 1) & !self.i1_keep.q.val()).any();
        self.i2_valid.d.next = self.i1_valid.q.val();
        self.i2_last.d.next = self.i1_last.q.val();
        self.i2_keep_all.d.next = self.i1_keep.q.val().all();
        self.i2_gap_free.d.next = (!self.keep_gap.val() & self.i1_keep.q.val().get_bit(0));
        self.i2_cnt.d.next = self.keep_count.count.val();
        self.i2_nb.d.next = self.i1_nb.q.val();
        self.i2_store.d.next = self.i1_store.q.val();
        if self.i2_valid.q.val() {
            if self.i2_last.q.val() {
                self.in_err_keep.d.next = false;
            } else {
                self.in_err_keep.d.next = (self.in_err_keep.q.val() | !self.i2_keep_all.q.val());
            }
        }

        // ================= C1: every header field, in the cycle after the last beat =====
        // `h` holds the header as one big-endian number: byte o, n bytes long, is at bits
        // [1023 - 8o : 1024 - 8(o + n)].
        self.hdr_swap.data_in.next = self.hdr.q.val();
        self.h.next = self.hdr_swap.data_out.val();
        self.c1_valid.d.next = (self.i1_valid.q.val() & self.i1_last.q.val());
        self.c1_bad4.d.next = (((self.h.val().get_bits::<16>(912) != 0x0800)
            | (self.h.val().get_bits::<8>(904) != 0x45))
            | (self.h.val().get_bits::<8>(832) != 17));
        self.c1_bad6.d.next = (self.h.val().get_bits::<16>(720) != 4789);
        self.c1_bad7.d.next = !self.h.val().get_bit(683);
        self.c1_bad9.d.next = (((((self.h.val().get_bits::<16>(512) != 0x0800)
            | (self.h.val().get_bits::<8>(504) != 0x45))
            | (self.h.val().get_bits::<8>(432) != 17))
            | (self.h.val().get_bits::<16>(320) != 4791))
            | self.h.val().get_bits::<8>(240).any());
        self.opcode.next = self.h.val().get_bits::<8>(280);
        // A reply (docs/reply-frames.md): its opcode, and for an ACK or a request an AETH
        // syndrome it may carry (byte 104). An unknown syndrome counts as a bad opcode.
        self.syn.next = self.h.val().get_bits::<8>(184);
        self.op_ack.next = (self.opcode.val() == 0x11);
        self.op_req.next = (self.opcode.val() == 0xc0);
        self.op_credit.next = ((self.opcode.val() >= 0xc1) & (self.opcode.val() <= 0xc4));
        self.syn_ack.next = (self.syn.val() == 0x1f);
        self.reply_ok.next = (((self.op_ack.val() & self.syn_ack.val())
            | (self.op_req.val() & (self.syn_ack.val() | (self.syn.val() == 0x60))))
            | self.op_credit.val());
        self.c1_bad10.d.next =
            (((self.opcode.val() < 0x06) | (self.opcode.val() > 0x0b)) & !self.reply_ok.val());
        self.op_reply.next = ((self.op_ack.val() | self.op_req.val()) | self.op_credit.val());
        self.c1_reply.d.next = self.op_reply.val();
        // Kinds as `reply_tx` numbers them: 0xC1..0xC4 are 2..5.
        if self.op_ack.val() {
            self.rkind.next = 0.into();
            self.c1_rlen.d.next = 112.into();
        } else if self.op_req.val() {
            self.rkind.next = 1.into();
            self.c1_rlen.d.next = 148.into();
        } else {
            self.rkind.next = (self.opcode.val().get_bits::<3>(0) + 1);
            self.c1_rlen.d.next = 108.into();
        }
        // Bitmap bit j is byte 112 + j / 8, bit j mod 8: the window's bytes 112..128,
        // then `ext`.
        self.c1_bm.d.next = ((bit_cast::<256, 128>(self.ext.q.val()) << 128)
            | bit_cast::<256, 128>(self.hdr.q.val().get_bits::<128>(896)));
        self.c1_has_imm.d.next = ((self.opcode.val() == 0x09) | (self.opcode.val() == 0x0b));
        // Outer IPv4 header checksum: its ten words, added in pairs.
        self.c1_p[0].d.next = (bit_cast::<20, 16>(self.h.val().get_bits::<16>(896))
            + bit_cast::<20, 16>(self.h.val().get_bits::<16>(880)));
        self.c1_p[1].d.next = (bit_cast::<20, 16>(self.h.val().get_bits::<16>(864))
            + bit_cast::<20, 16>(self.h.val().get_bits::<16>(848)));
        self.c1_p[2].d.next = (bit_cast::<20, 16>(self.h.val().get_bits::<16>(832))
            + bit_cast::<20, 16>(self.h.val().get_bits::<16>(816)));
        self.c1_p[3].d.next = (bit_cast::<20, 16>(self.h.val().get_bits::<16>(800))
            + bit_cast::<20, 16>(self.h.val().get_bits::<16>(784)));
        self.c1_p[4].d.next = (bit_cast::<20, 16>(self.h.val().get_bits::<16>(768))
            + bit_cast::<20, 16>(self.h.val().get_bits::<16>(752)));
        // The VNI against each LOCAL_VNI slot (the first enabled match wins, in C2).
        self.vni.next = self.h.val().get_bits::<24>(632);
        self.vni_cfg[0].next = self.cfg_local_vni0.val();
        self.vni_cfg[1].next = self.cfg_local_vni1.val();
        self.vni_cfg[2].next = self.cfg_local_vni2.val();
        self.vni_cfg[3].next = self.cfg_local_vni3.val();
        self.vni_cfg[4].next = self.cfg_local_vni4.val();
        self.vni_cfg[5].next = self.cfg_local_vni5.val();
        self.vni_cfg[6].next = self.cfg_local_vni6.val();
        self.vni_cfg[7].next = self.cfg_local_vni7.val();
        for i in 0..8 {
            self.c1_vhit[i].d.next = (self.vni_cfg[i].val().get_bit(31)
                & (self.vni_cfg[i].val().get_bits::<24>(0) == self.vni.val()));
        }
        self.c1_ip_len.d.next = self.h.val().get_bits::<16>(880);
        self.c1_udp_len.d.next = self.h.val().get_bits::<16>(704);
        self.c1_in_len.d.next = self.h.val().get_bits::<16>(480);
        self.c1_reth_len.d.next = self.h.val().get_bits::<32>(64);
        // The descriptor's header fields, in their final places.
        self.rack.next = (self.op_ack.val() | (self.op_req.val() & self.syn_ack.val()));
        self.f_reply.next = (((bit_cast::<DESC_BITS, 1>(self.op_reply.val().into()) << 221)
            | (bit_cast::<DESC_BITS, 3>(self.rkind.val()) << 222))
            | ((bit_cast::<DESC_BITS, 1>(self.rack.val().into()) << 225)
                | (bit_cast::<DESC_BITS, 1>(self.op_ack.val().into()) << 226)));
        self.c1_f.d.next = (((((bit_cast::<DESC_BITS, 16>(self.h.val().get_bits::<16>(224))
            << 33)
            | (bit_cast::<DESC_BITS, 64>(self.h.val().get_bits::<64>(128)) << 49))
            | ((bit_cast::<DESC_BITS, 32>(self.h.val().get_bits::<32>(96)) << 113)
                | (bit_cast::<DESC_BITS, 24>(self.h.val().get_bits::<24>(192)) << 161)))
            | ((bit_cast::<DESC_BITS, 1>(self.h.val().get_bit(223).into()) << 188)
                | (bit_cast::<DESC_BITS, 32>(self.h.val().get_bits::<32>(32)) << 189)))
            | self.f_reply.val());

        // ================= C2: the byte count joins; VNI slot; checksum quads ============
        self.c2_valid.d.next = self.c1_valid.q.val();
        self.c2_err_keep.d.next = (self.in_err_keep.q.val() | !self.i2_gap_free.q.val());
        // Bytes: full beats before the last, then the last beat's count. A frame past the
        // maximum counts its stored beats only, which is already more than the maximum.
        self.c2_len.d.next = ((self.i2_nb.q.val() << self.c_kshift.val()) + self.i2_cnt.q.val());
        if self.i2_store.q.val() {
            self.c2_beats.d.next = (self.i2_nb.q.val() + 1);
        } else {
            self.c2_beats.d.next = self.i2_nb.q.val();
        }
        self.c2_bad4.d.next = self.c1_bad4.q.val();
        self.c2_bad6.d.next = self.c1_bad6.q.val();
        self.c2_bad7.d.next = self.c1_bad7.q.val();
        self.c2_bad9.d.next = self.c1_bad9.q.val();
        self.c2_bad10.d.next = self.c1_bad10.q.val();
        self.vhit.next = false;
        self.vslot.next = 0.into();
        for i in 0..8 {
            if (!self.vhit.val() & self.c1_vhit[i].q.val()) {
                self.vhit.next = true;
                self.vslot.next = self.c_slot[i].val();
            }
        }
        self.c2_vhit.d.next = self.vhit.val();
        self.c2_has_imm.d.next = self.c1_has_imm.q.val();
        self.c2_q0.d.next = (self.c1_p[0].q.val() + self.c1_p[1].q.val());
        self.c2_q1.d.next = (self.c1_p[2].q.val() + self.c1_p[3].q.val());
        self.c2_q2.d.next = self.c1_p[4].q.val();
        // Each length field plus the bytes before what it counts equals the byte count
        // (modulo 2^16, as the subtraction it replaces). Headers and ICRC: 124 bytes,
        // 128 with an immediate; the RETH length must fit 16 bits.
        if self.c1_has_imm.q.val() {
            self.hdr4.next = 128.into();
        } else {
            self.hdr4.next = 124.into();
        }
        self.c2_ip14.d.next = (self.c1_ip_len.q.val() + 14);
        self.c2_udp34.d.next = (self.c1_udp_len.q.val() + 34);
        self.c2_in64.d.next = (self.c1_in_len.q.val() + 64);
        // A reply has no RETH: its kind's length stands in for the RETH's.
        if self.c1_reply.q.val() {
            self.c2_reth_h.d.next = self.c1_rlen.q.val();
        } else {
            self.c2_reth_h.d.next = (self.c1_reth_len.q.val().get_bits::<16>(0) + self.hdr4.val());
        }
        self.c2_reth_hi0.d.next =
            (self.c1_reply.q.val() | !self.c1_reth_len.q.val().get_bits::<16>(16).any());
        self.c2_reply.d.next = self.c1_reply.q.val();
        // An ACK's BTH PSN is the last one received in order; its record carries the
        // next. Added here, from flip-flops: at the record, after C2..C5's shift
        // registers, the carry chain was 5 levels (budget 3 after an SRL).
        self.c2_psn1.d.next = (self.c1_f.q.val().get_bits::<24>(161) + 1);
        self.c2_bm.d.next = self.c1_bm.q.val();
        self.c2_f.d.next = ((self.c1_f.q.val()
            | (bit_cast::<DESC_BITS, 1>(self.c1_has_imm.q.val().into()) << 32))
            | (bit_cast::<DESC_BITS, 3>(self.vslot.val()) << 185));

        // ================= C3: sizes and lengths against the frame =======================
        self.c3_valid.d.next = self.c2_valid.q.val();
        self.c3_err_keep.d.next = self.c2_err_keep.q.val();
        self.c3_too_long.d.next = (self.c2_len.q.val() > self.c_max_frame.val());
        // Shorter than the smallest reply, or than a data packet's headers and ICRC
        // (joined in C4: gated here, the compares took 3.13 ns).
        self.c3_trunc.d.next = (self.c2_len.q.val() < 124);
        self.c3_lt108.d.next = (self.c2_len.q.val() < 108);
        self.c3_reply.d.next = self.c2_reply.q.val();
        self.c3_psn1.d.next = self.c2_psn1.q.val();
        self.c3_bm.d.next = self.c2_bm.q.val();
        self.c3_bad4.d.next = self.c2_bad4.q.val();
        self.c3_bad6.d.next = self.c2_bad6.q.val();
        self.c3_bad7.d.next = self.c2_bad7.q.val();
        self.c3_bad9.d.next = self.c2_bad9.q.val();
        self.c3_bad10.d.next = self.c2_bad10.q.val();
        self.c3_vhit.d.next = self.c2_vhit.q.val();
        if self.c2_has_imm.q.val() {
            self.c2_hdr4.next = 128.into();
        } else {
            self.c2_hdr4.next = 124.into();
        }
        self.c3_short.d.next = (self.c2_len.q.val() < self.c2_hdr4.val());
        self.c3_len_neq.d.next = (((self.c2_ip14.q.val() != self.c2_len.q.val())
            | (self.c2_udp34.q.val() != self.c2_len.q.val()))
            | (((self.c2_in64.q.val() != self.c2_len.q.val()) | !self.c2_reth_hi0.q.val())
                | (self.c2_reth_h.q.val() != self.c2_len.q.val())));
        self.c3_paylen.d.next = (self.c2_len.q.val() - self.c2_hdr4.val());
        self.c3_sm.d.next = (self.c2_beats.q.val() - self.c_skip.val());
        self.c3_last1.d.next = (self.c2_beats.q.val() == 1);
        self.c3_r0.d.next = (self.c2_q0.q.val() + self.c2_q2.q.val());
        self.c3_r1.d.next = self.c2_q1.q.val();
        self.c3_f.d.next =
            (self.c2_f.q.val() | (bit_cast::<DESC_BITS, 16>(self.c2_beats.q.val()) << 5));

        // ================= C4: the first four reasons; placement shape; checksum sum =====
        self.c4_valid.d.next = self.c3_valid.q.val();
        self.trunc.next =
            (self.c3_lt108.q.val() | (!self.c3_reply.q.val() & self.c3_trunc.q.val()));
        self.c4_a_any.d.next = (((self.c3_err_keep.q.val() | self.c3_too_long.q.val())
            | self.trunc.val())
            | self.c3_bad4.q.val());
        if self.c3_err_keep.q.val() {
            self.c4_a_code.d.next = 1.into();
        } else if self.c3_too_long.q.val() {
            self.c4_a_code.d.next = 2.into();
        } else if self.trunc.val() {
            self.c4_a_code.d.next = 3.into();
        } else {
            self.c4_a_code.d.next = 4.into();
        }
        self.c4_bad6.d.next = self.c3_bad6.q.val();
        self.c4_bad7.d.next = self.c3_bad7.q.val();
        self.c4_bad9.d.next = self.c3_bad9.q.val();
        self.c4_bad10.d.next = self.c3_bad10.q.val();
        self.c4_vhit.d.next = self.c3_vhit.q.val();
        // A reply has no RETH, so no data header length to be short of.
        self.c4_len_bad.d.next =
            ((self.c3_short.q.val() & !self.c3_reply.q.val()) | self.c3_len_neq.q.val());
        self.c4_psn1.d.next = self.c3_psn1.q.val();
        self.c4_bm.d.next = self.c3_bm.q.val();
        self.c4_x.d.next = (self.c3_r0.q.val() + self.c3_r1.q.val());
        // Output beats: ceil(paylen / K); the last one keeps paylen modulo K bytes, i.e.
        // all ones shifted right by (-paylen) modulo K.
        self.c4_out.d.next = ((self.c3_paylen.q.val() + self.c_km1.val()) >> self.c_kshift.val());
        self.ksh.next = (!(self.c3_paylen.q.val() - 1) & self.c_kmask.val());
        self.c4_ksh.d.next = self.ksh.val().get_bits::<7>(0);
        self.c4_sm.d.next = self.c3_sm.q.val();
        self.c4_sm1.d.next = (self.c3_sm.q.val() == 1);
        self.c4_sm2.d.next = (self.c3_sm.q.val() >= 2);
        self.c4_f.d.next = ((self.c3_f.q.val()
            | (bit_cast::<DESC_BITS, 1>(self.c3_last1.q.val().into()) << 21))
            | (bit_cast::<DESC_BITS, 16>(self.c3_paylen.q.val()) << 145));

        // ================= C5: the other reasons, checksum verdict, flush/tail ===========
        // `icrc.bad` is the verdict of the frame in C4's registers: both are
        // ICRC_CHECK_LATENCY cycles after its last beat.
        self.c5_valid.d.next = self.c4_valid.q.val();
        self.c5_a_any.d.next = self.c4_a_any.q.val();
        self.c5_a_code.d.next = self.c4_a_code.q.val();
        // The ten words' sum x passes when its ones' complement fold is 0xffff, i.e. when
        // x[15:0] + x[19:16] = 0xffff (x is a nonzero multiple of 0xffff, at most 10 of
        // them, so x[19:16] < 16 and x[3:0] must be its complement).
        self.c5_cks_ok.d.next = (self.c4_x.q.val().get_bits::<12>(4).all()
            & ((self.c4_x.q.val().get_bits::<4>(0) ^ self.c4_x.q.val().get_bits::<4>(16)) == 0xf));
        self.c5_b_any.d.next = ((((self.c4_bad6.q.val() | self.c4_bad7.q.val())
            | (!self.c4_vhit.q.val() | self.c4_bad9.q.val()))
            | self.c4_bad10.q.val())
            | (self.c4_len_bad.q.val() | self.icrc.bad.val()));
        if self.c4_bad6.q.val() {
            self.c5_b_code.d.next = 6.into();
        } else if self.c4_bad7.q.val() {
            self.c5_b_code.d.next = 7.into();
        } else if !self.c4_vhit.q.val() {
            self.c5_b_code.d.next = 8.into();
        } else if self.c4_bad9.q.val() {
            self.c5_b_code.d.next = 9.into();
        } else if self.c4_bad10.q.val() {
            self.c5_b_code.d.next = 10.into();
        } else if self.c4_len_bad.q.val() {
            self.c5_b_code.d.next = 11.into();
        } else {
            self.c5_b_code.d.next = 12.into();
        }
        // A placed packet has S - skip or S - skip - 1 output beats (its lengths passed):
        // with S - skip of them (two or more) its last output beat starts in its last
        // stored beat and goes in a flush cycle; a tail packet has one stored beat past
        // the skip and one output beat, sent as that beat is consumed.
        self.sh_flush.next = ((self.c4_out.q.val() == self.c4_sm.q.val()) & self.c4_sm2.q.val());
        self.sh_tail.next = (self.c4_sm1.q.val() & (self.c4_out.q.val() == 1));
        self.sh_none.next = (self.c4_out.q.val() == 0);
        self.c5_f.d.next = ((self.c4_f.q.val()
            | ((bit_cast::<DESC_BITS, 1>(self.sh_flush.val().into()) << 22)
                | (bit_cast::<DESC_BITS, 1>(self.sh_tail.val().into()) << 23)))
            | ((bit_cast::<DESC_BITS, 1>(self.sh_none.val().into()) << 24)
                | (bit_cast::<DESC_BITS, 7>(self.c4_ksh.q.val()) << 25)));
        // The descriptor, with the first failing check.
        if self.c5_a_any.q.val() {
            self.reason.next = self.c5_a_code.q.val();
        } else if !self.c5_cks_ok.q.val() {
            self.reason.next = 5.into();
        } else if self.c5_b_any.q.val() {
            self.reason.next = self.c5_b_code.q.val();
        } else {
            self.reason.next = 0.into();
        }
        self.drop.next =
            ((self.c5_a_any.q.val() | !self.c5_cks_ok.q.val()) | self.c5_b_any.q.val());
        self.c5_bm.d.next = self.c4_bm.q.val();
        self.c5_psn1.d.next = self.c4_psn1.q.val();
        // A good reply leaves as a record; its descriptor only discards its stored beats
        // (the drop bit, with reason 0, which no drop counter counts).
        self.desc_fifo.s_valid.next = self.c5_valid.q.val();
        self.desc_fifo.s_data.next = ((self.c5_f.q.val()
            | (bit_cast::<DESC_BITS, 4>(self.reason.val()) << 1))
            | bit_cast::<DESC_BITS, 1>((self.drop.val() | self.c5_f.q.val().get_bit(221)).into()));
        self.r_valid.d.next =
            ((self.c5_valid.q.val() & self.c5_f.q.val().get_bit(221)) & !self.drop.val());
        self.r_kind.d.next = self.c5_f.q.val().get_bits::<3>(222);
        self.r_qp.d.next = self.c5_f.q.val().get_bits::<16>(33);
        self.r_slot.d.next = self.c5_f.q.val().get_bits::<3>(185);
        if self.c5_f.q.val().get_bit(226) {
            self.r_psn.d.next = self.c5_psn1.q.val();
        } else {
            self.r_psn.d.next = self.c5_f.q.val().get_bits::<24>(161);
        }
        self.r_ack.d.next = self.c5_f.q.val().get_bit(225);
        // The SREQ ACK PSN, bytes 109..112, sits where a RETH's address ends.
        self.r_ack_psn.d.next = self.c5_f.q.val().get_bits::<24>(49);
        self.r_bm.d.next = self.c5_bm.q.val();
        self.cnt_replies.d.next =
            (self.cnt_replies.q.val() + bit_cast::<32, 1>(self.r_valid.q.val().into()));

        // ================= Issue: good headers to rx_reorder, every descriptor on ========
        // A header is sent only with a verdict FIFO slot reserved for its answer; a
        // descriptor moves to the ready FIFO with its header (or alone, if dropped). The
        // ready FIFO cannot be full: it holds frames in flight, fewer than its depth.
        self.d_drop.next = self.desc_fifo.m_data.val().get_bit(0);
        self.pass.next = (self.desc_fifo.m_valid.val()
            & (self.d_drop.val() | (!self.sk_valid.q.val() & self.v_room.q.val())));
        self.hdr_push.next = (self.pass.val() & !self.d_drop.val());
        self.desc_fifo.m_pop.next = self.pass.val();
        self.ready_fifo.s_valid.next = self.pass.val();
        self.ready_fifo.s_data.next = self.desc_fifo.m_data.val();
        self.ev_issue.d.next = self.hdr_push.val();
        // m_hdr is a register with a skid entry behind it, so m_hdr_ready reaches only
        // their enables.
        self.out_take.next = (!self.h_valid.q.val() | self.m_hdr_ready.val());
        if self.out_take.val() {
            if self.sk_valid.q.val() {
                self.h_f.d.next = self.sk_f.q.val();
            } else {
                self.h_f.d.next = self.desc_fifo.m_data.val();
            }
            self.h_valid.d.next = (self.sk_valid.q.val() | self.hdr_push.val());
            self.sk_valid.d.next = false;
        } else if self.hdr_push.val() {
            self.sk_valid.d.next = true;
        }
        if !self.sk_valid.q.val() {
            self.sk_f.d.next = self.desc_fifo.m_data.val();
        }
        self.vin_valid.d.next = self.s_verdict_valid.val();
        self.vin_code.d.next = self.s_verdict_code.val();
        self.verdict_fifo.s_valid.next = self.vin_valid.q.val();
        self.verdict_fifo.s_data.next = self.vin_code.q.val();

        // ================= Placement control (registers and tready only) =================
        self.out_free.next = (!self.o_valid.q.val() | self.m_axis_place_tready.val());
        self.out_free2.next = (!self.o_valid2.q.val() | self.m_axis_place_tready.val());
        self.consume.next = ((self.e_cons.q.val() & self.data_fifo.m_valid.val())
            & (!self.e_emit.q.val() | self.out_free2.val()));
        self.data_fifo.m_pop.next = self.consume.val();
        self.flush_go.next = (self.e_flush.q.val() & self.out_free2.val());
        // A new packet starts in the cycle the last one finishes: its last stored beat
        // goes with no flush beat to follow, or its flush beat goes.
        self.start.next = (self.n0_valid.q.val()
            & ((!self.e_active.q.val() | (self.consume.val() & self.e_fin.q.val()))
                | self.flush_go.val()));
        self.emit_now.next = ((self.consume.val() & self.e_emit.q.val()) | self.flush_go.val());

        // ================= Next: descriptors joined with their verdicts ==================
        // n1 is empty whenever one is taken, so taking needs no look at `start`.
        self.r_drop.next = self.ready_fifo.m_data.val().get_bit(0);
        self.take.next = ((!self.n1_valid.q.val() & self.ready_fifo.m_valid.val())
            & (self.r_drop.val() | self.verdict_fifo.m_valid.val()));
        self.ready_fifo.m_pop.next = self.take.val();
        self.verdict_fifo.m_pop.next = (self.take.val() & !self.r_drop.val());
        self.ev_take.d.next = self.take.val();
        self.ev_verdict.d.next = (self.take.val() & !self.r_drop.val());
        self.x_place.next = (!self.r_drop.val() & !self.verdict_fifo.m_data.val().any());
        self.x_vbad.next = (!self.r_drop.val() & self.verdict_fifo.m_data.val().any());
        self.x_emit.next =
            ((self.x_place.val() & self.ready_fifo.m_data.val().get_bit(23)) & self.c_skip0.val());
        self.x_fin.next = (self.ready_fifo.m_data.val().get_bit(21)
            & !(self.x_place.val() & self.ready_fifo.m_data.val().get_bit(22)));
        self.ld0.next = (self.start.val() | !self.n0_valid.q.val());
        if self.ld0.val() {
            self.n0_valid.d.next = (self.n1_valid.q.val() | self.take.val());
            self.n1_valid.d.next = false;
            if self.n1_valid.q.val() {
                self.n0_f.d.next = self.n1_f.q.val();
                self.n0_place.d.next = self.n1_place.q.val();
                self.n0_vbad.d.next = self.n1_vbad.q.val();
                self.n0_emit.d.next = self.n1_emit.q.val();
                self.n0_fin.d.next = self.n1_fin.q.val();
            } else {
                self.n0_f.d.next = self.ready_fifo.m_data.val();
                self.n0_place.d.next = self.x_place.val();
                self.n0_vbad.d.next = self.x_vbad.val();
                self.n0_emit.d.next = self.x_emit.val();
                self.n0_fin.d.next = self.x_fin.val();
            }
        } else if self.take.val() {
            self.n1_valid.d.next = true;
        }
        if !self.n1_valid.q.val() {
            self.n1_f.d.next = self.ready_fifo.m_data.val();
            self.n1_place.d.next = self.x_place.val();
            self.n1_vbad.d.next = self.x_vbad.val();
            self.n1_emit.d.next = self.x_emit.val();
            self.n1_fin.d.next = self.x_fin.val();
        }

        // ================= Occupancy, from the events of the cycle before ================
        if (self.ev_frame.q.val() & !self.ev_take.q.val()) {
            self.flight.d.next = (self.flight.q.val() + 1);
        } else if (!self.ev_frame.q.val() & self.ev_take.q.val()) {
            self.flight.d.next = (self.flight.q.val() - 1);
        }
        self.flight_lo.d.next = (self.flight.q.val() <= self.c_flight_lo.val());
        self.ev_consume.d.next = self.consume.val();
        if (self.ev_store.q.val() & !self.ev_consume.q.val()) {
            self.dcount.d.next = (self.dcount.q.val() + 1);
        } else if (!self.ev_store.q.val() & self.ev_consume.q.val()) {
            self.dcount.d.next = (self.dcount.q.val() - 1);
        }
        self.data_lo.d.next = (self.dcount.q.val() <= self.c_data_lo.val());
        if (self.ev_issue.q.val() & !self.ev_verdict.q.val()) {
            self.v_pending.d.next = (self.v_pending.q.val() + 1);
        } else if (!self.ev_issue.q.val() & self.ev_verdict.q.val()) {
            self.v_pending.d.next = (self.v_pending.q.val() - 1);
        }
        self.v_room.d.next = (self.v_pending.q.val() <= self.c_pending_lo.val());

        // ================= Placement data path ===========================================
        // Beat j of the payload: bytes [R, K) of stored beat j + skip (the top 8 bytes
        // kept of it), then [0, R) of the next; a flush beat has no next, a tail beat is
        // the stored beat itself.
        self.cur.next = self.data_fifo.m_data.val();
        if self.e_tailf.q.val() {
            self.rp.next = bit_cast::<64, D>(self.cur.val() >> self.c_top8.val());
        } else {
            self.rp.next = self.prev.q.val();
        }
        if (self.e_tailf.q.val() | self.e_flush.q.val()) {
            self.curx.next = 0.into();
        } else {
            self.curx.next = self.cur.val();
        }
        if self.e_h124.q.val() {
            self.realign.next = ((bit_cast::<D, 64>(self.rp.val()) >> self.c_psh124.val())
                | (self.curx.val() << self.c_shl124.val()));
        } else {
            self.realign.next = ((bit_cast::<D, 64>(self.rp.val()) >> self.c_psh120.val())
                | (self.curx.val() << self.c_shl120.val()));
        }
        // The packet's last output beat: its flush beat, or else the one its last stored
        // beat sends.
        self.last_sel.next = (self.e_flush.q.val() | self.e_fin.q.val());
        if self.out_free.val() {
            self.o_valid.d.next = self.emit_now.val();
            self.o_data.d.next = self.realign.val();
            if self.last_sel.val() {
                self.o_keep.d.next = (self.c_ones.val() >> self.e_ksh.q.val());
            } else {
                self.o_keep.d.next = self.c_ones.val();
            }
            self.o_last.d.next = self.last_sel.val();
            // The command travels with each beat (the next packet's may load meanwhile).
            self.o_qp.d.next = self.e_qp.q.val();
            self.o_va.d.next = self.e_va.q.val();
            self.o_rkey.d.next = self.e_rkey.q.val();
            self.o_len.d.next = self.e_len.q.val();
        }
        if self.out_free2.val() {
            self.o_valid2.d.next = self.emit_now.val();
        }
        if self.consume.val() {
            self.prev.d.next = bit_cast::<64, D>(self.cur.val() >> self.c_top8.val());
            self.e_left.d.next = (self.e_left.q.val() - 1);
            self.e_last.d.next = (self.e_left.q.val() == 2);
            self.e_fin.d.next = ((self.e_left.q.val() == 2) & !self.e_flushf.q.val());
            self.e_first.d.next = false;
            self.e_emit.d.next = (self.e_place.q.val()
                & ((self.c_skip0.val() | self.e_tailf.q.val()) | !self.e_first.q.val()));
            if self.e_last.q.val() {
                // The last stored beat: one more output beat may remain (flush).
                self.e_cons.d.next = false;
                if self.e_flushf.q.val() {
                    self.e_flush.d.next = true;
                } else {
                    self.e_active.d.next = false;
                }
            }
        }
        if self.flush_go.val() {
            self.e_flush.d.next = false;
            self.e_active.d.next = false;
        }
        // A new packet's writes win over the last one's.
        if self.start.val() {
            self.e_active.d.next = true;
            self.e_cons.d.next = true;
            self.e_flush.d.next = false;
            self.e_first.d.next = true;
            self.e_place.d.next = self.n0_place.q.val();
            self.e_emit.d.next = self.n0_emit.q.val();
            self.e_left.d.next = self.n0_f.q.val().get_bits::<16>(5);
            self.e_last.d.next = self.n0_f.q.val().get_bit(21);
            self.e_fin.d.next = self.n0_fin.q.val();
            self.e_flushf.d.next = (self.n0_place.q.val() & self.n0_f.q.val().get_bit(22));
            self.e_tailf.d.next = (self.n0_place.q.val() & self.n0_f.q.val().get_bit(23));
            self.e_h124.d.next = self.n0_f.q.val().get_bit(32);
            self.e_ksh.d.next = self.n0_f.q.val().get_bits::<7>(25);
            self.e_qp.d.next = self.n0_f.q.val().get_bits::<16>(33);
            self.e_va.d.next = self.n0_f.q.val().get_bits::<64>(49);
            self.e_rkey.d.next = self.n0_f.q.val().get_bits::<32>(113);
            self.e_len.d.next = self.n0_f.q.val().get_bits::<16>(145);
        }

        // ================= Counters, a cycle after the packet starts =====================
        self.k_valid.d.next = self.start.val();
        self.k_reason.d.next = self.n0_f.q.val().get_bits::<4>(1);
        self.k_vbad.d.next = self.n0_vbad.q.val();
        self.k_placed.d.next = self.n0_place.q.val();
        self.empty_ev.d.next =
            ((self.start.val() & self.n0_place.q.val()) & self.n0_f.q.val().get_bit(24));
        if self.k_valid.q.val() {
            for i in 1..13 {
                if (self.k_reason.q.val().index() == i) {
                    self.cnt_drop[i].d.next = (self.cnt_drop[i].q.val() + 1);
                }
            }
            if self.k_vbad.q.val() {
                self.cnt_verdict.d.next = (self.cnt_verdict.q.val() + 1);
            }
            if self.k_placed.q.val() {
                self.cnt_placed.d.next = (self.cnt_placed.q.val() + 1);
            }
        }
        if self.ev_frame.q.val() {
            self.cnt_frames.d.next = (self.cnt_frames.q.val() + 1);
        }
        // Placement done: a last beat taken, or a zero-length placed packet reported once
        // the beat ahead of it (at most the previous packet's last) has left.
        // From `o_valid2`: `o_valid` drives the output register's enable (hundreds of
        // loads) and would slow the counter behind it.
        self.last_taken.next =
            ((self.o_valid2.q.val() & self.m_axis_place_tready.val()) & self.o_last.q.val());
        self.empty_go.next =
            (self.empties_nz.q.val() & (!self.o_valid2.q.val() | self.last_taken.val()));
        if (self.empty_ev.q.val() & !self.empty_go.val()) {
            self.empties.d.next = (self.empties.q.val() + 1);
            self.empties_nz.d.next = true;
        } else if (!self.empty_ev.q.val() & self.empty_go.val()) {
            self.empties.d.next = (self.empties.q.val() - 1);
            self.empties_nz.d.next = (self.empties.q.val() != 1);
        }
        self.m_place_done.next = (bit_cast::<2, 1>(self.last_taken.val().into())
            + bit_cast::<2, 1>(self.empty_go.val().into()));

        if self.rst.val() {
            self.ready_q.d.next = false;
            self.store_en.d.next = false;
            self.in_mid.d.next = false;
            self.in_beats.d.next = 0.into();
            self.in_at_max.d.next = self.c_max_beats_1.val();
            self.in_over.d.next = false;
            self.in_is1.d.next = false;
            self.flight.d.next = 0.into();
            self.flight_lo.d.next = true;
            self.ev_frame.d.next = false;
            self.ev_take.d.next = false;
            self.dcount.d.next = 0.into();
            self.data_lo.d.next = true;
            self.ev_store.d.next = false;
            self.ev_consume.d.next = false;
            self.v_pending.d.next = 0.into();
            self.v_room.d.next = true;
            self.ev_issue.d.next = false;
            self.ev_verdict.d.next = false;
            self.i1_valid.d.next = false;
            self.i2_valid.d.next = false;
            self.in_err_keep.d.next = false;
            self.c1_valid.d.next = false;
            self.c2_valid.d.next = false;
            self.c3_valid.d.next = false;
            self.c4_valid.d.next = false;
            self.c5_valid.d.next = false;
            self.h_valid.d.next = false;
            self.sk_valid.d.next = false;
            self.vin_valid.d.next = false;
            self.n0_valid.d.next = false;
            self.n1_valid.d.next = false;
            self.e_active.d.next = false;
            self.e_cons.d.next = false;
            self.e_flush.d.next = false;
            self.o_valid.d.next = false;
            self.o_valid2.d.next = false;
            self.empties.d.next = 0.into();
            self.empties_nz.d.next = false;
            self.empty_ev.d.next = false;
            self.k_valid.d.next = false;
            self.cnt_frames.d.next = 0.into();
            self.cnt_placed.d.next = 0.into();
            self.cnt_verdict.d.next = 0.into();
            self.r_valid.d.next = false;
            self.cnt_replies.d.next = 0.into();
            for i in 0..13 {
                self.cnt_drop[i].d.next = 0.into();
            }
        }

        self.s_axis_wire_tready.next = self.ready_q.q.val();
        self.m_hdr_valid.next = (self.h_valid.q.val() & !self.rst.val());
        self.m_hdr_qp.next = self.h_f.q.val().get_bits::<16>(33);
        self.m_hdr_psn.next = self.h_f.q.val().get_bits::<24>(161);
        self.m_hdr_vni_slot.next = self.h_f.q.val().get_bits::<3>(185);
        self.m_hdr_ack_req.next = self.h_f.q.val().get_bit(188);
        self.m_hdr_has_imm.next = self.h_f.q.val().get_bit(32);
        self.m_hdr_imm.next = self.h_f.q.val().get_bits::<32>(189);
        self.m_axis_place_tvalid.next = self.o_valid.q.val();
        self.m_axis_place_tdata.next = self.o_data.q.val();
        self.m_axis_place_tkeep.next = self.o_keep.q.val();
        self.m_axis_place_tlast.next = self.o_last.q.val();
        self.m_place_qp.next = self.o_qp.q.val();
        self.m_place_va.next = self.o_va.q.val();
        self.m_place_rkey.next = self.o_rkey.q.val();
        self.m_place_len.next = bit_cast::<32, 16>(self.o_len.q.val());
        self.status_frames.next = self.cnt_frames.q.val();
        self.status_placed.next = self.cnt_placed.q.val();
        self.status_drop_bad_keep.next = self.cnt_drop[1].q.val();
        self.status_drop_too_long.next = self.cnt_drop[2].q.val();
        self.status_drop_truncated.next = self.cnt_drop[3].q.val();
        self.status_drop_not_ipv4.next = self.cnt_drop[4].q.val();
        self.status_drop_bad_checksum.next = self.cnt_drop[5].q.val();
        self.status_drop_bad_port.next = self.cnt_drop[6].q.val();
        self.status_drop_bad_vxlan.next = self.cnt_drop[7].q.val();
        self.status_drop_unknown_vni.next = self.cnt_drop[8].q.val();
        self.status_drop_bad_inner.next = self.cnt_drop[9].q.val();
        self.status_drop_bad_opcode.next = self.cnt_drop[10].q.val();
        self.status_drop_bad_length.next = self.cnt_drop[11].q.val();
        self.status_drop_bad_icrc.next = self.cnt_drop[12].q.val();
        self.status_drop_verdict.next = self.cnt_verdict.q.val();
        self.m_reply_valid.next = self.r_valid.q.val();
        self.m_reply_kind.next = self.r_kind.q.val();
        self.m_reply_qp.next = self.r_qp.q.val();
        self.m_reply_vni_slot.next = self.r_slot.q.val();
        self.m_reply_psn.next = self.r_psn.q.val();
        self.m_reply_ack.next = self.r_ack.q.val();
        self.m_reply_ack_psn.next = self.r_ack_psn.q.val();
        self.m_reply_bitmap.next = self.r_bm.q.val();
        self.status_replies.next = self.cnt_replies.q.val();
        // Read in part only: spare descriptor and header bits, CSR bits 30:24.
        self.unused_bits.next = (((self.cnt_drop[0].q.val().any() | self.ksh.val().any())
            | ((self.h.val().any() | self.h_f.q.val().any()) | self.n0_f.q.val().any()))
            | ((((self.vni_cfg[0].val().any() | self.vni_cfg[1].val().any())
                | (self.vni_cfg[2].val().any() | self.vni_cfg[3].val().any()))
                | (self.vni_cfg[4].val().any() | self.vni_cfg[5].val().any()))
                | (self.vni_cfg[6].val().any() | self.vni_cfg[7].val().any())));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rx_decap_generates_verilog_for_both_buses() {
        let mut a = RxDecap::<1024, 128>::new(4300);
        a.connect_all();
        assert!(generate_verilog(&a).contains("module top"));
        let mut b = RxDecap::<512, 64>::new(4300);
        b.connect_all();
        assert!(generate_verilog(&b).contains("module top"));
    }
}
