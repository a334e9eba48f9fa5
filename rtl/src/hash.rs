//! H3 hash: a matrix of seed rows XOR-ed together under the key's set bits.
//!
//! H3 is the textbook universal hash for hardware: every output bit is the parity of an
//! AND of the key with one seed column, so it costs only XOR trees (no multipliers, no
//! carry chains) and any two independent seed matrices give independent functions. The
//! flow table uses four of them (one per way); the sprayer uses one for its per-flow mode.
//!
//! ### Inputs
//! * `key`: the value to hash (combinational).
//!
//! ### Outputs
//! * `hash`: `XOR { rows[i] : key[i] == 1 }`, combinational (no latency).
//!
//! The rows come from [`h3_rows`], a pure function of a 64-bit seed, so the generator, the
//! software table and the golden models can all rebuild the same matrix from the config.

use array_init::array_init;
use rust_hdl::prelude::*;

/// The H3 matrix for `key_bits` rows of `hash_bits` each, drawn from `seed` by SplitMix64.
///
/// SplitMix64 is chosen because it is tiny, well known and fully specified, so an
/// independent model can re-implement it from its published definition.
pub fn h3_rows(seed: u64, key_bits: usize, hash_bits: usize) -> Vec<u64> {
    assert!(hash_bits <= 64, "H3 rows are at most 64 bits wide");
    let mask = if hash_bits == 64 {
        u64::MAX
    } else {
        (1u64 << hash_bits) - 1
    };
    let mut state = seed;
    (0..key_bits)
        .map(|_| {
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) & mask
        })
        .collect()
}

/// Combinational H3 hash of a `K`-bit key to `H` bits.
#[derive(LogicBlock)]
pub struct H3Hash<const K: usize, const H: usize> {
    pub key: Signal<In, Bits<K>>,
    pub hash: Signal<Out, Bits<H>>,
    rows: [Constant<Bits<H>>; K],
    // acc_i = XOR of rows[0..=i] selected by key: an explicit chain rather than a
    // read-modify-write of one local, which rust-hdl's simulator cannot settle.
    acc: [Signal<Local, Bits<H>>; K],
}

impl<const K: usize, const H: usize> H3Hash<K, H> {
    pub fn new(seed: u64) -> Self {
        let rows = h3_rows(seed, K, H);
        Self {
            key: Default::default(),
            hash: Default::default(),
            rows: array_init(|i| Constant::new(bits::<H>(rows[i] as LiteralType))),
            acc: array_init(|_| Default::default()),
        }
    }
}

impl<const K: usize, const H: usize> Logic for H3Hash<K, H> {
    #[hdl_gen]
    fn update(&mut self) {
        if self.key.val().get_bit(0) {
            self.acc[0].next = self.rows[0].val();
        } else {
            self.acc[0].next = 0.into();
        }
        // Driven before the loop too, so a one-bit key (no loop iterations) has an output.
        self.hash.next = self.acc[0].val();
        for i in 1..K {
            if self.key.val().get_bit(i) {
                self.acc[i].next = (self.acc[i - 1].val() ^ self.rows[i].val());
            } else {
                self.acc[i].next = self.acc[i - 1].val();
            }
            // The last iteration's assignment wins; rust-hdl cannot emit `acc[K - 1]`
            // for a const-generic K, so the output is taken inside the loop.
            self.hash.next = self.acc[i].val();
        }
    }
}
