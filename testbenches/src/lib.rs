//! prnic-testbenches: Verilator models of the generated Verilog, the harness pieces that
//! drive them, and the `prnic-sim` scenario runner.

pub mod axil;
pub mod axis;
pub mod bench;
pub mod bridge;
pub mod credit;
pub mod dpu_link;
pub mod e2e;
pub mod flow_table;
pub mod hdl_sim;
pub mod retransmit;
pub mod rx_decap;
pub mod rx_reorder;
pub mod rx_soak;
pub mod spray;
pub mod sprayer;
pub mod two_clock;
pub mod tx_encap;
pub mod tx_soak;
pub mod vpc;
