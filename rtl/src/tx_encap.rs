//! `tx_encap`: VXLAN encapsulation of the tenant's RoCEv2 frames, with a per-packet outer
//! UDP source port, on AXI4-Stream (the Pegasus paper).
//!
//! ```text
//!           ┌ first beat (registered): key {VNI, inner dst IPv4} ─► m_lookup ─► flow_table
//!           │                          request ─► sprayer ─────────► port FIFO ───────┐
//! s_axis ──►│ beat ─► data FIFO (store and forward) ───────────────────────────────┐  │
//!           └ I1 beat ─► I2 keep count, ─► I3 frame length, ─► I4 drop reason, ─► desc FIFO
//!             registered   keep check,     sticky faults      keep shift, sums     │  │
//!                          header fields                                         │  │  │
//! s_result (hit, value) ───────────────────────────────────────► result FIFO ────┼──┼──┤
//!                                                                                │  │  ▼
//!   H1 pop all three ─► H2 header fields, partial sums ─► H3 sum ─► H4 checksum ─► header FIFO
//!                                                                                │       ▼
//!                                   streamer: realign, BTH mark ◄────────────────┘  ◄───┘
//!                                        └─► output register ─► m_axis
//!                                        └─► skid register ──┘  (a beat that found it held)
//! ```
//!
//! A frame is forwarded only once it is whole in the data FIFO, so every drop takes the
//! frame whole and nothing of it reaches `m_axis`. Drop reasons, by priority:
//! 1 longer than `max_frame_bytes` (beats past the maximum are not stored), 2 malformed
//! `tkeep` (a non-last beat not all ones, or a last beat not low-justified and
//! non-empty), 3 shorter than the inner headers (54 bytes: Ethernet, IPv4, UDP, BTH),
//! 4 not IPv4 (EtherType or version), 5 flow-table miss. Each has its own counter.
//!
//! The outer header is 50 bytes: Ethernet (next-hop MAC from the table, port MAC from
//! CSR), IPv4 (port IP, table IP, DSCP and TTL from CSR, the inner ECN bits copied, DF
//! set, checksum), UDP (sprayed source port, 4789, length, checksum 0), VXLAN (I flag,
//! the table's egress VNI). The inner frame follows unchanged, except that with
//! `cfg_bth_mark` the BTH reserved byte (`Resv8a`, inner byte 46) of a RoCEv2 frame
//! (IHL 5, UDP, port 4791) becomes 0x03; the ICRC masks that byte, so it stays valid.
//! Flags bit 0 of the table value selects the egress port: its MAC and IP, and `tdest`.
//!
//! Realignment: output beat 0 is the header and the first `K - 50` inner bytes; beat j
//! is the last 50 bytes of inner beat j-1 and the first `K - 50` of inner beat j. A
//! frame whose last inner beat holds more than `K - 50` bytes needs one extra output
//! beat; that is the only overhead, so back-to-back frames leave at bus rate less at
//! most one beat per frame.
//!
//! ### Pipeline (timing)
//! Every register-to-register path is at most one carry chain and a LUT or two: the
//! beat's checks (keep count, keep shape, header fields), the frame's length, its drop
//! reason and the header's checksum each take their own stage, and the header stages
//! (H1..H4) never stall: H1 pops the three small FIFOs only while the header FIFO has a
//! free entry for every header in flight (a registered credit count), so no ready
//! signal ripples back from the streamer. The streamer's state (first beat, extra beat,
//! last beat, final beat) is kept as registered flags, so the 1024-bit output mux and
//! the FIFO pops are selected straight from registers.
//!
//! ### Latency
//! * Lookup: `m_lookup_valid`/`m_lookup_key` leave from registers one cycle after the
//!   frame's first beat is accepted (no input-to-output path).
//! * A frame's last beat accepted to its first output beat, output idle and ready:
//!   [`TX_ENCAP_LATENCY`] cycles with the flow table's [`FLOW_TABLE_LATENCY`] (a longer
//!   lookup latency delays only frames shorter than it in beats).
//!
//! ### Timing contract
//! * `s_result_*` answers each `m_lookup_valid` in order, any latency (the answers queue
//!   in a FIFO); [`DESC_DEPTH`] grows with [`FLOW_TABLE_LATENCY`] so that one-beat frames
//!   still pass one per cycle.
//! * At most `DESC_DEPTH` frames are between their first beat and the header stage;
//!   `s_axis_tready` is low at a frame's first beat while that many are in flight.
//! * `s_axis_tready` depends only on registers (and `rst`), never on `s_axis_tvalid`;
//!   `m_axis_tvalid` never waits for `m_axis_tready`. `m_axis_tready` reaches only the
//!   output register and a one-beat skid register; the streamer runs while the skid
//!   register is empty, so with `m_axis_tready` high it adds no cycle.

use crate::flow_table::{FLOW_TABLE_LATENCY, KEY_BITS, VALUE_BITS};
use crate::sprayer::{Sprayer, FLOW_BITS, SPRAYER_LATENCY};
use crate::wiring::{low_ones, ByteSwap, KeepCount, KeepDff};
use rust_hdl::prelude::*;

/// Bytes of outer header (Ethernet 14, IPv4 20, UDP 8, VXLAN 8).
pub const OUTER_BYTES: usize = 50;
/// Smallest inner frame: Ethernet 14, IPv4 20, UDP 8, BTH 12.
pub const MIN_INNER_BYTES: usize = 54;
/// Largest inner frame `max_frame_bytes` may name: frame lengths are 14-bit counts.
pub const MAX_INNER_BYTES: usize = 16383;
/// `tuser` carries `{QP[47:24], VNI[23:0]}`, set by the RNIC, never by the tenant.
pub const TUSER_BITS: usize = 48;

/// Cycles from a frame's first beat to the cycle its lookup answer, port and
/// descriptor are all at the heads of their FIFOs (and H1 may take them), for a
/// one-beat frame: the descriptor takes 4 stages (I1..I4) and the FIFO's 2; the lookup
/// leaves a cycle after the beat and its answer enters a FIFO; so does the sprayer's
/// port.
const fn issue_delay(lookup_latency: usize, spray_latency: usize) -> usize {
    let desc = 4 + 2;
    let lookup = 1 + lookup_latency + 2;
    let spray = 1 + spray_latency + 2;
    let m = if lookup > desc { lookup } else { desc };
    if spray > m {
        spray
    } else {
        m
    }
}

/// Frames in flight between first beat and header stage (depth of the small FIFOs):
/// at least the issue delay plus two, so one-beat frames pass one per cycle whatever
/// the flow table's latency.
pub const DESC_DEPTH: usize = {
    let d = (issue_delay(FLOW_TABLE_LATENCY as usize, SPRAYER_LATENCY as usize) + 2)
        .next_power_of_two();
    if d < 16 {
        16
    } else {
        d
    }
};

/// Entries of the header FIFO between H4 and the streamer: more than the headers the
/// credit loop keeps in flight (H1..H4, the FIFO's 2 stages, the credit's return).
pub const HDR_DEPTH: usize = 16;

/// Cycles from a frame's last input beat accepted to its first output beat, with the
/// block otherwise idle and the lookup answered in time: I1..I4, the descriptor FIFO
/// (2), H1..H4, the header FIFO (2), the streamer's take and the output register.
pub const TX_ENCAP_LATENCY: u32 = 4 + 2 + 4 + 2 + 1 + 1;

pub const REASON_TOO_LONG: u64 = 1;
pub const REASON_BAD_KEEP: u64 = 2;
pub const REASON_SHORT: u64 = 3;
pub const REASON_NOT_IPV4: u64 = 4;
pub const REASON_MISS: u64 = 5;

/// Descriptor, written at a frame's last beat (I4):
/// `{overrun[57], bytes_ecn[56:40], bytes[39:24], last_idx[23:16], keep_shift[15:8],
/// extra[7], markable[6], ecn[5:4], not_ipv4[3], short[2], bad_keep[1],
/// over_max[0]}`; too long is over_max or overrun, and the drop reason is the first
/// check that fails, chosen in H2 with the lookup's miss.
const DESC_BITS: usize = 58;
const RES_BITS: usize = 1 + VALUE_BITS;
/// Header FIFO entry (H4): `{mark[424], dest[423], keep_shift[422:415], extra[414],
/// final0[413], lastin0[412], last_idx[411:404], reason[403:401], drop[400],
/// header in lane order[399:0]}`.
const HDR_BITS: usize = 425;

#[derive(LogicBlock)]
pub struct TxEncap<const D: usize, const K: usize> {
    pub clk: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub s_axis_tdata: Signal<In, Bits<D>>,
    pub s_axis_tkeep: Signal<In, Bits<K>>,
    pub s_axis_tvalid: Signal<In, Bit>,
    pub s_axis_tready: Signal<Out, Bit>,
    pub s_axis_tlast: Signal<In, Bit>,
    pub s_axis_tuser: Signal<In, Bits<TUSER_BITS>>,
    pub m_axis_tdata: Signal<Out, Bits<D>>,
    pub m_axis_tkeep: Signal<Out, Bits<K>>,
    pub m_axis_tvalid: Signal<Out, Bit>,
    pub m_axis_tready: Signal<In, Bit>,
    pub m_axis_tlast: Signal<Out, Bit>,
    pub m_axis_tdest: Signal<Out, Bit>,
    pub m_lookup_valid: Signal<Out, Bit>,
    pub m_lookup_key: Signal<Out, Bits<KEY_BITS>>,
    pub s_result_valid: Signal<In, Bit>,
    pub s_result_hit: Signal<In, Bit>,
    pub s_result_value: Signal<In, Bits<VALUE_BITS>>,
    pub cfg_port0_mac: Signal<In, Bits<48>>,
    pub cfg_port0_ip: Signal<In, Bits<32>>,
    pub cfg_port1_mac: Signal<In, Bits<48>>,
    pub cfg_port1_ip: Signal<In, Bits<32>>,
    pub cfg_dscp: Signal<In, Bits<6>>,
    pub cfg_ttl: Signal<In, Bits<8>>,
    pub cfg_bth_mark: Signal<In, Bit>,
    pub cfg_spray_mode: Signal<In, Bits<2>>,
    pub cfg_spray_min: Signal<In, Bits<16>>,
    pub cfg_spray_max: Signal<In, Bits<16>>,
    pub status_frames: Signal<Out, Bits<32>>,
    pub status_drop_too_long: Signal<Out, Bits<32>>,
    pub status_drop_bad_keep: Signal<Out, Bits<32>>,
    pub status_drop_short: Signal<Out, Bits<32>>,
    pub status_drop_not_ipv4: Signal<Out, Bits<32>>,
    pub status_drop_miss: Signal<Out, Bits<32>>,
    pub status_spray_cfg_error: Signal<Out, Bit>,
    /// An internal FIFO overflowed (a design error; never expected).
    pub status_overflow: Signal<Out, Bit>,

    // ---- Submodules ----
    in_swap: ByteSwap<512>,
    hdr_swap: ByteSwap<400>,
    keep_count: KeepCount<K>,
    spray: Sprayer,
    data_fifo: TxFifo<D>,
    desc_fifo: TxFifo<DESC_BITS>,
    res_fifo: TxFifo<RES_BITS>,
    port_fifo: TxFifo<16>,
    hdr_fifo: TxFifo<HDR_BITS>,

    // ---- Constants ----
    c_max_frame: Constant<Bits<16>>,
    c_max_beats_m1: Constant<Bits<16>>,
    c_min_frame: Constant<Bits<16>>,
    c_s16: Constant<Bits<16>>,
    c_s8: Constant<Bits<8>>,
    c_ks8: Constant<Bits<8>>,
    c_s_shift: Constant<Bits<16>>,
    c_desc_one: Constant<Bits<DESC_DEPTH>>,
    c_desc_top: Constant<Bits<DESC_DEPTH>>,
    c_hdr_one: Constant<Bits<HDR_DEPTH>>,
    c_hdr_top: Constant<Bits<HDR_DEPTH>>,
    c_hdr_fixed: Constant<Bits<400>>,
    c_mark_clear: Constant<Bits<D>>,
    c_mark_set: Constant<Bits<D>>,
    c_ones: Constant<Bits<K>>,
    c_low400: Constant<Bits<D>>,

    // ---- CSR fields: registered on entry, then two aligned copies, so the header's
    // fields and its checksum's per-port sum (two adder stages) come from one CSR
    // snapshot and a CSR write never meets a header built from old and new values. ----
    q1_mac0: DFF<Bits<48>>,
    q1_mac1: DFF<Bits<48>>,
    q1_ip0: DFF<Bits<32>>,
    q1_ip1: DFF<Bits<32>>,
    q1_ttl: DFF<Bits<8>>,
    q1_dscp: DFF<Bits<6>>,
    q2_mac0: DFF<Bits<48>>,
    q2_mac1: DFF<Bits<48>>,
    q2_ip0: DFF<Bits<32>>,
    q2_ip1: DFF<Bits<32>>,
    q2_ttl: DFF<Bits<8>>,
    q2_dscp: DFF<Bits<6>>,
    q3_mac0: DFF<Bits<48>>,
    q3_mac1: DFF<Bits<48>>,
    q3_ip0: DFF<Bits<32>>,
    q3_ip1: DFF<Bits<32>>,
    q3_ttl: DFF<Bits<8>>,
    q3_dscp: DFF<Bits<6>>,
    /// Port IP word sums and `{TTL, DSCP}` plus the constant words, then their total.
    cs_ip0: DFF<Bits<20>>,
    cs_ip1: DFF<Bits<20>>,
    cs_td: DFF<Bits<20>>,
    cfg_sum0: DFF<Bits<20>>,
    cfg_sum1: DFF<Bits<20>>,
    q_bth_mark: DFF<Bit>,
    q_spray_mode: DFF<Bits<2>>,
    q_spray_min: DFF<Bits<16>>,
    q_spray_max: DFF<Bits<16>>,

    // ---- Input port: handshake, frame position, lookup and spray request ----
    in_mid: DFF<Bit>,
    /// Beats of this frame stored so far; `in_nostore`: the maximum is reached, further
    /// beats are accepted and discarded.
    in_beats: DFF<Bits<16>>,
    in_nostore: DFF<Bit>,
    /// Frames between first beat and H1, as a thermometer code (bit i: more than i), so
    /// that counting is a shift and the limit is one register bit, not a carry chain.
    flight: DFF<Bits<DESC_DEPTH>>,
    flight_block: Signal<Local, Bit>,
    lk_valid: DFF<Bit>,
    lk_key: DFF<Bits<KEY_BITS>>,
    spray_req: DFF<Bit>,
    spray_flow: DFF<Bits<FLOW_BITS>>,
    ready: Signal<Local, Bit>,
    ready_nr: Signal<Local, Bit>,
    in_fire: Signal<Local, Bit>,
    first_fire: Signal<Local, Bit>,
    /// The first 64 bytes in network order; only the header fields are read.
    hb_partly_unused: Signal<Local, Bits<512>>,

    // ---- I1: the accepted beat ----
    i1_valid: DFF<Bit>,
    i1_first: DFF<Bit>,
    i1_last: DFF<Bit>,
    i1_stored: DFF<Bit>,
    i1_beats: DFF<Bits<8>>,
    i1_keep: DFF<Bits<K>>,
    i1_etype: DFF<Bits<16>>,
    i1_vihl: DFF<Bits<8>>,
    i1_proto: DFF<Bits<8>>,
    i1_dport: DFF<Bits<16>>,
    i1_ecn: DFF<Bits<2>>,
    keep_gap: Signal<Local, Bits<K>>,
    keep_ok: Signal<Local, Bit>,

    // ---- I2: the beat's byte count and checks ----
    i2_valid: DFF<Bit>,
    i2_first: DFF<Bit>,
    i2_last: DFF<Bit>,
    i2_stored: DFF<Bit>,
    i2_count: DFF<Bits<16>>,
    i2_keep_ok: DFF<Bit>,
    i2_last_idx: DFF<Bits<8>>,
    i2_not_ipv4: DFF<Bit>,
    i2_markable: DFF<Bit>,
    i2_ecn: DFF<Bits<2>>,
    // The frame so far (valid from its second beat on).
    acc_bytes: DFF<Bits<16>>,
    acc_err_keep: DFF<Bit>,
    acc_overrun: DFF<Bit>,
    acc_not_ipv4: DFF<Bit>,
    acc_markable: DFF<Bit>,
    acc_ecn: DFF<Bits<2>>,
    acc_base: Signal<Local, Bits<16>>,
    total: Signal<Local, Bits<16>>,
    fr_err_keep: Signal<Local, Bit>,
    fr_overrun: Signal<Local, Bit>,
    fr_not_ipv4: Signal<Local, Bit>,
    fr_markable: Signal<Local, Bit>,
    fr_ecn: Signal<Local, Bits<2>>,

    // ---- I3: the frame at its last beat ----
    i3_valid: DFF<Bit>,
    i3_total: DFF<Bits<16>>,
    i3_err_keep: DFF<Bit>,
    i3_overrun: DFF<Bit>,
    i3_not_ipv4: DFF<Bit>,
    i3_markable: DFF<Bit>,
    i3_ecn: DFF<Bits<2>>,
    i3_count: DFF<Bits<8>>,
    i3_extra: DFF<Bit>,
    i3_last_idx: DFF<Bits<8>>,
    fr_over_max: Signal<Local, Bit>,
    fr_short: Signal<Local, Bit>,
    fr_keep_base: Signal<Local, Bits<8>>,
    fr_keep_shift: Signal<Local, Bits<8>>,
    fr_bytes_ecn: Signal<Local, Bits<17>>,

    // ---- I4: the descriptor ----
    i4_valid: DFF<Bit>,
    i4_desc: DFF<Bits<DESC_BITS>>,

    // ---- H1: one frame's descriptor, lookup result and port ----
    issue: Signal<Local, Bit>,
    /// Header FIFO entries taken by headers in H1..H4 or in the FIFO (thermometer, like
    /// `flight`); `h_block`: all of them.
    h_used: DFF<Bits<HDR_DEPTH>>,
    h_block: Signal<Local, Bit>,
    h1_valid: DFF<Bit>,
    h1_desc: DFF<Bits<DESC_BITS>>,
    /// `{hit, table value}`; the value's flags other than bit 0 are not read.
    h1_result_partly_unused: DFF<Bits<RES_BITS>>,
    h1_port: DFF<Bits<16>>,
    d_flags: Signal<Local, Bits<4>>,
    d_too_long: Signal<Local, Bit>,
    d_bytes: Signal<Local, Bits<16>>,
    d_last_idx: Signal<Local, Bits<8>>,
    d_extra: Signal<Local, Bit>,
    d_hit: Signal<Local, Bit>,
    d_drop: Signal<Local, Bit>,
    d_reason_final: Signal<Local, Bits<3>>,
    d_egress: Signal<Local, Bit>,
    d_src_mac: Signal<Local, Bits<48>>,
    d_src_ip: Signal<Local, Bits<32>>,
    d_dst_ip: Signal<Local, Bits<32>>,
    d_tos: Signal<Local, Bits<8>>,
    d_ip_len: Signal<Local, Bits<16>>,
    d_udp_len: Signal<Local, Bits<16>>,
    d_cfg_sum: Signal<Local, Bits<20>>,
    d_hdr_be: Signal<Local, Bits<400>>,

    // ---- H2: header fields and the checksum's two partial sums ----
    h2_valid: DFF<Bit>,
    /// Big-endian, checksum 0; byte-swapped into lane order in H4.
    h2_hdr: DFF<Bits<400>>,
    h2_sum_dst: DFF<Bits<20>>,
    h2_sum_rest: DFF<Bits<20>>,
    h2_flags: DFF<Bits<25>>,

    // ---- H3: the header's 16-bit word sum ----
    h3_valid: DFF<Bit>,
    h3_hdr: DFF<Bits<400>>,
    h3_sum: DFF<Bits<20>>,
    h3_flags: DFF<Bits<25>>,
    t_fold0: Signal<Local, Bits<17>>,
    t_fold1: Signal<Local, Bits<16>>,
    t_csum: Signal<Local, Bits<16>>,

    // ---- H4: the header FIFO entry ----
    h4_valid: DFF<Bit>,
    h4_entry: DFF<Bits<HDR_BITS>>,

    // ---- Streamer ----
    take: Signal<Local, Bit>,
    take_c: Signal<Local, Bit>,
    adv: Signal<Local, Bit>,
    /// The skid register is empty: the streamer may produce a beat. Two copies of one
    /// register, so that no net of the streamer's enables reaches a thousand loads.
    room: Signal<Local, Bit>,
    room_c: Signal<Local, Bit>,
    hm: Signal<Local, Bits<HDR_BITS>>,
    cur_valid: DFF<Bit>,
    /// `cur_valid & !cur_final`, kept as its own register (see `take_c`).
    cur_mid: DFF<Bit>,
    cur_drop: DFF<Bit>,
    cur_extra: DFF<Bit>,
    /// The final beat's keep as a shift of all ones, and this beat's keep (all ones
    /// unless it is the final one).
    cur_kshift: DFF<Bits<8>>,
    cur_okeep: DFF<Bits<K>>,
    cur_dest: DFF<Bit>,
    cur_mark: DFF<Bit>,
    /// Inner beats after this one; `cur_last_in`: this is the last inner beat.
    cur_rem: DFF<Bits<8>>,
    cur_last_in: DFF<Bit>,
    /// This output beat is the first / the extra one after the last inner beat / the
    /// frame's final one.
    cur_first: DFF<Bit>,
    cur_in_extra: DFF<Bit>,
    cur_final: DFF<Bit>,
    /// The low 400 bits of the next output beat (see the streamer).
    carry: DFF<Bits<400>>,
    data_pop: Signal<Local, Bit>,
    rem_is_one: Signal<Local, Bit>,
    keep_mask: Signal<Local, Bits<K>>,
    final_mask: Signal<Local, Bits<K>>,
    b_mod: Signal<Local, Bits<D>>,
    shifted: Signal<Local, Bits<D>>,

    // ---- Output register, skid register and counters ----
    /// The output register loads when it is empty or the beat is taken (`m_axis_tready`).
    out_take: Signal<Local, Bit>,
    /// A beat that arrived while the output register was held. The streamer runs on
    /// `!sk_*`, registers, so `m_axis_tready` reaches only the output and skid
    /// registers. `sk_valid` selects the output register's input; the `sk_full*` copies
    /// are the streamer's `room` (`_a`, `_c` for the carry's enable, `_p` for the frame
    /// FIFO's pop) and the skid data's enable (`_s`).
    sk_valid: KeepDff<Bit>,
    sk_full_a: KeepDff<Bit>,
    sk_full_c: KeepDff<Bit>,
    sk_full_s: KeepDff<Bit>,
    sk_full_p: KeepDff<Bit>,
    sk_data: DFF<Bits<D>>,
    sk_keep: DFF<Bits<K>>,
    sk_last: DFF<Bit>,
    sk_dest: DFF<Bit>,
    sk_zero_hi: DFF<Bit>,
    /// The beat the streamer produces this cycle (valid: `adv & !cur_drop`).
    nb_valid: Signal<Local, Bit>,
    nb_data: Signal<Local, Bits<D>>,
    out_valid: DFF<Bit>,
    out_data: DFF<Bits<D>>,
    out_keep: DFF<Bits<K>>,
    out_last: DFF<Bit>,
    out_dest: DFF<Bit>,
    /// The output beat is an extra beat: bytes past the first 50 read as zero.
    out_zero_hi: DFF<Bit>,
    /// A frame taken by the streamer: sent, or dropped for reason 1..5 (counted a cycle
    /// later, so the take logic does not feed the 32-bit adders).
    ev_frames: DFF<Bit>,
    ev_too_long: DFF<Bit>,
    ev_bad_keep: DFF<Bit>,
    ev_short: DFF<Bit>,
    ev_not_ipv4: DFF<Bit>,
    ev_miss: DFF<Bit>,
    cnt_frames: DFF<Bits<32>>,
    cnt_too_long: DFF<Bits<32>>,
    cnt_bad_keep: DFF<Bits<32>>,
    cnt_short: DFF<Bits<32>>,
    cnt_not_ipv4: DFF<Bits<32>>,
    cnt_miss: DFF<Bits<32>>,
    /// `full` of the small FIFOs: they cannot fill (`flight` and `h_used` bound them).
    unused_full: Signal<Local, Bit>,
}

fn byte_at<const N: usize>(value: u64, byte: usize) -> Bits<N> {
    let mut b: Bits<N> = Default::default();
    b.set_bits::<8>(8 * byte, value.into());
    b
}

impl<const D: usize, const K: usize> TxEncap<D, K> {
    /// `max_frame_bytes`: the largest inner frame accepted (config
    /// `packet.max_frame_bytes`); `sprayer_seed`: the per-flow hash seed.
    pub fn new(max_frame_bytes: usize, sprayer_seed: u64) -> Self {
        assert!(
            D == 8 * K && (512..=1024).contains(&D) && K.is_power_of_two(),
            "TxEncap width {D}"
        );
        assert!((MIN_INNER_BYTES..=MAX_INNER_BYTES).contains(&max_frame_bytes));
        let max_beats = max_frame_bytes.div_ceil(K);
        // The beat index of a frame is 8 bits (I1 .. streamer).
        assert!(max_beats <= 256);
        let data_depth = Self::data_fifo_depth(max_frame_bytes);
        let s = K - OUTER_BYTES;
        // The constant bytes of the big-endian outer header (byte 0 at bits 399:392).
        let be = |byte: usize, v: u64| -> Bits<400> { byte_at::<400>(v, 49 - byte) };
        let hdr_fixed = be(12, 0x08)
            | be(14, 0x45)
            | be(20, 0x40)
            | be(23, 17)
            | be(36, 0x12)
            | be(37, 0xb5)
            | be(42, 0x08);
        let mut mark_clear: Bits<D> = Default::default();
        for i in 0..D {
            mark_clear = mark_clear.replace_bit(i, !(368..376).contains(&i));
        }
        let low400: Bits<D> = low_ones(400);
        let ones: Bits<K> = low_ones(K);
        let lit = |v: usize| -> LiteralType { v as LiteralType };
        Self {
            clk: Default::default(),
            rst: Default::default(),
            s_axis_tdata: Default::default(),
            s_axis_tkeep: Default::default(),
            s_axis_tvalid: Default::default(),
            s_axis_tready: Default::default(),
            s_axis_tlast: Default::default(),
            s_axis_tuser: Default::default(),
            m_axis_tdata: Default::default(),
            m_axis_tkeep: Default::default(),
            m_axis_tvalid: Default::default(),
            m_axis_tready: Default::default(),
            m_axis_tlast: Default::default(),
            m_axis_tdest: Default::default(),
            m_lookup_valid: Default::default(),
            m_lookup_key: Default::default(),
            s_result_valid: Default::default(),
            s_result_hit: Default::default(),
            s_result_value: Default::default(),
            cfg_port0_mac: Default::default(),
            cfg_port0_ip: Default::default(),
            cfg_port1_mac: Default::default(),
            cfg_port1_ip: Default::default(),
            cfg_dscp: Default::default(),
            cfg_ttl: Default::default(),
            cfg_bth_mark: Default::default(),
            cfg_spray_mode: Default::default(),
            cfg_spray_min: Default::default(),
            cfg_spray_max: Default::default(),
            status_frames: Default::default(),
            status_drop_too_long: Default::default(),
            status_drop_bad_keep: Default::default(),
            status_drop_short: Default::default(),
            status_drop_not_ipv4: Default::default(),
            status_drop_miss: Default::default(),
            status_spray_cfg_error: Default::default(),
            status_overflow: Default::default(),
            in_swap: Default::default(),
            hdr_swap: Default::default(),
            keep_count: Default::default(),
            spray: Sprayer::new(sprayer_seed),
            data_fifo: TxFifo::new(data_depth),
            desc_fifo: TxFifo::new(DESC_DEPTH),
            res_fifo: TxFifo::new(DESC_DEPTH),
            port_fifo: TxFifo::new(DESC_DEPTH),
            hdr_fifo: TxFifo::new(HDR_DEPTH),
            c_max_frame: Constant::new(lit(max_frame_bytes).into()),
            c_max_beats_m1: Constant::new(lit(max_beats - 1).into()),
            c_min_frame: Constant::new(lit(MIN_INNER_BYTES).into()),
            c_s16: Constant::new(lit(s).into()),
            c_s8: Constant::new(lit(s).into()),
            c_ks8: Constant::new(lit(K + s).into()),
            c_s_shift: Constant::new(lit(8 * s).into()),
            c_desc_one: Constant::new(1u64.into()),
            c_desc_top: Constant::new(
                Bits::<DESC_DEPTH>::default().replace_bit(DESC_DEPTH - 1, true),
            ),
            c_hdr_one: Constant::new(1u64.into()),
            c_hdr_top: Constant::new(Bits::<HDR_DEPTH>::default().replace_bit(HDR_DEPTH - 1, true)),
            c_hdr_fixed: Constant::new(hdr_fixed),
            c_mark_clear: Constant::new(mark_clear),
            c_mark_set: Constant::new(byte_at::<D>(0x03, 46)),
            c_ones: Constant::new(ones),
            c_low400: Constant::new(low400),
            q1_mac0: Default::default(),
            q1_mac1: Default::default(),
            q1_ip0: Default::default(),
            q1_ip1: Default::default(),
            q1_ttl: Default::default(),
            q1_dscp: Default::default(),
            q2_mac0: Default::default(),
            q2_mac1: Default::default(),
            q2_ip0: Default::default(),
            q2_ip1: Default::default(),
            q2_ttl: Default::default(),
            q2_dscp: Default::default(),
            q3_mac0: Default::default(),
            q3_mac1: Default::default(),
            q3_ip0: Default::default(),
            q3_ip1: Default::default(),
            q3_ttl: Default::default(),
            q3_dscp: Default::default(),
            cs_ip0: Default::default(),
            cs_ip1: Default::default(),
            cs_td: Default::default(),
            cfg_sum0: Default::default(),
            cfg_sum1: Default::default(),
            q_bth_mark: Default::default(),
            q_spray_mode: Default::default(),
            q_spray_min: Default::default(),
            q_spray_max: Default::default(),
            in_mid: Default::default(),
            in_beats: Default::default(),
            in_nostore: Default::default(),
            flight: Default::default(),
            flight_block: Default::default(),
            lk_valid: Default::default(),
            lk_key: Default::default(),
            spray_req: Default::default(),
            spray_flow: Default::default(),
            ready: Default::default(),
            ready_nr: Default::default(),
            in_fire: Default::default(),
            first_fire: Default::default(),
            hb_partly_unused: Default::default(),
            i1_valid: Default::default(),
            i1_first: Default::default(),
            i1_last: Default::default(),
            i1_stored: Default::default(),
            i1_beats: Default::default(),
            i1_keep: Default::default(),
            i1_etype: Default::default(),
            i1_vihl: Default::default(),
            i1_proto: Default::default(),
            i1_dport: Default::default(),
            i1_ecn: Default::default(),
            keep_gap: Default::default(),
            keep_ok: Default::default(),
            i2_valid: Default::default(),
            i2_first: Default::default(),
            i2_last: Default::default(),
            i2_stored: Default::default(),
            i2_count: Default::default(),
            i2_keep_ok: Default::default(),
            i2_last_idx: Default::default(),
            i2_not_ipv4: Default::default(),
            i2_markable: Default::default(),
            i2_ecn: Default::default(),
            acc_bytes: Default::default(),
            acc_err_keep: Default::default(),
            acc_overrun: Default::default(),
            acc_not_ipv4: Default::default(),
            acc_markable: Default::default(),
            acc_ecn: Default::default(),
            acc_base: Default::default(),
            total: Default::default(),
            fr_err_keep: Default::default(),
            fr_overrun: Default::default(),
            fr_not_ipv4: Default::default(),
            fr_markable: Default::default(),
            fr_ecn: Default::default(),
            i3_valid: Default::default(),
            i3_total: Default::default(),
            i3_err_keep: Default::default(),
            i3_overrun: Default::default(),
            i3_not_ipv4: Default::default(),
            i3_markable: Default::default(),
            i3_ecn: Default::default(),
            i3_count: Default::default(),
            i3_extra: Default::default(),
            i3_last_idx: Default::default(),
            fr_over_max: Default::default(),
            fr_short: Default::default(),
            fr_keep_base: Default::default(),
            fr_keep_shift: Default::default(),
            fr_bytes_ecn: Default::default(),
            i4_valid: Default::default(),
            i4_desc: Default::default(),
            issue: Default::default(),
            h_used: Default::default(),
            h_block: Default::default(),
            h1_valid: Default::default(),
            h1_desc: Default::default(),
            h1_result_partly_unused: Default::default(),
            h1_port: Default::default(),
            d_flags: Default::default(),
            d_too_long: Default::default(),
            d_bytes: Default::default(),
            d_last_idx: Default::default(),
            d_extra: Default::default(),
            d_hit: Default::default(),
            d_drop: Default::default(),
            d_reason_final: Default::default(),
            d_egress: Default::default(),
            d_src_mac: Default::default(),
            d_src_ip: Default::default(),
            d_dst_ip: Default::default(),
            d_tos: Default::default(),
            d_ip_len: Default::default(),
            d_udp_len: Default::default(),
            d_cfg_sum: Default::default(),
            d_hdr_be: Default::default(),
            h2_valid: Default::default(),
            h2_hdr: Default::default(),
            h2_sum_dst: Default::default(),
            h2_sum_rest: Default::default(),
            h2_flags: Default::default(),
            h3_valid: Default::default(),
            h3_hdr: Default::default(),
            h3_sum: Default::default(),
            h3_flags: Default::default(),
            t_fold0: Default::default(),
            t_fold1: Default::default(),
            t_csum: Default::default(),
            h4_valid: Default::default(),
            h4_entry: Default::default(),
            take: Default::default(),
            take_c: Default::default(),
            adv: Default::default(),
            room: Default::default(),
            room_c: Default::default(),
            hm: Default::default(),
            cur_valid: Default::default(),
            cur_mid: Default::default(),
            cur_drop: Default::default(),
            cur_extra: Default::default(),
            cur_kshift: Default::default(),
            cur_okeep: Default::default(),
            cur_dest: Default::default(),
            cur_mark: Default::default(),
            cur_rem: Default::default(),
            cur_last_in: Default::default(),
            cur_first: Default::default(),
            cur_in_extra: Default::default(),
            cur_final: Default::default(),
            carry: Default::default(),
            data_pop: Default::default(),
            rem_is_one: Default::default(),
            keep_mask: Default::default(),
            final_mask: Default::default(),
            b_mod: Default::default(),
            shifted: Default::default(),
            out_take: Default::default(),
            sk_valid: Default::default(),
            sk_full_a: Default::default(),
            sk_full_c: Default::default(),
            sk_full_s: Default::default(),
            sk_full_p: Default::default(),
            sk_data: Default::default(),
            sk_keep: Default::default(),
            sk_last: Default::default(),
            sk_dest: Default::default(),
            sk_zero_hi: Default::default(),
            nb_valid: Default::default(),
            nb_data: Default::default(),
            out_valid: Default::default(),
            out_data: Default::default(),
            out_keep: Default::default(),
            out_last: Default::default(),
            out_dest: Default::default(),
            out_zero_hi: Default::default(),
            ev_frames: Default::default(),
            ev_too_long: Default::default(),
            ev_bad_keep: Default::default(),
            ev_short: Default::default(),
            ev_not_ipv4: Default::default(),
            ev_miss: Default::default(),
            cnt_frames: Default::default(),
            cnt_too_long: Default::default(),
            cnt_bad_keep: Default::default(),
            cnt_short: Default::default(),
            cnt_not_ipv4: Default::default(),
            cnt_miss: Default::default(),
            unused_full: Default::default(),
        }
    }

    /// RAM bits for `max_frame_bytes`: the frame FIFO, the descriptor, result and port
    /// FIFOs, and the header FIFO.
    pub fn ram_bits(max_frame_bytes: usize) -> usize {
        Self::data_fifo_depth(max_frame_bytes) * D
            + DESC_DEPTH * (DESC_BITS + RES_BITS + 16)
            + HDR_DEPTH * HDR_BITS
    }

    /// Depth of the frame FIFO in beats: twice the longest stored frame, rounded up.
    pub fn data_fifo_depth(max_frame_bytes: usize) -> usize {
        (2 * max_frame_bytes.div_ceil(K))
            .next_power_of_two()
            .max(16)
    }
}

impl<const D: usize, const K: usize> Logic for TxEncap<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clk,
            q1_mac0,
            q1_mac1,
            q1_ip0,
            q1_ip1,
            q1_ttl,
            q1_dscp,
            q2_mac0,
            q2_mac1,
            q2_ip0,
            q2_ip1,
            q2_ttl,
            q2_dscp,
            q3_mac0,
            q3_mac1,
            q3_ip0,
            q3_ip1,
            q3_ttl,
            q3_dscp,
            cs_ip0,
            cs_ip1,
            cs_td,
            cfg_sum0,
            cfg_sum1,
            q_bth_mark,
            q_spray_mode,
            q_spray_min,
            q_spray_max,
            in_mid,
            in_beats,
            in_nostore,
            flight,
            lk_valid,
            lk_key,
            spray_req,
            spray_flow,
            i1_valid,
            i1_first,
            i1_last,
            i1_stored,
            i1_beats,
            i1_keep,
            i1_etype,
            i1_vihl,
            i1_proto,
            i1_dport,
            i1_ecn,
            i2_valid,
            i2_first,
            i2_last,
            i2_stored,
            i2_count,
            i2_keep_ok,
            i2_last_idx,
            i2_not_ipv4,
            i2_markable,
            i2_ecn,
            acc_bytes,
            acc_err_keep,
            acc_overrun,
            acc_not_ipv4,
            acc_markable,
            acc_ecn,
            i3_valid,
            i3_total,
            i3_err_keep,
            i3_overrun,
            i3_not_ipv4,
            i3_markable,
            i3_ecn,
            i3_count,
            i3_extra,
            i3_last_idx,
            i4_valid,
            i4_desc,
            h_used,
            h1_valid,
            h1_desc,
            h1_result_partly_unused,
            h1_port,
            h2_valid,
            h2_hdr,
            h2_sum_dst,
            h2_sum_rest,
            h2_flags,
            h3_valid,
            h3_hdr,
            h3_sum,
            h3_flags,
            h4_valid,
            h4_entry,
            cur_valid,
            cur_mid,
            cur_drop,
            cur_extra,
            cur_kshift,
            cur_okeep,
            cur_dest,
            cur_mark,
            cur_rem,
            cur_last_in,
            cur_first,
            cur_in_extra,
            cur_final,
            carry,
            sk_valid,
            sk_full_a,
            sk_full_c,
            sk_full_s,
            sk_full_p,
            sk_data,
            sk_keep,
            sk_last,
            sk_dest,
            sk_zero_hi,
            out_valid,
            out_data,
            out_keep,
            out_last,
            out_dest,
            out_zero_hi,
            ev_frames,
            ev_too_long,
            ev_bad_keep,
            ev_short,
            ev_not_ipv4,
            ev_miss,
            cnt_frames,
            cnt_too_long,
            cnt_bad_keep,
            cnt_short,
            cnt_not_ipv4,
            cnt_miss
        );
        self.spray.clk.next = self.clk.val();
        self.data_fifo.clk.next = self.clk.val();
        self.desc_fifo.clk.next = self.clk.val();
        self.res_fifo.clk.next = self.clk.val();
        self.port_fifo.clk.next = self.clk.val();
        self.hdr_fifo.clk.next = self.clk.val();
        self.spray.rst.next = self.rst.val();
        self.data_fifo.rst.next = self.rst.val();
        self.desc_fifo.rst.next = self.rst.val();
        self.res_fifo.rst.next = self.rst.val();
        self.port_fifo.rst.next = self.rst.val();
        self.hdr_fifo.rst.next = self.rst.val();

        // Handshakes first: every local is written before it is read. Each is one LUT of
        // registers, so the FIFO pops sit right behind flops; `m_axis_tready` reaches
        // only the output and skid registers.
        self.room.next = !self.sk_full_a.q.val();
        self.room_c.next = !self.sk_full_c.q.val();
        self.adv.next = (self.cur_valid.q.val()
            & (self.cur_in_extra.q.val() | self.data_fifo.m_valid.val())
            & (self.cur_drop.q.val() | self.room.val()));
        self.take.next = (self.hdr_fifo.m_valid.val()
            & (!self.cur_valid.q.val() | (self.adv.val() & self.cur_final.q.val())));
        // The same condition written with `cur_mid` (busy and not at the final beat), so
        // that synthesis builds it apart, for the 400-bit carry select: two nets of a
        // few hundred loads each instead of one of 700.
        self.take_c.next = ((self.hdr_fifo.m_valid.val() & !self.cur_mid.q.val())
            & (!self.cur_valid.q.val()
                | ((self.cur_in_extra.q.val() | self.data_fifo.m_valid.val())
                    & (self.cur_drop.q.val() | self.room_c.val()))));
        self.h_block.next = (self.h_used.q.val() & self.c_hdr_top.val()).any();
        self.issue.next = (self.desc_fifo.m_valid.val()
            & self.res_fifo.m_valid.val()
            & self.port_fifo.m_valid.val()
            & !self.h_block.val());

        // ================= CSR fields ====================================================
        self.q1_mac0.d.next = self.cfg_port0_mac.val();
        self.q1_mac1.d.next = self.cfg_port1_mac.val();
        self.q1_ip0.d.next = self.cfg_port0_ip.val();
        self.q1_ip1.d.next = self.cfg_port1_ip.val();
        self.q1_ttl.d.next = self.cfg_ttl.val();
        self.q1_dscp.d.next = self.cfg_dscp.val();
        self.q2_mac0.d.next = self.q1_mac0.q.val();
        self.q2_mac1.d.next = self.q1_mac1.q.val();
        self.q2_ip0.d.next = self.q1_ip0.q.val();
        self.q2_ip1.d.next = self.q1_ip1.q.val();
        self.q2_ttl.d.next = self.q1_ttl.q.val();
        self.q2_dscp.d.next = self.q1_dscp.q.val();
        self.q3_mac0.d.next = self.q2_mac0.q.val();
        self.q3_mac1.d.next = self.q2_mac1.q.val();
        self.q3_ip0.d.next = self.q2_ip0.q.val();
        self.q3_ip1.d.next = self.q2_ip1.q.val();
        self.q3_ttl.d.next = self.q2_ttl.q.val();
        self.q3_dscp.d.next = self.q2_dscp.q.val();
        // One's-complement sum of the header's 16-bit words that come from CSR: version
        // and IHL with DSCP (0x4500 | DSCP << 2), flags (0x4000), TTL with protocol
        // (TTL << 8 | 17), the 36 of the total length, and the port IP. The constant
        // words total 0x8535; DSCP << 2 and TTL << 8 do not overlap, so they are one word.
        self.cs_ip0.d.next = (bit_cast::<20, 16>(self.q1_ip0.q.val().get_bits::<16>(16))
            + bit_cast::<20, 16>(self.q1_ip0.q.val().get_bits::<16>(0)));
        self.cs_ip1.d.next = (bit_cast::<20, 16>(self.q1_ip1.q.val().get_bits::<16>(16))
            + bit_cast::<20, 16>(self.q1_ip1.q.val().get_bits::<16>(0)));
        self.cs_td.d.next = (((bit_cast::<20, 8>(self.q1_ttl.q.val()) << 8)
            | (bit_cast::<20, 6>(self.q1_dscp.q.val()) << 2))
            + 0x8535);
        self.cfg_sum0.d.next = (self.cs_ip0.q.val() + self.cs_td.q.val());
        self.cfg_sum1.d.next = (self.cs_ip1.q.val() + self.cs_td.q.val());
        self.q_bth_mark.d.next = self.cfg_bth_mark.val();
        self.q_spray_mode.d.next = self.cfg_spray_mode.val();
        self.q_spray_min.d.next = self.cfg_spray_min.val();
        self.q_spray_max.d.next = self.cfg_spray_max.val();

        // ================= Input port ====================================================
        // Beats past the maximum beat count are accepted and discarded (never stored), so
        // a frame that never ends, whatever its tkeep, cannot fill the FIFO and block the
        // frame ahead of it. No beat is taken during reset.
        self.flight_block.next = (self.flight.q.val() & self.c_desc_top.val()).any();
        self.ready_nr.next = ((self.in_mid.q.val() | !self.flight_block.val())
            & (self.in_nostore.q.val() | !self.data_fifo.full.val()));
        self.ready.next = (self.ready_nr.val() & !self.rst.val());
        self.in_fire.next = (self.s_axis_tvalid.val() & self.ready.val());
        self.first_fire.next = (self.in_fire.val() & !self.in_mid.q.val());
        // The data FIFO's write leaves the reset out: during reset the FIFO resets every
        // register a write would touch, so the write changes nothing, and the reset's
        // net (the whole block's) stays off the FIFO's occupancy paths.
        self.data_fifo.s_valid.next =
            ((self.s_axis_tvalid.val() & self.ready_nr.val()) & !self.in_nostore.q.val());
        self.data_fifo.s_data.next = self.s_axis_tdata.val();
        if self.in_fire.val() {
            self.in_mid.d.next = !self.s_axis_tlast.val();
            if self.s_axis_tlast.val() {
                self.in_beats.d.next = 0.into();
                self.in_nostore.d.next = false;
            } else if !self.in_nostore.q.val() {
                self.in_beats.d.next = (self.in_beats.q.val() + 1);
                if (self.in_beats.q.val() == self.c_max_beats_m1.val()) {
                    self.in_nostore.d.next = true;
                }
            }
        }
        // Frames in flight: counted in at the first beat, out when H1 takes them.
        if (self.first_fire.val() & !self.issue.val()) {
            self.flight.d.next = ((self.flight.q.val() << 1) | self.c_desc_one.val());
        }
        if (!self.first_fire.val() & self.issue.val()) {
            self.flight.d.next = (self.flight.q.val() >> 1);
        }

        // Lookup {VNI, inner destination IPv4} and request a port, once per frame, from
        // registers: nothing leaves this block combinationally from the input beat.
        self.in_swap.data_in.next = self.s_axis_tdata.val().get_bits::<512>(0);
        self.hb_partly_unused.next = self.in_swap.data_out.val();
        self.lk_valid.d.next = self.first_fire.val();
        self.lk_key.d.next =
            ((bit_cast::<KEY_BITS, 24>(self.s_axis_tuser.val().get_bits::<24>(0)) << 32)
                | bit_cast::<KEY_BITS, 32>(self.hb_partly_unused.val().get_bits::<32>(240)));
        self.m_lookup_valid.next = self.lk_valid.q.val();
        self.m_lookup_key.next = self.lk_key.q.val();
        self.spray_req.d.next = self.first_fire.val();
        self.spray_flow.d.next =
            ((bit_cast::<FLOW_BITS, 24>(self.s_axis_tuser.val().get_bits::<24>(0)) << 24)
                | bit_cast::<FLOW_BITS, 24>(self.s_axis_tuser.val().get_bits::<24>(24)));
        self.spray.s_req_valid.next = self.spray_req.q.val();
        self.spray.s_req_flow.next = self.spray_flow.q.val();
        self.spray.cfg_mode.next = self.q_spray_mode.q.val();
        self.spray.cfg_port_min.next = self.q_spray_min.q.val();
        self.spray.cfg_port_max.next = self.q_spray_max.q.val();
        self.port_fifo.s_valid.next = self.spray.m_port_valid.val();
        self.port_fifo.s_data.next = self.spray.m_port.val();
        self.res_fifo.s_valid.next = self.s_result_valid.val();
        self.res_fifo.s_data.next = ((bit_cast::<RES_BITS, 1>(self.s_result_hit.val().into())
            << 112)
            | bit_cast::<RES_BITS, VALUE_BITS>(self.s_result_value.val()));

        // ================= I1: the beat, registered as it arrives =========================
        self.i1_valid.d.next = self.in_fire.val();
        self.i1_first.d.next = !self.in_mid.q.val();
        self.i1_last.d.next = self.s_axis_tlast.val();
        self.i1_stored.d.next = !self.in_nostore.q.val();
        self.i1_beats.d.next = self.in_beats.q.val().get_bits::<8>(0);
        self.i1_keep.d.next = self.s_axis_tkeep.val();
        self.i1_etype.d.next = self.hb_partly_unused.val().get_bits::<16>(400);
        self.i1_vihl.d.next = self.hb_partly_unused.val().get_bits::<8>(392);
        self.i1_proto.d.next = self.hb_partly_unused.val().get_bits::<8>(320);
        self.i1_dport.d.next = self.hb_partly_unused.val().get_bits::<16>(208);
        self.i1_ecn.d.next = self.hb_partly_unused.val().get_bits::<2>(384);

        // ================= I1 -> I2: byte count, keep shape, header fields ===============
        self.keep_count.keep.next = self.i1_keep.q.val();
        // Low-justified: no 0 bit with a 1 above it (no carry chain, unlike keep + 1).
        self.keep_gap.next = ((self.i1_keep.q.val() >> 1) & !self.i1_keep.q.val());
        if self.i1_last.q.val() {
            self.keep_ok.next = (!self.keep_gap.val().any() & self.i1_keep.q.val().get_bit(0));
        } else {
            self.keep_ok.next = self.i1_keep.q.val().all();
        }
        self.i2_valid.d.next = self.i1_valid.q.val();
        self.i2_first.d.next = self.i1_first.q.val();
        self.i2_last.d.next = self.i1_last.q.val();
        self.i2_stored.d.next = self.i1_stored.q.val();
        self.i2_count.d.next = self.keep_count.count.val();
        self.i2_keep_ok.d.next = self.keep_ok.val();
        // The last stored beat's index: beats stored before this one, plus this one if
        // it is stored, less one (the first beat is always stored).
        if self.i1_stored.q.val() {
            self.i2_last_idx.d.next = self.i1_beats.q.val();
        } else {
            self.i2_last_idx.d.next = (self.i1_beats.q.val() - 1);
        }
        self.i2_not_ipv4.d.next =
            ((self.i1_etype.q.val() != 0x0800) | (self.i1_vihl.q.val().get_bits::<4>(4) != 4));
        self.i2_markable.d.next = ((self.i1_vihl.q.val().get_bits::<4>(0) == 5)
            & (self.i1_proto.q.val() == 17)
            & (self.i1_dport.q.val() == 4791));
        self.i2_ecn.d.next = self.i1_ecn.q.val();

        // ================= I2 -> I3: the frame so far =====================================
        if self.i2_first.q.val() {
            self.acc_base.next = 0.into();
            self.fr_err_keep.next = !self.i2_keep_ok.q.val();
            self.fr_overrun.next = !self.i2_stored.q.val();
            self.fr_not_ipv4.next = self.i2_not_ipv4.q.val();
            self.fr_markable.next = self.i2_markable.q.val();
            self.fr_ecn.next = self.i2_ecn.q.val();
        } else {
            self.acc_base.next = self.acc_bytes.q.val();
            self.fr_err_keep.next = (self.acc_err_keep.q.val() | !self.i2_keep_ok.q.val());
            self.fr_overrun.next = (self.acc_overrun.q.val() | !self.i2_stored.q.val());
            self.fr_not_ipv4.next = self.acc_not_ipv4.q.val();
            self.fr_markable.next = self.acc_markable.q.val();
            self.fr_ecn.next = self.acc_ecn.q.val();
        }
        // The byte count does not saturate: once past the maximum the frame is too long
        // whatever follows, and a count that could wrap needs more beats than are stored,
        // which marks the frame too long by its overrun.
        self.total.next = (self.acc_base.val() + self.i2_count.q.val());
        if self.i2_valid.q.val() {
            self.acc_bytes.d.next = self.total.val();
            self.acc_err_keep.d.next = self.fr_err_keep.val();
            self.acc_overrun.d.next = self.fr_overrun.val();
            self.acc_not_ipv4.d.next = self.fr_not_ipv4.val();
            self.acc_markable.d.next = self.fr_markable.val();
            self.acc_ecn.d.next = self.fr_ecn.val();
        }
        self.i3_valid.d.next = (self.i2_valid.q.val() & self.i2_last.q.val());
        self.i3_total.d.next = self.total.val();
        self.i3_err_keep.d.next = self.fr_err_keep.val();
        self.i3_overrun.d.next = self.fr_overrun.val();
        self.i3_not_ipv4.d.next = self.fr_not_ipv4.val();
        self.i3_markable.d.next = self.fr_markable.val();
        self.i3_ecn.d.next = self.fr_ecn.val();
        self.i3_count.d.next = self.i2_count.q.val().get_bits::<8>(0);
        // The last inner beat's bytes no longer fit beside the header: one more beat.
        self.i3_extra.d.next = (self.i2_count.q.val() > self.c_s16.val());
        self.i3_last_idx.d.next = self.i2_last_idx.q.val();

        // ================= I3 -> I4: the descriptor =======================================
        // Each drop check is a flag; their priority is applied in H2, beside the miss.
        self.fr_over_max.next = (self.i3_total.q.val() > self.c_max_frame.val());
        self.fr_short.next = (self.i3_total.q.val() < self.c_min_frame.val());
        // The last output beat carries c + 50 bytes (c - (K - 50) with the extra beat),
        // c the last inner beat's bytes; its keep is all ones shifted right by K less
        // that: (K - 50) - c, or (2K - 50) - c. Valid for every frame that is sent.
        if self.i3_extra.q.val() {
            self.fr_keep_base.next = self.c_ks8.val();
        } else {
            self.fr_keep_base.next = self.c_s8.val();
        }
        self.fr_keep_shift.next = (self.fr_keep_base.val() - self.i3_count.q.val());
        // The frame's part of the checksum: the byte count and the ECN bits of the TOS.
        self.fr_bytes_ecn.next =
            (bit_cast::<17, 16>(self.i3_total.q.val()) + bit_cast::<17, 2>(self.i3_ecn.q.val()));
        self.i4_valid.d.next = self.i3_valid.q.val();
        self.i4_desc.d.next = ((bit_cast::<DESC_BITS, 1>(self.i3_overrun.q.val().into()) << 57)
            | (bit_cast::<DESC_BITS, 17>(self.fr_bytes_ecn.val()) << 40)
            | (bit_cast::<DESC_BITS, 16>(self.i3_total.q.val()) << 24)
            | (bit_cast::<DESC_BITS, 8>(self.i3_last_idx.q.val()) << 16)
            | (bit_cast::<DESC_BITS, 8>(self.fr_keep_shift.val()) << 8)
            | (bit_cast::<DESC_BITS, 1>(self.i3_extra.q.val().into()) << 7)
            | (bit_cast::<DESC_BITS, 1>(self.i3_markable.q.val().into()) << 6)
            | (bit_cast::<DESC_BITS, 2>(self.i3_ecn.q.val()) << 4)
            | (bit_cast::<DESC_BITS, 1>(self.i3_not_ipv4.q.val().into()) << 3)
            | (bit_cast::<DESC_BITS, 1>(self.fr_short.val().into()) << 2)
            | (bit_cast::<DESC_BITS, 1>(self.i3_err_keep.q.val().into()) << 1)
            | bit_cast::<DESC_BITS, 1>(self.fr_over_max.val().into()));
        self.desc_fifo.s_valid.next = self.i4_valid.q.val();
        self.desc_fifo.s_data.next = self.i4_desc.q.val();

        // ================= H1: pop one frame's descriptor, result and port ===============
        // Only while the header FIFO has room for this header besides those in H1..H4 and
        // in it; the count and its flag are registers, like `flight`.
        self.desc_fifo.m_pop.next = self.issue.val();
        self.res_fifo.m_pop.next = self.issue.val();
        self.port_fifo.m_pop.next = self.issue.val();
        if (self.issue.val() & !self.take.val()) {
            self.h_used.d.next = ((self.h_used.q.val() << 1) | self.c_hdr_one.val());
        }
        if (!self.issue.val() & self.take.val()) {
            self.h_used.d.next = (self.h_used.q.val() >> 1);
        }
        // Frames in flight are counted out here (see `flight` above).
        self.h1_valid.d.next = self.issue.val();
        self.h1_desc.d.next = self.desc_fifo.m_data.val();
        self.h1_result_partly_unused.d.next = self.res_fifo.m_data.val();
        self.h1_port.d.next = self.port_fifo.m_data.val();

        // ================= H1 -> H2: header fields, partial checksum sums ================
        self.d_flags.next = self.h1_desc.q.val().get_bits::<4>(0);
        self.d_extra.next = self.h1_desc.q.val().get_bit(7);
        self.d_last_idx.next = self.h1_desc.q.val().get_bits::<8>(16);
        self.d_bytes.next = self.h1_desc.q.val().get_bits::<16>(24);
        self.d_hit.next = self.h1_result_partly_unused.q.val().get_bit(112);
        self.d_too_long.next = (self.d_flags.val().get_bit(0) | self.h1_desc.q.val().get_bit(57));
        self.d_drop.next = ((self.d_flags.val().any() | self.d_too_long.val()) | !self.d_hit.val());
        // Drop reasons by priority: too long, bad tkeep, short, not IPv4, miss.
        if self.d_too_long.val() {
            self.d_reason_final.next = 1.into();
        } else if self.d_flags.val().get_bit(1) {
            self.d_reason_final.next = 2.into();
        } else if self.d_flags.val().get_bit(2) {
            self.d_reason_final.next = 3.into();
        } else if self.d_flags.val().get_bit(3) {
            self.d_reason_final.next = 4.into();
        } else if !self.d_hit.val() {
            self.d_reason_final.next = 5.into();
        } else {
            self.d_reason_final.next = 0.into();
        }
        // Table value: {underlay IPv4[111:80], next-hop MAC[79:32], VNI[31:8], flags[7:0]}.
        self.d_egress.next = self.h1_result_partly_unused.q.val().get_bit(0);
        if self.d_egress.val() {
            self.d_src_mac.next = self.q3_mac1.q.val();
            self.d_src_ip.next = self.q3_ip1.q.val();
            self.d_cfg_sum.next = self.cfg_sum1.q.val();
        } else {
            self.d_src_mac.next = self.q3_mac0.q.val();
            self.d_src_ip.next = self.q3_ip0.q.val();
            self.d_cfg_sum.next = self.cfg_sum0.q.val();
        }
        self.d_dst_ip.next = self.h1_result_partly_unused.q.val().get_bits::<32>(80);
        self.d_tos.next = ((bit_cast::<8, 6>(self.q3_dscp.q.val()) << 2)
            | bit_cast::<8, 2>(self.h1_desc.q.val().get_bits::<2>(4)));
        self.d_ip_len.next = (self.d_bytes.val() + 36);
        self.d_udp_len.next = (self.d_bytes.val() + 16);
        // Big-endian header: byte 0 at bits 399:392.
        self.d_hdr_be.next = (self.c_hdr_fixed.val()
            | (bit_cast::<400, 48>(self.h1_result_partly_unused.q.val().get_bits::<48>(32))
                << 352)
            | (bit_cast::<400, 48>(self.d_src_mac.val()) << 304)
            | (bit_cast::<400, 8>(self.d_tos.val()) << 272)
            | (bit_cast::<400, 16>(self.d_ip_len.val()) << 256)
            | (bit_cast::<400, 8>(self.q3_ttl.q.val()) << 216)
            | (bit_cast::<400, 32>(self.d_src_ip.val()) << 160)
            | (bit_cast::<400, 32>(self.d_dst_ip.val()) << 128)
            | (bit_cast::<400, 16>(self.h1_port.q.val()) << 112)
            | (bit_cast::<400, 16>(self.d_udp_len.val()) << 80)
            | (bit_cast::<400, 24>(self.h1_result_partly_unused.q.val().get_bits::<24>(8)) << 8));
        self.h2_valid.d.next = self.h1_valid.q.val();
        self.h2_hdr.d.next = self.d_hdr_be.val();
        // The header's word sum (ID and checksum 0) in two halves: the table's underlay
        // IP, and the CSR part with the frame's byte count and ECN. Each is one adder.
        self.h2_sum_dst.d.next = (bit_cast::<20, 16>(self.d_dst_ip.val().get_bits::<16>(16))
            + bit_cast::<20, 16>(self.d_dst_ip.val().get_bits::<16>(0)));
        self.h2_sum_rest.d.next =
            (self.d_cfg_sum.val() + bit_cast::<20, 17>(self.h1_desc.q.val().get_bits::<17>(40)));
        // The streamer's fields, laid out as in the header FIFO entry above bit 400:
        // {mark, dest, keep_shift, extra, final0, lastin0, last_idx, reason, drop}.
        // An extra beat only for a frame that is sent; a one-beat frame's first beat is
        // its last inner beat, and its final one unless an extra beat follows.
        self.h2_flags.d.next = ((bit_cast::<25, 1>(
            (self.h1_desc.q.val().get_bit(6) & self.q_bth_mark.q.val()).into(),
        ) << 24)
            | (bit_cast::<25, 1>(self.d_egress.val().into()) << 23)
            | (bit_cast::<25, 8>(self.h1_desc.q.val().get_bits::<8>(8)) << 15)
            | (bit_cast::<25, 1>((self.d_extra.val() & !self.d_drop.val()).into()) << 14)
            | (bit_cast::<25, 1>(
                ((self.d_last_idx.val() == 0) & !(self.d_extra.val() & !self.d_drop.val())).into(),
            ) << 13)
            | (bit_cast::<25, 1>((self.d_last_idx.val() == 0).into()) << 12)
            | (bit_cast::<25, 8>(self.d_last_idx.val()) << 4)
            | (bit_cast::<25, 3>(self.d_reason_final.val()) << 1)
            | bit_cast::<25, 1>(self.d_drop.val().into()));

        // ================= H2 -> H3: the word sum =========================================
        self.h3_valid.d.next = self.h2_valid.q.val();
        self.h3_hdr.d.next = self.h2_hdr.q.val();
        self.h3_sum.d.next = (self.h2_sum_dst.q.val() + self.h2_sum_rest.q.val());
        self.h3_flags.d.next = self.h2_flags.q.val();

        // ================= H3 -> H4: checksum, lane order, FIFO entry =====================
        // End-around carry of a sum below 2^19: lo + hi, plus one if that carries out;
        // both sums are formed at once and the carry chooses (then the complement).
        self.t_fold0.next = (bit_cast::<17, 16>(self.h3_sum.q.val().get_bits::<16>(0))
            + bit_cast::<17, 4>(self.h3_sum.q.val().get_bits::<4>(16)));
        // lo - !hi = lo + hi + 1 (mod 2^16): one carry chain, not two adders.
        self.t_fold1.next = (self.h3_sum.q.val().get_bits::<16>(0)
            - !bit_cast::<16, 4>(self.h3_sum.q.val().get_bits::<4>(16)));
        if self.t_fold0.val().get_bit(16) {
            self.t_csum.next = !self.t_fold1.val();
        } else {
            self.t_csum.next = !self.t_fold0.val().get_bits::<16>(0);
        }
        self.hdr_swap.data_in.next =
            (self.h3_hdr.q.val() | (bit_cast::<400, 16>(self.t_csum.val()) << 192));
        self.h4_valid.d.next = self.h3_valid.q.val();
        self.h4_entry.d.next = ((bit_cast::<HDR_BITS, 25>(self.h3_flags.q.val()) << 400)
            | bit_cast::<HDR_BITS, 400>(self.hdr_swap.data_out.val()));
        self.hdr_fifo.s_valid.next = self.h4_valid.q.val();
        self.hdr_fifo.s_data.next = self.h4_entry.q.val();

        // ================= Streamer: realign and emit ====================================
        self.hm.next = self.hdr_fifo.m_data.val();
        self.hdr_fifo.m_pop.next = self.take.val();
        // `adv` with the extra beat left out, written from the registers themselves so
        // that the pop is one LUT in front of the FIFO.
        self.data_pop.next = (self.cur_valid.q.val()
            & !self.cur_in_extra.q.val()
            & self.data_fifo.m_valid.val()
            & (self.cur_drop.q.val() | !self.sk_full_p.q.val()));
        self.data_fifo.m_pop.next = self.data_pop.val();

        if (self.cur_first.q.val() & self.cur_mark.q.val()) {
            self.b_mod.next =
                ((self.data_fifo.m_data.val() & self.c_mark_clear.val()) | self.c_mark_set.val());
        } else {
            self.b_mod.next = self.data_fifo.m_data.val();
        }
        self.shifted.next = (self.b_mod.val() << 400);
        // The low 400 bits of every output beat come from `carry`: the header, loaded at
        // the take, for a frame's first beat; then the last 50 bytes of the inner beat
        // before. So no output bit needs a select: the output register loads flops.
        if self.take_c.val() {
            self.carry.d.next = self.hm.val().get_bits::<400>(0);
        } else if self.data_pop.val() {
            self.carry.d.next = bit_cast::<400, D>(self.b_mod.val() >> self.c_s_shift.val());
        }

        self.rem_is_one.next = (self.cur_rem.q.val() == 1);
        self.keep_mask.next =
            (self.c_ones.val() >> bit_cast::<16, 8>(self.hm.val().get_bits::<8>(415)));
        self.final_mask.next = (self.c_ones.val() >> bit_cast::<16, 8>(self.cur_kshift.q.val()));
        if self.take.val() {
            self.cur_valid.d.next = true;
            self.cur_mid.d.next = !self.hm.val().get_bit(413);
            self.cur_drop.d.next = self.hm.val().get_bit(400);
            self.cur_rem.d.next = self.hm.val().get_bits::<8>(404);
            self.cur_last_in.d.next = self.hm.val().get_bit(412);
            self.cur_final.d.next = self.hm.val().get_bit(413);
            self.cur_extra.d.next = self.hm.val().get_bit(414);
            self.cur_kshift.d.next = self.hm.val().get_bits::<8>(415);
            if self.hm.val().get_bit(413) {
                self.cur_okeep.d.next = self.keep_mask.val();
            } else {
                self.cur_okeep.d.next = self.c_ones.val();
            }
            self.cur_dest.d.next = self.hm.val().get_bit(423);
            self.cur_mark.d.next = self.hm.val().get_bit(424);
            self.cur_first.d.next = true;
            self.cur_in_extra.d.next = false;
        } else if self.adv.val() {
            self.cur_first.d.next = false;
            self.cur_rem.d.next = (self.cur_rem.q.val() - 1);
            if self.cur_final.q.val() {
                self.cur_valid.d.next = false;
                self.cur_mid.d.next = false;
                self.cur_in_extra.d.next = false;
            } else if self.cur_last_in.q.val() {
                // Only a frame with an extra beat is not final at its last inner beat.
                self.cur_in_extra.d.next = true;
                self.cur_last_in.d.next = false;
                self.cur_final.d.next = true;
                self.cur_mid.d.next = false;
                self.cur_okeep.d.next = self.final_mask.val();
            } else {
                self.cur_last_in.d.next = self.rem_is_one.val();
                self.cur_final.d.next = (self.rem_is_one.val() & !self.cur_extra.q.val());
                self.cur_mid.d.next = !(self.rem_is_one.val() & !self.cur_extra.q.val());
                if (self.rem_is_one.val() & !self.cur_extra.q.val()) {
                    self.cur_okeep.d.next = self.final_mask.val();
                }
            }
        }

        // Counted a cycle after the take, by the taken frame's outcome.
        self.ev_frames.d.next = (self.take.val() & !self.hm.val().get_bit(400));
        self.ev_too_long.d.next = (self.take.val()
            & self.hm.val().get_bit(400)
            & (self.hm.val().get_bits::<3>(401) == 1));
        self.ev_bad_keep.d.next = (self.take.val()
            & self.hm.val().get_bit(400)
            & (self.hm.val().get_bits::<3>(401) == 2));
        self.ev_short.d.next = (self.take.val()
            & self.hm.val().get_bit(400)
            & (self.hm.val().get_bits::<3>(401) == 3));
        self.ev_not_ipv4.d.next = (self.take.val()
            & self.hm.val().get_bit(400)
            & (self.hm.val().get_bits::<3>(401) == 4));
        self.ev_miss.d.next = (self.take.val()
            & self.hm.val().get_bit(400)
            & (self.hm.val().get_bits::<3>(401) == 5));
        if self.ev_frames.q.val() {
            self.cnt_frames.d.next = (self.cnt_frames.q.val() + 1);
        }
        if self.ev_too_long.q.val() {
            self.cnt_too_long.d.next = (self.cnt_too_long.q.val() + 1);
        }
        if self.ev_bad_keep.q.val() {
            self.cnt_bad_keep.d.next = (self.cnt_bad_keep.q.val() + 1);
        }
        if self.ev_short.q.val() {
            self.cnt_short.d.next = (self.cnt_short.q.val() + 1);
        }
        if self.ev_not_ipv4.q.val() {
            self.cnt_not_ipv4.d.next = (self.cnt_not_ipv4.q.val() + 1);
        }
        if self.ev_miss.q.val() {
            self.cnt_miss.d.next = (self.cnt_miss.q.val() + 1);
        }

        // The output beat: the header and the first K - 50 bytes; then the last 50 bytes
        // of the previous inner beat and the first K - 50 of this one; then the extra
        // beat, whose bytes past the carry are zeroed at the port (`out_zero_hi`) rather
        // than here, where a zero would need the enable and a reset LUT in series on
        // 624 flops.
        self.nb_valid.next = (self.adv.val() & !self.cur_drop.q.val());
        self.nb_data.next = (bit_cast::<D, 400>(self.carry.q.val()) | self.shifted.val());
        // The skid register loads every cycle it is empty (its enable is a register) and
        // counts as full when the beat it loaded found the output register held.
        self.out_take.next = (!self.out_valid.q.val() | self.m_axis_tready.val());
        if !self.sk_full_s.q.val() {
            self.sk_data.d.next = self.nb_data.val();
            self.sk_keep.d.next = self.cur_okeep.q.val();
            self.sk_last.d.next = self.cur_final.q.val();
            self.sk_dest.d.next = self.cur_dest.q.val();
            self.sk_zero_hi.d.next = self.cur_in_extra.q.val();
        }
        if self.out_take.val() {
            if self.sk_valid.q.val() {
                self.out_valid.d.next = true;
                self.out_dest.d.next = self.sk_dest.q.val();
                self.out_last.d.next = self.sk_last.q.val();
                self.out_zero_hi.d.next = self.sk_zero_hi.q.val();
                self.out_data.d.next = self.sk_data.q.val();
                self.out_keep.d.next = self.sk_keep.q.val();
            } else {
                self.out_valid.d.next = self.nb_valid.val();
                self.out_dest.d.next = self.cur_dest.q.val();
                self.out_last.d.next = self.cur_final.q.val();
                self.out_zero_hi.d.next = self.cur_in_extra.q.val();
                self.out_data.d.next = self.nb_data.val();
                self.out_keep.d.next = self.cur_okeep.q.val();
            }
            self.sk_valid.d.next = false;
            self.sk_full_a.d.next = false;
            self.sk_full_c.d.next = false;
            self.sk_full_s.d.next = false;
            self.sk_full_p.d.next = false;
        } else if self.nb_valid.val() {
            self.sk_valid.d.next = true;
            self.sk_full_a.d.next = true;
            self.sk_full_c.d.next = true;
            self.sk_full_s.d.next = true;
            self.sk_full_p.d.next = true;
        }

        if self.rst.val() {
            // `in_fire` is low during reset, so the I1 stage, the lookup and the spray
            // request clear themselves.
            self.in_mid.d.next = false;
            self.in_beats.d.next = 0.into();
            self.in_nostore.d.next = false;
            self.flight.d.next = 0.into();
            self.i2_valid.d.next = false;
            self.i3_valid.d.next = false;
            self.i4_valid.d.next = false;
            self.h_used.d.next = 0.into();
            self.h1_valid.d.next = false;
            self.h2_valid.d.next = false;
            self.h3_valid.d.next = false;
            self.h4_valid.d.next = false;
            // Also keeps the flags' register chain (H2 -> H3 -> H4) out of a shift
            // register: flattened in `prnic_top`, synthesis made one of it, whose write
            // leaves 4 levels where a flip-flop's D has 5 (docs/timing.md).
            self.h3_flags.d.next = 0.into();
            self.cur_valid.d.next = false;
            self.cur_mid.d.next = false;
            self.cur_in_extra.d.next = false;
            self.out_valid.d.next = false;
            self.sk_valid.d.next = false;
            self.sk_full_a.d.next = false;
            self.sk_full_c.d.next = false;
            self.sk_full_s.d.next = false;
            self.sk_full_p.d.next = false;
            self.ev_frames.d.next = false;
            self.ev_too_long.d.next = false;
            self.ev_bad_keep.d.next = false;
            self.ev_short.d.next = false;
            self.ev_not_ipv4.d.next = false;
            self.ev_miss.d.next = false;
            self.cnt_frames.d.next = 0.into();
            self.cnt_too_long.d.next = 0.into();
            self.cnt_bad_keep.d.next = 0.into();
            self.cnt_short.d.next = 0.into();
            self.cnt_not_ipv4.d.next = 0.into();
            self.cnt_miss.d.next = 0.into();
        }

        self.s_axis_tready.next = self.ready.val();
        self.m_axis_tvalid.next = self.out_valid.q.val();
        if self.out_zero_hi.q.val() {
            self.m_axis_tdata.next = (self.out_data.q.val() & self.c_low400.val());
        } else {
            self.m_axis_tdata.next = self.out_data.q.val();
        }
        self.m_axis_tkeep.next = self.out_keep.q.val();
        self.m_axis_tlast.next = self.out_last.q.val();
        self.m_axis_tdest.next = self.out_dest.q.val();
        self.status_frames.next = self.cnt_frames.q.val();
        self.status_drop_too_long.next = self.cnt_too_long.q.val();
        self.status_drop_bad_keep.next = self.cnt_bad_keep.q.val();
        self.status_drop_short.next = self.cnt_short.q.val();
        self.status_drop_not_ipv4.next = self.cnt_not_ipv4.q.val();
        self.status_drop_miss.next = self.cnt_miss.q.val();
        self.status_spray_cfg_error.next = self.spray.status_cfg_error.val();
        self.unused_full.next = (self.desc_fifo.full.val()
            | self.res_fifo.full.val()
            | self.port_fifo.full.val()
            | self.hdr_fifo.full.val());
        self.status_overflow.next = (self.data_fifo.status_overflow.val()
            | self.desc_fifo.status_overflow.val()
            | self.res_fifo.status_overflow.val()
            | self.port_fifo.status_overflow.val()
            | self.hdr_fifo.status_overflow.val());
    }
}

/// Pointer width of [`TxFifo`]: depths up to 2048 (pointers count modulo twice the depth).
const PTR_BITS: usize = 12;

/// `TxFifo`: a first-word-fall-through FIFO with the ports of [`crate::fifo::Fifo`]
/// whose head entry is the RAM's own read register, and whose control has no carry
/// chain and no wide net in series with another.
///
/// ```text
///  s_valid/s_data ─► RAM ─► read register (head) ─► m_valid/m_data
///                    (wr)   (loads at rd when empty or popped)   m_pop
/// ```
///
/// Why not `Fifo`: its occupancy counts put a 17-bit increment/decrement behind every
/// push and pop (5.5 logic levels), and its two read stages chain the read latch's
/// enable behind the output register's, a net that fans out to every data bit: behind
/// a pop that is itself a wide net (the streamer's carry loads on it), that is three
/// wide nets in one path. Here the occupancy is read from two pointers that count
/// modulo twice the depth, each kept beside its successor (so an increment goes from
/// register to register); "the RAM holds an unread entry" and "the RAM is full" are
/// registered from equality compares of those pointers, chosen by push and take. The
/// head's valid flag is kept twice (`b_valid`, `b_valid2`, each updated from its own
/// output, so synthesis does not merge them), so the RAM read (`take`) is computed
/// beside the read register's enable, not behind it.
///
/// A block RAM's read register has no DO_REG behind it here: what follows `m_data` in
/// `tx_encap` is at most one LUT (the 3-level budget after a block-RAM read).
///
/// ### Ports
/// * `s_valid`, `s_data`: write one entry (a write when full is dropped and sets
///   `status_overflow`). `full` is registered: the RAM holds `depth` entries (the head
///   is one more).
/// * `m_valid`, `m_data`, `m_pop`: the head entry; `m_pop` without `m_valid` is ignored.
/// * `rst`: synchronous; empties the FIFO (the RAM contents are not cleared). The
///   all-zero power-up state is empty too (successor pointers are stored with bit 0
///   inverted).
///
/// Latency: an entry written on one edge is at `m_data` after the next edge when the
/// FIFO was empty (RAM write, read register). One entry per cycle in and out.
#[derive(LogicBlock)]
pub struct TxFifo<const N: usize> {
    pub clk: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub s_valid: Signal<In, Bit>,
    pub s_data: Signal<In, Bits<N>>,
    pub m_valid: Signal<Out, Bit>,
    pub m_data: Signal<Out, Bits<N>>,
    pub m_pop: Signal<In, Bit>,
    pub full: Signal<Out, Bit>,
    pub status_overflow: Signal<Out, Bit>,
    ram: EnRam<Bits<N>>,
    c_ptr_mask: Constant<Bits<PTR_BITS>>,
    c_addr_mask: Constant<Bits<PTR_BITS>>,
    /// The depth: the bit by which a full RAM's write and read pointers differ.
    c_wrap: Constant<Bits<PTR_BITS>>,
    c_one: Constant<Bits<PTR_BITS>>,
    /// Entries written; entries read into the head register. `*_nx`: the pointer plus
    /// one, with bit 0 inverted.
    wr: DFF<Bits<PTR_BITS>>,
    wr_nx: DFF<Bits<PTR_BITS>>,
    rd: DFF<Bits<PTR_BITS>>,
    rd_nx: DFF<Bits<PTR_BITS>>,
    ram_nonempty: DFF<Bit>,
    at_full: DFF<Bit>,
    b_valid: DFF<Bit>,
    b_valid2: DFF<Bit>,
    overflow: DFF<Bit>,
    wr_n: Signal<Local, Bits<PTR_BITS>>,
    rd_n: Signal<Local, Bits<PTR_BITS>>,
    pop: Signal<Local, Bit>,
    pop2: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    load_b: Signal<Local, Bit>,
    load_b2: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    ne_same: Signal<Local, Bit>,
    ne_push: Signal<Local, Bit>,
    ne_take: Signal<Local, Bit>,
    full_same: Signal<Local, Bit>,
    full_push: Signal<Local, Bit>,
    full_take: Signal<Local, Bit>,
}

impl<const N: usize> TxFifo<N> {
    /// `depth`: RAM entries, a power of two, 4..=2048 (the head register holds one more).
    pub fn new(depth: usize) -> Self {
        assert!(
            depth.is_power_of_two() && (4..=(1 << (PTR_BITS - 1))).contains(&depth),
            "TxFifo depth {depth}"
        );
        let lit = |v: usize| -> LiteralType { v as LiteralType };
        Self {
            clk: Default::default(),
            rst: Default::default(),
            s_valid: Default::default(),
            s_data: Default::default(),
            m_valid: Default::default(),
            m_data: Default::default(),
            m_pop: Default::default(),
            full: Default::default(),
            status_overflow: Default::default(),
            ram: EnRam::new(depth),
            c_ptr_mask: Constant::new(lit(2 * depth - 1).into()),
            c_addr_mask: Constant::new(lit(depth - 1).into()),
            c_wrap: Constant::new(lit(depth).into()),
            c_one: Constant::new(1u64.into()),
            wr: Default::default(),
            wr_nx: Default::default(),
            rd: Default::default(),
            rd_nx: Default::default(),
            ram_nonempty: Default::default(),
            at_full: Default::default(),
            b_valid: Default::default(),
            b_valid2: Default::default(),
            overflow: Default::default(),
            wr_n: Default::default(),
            rd_n: Default::default(),
            pop: Default::default(),
            pop2: Default::default(),
            push: Default::default(),
            load_b: Default::default(),
            load_b2: Default::default(),
            take: Default::default(),
            ne_same: Default::default(),
            ne_push: Default::default(),
            ne_take: Default::default(),
            full_same: Default::default(),
            full_push: Default::default(),
            full_take: Default::default(),
        }
    }
}

impl<const N: usize> Logic for TxFifo<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clk,
            wr,
            wr_nx,
            rd,
            rd_nx,
            ram_nonempty,
            at_full,
            b_valid,
            b_valid2,
            overflow
        );
        self.ram.clk.next = self.clk.val();
        self.wr_n.next = (self.wr_nx.q.val() ^ self.c_one.val());
        self.rd_n.next = (self.rd_nx.q.val() ^ self.c_one.val());

        // The head loads when it is empty or popped; it takes a RAM entry if there is
        // one. `take` comes from the copy `b_valid2`, so it is not built from `load_b`,
        // whose net reaches every bit of the head register.
        self.pop.next = (self.m_pop.val() & self.b_valid.q.val());
        self.pop2.next = (self.m_pop.val() & self.b_valid2.q.val());
        self.push.next = (self.s_valid.val() & !self.at_full.q.val());
        self.load_b.next = (self.pop.val() | !self.b_valid.q.val());
        self.load_b2.next = (self.pop2.val() | !self.b_valid2.q.val());
        self.take.next = (self.load_b2.val() & self.ram_nonempty.q.val());
        self.ram.read_address.next =
            bit_cast::<16, PTR_BITS>(self.rd.q.val() & self.c_addr_mask.val());
        self.ram.read_enable.next = self.load_b.val();
        if self.load_b.val() {
            self.b_valid.d.next = self.ram_nonempty.q.val();
        }
        if self.load_b2.val() {
            self.b_valid2.d.next = self.ram_nonempty.q.val();
        }
        if self.push.val() {
            self.wr.d.next = self.wr_n.val();
            self.wr_nx.d.next =
                (((self.wr_n.val() + 1) & self.c_ptr_mask.val()) ^ self.c_one.val());
        }
        if self.take.val() {
            self.rd.d.next = self.rd_n.val();
            self.rd_nx.d.next =
                (((self.rd_n.val() + 1) & self.c_ptr_mask.val()) ^ self.c_one.val());
        }
        // Next "the RAM holds an unread entry" (write pointer ahead of read pointer) and
        // next "full" (write pointer a whole depth ahead), for each move; a push and a
        // take together leave the difference as it is.
        self.ne_same.next = (self.wr.q.val() != self.rd.q.val());
        self.ne_push.next = (self.wr_n.val() != self.rd.q.val());
        self.ne_take.next = (self.wr.q.val() != self.rd_n.val());
        self.full_same.next = (self.wr.q.val() == (self.rd.q.val() ^ self.c_wrap.val()));
        self.full_push.next = (self.wr_n.val() == (self.rd.q.val() ^ self.c_wrap.val()));
        self.full_take.next = (self.wr.q.val() == (self.rd_n.val() ^ self.c_wrap.val()));
        if (self.push.val() & !self.take.val()) {
            self.ram_nonempty.d.next = self.ne_push.val();
            self.at_full.d.next = self.full_push.val();
        } else if (!self.push.val() & self.take.val()) {
            self.ram_nonempty.d.next = self.ne_take.val();
            self.at_full.d.next = self.full_take.val();
        } else {
            self.ram_nonempty.d.next = self.ne_same.val();
            self.at_full.d.next = self.full_same.val();
        }
        if (self.s_valid.val() & !self.push.val()) {
            self.overflow.d.next = true;
        }
        self.ram.write_address.next =
            bit_cast::<16, PTR_BITS>(self.wr.q.val() & self.c_addr_mask.val());
        self.ram.write_data.next = self.s_data.val();
        self.ram.write_enable.next = self.push.val();

        if self.rst.val() {
            self.wr.d.next = 0.into();
            self.wr_nx.d.next = 0.into();
            self.rd.d.next = 0.into();
            self.rd_nx.d.next = 0.into();
            self.ram_nonempty.d.next = false;
            self.at_full.d.next = false;
            self.b_valid.d.next = false;
            self.b_valid2.d.next = false;
            self.overflow.d.next = false;
        }
        self.m_valid.next = self.b_valid.q.val();
        self.m_data.next = self.ram.read_data.val();
        self.full.next = self.at_full.q.val();
        self.status_overflow.next = self.overflow.q.val();
    }
}

/// `EnRam`: a simple dual-port RAM whose read is registered with an enable (read-first:
/// a read and a write of one address on one edge return the old word), depth set at
/// construction. Yosys maps it to block RAM (the read register is the RAM's latch) or,
/// when small, to distributed RAM with the read register in flip-flops. No initial
/// contents are emitted.
#[derive(LogicBlock)]
pub struct EnRam<D: Synth> {
    pub clk: Signal<In, Clock>,
    pub read_address: Signal<In, Bits<16>>,
    pub read_enable: Signal<In, Bit>,
    pub read_data: Signal<Out, D>,
    pub write_address: Signal<In, Bits<16>>,
    pub write_data: Signal<In, D>,
    pub write_enable: Signal<In, Bit>,
    // Simulation storage; the leading underscore keeps it out of the derived Block walk.
    _sim: Vec<D>,
}

impl<D: Synth> EnRam<D> {
    /// `depth` must be a power of two between 2 and 65536.
    pub fn new(depth: usize) -> Self {
        assert!(
            depth.is_power_of_two() && (2..=65536).contains(&depth),
            "EnRam depth {depth}"
        );
        Self {
            clk: Default::default(),
            read_address: Default::default(),
            read_enable: Default::default(),
            read_data: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            write_enable: Default::default(),
            _sim: vec![D::default(); depth],
        }
    }
}

impl<D: Synth> Logic for EnRam<D> {
    fn update(&mut self) {
        if self.clk.pos_edge() {
            let mask = self._sim.len() - 1;
            if self.read_enable.val() {
                self.read_data.next = self._sim[self.read_address.val().index() & mask];
            }
            if self.write_enable.val() {
                self._sim[self.write_address.val().index() & mask] = self.write_data.val();
            }
        }
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let a = self._sim.len().trailing_zeros() as usize;
        // The address ports are 16 bits for every depth; the bits above log2(depth) are
        // unused, named in Verilator's idiom for deliberately unused signals.
        let unused = if a < 16 {
            format!("wire _unused_ok = &{{1'b0, read_address[15:{a}], write_address[15:{a}]}};\n")
        } else {
            String::new()
        };
        Verilog::Custom(format!(
            "\
reg [{msb}:0] mem [0:{last}];
wire [{amsb}:0] read_index = read_address[{amsb}:0];
wire [{amsb}:0] write_index = write_address[{amsb}:0];
{unused}
always @(posedge clk) begin
   if (read_enable) begin
      read_data <= mem[read_index];
   end
   if (write_enable) begin
      mem[write_index] <= write_data;
   end
end
",
            msb = D::BITS - 1,
            last = self._sim.len() - 1,
            amsb = a - 1,
        ))
    }

    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "en_ram".into(),
            clock: "clk".into(),
            inputs: vec![
                "read_address".into(),
                "read_enable".into(),
                "write_address".into(),
                "write_data".into(),
                "write_enable".into(),
            ],
            outputs: vec!["read_data".into()],
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_encap_generates_verilog() {
        let mut uut = TxEncap::<1024, 128>::new(4250, 1);
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(v.contains("module top"));
    }
}
