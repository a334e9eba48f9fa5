//! Harness for the `flow_table` block: one cycle-level interface over both simulators.

use crate::bridge;
use prnic_rtl::flow_table::FlowTable as HdlBlock;
use prnic_verif::flow_table::{SlotWrite, Value};
use rust_hdl::prelude::*;

/// Every input of the flow table for one cycle.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Inputs {
    pub rst: bool,
    /// `(key, tag)`.
    pub lookup: Option<(u64, u16)>,
    pub update: Option<Update>,
    pub clear_errors: bool,
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
            } => (0, way, index, Some(e)),
            SlotWrite::Stash {
                index,
                entry: Some(e),
            } => (1, 0, index, Some(e)),
            SlotWrite::Slot {
                way,
                index,
                entry: None,
            } => (2, way, index, None),
            SlotWrite::Stash { index, entry: None } => (3, 0, index, None),
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
        self.set_s_update_key(u.key);
        self.set_s_update_value(&words(u.value));
        self.set_cfg_clear_errors(i.clear_errors as u64);
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
        }
    }
}

/// The rust-hdl block under rust-hdl's own simulator (hand-rolled clock loop).
pub struct HdlFlowTable {
    uut: HdlBlock,
}

const SETTLE_ITERS: usize = 1000;

impl HdlFlowTable {
    pub fn new(uut: HdlBlock) -> Self {
        let mut uut = uut;
        uut.clk.next = false.into();
        assert!(
            simulate(&mut uut, SETTLE_ITERS),
            "rust-hdl: flow_table did not settle"
        );
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
        u.s_update_key.next = (up.key as LiteralType).into();
        u.s_update_value.next = b112(up.value);
        u.cfg_clear_errors.next = i.clear_errors;
        assert!(simulate(u, SETTLE_ITERS), "rust-hdl: inputs did not settle");
        u.clk.next = true.into();
        assert!(
            simulate(u, SETTLE_ITERS),
            "rust-hdl: rising edge did not settle"
        );
        let o = Outputs {
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
        };
        u.clk.next = false.into();
        assert!(
            simulate(u, SETTLE_ITERS),
            "rust-hdl: falling edge did not settle"
        );
        o
    }
}
