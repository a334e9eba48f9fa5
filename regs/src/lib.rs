//! prnic-regs: the one register description of the prnic CSR block.
//!
//! Everything about a register is written here once: name, offset, fields with bit
//! ranges, access, reset value, description. From it are generated the CSR RTL
//! (`prnic-rtl`'s build script), `docs/regmap.md`, a C header, a SystemRDL 2.0 file, a JSON
//! map and the Rust constants verif/ uses (`prnic-gen`). Nothing here depends on any
//! other prnic crate, so every generator can use it.
//!
//! Reset values that come from the configuration are given as [`Reset::Config`] and
//! resolved by the generator from `PrnicConfig`, so the defaults live in one place too.

/// Data width of the AXI4-Lite slave.
pub const DATA_BITS: u32 = 32;
/// Address bits decoded (a 4 KiB window).
pub const ADDR_BITS: u32 = 12;
/// Value of `ID_MAGIC`: ASCII "PRNC".
pub const MAGIC: u32 = 0x5052_4e43;
/// Register map version `{major[31:16], minor[15:0]}`.
pub const MAP_VERSION: u32 = 0x0001_0004;

/// How software may access a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read-only: a constant, or a value the hardware drives (`hw_*` input).
    Ro,
    /// Read-write configuration, driven to the blocks (`cfg_*` output).
    Rw,
    /// Sticky flag held by the hardware (`hw_*` input); writing 1 pulses `clr_*` for a cycle.
    W1c,
    /// Write-only command: a write pulses `cmd_<reg>_valid` with the field values.
    Wo,
}

impl Access {
    pub fn name(self) -> &'static str {
        match self {
            Access::Ro => "RO",
            Access::Rw => "RW",
            Access::W1c => "W1C",
            Access::Wo => "WO",
        }
    }
}

/// A config value a field's reset comes from. `prnic_gen::csr::config_value` maps every
/// key to the config, exhaustively, so a new key cannot be left unmapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigKey {
    /// Bits 31:0 of the config's hash.
    ConfigHashLo,
    /// Bits 63:32 of the config's hash.
    ConfigHashHi,
    /// `sprayer.mode`, encoded as `SPRAY_CTRL.MODE`.
    SprayerMode,
    /// `sprayer.port_min`.
    SprayerPortMin,
    /// `sprayer.port_max`.
    SprayerPortMax,
    /// `reorder.ooo_threshold`.
    ReorderOooThreshold,
    /// `reorder.missing_share_pct`.
    ReorderMissingSharePct,
    /// `reorder.loss_after`.
    ReorderLossAfter,
    /// `reorder.window_bits`.
    ReorderWindow,
    /// `credit.rule`: 0 for Eq. 1, 1 for Eq. 2.
    CreditRule,
    /// `credit.batch_bytes`.
    CreditBatchBytes,
    /// `credit.bdp_bytes`.
    CreditBdpBytes,
}

/// A field's reset (RW) or constant (RO) value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reset {
    Value(u64),
    /// Filled in from the configuration (see `prnic_gen::csr::config_value`).
    Config(ConfigKey),
    /// RO: the value comes from a hardware input.
    Hw,
    /// RO: a value the CSR block itself computes (its own error flags).
    Internal,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub lsb: u32,
    pub width: u32,
    pub access: Access,
    pub reset: Reset,
    pub desc: &'static str,
}

impl Field {
    /// The field's bits in its register word.
    pub fn mask(&self) -> u64 {
        ((1u64 << self.width) - 1) << self.lsb
    }
    /// The field's value in the register word `word`.
    pub fn get(&self, word: u64) -> u64 {
        (word & self.mask()) >> self.lsb
    }
}

/// A 32-bit register, or a 64-bit counter read as two words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Reg(Vec<Field>),
    /// A 64-bit counter from the hardware (`hw_<name>` input, or internal), read as LO at
    /// `offset` and HI at `offset + 4`. Reading LO latches HI, so LO-then-HI is one
    /// consistent 64-bit value even while the counter runs.
    Counter64 {
        internal: bool,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Register {
    pub name: &'static str,
    pub offset: u32,
    pub group: &'static str,
    pub desc: &'static str,
    pub kind: Kind,
}

impl Register {
    /// Byte offsets this register occupies.
    pub fn offsets(&self) -> Vec<u32> {
        match self.kind {
            Kind::Reg(_) => vec![self.offset],
            Kind::Counter64 { .. } => vec![self.offset, self.offset + 4],
        }
    }
    pub fn fields(&self) -> &[Field] {
        match &self.kind {
            Kind::Reg(f) => f,
            Kind::Counter64 { .. } => &[],
        }
    }
    /// True if any bit of the register can be written.
    pub fn writable(&self) -> bool {
        self.fields()
            .iter()
            .any(|f| matches!(f.access, Access::Rw | Access::W1c | Access::Wo))
    }
}

fn f(
    name: &'static str,
    lsb: u32,
    width: u32,
    access: Access,
    reset: Reset,
    desc: &'static str,
) -> Field {
    Field {
        name,
        lsb,
        width,
        access,
        reset,
        desc,
    }
}

fn reg(
    name: &'static str,
    offset: u32,
    group: &'static str,
    desc: &'static str,
    fields: Vec<Field>,
) -> Register {
    Register {
        name,
        offset,
        group,
        desc,
        kind: Kind::Reg(fields),
    }
}

fn counter(
    name: &'static str,
    offset: u32,
    group: &'static str,
    desc: &'static str,
    internal: bool,
) -> Register {
    Register {
        name,
        offset,
        group,
        desc,
        kind: Kind::Counter64 { internal },
    }
}

/// Flow-table commands (`FT_CMD.OP`) by name, for the generators.
pub const FT_OPS: &[(&str, u64)] = &[
    ("WRITE_SLOT", ft_op::WRITE_SLOT),
    ("WRITE_STASH", ft_op::WRITE_STASH),
    ("INVALIDATE_SLOT", ft_op::INVALIDATE_SLOT),
    ("INVALIDATE_STASH", ft_op::INVALIDATE_STASH),
    ("READ_SLOT", ft_op::READ_SLOT),
    ("READ_STASH", ft_op::READ_STASH),
];

/// Flow-table commands (`FT_CMD.OP`).
pub mod ft_op {
    pub const WRITE_SLOT: u64 = 1;
    pub const WRITE_STASH: u64 = 2;
    pub const INVALIDATE_SLOT: u64 = 3;
    pub const INVALIDATE_STASH: u64 = 4;
    pub const READ_SLOT: u64 = 5;
    pub const READ_STASH: u64 = 6;
}

/// The register map, in address order.
pub fn registers() -> Vec<Register> {
    use Access::*;
    use Reset::*;
    let mut r = vec![
        reg("ID_MAGIC", 0x000, "id", "Identification: reads \"PRNC\".", vec![f("MAGIC", 0, 32, Ro, Value(MAGIC as u64), "0x5052_4E43")]),
        reg("ID_VERSION", 0x004, "id", "Register map version.", vec![
            f("MINOR", 0, 16, Ro, Value((MAP_VERSION & 0xffff) as u64), "minor version"),
            f("MAJOR", 16, 16, Ro, Value((MAP_VERSION >> 16) as u64), "major version"),
        ]),
        reg("ID_CONFIG_HASH_LO", 0x008, "id", "Bits 31:0 of the generating config's hash (manifest.json `config_hash`).", vec![f("HASH", 0, 32, Ro, Config(ConfigKey::ConfigHashLo), "config hash low word")]),
        reg("ID_CONFIG_HASH_HI", 0x00c, "id", "Bits 63:32 of the generating config's hash.", vec![f("HASH", 0, 32, Ro, Config(ConfigKey::ConfigHashHi), "config hash high word")]),
        reg("ID_BUILD_HASH", 0x010, "id", "Build git hash (first 8 hex digits), driven by the integrator so the RTL text does not change with every commit.", vec![f("HASH", 0, 32, Ro, Hw, "git hash, 32 bits")]),
    ];
    for p in 0..2u32 {
        let base = 0x020 + p * 0x10;
        let (lo, hi, ip): (&'static str, &'static str, &'static str) = if p == 0 {
            ("PORT0_MAC_LO", "PORT0_MAC_HI", "PORT0_IPV4")
        } else {
            ("PORT1_MAC_LO", "PORT1_MAC_HI", "PORT1_IPV4")
        };
        r.push(reg(
            lo,
            base,
            "port",
            "Port MAC address, bits 31:0 (outer Ethernet source).",
            vec![f("MAC", 0, 32, Rw, Value(0), "MAC[31:0]")],
        ));
        r.push(reg(
            hi,
            base + 4,
            "port",
            "Port MAC address, bits 47:32.",
            vec![f("MAC", 0, 16, Rw, Value(0), "MAC[47:32]")],
        ));
        r.push(reg(
            ip,
            base + 8,
            "port",
            "Port underlay IPv4 address (outer IPv4 source).",
            vec![f("ADDR", 0, 32, Rw, Value(0), "IPv4 address")],
        ));
    }
    r.extend([
        reg(
            "TX_IP",
            0x040,
            "tx",
            "Outer IPv4 header fields.",
            vec![
                f("DSCP", 0, 6, Rw, Value(0), "outer DSCP"),
                f("TTL", 8, 8, Rw, Value(64), "outer TTL"),
            ],
        ),
        reg(
            "SPRAY",
            0x044,
            "tx",
            "Source-port spraying.",
            vec![
                f(
                    "MODE",
                    0,
                    2,
                    Rw,
                    Config(ConfigKey::SprayerMode),
                    "0 per-packet, 1 per-flow hash, 2 fixed (port_min)",
                ),
                f(
                    "BTH_MARK",
                    8,
                    1,
                    Rw,
                    Value(1),
                    "mark P-RNIC packets with 0x03 in the reserved BTH field",
                ),
            ],
        ),
        reg(
            "SPRAY_PORTS",
            0x048,
            "tx",
            "Outer UDP source-port range (inclusive).",
            vec![
                f("MIN", 0, 16, Rw, Config(ConfigKey::SprayerPortMin), "lowest port"),
                f(
                    "MAX",
                    16,
                    16,
                    Rw,
                    Config(ConfigKey::SprayerPortMax),
                    "highest port",
                ),
            ],
        ),
        reg(
            "TX_STATUS",
            0x04c,
            "tx",
            "TX path state.",
            vec![
                f(
                    "SPRAY_CFG_ERROR",
                    0,
                    1,
                    Ro,
                    Hw,
                    "SPRAY_PORTS.MIN > MAX: every packet gets MIN",
                ),
                f(
                    "FIFO_OVERFLOW",
                    1,
                    1,
                    Ro,
                    Hw,
                    "an internal tx_encap FIFO overflowed (a design error; never expected)",
                ),
            ],
        ),
        reg(
            "REORDER_THRESH",
            0x050,
            "rx",
            "Selective retransmission thresholds: OOO and MISSING_PCT both pass, or OOO and LOSS_AFTER.",
            vec![
                f(
                    "OOO",
                    0,
                    16,
                    Rw,
                    Config(ConfigKey::ReorderOooThreshold),
                    "out-of-order degree, packets",
                ),
                f(
                    "MISSING_PCT",
                    16,
                    8,
                    Rw,
                    Config(ConfigKey::ReorderMissingSharePct),
                    "missing share in [head, highest], percent",
                ),
                f(
                    "LOSS_AFTER",
                    24,
                    8,
                    Rw,
                    Config(ConfigKey::ReorderLossAfter),
                    "a hole is a loss once this many packets above it have arrived; above OOO, such a request names only PSNs at least this far behind the highest; 0 = off",
                ),
            ],
        ),
        reg(
            "CREDIT",
            0x054,
            "credit",
            "Credit send rule.",
            vec![f(
                "RULE",
                0,
                1,
                Rw,
                Config(ConfigKey::CreditRule),
                "0 Eq.1 min(data, credit); 1 Eq.2 one-batch overdraft",
            )],
        ),
        reg(
            "CREDIT_BATCH",
            0x058,
            "credit",
            "Bytes per credit (batch). Change it only while no send request or grant is in flight (before traffic, or with senders quiesced and no grant arriving for 100 cycles, which empties credit_tx's grant queue and pipeline): an event inside credit_tx's pipeline would otherwise see the old batch in one stage and the new one in the next.",
            vec![f(
                "BYTES",
                0,
                32,
                Rw,
                Config(ConfigKey::CreditBatchBytes),
                "batch size in bytes",
            )],
        ),
        reg(
            "CREDIT_BDP",
            0x05c,
            "credit",
            "Bytes a QP may send before it needs credit. The reset sweep loads it into every QP: a change takes effect at the next reset.",
            vec![f(
                "BYTES",
                0,
                32,
                Rw,
                Config(ConfigKey::CreditBdpBytes),
                "BDP in bytes",
            )],
        ),
        reg(
            "PCIE_BP",
            0x060,
            "credit",
            "PCIe backpressure: slow credit generation when the internal queue is deep.",
            vec![
                f(
                    "THRESHOLD",
                    0,
                    16,
                    Rw,
                    Value(1024),
                    "queue depth that counts as backpressure",
                ),
                f(
                    "SLOWDOWN",
                    16,
                    4,
                    Rw,
                    Value(2),
                    "grant interval multiplier while above threshold",
                ),
            ],
        ),
        reg(
            "CREDIT_STATUS",
            0x064,
            "credit",
            "Credit engine state.",
            vec![
                f("TX_CLEARING", 0, 1, Ro, Hw, "credit_tx reset sweep in progress: send requests wait, grants are dropped and counted"),
                f("RX_CLEARING", 1, 1, Ro, Hw, "credit_rx reset sweep in progress: requests wait"),
                f("DEBT_ERROR", 2, 1, Ro, Hw, "a QP's credit fell below -batch (proven impossible; never expected)"),
            ],
        ),
    ]);
    r.extend([
        reg(
            "REORDER_WINDOW",
            0x068,
            "rx",
            "Receive window in PSNs: packets further than this beyond a QP's head are dropped (at most 256, the per-QP word's size).",
            vec![f("PSNS", 0, 16, Rw, Config(ConfigKey::ReorderWindow), "window, PSNs (1..=256)")],
        ),
        reg(
            "RX_STATUS",
            0x06c,
            "rx",
            "RX path state.",
            vec![
                f("CLEARING", 0, 1, Ro, Hw, "rx_reorder reset sweep in progress: QP commands wait, headers wait"),
                f("QP_BUSY", 1, 1, Ro, Hw, "a QP_CMD is waiting to be applied"),
                f("EVENT_OVERFLOW", 2, 1, Ro, Hw, "a completion or ACK queue overflowed (a design error; never expected)"),
            ],
        ),
    ]);
    const VNI_NAMES: [&str; 8] = [
        "LOCAL_VNI0",
        "LOCAL_VNI1",
        "LOCAL_VNI2",
        "LOCAL_VNI3",
        "LOCAL_VNI4",
        "LOCAL_VNI5",
        "LOCAL_VNI6",
        "LOCAL_VNI7",
    ];
    for (i, n) in VNI_NAMES.iter().enumerate() {
        r.push(reg(
            n,
            0x070 + 4 * i as u32,
            "rx",
            "A VNI assigned to one of this RNIC's functions (RX accepts only enabled VNIs).",
            vec![
                f("VNI", 0, 24, Rw, Value(0), "VNI"),
                f("EN", 31, 1, Rw, Value(0), "entry enabled"),
            ],
        ));
    }
    r.extend([
        reg("ERR_FLAGS", 0x100, "status", "Sticky error flags; write 1 to clear.", vec![
            f("FT_MULTI_HIT", 0, 1, W1c, Hw, "a flow lookup found hits that disagree (updates cannot cause it: a RAM fault)"),
            f("CSR_BAD_ACCESS", 1, 1, W1c, Internal, "an unmapped or misaligned CSR access was answered SLVERR"),
        ]),
        counter("CNT_CSR_BAD_ACCESS", 0x200, "status", "CSR accesses answered SLVERR (unmapped or misaligned).", true),
        counter("CNT_CSR_RO_WRITE", 0x208, "status", "Writes to read-only registers (ignored).", true),
        counter("CNT_FT_MULTI_HIT", 0x210, "status", "Flow lookups whose hits disagreed.", false),
        counter("CNT_FT_DUP_HIT", 0x218, "status", "Flow lookups that found one key twice with equal values (updates cannot cause it: a RAM fault).", false),
        counter("CNT_FT_BAD_UPDATE", 0x220, "status", "Flow-table commands refused: index out of range, a way write away from the key's own slot, a command in the cycle after another, or during the reset sweep.", false),
        counter("CNT_TX_FRAMES", 0x228, "tx", "Frames encapsulated and sent.", false),
        counter("CNT_TX_DROP_MISS", 0x230, "tx", "TX frames dropped: no flow-table entry for {VNI, inner destination IPv4}.", false),
        counter("CNT_TX_DROP_SHORT", 0x238, "tx", "TX frames dropped: shorter than the inner headers (54 bytes).", false),
        counter("CNT_TX_DROP_NOT_IPV4", 0x240, "tx", "TX frames dropped: inner EtherType not IPv4 or IP version not 4.", false),
        counter("CNT_TX_DROP_TOO_LONG", 0x248, "tx", "TX frames dropped: longer than the configured maximum frame.", false),
        counter("CNT_TX_DROP_BAD_KEEP", 0x250, "tx", "TX frames dropped: tkeep not all ones on a non-last beat, or not low-justified on the last.", false),
        counter("CNT_CREDIT_REQUESTS", 0x258, "credit", "Credit requests sent (one per batch sent).", false),
        counter("CNT_CREDIT_GRANTS", 0x260, "credit", "Credit grants received.", false),
        counter("CNT_CREDIT_WASTED_BYTES", 0x268, "credit", "Credit bytes given up: surplus at the end of a QP's data, or grants for idle QPs.", false),
        counter("CNT_CREDIT_STARVED_CYCLES", 0x270, "credit", "Cycles in which every active QP asked to send and was refused.", false),
        counter("CNT_CREDIT_GRANTS_DROPPED", 0x278, "credit", "Grants that arrived during the credit_tx reset sweep.", false),
        counter("CNT_CREDIT_RX_REQUESTS", 0x280, "credit", "Credit requests received from senders.", false),
        counter("CNT_CREDIT_RX_GRANTS", 0x288, "credit", "Credits granted to senders.", false),
        counter("CNT_CREDIT_RX_IDLE_SLOTS", 0x290, "credit", "Grant slots that passed unused (nobody to grant, or an OFF QP at the head).", false),
        reg("QP_ID", 0x350, "qp", "Staging: the QP a QP_CMD applies to.", vec![f("QP", 0, 16, Rw, Value(0), "queue pair number")]),
        reg("QP_CFG", 0x354, "qp", "Staging: the QP's tenant and state.", vec![
            f("VNI_SLOT", 0, 3, Rw, Value(0), "LOCAL_VNI slot (tenant) the QP belongs to; packets on other slots are refused"),
            f("ENABLE", 31, 1, Rw, Value(0), "1 create (or re-create) the QP, 0 destroy it"),
        ]),
        reg("QP_PSN", 0x358, "qp", "Staging: the first PSN the QP expects.", vec![f("PSN", 0, 24, Rw, Value(0), "expected PSN")]),
        reg("QP_CMD", 0x35c, "qp", "Command: applies QP_ID/QP_CFG/QP_PSN to rx_reorder (window and completions cleared); RX_STATUS.QP_BUSY until done.", vec![f("OP", 0, 1, Wo, Value(0), "1 apply")]),
        counter("CNT_RX_FRAMES", 0x400, "rx", "Wire frames taken by rx_decap from both ports' MAC FIFOs (before any header check; frames the FIFOs drop are in CNT_RX_PORT*_DROP_*).", false),
        counter("CNT_RX_PLACED", 0x408, "rx", "Packets whose payload was placed.", false),
        counter("CNT_RX_DROP_BAD_KEEP", 0x410, "rx", "RX frames dropped: tkeep not all ones on a non-last beat, or not low-justified on the last.", false),
        counter("CNT_RX_DROP_TOO_LONG", 0x418, "rx", "RX frames dropped: longer than the largest frame.", false),
        counter("CNT_RX_DROP_TRUNCATED", 0x420, "rx", "RX frames dropped: shorter than the headers.", false),
        counter("CNT_RX_DROP_NOT_IPV4", 0x428, "rx", "RX frames dropped: outer EtherType, IPv4 version/IHL or protocol wrong.", false),
        counter("CNT_RX_DROP_BAD_CHECKSUM", 0x430, "rx", "RX frames dropped: outer IPv4 header checksum wrong.", false),
        counter("CNT_RX_DROP_BAD_PORT", 0x438, "rx", "RX frames dropped: outer UDP destination port not 4789.", false),
        counter("CNT_RX_DROP_BAD_VXLAN", 0x440, "rx", "RX frames dropped: VXLAN I flag clear.", false),
        counter("CNT_RX_DROP_UNKNOWN_VNI", 0x448, "rx", "RX frames dropped: VNI not in an enabled LOCAL_VNI slot.", false),
        counter("CNT_RX_DROP_BAD_INNER", 0x450, "rx", "RX frames dropped: inner Ethernet/IPv4/UDP not RoCEv2, or QP above 16 bits.", false),
        counter("CNT_RX_DROP_BAD_OPCODE", 0x458, "rx", "RX frames dropped: BTH opcode not an RDMA WRITE.", false),
        counter("CNT_RX_DROP_BAD_LENGTH", 0x460, "rx", "RX frames dropped: IPv4/UDP/RETH lengths disagree with the frame.", false),
        counter("CNT_RX_DROP_REFUSED", 0x468, "rx", "RX packets well formed but refused by rx_reorder (the RX_REORDER_* counters say why).", false),
        counter("CNT_RX_REORDER_DUPLICATE", 0x470, "rx", "Packets already received (re-ACKed, not placed).", false),
        counter("CNT_RX_REORDER_BEYOND_WINDOW", 0x478, "rx", "Packets beyond the QP's window.", false),
        counter("CNT_RX_REORDER_UNKNOWN_QP", 0x480, "rx", "Packets for a QP number above the configured QPs.", false),
        counter("CNT_RX_REORDER_BAD_QP", 0x488, "rx", "Packets for a disabled QP, or one of another tenant (VNI slot).", false),
        counter("CNT_RX_REORDER_IMM_FULL", 0x490, "rx", "Write-with-immediate packets refused: both of the QP's immediate slots busy.", false),
        counter("CNT_RX_CQES", 0x498, "rx", "Completions raised.", false),
        counter("CNT_RX_ACKS", 0x4a0, "rx", "ACKs raised.", false),
        counter("CNT_RX_NAKS", 0x4a8, "rx", "Selective retransmission requests raised.", false),
        counter("CNT_RX_PORT0_DROP_FULL", 0x4b0, "rx", "Port 0 frames dropped whole at the MAC FIFO: no room for a frame of the largest size when its first beat came.", false),
        counter("CNT_RX_PORT0_DROP_ERROR", 0x4b8, "rx", "Port 0 frames dropped whole at the MAC FIFO: marked bad by the MAC (tuser at tlast, e.g. an FCS error).", false),
        counter("CNT_RX_PORT0_DROP_LONG", 0x4c0, "rx", "Port 0 frames dropped whole at the MAC FIFO: more beats than the largest frame.", false),
        counter("CNT_RX_PORT1_DROP_FULL", 0x4c8, "rx", "Port 1 frames dropped whole at the MAC FIFO: no room for a frame of the largest size when its first beat came.", false),
        counter("CNT_RX_PORT1_DROP_ERROR", 0x4d0, "rx", "Port 1 frames dropped whole at the MAC FIFO: marked bad by the MAC (tuser at tlast, e.g. an FCS error).", false),
        counter("CNT_RX_PORT1_DROP_LONG", 0x4d8, "rx", "Port 1 frames dropped whole at the MAC FIFO: more beats than the largest frame.", false),
        counter("CNT_RX_DROP_BAD_ICRC", 0x4e0, "rx", "RX frames dropped: the inner packet's RoCEv2 ICRC is wrong (checked after every other header check).", false),
        reg("FT_KEY_LO", 0x300, "flow_table", "Staging: key bits 31:0 (overlay destination IPv4).", vec![f("IPV4", 0, 32, Rw, Value(0), "overlay IPv4")]),
        reg("FT_KEY_HI", 0x304, "flow_table", "Staging: key bits 55:32 (VNI).", vec![f("VNI", 0, 24, Rw, Value(0), "VNI")]),
        reg("FT_VAL0", 0x308, "flow_table", "Staging: value bits 31:0 (egress VNI[31:8], flags[7:0]).", vec![f("BITS", 0, 32, Rw, Value(0), "value[31:0]")]),
        reg("FT_VAL1", 0x30c, "flow_table", "Staging: value bits 63:32 (next-hop MAC[31:0]).", vec![f("BITS", 0, 32, Rw, Value(0), "value[63:32]")]),
        reg("FT_VAL2", 0x310, "flow_table", "Staging: value bits 95:64 (MAC[47:32], underlay IPv4[15:0]).", vec![f("BITS", 0, 32, Rw, Value(0), "value[95:64]")]),
        reg("FT_VAL3", 0x314, "flow_table", "Staging: value bits 111:96 (underlay IPv4[31:16]).", vec![f("BITS", 0, 16, Rw, Value(0), "value[111:96]")]),
        reg("FT_LOC", 0x318, "flow_table", "Staging: slot location.", vec![
            f("INDEX", 0, 16, Rw, Value(0), "slot index in the way, or stash entry"),
            f("WAY", 16, 2, Rw, Value(0), "way 0..3"),
        ]),
        reg("FT_CMD", 0x31c, "flow_table", "Command: commits the staged entry, or reads a slot back. A committed entry is seen by every lookup after the write response. A write makes its place the only one holding the key: any other copy (another way, or the stash) is invalidated in the same update, so a relocation is one write. A way write must target the key's own slot in that way (refused otherwise).", vec![f("OP", 0, 3, Wo, Value(0), "1 write slot, 2 write stash, 3 invalidate slot, 4 invalidate stash, 5 read slot, 6 read stash")]),
        reg("FT_STATUS", 0x320, "flow_table", "Flow-table state.", vec![
            f("CLEARING", 0, 1, Ro, Hw, "reset sweep in progress: commands are ignored"),
            f("RD_DONE", 1, 1, Ro, Hw, "the last read command's result is in FT_RD_*"),
        ]),
        reg("FT_RD_KEY_LO", 0x330, "flow_table", "Read-back: key bits 31:0.", vec![f("IPV4", 0, 32, Ro, Hw, "overlay IPv4")]),
        reg("FT_RD_KEY_HI", 0x334, "flow_table", "Read-back: key bits 55:32 and the entry's valid bit.", vec![
            f("VNI", 0, 24, Ro, Hw, "VNI"),
            f("VALID", 31, 1, Ro, Hw, "entry valid"),
        ]),
        reg("FT_RD_VAL0", 0x338, "flow_table", "Read-back: value bits 31:0.", vec![f("BITS", 0, 32, Ro, Hw, "value[31:0]")]),
        reg("FT_RD_VAL1", 0x33c, "flow_table", "Read-back: value bits 63:32.", vec![f("BITS", 0, 32, Ro, Hw, "value[63:32]")]),
        reg("FT_RD_VAL2", 0x340, "flow_table", "Read-back: value bits 95:64.", vec![f("BITS", 0, 32, Ro, Hw, "value[95:64]")]),
        reg("FT_RD_VAL3", 0x344, "flow_table", "Read-back: value bits 111:96.", vec![f("BITS", 0, 16, Ro, Hw, "value[111:96]")]),
    ]);
    r
}

/// A problem with the description itself.
pub fn check(regs: &[Register]) -> Result<(), String> {
    let mut seen = std::collections::BTreeMap::new();
    for r in regs {
        for o in r.offsets() {
            if o % 4 != 0 || o >= 1 << ADDR_BITS {
                return Err(format!(
                    "{}: offset {o:#x} misaligned or outside the window",
                    r.name
                ));
            }
            if let Some(other) = seen.insert(o, r.name) {
                return Err(format!("{} and {other} both at {o:#x}", r.name));
            }
        }
        let mut used = 0u64;
        for fl in r.fields() {
            if fl.width == 0 || fl.lsb + fl.width > DATA_BITS {
                return Err(format!(
                    "{}.{}: bits {}..{} outside 32",
                    r.name,
                    fl.name,
                    fl.lsb,
                    fl.lsb + fl.width
                ));
            }
            let m = fl.mask();
            if used & m != 0 {
                return Err(format!("{}.{} overlaps another field", r.name, fl.name));
            }
            used |= m;
        }
        let wo = r.fields().iter().filter(|f| f.access == Access::Wo).count();
        if wo > 0 && wo != r.fields().len() {
            return Err(format!("{}: a command register must be all WO", r.name));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_map_is_consistent() {
        super::check(&super::registers()).unwrap();
    }
}
