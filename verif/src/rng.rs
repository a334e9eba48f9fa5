//! The one pseudo-random generator of the models, harnesses and tests: xorshift64*
//! (Vigna, "An experimental exploration of Marsaglia's xorshift generators, scrambled",
//! 2016). Deterministic: a run is reproduced by its seed.

/// The generator from state `x` as given (nonzero), one 64-bit draw per call.
pub fn xorshift64star(mut x: u64) -> impl FnMut() -> u64 {
    debug_assert!(x != 0, "xorshift64* state must be nonzero");
    move || {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// The generator for `seed` (any value): the seed is spread by the golden-ratio constant,
/// so nearby seeds give unrelated streams.
pub fn rng(seed: u64) -> impl FnMut() -> u64 {
    xorshift64star(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
}

/// A draw as a number in [0, 1), from its top 53 bits.
pub fn unit(r: u64) -> f64 {
    (r >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_fixed_by_the_seed_and_differ_between_seeds() {
        let a: Vec<u64> = std::iter::repeat_with(rng(1)).take(4).collect();
        let b: Vec<u64> = std::iter::repeat_with(rng(1)).take(4).collect();
        let c: Vec<u64> = std::iter::repeat_with(rng(2)).take(4).collect();
        assert_eq!(a, b);
        assert!(a.iter().zip(&c).all(|(x, y)| x != y));
    }

    #[test]
    fn unit_is_in_zero_one() {
        let mut r = rng(7);
        for _ in 0..10_000 {
            let u = unit(r());
            assert!((0.0..1.0).contains(&u));
        }
        assert_eq!(unit(0), 0.0);
        assert!(unit(u64::MAX) < 1.0);
    }
}
