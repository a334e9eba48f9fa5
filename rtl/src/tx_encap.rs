//! `tx_encap`: VXLAN encapsulation of the tenant's RoCEv2 frames, with a per-packet outer
//! UDP source port, on AXI4-Stream (the Pegasus paper).
//!
//! ```text
//!            ┌──────── first beat: key {VNI, inner dst IPv4} ──► m_lookup ──► flow_table
//!  s_axis ──►│ parse, check tkeep/length ─► data FIFO (store and forward) ──────────────┐
//!            │ tlast: descriptor (bytes, beats, drop reason) ─► desc FIFO ─┐            │
//!            └ first beat +1: sprayer request ─► sprayer ─► port FIFO ──────┤            │
//!  s_result (hit, value) ─────────────────────────────────► result FIFO ───┤            │
//!                                                                          ▼            ▼
//!                          P1: pop all three ─► P2: outer header + checksum ─► streamer ─► m_axis
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
//! ### Timing contract
//! * `s_result_*` answers each `m_lookup_valid` in order (any fixed or variable latency;
//!   the answers queue in a FIFO). The flow table answers in 3 cycles.
//! * At most `DESC_DEPTH` frames are between their first beat and the header stage;
//!   `s_axis_tready` is low at a frame's first beat while that many are in flight.
//! * `s_axis_tready` depends only on registers, never on `s_axis_tvalid`;
//!   `m_axis_tvalid` never waits for `m_axis_tready`.

use crate::fifo::Fifo;
use crate::flow_table::{KEY_BITS, VALUE_BITS};
use crate::sprayer::{Sprayer, FLOW_BITS};
use crate::wiring::{ByteSwap, KeepCount};
use rust_hdl::prelude::*;

/// Bytes of outer header (Ethernet 14, IPv4 20, UDP 8, VXLAN 8).
pub const OUTER_BYTES: usize = 50;
/// Smallest inner frame: Ethernet 14, IPv4 20, UDP 8, BTH 12.
pub const MIN_INNER_BYTES: usize = 54;
/// Frames in flight between first beat and header stage (depth of the small FIFOs).
pub const DESC_DEPTH: usize = 16;
/// `tuser` carries `{QP[47:24], VNI[23:0]}`, set by the RNIC, never by the tenant.
pub const TUSER_BITS: usize = 48;

pub const REASON_TOO_LONG: u64 = 1;
pub const REASON_BAD_KEEP: u64 = 2;
pub const REASON_SHORT: u64 = 3;
pub const REASON_NOT_IPV4: u64 = 4;
pub const REASON_MISS: u64 = 5;

const DESC_BITS: usize = 64;
const RES_BITS: usize = 1 + VALUE_BITS;

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
    data_fifo: Fifo<D>,
    desc_fifo: Fifo<DESC_BITS>,
    res_fifo: Fifo<RES_BITS>,
    port_fifo: Fifo<16>,

    // ---- Constants ----
    c_max_frame: Constant<Bits<16>>,
    c_max_beats: Constant<Bits<16>>,
    c_min_frame: Constant<Bits<16>>,
    c_k_m1: Constant<Bits<16>>,
    c_k: Constant<Bits<16>>,
    c_s: Constant<Bits<16>>,
    c_s_shift: Constant<Bits<16>>,
    c_desc_depth: Constant<Bits<8>>,
    c_hdr_fixed: Constant<Bits<400>>,
    c_mark_clear: Constant<Bits<D>>,
    c_mark_set: Constant<Bits<D>>,
    c_ones: Constant<Bits<K>>,

    // ---- Input side ----
    in_mid: DFF<Bit>,
    in_bytes: DFF<Bits<16>>,
    in_beats: DFF<Bits<16>>,
    /// A beat of this frame arrived past the maximum beat count (not stored).
    in_overrun: DFF<Bit>,
    in_err_keep: DFF<Bit>,
    in_not_ipv4: DFF<Bit>,
    in_markable: DFF<Bit>,
    in_ecn: DFF<Bits<2>>,
    flight: DFF<Bits<8>>,
    spray_req: DFF<Bit>,
    spray_flow: DFF<Bits<FLOW_BITS>>,
    ready: Signal<Local, Bit>,
    in_fire: Signal<Local, Bit>,
    first_fire: Signal<Local, Bit>,
    storing: Signal<Local, Bit>,
    fr_overrun: Signal<Local, Bit>,
    // CSR header fields, registered with the checksum's per-port sums so a CSR write
    // never meets a header built from a mix of old and new values.
    q_mac0: DFF<Bits<48>>,
    q_mac1: DFF<Bits<48>>,
    q_ip0: DFF<Bits<32>>,
    q_ip1: DFF<Bits<32>>,
    q_ttl: DFF<Bits<8>>,
    q_dscp: DFF<Bits<6>>,
    keep_gap: Signal<Local, Bits<K>>,
    keep_ok: Signal<Local, Bit>,
    total: Signal<Local, Bits<16>>,
    beats_total: Signal<Local, Bits<16>>,
    /// The first 64 bytes in network order; only the header fields are read.
    hb_partly_unused: Signal<Local, Bits<512>>,
    /// `full` of the small FIFOs: they cannot fill (`flight` bounds them).
    unused_full: Signal<Local, Bit>,
    first_not_ipv4: Signal<Local, Bit>,
    first_markable: Signal<Local, Bit>,
    fr_not_ipv4: Signal<Local, Bit>,
    fr_markable: Signal<Local, Bit>,
    fr_ecn: Signal<Local, Bits<2>>,
    fr_err_keep: Signal<Local, Bit>,
    fr_reason: Signal<Local, Bits<3>>,
    pop3: Signal<Local, Bit>,

    // ---- P1: the frame's descriptor, lookup result and port ----
    p1_valid: DFF<Bit>,
    p1_desc: DFF<Bits<DESC_BITS>>,
    p1_hit: DFF<Bit>,
    p1_value: DFF<Bits<VALUE_BITS>>,
    p1_port: DFF<Bits<16>>,
    p1_move: Signal<Local, Bit>,
    p1_free: Signal<Local, Bit>,
    d_reason: Signal<Local, Bits<3>>,
    d_bytes: Signal<Local, Bits<16>>,
    d_beats: Signal<Local, Bits<16>>,
    d_drop: Signal<Local, Bit>,
    d_reason_final: Signal<Local, Bits<3>>,
    d_egress: Signal<Local, Bit>,
    d_src_mac: Signal<Local, Bits<48>>,
    d_src_ip: Signal<Local, Bits<32>>,
    d_dst_ip: Signal<Local, Bits<32>>,
    d_tos: Signal<Local, Bits<8>>,
    d_ip_len: Signal<Local, Bits<16>>,
    d_udp_len: Signal<Local, Bits<16>>,
    cfg_sum0: DFF<Bits<20>>,
    cfg_sum1: DFF<Bits<20>>,
    d_cfg_sum: Signal<Local, Bits<20>>,
    d_sum: Signal<Local, Bits<20>>,
    d_hdr_be: Signal<Local, Bits<400>>,
    d_last_low: Signal<Local, Bits<16>>,
    d_last_in: Signal<Local, Bits<16>>,
    d_extra: Signal<Local, Bit>,
    d_out_last: Signal<Local, Bits<16>>,
    d_keep: Signal<Local, Bits<K>>,

    // ---- P2: the outer header, ready for the streamer ----
    p2_valid: DFF<Bit>,
    /// Big-endian; byte-swapped into lane order when the streamer takes it.
    p2_hdr: DFF<Bits<400>>,
    /// The header's 16-bit word sum, folded when the streamer takes it.
    p2_sum: DFF<Bits<20>>,
    p2_drop: DFF<Bit>,
    p2_reason: DFF<Bits<3>>,
    p2_last_idx: DFF<Bits<16>>,
    p2_extra: DFF<Bit>,
    p2_keep: DFF<Bits<K>>,
    p2_dest: DFF<Bit>,
    p2_mark: DFF<Bit>,
    take: Signal<Local, Bit>,
    t_fold1: Signal<Local, Bits<20>>,
    t_fold2: Signal<Local, Bits<16>>,
    t_csum: Signal<Local, Bits<16>>,

    // ---- Streamer ----
    cur_valid: DFF<Bit>,
    cur_hdr: DFF<Bits<400>>,
    cur_drop: DFF<Bit>,
    cur_last_idx: DFF<Bits<16>>,
    cur_extra: DFF<Bit>,
    cur_keep: DFF<Bits<K>>,
    cur_dest: DFF<Bit>,
    cur_mark: DFF<Bit>,
    cur_idx: DFF<Bits<16>>,
    cur_in_extra: DFF<Bit>,
    carry: DFF<Bits<D>>,
    need_data: Signal<Local, Bit>,
    at_last_in: Signal<Local, Bit>,
    final_beat: Signal<Local, Bit>,
    out_free: Signal<Local, Bit>,
    adv: Signal<Local, Bit>,
    b_mod: Signal<Local, Bits<D>>,
    shifted: Signal<Local, Bits<D>>,

    // ---- Output register and counters ----
    out_valid: DFF<Bit>,
    out_data: DFF<Bits<D>>,
    out_keep: DFF<Bits<K>>,
    out_last: DFF<Bit>,
    out_dest: DFF<Bit>,
    cnt_frames: DFF<Bits<32>>,
    cnt_too_long: DFF<Bits<32>>,
    cnt_bad_keep: DFF<Bits<32>>,
    cnt_short: DFF<Bits<32>>,
    cnt_not_ipv4: DFF<Bits<32>>,
    cnt_miss: DFF<Bits<32>>,
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
        assert!(D == 8 * K && (512..=1024).contains(&D), "TxEncap width {D}");
        assert!((MIN_INNER_BYTES..=16383).contains(&max_frame_bytes));
        let max_beats = max_frame_bytes.div_ceil(K);
        let data_depth = (2 * max_beats).next_power_of_two().max(16);
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
        let mut ones: Bits<K> = Default::default();
        for i in 0..K {
            ones = ones.replace_bit(i, true);
        }
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
            data_fifo: Fifo::new(data_depth),
            desc_fifo: Fifo::new(DESC_DEPTH),
            res_fifo: Fifo::new(DESC_DEPTH),
            port_fifo: Fifo::new(DESC_DEPTH),
            c_max_frame: Constant::new((max_frame_bytes as LiteralType).into()),
            c_max_beats: Constant::new((max_beats as LiteralType).into()),
            c_min_frame: Constant::new((MIN_INNER_BYTES as LiteralType).into()),
            c_k_m1: Constant::new(((K - 1) as LiteralType).into()),
            c_k: Constant::new((K as LiteralType).into()),
            c_s: Constant::new((s as LiteralType).into()),
            c_s_shift: Constant::new(((8 * s) as LiteralType).into()),
            c_desc_depth: Constant::new((DESC_DEPTH as LiteralType).into()),
            c_hdr_fixed: Constant::new(hdr_fixed),
            c_mark_clear: Constant::new(mark_clear),
            c_mark_set: Constant::new(byte_at::<D>(0x03, 46)),
            c_ones: Constant::new(ones),
            in_mid: Default::default(),
            in_bytes: Default::default(),
            in_beats: Default::default(),
            in_overrun: Default::default(),
            in_err_keep: Default::default(),
            in_not_ipv4: Default::default(),
            in_markable: Default::default(),
            in_ecn: Default::default(),
            flight: Default::default(),
            spray_req: Default::default(),
            spray_flow: Default::default(),
            ready: Default::default(),
            in_fire: Default::default(),
            first_fire: Default::default(),
            storing: Default::default(),
            fr_overrun: Default::default(),
            q_mac0: Default::default(),
            q_mac1: Default::default(),
            q_ip0: Default::default(),
            q_ip1: Default::default(),
            q_ttl: Default::default(),
            q_dscp: Default::default(),
            keep_gap: Default::default(),
            keep_ok: Default::default(),
            total: Default::default(),
            beats_total: Default::default(),
            hb_partly_unused: Default::default(),
            unused_full: Default::default(),
            first_not_ipv4: Default::default(),
            first_markable: Default::default(),
            fr_not_ipv4: Default::default(),
            fr_markable: Default::default(),
            fr_ecn: Default::default(),
            fr_err_keep: Default::default(),
            fr_reason: Default::default(),
            pop3: Default::default(),
            p1_valid: Default::default(),
            p1_desc: Default::default(),
            p1_hit: Default::default(),
            p1_value: Default::default(),
            p1_port: Default::default(),
            p1_move: Default::default(),
            p1_free: Default::default(),
            d_reason: Default::default(),
            d_bytes: Default::default(),
            d_beats: Default::default(),
            d_drop: Default::default(),
            d_reason_final: Default::default(),
            d_egress: Default::default(),
            d_src_mac: Default::default(),
            d_src_ip: Default::default(),
            d_dst_ip: Default::default(),
            d_tos: Default::default(),
            d_ip_len: Default::default(),
            d_udp_len: Default::default(),
            cfg_sum0: Default::default(),
            cfg_sum1: Default::default(),
            d_cfg_sum: Default::default(),
            d_sum: Default::default(),
            d_hdr_be: Default::default(),
            d_last_low: Default::default(),
            d_last_in: Default::default(),
            d_extra: Default::default(),
            d_out_last: Default::default(),
            d_keep: Default::default(),
            p2_valid: Default::default(),
            p2_hdr: Default::default(),
            p2_sum: Default::default(),
            p2_drop: Default::default(),
            p2_reason: Default::default(),
            p2_last_idx: Default::default(),
            p2_extra: Default::default(),
            p2_keep: Default::default(),
            p2_dest: Default::default(),
            p2_mark: Default::default(),
            take: Default::default(),
            t_fold1: Default::default(),
            t_fold2: Default::default(),
            t_csum: Default::default(),
            cur_valid: Default::default(),
            cur_hdr: Default::default(),
            cur_drop: Default::default(),
            cur_last_idx: Default::default(),
            cur_extra: Default::default(),
            cur_keep: Default::default(),
            cur_dest: Default::default(),
            cur_mark: Default::default(),
            cur_idx: Default::default(),
            cur_in_extra: Default::default(),
            carry: Default::default(),
            need_data: Default::default(),
            at_last_in: Default::default(),
            final_beat: Default::default(),
            out_free: Default::default(),
            adv: Default::default(),
            b_mod: Default::default(),
            shifted: Default::default(),
            out_valid: Default::default(),
            out_data: Default::default(),
            out_keep: Default::default(),
            out_last: Default::default(),
            out_dest: Default::default(),
            cnt_frames: Default::default(),
            cnt_too_long: Default::default(),
            cnt_bad_keep: Default::default(),
            cnt_short: Default::default(),
            cnt_not_ipv4: Default::default(),
            cnt_miss: Default::default(),
        }
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
            in_mid,
            in_bytes,
            in_beats,
            in_overrun,
            q_mac0,
            q_mac1,
            q_ip0,
            q_ip1,
            q_ttl,
            q_dscp,
            in_err_keep,
            in_not_ipv4,
            in_markable,
            in_ecn,
            flight,
            spray_req,
            spray_flow,
            p1_valid,
            p1_desc,
            p1_hit,
            p1_value,
            p1_port,
            p2_valid,
            p2_hdr,
            p2_sum,
            cfg_sum0,
            cfg_sum1,
            p2_drop,
            p2_reason,
            p2_last_idx,
            p2_extra,
            p2_keep,
            p2_dest,
            p2_mark,
            cur_valid,
            cur_hdr,
            cur_drop,
            cur_last_idx,
            cur_extra,
            cur_keep,
            cur_dest,
            cur_mark,
            cur_idx,
            cur_in_extra,
            carry,
            out_valid,
            out_data,
            out_keep,
            out_last,
            out_dest,
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
        self.spray.rst.next = self.rst.val();
        self.data_fifo.rst.next = self.rst.val();
        self.desc_fifo.rst.next = self.rst.val();
        self.res_fifo.rst.next = self.rst.val();
        self.port_fifo.rst.next = self.rst.val();

        // Handshakes first: every local is written before it is read.
        self.out_free.next = (!self.out_valid.q.val() | self.m_axis_tready.val());
        self.need_data.next = !self.cur_in_extra.q.val();
        self.at_last_in.next = (self.cur_idx.q.val() == self.cur_last_idx.q.val());
        self.final_beat.next =
            (self.cur_in_extra.q.val() | (self.at_last_in.val() & !self.cur_extra.q.val()));
        self.adv.next = (self.cur_valid.q.val()
            & (!self.need_data.val() | self.data_fifo.m_valid.val())
            & (self.cur_drop.q.val() | self.out_free.val()));
        self.take.next = (self.p2_valid.q.val()
            & (!self.cur_valid.q.val() | (self.adv.val() & self.final_beat.val())));
        self.p1_move.next = (self.p1_valid.q.val() & (!self.p2_valid.q.val() | self.take.val()));
        self.p1_free.next = (!self.p1_valid.q.val() | self.p1_move.val());

        // ================= Input: parse, check, store ====================================
        // Beats past the maximum beat count are accepted and discarded (never stored), so
        // a frame that never ends, whatever its tkeep, cannot fill the FIFO and block the
        // frame ahead of it. No beat is taken during reset.
        self.storing.next = (self.in_beats.q.val() < self.c_max_beats.val());
        self.ready.next = (((self.in_mid.q.val()
            | (self.flight.q.val() < self.c_desc_depth.val()))
            & (!self.storing.val() | !self.data_fifo.full.val()))
            & !self.rst.val());
        self.fr_overrun.next =
            ((self.in_mid.q.val() & self.in_overrun.q.val()) | !self.storing.val());
        self.in_fire.next = (self.s_axis_tvalid.val() & self.ready.val());
        self.first_fire.next = (self.in_fire.val() & !self.in_mid.q.val());

        self.keep_count.keep.next = self.s_axis_tkeep.val();
        // Low-justified: no 0 bit with a 1 above it (no carry chain, unlike keep + 1).
        self.keep_gap.next = ((self.s_axis_tkeep.val() >> 1) & !self.s_axis_tkeep.val());
        if self.s_axis_tlast.val() {
            self.keep_ok.next = (!self.keep_gap.val().any() & self.s_axis_tkeep.val().get_bit(0));
        } else {
            self.keep_ok.next = self.s_axis_tkeep.val().all();
        }
        self.total.next = (self.in_bytes.q.val() + self.keep_count.count.val());
        self.beats_total.next =
            (self.in_beats.q.val() + bit_cast::<16, 1>(self.storing.val().into()));

        // First-beat fields, from the first 64 bytes in network order.
        self.in_swap.data_in.next = self.s_axis_tdata.val().get_bits::<512>(0);
        self.hb_partly_unused.next = self.in_swap.data_out.val();
        self.first_not_ipv4.next = ((self.hb_partly_unused.val().get_bits::<16>(400) != 0x0800)
            | (self.hb_partly_unused.val().get_bits::<4>(396) != 4));
        self.first_markable.next = ((self.hb_partly_unused.val().get_bits::<4>(392) == 5)
            & (self.hb_partly_unused.val().get_bits::<8>(320) == 17)
            & (self.hb_partly_unused.val().get_bits::<16>(208) == 4791));
        if self.in_mid.q.val() {
            self.fr_not_ipv4.next = self.in_not_ipv4.q.val();
            self.fr_markable.next = self.in_markable.q.val();
            self.fr_ecn.next = self.in_ecn.q.val();
            self.fr_err_keep.next = (self.in_err_keep.q.val() | !self.keep_ok.val());
        } else {
            self.fr_not_ipv4.next = self.first_not_ipv4.val();
            self.fr_markable.next = self.first_markable.val();
            self.fr_ecn.next = self.hb_partly_unused.val().get_bits::<2>(384);
            self.fr_err_keep.next = !self.keep_ok.val();
        }
        if ((self.total.val() > self.c_max_frame.val()) | self.fr_overrun.val()) {
            self.fr_reason.next = 1.into();
        } else if self.fr_err_keep.val() {
            self.fr_reason.next = 2.into();
        } else if (self.total.val() < self.c_min_frame.val()) {
            self.fr_reason.next = 3.into();
        } else if self.fr_not_ipv4.val() {
            self.fr_reason.next = 4.into();
        } else {
            self.fr_reason.next = 0.into();
        }

        // Lookup {VNI, inner destination IPv4} and request a port, once per frame.
        self.m_lookup_valid.next = self.first_fire.val();
        self.m_lookup_key.next =
            ((bit_cast::<KEY_BITS, 24>(self.s_axis_tuser.val().get_bits::<24>(0)) << 32)
                | bit_cast::<KEY_BITS, 32>(self.hb_partly_unused.val().get_bits::<32>(240)));
        self.spray_req.d.next = self.first_fire.val();
        self.spray_flow.d.next =
            ((bit_cast::<FLOW_BITS, 24>(self.s_axis_tuser.val().get_bits::<24>(0)) << 24)
                | bit_cast::<FLOW_BITS, 24>(self.s_axis_tuser.val().get_bits::<24>(24)));
        self.spray.s_req_valid.next = self.spray_req.q.val();
        self.spray.s_req_flow.next = self.spray_flow.q.val();
        self.spray.cfg_mode.next = self.cfg_spray_mode.val();
        self.spray.cfg_port_min.next = self.cfg_spray_min.val();
        self.spray.cfg_port_max.next = self.cfg_spray_max.val();
        self.port_fifo.s_valid.next = self.spray.m_port_valid.val();
        self.port_fifo.s_data.next = self.spray.m_port.val();
        self.res_fifo.s_valid.next = self.s_result_valid.val();
        self.res_fifo.s_data.next = ((bit_cast::<RES_BITS, 1>(self.s_result_hit.val().into())
            << 112)
            | bit_cast::<RES_BITS, VALUE_BITS>(self.s_result_value.val()));

        self.data_fifo.s_valid.next = (self.in_fire.val() & self.storing.val());
        self.data_fifo.s_data.next = self.s_axis_tdata.val();

        // Descriptor at tlast: {bytes[37:22], beats[21:6], markable[5], ecn[4:3], reason[2:0]}.
        self.desc_fifo.s_valid.next = (self.in_fire.val() & self.s_axis_tlast.val());
        self.desc_fifo.s_data.next = ((bit_cast::<DESC_BITS, 16>(self.total.val()) << 22)
            | (bit_cast::<DESC_BITS, 16>(self.beats_total.val()) << 6)
            | (bit_cast::<DESC_BITS, 1>(self.fr_markable.val().into()) << 5)
            | (bit_cast::<DESC_BITS, 2>(self.fr_ecn.val()) << 3)
            | bit_cast::<DESC_BITS, 3>(self.fr_reason.val()));

        if self.in_fire.val() {
            self.in_mid.d.next = !self.s_axis_tlast.val();
            self.in_not_ipv4.d.next = self.fr_not_ipv4.val();
            self.in_markable.d.next = self.fr_markable.val();
            self.in_ecn.d.next = self.fr_ecn.val();
            self.in_err_keep.d.next = self.fr_err_keep.val();
            self.in_beats.d.next = self.beats_total.val();
            self.in_overrun.d.next = self.fr_overrun.val();
            // Saturates just past the maximum: the frame is too long either way.
            if (self.in_bytes.q.val() <= self.c_max_frame.val()) {
                self.in_bytes.d.next = self.total.val();
            }
            if self.s_axis_tlast.val() {
                self.in_bytes.d.next = 0.into();
                self.in_beats.d.next = 0.into();
                self.in_err_keep.d.next = false;
                self.in_overrun.d.next = false;
            }
        }

        // ================= P1: one frame's descriptor, result and port ===================
        self.pop3.next = (self.desc_fifo.m_valid.val()
            & self.res_fifo.m_valid.val()
            & self.port_fifo.m_valid.val()
            & self.p1_free.val());
        self.desc_fifo.m_pop.next = self.pop3.val();
        self.res_fifo.m_pop.next = self.pop3.val();
        self.port_fifo.m_pop.next = self.pop3.val();
        if self.pop3.val() {
            self.p1_desc.d.next = self.desc_fifo.m_data.val();
            self.p1_hit.d.next = self.res_fifo.m_data.val().get_bit(112);
            self.p1_value.d.next = self.res_fifo.m_data.val().get_bits::<VALUE_BITS>(0);
            self.p1_port.d.next = self.port_fifo.m_data.val();
        }
        // Frames in flight: counted in at the first beat, out when P1 takes them.
        if (self.first_fire.val() & !self.pop3.val()) {
            self.flight.d.next = (self.flight.q.val() + 1);
        }
        if (!self.first_fire.val() & self.pop3.val()) {
            self.flight.d.next = (self.flight.q.val() - 1);
        }

        // ================= P1 -> P2: the outer header ====================================
        self.d_reason.next = self.p1_desc.q.val().get_bits::<3>(0);
        self.d_beats.next = self.p1_desc.q.val().get_bits::<16>(6);
        self.d_bytes.next = self.p1_desc.q.val().get_bits::<16>(22);
        self.d_drop.next = ((self.d_reason.val() != 0) | !self.p1_hit.q.val());
        if (self.d_reason.val() != 0) {
            self.d_reason_final.next = self.d_reason.val();
        } else if !self.p1_hit.q.val() {
            self.d_reason_final.next = 5.into();
        } else {
            self.d_reason_final.next = 0.into();
        }
        // Table value: {underlay IPv4[111:80], next-hop MAC[79:32], VNI[31:8], flags[7:0]}.
        self.d_egress.next = self.p1_value.q.val().get_bit(0);
        if self.d_egress.val() {
            self.d_src_mac.next = self.q_mac1.q.val();
            self.d_src_ip.next = self.q_ip1.q.val();
        } else {
            self.d_src_mac.next = self.q_mac0.q.val();
            self.d_src_ip.next = self.q_ip0.q.val();
        }
        self.d_dst_ip.next = self.p1_value.q.val().get_bits::<32>(80);
        self.d_tos.next = ((bit_cast::<8, 6>(self.q_dscp.q.val()) << 2)
            | bit_cast::<8, 2>(self.p1_desc.q.val().get_bits::<2>(3)));
        self.d_ip_len.next = (self.d_bytes.val() + 36);
        self.d_udp_len.next = (self.d_bytes.val() + 16);
        // One's-complement sum of the header's 16-bit words (ID and checksum are 0),
        // in two halves: the per-port part from CSR (registered, quasi-static; it
        // includes the 36 of the total length), and the per-frame part. The folds happen
        // when the streamer takes the header, a stage later.
        self.q_mac0.d.next = self.cfg_port0_mac.val();
        self.q_mac1.d.next = self.cfg_port1_mac.val();
        self.q_ip0.d.next = self.cfg_port0_ip.val();
        self.q_ip1.d.next = self.cfg_port1_ip.val();
        self.q_ttl.d.next = self.cfg_ttl.val();
        self.q_dscp.d.next = self.cfg_dscp.val();
        self.cfg_sum0.d.next =
            ((bit_cast::<20, 16>(
                (bit_cast::<16, 8>(bit_cast::<8, 6>(self.cfg_dscp.val()) << 2) | 0x4500),
            ) + bit_cast::<20, 16>(((bit_cast::<16, 8>(self.cfg_ttl.val()) << 8) | 0x0011)))
                + ((bit_cast::<20, 16>(self.cfg_port0_ip.val().get_bits::<16>(16))
                    + bit_cast::<20, 16>(self.cfg_port0_ip.val().get_bits::<16>(0)))
                    + 0x4024));
        self.cfg_sum1.d.next =
            ((bit_cast::<20, 16>(
                (bit_cast::<16, 8>(bit_cast::<8, 6>(self.cfg_dscp.val()) << 2) | 0x4500),
            ) + bit_cast::<20, 16>(((bit_cast::<16, 8>(self.cfg_ttl.val()) << 8) | 0x0011)))
                + ((bit_cast::<20, 16>(self.cfg_port1_ip.val().get_bits::<16>(16))
                    + bit_cast::<20, 16>(self.cfg_port1_ip.val().get_bits::<16>(0)))
                    + 0x4024));
        if self.d_egress.val() {
            self.d_cfg_sum.next = self.cfg_sum1.q.val();
        } else {
            self.d_cfg_sum.next = self.cfg_sum0.q.val();
        }
        self.d_sum.next = (((self.d_cfg_sum.val() + bit_cast::<20, 16>(self.d_bytes.val()))
            + (bit_cast::<20, 16>(self.d_dst_ip.val().get_bits::<16>(16))
                + bit_cast::<20, 16>(self.d_dst_ip.val().get_bits::<16>(0))))
            + bit_cast::<20, 2>(self.p1_desc.q.val().get_bits::<2>(3)));
        // Big-endian header: byte 0 at bits 399:392.
        self.d_hdr_be.next = (self.c_hdr_fixed.val()
            | (bit_cast::<400, 48>(self.p1_value.q.val().get_bits::<48>(32)) << 352)
            | (bit_cast::<400, 48>(self.d_src_mac.val()) << 304)
            | (bit_cast::<400, 8>(self.d_tos.val()) << 272)
            | (bit_cast::<400, 16>(self.d_ip_len.val()) << 256)
            | (bit_cast::<400, 8>(self.q_ttl.q.val()) << 216)
            | (bit_cast::<400, 32>(self.d_src_ip.val()) << 160)
            | (bit_cast::<400, 32>(self.d_dst_ip.val()) << 128)
            | (bit_cast::<400, 16>(self.p1_port.q.val()) << 112)
            | (bit_cast::<400, 16>(self.d_udp_len.val()) << 80)
            | (bit_cast::<400, 24>(self.p1_value.q.val().get_bits::<24>(8)) << 8));
        self.t_fold1.next = (bit_cast::<20, 16>(self.p2_sum.q.val().get_bits::<16>(0))
            + bit_cast::<20, 4>(self.p2_sum.q.val().get_bits::<4>(16)));
        self.t_fold2.next = (self.t_fold1.val().get_bits::<16>(0)
            + bit_cast::<16, 4>(self.t_fold1.val().get_bits::<4>(16)));
        self.t_csum.next = !self.t_fold2.val();
        self.hdr_swap.data_in.next =
            (self.p2_hdr.q.val() | (bit_cast::<400, 16>(self.t_csum.val()) << 192));
        // Bytes in the last inner beat, whether an extra output beat is needed, and the
        // last output beat's keep.
        self.d_last_low.next = (self.d_bytes.val() & self.c_k_m1.val());
        if (self.d_last_low.val() == 0) {
            self.d_last_in.next = self.c_k.val();
        } else {
            self.d_last_in.next = self.d_last_low.val();
        }
        self.d_extra.next = (self.d_last_in.val() > self.c_s.val());
        if self.d_extra.val() {
            self.d_out_last.next = (self.d_last_in.val() - self.c_s.val());
        } else {
            self.d_out_last.next = (self.d_last_in.val() + 50);
        }
        self.d_keep.next = (self.c_ones.val() >> (self.c_k.val() - self.d_out_last.val()));

        if self.pop3.val() {
            self.p1_valid.d.next = true;
        } else if self.p1_move.val() {
            self.p1_valid.d.next = false;
        }
        if self.p1_move.val() {
            self.p2_valid.d.next = true;
            self.p2_hdr.d.next = self.d_hdr_be.val();
            self.p2_sum.d.next = self.d_sum.val();
            self.p2_drop.d.next = self.d_drop.val();
            self.p2_reason.d.next = self.d_reason_final.val();
            self.p2_last_idx.d.next = (self.d_beats.val() - 1);
            self.p2_extra.d.next = (self.d_extra.val() & !self.d_drop.val());
            self.p2_keep.d.next = self.d_keep.val();
            self.p2_dest.d.next = self.d_egress.val();
            self.p2_mark.d.next = (self.p1_desc.q.val().get_bit(5) & self.cfg_bth_mark.val());
        } else if self.take.val() {
            self.p2_valid.d.next = false;
        }

        // ================= Streamer: realign and emit ====================================
        self.data_fifo.m_pop.next = (self.adv.val() & self.need_data.val());

        if ((self.cur_idx.q.val() == 0) & self.cur_mark.q.val()) {
            self.b_mod.next =
                ((self.data_fifo.m_data.val() & self.c_mark_clear.val()) | self.c_mark_set.val());
        } else {
            self.b_mod.next = self.data_fifo.m_data.val();
        }
        self.shifted.next = (self.b_mod.val() << 400);

        if self.adv.val() {
            self.cur_idx.d.next = (self.cur_idx.q.val() + 1);
            if self.need_data.val() {
                self.carry.d.next = (self.b_mod.val() >> self.c_s_shift.val());
            }
            if self.final_beat.val() {
                self.cur_valid.d.next = false;
                self.cur_in_extra.d.next = false;
            } else if self.at_last_in.val() {
                self.cur_in_extra.d.next = true;
            }
        }
        if self.take.val() {
            self.cur_valid.d.next = true;
            self.cur_hdr.d.next = self.hdr_swap.data_out.val();
            self.cur_drop.d.next = self.p2_drop.q.val();
            self.cur_last_idx.d.next = self.p2_last_idx.q.val();
            self.cur_extra.d.next = self.p2_extra.q.val();
            self.cur_keep.d.next = self.p2_keep.q.val();
            self.cur_dest.d.next = self.p2_dest.q.val();
            self.cur_mark.d.next = self.p2_mark.q.val();
            self.cur_idx.d.next = 0.into();
            self.cur_in_extra.d.next = false;
            if self.p2_drop.q.val() {
                if (self.p2_reason.q.val() == 1) {
                    self.cnt_too_long.d.next = (self.cnt_too_long.q.val() + 1);
                }
                if (self.p2_reason.q.val() == 2) {
                    self.cnt_bad_keep.d.next = (self.cnt_bad_keep.q.val() + 1);
                }
                if (self.p2_reason.q.val() == 3) {
                    self.cnt_short.d.next = (self.cnt_short.q.val() + 1);
                }
                if (self.p2_reason.q.val() == 4) {
                    self.cnt_not_ipv4.d.next = (self.cnt_not_ipv4.q.val() + 1);
                }
                if (self.p2_reason.q.val() == 5) {
                    self.cnt_miss.d.next = (self.cnt_miss.q.val() + 1);
                }
            } else {
                self.cnt_frames.d.next = (self.cnt_frames.q.val() + 1);
            }
        }

        if self.out_free.val() {
            self.out_valid.d.next = (self.adv.val() & !self.cur_drop.q.val());
            self.out_dest.d.next = self.cur_dest.q.val();
            self.out_last.d.next = self.final_beat.val();
            if self.cur_in_extra.q.val() {
                self.out_data.d.next = self.carry.q.val();
            } else if (self.cur_idx.q.val() == 0) {
                self.out_data.d.next =
                    (bit_cast::<D, 400>(self.cur_hdr.q.val()) | self.shifted.val());
            } else {
                self.out_data.d.next = (self.carry.q.val() | self.shifted.val());
            }
            if self.final_beat.val() {
                self.out_keep.d.next = self.cur_keep.q.val();
            } else {
                self.out_keep.d.next = self.c_ones.val();
            }
        }

        if self.rst.val() {
            self.in_mid.d.next = false;
            self.in_bytes.d.next = 0.into();
            self.in_beats.d.next = 0.into();
            self.in_err_keep.d.next = false;
            self.in_overrun.d.next = false;
            self.flight.d.next = 0.into();
            self.spray_req.d.next = false;
            self.p1_valid.d.next = false;
            self.p2_valid.d.next = false;
            self.cur_valid.d.next = false;
            self.cur_in_extra.d.next = false;
            self.out_valid.d.next = false;
            self.cnt_frames.d.next = 0.into();
            self.cnt_too_long.d.next = 0.into();
            self.cnt_bad_keep.d.next = 0.into();
            self.cnt_short.d.next = 0.into();
            self.cnt_not_ipv4.d.next = 0.into();
            self.cnt_miss.d.next = 0.into();
        }

        self.s_axis_tready.next = self.ready.val();
        self.m_axis_tvalid.next = self.out_valid.q.val();
        self.m_axis_tdata.next = self.out_data.q.val();
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
        self.unused_full.next =
            (self.desc_fifo.full.val() | self.res_fifo.full.val() | self.port_fifo.full.val());
        self.status_overflow.next = (self.data_fifo.status_overflow.val()
            | self.desc_fifo.status_overflow.val()
            | self.res_fifo.status_overflow.val()
            | self.port_fifo.status_overflow.val());
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
