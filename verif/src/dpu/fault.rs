use crate::csr::{CsrError, CsrTransport, Restartable, RnicLink};

/// The DPU process stops at its `n`-th access (0-based): that access and every later
/// one fail with `Crashed`.
pub struct CrashAfter<L> {
    pub inner: L,
    pub left: u64,
}

impl<L> CrashAfter<L> {
    fn tick(&mut self) -> Result<(), CsrError> {
        if self.left == 0 {
            return Err(CsrError::Crashed);
        }
        self.left -= 1;
        Ok(())
    }
}

impl<L: CsrTransport> CsrTransport for CrashAfter<L> {
    fn read32(&mut self, addr: u32) -> Result<u32, CsrError> {
        self.tick()?;
        self.inner.read32(addr)
    }
    fn write32(&mut self, addr: u32, data: u32) -> Result<(), CsrError> {
        self.tick()?;
        self.inner.write32(addr, data)
    }
}

impl<L: RnicLink> RnicLink for CrashAfter<L> {
    fn probe(&mut self) -> Option<u64> {
        self.inner.probe()
    }
    fn target(&mut self, addr: u64) {
        self.inner.target(addr)
    }
}

/// The RNIC answers SLVERR to the DPU's `at`-th access (once), as a glitch would.
pub struct SlvErrAt<L> {
    pub inner: L,
    pub at: u64,
    pub count: u64,
}

impl<L: CsrTransport> CsrTransport for SlvErrAt<L> {
    fn read32(&mut self, addr: u32) -> Result<u32, CsrError> {
        self.count += 1;
        if self.count - 1 == self.at {
            return Err(CsrError::SlvErr { addr });
        }
        self.inner.read32(addr)
    }
    fn write32(&mut self, addr: u32, data: u32) -> Result<(), CsrError> {
        self.count += 1;
        if self.count - 1 == self.at {
            return Err(CsrError::SlvErr { addr });
        }
        self.inner.write32(addr, data)
    }
}

impl<L: RnicLink> RnicLink for SlvErrAt<L> {
    fn probe(&mut self) -> Option<u64> {
        self.inner.probe()
    }
    fn target(&mut self, addr: u64) {
        self.inner.target(addr)
    }
}

/// The RNIC restarts just before the DPU's `at`-th access (and, if `down_probes` is
/// non-zero, stays invisible to that many probes afterwards).
pub struct RestartAt<R> {
    pub rnic: R,
    pub at: u64,
    pub count: u64,
    pub down_probes: u32,
}

impl<R: Restartable> RestartAt<R> {
    pub fn new(rnic: R, at: u64) -> Self {
        RestartAt {
            rnic,
            at,
            count: 0,
            down_probes: 0,
        }
    }
    fn tick(&mut self) {
        if self.count == self.at {
            self.rnic.restart();
        }
        self.count += 1;
    }
}

impl<R: RnicLink + Restartable> CsrTransport for RestartAt<R> {
    fn read32(&mut self, addr: u32) -> Result<u32, CsrError> {
        self.tick();
        self.rnic.read32(addr)
    }
    fn write32(&mut self, addr: u32, data: u32) -> Result<(), CsrError> {
        self.tick();
        self.rnic.write32(addr, data)
    }
}

impl<R: RnicLink + Restartable> RnicLink for RestartAt<R> {
    fn probe(&mut self) -> Option<u64> {
        if self.count > self.at && self.down_probes > 0 {
            self.down_probes -= 1;
            return None;
        }
        self.rnic.probe()
    }
    fn target(&mut self, addr: u64) {
        self.rnic.target(addr)
    }
}
