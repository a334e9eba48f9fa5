//! A multipath fabric between two RNICs, in simulated nanoseconds: N paths, each with its
//! own rate, propagation delay, jitter, loss, duplication and a tail-drop queue, and a
//! path-selection policy: ECMP hashing of the outer 5-tuple (as a switch does, so source-
//! port spraying works through it) or round robin (an idealised sprayer for analysis).
//!
//! Frames are outer Ethernet frames (as `tx_encap` emits them). A frame's path is chosen
//! when it is offered; it leaves the path's queue at the path's rate, then arrives after
//! the propagation delay plus jitter. Jitter can reorder frames on one path, as a switch
//! with several internal queues can; with zero jitter each path is FIFO.

use crate::ecmp::{FiveTuple, SwitchHash};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One path of the fabric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PathSpec {
    pub rate_gbps: f64,
    pub delay_ns: f64,
    /// Extra delay per frame, uniform in `0..=jitter_ns`.
    pub jitter_ns: f64,
    /// Probability that a frame is lost on this path.
    pub loss: f64,
    /// Probability that a frame arrives twice (the copy up to one jitter later).
    pub dup: f64,
    /// Bytes the path's queue holds before it drops (tail drop).
    pub queue_bytes: u64,
    /// Probability that a frame is held `held_ns` longer, on top of its jitter: a frame
    /// that waits behind a burst in a switch queue. Rare and long, unlike jitter, so
    /// the late frames are sparse. 0 draws nothing, so a fabric without it sees the same
    /// random stream as before the field existed.
    pub held: f64,
    pub held_ns: f64,
    /// Probability that a delivered copy has one byte changed, at a uniform place in the
    /// frame (a bit error the link's FCS missed, or a switch's memory fault). 0 draws
    /// nothing, as with `held`.
    pub corrupt: f64,
}

/// How the fabric picks a path for a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    Ecmp(SwitchHash),
    RoundRobin,
}

/// What happened to the frames offered so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FabricStats {
    pub offered: u64,
    pub delivered: u64,
    pub lost: u64,
    pub duplicated: u64,
    pub queue_drops: u64,
    /// Frames held `held_ns` longer.
    pub held: u64,
    /// Delivered copies with a byte changed.
    pub corrupted: u64,
    /// Frames per path.
    pub per_path: Vec<u64>,
    /// Deepest queue seen on any path, bytes.
    pub peak_queue_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct InFlight {
    /// Arrival time in ps (integer for a total order), then a sequence number.
    at_ps: u64,
    seq: u64,
    frame: Vec<u8>,
}

pub struct Fabric {
    paths: Vec<PathSpec>,
    selection: Selection,
    /// When each path's transmitter is free, ns.
    free_at: Vec<f64>,
    /// Departures still queued per path: (departure time, bytes).
    queued: Vec<std::collections::VecDeque<(f64, u64)>>,
    rr: usize,
    seq: u64,
    heap: BinaryHeap<Reverse<InFlight>>,
    next: Box<dyn FnMut() -> u64>,
    pub stats: FabricStats,
}

/// The outer 5-tuple of an IPv4/UDP frame (`None` if it is not one).
pub fn outer_five_tuple(f: &[u8]) -> Option<FiveTuple> {
    if f.len() < 38 || f[12] != 0x08 || f[13] != 0x00 || f[14] >> 4 != 4 || f[23] != 17 {
        return None;
    }
    let ihl = (f[14] & 0xf) as usize * 4;
    let u = 14 + ihl;
    if f.len() < u + 4 {
        return None;
    }
    Some(FiveTuple {
        src_ip: u32::from_be_bytes([f[26], f[27], f[28], f[29]]),
        dst_ip: u32::from_be_bytes([f[30], f[31], f[32], f[33]]),
        src_port: u16::from_be_bytes([f[u], f[u + 1]]),
        dst_port: u16::from_be_bytes([f[u + 2], f[u + 3]]),
        proto: 17,
    })
}

impl Fabric {
    pub fn new(paths: Vec<PathSpec>, selection: Selection, seed: u64) -> Self {
        let n = paths.len();
        assert!(n > 0, "a fabric needs a path");
        Fabric {
            paths,
            selection,
            free_at: vec![0.0; n],
            queued: vec![Default::default(); n],
            rr: 0,
            seq: 0,
            heap: BinaryHeap::new(),
            next: Box::new(crate::rng::rng(seed)),
            stats: FabricStats {
                per_path: vec![0; n],
                ..Default::default()
            },
        }
    }

    fn uniform(&mut self) -> f64 {
        crate::rng::unit((self.next)())
    }

    /// The path a frame takes.
    pub fn path_of(&mut self, frame: &[u8]) -> usize {
        let n = self.paths.len();
        match self.selection {
            Selection::RoundRobin => {
                self.rr = (self.rr + 1) % n;
                self.rr
            }
            Selection::Ecmp(h) => match outer_five_tuple(frame) {
                Some(t) => h.path(&t, n as u32) as usize,
                None => 0,
            },
        }
    }

    /// Offer a frame at time `now_ns`.
    pub fn send(&mut self, now_ns: f64, frame: Vec<u8>) {
        self.stats.offered += 1;
        let p = self.path_of(&frame);
        let spec = self.paths[p];
        // Queue occupancy at `now`: frames not yet departed.
        let q = &mut self.queued[p];
        while q.front().is_some_and(|(t, _)| *t <= now_ns) {
            q.pop_front();
        }
        let depth: u64 = q.iter().map(|(_, b)| *b).sum();
        let bytes = frame.len() as u64;
        if depth + bytes > spec.queue_bytes {
            self.stats.queue_drops += 1;
            return;
        }
        self.stats.peak_queue_bytes = self.stats.peak_queue_bytes.max(depth + bytes);
        let start = self.free_at[p].max(now_ns);
        let depart = start + bytes as f64 * 8.0 / spec.rate_gbps;
        self.free_at[p] = depart;
        self.queued[p].push_back((depart, bytes));
        self.stats.per_path[p] += 1;
        if self.uniform() < spec.loss {
            self.stats.lost += 1;
            return;
        }
        let copies = if self.uniform() < spec.dup { 2 } else { 1 };
        if copies == 2 {
            self.stats.duplicated += 1;
        }
        let held = if spec.held > 0.0 && self.uniform() < spec.held {
            self.stats.held += 1;
            spec.held_ns
        } else {
            0.0
        };
        for _ in 0..copies {
            let at = depart + spec.delay_ns + held + self.uniform() * spec.jitter_ns;
            let mut copy = frame.clone();
            if spec.corrupt > 0.0 && self.uniform() < spec.corrupt && !copy.is_empty() {
                let i = ((self.uniform() * copy.len() as f64) as usize).min(copy.len() - 1);
                copy[i] ^= 1 + (self.uniform() * 255.0) as u8;
                self.stats.corrupted += 1;
            }
            self.seq += 1;
            self.heap.push(Reverse(InFlight {
                at_ps: (at * 1000.0).round() as u64,
                seq: self.seq,
                frame: copy,
            }));
        }
    }

    /// Frames that have arrived by `now_ns`, in arrival order, with their arrival times.
    pub fn poll(&mut self, now_ns: f64) -> Vec<(f64, Vec<u8>)> {
        let now = (now_ns * 1000.0).round() as u64;
        let mut out = vec![];
        while self.heap.peek().is_some_and(|Reverse(f)| f.at_ps <= now) {
            let Reverse(f) = self.heap.pop().unwrap();
            self.stats.delivered += 1;
            out.push((f.at_ps as f64 / 1000.0, f.frame));
        }
        out
    }

    /// Frames still in flight.
    pub fn in_flight(&self) -> usize {
        self.heap.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow_table::value_for;
    use crate::tx_encap::{encapsulate, rocev2_frame, TxFrame, TxOutcome, TxSettings};

    fn frames(n: usize, sprayed: bool) -> Vec<Vec<u8>> {
        let s = TxSettings {
            port_mac: [1, 2],
            port_ip: [0x0a00_0001, 0x0a00_0002],
            dscp: 0,
            ttl: 64,
            bth_mark: false,
            max_frame_bytes: 4250,
        };
        let v = value_for(3);
        (0..n)
            .map(|i| {
                let f = TxFrame {
                    bytes: rocev2_frame(1000, 0x0b00_0001, 5, i as u32, 0, i as u64),
                    vni: 1,
                    qp: 5,
                    bad_keep_beat: None,
                };
                let port = if sprayed {
                    49152 + (i % 16384) as u16
                } else {
                    50000
                };
                match encapsulate(&s, &f, Some(v), port) {
                    TxOutcome::Sent { frame, .. } => frame,
                    o => panic!("{o:?}"),
                }
            })
            .collect()
    }

    fn path(rate: f64, delay: f64) -> PathSpec {
        PathSpec {
            rate_gbps: rate,
            delay_ns: delay,
            jitter_ns: 0.0,
            loss: 0.0,
            dup: 0.0,
            queue_bytes: 1 << 30,
            held: 0.0,
            held_ns: 0.0,
            corrupt: 0.0,
        }
    }

    #[test]
    fn without_jitter_loss_or_dup_every_frame_arrives_once_in_order_per_path() {
        let mut f = Fabric::new(
            vec![path(100.0, 500.0); 4],
            Selection::Ecmp(SwitchHash::Crc32),
            1,
        );
        let fr = frames(200, true);
        for (i, x) in fr.iter().enumerate() {
            f.send(i as f64 * 10.0, x.clone());
        }
        let got = f.poll(1e9);
        assert_eq!(got.len(), 200);
        assert_eq!(f.in_flight(), 0);
        // Per path, arrival order is send order.
        for p in 0..4 {
            let mut last = None;
            for (_, x) in &got {
                if f.path_of(x) == p {
                    let i = fr.iter().position(|y| y == x).unwrap();
                    assert!(last.is_none_or(|l| l < i));
                    last = Some(i);
                }
            }
        }
    }

    #[test]
    fn ecmp_keeps_one_flow_on_one_path_and_spraying_spreads_it() {
        let mut f = Fabric::new(
            vec![path(100.0, 0.0); 8],
            Selection::Ecmp(SwitchHash::Crc32),
            1,
        );
        for x in frames(800, false) {
            f.send(0.0, x);
        }
        assert_eq!(f.stats.per_path.iter().filter(|n| **n > 0).count(), 1);
        let mut f = Fabric::new(
            vec![path(100.0, 0.0); 8],
            Selection::Ecmp(SwitchHash::Crc32),
            1,
        );
        for x in frames(8000, true) {
            f.send(0.0, x);
        }
        let min = *f.stats.per_path.iter().min().unwrap() as f64;
        let max = *f.stats.per_path.iter().max().unwrap() as f64;
        assert!(max / min < 1.1, "{:?}", f.stats.per_path);
    }

    #[test]
    fn loss_duplication_and_tail_drop_are_counted() {
        let mut spec = path(10.0, 100.0);
        spec.loss = 0.1;
        spec.dup = 0.05;
        spec.jitter_ns = 50.0;
        let mut f = Fabric::new(vec![spec; 2], Selection::RoundRobin, 7);
        for (i, x) in frames(20000, true).into_iter().enumerate() {
            f.send(i as f64 * 2000.0, x);
        }
        let got = f.poll(1e12).len() as u64;
        let s = &f.stats;
        assert_eq!(got, s.offered - s.lost + s.duplicated);
        let loss = s.lost as f64 / s.offered as f64;
        assert!((loss - 0.1).abs() < 0.01, "loss {loss}");
        let dup = s.duplicated as f64 / (s.offered - s.lost) as f64;
        assert!((dup - 0.05).abs() < 0.01, "dup {dup}");
        // A 10 Gb/s path with a 3-frame queue, offered frames back to back: tail drops.
        let mut small = path(10.0, 0.0);
        small.queue_bytes = 3 * 1050;
        let mut f = Fabric::new(vec![small], Selection::RoundRobin, 1);
        for x in frames(10, true) {
            f.send(0.0, x);
        }
        assert_eq!(f.stats.queue_drops, 7);
        assert_eq!(f.stats.peak_queue_bytes, 3 * 1050);
    }

    #[test]
    fn corrupted_copies_differ_in_one_byte_and_are_as_rare_as_set() {
        let mut spec = path(100.0, 2000.0);
        spec.corrupt = 0.03;
        let mut f = Fabric::new(vec![spec], Selection::RoundRobin, 5);
        let fr = frames(20000, true);
        for (i, x) in fr.iter().enumerate() {
            f.send(i as f64 * 1000.0, x.clone());
        }
        let got = f.poll(1e12);
        assert_eq!(got.len(), fr.len());
        // Frames are unique and arrive in order (no jitter): compare each with its own.
        let changed: Vec<usize> = got
            .iter()
            .zip(&fr)
            .map(|((_, g), x)| g.iter().zip(x).filter(|(a, b)| a != b).count())
            .filter(|&n| n > 0)
            .collect();
        assert!(changed.iter().all(|&n| n == 1));
        assert_eq!(changed.len() as u64, f.stats.corrupted);
        let share = changed.len() as f64 / fr.len() as f64;
        assert!((share - 0.03).abs() < 0.005, "corrupted share {share}");
    }

    #[test]
    fn held_frames_are_late_by_the_hold_and_as_rare_as_set() {
        // One path, frames 1 us apart so the queue stays empty: a frame arrives
        // `delay` after it is sent, or `delay + held_ns` if it was held.
        let mut spec = path(100.0, 2000.0);
        spec.held = 0.02;
        spec.held_ns = 8000.0;
        let mut f = Fabric::new(vec![spec], Selection::RoundRobin, 3);
        let fr = frames(20000, true);
        let mut sent = std::collections::HashMap::new();
        for (i, x) in fr.iter().enumerate() {
            let t = i as f64 * 1000.0;
            f.send(t, x.clone());
            sent.insert(x.clone(), t);
        }
        let got = f.poll(1e12);
        let tx = fr[0].len() as f64 * 8.0 / 100.0;
        let late = got
            .iter()
            .map(|(at, x)| at - sent[x] - tx - 2000.0)
            .inspect(|d| assert!(d.abs() < 1e-3 || (d - 8000.0).abs() < 1e-3, "{d}"))
            .filter(|d| *d > 1.0)
            .count() as u64;
        assert_eq!(late, f.stats.held);
        let share = late as f64 / got.len() as f64;
        assert!((share - 0.02).abs() < 0.004, "held share {share}");
    }
}
