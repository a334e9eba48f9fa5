//! AXI4-Lite master for the Verilator models (`csr`, `prnic_top`): one access at a time,
//! with optional delays on `bready`/`rready`, and a bound on how long the slave may take
//! (a hang is reported, not waited out).

use crate::bridge::{self, Dut};

/// AXI response codes.
pub const OKAY: u8 = 0;
pub const SLVERR: u8 = 2;

/// Cycles an access may take before the slave is declared hung.
pub const TIMEOUT: u32 = 64;

/// The AXI4-Lite slave ports of a DUT (same names in every block that has them).
pub trait AxilPort: Dut {
    fn drive(
        &mut self,
        aw: Option<u32>,
        w: Option<(u32, u8)>,
        bready: bool,
        ar: Option<u32>,
        rready: bool,
    );
    fn settle(&mut self);
    fn awready(&self) -> bool;
    fn wready(&self) -> bool;
    fn bvalid(&self) -> bool;
    fn bresp(&self) -> u8;
    fn arready(&self) -> bool;
    fn rvalid(&self) -> bool;
    fn rdata(&self) -> u32;
    fn rresp(&self) -> u8;
}

macro_rules! axil_port {
    ($t:ty => |$s:ident| $port:expr) => {
        impl AxilPort for $t {
            fn drive(
                &mut self,
                aw: Option<u32>,
                w: Option<(u32, u8)>,
                bready: bool,
                ar: Option<u32>,
                rready: bool,
            ) {
                let $s = self;
                $port.set_s_axil_awvalid(aw.is_some() as u64);
                $port.set_s_axil_awaddr(aw.unwrap_or(0) as u64);
                $port.set_s_axil_wvalid(w.is_some() as u64);
                $port.set_s_axil_wdata(w.map_or(0, |x| x.0) as u64);
                $port.set_s_axil_wstrb(w.map_or(0, |x| x.1) as u64);
                $port.set_s_axil_bready(bready as u64);
                $port.set_s_axil_arvalid(ar.is_some() as u64);
                $port.set_s_axil_araddr(ar.unwrap_or(0) as u64);
                $port.set_s_axil_rready(rready as u64);
            }
            fn settle(&mut self) {
                let $s = self;
                $port.eval();
            }
            fn awready(&self) -> bool {
                let $s = self;
                $port.s_axil_awready() != 0
            }
            fn wready(&self) -> bool {
                let $s = self;
                $port.s_axil_wready() != 0
            }
            fn bvalid(&self) -> bool {
                let $s = self;
                $port.s_axil_bvalid() != 0
            }
            fn bresp(&self) -> u8 {
                let $s = self;
                $port.s_axil_bresp() as u8
            }
            fn arready(&self) -> bool {
                let $s = self;
                $port.s_axil_arready() != 0
            }
            fn rvalid(&self) -> bool {
                let $s = self;
                $port.s_axil_rvalid() != 0
            }
            fn rdata(&self) -> u32 {
                let $s = self;
                $port.s_axil_rdata() as u32
            }
            fn rresp(&self) -> u8 {
                let $s = self;
                $port.s_axil_rresp() as u8
            }
        }
    };
}
axil_port!(bridge::Csr => |s| s);
axil_port!(bridge::PrnicTop => |s| s);
// The host's port of the whole RNIC on two clocks: `axil_cdc`'s slave side, on `clk_host`.
axil_port!(crate::two_clock::TwoClockRnic => |s| s.csr);

/// The slave did not answer within [`TIMEOUT`] cycles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hung {
    pub addr: u32,
    pub what: &'static str,
}

/// Write `data` with byte strobes `strb`; `b_delay` cycles pass with `bready` low once
/// `bvalid` is up. Returns the response code.
pub fn write<D: AxilPort + ?Sized>(
    d: &mut D,
    addr: u32,
    data: u32,
    strb: u8,
    b_delay: u32,
) -> Result<u8, Hung> {
    // AW and W are offered together; each valid stays up until its own handshake.
    let (mut aw_done, mut w_done) = (false, false);
    let mut n = 0;
    loop {
        d.drive(
            (!aw_done).then_some(addr),
            (!w_done).then_some((data, strb)),
            false,
            None,
            false,
        );
        d.settle();
        aw_done |= d.awready();
        w_done |= d.wready();
        d.step();
        if aw_done && w_done {
            break;
        }
        n += 1;
        if n > TIMEOUT {
            return Err(Hung {
                addr,
                what: "awready/wready",
            });
        }
    }
    d.drive(None, None, false, None, false);
    let mut waited = 0;
    loop {
        d.settle();
        if d.bvalid() {
            if waited >= b_delay {
                let r = d.bresp();
                d.drive(None, None, true, None, false);
                d.step();
                d.drive(None, None, false, None, false);
                return Ok(r);
            }
            waited += 1;
        }
        d.step();
        n += 1;
        if n > TIMEOUT + b_delay {
            return Err(Hung {
                addr,
                what: "bvalid",
            });
        }
    }
}

/// Read a word; returns `(data, response)`.
pub fn read<D: AxilPort + ?Sized>(d: &mut D, addr: u32, r_delay: u32) -> Result<(u32, u8), Hung> {
    let mut n = 0;
    loop {
        d.drive(None, None, false, Some(addr), false);
        d.settle();
        let taken = d.arready();
        d.step();
        if taken {
            break;
        }
        n += 1;
        if n > TIMEOUT {
            return Err(Hung {
                addr,
                what: "arready",
            });
        }
    }
    d.drive(None, None, false, None, false);
    let mut waited = 0;
    loop {
        d.settle();
        if d.rvalid() {
            if waited >= r_delay {
                let v = (d.rdata(), d.rresp());
                d.drive(None, None, false, None, true);
                d.step();
                d.drive(None, None, false, None, false);
                return Ok(v);
            }
            waited += 1;
        }
        d.step();
        n += 1;
        if n > TIMEOUT + r_delay {
            return Err(Hung {
                addr,
                what: "rvalid",
            });
        }
    }
}
