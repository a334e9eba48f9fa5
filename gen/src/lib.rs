//! prnic-gen: turns one `PrnicConfig` into Verilog, a manifest, reports and constraints.
//!
//! Used by the `prnic` binary and, as a library, by the testbench build script, so the
//! Verilog under test is the Verilog users get.

pub mod blocks;
pub mod config;
pub mod csr;
pub mod output;
pub mod project;
pub mod synth;
pub mod timing;

pub use config::{ConfigError, PrnicConfig};

/// Generator version (the crate version).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The commit the generator was built from ("unknown" outside a checkout).
pub const GIT_HASH: &str = env!("PRNIC_GIT_HASH");
