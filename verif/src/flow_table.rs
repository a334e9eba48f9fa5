//! The flow table's software side: the hardware image model (golden model of lookups)
//! and the authoritative software table that the DPU keeps and pushes to the RNIC.
//!
//! * [`HwImage`] holds what each hardware slot contains after a sequence of slot writes
//!   and answers lookups as the hardware must: every way at the key's hashed index plus
//!   every stash entry, one answer, with duplicates and disagreements reported.
//! * [`SoftTable`] inserts and deletes keys with cuckoo placement (breadth-first search
//!   for the shortest chain of moves, bounded) and overflow into the stash, and returns
//!   for each change the minimal ordered list of [`SlotWrite`]s. A relocation chain is
//!   written from its free end backwards: each key is written to its new slot (which
//!   removes it from the old one in the same hardware update) before its old slot is
//!   reused, so a key that is present never misses, and is never found twice, while it
//!   moves.
//!
//! Written from the specification (docs/blocks/flow_table.md), independently of the RTL.

use crate::hash::H3;
use crate::rng::rng;
use std::collections::{HashMap, VecDeque};

pub const WAYS: usize = 4;
pub const KEY_BITS: usize = 56;

/// Overlay key `{VNI 24, destination IPv4 32}`.
pub fn key(vni: u32, ip: u32) -> u64 {
    ((vni as u64 & 0xff_ffff) << 32) | ip as u64
}

/// What encapsulation needs for a destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Value {
    pub underlay_ip: u32,
    /// 48 bits.
    pub next_hop_mac: u64,
    /// 24 bits.
    pub vni: u32,
    pub flags: u8,
}

impl Value {
    /// `{underlay IPv4[111:80], MAC[79:32], VNI[31:8], flags[7:0]}`.
    pub fn to_bits(self) -> u128 {
        ((self.underlay_ip as u128) << 80)
            | (((self.next_hop_mac & 0xffff_ffff_ffff) as u128) << 32)
            | (((self.vni & 0xff_ffff) as u128) << 8)
            | self.flags as u128
    }
    pub fn from_bits(b: u128) -> Self {
        Value {
            underlay_ip: (b >> 80) as u32,
            next_hop_mac: ((b >> 32) as u64) & 0xffff_ffff_ffff,
            vni: ((b >> 8) as u32) & 0xff_ffff,
            flags: b as u8,
        }
    }
}

/// Table shape and hash seeds (from `PrnicConfig.flow_table`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    pub slots_per_way: usize,
    pub stash: usize,
    pub seeds: [u64; WAYS],
}

/// The four hash functions of a geometry.
#[derive(Debug, Clone)]
pub struct Hashes {
    h: Vec<H3>,
    mask: u64,
}

impl Hashes {
    pub fn new(g: &Geometry) -> Self {
        Hashes {
            h: g.seeds.iter().map(|&s| H3::new(s, KEY_BITS, 16)).collect(),
            mask: g.slots_per_way as u64 - 1,
        }
    }
    /// The slot index of `key` in `way`.
    pub fn index(&self, way: usize, key: u64) -> usize {
        (self.h[way].hash(key) & self.mask) as usize
    }
}

/// One hardware update: a whole entry (or invalid) written into one slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotWrite {
    Slot {
        way: usize,
        index: usize,
        entry: Option<(u64, Value)>,
    },
    Stash {
        index: usize,
        entry: Option<(u64, Value)>,
    },
}

/// Where a key lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Loc {
    Slot(usize, usize),
    Stash(usize),
}

/// A lookup's answer as the hardware must give it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    pub value: Option<Value>,
    /// Number of places that hold the key.
    pub hits: usize,
    /// Two or more hits with different values (a software bug: the multi-hit error).
    pub disagree: bool,
}

/// The contents of the hardware table.
#[derive(Debug, Clone)]
pub struct HwImage {
    hashes: Hashes,
    ways: Vec<Vec<Option<(u64, Value)>>>,
    stash: Vec<Option<(u64, Value)>>,
}

impl HwImage {
    pub fn new(g: &Geometry) -> Self {
        HwImage {
            hashes: Hashes::new(g),
            ways: vec![vec![None; g.slots_per_way]; WAYS],
            stash: vec![None; g.stash],
        }
    }

    /// Apply one update as the hardware does. A write of key K makes its place the only
    /// one where a lookup of K finds it: K is removed from K's own slot in every other
    /// way and from every other stash entry. A way write away from K's own slot in that
    /// way is refused (`false`, nothing changes).
    pub fn apply(&mut self, w: &SlotWrite) -> bool {
        let (key, target) = match *w {
            SlotWrite::Slot {
                way,
                index,
                entry: Some((k, _)),
            } => {
                if index != self.hashes.index(way, k) {
                    return false;
                }
                (k, Loc::Slot(way, index))
            }
            SlotWrite::Stash {
                index,
                entry: Some((k, _)),
            } => (k, Loc::Stash(index)),
            SlotWrite::Slot {
                way,
                index,
                entry: None,
            } => {
                self.ways[way][index] = None;
                return true;
            }
            SlotWrite::Stash { index, entry: None } => {
                self.stash[index] = None;
                return true;
            }
        };
        for w in 0..WAYS {
            let i = self.hashes.index(w, key);
            if target != Loc::Slot(w, i) && self.ways[w][i].is_some_and(|(k, _)| k == key) {
                self.ways[w][i] = None;
            }
        }
        for (i, e) in self.stash.iter_mut().enumerate() {
            if target != Loc::Stash(i) && e.is_some_and(|(k, _)| k == key) {
                *e = None;
            }
        }
        match *w {
            SlotWrite::Slot { way, index, entry } => self.ways[way][index] = entry,
            SlotWrite::Stash { index, entry } => self.stash[index] = entry,
        }
        true
    }

    pub fn at(&self, loc: Loc) -> Option<(u64, Value)> {
        match loc {
            Loc::Slot(w, i) => self.ways[w][i],
            Loc::Stash(i) => self.stash[i],
        }
    }

    pub fn lookup(&self, key: u64) -> Answer {
        let mut found: Vec<Value> = vec![];
        for w in 0..WAYS {
            if let Some((k, v)) = self.ways[w][self.hashes.index(w, key)] {
                if k == key {
                    found.push(v);
                }
            }
        }
        for (k, v) in self.stash.iter().flatten() {
            if *k == key {
                found.push(*v);
            }
        }
        let disagree = found.iter().any(|v| *v != found[0]);
        Answer {
            value: found.first().copied(),
            hits: found.len(),
            disagree,
        }
    }
}

/// Why a table change was refused. The table is unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableError {
    /// No free slot within the move bound and no free stash entry.
    Full {
        key: u64,
    },
    NotFound {
        key: u64,
    },
}

impl std::fmt::Display for TableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TableError::Full { key } => write!(
                f,
                "flow table full: no slot for key {key:#016x} within the move bound and the stash is full"
            ),
            TableError::NotFound { key } => write!(f, "key {key:#016x} is not in the flow table"),
        }
    }
}
impl std::error::Error for TableError {}

/// The authoritative software table.
#[derive(Debug, Clone)]
pub struct SoftTable {
    geom: Geometry,
    hashes: Hashes,
    image: HwImage,
    loc: HashMap<u64, Loc>,
    /// Longest relocation chain tried (number of keys moved).
    pub max_moves: usize,
}

impl SoftTable {
    pub fn new(geom: Geometry) -> Self {
        SoftTable {
            hashes: Hashes::new(&geom),
            image: HwImage::new(&geom),
            geom,
            loc: HashMap::new(),
            max_moves: 8,
        }
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geom
    }
    pub fn len(&self) -> usize {
        self.loc.len()
    }
    pub fn is_empty(&self) -> bool {
        self.loc.is_empty()
    }
    pub fn capacity(&self) -> usize {
        WAYS * self.geom.slots_per_way + self.geom.stash
    }
    pub fn stash_used(&self) -> usize {
        self.image.stash.iter().filter(|e| e.is_some()).count()
    }
    pub fn lookup(&self, key: u64) -> Option<Value> {
        self.loc
            .get(&key)
            .and_then(|l| self.image.at(*l))
            .map(|(_, v)| v)
    }
    pub fn location(&self, key: u64) -> Option<Loc> {
        self.loc.get(&key).copied()
    }
    /// The image the hardware holds once every returned write has been applied.
    pub fn image(&self) -> &HwImage {
        &self.image
    }
    pub fn keys(&self) -> impl Iterator<Item = &u64> {
        self.loc.keys()
    }

    fn commit(&mut self, writes: &[SlotWrite]) {
        for w in writes {
            self.image.apply(w);
            match *w {
                SlotWrite::Slot {
                    way,
                    index,
                    entry: Some((k, _)),
                } => {
                    self.loc.insert(k, Loc::Slot(way, index));
                }
                SlotWrite::Stash {
                    index,
                    entry: Some((k, _)),
                } => {
                    self.loc.insert(k, Loc::Stash(index));
                }
                _ => {}
            }
        }
    }

    /// Insert or update `key`. Returns the slot writes, in the order they must reach the
    /// hardware.
    pub fn insert(&mut self, key: u64, value: Value) -> Result<Vec<SlotWrite>, TableError> {
        if let Some(l) = self.location(key) {
            // Update in place: one whole-entry write.
            let w = match l {
                Loc::Slot(way, index) => SlotWrite::Slot {
                    way,
                    index,
                    entry: Some((key, value)),
                },
                Loc::Stash(index) => SlotWrite::Stash {
                    index,
                    entry: Some((key, value)),
                },
            };
            self.commit(&[w]);
            return Ok(vec![w]);
        }
        if let Some(path) = self.find_path(key) {
            // path[0] is the new key's slot, path[last] is free; the occupant of path[i]
            // moves to path[i + 1]. Write from the free end back.
            let mut writes = Vec::with_capacity(path.len());
            for i in (1..path.len()).rev() {
                let (way, index) = path[i];
                let (pw, pi) = path[i - 1];
                let moving = self.image.ways[pw][pi].expect("occupied on the path");
                writes.push(SlotWrite::Slot {
                    way,
                    index,
                    entry: Some(moving),
                });
            }
            let (way, index) = path[0];
            writes.push(SlotWrite::Slot {
                way,
                index,
                entry: Some((key, value)),
            });
            self.commit(&writes);
            return Ok(writes);
        }
        if let Some(index) = self.image.stash.iter().position(|e| e.is_none()) {
            let w = SlotWrite::Stash {
                index,
                entry: Some((key, value)),
            };
            self.commit(&[w]);
            return Ok(vec![w]);
        }
        Err(TableError::Full { key })
    }

    /// Breadth-first search for the shortest chain from one of `key`'s slots to a free
    /// slot, moving at most `max_moves` keys. Deterministic: ways in order.
    fn find_path(&self, key: u64) -> Option<Vec<(usize, usize)>> {
        let mut parent: HashMap<(usize, usize), Option<(usize, usize)>> = HashMap::new();
        let mut depth: HashMap<(usize, usize), usize> = HashMap::new();
        let mut q = VecDeque::new();
        for w in 0..WAYS {
            let s = (w, self.hashes.index(w, key));
            if parent.contains_key(&s) {
                continue;
            }
            parent.insert(s, None);
            depth.insert(s, 0);
            q.push_back(s);
        }
        while let Some(s) = q.pop_front() {
            match self.image.ways[s.0][s.1] {
                None => {
                    let mut path = vec![s];
                    let mut cur = s;
                    while let Some(Some(p)) = parent.get(&cur) {
                        path.push(*p);
                        cur = *p;
                    }
                    path.reverse();
                    return Some(path);
                }
                Some((occupant, _)) => {
                    let d = depth[&s];
                    if d >= self.max_moves {
                        continue;
                    }
                    for w in 0..WAYS {
                        if w == s.0 {
                            continue;
                        }
                        let n = (w, self.hashes.index(w, occupant));
                        if parent.contains_key(&n) {
                            continue;
                        }
                        parent.insert(n, Some(s));
                        depth.insert(n, d + 1);
                        q.push_back(n);
                    }
                }
            }
        }
        None
    }

    /// Delete `key`: one invalidating write.
    pub fn delete(&mut self, key: u64) -> Result<Vec<SlotWrite>, TableError> {
        let l = self.loc.remove(&key).ok_or(TableError::NotFound { key })?;
        let w = match l {
            Loc::Slot(way, index) => SlotWrite::Slot {
                way,
                index,
                entry: None,
            },
            Loc::Stash(index) => SlotWrite::Stash { index, entry: None },
        };
        self.image.apply(&w);
        Ok(vec![w])
    }
}

/// Fill a table with random keys until the first insertion failure.
#[derive(Debug, Clone, PartialEq)]
pub struct FillResult {
    pub inserted: usize,
    pub capacity: usize,
    pub load_factor: f64,
    pub stash_used: usize,
    pub writes: usize,
}

/// A random value for a key (any bit pattern is legal).
pub fn value_for(r: u64) -> Value {
    Value::from_bits(((r as u128) << 64 | (r.rotate_left(17) as u128)) & ((1u128 << 112) - 1))
}

pub fn fill_until_failure(geom: &Geometry, seed: u64) -> (SoftTable, FillResult) {
    let mut t = SoftTable::new(geom.clone());
    let mut next = rng(seed);
    let mut writes = 0;
    loop {
        let r = next();
        let k = r & ((1u64 << KEY_BITS) - 1);
        if t.location(k).is_some() {
            continue;
        }
        match t.insert(k, value_for(r)) {
            Ok(w) => writes += w.len(),
            Err(_) => break,
        }
    }
    let res = FillResult {
        inserted: t.len(),
        capacity: t.capacity(),
        load_factor: t.len() as f64 / t.capacity() as f64,
        stash_used: t.stash_used(),
        writes,
    };
    (t, res)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small() -> Geometry {
        Geometry {
            slots_per_way: 256,
            stash: 8,
            seeds: [11, 22, 33, 44],
        }
    }

    #[test]
    fn value_bits_round_trip() {
        let v = Value {
            underlay_ip: 0x0a00_0001,
            next_hop_mac: 0x0200_0000_00aa,
            vni: 0x12_3456,
            flags: 3,
        };
        assert_eq!(Value::from_bits(v.to_bits()), v);
    }

    #[test]
    fn every_present_key_hits_and_absent_keys_miss_at_every_step() {
        let g = small();
        let mut t = SoftTable::new(g.clone());
        let mut hw = HwImage::new(&g);
        let mut next = rng(5);
        let mut present: Vec<u64> = vec![];
        for _ in 0..1000 {
            let r = next();
            let k = r >> 8;
            match t.insert(k, value_for(r)) {
                Ok(ws) => {
                    // Copy-before-delete: while the writes land one by one, every key that
                    // was present keeps hitting with its value.
                    for w in &ws {
                        hw.apply(w);
                        for &p in &present {
                            let a = hw.lookup(p);
                            assert_eq!(a.value, t.lookup(p), "key {p:#x} during a move");
                            assert!(!a.disagree);
                        }
                    }
                    present.push(k);
                }
                Err(TableError::Full { .. }) => break,
                Err(e) => panic!("{e}"),
            }
        }
        for &p in &present {
            let a = hw.lookup(p);
            assert_eq!(a.hits, 1, "after the writes each key is in one place");
        }
        assert!(present.len() > 900, "only {} fitted in 1032", present.len());
    }

    #[test]
    fn a_full_table_refuses_and_stays_unchanged() {
        let g = Geometry {
            slots_per_way: 8,
            stash: 2,
            seeds: [1, 2, 3, 4],
        };
        let (mut t, r) = fill_until_failure(&g, 9);
        assert!(r.inserted <= 34);
        let before: Vec<(u64, Option<Value>)> = t.keys().map(|k| (*k, t.lookup(*k))).collect();
        let stash = t.stash_used();
        let mut next = rng(77);
        let mut refused = 0;
        for _ in 0..50 {
            let r = next() >> 8;
            if t.location(r).is_none() {
                if let Err(e) = t.insert(r, value_for(r)) {
                    assert!(e.to_string().contains("full"));
                    refused += 1;
                }
            }
        }
        assert!(refused > 0);
        assert_eq!(t.stash_used(), stash);
        for (k, v) in before {
            assert_eq!(t.lookup(k), v);
        }
    }

    #[test]
    fn delete_is_one_write_and_frees_the_slot() {
        let mut t = SoftTable::new(small());
        t.insert(7, value_for(7)).unwrap();
        let ws = t.delete(7).unwrap();
        assert_eq!(ws.len(), 1);
        assert_eq!(t.lookup(7), None);
        assert_eq!(t.image().lookup(7).hits, 0);
        assert!(matches!(t.delete(7), Err(TableError::NotFound { .. })));
    }

    #[test]
    fn default_geometry_fills_past_97_percent() {
        let g = Geometry {
            slots_per_way: 8192,
            stash: 32,
            seeds: [
                0x1f3c_51a2_0b7e_44d1,
                0x3a91_c6e0_7d25_8b13,
                0x547e_0a5b_91c3_26f8,
                0x6b28_f1d9_e340_5ac7,
            ],
        };
        let (_, r) = fill_until_failure(&g, 1);
        assert!(r.load_factor >= 0.97, "load factor {}", r.load_factor);
    }
}
