//! Golden model of `tx_encap`: the outer frame, byte for byte, or the drop reason.
//!
//! Written from the VXLAN (RFC 7348), IPv4 (RFC 791, checksum RFC 1071) and RoCEv2
//! layouts, not from the RTL. Also: stimulus (RoCEv2 frames of a given length) and a
//! classic libpcap writer so any frame list opens in Wireshark or tshark.

use crate::flow_table::Value;
use std::io::Write;

/// Outer header bytes: Ethernet 14 + IPv4 20 + UDP 8 + VXLAN 8.
pub const OUTER_BYTES: usize = 50;
/// Inner Ethernet + IPv4 + UDP + BTH.
pub const MIN_INNER_BYTES: usize = 54;
pub const VXLAN_PORT: u16 = 4789;
pub const ROCEV2_PORT: u16 = 4791;

/// Why a frame did not leave, in the order the hardware checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DropReason {
    TooLong,
    BadKeep,
    Short,
    NotIpv4,
    Miss,
}

impl DropReason {
    pub const ALL: [DropReason; 5] = [
        DropReason::TooLong,
        DropReason::BadKeep,
        DropReason::Short,
        DropReason::NotIpv4,
        DropReason::Miss,
    ];
    pub fn name(self) -> &'static str {
        match self {
            DropReason::TooLong => "too_long",
            DropReason::BadKeep => "bad_keep",
            DropReason::Short => "short",
            DropReason::NotIpv4 => "not_ipv4",
            DropReason::Miss => "miss",
        }
    }
}

/// The CSR-programmed TX settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TxSettings {
    /// Port MAC addresses (48 bits) and underlay IPv4 addresses, ports 0 and 1.
    pub port_mac: [u64; 2],
    pub port_ip: [u32; 2],
    pub dscp: u8,
    pub ttl: u8,
    pub bth_mark: bool,
    /// `packet.max_frame_bytes`.
    pub max_frame_bytes: usize,
}

/// A tenant frame as the host presents it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxFrame {
    pub bytes: Vec<u8>,
    /// The sending function's VNI and QP (`tuser`).
    pub vni: u32,
    pub qp: u32,
    /// Present `tkeep` wrongly on this beat: a hole in a non-last beat, or a
    /// non-low-justified last beat.
    pub bad_keep_beat: Option<usize>,
}

/// What leaves for one frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TxOutcome {
    Sent { frame: Vec<u8>, port: u8 },
    Dropped(DropReason),
}

/// Inner destination IPv4 (bytes 30..34), 0 if the frame is too short to hold it.
pub fn inner_dst_ip(b: &[u8]) -> u32 {
    if b.len() < 34 {
        return 0;
    }
    u32::from_be_bytes([b[30], b[31], b[32], b[33]])
}

fn is_rocev2_ihl5(b: &[u8]) -> bool {
    b.len() >= 38
        && b[14] == 0x45
        && b[23] == 17
        && u16::from_be_bytes([b[36], b[37]]) == ROCEV2_PORT
}

/// RFC 1071 checksum of a header with its checksum field zero.
pub fn ipv4_checksum(h: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for w in h.chunks(2) {
        sum += u32::from(u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)]));
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The expected result for one frame. `lookup` is the flow table's answer for
/// `{VNI, inner destination IPv4}` and `sport` the sprayer's port for this frame.
pub fn encapsulate(s: &TxSettings, f: &TxFrame, lookup: Option<Value>, sport: u16) -> TxOutcome {
    let b = &f.bytes;
    let reason = if b.len() > s.max_frame_bytes {
        Some(DropReason::TooLong)
    } else if f.bad_keep_beat.is_some() {
        Some(DropReason::BadKeep)
    } else if b.len() < MIN_INNER_BYTES {
        Some(DropReason::Short)
    } else if b[12] != 0x08 || b[13] != 0x00 || b[14] >> 4 != 4 {
        Some(DropReason::NotIpv4)
    } else if lookup.is_none() {
        Some(DropReason::Miss)
    } else {
        None
    };
    if let Some(r) = reason {
        return TxOutcome::Dropped(r);
    }
    let v = lookup.unwrap();
    let port = (v.flags & 1) as usize;
    let mut o = Vec::with_capacity(b.len() + OUTER_BYTES);
    o.extend_from_slice(&v.next_hop_mac.to_be_bytes()[2..8]);
    o.extend_from_slice(&s.port_mac[port].to_be_bytes()[2..8]);
    o.extend_from_slice(&[0x08, 0x00]);
    let ip_start = o.len();
    o.push(0x45);
    o.push((s.dscp << 2) | (b[15] & 3));
    o.extend_from_slice(&((b.len() + 36) as u16).to_be_bytes());
    o.extend_from_slice(&[0, 0, 0x40, 0]);
    o.push(s.ttl);
    o.push(17);
    o.extend_from_slice(&[0, 0]);
    o.extend_from_slice(&s.port_ip[port].to_be_bytes());
    o.extend_from_slice(&v.underlay_ip.to_be_bytes());
    let c = ipv4_checksum(&o[ip_start..ip_start + 20]);
    o[ip_start + 10..ip_start + 12].copy_from_slice(&c.to_be_bytes());
    o.extend_from_slice(&sport.to_be_bytes());
    o.extend_from_slice(&VXLAN_PORT.to_be_bytes());
    o.extend_from_slice(&((b.len() + 16) as u16).to_be_bytes());
    o.extend_from_slice(&[0, 0]);
    o.extend_from_slice(&[0x08, 0, 0, 0]);
    o.extend_from_slice(&v.vni.to_be_bytes()[1..4]);
    o.push(0);
    assert_eq!(o.len(), OUTER_BYTES);
    o.extend_from_slice(b);
    if s.bth_mark && is_rocev2_ihl5(b) {
        // BTH Resv8a: inner byte 42 + 4. The ICRC masks this byte.
        o[OUTER_BYTES + 46] = 0x03;
    }
    TxOutcome::Sent {
        frame: o,
        port: port as u8,
    }
}

/// A RoCEv2 RDMA WRITE frame of exactly `len` bytes (len >= 54) to `dst_ip`: Ethernet,
/// IPv4 (IHL 5, `ecn`), UDP 4791, BTH, then payload bytes from `fill`, of which the last
/// 4 are the packet's ICRC when `len` >= 58 ([`crate::icrc`]).
pub fn rocev2_frame(len: usize, dst_ip: u32, qp: u32, psn: u32, ecn: u8, fill: u64) -> Vec<u8> {
    assert!(len >= MIN_INNER_BYTES);
    let mut b = Vec::with_capacity(len);
    b.extend_from_slice(&[0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00]);
    let ip_start = b.len();
    b.push(0x45);
    b.push(ecn & 3);
    b.extend_from_slice(&((len - 14) as u16).to_be_bytes());
    b.extend_from_slice(&[0, 0, 0x40, 0, 64, 17, 0, 0]);
    b.extend_from_slice(&0x0a00_0001u32.to_be_bytes());
    b.extend_from_slice(&dst_ip.to_be_bytes());
    let c = ipv4_checksum(&b[ip_start..ip_start + 20]);
    b[ip_start + 10..ip_start + 12].copy_from_slice(&c.to_be_bytes());
    b.extend_from_slice(&0xc000u16.to_be_bytes());
    b.extend_from_slice(&ROCEV2_PORT.to_be_bytes());
    b.extend_from_slice(&((len - 34) as u16).to_be_bytes());
    b.extend_from_slice(&[0, 0]);
    // BTH: opcode 0x0a (RC RDMA WRITE ONLY), flags, P_Key 0xffff, Resv8a, DestQP, A, PSN.
    b.extend_from_slice(&[0x0a, 0x40, 0xff, 0xff, 0x00]);
    b.extend_from_slice(&qp.to_be_bytes()[1..4]);
    b.push(0);
    b.extend_from_slice(&psn.to_be_bytes()[1..4]);
    let mut next = crate::rng::rng(fill);
    while b.len() < len {
        b.push(next() as u8);
    }
    if len >= MIN_INNER_BYTES + 4 {
        crate::icrc::set_icrc(&mut b[14..]);
    }
    b
}

/// A classic libpcap capture (link type Ethernet, microsecond timestamps).
pub struct PcapWriter<W: Write> {
    out: W,
}

impl<W: Write> PcapWriter<W> {
    pub fn new(mut out: W) -> std::io::Result<Self> {
        // magic, version 2.4, thiszone, sigfigs, snaplen, network = 1 (Ethernet)
        out.write_all(&0xa1b2_c3d4u32.to_le_bytes())?;
        out.write_all(&2u16.to_le_bytes())?;
        out.write_all(&4u16.to_le_bytes())?;
        out.write_all(&0i32.to_le_bytes())?;
        out.write_all(&0u32.to_le_bytes())?;
        out.write_all(&65535u32.to_le_bytes())?;
        out.write_all(&1u32.to_le_bytes())?;
        Ok(Self { out })
    }

    /// One frame at time `ns` (simulated; written with microsecond resolution).
    pub fn frame(&mut self, ns: u64, frame: &[u8]) -> std::io::Result<()> {
        let us = ns / 1000;
        self.out
            .write_all(&((us / 1_000_000) as u32).to_le_bytes())?;
        self.out
            .write_all(&((us % 1_000_000) as u32).to_le_bytes())?;
        self.out.write_all(&(frame.len() as u32).to_le_bytes())?;
        self.out.write_all(&(frame.len() as u32).to_le_bytes())?;
        self.out.write_all(frame)
    }

    pub fn finish(mut self) -> std::io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_of_a_known_header() {
        // The RFC 1071 / Wikipedia example header: checksum 0xb861.
        let h = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(ipv4_checksum(&h), 0xb861);
    }

    #[test]
    fn drop_reasons_follow_the_priority() {
        let s = TxSettings {
            port_mac: [1, 2],
            port_ip: [3, 4],
            dscp: 0,
            ttl: 64,
            bth_mark: false,
            max_frame_bytes: 200,
        };
        let v = Some(Value::from_bits(1));
        let f = |bytes: Vec<u8>, bad: Option<usize>| TxFrame {
            bytes,
            vni: 1,
            qp: 1,
            bad_keep_beat: bad,
        };
        let good = rocev2_frame(100, 9, 1, 0, 0, 0);
        assert_eq!(
            encapsulate(&s, &f(vec![0; 201], Some(0)), v, 1),
            TxOutcome::Dropped(DropReason::TooLong)
        );
        assert_eq!(
            encapsulate(&s, &f(vec![0; 20], Some(0)), v, 1),
            TxOutcome::Dropped(DropReason::BadKeep)
        );
        assert_eq!(
            encapsulate(&s, &f(vec![0; 53], None), v, 1),
            TxOutcome::Dropped(DropReason::Short)
        );
        assert_eq!(
            encapsulate(&s, &f(vec![0; 60], None), v, 1),
            TxOutcome::Dropped(DropReason::NotIpv4)
        );
        assert_eq!(
            encapsulate(&s, &f(good.clone(), None), None, 1),
            TxOutcome::Dropped(DropReason::Miss)
        );
        match encapsulate(&s, &f(good.clone(), None), v, 0xc001) {
            TxOutcome::Sent { frame, port } => {
                assert_eq!(port, 1);
                assert_eq!(frame.len(), 150);
                assert_eq!(&frame[50..], &good[..]);
                assert_eq!(
                    ipv4_checksum(&frame[14..34]),
                    0,
                    "a valid header sums to 0xffff"
                );
            }
            o => panic!("{o:?}"),
        }
    }
}
