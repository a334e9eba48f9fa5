//! The RoCEv2 invariant CRC (ICRC), written from the InfiniBand Architecture
//! Specification, vol. 1 (the invariant CRC), and its RoCEv2 annex (A17).
//!
//! The ICRC is the last 4 bytes of a RoCEv2 packet. It is CRC-32 (the Ethernet
//! polynomial 0x04C11DB7, bit-reflected, register initialised to all ones, the result
//! complemented) over:
//!
//! 1. 8 bytes of all ones, standing for the InfiniBand LRH that RoCEv2 does not carry;
//! 2. the IPv4 header, with the fields a router may change set to all ones: the type of
//!    service byte (DSCP and ECN), the TTL and the header checksum;
//! 3. the UDP header, its checksum set to all ones;
//! 4. the BTH, its reserved byte `resv8a` (byte 4, which also holds FECN and BECN) set
//!    to all ones;
//! 5. everything after the BTH up to the ICRC: the other transport headers and the
//!    payload with its pad.
//!
//! The CRC goes on the wire least significant byte first, as Ethernet's FCS does, so a
//! receiver that runs the CRC over the masked packet *and* its ICRC ends with the fixed
//! register value [`RESIDUE`].
//!
//! Checked against the CRC-32 check value ("123456789" → 0xCBF43926) and two RoCEv2
//! packets published with their ICRC in Scapy's RoCE tests (test/contrib/roce.uts): a
//! CNP captured on a Mellanox ConnectX-4 Lx NIC, and a UC SEND packet.

/// The reflected CRC-32 polynomial.
pub const POLY_REFLECTED: u32 = 0xedb8_8320;
/// The CRC register after a correct packet and its ICRC (before the final complement).
pub const RESIDUE: u32 = 0xdebb_20e3;

/// The bytes of a VXLAN wire frame (50 outer bytes, then the inner Ethernet header)
/// that the ICRC masks, for an inner IPv4 header without options: the type of service,
/// the TTL, the header checksum, the UDP checksum and the BTH's `resv8a`. A change there
/// leaves the ICRC valid; a change anywhere else in the inner packet does not.
pub const WIRE_MASKED_BYTES: [usize; 7] = {
    const IP: usize = 50 + 14;
    [
        IP + 1,
        IP + 8,
        IP + 10,
        IP + 11,
        IP + 20 + 6,
        IP + 20 + 7,
        IP + 28 + 4,
    ]
};

/// The CRC-32 register after `data`, starting from `state` (no final complement).
pub fn crc32_raw(mut state: u32, data: &[u8]) -> u32 {
    for &byte in data {
        state ^= byte as u32;
        for _ in 0..8 {
            state = if state & 1 != 0 {
                (state >> 1) ^ POLY_REFLECTED
            } else {
                state >> 1
            };
        }
    }
    state
}

/// The bytes the ICRC covers, masked, for an IPv4 RoCEv2 packet `ip` (IPv4 header
/// through the byte before the ICRC). `None` if `ip` is too short to hold the IPv4,
/// UDP and BTH headers its IHL announces.
fn masked_headers(ip: &[u8]) -> Option<Vec<u8>> {
    let ihl = (ip.first()? & 0x0f) as usize * 4;
    let bth = ihl + 8;
    if ihl < 20 || ip.len() < bth + 12 {
        return None;
    }
    let mut h = ip[..bth + 12].to_vec();
    h[1] = 0xff; // DSCP, ECN
    h[8] = 0xff; // TTL
    h[10] = 0xff; // header checksum
    h[11] = 0xff;
    h[ihl + 6] = 0xff; // UDP checksum
    h[ihl + 7] = 0xff;
    h[bth + 4] = 0xff; // BTH resv8a
    Some(h)
}

/// The ICRC of the IPv4 RoCEv2 packet `ip` (its IPv4 header through the byte before
/// the ICRC), as it goes on the wire. `None` if the headers do not fit.
pub fn icrc(ip: &[u8]) -> Option<[u8; 4]> {
    let h = masked_headers(ip)?;
    let s = crc32_raw(crc32_raw(0xffff_ffff, &[0xff; 8]), &h);
    let s = crc32_raw(s, &ip[h.len()..]);
    Some((!s).to_le_bytes())
}

/// Whether `ip` (an IPv4 RoCEv2 packet ending with its ICRC) carries a correct ICRC.
pub fn icrc_ok(ip: &[u8]) -> bool {
    match ip.len().checked_sub(4) {
        Some(n) => icrc(&ip[..n]) == Some(ip[n..].try_into().unwrap()),
        None => false,
    }
}

/// Writes the correct ICRC into the last 4 bytes of `ip` (an IPv4 RoCEv2 packet).
pub fn set_icrc(ip: &mut [u8]) {
    let n = ip.len() - 4;
    let c = icrc(&ip[..n]).expect("set_icrc: the packet must hold IPv4, UDP and BTH");
    ip[n..].copy_from_slice(&c);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn crc32_check_value_and_residue() {
        // The CRC catalogue's check value for CRC-32/ISO-HDLC.
        assert_eq!(!crc32_raw(0xffff_ffff, b"123456789"), 0xcbf4_3926);
        // Any message followed by its CRC (least significant byte first) leaves the
        // residue in the register.
        for msg in [&b"123456789"[..], b"", b"\x00\xff\x10"] {
            let c = !crc32_raw(0xffff_ffff, msg);
            let s = crc32_raw(crc32_raw(0xffff_ffff, msg), &c.to_le_bytes());
            assert_eq!(s, RESIDUE);
        }
    }

    /// A RoCEv2 CNP captured on a ConnectX-4 Lx, from Scapy's RoCE tests (the frame
    /// from its Ethernet header; the ICRC is its last 4 bytes, 82 fd 00 2a).
    #[test]
    fn captured_connectx4_cnp() {
        let f = hex("e41d 2dab 2bc2 7cfe 9064 3b32 0800 45c2
             003c 718c 4000 4011 9161 0a00 1101 0a00
             1201 0000 12b7 0028 0000 8100 ffff 4000
             0118 0000 0000 0000 0000 0000 0000 0000
             0000 0000 0000 82fd 002a");
        assert!(icrc_ok(&f[14..]));
        assert_eq!(icrc(&f[14..f.len() - 4]), Some([0x82, 0xfd, 0x00, 0x2a]));
    }

    /// The UC SEND example of Scapy's RoCE tests, ICRC 0x78f353f3.
    #[test]
    fn scapy_uc_send_only() {
        let mut ip = hex("4501 0040 0478 4000 4011 b4d5 c0a8 0007 c0a8 0007");
        ip.extend(hex("c000 12b7 002c aca2"));
        // BTH: UC_SEND_ONLY, MigReq, pad count 2, P_Key 0xffff, QP 211, PSN 13571856.
        ip.extend(hex("2460 ffff 0000 00d3 00cf 1710"));
        ip.extend(b"F0\x81\x8b\xe2\x895\xd9\x0e\x9a\x95PT\x01\xbe\x88^P\x00\x00");
        assert_eq!(icrc(&ip), Some([0x78, 0xf3, 0x53, 0xf3]));
    }

    #[test]
    fn masked_fields_do_not_change_it_and_others_do() {
        let mut ip = hex("4501 0040 0478 4000 4011 b4d5 c0a8 0007 c0a8 0007");
        ip.extend(hex("c000 12b7 002c aca2 2460 ffff 0000 00d3 00cf 1610"));
        ip.extend([7u8; 24]);
        set_icrc(&mut ip);
        assert!(icrc_ok(&ip));
        for (i, masked) in (0..ip.len()).map(|i| (i, [1, 8, 10, 11, 26, 27, 32].contains(&i))) {
            let mut x = ip.clone();
            x[i] ^= 0x10;
            assert_eq!(icrc_ok(&x), masked, "byte {i}");
        }
        assert!(!icrc_ok(&ip[..10]));
    }
}
