//! ECMP path selection as a switch does it: a hash of the outer 5-tuple, modulo the
//! number of equal-cost paths. Used to judge source-port spraying.
//!
//! Two hashes, both common in switch ASICs: CRC-32 (IEEE 802.3 polynomial, reflected, the
//! checksum of Ethernet) over the 13-byte 5-tuple, and a 16-bit XOR fold of it (a weak
//! hash, to show the sprayer does not depend on a good one).

/// Outer 5-tuple of a VXLAN packet (protocol is always UDP).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FiveTuple {
    pub src_ip: u32,
    pub dst_ip: u32,
    pub src_port: u16,
    pub dst_port: u16,
    pub proto: u8,
}

impl FiveTuple {
    /// The bytes a switch hashes, in network order.
    pub fn bytes(&self) -> [u8; 13] {
        let mut b = [0u8; 13];
        b[0..4].copy_from_slice(&self.src_ip.to_be_bytes());
        b[4..8].copy_from_slice(&self.dst_ip.to_be_bytes());
        b[8] = self.proto;
        b[9..11].copy_from_slice(&self.src_port.to_be_bytes());
        b[11..13].copy_from_slice(&self.dst_port.to_be_bytes());
        b
    }
}

/// CRC-32 (IEEE 802.3, reflected, init and final XOR all ones), bitwise.
pub fn crc32(data: &[u8]) -> u32 {
    !crate::icrc::crc32_raw(0xffff_ffff, data)
}

/// The switch hash functions we model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwitchHash {
    Crc32,
    XorFold16,
}

impl SwitchHash {
    pub fn hash(self, t: &FiveTuple) -> u32 {
        match self {
            SwitchHash::Crc32 => crc32(&t.bytes()),
            SwitchHash::XorFold16 => {
                let b = t.bytes();
                let mut h = 0u16;
                for pair in b.chunks(2) {
                    let w = if pair.len() == 2 {
                        u16::from_be_bytes([pair[0], pair[1]])
                    } else {
                        (pair[0] as u16) << 8
                    };
                    h ^= w;
                }
                h as u32
            }
        }
    }

    /// The path a packet takes among `paths` equal-cost paths.
    pub fn path(self, t: &FiveTuple, paths: u32) -> u32 {
        self.hash(t) % paths
    }
}

/// Load per path after a run.
#[derive(Debug, Clone, PartialEq)]
pub struct PathLoad {
    pub counts: Vec<u64>,
}

impl PathLoad {
    pub fn new(paths: u32) -> Self {
        PathLoad {
            counts: vec![0; paths as usize],
        }
    }
    pub fn add(&mut self, path: u32) {
        self.counts[path as usize] += 1;
    }
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }
    fn mean(&self) -> f64 {
        self.total() as f64 / self.counts.len() as f64
    }
    /// Busiest path over the mean (1.0 = perfectly even; `paths` = all on one path).
    pub fn max_over_mean(&self) -> f64 {
        *self.counts.iter().max().unwrap_or(&0) as f64 / self.mean()
    }
    pub fn min_over_mean(&self) -> f64 {
        *self.counts.iter().min().unwrap_or(&0) as f64 / self.mean()
    }
    pub fn paths_used(&self) -> usize {
        self.counts.iter().filter(|c| **c > 0).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_check_value() {
        // The standard check value of CRC-32/ISO-HDLC.
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    }

    #[test]
    fn one_tuple_always_takes_one_path() {
        let t = FiveTuple {
            src_ip: 1,
            dst_ip: 2,
            src_port: 50000,
            dst_port: 4789,
            proto: 17,
        };
        let p = SwitchHash::Crc32.path(&t, 16);
        assert!((0..100).all(|_| SwitchHash::Crc32.path(&t, 16) == p));
    }
}
