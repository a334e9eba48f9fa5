//! Golden model of the receive path's decapsulation (`rx_decap`), written from RFC 7348
//! (VXLAN), RFC 791/1071 (IPv4 and its checksum), RFC 768 (UDP) and the RoCEv2 packet
//! layout (BTH, RETH, ImmDt), plus a builder for well-formed wire frames.
//!
//! The P-RNIC format: every data packet is an RC RDMA WRITE carrying BTH + RETH (the
//! address travels with every packet so it can be placed on arrival); the
//! write-with-immediate opcodes add ImmDt. A 4-byte ICRC ends the frame; it is checked
//! last ([`crate::icrc`]).

use crate::reply::{self, Reply};
use crate::tx_encap::ipv4_checksum;
pub use crate::tx_encap::{ROCEV2_PORT, VXLAN_PORT};
/// The smallest reply frame (a credit message); shorter frames are truncated.
pub const REPLY_MIN_BYTES: usize = 108;
/// RC opcodes accepted.
pub const OP_WRITE_FIRST: u8 = 0x06;
pub const OP_WRITE_MIDDLE: u8 = 0x07;
pub const OP_WRITE_LAST: u8 = 0x08;
pub const OP_WRITE_LAST_IMM: u8 = 0x09;
pub const OP_WRITE_ONLY: u8 = 0x0a;
pub const OP_WRITE_ONLY_IMM: u8 = 0x0b;

/// Why a frame was dropped, in the order the checks apply (the RTL's counter numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RxDrop {
    BadKeep = 1,
    TooLong,
    Truncated,
    NotIpv4,
    BadChecksum,
    BadPort,
    BadVxlan,
    UnknownVni,
    BadInner,
    BadOpcode,
    BadLength,
    BadIcrc,
}

impl RxDrop {
    pub const ALL: [RxDrop; 12] = [
        RxDrop::BadKeep,
        RxDrop::TooLong,
        RxDrop::Truncated,
        RxDrop::NotIpv4,
        RxDrop::BadChecksum,
        RxDrop::BadPort,
        RxDrop::BadVxlan,
        RxDrop::UnknownVni,
        RxDrop::BadInner,
        RxDrop::BadOpcode,
        RxDrop::BadLength,
        RxDrop::BadIcrc,
    ];
}

/// One RDMA write packet as the sender means it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RdmaPacket {
    pub vni: u32,
    pub qp: u32,
    pub psn: u32,
    pub opcode: u8,
    pub ack_req: bool,
    pub va: u64,
    pub rkey: u32,
    /// ImmDt (only with the `*_IMM` opcodes).
    pub imm: Option<u32>,
    pub payload: Vec<u8>,
}

/// A frame that passed every check: a data packet for reordering and placement, or a
/// reply (docs/reply-frames.md) for the sender side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RxFrame {
    Data(Parsed),
    Reply {
        /// The `LOCAL_VNI` slot the VNI matched.
        vni_slot: u8,
        reply: Reply,
    },
}

/// What decapsulation hands to reordering and placement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The `LOCAL_VNI` slot the VNI matched.
    pub vni_slot: u8,
    pub qp: u32,
    pub psn: u32,
    pub ack_req: bool,
    pub imm: Option<u32>,
    pub va: u64,
    pub rkey: u32,
    pub payload: Vec<u8>,
}

impl Parsed {
    /// What `rx_reorder` sees of the packet.
    pub fn header(&self) -> crate::rx_reorder::Header {
        crate::rx_reorder::Header {
            qp: self.qp,
            psn: self.psn,
            vni_slot: self.vni_slot,
            ack_req: self.ack_req,
            imm: self.imm,
        }
    }
}

/// The wire frame for `p` (outer Ethernet/IPv4/UDP/VXLAN, inner Ethernet/IPv4/UDP,
/// BTH, RETH, ImmDt, payload, ICRC). Lengths, the IPv4 checksums and the ICRC are
/// correct.
pub fn wire_frame(p: &RdmaPacket) -> Vec<u8> {
    let has_imm = matches!(p.opcode, OP_WRITE_LAST_IMM | OP_WRITE_ONLY_IMM);
    // Inner frame: Ethernet 14, IPv4 20, UDP 8, BTH 12, RETH 16, [ImmDt 4], payload, ICRC 4.
    let inner_len = 14 + 20 + 8 + 12 + 16 + if has_imm { 4 } else { 0 } + p.payload.len() + 4;
    let mut f = Vec::with_capacity(50 + inner_len);
    // Outer Ethernet.
    f.extend_from_slice(&[0x02, 0, 0, 0, 0, 0x10, 0x02, 0, 0, 0, 0, 0x20, 0x08, 0x00]);
    let total = 50 + inner_len;
    ipv4(&mut f, (total - 14) as u16, 0x0a00_0002, 0x0a00_0001);
    f.extend_from_slice(&(0xc000u16 | (p.psn as u16 & 0x3fff)).to_be_bytes());
    f.extend_from_slice(&VXLAN_PORT.to_be_bytes());
    f.extend_from_slice(&((total - 34) as u16).to_be_bytes());
    f.extend_from_slice(&[0, 0]);
    f.extend_from_slice(&[0x08, 0, 0, 0]);
    f.extend_from_slice(&p.vni.to_be_bytes()[1..4]);
    f.push(0);
    // Inner Ethernet, IPv4, UDP.
    f.extend_from_slice(&[0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00]);
    ipv4(&mut f, (inner_len - 14) as u16, 0xc0a8_0001, 0xc0a8_0002);
    f.extend_from_slice(&0xc000u16.to_be_bytes());
    f.extend_from_slice(&ROCEV2_PORT.to_be_bytes());
    f.extend_from_slice(&((inner_len - 34) as u16).to_be_bytes());
    f.extend_from_slice(&[0, 0]);
    // BTH.
    f.extend_from_slice(&[p.opcode, 0x40, 0xff, 0xff, 0x00]);
    f.extend_from_slice(&p.qp.to_be_bytes()[1..4]);
    f.push(if p.ack_req { 0x80 } else { 0 });
    f.extend_from_slice(&p.psn.to_be_bytes()[1..4]);
    // RETH.
    f.extend_from_slice(&p.va.to_be_bytes());
    f.extend_from_slice(&p.rkey.to_be_bytes());
    f.extend_from_slice(&(p.payload.len() as u32).to_be_bytes());
    if has_imm {
        f.extend_from_slice(&p.imm.unwrap_or(0).to_be_bytes());
    }
    f.extend_from_slice(&p.payload);
    f.extend_from_slice(&[0; 4]);
    crate::icrc::set_icrc(&mut f[64..]);
    f
}

pub(crate) fn ipv4(f: &mut Vec<u8>, total: u16, src: u32, dst: u32) {
    let start = f.len();
    f.extend_from_slice(&[0x45, 0]);
    f.extend_from_slice(&total.to_be_bytes());
    f.extend_from_slice(&[0, 0, 0x40, 0, 64, 17, 0, 0]);
    f.extend_from_slice(&src.to_be_bytes());
    f.extend_from_slice(&dst.to_be_bytes());
    let c = ipv4_checksum(&f[start..start + 20]);
    f[start + 10..start + 12].copy_from_slice(&c.to_be_bytes());
}

pub(crate) fn be16(f: &[u8], o: usize) -> u16 {
    u16::from_be_bytes([f[o], f[o + 1]])
}

pub(crate) fn be24(f: &[u8], o: usize) -> u32 {
    u32::from_be_bytes([0, f[o], f[o + 1], f[o + 2]])
}

fn be32(f: &[u8], o: usize) -> u32 {
    u32::from_be_bytes([f[o], f[o + 1], f[o + 2], f[o + 3]])
}

/// Check and strip a wire frame. `local_vni` are the `LOCAL_VNI0..7` register words
/// (VNI in bits 23:0, enable in bit 31); `max_frame` the largest wire frame accepted.
pub fn decapsulate(f: &[u8], local_vni: &[u32; 8], max_frame: usize) -> Result<RxFrame, RxDrop> {
    let len = f.len();
    if len > max_frame {
        return Err(RxDrop::TooLong);
    }
    // Shorter than the smallest reply, or than a data packet's headers and ICRC.
    let reply_len = reply::reply_len(f.get(92).copied().unwrap_or(0));
    if len < REPLY_MIN_BYTES || (reply_len.is_none() && len < 124) {
        return Err(RxDrop::Truncated);
    }
    if be16(f, 12) != 0x0800 || f[14] != 0x45 || f[23] != 17 {
        return Err(RxDrop::NotIpv4);
    }
    // The ones' complement sum over the header, checksum included, is 0xffff.
    let mut sum: u32 = (0..10).map(|k| be16(f, 14 + 2 * k) as u32).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    if sum != 0xffff {
        return Err(RxDrop::BadChecksum);
    }
    if be16(f, 36) != VXLAN_PORT {
        return Err(RxDrop::BadPort);
    }
    if f[42] & 0x08 == 0 {
        return Err(RxDrop::BadVxlan);
    }
    let vni = be24(f, 46);
    let Some(slot) = local_vni
        .iter()
        .position(|w| w >> 31 == 1 && w & 0xff_ffff == vni)
    else {
        return Err(RxDrop::UnknownVni);
    };
    if be16(f, 62) != 0x0800
        || f[64] != 0x45
        || f[73] != 17
        || be16(f, 86) != ROCEV2_PORT
        || f[97] != 0
    {
        return Err(RxDrop::BadInner);
    }
    let opcode = f[92];
    // A reply whose AETH syndrome its kind may not carry counts as a bad opcode.
    let reply = reply_len.is_some() && reply::syndrome_ok(opcode, f[104]);
    if !(OP_WRITE_FIRST..=OP_WRITE_ONLY_IMM).contains(&opcode) && !reply {
        return Err(RxDrop::BadOpcode);
    }
    if let Some(want) = reply_len {
        if be16(f, 16) as usize != len - 14
            || be16(f, 38) as usize != len - 34
            || be16(f, 66) as usize != len - 64
            || len != want
        {
            return Err(RxDrop::BadLength);
        }
        if !crate::icrc::icrc_ok(&f[64..]) {
            return Err(RxDrop::BadIcrc);
        }
        return Ok(RxFrame::Reply {
            vni_slot: slot as u8,
            reply: reply::decode_reply(f),
        });
    }
    let has_imm = matches!(opcode, OP_WRITE_LAST_IMM | OP_WRITE_ONLY_IMM);
    let hdr = if has_imm { 124 } else { 120 };
    if len < hdr + 4 {
        return Err(RxDrop::BadLength);
    }
    let payload_len = len - hdr - 4;
    if be16(f, 16) as usize != len - 14
        || be16(f, 38) as usize != len - 34
        || be16(f, 66) as usize != len - 64
        || be32(f, 116) as usize != payload_len
    {
        return Err(RxDrop::BadLength);
    }
    // The inner IPv4 packet, from its header through the ICRC.
    if !crate::icrc::icrc_ok(&f[64..]) {
        return Err(RxDrop::BadIcrc);
    }
    Ok(RxFrame::Data(Parsed {
        vni_slot: slot as u8,
        qp: be24(f, 97),
        psn: be24(f, 101),
        ack_req: f[100] & 0x80 != 0,
        imm: has_imm.then(|| be32(f, 120)),
        va: u64::from_be_bytes(f[104..112].try_into().unwrap()),
        rkey: be32(f, 112),
        payload: f[hdr..hdr + payload_len].to_vec(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(opcode: u8, n: usize) -> RdmaPacket {
        RdmaPacket {
            vni: 0x1234,
            qp: 77,
            psn: 0xabcdef,
            opcode,
            ack_req: true,
            va: 0x1122_3344_5566_7788,
            rkey: 0xfeed,
            imm: Some(0xcafe),
            payload: (0..n).map(|i| i as u8).collect(),
        }
    }

    const VNIS: [u32; 8] = [0, 0x8000_0001, 0, 0x8000_1234, 0, 0, 0, 0];

    #[test]
    fn round_trip() {
        for op in [OP_WRITE_ONLY, OP_WRITE_ONLY_IMM] {
            let p = pkt(op, 1000);
            let Ok(RxFrame::Data(r)) = decapsulate(&wire_frame(&p), &VNIS, 9000) else {
                panic!("not placed");
            };
            assert_eq!(r.vni_slot, 3);
            assert_eq!((r.qp, r.psn, r.va, r.rkey), (77, 0xabcdef, p.va, 0xfeed));
            assert_eq!(r.imm, (op == OP_WRITE_ONLY_IMM).then_some(0xcafe));
            assert_eq!(r.payload, p.payload);
            assert!(r.ack_req);
        }
    }

    #[test]
    fn each_check() {
        let good = wire_frame(&pkt(OP_WRITE_ONLY, 100));
        let d = |f: &[u8]| decapsulate(f, &VNIS, 9000).err();
        assert_eq!(d(&good), None);
        assert_eq!(d(&good[..100]), Some(RxDrop::Truncated));
        assert_eq!(decapsulate(&good, &VNIS, 200).err(), Some(RxDrop::TooLong));
        let mut f = good.clone();
        f[12] = 0x86;
        assert_eq!(d(&f), Some(RxDrop::NotIpv4));
        let mut f = good.clone();
        f[30] ^= 1;
        assert_eq!(d(&f), Some(RxDrop::BadChecksum));
        let mut f = good.clone();
        f[37] ^= 1;
        assert_eq!(d(&f), Some(RxDrop::BadPort));
        let mut f = good.clone();
        f[42] = 0;
        assert_eq!(d(&f), Some(RxDrop::BadVxlan));
        let mut f = good.clone();
        f[48] ^= 1;
        assert_eq!(d(&f), Some(RxDrop::UnknownVni));
        let mut f = good.clone();
        f[87] ^= 1;
        assert_eq!(d(&f), Some(RxDrop::BadInner));
        let mut f = good.clone();
        f[92] = 0x04;
        assert_eq!(d(&f), Some(RxDrop::BadOpcode));
        let mut f = good.clone();
        f[119] ^= 1;
        assert_eq!(d(&f), Some(RxDrop::BadLength));
        let mut f = good.clone();
        f.push(0);
        assert_eq!(d(&f), Some(RxDrop::BadLength));
        // Any changed bit of the inner packet outside the masked fields, payload and
        // ICRC included, fails the ICRC if no earlier check catches it.
        for i in 64..good.len() {
            let mut f = good.clone();
            f[i] ^= 0x20;
            let masked = crate::icrc::WIRE_MASKED_BYTES.contains(&i);
            let r = d(&f);
            assert!(masked == r.is_none(), "byte {i}: {r:?}");
        }
        let mut f = good.clone();
        f[150] ^= 1;
        assert_eq!(d(&f), Some(RxDrop::BadIcrc));
    }

    fn reply_path() -> crate::reply::ReplyPath {
        crate::reply::ReplyPath {
            vni: 0x1234,
            outer_src_ip: 0x0a00_0001,
            outer_dst_ip: 0x0a00_0002,
            udp_src_port: 0xc001,
            inner_dst_mac: [2, 0, 0, 0, 0, 1],
            inner_src_mac: [2, 0, 0, 0, 0, 2],
            inner_src_ip: 0xc0a8_0001,
            inner_dst_ip: 0xc0a8_0002,
        }
    }

    #[test]
    fn replies_pass_as_replies() {
        let mut missing = [0u8; crate::reply::SREQ_BITMAP_BYTES];
        missing[3] = 0x81;
        missing[31] = 1;
        for r in [
            Reply::Ack { qp: 5, next: 0 },
            Reply::Request {
                qp: 6,
                ack: Some(9),
                base: 12,
                missing,
            },
            Reply::Request {
                qp: 6,
                ack: None,
                base: 0xff_ffff,
                missing,
            },
            Reply::CreditRequest { qp: 1 },
            Reply::CreditGrant { qp: 2 },
            Reply::CreditOnOff { qp: 3, on: true },
            Reply::CreditOnOff { qp: 4, on: false },
        ] {
            let f = crate::reply::reply_frame(&r, &reply_path());
            assert_eq!(
                decapsulate(&f, &VNIS, 9000),
                Ok(RxFrame::Reply {
                    vni_slot: 3,
                    reply: r.clone()
                })
            );
            // Outer checks and the VNI apply as to data; the length is the kind's.
            let mut g = f.clone();
            g[48] ^= 1;
            assert_eq!(decapsulate(&g, &VNIS, 9000), Err(RxDrop::UnknownVni));
            let mut g = f.clone();
            g.push(0);
            assert_eq!(decapsulate(&g, &VNIS, 9000), Err(RxDrop::BadLength));
            assert_eq!(
                decapsulate(&f[..f.len() - 1], &VNIS, 9000),
                Err(if f.len() == REPLY_MIN_BYTES {
                    RxDrop::Truncated
                } else {
                    RxDrop::BadLength
                })
            );
            for i in 64..f.len() {
                let mut g = f.clone();
                g[i] ^= 0x04;
                let masked = crate::icrc::WIRE_MASKED_BYTES.contains(&i);
                assert_eq!(
                    decapsulate(&g, &VNIS, 9000).is_ok(),
                    masked,
                    "{r:?} byte {i}"
                );
            }
        }
        // An ACK with another syndrome (an RNR NAK) is not one this RNIC takes.
        let mut f = crate::reply::reply_frame(&Reply::Ack { qp: 5, next: 1 }, &reply_path());
        f[104] = 0x20;
        assert_eq!(decapsulate(&f, &VNIS, 9000), Err(RxDrop::BadOpcode));
    }
}
