//! `prnic_top` on two clocks, as a NIC shell runs it: the core on `clk_mac` and its host
//! side on the DMA engine's clock `clk_host`, through the generated crossings. Three
//! Verilator models run in lockstep on one time base:
//!
//! ```text
//!   host (clk_host)                                     core (clk_mac)
//!   s_axil_*  ─► axil_cdc  ─ m_axil_*  ────────────────► prnic_top s_axil_*
//!   s_axis_tx ─► host_cdc  ─ m_axis_core_tx ───────────► prnic_top s_axis_tx
//!   m_axis_place/cqe/ack ◄─ host_cdc ◄─ s_axis_core_* ◄─ prnic_top m_axis_place/cqe/ack
//!                                                        MAC and credit ports: `core`
//! ```
//!
//! The crossings' core-side outputs are flip-flops of `clk_mac` or logic of them and of
//! `prnic_top`'s outputs (the placement and CQE readies), and `prnic_top`'s outputs are
//! flip-flops, so the models are joined between `clk_mac` edges: at each one every model
//! samples what the others drove after the edge before, exactly as one netlist would. The MAC and credit ports are `core`'s own; drive them after a
//! `clk_mac` edge ([`TwoClockRnic::tick`] says which clocks rose).

use crate::bridge::{AxilCdc, Dut, HostCdc, PrnicTop};

/// 322.265625 MHz and 250 MHz, in ps: the MAC clock and a PCIe DMA engine's.
pub const MAC_PS: u64 = 3_103;
pub const HOST_PS: u64 = 4_000;

/// `prnic_top` with `host_cdc` and `axil_cdc` in front of its host side.
pub struct TwoClockRnic {
    pub core: PrnicTop,
    pub streams: HostCdc,
    pub csr: AxilCdc,
    host_edges: u64,
}

impl TwoClockRnic {
    /// Bit of [`TwoClockRnic::tick`]'s answer: `clk_host` rose.
    pub const HOST: u32 = 1;
    /// Bit of [`TwoClockRnic::tick`]'s answer: `clk_mac` rose.
    pub const MAC: u32 = 2;

    /// The three models on clocks of these periods (ps), reset, with the flow table's
    /// sweep done.
    pub fn new(host_ps: u64, mac_ps: u64) -> Self {
        Self::with_core(PrnicTop::new(), host_ps, mac_ps)
    }

    /// [`TwoClockRnic::new`] around a given core model (one that writes a waveform).
    pub fn with_core(core: PrnicTop, host_ps: u64, mac_ps: u64) -> Self {
        Self::with_models(core, HostCdc::new(), AxilCdc::new(), host_ps, mac_ps)
    }

    /// [`TwoClockRnic::new`] around given models (ones that write waveforms). Each
    /// writes its own trace; all three share one time base, in ps from the start
    /// (`prnic_top`'s `clk` rises 1 ps before `clk_mac` in the crossings' traces when
    /// the MAC period is odd).
    pub fn with_models(
        core: PrnicTop,
        mut streams: HostCdc,
        mut csr: AxilCdc,
        host_ps: u64,
        mac_ps: u64,
    ) -> Self {
        streams.set_clk_host_period_ps(host_ps);
        streams.set_clk_mac_period_ps(mac_ps);
        csr.set_clk_s_period_ps(host_ps);
        csr.set_clk_m_period_ps(mac_ps);
        let mut r = TwoClockRnic {
            core,
            streams,
            csr,
            host_edges: 0,
        };
        r.reset();
        r
    }

    /// Reset all three as a shell does from one asynchronous reset: held for a few
    /// edges of the slower clock, then released, and stepped until every block is out
    /// of reset and the flow table's sweep is over (polled over CSR, as software does).
    pub fn reset(&mut self) {
        use prnic_rtl::prnic_top::RESET_CYCLES;
        use prnic_verif::regs::{FT_STATUS, FT_STATUS_CLEARING_MASK};
        self.set_rst(true);
        self.edges(Self::HOST, 4);
        self.edges(Self::MAC, 4);
        self.set_rst(false);
        self.edges(Self::HOST, 4);
        self.edges(Self::MAC, RESET_CYCLES as u64 + 1);
        let mut polls = 0;
        loop {
            let (s, _) = crate::axil::read(self, FT_STATUS, 0).expect("CSR answers");
            if s & FT_STATUS_CLEARING_MASK == 0 {
                break;
            }
            polls += 1;
            assert!(polls < 10_000, "the flow table's sweep never ended");
            self.edges(Self::MAC, 512);
        }
    }

    fn set_rst(&mut self, on: bool) {
        self.core.set_rst(on as u64);
        self.streams.set_rst(on as u64);
        self.csr.set_rst(on as u64);
    }

    /// Step until `n` rising edges of `clock` ([`TwoClockRnic::HOST`] or `MAC`).
    pub fn edges(&mut self, clock: u32, n: u64) {
        let mut seen = 0;
        while seen < n {
            if self.tick() & clock != 0 {
                seen += 1;
            }
        }
    }

    /// Advance to the next rising edge of either clock; returns which rose
    /// ([`TwoClockRnic::HOST`], [`TwoClockRnic::MAC`], or both).
    pub fn tick(&mut self) -> u32 {
        let s = self.streams.tick();
        let c = self.csr.tick();
        let host = s & HostCdc::CLK_HOST != 0;
        let mac = s & HostCdc::CLK_MAC != 0;
        debug_assert_eq!(
            (host, mac),
            (c & AxilCdc::CLK_S != 0, c & AxilCdc::CLK_M != 0),
            "the crossings' clocks drifted apart"
        );
        if mac {
            // The core takes this edge on what the crossings drove after the last one
            // (set below then); then each side sees what the other now drives.
            self.core.step();
            self.join();
        }
        self.host_edges += host as u64;
        ((host as u32) * Self::HOST) | ((mac as u32) * Self::MAC)
    }

    /// Every net between the crossings and the core, both ways.
    fn join(&mut self) {
        let (s, c, k) = (&mut self.streams, &mut self.csr, &mut self.core);
        // TX frames: host_cdc to the core.
        k.set_s_axis_tx_tdata(&s.m_axis_core_tx_tdata());
        k.set_s_axis_tx_tkeep(&s.m_axis_core_tx_tkeep());
        k.set_s_axis_tx_tlast(s.m_axis_core_tx_tlast());
        k.set_s_axis_tx_tuser(s.m_axis_core_tx_tuser());
        k.set_s_axis_tx_tvalid(s.m_axis_core_tx_tvalid());
        s.set_m_axis_core_tx_tready(k.s_axis_tx_tready());
        // Placement, completions, ACK records: the core to host_cdc.
        s.set_s_axis_core_place_tdata(&k.m_axis_place_tdata());
        s.set_s_axis_core_place_tkeep(&k.m_axis_place_tkeep());
        s.set_s_axis_core_place_tlast(k.m_axis_place_tlast());
        s.set_s_axis_core_place_tuser(&k.m_axis_place_tuser());
        s.set_s_axis_core_place_tvalid(k.m_axis_place_tvalid());
        s.set_s_axis_core_cqe_tdata(&k.m_axis_cqe_tdata());
        s.set_s_axis_core_cqe_tvalid(k.m_axis_cqe_tvalid());
        s.set_s_axis_core_ack_tdata(&k.m_axis_ack_tdata());
        s.set_s_axis_core_ack_tvalid(k.m_axis_ack_tvalid());
        // Placement and CQEs share a FIFO: which has the slot depends on the CQE's
        // valid, so their readies are read after the crossing sees the offers.
        s.eval();
        k.set_m_axis_place_tready(s.s_axis_core_place_tready());
        k.set_m_axis_cqe_tready(s.s_axis_core_cqe_tready());
        k.set_m_axis_ack_tready(s.s_axis_core_ack_tready());
        // CSR: axil_cdc's master port to the core's slave port.
        k.set_s_axil_awaddr(c.m_axil_awaddr());
        k.set_s_axil_awvalid(c.m_axil_awvalid());
        k.set_s_axil_wdata(c.m_axil_wdata());
        k.set_s_axil_wstrb(c.m_axil_wstrb());
        k.set_s_axil_wvalid(c.m_axil_wvalid());
        k.set_s_axil_bready(c.m_axil_bready());
        k.set_s_axil_araddr(c.m_axil_araddr());
        k.set_s_axil_arvalid(c.m_axil_arvalid());
        k.set_s_axil_rready(c.m_axil_rready());
        c.set_m_axil_awready(k.s_axil_awready());
        c.set_m_axil_wready(k.s_axil_wready());
        c.set_m_axil_bresp(k.s_axil_bresp());
        c.set_m_axil_bvalid(k.s_axil_bvalid());
        c.set_m_axil_arready(k.s_axil_arready());
        c.set_m_axil_rdata(k.s_axil_rdata());
        c.set_m_axil_rresp(k.s_axil_rresp());
        c.set_m_axil_rvalid(k.s_axil_rvalid());
    }
}

/// One step is one `clk_host` edge: the host's view of the register port.
impl Dut for TwoClockRnic {
    fn step(&mut self) {
        self.edges(Self::HOST, 1);
    }
    fn cycle(&self) -> u64 {
        self.host_edges
    }
}
