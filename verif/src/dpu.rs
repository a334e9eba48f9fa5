//! The DPU control plane: owns the authoritative flow table, pushes each change to the
//! RNIC over the narrow CSR channel as one write-ahead-logged transaction, recovers from
//! its own crashes by replaying the log, and follows the RNIC through restarts with a
//! small state machine (the Pegasus paper's narrow management channel).
//!
//! A transaction: log `Begin { op, writes }` (durable), push the writes (each slot write
//! = staging registers + one FT_CMD), then apply the op to the DPU table and log
//! `Commit`. Slot writes are whole-entry and the list was fixed when it was logged, so
//! pushing a logged list again, from the start, after a crash anywhere inside it, lands
//! the same final state: recovery re-pushes the uncommitted transaction and commits it.

use crate::csr::{CsrError, RnicLink};
use crate::flow_table::{Geometry, HwImage, Loc, SlotWrite, SoftTable, TableError, Value};
use crate::regs::*;

/// A change to the flow table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Insert(u64, Value),
    Delete(u64),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WalRecord {
    Begin {
        tx: u64,
        op: Op,
        writes: Vec<SlotWrite>,
    },
    Commit {
        tx: u64,
    },
}

/// The write-ahead log. In production it is on the DPU's storage; here the test keeps a
/// copy at the moment of a crash.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Wal {
    pub records: Vec<WalRecord>,
}

/// Per-RNIC channel state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RnicState {
    /// Not yet talking to the RNIC.
    Initial,
    /// Address verified; commands go straight through.
    ChannelEstablished,
    /// The RNIC stopped answering (restart); waiting for it to come back.
    Waiting,
    /// It did not come back within the retry budget.
    Down,
}

/// When the DPU verifies the RNIC's PCIe address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckMode {
    /// Before every CSR write (what the paper's first deployment did).
    PerCommand,
    /// Only when establishing the channel and around restarts (Pegasus).
    StateMachine,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DpuError {
    Table(TableError),
    Csr(CsrError),
    /// The RNIC is down (state Down).
    RnicDown,
    /// The RNIC at the address is not the one configured (magic or config hash differ).
    WrongDevice,
    /// A read-back command did not complete.
    ReadBackTimeout,
}

impl From<CsrError> for DpuError {
    fn from(e: CsrError) -> Self {
        DpuError::Csr(e)
    }
}
impl From<TableError> for DpuError {
    fn from(e: TableError) -> Self {
        DpuError::Table(e)
    }
}

pub struct Dpu<L: RnicLink> {
    pub link: L,
    table: SoftTable,
    pub wal: Wal,
    pub state: RnicState,
    pub mode: CheckMode,
    config_hash: u64,
    next_tx: u64,
    /// The address the channel was established at.
    addr: Option<u64>,
    /// The RNIC's table may not match the DPU's committed table (after a restart, or
    /// after recovery): push the whole table before the next command.
    resync: bool,
    /// A logged transaction whose writes have not all landed yet. It is finished before
    /// any new one starts, so the log never holds two open transactions.
    pending: Option<(u64, Op, Vec<SlotWrite>)>,
    /// Probes allowed while Waiting before the RNIC is declared Down.
    pub max_probes: u32,
    /// FT_STATUS polls allowed while the flow table sweeps after a reset.
    pub max_sweep_polls: u32,
    /// RNIC restarts the DPU has detected and followed.
    pub restarts_seen: u64,
}

impl<L: RnicLink> Dpu<L> {
    pub fn new(link: L, geom: Geometry, config_hash: u64, mode: CheckMode) -> Self {
        Dpu {
            link,
            table: SoftTable::new(geom),
            wal: Wal::default(),
            state: RnicState::Initial,
            mode,
            config_hash,
            next_tx: 0,
            addr: None,
            resync: false,
            pending: None,
            max_probes: 100,
            max_sweep_polls: 1_000_000,
            restarts_seen: 0,
        }
    }

    pub fn table(&self) -> &SoftTable {
        &self.table
    }

    /// Find the RNIC, check it is the right device, and wait out its flow table's reset
    /// sweep (commands sent during the sweep are dropped by the hardware).
    fn establish(&mut self) -> Result<(), DpuError> {
        for _ in 0..self.max_probes {
            if let Some(addr) = self.link.probe() {
                self.link.target(addr);
                self.verify()?;
                let mut polls = 0;
                while self.link.read32(FT_STATUS)? & FT_STATUS_CLEARING_MASK != 0 {
                    polls += 1;
                    if polls > self.max_sweep_polls {
                        self.state = RnicState::Down;
                        return Err(DpuError::RnicDown);
                    }
                }
                self.addr = Some(addr);
                self.state = RnicState::ChannelEstablished;
                return Ok(());
            }
        }
        self.state = RnicState::Down;
        Err(DpuError::RnicDown)
    }

    fn verify(&mut self) -> Result<(), DpuError> {
        let magic = self.link.read32(ID_MAGIC)?;
        let lo = self.link.read32(ID_CONFIG_HASH_LO)? as u64;
        let hi = self.link.read32(ID_CONFIG_HASH_HI)? as u64;
        if magic != MAGIC || (lo | hi << 32) != self.config_hash {
            return Err(DpuError::WrongDevice);
        }
        Ok(())
    }

    fn ensure_channel(&mut self) -> Result<(), DpuError> {
        match self.state {
            RnicState::Down => return Err(DpuError::RnicDown),
            RnicState::ChannelEstablished => {}
            RnicState::Initial | RnicState::Waiting => {
                let was_waiting = self.state == RnicState::Waiting;
                self.establish()?;
                if was_waiting {
                    // The RNIC restarted: its table is empty.
                    self.restarts_seen += 1;
                    self.resync = true;
                }
            }
        }
        if self.resync {
            // Push the whole committed table; the flag stays set until this completes.
            let writes = full_image_writes(self.table.image(), self.table.geometry());
            for w in &writes {
                self.push_write(w)?;
            }
            self.resync = false;
        }
        Ok(())
    }

    fn write_reg(&mut self, addr: u32, v: u32) -> Result<(), DpuError> {
        if self.mode == CheckMode::PerCommand {
            // Check the device at its address before every command. A moved or missing
            // RNIC has restarted: go through Waiting like the state machine does.
            let now = self.link.probe();
            if now.is_none() || now != self.addr {
                self.state = RnicState::Waiting;
                return Err(DpuError::Csr(CsrError::Disconnected));
            }
            if self.link.read32(ID_MAGIC)? != MAGIC {
                return Err(DpuError::WrongDevice);
            }
        }
        self.link.write32(addr, v)?;
        Ok(())
    }

    /// Stage one whole entry and commit it with FT_CMD.
    fn push_write(&mut self, w: &SlotWrite) -> Result<(), DpuError> {
        let (op, way, index, entry) = match *w {
            SlotWrite::Slot {
                way,
                index,
                entry: Some(e),
            } => (ft_op::WRITE_SLOT, way, index, Some(e)),
            SlotWrite::Stash {
                index,
                entry: Some(e),
            } => (ft_op::WRITE_STASH, 0, index, Some(e)),
            SlotWrite::Slot {
                way,
                index,
                entry: None,
            } => (ft_op::INVALIDATE_SLOT, way, index, None),
            SlotWrite::Stash { index, entry: None } => (ft_op::INVALIDATE_STASH, 0, index, None),
        };
        if let Some((k, v)) = entry {
            let b = v.to_bits();
            self.write_reg(FT_KEY_LO, k as u32)?;
            self.write_reg(FT_KEY_HI, (k >> 32) as u32)?;
            self.write_reg(FT_VAL0, b as u32)?;
            self.write_reg(FT_VAL1, (b >> 32) as u32)?;
            self.write_reg(FT_VAL2, (b >> 64) as u32)?;
            self.write_reg(FT_VAL3, (b >> 96) as u32)?;
        }
        self.write_reg(FT_LOC, index as u32 | (way as u32) << 16)?;
        self.write_reg(FT_CMD, op)?;
        Ok(())
    }

    /// Push a logged list of writes, following the RNIC through restarts: on
    /// `Disconnected` the channel goes to Waiting, is re-established (table re-pushed),
    /// and the list is pushed again from the start.
    fn push_all(&mut self, writes: &[SlotWrite]) -> Result<(), DpuError> {
        // Each retry needs the RNIC to have restarted; a bound keeps a flapping RNIC from
        // holding the DPU forever.
        for _ in 0..64 {
            let r = self
                .ensure_channel()
                .and_then(|_| writes.iter().try_for_each(|w| self.push_write(w)));
            match r {
                Err(DpuError::Csr(CsrError::Disconnected)) => self.state = RnicState::Waiting,
                other => return other,
            }
        }
        self.state = RnicState::Down;
        Err(DpuError::RnicDown)
    }

    /// Finish the open transaction, if any: push its writes (again, from the first: they
    /// are whole-entry and idempotent), apply it to the table, log Commit.
    fn finish_pending(&mut self) -> Result<(), DpuError> {
        let Some((tx, op, writes)) = self.pending.clone() else {
            return Ok(());
        };
        self.push_all(&writes)?;
        let got = match op {
            Op::Insert(k, v) => self.table.insert(k, v)?,
            Op::Delete(k) => self.table.delete(k)?,
        };
        assert_eq!(
            got, writes,
            "a logged transaction replays to the same writes"
        );
        self.wal.records.push(WalRecord::Commit { tx });
        self.pending = None;
        Ok(())
    }

    /// Apply one change as a transaction. An earlier change whose push failed is finished
    /// first; until it is, no new change is logged.
    pub fn apply(&mut self, op: Op) -> Result<(), DpuError> {
        if self.state == RnicState::Down {
            return Err(DpuError::RnicDown);
        }
        self.finish_pending()?;
        // Plan on a copy: a refused change leaves table and log untouched.
        let mut planned = self.table.clone();
        let writes = match op {
            Op::Insert(k, v) => planned.insert(k, v)?,
            Op::Delete(k) => planned.delete(k)?,
        };
        let tx = self.next_tx;
        self.next_tx += 1;
        self.wal.records.push(WalRecord::Begin {
            tx,
            op,
            writes: writes.clone(),
        });
        self.pending = Some((tx, op, writes));
        self.finish_pending()
    }

    /// A new DPU process after a crash: rebuild the table from the log, re-push the whole
    /// table (the RNIC may have restarted while the DPU was down), finish the transaction
    /// that was in flight, and come back with the channel established.
    pub fn recover(
        link: L,
        geom: Geometry,
        config_hash: u64,
        mode: CheckMode,
        wal: Wal,
    ) -> Result<Self, DpuError> {
        let mut d = Dpu::new(link, geom, config_hash, mode);
        let mut pending: Option<(u64, Op, Vec<SlotWrite>)> = None;
        for r in &wal.records {
            match r {
                WalRecord::Begin { tx, op, writes } => {
                    assert!(pending.is_none(), "two open transactions in the log");
                    pending = Some((*tx, *op, writes.clone()));
                    d.next_tx = tx + 1;
                }
                WalRecord::Commit { tx } => {
                    let (ptx, op, writes) = pending.take().expect("commit without begin");
                    assert_eq!(ptx, *tx, "log out of order");
                    // Replaying the same ops in the same order reproduces the placements.
                    let got = match op {
                        Op::Insert(k, v) => d.table.insert(k, v),
                        Op::Delete(k) => d.table.delete(k),
                    }
                    .expect("a committed op replays");
                    assert_eq!(got, writes, "replay diverged from the log");
                }
            }
        }
        d.wal = wal;
        d.resync = true;
        d.pending = pending;
        d.push_all(&[])?;
        d.finish_pending()?;
        Ok(d)
    }

    /// Read one slot back through CSR.
    pub fn read_back(&mut self, loc: Loc) -> Result<Option<(u64, Value)>, DpuError> {
        let (op, way, index) = match loc {
            Loc::Slot(w, i) => (ft_op::READ_SLOT, w, i),
            Loc::Stash(i) => (ft_op::READ_STASH, 0, i),
        };
        self.ensure_channel()?;
        self.link
            .write32(FT_LOC, index as u32 | (way as u32) << 16)?;
        self.link.write32(FT_CMD, op)?;
        let mut polls = 0;
        while self.link.read32(FT_STATUS)? & FT_STATUS_RD_DONE_MASK == 0 {
            polls += 1;
            if polls > 16 {
                return Err(DpuError::ReadBackTimeout);
            }
        }
        let hi = self.link.read32(FT_RD_KEY_HI)?;
        if hi & FT_RD_KEY_HI_VALID_MASK == 0 {
            return Ok(None);
        }
        let key =
            self.link.read32(FT_RD_KEY_LO)? as u64 | (((hi & FT_RD_KEY_HI_VNI_MASK) as u64) << 32);
        let mut b = 0u128;
        for (i, a) in [FT_RD_VAL0, FT_RD_VAL1, FT_RD_VAL2, FT_RD_VAL3]
            .iter()
            .enumerate()
        {
            b |= (self.link.read32(*a)? as u128) << (32 * i);
        }
        Ok(Some((key, Value::from_bits(b))))
    }

    /// Compare the RNIC's table, read back through CSR, with the DPU's at `locs`.
    /// Returns the locations that differ.
    pub fn audit(&mut self, locs: &[Loc]) -> Result<Vec<Loc>, DpuError> {
        let mut bad = vec![];
        for &l in locs {
            let want = self.table.image().at(l);
            if self.read_back(l)? != want {
                bad.push(l);
            }
        }
        Ok(bad)
    }
}

/// Writes that recreate `image` on an empty RNIC: every occupied slot once.
pub fn full_image_writes(image: &HwImage, g: &Geometry) -> Vec<SlotWrite> {
    let mut w = vec![];
    for way in 0..4 {
        for index in 0..g.slots_per_way {
            if let Some(e) = image.at(Loc::Slot(way, index)) {
                w.push(SlotWrite::Slot {
                    way,
                    index,
                    entry: Some(e),
                });
            }
        }
    }
    for index in 0..g.stash {
        if let Some(e) = image.at(Loc::Stash(index)) {
            w.push(SlotWrite::Stash {
                index,
                entry: Some(e),
            });
        }
    }
    w
}

/// Every location a log touches, plus the whole stash: the slots an audit must read
/// (slots never written since reset are invalid on both sides).
pub fn touched(wal: &Wal, g: &Geometry) -> Vec<Loc> {
    let mut v: Vec<Loc> = (0..g.stash).map(Loc::Stash).collect();
    for r in &wal.records {
        if let WalRecord::Begin { writes, .. } = r {
            for w in writes {
                let l = match *w {
                    SlotWrite::Slot { way, index, .. } => Loc::Slot(way, index),
                    SlotWrite::Stash { index, .. } => Loc::Stash(index),
                };
                if !v.contains(&l) {
                    v.push(l);
                }
            }
        }
    }
    v
}

/// Test links: fail the DPU process after a number of accesses, or restart the RNIC.
pub mod fault;

#[cfg(test)]
mod tests;
