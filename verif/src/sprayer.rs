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

pub use crate::hash::{splitmix64, H3};

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
        SprayerModel {
            h3: H3::new(hash_seed, 48, 16),
            walk: None,
        }
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
