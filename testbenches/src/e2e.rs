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
//! * **model**: the golden models stand in for the RNICs (`verif::rx::wire_frame` with
//!   the sprayer's source-port walk for A, `verif::rx::decapsulate` and
//!   `verif::reorder::ReorderModel` for B), with no line-rate limit: for what-if studies
//!   (spraying against ECMP, rates the hardware does not have).
//!
//! The checker is independent of both: it knows every packet the sender built. Every
//! placed payload must be a packet's own bytes at its own VA and rkey, each packet placed
//! exactly once; every write-with-immediate must raise exactly one CQE, in PSN order per
//! QP, carrying its immediate.

use crate::axil::{read, write};
use crate::bridge::{Dut, PrnicTop};
use crate::dpu_link::VerilatorRnic;
use crate::tx::{beats_of, Beat, TxDut, BEAT_BYTES};
use prnic_gen::PrnicConfig;
use prnic_verif::credit::{ReceiverModel, Rule, SenderModel};
use prnic_verif::dpu::{CheckMode, Dpu, Op};
use prnic_verif::ecmp::SwitchHash;
use prnic_verif::fabric::{Fabric, FabricStats, PathSpec, Selection};
use prnic_verif::flow_table::{key, rng, Value};
use prnic_verif::regs;
use prnic_verif::reorder::{ReorderModel, ReorderSettings, Verdict};
use prnic_verif::rx::{
    decapsulate, wire_frame, RdmaPacket, OP_WRITE_FIRST, OP_WRITE_LAST, OP_WRITE_LAST_IMM,
    OP_WRITE_MIDDLE, OP_WRITE_ONLY, OP_WRITE_ONLY_IMM,
};
use prnic_verif::tx::TxFrame;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

/// Which RNICs a scenario runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    /// Two Verilated `prnic_top`s.
    Rtl,
    /// The golden models, no line-rate limit.
    Model,
}

/// How the fabric picks a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PathPolicy {
    /// CRC32 of the outer 5-tuple, as a switch does.
    Ecmp,
    /// Frame by frame over the paths: an idealised sprayer.
    RoundRobin,
}

/// The sender's outer UDP source port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Spray {
    /// A new port every packet (`SPRAY.MODE` 0).
    PerPacket,
    /// One port per flow (`SPRAY.MODE` 1): ECMP pins a QP to one path.
    PerFlow,
}

/// One path of the fabric, as written in a scenario file.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PathFile {
    pub rate_gbps: f64,
    pub delay_ns: f64,
    #[serde(default)]
    pub jitter_ns: f64,
    #[serde(default)]
    pub loss: f64,
    #[serde(default)]
    pub dup: f64,
    /// Tail-drop queue; 64 MiB if not given.
    #[serde(default = "default_queue")]
    pub queue_bytes: u64,
}

fn default_queue() -> u64 {
    64 << 20
}

/// A scenario file (TOML). Every field is documented in `testbenches/scenarios/README.md`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default)]
    pub name: String,
    pub backend: Backend,
    pub paths: Vec<PathFile>,
    #[serde(default = "d_policy")]
    pub path_policy: PathPolicy,
    #[serde(default = "d_spray")]
    pub spray: Spray,
    /// Payload bytes per packet (the last packet of a message may be shorter).
    pub packet_bytes: usize,
    /// Message sizes are uniform in `[message_bytes_min, message_bytes_max]`.
    pub message_bytes_min: usize,
    pub message_bytes_max: usize,
    pub messages: u32,
    /// Share of messages that are write-with-immediate (a CQE at the receiver).
    #[serde(default = "d_imm")]
    pub imm_share: f64,
    #[serde(default = "d_qps")]
    pub qps: u32,
    /// Tenants (VNIs), 1..=8; QP q belongs to tenant q mod tenants.
    #[serde(default = "d_tenants")]
    pub tenants: u32,
    /// Sender injection rate in Gb/s; 0 is unlimited (as fast as RNIC A takes frames).
    #[serde(default)]
    pub injection_gbps: f64,
    /// Receiver to sender delay of ACKs and retransmission requests.
    #[serde(default = "d_reverse")]
    pub reverse_delay_ns: f64,
    /// The sender resends a QP's oldest unacknowledged PSN after this long without an
    /// ACK advancing it.
    #[serde(default = "d_rto")]
    pub rto_ns: f64,
    /// Receive window (PSNs) and retransmission thresholds, written to RNIC B's CSRs.
    #[serde(default = "d_window")]
    pub window: u32,
    #[serde(default = "d_ooo")]
    pub ooo_threshold: u32,
    #[serde(default = "d_pct")]
    pub missing_share_pct: u32,
    #[serde(default = "d_seed")]
    pub seed: u64,
    /// Share of cycles RNIC B's host side holds `tready` low on the placement, CQE and
    /// ACK streams (rtl backend): host memory or PCIe backpressure.
    #[serde(default)]
    pub host_backpressure: f64,
    /// Share of cycles each of RNIC B's MAC RX ports holds `tvalid` low, inside frames
    /// too (rtl backend): the port arbiter must keep a frame's beats together.
    #[serde(default)]
    pub rx_gaps: f64,
    /// Share of frames RNIC B's MACs mark bad (`tuser` at `tlast`, as for an FCS error;
    /// rtl backend): the port FIFO drops each whole and counts it, and the transport
    /// recovers the packet.
    #[serde(default)]
    pub rx_bad_frames: f64,
    /// Bursts at RNIC B's MAC ports (rtl backend): arriving frames are held until this
    /// many wait on the two ports (or the oldest has waited 20 µs), then both ports
    /// deliver them back to back at once, twice what the one RX path takes. 0 = off.
    #[serde(default)]
    pub rx_burst_frames: u32,
    /// Share of cycles with one random AXI4-Lite access to RNIC B between beats (rtl
    /// backend): reads anywhere, writes to unmapped, read-only and staging registers.
    /// Unmapped and misaligned accesses must answer SLVERR and nothing may disturb the
    /// traffic.
    #[serde(default)]
    pub csr_fuzz: f64,
    /// Sending hosts (model backend only): QP q belongs to sender q mod senders, and
    /// each sender has its own `injection_gbps` uplink. 4 makes an incast.
    #[serde(default = "d_senders")]
    pub senders: u32,
    /// The credit engine's rule (Eq. 2, one-batch overdraft) gates every sender:
    /// "off", "on", or "both" (two runs on the same traffic, reported side by side).
    #[serde(default = "d_credits")]
    pub credits: Credits,
    #[serde(default = "d_batch")]
    pub credit_batch_bytes: u64,
    #[serde(default = "d_bdp")]
    pub credit_bdp_bytes: u64,
    /// The receiver grants one batch per batch time at this rate; 0 means the sum of the
    /// path rates.
    #[serde(default)]
    pub credit_rate_gbps: f64,
}

/// Whether the credit engine gates the senders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Credits {
    Off,
    On,
    Both,
}

fn d_senders() -> u32 {
    1
}
fn d_credits() -> Credits {
    Credits::Off
}
fn d_batch() -> u64 {
    16 << 10
}
fn d_bdp() -> u64 {
    64 << 10
}

fn d_policy() -> PathPolicy {
    PathPolicy::Ecmp
}
fn d_spray() -> Spray {
    Spray::PerPacket
}
fn d_imm() -> f64 {
    0.5
}
fn d_qps() -> u32 {
    16
}
fn d_tenants() -> u32 {
    4
}
fn d_reverse() -> f64 {
    2000.0
}
fn d_rto() -> f64 {
    50_000.0
}
/// The largest receive window the model backend takes (PSNs): what-if studies beyond the
/// hardware's `reorder.window_bits`.
pub const MODEL_MAX_WINDOW: u32 = 65_536;

fn d_window() -> u32 {
    256
}
fn d_ooo() -> u32 {
    64
}
fn d_pct() -> u32 {
    25
}
fn d_seed() -> u64 {
    1
}

impl Scenario {
    /// Parse and check a scenario file's text: one line naming the field on error.
    pub fn parse(text: &str) -> Result<Scenario, String> {
        let s: Scenario = toml::from_str(text).map_err(|e| {
            let m = e.message().lines().next().unwrap_or("invalid").to_string();
            match e.span() {
                // Name the line (and so the field) the parser stopped at.
                Some(sp) => {
                    let line = text[..sp.start].matches('\n').count();
                    let t = text.lines().nth(line).unwrap_or("").trim();
                    format!("line {}: `{t}`: {m}", line + 1)
                }
                None => m,
            }
        })?;
        s.check()?;
        Ok(s)
    }

    /// Every field within its range, for the scenario's backend; one line naming the
    /// field otherwise. `parse` calls it; call it again after changing a field (as
    /// `prnic-sim fabric --backend` does).
    pub fn check(&self) -> Result<(), String> {
        let bad = |f: &str, why: String| Err(format!("{f}: {why}"));
        if self.paths.is_empty() || self.paths.len() > 64 {
            return bad("paths", format!("{} paths; give 1..=64", self.paths.len()));
        }
        for (i, p) in self.paths.iter().enumerate() {
            if !(p.rate_gbps > 0.0 && p.rate_gbps <= 100_000.0) {
                return bad(
                    &format!("paths[{i}].rate_gbps"),
                    format!("{} is not in (0, 100000]", p.rate_gbps),
                );
            }
            if !(p.delay_ns >= 0.0 && p.delay_ns <= 1e9) {
                return bad(
                    &format!("paths[{i}].delay_ns"),
                    format!("{} is not in [0, 1e9]", p.delay_ns),
                );
            }
            if !(p.jitter_ns >= 0.0 && p.jitter_ns <= 1e9) {
                return bad(
                    &format!("paths[{i}].jitter_ns"),
                    format!("{} is not in [0, 1e9]", p.jitter_ns),
                );
            }
            if !(0.0..0.5).contains(&p.loss) {
                return bad(
                    &format!("paths[{i}].loss"),
                    format!("{} is not in [0, 0.5)", p.loss),
                );
            }
            if !(0.0..0.5).contains(&p.dup) {
                return bad(
                    &format!("paths[{i}].dup"),
                    format!("{} is not in [0, 0.5)", p.dup),
                );
            }
            if p.queue_bytes < 16 << 10 {
                return bad(
                    &format!("paths[{i}].queue_bytes"),
                    format!("{} is below one 16 KiB", p.queue_bytes),
                );
            }
        }
        let max_payload = PrnicConfig::builtin().packet.max_frame_bytes as usize - 124;
        if self.packet_bytes == 0 || self.packet_bytes > max_payload {
            return bad(
                "packet_bytes",
                format!(
                    "{} is not in 1..={max_payload} (the largest frame less the headers)",
                    self.packet_bytes
                ),
            );
        }
        if self.message_bytes_min == 0 || self.message_bytes_min > self.message_bytes_max {
            return bad(
                "message_bytes_min",
                format!(
                    "{} is not in 1..=message_bytes_max ({})",
                    self.message_bytes_min, self.message_bytes_max
                ),
            );
        }
        if self.message_bytes_max > 64 << 20 {
            return bad(
                "message_bytes_max",
                format!("{} is above 64 MiB", self.message_bytes_max),
            );
        }
        if self.messages == 0 || self.messages > 10_000_000 {
            return bad(
                "messages",
                format!("{} is not in 1..=10000000", self.messages),
            );
        }
        if !(0.0..=1.0).contains(&self.imm_share) {
            return bad("imm_share", format!("{} is not in [0, 1]", self.imm_share));
        }
        let qps = PrnicConfig::builtin().reorder.qps;
        if self.qps == 0 || self.qps > qps {
            return bad(
                "qps",
                format!(
                    "{} is not in 1..={qps} (the config's reorder.qps)",
                    self.qps
                ),
            );
        }
        if self.tenants == 0 || self.tenants > 8 {
            return bad(
                "tenants",
                format!("{} is not in 1..=8 (LOCAL_VNI slots)", self.tenants),
            );
        }
        if !(self.injection_gbps >= 0.0 && self.injection_gbps <= 100_000.0) {
            return bad(
                "injection_gbps",
                format!(
                    "{} is not in [0, 100000] (0 is unlimited)",
                    self.injection_gbps
                ),
            );
        }
        if !(self.reverse_delay_ns >= 0.0 && self.reverse_delay_ns <= 1e9) {
            return bad(
                "reverse_delay_ns",
                format!("{} is not in [0, 1e9]", self.reverse_delay_ns),
            );
        }
        if !(self.rto_ns >= 1000.0 && self.rto_ns <= 1e10) {
            return bad("rto_ns", format!("{} is not in [1000, 1e10]", self.rto_ns));
        }
        // The rtl backend holds what rx_reorder holds; the golden model keeps its window
        // in a set, so a what-if study may ask for more than the hardware has.
        let hw = PrnicConfig::builtin().reorder.window_bits;
        let most = match self.backend {
            Backend::Rtl => hw,
            Backend::Model => MODEL_MAX_WINDOW,
        };
        if !(1..=most).contains(&self.window) {
            let why = match self.backend {
                Backend::Rtl => format!(
                    "{} is not in 1..={hw}, the PSNs rx_reorder holds (reorder.window_bits); \
                     backend = \"model\" takes up to {MODEL_MAX_WINDOW}",
                    self.window
                ),
                Backend::Model => {
                    format!("{} is not in 1..={MODEL_MAX_WINDOW}", self.window)
                }
            };
            return bad("window", why);
        }
        if self.ooo_threshold == 0 || self.ooo_threshold >= self.window {
            return bad(
                "ooo_threshold",
                format!(
                    "{} is not in 1..window ({})",
                    self.ooo_threshold, self.window
                ),
            );
        }
        if !(0.0..0.95).contains(&self.host_backpressure) {
            return bad(
                "host_backpressure",
                format!("{} is not in [0, 0.95)", self.host_backpressure),
            );
        }
        if !(0.0..0.95).contains(&self.rx_gaps) {
            return bad("rx_gaps", format!("{} is not in [0, 0.95)", self.rx_gaps));
        }
        if self.rx_burst_frames > 64 {
            return bad(
                "rx_burst_frames",
                format!("{} is not in 0..=64", self.rx_burst_frames),
            );
        }
        if !(0.0..=0.5).contains(&self.rx_bad_frames) {
            return bad(
                "rx_bad_frames",
                format!("{} is not in [0, 0.5]", self.rx_bad_frames),
            );
        }
        if !(0.0..=0.5).contains(&self.csr_fuzz) {
            return bad("csr_fuzz", format!("{} is not in [0, 0.5]", self.csr_fuzz));
        }
        if self.senders == 0 || self.senders > 64 {
            return bad("senders", format!("{} is not in 1..=64", self.senders));
        }
        if self.senders > 1 && self.backend == Backend::Rtl {
            return bad(
                "senders",
                "more than one sender needs backend = \"model\" (one RNIC A is Verilated)".into(),
            );
        }
        if self.credits != Credits::Off && self.backend == Backend::Rtl {
            return bad("credits", "the credit loop runs with backend = \"model\" (credit messages are not framed by the RTL)".into());
        }
        if self.credit_batch_bytes < 1024 || self.credit_batch_bytes > 1 << 30 {
            return bad(
                "credit_batch_bytes",
                format!("{} is not in 1024..=2^30", self.credit_batch_bytes),
            );
        }
        if self.credit_bdp_bytes > 1 << 30 {
            return bad(
                "credit_bdp_bytes",
                format!("{} is above 2^30", self.credit_bdp_bytes),
            );
        }
        if !(self.credit_rate_gbps >= 0.0 && self.credit_rate_gbps <= 100_000.0) {
            return bad(
                "credit_rate_gbps",
                format!(
                    "{} is not in [0, 100000] (0 is the sum of the path rates)",
                    self.credit_rate_gbps
                ),
            );
        }
        if self.missing_share_pct > 100 {
            return bad(
                "missing_share_pct",
                format!("{} is above 100", self.missing_share_pct),
            );
        }
        Ok(())
    }

    fn settings(&self) -> ReorderSettings {
        ReorderSettings {
            qps: PrnicConfig::builtin().reorder.qps,
            window: self.window,
            ooo_threshold: self.ooo_threshold,
            missing_share_pct: self.missing_share_pct,
        }
    }
}

/// `prnic-sim fabric` output.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FabricReport {
    pub name: String,
    pub backend: String,
    pub messages: u32,
    pub messages_completed: u32,
    pub packets: u64,
    pub payload_bytes: u64,
    /// Time of the last placement or CQE, from the first send.
    pub last_arrival_us: f64,
    /// Payload bytes over `last_arrival_us`.
    pub throughput_gbps: f64,
    /// Most packets placed at once above their QP's in-order point (received but not yet
    /// deliverable in order), over all QPs.
    pub peak_ooo_packets: u64,
    /// The widest receive window any QP used: the most PSNs from a QP's in-order point
    /// to a packet placed above it, that packet included. The sender stays inside
    /// `window`, so this is at most `window`; run with a large `window` (model backend)
    /// to see what a fabric needs.
    pub peak_span_psns: u64,
    pub cqes: u64,
    pub retransmitted_packets: u64,
    pub retransmission_requests: u64,
    pub timeouts: u64,
    pub fabric_lost: u64,
    pub fabric_duplicated: u64,
    pub fabric_queue_drops: u64,
    pub peak_fabric_queue_bytes: u64,
    /// Most frames waiting at one of RNIC B's ports (rtl backend).
    pub peak_port_backlog_frames: u64,
    /// Frames each of RNIC B's MAC ports delivered, and how many of them it marked bad
    /// (rtl backend).
    pub port_frames: [u64; 2],
    pub port_marked_bad: [u64; 2],
    /// Cycles in which both of RNIC B's MAC ports delivered a beat (rtl backend): both
    /// ports at full rate at once, twice what the RX path takes.
    pub both_ports_busy_cycles: u64,
    pub cycles: u64,
    /// Checker findings; all must be 0.
    pub misplaced: u64,
    pub placed_twice: u64,
    pub packets_never_placed: u64,
    pub cqe_wrong: u64,
    pub cqe_twice: u64,
    pub cqe_misordered: u64,
    pub cqes_missing: u64,
    /// RNIC B's RX counters (and `CNT_CSR_BAD_ACCESS`) read over CSR at the end (rtl
    /// backend).
    pub rx_counters: BTreeMap<String, u64>,
    pub senders: u32,
    pub credits: bool,
    pub credit_requests: u64,
    pub credit_grants: u64,
    /// `csr_fuzz`: accesses made, SLVERRs expected (unmapped or misaligned), and
    /// accesses whose answer or effect broke the register map (must be 0).
    pub csr_accesses: u64,
    pub csr_slverr: u64,
    pub csr_violations: u64,
    /// With `credits = "both"`: the same traffic without credits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub without_credits: Option<Box<FabricReport>>,
}

impl FabricReport {
    /// Every check passed and every message completed.
    pub fn clean(&self) -> bool {
        self.misplaced == 0
            && self.placed_twice == 0
            && self.packets_never_placed == 0
            && self.cqe_wrong == 0
            && self.cqe_twice == 0
            && self.cqe_misordered == 0
            && self.cqes_missing == 0
            && self.messages_completed == self.messages
            && self.csr_violations == 0
    }
}

/// The VNI of tenant `t`.
pub fn tenant_vni(t: u32) -> u32 {
    0x1000 + 0x111 * t
}

const A_PORT_IP: [u32; 2] = [0x0a00_0101, 0x0a00_0102];
const B_PORT_IP: [u32; 2] = [0x0a00_0201, 0x0a00_0202];
/// The inner destination the sender's frames carry (`wire_frame`'s).
const INNER_DST_IP: u32 = 0xc0a8_0002;

/// One packet the sender built.
#[derive(Debug, Clone)]
struct Pkt {
    p: RdmaPacket,
    msg: u32,
}

/// All packets, per QP in PSN order, and the messages.
struct Traffic {
    per_qp: Vec<Vec<Pkt>>,
    /// Per message: QP, number of packets, immediate.
    msgs: Vec<(u32, u32, Option<u32>)>,
}

fn build_traffic(s: &Scenario) -> Traffic {
    let mut next = rng(s.seed ^ 0x7ea5);
    let mut per_qp: Vec<Vec<Pkt>> = vec![vec![]; s.qps as usize];
    let mut msgs = vec![];
    let mut va_next = vec![0u64; s.qps as usize];
    for m in 0..s.messages {
        let qp = (next() % s.qps as u64) as u32;
        let span = (s.message_bytes_max - s.message_bytes_min) as u64 + 1;
        let len = s.message_bytes_min + (next() % span) as usize;
        let imm = unit(next()) < s.imm_share;
        let imm = imm.then(|| next() as u32);
        let n = len.div_ceil(s.packet_bytes) as u32;
        let tenant = qp % s.tenants;
        // Each QP writes its own region; the VA names QP and offset.
        let base = ((qp as u64) << 40) | va_next[qp as usize];
        va_next[qp as usize] += len as u64;
        for k in 0..n {
            let lo = k as usize * s.packet_bytes;
            let hi = (lo + s.packet_bytes).min(len);
            let opcode = match (n, k == n - 1, imm.is_some()) {
                (1, _, true) => OP_WRITE_ONLY_IMM,
                (1, _, false) => OP_WRITE_ONLY,
                (_, true, true) => OP_WRITE_LAST_IMM,
                (_, true, false) => OP_WRITE_LAST,
                _ if k == 0 => OP_WRITE_FIRST,
                _ => OP_WRITE_MIDDLE,
            };
            let psn = per_qp[qp as usize].len() as u32;
            let fill = next();
            let payload: Vec<u8> = (0..hi - lo)
                .map(|i| (fill.rotate_left((i % 64) as u32) as u8) ^ (i as u8))
                .collect();
            per_qp[qp as usize].push(Pkt {
                p: RdmaPacket {
                    vni: tenant_vni(tenant),
                    qp,
                    psn,
                    opcode,
                    ack_req: k == n - 1 || psn % 8 == 7,
                    va: base + lo as u64,
                    rkey: 0x5000 + qp,
                    imm: if k == n - 1 { imm } else { None },
                    payload,
                },
                msg: m,
            });
        }
        msgs.push((qp, n, imm));
    }
    Traffic { per_qp, msgs }
}

/// What a receiving RNIC produced in one step.
#[derive(Default)]
struct RxOut {
    /// (QP, VA, rkey, payload).
    placed: Vec<(u32, u64, u32, Vec<u8>)>,
    /// (QP, PSN, immediate).
    cqes: Vec<(u32, u32, u32)>,
    /// (QP, next expected PSN).
    acks: Vec<(u32, u32)>,
    /// (QP, missing PSNs).
    naks: Vec<(u32, Vec<u32>)>,
}

/// The pair of RNICs behind the sender and the checker.
trait Rnics {
    /// The sender may hand RNIC A a frame now.
    fn tx_ready(&self) -> bool;
    /// Hand RNIC A one packet (inner frame, QP, VNI).
    fn tx_push(&mut self, p: &RdmaPacket);
    /// One step at `now_ns`: frames A sent go into `fabric`, `arrived` frames go to B.
    fn step(&mut self, now_ns: f64, fabric: &mut Fabric, arrived: Vec<Vec<u8>>) -> RxOut;
    /// Nothing left inside either RNIC.
    fn idle(&self) -> bool;
    fn peak_port_backlog(&self) -> u64 {
        0
    }
    fn counters(&mut self) -> BTreeMap<String, u64> {
        BTreeMap::new()
    }
    /// (accesses, SLVERRs expected, violations) of the CSR fuzz.
    fn csr_fuzz(&self) -> (u64, u64, u64) {
        (0, 0, 0)
    }
    /// Frames delivered per port, marked bad per port, cycles with both ports busy.
    fn port_stats(&self) -> ([u64; 2], [u64; 2], u64) {
        ([0; 2], [0; 2], 0)
    }
}

/// The golden models as the two RNICs.
struct ModelRnics {
    sprayer: prnic_verif::sprayer::SprayerModel,
    spray: Spray,
    queue: Vec<Vec<u8>>,
    local_vni: [u32; 8],
    rx: ReorderModel,
    max_frame: usize,
}

impl Rnics for ModelRnics {
    fn tx_ready(&self) -> bool {
        true
    }
    fn tx_push(&mut self, p: &RdmaPacket) {
        let mut f = wire_frame(p);
        let mode = match self.spray {
            Spray::PerPacket => prnic_verif::sprayer::Mode::PerPacket,
            Spray::PerFlow => prnic_verif::sprayer::Mode::PerFlow,
        };
        let sport = self.sprayer.port(
            mode,
            49152,
            65535,
            prnic_verif::sprayer::flow_id(p.vni, p.qp),
        );
        f[34..36].copy_from_slice(&sport.to_be_bytes());
        self.queue.push(f);
    }
    fn step(&mut self, now_ns: f64, fabric: &mut Fabric, arrived: Vec<Vec<u8>>) -> RxOut {
        for f in self.queue.drain(..) {
            fabric.send(now_ns, f);
        }
        let mut out = RxOut::default();
        for f in arrived {
            let Ok(p) = decapsulate(&f, &self.local_vni, self.max_frame) else {
                continue;
            };
            let o = self.rx.packet(&p.header());
            if o.verdict == Verdict::Place {
                out.placed.push((p.qp, p.va, p.rkey, p.payload));
            }
            for (psn, imm) in o.cqes {
                out.cqes.push((p.qp, psn, imm));
            }
            if let Some(a) = o.ack {
                out.acks.push((p.qp, a));
            }
            if let Some(n) = o.nak {
                out.naks.push((p.qp, n.missing));
            }
        }
        out
    }
    fn idle(&self) -> bool {
        self.queue.is_empty()
    }
}

/// Two Verilated `prnic_top`s. A's TX streams feed the fabric; B's two RX ports take the
/// arrivals in turn.
struct RtlRnics {
    a: Dpu<VerilatorRnic>,
    b: VerilatorRnic,
    /// Beats of the frames waiting for A's TX input.
    a_in: VecDeque<Beat>,
    a_out: [Vec<u8>; 2],
    /// Beats waiting at each of B's ports, and how many frames they hold.
    b_in: [VecDeque<Beat>; 2],
    b_frames: [u64; 2],
    next_port: usize,
    place: Vec<u8>,
    peak_backlog: u64,
    backpressure: f64,
    next: Box<dyn FnMut() -> u64>,
    csr_fuzz: f64,
    fuzz: CsrFuzz,
    rx_gaps: f64,
    rx_bad_frames: f64,
    port_frames: [u64; 2],
    port_marked_bad: [u64; 2],
    both_busy: u64,
    rx_burst_frames: u64,
    /// Bursts: when the oldest held frame arrived; the ports are emptying a burst.
    held_since_ns: Option<f64>,
    releasing: bool,
}

/// A random draw as a number in [0, 1).
fn unit(r: u64) -> f64 {
    (r >> 11) as f64 / (1u64 << 53) as f64
}

/// Random CSR accesses with their expected answers.
#[derive(Default)]
struct CsrFuzz {
    /// Mapped word → (register, read-only).
    mapped: BTreeMap<u32, (&'static str, bool)>,
    accesses: u64,
    slverr: u64,
    violations: u64,
}

impl CsrFuzz {
    fn new() -> Self {
        let mut mapped = BTreeMap::new();
        for r in prnic_regs::registers() {
            let ro = match &r.kind {
                prnic_regs::Kind::Reg(fs) => fs.iter().all(|f| f.access == prnic_regs::Access::Ro),
                prnic_regs::Kind::Counter64 { .. } => true,
            };
            for a in r.offsets() {
                mapped.insert(a, (r.name, ro));
            }
        }
        CsrFuzz {
            mapped,
            ..Default::default()
        }
    }

    /// One access chosen by `r`. Writes go only where the map says they change nothing
    /// the traffic depends on: unmapped words, read-only words, and staging registers
    /// (flow-table entry, QP_ID/QP_CFG/QP_PSN: nothing happens without a command).
    fn access(&mut self, d: &mut PrnicTop, r: u64) {
        const STAGING: [u32; 10] = [
            regs::FT_KEY_LO,
            regs::FT_KEY_HI,
            regs::FT_VAL0,
            regs::FT_VAL1,
            regs::FT_VAL2,
            regs::FT_VAL3,
            regs::FT_LOC,
            regs::QP_ID,
            regs::QP_CFG,
            regs::QP_PSN,
        ];
        self.accesses += 1;
        let a = match r % 4 {
            0 => (r >> 8) as u32 & 0xffc,
            1 => ((r >> 8) as u32 & 0xfff) | 1,
            2 => STAGING[(r >> 8) as usize % STAGING.len()],
            _ => *self
                .mapped
                .keys()
                .nth((r >> 8) as usize % self.mapped.len())
                .unwrap(),
        };
        let known = self.mapped.get(&a).copied();
        if known.is_none() {
            self.slverr += 1;
        }
        let expect = if known.is_some() {
            crate::axil::OKAY
        } else {
            crate::axil::SLVERR
        };
        let writable = STAGING.contains(&a) || known.is_some_and(|(_, ro)| ro);
        if (r >> 40).is_multiple_of(2) && (writable || known.is_none()) {
            let resp = write(d, a, (r >> 20) as u32, 0xf, 0).expect("CSR answers");
            self.violations += (resp != expect) as u64;
            // A read-only identification word must not change.
            if a == regs::ID_MAGIC && csr_read(d, a) != prnic_regs::MAGIC {
                self.violations += 1;
            }
        } else {
            let (_, resp) = read(d, a, 0).expect("CSR answers");
            self.violations += (resp != expect) as u64;
        }
    }
}

/// RNIC B as the scenario needs it, over CSR: tenants, window and thresholds, and every
/// QP created at PSN 0 (waiting for each `QP_CMD` as software does).
fn program_b(d: &mut PrnicTop, s: &Scenario) {
    for t in 0..s.tenants {
        csr_write(d, regs::LOCAL_VNI0 + 4 * t, tenant_vni(t) | 1 << 31);
    }
    csr_write(d, regs::REORDER_WINDOW, s.window);
    csr_write(
        d,
        regs::REORDER_THRESH,
        s.ooo_threshold | s.missing_share_pct << 16,
    );
    for q in 0..s.qps {
        csr_write(d, regs::QP_ID, q);
        csr_write(d, regs::QP_CFG, (q % s.tenants) | 1 << 31);
        csr_write(d, regs::QP_PSN, 0);
        csr_write(d, regs::QP_CMD, 1);
        let mut polls = 0;
        while csr_read(d, regs::RX_STATUS) & regs::RX_STATUS_QP_BUSY_MASK != 0 {
            polls += 1;
            assert!(polls < 10_000, "QP_CMD never completed");
            d.step_n(64);
        }
    }
}

fn csr_write(d: &mut PrnicTop, addr: u32, v: u32) {
    let r = write(d, addr, v, 0xf, 0).expect("CSR answers");
    assert_eq!(r, crate::axil::OKAY, "CSR write {addr:#x} answered {r}");
}

fn csr_read(d: &mut PrnicTop, addr: u32) -> u32 {
    read(d, addr, 0).expect("CSR answers").0
}

fn beat_bytes(data: &[u32], keep: &[u32], out: &mut Vec<u8>) {
    for i in 0..BEAT_BYTES {
        if keep[i / 32] >> (i % 32) & 1 == 1 {
            out.push((data[i / 4] >> (8 * (i % 4))) as u8);
        }
    }
}

impl RtlRnics {
    /// Both RNICs out of reset and programmed through CSR for `s`; RNIC B writes a
    /// waveform to `trace` if given.
    fn new(
        s: &Scenario,
        trace: Option<&std::path::Path>,
    ) -> Result<Self, crate::bridge::TraceError> {
        let cfg = PrnicConfig::builtin();
        let geom = crate::flow_table::geometry(cfg);
        let hash = u64::from_str_radix(&cfg.hash_hex(), 16).expect("hex");
        let mut a = Dpu::new(VerilatorRnic::new(), geom, hash, CheckMode::StateMachine);
        // A: ports, spraying, and one flow entry per tenant (installed by the DPU).
        {
            let d = &mut a.link.dut;
            // `p` is the port number the registers and the addresses are named by.
            #[allow(clippy::needless_range_loop)]
            for p in 0..2 {
                let (lo, hi, ip) = if p == 0 {
                    (regs::PORT0_MAC_LO, regs::PORT0_MAC_HI, regs::PORT0_IPV4)
                } else {
                    (regs::PORT1_MAC_LO, regs::PORT1_MAC_HI, regs::PORT1_IPV4)
                };
                csr_write(d, lo, 0xa000_0000 | p as u32);
                csr_write(d, hi, 0x02aa);
                csr_write(d, ip, A_PORT_IP[p]);
            }
            let mode = match s.spray {
                Spray::PerPacket => 0,
                Spray::PerFlow => 1,
            };
            csr_write(d, regs::SPRAY, mode);
        }
        for t in 0..s.tenants {
            let v = Value {
                underlay_ip: B_PORT_IP[(t % 2) as usize],
                next_hop_mac: 0x02bb_0000_0000 | t as u64,
                vni: tenant_vni(t),
                flags: (t % 2) as u8,
            };
            a.apply(Op::Insert(key(tenant_vni(t), INNER_DST_IP), v))
                .expect("the DPU installs a tenant's flow");
        }
        // B: tenants, thresholds, QPs.
        let mut b = match trace {
            Some(t) => {
                let period_ps = (1e6 / cfg.clock.mhz).round() as u64;
                VerilatorRnic::with_dut(PrnicTop::with_trace(t, period_ps)?)
            }
            None => VerilatorRnic::new(),
        };
        program_b(&mut b.dut, s);
        Ok(RtlRnics {
            a,
            b,
            a_in: VecDeque::new(),
            a_out: [vec![], vec![]],
            b_in: [VecDeque::new(), VecDeque::new()],
            b_frames: [0, 0],
            next_port: 0,
            place: vec![],
            peak_backlog: 0,
            backpressure: s.host_backpressure,
            next: Box::new(rng(s.seed ^ 0xbac)),
            csr_fuzz: s.csr_fuzz,
            fuzz: CsrFuzz::new(),
            rx_gaps: s.rx_gaps,
            rx_bad_frames: s.rx_bad_frames,
            port_frames: [0; 2],
            port_marked_bad: [0; 2],
            both_busy: 0,
            rx_burst_frames: s.rx_burst_frames as u64,
            held_since_ns: None,
            releasing: false,
        })
    }
}

impl Rnics for RtlRnics {
    fn tx_ready(&self) -> bool {
        // One frame queued ahead keeps A's input busy without a gap.
        self.a_in.len() < 2 * 4096 / BEAT_BYTES + 2
    }
    fn tx_push(&mut self, p: &RdmaPacket) {
        let inner = wire_frame(p)[50..].to_vec();
        let f = TxFrame {
            bytes: inner,
            vni: p.vni,
            qp: p.qp,
            bad_keep_beat: None,
        };
        self.a_in.extend(beats_of(&f));
    }
    fn step(&mut self, now_ns: f64, fabric: &mut Fabric, arrived: Vec<Vec<u8>>) -> RxOut {
        for f in arrived {
            let frame = TxFrame {
                bytes: f,
                vni: 0,
                qp: 0,
                bad_keep_beat: None,
            };
            let mut beats = beats_of(&frame);
            // The MAC's bad-frame flag rides on the last beat only.
            let bad = self.rx_bad_frames > 0.0 && unit((self.next)()) < self.rx_bad_frames;
            if let Some(b) = beats.last_mut() {
                b.tuser = bad as u64;
            }
            self.port_marked_bad[self.next_port] += bad as u64;
            self.b_in[self.next_port].extend(beats);
            self.b_frames[self.next_port] += 1;
            self.peak_backlog = self.peak_backlog.max(self.b_frames[self.next_port]);
            self.next_port ^= 1;
        }
        // A: the next TX beat in, both MAC ports always ready.
        let a = &mut self.a.link.dut;
        a.drive_in(self.a_in.front());
        a.set_out_ready(true);
        a.eval();
        if self.a_in.front().is_some() && a.s_axis_tx_tready() != 0 {
            self.a_in.pop_front();
        }
        if a.m_axis_port0_tx_tvalid() != 0 {
            beat_bytes(
                &a.m_axis_port0_tx_tdata(),
                &a.m_axis_port0_tx_tkeep(),
                &mut self.a_out[0],
            );
            if a.m_axis_port0_tx_tlast() != 0 {
                fabric.send(now_ns, std::mem::take(&mut self.a_out[0]));
            }
        }
        if a.m_axis_port1_tx_tvalid() != 0 {
            beat_bytes(
                &a.m_axis_port1_tx_tdata(),
                &a.m_axis_port1_tx_tkeep(),
                &mut self.a_out[1],
            );
            if a.m_axis_port1_tx_tlast() != 0 {
                fabric.send(now_ns, std::mem::take(&mut self.a_out[1]));
            }
        }
        a.step();

        // B: now and then a CSR access between beats (streams idle meanwhile).
        if self.csr_fuzz > 0.0 && unit((self.next)()) < self.csr_fuzz {
            let b = &mut self.b.dut;
            b.set_s_axis_port0_rx_tvalid(0);
            b.set_s_axis_port1_rx_tvalid(0);
            b.set_m_axis_place_tready(0);
            b.set_m_axis_cqe_tready(0);
            b.set_m_axis_ack_tready(0);
            let r = (self.next)();
            self.fuzz.access(b, r);
        }
        // B: a beat on each port that has a frame, every host stream ready.
        let b = &mut self.b.dut;
        let none = Beat {
            data: [0; BEAT_BYTES / 4],
            keep: [0; BEAT_BYTES / 32],
            last: false,
            tuser: 0,
        };
        // Bursts: hold frames until enough wait, then empty both ports back to back.
        let waiting = self.b_frames[0] + self.b_frames[1];
        if self.rx_burst_frames > 0 {
            if waiting == 0 {
                self.releasing = false;
                self.held_since_ns = None;
            } else if !self.releasing {
                let since = *self.held_since_ns.get_or_insert(now_ns);
                self.releasing = waiting >= self.rx_burst_frames || now_ns - since > 20_000.0;
            }
        }
        let hold = self.rx_burst_frames > 0 && !self.releasing;
        let gap0 = self.rx_gaps > 0.0 && unit((self.next)()) < self.rx_gaps;
        let gap1 = self.rx_gaps > 0.0 && unit((self.next)()) < self.rx_gaps;
        let (v0, v1) = (
            !self.b_in[0].is_empty() && !gap0 && !hold,
            !self.b_in[1].is_empty() && !gap1 && !hold,
        );
        let b0 = self.b_in[0].front().unwrap_or(&none);
        b.set_s_axis_port0_rx_tvalid(v0 as u64);
        b.set_s_axis_port0_rx_tdata(&b0.data);
        b.set_s_axis_port0_rx_tkeep(&b0.keep);
        b.set_s_axis_port0_rx_tlast(b0.last as u64);
        b.set_s_axis_port0_rx_tuser((b0.last && b0.tuser != 0) as u64);
        let b1 = self.b_in[1].front().unwrap_or(&none);
        b.set_s_axis_port1_rx_tvalid(v1 as u64);
        b.set_s_axis_port1_rx_tdata(&b1.data);
        b.set_s_axis_port1_rx_tkeep(&b1.keep);
        b.set_s_axis_port1_rx_tlast(b1.last as u64);
        b.set_s_axis_port1_rx_tuser((b1.last && b1.tuser != 0) as u64);
        let mut ready = || unit((self.next)()) >= self.backpressure;
        let (rp, rc, ra) = (ready(), ready(), ready());
        b.set_m_axis_place_tready(rp as u64);
        b.set_m_axis_cqe_tready(rc as u64);
        b.set_m_axis_ack_tready(ra as u64);
        b.eval();
        let taken = [
            b.s_axis_port0_rx_tready() != 0,
            b.s_axis_port1_rx_tready() != 0,
        ];
        // The ports are MACs: they never wait (prnic_top's FIFOs take every beat).
        debug_assert!(taken[0] && taken[1]);
        self.both_busy += (v0 && v1) as u64;
        for p in 0..2 {
            if taken[p] && [v0, v1][p] {
                if let Some(beat) = self.b_in[p].pop_front() {
                    self.b_frames[p] -= beat.last as u64;
                    self.port_frames[p] += beat.last as u64;
                }
            }
        }
        let mut out = RxOut::default();
        if rp && b.m_axis_place_tvalid() != 0 {
            beat_bytes(
                &b.m_axis_place_tdata(),
                &b.m_axis_place_tkeep(),
                &mut self.place,
            );
            if b.m_axis_place_tlast() != 0 {
                let u = b.m_axis_place_tuser();
                let qp = u[0] & 0xffff;
                let va = u[1] as u64 | (u[2] as u64) << 32;
                let payload = std::mem::take(&mut self.place);
                if payload.len() != u[4] as usize {
                    // The sideband length disagrees with the bytes: a misplacement.
                    out.placed.push((qp, u64::MAX, u[3], payload));
                } else {
                    out.placed.push((qp, va, u[3], payload));
                }
            }
        }
        if rc && b.m_axis_cqe_tvalid() != 0 {
            let w = b.m_axis_cqe_tdata();
            out.cqes.push((w[1] & 0xffff, w[0] & 0xff_ffff, w[2]));
        }
        if ra && b.m_axis_ack_tvalid() != 0 {
            let w = b.m_axis_ack_tdata();
            let qp = w[0] & 0xffff;
            if w[0] >> 16 & 1 == 1 {
                out.acks.push((qp, w[1] & 0xff_ffff));
            }
            if w[0] >> 17 & 1 == 1 {
                let base = w[2] & 0xff_ffff;
                let missing = (0..256u32)
                    .filter(|j| w[4 + (*j as usize) / 32] >> (j % 32) & 1 == 1)
                    .map(|j| (base + j) & 0xff_ffff)
                    .collect();
                out.naks.push((qp, missing));
            }
        }
        b.step();
        out
    }
    fn idle(&self) -> bool {
        self.a_in.is_empty() && self.b_in.iter().all(|q| q.is_empty())
    }
    fn peak_port_backlog(&self) -> u64 {
        self.peak_backlog
    }
    fn csr_fuzz(&self) -> (u64, u64, u64) {
        (self.fuzz.accesses, self.fuzz.slverr, self.fuzz.violations)
    }
    fn port_stats(&self) -> ([u64; 2], [u64; 2], u64) {
        (self.port_frames, self.port_marked_bad, self.both_busy)
    }
    fn counters(&mut self) -> BTreeMap<String, u64> {
        let d = &mut self.b.dut;
        let mut m = BTreeMap::new();
        for r in prnic_regs::registers() {
            if r.name.starts_with("CNT_RX_") || r.name == "CNT_CSR_BAD_ACCESS" {
                let lo = csr_read(d, r.offset) as u64;
                let hi = csr_read(d, r.offset + 4) as u64;
                m.insert(r.name.to_lowercase(), lo | hi << 32);
            }
        }
        m
    }
}

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

fn drive(s: &Scenario, r: &mut impl Rnics, progress: &mut dyn FnMut(u32, u32)) -> FabricReport {
    drive_until(s, r, progress, None)
}

/// [`drive`], stopped after `stop_at` cycles if given (traffic still in flight).
fn drive_until(
    s: &Scenario,
    r: &mut impl Rnics,
    progress: &mut dyn FnMut(u32, u32),
    stop_at: Option<u64>,
) -> FabricReport {
    let cfg = PrnicConfig::builtin();
    let period_ns = 1000.0 / cfg.clock.mhz;
    let tr = build_traffic(s);
    let nq = s.qps as usize;
    let paths: Vec<PathSpec> = s
        .paths
        .iter()
        .map(|p| PathSpec {
            rate_gbps: p.rate_gbps,
            delay_ns: p.delay_ns,
            jitter_ns: p.jitter_ns,
            loss: p.loss,
            dup: p.dup,
            queue_bytes: p.queue_bytes,
        })
        .collect();
    let sel = match s.path_policy {
        PathPolicy::Ecmp => Selection::Ecmp(SwitchHash::Crc32),
        PathPolicy::RoundRobin => Selection::RoundRobin,
    };
    let mut fabric = Fabric::new(paths, sel, s.seed);
    let total_pkts: u64 = tr.per_qp.iter().map(|v| v.len() as u64).sum();
    let payload_bytes: u64 = tr
        .per_qp
        .iter()
        .flatten()
        .map(|p| p.p.payload.len() as u64)
        .sum();
    // Lookup of a placement: (QP, VA) to PSN.
    let by_va: HashMap<(u32, u64), u32> = tr
        .per_qp
        .iter()
        .flatten()
        .map(|p| ((p.p.qp, p.p.va), p.p.psn))
        .collect();
    let mut rep = FabricReport {
        name: s.name.clone(),
        backend: format!("{:?}", s.backend).to_lowercase(),
        messages: s.messages,
        packets: total_pkts,
        payload_bytes,
        ..Default::default()
    };
    // Sender state per QP.
    let mut next_psn = vec![0u32; nq];
    let mut acked = vec![0u32; nq];
    let mut last_progress = vec![0f64; nq];
    let mut resend: VecDeque<(f64, u32, u32)> = VecDeque::new();
    let mut replies: VecDeque<(f64, u32, Option<u32>, Vec<u32>)> = VecDeque::new();
    let mut requested: BTreeSet<(u32, u32)> = BTreeSet::new();
    let ns = s.senders as usize;
    let mut cur = vec![0usize; ns];
    let mut next_send_ns = vec![0.0f64; ns];
    // Credits: one sender model per host, one receiver model; requests and grants
    // travel with the reverse delay.
    let rate = if s.credit_rate_gbps > 0.0 {
        s.credit_rate_gbps
    } else {
        s.paths.iter().map(|p| p.rate_gbps).sum()
    };
    let grant_every_ns = s.credit_batch_bytes as f64 * 8.0 / rate;
    let mut next_grant_ns = 0.0;
    let mut cs: Vec<SenderModel> = (0..ns)
        .map(|_| SenderModel::new(Rule::Eq2, s.credit_batch_bytes, s.credit_bdp_bytes))
        .collect();
    let mut cr = ReceiverModel::default();
    let mut to_rx: VecDeque<(f64, u32, Option<bool>)> = VecDeque::new();
    let mut to_tx: VecDeque<(f64, u32, Option<bool>)> = VecDeque::new();
    let mut allowance = vec![0u64; nq];
    // Bytes of each QP not yet covered by credit.
    let mut uncovered: Vec<u64> = tr
        .per_qp
        .iter()
        .map(|v| v.iter().map(|p| p.p.payload.len() as u64).sum())
        .collect();
    let credits = s.credits == Credits::On;
    // Checker state.
    let mut placed: Vec<Vec<bool>> = tr.per_qp.iter().map(|v| vec![false; v.len()]).collect();
    let mut in_order = vec![0u32; nq];
    let mut ooo_now: u64 = 0;
    let mut msg_left: Vec<u32> = tr.msgs.iter().map(|m| m.1 + m.2.is_some() as u32).collect();
    let mut cqe_last: Vec<Option<u32>> = vec![None; nq];
    let mut cqe_seen: BTreeSet<(u32, u32)> = BTreeSet::new();
    let mut placed_count: u64 = 0;
    let mut last_ns = 0.0f64;
    let mut cycle: u64 = 0;
    let mut quiet: u64 = 0;
    let limit = stop_at.unwrap_or(2_000_000 + total_pkts * 20_000);
    let expected_cqes: u64 = tr.msgs.iter().filter(|m| m.2.is_some()).count() as u64;
    while cycle < limit {
        let now = cycle as f64 * period_ns;
        // Replies reach the sender.
        while replies.front().is_some_and(|r| r.0 <= now) {
            let (_, qp, ack, missing) = replies.pop_front().unwrap();
            let q = qp as usize;
            if let Some(a) = ack {
                if a > acked[q] && a <= next_psn[q] {
                    acked[q] = a;
                    last_progress[q] = now;
                }
            }
            for p in missing {
                if p >= acked[q] && p < next_psn[q] && requested.insert((qp, p)) {
                    resend.push_back((now, qp, p));
                }
            }
        }
        for q in 0..nq {
            if acked[q] < next_psn[q] && now - last_progress[q] > s.rto_ns {
                rep.timeouts += 1;
                resend.push_back((now, q as u32, acked[q]));
                last_progress[q] = now;
            }
        }
        // Credit messages.
        if credits {
            while to_rx.front().is_some_and(|m| m.0 <= now) {
                let (_, qp, onoff) = to_rx.pop_front().unwrap();
                match onoff {
                    Some(on) => cr.onoff(qp, on),
                    None => cr.request(qp),
                }
            }
            while to_tx.front().is_some_and(|m| m.0 <= now) {
                let (_, qp, _) = to_tx.pop_front().unwrap();
                if let Some(on) = cs[qp as usize % ns].grant(qp) {
                    to_rx.push_back((now + s.reverse_delay_ns, qp, Some(on)));
                }
                rep.credit_grants += 1;
            }
            if now >= next_grant_ns {
                if let Some(qp) = cr.slot() {
                    to_tx.push_back((now + s.reverse_delay_ns, qp, None));
                }
                next_grant_ns += grant_every_ns;
            }
        }
        // Each sender: resends first, then its QPs round robin within their windows
        // (and their credit).
        for h in 0..ns {
            if now < next_send_ns[h] || !r.tx_ready() {
                continue;
            }
            let mut sent: Option<usize> = None;
            if let Some(i) = resend.iter().position(|&(_, qp, _)| qp as usize % ns == h) {
                let (_, qp, psn) = resend.remove(i).unwrap();
                if psn >= acked[qp as usize] {
                    let mut p = tr.per_qp[qp as usize][psn as usize].p.clone();
                    p.ack_req = true;
                    r.tx_push(&p);
                    rep.retransmitted_packets += 1;
                    sent = Some(p.payload.len());
                }
            }
            if sent.is_none() {
                let mine = (nq + ns - 1 - h) / ns;
                for _ in 0..mine {
                    let q = h + ns * cur[h];
                    cur[h] = (cur[h] + 1) % mine;
                    if (next_psn[q] as usize) >= tr.per_qp[q].len()
                        || next_psn[q] >= acked[q] + s.window
                    {
                        continue;
                    }
                    let len = tr.per_qp[q][next_psn[q] as usize].p.payload.len() as u64;
                    if credits && allowance[q] < len {
                        let d = cs[h].send(q as u32, uncovered[q]);
                        allowance[q] += d.bytes;
                        uncovered[q] -= d.bytes;
                        if d.request {
                            rep.credit_requests += 1;
                            to_rx.push_back((now + s.reverse_delay_ns, q as u32, None));
                        }
                        if let Some(on) = d.onoff {
                            to_rx.push_back((now + s.reverse_delay_ns, q as u32, Some(on)));
                        }
                        if allowance[q] < len {
                            continue;
                        }
                    }
                    if credits {
                        allowance[q] -= len;
                    }
                    if next_psn[q] == acked[q] {
                        last_progress[q] = now;
                    }
                    let p = &tr.per_qp[q][next_psn[q] as usize].p;
                    r.tx_push(p);
                    next_psn[q] += 1;
                    sent = Some(p.payload.len());
                    break;
                }
            }
            if let Some(n) = sent {
                if s.injection_gbps > 0.0 {
                    next_send_ns[h] = now + (n + 124 + 50) as f64 * 8.0 / s.injection_gbps;
                }
            }
        }
        let arrived: Vec<Vec<u8>> = fabric.poll(now).into_iter().map(|(_, f)| f).collect();
        let out = r.step(now, &mut fabric, arrived);
        // The checker.
        for (qp, va, rkey, payload) in out.placed {
            let Some(&psn) = by_va.get(&(qp, va)) else {
                rep.misplaced += 1;
                continue;
            };
            let pk = &tr.per_qp[qp as usize][psn as usize];
            if pk.p.payload != payload || pk.p.rkey != rkey {
                rep.misplaced += 1;
                continue;
            }
            let q = qp as usize;
            if placed[q][psn as usize] {
                rep.placed_twice += 1;
                continue;
            }
            placed[q][psn as usize] = true;
            rep.peak_span_psns = rep
                .peak_span_psns
                .max(u64::from(psn) + 1 - u64::from(in_order[q]));
            placed_count += 1;
            last_ns = now;
            ooo_now += 1;
            while (in_order[q] as usize) < placed[q].len() && placed[q][in_order[q] as usize] {
                in_order[q] += 1;
                ooo_now -= 1;
            }
            rep.peak_ooo_packets = rep.peak_ooo_packets.max(ooo_now);
            let m = pk.msg as usize;
            msg_left[m] -= 1;
            if msg_left[m] == 0 {
                rep.messages_completed += 1;
            }
        }
        for (qp, psn, imm) in out.cqes {
            rep.cqes += 1;
            last_ns = now;
            let q = qp as usize;
            let pk = tr.per_qp.get(q).and_then(|v| v.get(psn as usize));
            let Some(pk) = pk.filter(|pk| pk.p.imm == Some(imm)) else {
                rep.cqe_wrong += 1;
                continue;
            };
            if !cqe_seen.insert((qp, psn)) {
                rep.cqe_twice += 1;
                continue;
            }
            if cqe_last[q].is_some_and(|l| l >= psn)
                || !placed[q][..=psn as usize].iter().all(|x| *x)
            {
                rep.cqe_misordered += 1;
            }
            cqe_last[q] = Some(psn);
            let m = pk.msg as usize;
            msg_left[m] -= 1;
            if msg_left[m] == 0 {
                rep.messages_completed += 1;
            }
        }
        for (qp, a) in out.acks {
            replies.push_back((now + s.reverse_delay_ns, qp, Some(a), vec![]));
        }
        for (qp, missing) in out.naks {
            rep.retransmission_requests += 1;
            replies.push_back((now + s.reverse_delay_ns, qp, None, missing));
        }
        cycle += 1;
        // A run that stops making progress ends (and fails its checks) instead of
        // hanging: nothing placed or completed for 20 timeouts.
        if now - last_ns > 20.0 * s.rto_ns + 1e6 {
            break;
        }
        if cycle.is_multiple_of(65_536) {
            progress(rep.messages_completed, s.messages);
        }
        let done = placed_count == total_pkts && cqe_seen.len() as u64 == expected_cqes;
        if done && r.idle() && fabric.in_flight() == 0 {
            quiet += 1;
            // Let late duplicates and stray outputs show themselves.
            if quiet > 2_000 {
                break;
            }
        } else {
            quiet = 0;
        }
    }
    progress(rep.messages_completed, s.messages);
    rep.cycles = cycle;
    rep.last_arrival_us = last_ns / 1000.0;
    rep.throughput_gbps = if last_ns > 0.0 {
        payload_bytes as f64 * 8.0 / last_ns
    } else {
        0.0
    };
    rep.packets_never_placed = total_pkts - placed_count;
    rep.cqes_missing = expected_cqes - cqe_seen.len() as u64;
    let FabricStats {
        lost,
        duplicated,
        queue_drops,
        peak_queue_bytes,
        ..
    } = fabric.stats.clone();
    rep.fabric_lost = lost;
    rep.fabric_duplicated = duplicated;
    rep.fabric_queue_drops = queue_drops;
    rep.peak_fabric_queue_bytes = peak_queue_bytes;
    rep.peak_port_backlog_frames = r.peak_port_backlog();
    rep.rx_counters = r.counters();
    (
        rep.port_frames,
        rep.port_marked_bad,
        rep.both_ports_busy_cycles,
    ) = r.port_stats();
    (rep.csr_accesses, rep.csr_slverr, rep.csr_violations) = r.csr_fuzz();
    rep.senders = s.senders;
    rep.credits = credits;
    rep
}

/// `reset_mid_traffic`'s findings.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ResetReport {
    /// The traffic cut by the reset (incomplete by design).
    pub before: FabricReport,
    /// Frames still arriving at B's ports, and leaving A, after the reset.
    pub frames_after_reset: u64,
    /// Bytes of a placement the reset cut short (no `tlast`; the host discards them).
    pub cut_placement_bytes: u64,
    /// What B put out between its reset and its reprogramming: must all be 0 (every QP
    /// and every tenant VNI is disabled by the reset).
    pub placed_after_reset: u64,
    pub cqes_after_reset: u64,
    pub acks_after_reset: u64,
    /// B's registers and counters read over CSR after the reset, before reprogramming.
    pub local_vni_after_reset: Vec<u32>,
    /// `RX_STATUS.QP_BUSY` right after a `QP_CMD` write with OP = 0 (must be 0).
    pub qp_cmd_op0_busy: u32,
    /// The same after OP = 1 (must be set).
    pub qp_cmd_op1_busy: u32,
    pub counters_after_reset: BTreeMap<String, u64>,
    /// New traffic on the reprogrammed RNIC.
    pub after: FabricReport,
}

/// Reset RNIC B (the whole `prnic_top`) after `at_cycle` cycles of `s`, with frames in
/// its ports, payload in `rx_decap` and CQEs queued; keep the rest of the frames coming;
/// then reprogram it over CSR as software would and run new traffic (seed + 1).
pub fn reset_mid_traffic(s: &Scenario, at_cycle: u64) -> ResetReport {
    assert_eq!(s.backend, Backend::Rtl);
    let mut r = RtlRnics::new(s, None).expect("no trace");
    let mut rep = ResetReport {
        before: drive_until(s, &mut r, &mut |_, _| {}, Some(at_cycle)),
        ..Default::default()
    };
    let d = &mut r.b.dut;
    crate::bridge::reset_top(d);
    // During rx_reorder's sweep a QP command waits (RX_STATUS.QP_BUSY): OP = 0 must not
    // be one, OP = 1 is (the staging registers are at reset: it disables QP 0).
    csr_write(d, regs::QP_CMD, 0);
    rep.qp_cmd_op0_busy = csr_read(d, regs::RX_STATUS) & regs::RX_STATUS_QP_BUSY_MASK;
    csr_write(d, regs::QP_CMD, 1);
    rep.qp_cmd_op1_busy = csr_read(d, regs::RX_STATUS) & regs::RX_STATUS_QP_BUSY_MASK;
    // A placement cut by the reset never gets its last beat: the host discards it.
    rep.cut_placement_bytes = r.place.len() as u64;
    r.place.clear();
    // The frames already on their way keep arriving while B sweeps and sits idle.
    let period_ns = 1000.0 / PrnicConfig::builtin().clock.mhz;
    let mut sink = Fabric::new(
        vec![PathSpec {
            rate_gbps: 1e5,
            delay_ns: 0.0,
            jitter_ns: 0.0,
            loss: 0.0,
            dup: 0.0,
            queue_bytes: u64::MAX / 2,
        }],
        Selection::RoundRobin,
        1,
    );
    rep.frames_after_reset =
        r.b_frames.iter().sum::<u64>() + r.a_in.iter().filter(|b| b.last).count() as u64;
    let mut c = 0u64;
    while c < 20_000 && !(r.idle() && c > 4_000) {
        let now = c as f64 * period_ns;
        // What A still sends goes straight to B (B's MAC FIFOs took what waited at its
        // ports before the reset, and the reset emptied them).
        let arrived: Vec<Vec<u8>> = sink.poll(now).into_iter().map(|(_, f)| f).collect();
        let o = r.step(now, &mut sink, arrived);
        rep.placed_after_reset += o.placed.len() as u64;
        rep.cqes_after_reset += o.cqes.len() as u64;
        rep.acks_after_reset += (o.acks.len() + o.naks.len()) as u64;
        c += 1;
    }
    let d = &mut r.b.dut;
    assert_eq!(
        csr_read(d, regs::RX_STATUS) & regs::RX_STATUS_CLEARING_MASK,
        0,
        "rx_reorder's sweep (one cycle per QP) is over by now"
    );
    rep.local_vni_after_reset = (0..8)
        .map(|t| csr_read(d, regs::LOCAL_VNI0 + 4 * t))
        .collect();
    rep.counters_after_reset = r.counters();
    program_b(&mut r.b.dut, s);
    let s2 = Scenario {
        seed: s.seed + 1,
        ..s.clone()
    };
    rep.after = drive(&s2, &mut r, &mut |_, _| {});
    rep
}
