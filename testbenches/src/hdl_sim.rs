//! Clocking a rust-hdl block by hand under rust-hdl's own simulator, for the
//! two-simulator agreement tests and the benchmark. A hand-rolled loop around
//! `simulate()` is ~80x faster than rust-hdl's `Simulation` testbench threads
//! (measured here) and mirrors the Verilator bridge's `step`: settle the inputs, rising
//! edge, read the outputs, falling edge.

use rust_hdl::prelude::*;

/// Iteration limit for settling one phase; rust-hdl reports failure to settle.
pub const SETTLE_ITERS: usize = 1000;

/// Settle combinational logic; a block that does not settle is a design error.
pub fn settle<B: Block>(u: &mut B, phase: &str) {
    assert!(
        simulate(u, SETTLE_ITERS),
        "rust-hdl: {phase} did not settle"
    );
}

/// One clock cycle with the inputs already set: `set_clk` drives the block's clock.
pub fn cycle<B: Block, O>(u: &mut B, set_clk: fn(&mut B, bool), read: impl FnOnce(&B) -> O) -> O {
    settle(u, "inputs");
    set_clk(u, true);
    settle(u, "rising edge");
    let o = read(u);
    set_clk(u, false);
    settle(u, "falling edge");
    o
}
