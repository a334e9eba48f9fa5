//! `PrnicConfig`: the single source of every parameter, and its validation.
//!
//! The embedded `configs/default.toml` holds the defaults; a user file may set any subset
//! (missing fields take the default, unknown fields are errors). Derived values
//! (`keep_bits`, slots per way, batch cycles...) are methods here, never stored copies.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::OnceLock;

/// The embedded default configuration (`gen/configs/default.toml`).
pub const DEFAULT_TOML: &str = include_str!("../configs/default.toml");

/// A configuration problem, always reported as one line that names the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigError {
    /// TOML syntax or type error, with the 1-based line and column where known.
    Parse {
        line: Option<usize>,
        col: Option<usize>,
        msg: String,
    },
    /// A value outside its allowed range or an illegal combination of values.
    Invalid { field: String, msg: String },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::Parse {
                line: Some(l),
                col: Some(c),
                msg,
            } => {
                write!(f, "line {l}, column {c}: {msg}")
            }
            ConfigError::Parse { msg, .. } => write!(f, "{msg}"),
            ConfigError::Invalid { field, msg } => write!(f, "{field}: {msg}"),
        }
    }
}

impl std::error::Error for ConfigError {}

fn invalid(field: &str, msg: impl Into<String>) -> ConfigError {
    ConfigError::Invalid {
        field: field.to_string(),
        msg: msg.into(),
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockConfig {
    /// Data-path clock in MHz.
    #[serde(default = "d::clock_mhz")]
    pub mhz: f64,
    /// Host-side clock in MHz (`clk_host` of the two-clock top `prnic_2clk`).
    #[serde(default = "d::clock_host_mhz")]
    pub host_mhz: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxisConfig {
    /// AXI4-Stream `tdata` width in bits.
    #[serde(default = "d::axis_data_bits")]
    pub data_bits: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortsConfig {
    #[serde(default = "d::ports_count")]
    pub count: u32,
    #[serde(default = "d::ports_rate_gbps")]
    pub rate_gbps: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowTableConfig {
    #[serde(default = "d::flow_table_entries")]
    pub entries: u32,
    #[serde(default = "d::flow_table_ways")]
    pub ways: u32,
    #[serde(default = "d::flow_table_stash")]
    pub stash: u32,
    #[serde(default = "d::flow_table_key_bits")]
    pub key_bits: u32,
    #[serde(default = "d::flow_table_value_bits")]
    pub value_bits: u32,
    #[serde(default = "d::flow_table_hash_seeds")]
    pub hash_seeds: Vec<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PacketConfig {
    #[serde(default = "d::packet_mtu_bytes")]
    pub mtu_bytes: u32,
    #[serde(default = "d::packet_max_frame_bytes")]
    pub max_frame_bytes: u32,
}

/// How the outer UDP source port is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SprayMode {
    PerPacket,
    PerFlow,
    Fixed,
}

impl fmt::Display for SprayMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SprayMode::PerPacket => "per-packet",
            SprayMode::PerFlow => "per-flow",
            SprayMode::Fixed => "fixed",
        })
    }
}

impl SprayMode {
    /// The `cfg_mode` encoding of the sprayer block.
    pub fn encoding(self) -> u64 {
        match self {
            SprayMode::PerPacket => 0,
            SprayMode::PerFlow => 1,
            SprayMode::Fixed => 2,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SprayerConfig {
    #[serde(default = "d::sprayer_mode")]
    pub mode: SprayMode,
    #[serde(default = "d::sprayer_port_min")]
    pub port_min: u32,
    #[serde(default = "d::sprayer_port_max")]
    pub port_max: u32,
    #[serde(default = "d::sprayer_hash_seed")]
    pub hash_seed: u64,
}

/// Credit send rule: Eq.1 sends min(data, credit); Eq.2 may overdraw one batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CreditRule {
    Eq1,
    Eq2,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreditConfig {
    #[serde(default = "d::credit_batch_bytes")]
    pub batch_bytes: u32,
    #[serde(default = "d::credit_bdp_bytes")]
    pub bdp_bytes: u32,
    #[serde(default = "d::credit_rule")]
    pub rule: CreditRule,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReorderConfig {
    #[serde(default = "d::reorder_qps")]
    pub qps: u32,
    #[serde(default = "d::reorder_window_bits")]
    pub window_bits: u32,
    #[serde(default = "d::reorder_ooo_threshold")]
    pub ooo_threshold: u32,
    #[serde(default = "d::reorder_missing_share_pct")]
    pub missing_share_pct: u32,
    /// A hole is taken for a loss once this many packets above it have arrived (with the
    /// out-of-order degree at its threshold too), whatever the missing share; 0 = off.
    #[serde(default = "d::reorder_loss_after")]
    pub loss_after: u32,
}

/// The devices the generated project scripts compile for (out of context). They change
/// no Verilog; they name the part in `project/vivado_ooc.tcl` and `project/prnic_ooc.qsf`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FpgaConfig {
    #[serde(default = "d::fpga_vivado_part")]
    pub vivado_part: String,
    #[serde(default = "d::fpga_quartus_family")]
    pub quartus_family: String,
    #[serde(default = "d::fpga_quartus_device")]
    pub quartus_device: String,
}

/// Every parameter of a generated P-RNIC.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrnicConfig {
    #[serde(default = "d::clock")]
    pub clock: ClockConfig,
    #[serde(default = "d::axis")]
    pub axis: AxisConfig,
    #[serde(default = "d::ports")]
    pub ports: PortsConfig,
    #[serde(default = "d::flow_table")]
    pub flow_table: FlowTableConfig,
    #[serde(default = "d::packet")]
    pub packet: PacketConfig,
    #[serde(default = "d::sprayer")]
    pub sprayer: SprayerConfig,
    #[serde(default = "d::credit")]
    pub credit: CreditConfig,
    #[serde(default = "d::reorder")]
    pub reorder: ReorderConfig,
    #[serde(default = "d::fpga")]
    pub fpga: FpgaConfig,
}

/// Defaults for fields and sections a user file leaves out, read from the embedded
/// `default.toml` as a plain TOML table. (serde's container-level `default` would build
/// the whole default struct by parsing the same file through the same types, which
/// recurses; reading untyped values here does not.)
mod d {
    use super::*;
    use serde::de::DeserializeOwned;

    fn table() -> &'static toml::Table {
        static TABLE: OnceLock<toml::Table> = OnceLock::new();
        TABLE.get_or_init(|| {
            DEFAULT_TOML
                .parse::<toml::Table>()
                .unwrap_or_else(|e| panic!("embedded default.toml does not parse: {e}"))
        })
    }

    fn get<T: DeserializeOwned>(section: &str, field: Option<&str>) -> T {
        let mut v = table()
            .get(section)
            .unwrap_or_else(|| panic!("embedded default.toml lacks [{section}]"))
            .clone();
        if let Some(f) = field {
            v = v
                .get(f)
                .unwrap_or_else(|| panic!("embedded default.toml lacks {section}.{f}"))
                .clone();
        }
        v.try_into()
            .unwrap_or_else(|e| panic!("embedded default.toml: {section}: {e}"))
    }

    macro_rules! field {
        ($($f:ident: $t:ty = $sec:literal . $name:literal;)*) => {
            $(pub fn $f() -> $t { get($sec, Some($name)) })*
        };
    }
    macro_rules! section {
        ($($f:ident: $t:ty;)*) => {
            $(pub fn $f() -> $t { get(stringify!($f), None) })*
        };
    }

    field! {
        clock_mhz: f64 = "clock"."mhz";
        clock_host_mhz: f64 = "clock"."host_mhz";
        axis_data_bits: u32 = "axis"."data_bits";
        ports_count: u32 = "ports"."count";
        ports_rate_gbps: u32 = "ports"."rate_gbps";
        flow_table_entries: u32 = "flow_table"."entries";
        flow_table_ways: u32 = "flow_table"."ways";
        flow_table_stash: u32 = "flow_table"."stash";
        flow_table_key_bits: u32 = "flow_table"."key_bits";
        flow_table_value_bits: u32 = "flow_table"."value_bits";
        flow_table_hash_seeds: Vec<u64> = "flow_table"."hash_seeds";
        packet_mtu_bytes: u32 = "packet"."mtu_bytes";
        packet_max_frame_bytes: u32 = "packet"."max_frame_bytes";
        sprayer_mode: SprayMode = "sprayer"."mode";
        sprayer_port_min: u32 = "sprayer"."port_min";
        sprayer_port_max: u32 = "sprayer"."port_max";
        sprayer_hash_seed: u64 = "sprayer"."hash_seed";
        credit_batch_bytes: u32 = "credit"."batch_bytes";
        credit_bdp_bytes: u32 = "credit"."bdp_bytes";
        credit_rule: CreditRule = "credit"."rule";
        reorder_qps: u32 = "reorder"."qps";
        reorder_window_bits: u32 = "reorder"."window_bits";
        reorder_ooo_threshold: u32 = "reorder"."ooo_threshold";
        reorder_missing_share_pct: u32 = "reorder"."missing_share_pct";
        reorder_loss_after: u32 = "reorder"."loss_after";
        fpga_vivado_part: String = "fpga"."vivado_part";
        fpga_quartus_family: String = "fpga"."quartus_family";
        fpga_quartus_device: String = "fpga"."quartus_device";
    }
    section! {
        clock: ClockConfig;
        axis: AxisConfig;
        ports: PortsConfig;
        flow_table: FlowTableConfig;
        packet: PacketConfig;
        sprayer: SprayerConfig;
        credit: CreditConfig;
        reorder: ReorderConfig;
        fpga: FpgaConfig;
    }
}

/// Per-QP reorder state must fit the paper's 80 bytes.
pub const MAX_REORDER_STATE_BYTES: u32 = 80;
/// The largest `credit.batch_bytes`.
pub const MAX_BATCH_BYTES: u32 = 1 << 20;
/// The largest `credit.bdp_bytes`.
pub const MAX_BDP_BYTES: u32 = 1 << 26;
/// PSNs are 24 bits in the BTH.
pub const PSN_BITS: u32 = 24;

impl Default for PrnicConfig {
    fn default() -> Self {
        Self::builtin().clone()
    }
}

impl PrnicConfig {
    /// The embedded defaults, parsed once.
    pub fn builtin() -> &'static PrnicConfig {
        static BUILTIN: OnceLock<PrnicConfig> = OnceLock::new();
        BUILTIN.get_or_init(|| {
            let cfg: PrnicConfig = toml::from_str(DEFAULT_TOML)
                .unwrap_or_else(|e| panic!("embedded default.toml does not parse: {e}"));
            cfg
        })
    }

    /// Parse a TOML document over the defaults and validate it.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        let cfg: PrnicConfig = toml::from_str(text).map_err(|e| validate::parse_error(text, &e))?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// The effective configuration as TOML (`prnic config --dump`).
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("a PrnicConfig always serialises")
    }

    /// SHA-256 of the canonical TOML form, first 16 hex digits: names this configuration
    /// in the manifest and the CSR identification registers.
    pub fn hash_hex(&self) -> String {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(self.to_toml().as_bytes());
        digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
    }

    // ---- derived values -------------------------------------------------------------

    /// Clock period in nanoseconds.
    pub fn clock_period_ns(&self) -> f64 {
        1000.0 / self.clock.mhz
    }
    /// Clock period in whole picoseconds (rounded): the time step of every waveform.
    pub fn clock_period_ps(&self) -> u64 {
        period_ps(self.clock.mhz)
    }
    /// The host-side clock period in nanoseconds.
    pub fn host_period_ns(&self) -> f64 {
        1000.0 / self.clock.host_mhz
    }
    /// Cycles converted to nanoseconds at the configured clock.
    pub fn cycles_to_ns(&self, cycles: f64) -> f64 {
        cycles * self.clock_period_ns()
    }
    /// The largest whole number of cycles that fits in `ns`.
    pub fn cycles_within_ns(&self, ns: f64) -> u32 {
        // A tiny epsilon so that exact multiples are not lost to rounding.
        ((ns / self.clock_period_ns()) + 1e-9).floor() as u32
    }
    /// `tkeep` width.
    pub fn keep_bits(&self) -> u32 {
        self.axis.data_bits / 8
    }
    /// Raw AXI4-Stream bandwidth, Gb/s.
    pub fn bus_gbps(&self) -> f64 {
        self.axis.data_bits as f64 * self.clock.mhz / 1000.0
    }
    /// Aggregate line rate of all ports, Gb/s (the credit engine paces to this).
    pub fn line_rate_gbps(&self) -> f64 {
        self.ports.count as f64 * self.ports.rate_gbps as f64
    }
    /// Flow-table slots per way.
    pub fn slots_per_way(&self) -> u32 {
        self.flow_table.entries / self.flow_table.ways.max(1)
    }
    /// Flow-table index width per way.
    pub fn slot_index_bits(&self) -> u32 {
        self.slots_per_way().max(1).trailing_zeros()
    }
    /// Packets per credit batch.
    pub fn packets_per_batch(&self) -> u32 {
        self.credit.batch_bytes / self.packet.mtu_bytes.max(1)
    }
    /// Duration of one batch at the aggregate line rate, ns.
    pub fn batch_time_ns(&self) -> f64 {
        self.credit.batch_bytes as f64 * 8.0 / self.line_rate_gbps()
    }
    /// One batch time in clock cycles as an exact fraction `(num, den)`, reduced: the
    /// credit receiver's grant pacing. When the exact fraction does not fit 47 bits
    /// (a clock that is not a whole number of Hz), `den` is 65536 and `num` is rounded.
    pub fn grant_slot_fraction(&self) -> (u64, u64) {
        fn gcd(a: u128, b: u128) -> u128 {
            if b == 0 {
                a
            } else {
                gcd(b, a % b)
            }
        }
        let hz = self.clock.mhz * 1e6;
        let bits = self.credit.batch_bytes as u128 * 8;
        let rate = (self.line_rate_gbps() * 1e9) as u128;
        if hz.fract() == 0.0 {
            let num = bits * hz as u128;
            let g = gcd(num, rate);
            let (n, d) = (num / g, rate / g);
            if n < 1 << 47 && d < 1 << 47 {
                return (n as u64, d as u64);
            }
        }
        ((self.batch_cycles() * 65536.0).round() as u64, 65536)
    }
    /// One batch time in (fractional) clock cycles.
    pub fn batch_cycles(&self) -> f64 {
        self.batch_time_ns() / self.clock_period_ns()
    }
    /// Per-QP reorder state in bytes: the `rx_reorder` word (a circular 256-bit PSN
    /// bitmap, head PSN, two held immediates, owner tenant and enable) and the request
    /// flag; docs/blocks/rx_reorder.md. The word is sized for the largest window, so a
    /// smaller `window_bits` narrows the accepted window but not the RAM.
    pub fn reorder_state_bytes_per_qp(&self) -> u32 {
        (prnic_rtl::rx_reorder::STATE_BITS_PER_QP as u32).div_ceil(8)
    }
}

mod validate;

#[cfg(test)]
mod tests;

/// A clock's period in whole picoseconds (rounded), from its frequency in MHz.
pub fn period_ps(mhz: f64) -> u64 {
    (1e6 / mhz).round() as u64
}
