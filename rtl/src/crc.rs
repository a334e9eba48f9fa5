//! `IcrcCheck`: the RoCEv2 invariant CRC (ICRC) of a receive frame, checked at line
//! rate on the full data bus (docs/blocks/rx_decap.md, "ICRC").
//!
//! The ICRC is CRC-32 (the Ethernet polynomial, bit-reflected) over 8 bytes of ones,
//! the inner IPv4 packet with its variant fields (DSCP/ECN, TTL, header checksum, UDP
//! checksum, BTH `resv8a`) set to ones, and everything up to the ICRC (the InfiniBand
//! Architecture Specification, vol. 1, and its RoCEv2 annex A17). The CRC is linear,
//! so one beat is two matrix products over GF(2), each output bit the parity of an AND
//! with a constant:
//!
//! ```text
//! state' = A·state ^ B·beat      A: 32×32 (D zero bits), B: 32×D (each data bit alone)
//! ```
//!
//! * **Where the ICRC starts.** The inner IPv4 header is byte 64 of the wire frame. The
//!   frame's first 64 bytes are zeroed and the register starts each frame from a
//!   constant that those 64 zero bytes turn into the register after all ones and the 8
//!   bytes of ones: zero bytes from a zero register leave it zero, so only the
//!   constant's path remains. The variant fields are forced to ones in the first 128
//!   bytes, which beats 0 and 1 hold.
//! * **Where it ends.** The frame's own ICRC goes into the CRC too. A correct frame then
//!   leaves a fixed register value, the residue `R` (as Ethernet checks its FCS). The
//!   last beat's missing bytes are zeros after the frame: `n` valid bytes of `K` leave
//!   `A^(8(K-n))·R`, one of `K` constants, picked by the linear map of the last beat's
//!   one-hot `tkeep` edge.
//!
//! ### Pipeline (each stage at most 3 LUT levels)
//! 1. the beat with its missing bytes and the first 64 bytes zeroed, the variant fields
//!    forced to ones (`data`, `tkeep`, first/second beat: one LUT per bit);
//! 2. eight partial products of `B`, one per eighth of the bus (32 bits each), and the
//!    last-beat `tkeep` edge;
//! 3. the register: the partials and `A·state` (or the start constant on a first beat),
//!    and the expected residue for the edge;
//! 4. register against residue (32 bits);
//! 5. `bad`: any of them differs.
//!
//! ### Ports
//! * `in_valid`, `in_data`, `in_keep`: the beat taken on the port (cycle t).
//! * `in_first`, `in_second`: it is its frame's first beat / second beat.
//! * `bad` (a register): in cycle t + [`ICRC_CHECK_LATENCY`], after a last beat in
//!   cycle t, whether the frame's ICRC is wrong. Meaningful only then: the caller knows
//!   which beat was last.

use crate::wiring::KeepBytes;
use array_init::array_init;
use rust_hdl::prelude::*;

/// Cycles from a frame's last beat on the input to its verdict on `bad`.
pub const ICRC_CHECK_LATENCY: usize = 5;
/// The reflected CRC-32 polynomial.
const POLY: u32 = 0xedb8_8320;
/// The register after a correct packet and its ICRC (least significant byte first).
pub const RESIDUE: u32 = 0xdebb_20e3;
/// Wire-frame offset of the inner IPv4 header: outer Ethernet, IPv4, UDP, VXLAN (50)
/// and inner Ethernet (14).
pub const ICRC_START: usize = 64;
/// Wire-frame bytes forced to ones: inner IPv4 DSCP/ECN, TTL, header checksum; inner
/// UDP checksum; BTH `resv8a`.
pub const ICRC_VARIANT_BYTES: [usize; 7] = [65, 72, 74, 75, 90, 91, 96];
/// Partial products per beat (the bus in eighths).
const PARTS: usize = 8;

/// One bit into the reflected CRC register.
fn step(s: u32, bit: bool) -> u32 {
    if (s & 1 == 1) != bit {
        (s >> 1) ^ POLY
    } else {
        s >> 1
    }
}

/// The inverse of a zero-bit step.
fn unstep(s: u32) -> u32 {
    if s >> 31 == 1 {
        ((s ^ POLY) << 1) | 1
    } else {
        s << 1
    }
}

/// `n` zero bits into the register (`A^n · s`).
fn zeros(mut s: u32, n: usize) -> u32 {
    for _ in 0..n {
        s = step(s, false);
    }
    s
}

/// The register after `bytes` from `s` (no final complement).
pub fn crc_bytes(mut s: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        for i in 0..8 {
            s = step(s, b >> i & 1 == 1);
        }
    }
    s
}

/// `B`: column i is what data bit i alone (bus bit i, byte i / 8, least significant bit
/// first) leaves in a zero register after `bits` bits.
pub fn data_columns(bits: usize) -> Vec<u32> {
    let mut cols = vec![0u32; bits];
    let mut c = step(0, true);
    for i in (0..bits).rev() {
        cols[i] = c;
        c = step(c, false);
    }
    cols
}

/// `A^bits`: column k is register bit k alone after `bits` zero bits.
pub fn state_columns(bits: usize) -> Vec<u32> {
    (0..32).map(|k| zeros(1 << k, bits)).collect()
}

/// The register a frame starts from: `bytes` zero bytes later it holds the register
/// after all ones and the 8 bytes of ones.
pub fn start_state(bytes: usize) -> u32 {
    let mut s = crc_bytes(0xffff_ffff, &[0xff; 8]);
    for _ in 0..8 * bytes {
        s = unstep(s);
    }
    s
}

/// The expected register after a last beat with `n` valid bytes of `k` (1 ≤ n ≤ k):
/// the residue followed by the `k - n` zero bytes.
pub fn residue_after(n: usize, k: usize) -> u32 {
    zeros(RESIDUE, 8 * (k - n))
}

/// Rows of a parity matrix from columns: row m has bit i set when column i has bit m.
fn rows_of(cols: &[u32], bits: usize, row_bits: usize) -> Vec<Vec<bool>> {
    (0..row_bits)
        .map(|m| (0..bits).map(|i| cols[i] >> m & 1 == 1).collect())
        .collect()
}

/// Combinational GF(2) matrix product: output bit m is the parity of `data` ANDed with
/// row m. Written as a leaf because `#[hdl_gen]` cannot index a constant array by a loop
/// variable; each row is one `^(data & rows$m)` in the Verilog, which synthesis maps to a
/// LUT6 XOR tree.
#[derive(LogicBlock)]
pub struct ParityMatrix<const N: usize, const M: usize> {
    pub data: Signal<In, Bits<N>>,
    pub out: Signal<Out, Bits<M>>,
    rows: [Constant<Bits<N>>; M],
}

impl<const N: usize, const M: usize> ParityMatrix<N, M> {
    /// `rows[m][i]`: data bit i counts in output bit m.
    pub fn new(rows: Vec<Vec<bool>>) -> Self {
        assert_eq!(rows.len(), M, "ParityMatrix: {M} rows");
        assert!(
            rows.iter().all(|r| r.len() == N),
            "ParityMatrix: rows of {N} bits"
        );
        Self {
            data: Default::default(),
            out: Default::default(),
            rows: array_init(|m| {
                let mut b: Bits<N> = Default::default();
                for (i, &one) in rows[m].iter().enumerate() {
                    if one {
                        b = b.replace_bit(i, true);
                    }
                }
                Constant::new(b)
            }),
        }
    }
}

impl<const N: usize, const M: usize> Logic for ParityMatrix<N, M> {
    fn update(&mut self) {
        let d = self.data.val();
        let mut o: Bits<M> = Default::default();
        for m in 0..M {
            o = o.replace_bit(m, (d & self.rows[m].val()).xor());
        }
        self.out.next = o;
    }

    fn connect(&mut self) {
        self.out.connect();
    }

    fn hdl(&self) -> Verilog {
        let mut v = String::from("always @(*) begin\n");
        for m in 0..M {
            v.push_str(&format!("   out[{m}] = ^(data & rows${m});\n"));
        }
        v.push_str("end\n");
        Verilog::Custom(v)
    }
}

/// The ICRC check of a `D`-bit bus with `K` = `D / 8` byte lanes (see the module
/// documentation).
#[derive(LogicBlock)]
pub struct IcrcCheck<const D: usize, const K: usize> {
    pub clk: Signal<In, Clock>,
    pub in_valid: Signal<In, Bit>,
    pub in_data: Signal<In, Bits<D>>,
    pub in_keep: Signal<In, Bits<K>>,
    pub in_first: Signal<In, Bit>,
    pub in_second: Signal<In, Bit>,
    pub bad: Signal<Out, Bit>,
    /// Byte masks of the first and second beat: AND (the bytes before the inner IPv4
    /// header) and OR (the variant fields).
    c_and0: Constant<Bits<D>>,
    c_and1: Constant<Bits<D>>,
    c_or0: Constant<Bits<D>>,
    c_or1: Constant<Bits<D>>,
    /// `A · start`: a first beat's register before its data.
    c_first: Constant<Bits<32>>,
    c_ones: Constant<Bits<D>>,
    keep_bytes: KeepBytes<D, K>,
    hand: Signal<Local, Bits<D>>,
    hor: Signal<Local, Bits<D>>,
    s1_valid: DFF<Bit>,
    s1_first: DFF<Bit>,
    s1_keep: DFF<Bits<K>>,
    s1_data: DFF<Bits<D>>,
    parts: ParityMatrix<D, 256>,
    s2_valid: DFF<Bit>,
    s2_first: DFF<Bit>,
    s2_edge: DFF<Bits<K>>,
    s2_parts: DFF<Bits<256>>,
    advance: ParityMatrix<32, 32>,
    resid: ParityMatrix<K, 32>,
    fold: Signal<Local, Bits<32>>,
    s3_crc: DFF<Bits<32>>,
    s3_expect: DFF<Bits<32>>,
    s4_diff: DFF<Bits<32>>,
    s5_bad: DFF<Bit>,
}

impl<const D: usize, const K: usize> Default for IcrcCheck<D, K> {
    fn default() -> Self {
        assert!(
            D == 8 * K && D.is_multiple_of(8 * PARTS) && (64..=128).contains(&K),
            "IcrcCheck: D = 8K, and beats 0 and 1 hold the first 128 bytes"
        );
        // Byte masks of beat 0 and beat 1 (the first 128 bytes of the frame).
        let mut and = [low_ones_d::<D>(), low_ones_d::<D>()];
        let mut or = [Bits::<D>::default(), Bits::<D>::default()];
        for a in 0..128 {
            let (beat, lane) = (a / K, a % K);
            if beat > 1 {
                break;
            }
            for b in 0..8 {
                if a < ICRC_START {
                    and[beat] = and[beat].replace_bit(8 * lane + b, false);
                }
                if ICRC_VARIANT_BYTES.contains(&a) {
                    or[beat] = or[beat].replace_bit(8 * lane + b, true);
                }
            }
        }
        // The partials: row 32g + j is bit j of the columns of the g-th eighth.
        let cols = data_columns(D);
        let part = D / PARTS;
        let part_rows = (0..256)
            .map(|m| {
                let (g, j) = (m / 32, m % 32);
                (0..D)
                    .map(|i| i / part == g && cols[i] >> j & 1 == 1)
                    .collect()
            })
            .collect();
        let expect_cols: Vec<u32> = (0..K).map(|i| residue_after(i + 1, K)).collect();
        Self {
            clk: Default::default(),
            in_valid: Default::default(),
            in_data: Default::default(),
            in_keep: Default::default(),
            in_first: Default::default(),
            in_second: Default::default(),
            bad: Default::default(),
            c_and0: Constant::new(and[0]),
            c_and1: Constant::new(and[1]),
            c_or0: Constant::new(or[0]),
            c_or1: Constant::new(or[1]),
            c_first: Constant::new(bits::<32>(zeros(start_state(ICRC_START), D) as LiteralType)),
            c_ones: Constant::new(low_ones_d::<D>()),
            keep_bytes: Default::default(),
            hand: Default::default(),
            hor: Default::default(),
            s1_valid: Default::default(),
            s1_first: Default::default(),
            s1_keep: Default::default(),
            s1_data: Default::default(),
            parts: ParityMatrix::new(part_rows),
            s2_valid: Default::default(),
            s2_first: Default::default(),
            s2_edge: Default::default(),
            s2_parts: Default::default(),
            advance: ParityMatrix::new(rows_of(&state_columns(D), 32, 32)),
            resid: ParityMatrix::new(rows_of(&expect_cols, K, 32)),
            fold: Default::default(),
            s3_crc: Default::default(),
            s3_expect: Default::default(),
            s4_diff: Default::default(),
            s5_bad: Default::default(),
        }
    }
}

fn low_ones_d<const D: usize>() -> Bits<D> {
    crate::wiring::low_ones::<D>(D)
}

impl<const D: usize, const K: usize> Logic for IcrcCheck<D, K> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clk, s1_valid, s1_first, s1_keep, s1_data, s2_valid, s2_first, s2_edge, s2_parts,
            s3_crc, s3_expect, s4_diff, s5_bad
        );
        // 1: the beat, masked.
        self.keep_bytes.keep.next = self.in_keep.val();
        if self.in_first.val() {
            self.hand.next = self.c_and0.val();
            self.hor.next = self.c_or0.val();
        } else if self.in_second.val() {
            self.hand.next = self.c_and1.val();
            self.hor.next = self.c_or1.val();
        } else {
            self.hand.next = self.c_ones.val();
            self.hor.next = 0.into();
        }
        self.s1_valid.d.next = self.in_valid.val();
        self.s1_first.d.next = self.in_first.val();
        self.s1_keep.d.next = self.in_keep.val();
        self.s1_data.d.next =
            ((self.in_data.val() & self.keep_bytes.bytes.val()) & self.hand.val()) | self.hor.val();
        // 2: the partial products; the last valid byte, one-hot.
        self.parts.data.next = self.s1_data.q.val();
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_first.d.next = self.s1_first.q.val();
        self.s2_edge.d.next = (self.s1_keep.q.val() & !(self.s1_keep.q.val() >> 1));
        self.s2_parts.d.next = self.parts.out.val();
        // 3: the register.
        self.advance.data.next = self.s3_crc.q.val();
        self.resid.data.next = self.s2_edge.q.val();
        self.fold.next = (((self.s2_parts.q.val().get_bits::<32>(0)
            ^ self.s2_parts.q.val().get_bits::<32>(32))
            ^ (self.s2_parts.q.val().get_bits::<32>(64)
                ^ self.s2_parts.q.val().get_bits::<32>(96)))
            ^ ((self.s2_parts.q.val().get_bits::<32>(128)
                ^ self.s2_parts.q.val().get_bits::<32>(160))
                ^ (self.s2_parts.q.val().get_bits::<32>(192)
                    ^ self.s2_parts.q.val().get_bits::<32>(224))));
        if self.s2_valid.q.val() {
            if self.s2_first.q.val() {
                self.s3_crc.d.next = (self.fold.val() ^ self.c_first.val());
            } else {
                self.s3_crc.d.next = (self.fold.val() ^ self.advance.out.val());
            }
        }
        self.s3_expect.d.next = self.resid.out.val();
        // 4, 5: against the residue.
        self.s4_diff.d.next = (self.s3_crc.q.val() ^ self.s3_expect.q.val());
        self.s5_bad.d.next = self.s4_diff.q.val().any();
        self.bad.next = self.s5_bad.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ICRC message of a wire frame: 8 bytes of ones, then the frame from byte 64
    /// with the variant fields set to ones (a plain bytewise reading of the rules).
    fn message(frame: &[u8]) -> Vec<u8> {
        let mut m = vec![0xff; 8];
        for (a, &b) in frame.iter().enumerate().skip(ICRC_START) {
            m.push(if ICRC_VARIANT_BYTES.contains(&a) {
                0xff
            } else {
                b
            });
        }
        m
    }

    /// The matrices, applied beat by beat as the RTL does, give the bytewise register.
    fn by_beats(frame: &[u8], k: usize) -> u32 {
        let d = 8 * k;
        let (b, a) = (data_columns(d), state_columns(d));
        let mut s = start_state(ICRC_START);
        for (j, beat) in frame.chunks(k).enumerate() {
            let mut next = 0u32;
            for (k_, &col) in a.iter().enumerate() {
                if s >> k_ & 1 == 1 {
                    next ^= col;
                }
            }
            for (lane, &byte) in beat.iter().enumerate() {
                let a_ = j * k + lane;
                let v = if a_ < ICRC_START {
                    0
                } else if ICRC_VARIANT_BYTES.contains(&a_) {
                    0xff
                } else {
                    byte
                };
                for bit in 0..8 {
                    if v >> bit & 1 == 1 {
                        next ^= b[8 * lane + bit];
                    }
                }
            }
            s = next;
        }
        s
    }

    #[test]
    fn beat_matrices_match_the_bytewise_crc() {
        for k in [64, 128] {
            for len in [124, 127, 128, 129, 131, 200, 255, 256, 257, 300] {
                let frame: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
                let want = crc_bytes(0xffff_ffff, &message(&frame));
                let n = len - (len - 1) / k * k;
                assert_eq!(
                    by_beats(&frame, k),
                    zeros(want, 8 * (k - n)),
                    "k {k} len {len}"
                );
            }
        }
    }

    #[test]
    fn a_frame_with_its_icrc_leaves_the_residue() {
        for k in [64, 128] {
            for len in [124, 129, 250, 256] {
                let mut frame: Vec<u8> = (0..len).map(|i| (i * 13 + 5) as u8).collect();
                let c = !crc_bytes(0xffff_ffff, &message(&frame[..len - 4]));
                frame[len - 4..].copy_from_slice(&c.to_le_bytes());
                let n = len - (len - 1) / k * k;
                assert_eq!(by_beats(&frame, k), residue_after(n, k));
                frame[len - 1] ^= 4;
                assert_ne!(by_beats(&frame, k), residue_after(n, k));
            }
        }
    }

    /// Frames with their expected verdicts: good ones (several lengths,
    /// the ICRC across two beats included), one byte changed in each beat of the
    /// header (bad), one masked byte changed (good).
    fn frames() -> Vec<(Vec<u8>, bool)> {
        let mut out = vec![];
        for len in [124, 129, 130, 131, 190, 200, 256, 300] {
            let mut f: Vec<u8> = (0..len).map(|i| (i * 29 + len) as u8).collect();
            let c = !crc_bytes(0xffff_ffff, &message(&f[..len - 4]));
            f[len - 4..].copy_from_slice(&c.to_le_bytes());
            out.push((f.clone(), false));
            for (at, bad) in [
                (70, true),
                (100, true),
                (96, false),
                (65, false),
                (len - 2, true),
            ] {
                let mut x = f.clone();
                x[at] ^= 0x11;
                out.push((x, bad));
            }
        }
        out
    }

    /// The block itself in rust-hdl's simulator, fed beat by beat with idle cycles in
    /// between some beats: `bad` ICRC_CHECK_LATENCY cycles after each last beat.
    fn simulate<const D: usize, const K: usize>() {
        let mut uut = IcrcCheck::<D, K>::default();
        uut.connect_all();
        let mut sim = simple_sim!(IcrcCheck<D, K>, clk, 100_000_000, ep, {
            let mut x = ep.init()?;
            let mut want: std::collections::VecDeque<(u64, bool)> = Default::default();
            let mut cycle = 0u64;
            let mut beats: Vec<(Vec<u8>, bool, bool, Option<bool>)> = vec![];
            for (f, bad) in frames() {
                let n = f.len().div_ceil(K);
                for (j, chunk) in f.chunks(K).enumerate() {
                    beats.push((chunk.to_vec(), j == 0, j == 1, (j + 1 == n).then_some(bad)));
                }
            }
            let mut idle = 0u64;
            let mut it = beats.into_iter().peekable();
            while it.peek().is_some() || !want.is_empty() {
                wait_clock_false!(ep, clk, x);
                if let Some(&(at, bad)) = want.front() {
                    if at == cycle {
                        sim_assert!(ep, x.bad.val() == bad, x);
                        want.pop_front();
                    }
                }
                idle += 1;
                let beat = if idle % 7 == 3 { None } else { it.next() };
                x.in_valid.next = beat.is_some();
                let mut data: Bits<D> = Default::default();
                let mut keep: Bits<K> = Default::default();
                if let Some((bytes, first, second, last)) = beat {
                    for (i, &b) in bytes.iter().enumerate() {
                        data.set_bits::<8>(8 * i, (b as u64).into());
                        keep = keep.replace_bit(i, true);
                    }
                    x.in_first.next = first;
                    x.in_second.next = second;
                    if let Some(bad) = last {
                        want.push_back((cycle + ICRC_CHECK_LATENCY as u64, bad));
                    }
                } else {
                    // Idle: junk on the bus.
                    data = Bits::<D>::mask();
                    keep = Bits::<K>::mask();
                }
                x.in_data.next = data;
                x.in_keep.next = keep;
                wait_clock_true!(ep, clk, x);
                cycle += 1;
            }
            ep.done(x)
        });
        sim.run(Box::new(uut), 100_000_000).unwrap();
    }

    #[test]
    fn icrc_check_simulated_on_both_buses() {
        simulate::<512, 64>();
        simulate::<1024, 128>();
    }

    #[test]
    fn parity_matrix_multiplies() {
        let rows = vec![vec![true, false, true], vec![true, true, true]];
        let mut uut = ParityMatrix::<3, 2>::new(rows);
        uut.connect_all();
        let mut sim = Simulation::new();
        sim.add_testbench(move |mut ep: Sim<ParityMatrix<3, 2>>| {
            let mut x = ep.init()?;
            for (d, want) in [
                (0b101u64, 0b00u64),
                (0b001, 0b11),
                (0b111, 0b10),
                (0b110, 0b01),
            ] {
                x.data.next = d.into();
                x = ep.wait(1, x)?;
                sim_assert_eq!(ep, x.out.val(), want, x);
            }
            ep.done(x)
        });
        sim.run(Box::new(uut), 10).unwrap();
    }
}
