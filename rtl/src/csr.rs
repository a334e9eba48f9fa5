//! `csr`: the AXI4-Lite control and status registers, generated from the one register
//! description in `prnic-regs` (see `docs/regmap.md`) by `rtl/build.rs`.
//!
//! ```text
//!  AXI4-Lite (32-bit) ──► decode (exact word addresses) ──► cfg_<reg>_<field>  (to blocks)
//!                                                    ◄── hw_<reg>_<field>   (from blocks)
//!                                                    ──► clr_<reg>_<field>  (W1C pulses)
//!                                                    ──► cmd_<reg>_*        (command pulses)
//! ```
//!
//! ### Pipeline
//!
//! Every output port comes from a flip-flop, and no path between flip-flops is longer than
//! the timing budget (docs/timing.md: 5 levels at 322 MHz; measured in
//! docs/blocks/csr.md).
//!
//! ```text
//!  write  C0  awvalid & wvalid & awready_q: address, data, strobes into wa_q/wd_q/ws_q
//!         C1  decode wa_q: RW fields, W1C clear and command pulses take the write;
//!             SLVERR (unmapped/misaligned) and read-only decided, registered
//!         C2  bvalid/bresp; CNT_CSR_* count; ERR_FLAGS.CSR_BAD_ACCESS set
//!         C3  bvalid high until bready; awready_q rises the cycle after
//!
//!  read   R0  arvalid & arready_q: address into ra_q
//!         R1  per group of 16 words, the word (ra_q[5:2]) into grp_*; the group number
//!             looked up; SLVERR decided; a counter's LO read latches HI (below)
//!         R2  the group's word into rdata_q (zero for SLVERR), rvalid/rresp
//!         R3  rvalid high until rready; arready_q rises the cycle after
//! ```
//!
//! * Latency: a response is valid [`CSR_LATENCY`] cycles after its request is taken (it
//!   was 1 before the pipeline); with bready/rready high, each channel takes one request
//!   every [`CSR_ACCESS_CYCLES`] cycles. The two channels run independently.
//! * `awready` = `wready`: a write is taken only when `awvalid` and `wvalid` are both high
//!   in a cycle where the registered ready is up; the ready falls for the rest of the
//!   access. Reads likewise with `arready`.
//! * A write's effects (RW fields on `cfg_*`, `clr_*` and `cmd_*` pulses, the block's own
//!   counters and flag) are all visible by the cycle its response is; a read that is
//!   taken after a write's response sees that write.
//! * An unmapped or misaligned address answers SLVERR (read data zero), changes nothing,
//!   sets the sticky `ERR_FLAGS.CSR_BAD_ACCESS` (a set wins over a clear in the same
//!   cycle) and counts in `CNT_CSR_BAD_ACCESS` (by 2 if a read and a write are both bad in
//!   the same cycle).
//! * A write to a read-only register answers OKAY, changes nothing and counts in
//!   `CNT_CSR_RO_WRITE`.
//! * `wstrb` is honoured on RW fields byte by byte; a command write with no strobe set
//!   carries no command.
//! * 64-bit counters read LO first: reading LO latches HI, so LO then HI is one value. A
//!   block's counter (`hw_cnt_*`) is sampled whole in R1. The block's own counters are two
//!   32-bit halves with a registered carry (no carry chain longer than 32 bits): LO is
//!   sampled in R1 and HI latched in R2, when HI has taken any carry pending in R1, so
//!   the pair is exactly the count at R1.
//! * Reset (synchronous, `rst`) returns every RW field to its reset value, clears the
//!   block's own counters and flag and drops any access in flight (its response never
//!   comes); nothing is taken while `rst` is high.

use rust_hdl::prelude::*;

/// Cycles from a request being taken (C0/R0) to its response being valid.
pub const CSR_LATENCY: u32 = 3;

/// Cycles per access on one channel when the master is always ready: the request cycle,
/// two pipeline stages, the response cycle; the ready rises again the cycle after.
pub const CSR_ACCESS_CYCLES: u32 = 4;

include!(concat!(env!("OUT_DIR"), "/csr_gen.rs"));

/// One bit per 32-bit word of the 4 KiB window, set for the words listed: the address
/// decode as a constant the read and write paths index by word address.
fn word_map(words: &[u32]) -> Bits<1024> {
    words.iter().fold(Bits::<1024>::default(), |m, w| {
        m.replace_bit(*w as usize, true)
    })
}

#[cfg(test)]
mod tests {
    //! The block's own 64-bit counters cross 2^32 only after 2^32 bad accesses, too many to
    //! simulate; here rust-hdl's simulator starts the low half just below the wrap.

    use super::*;

    const UNMAPPED: u32 = 0xffc;
    const LO: u32 = 0x200; // CNT_CSR_BAD_ACCESS_LO
    const HI: u32 = 0x204;

    fn tick(u: &mut Csr) {
        assert!(simulate(u, 1000), "inputs did not settle");
        u.clk.next = true.into();
        assert!(simulate(u, 1000), "rising edge did not settle");
        u.clk.next = false.into();
        assert!(simulate(u, 1000), "falling edge did not settle");
    }

    fn new() -> Csr {
        let mut u = Csr::build(|_, _| 0);
        u.connect_all();
        u.rst.next = true;
        tick(&mut u);
        u.rst.next = false;
        u.s_axil_bready.next = true;
        u.s_axil_rready.next = true;
        u
    }

    /// The counter's halves and pending carry, as if the count had got there by itself.
    fn poke(u: &mut Csr, lo: u32, hi: u32) {
        u.cnt_csr_bad_access_lo.q.next = (lo as u64).into();
        u.cnt_csr_bad_access_hi.q.next = (hi as u64).into();
        u.cnt_csr_bad_access_c.q.next = false;
    }

    /// A write requested in cycle `w_at` and a read in cycle `r_at` (either `None`), both
    /// run to their responses with bready/rready high; returns (bresp, (rdata, rresp)).
    fn access(
        u: &mut Csr,
        w_at: Option<(u64, u32)>,
        r_at: Option<(u64, u32)>,
    ) -> (Option<u8>, Option<(u32, u8)>) {
        let (mut b, mut r) = (None, None);
        let (mut w_taken, mut r_taken) = (w_at.is_none(), r_at.is_none());
        for c in 0..64u64 {
            let w = w_at.filter(|(at, _)| c >= *at && !w_taken);
            let rd = r_at.filter(|(at, _)| c >= *at && !r_taken);
            u.s_axil_awvalid.next = w.is_some();
            u.s_axil_wvalid.next = w.is_some();
            u.s_axil_awaddr.next = (w.map_or(0, |x| x.1) as u64).into();
            u.s_axil_wdata.next = 0_u64.into();
            u.s_axil_wstrb.next = 0xf_u64.into();
            u.s_axil_arvalid.next = rd.is_some();
            u.s_axil_araddr.next = (rd.map_or(0, |x| x.1) as u64).into();
            assert!(simulate(u, 1000));
            if w.is_some() && u.s_axil_awready.val() {
                w_taken = true;
            }
            if rd.is_some() && u.s_axil_arready.val() {
                r_taken = true;
            }
            if u.s_axil_bvalid.val() {
                b = Some(u.s_axil_bresp.val().index() as u8);
            }
            if u.s_axil_rvalid.val() {
                r = Some((
                    u.s_axil_rdata.val().index() as u32,
                    u.s_axil_rresp.val().index() as u8,
                ));
            }
            tick(u);
            if (w_at.is_none() || b.is_some()) && (r_at.is_none() || r.is_some()) {
                break;
            }
        }
        (b, r)
    }

    fn read(u: &mut Csr, a: u32) -> u32 {
        let (_, r) = access(u, None, Some((0, a)));
        let (v, resp) = r.expect("read answered");
        assert_eq!(resp, 0, "read {a:#x}");
        v
    }

    fn count(u: &mut Csr) -> u64 {
        let lo = read(u, LO) as u64;
        lo | ((read(u, HI) as u64) << 32)
    }

    #[test]
    fn the_block_counters_carry_into_the_high_half_exactly() {
        let mut u = new();
        poke(&mut u, 0xffff_fffe, 7);
        assert_eq!(access(&mut u, None, Some((0, UNMAPPED))).1, Some((0, 2)));
        assert_eq!(count(&mut u), (7 << 32) | 0xffff_ffff);
        assert_eq!(access(&mut u, Some((0, UNMAPPED)), None).0, Some(2));
        assert_eq!(count(&mut u), 8 << 32);
        // A bad read and a bad write in the same cycle count 2, across the wrap.
        poke(&mut u, 0xffff_ffff, 8);
        let (b, r) = access(&mut u, Some((0, UNMAPPED)), Some((0, UNMAPPED)));
        assert_eq!((b, r), (Some(2), Some((0, 2))));
        assert_eq!(count(&mut u), (9 << 32) | 1);
    }

    /// A LO read sampled in any cycle around a wrap, the pending carry's included, gives
    /// with its HI the count before or after the increment, never a mix.
    #[test]
    fn a_lo_hi_read_across_a_wrap_is_one_value() {
        for offset in 0..8u64 {
            let mut u = new();
            poke(&mut u, 0xffff_ffff, 3);
            let (b, r) = access(&mut u, Some((0, UNMAPPED)), Some((offset, LO)));
            assert_eq!(b, Some(2));
            let lo = r.unwrap().0 as u64;
            let got = lo | ((read(&mut u, HI) as u64) << 32);
            assert!(
                got == (3 << 32) | 0xffff_ffff || got == 4 << 32,
                "LO read {offset} cycles after the bad write: {got:#x}"
            );
            assert_eq!(count(&mut u), 4 << 32);
        }
    }
}
