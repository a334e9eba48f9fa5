//! `prnic_top`: the RNIC. The CSR block; the flow table (programmed and read back only
//! through CSR); the TX path (`tx_encap` with its sprayer, looking up the flow table) onto
//! two MAC ports; the RX path (two MAC ports, `rx_decap`, `rx_reorder`) to placement,
//! completions and ACKs; and the credit engine (`credit_tx` for this RNIC's senders,
//! `credit_rx` for its receivers; rule, batch, BDP and PCIe backpressure from CSR).
//!
//! ```text
//!  AXI4-Lite ─► csr ─ cfg_ft_* + cmd_ft_cmd ─► FT_CMD glue ─► flow_table update / read-back port
//!                 ◄─ hw_ft_rd_*, status ────────────────────── flow_table
//!                 ─ cfg_port*, cfg_tx_ip, cfg_spray* ──► tx_encap ◄─ lookup ─► flow_table
//!  s_axis_tx_* (tenant frames, tuser {QP, VNI}) ─► tx_encap ─ tdest ─► m_axis_port0_tx_* / m_axis_port1_tx_*
//!  s_axis_port0_rx_* ─► MacRxFifo ─┐
//!  s_axis_port1_rx_* ─► MacRxFifo ─┴► RxPortArb ─► AxisSlice ─► rx_decap ─ headers ─► rx_reorder ─► rx_events
//!                 ─ LOCAL_VNI*, REORDER_*, QP_* ───────────┘            ▲ verdicts │      ├► m_axis_cqe_*
//!                                                   rx_decap ─► m_axis_place_* (payload, tuser {QP, VA, rkey, len})
//!                                                                                └► m_axis_ack_* (ACKs, requests)
//!  s_credit_send_* (scheduler asks) ─► credit_tx ─► m_credit_send_* (bytes allowed), m_credit_req_*, m_credit_onoff_*
//!  s_credit_grant_* (grants from receivers) ─► credit_tx
//!  s_credit_req_*, s_credit_onoff_*, s_pcie_depth ─► credit_rx ─► m_credit_grant_* (grants to senders)
//! ```
//!
//! The MAC RX ports never wait (`s_axis_portN_rx_tready` is constant 1): each port has a
//! frame FIFO (`MacRxFifo`) that takes a frame whole or drops it whole, drops frames the
//! MAC marks bad (`s_axis_portN_rx_tuser` at `tlast`) or that are longer than the largest
//! frame, and counts each drop by port and reason (`CNT_RX_PORTn_DROP_*`). A register
//! slice between the port arbiter and `rx_decap` keeps the FIFOs' valid and `rx_decap`'s
//! ready apart (one cycle more on RX, no throughput lost; docs/timing.md).
//!
//! The credit ports with a ready (`s_credit_send_*`, `s_credit_req_*`) enter through
//! register slices, and `rst` enters through a two-flip-flop synchronizer (it may be
//! asynchronous to `clk`; [`RESET_SYNC_STAGES`]) and reaches each block through a copy
//! of its own ([`RESET_CYCLES`]), so no output port depends
//! combinationally on an input port (the Yosys gate checks it).
//!
//! ACKs and retransmission requests leave as records on `m_axis_ack_*` for the transport
//! that builds the reply frames; credit requests and grants likewise travel on their
//! own ports. Neither is framed by this RTL.
//!
//! `QP_CMD.OP` = 1 applies `QP_ID`/`QP_CFG`/`QP_PSN` to `rx_reorder` (create with an
//! expected PSN and a tenant slot, or destroy); `RX_STATUS.QP_BUSY` is set until
//! `rx_reorder` takes it (at once, or after its reset sweep).
//!
//! `FT_CMD.OP` 1..4 commit the staged entry through the flow table's update port in the
//! cycle after the CSR write (write slot, write stash, invalidate slot, invalidate
//! stash); 5 and 6 read a slot or stash entry back into `FT_RD_*` and set
//! `FT_STATUS.RD_DONE` two cycles later (cleared by the next command). Other opcodes are
//! ignored.

use crate::credit_rx::CreditRx;
use crate::credit_tx::{CreditTx, QP_BITS};
use crate::csr::Csr;
use crate::flow_table::{FlowTable, INDEX_BITS, KEY_BITS, VALUE_BITS};
use crate::mac_rx::MacRxFifo;
use crate::ports::RxPortArb;
use crate::reset::ResetCopy;
use crate::rx_decap::RxDecap;
use crate::rx_events::RxEvents;
use crate::rx_reorder::RxReorder;
use crate::slice::{AxisSlice, RegSlice};
use crate::tx_encap::{TxEncap, TUSER_BITS};
use rust_hdl::prelude::*;

/// A credit send request through its register slice: `{QP, remaining bytes}`.
const SEND_BITS: usize = QP_BITS + 32;

/// The stages of the reset synchronizer: hold `rst` at least this many cycles.
pub const RESET_SYNC_STAGES: u32 = 2;

/// Cycles from `rst` (rising or falling) to the reset every block sees: the
/// synchronizer, then one registered copy of its output per block (`ResetCopy`), so no
/// single net carries the reset to every block. The blocks are in reset from this many
/// cycles after `rst` rises until this many cycles after it falls, and at power-up until
/// this many cycles after the first clock edge with `rst` low.
pub const RESET_CYCLES: u32 = RESET_SYNC_STAGES + 1;

/// Bits of `m_axis_place_tuser`.
pub const PLACE_TUSER_BITS: usize = 160;

#[derive(LogicBlock)]
pub struct PrnicTop<const D: usize, const K: usize> {
    pub clk: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub s_axil_awaddr: Signal<In, Bits<12>>,
    pub s_axil_awvalid: Signal<In, Bit>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    pub s_axil_wvalid: Signal<In, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bready: Signal<In, Bit>,
    pub s_axil_araddr: Signal<In, Bits<12>>,
    pub s_axil_arvalid: Signal<In, Bit>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rready: Signal<In, Bit>,
    /// Build git hash for `ID_BUILD_HASH` (tie to a constant at integration).
    pub id_build_hash: Signal<In, Bits<32>>,
    /// Tenant frames from the host (tuser `{QP[47:24], VNI[23:0]}`).
    pub s_axis_tx_tdata: Signal<In, Bits<D>>,
    pub s_axis_tx_tkeep: Signal<In, Bits<K>>,
    pub s_axis_tx_tvalid: Signal<In, Bit>,
    pub s_axis_tx_tready: Signal<Out, Bit>,
    pub s_axis_tx_tlast: Signal<In, Bit>,
    pub s_axis_tx_tuser: Signal<In, Bits<TUSER_BITS>>,
    /// Encapsulated frames to the MACs (`tdest` = egress port).
    pub m_axis_port0_tx_tdata: Signal<Out, Bits<D>>,
    pub m_axis_port0_tx_tkeep: Signal<Out, Bits<K>>,
    pub m_axis_port0_tx_tvalid: Signal<Out, Bit>,
    pub m_axis_port0_tx_tready: Signal<In, Bit>,
    pub m_axis_port0_tx_tlast: Signal<Out, Bit>,
    pub m_axis_port1_tx_tdata: Signal<Out, Bits<D>>,
    pub m_axis_port1_tx_tkeep: Signal<Out, Bits<K>>,
    pub m_axis_port1_tx_tvalid: Signal<Out, Bit>,
    pub m_axis_port1_tx_tready: Signal<In, Bit>,
    pub m_axis_port1_tx_tlast: Signal<Out, Bit>,
    pub s_axis_port0_rx_tdata: Signal<In, Bits<D>>,
    pub s_axis_port0_rx_tkeep: Signal<In, Bits<K>>,
    pub s_axis_port0_rx_tvalid: Signal<In, Bit>,
    pub s_axis_port0_rx_tready: Signal<Out, Bit>,
    pub s_axis_port0_rx_tlast: Signal<In, Bit>,
    /// The MAC's bad-frame flag (FCS or other error), valid with `tlast`.
    pub s_axis_port0_rx_tuser: Signal<In, Bit>,
    pub s_axis_port1_rx_tdata: Signal<In, Bits<D>>,
    pub s_axis_port1_rx_tkeep: Signal<In, Bits<K>>,
    pub s_axis_port1_rx_tvalid: Signal<In, Bit>,
    pub s_axis_port1_rx_tready: Signal<Out, Bit>,
    pub s_axis_port1_rx_tlast: Signal<In, Bit>,
    /// The MAC's bad-frame flag (FCS or other error), valid with `tlast`.
    pub s_axis_port1_rx_tuser: Signal<In, Bit>,
    // Host side of RX: placed payload (realigned to byte 0) with its placement command,
    // completions, and ACKs / retransmission requests for the transport.
    pub m_axis_place_tdata: Signal<Out, Bits<D>>,
    pub m_axis_place_tkeep: Signal<Out, Bits<K>>,
    pub m_axis_place_tvalid: Signal<Out, Bit>,
    pub m_axis_place_tready: Signal<In, Bit>,
    pub m_axis_place_tlast: Signal<Out, Bit>,
    /// `[15:0]` QP, `[95:32]` VA, `[127:96]` rkey, `[159:128]` payload length; constant
    /// through a packet.
    pub m_axis_place_tuser: Signal<Out, Bits<PLACE_TUSER_BITS>>,
    pub m_axis_cqe_tdata: Signal<Out, Bits<128>>,
    pub m_axis_cqe_tvalid: Signal<Out, Bit>,
    pub m_axis_cqe_tready: Signal<In, Bit>,
    pub m_axis_ack_tdata: Signal<Out, Bits<384>>,
    pub m_axis_ack_tvalid: Signal<Out, Bit>,
    pub m_axis_ack_tready: Signal<In, Bit>,
    /// Credit engine, sender side: the TX scheduler asks how much a QP may send.
    pub s_credit_send_valid: Signal<In, Bit>,
    pub s_credit_send_ready: Signal<Out, Bit>,
    pub s_credit_send_qp: Signal<In, Bits<QP_BITS>>,
    pub s_credit_send_remaining: Signal<In, Bits<32>>,
    pub m_credit_send_valid: Signal<Out, Bit>,
    pub m_credit_send_qp: Signal<Out, Bits<QP_BITS>>,
    pub m_credit_send_bytes: Signal<Out, Bits<32>>,
    pub m_credit_req_valid: Signal<Out, Bit>,
    pub m_credit_req_qp: Signal<Out, Bits<QP_BITS>>,
    pub m_credit_onoff_valid: Signal<Out, Bit>,
    pub m_credit_onoff_qp: Signal<Out, Bits<QP_BITS>>,
    pub m_credit_onoff_on: Signal<Out, Bit>,
    pub s_credit_grant_valid: Signal<In, Bit>,
    pub s_credit_grant_qp: Signal<In, Bits<QP_BITS>>,
    /// Credit engine, receiver side: requests and ON/OFF from remote senders, grants out.
    pub s_credit_req_valid: Signal<In, Bit>,
    pub s_credit_req_ready: Signal<Out, Bit>,
    pub s_credit_req_qp: Signal<In, Bits<QP_BITS>>,
    pub s_credit_onoff_valid: Signal<In, Bit>,
    pub s_credit_onoff_qp: Signal<In, Bits<QP_BITS>>,
    pub s_credit_onoff_on: Signal<In, Bit>,
    pub m_credit_grant_valid: Signal<Out, Bit>,
    pub m_credit_grant_qp: Signal<Out, Bits<QP_BITS>>,
    pub s_pcie_depth: Signal<In, Bits<16>>,
    csr: Csr,
    flow: FlowTable,
    tx: TxEncap<D, K>,
    ctx: CreditTx,
    crx: CreditRx,
    rxd: RxDecap<D, K>,
    rxr: RxReorder,
    rxe: RxEvents,
    mac0: MacRxFifo<D, K>,
    mac1: MacRxFifo<D, K>,
    /// Register slices on the two credit ports with a ready: their `tready` is a
    /// flip-flop, so no input (a grant or ON/OFF in the same cycle, `rst`) reaches it
    /// through `credit_tx`'s or `credit_rx`'s arbitration.
    send_slice: RegSlice<SEND_BITS>,
    req_slice: RegSlice<QP_BITS>,
    arb: RxPortArb<D, K>,
    /// The arbiter's output registered before `rx_decap`: the MAC FIFOs' valid and
    /// `rx_decap`'s ready meet only registers (one cycle more on RX).
    rx_slice: AxisSlice<D, K>,
    /// The reset synchronizer: `rst` may be asynchronous to `clk`. Both flip-flops hold
    /// "out of reset" (0 = in reset), so the design powers up in reset. `!rst_ok_sync`
    /// feeds only the per-block copies below, which every block is reset from
    /// (`RESET_CYCLES` after `rst`). Each use is written out: a local signal between
    /// them would make Verilator see the top's one always block as a loop through each
    /// block's reset.
    rst_ok_meta: DFF<Bit>,
    rst_ok_sync: DFF<Bit>,
    /// The synchronized reset, one registered copy per block (and one for the top's own
    /// registers): see [`ResetCopy`]. Every block leaves reset in the same cycle.
    rst_csr: ResetCopy,
    rst_flow: ResetCopy,
    rst_tx: ResetCopy,
    rst_ctx: ResetCopy,
    rst_crx: ResetCopy,
    rst_rxd: ResetCopy,
    rst_rxr: ResetCopy,
    rst_rxe: ResetCopy,
    rst_arb: ResetCopy,
    rst_mac0: ResetCopy,
    rst_mac1: ResetCopy,
    rst_slices: ResetCopy,
    rst_glue: ResetCopy,
    rd_done: DFF<Bit>,
    qp_busy: DFF<Bit>,
    /// The reorder window, clamped and registered (quasi-static configuration: the
    /// register keeps the clamp out of `rx_reorder`'s paths).
    window: DFF<Bits<16>>,
    /// The staged FT_LOC, FT_KEY_* and FT_VAL* fields, registered on their way to the
    /// flow table (they are written by earlier AXI4-Lite writes, at least
    /// `CSR_ACCESS_CYCLES` before the FT_CMD that uses them; the command pulse itself is
    /// not delayed, so an FT_CMD is still seen by every lookup after its write response).
    ft_way: DFF<Bits<2>>,
    ft_index: DFF<Bits<INDEX_BITS>>,
    ft_key: DFF<Bits<KEY_BITS>>,
    ft_value: DFF<Bits<VALUE_BITS>>,
    cmd_op: Signal<Local, Bits<3>>,
    // Configuration for blocks that are not in the top yet (TX encapsulation, RX, credit
    // engine), and outputs whose consumers are not, folded into one signal Verilator's
    // lint knows as deliberately unused (`*unused*`); synthesis removes it. Each field
    // leaves this list when its block lands.
    unused_cfg: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize> PrnicTop<D, K> {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        csr: Csr,
        flow: FlowTable,
        tx: TxEncap<D, K>,
        ctx: CreditTx,
        crx: CreditRx,
        rxd: RxDecap<D, K>,
        rxr: RxReorder,
        mac0: MacRxFifo<D, K>,
        mac1: MacRxFifo<D, K>,
    ) -> Self {
        Self {
            clk: Default::default(),
            rst: Default::default(),
            s_axil_awaddr: Default::default(),
            s_axil_awvalid: Default::default(),
            s_axil_awready: Default::default(),
            s_axil_wdata: Default::default(),
            s_axil_wstrb: Default::default(),
            s_axil_wvalid: Default::default(),
            s_axil_wready: Default::default(),
            s_axil_bresp: Default::default(),
            s_axil_bvalid: Default::default(),
            s_axil_bready: Default::default(),
            s_axil_araddr: Default::default(),
            s_axil_arvalid: Default::default(),
            s_axil_arready: Default::default(),
            s_axil_rdata: Default::default(),
            s_axil_rresp: Default::default(),
            s_axil_rvalid: Default::default(),
            s_axil_rready: Default::default(),
            id_build_hash: Default::default(),
            s_axis_tx_tdata: Default::default(),
            s_axis_tx_tkeep: Default::default(),
            s_axis_tx_tvalid: Default::default(),
            s_axis_tx_tready: Default::default(),
            s_axis_tx_tlast: Default::default(),
            s_axis_tx_tuser: Default::default(),
            m_axis_port0_tx_tdata: Default::default(),
            m_axis_port0_tx_tkeep: Default::default(),
            m_axis_port0_tx_tvalid: Default::default(),
            m_axis_port0_tx_tready: Default::default(),
            m_axis_port0_tx_tlast: Default::default(),
            m_axis_port1_tx_tdata: Default::default(),
            m_axis_port1_tx_tkeep: Default::default(),
            m_axis_port1_tx_tvalid: Default::default(),
            m_axis_port1_tx_tready: Default::default(),
            m_axis_port1_tx_tlast: Default::default(),
            s_axis_port0_rx_tdata: Default::default(),
            s_axis_port0_rx_tkeep: Default::default(),
            s_axis_port0_rx_tvalid: Default::default(),
            s_axis_port0_rx_tready: Default::default(),
            s_axis_port0_rx_tlast: Default::default(),
            s_axis_port0_rx_tuser: Default::default(),
            s_axis_port1_rx_tdata: Default::default(),
            s_axis_port1_rx_tkeep: Default::default(),
            s_axis_port1_rx_tvalid: Default::default(),
            s_axis_port1_rx_tready: Default::default(),
            s_axis_port1_rx_tlast: Default::default(),
            s_axis_port1_rx_tuser: Default::default(),
            m_axis_place_tdata: Default::default(),
            m_axis_place_tkeep: Default::default(),
            m_axis_place_tvalid: Default::default(),
            m_axis_place_tready: Default::default(),
            m_axis_place_tlast: Default::default(),
            m_axis_place_tuser: Default::default(),
            m_axis_cqe_tdata: Default::default(),
            m_axis_cqe_tvalid: Default::default(),
            m_axis_cqe_tready: Default::default(),
            m_axis_ack_tdata: Default::default(),
            m_axis_ack_tvalid: Default::default(),
            m_axis_ack_tready: Default::default(),
            s_credit_send_valid: Default::default(),
            s_credit_send_ready: Default::default(),
            s_credit_send_qp: Default::default(),
            s_credit_send_remaining: Default::default(),
            m_credit_send_valid: Default::default(),
            m_credit_send_qp: Default::default(),
            m_credit_send_bytes: Default::default(),
            m_credit_req_valid: Default::default(),
            m_credit_req_qp: Default::default(),
            m_credit_onoff_valid: Default::default(),
            m_credit_onoff_qp: Default::default(),
            m_credit_onoff_on: Default::default(),
            s_credit_grant_valid: Default::default(),
            s_credit_grant_qp: Default::default(),
            s_credit_req_valid: Default::default(),
            s_credit_req_ready: Default::default(),
            s_credit_req_qp: Default::default(),
            s_credit_onoff_valid: Default::default(),
            s_credit_onoff_qp: Default::default(),
            s_credit_onoff_on: Default::default(),
            m_credit_grant_valid: Default::default(),
            m_credit_grant_qp: Default::default(),
            s_pcie_depth: Default::default(),
            csr,
            flow,
            tx,
            ctx,
            crx,
            rxd,
            rxr,
            rxe: RxEvents::new(),
            mac0,
            mac1,
            send_slice: Default::default(),
            req_slice: Default::default(),
            arb: Default::default(),
            rx_slice: Default::default(),
            rst_ok_meta: Default::default(),
            rst_ok_sync: Default::default(),
            rst_csr: ResetCopy::new("prnic_top_rst_csr"),
            rst_flow: ResetCopy::new("prnic_top_rst_flow"),
            rst_tx: ResetCopy::new("prnic_top_rst_tx"),
            rst_ctx: ResetCopy::new("prnic_top_rst_ctx"),
            rst_crx: ResetCopy::new("prnic_top_rst_crx"),
            rst_rxd: ResetCopy::new("prnic_top_rst_rxd"),
            rst_rxr: ResetCopy::new("prnic_top_rst_rxr"),
            rst_rxe: ResetCopy::new("prnic_top_rst_rxe"),
            rst_arb: ResetCopy::new("prnic_top_rst_arb"),
            rst_mac0: ResetCopy::new("prnic_top_rst_mac0"),
            rst_mac1: ResetCopy::new("prnic_top_rst_mac1"),
            rst_slices: ResetCopy::new("prnic_top_rst_slices"),
            rst_glue: ResetCopy::new("prnic_top_rst_glue"),
            rd_done: Default::default(),
            qp_busy: Default::default(),
            window: Default::default(),
            ft_way: Default::default(),
            ft_index: Default::default(),
            ft_key: Default::default(),
            ft_value: Default::default(),
            cmd_op: Default::default(),
            unused_cfg: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize> Logic for PrnicTop<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clk,
            rst_ok_meta,
            rst_ok_sync,
            rd_done,
            qp_busy,
            window,
            ft_way,
            ft_index,
            ft_key,
            ft_value
        );
        // Reset synchronizer: two flip-flops in a row and nothing between them (the
        // constraints mark them ASYNC_REG and false-path `rst`). Assertion and release
        // both reach the per-block copies RESET_SYNC_STAGES cycles after `rst`, and the
        // blocks one cycle later, RESET_CYCLES (a synchronous reset: rust-hdl has no
        // asynchronous one).
        self.rst_ok_meta.d.next = !self.rst.val();
        self.rst_ok_sync.d.next = self.rst_ok_meta.q.val();
        self.rst_csr.clock.next = self.clk.val();
        self.rst_csr.d.next = !self.rst_ok_sync.q.val();
        self.rst_flow.clock.next = self.clk.val();
        self.rst_flow.d.next = !self.rst_ok_sync.q.val();
        self.rst_tx.clock.next = self.clk.val();
        self.rst_tx.d.next = !self.rst_ok_sync.q.val();
        self.rst_ctx.clock.next = self.clk.val();
        self.rst_ctx.d.next = !self.rst_ok_sync.q.val();
        self.rst_crx.clock.next = self.clk.val();
        self.rst_crx.d.next = !self.rst_ok_sync.q.val();
        self.rst_rxd.clock.next = self.clk.val();
        self.rst_rxd.d.next = !self.rst_ok_sync.q.val();
        self.rst_rxr.clock.next = self.clk.val();
        self.rst_rxr.d.next = !self.rst_ok_sync.q.val();
        self.rst_rxe.clock.next = self.clk.val();
        self.rst_rxe.d.next = !self.rst_ok_sync.q.val();
        self.rst_arb.clock.next = self.clk.val();
        self.rst_arb.d.next = !self.rst_ok_sync.q.val();
        self.rst_mac0.clock.next = self.clk.val();
        self.rst_mac0.d.next = !self.rst_ok_sync.q.val();
        self.rst_mac1.clock.next = self.clk.val();
        self.rst_mac1.d.next = !self.rst_ok_sync.q.val();
        self.rst_slices.clock.next = self.clk.val();
        self.rst_slices.d.next = !self.rst_ok_sync.q.val();
        self.rst_glue.clock.next = self.clk.val();
        self.rst_glue.d.next = !self.rst_ok_sync.q.val();
        self.csr.clk.next = self.clk.val();
        self.flow.clk.next = self.clk.val();
        self.tx.clk.next = self.clk.val();
        self.ctx.clk.next = self.clk.val();
        self.crx.clk.next = self.clk.val();
        self.csr.rst.next = self.rst_csr.q.val();
        self.flow.rst.next = self.rst_flow.q.val();
        self.tx.rst.next = self.rst_tx.q.val();
        self.ctx.rst.next = self.rst_ctx.q.val();
        self.crx.rst.next = self.rst_crx.q.val();
        self.rxd.clk.next = self.clk.val();
        self.rxr.clk.next = self.clk.val();
        self.rxe.clk.next = self.clk.val();
        self.arb.clk.next = self.clk.val();
        self.mac0.clk.next = self.clk.val();
        self.mac1.clk.next = self.clk.val();
        self.rxd.rst.next = self.rst_rxd.q.val();
        self.rxr.rst.next = self.rst_rxr.q.val();
        self.rxe.rst.next = self.rst_rxe.q.val();
        self.arb.rst.next = self.rst_arb.q.val();
        self.mac0.rst.next = self.rst_mac0.q.val();
        self.send_slice.clk.next = self.clk.val();
        self.req_slice.clk.next = self.clk.val();
        self.send_slice.rst.next = self.rst_slices.q.val();
        self.rx_slice.clk.next = self.clk.val();
        self.rx_slice.rst.next = self.rst_slices.q.val();
        self.req_slice.rst.next = self.rst_slices.q.val();
        self.mac1.rst.next = self.rst_mac1.q.val();

        // AXI4-Lite straight to the CSR block.
        self.csr.s_axil_awaddr.next = self.s_axil_awaddr.val();
        self.csr.s_axil_awvalid.next = self.s_axil_awvalid.val();
        self.s_axil_awready.next = self.csr.s_axil_awready.val();
        self.csr.s_axil_wdata.next = self.s_axil_wdata.val();
        self.csr.s_axil_wstrb.next = self.s_axil_wstrb.val();
        self.csr.s_axil_wvalid.next = self.s_axil_wvalid.val();
        self.s_axil_wready.next = self.csr.s_axil_wready.val();
        self.s_axil_bresp.next = self.csr.s_axil_bresp.val();
        self.s_axil_bvalid.next = self.csr.s_axil_bvalid.val();
        self.csr.s_axil_bready.next = self.s_axil_bready.val();
        self.csr.s_axil_araddr.next = self.s_axil_araddr.val();
        self.csr.s_axil_arvalid.next = self.s_axil_arvalid.val();
        self.s_axil_arready.next = self.csr.s_axil_arready.val();
        self.s_axil_rdata.next = self.csr.s_axil_rdata.val();
        self.s_axil_rresp.next = self.csr.s_axil_rresp.val();
        self.s_axil_rvalid.next = self.csr.s_axil_rvalid.val();
        self.csr.s_axil_rready.next = self.s_axil_rready.val();
        self.csr.hw_id_build_hash_hash.next = self.id_build_hash.val();

        // FT_CMD: commit the staged entry, or read a slot back.
        self.cmd_op.next = self.csr.cmd_ft_cmd_op.val();
        self.flow.s_update_valid.next = (self.csr.cmd_ft_cmd_valid.val()
            & ((self.cmd_op.val() >= 1) & (self.cmd_op.val() <= 4)));
        // The table's update ops are the FT_CMD op's low two bits (flow_table::OP_*).
        self.flow.s_update_op.next = self.cmd_op.val().get_bits::<2>(0);
        self.flow.s_read_valid.next = (self.csr.cmd_ft_cmd_valid.val()
            & ((self.cmd_op.val() == 5) | (self.cmd_op.val() == 6)));
        self.flow.s_read_stash.next = (self.cmd_op.val() == 6);
        self.ft_way.d.next = self.csr.cfg_ft_loc_way.val();
        self.ft_index.d.next = self.csr.cfg_ft_loc_index.val();
        self.ft_key.d.next = ((bit_cast::<KEY_BITS, 24>(self.csr.cfg_ft_key_hi_vni.val()) << 32)
            | bit_cast::<KEY_BITS, 32>(self.csr.cfg_ft_key_lo_ipv4.val()));
        self.ft_value.d.next = ((bit_cast::<VALUE_BITS, 16>(self.csr.cfg_ft_val3_bits.val())
            << 96)
            | (bit_cast::<VALUE_BITS, 32>(self.csr.cfg_ft_val2_bits.val()) << 64)
            | (bit_cast::<VALUE_BITS, 32>(self.csr.cfg_ft_val1_bits.val()) << 32)
            | bit_cast::<VALUE_BITS, 32>(self.csr.cfg_ft_val0_bits.val()));
        self.flow.s_update_way.next = self.ft_way.q.val();
        self.flow.s_update_index.next = self.ft_index.q.val();
        self.flow.s_update_key.next = self.ft_key.q.val();
        self.flow.s_update_value.next = self.ft_value.q.val();
        self.flow.s_read_way.next = self.ft_way.q.val();
        self.flow.s_read_index.next = self.ft_index.q.val();
        // A new command clears RD_DONE even if an older read completes in the same cycle.
        if self.flow.m_read_valid.val() {
            self.rd_done.d.next = true;
        }
        if self.csr.cmd_ft_cmd_valid.val() {
            self.rd_done.d.next = false;
        }
        if self.rst_glue.q.val() {
            self.rd_done.d.next = false;
        }
        self.csr.hw_ft_status_rd_done.next = self.rd_done.q.val().into();
        self.csr.hw_ft_status_clearing.next = self.flow.status_clearing.val().into();
        self.csr.hw_ft_rd_val0_bits.next = self.flow.m_read_entry.val().get_bits::<32>(0);
        self.csr.hw_ft_rd_val1_bits.next = self.flow.m_read_entry.val().get_bits::<32>(32);
        self.csr.hw_ft_rd_val2_bits.next = self.flow.m_read_entry.val().get_bits::<32>(64);
        self.csr.hw_ft_rd_val3_bits.next = self.flow.m_read_entry.val().get_bits::<16>(96);
        self.csr.hw_ft_rd_key_lo_ipv4.next = self.flow.m_read_entry.val().get_bits::<32>(112);
        self.csr.hw_ft_rd_key_hi_vni.next = self.flow.m_read_entry.val().get_bits::<24>(144);
        self.csr.hw_ft_rd_key_hi_valid.next = self.flow.m_read_entry.val().get_bits::<1>(168);

        // Flow-table status and counters.
        self.csr.hw_err_flags_ft_multi_hit.next = self.flow.status_multi_hit.val().into();
        self.flow.cfg_clear_errors.next = self.csr.clr_err_flags_ft_multi_hit.val().any();
        self.csr.hw_cnt_ft_multi_hit.next =
            bit_cast::<64, 32>(self.flow.status_multi_hit_count.val());
        self.csr.hw_cnt_ft_dup_hit.next = bit_cast::<64, 32>(self.flow.status_dup_hit_count.val());
        self.csr.hw_cnt_ft_bad_update.next =
            bit_cast::<64, 32>(self.flow.status_bad_update_count.val());

        // TX path: tenant frames in, encapsulated frames out; the flow table answers
        // tx_encap's lookups (3 cycles, in order).
        self.tx.s_axis_tdata.next = self.s_axis_tx_tdata.val();
        self.tx.s_axis_tkeep.next = self.s_axis_tx_tkeep.val();
        self.tx.s_axis_tvalid.next = self.s_axis_tx_tvalid.val();
        self.s_axis_tx_tready.next = self.tx.s_axis_tready.val();
        self.tx.s_axis_tlast.next = self.s_axis_tx_tlast.val();
        self.tx.s_axis_tuser.next = self.s_axis_tx_tuser.val();
        // MAC ports: tdest (the flow entry's port) is constant through a frame, so the
        // split is wiring; tready comes from the port the frame goes to.
        self.m_axis_port0_tx_tdata.next = self.tx.m_axis_tdata.val();
        self.m_axis_port0_tx_tkeep.next = self.tx.m_axis_tkeep.val();
        self.m_axis_port0_tx_tlast.next = self.tx.m_axis_tlast.val();
        self.m_axis_port0_tx_tvalid.next =
            (self.tx.m_axis_tvalid.val() & !self.tx.m_axis_tdest.val());
        self.m_axis_port1_tx_tdata.next = self.tx.m_axis_tdata.val();
        self.m_axis_port1_tx_tkeep.next = self.tx.m_axis_tkeep.val();
        self.m_axis_port1_tx_tlast.next = self.tx.m_axis_tlast.val();
        self.m_axis_port1_tx_tvalid.next =
            (self.tx.m_axis_tvalid.val() & self.tx.m_axis_tdest.val());
        if self.tx.m_axis_tdest.val() {
            self.tx.m_axis_tready.next = self.m_axis_port1_tx_tready.val();
        } else {
            self.tx.m_axis_tready.next = self.m_axis_port0_tx_tready.val();
        }
        self.flow.s_lookup_valid.next = self.tx.m_lookup_valid.val();
        self.flow.s_lookup_key.next = self.tx.m_lookup_key.val();
        self.flow.s_lookup_tag.next = 0.into();
        self.tx.s_result_valid.next = self.flow.m_result_valid.val();
        self.tx.s_result_hit.next = self.flow.m_result_hit.val();
        self.tx.s_result_value.next = self.flow.m_result_value.val();
        self.tx.cfg_port0_mac.next = ((bit_cast::<48, 16>(self.csr.cfg_port0_mac_hi_mac.val())
            << 32)
            | bit_cast::<48, 32>(self.csr.cfg_port0_mac_lo_mac.val()));
        self.tx.cfg_port0_ip.next = self.csr.cfg_port0_ipv4_addr.val();
        self.tx.cfg_port1_mac.next = ((bit_cast::<48, 16>(self.csr.cfg_port1_mac_hi_mac.val())
            << 32)
            | bit_cast::<48, 32>(self.csr.cfg_port1_mac_lo_mac.val()));
        self.tx.cfg_port1_ip.next = self.csr.cfg_port1_ipv4_addr.val();
        self.tx.cfg_dscp.next = self.csr.cfg_tx_ip_dscp.val();
        self.tx.cfg_ttl.next = self.csr.cfg_tx_ip_ttl.val();
        self.tx.cfg_bth_mark.next = self.csr.cfg_spray_bth_mark.val().any();
        self.tx.cfg_spray_mode.next = self.csr.cfg_spray_mode.val();
        self.tx.cfg_spray_min.next = self.csr.cfg_spray_ports_min.val();
        self.tx.cfg_spray_max.next = self.csr.cfg_spray_ports_max.val();
        self.csr.hw_cnt_tx_frames.next = bit_cast::<64, 32>(self.tx.status_frames.val());
        self.csr.hw_cnt_tx_drop_miss.next = bit_cast::<64, 32>(self.tx.status_drop_miss.val());
        self.csr.hw_cnt_tx_drop_short.next = bit_cast::<64, 32>(self.tx.status_drop_short.val());
        self.csr.hw_cnt_tx_drop_not_ipv4.next =
            bit_cast::<64, 32>(self.tx.status_drop_not_ipv4.val());
        self.csr.hw_cnt_tx_drop_too_long.next =
            bit_cast::<64, 32>(self.tx.status_drop_too_long.val());
        self.csr.hw_cnt_tx_drop_bad_keep.next =
            bit_cast::<64, 32>(self.tx.status_drop_bad_keep.val());
        self.csr.hw_tx_status_spray_cfg_error.next = self.tx.status_spray_cfg_error.val().into();
        self.csr.hw_tx_status_fifo_overflow.next = self.tx.status_overflow.val().into();

        // Credit engine: configured and counted through CSR.
        self.send_slice.s_valid.next = self.s_credit_send_valid.val();
        self.s_credit_send_ready.next = self.send_slice.s_ready.val();
        self.send_slice.s_data.next =
            ((bit_cast::<SEND_BITS, QP_BITS>(self.s_credit_send_qp.val()) << 32)
                | bit_cast::<SEND_BITS, 32>(self.s_credit_send_remaining.val()));
        self.ctx.s_send_valid.next = self.send_slice.m_valid.val();
        self.send_slice.m_ready.next = self.ctx.s_send_ready.val();
        self.ctx.s_send_qp.next = self.send_slice.m_data.val().get_bits::<QP_BITS>(32);
        self.ctx.s_send_remaining.next = self.send_slice.m_data.val().get_bits::<32>(0);
        self.m_credit_send_valid.next = self.ctx.m_send_valid.val();
        self.m_credit_send_qp.next = self.ctx.m_send_qp.val();
        self.m_credit_send_bytes.next = self.ctx.m_send_bytes.val();
        self.m_credit_req_valid.next = self.ctx.m_req_valid.val();
        self.m_credit_req_qp.next = self.ctx.m_req_qp.val();
        self.m_credit_onoff_valid.next = self.ctx.m_onoff_valid.val();
        self.m_credit_onoff_qp.next = self.ctx.m_onoff_qp.val();
        self.m_credit_onoff_on.next = self.ctx.m_onoff_on.val();
        self.ctx.s_grant_valid.next = self.s_credit_grant_valid.val();
        self.ctx.s_grant_qp.next = self.s_credit_grant_qp.val();
        self.ctx.cfg_rule.next = self.csr.cfg_credit_rule.val().any();
        self.ctx.cfg_batch.next = self.csr.cfg_credit_batch_bytes.val();
        self.ctx.cfg_bdp.next = self.csr.cfg_credit_bdp_bytes.val();
        self.req_slice.s_valid.next = self.s_credit_req_valid.val();
        self.s_credit_req_ready.next = self.req_slice.s_ready.val();
        self.req_slice.s_data.next = self.s_credit_req_qp.val();
        self.crx.s_req_valid.next = self.req_slice.m_valid.val();
        self.req_slice.m_ready.next = self.crx.s_req_ready.val();
        self.crx.s_req_qp.next = self.req_slice.m_data.val();
        self.crx.s_onoff_valid.next = self.s_credit_onoff_valid.val();
        self.crx.s_onoff_qp.next = self.s_credit_onoff_qp.val();
        self.crx.s_onoff_on.next = self.s_credit_onoff_on.val();
        self.m_credit_grant_valid.next = self.crx.m_grant_valid.val();
        self.m_credit_grant_qp.next = self.crx.m_grant_qp.val();
        self.crx.s_pcie_depth.next = self.s_pcie_depth.val();
        self.crx.cfg_bp_threshold.next = self.csr.cfg_pcie_bp_threshold.val();
        self.crx.cfg_bp_slowdown.next = self.csr.cfg_pcie_bp_slowdown.val();
        self.csr.hw_credit_status_tx_clearing.next = self.ctx.status_clearing.val().into();
        self.csr.hw_credit_status_rx_clearing.next = self.crx.status_clearing.val().into();
        self.csr.hw_credit_status_debt_error.next = self.ctx.status_debt_error.val().into();
        self.csr.hw_cnt_credit_requests.next = bit_cast::<64, 32>(self.ctx.status_requests.val());
        self.csr.hw_cnt_credit_grants.next = bit_cast::<64, 32>(self.ctx.status_grants.val());
        self.csr.hw_cnt_credit_wasted_bytes.next =
            bit_cast::<64, 32>(self.ctx.status_wasted_bytes.val());
        self.csr.hw_cnt_credit_starved_cycles.next =
            bit_cast::<64, 32>(self.ctx.status_starved_cycles.val());
        self.csr.hw_cnt_credit_grants_dropped.next =
            bit_cast::<64, 32>(self.ctx.status_grants_dropped.val());
        self.csr.hw_cnt_credit_rx_requests.next =
            bit_cast::<64, 32>(self.crx.status_requests.val());
        self.csr.hw_cnt_credit_rx_grants.next = bit_cast::<64, 32>(self.crx.status_grants.val());
        self.csr.hw_cnt_credit_rx_idle_slots.next =
            bit_cast::<64, 32>(self.crx.status_idle_slots.val());

        // RX path: two ports, one frame at a time, into rx_decap; headers through
        // rx_reorder and verdicts back; payload out to the host once placed.
        self.mac0.s_tvalid.next = self.s_axis_port0_rx_tvalid.val();
        self.s_axis_port0_rx_tready.next = self.mac0.s_tready.val();
        self.mac0.s_tdata.next = self.s_axis_port0_rx_tdata.val();
        self.mac0.s_tkeep.next = self.s_axis_port0_rx_tkeep.val();
        self.mac0.s_tlast.next = self.s_axis_port0_rx_tlast.val();
        self.mac0.s_tuser.next = self.s_axis_port0_rx_tuser.val();
        self.arb.s0_tvalid.next = self.mac0.m_tvalid.val();
        self.mac0.m_tready.next = self.rx_slice.s_tready.val();
        self.mac0.m_grant.next = self.arb.s0_grant.val();
        self.arb.s0_tdata.next = self.mac0.m_tdata.val();
        self.arb.s0_tkeep.next = self.mac0.m_tkeep.val();
        self.arb.s0_tlast.next = self.mac0.m_tlast.val();
        self.mac1.s_tvalid.next = self.s_axis_port1_rx_tvalid.val();
        self.s_axis_port1_rx_tready.next = self.mac1.s_tready.val();
        self.mac1.s_tdata.next = self.s_axis_port1_rx_tdata.val();
        self.mac1.s_tkeep.next = self.s_axis_port1_rx_tkeep.val();
        self.mac1.s_tlast.next = self.s_axis_port1_rx_tlast.val();
        self.mac1.s_tuser.next = self.s_axis_port1_rx_tuser.val();
        self.arb.s1_tvalid.next = self.mac1.m_tvalid.val();
        self.mac1.m_tready.next = self.rx_slice.s_tready.val();
        self.mac1.m_grant.next = self.arb.s1_grant.val();
        self.arb.s1_tdata.next = self.mac1.m_tdata.val();
        self.arb.s1_tkeep.next = self.mac1.m_tkeep.val();
        self.arb.s1_tlast.next = self.mac1.m_tlast.val();
        self.rx_slice.s_tvalid.next = self.arb.m_tvalid.val();
        self.arb.m_tready.next = self.rx_slice.s_tready.val();
        self.rx_slice.s_tdata.next = self.arb.m_tdata.val();
        self.rx_slice.s_tkeep.next = self.arb.m_tkeep.val();
        self.rx_slice.s_tlast.next = self.arb.m_tlast.val();
        self.rxd.s_axis_wire_tvalid.next = self.rx_slice.m_tvalid.val();
        self.rx_slice.m_tready.next = self.rxd.s_axis_wire_tready.val();
        self.rxd.s_axis_wire_tdata.next = self.rx_slice.m_tdata.val();
        self.rxd.s_axis_wire_tkeep.next = self.rx_slice.m_tkeep.val();
        self.rxd.s_axis_wire_tlast.next = self.rx_slice.m_tlast.val();
        self.rxd.cfg_local_vni0.next = (bit_cast::<32, 24>(self.csr.cfg_local_vni0_vni.val())
            | (bit_cast::<32, 1>(self.csr.cfg_local_vni0_en.val()) << 31));
        self.rxd.cfg_local_vni1.next = (bit_cast::<32, 24>(self.csr.cfg_local_vni1_vni.val())
            | (bit_cast::<32, 1>(self.csr.cfg_local_vni1_en.val()) << 31));
        self.rxd.cfg_local_vni2.next = (bit_cast::<32, 24>(self.csr.cfg_local_vni2_vni.val())
            | (bit_cast::<32, 1>(self.csr.cfg_local_vni2_en.val()) << 31));
        self.rxd.cfg_local_vni3.next = (bit_cast::<32, 24>(self.csr.cfg_local_vni3_vni.val())
            | (bit_cast::<32, 1>(self.csr.cfg_local_vni3_en.val()) << 31));
        self.rxd.cfg_local_vni4.next = (bit_cast::<32, 24>(self.csr.cfg_local_vni4_vni.val())
            | (bit_cast::<32, 1>(self.csr.cfg_local_vni4_en.val()) << 31));
        self.rxd.cfg_local_vni5.next = (bit_cast::<32, 24>(self.csr.cfg_local_vni5_vni.val())
            | (bit_cast::<32, 1>(self.csr.cfg_local_vni5_en.val()) << 31));
        self.rxd.cfg_local_vni6.next = (bit_cast::<32, 24>(self.csr.cfg_local_vni6_vni.val())
            | (bit_cast::<32, 1>(self.csr.cfg_local_vni6_en.val()) << 31));
        self.rxd.cfg_local_vni7.next = (bit_cast::<32, 24>(self.csr.cfg_local_vni7_vni.val())
            | (bit_cast::<32, 1>(self.csr.cfg_local_vni7_en.val()) << 31));
        self.rxr.s_hdr_valid.next = self.rxd.m_hdr_valid.val();
        self.rxd.m_hdr_ready.next = self.rxr.s_hdr_ready.val();
        self.rxr.s_hdr_qp.next = self.rxd.m_hdr_qp.val();
        self.rxr.s_hdr_psn.next = self.rxd.m_hdr_psn.val();
        self.rxr.s_hdr_vni_slot.next = self.rxd.m_hdr_vni_slot.val();
        self.rxr.s_hdr_ack_req.next = self.rxd.m_hdr_ack_req.val();
        self.rxr.s_hdr_has_imm.next = self.rxd.m_hdr_has_imm.val();
        self.rxr.s_hdr_imm.next = self.rxd.m_hdr_imm.val();
        self.rxd.s_verdict_valid.next = self.rxr.m_verdict_valid.val();
        self.rxd.s_verdict_code.next = self.rxr.m_verdict_code.val();
        self.m_axis_place_tvalid.next = self.rxd.m_axis_place_tvalid.val();
        self.rxd.m_axis_place_tready.next = self.m_axis_place_tready.val();
        self.m_axis_place_tdata.next = self.rxd.m_axis_place_tdata.val();
        self.m_axis_place_tkeep.next = self.rxd.m_axis_place_tkeep.val();
        self.m_axis_place_tlast.next = self.rxd.m_axis_place_tlast.val();
        self.m_axis_place_tuser.next =
            (bit_cast::<PLACE_TUSER_BITS, 16>(self.rxd.m_place_qp.val())
                | (bit_cast::<PLACE_TUSER_BITS, 64>(self.rxd.m_place_va.val()) << 32)
                | (bit_cast::<PLACE_TUSER_BITS, 32>(self.rxd.m_place_rkey.val()) << 96)
                | (bit_cast::<PLACE_TUSER_BITS, 32>(self.rxd.m_place_len.val()) << 128));

        // Reorder windows: thresholds from CSR (a window above 256 acts as 256; a share
        // above 100% never requests), QP commands through QP_CMD.
        if (self.csr.cfg_reorder_window_psns.val() > 256) {
            self.window.d.next = 256.into();
        } else {
            self.window.d.next = self.csr.cfg_reorder_window_psns.val();
        }
        self.rxr.cfg_window.next = self.window.q.val();
        self.rxr.cfg_ooo_thresh.next = self.csr.cfg_reorder_thresh_ooo.val();
        if (self.csr.cfg_reorder_thresh_missing_pct.val() > 100) {
            self.rxr.cfg_miss_pct.next = 127.into();
        } else {
            self.rxr.cfg_miss_pct.next = self
                .csr
                .cfg_reorder_thresh_missing_pct
                .val()
                .get_bits::<7>(0);
        }
        self.rxr.cfg_loss_after.next = self.csr.cfg_reorder_thresh_loss_after.val();
        // Only OP = 1 is a command; any other value is ignored (as FT_CMD's unknown ops).
        if (self.csr.cmd_qp_cmd_valid.val() & self.csr.cmd_qp_cmd_op.val().any()) {
            self.qp_busy.d.next = true;
        } else if self.rxr.s_qp_ready.val() {
            self.qp_busy.d.next = false;
        }
        if self.rst_glue.q.val() {
            self.qp_busy.d.next = false;
        }
        self.rxr.s_qp_valid.next = self.qp_busy.q.val();
        self.rxr.s_qp_qp.next = self.csr.cfg_qp_id_qp.val();
        self.rxr.s_qp_enable.next = self.csr.cfg_qp_cfg_enable.val().any();
        self.rxr.s_qp_vni_slot.next = self.csr.cfg_qp_cfg_vni_slot.val();
        self.rxr.s_qp_psn.next = self.csr.cfg_qp_psn_psn.val();

        // Results to the host; rx_reorder waits while a queue is nearly full.
        self.rxr.m_hold.next = self.rxe.m_hold.val();
        self.rxe.s_qp.next = self.rxr.m_cqe_qp.val();
        self.rxe.s_verdict_valid.next = self.rxr.m_verdict_valid.val();
        self.rxe.s_verdict_place.next = (self.rxr.m_verdict_code.val() == 0);
        self.rxe.s_place_done.next = self.rxd.m_place_done.val();
        self.rxe.s_cqe0_valid.next = self.rxr.m_cqe0_valid.val();
        self.rxe.s_cqe0_psn.next = self.rxr.m_cqe0_psn.val();
        self.rxe.s_cqe0_imm.next = self.rxr.m_cqe0_imm.val();
        self.rxe.s_cqe1_valid.next = self.rxr.m_cqe1_valid.val();
        self.rxe.s_cqe1_psn.next = self.rxr.m_cqe1_psn.val();
        self.rxe.s_cqe1_imm.next = self.rxr.m_cqe1_imm.val();
        self.rxe.s_cqe2_valid.next = self.rxr.m_cqe2_valid.val();
        self.rxe.s_cqe2_psn.next = self.rxr.m_cqe2_psn.val();
        self.rxe.s_cqe2_imm.next = self.rxr.m_cqe2_imm.val();
        self.rxe.s_ack_valid.next = self.rxr.m_ack_valid.val();
        self.rxe.s_ack_psn.next = self.rxr.m_ack_psn.val();
        self.rxe.s_nak_valid.next = self.rxr.m_nak_valid.val();
        self.rxe.s_nak_psn.next = self.rxr.m_nak_psn.val();
        self.rxe.s_nak_missing.next = self.rxr.m_nak_missing.val();
        self.m_axis_cqe_tvalid.next = self.rxe.m_axis_cqe_tvalid.val();
        self.rxe.m_axis_cqe_tready.next = self.m_axis_cqe_tready.val();
        self.m_axis_cqe_tdata.next = self.rxe.m_axis_cqe_tdata.val();
        self.m_axis_ack_tvalid.next = self.rxe.m_axis_ack_tvalid.val();
        self.rxe.m_axis_ack_tready.next = self.m_axis_ack_tready.val();
        self.m_axis_ack_tdata.next = self.rxe.m_axis_ack_tdata.val();

        self.csr.hw_rx_status_clearing.next = self.rxr.status_clearing.val().into();
        self.csr.hw_rx_status_qp_busy.next = self.qp_busy.q.val().into();
        self.csr.hw_rx_status_event_overflow.next = self.rxe.status_overflow.val().into();
        self.csr.hw_cnt_rx_frames.next = bit_cast::<64, 32>(self.rxd.status_frames.val());
        self.csr.hw_cnt_rx_placed.next = bit_cast::<64, 32>(self.rxd.status_placed.val());
        self.csr.hw_cnt_rx_drop_bad_keep.next =
            bit_cast::<64, 32>(self.rxd.status_drop_bad_keep.val());
        self.csr.hw_cnt_rx_drop_too_long.next =
            bit_cast::<64, 32>(self.rxd.status_drop_too_long.val());
        self.csr.hw_cnt_rx_drop_truncated.next =
            bit_cast::<64, 32>(self.rxd.status_drop_truncated.val());
        self.csr.hw_cnt_rx_drop_not_ipv4.next =
            bit_cast::<64, 32>(self.rxd.status_drop_not_ipv4.val());
        self.csr.hw_cnt_rx_drop_bad_checksum.next =
            bit_cast::<64, 32>(self.rxd.status_drop_bad_checksum.val());
        self.csr.hw_cnt_rx_drop_bad_port.next =
            bit_cast::<64, 32>(self.rxd.status_drop_bad_port.val());
        self.csr.hw_cnt_rx_drop_bad_vxlan.next =
            bit_cast::<64, 32>(self.rxd.status_drop_bad_vxlan.val());
        self.csr.hw_cnt_rx_drop_unknown_vni.next =
            bit_cast::<64, 32>(self.rxd.status_drop_unknown_vni.val());
        self.csr.hw_cnt_rx_drop_bad_inner.next =
            bit_cast::<64, 32>(self.rxd.status_drop_bad_inner.val());
        self.csr.hw_cnt_rx_drop_bad_opcode.next =
            bit_cast::<64, 32>(self.rxd.status_drop_bad_opcode.val());
        self.csr.hw_cnt_rx_drop_bad_length.next =
            bit_cast::<64, 32>(self.rxd.status_drop_bad_length.val());
        self.csr.hw_cnt_rx_drop_bad_icrc.next =
            bit_cast::<64, 32>(self.rxd.status_drop_bad_icrc.val());
        self.csr.hw_cnt_rx_drop_refused.next =
            bit_cast::<64, 32>(self.rxd.status_drop_verdict.val());
        self.csr.hw_cnt_rx_reorder_duplicate.next =
            bit_cast::<64, 32>(self.rxr.status_duplicate.val());
        self.csr.hw_cnt_rx_reorder_beyond_window.next =
            bit_cast::<64, 32>(self.rxr.status_beyond_window.val());
        self.csr.hw_cnt_rx_reorder_unknown_qp.next =
            bit_cast::<64, 32>(self.rxr.status_unknown_qp.val());
        self.csr.hw_cnt_rx_reorder_bad_qp.next = bit_cast::<64, 32>(self.rxr.status_bad_qp.val());
        self.csr.hw_cnt_rx_reorder_imm_full.next =
            bit_cast::<64, 32>(self.rxr.status_imm_full.val());
        self.csr.hw_cnt_rx_cqes.next = bit_cast::<64, 32>(self.rxr.status_cqes.val());
        self.csr.hw_cnt_rx_acks.next = bit_cast::<64, 32>(self.rxr.status_acks.val());
        self.csr.hw_cnt_rx_naks.next = bit_cast::<64, 32>(self.rxr.status_naks.val());
        self.csr.hw_cnt_rx_port0_drop_full.next =
            bit_cast::<64, 32>(self.mac0.status_drop_full.val());
        self.csr.hw_cnt_rx_port0_drop_error.next =
            bit_cast::<64, 32>(self.mac0.status_drop_error.val());
        self.csr.hw_cnt_rx_port0_drop_long.next =
            bit_cast::<64, 32>(self.mac0.status_drop_long.val());
        self.csr.hw_cnt_rx_port1_drop_full.next =
            bit_cast::<64, 32>(self.mac1.status_drop_full.val());
        self.csr.hw_cnt_rx_port1_drop_error.next =
            bit_cast::<64, 32>(self.mac1.status_drop_error.val());
        self.csr.hw_cnt_rx_port1_drop_long.next =
            bit_cast::<64, 32>(self.mac1.status_drop_long.val());

        self.unused_cfg.next = (self.flow.m_result_tag.val().any()
            | self.rxr.m_verdict_qp.val().any()
            | self.rxr.m_verdict_psn.val().any()
            | self.rxr.status_placed.val().any()
            | self.arb.m_port.val()
            | self.ctx.m_send_credit.val().any()
            | self.ctx.m_credit_valid.val()
            | self.ctx.m_credit_qp.val().any()
            | self.ctx.m_credit_value.val().any()
            | self.ctx.m_credit_waiting.val()
            | self.ctx.status_starved.val()
            | self.crx.status_slots.val().any()
            // rx_decap's reply records (docs/reply-frames.md): replies still arrive on
            // the side channel until the sender side takes these.
            | self.rxd.m_reply_valid.val()
            | self.rxd.m_reply_kind.val().any()
            | self.rxd.m_reply_qp.val().any()
            | self.rxd.m_reply_vni_slot.val().any()
            | self.rxd.m_reply_psn.val().any()
            | self.rxd.m_reply_ack.val()
            | self.rxd.m_reply_ack_psn.val().any()
            | self.rxd.m_reply_bitmap.val().any()
            | self.rxd.status_replies.val().any());
    }
}
