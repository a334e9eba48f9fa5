//! The scenario file: its schema, defaults and limits (`Scenario::parse`).

use super::*;
use prnic_gen::config::{MAX_BATCH_BYTES, MAX_BDP_BYTES};

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
    /// Probability that a delivered frame has one byte changed anywhere.
    #[serde(default)]
    pub corrupt: f64,
    /// Tail-drop queue; 64 MiB if not given.
    #[serde(default = "default_queue")]
    pub queue_bytes: u64,
}

pub(super) fn default_queue() -> u64 {
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
    /// The sender's probe, its loss detection by time (0 = off): a QP's oldest
    /// unacknowledged PSN is resent when an ACK that does not pass it comes back longer
    /// than this after its last send, when it was resent on request longer ago than this,
    /// or when the QP has stopped sending (all sent, or its window full) and heard
    /// nothing for this long; after the last, each ACK that moves the head short of where
    /// the sending stopped has the new head resent at once. It must be below `rto_ns`
    /// and belongs above the usual round trip (path delay and jitter plus the reverse
    /// delay); below the longest one, queueing included, it also resends heads that
    /// were only late.
    #[serde(default)]
    pub probe_ns: f64,
    /// Receive window (PSNs) and retransmission thresholds, written to RNIC B's CSRs.
    #[serde(default = "d_window")]
    pub window: u32,
    #[serde(default = "d_ooo")]
    pub ooo_threshold: u32,
    #[serde(default = "d_pct")]
    pub missing_share_pct: u32,
    /// A hole is taken for a loss once this many packets above it have arrived; 0 = off.
    #[serde(default = "d_loss_after")]
    pub loss_after: u32,
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
    /// RNIC B's host side (placement, CQE and ACK streams, CSR) on a clock of its own,
    /// in MHz, through the generated crossings `host_cdc` and `axil_cdc` (rtl backend);
    /// 0 keeps it on the core clock.
    #[serde(default)]
    pub host_mhz: f64,
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

pub(super) fn d_senders() -> u32 {
    1
}
pub(super) fn d_credits() -> Credits {
    Credits::Off
}
// The receive window, thresholds and credit parameters default to the config's, so a
// scenario that leaves them out runs what the generated CSRs reset to.
pub(super) fn d_batch() -> u64 {
    PrnicConfig::builtin().credit.batch_bytes as u64
}
pub(super) fn d_bdp() -> u64 {
    PrnicConfig::builtin().credit.bdp_bytes as u64
}

pub(super) fn d_policy() -> PathPolicy {
    PathPolicy::Ecmp
}
pub(super) fn d_spray() -> Spray {
    Spray::PerPacket
}
pub(super) fn d_imm() -> f64 {
    0.5
}
pub(super) fn d_qps() -> u32 {
    16
}
pub(super) fn d_tenants() -> u32 {
    4
}
pub(super) fn d_reverse() -> f64 {
    2000.0
}
pub(super) fn d_rto() -> f64 {
    50_000.0
}
/// The largest receive window the model backend takes (PSNs): what-if studies beyond the
/// hardware's `reorder.window_bits`.
pub const MODEL_MAX_WINDOW: u32 = 65_536;

pub(super) fn d_window() -> u32 {
    PrnicConfig::builtin().reorder.window_bits
}
pub(super) fn d_ooo() -> u32 {
    PrnicConfig::builtin().reorder.ooo_threshold
}
pub(super) fn d_pct() -> u32 {
    PrnicConfig::builtin().reorder.missing_share_pct
}
pub(super) fn d_loss_after() -> u32 {
    PrnicConfig::builtin().reorder.loss_after
}
pub(super) fn d_seed() -> u64 {
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
            if !(0.0..0.5).contains(&p.corrupt) {
                return bad(
                    &format!("paths[{i}].corrupt"),
                    format!("{} is not in [0, 0.5)", p.corrupt),
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
        if !(self.host_mhz == 0.0 || (50.0..=1000.0).contains(&self.host_mhz)) {
            return bad(
                "host_mhz",
                format!(
                    "{} is neither 0 (one clock) nor in [50, 1000] MHz",
                    self.host_mhz
                ),
            );
        }
        if self.host_mhz > 0.0 && self.backend != Backend::Rtl {
            return bad(
                "host_mhz",
                "a host clock needs backend = \"rtl\" (the crossings are Verilated)".into(),
            );
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
        // The limits of the config's credit.batch_bytes and credit.bdp_bytes.
        if !(1024..=MAX_BATCH_BYTES as u64).contains(&self.credit_batch_bytes) {
            return bad(
                "credit_batch_bytes",
                format!(
                    "{} is not in 1024..={MAX_BATCH_BYTES}",
                    self.credit_batch_bytes
                ),
            );
        }
        if self.credit_bdp_bytes < self.credit_batch_bytes
            || !self
                .credit_bdp_bytes
                .is_multiple_of(self.credit_batch_bytes)
            || self.credit_bdp_bytes > MAX_BDP_BYTES as u64
        {
            return bad(
                "credit_bdp_bytes",
                format!(
                    "{} must be a whole number of batches (credit_batch_bytes = {}), at most {MAX_BDP_BYTES}",
                    self.credit_bdp_bytes, self.credit_batch_bytes
                ),
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
        if self.loss_after > 255 {
            return bad(
                "loss_after",
                format!("{} is above 255 (0 = off)", self.loss_after),
            );
        }
        // Below the round trip without queueing, every ACK that does not move a head
        // would resend it.
        let round_trip = self
            .paths
            .iter()
            .map(|p| p.delay_ns + p.jitter_ns)
            .fold(0.0, f64::max)
            + self.reverse_delay_ns;
        if !(self.probe_ns == 0.0 || (self.probe_ns > round_trip && self.probe_ns < self.rto_ns)) {
            return bad(
                "probe_ns",
                format!(
                    "{} is neither 0 (off) nor above the round trip without queueing ({round_trip}: the slowest path's delay and jitter, plus reverse_delay_ns) and below rto_ns ({})",
                    self.probe_ns, self.rto_ns
                ),
            );
        }
        Ok(())
    }

    pub(super) fn settings(&self) -> ReorderSettings {
        ReorderSettings {
            qps: PrnicConfig::builtin().reorder.qps,
            window: self.window,
            ooo_threshold: self.ooo_threshold,
            missing_share_pct: self.missing_share_pct,
            loss_after: self.loss_after,
        }
    }
}
