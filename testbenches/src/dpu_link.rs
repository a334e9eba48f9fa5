//! The DPU's CSR transport over the Verilator model of `prnic_top`: every access is an
//! AXI4-Lite transaction on the model. A restart resets the model (its table is swept
//! clean) and moves it to a new PCIe address, as a real RNIC restart does.

use crate::axil::{read, write, OKAY};
use crate::bridge::PrnicTop;
use prnic_verif::csr::{CsrError, CsrTransport, RnicLink};
use prnic_verif::regs::{FT_STATUS, FT_STATUS_CLEARING_MASK};

pub struct VerilatorRnic {
    pub dut: PrnicTop,
    /// Current PCIe address (`None` while down).
    pub address: Option<u64>,
    targeted: u64,
    /// AXI4-Lite transactions issued.
    pub accesses: u64,
}

impl VerilatorRnic {
    /// A model out of reset, its flow table swept (powered up before the DPU connects).
    pub fn new() -> Self {
        Self::with_dut(PrnicTop::new())
    }

    /// [`VerilatorRnic::new`] around a given model (one that writes a waveform, say).
    pub fn with_dut(dut: PrnicTop) -> Self {
        let mut r = VerilatorRnic {
            dut,
            address: Some(0x1000),
            targeted: 0x1000,
            accesses: 0,
        };
        r.reset();
        r
    }

    fn reset(&mut self) {
        crate::bridge::reset_top(&mut self.dut);
        // The sweep takes one cycle per slot; poll like software would.
        loop {
            let (s, _) = read(&mut self.dut, FT_STATUS, 0).expect("CSR answers during the sweep");
            if s & FT_STATUS_CLEARING_MASK == 0 {
                break;
            }
            self.dut.step_n(512);
        }
    }

    /// The RNIC restarts: reset and a new address. The flow table's sweep is still
    /// running when it answers again: waiting for it is the DPU's job (FT_STATUS).
    pub fn restart(&mut self) {
        crate::bridge::reset_top(&mut self.dut);
        self.address = Some(self.address.unwrap_or(0x1000) + 0x1000);
    }

    fn connected(&self) -> Result<(), CsrError> {
        if self.address == Some(self.targeted) {
            Ok(())
        } else {
            Err(CsrError::Disconnected)
        }
    }
}

impl Default for VerilatorRnic {
    fn default() -> Self {
        Self::new()
    }
}

impl CsrTransport for VerilatorRnic {
    fn read32(&mut self, addr: u32) -> Result<u32, CsrError> {
        self.connected()?;
        self.accesses += 1;
        match read(&mut self.dut, addr, 0) {
            Ok((v, OKAY)) => Ok(v),
            Ok(_) => Err(CsrError::SlvErr { addr }),
            Err(_) => Err(CsrError::Disconnected),
        }
    }
    fn write32(&mut self, addr: u32, data: u32) -> Result<(), CsrError> {
        self.connected()?;
        self.accesses += 1;
        match write(&mut self.dut, addr, data, 0xf, 0) {
            Ok(OKAY) => Ok(()),
            Ok(_) => Err(CsrError::SlvErr { addr }),
            Err(_) => Err(CsrError::Disconnected),
        }
    }
}

impl RnicLink for VerilatorRnic {
    fn probe(&mut self) -> Option<u64> {
        self.address
    }
    fn target(&mut self, addr: u64) {
        self.targeted = addr;
    }
}

impl prnic_verif::csr::Restartable for VerilatorRnic {
    fn restart(&mut self) {
        VerilatorRnic::restart(self)
    }
}
