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
