//! The block registry: every generated module, built from one `PrnicConfig`.
//!
//! Each entry constructs the rust-hdl block with its config-derived parameters, emits its
//! Verilog under the block's own module name, and lists its top-level ports. The
//! testbench build script and the two-simulator tests use the same constructors, so the
//! Verilog under test is always the Verilog `prnic generate` writes.

use crate::config::PrnicConfig;
use prnic_rtl::axil_cdc::AxilCdc;
use prnic_rtl::cdc::CdcStream;
use prnic_rtl::credit_rx::CreditRx;
use prnic_rtl::credit_scope::CreditScope;
use prnic_rtl::credit_tx::{CreditTx, CREDIT_TX_LATENCY};
use prnic_rtl::flow_table::{FlowTable, FLOW_TABLE_LATENCY};
use prnic_rtl::frame_merge::{FrameMerge, FRAME_MERGE_LATENCY};
use prnic_rtl::host_cdc::{place_word_bits, tx_word_bits, HostCdc};
use prnic_rtl::mac_rx::MacRxFifo;
use prnic_rtl::prnic_top::PrnicTop;
use prnic_rtl::reply_tx::{ReplyTx, REPLY_TX_LATENCY};
use prnic_rtl::rx_decap::{RxDecap, OUTER_BYTES};
use prnic_rtl::rx_events::RxEvents;
use prnic_rtl::rx_reorder::{RxReorder, RX_REORDER_LATENCY};
use prnic_rtl::sprayer::{Sprayer, SPRAYER_LATENCY};
use prnic_rtl::tx_encap::{TxEncap, TUSER_BITS};
use rust_hdl::prelude::*;
use serde::Serialize;

/// Port direction as the Verilog declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dir {
    Input,
    Output,
}

/// One top-level port of a generated module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Port {
    pub name: String,
    pub dir: Dir,
    pub bits: usize,
}

impl Port {
    /// A clock input: `clk` in a module with one clock, `clk_<domain>` in a module with
    /// several (the Verilator bridge and the CDC gate go by this name rule).
    pub fn is_clock(&self) -> bool {
        self.dir == Dir::Input
            && self.bits == 1
            && (self.name == "clk" || self.name.starts_with("clk_"))
    }
}

/// One generated module.
#[derive(Debug, Clone)]
pub struct Module {
    /// Block name: the Verilog module name and the key of every tree.
    pub name: &'static str,
    pub summary: &'static str,
    pub verilog: String,
    pub ports: Vec<Port>,
    /// Fixed input-to-output latency in cycles, where the block has one.
    pub latency_cycles: Option<u32>,
    /// Bits of block RAM the block infers.
    pub ram_bits: u64,
}

impl Module {
    /// The clock inputs, in port order.
    pub fn clock_ports(&self) -> Vec<&str> {
        self.ports
            .iter()
            .filter(|p| p.is_clock())
            .map(|p| p.name.as_str())
            .collect()
    }
}

/// Emission failed: rust-hdl's structural checks rejected a block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenError(pub String);

impl std::fmt::Display for GenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for GenError {}

/// The sprayer as configured.
pub fn sprayer(cfg: &PrnicConfig) -> Sprayer {
    let mut s = Sprayer::new(cfg.sprayer.hash_seed);
    s.connect_all();
    s
}

/// The flow table as configured.
pub fn flow_table(cfg: &PrnicConfig) -> FlowTable {
    let s = &cfg.flow_table.hash_seeds;
    let mut t = FlowTable::new(
        cfg.slots_per_way() as usize,
        cfg.flow_table.stash as usize,
        [s[0], s[1], s[2], s[3]],
    );
    t.connect_all();
    t
}

/// The credit sender as configured (one state word per QP).
pub fn credit_tx(cfg: &PrnicConfig) -> CreditTx {
    let mut c = CreditTx::new(cfg.reorder.qps as usize);
    c.connect_all();
    c
}

/// The receive windows as configured (one 80-byte word per QP).
pub fn rx_reorder(cfg: &PrnicConfig) -> RxReorder {
    let mut r = RxReorder::new(cfg.reorder.qps as usize);
    r.connect_all();
    r
}

/// `rx_decap` as configured: wire frames up to the largest inner frame plus the outer
/// headers.
pub fn rx_decap<const D: usize, const K: usize>(cfg: &PrnicConfig) -> RxDecap<D, K> {
    let mut r = RxDecap::new(cfg.packet.max_frame_bytes as usize + OUTER_BYTES);
    r.connect_all();
    r
}

/// Beats of the longest wire frame a MAC RX FIFO takes (the largest inner frame plus
/// the outer headers, in `D`-bit beats), and its depth: a power of two that holds two
/// such frames, so one can arrive whole while another leaves.
pub fn mac_rx_geometry<const D: usize>(cfg: &PrnicConfig) -> (usize, usize) {
    let bytes = cfg.packet.max_frame_bytes as usize + OUTER_BYTES;
    let max_beats = bytes.div_ceil(D / 8);
    ((2 * max_beats).next_power_of_two(), max_beats)
}

/// The RX frame FIFO of one MAC port as configured.
pub fn mac_rx<const D: usize, const K: usize>(cfg: &PrnicConfig) -> MacRxFifo<D, K> {
    let (depth, max_beats) = mac_rx_geometry::<D>(cfg);
    let mut m = MacRxFifo::new(depth, max_beats);
    m.connect_all();
    m
}

/// The credit receiver as configured (grants paced to the aggregate line rate).
pub fn credit_rx(cfg: &PrnicConfig) -> CreditRx {
    let (num, den) = cfg.grant_slot_fraction();
    let mut c = CreditRx::new(cfg.reorder.qps as usize, num, den);
    c.connect_all();
    c
}

/// The credit engine's monitor wrapper (waveforms and debug probes).
pub fn credit_scope(cfg: &PrnicConfig) -> CreditScope {
    let mut c = CreditScope::new(credit_tx(cfg), credit_rx(cfg));
    c.connect_all();
    c
}

/// `tx_encap` as configured, for a bus of `D` bits (`K` = `D / 8` bytes).
pub fn tx_encap<const D: usize, const K: usize>(cfg: &PrnicConfig) -> TxEncap<D, K> {
    let mut t = TxEncap::new(cfg.packet.max_frame_bytes as usize, cfg.sprayer.hash_seed);
    t.connect_all();
    t
}

/// The reply framer, for a bus of `D` bits (nothing in it depends on the rest of the
/// config).
pub fn reply_tx<const D: usize, const K: usize>() -> ReplyTx<D, K> {
    let mut r = ReplyTx::default();
    r.connect_all();
    r
}

/// The merge of host frames (input 0) and reply frames (input 1) in front of
/// `tx_encap`, for a bus of `D` bits with `tx_encap`'s `tuser`.
pub fn frame_merge<const D: usize, const K: usize>() -> FrameMerge<D, K, TUSER_BITS> {
    let mut m = FrameMerge::default();
    m.connect_all();
    m
}

/// The top as configured, for a bus of `D` bits.
pub fn prnic_top<const D: usize, const K: usize>(cfg: &PrnicConfig) -> PrnicTop<D, K> {
    let mut t = PrnicTop::new(
        crate::csr::csr(cfg),
        flow_table(cfg),
        tx_encap::<D, K>(cfg),
        credit_tx(cfg),
        credit_rx(cfg),
        rx_decap::<D, K>(cfg),
        rx_reorder(cfg),
        mac_rx::<D, K>(cfg),
        mac_rx::<D, K>(cfg),
    );
    t.connect_all();
    t
}

/// Every block of the design, in a fixed order: the top first.
pub fn modules(cfg: &PrnicConfig) -> Result<Vec<Module>, GenError> {
    // The bus width is a type parameter of the blocks that carry frames; the config
    // allows exactly these two (`axis.data_bits`).
    match cfg.axis.data_bits {
        512 => {
            modules_for::<512, 64, 577, { tx_word_bits(512, 64) }, { place_word_bits(512, 64) }>(
                cfg,
            )
        }
        _ => modules_for::<
            1024,
            128,
            1153,
            { tx_word_bits(1024, 128) },
            { place_word_bits(1024, 128) },
        >(cfg),
    }
}

/// The clock-domain crossing of one AXI4-Stream frame bus (`W` = `D` + `K` + 1: tdata,
/// tkeep, tlast), as `prnic_top` will use it between `clk_host` and the MAC clock.
pub fn cdc_fifo<const D: usize, const K: usize, const W: usize>() -> CdcStream<D, K, W> {
    let mut c = CdcStream::new("cdc_fifo");
    c.connect_all();
    c
}

/// The clock-domain crossing of the AXI4-Lite register port, as `prnic_top` will use it
/// between `clk_host` and the core clock.
pub fn axil_cdc() -> AxilCdc {
    let mut c = AxilCdc::new("axil_cdc");
    c.connect_all();
    c
}

/// The crossings of `prnic_top`'s four host streams between `clk_host` and `clk_mac`
/// (`WT`, `WP`: the TX and placement FIFO words).
pub fn host_cdc<const D: usize, const K: usize, const WT: usize, const WP: usize>(
) -> HostCdc<D, K, WT, WP> {
    let mut c = HostCdc::new("host_cdc");
    c.connect_all();
    c
}

fn modules_for<const D: usize, const K: usize, const W: usize, const WT: usize, const WP: usize>(
    cfg: &PrnicConfig,
) -> Result<Vec<Module>, GenError> {
    let spr = sprayer(cfg);
    let ft = flow_table(cfg);
    let csr = crate::csr::csr(cfg);
    let tx = tx_encap::<D, K>(cfg);
    let ctx = credit_tx(cfg);
    let crx = credit_rx(cfg);
    let scope = credit_scope(cfg);
    let rxr = rx_reorder(cfg);
    let rxd = rx_decap::<D, K>(cfg);
    let max_frame = cfg.packet.max_frame_bytes as usize;
    let qps = cfg.reorder.qps as usize;
    let rxd_ram_bits = RxDecap::<D, K>::ram_bits(max_frame + OUTER_BYTES) as u64;
    let mac = mac_rx::<D, K>(cfg);
    let rtx = reply_tx::<D, K>();
    let fm = frame_merge::<D, K>();
    let mac_ram_bits = MacRxFifo::<D, K>::ram_bits(mac_rx_geometry::<D>(cfg).0) as u64;
    let top = prnic_top::<D, K>(cfg);
    let cdc = cdc_fifo::<D, K, W>();
    let axil = axil_cdc();
    let hcdc = host_cdc::<D, K, WT, WP>();
    let ft_ram_bits =
        FlowTable::ram_bits(cfg.slots_per_way() as usize, cfg.flow_table.stash as usize) as u64;
    let tx_ram_bits = TxEncap::<D, K>::ram_bits(max_frame) as u64;
    let ctx_ram_bits = CreditTx::ram_bits(qps) as u64;
    let crx_ram_bits = CreditRx::ram_bits(qps) as u64;
    let rxr_ram_bits = RxReorder::ram_bits(qps) as u64;
    Ok(vec![
        Module {
            name: "prnic_top",
            summary: "the RNIC: csr, flow_table (programmed through CSR), tx_encap with its sprayer onto two MAC ports, two MAC ports through their frame FIFOs, rx_decap and rx_reorder to placement, CQE and ACK streams, credit_tx and credit_rx",
            verilog: emit("prnic_top", &top)?,
            ports: ports_of(&top),
            latency_cycles: None,
            ram_bits: ft_ram_bits
                + tx_ram_bits
                + ctx_ram_bits
                + crx_ram_bits
                + rxd_ram_bits
                + rxr_ram_bits
                + RxEvents::RAM_BITS as u64
                + 2 * mac_ram_bits,
        },
        Module {
            name: "csr",
            summary: "AXI4-Lite registers generated from the one register description",
            verilog: emit("csr", &csr)?,
            ports: ports_of(&csr),
            latency_cycles: Some(1),
            ram_bits: 0,
        },
        Module {
            name: "flow_table",
            summary:
                "4-way cuckoo flow table with a register stash: overlay {VNI, IPv4} to underlay",
            verilog: emit("flow_table", &ft)?,
            ports: ports_of(&ft),
            latency_cycles: Some(FLOW_TABLE_LATENCY),
            ram_bits: ft_ram_bits,
        },
        Module {
            name: "sprayer",
            summary: "outer UDP source port per packet (per-packet walk, per-flow H3 hash, fixed)",
            verilog: emit("sprayer", &spr)?,
            ports: ports_of(&spr),
            latency_cycles: Some(SPRAYER_LATENCY),
            ram_bits: 0,
        },
        Module {
            name: "tx_encap",
            summary: "VXLAN encapsulation on AXI4-Stream: flow lookup, 50-byte outer header, sprayed source port, drop by reason",
            verilog: emit("tx_encap", &tx)?,
            ports: ports_of(&tx),
            latency_cycles: None,
            ram_bits: tx_ram_bits,
        },
        Module {
            name: "reply_tx",
            summary: "reply framer: ACK, selective request and credit records to inner RoCEv2 frames with their ICRC and IPv4 checksum, one per cycle, for tx_encap",
            verilog: emit("reply_tx", &rtx)?,
            ports: ports_of(&rtx),
            latency_cycles: Some(REPLY_TX_LATENCY as u32),
            ram_bits: ReplyTx::<D, K>::RAM_BITS as u64,
        },
        Module {
            name: "frame_merge",
            summary: "two AXI4-Stream inputs onto one, whole frames taking turns, no bubble: host and reply frames into tx_encap",
            verilog: emit("frame_merge", &fm)?,
            ports: ports_of(&fm),
            latency_cycles: Some(FRAME_MERGE_LATENCY as u32),
            ram_bits: 0,
        },
        Module {
            name: "credit_tx",
            summary: "credit sender: per-QP credit, first BDP free, Eq.1 or Eq.2 (one-batch overdraft), ON/OFF, starvation counter",
            verilog: emit("credit_tx", &ctx)?,
            ports: ports_of(&ctx),
            latency_cycles: Some(CREDIT_TX_LATENCY),
            ram_bits: ctx_ram_bits,
        },
        Module {
            name: "credit_rx",
            summary: "credit receiver: per-QP requests, round-robin grants paced to line rate, PCIe backpressure slowdown",
            verilog: emit("credit_rx", &crx)?,
            ports: ports_of(&crx),
            latency_cycles: None,
            ram_bits: crx_ram_bits,
        },
        Module {
            name: "credit_scope",
            summary: "credit_tx and credit_rx with per-QP monitor registers for QPs 0..3 (waveforms, ILA probes)",
            verilog: emit("credit_scope", &scope)?,
            ports: ports_of(&scope),
            latency_cycles: None,
            ram_bits: ctx_ram_bits + crx_ram_bits,
        },
        Module {
            name: "rx_reorder",
            summary: "per-QP receive windows: a circular PSN bitmap, in-order CQEs from two held immediates per QP (the isCQE positions), duplicate and window drops, ACKs, dual-threshold retransmission requests",
            verilog: emit("rx_reorder", &rxr)?,
            ports: ports_of(&rxr),
            latency_cycles: Some(RX_REORDER_LATENCY),
            ram_bits: rxr_ram_bits,
        },
        Module {
            name: "rx_decap",
            summary: "VXLAN decapsulation and RoCEv2 parsing: drop by reason, headers to rx_reorder, payload placed (realigned, with QP, VA, rkey, length) once its verdict is back; ACK, request and credit reply frames out as records",
            verilog: emit("rx_decap", &rxd)?,
            ports: ports_of(&rxd),
            latency_cycles: None,
            ram_bits: rxd_ram_bits,
        },
        Module {
            name: "mac_rx",
            summary: "RX frame FIFO of one MAC port: never backpressures the MAC, takes or drops whole frames, drops frames marked bad (tuser at tlast) or too long, counts drops by reason; store and forward",
            verilog: emit("mac_rx", &mac)?,
            ports: ports_of(&mac),
            latency_cycles: None,
            ram_bits: mac_ram_bits,
        },
        Module {
            name: "cdc_fifo",
            summary: "AXI4-Stream clock-domain crossing (clk_s to clk_m): an asynchronous FIFO of 32 beats, Gray pointers through two-flop ASYNC_REG synchronizers, a reset synchronizer per domain",
            verilog: emit("cdc_fifo", &cdc)?,
            ports: ports_of(&cdc),
            latency_cycles: None,
            ram_bits: CdcStream::<D, K, W>::RAM_BITS as u64,
        },
        Module {
            name: "axil_cdc",
            summary: "AXI4-Lite clock-domain crossing (clk_s to clk_m) of the register port: one transaction at a time through an asynchronous FIFO of 4 words each way, a reset synchronizer per domain; SLVERR and read data cross back unchanged",
            verilog: emit("axil_cdc", &axil)?,
            ports: ports_of(&axil),
            latency_cycles: None,
            ram_bits: AxilCdc::RAM_BITS as u64,
        },
        Module {
            name: "host_cdc",
            summary: "clock-domain crossings of prnic_top's four host streams (clk_host to clk_mac: TX frames; clk_mac to clk_host: placement with its CQEs in one FIFO, so no CQE overtakes its data, and ACK records): asynchronous FIFOs of 32 and 8 words, a reset synchronizer per domain",
            verilog: emit("host_cdc", &hcdc)?,
            ports: ports_of(&hcdc),
            latency_cycles: None,
            ram_bits: HostCdc::<D, K, WT, WP>::RAM_BITS as u64,
        },
    ])
}

/// Verilog of `block` with its top module named `name` (rust-hdl calls it `top`), after
/// rust-hdl's connection, loop and input-write checks, which are returned as an error
/// rather than the panic of `generate_verilog`.
pub fn emit<B: Block>(name: &str, block: &B) -> Result<String, GenError> {
    check_all(block).map_err(|e| GenError(format!("{name}: rust-hdl check failed: {e:?}")))?;
    let mut defines = ModuleDefines::default();
    block.accept(name, &mut defines);
    Ok(defines.defines())
}

/// The top-level ports of a block, in declaration order.
pub fn ports_of<B: Block>(block: &B) -> Vec<Port> {
    struct Collect {
        depth: usize,
        ports: Vec<Port>,
    }
    impl Probe for Collect {
        fn visit_start_scope(&mut self, _name: &str, _node: &dyn Block) {
            self.depth += 1;
        }
        fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
            self.depth -= 1;
        }
        fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
            if self.depth != 1 {
                return;
            }
            let dir = match signal.kind() {
                AtomKind::InputParameter => Dir::Input,
                AtomKind::OutputParameter => Dir::Output,
                _ => return,
            };
            self.ports.push(Port {
                name: name.to_string(),
                dir,
                bits: signal.bits(),
            });
        }
    }
    let mut c = Collect {
        depth: 0,
        ports: vec![],
    };
    block.accept("top", &mut c);
    c.ports
}
