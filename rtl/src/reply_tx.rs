//! `ReplyTx`: the reply framer. It turns one reply record per cycle (an ACK, a selective
//! retransmission request, or a credit request, grant, ON or OFF) into the inner RoCEv2
//! frame of docs/reply-frames.md, ICRC included, on AXI4-Stream, for VXLAN
//! encapsulation by `tx_encap` exactly like a host frame (docs/blocks/reply_tx.md).
//!
//! ```text
//!  s_* ─► S0 record ─► S1 fields ─► S2 ICRC products ─► S3 ICRC ─► S4 fold ─► S5 fold
//!         (accept)      v, IP sums    (3 × 408 → 32)     cs = Σ+C    checksum   │ S6
//!                                                                              ▼
//!           m_axis ◄── frame FIFO (32 frames) ◄── image: template | fields | ICRC
//! ```
//!
//! * **Fixed frames, so the ICRC is affine.** A reply's length depends only on its
//!   class (ACK 62 bytes, request 98, credit message 58). For a fixed length the CRC is
//!   linear in the message bits, so the ICRC is `base[class] ^ M[class]·v`: `v` is the
//!   408 bits that vary (opcode, AETH syndrome, QP, PSN, the request's ACK PSN and
//!   bitmap, inner IP addresses), `M` a 32 × 408 GF(2) matrix and `base` the ICRC of
//!   the class's template with `v` zero. Both are computed here, at elaboration, from the
//!   bit-serial CRC of [`crate::crc`]; the fields the ICRC masks (DSCP/ECN, TTL, IPv4
//!   and UDP checksums, BTH `resv8a`) count as ones, as the rules say. There is no CRC
//!   register and no loop.
//! * **The IPv4 header checksum** is the ones' complement of the class's constant
//!   words plus the four 16-bit halves of the addresses: two sums, a constant, two
//!   folds.
//! * **Every stage is a register after at most one carry chain or a 3-level XOR tree**,
//!   and the pipeline never stalls: `s_ready` admits a record only while the frames in
//!   flight and queued are fewer than the FIFO holds, so nothing waits on `m_axis_tready`
//!   but the FIFO's pop.
//!
//! ### Ports
//! * `s_valid/s_ready`, `s_kind` ([`KIND_ACK`]..[`KIND_CREDIT_OFF`]), `s_qp`, `s_psn`
//!   (ACK: the next expected PSN; request: the bitmap's base), `s_ack`/`s_ack_psn` (a
//!   request that also acknowledges, with the next expected PSN), `s_bitmap` (bit j: PSN
//!   base + j is missing), `s_vni`, `s_src_ip`/`s_dst_ip` (inner IPv4 addresses).
//!   `s_ready` is a register. A kind above 5 is taken, dropped and counted.
//! * `cfg_src_mac`, `cfg_dst_mac`: the inner Ethernet addresses (not covered by the ICRC).
//! * `m_axis_*`: the inner frame, byte 0 in `tdata[7:0]`; `m_axis_tuser` = `{QP, VNI}`
//!   as `tx_encap`'s `s_axis_tuser` takes it. One beat per reply on a 1024-bit bus; a
//!   request takes two on a 512-bit bus.
//! * `status_frames`, `status_drop_kind`: 32-bit counters.

use crate::crc::{crc_bytes, data_columns, ParityMatrix, ICRC_VARIANT_BYTES};
use crate::fifo::LutFifo;
use crate::wiring::{low_ones, ByteSwap};
use rust_hdl::prelude::*;

pub const KIND_ACK: u64 = 0;
pub const KIND_SREQ: u64 = 1;
pub const KIND_CREDIT_REQ: u64 = 2;
pub const KIND_CREDIT_GRANT: u64 = 3;
pub const KIND_CREDIT_ON: u64 = 4;
pub const KIND_CREDIT_OFF: u64 = 5;
/// Clock edges from the one that takes a record (`s_valid & s_ready`) to the one after
/// which its first beat is on `m_axis` with the FIFO empty: S0..S6, then the FIFO's
/// RAM write and head register.
pub const REPLY_TX_LATENCY: usize = 9;
/// Frames in flight or queued, at most.
pub const REPLY_TX_DEPTH: usize = 32;
/// The image: 128 bytes, the largest reply (98) padded to a 1024-bit beat.
const IMG: usize = 1024;
const IMG_BYTES: usize = IMG / 8;
/// The varying bits: see [`V_FIELDS`].
const VB: usize = 408;
/// Inner frame length by class: ACK, request, credit message.
pub const REPLY_INNER_BYTES: [usize; 3] = [62, 98, 58];
/// Where `v`'s fields go in the inner frame: (first bit of `v`, inner byte offset,
/// bytes), each a big-endian number. The bitmap, in lane order on the wire (bit j: byte
/// 62 + j / 8, bit j mod 8), is byte-swapped into `v`, so it too is big-endian there.
const V_FIELDS: [(usize, usize, usize); 8] = [
    (0, 42, 1),   // BTH opcode
    (8, 54, 1),   // AETH syndrome
    (16, 47, 3),  // BTH destination QP
    (40, 51, 3),  // BTH PSN
    (64, 59, 3),  // SREQ ACK PSN
    (88, 62, 32), // SREQ missing bitmap
    (344, 26, 4), // inner IPv4 source
    (376, 30, 4), // inner IPv4 destination
];
/// Inner offset of the IPv4 header (the ICRC's first byte).
const IP_AT: usize = 14;

/// The inner byte and bit of `v` bit `i`.
fn v_place(i: usize) -> (usize, usize) {
    for &(first, off, bytes) in V_FIELDS.iter().rev() {
        if i >= first {
            let b = i - first;
            assert!(b < 8 * bytes);
            return (off + bytes - 1 - b / 8, b % 8);
        }
    }
    unreachable!()
}

/// The template of a class: every constant byte, `v` and the checksum zero.
fn template(class: usize) -> [u8; IMG_BYTES] {
    let len = REPLY_INNER_BYTES[class];
    let mut t = [0u8; IMG_BYTES];
    t[12..14].copy_from_slice(&[0x08, 0x00]);
    t[14] = 0x45;
    t[16..18].copy_from_slice(&((len - 14) as u16).to_be_bytes());
    t[20..24].copy_from_slice(&[0x40, 0x00, 64, 17]);
    t[34..36].copy_from_slice(&0xc000u16.to_be_bytes());
    t[36..38].copy_from_slice(&4791u16.to_be_bytes());
    t[38..40].copy_from_slice(&((len - 34) as u16).to_be_bytes());
    t[43..46].copy_from_slice(&[0x40, 0xff, 0xff]);
    t
}

/// The ICRC of a class's template with `v` zero (no complement yet: the register).
fn base_register(class: usize) -> u32 {
    let len = REPLY_INNER_BYTES[class];
    let mut t = template(class);
    for w in ICRC_VARIANT_BYTES {
        t[w - 50] = 0xff;
    }
    crc_bytes(crc_bytes(0xffff_ffff, &[0xff; 8]), &t[IP_AT..len - 4])
}

/// `M[class]` as rows: row m has bit i set when `v` bit i flips ICRC bit m.
fn icrc_rows(class: usize) -> Vec<Vec<bool>> {
    let len = REPLY_INNER_BYTES[class];
    let bits = 8 * (len - 4 - IP_AT);
    let cols = data_columns(bits);
    let col = |i: usize| {
        let (byte, bit) = v_place(i);
        if (IP_AT..len - 4).contains(&byte) {
            cols[8 * (byte - IP_AT) + bit]
        } else {
            0
        }
    };
    (0..32)
        .map(|m| (0..VB).map(|i| col(i) >> m & 1 == 1).collect())
        .collect()
}

/// A byte image as the big-endian number `ByteSwap` turns into lane order.
fn big_endian(t: &[u8; IMG_BYTES]) -> Bits<IMG> {
    let mut b: Bits<IMG> = Default::default();
    for (y, &byte) in t.iter().enumerate() {
        for k in 0..8 {
            if byte >> k & 1 == 1 {
                b = b.replace_bit(8 * (IMG_BYTES - 1 - y) + k, true);
            }
        }
    }
    b
}

/// The FIFO entry, in two distributed-RAM FIFOs (`LutFifo`: the pop reaches only the
/// head register's enable) so that no enable net drives more than about 560 flip-flops: `{tuser (48), class one-hot (3), image bits 0..512}` and image bits
/// 512..784 (bytes 64..98; the image's bytes from 98 on are always zero).
const Q_BITS: usize = 512 + 3 + 48;
const HI_BITS: usize = 8 * 98 - 512;

#[derive(LogicBlock)]
pub struct ReplyTx<const D: usize, const K: usize> {
    pub clk: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    pub s_kind: Signal<In, Bits<3>>,
    pub s_qp: Signal<In, Bits<24>>,
    pub s_psn: Signal<In, Bits<24>>,
    pub s_ack: Signal<In, Bit>,
    pub s_ack_psn: Signal<In, Bits<24>>,
    pub s_bitmap: Signal<In, Bits<256>>,
    pub s_vni: Signal<In, Bits<24>>,
    pub s_src_ip: Signal<In, Bits<32>>,
    pub s_dst_ip: Signal<In, Bits<32>>,
    pub cfg_src_mac: Signal<In, Bits<48>>,
    pub cfg_dst_mac: Signal<In, Bits<48>>,
    pub m_axis_tdata: Signal<Out, Bits<D>>,
    pub m_axis_tkeep: Signal<Out, Bits<K>>,
    pub m_axis_tvalid: Signal<Out, Bit>,
    pub m_axis_tready: Signal<In, Bit>,
    pub m_axis_tlast: Signal<Out, Bit>,
    pub m_axis_tuser: Signal<Out, Bits<48>>,
    pub status_frames: Signal<Out, Bits<32>>,
    pub status_drop_kind: Signal<Out, Bits<32>>,
    // S0: the record as taken.
    s0_valid: DFF<Bit>,
    s0_kind: DFF<Bits<3>>,
    s0_qp: DFF<Bits<24>>,
    s0_psn: DFF<Bits<24>>,
    s0_ack: DFF<Bit>,
    s0_ack_psn: DFF<Bits<24>>,
    s0_bitmap: DFF<Bits<256>>,
    s0_vni: DFF<Bits<24>>,
    s0_src_ip: DFF<Bits<32>>,
    s0_dst_ip: DFF<Bits<32>>,
    s0_bad: DFF<Bit>,
    // S1..S5: `valid`, class one-hot (ACK, request, credit), `{QP, VNI}`, `v`.
    s1_valid: DFF<Bit>,
    s1_class: DFF<Bits<3>>,
    s1_user: DFF<Bits<48>>,
    s1_v: DFF<Bits<VB>>,
    s1_a: DFF<Bits<18>>,
    s1_b: DFF<Bits<18>>,
    s2_valid: DFF<Bit>,
    s2_class: DFF<Bits<3>>,
    s2_user: DFF<Bits<48>>,
    s2_v: DFF<Bits<VB>>,
    s2_p_ack: DFF<Bits<32>>,
    s2_p_sreq: DFF<Bits<32>>,
    s2_p_credit: DFF<Bits<32>>,
    s2_ab: DFF<Bits<20>>,
    s3_valid: DFF<Bit>,
    s3_class: DFF<Bits<3>>,
    s3_user: DFF<Bits<48>>,
    s3_v: DFF<Bits<VB>>,
    s3_icrc: DFF<Bits<32>>,
    s3_cs: DFF<Bits<20>>,
    s4_valid: DFF<Bit>,
    s4_class: DFF<Bits<3>>,
    s4_user: DFF<Bits<48>>,
    s4_v: DFF<Bits<VB>>,
    s4_icrc: DFF<Bits<32>>,
    s4_fold: DFF<Bits<17>>,
    s5_valid: DFF<Bit>,
    s5_class: DFF<Bits<3>>,
    s5_user: DFF<Bits<48>>,
    s5_v: DFF<Bits<VB>>,
    s5_icrc: DFF<Bits<32>>,
    /// The IPv4 header checksum (already complemented).
    s5_sum: DFF<Bits<16>>,
    /// S6: the FIFO entry, so that the RAM's write data comes straight from flip-flops.
    s6_valid: DFF<Bit>,
    s6_entry: DFF<Bits<Q_BITS>>,
    s6_hi: DFF<Bits<HI_BITS>>,
    /// Frames accepted and not yet sent (S0..S6 and the FIFO); `s_ready` is
    /// `pending < REPLY_TX_DEPTH` as of this edge.
    pending: DFF<Bits<6>>,
    ready: DFF<Bit>,
    /// The head frame's first beat has left (a two-beat request on a 512-bit bus).
    second: DFF<Bit>,
    cnt_frames: DFF<Bits<32>>,
    cnt_kind: DFF<Bits<32>>,
    sent: DFF<Bit>,
    m_ack: ParityMatrix<VB, 32>,
    m_sreq: ParityMatrix<VB, 32>,
    m_credit: ParityMatrix<VB, 32>,
    base_ack: Constant<Bits<32>>,
    base_sreq: Constant<Bits<32>>,
    base_credit: Constant<Bits<32>>,
    /// The IPv4 header's constant words by class (0x4500, length, 0x4000, 0x4011).
    cs_ack: Constant<Bits<20>>,
    cs_sreq: Constant<Bits<20>>,
    cs_credit: Constant<Bits<20>>,
    tmpl_ack: Constant<Bits<IMG>>,
    tmpl_sreq: Constant<Bits<IMG>>,
    tmpl_credit: Constant<Bits<IMG>>,
    keep_ack: Constant<Bits<K>>,
    keep_credit: Constant<Bits<K>>,
    keep_sreq0: Constant<Bits<K>>,
    keep_sreq1: Constant<Bits<K>>,
    /// A request takes two beats (`K` < 98).
    sreq_two: Constant<Bit>,
    depth: Constant<Bits<6>>,
    kinds: Constant<Bits<3>>,
    op_base: Constant<Bits<8>>,
    /// `v`'s opcode and syndrome bytes: ACK, request with and without an ACK.
    v_ack: Constant<Bits<VB>>,
    v_sreq_ack: Constant<Bits<VB>>,
    v_sreq_nak: Constant<Bits<VB>>,
    q: LutFifo<Q_BITS>,
    q_hi: LutFifo<HI_BITS>,
    icrc_swap: ByteSwap<32>,
    bitmap_swap: ByteSwap<256>,
    img_swap: ByteSwap<IMG>,
    take: Signal<Local, Bit>,
    good: Signal<Local, Bit>,
    psn_m1: Signal<Local, Bits<24>>,
    fields: Signal<Local, Bits<IMG>>,
    head_hi: Signal<Local, Bits<IMG>>,
    op_credit: Signal<Local, Bits<8>>,
    v_common: Signal<Local, Bits<VB>>,
    head_img: Signal<Local, Bits<IMG>>,
    head_class: Signal<Local, Bits<3>>,
    last: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    up: Signal<Local, Bit>,
    down: Signal<Local, Bit>,
    next_pending: Signal<Local, Bits<6>>,
    /// The second FIFO's valid (the two move in step), the credit class bit (the last
    /// choice) and the image's bytes from 98 on (always zero, not stored; Verilator's
    /// lint knows `*unused*` as deliberately unread).
    unused_q: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize> ReplyTx<D, K> {
    /// Bits of RAM: the frame FIFO.
    pub const RAM_BITS: usize = REPLY_TX_DEPTH * (Q_BITS + HI_BITS);
}

impl<const D: usize, const K: usize> Default for ReplyTx<D, K> {
    fn default() -> Self {
        assert!(
            D == 8 * K && (K == 64 || K == 128),
            "ReplyTx: a 512- or 1024-bit bus"
        );
        let base = |c: usize| Constant::new((!base_register(c) as u64).into());
        let cs = |c: usize| {
            Constant::new(((0x4500 + 0x4000 + 0x4011 + REPLY_INNER_BYTES[c] - 14) as u64).into())
        };
        let sreq = REPLY_INNER_BYTES[1];
        Self {
            clk: Default::default(),
            rst: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            s_kind: Default::default(),
            s_qp: Default::default(),
            s_psn: Default::default(),
            s_ack: Default::default(),
            s_ack_psn: Default::default(),
            s_bitmap: Default::default(),
            s_vni: Default::default(),
            s_src_ip: Default::default(),
            s_dst_ip: Default::default(),
            cfg_src_mac: Default::default(),
            cfg_dst_mac: Default::default(),
            m_axis_tdata: Default::default(),
            m_axis_tkeep: Default::default(),
            m_axis_tvalid: Default::default(),
            m_axis_tready: Default::default(),
            m_axis_tlast: Default::default(),
            m_axis_tuser: Default::default(),
            status_frames: Default::default(),
            status_drop_kind: Default::default(),
            s0_valid: Default::default(),
            s0_kind: Default::default(),
            s0_qp: Default::default(),
            s0_psn: Default::default(),
            s0_ack: Default::default(),
            s0_ack_psn: Default::default(),
            s0_bitmap: Default::default(),
            s0_vni: Default::default(),
            s0_src_ip: Default::default(),
            s0_dst_ip: Default::default(),
            s0_bad: Default::default(),
            s1_valid: Default::default(),
            s1_class: Default::default(),
            s1_user: Default::default(),
            s1_v: Default::default(),
            s1_a: Default::default(),
            s1_b: Default::default(),
            s2_valid: Default::default(),
            s2_class: Default::default(),
            s2_user: Default::default(),
            s2_v: Default::default(),
            s2_p_ack: Default::default(),
            s2_p_sreq: Default::default(),
            s2_p_credit: Default::default(),
            s2_ab: Default::default(),
            s3_valid: Default::default(),
            s3_class: Default::default(),
            s3_user: Default::default(),
            s3_v: Default::default(),
            s3_icrc: Default::default(),
            s3_cs: Default::default(),
            s4_valid: Default::default(),
            s4_class: Default::default(),
            s4_user: Default::default(),
            s4_v: Default::default(),
            s4_icrc: Default::default(),
            s4_fold: Default::default(),
            s5_valid: Default::default(),
            s5_class: Default::default(),
            s5_user: Default::default(),
            s5_v: Default::default(),
            s5_icrc: Default::default(),
            s5_sum: Default::default(),
            s6_valid: Default::default(),
            s6_entry: Default::default(),
            s6_hi: Default::default(),
            pending: Default::default(),
            ready: Default::default(),
            second: Default::default(),
            cnt_frames: Default::default(),
            cnt_kind: Default::default(),
            sent: Default::default(),
            m_ack: ParityMatrix::new(icrc_rows(0)),
            m_sreq: ParityMatrix::new(icrc_rows(1)),
            m_credit: ParityMatrix::new(icrc_rows(2)),
            base_ack: base(0),
            base_sreq: base(1),
            base_credit: base(2),
            cs_ack: cs(0),
            cs_sreq: cs(1),
            cs_credit: cs(2),
            tmpl_ack: Constant::new(big_endian(&template(0))),
            tmpl_sreq: Constant::new(big_endian(&template(1))),
            tmpl_credit: Constant::new(big_endian(&template(2))),
            keep_ack: Constant::new(low_ones(REPLY_INNER_BYTES[0])),
            keep_credit: Constant::new(low_ones(REPLY_INNER_BYTES[2])),
            keep_sreq0: Constant::new(low_ones(sreq.min(K))),
            keep_sreq1: Constant::new(low_ones(sreq.saturating_sub(K))),
            sreq_two: Constant::new(sreq > K),
            depth: Constant::new((REPLY_TX_DEPTH as u64).into()),
            kinds: Constant::new(6.into()),
            op_base: Constant::new(0xbf.into()),
            v_ack: Constant::new(0x1f11.into()),
            v_sreq_ack: Constant::new(0x1fc0.into()),
            v_sreq_nak: Constant::new(0x60c0.into()),
            q: LutFifo::new(REPLY_TX_DEPTH),
            q_hi: LutFifo::new(REPLY_TX_DEPTH),
            icrc_swap: Default::default(),
            bitmap_swap: Default::default(),
            img_swap: Default::default(),
            take: Default::default(),
            good: Default::default(),
            psn_m1: Default::default(),
            fields: Default::default(),
            head_hi: Default::default(),
            op_credit: Default::default(),
            v_common: Default::default(),
            head_img: Default::default(),
            head_class: Default::default(),
            last: Default::default(),
            pop: Default::default(),
            up: Default::default(),
            down: Default::default(),
            next_pending: Default::default(),
            unused_q: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize> Logic for ReplyTx<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clk,
            s0_valid,
            s0_kind,
            s0_qp,
            s0_psn,
            s0_ack,
            s0_ack_psn,
            s0_bitmap,
            s0_vni,
            s0_src_ip,
            s0_dst_ip,
            s0_bad,
            s1_valid,
            s1_class,
            s1_user,
            s1_v,
            s1_a,
            s1_b,
            s2_valid,
            s2_class,
            s2_user,
            s2_v,
            s2_p_ack,
            s2_p_sreq,
            s2_p_credit,
            s2_ab,
            s3_valid,
            s3_class,
            s3_user,
            s3_v,
            s3_icrc,
            s3_cs,
            s4_valid,
            s4_class,
            s4_user,
            s4_v,
            s4_icrc,
            s4_fold,
            s5_valid,
            s5_class,
            s5_user,
            s5_v,
            s5_icrc,
            s5_sum,
            s6_valid,
            s6_entry,
            s6_hi,
            pending,
            ready,
            second,
            cnt_frames,
            cnt_kind,
            sent
        );
        self.q.clk.next = self.clk.val();
        self.q.rst.next = self.rst.val();
        self.q_hi.clk.next = self.clk.val();
        self.q_hi.rst.next = self.rst.val();

        // ---- S0: take a record. ----
        self.s_ready.next = self.ready.q.val();
        self.take.next = (self.s_valid.val() & self.ready.q.val());
        self.good.next = (self.take.val() & (self.s_kind.val() < self.kinds.val()));
        self.s0_valid.d.next = self.good.val();
        self.s0_bad.d.next = (self.take.val() & !self.good.val());
        if self.take.val() {
            self.s0_kind.d.next = self.s_kind.val();
            self.s0_qp.d.next = self.s_qp.val();
            self.s0_psn.d.next = self.s_psn.val();
            self.s0_ack.d.next = self.s_ack.val();
            self.s0_ack_psn.d.next = self.s_ack_psn.val();
            self.s0_bitmap.d.next = self.s_bitmap.val();
            self.s0_vni.d.next = self.s_vni.val();
            self.s0_src_ip.d.next = self.s_src_ip.val();
            self.s0_dst_ip.d.next = self.s_dst_ip.val();
        }

        // ---- S1: the varying fields of the kind, zero where the kind has none (an
        // ACK's ICRC lies where a request's ACK PSN is, a credit message's where the
        // syndrome is), and the sums of the address halves. ----
        self.s1_valid.d.next = self.s0_valid.q.val();
        self.s1_user.d.next = ((bit_cast::<48, 24>(self.s0_qp.q.val()) << 24)
            | bit_cast::<48, 24>(self.s0_vni.q.val()));
        self.psn_m1.next = (self.s0_psn.q.val() - 1);
        self.bitmap_swap.data_in.next = self.s0_bitmap.q.val();
        self.s1_a.d.next = (bit_cast::<18, 16>(self.s0_src_ip.q.val().get_bits::<16>(16))
            + bit_cast::<18, 16>(self.s0_src_ip.q.val().get_bits::<16>(0)));
        self.s1_b.d.next = (bit_cast::<18, 16>(self.s0_dst_ip.q.val().get_bits::<16>(16))
            + bit_cast::<18, 16>(self.s0_dst_ip.q.val().get_bits::<16>(0)));
        // Credit messages: opcode 0xC1..0xC4 = 0xBF + kind.
        self.op_credit.next = (bit_cast::<8, 3>(self.s0_kind.q.val()) + self.op_base.val());
        // The fields every kind carries: the QP and the two inner addresses.
        self.v_common.next = ((bit_cast::<VB, 24>(self.s0_qp.q.val()) << 16)
            | ((bit_cast::<VB, 32>(self.s0_src_ip.q.val()) << 344)
                | (bit_cast::<VB, 32>(self.s0_dst_ip.q.val()) << 376)));
        if self.s0_kind.q.val() == 0 {
            self.s1_class.d.next = 1.into();
            self.s1_v.d.next = (self.v_common.val()
                | ((bit_cast::<VB, 24>(self.psn_m1.val()) << 40) | self.v_ack.val()));
        } else if self.s0_kind.q.val() == 1 {
            self.s1_class.d.next = 2.into();
            if self.s0_ack.q.val() {
                self.s1_v.d.next = (self.v_common.val()
                    | (((bit_cast::<VB, 24>(self.s0_psn.q.val()) << 40)
                        | (bit_cast::<VB, 24>(self.s0_ack_psn.q.val()) << 64))
                        | ((bit_cast::<VB, 256>(self.bitmap_swap.data_out.val()) << 88)
                            | self.v_sreq_ack.val())));
            } else {
                self.s1_v.d.next = (self.v_common.val()
                    | ((bit_cast::<VB, 24>(self.s0_psn.q.val()) << 40)
                        | ((bit_cast::<VB, 256>(self.bitmap_swap.data_out.val()) << 88)
                            | self.v_sreq_nak.val())));
            }
        } else {
            self.s1_class.d.next = 4.into();
            self.s1_v.d.next = (self.v_common.val() | bit_cast::<VB, 8>(self.op_credit.val()));
        }

        // ---- S2: the three ICRC products; the address sums added. ----
        self.m_ack.data.next = self.s1_v.q.val();
        self.m_sreq.data.next = self.s1_v.q.val();
        self.m_credit.data.next = self.s1_v.q.val();
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_class.d.next = self.s1_class.q.val();
        self.s2_user.d.next = self.s1_user.q.val();
        self.s2_v.d.next = self.s1_v.q.val();
        self.s2_p_ack.d.next = self.m_ack.out.val();
        self.s2_p_sreq.d.next = self.m_sreq.out.val();
        self.s2_p_credit.d.next = self.m_credit.out.val();
        self.s2_ab.d.next =
            (bit_cast::<20, 18>(self.s1_a.q.val()) + bit_cast::<20, 18>(self.s1_b.q.val()));

        // ---- S3: the class's ICRC; the checksum's constant words added. ----
        self.s3_valid.d.next = self.s2_valid.q.val();
        self.s3_class.d.next = self.s2_class.q.val();
        self.s3_user.d.next = self.s2_user.q.val();
        self.s3_v.d.next = self.s2_v.q.val();
        if self.s2_class.q.val().get_bit(0) {
            self.s3_icrc.d.next = (self.s2_p_ack.q.val() ^ self.base_ack.val());
            self.s3_cs.d.next = (self.s2_ab.q.val() + self.cs_ack.val());
        } else if self.s2_class.q.val().get_bit(1) {
            self.s3_icrc.d.next = (self.s2_p_sreq.q.val() ^ self.base_sreq.val());
            self.s3_cs.d.next = (self.s2_ab.q.val() + self.cs_sreq.val());
        } else {
            self.s3_icrc.d.next = (self.s2_p_credit.q.val() ^ self.base_credit.val());
            self.s3_cs.d.next = (self.s2_ab.q.val() + self.cs_credit.val());
        }

        // ---- S4, S5: the ones' complement folds. ----
        self.s4_valid.d.next = self.s3_valid.q.val();
        self.s4_class.d.next = self.s3_class.q.val();
        self.s4_user.d.next = self.s3_user.q.val();
        self.s4_v.d.next = self.s3_v.q.val();
        self.s4_icrc.d.next = self.s3_icrc.q.val();
        self.s4_fold.d.next = (bit_cast::<17, 16>(self.s3_cs.q.val().get_bits::<16>(0))
            + bit_cast::<17, 4>(self.s3_cs.q.val().get_bits::<4>(16)));
        self.s5_valid.d.next = self.s4_valid.q.val();
        self.s5_class.d.next = self.s4_class.q.val();
        self.s5_user.d.next = self.s4_user.q.val();
        self.s5_v.d.next = self.s4_v.q.val();
        self.s5_icrc.d.next = self.s4_icrc.q.val();
        // Inverted here, at 16 bits: `~` inside the wider image expression would invert
        // the zero extension too.
        self.s5_sum.d.next = !(self.s4_fold.q.val().get_bits::<16>(0)
            + bit_cast::<16, 1>(self.s4_fold.q.val().get_bits::<1>(16)));

        // ---- The image, as a big-endian number (byte y at bits 8(127 - y)), then in
        // lane order into the FIFO. ----
        self.icrc_swap.data_in.next = self.s5_icrc.q.val();
        self.fields.next = (((bit_cast::<IMG, 48>(self.cfg_dst_mac.val()) << 976)
            | (bit_cast::<IMG, 48>(self.cfg_src_mac.val()) << 928))
            | ((bit_cast::<IMG, 16>(self.s5_sum.q.val()) << 816)
                | (bit_cast::<IMG, 32>(self.s5_v.q.val().get_bits::<32>(344)) << 784)))
            | (((bit_cast::<IMG, 32>(self.s5_v.q.val().get_bits::<32>(376)) << 752)
                | (bit_cast::<IMG, 8>(self.s5_v.q.val().get_bits::<8>(0)) << 680))
                | ((bit_cast::<IMG, 24>(self.s5_v.q.val().get_bits::<24>(16)) << 624)
                    | (bit_cast::<IMG, 24>(self.s5_v.q.val().get_bits::<24>(40)) << 592)))
            | (((bit_cast::<IMG, 8>(self.s5_v.q.val().get_bits::<8>(8)) << 584)
                | (bit_cast::<IMG, 24>(self.s5_v.q.val().get_bits::<24>(64)) << 528))
                | (bit_cast::<IMG, 256>(self.s5_v.q.val().get_bits::<256>(88)) << 272));
        if self.s5_class.q.val().get_bit(0) {
            self.img_swap.data_in.next = ((self.fields.val() | self.tmpl_ack.val())
                | (bit_cast::<IMG, 32>(self.icrc_swap.data_out.val()) << 528));
        } else if self.s5_class.q.val().get_bit(1) {
            self.img_swap.data_in.next = ((self.fields.val() | self.tmpl_sreq.val())
                | (bit_cast::<IMG, 32>(self.icrc_swap.data_out.val()) << 240));
        } else {
            self.img_swap.data_in.next = ((self.fields.val() | self.tmpl_credit.val())
                | (bit_cast::<IMG, 32>(self.icrc_swap.data_out.val()) << 560));
        }
        self.s6_valid.d.next = self.s5_valid.q.val();
        self.q.s_valid.next = (self.s6_valid.q.val() & !self.rst.val());
        self.q.s_data.next = self.s6_entry.q.val();
        self.q_hi.s_valid.next = (self.s6_valid.q.val() & !self.rst.val());
        self.q_hi.s_data.next = self.s6_hi.q.val();
        self.s6_entry.d.next = (((bit_cast::<Q_BITS, 48>(self.s5_user.q.val()) << 515)
            | (bit_cast::<Q_BITS, 3>(self.s5_class.q.val()) << 512))
            | bit_cast::<Q_BITS, 512>(self.img_swap.data_out.val().get_bits::<512>(0)));
        self.s6_hi.d.next = self.img_swap.data_out.val().get_bits::<HI_BITS>(512);

        // ---- Out: one frame of one or two beats from the FIFO's head. ----
        self.head_img.next = ((bit_cast::<IMG, HI_BITS>(self.q_hi.m_data.val()) << 512)
            | bit_cast::<IMG, 512>(self.q.m_data.val().get_bits::<512>(0)));
        self.head_class.next = self.q.m_data.val().get_bits::<3>(512);
        self.head_hi.next = (self.head_img.val() >> 512);
        self.m_axis_tvalid.next = self.q.m_valid.val();
        self.m_axis_tuser.next = self.q.m_data.val().get_bits::<48>(515);
        if self.second.q.val() {
            self.m_axis_tdata.next = self.head_hi.val().get_bits::<D>(0);
        } else {
            self.m_axis_tdata.next = self.head_img.val().get_bits::<D>(0);
        }
        self.last.next = true;
        if self.head_class.val().get_bit(0) {
            self.m_axis_tkeep.next = self.keep_ack.val();
        } else if self.head_class.val().get_bit(1) {
            if self.second.q.val() {
                self.m_axis_tkeep.next = self.keep_sreq1.val();
            } else {
                self.m_axis_tkeep.next = self.keep_sreq0.val();
                self.last.next = !self.sreq_two.val();
            }
        } else {
            self.m_axis_tkeep.next = self.keep_credit.val();
        }
        self.m_axis_tlast.next = self.last.val();
        self.pop.next = ((self.q.m_valid.val() & self.m_axis_tready.val()) & self.last.val());
        self.q.m_pop.next = self.pop.val();
        self.q_hi.m_pop.next = self.pop.val();
        if (self.q.m_valid.val() & self.m_axis_tready.val()) {
            self.second.d.next = !self.last.val();
        }
        self.unused_q.next = ((self.q_hi.m_valid.val() | self.head_class.val().get_bit(2))
            | self.img_swap.data_out.val().get_bits::<240>(784).any());

        // ---- Admission: frames accepted and not yet sent. ----
        self.up.next = (self.good.val() & !self.pop.val());
        self.down.next = (!self.good.val() & self.pop.val());
        self.next_pending.next = self.pending.q.val();
        if self.up.val() {
            self.next_pending.next = (self.pending.q.val() + 1);
        } else if self.down.val() {
            self.next_pending.next = (self.pending.q.val() - 1);
        }
        self.pending.d.next = self.next_pending.val();
        self.ready.d.next = (self.next_pending.val() < self.depth.val());

        // ---- Counters (a registered bit into each carry chain). ----
        self.sent.d.next = self.pop.val();
        self.cnt_frames.d.next =
            (self.cnt_frames.q.val() + bit_cast::<32, 1>(self.sent.q.val().into()));
        self.cnt_kind.d.next =
            (self.cnt_kind.q.val() + bit_cast::<32, 1>(self.s0_bad.q.val().into()));
        self.status_frames.next = self.cnt_frames.q.val();
        self.status_drop_kind.next = self.cnt_kind.q.val();

        if self.rst.val() {
            self.s0_valid.d.next = false;
            self.s0_bad.d.next = false;
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.s3_valid.d.next = false;
            self.s4_valid.d.next = false;
            self.s5_valid.d.next = false;
            self.s6_valid.d.next = false;
            self.pending.d.next = 0.into();
            self.ready.d.next = false;
            self.second.d.next = false;
            self.sent.d.next = false;
            self.cnt_frames.d.next = 0.into();
            self.cnt_kind.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_fit_and_do_not_overlap() {
        let mut seen = std::collections::HashSet::new();
        for i in 0..VB {
            let (byte, bit) = v_place(i);
            assert!(byte < 98 && seen.insert((byte, bit)), "v bit {i}");
            assert!(!ICRC_VARIANT_BYTES.contains(&(byte + 50)), "v bit {i}");
        }
    }

    /// The affine form against the bytewise CRC: random `v` (zero past the class's
    /// ICRC field, as the block zeroes what a kind does not carry) placed in the
    /// template, the masked fields set to ones, the CRC run byte by byte.
    #[test]
    fn affine_icrc_equals_the_bytewise_crc() {
        let mut r = crate::testutil::percent(7);
        for (class, &len) in REPLY_INNER_BYTES.iter().enumerate() {
            let rows = icrc_rows(class);
            for _ in 0..50 {
                let mut t = template(class);
                let mut v = vec![false; VB];
                for (i, x) in v.iter_mut().enumerate() {
                    let (byte, bit) = v_place(i);
                    if byte < len - 4 && r() < 50 {
                        *x = true;
                        t[byte] |= 1 << bit;
                    }
                }
                for w in ICRC_VARIANT_BYTES {
                    t[w - 50] = 0xff;
                }
                let want = !crc_bytes(crc_bytes(0xffff_ffff, &[0xff; 8]), &t[IP_AT..len - 4]);
                let mut got = !base_register(class);
                for (m, row) in rows.iter().enumerate() {
                    let p = row.iter().zip(&v).filter(|(a, b)| **a && **b).count();
                    got ^= ((p % 2) as u32) << m;
                }
                assert_eq!(got, want, "class {class}");
            }
        }
    }
}
