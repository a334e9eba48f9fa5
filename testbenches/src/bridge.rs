//! The Rust side of the project's Verilator bridge: generated DUT structs (one per
//! generated module, from build.rs) and the small runtime types they share.

use std::ffi::{c_char, c_int, c_void, CString};
use std::path::{Path, PathBuf};

/// Trace file format, chosen by the file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    Fst,
    Vcd,
}

impl TraceFormat {
    pub fn from_path(path: &Path) -> Result<Self, TraceError> {
        match path.extension().and_then(|e| e.to_str()) {
            Some("fst") => Ok(TraceFormat::Fst),
            Some("vcd") => Ok(TraceFormat::Vcd),
            _ => Err(TraceError::UnknownFormat(path.to_path_buf())),
        }
    }
}

/// A trace could not be started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceError {
    UnknownFormat(PathBuf),
    BadPath(PathBuf),
    CannotOpen(PathBuf),
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TraceError::UnknownFormat(p) => {
                write!(f, "{}: trace files must end in .fst or .vcd", p.display())
            }
            TraceError::BadPath(p) => write!(f, "{}: path contains a NUL byte", p.display()),
            TraceError::CannotOpen(p) => {
                write!(f, "{}: cannot open trace file for writing", p.display())
            }
        }
    }
}
impl std::error::Error for TraceError {}

/// What every Verilated DUT offers a test harness.
pub trait Dut {
    /// One rising edge of `clk`.
    fn step(&mut self);
    /// Cycles stepped since the model was created.
    fn cycle(&self) -> u64;
}

/// Pulse `rst` for one cycle, then step until the block's RAM sweep (`clearing`) is
/// done; returns the sweep's cycles. Every block with per-QP or per-slot RAM starts so.
pub fn reset_and_sweep<D: Dut>(
    d: &mut D,
    set_rst: impl Fn(&mut D, u64),
    clearing: impl Fn(&D) -> u64,
) -> u32 {
    set_rst(d, 1);
    d.step();
    set_rst(d, 0);
    let mut cycles = 0;
    while clearing(d) != 0 {
        d.step();
        cycles += 1;
    }
    cycles
}

/// Reset the whole `prnic_top` as docs/integration.md asks of a shell: hold `rst` for
/// the reset synchronizer's stages, release it, and wait until the blocks see the
/// release, so they are out of reset before the first access (an access taken while the
/// delayed reset is still on its way would be dropped by it). Returns with the RAM
/// sweeps running.
pub fn reset_top(d: &mut PrnicTop) {
    use prnic_rtl::prnic_top::{RESET_CYCLES, RESET_SYNC_STAGES};
    d.set_rst(1);
    d.step_n(RESET_SYNC_STAGES as u64);
    d.set_rst(0);
    d.step_n(RESET_CYCLES as u64);
}

include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
