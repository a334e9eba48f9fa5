//! `csr`: the AXI4-Lite control and status registers, generated from the one register
//! description in `prnic-regs` (see `docs/regmap.md`).
//!
//! ```text
//!  AXI4-Lite (32-bit) ──► decode (exact word addresses) ──► cfg_<reg>_<field>  (to blocks)
//!                                                    ◄── hw_<reg>_<field>   (from blocks)
//!                                                    ──► clr_<reg>_<field>  (W1C pulses)
//!                                                    ──► cmd_<reg>_*        (command pulses)
//! ```
//!
//! * One write is taken when `awvalid` and `wvalid` are both high and no write response
//!   is pending (`awready` = `wready` = that cycle); the response follows one cycle later
//!   and is held until `bready`. Reads likewise, with `rdata` one cycle after `arvalid`.
//! * An unmapped or misaligned address answers SLVERR, changes nothing, sets the sticky
//!   `ERR_FLAGS.CSR_BAD_ACCESS` and counts in `CNT_CSR_BAD_ACCESS`.
//! * A write to a read-only register answers OKAY, changes nothing and counts in
//!   `CNT_CSR_RO_WRITE`.
//! * `wstrb` is honoured on RW fields byte by byte.
//! * 64-bit counters read LO first: reading LO latches HI, so LO then HI is one value.
//! * Reset returns every RW field to its reset value and clears the block's own counters.

use rust_hdl::prelude::*;

include!(concat!(env!("OUT_DIR"), "/csr_gen.rs"));
