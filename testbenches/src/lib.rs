//! prnic-testbenches: Verilator models of the generated Verilog, the harness pieces that
//! drive them, and the `prnic-sim` scenario runner.

pub mod bridge;
pub mod bench;
pub mod sprayer;
