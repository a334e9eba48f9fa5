//! prnic-testbenches: Verilator models of the generated Verilog, the harness pieces that
//! drive them, and the `prnic-sim` scenario runner.

pub mod axil;
pub mod bench;
pub mod bridge;
pub mod credit;
pub mod dpu_link;
pub mod e2e;
pub mod flow_table;
pub mod hdl_sim;
pub mod reorder;
pub mod retransmit;
pub mod rx;
pub mod rx_soak;
pub mod soak;
pub mod spray;
pub mod sprayer;
pub mod two_clock;
pub mod tx;
pub mod vpc;
