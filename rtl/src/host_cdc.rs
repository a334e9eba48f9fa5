//! The crossings of `prnic_top`'s four host streams between the host's clock
//! (`clk_host`, the DMA engine's, 250 MHz in a Corundum-like shell) and the core clock
//! (`clk_mac`, the MAC's): tenant frames in, placed payload, completions and ACK records
//! out. Each beat is one [`AsyncFifo`] word (`tdata`, `tkeep`, `tlast` and `tuser`
//! together); the two domains are reset by one [`ResetSync`] each from one reset.
//!
//! ```text
//!          clk_host (host)                 |                 clk_mac (core)
//!  s_axis_tx_*    ─► AsyncFifo, 32 beats ──┼─► m_axis_core_tx_*     ─► prnic_top s_axis_tx_*
//!  m_axis_place_* ◄┬ AsyncFifo, 32 words ◄─┼─┬ s_axis_core_place_*  ◄─ prnic_top m_axis_place_*
//!  m_axis_cqe_*   ◄┘  (beats and CQEs)     | └ s_axis_core_cqe_*    ◄─ prnic_top m_axis_cqe_*
//!  m_axis_ack_*   ◄─ AsyncFifo,  8 words ◄─┼── s_axis_core_ack_*    ◄─ prnic_top m_axis_ack_*
//! ```
//!
//! **Completions stay behind their data.** `prnic_top` raises a CQE only once its data
//! has left on `m_axis_place`; a host must likewise never see a CQE before the data it
//! completes (its DMA would signal a completion for memory not yet written). Two
//! crossings would lose that order, each with its own latency, so placement beats and
//! CQEs share one FIFO, a type bit on top of each word, and the host side hands each
//! word to its own stream. On the core side a placement beat goes first, but a CQE that
//! has waited a cycle goes before the next beat: the data a CQE completes left
//! `prnic_top` no later than the CQE's first cycle, when beats still had the slot, so it
//! is ahead in the FIFO; and a CQE waits at most one cycle behind a stream of beats.
//! The host must take CQEs without waiting for a later placement (a CQE at the head
//! holds the beats behind it), as it already must for `prnic_top`, whose CQE queue
//! holds the receive path when full.
//!
//! Every host-side output and the TX and ACK crossings' core-side outputs are registers
//! of their own domain (the FIFOs' `s_ready`, `m_valid` and `m_data`); the core-side
//! readies of placement and CQEs also depend on `s_axis_core_cqe_tvalid` (which of the
//! two has the slot). Only the FIFOs' Gray pointers cross through synchronizers and the
//! words through their memories (the CDC gate checks this on the netlist). The frame
//! FIFOs hold 32 words, the ACK FIFO 8: both cover the round trip of the pointers, so
//! each runs at the slower clock's full rate (the `AsyncFifo` tests measure 8 words
//! against 4). The CSR port crosses in its own block, `axil_cdc`.

use crate::cdc::{AsyncFifo, ResetSync};
use crate::prnic_top::PLACE_TUSER_BITS;
use crate::tx_encap::TUSER_BITS;
use rust_hdl::prelude::*;

/// Bits of a completion record (`m_axis_cqe_tdata`).
pub const CQE_BITS: usize = 128;
/// Bits of an ACK or retransmission-request record (`m_axis_ack_tdata`).
pub const ACK_BITS: usize = 384;

/// The FIFO word of a host TX beat: `D` + `K` + 1 + [`TUSER_BITS`].
pub const fn tx_word_bits(d: usize, k: usize) -> usize {
    d + k + 1 + TUSER_BITS
}

/// The FIFO word of a placement beat or a CQE: `D` + `K` + 1 + [`PLACE_TUSER_BITS`],
/// and the type bit on top (1: a CQE in the low [`CQE_BITS`]).
pub const fn place_word_bits(d: usize, k: usize) -> usize {
    d + k + 1 + PLACE_TUSER_BITS + 1
}

/// The host streams of `prnic_top` between `clk_host` and `clk_mac`. `D`/`K`: the bus
/// width and its keep bits; `WT` = [`tx_word_bits`]`(D, K)`, `WP` =
/// [`place_word_bits`]`(D, K)`. `rst` is asynchronous and active high; hold it for at
/// least [`crate::cdc::RESET_SYNC_STAGES`] + 1 edges of the slower clock. Beats in the
/// FIFOs are lost at a reset.
///
/// ### Ports
/// * `clk_host`, `clk_mac`, `rst`
/// * `s_axis_tx_*` (`clk_host`) to `m_axis_core_tx_*` (`clk_mac`): tdata, tkeep, tlast,
///   tuser `{QP, VNI}`.
/// * `s_axis_core_place_*` (`clk_mac`) to `m_axis_place_*` (`clk_host`): tdata, tkeep,
///   tlast, tuser (the placement command).
/// * `s_axis_core_cqe_*` to `m_axis_cqe_*` (through the placement FIFO, in order with
///   it), `s_axis_core_ack_*` to `m_axis_ack_*`: tdata only.
#[derive(LogicBlock)]
pub struct HostCdc<const D: usize, const K: usize, const WT: usize, const WP: usize> {
    pub clk_host: Signal<In, Clock>,
    pub clk_mac: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub s_axis_tx_tdata: Signal<In, Bits<D>>,
    pub s_axis_tx_tkeep: Signal<In, Bits<K>>,
    pub s_axis_tx_tvalid: Signal<In, Bit>,
    pub s_axis_tx_tready: Signal<Out, Bit>,
    pub s_axis_tx_tlast: Signal<In, Bit>,
    pub s_axis_tx_tuser: Signal<In, Bits<TUSER_BITS>>,
    pub m_axis_core_tx_tdata: Signal<Out, Bits<D>>,
    pub m_axis_core_tx_tkeep: Signal<Out, Bits<K>>,
    pub m_axis_core_tx_tvalid: Signal<Out, Bit>,
    pub m_axis_core_tx_tready: Signal<In, Bit>,
    pub m_axis_core_tx_tlast: Signal<Out, Bit>,
    pub m_axis_core_tx_tuser: Signal<Out, Bits<TUSER_BITS>>,
    pub s_axis_core_place_tdata: Signal<In, Bits<D>>,
    pub s_axis_core_place_tkeep: Signal<In, Bits<K>>,
    pub s_axis_core_place_tvalid: Signal<In, Bit>,
    pub s_axis_core_place_tready: Signal<Out, Bit>,
    pub s_axis_core_place_tlast: Signal<In, Bit>,
    pub s_axis_core_place_tuser: Signal<In, Bits<PLACE_TUSER_BITS>>,
    pub m_axis_place_tdata: Signal<Out, Bits<D>>,
    pub m_axis_place_tkeep: Signal<Out, Bits<K>>,
    pub m_axis_place_tvalid: Signal<Out, Bit>,
    pub m_axis_place_tready: Signal<In, Bit>,
    pub m_axis_place_tlast: Signal<Out, Bit>,
    pub m_axis_place_tuser: Signal<Out, Bits<PLACE_TUSER_BITS>>,
    pub s_axis_core_cqe_tdata: Signal<In, Bits<CQE_BITS>>,
    pub s_axis_core_cqe_tvalid: Signal<In, Bit>,
    pub s_axis_core_cqe_tready: Signal<Out, Bit>,
    pub m_axis_cqe_tdata: Signal<Out, Bits<CQE_BITS>>,
    pub m_axis_cqe_tvalid: Signal<Out, Bit>,
    pub m_axis_cqe_tready: Signal<In, Bit>,
    pub s_axis_core_ack_tdata: Signal<In, Bits<ACK_BITS>>,
    pub s_axis_core_ack_tvalid: Signal<In, Bit>,
    pub s_axis_core_ack_tready: Signal<Out, Bit>,
    pub m_axis_ack_tdata: Signal<Out, Bits<ACK_BITS>>,
    pub m_axis_ack_tvalid: Signal<Out, Bit>,
    pub m_axis_ack_tready: Signal<In, Bit>,
    host_reset: ResetSync,
    mac_reset: ResetSync,
    tx: AsyncFifo<WT, 5, 6>,
    place: AsyncFifo<WP, 5, 6>,
    ack: AsyncFifo<ACK_BITS, 3, 4>,
    /// Where `tdata`, `tuser` and the type bit sit in a frame word (`tlast` is bit 0,
    /// `tkeep` the next `K`).
    data_at: Constant<Bits<16>>,
    user_at: Constant<Bits<16>>,
    type_at: Constant<Bits<16>>,
    /// Core side: a CQE was offered last cycle and not taken; it goes first now.
    cqe_waited: DFF<Bit>,
    cqe_first: Signal<Local, Bit>,
    beat_go: Signal<Local, Bit>,
    cqe_go: Signal<Local, Bit>,
    /// Host side: the head word's type bit; the head is a CQE.
    head_type: Signal<Local, Bits<1>>,
    head_cqe: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize, const WT: usize, const WP: usize> HostCdc<D, K, WT, WP> {
    /// RAM bits of the TX, placement and ACK FIFOs.
    pub const RAM_BITS: usize = AsyncFifo::<WT, 5, 6>::RAM_BITS
        + AsyncFifo::<WP, 5, 6>::RAM_BITS
        + AsyncFifo::<ACK_BITS, 3, 4>::RAM_BITS;

    /// `name`: the prefix of the synchronizer modules (unique in the design).
    pub fn new(name: &str) -> Self {
        assert!(
            WT == tx_word_bits(D, K) && WP == place_word_bits(D, K),
            "HostCdc<{D}, {K}, {WT}, {WP}>"
        );
        Self {
            clk_host: Default::default(),
            clk_mac: Default::default(),
            rst: Default::default(),
            s_axis_tx_tdata: Default::default(),
            s_axis_tx_tkeep: Default::default(),
            s_axis_tx_tvalid: Default::default(),
            s_axis_tx_tready: Default::default(),
            s_axis_tx_tlast: Default::default(),
            s_axis_tx_tuser: Default::default(),
            m_axis_core_tx_tdata: Default::default(),
            m_axis_core_tx_tkeep: Default::default(),
            m_axis_core_tx_tvalid: Default::default(),
            m_axis_core_tx_tready: Default::default(),
            m_axis_core_tx_tlast: Default::default(),
            m_axis_core_tx_tuser: Default::default(),
            s_axis_core_place_tdata: Default::default(),
            s_axis_core_place_tkeep: Default::default(),
            s_axis_core_place_tvalid: Default::default(),
            s_axis_core_place_tready: Default::default(),
            s_axis_core_place_tlast: Default::default(),
            s_axis_core_place_tuser: Default::default(),
            m_axis_place_tdata: Default::default(),
            m_axis_place_tkeep: Default::default(),
            m_axis_place_tvalid: Default::default(),
            m_axis_place_tready: Default::default(),
            m_axis_place_tlast: Default::default(),
            m_axis_place_tuser: Default::default(),
            s_axis_core_cqe_tdata: Default::default(),
            s_axis_core_cqe_tvalid: Default::default(),
            s_axis_core_cqe_tready: Default::default(),
            m_axis_cqe_tdata: Default::default(),
            m_axis_cqe_tvalid: Default::default(),
            m_axis_cqe_tready: Default::default(),
            s_axis_core_ack_tdata: Default::default(),
            s_axis_core_ack_tvalid: Default::default(),
            s_axis_core_ack_tready: Default::default(),
            m_axis_ack_tdata: Default::default(),
            m_axis_ack_tvalid: Default::default(),
            m_axis_ack_tready: Default::default(),
            host_reset: ResetSync::new(&format!("{name}_host_reset")),
            mac_reset: ResetSync::new(&format!("{name}_mac_reset")),
            tx: AsyncFifo::new(&format!("{name}_tx")),
            place: AsyncFifo::new(&format!("{name}_place")),
            ack: AsyncFifo::new(&format!("{name}_ack")),
            data_at: Constant::new(((K + 1) as u64).into()),
            user_at: Constant::new(((D + K + 1) as u64).into()),
            type_at: Constant::new(((WP - 1) as u64).into()),
            cqe_waited: Default::default(),
            cqe_first: Default::default(),
            beat_go: Default::default(),
            cqe_go: Default::default(),
            head_type: Default::default(),
            head_cqe: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const WT: usize, const WP: usize> Logic
    for HostCdc<D, K, WT, WP>
{
    #[hdl_gen]
    fn update(&mut self) {
        self.host_reset.clock.next = self.clk_host.val();
        self.host_reset.arst.next = self.rst.val();
        self.mac_reset.clock.next = self.clk_mac.val();
        self.mac_reset.arst.next = self.rst.val();
        // TX: host writes, core reads.
        self.tx.s_clk.next = self.clk_host.val();
        self.tx.s_rst.next = self.host_reset.rst.val();
        self.tx.m_clk.next = self.clk_mac.val();
        self.tx.m_rst.next = self.mac_reset.rst.val();
        // Placement and completions, ACKs: core writes, host reads.
        self.place.s_clk.next = self.clk_mac.val();
        self.place.s_rst.next = self.mac_reset.rst.val();
        self.place.m_clk.next = self.clk_host.val();
        self.place.m_rst.next = self.host_reset.rst.val();
        self.cqe_waited.clock.next = self.clk_mac.val();
        self.ack.s_clk.next = self.clk_mac.val();
        self.ack.s_rst.next = self.mac_reset.rst.val();
        self.ack.m_clk.next = self.clk_host.val();
        self.ack.m_rst.next = self.host_reset.rst.val();

        // A frame beat is one word: {tuser, tdata, tkeep, tlast}.
        self.tx.s_data.next = (bit_cast::<WT, TUSER_BITS>(self.s_axis_tx_tuser.val())
            << self.user_at.val())
            | (bit_cast::<WT, D>(self.s_axis_tx_tdata.val()) << self.data_at.val())
            | (bit_cast::<WT, K>(self.s_axis_tx_tkeep.val()) << 1)
            | bit_cast::<WT, 1>(self.s_axis_tx_tlast.val().into());
        self.tx.s_valid.next = self.s_axis_tx_tvalid.val();
        self.s_axis_tx_tready.next = self.tx.s_ready.val();
        self.m_axis_core_tx_tuser.next =
            bit_cast::<TUSER_BITS, WT>(self.tx.m_data.val() >> self.user_at.val());
        self.m_axis_core_tx_tdata.next =
            bit_cast::<D, WT>(self.tx.m_data.val() >> self.data_at.val());
        self.m_axis_core_tx_tkeep.next = bit_cast::<K, WT>(self.tx.m_data.val() >> 1);
        self.m_axis_core_tx_tlast.next = self.tx.m_data.val().get_bit(0);
        self.m_axis_core_tx_tvalid.next = self.tx.m_valid.val();
        self.tx.m_ready.next = self.m_axis_core_tx_tready.val();

        // Placement beats and CQEs, one FIFO: a beat has the slot unless a CQE has
        // waited a cycle.
        self.cqe_first.next = self.s_axis_core_cqe_tvalid.val() & self.cqe_waited.q.val();
        self.beat_go.next = self.s_axis_core_place_tvalid.val() & !self.cqe_first.val();
        self.cqe_go.next = self.s_axis_core_cqe_tvalid.val() & !self.beat_go.val();
        self.place.s_data.next =
            (bit_cast::<WP, PLACE_TUSER_BITS>(self.s_axis_core_place_tuser.val())
                << self.user_at.val())
                | (bit_cast::<WP, D>(self.s_axis_core_place_tdata.val()) << self.data_at.val())
                | (bit_cast::<WP, K>(self.s_axis_core_place_tkeep.val()) << 1)
                | bit_cast::<WP, 1>(self.s_axis_core_place_tlast.val().into());
        if self.cqe_go.val() {
            self.place.s_data.next = (bit_cast::<WP, 1>(true.into()) << self.type_at.val())
                | bit_cast::<WP, CQE_BITS>(self.s_axis_core_cqe_tdata.val());
        }
        self.place.s_valid.next = self.beat_go.val() | self.cqe_go.val();
        self.s_axis_core_place_tready.next = self.place.s_ready.val() & !self.cqe_first.val();
        self.s_axis_core_cqe_tready.next = self.place.s_ready.val() & !self.beat_go.val();
        self.cqe_waited.d.next =
            self.s_axis_core_cqe_tvalid.val() & !(self.cqe_go.val() & self.place.s_ready.val());
        if self.mac_reset.rst.val() {
            self.cqe_waited.d.next = false;
        }
        // Host side: the head word goes to its own stream.
        self.head_type.next = bit_cast::<1, WP>(self.place.m_data.val() >> self.type_at.val());
        self.head_cqe.next = self.head_type.val().any();
        self.m_axis_place_tuser.next =
            bit_cast::<PLACE_TUSER_BITS, WP>(self.place.m_data.val() >> self.user_at.val());
        self.m_axis_place_tdata.next =
            bit_cast::<D, WP>(self.place.m_data.val() >> self.data_at.val());
        self.m_axis_place_tkeep.next = bit_cast::<K, WP>(self.place.m_data.val() >> 1);
        self.m_axis_place_tlast.next = self.place.m_data.val().get_bit(0);
        self.m_axis_place_tvalid.next = self.place.m_valid.val() & !self.head_cqe.val();
        self.m_axis_cqe_tdata.next = bit_cast::<CQE_BITS, WP>(self.place.m_data.val());
        self.m_axis_cqe_tvalid.next = self.place.m_valid.val() & self.head_cqe.val();
        self.place.m_ready.next = self.m_axis_place_tready.val();
        if self.head_cqe.val() {
            self.place.m_ready.next = self.m_axis_cqe_tready.val();
        }

        // ACK records: the word is the record.
        self.ack.s_data.next = self.s_axis_core_ack_tdata.val();
        self.ack.s_valid.next = self.s_axis_core_ack_tvalid.val();
        self.s_axis_core_ack_tready.next = self.ack.s_ready.val();
        self.m_axis_ack_tdata.next = self.ack.m_data.val();
        self.m_axis_ack_tvalid.next = self.ack.m_valid.val();
        self.ack.m_ready.next = self.m_axis_ack_tready.val();
    }
}
