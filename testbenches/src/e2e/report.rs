//! What `prnic-sim fabric` reports, and whether the checker found anything.

use super::*;

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
    /// The payload rate this traffic would reach if RNIC B took every frame exactly once
    /// at one beat per cycle with no idle cycle: each frame's headers and its partly
    /// filled last beat included. `throughput_gbps` over this is the share reached.
    pub rx_bound_gbps: f64,
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
    /// Probes (`probe_ns`: a QP's ACK stalled), and the packets they and the chase
    /// after them resent.
    pub probes: u64,
    /// Heads resent because an ACK that did not move them came back longer after
    /// their last send than `probe_ns` (counted in `probe_resent_packets` too).
    pub late_ack_resends: u64,
    pub probe_resent_packets: u64,
    pub fabric_lost: u64,
    pub fabric_duplicated: u64,
    /// Frames delivered with one byte changed (`corrupt` on a path); RNIC B drops each
    /// (most on the ICRC) unless the byte is one no check covers.
    pub fabric_corrupted: u64,
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
