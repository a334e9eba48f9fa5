//! One module per `prnic-sim` subcommand: its options (`Args`) and what it runs (`run`).

pub mod bench;
pub mod credit_jitter;
pub mod credit_starvation;
pub mod fabric;
pub mod lookup_latency;
pub mod reorder;
pub mod retransmit;
pub mod rx_soak;
pub mod soak;
pub mod spray;
pub mod table_fill;
pub mod trace;
pub mod tx;
pub mod vpc_update;
