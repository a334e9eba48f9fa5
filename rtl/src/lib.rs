//! prnic-rtl: the P-RNIC data-path blocks as rust-hdl `LogicBlock`s.
//!
//! One file per block, named as in every other tree of the project (`sprayer` here is
//! `verif/src/sprayer.rs`, `testbenches/tests/sprayer.rs`, `docs/blocks/sprayer.md`).
//! Port names are the Verilog names. Every mixed expression in `#[hdl_gen]` code is
//! parenthesised: rust-hdl emits Rust expressions without adding parentheses, and
//! Verilog's precedence differs from Rust's.

// The parentheses rustc calls unnecessary are the ones rust-hdl needs.
#![allow(unused_parens)]

pub mod axil_cdc;
pub mod cdc;
pub mod crc;
pub mod credit_rx;
pub mod credit_scope;
pub mod credit_tx;
pub mod csr;
pub mod fifo;
pub mod flow_table;
pub mod frame_merge;
pub mod hash;
pub mod host_cdc;
pub mod mac_rx;
pub mod ports;
pub mod prnic_top;
pub mod psn;
pub mod ram;
pub mod reply_tx;
pub mod reset;
pub mod rx_decap;
pub mod rx_events;
pub mod rx_reorder;
pub mod slice;
pub mod sprayer;
pub mod testutil;
pub mod tx_encap;
pub mod vecops;
pub mod wiring;
