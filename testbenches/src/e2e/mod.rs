//! End to end: RDMA WRITE messages from a sender RNIC through a multipath fabric into a
//! receiver RNIC, described by a scenario file (`prnic-sim fabric --config FILE`).
//!
//! ```text
//!  sender transport ─ inner RoCEv2 frames ─► RNIC A (prnic_top: flow table, tx_encap, sprayer)
//!        ▲                                        │ port 0, port 1
//!        │ ACKs, requests (reverse delay)        ▼
//!        │                                 fabric (paths: rate, delay, jitter, loss, dup, queue; ECMP or RR)
//!        │                                        │ port 0, port 1 (round robin)
//!        └─── m_axis_ack ◄── RNIC B (prnic_top: rx_decap, rx_reorder) ─► m_axis_place, m_axis_cqe ─► checker
//! ```
//!
//! Two backends run the same sender, fabric and checker:
//! * **rtl**: both RNICs are Verilated `prnic_top`s, programmed only through CSR: the
//!   DPU model installs A's flow entries, and the port, spray, tenant (`LOCAL_VNI`), QP
//!   and threshold registers are written over AXI4-Lite. One loop iteration is one clock
//!   cycle of both RNICs.
//! * **model**: the golden models stand in for the RNICs (`verif::rx_decap::wire_frame` with
//!   the sprayer's source-port walk for A, `verif::rx_decap::decapsulate` and
//!   `verif::rx_reorder::ReorderModel` for B), with no line-rate limit: for what-if studies
//!   (spraying against ECMP, rates the hardware does not have).
//!
//! The checker is independent of both: it knows every packet the sender built. Every
//! placed payload must be a packet's own bytes at its own VA and rkey, each packet placed
//! exactly once; every write-with-immediate must raise exactly one CQE, in PSN order per
//! QP, carrying its immediate.
//!
//! | file | holds |
//! |---|---|
//! | `scenario.rs` | the scenario file's schema, defaults and limits |
//! | `traffic.rs` | the packets the sender builds |
//! | `rnics.rs` | what a backend is (`Rnics`) and the golden-model backend |
//! | `rtl.rs` | the rtl backend (two Verilated `prnic_top`s) and the CSR fuzzer |
//! | `drive.rs` | the sender transport, the fabric and the checker, one step at a time |
//! | `report.rs` | what a run reports |
//! | `reset.rs` | the whole-RNIC reset in the middle of traffic |
//! | here | `run`: a scenario on the backend it names |

mod drive;
mod report;
mod reset;
mod rnics;
mod rtl;
mod scenario;
mod traffic;

pub use report::*;
pub use reset::*;
pub use scenario::*;
pub use traffic::*;

use drive::*;
use rnics::*;
use rtl::*;

// Shared by the files above (each has `use super::*`).
use crate::axil::{read, write};
use crate::bridge::{Dut, PrnicTop};
use crate::dpu_link::VerilatorRnic;
use crate::tx_encap::{beats_of, Beat, TxDut, BEAT_BYTES};
use prnic_gen::PrnicConfig;
use prnic_verif::credit::{ReceiverModel, Rule, SenderModel};
use prnic_verif::dpu::{CheckMode, Dpu, Op};
use prnic_verif::ecmp::SwitchHash;
use prnic_verif::fabric::{Fabric, FabricStats, PathSpec, Selection};
use prnic_verif::flow_table::{key, Value};
use prnic_verif::regs;
use prnic_verif::rng::{rng, unit};
use prnic_verif::rx_decap::{
    decapsulate, wire_frame, RdmaPacket, RxFrame, OP_WRITE_FIRST, OP_WRITE_LAST, OP_WRITE_LAST_IMM,
    OP_WRITE_MIDDLE, OP_WRITE_ONLY, OP_WRITE_ONLY_IMM,
};
use prnic_verif::rx_reorder::{ReorderModel, ReorderSettings, Verdict};
use prnic_verif::tx_encap::TxFrame;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// Run a scenario. `progress` is called now and then with (messages completed, total).
pub fn run(s: &Scenario, mut progress: impl FnMut(u32, u32)) -> FabricReport {
    run_dyn(s, None, &mut progress).expect("no trace file to open")
}

/// [`run`], with RNIC B's waveform (FST or VCD by the extension) written to `trace`
/// (rtl backend; with credits = "both", of the run with credits).
pub fn run_traced(
    s: &Scenario,
    trace: &std::path::Path,
    mut progress: impl FnMut(u32, u32),
) -> Result<FabricReport, crate::bridge::TraceError> {
    run_dyn(s, Some(trace), &mut progress)
}

fn run_dyn(
    s: &Scenario,
    trace: Option<&std::path::Path>,
    progress: &mut dyn FnMut(u32, u32),
) -> Result<FabricReport, crate::bridge::TraceError> {
    if s.credits == Credits::Both {
        let on = Scenario {
            credits: Credits::On,
            ..s.clone()
        };
        let off = Scenario {
            credits: Credits::Off,
            ..s.clone()
        };
        let mut r = run_dyn(&on, trace, progress)?;
        r.without_credits = Some(Box::new(run_dyn(&off, None, progress)?));
        return Ok(r);
    }
    match s.backend {
        Backend::Rtl => {
            let mut r = RtlRnics::new(s, trace)?;
            Ok(drive(s, &mut r, progress))
        }
        Backend::Model => {
            let cfg = PrnicConfig::builtin();
            let mut local_vni = [0u32; 8];
            for t in 0..s.tenants {
                local_vni[t as usize] = tenant_vni(t) | 1 << 31;
            }
            let mut rx = ReorderModel::new(s.settings());
            for q in 0..s.qps {
                rx.configure(q, true, (q % s.tenants) as u8, 0);
            }
            let mut r = ModelRnics {
                sprayer: prnic_verif::sprayer::SprayerModel::new(cfg.sprayer.hash_seed),
                spray: s.spray,
                queue: vec![],
                local_vni,
                rx,
                max_frame: cfg.packet.max_frame_bytes as usize + 50,
            };
            Ok(drive(s, &mut r, progress))
        }
    }
}
