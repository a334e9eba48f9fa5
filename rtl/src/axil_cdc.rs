//! The AXI4-Lite crossing of the register port: a host (`clk_s`) reaches the CSR block
//! on the core clock (`clk_m`) through two [`AsyncFifo`]s of 4 words, one per direction,
//! with a [`ResetSync`] per domain from one reset.
//!
//! ```text
//!        clk_s (host)                          |            clk_m (core)
//!  AW+W or AR ─► one request word ─► AsyncFifo ┼─► head word ─► m_axil AW+W or AR
//!  B or R ◄──── response word ◄──── AsyncFifo ◄┼── B or R (resp, rdata) ◄─ m_axil B / R
//! ```
//!
//! One transaction is in flight at a time, as a CSR port needs. The host side holds
//! each of AW, W and AR in a register once its handshake is done; its ready is that
//! register's "empty", so `s_axil_awready`, `s_axil_wready` and `s_axil_arready` depend
//! on no input of the same edge (a registered boundary: nothing combinational from an
//! input port to an output port). A write goes into the crossing once both AW and W are
//! held, a read once AR is; the next goes after the host has taken the response. The
//! request word stays at the head of its FIFO (a register of `clk_m`) until the core
//! side has its response, so the core-side AW, W and AR come straight from flip-flops
//! and are held, as AXI requires, until each handshake. Responses (`OKAY`, `SLVERR`,
//! read data) cross back unchanged. Only the FIFOs' Gray pointers cross through
//! synchronizers and the words through their memories; nothing else crosses (the CDC
//! gate checks this on the netlist).
//!
//! A write held whole goes before a read held at the same time; a read still goes while
//! AW waits for its W. Round trip: one host edge to hold the request, about 4 core edges
//! for it to appear, then the core's
//! own latency, then about 4 host edges for the response.

use crate::cdc::{AsyncFifo, ResetSync};
use rust_hdl::prelude::*;

/// Address bits of the register port (`prnic_top`'s `s_axil_*addr`).
pub const AXIL_ADDR_BITS: usize = 12;
/// Request word: `we` (bit 0), address, write data, write strobes.
const REQ_BITS: usize = 1 + AXIL_ADDR_BITS + 32 + 4;
/// Response word: `resp` (bits 1:0), read data.
const RSP_BITS: usize = 2 + 32;

/// AXI4-Lite from `clk_s` (slave port `s_axil_*`) to `clk_m` (master port `m_axil_*`).
/// `rst` is asynchronous and active high; hold it for at least
/// [`crate::cdc::RESET_SYNC_STAGES`] + 1 edges of the slower clock. A transaction cut by
/// a reset is lost on both sides: the host must not have one open across it.
///
/// ### Ports
/// * `clk_s`, `clk_m`, `rst`
/// * `s_axil_aw*`, `s_axil_w*`, `s_axil_b*`, `s_axil_ar*`, `s_axil_r*` (`clk_s`): every
///   ready and valid comes from registers; no output depends on an input of the same
///   edge.
/// * `m_axil_*` (`clk_m`): valids, addresses and write data are registers.
#[derive(LogicBlock)]
pub struct AxilCdc {
    pub clk_s: Signal<In, Clock>,
    pub clk_m: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub s_axil_awaddr: Signal<In, Bits<AXIL_ADDR_BITS>>,
    pub s_axil_awvalid: Signal<In, Bit>,
    pub s_axil_awready: Signal<Out, Bit>,
    pub s_axil_wdata: Signal<In, Bits<32>>,
    pub s_axil_wstrb: Signal<In, Bits<4>>,
    pub s_axil_wvalid: Signal<In, Bit>,
    pub s_axil_wready: Signal<Out, Bit>,
    pub s_axil_bresp: Signal<Out, Bits<2>>,
    pub s_axil_bvalid: Signal<Out, Bit>,
    pub s_axil_bready: Signal<In, Bit>,
    pub s_axil_araddr: Signal<In, Bits<AXIL_ADDR_BITS>>,
    pub s_axil_arvalid: Signal<In, Bit>,
    pub s_axil_arready: Signal<Out, Bit>,
    pub s_axil_rdata: Signal<Out, Bits<32>>,
    pub s_axil_rresp: Signal<Out, Bits<2>>,
    pub s_axil_rvalid: Signal<Out, Bit>,
    pub s_axil_rready: Signal<In, Bit>,
    pub m_axil_awaddr: Signal<Out, Bits<AXIL_ADDR_BITS>>,
    pub m_axil_awvalid: Signal<Out, Bit>,
    pub m_axil_awready: Signal<In, Bit>,
    pub m_axil_wdata: Signal<Out, Bits<32>>,
    pub m_axil_wstrb: Signal<Out, Bits<4>>,
    pub m_axil_wvalid: Signal<Out, Bit>,
    pub m_axil_wready: Signal<In, Bit>,
    pub m_axil_bresp: Signal<In, Bits<2>>,
    pub m_axil_bvalid: Signal<In, Bit>,
    pub m_axil_bready: Signal<Out, Bit>,
    pub m_axil_araddr: Signal<Out, Bits<AXIL_ADDR_BITS>>,
    pub m_axil_arvalid: Signal<Out, Bit>,
    pub m_axil_arready: Signal<In, Bit>,
    pub m_axil_rdata: Signal<In, Bits<32>>,
    pub m_axil_rresp: Signal<In, Bits<2>>,
    pub m_axil_rvalid: Signal<In, Bit>,
    pub m_axil_rready: Signal<Out, Bit>,
    s_reset: ResetSync,
    m_reset: ResetSync,
    req: AsyncFifo<REQ_BITS, 2, 3>,
    rsp: AsyncFifo<RSP_BITS, 2, 3>,
    // Host side: AW, W and AR held after their handshakes; a transaction is out, and
    // whether it is a write.
    aw_held: DFF<Bit>,
    aw_addr: DFF<Bits<AXIL_ADDR_BITS>>,
    w_held: DFF<Bit>,
    w_data: DFF<Bits<32>>,
    w_strb: DFF<Bits<4>>,
    ar_held: DFF<Bit>,
    ar_addr: DFF<Bits<AXIL_ADDR_BITS>>,
    busy: DFF<Bit>,
    out_we: DFF<Bit>,
    take_w: Signal<Local, Bit>,
    take_r: Signal<Local, Bit>,
    addr: Signal<Local, Bits<AXIL_ADDR_BITS>>,
    b_fire: Signal<Local, Bit>,
    r_fire: Signal<Local, Bit>,
    // Core side: which handshakes of the head request are done.
    aw_done: DFF<Bit>,
    w_done: DFF<Bit>,
    ar_done: DFF<Bit>,
    head_we: Signal<Local, Bit>,
    mb_fire: Signal<Local, Bit>,
    mr_fire: Signal<Local, Bit>,
}

impl AxilCdc {
    /// RAM bits of the request and response FIFOs.
    pub const RAM_BITS: usize =
        AsyncFifo::<REQ_BITS, 2, 3>::RAM_BITS + AsyncFifo::<RSP_BITS, 2, 3>::RAM_BITS;

    /// `name`: the prefix of the synchronizer modules (unique in the design).
    pub fn new(name: &str) -> Self {
        Self {
            clk_s: Default::default(),
            clk_m: Default::default(),
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
            m_axil_awaddr: Default::default(),
            m_axil_awvalid: Default::default(),
            m_axil_awready: Default::default(),
            m_axil_wdata: Default::default(),
            m_axil_wstrb: Default::default(),
            m_axil_wvalid: Default::default(),
            m_axil_wready: Default::default(),
            m_axil_bresp: Default::default(),
            m_axil_bvalid: Default::default(),
            m_axil_bready: Default::default(),
            m_axil_araddr: Default::default(),
            m_axil_arvalid: Default::default(),
            m_axil_arready: Default::default(),
            m_axil_rdata: Default::default(),
            m_axil_rresp: Default::default(),
            m_axil_rvalid: Default::default(),
            m_axil_rready: Default::default(),
            s_reset: ResetSync::new(&format!("{name}_s_reset")),
            m_reset: ResetSync::new(&format!("{name}_m_reset")),
            req: AsyncFifo::new(&format!("{name}_req")),
            rsp: AsyncFifo::new(&format!("{name}_rsp")),
            aw_held: Default::default(),
            aw_addr: Default::default(),
            w_held: Default::default(),
            w_data: Default::default(),
            w_strb: Default::default(),
            ar_held: Default::default(),
            ar_addr: Default::default(),
            busy: Default::default(),
            out_we: Default::default(),
            take_w: Default::default(),
            take_r: Default::default(),
            addr: Default::default(),
            b_fire: Default::default(),
            r_fire: Default::default(),
            aw_done: Default::default(),
            w_done: Default::default(),
            ar_done: Default::default(),
            head_we: Default::default(),
            mb_fire: Default::default(),
            mr_fire: Default::default(),
        }
    }
}

impl Logic for AxilCdc {
    #[hdl_gen]
    fn update(&mut self) {
        self.s_reset.clock.next = self.clk_s.val();
        self.s_reset.arst.next = self.rst.val();
        self.m_reset.clock.next = self.clk_m.val();
        self.m_reset.arst.next = self.rst.val();
        self.req.s_clk.next = self.clk_s.val();
        self.req.s_rst.next = self.s_reset.rst.val();
        self.req.m_clk.next = self.clk_m.val();
        self.req.m_rst.next = self.m_reset.rst.val();
        self.rsp.s_clk.next = self.clk_m.val();
        self.rsp.s_rst.next = self.m_reset.rst.val();
        self.rsp.m_clk.next = self.clk_s.val();
        self.rsp.m_rst.next = self.s_reset.rst.val();
        dff_setup!(self, clk_s, aw_held, aw_addr, w_held, w_data, w_strb, ar_held, ar_addr);
        dff_setup!(self, clk_s, busy, out_we);
        dff_setup!(self, clk_m, aw_done, w_done, ar_done);

        // Host side. Each channel is taken into its holding register while that is
        // empty (and not in reset); the readies are those registers, nothing else.
        self.s_axil_awready.next = !self.aw_held.q.val() & !self.s_reset.rst.val();
        self.s_axil_wready.next = !self.w_held.q.val() & !self.s_reset.rst.val();
        self.s_axil_arready.next = !self.ar_held.q.val() & !self.s_reset.rst.val();
        if self.s_axil_awvalid.val() & self.s_axil_awready.val() {
            self.aw_held.d.next = true;
            self.aw_addr.d.next = self.s_axil_awaddr.val();
        }
        if self.s_axil_wvalid.val() & self.s_axil_wready.val() {
            self.w_held.d.next = true;
            self.w_data.d.next = self.s_axil_wdata.val();
            self.w_strb.d.next = self.s_axil_wstrb.val();
        }
        if self.s_axil_arvalid.val() & self.s_axil_arready.val() {
            self.ar_held.d.next = true;
            self.ar_addr.d.next = self.s_axil_araddr.val();
        }
        // A held write (AW and W both) goes first; a held read goes when no write can.
        self.take_w.next = !self.busy.q.val()
            & self.req.s_ready.val()
            & self.aw_held.q.val()
            & self.w_held.q.val();
        self.take_r.next = !self.busy.q.val()
            & self.req.s_ready.val()
            & self.ar_held.q.val()
            & !(self.aw_held.q.val() & self.w_held.q.val());
        self.req.s_valid.next = self.take_w.val() | self.take_r.val();
        // {wstrb, wdata, addr, we}; a read carries its address in the same field.
        self.addr.next = self.ar_addr.q.val();
        if self.take_w.val() {
            self.addr.next = self.aw_addr.q.val();
        }
        self.req.s_data.next = (bit_cast::<REQ_BITS, 4>(self.w_strb.q.val()) << 45)
            | (bit_cast::<REQ_BITS, 32>(self.w_data.q.val()) << 13)
            | (bit_cast::<REQ_BITS, AXIL_ADDR_BITS>(self.addr.val()) << 1)
            | bit_cast::<REQ_BITS, 1>(self.take_w.val().into());
        // The response comes back as the head of `rsp`, held until the host takes it.
        self.s_axil_bvalid.next = self.rsp.m_valid.val() & self.out_we.q.val();
        self.s_axil_rvalid.next = self.rsp.m_valid.val() & !self.out_we.q.val();
        self.s_axil_bresp.next = self.rsp.m_data.val().get_bits::<2>(0);
        self.s_axil_rresp.next = self.rsp.m_data.val().get_bits::<2>(0);
        self.s_axil_rdata.next = self.rsp.m_data.val().get_bits::<32>(2);
        self.b_fire.next = self.s_axil_bvalid.val() & self.s_axil_bready.val();
        self.r_fire.next = self.s_axil_rvalid.val() & self.s_axil_rready.val();
        self.rsp.m_ready.next = self.b_fire.val() | self.r_fire.val();
        if self.take_w.val() | self.take_r.val() {
            self.busy.d.next = true;
            self.out_we.d.next = self.take_w.val();
        }
        if self.b_fire.val() {
            self.busy.d.next = false;
            self.aw_held.d.next = false;
            self.w_held.d.next = false;
        }
        if self.r_fire.val() {
            self.busy.d.next = false;
            self.ar_held.d.next = false;
        }
        if self.s_reset.rst.val() {
            self.busy.d.next = false;
            self.aw_held.d.next = false;
            self.w_held.d.next = false;
            self.ar_held.d.next = false;
        }

        // Core side: the head request drives AW/W or AR until each handshake, then waits
        // for B or R, pushes the response and pops the request.
        self.head_we.next = self.req.m_valid.val() & self.req.m_data.val().get_bit(0);
        self.m_axil_awaddr.next = self.req.m_data.val().get_bits::<AXIL_ADDR_BITS>(1);
        self.m_axil_araddr.next = self.req.m_data.val().get_bits::<AXIL_ADDR_BITS>(1);
        self.m_axil_wdata.next = self.req.m_data.val().get_bits::<32>(13);
        self.m_axil_wstrb.next = self.req.m_data.val().get_bits::<4>(45);
        self.m_axil_awvalid.next = self.head_we.val() & !self.aw_done.q.val();
        self.m_axil_wvalid.next = self.head_we.val() & !self.w_done.q.val();
        self.m_axil_arvalid.next =
            self.req.m_valid.val() & !self.req.m_data.val().get_bit(0) & !self.ar_done.q.val();
        self.m_axil_bready.next = self.head_we.val() & self.rsp.s_ready.val();
        self.m_axil_rready.next =
            (self.req.m_valid.val() & !self.req.m_data.val().get_bit(0)) & self.rsp.s_ready.val();
        self.mb_fire.next = self.m_axil_bvalid.val() & self.m_axil_bready.val();
        self.mr_fire.next = self.m_axil_rvalid.val() & self.m_axil_rready.val();
        self.rsp.s_valid.next = self.mb_fire.val() | self.mr_fire.val();
        self.rsp.s_data.next = bit_cast::<RSP_BITS, 2>(self.m_axil_bresp.val());
        if self.mr_fire.val() {
            self.rsp.s_data.next = (bit_cast::<RSP_BITS, 32>(self.m_axil_rdata.val()) << 2)
                | bit_cast::<RSP_BITS, 2>(self.m_axil_rresp.val());
        }
        self.req.m_ready.next = self.mb_fire.val() | self.mr_fire.val();
        if self.m_axil_awvalid.val() & self.m_axil_awready.val() {
            self.aw_done.d.next = true;
        }
        if self.m_axil_wvalid.val() & self.m_axil_wready.val() {
            self.w_done.d.next = true;
        }
        if self.m_axil_arvalid.val() & self.m_axil_arready.val() {
            self.ar_done.d.next = true;
        }
        if self.mb_fire.val() | self.mr_fire.val() | self.m_reset.rst.val() {
            self.aw_done.d.next = false;
            self.w_done.d.next = false;
            self.ar_done.d.next = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::write_strobed;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    /// The slave answers SLVERR at and above this address.
    const SLVERR_FROM: u64 = 0x800;

    /// rust-hdl's simulator: a host on `clk_s` writes and reads back, with random gaps,
    /// a register-file slave on `clk_m` with random stalls on every channel. The host
    /// keeps its own copy of what the registers must hold (writes with strobes, one at a
    /// time), so every read is checked against that, not against the slave; `SLVERR`
    /// comes back exactly from 0x800 up. Returns the transactions completed.
    fn run(half_s: u64, half_m: u64, p_host: u64, p_slave: u64, n: u64) -> u64 {
        let mut uut = AxilCdc::new("t");
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_clock(half_s, |x: &mut Box<AxilCdc>| x.clk_s.next = !x.clk_s.val());
        sim.add_clock(half_m, |x: &mut Box<AxilCdc>| x.clk_m.next = !x.clk_m.val());
        let done = Arc::new(AtomicU64::new(0));
        let (done_h, done_s) = (done.clone(), done.clone());
        sim.add_testbench(move |mut ep: Sim<AxilCdc>| {
            let mut x = ep.init()?;
            let mut r = crate::testutil::percent(half_s ^ p_host);
            crate::reset_crossing!(ep, clk_s, x);
            let mut regs = [0u64; 8];
            for i in 0..n {
                let write = i % 2 == 0;
                let addr = if r() < 15 {
                    SLVERR_FROM + 4 * (r() % 8)
                } else {
                    4 * (r() % 8)
                };
                let data = (i.wrapping_mul(0x9E37_79B9) ^ r()) & 0xFFFF_FFFF;
                let strb = if r() < 60 { 0xF } else { r() % 16 };
                x.s_axil_awaddr.next = addr.into();
                x.s_axil_araddr.next = addr.into();
                x.s_axil_wdata.next = data.into();
                x.s_axil_wstrb.next = strb.into();
                // Raise the request (AW and W at different edges), each valid held until
                // its own handshake: the readies are registers, so their value before
                // the rising edge is what that edge sees.
                let (mut aw, mut w, mut ar) = (false, false, false);
                let (mut aw_done, mut w_done, mut ar_done) = (!write, !write, write);
                while !(aw_done && w_done && ar_done) {
                    aw |= !aw_done && r() < p_host;
                    w |= !w_done && r() < p_host;
                    ar |= !ar_done && r() < p_host;
                    x.s_axil_awvalid.next = aw;
                    x.s_axil_wvalid.next = w;
                    x.s_axil_arvalid.next = ar;
                    let (awr, wr, arr) = (
                        x.s_axil_awready.val(),
                        x.s_axil_wready.val(),
                        x.s_axil_arready.val(),
                    );
                    wait_clock_true!(ep, clk_s, x);
                    wait_clock_false!(ep, clk_s, x);
                    if aw && awr {
                        (aw, aw_done) = (false, true);
                    }
                    if w && wr {
                        (w, w_done) = (false, true);
                    }
                    if ar && arr {
                        (ar, ar_done) = (false, true);
                    }
                    x.s_axil_awvalid.next = aw;
                    x.s_axil_wvalid.next = w;
                    x.s_axil_arvalid.next = ar;
                }
                let want_resp = if addr >= SLVERR_FROM { 2 } else { 0 };
                // Take the response when it comes, with random gaps.
                loop {
                    let take = r() < p_host;
                    x.s_axil_bready.next = take;
                    x.s_axil_rready.next = take;
                    let (bv, rv) = (x.s_axil_bvalid.val(), x.s_axil_rvalid.val());
                    let (bresp, rresp, rdata) = (
                        x.s_axil_bresp.val().index() as u64,
                        x.s_axil_rresp.val().index() as u64,
                        x.s_axil_rdata.val().index() as u64,
                    );
                    wait_clock_true!(ep, clk_s, x);
                    wait_clock_false!(ep, clk_s, x);
                    sim_assert!(ep, if write { !rv } else { !bv }, x);
                    if take && bv {
                        sim_assert!(ep, bresp == want_resp, x);
                        if addr < SLVERR_FROM {
                            write_strobed(&mut regs[(addr / 4) as usize], data, strb);
                        }
                        break;
                    }
                    if take && rv {
                        sim_assert!(ep, rresp == want_resp, x);
                        if addr < SLVERR_FROM {
                            sim_assert!(ep, rdata == regs[(addr / 4) as usize], x);
                        }
                        break;
                    }
                }
                x.s_axil_bready.next = false;
                x.s_axil_rready.next = false;
                done_h.store(i + 1, Ordering::SeqCst);
            }
            ep.done(x)
        });
        // The slave: every `clk_m` output is a flip-flop, so it decides at the falling
        // edge what the next rising edge hands over.
        sim.add_testbench(move |mut ep: Sim<AxilCdc>| {
            let mut x = ep.init()?;
            let mut r = crate::testutil::percent(half_m ^ p_slave ^ 0x55);
            let mut regs = [0u64; 8];
            let (mut aw, mut w): (Option<u64>, Option<(u64, u64)>) = (None, None);
            let (mut b_due, mut r_due): (Option<u64>, Option<(u64, u64)>) = (None, None);
            while done_s.load(Ordering::SeqCst) < n {
                wait_clock_false!(ep, clk_m, x);
                let (awr, wr, arr) = (r() < p_slave, r() < p_slave, r() < p_slave);
                x.m_axil_awready.next = awr;
                x.m_axil_wready.next = wr;
                x.m_axil_arready.next = arr;
                let bv = b_due.is_some() && (x.m_axil_bvalid.val() || r() < p_slave);
                let rv = r_due.is_some() && (x.m_axil_rvalid.val() || r() < p_slave);
                x.m_axil_bvalid.next = bv;
                x.m_axil_bresp.next = b_due.unwrap_or(0).into();
                x.m_axil_rvalid.next = rv;
                x.m_axil_rresp.next = r_due.map_or(0, |d| d.0).into();
                x.m_axil_rdata.next = r_due.map_or(0, |d| d.1).into();
                // What the next rising edge hands over.
                let aw_hs = x.m_axil_awvalid.val() && awr;
                let w_hs = x.m_axil_wvalid.val() && wr;
                let ar_hs = x.m_axil_arvalid.val() && arr;
                let awaddr = x.m_axil_awaddr.val().index() as u64;
                let wdata = x.m_axil_wdata.val().index() as u64;
                let wstrb = x.m_axil_wstrb.val().index() as u64;
                let araddr = x.m_axil_araddr.val().index() as u64;
                let (b_hs, r_hs) = (bv && x.m_axil_bready.val(), rv && x.m_axil_rready.val());
                wait_clock_true!(ep, clk_m, x);
                if b_hs {
                    b_due = None;
                }
                if r_hs {
                    r_due = None;
                }
                if aw_hs {
                    sim_assert!(ep, aw.is_none() && b_due.is_none(), x);
                    aw = Some(awaddr);
                }
                if w_hs {
                    sim_assert!(ep, w.is_none() && b_due.is_none(), x);
                    w = Some((wdata, wstrb));
                }
                if ar_hs {
                    sim_assert!(ep, aw.is_none() && w.is_none() && r_due.is_none(), x);
                    r_due = Some(if araddr >= SLVERR_FROM {
                        (2, 0)
                    } else {
                        (0, regs[(araddr / 4) as usize])
                    });
                }
                if let (Some(a), Some((d, s))) = (aw, w) {
                    if a < SLVERR_FROM {
                        write_strobed(&mut regs[(a / 4) as usize], d, s);
                    }
                    b_due = Some(if a >= SLVERR_FROM { 2 } else { 0 });
                    (aw, w) = (None, None);
                }
            }
            ep.done(x)
        });
        let _ = sim.run(Box::new(uut), 200 * n * (half_s + half_m) + 100_000);
        done.load(Ordering::SeqCst)
    }

    #[test]
    fn writes_and_reads_cross_both_ways_under_random_stalls() {
        // clk_s at 250 MHz with clk_m at 322.27 MHz, and the reverse.
        for (half_s, half_m) in [(2_000, 1_552), (1_552, 2_000)] {
            assert_eq!(run(half_s, half_m, 60, 40, 120), 120);
            assert_eq!(run(half_s, half_m, 100, 100, 120), 120);
        }
    }
}
