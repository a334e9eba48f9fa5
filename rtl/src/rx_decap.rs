//! `rx_decap`: VXLAN decapsulation and RoCEv2 parsing on the receive path, with direct
//! placement (the Pegasus paper's receiver ordering; docs/blocks/rx_decap.md).
//!
//! ```text
//!  s_axis_wire ─► header capture (first 128 bytes) ─► check at tlast ─► desc FIFO ─► m_hdr (to rx_reorder)
//!      │                                                                               │
//!      └──────► data FIFO (every stored beat) ──────────────┐                 s_verdict (in order)
//!                                                           ▼                          ▼
//!                                  placement: payload realigned to byte 0, sideband {QP, VA, rkey, length}
//!                                  ─► m_axis_place (or the frame is discarded)
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
//!   16 bits), 10 `bad_opcode` (not an RC RDMA WRITE: 0x06..=0x0b), 11 `bad_length`
//!   (outer IPv4, UDP or inner IPv4 length, or RETH length, disagrees with the frame);
//! * or its header goes to `rx_reorder` (`m_hdr_*`) and its verdict comes back in order
//!   on `s_verdict_*`: 0 places the payload, anything else discards it
//!   (`status_drop_verdict`).
//!
//! **Packet format** (P-RNIC): every data packet carries BTH + RETH; the write-with-
//! immediate opcodes (0x09, 0x0b) add ImmDt. Payload starts at byte 120 (124 with an
//! immediate) of the wire frame and ends 4 bytes (ICRC, not checked) before its end.
//!
//! **Placement**: `m_axis_place_*` carries the payload from byte 0 of the first beat,
//! `tkeep` low-justified on the last beat; the command (`m_place_qp/va/rkey/len`) is
//! steady for the whole packet. A zero-length payload places nothing.
//!
//! The handshake on `s_axis_wire` does not depend on `tvalid`; `m_axis_place_tvalid` is
//! a register.

use crate::fifo::Fifo;
use crate::wiring::{ByteSwap, KeepCount};
use rust_hdl::prelude::*;

/// Descriptors (frames between check and placement) in flight.
pub const RX_DESC_DEPTH: usize = 32;
pub use crate::tx_encap::OUTER_BYTES;
const DESC_BITS: usize = 256;
const HDR_BITS: usize = 1024;

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
    pub status_drop_verdict: Signal<Out, Bits<32>>,

    data_fifo: Fifo<D>,
    desc_fifo: Fifo<DESC_BITS>,
    ready_fifo: Fifo<DESC_BITS>,
    verdict_fifo: Fifo<3>,
    keep_count: KeepCount<K>,
    hdr_swap: ByteSwap<HDR_BITS>,
    c_max_frame: Constant<Bits<16>>,
    c_max_beats: Constant<Bits<16>>,
    c_k: Constant<Bits<16>>,
    c_skip: Constant<Bits<16>>,
    c_sh120: Constant<Bits<16>>,
    c_sh124: Constant<Bits<16>>,
    c_shl120: Constant<Bits<16>>,
    c_shl124: Constant<Bits<16>>,
    c_hdr_beat1: Constant<Bits<16>>,
    c_ones: Constant<Bits<K>>,
    c_flight_max: Constant<Bits<8>>,
    c_pending_max: Constant<Bits<8>>,
    c_kshift: Constant<Bits<16>>,
    c_slot: [Constant<Bits<3>>; 8],
    /// The header spans two beats (K < 128).
    c_hdr2: Constant<Bit>,
    // Input side.
    in_mid: DFF<Bit>,
    in_beats: DFF<Bits<16>>,
    in_bytes: DFF<Bits<16>>,
    in_err_keep: DFF<Bit>,
    hdr: DFF<Bits<HDR_BITS>>,
    flight: DFF<Bits<8>>,
    // Check stage (one frame, the cycle after its last beat).
    c_valid: DFF<Bit>,
    c_hdr: DFF<Bits<HDR_BITS>>,
    c_len: DFF<Bits<16>>,
    c_beats: DFF<Bits<16>>,
    c_err_keep: DFF<Bit>,
    c_too_long: DFF<Bit>,
    // Header issue.
    v_pending: DFF<Bits<8>>,
    // Placement.
    e_active: DFF<Bit>,
    e_place: DFF<Bit>,
    e_flush: DFF<Bit>,
    e_h124: DFF<Bit>,
    e_beats_left: DFF<Bits<16>>,
    e_idx: DFF<Bits<16>>,
    e_out_left: DFF<Bits<16>>,
    e_bytes_left: DFF<Bits<16>>,
    e_qp: DFF<Bits<16>>,
    e_va: DFF<Bits<64>>,
    e_rkey: DFF<Bits<32>>,
    e_len: DFF<Bits<16>>,
    prev: DFF<Bits<D>>,
    o_valid: DFF<Bit>,
    /// Zero-length placed packets started and not yet reported on `m_place_done`.
    empties: DFF<Bits<8>>,
    last_taken: Signal<Local, Bit>,
    empty_go: Signal<Local, Bit>,
    o_data: DFF<Bits<D>>,
    o_keep: DFF<Bits<K>>,
    o_last: DFF<Bit>,
    o_qp: DFF<Bits<16>>,
    o_va: DFF<Bits<64>>,
    o_rkey: DFF<Bits<32>>,
    o_len: DFF<Bits<16>>,
    cnt_frames: DFF<Bits<32>>,
    cnt_placed: DFF<Bits<32>>,
    cnt_drop: [DFF<Bits<32>>; 12],
    cnt_verdict: DFF<Bits<32>>,
    // Locals.
    vni_cfg: [Signal<Local, Bits<32>>; 8],
    in_fire: Signal<Local, Bit>,
    storing: Signal<Local, Bit>,
    ready: Signal<Local, Bit>,
    keep_gap: Signal<Local, Bit>,
    keep_ok: Signal<Local, Bit>,
    total: Signal<Local, Bits<16>>,
    hdr_now: Signal<Local, Bits<HDR_BITS>>,
    beat_wide: Signal<Local, Bits<HDR_BITS>>,
    h: Signal<Local, Bits<HDR_BITS>>,
    ip_sum: Signal<Local, Bits<20>>,
    ip_fold1: Signal<Local, Bits<20>>,
    ip_fold2: Signal<Local, Bits<20>>,
    vni: Signal<Local, Bits<24>>,
    vni_hit: Signal<Local, Bit>,
    vni_slot: Signal<Local, Bits<3>>,
    opcode: Signal<Local, Bits<8>>,
    has_imm: Signal<Local, Bit>,
    hdr_len: Signal<Local, Bits<16>>,
    paylen: Signal<Local, Bits<16>>,
    len_bad: Signal<Local, Bit>,
    reason: Signal<Local, Bits<4>>,
    d_reason: Signal<Local, Bits<4>>,
    issue: Signal<Local, Bit>,
    pass: Signal<Local, Bit>,
    r_reason: Signal<Local, Bits<4>>,
    start: Signal<Local, Bit>,
    need_flush: Signal<Local, Bit>,
    finishing: Signal<Local, Bit>,
    out_free: Signal<Local, Bit>,
    gen: Signal<Local, Bit>,
    tail: Signal<Local, Bit>,
    emit: Signal<Local, Bit>,
    rp: Signal<Local, Bits<D>>,
    consume: Signal<Local, Bit>,
    realign: Signal<Local, Bits<D>>,
    cur: Signal<Local, Bits<D>>,
    out_keep: Signal<Local, Bits<K>>,
    n_out: Signal<Local, Bits<16>>,
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

    /// `max_frame_bytes`: the largest wire frame accepted (outer headers included).
    pub fn new(max_frame_bytes: usize) -> Self {
        assert!(D == 8 * K && (K == 64 || K == 128), "RxDecap bus {D}");
        let skip = 120 / K;
        let r120 = 120 - skip * K;
        let r124 = 124 - skip * K;
        let max_beats = max_frame_bytes.div_ceil(K);
        Self {
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
            vni_cfg: Default::default(),
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
            status_drop_verdict: Default::default(),
            data_fifo: Fifo::new(Self::data_fifo_depth(max_frame_bytes)),
            desc_fifo: Fifo::new(RX_DESC_DEPTH),
            ready_fifo: Fifo::new(RX_DESC_DEPTH),
            verdict_fifo: Fifo::new(RX_DESC_DEPTH),
            keep_count: Default::default(),
            hdr_swap: Default::default(),
            c_max_frame: Constant::new((max_frame_bytes as LiteralType).into()),
            c_max_beats: Constant::new((max_beats as LiteralType).into()),
            c_k: Constant::new((K as LiteralType).into()),
            c_skip: Constant::new((skip as LiteralType).into()),
            c_sh120: Constant::new(((8 * r120) as LiteralType).into()),
            c_sh124: Constant::new(((8 * r124) as LiteralType).into()),
            c_shl120: Constant::new(((8 * (K - r120)) as LiteralType).into()),
            c_shl124: Constant::new(((8 * (K - r124)) as LiteralType).into()),
            c_hdr_beat1: Constant::new(((8 * K) as LiteralType).into()),
            c_ones: Constant::new(!Bits::<K>::default()),
            c_flight_max: Constant::new(((RX_DESC_DEPTH - 2) as LiteralType).into()),
            c_pending_max: Constant::new(((RX_DESC_DEPTH - 1) as LiteralType).into()),
            c_kshift: Constant::new((K.trailing_zeros() as LiteralType).into()),
            c_slot: std::array::from_fn(|i| Constant::new((i as LiteralType).into())),
            c_hdr2: Constant::new(K < 128),
            in_mid: Default::default(),
            in_beats: Default::default(),
            in_bytes: Default::default(),
            in_err_keep: Default::default(),
            hdr: Default::default(),
            flight: Default::default(),
            c_valid: Default::default(),
            c_hdr: Default::default(),
            c_len: Default::default(),
            c_beats: Default::default(),
            c_err_keep: Default::default(),
            c_too_long: Default::default(),
            v_pending: Default::default(),
            e_active: Default::default(),
            e_place: Default::default(),
            e_flush: Default::default(),
            e_h124: Default::default(),
            e_beats_left: Default::default(),
            e_idx: Default::default(),
            e_out_left: Default::default(),
            e_bytes_left: Default::default(),
            e_qp: Default::default(),
            e_va: Default::default(),
            e_rkey: Default::default(),
            e_len: Default::default(),
            prev: Default::default(),
            o_valid: Default::default(),
            empties: Default::default(),
            last_taken: Default::default(),
            empty_go: Default::default(),
            m_place_done: Default::default(),
            o_data: Default::default(),
            o_keep: Default::default(),
            o_last: Default::default(),
            o_qp: Default::default(),
            o_va: Default::default(),
            o_rkey: Default::default(),
            o_len: Default::default(),
            cnt_frames: Default::default(),
            cnt_placed: Default::default(),
            cnt_drop: Default::default(),
            cnt_verdict: Default::default(),
            in_fire: Default::default(),
            storing: Default::default(),
            ready: Default::default(),
            keep_gap: Default::default(),
            keep_ok: Default::default(),
            total: Default::default(),
            hdr_now: Default::default(),
            beat_wide: Default::default(),
            h: Default::default(),
            ip_sum: Default::default(),
            ip_fold1: Default::default(),
            ip_fold2: Default::default(),
            vni: Default::default(),
            vni_hit: Default::default(),
            vni_slot: Default::default(),
            opcode: Default::default(),
            has_imm: Default::default(),
            hdr_len: Default::default(),
            paylen: Default::default(),
            len_bad: Default::default(),
            reason: Default::default(),
            d_reason: Default::default(),
            issue: Default::default(),
            pass: Default::default(),
            r_reason: Default::default(),
            start: Default::default(),
            need_flush: Default::default(),
            finishing: Default::default(),
            out_free: Default::default(),
            gen: Default::default(),
            tail: Default::default(),
            emit: Default::default(),
            rp: Default::default(),
            consume: Default::default(),
            realign: Default::default(),
            cur: Default::default(),
            out_keep: Default::default(),
            n_out: Default::default(),
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
            in_mid,
            in_beats,
            in_bytes,
            in_err_keep,
            hdr,
            flight,
            c_valid,
            c_hdr,
            c_len,
            c_beats,
            c_err_keep,
            c_too_long,
            v_pending,
            e_active,
            e_place,
            e_flush,
            e_h124,
            e_beats_left,
            e_idx,
            e_out_left,
            e_bytes_left,
            e_qp,
            e_va,
            e_rkey,
            e_len,
            prev,
            o_valid,
            empties,
            o_data,
            o_keep,
            o_last,
            o_qp,
            o_va,
            o_rkey,
            o_len,
            cnt_frames,
            cnt_placed,
            cnt_verdict
        );
        for i in 0..12 {
            self.cnt_drop[i].clock.next = self.clk.val();
            self.cnt_drop[i].d.next = self.cnt_drop[i].q.val();
        }
        self.data_fifo.clk.next = self.clk.val();
        self.desc_fifo.clk.next = self.clk.val();
        self.ready_fifo.clk.next = self.clk.val();
        self.verdict_fifo.clk.next = self.clk.val();
        self.data_fifo.rst.next = self.rst.val();
        self.desc_fifo.rst.next = self.rst.val();
        self.ready_fifo.rst.next = self.rst.val();
        self.verdict_fifo.rst.next = self.rst.val();

        // ================= Input: store every beat, keep the first 128 bytes =============
        // Beats past the maximum are accepted and discarded, so a frame that never ends
        // cannot fill the data FIFO.
        self.storing.next = (self.in_beats.q.val() < self.c_max_beats.val());
        self.ready.next = (((self.in_mid.q.val()
            | (self.flight.q.val() < self.c_flight_max.val()))
            & (!self.storing.val() | !self.data_fifo.full.val()))
            & !self.rst.val());
        self.in_fire.next = (self.s_axis_wire_tvalid.val() & self.ready.val());
        self.keep_count.keep.next = self.s_axis_wire_tkeep.val();
        self.keep_gap.next =
            ((self.s_axis_wire_tkeep.val() >> 1) & !self.s_axis_wire_tkeep.val()).any();
        if self.s_axis_wire_tlast.val() {
            self.keep_ok.next = (!self.keep_gap.val() & self.s_axis_wire_tkeep.val().get_bit(0));
        } else {
            self.keep_ok.next = self.s_axis_wire_tkeep.val().all();
        }
        self.total.next = (self.in_bytes.q.val() + self.keep_count.count.val());
        // The header window: beat 0 at byte 0, beat 1 at byte K (when K < 128).
        self.beat_wide.next = bit_cast::<HDR_BITS, D>(self.s_axis_wire_tdata.val());
        if !self.in_mid.q.val() {
            self.hdr_now.next = self.beat_wide.val();
        } else if (self.c_hdr2.val() & (self.in_beats.q.val() == 1)) {
            self.hdr_now.next =
                (self.hdr.q.val() | (self.beat_wide.val() << self.c_hdr_beat1.val()));
        } else {
            self.hdr_now.next = self.hdr.q.val();
        }
        self.data_fifo.s_valid.next = (self.in_fire.val() & self.storing.val());
        self.data_fifo.s_data.next = self.s_axis_wire_tdata.val();
        self.c_valid.d.next = (self.in_fire.val() & self.s_axis_wire_tlast.val());
        if self.in_fire.val() {
            self.hdr.d.next = self.hdr_now.val();
            self.in_mid.d.next = !self.s_axis_wire_tlast.val();
            if self.storing.val() {
                self.in_beats.d.next = (self.in_beats.q.val() + 1);
            }
            // Saturates just past the maximum: the frame is too long either way.
            if (self.in_bytes.q.val() <= self.c_max_frame.val()) {
                self.in_bytes.d.next = self.total.val();
            }
            self.in_err_keep.d.next = (self.in_err_keep.q.val() | !self.keep_ok.val());
            if self.s_axis_wire_tlast.val() {
                self.c_hdr.d.next = self.hdr_now.val();
                self.c_len.d.next = self.total.val();
                self.c_err_keep.d.next = (self.in_err_keep.q.val() | !self.keep_ok.val());
                self.c_too_long.d.next = ((self.total.val() > self.c_max_frame.val())
                    | (self.in_bytes.q.val() > self.c_max_frame.val()));
                if self.storing.val() {
                    self.c_beats.d.next = (self.in_beats.q.val() + 1);
                } else {
                    self.c_beats.d.next = self.in_beats.q.val();
                }
                self.in_beats.d.next = 0.into();
                self.in_bytes.d.next = 0.into();
                self.in_err_keep.d.next = false;
            }
        }
        if (self.in_fire.val() & !self.in_mid.q.val()) {
            self.cnt_frames.d.next = (self.cnt_frames.q.val() + 1);
        }

        // ================= Check: every field of the first 128 bytes =====================
        // `h` holds the header as one big-endian number: byte o, n bytes long, is at bits
        // [1023 - 8o : 1024 - 8(o + n)].
        self.hdr_swap.data_in.next = self.c_hdr.q.val();
        self.h.next = self.hdr_swap.data_out.val();
        // Outer IPv4 header checksum: the ones' complement sum of its ten words is 0xffff.
        self.ip_sum.next = ((((bit_cast::<20, 16>(self.h.val().get_bits::<16>(896))
            + bit_cast::<20, 16>(self.h.val().get_bits::<16>(880)))
            + (bit_cast::<20, 16>(self.h.val().get_bits::<16>(864))
                + bit_cast::<20, 16>(self.h.val().get_bits::<16>(848))))
            + ((bit_cast::<20, 16>(self.h.val().get_bits::<16>(832))
                + bit_cast::<20, 16>(self.h.val().get_bits::<16>(816)))
                + (bit_cast::<20, 16>(self.h.val().get_bits::<16>(800))
                    + bit_cast::<20, 16>(self.h.val().get_bits::<16>(784)))))
            + (bit_cast::<20, 16>(self.h.val().get_bits::<16>(768))
                + bit_cast::<20, 16>(self.h.val().get_bits::<16>(752))));
        self.ip_fold1.next = (bit_cast::<20, 16>(self.ip_sum.val().get_bits::<16>(0))
            + bit_cast::<20, 4>(self.ip_sum.val().get_bits::<4>(16)));
        self.ip_fold2.next = (bit_cast::<20, 16>(self.ip_fold1.val().get_bits::<16>(0))
            + bit_cast::<20, 4>(self.ip_fold1.val().get_bits::<4>(16)));
        // VNI -> LOCAL_VNI slot (the first enabled match).
        self.vni.next = self.h.val().get_bits::<24>(632);
        self.vni_cfg[0].next = self.cfg_local_vni0.val();
        self.vni_cfg[1].next = self.cfg_local_vni1.val();
        self.vni_cfg[2].next = self.cfg_local_vni2.val();
        self.vni_cfg[3].next = self.cfg_local_vni3.val();
        self.vni_cfg[4].next = self.cfg_local_vni4.val();
        self.vni_cfg[5].next = self.cfg_local_vni5.val();
        self.vni_cfg[6].next = self.cfg_local_vni6.val();
        self.vni_cfg[7].next = self.cfg_local_vni7.val();
        self.vni_hit.next = false;
        self.vni_slot.next = 0.into();
        for i in 0..8 {
            if ((!self.vni_hit.val() & self.vni_cfg[i].val().get_bit(31))
                & (self.vni_cfg[i].val().get_bits::<24>(0) == self.vni.val()))
            {
                self.vni_hit.next = true;
                self.vni_slot.next = self.c_slot[i].val();
            }
        }
        self.opcode.next = self.h.val().get_bits::<8>(280);
        self.has_imm.next = ((self.opcode.val() == 0x09) | (self.opcode.val() == 0x0b));
        if self.has_imm.val() {
            self.hdr_len.next = 124.into();
        } else {
            self.hdr_len.next = 120.into();
        }
        self.paylen.next = ((self.c_len.q.val() - self.hdr_len.val()) - 4);
        self.len_bad.next = ((((self.c_len.q.val() < (self.hdr_len.val() + 4))
            | (self.h.val().get_bits::<16>(880) != (self.c_len.q.val() - 14)))
            | ((self.h.val().get_bits::<16>(704) != (self.c_len.q.val() - 34))
                | (self.h.val().get_bits::<16>(480) != (self.c_len.q.val() - 64))))
            | (self.h.val().get_bits::<32>(64) != bit_cast::<32, 16>(self.paylen.val())));
        if self.c_err_keep.q.val() {
            self.reason.next = 1.into();
        } else if self.c_too_long.q.val() {
            self.reason.next = 2.into();
        } else if (self.c_len.q.val() < 124) {
            self.reason.next = 3.into();
        } else if (((self.h.val().get_bits::<16>(912) != 0x0800)
            | (self.h.val().get_bits::<8>(904) != 0x45))
            | (self.h.val().get_bits::<8>(832) != 17))
        {
            self.reason.next = 4.into();
        } else if (self.ip_fold2.val().get_bits::<16>(0) != 0xffff) {
            self.reason.next = 5.into();
        } else if (self.h.val().get_bits::<16>(720) != 4789) {
            self.reason.next = 6.into();
        } else if !self.h.val().get_bit(683) {
            self.reason.next = 7.into();
        } else if !self.vni_hit.val() {
            self.reason.next = 8.into();
        } else if (((((self.h.val().get_bits::<16>(512) != 0x0800)
            | (self.h.val().get_bits::<8>(504) != 0x45))
            | (self.h.val().get_bits::<8>(432) != 17))
            | (self.h.val().get_bits::<16>(320) != 4791))
            | self.h.val().get_bits::<8>(240).any())
        {
            self.reason.next = 9.into();
        } else if ((self.opcode.val() < 0x06) | (self.opcode.val() > 0x0b)) {
            self.reason.next = 10.into();
        } else if self.len_bad.val() {
            self.reason.next = 11.into();
        } else {
            self.reason.next = 0.into();
        }
        // Descriptor: reason[3:0] qp[19:4] psn[43:20] slot[46:44] ack[47] imm?[48]
        // imm[80:49] va[144:81] rkey[176:145] paylen[192:177] beats[208:193].
        self.desc_fifo.s_valid.next = self.c_valid.q.val();
        self.desc_fifo.s_data.next = ((bit_cast::<DESC_BITS, 16>(self.c_beats.q.val()) << 193)
            | (bit_cast::<DESC_BITS, 16>(self.paylen.val()) << 177)
            | (bit_cast::<DESC_BITS, 32>(self.h.val().get_bits::<32>(96)) << 145)
            | (bit_cast::<DESC_BITS, 64>(self.h.val().get_bits::<64>(128)) << 81)
            | (bit_cast::<DESC_BITS, 32>(self.h.val().get_bits::<32>(32)) << 49)
            | (bit_cast::<DESC_BITS, 1>(self.has_imm.val().into()) << 48)
            | (bit_cast::<DESC_BITS, 1>(self.h.val().get_bit(223).into()) << 47)
            | (bit_cast::<DESC_BITS, 3>(self.vni_slot.val()) << 44)
            | (bit_cast::<DESC_BITS, 24>(self.h.val().get_bits::<24>(192)) << 20)
            | (bit_cast::<DESC_BITS, 16>(self.h.val().get_bits::<16>(224)) << 4)
            | bit_cast::<DESC_BITS, 4>(self.reason.val()));

        // ================= Issue: good headers to rx_reorder, in order ===================
        self.d_reason.next = self.desc_fifo.m_data.val().get_bits::<4>(0);
        self.m_hdr_qp.next = self.desc_fifo.m_data.val().get_bits::<16>(4);
        self.m_hdr_psn.next = self.desc_fifo.m_data.val().get_bits::<24>(20);
        self.m_hdr_vni_slot.next = self.desc_fifo.m_data.val().get_bits::<3>(44);
        self.m_hdr_ack_req.next = self.desc_fifo.m_data.val().get_bit(47);
        self.m_hdr_has_imm.next = self.desc_fifo.m_data.val().get_bit(48);
        self.m_hdr_imm.next = self.desc_fifo.m_data.val().get_bits::<32>(49);
        // A verdict FIFO slot is reserved for every header sent.
        self.issue.next = ((((self.desc_fifo.m_valid.val() & !self.d_reason.val().any())
            & !self.ready_fifo.full.val())
            & (self.v_pending.q.val() < self.c_pending_max.val()))
            & !self.rst.val());
        self.m_hdr_valid.next = self.issue.val();
        self.pass.next = (((self.desc_fifo.m_valid.val() & self.d_reason.val().any())
            & !self.ready_fifo.full.val())
            | (self.issue.val() & self.m_hdr_ready.val()));
        self.desc_fifo.m_pop.next = self.pass.val();
        self.ready_fifo.s_valid.next = self.pass.val();
        self.ready_fifo.s_data.next = self.desc_fifo.m_data.val();
        self.verdict_fifo.s_valid.next = self.s_verdict_valid.val();
        self.verdict_fifo.s_data.next = self.s_verdict_code.val();

        // ================= Placement =====================================================
        self.out_free.next = (!self.o_valid.q.val() | self.m_axis_place_tready.val());
        self.r_reason.next = self.ready_fifo.m_data.val().get_bits::<4>(0);

        // Output beats: ceil(paylen / K).
        self.n_out.next = ((self.ready_fifo.m_data.val().get_bits::<16>(177)
            + (self.c_k.val() - 1))
            >> self.c_kshift.val());
        // Beat j of the payload: bytes [R, K) of input beat j + skip, then [0, R) of the
        // next (R = 120 or 124 modulo K); the flush cycle has no next beat.
        self.gen.next = ((self.e_place.q.val() & (self.e_idx.q.val() > self.c_skip.val()))
            & self.e_out_left.q.val().any());
        // The last stored beat holds the whole payload (a short packet): its output beat
        // goes as it is consumed, not in a flush cycle after it.
        self.tail.next = (((self.e_place.q.val() & (self.e_beats_left.q.val() == 1))
            & !self.gen.val())
            & self.e_out_left.q.val().any());
        self.emit.next = (self.gen.val() | self.tail.val());
        if self.e_flush.q.val() {
            self.rp.next = self.prev.q.val();
            self.cur.next = 0.into();
        } else if self.tail.val() {
            self.rp.next = self.data_fifo.m_data.val();
            self.cur.next = 0.into();
        } else {
            self.rp.next = self.prev.q.val();
            self.cur.next = self.data_fifo.m_data.val();
        }
        if self.e_h124.q.val() {
            self.realign.next =
                ((self.rp.val() >> self.c_sh124.val()) | (self.cur.val() << self.c_shl124.val()));
        } else {
            self.realign.next =
                ((self.rp.val() >> self.c_sh120.val()) | (self.cur.val() << self.c_shl120.val()));
        }
        if (self.e_bytes_left.q.val() < self.c_k.val()) {
            self.out_keep.next =
                (self.c_ones.val() >> (self.c_k.val() - self.e_bytes_left.q.val()));
        } else {
            self.out_keep.next = self.c_ones.val();
        }
        self.consume.next = (((self.e_active.q.val() & !self.e_flush.q.val())
            & self.data_fifo.m_valid.val())
            & (!self.emit.val() | self.out_free.val()));
        self.data_fifo.m_pop.next = self.consume.val();
        // The packet in progress finishes this cycle: its last stored beat goes without a
        // flush beat to follow, or its flush beat goes.
        self.need_flush.next = (self.e_place.q.val()
            & (self.e_out_left.q.val() > bit_cast::<16, 1>(self.emit.val().into())));
        self.finishing.next = ((self.consume.val()
            & ((self.e_beats_left.q.val() == 1) & !self.need_flush.val()))
            | ((self.e_flush.q.val() & self.e_active.q.val()) & self.out_free.val()));
        self.start.next = ((((!self.e_active.q.val() | self.finishing.val())
            & self.ready_fifo.m_valid.val())
            & (self.r_reason.val().any() | self.verdict_fifo.m_valid.val()))
            & !self.rst.val());
        self.ready_fifo.m_pop.next = self.start.val();
        self.verdict_fifo.m_pop.next = (self.start.val() & !self.r_reason.val().any());
        if self.out_free.val() {
            self.o_valid.d.next = false;
        }
        if ((self.consume.val() & self.emit.val())
            | ((self.e_flush.q.val() & self.e_active.q.val()) & self.out_free.val()))
        {
            self.o_valid.d.next = true;
            self.o_data.d.next = self.realign.val();
            self.o_keep.d.next = self.out_keep.val();
            self.o_last.d.next = (self.e_out_left.q.val() == 1);
            // The command travels with each beat (the next packet's may load meanwhile).
            self.o_qp.d.next = self.e_qp.q.val();
            self.o_va.d.next = self.e_va.q.val();
            self.o_rkey.d.next = self.e_rkey.q.val();
            self.o_len.d.next = self.e_len.q.val();
            self.e_out_left.d.next = (self.e_out_left.q.val() - 1);
            self.e_bytes_left.d.next = (self.e_bytes_left.q.val() - self.c_k.val());
        }
        if self.consume.val() {
            self.prev.d.next = self.data_fifo.m_data.val();
            self.e_idx.d.next = (self.e_idx.q.val() + 1);
            self.e_beats_left.d.next = (self.e_beats_left.q.val() - 1);
            if (self.e_beats_left.q.val() == 1) {
                // The last stored beat: one more output beat may remain (flush).
                if self.need_flush.val() {
                    self.e_flush.d.next = true;
                } else {
                    self.e_active.d.next = false;
                }
            }
        }
        if ((self.e_flush.q.val() & self.e_active.q.val()) & self.out_free.val()) {
            self.e_flush.d.next = false;
            self.e_active.d.next = false;
        }

        // A new packet starts in the cycle the last one finishes (its writes win).
        if self.start.val() {
            self.e_active.d.next = self.ready_fifo.m_data.val().get_bits::<16>(193).any();
            self.e_place.d.next =
                (!self.r_reason.val().any() & !self.verdict_fifo.m_data.val().any());
            self.e_flush.d.next = false;
            self.e_h124.d.next = self.ready_fifo.m_data.val().get_bit(48);
            self.e_beats_left.d.next = self.ready_fifo.m_data.val().get_bits::<16>(193);
            self.e_idx.d.next = 0.into();
            self.e_out_left.d.next = self.n_out.val();
            self.e_bytes_left.d.next = self.ready_fifo.m_data.val().get_bits::<16>(177);
            self.e_len.d.next = self.ready_fifo.m_data.val().get_bits::<16>(177);
            self.e_qp.d.next = self.ready_fifo.m_data.val().get_bits::<16>(4);
            self.e_va.d.next = self.ready_fifo.m_data.val().get_bits::<64>(81);
            self.e_rkey.d.next = self.ready_fifo.m_data.val().get_bits::<32>(145);
            if self.r_reason.val().any() {
                for i in 1..12 {
                    if (self.r_reason.val().index() == i) {
                        self.cnt_drop[i].d.next = (self.cnt_drop[i].q.val() + 1);
                    }
                }
            } else if self.verdict_fifo.m_data.val().any() {
                self.cnt_verdict.d.next = (self.cnt_verdict.q.val() + 1);
            } else {
                self.cnt_placed.d.next = (self.cnt_placed.q.val() + 1);
            }
        }
        // Placement done: a last beat taken, or a zero-length placed packet reported once
        // the beat ahead of it (at most the previous packet's last) has left.
        self.last_taken.next =
            ((self.o_valid.q.val() & self.m_axis_place_tready.val()) & self.o_last.q.val());
        self.empty_go.next =
            (self.empties.q.val().any() & (!self.o_valid.q.val() | self.last_taken.val()));
        if ((self.start.val()
            & (!self.r_reason.val().any() & !self.verdict_fifo.m_data.val().any()))
            & (self.n_out.val() == 0))
        {
            if !self.empty_go.val() {
                self.empties.d.next = (self.empties.q.val() + 1);
            }
        } else if self.empty_go.val() {
            self.empties.d.next = (self.empties.q.val() - 1);
        }
        self.m_place_done.next = (bit_cast::<2, 1>(self.last_taken.val().into())
            + bit_cast::<2, 1>(self.empty_go.val().into()));

        // Frames between their first beat and placement (descriptors in flight).
        if ((self.in_fire.val() & !self.in_mid.q.val()) & !self.start.val()) {
            self.flight.d.next = (self.flight.q.val() + 1);
        }
        if (!(self.in_fire.val() & !self.in_mid.q.val()) & self.start.val()) {
            self.flight.d.next = (self.flight.q.val() - 1);
        }
        if ((self.issue.val() & self.m_hdr_ready.val())
            & !(self.start.val() & !self.r_reason.val().any()))
        {
            self.v_pending.d.next = (self.v_pending.q.val() + 1);
        }
        if (!(self.issue.val() & self.m_hdr_ready.val())
            & (self.start.val() & !self.r_reason.val().any()))
        {
            self.v_pending.d.next = (self.v_pending.q.val() - 1);
        }

        if self.rst.val() {
            self.in_mid.d.next = false;
            self.in_beats.d.next = 0.into();
            self.in_bytes.d.next = 0.into();
            self.in_err_keep.d.next = false;
            self.flight.d.next = 0.into();
            self.c_valid.d.next = false;
            self.v_pending.d.next = 0.into();
            self.e_active.d.next = false;
            self.e_flush.d.next = false;
            self.o_valid.d.next = false;
            self.empties.d.next = 0.into();
            self.cnt_frames.d.next = 0.into();
            self.cnt_placed.d.next = 0.into();
            self.cnt_verdict.d.next = 0.into();
            for i in 0..12 {
                self.cnt_drop[i].d.next = 0.into();
            }
        }

        self.s_axis_wire_tready.next = self.ready.val();
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
        self.status_drop_verdict.next = self.cnt_verdict.q.val();
        // Read in part only: spare descriptor and header bits, CSR bits 30:24.
        self.unused_bits.next = ((((self.ip_fold2.val().get_bits::<4>(16).any()
            | self.data_fifo.status_overflow.val()
            | self.desc_fifo.status_overflow.val())
            | (self.ready_fifo.status_overflow.val() | self.verdict_fifo.status_overflow.val()))
            | ((self.desc_fifo.full.val() | self.verdict_fifo.full.val())
                | self.cnt_drop[0].q.val().any()))
            | ((self.ready_fifo.m_data.val().any() | self.h.val().any())
                | ((((self.vni_cfg[0].val().any() | self.vni_cfg[1].val().any())
                    | (self.vni_cfg[2].val().any() | self.vni_cfg[3].val().any()))
                    | (self.vni_cfg[4].val().any() | self.vni_cfg[5].val().any()))
                    | (self.vni_cfg[6].val().any() | self.vni_cfg[7].val().any()))));
    }
}
