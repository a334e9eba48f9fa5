//! Helpers for the blocks' rust-hdl unit tests, and the testbenches that drive the same
//! stimulus.

/// A seeded 64-bit LCG: each call returns a number in 0..100 (a percentage to compare
/// against), the same sequence for the same seed.
pub fn percent(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed;
    move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 33) % 100
    }
}

/// An AXI4-Lite write of `data` with byte strobes `strb` (bit b enables byte b) into a
/// 32-bit register `reg`.
pub fn write_strobed(reg: &mut u64, data: u64, strb: u64) {
    for b in 0..4 {
        if strb >> b & 1 == 1 {
            let m = 0xFFu64 << (8 * b);
            *reg = (*reg & !m) | (data & m);
        }
    }
}

/// In a rust-hdl testbench of a two-clock crossing (`rst` asynchronous, clocks `clk_s`
/// and `clk_m`): hold `rst` for 4 edges of `$clk`, release it at a falling edge, then
/// wait 8 more edges for the reset synchronizers of the slower side. Leaves `$clk` low.
#[macro_export]
macro_rules! reset_crossing {
    ($ep:ident, $clk:ident, $x:ident) => {
        $x.rst.next = true;
        for _ in 0..4 {
            wait_clock_true!($ep, $clk, $x);
        }
        wait_clock_false!($ep, $clk, $x);
        $x.rst.next = false;
        for _ in 0..8 {
            wait_clock_true!($ep, $clk, $x);
            wait_clock_false!($ep, $clk, $x);
        }
    };
}
