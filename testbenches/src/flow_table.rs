//! Harness for the `flow_table` block: one cycle-level interface over both simulators.

use crate::bridge::{self, Dut};
use prnic_rtl::flow_table::{
    FlowTable as HdlBlock, OP_INVALIDATE_SLOT, OP_INVALIDATE_STASH, OP_WRITE_SLOT, OP_WRITE_STASH,
};
use prnic_verif::flow_table::{SlotWrite, Value};
use rust_hdl::prelude::*;

/// Every input of the flow table for one cycle.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Inputs {
    pub rst: bool,
    /// `(key, tag)`.
    pub lookup: Option<(u64, u16)>,
    pub update: Option<Update>,
    /// The key on `s_update_key` in a cycle without an update: the set-up an update needs
    /// in the cycle before it (as the CSR staging registers hold it).
    pub stage_key: Option<u64>,
    pub clear_errors: bool,
    /// Read back `(stash, way, index)`.
    pub read: Option<(bool, u8, u16)>,
}

/// The update port's fields for one cycle.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Update {
    pub op: u8,
    pub way: u8,
    pub index: u16,
    pub key: u64,
    pub value: u128,
}

impl From<&SlotWrite> for Update {
    fn from(w: &SlotWrite) -> Self {
        let (op, way, index, entry) = match *w {
            SlotWrite::Slot {
                way,
                index,
                entry: Some(e),
            } => (OP_WRITE_SLOT as u8, way, index, Some(e)),
            SlotWrite::Stash {
                index,
                entry: Some(e),
            } => (OP_WRITE_STASH as u8, 0, index, Some(e)),
            SlotWrite::Slot {
                way,
                index,
                entry: None,
            } => (OP_INVALIDATE_SLOT as u8, way, index, None),
            SlotWrite::Stash { index, entry: None } => (OP_INVALIDATE_STASH as u8, 0, index, None),
        };
        let (key, value) = entry.map(|(k, v)| (k, v.to_bits())).unwrap_or((0, 0));
        Update {
            op,
            way: way as u8,
            index: index as u16,
            key,
            value,
        }
    }
}

/// Everything the flow table shows after one rising edge.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outputs {
    /// `(hit, value, tag)` when `m_result_valid`.
    pub result: Option<(bool, u128, u16)>,
    pub clearing: bool,
    pub multi_hit: bool,
    pub multi_hit_count: u32,
    pub dup_hit_count: u32,
    pub bad_update_count: u32,
    /// A read-back entry: `(valid, key, value)`.
    pub read: Option<(bool, u64, u128)>,
}

impl Outputs {
    pub fn value(&self) -> Option<Value> {
        self.result
            .and_then(|(hit, v, _)| hit.then(|| Value::from_bits(v)))
    }
}

pub trait FlowTableSim {
    fn clock(&mut self, i: &Inputs) -> Outputs;
}

fn words(v: u128) -> [u32; 4] {
    [
        v as u32,
        (v >> 32) as u32,
        (v >> 64) as u32,
        (v >> 96) as u32,
    ]
}
fn from_words(w: [u32; 4]) -> u128 {
    w.iter().rev().fold(0u128, |a, &x| (a << 32) | x as u128)
}

impl FlowTableSim for bridge::FlowTable {
    fn clock(&mut self, i: &Inputs) -> Outputs {
        self.set_rst(i.rst as u64);
        let (lv, key, tag) = i.lookup.map(|(k, t)| (1, k, t)).unwrap_or((0, 0, 0));
        self.set_s_lookup_valid(lv);
        self.set_s_lookup_key(key);
        self.set_s_lookup_tag(tag as u64);
        let u = i.update.unwrap_or_default();
        self.set_s_update_valid(i.update.is_some() as u64);
        self.set_s_update_op(u.op as u64);
        self.set_s_update_way(u.way as u64);
        self.set_s_update_index(u.index as u64);
        self.set_s_update_key(i.update.map_or(i.stage_key.unwrap_or(0), |u| u.key));
        self.set_s_update_value(&words(u.value));
        self.set_cfg_clear_errors(i.clear_errors as u64);
        let (rv, rs, rw, ri) = i
            .read
            .map(|(s, w, x)| (1, s as u64, w as u64, x as u64))
            .unwrap_or((0, 0, 0, 0));
        self.set_s_read_valid(rv);
        self.set_s_read_stash(rs);
        self.set_s_read_way(rw);
        self.set_s_read_index(ri);
        self.step_n(1);
        Outputs {
            result: (self.m_result_valid() != 0).then(|| {
                (
                    self.m_result_hit() != 0,
                    from_words(self.m_result_value()),
                    self.m_result_tag() as u16,
                )
            }),
            clearing: self.status_clearing() != 0,
            multi_hit: self.status_multi_hit() != 0,
            multi_hit_count: self.status_multi_hit_count() as u32,
            dup_hit_count: self.status_dup_hit_count() as u32,
            bad_update_count: self.status_bad_update_count() as u32,
            read: (self.m_read_valid() != 0).then(|| entry_of_words(&self.m_read_entry())),
        }
    }
}

/// `{valid[168], key[167:112], value[111:0]}` from Verilator's words.
fn entry_of_words(w: &[u32; 6]) -> (bool, u64, u128) {
    let bit = |i: usize| (w[i / 32] >> (i % 32)) & 1 == 1;
    let value = (0..112).fold(0u128, |a, i| a | ((bit(i) as u128) << i));
    let key = (0..56).fold(0u64, |a, i| a | ((bit(112 + i) as u64) << i));
    (bit(168), key, value)
}

/// The rust-hdl block under rust-hdl's own simulator (hand-rolled clock loop).
pub struct HdlFlowTable {
    uut: HdlBlock,
}

impl HdlFlowTable {
    pub fn new(uut: HdlBlock) -> Self {
        let mut uut = uut;
        uut.clk.next = false.into();
        crate::hdl_sim::settle(&mut uut, "initial values");
        HdlFlowTable { uut }
    }
}

fn b112(v: u128) -> Bits<112> {
    let mut b: Bits<112> = Default::default();
    for i in 0..112 {
        b = b.replace_bit(i, (v >> i) & 1 == 1);
    }
    b
}
fn u128_of(b: Bits<112>) -> u128 {
    (0..112).fold(0u128, |a, i| a | ((b.get_bit(i) as u128) << i))
}

impl FlowTableSim for HdlFlowTable {
    fn clock(&mut self, i: &Inputs) -> Outputs {
        let u = &mut self.uut;
        u.rst.next = i.rst;
        let (lv, key, tag) = i.lookup.map(|(k, t)| (true, k, t)).unwrap_or((false, 0, 0));
        u.s_lookup_valid.next = lv;
        u.s_lookup_key.next = (key as LiteralType).into();
        u.s_lookup_tag.next = (tag as LiteralType).into();
        let up = i.update.unwrap_or_default();
        u.s_update_valid.next = i.update.is_some();
        u.s_update_op.next = (up.op as LiteralType).into();
        u.s_update_way.next = (up.way as LiteralType).into();
        u.s_update_index.next = (up.index as LiteralType).into();
        u.s_update_key.next =
            (i.update.map_or(i.stage_key.unwrap_or(0), |u| u.key) as LiteralType).into();
        u.s_update_value.next = b112(up.value);
        u.cfg_clear_errors.next = i.clear_errors;
        let (rv, rs, rw, ri) = i
            .read
            .map(|(s, w, x)| (true, s, w, x))
            .unwrap_or((false, false, 0, 0));
        u.s_read_valid.next = rv;
        u.s_read_stash.next = rs;
        u.s_read_way.next = (rw as LiteralType).into();
        u.s_read_index.next = (ri as LiteralType).into();
        crate::hdl_sim::cycle(
            u,
            |u, c| u.clk.next = c.into(),
            |u| Outputs {
                result: u.m_result_valid.val().then(|| {
                    (
                        u.m_result_hit.val(),
                        u128_of(u.m_result_value.val()),
                        u.m_result_tag.val().to_u16(),
                    )
                }),
                clearing: u.status_clearing.val(),
                multi_hit: u.status_multi_hit.val(),
                multi_hit_count: u.status_multi_hit_count.val().to_u32(),
                dup_hit_count: u.status_dup_hit_count.val().to_u32(),
                bad_update_count: u.status_bad_update_count.val().to_u32(),
                read: u.m_read_valid.val().then(|| {
                    let e = u.m_read_entry.val();
                    let value = (0..112).fold(0u128, |a, i| a | ((e.get_bit(i) as u128) << i));
                    let key = (0..56).fold(0u64, |a, i| a | ((e.get_bit(112 + i) as u64) << i));
                    (e.get_bit(168), key, value)
                }),
            },
        )
    }
}

/// The flow table's geometry in `cfg`: the golden model's side of the config mapping, used
/// by every flow-table harness and test.
pub fn geometry(cfg: &prnic_gen::PrnicConfig) -> prnic_verif::flow_table::Geometry {
    let s = &cfg.flow_table.hash_seeds;
    prnic_verif::flow_table::Geometry {
        slots_per_way: cfg.slots_per_way() as usize,
        stash: cfg.flow_table.stash as usize,
        seeds: [s[0], s[1], s[2], s[3]],
    }
}

/// `prnic-sim table-fill`: per seed, fill the software table with random keys until the
/// first insertion fails, program the Verilator model with the resulting slot writes,
/// and look every key up in hardware.
#[derive(Debug, serde::Serialize)]
pub struct FillReport {
    pub entries: usize,
    pub slots_per_way: usize,
    pub stash: usize,
    pub seeds: Vec<u64>,
    /// Per seed, the load factor (keys / entries) when the first insertion failed.
    pub load_factor_at_first_failure: Vec<f64>,
    pub load_factor_min: f64,
    pub load_factor_mean: f64,
    /// Per seed, stash entries in use at the first failure.
    pub stash_used: Vec<usize>,
    /// Per seed, keys that hit with the right value when looked up in the Verilator model.
    pub hardware_hits: Vec<usize>,
    pub keys_inserted: Vec<usize>,
    /// Slot writes issued (including relocations), per seed.
    pub slot_writes: Vec<usize>,
}

pub fn table_fill(cfg: &prnic_gen::PrnicConfig, seeds: &[u64]) -> FillReport {
    use prnic_verif::flow_table::fill_until_failure;
    let g = geometry(cfg);
    let mut r = FillReport {
        entries: 4 * g.slots_per_way + g.stash,
        slots_per_way: g.slots_per_way,
        stash: g.stash,
        seeds: seeds.to_vec(),
        load_factor_at_first_failure: vec![],
        load_factor_min: 1.0,
        load_factor_mean: 0.0,
        stash_used: vec![],
        hardware_hits: vec![],
        keys_inserted: vec![],
        slot_writes: vec![],
    };
    for &seed in seeds {
        let (t, f) = fill_until_failure(&g, seed);
        let mut dut = bridge::FlowTable::new();
        dut.clock(&Inputs {
            rst: true,
            ..Default::default()
        });
        while dut.clock(&Inputs::default()).clearing {}
        // Program the final image (one write per occupied slot).
        for (loc, e) in t
            .keys()
            .filter_map(|k| t.location(*k).map(|l| (l, (*k, t.lookup(*k).unwrap()))))
        {
            let w = match loc {
                prnic_verif::flow_table::Loc::Slot(way, index) => SlotWrite::Slot {
                    way,
                    index,
                    entry: Some(e),
                },
                prnic_verif::flow_table::Loc::Stash(index) => SlotWrite::Stash {
                    index,
                    entry: Some(e),
                },
            };
            // The key is set up one cycle before its update.
            let u = Update::from(&w);
            dut.clock(&Inputs {
                stage_key: Some(u.key),
                ..Default::default()
            });
            dut.clock(&Inputs {
                update: Some(u),
                ..Default::default()
            });
        }
        let keys: Vec<u64> = t.keys().copied().collect();
        let mut hits = 0;
        let mut expect = std::collections::VecDeque::new();
        for i in 0..keys.len() + 8 {
            let lookup = keys.get(i).map(|k| (*k, i as u16));
            if let Some(k) = keys.get(i) {
                expect.push_back(t.lookup(*k));
            }
            let o = dut.clock(&Inputs {
                lookup,
                ..Default::default()
            });
            if o.result.is_some() {
                let want = expect.pop_front().flatten();
                if o.value().is_some() && o.value() == want {
                    hits += 1;
                }
            }
        }
        r.load_factor_at_first_failure.push(f.load_factor);
        r.stash_used.push(f.stash_used);
        r.hardware_hits.push(hits);
        r.keys_inserted.push(f.inserted);
        r.slot_writes.push(f.writes);
    }
    let n = r.load_factor_at_first_failure.len().max(1) as f64;
    r.load_factor_mean = r.load_factor_at_first_failure.iter().sum::<f64>() / n;
    r.load_factor_min = r
        .load_factor_at_first_failure
        .iter()
        .cloned()
        .fold(1.0, f64::min);
    r
}

/// `prnic-sim lookup-latency`: back-to-back lookups on the Verilator model; latency is
/// measured per lookup from the cycle it is accepted to the cycle its result is valid.
#[derive(Debug, serde::Serialize)]
pub struct LatencyReport {
    pub clock_mhz: f64,
    pub lookups: u64,
    pub cycles: u64,
    pub lookup_latency_cycles: u64,
    pub lookup_latency_cycles_min: u64,
    pub lookup_latency_ns: f64,
    pub lookups_per_cycle: f64,
    pub budget_ns: f64,
    pub budget_cycles: u32,
    pub within_budget: bool,
    pub results_in_order: bool,
}

pub fn lookup_latency(cfg: &prnic_gen::PrnicConfig, lookups: u64) -> LatencyReport {
    let mut dut = bridge::FlowTable::new();
    dut.clock(&Inputs {
        rst: true,
        ..Default::default()
    });
    while dut.clock(&Inputs::default()).clearing {}
    let mut sent = std::collections::VecDeque::new();
    let (mut lat_max, mut lat_min, mut got, mut in_order) = (0u64, u64::MAX, 0u64, true);
    let start = dut.cycle();
    let mut next = prnic_verif::rng::rng(0x1234_5678);
    let mut c = 0u64;
    while got < lookups {
        let lookup = (c < lookups).then(|| {
            sent.push_back((dut.cycle(), c as u16));
            (next() >> 8, c as u16)
        });
        let o = dut.clock(&Inputs {
            lookup,
            ..Default::default()
        });
        if let Some((_, _, tag)) = o.result {
            let (at, want) = sent.pop_front().expect("a result without a lookup");
            in_order &= tag == want;
            let lat = dut.cycle() - at;
            lat_max = lat_max.max(lat);
            lat_min = lat_min.min(lat);
            got += 1;
        }
        c += 1;
        assert!(c < lookups + 1000, "results stopped coming");
    }
    let cycles = dut.cycle() - start;
    // Throughput over the steady part: the cycles from the first result to the last.
    let lookups_per_cycle = lookups as f64 / (cycles - lat_max + 1) as f64;
    let lat_ns = cfg.cycles_to_ns(lat_max as f64);
    LatencyReport {
        clock_mhz: cfg.clock.mhz,
        lookups,
        cycles,
        lookup_latency_cycles: lat_max,
        lookup_latency_cycles_min: lat_min,
        lookup_latency_ns: lat_ns,
        lookups_per_cycle,
        budget_ns: 20.0,
        budget_cycles: cfg.cycles_within_ns(20.0),
        within_budget: lat_ns <= 20.0,
        results_in_order: in_order,
    }
}
