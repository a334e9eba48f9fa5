//! Golden model of the P-RNIC reply frames: ACKs, selective retransmission requests and
//! credit messages as RoCEv2 packets on the wire (docs/reply-frames.md, byte by byte).
//!
//! `reply_tx` builds these frames and `rx_decap` parses them (`prnic_top` does not
//! carry them yet: it hands its replies out as side-band records). This model fixes the
//! format both blocks are checked against, and gives the testbenches a builder and a
//! strict parser.
//!
//! Every reply is a RoCEv2 packet encapsulated in VXLAN exactly like a data packet
//! (outer Ethernet, IPv4, UDP 4789, VXLAN; inner Ethernet, IPv4, UDP 4791), with a BTH,
//! the headers of its kind, and a valid ICRC ([`crate::icrc`]):
//!
//! | kind | BTH opcode | after the BTH |
//! |---|---|---|
//! | ACK | 0x11 (RC ACKNOWLEDGE) | AETH |
//! | selective request (with or without an ACK) | 0xC0 | AETH, SREQ (36 bytes) |
//! | credit request | 0xC1 | — |
//! | credit grant (one batch) | 0xC2 | — |
//! | credit ON | 0xC3 | — |
//! | credit OFF | 0xC4 | — |
//!
//! 0xC0..=0xFF are the InfiniBand opcodes left to manufacturers, so a standard RoCEv2
//! stack never reads a P-RNIC request or credit message as one of its own.

use crate::rx_decap::{be16, be24, ipv4, ROCEV2_PORT, VXLAN_PORT};

pub const OP_ACK: u8 = 0x11;
pub const OP_SREQ: u8 = 0xc0;
pub const OP_CREDIT_REQ: u8 = 0xc1;
pub const OP_CREDIT_GRANT: u8 = 0xc2;
pub const OP_CREDIT_ON: u8 = 0xc3;
pub const OP_CREDIT_OFF: u8 = 0xc4;
/// AETH syndromes: ACK with no end-to-end credit count (0b000_11111), NAK "PSN sequence
/// error" (0b011_00000).
pub const AETH_ACK: u8 = 0x1f;
pub const AETH_NAK_SEQ: u8 = 0x60;
/// Missing-PSN bitmap of a request: 256 PSNs from its base.
pub const SREQ_BITMAP_BYTES: usize = 32;
const PSN_MASK: u32 = 0xff_ffff;

/// One reply, as the RTL's records carry it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// Every PSN before `next` arrived (the QP's next expected PSN).
    Ack {
        qp: u32,
        next: u32,
    },
    /// PSNs `base + j` with bit j of `missing` set are missing; `ack` is the next
    /// expected PSN when the record also acknowledges.
    Request {
        qp: u32,
        ack: Option<u32>,
        base: u32,
        missing: [u8; SREQ_BITMAP_BYTES],
    },
    CreditRequest {
        qp: u32,
    },
    CreditGrant {
        qp: u32,
    },
    CreditOnOff {
        qp: u32,
        on: bool,
    },
}

impl Reply {
    /// The reply a record of `reply_tx`'s input or `rx_decap`'s `m_reply_*` output
    /// stands for: `kind` 0 ACK (`psn` the next expected), 1 request (`psn` the base,
    /// `ack` the next expected when it also acknowledges), 2 credit request, 3 grant,
    /// 4 ON, 5 OFF; `None` for any other kind.
    pub fn from_record(
        kind: u64,
        qp: u32,
        psn: u32,
        ack: Option<u32>,
        missing: [u8; SREQ_BITMAP_BYTES],
    ) -> Option<Reply> {
        Some(match kind {
            0 => Reply::Ack { qp, next: psn },
            1 => Reply::Request {
                qp,
                ack,
                base: psn,
                missing,
            },
            2 => Reply::CreditRequest { qp },
            3 => Reply::CreditGrant { qp },
            4 | 5 => Reply::CreditOnOff { qp, on: kind == 4 },
            _ => return None,
        })
    }

    pub fn qp(&self) -> u32 {
        match *self {
            Reply::Ack { qp, .. }
            | Reply::Request { qp, .. }
            | Reply::CreditRequest { qp }
            | Reply::CreditGrant { qp }
            | Reply::CreditOnOff { qp, .. } => qp,
        }
    }
}

/// Why a frame is not a well-formed reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyDrop {
    /// Shorter than the headers of its kind, or a length field disagrees.
    BadLength,
    /// Not VXLAN-encapsulated IPv4/UDP RoCEv2 with IHL 5.
    NotRoce,
    /// A BTH opcode that is not a reply.
    BadOpcode,
    /// An AETH syndrome other than ACK or the NAK a request carries.
    BadSyndrome,
    BadIcrc,
}

/// The addresses and VNI a reply travels with: the inner ones the RNIC writes (the
/// tenant's view, `rtl/src/reply_tx.rs`) and the outer ones VXLAN adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplyPath {
    pub vni: u32,
    pub outer_src_ip: u32,
    pub outer_dst_ip: u32,
    pub udp_src_port: u16,
    pub inner_dst_mac: [u8; 6],
    pub inner_src_mac: [u8; 6],
    pub inner_src_ip: u32,
    pub inner_dst_ip: u32,
}

/// The inner UDP source port of every reply (the outer one carries the entropy).
pub const INNER_UDP_SRC_PORT: u16 = 0xc000;

/// The wire frame of `r`: the outer headers and VXLAN, then [`reply_inner`].
pub fn reply_frame(r: &Reply, path: &ReplyPath) -> Vec<u8> {
    let inner = reply_inner(r, path);
    let total = 50 + inner.len();
    let mut f = Vec::with_capacity(total);
    f.extend_from_slice(&[0x02, 0, 0, 0, 0, 0x20, 0x02, 0, 0, 0, 0, 0x10, 0x08, 0x00]);
    ipv4(
        &mut f,
        (total - 14) as u16,
        path.outer_src_ip,
        path.outer_dst_ip,
    );
    f.extend_from_slice(&path.udp_src_port.to_be_bytes());
    f.extend_from_slice(&VXLAN_PORT.to_be_bytes());
    f.extend_from_slice(&((total - 34) as u16).to_be_bytes());
    f.extend_from_slice(&[0, 0, 0x08, 0, 0, 0]);
    f.extend_from_slice(&path.vni.to_be_bytes()[1..4]);
    f.push(0);
    f.extend_from_slice(&inner);
    f
}

/// The inner frame of `r` (inner Ethernet to ICRC), as the RNIC hands it to VXLAN
/// encapsulation.
pub fn reply_inner(r: &Reply, path: &ReplyPath) -> Vec<u8> {
    let (opcode, psn, mut after) = match *r {
        Reply::Ack { next, .. } => (
            OP_ACK,
            next.wrapping_sub(1) & PSN_MASK,
            vec![AETH_ACK, 0, 0, 0],
        ),
        Reply::Request {
            ack, base, missing, ..
        } => {
            let mut a = vec![
                if ack.is_some() {
                    AETH_ACK
                } else {
                    AETH_NAK_SEQ
                },
                0,
                0,
                0,
            ];
            a.push(0);
            a.extend_from_slice(&ack.unwrap_or(0).to_be_bytes()[1..4]);
            a.extend_from_slice(&missing);
            (OP_SREQ, base & PSN_MASK, a)
        }
        Reply::CreditRequest { .. } => (OP_CREDIT_REQ, 0, vec![]),
        Reply::CreditGrant { .. } => (OP_CREDIT_GRANT, 0, vec![]),
        Reply::CreditOnOff { on, .. } => (if on { OP_CREDIT_ON } else { OP_CREDIT_OFF }, 0, vec![]),
    };
    // Inner: Ethernet 14, IPv4 20, UDP 8, BTH 12, the kind's headers, ICRC 4.
    let inner = 14 + 20 + 8 + 12 + after.len() + 4;
    let mut f = Vec::with_capacity(inner);
    f.extend_from_slice(&path.inner_dst_mac);
    f.extend_from_slice(&path.inner_src_mac);
    f.extend_from_slice(&[0x08, 0x00]);
    ipv4(
        &mut f,
        (inner - 14) as u16,
        path.inner_src_ip,
        path.inner_dst_ip,
    );
    f.extend_from_slice(&INNER_UDP_SRC_PORT.to_be_bytes());
    f.extend_from_slice(&ROCEV2_PORT.to_be_bytes());
    f.extend_from_slice(&((inner - 34) as u16).to_be_bytes());
    f.extend_from_slice(&[0, 0]);
    f.extend_from_slice(&[opcode, 0x40, 0xff, 0xff, 0x00]);
    f.extend_from_slice(&r.qp().to_be_bytes()[1..4]);
    f.push(0);
    f.extend_from_slice(&psn.to_be_bytes()[1..4]);
    f.append(&mut after);
    f.extend_from_slice(&[0; 4]);
    crate::icrc::set_icrc(&mut f[14..]);
    f
}

/// Parse a reply frame strictly: every length agrees with the frame, the opcode and
/// syndrome are a reply's, the ICRC is valid. (The outer checks a data frame gets,
/// checksum and VNI, apply first and are not repeated here.)
pub fn parse_reply(f: &[u8]) -> Result<Reply, ReplyDrop> {
    if f.len() < 50 + 14 + 20 + 8 + 12 + 4 {
        return Err(ReplyDrop::BadLength);
    }
    if be16(f, 12) != 0x0800
        || f[14] != 0x45
        || f[23] != 17
        || be16(f, 36) != VXLAN_PORT
        || be16(f, 62) != 0x0800
        || f[64] != 0x45
        || f[73] != 17
        || be16(f, 86) != ROCEV2_PORT
    {
        return Err(ReplyDrop::NotRoce);
    }
    let len = f.len();
    let at = |o| be16(f, o) as usize;
    if at(16) != len - 14 || at(38) != len - 34 || at(66) != len - 64 {
        return Err(ReplyDrop::BadLength);
    }
    let opcode = f[92];
    let Some(want) = reply_len(opcode) else {
        return Err(ReplyDrop::BadOpcode);
    };
    if len != want {
        return Err(ReplyDrop::BadLength);
    }
    if !crate::icrc::icrc_ok(&f[64..]) {
        return Err(ReplyDrop::BadIcrc);
    }
    if !syndrome_ok(opcode, f[104]) {
        return Err(ReplyDrop::BadSyndrome);
    }
    Ok(decode_reply(f))
}

/// The wire length of a reply with BTH opcode `opcode`, or `None` if it is not a reply.
pub fn reply_len(opcode: u8) -> Option<usize> {
    let after = match opcode {
        OP_ACK => 4,
        OP_SREQ => 4 + 4 + SREQ_BITMAP_BYTES,
        OP_CREDIT_REQ..=OP_CREDIT_OFF => 0,
        _ => return None,
    };
    Some(104 + after + 4)
}

/// Whether a reply with BTH opcode `opcode` may carry `syndrome` in byte 104: an ACK
/// only the ACK syndrome, a request that or the NAK; a credit message has no AETH.
pub fn syndrome_ok(opcode: u8, syndrome: u8) -> bool {
    match opcode {
        OP_ACK => syndrome == AETH_ACK,
        OP_SREQ => syndrome == AETH_ACK || syndrome == AETH_NAK_SEQ,
        _ => reply_len(opcode).is_some(),
    }
}

/// The reply a frame carries whose opcode, length and syndrome have been checked
/// ([`reply_len`], [`syndrome_ok`]).
pub fn decode_reply(f: &[u8]) -> Reply {
    let qp = be24(f, 97);
    let psn = be24(f, 101);
    match f[92] {
        OP_ACK => Reply::Ack {
            qp,
            next: (psn + 1) & PSN_MASK,
        },
        OP_SREQ => Reply::Request {
            qp,
            ack: (f[104] == AETH_ACK).then(|| be24(f, 109)),
            base: psn,
            missing: f[112..144].try_into().unwrap(),
        },
        OP_CREDIT_REQ => Reply::CreditRequest { qp },
        OP_CREDIT_GRANT => Reply::CreditGrant { qp },
        op => Reply::CreditOnOff {
            qp,
            on: op == OP_CREDIT_ON,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATH: ReplyPath = ReplyPath {
        vni: 0x123456,
        outer_src_ip: 0x0a00_0001,
        outer_dst_ip: 0x0a00_0002,
        udp_src_port: 0xc123,
        inner_dst_mac: [0x02, 0, 0, 0, 0, 0x01],
        inner_src_mac: [0x02, 0, 0, 0, 0, 0x02],
        inner_src_ip: 0xc0a8_0002,
        inner_dst_ip: 0xc0a8_0001,
    };

    fn all() -> Vec<Reply> {
        let mut missing = [0u8; SREQ_BITMAP_BYTES];
        missing[0] = 0b101;
        missing[31] = 0x80;
        vec![
            Reply::Ack { qp: 7, next: 100 },
            Reply::Ack {
                qp: 0xffff,
                next: 0,
            },
            Reply::Request {
                qp: 3,
                ack: Some(0xff_fff0),
                base: 0xff_fff0,
                missing,
            },
            Reply::Request {
                qp: 3,
                ack: None,
                base: 5,
                missing,
            },
            Reply::CreditRequest { qp: 9 },
            Reply::CreditGrant { qp: 10 },
            Reply::CreditOnOff { qp: 11, on: true },
            Reply::CreditOnOff { qp: 12, on: false },
        ]
    }

    #[test]
    fn every_reply_round_trips_with_a_valid_icrc() {
        for r in all() {
            let f = reply_frame(&r, &PATH);
            assert!(crate::icrc::icrc_ok(&f[64..]), "{r:?}");
            assert_eq!(parse_reply(&f), Ok(r.clone()));
            // The outer IPv4 header checksums to 0xffff, as rx_decap checks.
            let sum: u32 = (0..10)
                .map(|k| u16::from_be_bytes([f[14 + 2 * k], f[15 + 2 * k]]) as u32)
                .sum();
            assert_eq!((sum & 0xffff) + (sum >> 16), 0xffff);
        }
    }

    #[test]
    fn sizes_on_the_wire() {
        // ACK: 50 + 14 + 20 + 8 + 12 + 4 + 4 bytes; request 36 more; credit 4 fewer.
        // An ACK and a credit message fit one 128-byte beat; a request takes two.
        assert_eq!(reply_frame(&all()[0], &PATH).len(), 112);
        assert_eq!(reply_frame(&all()[2], &PATH).len(), 148);
        assert_eq!(reply_frame(&all()[4], &PATH).len(), 108);
    }

    #[test]
    fn a_flipped_bit_in_the_inner_packet_is_refused() {
        for r in all() {
            let f = reply_frame(&r, &PATH);
            for i in 64..f.len() {
                if crate::icrc::WIRE_MASKED_BYTES.contains(&i) {
                    continue;
                }
                let mut x = f.clone();
                x[i] ^= 1 << (i % 8);
                assert!(parse_reply(&x).is_err(), "{r:?} byte {i}");
            }
        }
        let mut x = reply_frame(&all()[0], &PATH);
        x[92] = 0x0a;
        assert_eq!(parse_reply(&x), Err(ReplyDrop::BadOpcode));
        assert_eq!(parse_reply(&x[..100]), Err(ReplyDrop::BadLength));
    }
}
