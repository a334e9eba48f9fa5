//! Harness for the TX path (`tx_encap` alone, or inside `prnic_top`): an AXI4-Stream
//! source with idle gaps, a sink with backpressure that checks the protocol, and, for
//! the block alone, a flow-table responder that answers each lookup from a model table
//! `FLOW_TABLE_LATENCY` cycles later, as `flow_table` does.
//!
//! The harness is for the default config's 1024-bit bus (the bridge's port types are
//! generated for it).

use crate::bridge::{self, Dut};
use prnic_gen::PrnicConfig;
use prnic_rtl::flow_table::FLOW_TABLE_LATENCY;
use prnic_verif::flow_table::{key, Value};
use prnic_verif::sprayer::{flow_id, Mode, SprayerModel};
use prnic_verif::tx_encap::{encapsulate, inner_dst_ip, TxFrame, TxOutcome, TxSettings};
use std::collections::{HashMap, VecDeque};

mod bench;
mod check;
mod scenario;

pub use bench::*;
pub use check::*;
pub use scenario::*;

/// Bytes per beat of the default bus.
pub const BEAT_BYTES: usize = 128;
const DW: usize = BEAT_BYTES / 4;
const KW: usize = BEAT_BYTES / 32;

/// One input beat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beat {
    pub data: [u32; DW],
    pub keep: [u32; KW],
    pub last: bool,
    pub tuser: u64,
}

/// One output beat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutBeat {
    pub data: [u32; DW],
    pub keep: [u32; KW],
    pub last: bool,
    pub dest: u8,
}

/// The beats of a frame, `tkeep` low-justified on the last, except that the beat named
/// by `bad_keep_beat` has bit 0 of its `tkeep` toggled (always invalid: a hole in a full
/// beat, or a last beat that is not low-justified or empty).
pub fn beats_of(f: &TxFrame) -> Vec<Beat> {
    let n = f.bytes.len().div_ceil(BEAT_BYTES).max(1);
    (0..n)
        .map(|i| {
            let chunk = &f.bytes
                [(i * BEAT_BYTES).min(f.bytes.len())..((i + 1) * BEAT_BYTES).min(f.bytes.len())];
            let data = crate::axis::pack::<DW>(chunk);
            let mut keep = crate::axis::keep_low::<KW>(chunk.len());
            if f.bad_keep_beat == Some(i) {
                keep[0] ^= 1;
            }
            Beat {
                data,
                keep,
                last: i == n - 1,
                tuser: ((f.qp as u64 & 0xff_ffff) << 24) | (f.vni as u64 & 0xff_ffff),
            }
        })
        .collect()
}

/// A DUT with the TX path's two streams.
pub trait TxDut: Dut {
    fn drive_in(&mut self, beat: Option<&Beat>);
    fn set_out_ready(&mut self, ready: bool);
    fn settle(&mut self);
    fn in_ready(&self) -> bool;
    fn out_beat(&self) -> Option<OutBeat>;
    /// Work that must see this cycle's settled inputs before the edge (the responder).
    fn before_edge(&mut self) {}
}

macro_rules! tx_dut {
    ($t:ty, $tvalid:ident, $tdata:ident, $tkeep:ident, $tlast:ident, $tuser:ident, $tready:ident,
     $otready:ident, $otvalid:ident, $otdata:ident, $otkeep:ident, $otlast:ident, $otdest:ident) => {
        impl TxDut for $t {
            fn drive_in(&mut self, beat: Option<&Beat>) {
                match beat {
                    Some(b) => {
                        self.$tvalid(1);
                        self.$tdata(&b.data);
                        self.$tkeep(&b.keep);
                        self.$tlast(b.last as u64);
                        self.$tuser(b.tuser);
                    }
                    None => self.$tvalid(0),
                }
            }
            fn set_out_ready(&mut self, ready: bool) {
                self.$otready(ready as u64)
            }
            fn settle(&mut self) {
                self.eval();
            }
            fn in_ready(&self) -> bool {
                self.$tready() != 0
            }
            fn out_beat(&self) -> Option<OutBeat> {
                (self.$otvalid() != 0).then(|| OutBeat {
                    data: self.$otdata(),
                    keep: self.$otkeep(),
                    last: self.$otlast() != 0,
                    dest: self.$otdest() as u8,
                })
            }
        }
    };
}

tx_dut!(
    bridge::TxEncap,
    set_s_axis_tvalid,
    set_s_axis_tdata,
    set_s_axis_tkeep,
    set_s_axis_tlast,
    set_s_axis_tuser,
    s_axis_tready,
    set_m_axis_tready,
    m_axis_tvalid,
    m_axis_tdata,
    m_axis_tkeep,
    m_axis_tlast,
    m_axis_tdest
);
// The top has one AXI4-Stream per MAC port; the harness sees them as one stream whose
// `dest` is the port that carried the beat (both ports get the same `tready`).
impl TxDut for bridge::PrnicTop {
    fn drive_in(&mut self, beat: Option<&Beat>) {
        match beat {
            Some(b) => {
                self.set_s_axis_tx_tvalid(1);
                self.set_s_axis_tx_tdata(&b.data);
                self.set_s_axis_tx_tkeep(&b.keep);
                self.set_s_axis_tx_tlast(b.last as u64);
                self.set_s_axis_tx_tuser(b.tuser);
            }
            None => self.set_s_axis_tx_tvalid(0),
        }
    }
    fn set_out_ready(&mut self, ready: bool) {
        self.set_m_axis_port0_tx_tready(ready as u64);
        self.set_m_axis_port1_tx_tready(ready as u64);
    }
    fn settle(&mut self) {
        self.eval();
    }
    fn in_ready(&self) -> bool {
        self.s_axis_tx_tready() != 0
    }
    fn out_beat(&self) -> Option<OutBeat> {
        let p0 = self.m_axis_port0_tx_tvalid() != 0;
        let p1 = self.m_axis_port1_tx_tvalid() != 0;
        assert!(!(p0 && p1), "both MAC ports valid in one cycle");
        if p1 {
            Some(OutBeat {
                data: self.m_axis_port1_tx_tdata(),
                keep: self.m_axis_port1_tx_tkeep(),
                last: self.m_axis_port1_tx_tlast() != 0,
                dest: 1,
            })
        } else {
            p0.then(|| OutBeat {
                data: self.m_axis_port0_tx_tdata(),
                keep: self.m_axis_port0_tx_tkeep(),
                last: self.m_axis_port0_tx_tlast() != 0,
                dest: 0,
            })
        }
    }
}

/// A model flow table answering lookups a fixed number of cycles later, in order.
#[derive(Debug, Clone, Default)]
pub struct Responder {
    pub table: HashMap<u64, Value>,
    /// Cycles from a lookup to its answer (the flow table's is `FLOW_TABLE_LATENCY`).
    pub latency: u64,
    pending: VecDeque<(u64, Option<Value>)>,
    cycle: u64,
}

impl Responder {
    pub fn new(latency: u64) -> Self {
        Responder {
            latency,
            ..Default::default()
        }
    }

    /// Reset: lookups in flight are lost, as in the flow table's pipeline.
    pub fn reset(&mut self) {
        self.pending.clear();
    }

    /// This cycle's lookup (if any) in; this cycle's answer (if one is due) out.
    pub fn cycle(&mut self, lookup: Option<u64>) -> Option<Option<Value>> {
        if let Some(k) = lookup {
            self.pending
                .push_back((self.cycle + self.latency, self.table.get(&k).copied()));
        }
        let due = match self.pending.front() {
            Some(&(due, v)) if due == self.cycle => {
                self.pending.pop_front();
                Some(v)
            }
            _ => None,
        };
        self.cycle += 1;
        due
    }
}
