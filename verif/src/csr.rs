//! The CSR transport trait the DPU control plane speaks, the narrow management channel
//! (cost per access), and a register-level golden model of the RNIC's CSR block with its
//! flow table, written from docs/regmap.md, for model-only runs.

use crate::flow_table::{Geometry, HwImage, Loc, SlotWrite, Value};
use crate::regs::*;
use std::collections::HashMap;

/// Why a CSR access failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsrError {
    /// The RNIC answered SLVERR.
    SlvErr { addr: u32 },
    /// Nothing answers at the address the DPU uses (the RNIC restarted or is gone).
    Disconnected,
    /// The DPU process itself stopped (fault injection in tests).
    Crashed,
}

impl std::fmt::Display for CsrError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CsrError::SlvErr { addr } => write!(f, "CSR access to {addr:#05x} answered SLVERR"),
            CsrError::Disconnected => {
                write!(f, "the RNIC does not answer at its known PCIe address")
            }
            CsrError::Crashed => write!(f, "the DPU stopped"),
        }
    }
}
impl std::error::Error for CsrError {}

/// 32-bit register access to one RNIC.
pub trait CsrTransport {
    fn read32(&mut self, addr: u32) -> Result<u32, CsrError>;
    fn write32(&mut self, addr: u32, data: u32) -> Result<(), CsrError>;
}

/// A link to an RNIC whose PCIe address can change when it restarts.
pub trait RnicLink: CsrTransport {
    /// Rescan: the RNIC's current address, if it is up.
    fn probe(&mut self) -> Option<u64>;
    /// Address the following accesses to `addr`.
    fn target(&mut self, addr: u64);
}

/// An RNIC (model or RTL) that can be restarted: registers and table reset, and it
/// comes back at another PCIe address.
pub trait Restartable {
    fn restart(&mut self);
}

/// The narrow management channel: serial accesses of 4-8 bytes at about 4 MB/s. Every
/// access (address + data) is charged `bytes_per_access` at `bytes_per_s`; probes are
/// charged as one access.
#[derive(Debug, Clone)]
pub struct Channel<T> {
    pub inner: T,
    pub reads: u64,
    pub writes: u64,
    pub probes: u64,
    pub bytes_per_access: u64,
    pub bytes_per_s: f64,
}

impl<T> Channel<T> {
    /// 8 bytes per access (4 address + 4 data) at 4 MB/s: 2 us per access.
    pub fn new(inner: T) -> Self {
        Channel {
            inner,
            reads: 0,
            writes: 0,
            probes: 0,
            bytes_per_access: 8,
            bytes_per_s: 4.0e6,
        }
    }
    pub fn accesses(&self) -> u64 {
        self.reads + self.writes + self.probes
    }
    /// Modeled time spent on the channel, seconds.
    pub fn seconds(&self) -> f64 {
        (self.accesses() * self.bytes_per_access) as f64 / self.bytes_per_s
    }
}

impl<T: CsrTransport> CsrTransport for Channel<T> {
    fn read32(&mut self, addr: u32) -> Result<u32, CsrError> {
        self.reads += 1;
        self.inner.read32(addr)
    }
    fn write32(&mut self, addr: u32, data: u32) -> Result<(), CsrError> {
        self.writes += 1;
        self.inner.write32(addr, data)
    }
}

impl<T: RnicLink> RnicLink for Channel<T> {
    fn probe(&mut self) -> Option<u64> {
        self.probes += 1;
        self.inner.probe()
    }
    fn target(&mut self, addr: u64) {
        self.inner.target(addr)
    }
}

/// Register-level model of an RNIC: the registers the DPU uses (identification,
/// ERR_FLAGS, counters of bad accesses and updates, the flow-table staging, FT_CMD,
/// FT_STATUS with the reset sweep, FT_RD_*) and the flow table behind FT_CMD. Other RW
/// registers are stored as written (no field masks or reset values).
#[derive(Debug, Clone)]
pub struct RnicModel {
    pub image: HwImage,
    geom: Geometry,
    config_hash: u64,
    rw: HashMap<u32, u32>,
    rd: Option<(u64, u128)>,
    rd_valid: bool,
    bad_access: u64,
    bad_flag: bool,
    bad_update: u64,
    /// FT_STATUS reads left that still show the reset sweep (flow-table commands are
    /// dropped and counted meanwhile, as in the RTL).
    sweep_reads: u32,
    /// Current PCIe address; `None` while down.
    pub address: Option<u64>,
    targeted: u64,
}

impl RnicModel {
    pub fn new(geom: Geometry, config_hash: u64) -> Self {
        RnicModel {
            image: HwImage::new(&geom),
            geom,
            config_hash,
            rw: HashMap::new(),
            rd: None,
            rd_valid: false,
            bad_access: 0,
            bad_flag: false,
            bad_update: 0,
            sweep_reads: 0,
            address: Some(0x1000),
            targeted: 0x1000,
        }
    }

    /// The RNIC restarts: registers and table are reset and it comes back at another address.
    pub fn restart(&mut self) {
        let next = self.address.unwrap_or(0x1000) + 0x1000;
        *self = RnicModel::new(self.geom.clone(), self.config_hash);
        self.address = Some(next);
        self.targeted = 0;
        self.sweep_reads = 4;
    }

    fn reg(&self, a: u32) -> u32 {
        *self.rw.get(&a).unwrap_or(&0)
    }

    fn connected(&self) -> Result<(), CsrError> {
        if self.address == Some(self.targeted) {
            Ok(())
        } else {
            Err(CsrError::Disconnected)
        }
    }

    fn staged(&self) -> (u64, Value, usize, usize) {
        let key = self.reg(FT_KEY_LO) as u64 | ((self.reg(FT_KEY_HI) as u64 & 0xff_ffff) << 32);
        let b = self.reg(FT_VAL0) as u128
            | (self.reg(FT_VAL1) as u128) << 32
            | (self.reg(FT_VAL2) as u128) << 64
            | ((self.reg(FT_VAL3) & 0xffff) as u128) << 96;
        let loc = self.reg(FT_LOC);
        (
            key,
            Value::from_bits(b),
            (loc & 0xffff) as usize,
            ((loc >> 16) & 3) as usize,
        )
    }
}

impl CsrTransport for RnicModel {
    fn read32(&mut self, addr: u32) -> Result<u32, CsrError> {
        self.connected()?;
        if !addr.is_multiple_of(4) || !MAPPED.contains(&addr) {
            self.bad_access += 1;
            self.bad_flag = true;
            return Err(CsrError::SlvErr { addr });
        }
        let (key, value) = self.rd.unwrap_or((0, 0));
        let clearing = self.sweep_reads > 0;
        if addr == FT_STATUS && clearing {
            self.sweep_reads -= 1;
        }
        Ok(match addr {
            ID_MAGIC => MAGIC,
            ID_VERSION => MAP_VERSION,
            ERR_FLAGS => (self.bad_flag as u32) << ERR_FLAGS_CSR_BAD_ACCESS_SHIFT,
            CNT_FT_BAD_UPDATE_LO => self.bad_update as u32,
            ID_CONFIG_HASH_LO => self.config_hash as u32,
            ID_CONFIG_HASH_HI => (self.config_hash >> 32) as u32,
            FT_STATUS => {
                ((self.rd_valid as u32) << FT_STATUS_RD_DONE_SHIFT)
                    | ((clearing as u32) << FT_STATUS_CLEARING_SHIFT)
            }
            FT_RD_KEY_LO => key as u32,
            FT_RD_KEY_HI => {
                ((key >> 32) as u32 & 0xff_ffff)
                    | ((self.rd.is_some() as u32) << FT_RD_KEY_HI_VALID_SHIFT)
            }
            FT_RD_VAL0 => value as u32,
            FT_RD_VAL1 => (value >> 32) as u32,
            FT_RD_VAL2 => (value >> 64) as u32,
            FT_RD_VAL3 => (value >> 96) as u32 & 0xffff,
            CNT_CSR_BAD_ACCESS_LO => self.bad_access as u32,
            a => self.reg(a),
        })
    }

    fn write32(&mut self, addr: u32, data: u32) -> Result<(), CsrError> {
        self.connected()?;
        if !addr.is_multiple_of(4) || !MAPPED.contains(&addr) {
            self.bad_access += 1;
            self.bad_flag = true;
            return Err(CsrError::SlvErr { addr });
        }
        if READ_ONLY.contains(&addr) {
            return Ok(());
        }
        if addr == ERR_FLAGS {
            if data & ERR_FLAGS_CSR_BAD_ACCESS_MASK != 0 {
                self.bad_flag = false;
            }
            return Ok(());
        }
        if addr != FT_CMD {
            self.rw.insert(addr, data);
            return Ok(());
        }
        let data = data & FT_CMD_OP_MASK;
        if self.sweep_reads > 0 {
            // The RTL drops flow-table commands during its reset sweep.
            if (ft_op::WRITE_SLOT..=ft_op::INVALIDATE_STASH).contains(&data) {
                self.bad_update += 1;
            }
            return Ok(());
        }
        let (key, value, index, way) = self.staged();
        let slot_ok = index < self.geom.slots_per_way;
        let stash_ok = index < self.geom.stash;
        let e = Some((key, value));
        let w = match data {
            ft_op::WRITE_SLOT if slot_ok => Some(SlotWrite::Slot {
                way,
                index,
                entry: e,
            }),
            ft_op::WRITE_STASH if stash_ok => Some(SlotWrite::Stash { index, entry: e }),
            ft_op::INVALIDATE_SLOT if slot_ok => Some(SlotWrite::Slot {
                way,
                index,
                entry: None,
            }),
            ft_op::INVALIDATE_STASH if stash_ok => Some(SlotWrite::Stash { index, entry: None }),
            _ => None,
        };
        // An update out of range, or a way write away from the key's own slot, is
        // refused and counted.
        let refused = match w {
            Some(w) => !self.image.apply(&w),
            None => (ft_op::WRITE_SLOT..=ft_op::INVALIDATE_STASH).contains(&data),
        };
        if refused {
            self.bad_update += 1;
        }
        self.rd_valid = false;
        let loc = match data {
            ft_op::READ_SLOT if slot_ok => Some(Loc::Slot(way, index)),
            ft_op::READ_STASH if stash_ok => Some(Loc::Stash(index)),
            _ => None,
        };
        if let Some(l) = loc {
            self.rd = self.image.at(l).map(|(k, v)| (k, v.to_bits()));
            self.rd_valid = true;
        }
        Ok(())
    }
}

impl Restartable for RnicModel {
    fn restart(&mut self) {
        RnicModel::restart(self)
    }
}

impl RnicLink for RnicModel {
    fn probe(&mut self) -> Option<u64> {
        self.address
    }
    fn target(&mut self, addr: u64) {
        self.targeted = addr;
    }
}
