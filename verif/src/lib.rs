//! prnic-verif: golden models, stimulus and scoreboards for the P-RNIC blocks.
//!
//! Models are pure Rust at transaction level and never depend on prnic-rtl: they are
//! written from each block's specification so that they can catch the RTL being wrong.

pub mod credit;
pub mod csr;
pub mod dpu;
pub mod ecmp;
pub mod fabric;
pub mod flow_table;
pub mod hash;
pub mod icrc;
#[rustfmt::skip]
pub mod regs;
pub mod reply;
pub mod rng;
pub mod rx_decap;
pub mod rx_reorder;
pub mod sprayer;
pub mod tx_encap;
