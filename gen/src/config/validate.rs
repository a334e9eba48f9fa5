//! `PrnicConfig::validate`: every field and combination checked, each error one line
//! naming the field; and TOML parse errors turned into the same form.

use super::*;

// The limits the blocks are built for, as the config's field types.
const MAX_STASH: u32 = prnic_rtl::flow_table::MAX_STASH as u32;
const MAX_WINDOW: u32 = prnic_rtl::rx_reorder::MAX_WINDOW as u32;
const MAX_INNER_BYTES: u32 = prnic_rtl::tx_encap::MAX_INNER_BYTES as u32;
const OUTER_BYTES: u32 = prnic_rtl::tx_encap::OUTER_BYTES as u32;

impl PrnicConfig {
    /// Check every field and combination. The error names the field and the allowed range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let c = self;
        if !(c.clock.mhz.is_finite() && c.clock.mhz >= 10.0 && c.clock.mhz <= 1000.0) {
            return Err(invalid(
                "clock.mhz",
                format!("{} is outside 10..=1000 MHz", c.clock.mhz),
            ));
        }
        if !(c.clock.host_mhz.is_finite() && c.clock.host_mhz >= 10.0 && c.clock.host_mhz <= 1000.0)
        {
            return Err(invalid(
                "clock.host_mhz",
                format!("{} is outside 10..=1000 MHz", c.clock.host_mhz),
            ));
        }
        if ![512, 1024].contains(&c.axis.data_bits) {
            return Err(invalid(
                "axis.data_bits",
                format!(
                    "{} is not 512 or 1024 (tx_encap builds the 50-byte outer header in the first beat)",
                    c.axis.data_bits
                ),
            ));
        }
        if !(1..=2).contains(&c.ports.count) {
            return Err(invalid(
                "ports.count",
                format!(
                    "{} is outside 1..=2 (the register map has PORT0 and PORT1)",
                    c.ports.count
                ),
            ));
        }
        if !(1..=800).contains(&c.ports.rate_gbps) {
            return Err(invalid(
                "ports.rate_gbps",
                format!("{} is outside 1..=800", c.ports.rate_gbps),
            ));
        }
        let need = 1.1 * c.ports.rate_gbps as f64;
        if c.bus_gbps() < need {
            return Err(invalid(
                "axis.data_bits",
                format!(
                    "{} bits x {} MHz = {:.1} Gb/s is below 1.1 x ports.rate_gbps = {:.1} Gb/s; raise data_bits or clock.mhz",
                    c.axis.data_bits, c.clock.mhz, c.bus_gbps(), need
                ),
            ));
        }
        let ft = &c.flow_table;
        if ft.ways != 4 {
            return Err(invalid(
                "flow_table.ways",
                format!(
                    "{} is not allowed: must be 4 (the cuckoo table is 4-way)",
                    ft.ways
                ),
            ));
        }
        if !ft.entries.is_multiple_of(ft.ways) {
            return Err(invalid(
                "flow_table.entries",
                format!("{} is not a multiple of ways = {}", ft.entries, ft.ways),
            ));
        }
        let spw = c.slots_per_way();
        if !spw.is_power_of_two() || !(64..=65536).contains(&spw) {
            return Err(invalid(
                "flow_table.entries",
                format!(
                    "{} gives {} slots per way; slots per way must be a power of two in 64..=65536",
                    ft.entries, spw
                ),
            ));
        }
        if ft.stash > MAX_STASH {
            return Err(invalid(
                "flow_table.stash",
                format!("{} is outside 0..={MAX_STASH}", ft.stash),
            ));
        }
        if ft.key_bits != 56 {
            return Err(invalid(
                "flow_table.key_bits",
                format!(
                    "{} is not allowed: must be 56 ({{VNI 24, IPv4 32}})",
                    ft.key_bits
                ),
            ));
        }
        if ft.value_bits != 112 {
            return Err(invalid(
                "flow_table.value_bits",
                format!("{} is not allowed: must be 112 ({{underlay IPv4 32, MAC 48, VNI 24, flags 8}})", ft.value_bits),
            ));
        }
        if ft.hash_seeds.len() != ft.ways as usize {
            return Err(invalid(
                "flow_table.hash_seeds",
                format!(
                    "has {} seeds; needs one per way ({})",
                    ft.hash_seeds.len(),
                    ft.ways
                ),
            ));
        }
        for (i, a) in ft.hash_seeds.iter().enumerate() {
            if *a > i64::MAX as u64 {
                return Err(invalid("flow_table.hash_seeds", format!("seed {i} ({a:#x}) is above 0x7fff_ffff_ffff_ffff (TOML integers are signed 64-bit)")));
            }
            if ft.hash_seeds[..i].contains(a) {
                return Err(invalid(
                    "flow_table.hash_seeds",
                    format!(
                        "seed {i} ({a:#x}) repeats an earlier seed; the ways need distinct hashes"
                    ),
                ));
            }
        }
        let p = &c.packet;
        if !(256..=9216).contains(&p.mtu_bytes) || !p.mtu_bytes.is_power_of_two() {
            return Err(invalid(
                "packet.mtu_bytes",
                format!(
                    "{} is not a power of two in 256..=9216 (RoCE MTUs: 256..4096)",
                    p.mtu_bytes
                ),
            ));
        }
        // At least the smallest Ethernet frame (64 bytes) with the outer header.
        let min_frame = 64 + OUTER_BYTES;
        if p.max_frame_bytes < min_frame || p.max_frame_bytes > MAX_INNER_BYTES {
            return Err(invalid(
                "packet.max_frame_bytes",
                format!(
                    "{} is outside {min_frame}..={MAX_INNER_BYTES}",
                    p.max_frame_bytes
                ),
            ));
        }
        if p.max_frame_bytes < p.mtu_bytes {
            return Err(invalid(
                "packet.max_frame_bytes",
                format!(
                    "{} is below packet.mtu_bytes = {}",
                    p.max_frame_bytes, p.mtu_bytes
                ),
            ));
        }
        let s = &c.sprayer;
        if s.port_min > 65535 || s.port_min == 0 {
            return Err(invalid(
                "sprayer.port_min",
                format!("{} is outside 1..=65535", s.port_min),
            ));
        }
        if s.port_max > 65535 || s.port_max < s.port_min {
            return Err(invalid(
                "sprayer.port_max",
                format!(
                    "{} is outside sprayer.port_min ({})..=65535",
                    s.port_max, s.port_min
                ),
            ));
        }
        if s.hash_seed > i64::MAX as u64 {
            return Err(invalid(
                "sprayer.hash_seed",
                format!(
                    "{:#x} is above 0x7fff_ffff_ffff_ffff (TOML integers are signed 64-bit)",
                    s.hash_seed
                ),
            ));
        }
        let cr = &c.credit;
        if cr.batch_bytes == 0 || !cr.batch_bytes.is_multiple_of(p.mtu_bytes) {
            return Err(invalid(
                "credit.batch_bytes",
                format!(
                    "{} is not a whole number (>= 1) of packet.mtu_bytes = {} packets",
                    cr.batch_bytes, p.mtu_bytes
                ),
            ));
        }
        if cr.batch_bytes > MAX_BATCH_BYTES {
            return Err(invalid(
                "credit.batch_bytes",
                format!("{} is above {MAX_BATCH_BYTES}", cr.batch_bytes),
            ));
        }
        if cr.bdp_bytes < cr.batch_bytes
            || !cr.bdp_bytes.is_multiple_of(cr.batch_bytes)
            || cr.bdp_bytes > MAX_BDP_BYTES
        {
            return Err(invalid(
                "credit.bdp_bytes",
                format!("{} must be a whole number of batches (credit.batch_bytes = {}), at most {MAX_BDP_BYTES}", cr.bdp_bytes, cr.batch_bytes),
            ));
        }
        let r = &c.reorder;
        // Two at least: each per-QP store is a RAM of `qps` words, and a one-word RAM has
        // no address bits for rust-hdl to index.
        if !r.qps.is_power_of_two() || !(2..=4096).contains(&r.qps) {
            return Err(invalid(
                "reorder.qps",
                format!("{} is not a power of two in 2..=4096", r.qps),
            ));
        }
        if !r.window_bits.is_power_of_two() || !(32..=MAX_WINDOW).contains(&r.window_bits) {
            return Err(invalid(
                "reorder.window_bits",
                format!(
                    "{} is not a power of two in 32..={MAX_WINDOW}",
                    r.window_bits
                ),
            ));
        }
        if r.ooo_threshold == 0 || r.ooo_threshold >= r.window_bits {
            return Err(invalid(
                "reorder.ooo_threshold",
                format!(
                    "{} is outside 1..{} (reorder.window_bits)",
                    r.ooo_threshold, r.window_bits
                ),
            ));
        }
        if r.missing_share_pct > 100 {
            return Err(invalid(
                "reorder.missing_share_pct",
                format!("{} is outside 0..=100", r.missing_share_pct),
            ));
        }
        if r.loss_after >= r.window_bits.min(MAX_WINDOW) {
            return Err(invalid(
                "reorder.loss_after",
                format!(
                    "{} is outside 0..{} (0 = off; below reorder.window_bits)",
                    r.loss_after,
                    r.window_bits.min(256)
                ),
            ));
        }
        // The names go into Tcl: letters, digits, '-', '_', and spaces in the family name
        // only, so no value can break out of its quoting.
        let f = &c.fpga;
        for (field, v, spaces) in [
            ("fpga.vivado_part", &f.vivado_part, false),
            ("fpga.quartus_family", &f.quartus_family, true),
            ("fpga.quartus_device", &f.quartus_device, false),
        ] {
            let ok = !v.is_empty()
                && v.len() <= 64
                && v.chars().all(|ch| {
                    ch.is_ascii_alphanumeric() || ch == '-' || ch == '_' || (spaces && ch == ' ')
                });
            if !ok {
                return Err(invalid(
                    field,
                    format!(
                        "{v:?} is not a device name (1..=64 letters, digits, '-', '_'{})",
                        if spaces { ", spaces" } else { "" }
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// Turn a toml error into one line with line and column.
pub(super) fn parse_error(text: &str, e: &toml::de::Error) -> ConfigError {
    let msg = e.message().trim().replace('\n', " ");
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before
                .rfind('\n')
                .map_or(before.len(), |i| before.len() - i - 1)
                + 1;
            ConfigError::Parse {
                line: Some(line),
                col: Some(col),
                msg,
            }
        }
        None => ConfigError::Parse {
            line: None,
            col: None,
            msg,
        },
    }
}
