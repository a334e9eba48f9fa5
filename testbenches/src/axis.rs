//! AXI4-Stream beats as the Verilated models carry them: `tdata` and `tkeep` as 32-bit
//! words, word 0 holding bits 31:0, so byte `i` of a beat is `tdata` bits 8i+7:8i and
//! `tkeep` bit `i`. Every harness packs, unpacks and checks beats with these.

/// The first `4 × N` bytes of `bytes` as `tdata` words (missing bytes are 0).
pub fn pack<const N: usize>(bytes: &[u8]) -> [u32; N] {
    let mut w = [0u32; N];
    for (i, b) in bytes.iter().enumerate().take(4 * N) {
        w[i / 4] |= (*b as u32) << (8 * (i % 4));
    }
    w
}

/// Byte `i` of a beat.
pub fn byte(data: &[u32], i: usize) -> u8 {
    (data[i / 4] >> (8 * (i % 4))) as u8
}

/// The first `n` bytes of a beat.
pub fn unpack(data: &[u32], n: usize) -> Vec<u8> {
    (0..n).map(|i| byte(data, i)).collect()
}

/// `tkeep` words with the low `n` bytes kept.
pub fn keep_low<const M: usize>(n: usize) -> [u32; M] {
    std::array::from_fn(|w| match n.saturating_sub(32 * w) {
        0 => 0,
        k if k >= 32 => u32::MAX,
        k => (1u32 << k) - 1,
    })
}

/// Whether byte `i` is kept.
pub fn kept(keep: &[u32], i: usize) -> bool {
    keep[i / 32] >> (i % 32) & 1 == 1
}

/// The number of kept bytes when `tkeep` is low-justified (bytes 0..n kept, none above),
/// else `None`.
pub fn keep_len(keep: &[u32]) -> Option<usize> {
    let n = keep.iter().map(|w| w.count_ones() as usize).sum::<usize>();
    (0..n).all(|i| kept(keep, i)).then_some(n)
}

/// Append the kept bytes of a beat of `beat_bytes` bytes to `out`.
pub fn push_kept(data: &[u32], keep: &[u32], beat_bytes: usize, out: &mut Vec<u8>) {
    out.extend(
        (0..beat_bytes)
            .filter(|&i| kept(keep, i))
            .map(|i| byte(data, i)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_unpack_and_keep_round_trip() {
        let bytes: Vec<u8> = (0..70u8).collect();
        let w = pack::<32>(&bytes);
        assert_eq!(w[0], 0x0302_0100);
        assert_eq!(unpack(&w, 70), bytes);
        let k = keep_low::<4>(70);
        assert_eq!(k, [u32::MAX, u32::MAX, 0x3f, 0]);
        assert_eq!(keep_len(&k), Some(70));
        assert_eq!(keep_low::<4>(128), [u32::MAX; 4]);
        assert_eq!(keep_low::<4>(0), [0; 4]);
        let mut out = vec![];
        push_kept(&w, &k, 128, &mut out);
        assert_eq!(out, bytes);
    }

    #[test]
    fn a_hole_in_tkeep_is_not_low_justified() {
        let mut k = keep_low::<4>(40);
        k[0] ^= 1 << 5;
        assert_eq!(keep_len(&k), None);
        assert_eq!(keep_len(&[0, 1, 0, 0]), None);
        assert_eq!(keep_len(&[0; 4]), Some(0));
    }
}
