//! Golden model of the `sprayer` block: the outer UDP source port of each packet.
//!
//! Written from the block's specification (docs/blocks/sprayer.md), not from its RTL:
//! * per-packet: successive packets take successive ports of `[min, max]`, wrapping;
//!   the walk starts at `min` after reset and restarts at `min` if the range moves away
//!   from it;
//! * per-flow: `min + (H3(flow) & mask) mod span`, where `span = max - min + 1` and
//!   `mask` is the smallest all-ones value `>= span - 1`;
//! * fixed (and the reserved encoding 3): `min`;
//! * `min > max` is a configuration error: every mode answers `min`.
//!
//! The H3 matrix is drawn from the seed with SplitMix64, re-implemented here from its
//! published definition (Steele, Lea, Flood 2014).

/// Mode encodings of `cfg_mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    PerPacket = 0,
    PerFlow = 1,
    Fixed = 2,
}

impl Mode {
    pub fn from_bits(b: u64) -> Option<Mode> {
        match b {
            0 => Some(Mode::PerPacket),
            1 => Some(Mode::PerFlow),
            2 | 3 => Some(Mode::Fixed),
            _ => None,
        }
    }
}

/// SplitMix64 sequence from `seed`, `n` values.
pub fn splitmix64(seed: u64, n: usize) -> Vec<u64> {
    let mut x = seed;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        x = x.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        v.push(z ^ (z >> 31));
    }
    v
}

/// An H3 hash of `key_bits`-bit keys to `out_bits` bits.
#[derive(Debug, Clone)]
pub struct H3 {
    rows: Vec<u64>,
}

impl H3 {
    pub fn new(seed: u64, key_bits: usize, out_bits: u32) -> Self {
        let mask = if out_bits >= 64 { u64::MAX } else { (1u64 << out_bits) - 1 };
        H3 { rows: splitmix64(seed, key_bits).into_iter().map(|r| r & mask).collect() }
    }
    pub fn hash(&self, key: u64) -> u64 {
        self.rows
            .iter()
            .enumerate()
            .filter(|(i, _)| (key >> i) & 1 == 1)
            .fold(0, |acc, (_, r)| acc ^ r)
    }
}

/// Flow id `{VNI[23:0], QP[23:0]}` as the sprayer sees it.
pub fn flow_id(vni: u32, qp: u32) -> u64 {
    ((vni as u64 & 0xff_ffff) << 24) | (qp as u64 & 0xff_ffff)
}

/// The sprayer's behaviour at transaction level: one call per packet.
#[derive(Debug, Clone)]
pub struct SprayerModel {
    h3: H3,
    /// The next per-packet port, `None` after reset.
    walk: Option<u16>,
}

impl SprayerModel {
    pub fn new(hash_seed: u64) -> Self {
        SprayerModel { h3: H3::new(hash_seed, 48, 16), walk: None }
    }

    /// Synchronous reset: the per-packet walk restarts at `min`.
    pub fn reset(&mut self) {
        self.walk = None;
    }

    /// Whether `(min, max)` is a configuration error.
    pub fn cfg_error(min: u16, max: u16) -> bool {
        min > max
    }

    /// The port for one packet of `flow`.
    pub fn port(&mut self, mode: Mode, min: u16, max: u16, flow: u64) -> u16 {
        if Self::cfg_error(min, max) {
            return min;
        }
        match mode {
            Mode::Fixed => min,
            Mode::PerFlow => {
                let span = (max - min) as u64 + 1;
                let mask = span.next_power_of_two() - 1;
                min + ((self.h3.hash(flow) & mask) % span) as u16
            }
            Mode::PerPacket => {
                let p = match self.walk {
                    Some(w) if (min..=max).contains(&w) => w,
                    _ => min,
                };
                self.walk = Some(if p >= max { min } else { p + 1 });
                p
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_reference_values() {
        // First outputs for seed 0 as published with the reference implementation.
        let v = splitmix64(0, 3);
        assert_eq!(v, vec![0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f]);
    }

    #[test]
    fn per_packet_walks_and_wraps() {
        let mut m = SprayerModel::new(1);
        let ports: Vec<u16> = (0..5).map(|_| m.port(Mode::PerPacket, 10, 12, 0)).collect();
        assert_eq!(ports, vec![10, 11, 12, 10, 11]);
    }

    #[test]
    fn per_flow_is_stable_and_in_range() {
        let mut m = SprayerModel::new(7);
        for f in 0..1000u64 {
            let a = m.port(Mode::PerFlow, 1000, 1999, f);
            assert!((1000..=1999).contains(&a));
            assert_eq!(a, m.port(Mode::PerFlow, 1000, 1999, f));
        }
    }
}
