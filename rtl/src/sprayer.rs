//! `sprayer`: the outer UDP source port of every transmitted packet.
//!
//! Switches pick an ECMP path by hashing the outer 5-tuple. The P-RNIC changes only the
//! outer UDP source port, so changing it per packet spreads one QP over every path
//! without adaptive routing in the switches (the Pegasus paper's per-packet spraying).
//!
//! ```text
//!  s_req_valid ─┐  stage 1            stage 2 (arithmetic)             stage 3 (select)   out
//!  s_req_flow ──┴► H3(flow) & mask ─► s1_masked ─► masked > span-1  ─► s2_gt ─┐
//!                                                ├► masked + min-span ► s2_a ──┤ mode, bad ─► m_port_valid
//!                                                ├► masked + min ─────► s2_b ──┤            m_port
//!                  walk (per-packet) ─────────────► walk or min ──────► s2_pp ─┘
//!  cfg_port_min/max ─► span-1, min-span, bad (registered) ─► mask (registered)
//! ```
//!
//! Each stage is at most one carry chain and a LUT or two deep: the compare, the two sums
//! and the per-packet choice are registered before the mode select, so no compare feeds
//! an adder or a mux in the same cycle.
//!
//! ### Inputs
//! * `clk`, `rst`: clock and synchronous active-high reset (clears the pipeline and the
//!   per-packet walk; the walk restarts at `cfg_port_min`).
//! * `s_req_valid`, `s_req_flow`: one request per packet; `s_req_flow` is `{VNI[23:0],
//!   QP[23:0]}` and only matters in per-flow mode. One request per cycle, never stalls.
//! * `cfg_mode`: 0 = per-packet (default), 1 = per-flow hash (the commodity-NIC ECMP
//!   baseline), 2 = fixed; 3 is reserved and behaves as fixed.
//! * `cfg_port_min`, `cfg_port_max`: the inclusive port range (default 49152..=65535).
//!   Quasi-static (CSR): values derived from them are registered (the hash mask in two
//!   steps), so a change is fully in effect for requests made two cycles after it.
//!
//! ### Outputs
//! * `m_port_valid`, `m_port`: the port for each request, in request order, exactly
//!   [`SPRAYER_LATENCY`] (3) cycles after the request.
//! * `status_cfg_error`: high (one cycle after the range becomes bad) while
//!   `cfg_port_min > cfg_port_max`; every mode then answers `cfg_port_min` (a defined,
//!   visible fallback rather than an out-of-range port).
//!
//! ### Modes
//! * per-packet: successive requests get successive ports of the range, wrapping from
//!   `max` to `min`, so every port is used equally and consecutive packets always differ
//!   (when the range holds more than one port).
//! * per-flow: `min + (H3(flow) mod span)`, computed without a divider: the hash is masked
//!   to the smallest all-ones value covering `max - min` and reduced by one conditional
//!   subtraction, which is exact because the masked value is below `2 * span`.
//! * fixed: `cfg_port_min`.

use crate::hash::H3Hash;
use rust_hdl::prelude::*;

/// Cycles from `s_req_valid` to the matching `m_port_valid`.
pub const SPRAYER_LATENCY: u32 = 3;
/// Width of the flow identifier `{VNI, QP}`.
pub const FLOW_BITS: usize = 48;

pub const MODE_PER_PACKET: u64 = 0;
pub const MODE_PER_FLOW: u64 = 1;
pub const MODE_FIXED: u64 = 2;

#[derive(LogicBlock)]
pub struct Sprayer {
    pub clk: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub s_req_valid: Signal<In, Bit>,
    pub s_req_flow: Signal<In, Bits<FLOW_BITS>>,
    pub cfg_mode: Signal<In, Bits<2>>,
    pub cfg_port_min: Signal<In, Bits<16>>,
    pub cfg_port_max: Signal<In, Bits<16>>,
    pub m_port_valid: Signal<Out, Bit>,
    pub m_port: Signal<Out, Bits<16>>,
    pub status_cfg_error: Signal<Out, Bit>,
    // Emitted as localparams, so the Verilog reads `cfg_mode == mode_per_flow`.
    mode_per_packet: Constant<Bits<2>>,
    mode_per_flow: Constant<Bits<2>>,
    flow_hash: H3Hash<FLOW_BITS, 16>,
    // Values derived from the (quasi-static) range, registered so that no subtract or
    // bit smear sits on the per-packet path. The mask is smeared from the registered
    // span, a second step, so neither step is more than one carry chain or OR tree.
    cfg_span_m1_q: DFF<Bits<16>>,
    cfg_mask_q: DFF<Bits<16>>,
    cfg_min_minus_span_q: DFF<Bits<16>>,
    cfg_bad_q: DFF<Bit>,
    s1_valid: DFF<Bit>,
    s1_masked: DFF<Bits<16>>,
    s2_valid: DFF<Bit>,
    /// `s1_masked > span - 1`: the masked hash needs the subtraction.
    s2_gt: DFF<Bit>,
    /// `masked + min - span` and `masked + min`, formed in parallel.
    s2_a: DFF<Bits<16>>,
    s2_b: DFF<Bits<16>>,
    /// The per-packet port of this request.
    s2_pp: DFF<Bits<16>>,
    /// Next port of the per-packet walk.
    walk: DFF<Bits<16>>,
    out_valid: DFF<Bit>,
    out_port: DFF<Bits<16>>,
    smear1: Signal<Local, Bits<16>>,
    smear2: Signal<Local, Bits<16>>,
    smear3: Signal<Local, Bits<16>>,
    walk_out_of_range: Signal<Local, Bit>,
    walk_wraps: Signal<Local, Bit>,
    port: Signal<Local, Bits<16>>,
}

impl Sprayer {
    /// `hash_seed` selects the per-flow H3 matrix (config `sprayer.hash_seed`).
    pub fn new(hash_seed: u64) -> Self {
        Self {
            clk: Default::default(),
            rst: Default::default(),
            s_req_valid: Default::default(),
            s_req_flow: Default::default(),
            cfg_mode: Default::default(),
            cfg_port_min: Default::default(),
            cfg_port_max: Default::default(),
            m_port_valid: Default::default(),
            m_port: Default::default(),
            status_cfg_error: Default::default(),
            mode_per_packet: Constant::new(MODE_PER_PACKET.into()),
            mode_per_flow: Constant::new(MODE_PER_FLOW.into()),
            flow_hash: H3Hash::new(hash_seed),
            cfg_span_m1_q: Default::default(),
            cfg_mask_q: Default::default(),
            cfg_min_minus_span_q: Default::default(),
            cfg_bad_q: Default::default(),
            s1_valid: Default::default(),
            s1_masked: Default::default(),
            s2_valid: Default::default(),
            s2_gt: Default::default(),
            s2_a: Default::default(),
            s2_b: Default::default(),
            s2_pp: Default::default(),
            walk: Default::default(),
            out_valid: Default::default(),
            out_port: Default::default(),
            smear1: Default::default(),
            smear2: Default::default(),
            smear3: Default::default(),
            walk_out_of_range: Default::default(),
            walk_wraps: Default::default(),
            port: Default::default(),
        }
    }
}

impl Logic for Sprayer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clk,
            cfg_span_m1_q,
            cfg_mask_q,
            cfg_min_minus_span_q,
            cfg_bad_q,
            s1_valid,
            s1_masked,
            s2_valid,
            s2_gt,
            s2_a,
            s2_b,
            s2_pp,
            walk,
            out_valid,
            out_port
        );
        // Each local is written exactly once and only read after: rust-hdl's simulator
        // settles a local that is read and then reassigned in one update by iterating,
        // and such a pair can oscillate.

        // Range-derived values (registered).
        self.cfg_span_m1_q.d.next = (self.cfg_port_max.val() - self.cfg_port_min.val());
        // min - span = min - (max - min) - 1 = 2 * min + !max (mod 2^16): one adder from
        // the range itself, not a subtraction after a subtraction. Added to a masked hash
        // that is at least span, it gives min + (masked - span).
        self.cfg_min_minus_span_q.d.next =
            ((self.cfg_port_min.val() << 1) + !self.cfg_port_max.val());
        self.cfg_bad_q.d.next = (self.cfg_port_min.val() > self.cfg_port_max.val());
        // Smallest all-ones mask >= span - 1 (bit smear of the registered span).
        self.smear1.next = (self.cfg_span_m1_q.q.val() | (self.cfg_span_m1_q.q.val() >> 1));
        self.smear2.next = (self.smear1.val() | (self.smear1.val() >> 2));
        self.smear3.next = (self.smear2.val() | (self.smear2.val() >> 4));
        self.cfg_mask_q.d.next = (self.smear3.val() | (self.smear3.val() >> 8));

        // Stage 1: hash the flow id and mask it to the range's power of two.
        self.flow_hash.key.next = self.s_req_flow.val();
        self.s1_valid.d.next = self.s_req_valid.val();
        self.s1_masked.d.next = (self.flow_hash.hash.val() & self.cfg_mask_q.q.val());

        // Stage 2: masked < 2 * span, so one conditional subtraction of span is the exact
        // remainder; the compare and both sums are registered, the choice is stage 3's.
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_gt.d.next = (self.s1_masked.q.val() > self.cfg_span_m1_q.q.val());
        self.s2_a.d.next = (self.s1_masked.q.val() + self.cfg_min_minus_span_q.q.val());
        self.s2_b.d.next = (self.s1_masked.q.val() + self.cfg_port_min.val());
        // A walk register outside the range (after reset or a range change) restarts at min.
        self.walk_out_of_range.next = ((self.walk.q.val() < self.cfg_port_min.val())
            | (self.walk.q.val() > self.cfg_port_max.val()));
        self.walk_wraps.next = (self.walk.q.val() >= self.cfg_port_max.val());
        if self.walk_out_of_range.val() {
            self.s2_pp.d.next = self.cfg_port_min.val();
        } else {
            self.s2_pp.d.next = self.walk.q.val();
        }
        if (self.s1_valid.q.val() & (self.cfg_mode.val() == self.mode_per_packet.val())) {
            if self.walk_out_of_range.val() {
                // This packet takes min; the next one min + 1 (or min if the range is one port).
                if (self.cfg_port_min.val() >= self.cfg_port_max.val()) {
                    self.walk.d.next = self.cfg_port_min.val();
                } else {
                    self.walk.d.next = (self.cfg_port_min.val() + 1);
                }
            } else if self.walk_wraps.val() {
                self.walk.d.next = self.cfg_port_min.val();
            } else {
                self.walk.d.next = (self.walk.q.val() + 1);
            }
        }

        // Stage 3: the mode picks one of the registered candidates.
        if self.cfg_bad_q.q.val() {
            self.port.next = self.cfg_port_min.val();
        } else if (self.cfg_mode.val() == self.mode_per_packet.val()) {
            self.port.next = self.s2_pp.q.val();
        } else if (self.cfg_mode.val() == self.mode_per_flow.val()) {
            if self.s2_gt.q.val() {
                self.port.next = self.s2_a.q.val();
            } else {
                self.port.next = self.s2_b.q.val();
            }
        } else {
            self.port.next = self.cfg_port_min.val();
        }

        self.out_valid.d.next = self.s2_valid.q.val();
        self.out_port.d.next = self.port.val();
        self.m_port_valid.next = self.out_valid.q.val();
        self.m_port.next = self.out_port.q.val();
        self.status_cfg_error.next = self.cfg_bad_q.q.val();

        if self.rst.val() {
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.out_valid.d.next = false;
            self.walk.d.next = 0.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sprayer_generates_verilog() {
        let mut uut = Sprayer::new(1);
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(v.contains("module top"));
    }
}
