//! `flow_table`: the tenant flow table. Overlay `{VNI, destination IPv4}` → underlay
//! address and VXLAN fields; a miss means the packet must be dropped.
//!
//! ```text
//!  lookup accepted in cycle c                                          result in c + 5
//!  c    key ─► H3_w(key) & (depth-1) ─► l1_idx[w]              key, tag, clearing ─► l1
//!  c+1  BRAM way w reads l1_idx[w]     stash: key vs every entry, 3-bit groups ─► sg[i]
//!       pending-purge match on l1_idx ─► lm
//!  c+2  BRAM word: key in 3-bit groups ─► lg[w], value ─► lv[w]    AND(sg[i]) ─► shit[i]
//!  c+3  AND(lg[w]) & !purged ─► whit[w]; lv ─► wv     shit & stash value, OR and AND in
//!                                                      groups of three entries ─► go, ga
//!  c+4  OR of the way and group terms ─► out_value, out_hit; OR != AND per bit ─► dis
//!  c+5  m_result_*; several & any(dis) ─► multi-hit flag and counters
//! ```
//!
//! * 4-way cuckoo: one `BankRam` per way (`depth` = slots per way), each way indexed by its
//!   own H3 hash (seeds from the config). A stash of `stash_len` (≤ 64) entries in
//!   registers is compared in parallel with the ways.
//! * Fixed latency of [`FLOW_TABLE_LATENCY`] cycles, one lookup accepted every cycle,
//!   never a stall; results come back in order with the caller's `s_lookup_tag`.
//! * Nothing follows a block-RAM read in the cycle of the read but the RAM's own depth
//!   mux and one 3-bit compare (the budget there is 3 logic levels). Wide compares and
//!   one-hot selects are cut into 6-input pieces whose results are registered: the wide
//!   LUTs a mapper builds for a 56-bit compare in one cycle cost twice the area.
//!
//! ### Inputs
//! * `clk`, `rst`: synchronous reset. Reset clears the stash, the counters and flags, and
//!   starts a sweep that writes every way slot invalid (`depth` cycles,
//!   `status_clearing` high). Lookups during the sweep answer miss; updates during it
//!   are refused and counted as bad updates. Lookups and read-backs whose results have
//!   not come out by the reset cycle are dropped.
//! * `s_lookup_valid`, `s_lookup_key` (`{VNI[55:32], IPv4[31:0]}`), `s_lookup_tag`.
//! * `s_update_valid`, `s_update_op` (1 write way slot, 2 write stash slot, 3 invalidate
//!   way slot, 0 invalidate stash slot: [`OP_WRITE_SLOT`] and the others), `s_update_way`, `s_update_index`, `s_update_key`,
//!   `s_update_value`: one whole entry. For a write, `s_update_key` must be set up one
//!   cycle ahead (the CSR staging registers are) and the cycle before must carry no
//!   other command (update or read-back); see *Updates* below. Refused and counted in
//!   `status_bad_update_count` (shown from the third cycle after the command's): an
//!   index beyond the table (or the stash), a way write to any slot but the key's own
//!   slot in that way, a write whose key was not set up in the cycle before or that
//!   follows another command, any update during the sweep.
//! * `cfg_clear_errors`: clears the sticky `status_multi_hit` flag (write-1-to-clear).
//! * `s_read_valid`, `s_read_stash`, `s_read_way`, `s_read_index`: read one slot (or stash
//!   entry) back for software; `m_read_valid` / `m_read_entry` (`{valid, key, value}`) four
//!   cycles later, held until the next read. An empty slot reads back as all zeros. Reads
//!   use the RAMs' second port and never disturb lookups; a read in the cycle of an
//!   update is refused and counted. During the sweep a way read returns the slot being
//!   cleared in that cycle, as before.
//!
//! ### Outputs
//! * `m_result_valid`, `m_result_hit`, `m_result_value`, `m_result_tag`. Value layout:
//!   `{underlay IPv4[111:80], next-hop MAC[79:32], egress VNI[31:8], flags[7:0]}`; zero
//!   on a miss; the OR of the hit values if several places hit.
//! * `status_multi_hit` (sticky), `status_multi_hit_count`: lookups whose hits disagree
//!   in value (updated one cycle after the lookup's result). `status_dup_hit_count`:
//!   lookups that hit in more than one place with equal values. Updates cannot cause
//!   either (see *Updates*); both stay as monitors of the table contents.
//!
//! ### Updates: a key is in one place, and a lookup sees an update whole
//! A lookup of key K reads K's own slot in each way and every stash entry. A write of K
//! to one of those places removes K from all the others **in the same update**, as far as
//! any lookup, read-back or later update can tell, so no lookup ever finds K in two
//! places (proved by a Yosys temporal induction in `testbenches/tests/formal.rs`).
//! Relocating a key is therefore one write to its new place: it never misses and is never
//! found twice while it moves.
//!
//! ```text
//!  A-1  the staged key ─► pre_key, pre_home[w] = H3_w(key)
//!  A    the command is registered with the checks that need its inputs; port A of every
//!       way reads the staged key's own slot (pre-read); stash keys vs the staged key
//!  A+1  the command executes: target way slot written; stash key and valid written, and
//!       any other stash entry holding the key invalidated; pre-read word compared
//!  A+2  present[w]: the key is in its own slot of way w (not the target): that slot
//!       becomes a pending purge, written invalid in the first later cycle whose command
//!       or read leaves way w's port A free; until then every lookup, read-back and
//!       pre-read of that slot treats it as empty
//!  A+3  the stash value is written, two edges after the stash key, so the value a
//!       lookup selects is the value of the entry it compared
//! ```
//!
//! Port A of a way RAM has one access per cycle: a command's own write, a read-back, a
//! pre-read (in a cycle with no command or read), the sweep, or a purge. A write
//! command needs a pre-read in the cycle before it and its own write, and commands come
//! every other cycle, so a purge cannot have a cycle of its own right away: it waits for
//! a cycle whose command or read uses another way (the cycle of the very next command
//! at the latest, unless that command targets the same way). At most one purge per way
//! is pending: a write command drains every way but its target before its own purge
//! becomes pending.
//!
//! Port A's inputs reach every block RAM of a way, and the command's verdict (`take`)
//! comes late in cycle A + 1. So each way chooses from its own copies of the command
//! registers (`KeepDff`, so that synthesis does not merge them back), `take` is a
//! function of five registers, and each port-A input has a form for a taken command and
//! one for a cycle without one, both from registers, that `take` chooses between. The
//! worst path, register to a RAM's write enable, is three LUTs (`take`, the choice, the
//! decode of the RAM's 4K half) with small fan-outs but the last.
//!
//! The ways are written on the edge after cycle A + 1 and a lookup accepted in cycle c
//! reads them on the edge after c + 1; the stash key and valid bit are written on the
//! edge after A + 1 and compared in cycle c + 1. So a lookup accepted in cycle c sees
//! every update taken in cycle c - 1 or earlier, whole, and none taken later (as if the
//! table were written in one cycle).

use crate::hash::H3Hash;
use crate::ram::{BankRam, DistRam};
use crate::wiring::{low_ones, KeepDff};
use array_init::array_init;
use rust_hdl::prelude::*;

pub const KEY_BITS: usize = 56;
pub const VALUE_BITS: usize = 112;
/// RAM word: `{valid[168], key[167:112], value[111:0]}`.
pub const ENTRY_BITS: usize = 1 + KEY_BITS + VALUE_BITS;
/// Stash word: an entry without its valid bit (the stash keeps valid bits in registers).
const STASH_BITS: usize = ENTRY_BITS - 1;
pub const TAG_BITS: usize = 16;
pub const INDEX_BITS: usize = 16;
pub const WAYS: usize = 4;
pub const MAX_STASH: usize = 64;
/// Cycles from `s_lookup_valid` to the matching `m_result_valid`.
pub const FLOW_TABLE_LATENCY: u32 = 5;
/// Cycles from an accepted `s_read_valid` to the matching `m_read_valid`.
pub const FLOW_TABLE_READ_LATENCY: u32 = 4;

/// Update ops on `s_update_op`: the low two bits of the FT_CMD register's op (1 write way
/// slot, 2 write stash slot, 3 invalidate way slot, 4 invalidate stash slot;
/// docs/regmap.md), so `prnic_top` wires the CSR field to the port with no logic between
/// (an `op − 1` there was a level of its own ahead of the refusal checks).
pub const OP_WRITE_SLOT: u64 = 1;
pub const OP_WRITE_STASH: u64 = 2;
pub const OP_INVALIDATE_SLOT: u64 = 3;
pub const OP_INVALIDATE_STASH: u64 = 0;

/// Stash entries per OR / AND group of the value select (one LUT6: three hit-and-value
/// pairs).
const TREE_GROUP: usize = 3;

#[derive(LogicBlock)]
pub struct FlowTable {
    pub clk: Signal<In, Clock>,
    pub rst: Signal<In, Bit>,
    pub s_lookup_valid: Signal<In, Bit>,
    pub s_lookup_key: Signal<In, Bits<KEY_BITS>>,
    pub s_lookup_tag: Signal<In, Bits<TAG_BITS>>,
    pub m_result_valid: Signal<Out, Bit>,
    pub m_result_hit: Signal<Out, Bit>,
    pub m_result_value: Signal<Out, Bits<VALUE_BITS>>,
    pub m_result_tag: Signal<Out, Bits<TAG_BITS>>,
    pub s_update_valid: Signal<In, Bit>,
    pub s_update_op: Signal<In, Bits<2>>,
    pub s_update_way: Signal<In, Bits<2>>,
    pub s_update_index: Signal<In, Bits<INDEX_BITS>>,
    pub s_update_key: Signal<In, Bits<KEY_BITS>>,
    pub s_update_value: Signal<In, Bits<VALUE_BITS>>,
    pub cfg_clear_errors: Signal<In, Bit>,
    pub s_read_valid: Signal<In, Bit>,
    pub s_read_stash: Signal<In, Bit>,
    pub s_read_way: Signal<In, Bits<2>>,
    pub s_read_index: Signal<In, Bits<INDEX_BITS>>,
    pub m_read_valid: Signal<Out, Bit>,
    pub m_read_entry: Signal<Out, Bits<ENTRY_BITS>>,
    pub status_clearing: Signal<Out, Bit>,
    pub status_multi_hit: Signal<Out, Bit>,
    pub status_multi_hit_count: Signal<Out, Bits<32>>,
    pub status_dup_hit_count: Signal<Out, Bits<32>>,
    pub status_bad_update_count: Signal<Out, Bits<32>>,

    // Sizes from the config, as constants: they bound the unrolled loops.
    depth_m1: Constant<Bits<INDEX_BITS>>,
    // The index bits above the table's (`!depth_m1`): a slot index is in range when none
    // is set, an OR of a few bits rather than a compare on a carry chain.
    depth_hi: Constant<Bits<INDEX_BITS>>,
    stash_len: Constant<Bits<8>>,
    /// Bit i is `i < stash_len` (i < 128): the stash range check as a table the
    /// synthesis folds into LUTs, where `index < stash_len` built a carry chain.
    stash_lt: Constant<Bits<128>>,
    tree_groups: Constant<Bits<8>>,
    op_write_slot: Constant<Bits<2>>,
    op_write_stash: Constant<Bits<2>>,
    op_invalidate_slot: Constant<Bits<2>>,
    op_invalidate_stash: Constant<Bits<2>>,
    all_ones: Constant<Bits<VALUE_BITS>>,
    // A 56-bit compare in 3-bit groups: bit 3g of `!(x | x >> 1 | x >> 2)` (x = a ^ b)
    // says group g is equal. `gpos` marks those bits; `gfill` is every other bit but
    // bit 1, which carries a valid flag; `gfill_p` also fills bit 1.
    gpos: Constant<Bits<KEY_BITS>>,
    gfill: Constant<Bits<KEY_BITS>>,
    gfill_p: Constant<Bits<KEY_BITS>>,
    bit1: Constant<Bits<KEY_BITS>>,

    hash: [H3Hash<KEY_BITS, INDEX_BITS>; WAYS],
    uhash: [H3Hash<KEY_BITS, INDEX_BITS>; WAYS],
    way: [BankRam<Bits<ENTRY_BITS>>; WAYS],
    /// `{key, value}` of every stash entry, for read-back only: a copy of the register
    /// stash (which the parallel compare and the value select need), so read-back costs a
    /// few LUTs instead of a 32-way select of 168 bits.
    stash_ram: DistRam<Bits<STASH_BITS>>,
    stash_valid: Vec<DFF<Bit>>,
    stash_key: Vec<DFF<Bits<KEY_BITS>>>,
    stash_value: Vec<DFF<Bits<VALUE_BITS>>>,

    clearing: DFF<Bit>,
    clear_index: DFF<Bits<INDEX_BITS>>,
    // The sweep's port-A writes come one cycle after `clearing` (the ways are written
    // one cycle after everything that is registered at the ports): `k_sw`, `q_idx`.

    // ---- Lookup pipeline ----
    l1_valid: DFF<Bit>,
    // Kept: `k_sw` has the same input.
    l1_fm: KeepDff<Bit>,
    l1_key: DFF<Bits<KEY_BITS>>,
    l1_tag: DFF<Bits<TAG_BITS>>,
    l1_idx: [DFF<Bits<INDEX_BITS>>; WAYS],
    l2_valid: DFF<Bit>,
    l2_fm: DFF<Bit>,
    l2_key: DFF<Bits<KEY_BITS>>,
    l2_tag: DFF<Bits<TAG_BITS>>,
    lm_pend: [DFF<Bit>; WAYS],
    lm_infl: [DFF<Bit>; WAYS],
    sx: Vec<Signal<Local, Bits<KEY_BITS>>>,
    sg: Vec<DFF<Bits<KEY_BITS>>>,
    l3_valid: DFF<Bit>,
    l3_fm: DFF<Bit>,
    l3_tag: DFF<Bits<TAG_BITS>>,
    lx: [Signal<Local, Bits<KEY_BITS>>; WAYS],
    lg: [DFF<Bits<KEY_BITS>>; WAYS],
    lv: [DFF<Bits<VALUE_BITS>>; WAYS],
    lmask: [DFF<Bit>; WAYS],
    // Stash hits, padded with never-hit entries to whole groups of three.
    shit: Vec<DFF<Bit>>,
    l4_valid: DFF<Bit>,
    l4_tag: DFF<Bits<TAG_BITS>>,
    whit: [DFF<Bit>; WAYS],
    wv: [DFF<Bits<VALUE_BITS>>; WAYS],
    st_hv: Vec<Signal<Local, Bits<VALUE_BITS>>>,
    st_ha: Vec<Signal<Local, Bits<VALUE_BITS>>>,
    go: Vec<DFF<Bits<VALUE_BITS>>>,
    ga: Vec<DFF<Bits<VALUE_BITS>>>,
    g_any: Vec<DFF<Bit>>,
    g_two: Vec<DFF<Bit>>,
    // Stage 4 chains: element 0 folds in the ways, element g + 1 stash group g.
    c_or: Vec<Signal<Local, Bits<VALUE_BITS>>>,
    c_and: Vec<Signal<Local, Bits<VALUE_BITS>>>,
    c_one: Vec<Signal<Local, Bit>>,
    c_two: Vec<Signal<Local, Bit>>,
    wy_hv: [Signal<Local, Bits<VALUE_BITS>>; WAYS],
    wy_ha: [Signal<Local, Bits<VALUE_BITS>>; WAYS],
    wy_or: [Signal<Local, Bits<VALUE_BITS>>; 5],
    wy_and: [Signal<Local, Bits<VALUE_BITS>>; 5],
    wy_one: [Signal<Local, Bit>; 5],
    wy_two: [Signal<Local, Bit>; 5],
    all_or: Signal<Local, Bits<VALUE_BITS>>,
    all_and: Signal<Local, Bits<VALUE_BITS>>,
    any_hit: Signal<Local, Bit>,
    several: Signal<Local, Bit>,
    out_valid: DFF<Bit>,
    out_hit: DFF<Bit>,
    out_value: DFF<Bits<VALUE_BITS>>,
    out_tag: DFF<Bits<TAG_BITS>>,
    // The multi-hit check, one cycle after the result.
    chk_several: DFF<Bit>,
    chk_dis: DFF<Bits<VALUE_BITS>>,
    disagree: Signal<Local, Bit>,
    multi_hit: DFF<Bit>,
    multi_hit_count: DFF<Bits<32>>,
    dup_hit_count: DFF<Bits<32>>,

    // ---- Commands (see "Updates") ----
    pre_key: DFF<Bits<KEY_BITS>>,
    pre_home: [DFF<Bits<INDEX_BITS>>; WAYS],
    // No update, read or sweep in this cycle (so a write next cycle has a good pre-read).
    pre_ok: DFF<Bit>,
    upd_is_slot: Signal<Local, Bit>,
    upd_is_stash: Signal<Local, Bit>,
    upd_is_write: Signal<Local, Bit>,
    upd_slot_ok: Signal<Local, Bit>,
    upd_stash_ok: Signal<Local, Bit>,
    upd_home_ok: Signal<Local, Bit>,
    upd_bad0: Signal<Local, Bit>,
    upd_badh: Signal<Local, Bit>,
    upd_keyneq: Signal<Local, Bit>,
    c_valid: DFF<Bit>,
    c_rst: DFF<Bit>,
    c_is_slot: DFF<Bit>,
    // Kept: the per-way copies below have the same inputs.
    c_is_write: KeepDff<Bit>,
    c_bad0: KeepDff<Bit>,
    c_badh: KeepDff<Bit>,
    c_ok: KeepDff<Bit>,
    c_keyneq: DFF<Bit>,
    c_fresh: DFF<Bit>,
    c_rdref: DFF<Bit>,
    c_index: DFF<Bits<INDEX_BITS>>,
    c_key: DFF<Bits<KEY_BITS>>,
    c_value: DFF<Bits<VALUE_BITS>>,
    c_home: [DFF<Bits<INDEX_BITS>>; WAYS],
    c_tgt: [DFF<Bit>; WAYS],
    c_sel: Vec<DFF<Bit>>,
    // Per-way copies of the command registers and of the sweep flag: each way's port A
    // (address, enable, valid bit: nets to every block RAM of the way) is selected from
    // its own copies, not from one `take` that fans out to all four ways. `k_ok` is a
    // command whose key is the staged one; with `k_bad0`, `k_badh`, `k_write` and `k_fresh`
    // it gives `take` in five inputs, so `take` and the two forms of each port-A input
    // below fit one LUT.
    k_ok: [KeepDff<Bit>; WAYS],
    k_bad0: [KeepDff<Bit>; WAYS],
    k_badh: [KeepDff<Bit>; WAYS],
    k_write: [KeepDff<Bit>; WAYS],
    k_fresh: [KeepDff<Bit>; WAYS],
    k_sw: [KeepDff<Bit>; WAYS],
    k_rd: [KeepDff<Bit>; WAYS],
    take_w: [Signal<Local, Bit>; WAYS],
    // A second set of the five, and `take` from them, for the upper half of the port-A
    // address only. Those bits select the block-RAM row when a way spans several (the
    // write-enable decode in front of every RAM of the way), and from one `take` with
    // every address bit, the write enable and the purge terms as loads, that path was
    // 12 ps over budget (docs/timing.md).
    ka_ok: [KeepDff<Bit>; WAYS],
    ka_bad0: [KeepDff<Bit>; WAYS],
    ka_badh: [KeepDff<Bit>; WAYS],
    ka_write: [KeepDff<Bit>; WAYS],
    ka_fresh: [KeepDff<Bit>; WAYS],
    take_a: [Signal<Local, Bit>; WAYS],
    // The port-A address of a cycle without a taken command, by priority: the sweep's or
    // the read-back's (registered with its select in the cycle before, from the clear
    // counter or straight from the port), a purge's, else the pre-read's.
    q_sel: [DFF<Bit>; WAYS],
    q_idx: DFF<Bits<INDEX_BITS>>,
    pa_take_mask: [Signal<Local, Bits<INDEX_BITS>>; WAYS],
    pa_take_mask_hi: [Signal<Local, Bits<INDEX_BITS>>; WAYS],
    pa_addr_take: [Signal<Local, Bits<INDEX_BITS>>; WAYS],
    pa_addr_idle: [Signal<Local, Bits<INDEX_BITS>>; WAYS],
    pa_we_take: [Signal<Local, Bit>; WAYS],
    pa_we_idle: [Signal<Local, Bit>; WAYS],
    bad: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    // Stash purge: the staged key vs every stash key in cycle A, in 3-bit groups.
    px: Vec<Signal<Local, Bits<KEY_BITS>>>,
    sp: Vec<DFF<Bits<KEY_BITS>>>,
    // Pre-read: the staged key's own slots (port A, edge after A), compared in A + 1.
    pm_pend: [DFF<Bit>; WAYS],
    pm_infl: [DFF<Bit>; WAYS],
    pmask: [DFF<Bit>; WAYS],
    prx: [Signal<Local, Bits<KEY_BITS>>; WAYS],
    pg: [DFF<Bits<KEY_BITS>>; WAYS],
    // The write executed last cycle; its copies in other ways are found this cycle.
    infl_valid: DFF<Bit>,
    infl_tgt: [DFF<Bit>; WAYS],
    infl_slot: [DFF<Bits<INDEX_BITS>>; WAYS],
    present: [Signal<Local, Bit>; WAYS],
    present_q: [DFF<Bit>; WAYS],
    // Pending purges, one per way.
    // Kept, as the copies below (an unkept register would be merged into its kept copy).
    pend_valid: [KeepDff<Bit>; WAYS],
    // A copy of `pend_valid` for the port-A form of a cycle without a taken command.
    pend_valid_i: [KeepDff<Bit>; WAYS],
    pend_next: [Signal<Local, Bit>; WAYS],
    pend_slot: [DFF<Bits<INDEX_BITS>>; WAYS],
    drain: [Signal<Local, Bit>; WAYS],
    // The stash value two edges after its key (see "Updates").
    u2_valid: DFF<Bit>,
    u2_index: DFF<Bits<INDEX_BITS>>,
    u2_key: DFF<Bits<KEY_BITS>>,
    u2_value: DFF<Bits<VALUE_BITS>>,
    u3_valid: DFF<Bit>,
    u3_index: DFF<Bits<INDEX_BITS>>,
    u3_key: DFF<Bits<KEY_BITS>>,
    u3_value: DFF<Bits<VALUE_BITS>>,
    // Refusals of this cycle (0, 1 or 2), added to the count in the next: the 32-bit
    // adder then takes a register, not a choice between +1 and +2.
    bad_inc: DFF<Bits<2>>,
    bad_update_count: DFF<Bits<32>>,

    // ---- Read-back ----
    rd_take: Signal<Local, Bit>,
    rd_refused: Signal<Local, Bit>,
    // Kept: `k_rd` has the same input.
    rd1_valid: KeepDff<Bit>,
    rd1_stash: DFF<Bit>,
    rd1_way: DFF<Bits<2>>,
    rd1_index: DFF<Bits<INDEX_BITS>>,
    rd1_use: [DFF<Bit>; WAYS],
    rm_addr: Signal<Local, Bits<INDEX_BITS>>,
    rm_pend_w: [Signal<Local, Bit>; WAYS],
    rm_infl_w: [Signal<Local, Bit>; WAYS],
    rsv_or: Vec<Signal<Local, Bit>>,
    rd2_valid: DFF<Bit>,
    rd2_stash: DFF<Bit>,
    rd2_way: DFF<Bits<2>>,
    // The read's way as one-hot: the word is picked by AND-OR masks, not by a compare
    // chain on `rd2_way` (which synthesis made 4 levels after the block-RAM read).
    rd2_sel: [DFF<Bit>; WAYS],
    rd_msk: [Signal<Local, Bits<ENTRY_BITS>>; WAYS],
    entry_ones: Constant<Bits<ENTRY_BITS>>,
    rd2_index: DFF<Bits<INDEX_BITS>>,
    rd2_pend: DFF<Bit>,
    rd2_infl: DFF<Bit>,
    rd2_sv: DFF<Bit>,
    rd3_valid: DFF<Bit>,
    rd3_stash: DFF<Bit>,
    rd3_index: DFF<Bits<INDEX_BITS>>,
    rd3_mask: DFF<Bit>,
    rd3_sv: DFF<Bit>,
    rd3_word: DFF<Bits<ENTRY_BITS>>,
    rd_word: Signal<Local, Bits<ENTRY_BITS>>,
    rd_valid_q: DFF<Bit>,
    rd_entry_q: DFF<Bits<ENTRY_BITS>>,
}

/// The constants of a 3-bit-group compare (see `gpos` in [`FlowTable`]).
fn group_masks() -> (Bits<KEY_BITS>, Bits<KEY_BITS>, Bits<KEY_BITS>) {
    let mut pos: Bits<KEY_BITS> = Default::default();
    let mut fill: Bits<KEY_BITS> = Default::default();
    for i in 0..KEY_BITS {
        let g = i % 3 == 0;
        pos = pos.replace_bit(i, g);
        fill = fill.replace_bit(i, !g && i != 1);
    }
    let fill_p = fill.replace_bit(1, true);
    (pos, fill, fill_p)
}

impl FlowTable {
    /// RAM bits of a table with `slots_per_way` slots per way and `stash` stash entries:
    /// the four ways' block RAM and the stash's distributed RAM.
    pub fn ram_bits(slots_per_way: usize, stash: usize) -> usize {
        WAYS * ENTRY_BITS * slots_per_way + STASH_BITS * stash.max(2).next_power_of_two()
    }

    /// `slots_per_way`: power of two, 2..=65536; `stash`: 0..=64; one H3 seed per way.
    pub fn new(slots_per_way: usize, stash: usize, seeds: [u64; WAYS]) -> Self {
        assert!(stash <= MAX_STASH);
        let ones: Bits<VALUE_BITS> = low_ones(VALUE_BITS);
        let (gpos, gfill, gfill_p) = group_masks();
        let groups = stash.div_ceil(TREE_GROUP);
        let n = |k: usize| -> Vec<DFF<Bit>> { (0..k).map(|_| Default::default()).collect() };
        Self {
            clk: Default::default(),
            rst: Default::default(),
            s_lookup_valid: Default::default(),
            s_lookup_key: Default::default(),
            s_lookup_tag: Default::default(),
            m_result_valid: Default::default(),
            m_result_hit: Default::default(),
            m_result_value: Default::default(),
            m_result_tag: Default::default(),
            s_update_valid: Default::default(),
            s_update_op: Default::default(),
            s_update_way: Default::default(),
            s_update_index: Default::default(),
            s_update_key: Default::default(),
            s_update_value: Default::default(),
            cfg_clear_errors: Default::default(),
            s_read_valid: Default::default(),
            s_read_stash: Default::default(),
            s_read_way: Default::default(),
            s_read_index: Default::default(),
            m_read_valid: Default::default(),
            m_read_entry: Default::default(),
            status_clearing: Default::default(),
            status_multi_hit: Default::default(),
            status_multi_hit_count: Default::default(),
            status_dup_hit_count: Default::default(),
            status_bad_update_count: Default::default(),
            depth_m1: Constant::new(((slots_per_way - 1) as LiteralType).into()),
            depth_hi: Constant::new((!(slots_per_way as LiteralType - 1) & 0xffff).into()),
            stash_len: Constant::new((stash as LiteralType).into()),
            stash_lt: Constant::new(low_ones(stash)),
            tree_groups: Constant::new((groups as LiteralType).into()),
            op_write_slot: Constant::new(OP_WRITE_SLOT.into()),
            op_write_stash: Constant::new(OP_WRITE_STASH.into()),
            op_invalidate_slot: Constant::new(OP_INVALIDATE_SLOT.into()),
            op_invalidate_stash: Constant::new(OP_INVALIDATE_STASH.into()),
            all_ones: Constant::new(ones),
            gpos: Constant::new(gpos),
            gfill: Constant::new(gfill),
            gfill_p: Constant::new(gfill_p),
            bit1: Constant::new(bits::<KEY_BITS>(2)),
            hash: array_init(|w| H3Hash::new(seeds[w])),
            uhash: array_init(|w| H3Hash::new(seeds[w])),
            way: array_init(|_| BankRam::new(slots_per_way)),
            stash_ram: DistRam::new(stash.max(2).next_power_of_two()),
            stash_valid: n(stash),
            stash_key: (0..stash).map(|_| Default::default()).collect(),
            stash_value: (0..stash).map(|_| Default::default()).collect(),
            clearing: Default::default(),
            clear_index: Default::default(),
            l1_valid: Default::default(),
            l1_fm: Default::default(),
            l1_key: Default::default(),
            l1_tag: Default::default(),
            l1_idx: array_init(|_| Default::default()),
            l2_valid: Default::default(),
            l2_fm: Default::default(),
            l2_key: Default::default(),
            l2_tag: Default::default(),
            lm_pend: array_init(|_| Default::default()),
            lm_infl: array_init(|_| Default::default()),
            sx: (0..stash).map(|_| Default::default()).collect(),
            sg: (0..stash).map(|_| Default::default()).collect(),
            l3_valid: Default::default(),
            l3_fm: Default::default(),
            l3_tag: Default::default(),
            lx: array_init(|_| Default::default()),
            lg: array_init(|_| Default::default()),
            lv: array_init(|_| Default::default()),
            lmask: array_init(|_| Default::default()),
            shit: n(groups * TREE_GROUP),
            l4_valid: Default::default(),
            l4_tag: Default::default(),
            whit: array_init(|_| Default::default()),
            wv: array_init(|_| Default::default()),
            st_hv: (0..groups * TREE_GROUP)
                .map(|_| Default::default())
                .collect(),
            st_ha: (0..groups * TREE_GROUP)
                .map(|_| Default::default())
                .collect(),
            go: (0..groups).map(|_| Default::default()).collect(),
            ga: (0..groups).map(|_| Default::default()).collect(),
            g_any: n(groups),
            g_two: n(groups),
            c_or: (0..=groups).map(|_| Default::default()).collect(),
            c_and: (0..=groups).map(|_| Default::default()).collect(),
            c_one: (0..=groups).map(|_| Default::default()).collect(),
            c_two: (0..=groups).map(|_| Default::default()).collect(),
            wy_hv: array_init(|_| Default::default()),
            wy_ha: array_init(|_| Default::default()),
            wy_or: array_init(|_| Default::default()),
            wy_and: array_init(|_| Default::default()),
            wy_one: array_init(|_| Default::default()),
            wy_two: array_init(|_| Default::default()),
            all_or: Default::default(),
            all_and: Default::default(),
            any_hit: Default::default(),
            several: Default::default(),
            out_valid: Default::default(),
            out_hit: Default::default(),
            out_value: Default::default(),
            out_tag: Default::default(),
            chk_several: Default::default(),
            chk_dis: Default::default(),
            disagree: Default::default(),
            multi_hit: Default::default(),
            multi_hit_count: Default::default(),
            dup_hit_count: Default::default(),
            pre_key: Default::default(),
            pre_home: array_init(|_| Default::default()),
            pre_ok: Default::default(),
            upd_is_slot: Default::default(),
            upd_is_stash: Default::default(),
            upd_is_write: Default::default(),
            upd_slot_ok: Default::default(),
            upd_stash_ok: Default::default(),
            upd_home_ok: Default::default(),
            upd_bad0: Default::default(),
            upd_badh: Default::default(),
            upd_keyneq: Default::default(),
            c_valid: Default::default(),
            c_rst: Default::default(),
            c_is_slot: Default::default(),
            c_is_write: Default::default(),
            c_bad0: Default::default(),
            c_badh: Default::default(),
            c_ok: Default::default(),
            c_keyneq: Default::default(),
            c_fresh: Default::default(),
            c_rdref: Default::default(),
            c_index: Default::default(),
            c_key: Default::default(),
            c_value: Default::default(),
            c_home: array_init(|_| Default::default()),
            c_tgt: array_init(|_| Default::default()),
            c_sel: n(stash),
            k_ok: array_init(|_| Default::default()),
            k_bad0: array_init(|_| Default::default()),
            k_badh: array_init(|_| Default::default()),
            k_write: array_init(|_| Default::default()),
            k_fresh: array_init(|_| Default::default()),
            k_sw: array_init(|_| Default::default()),
            k_rd: array_init(|_| Default::default()),
            take_w: array_init(|_| Default::default()),
            ka_ok: array_init(|_| Default::default()),
            ka_bad0: array_init(|_| Default::default()),
            ka_badh: array_init(|_| Default::default()),
            ka_write: array_init(|_| Default::default()),
            ka_fresh: array_init(|_| Default::default()),
            take_a: array_init(|_| Default::default()),
            q_sel: array_init(|_| Default::default()),
            q_idx: Default::default(),
            pa_take_mask: array_init(|_| Default::default()),
            pa_take_mask_hi: array_init(|_| Default::default()),
            pa_addr_take: array_init(|_| Default::default()),
            pa_addr_idle: array_init(|_| Default::default()),
            pa_we_take: array_init(|_| Default::default()),
            pa_we_idle: array_init(|_| Default::default()),
            bad: Default::default(),
            take: Default::default(),
            px: (0..stash).map(|_| Default::default()).collect(),
            sp: (0..stash).map(|_| Default::default()).collect(),
            pm_pend: array_init(|_| Default::default()),
            pm_infl: array_init(|_| Default::default()),
            pmask: array_init(|_| Default::default()),
            prx: array_init(|_| Default::default()),
            pg: array_init(|_| Default::default()),
            infl_valid: Default::default(),
            infl_tgt: array_init(|_| Default::default()),
            infl_slot: array_init(|_| Default::default()),
            present: array_init(|_| Default::default()),
            present_q: array_init(|_| Default::default()),
            pend_valid: array_init(|_| Default::default()),
            pend_valid_i: array_init(|_| Default::default()),
            pend_next: array_init(|_| Default::default()),
            pend_slot: array_init(|_| Default::default()),
            drain: array_init(|_| Default::default()),
            u2_valid: Default::default(),
            u2_index: Default::default(),
            u2_key: Default::default(),
            u2_value: Default::default(),
            u3_valid: Default::default(),
            u3_index: Default::default(),
            u3_key: Default::default(),
            u3_value: Default::default(),
            bad_inc: Default::default(),
            bad_update_count: Default::default(),
            rd_take: Default::default(),
            rd_refused: Default::default(),
            rd1_valid: Default::default(),
            rd1_stash: Default::default(),
            rd1_way: Default::default(),
            rd1_index: Default::default(),
            rd1_use: array_init(|_| Default::default()),
            rm_addr: Default::default(),
            rm_pend_w: array_init(|_| Default::default()),
            rm_infl_w: array_init(|_| Default::default()),
            rsv_or: (0..=stash).map(|_| Default::default()).collect(),
            rd2_valid: Default::default(),
            rd2_stash: Default::default(),
            rd2_way: Default::default(),
            rd2_sel: array_init(|_| Default::default()),
            rd_msk: array_init(|_| Default::default()),
            entry_ones: Constant::new(low_ones(ENTRY_BITS)),
            rd2_index: Default::default(),
            rd2_pend: Default::default(),
            rd2_infl: Default::default(),
            rd2_sv: Default::default(),
            rd3_valid: Default::default(),
            rd3_stash: Default::default(),
            rd3_index: Default::default(),
            rd3_mask: Default::default(),
            rd3_sv: Default::default(),
            rd3_word: Default::default(),
            rd_word: Default::default(),
            rd_valid_q: Default::default(),
            rd_entry_q: Default::default(),
        }
    }
}

impl Logic for FlowTable {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clk,
            clearing,
            clear_index,
            l1_valid,
            l1_fm,
            l1_key,
            l1_tag,
            l2_valid,
            l2_fm,
            l2_key,
            l2_tag,
            l3_valid,
            l3_fm,
            l3_tag,
            l4_valid,
            l4_tag,
            out_valid,
            out_hit,
            out_value,
            out_tag,
            chk_several,
            chk_dis,
            multi_hit,
            multi_hit_count,
            dup_hit_count,
            pre_key,
            pre_ok,
            c_valid,
            c_rst,
            c_is_slot,
            c_is_write,
            c_bad0,
            c_badh,
            c_ok,
            c_keyneq,
            c_fresh,
            c_rdref,
            c_index,
            c_key,
            c_value,
            infl_valid,
            u2_valid,
            u2_index,
            u2_key,
            u2_value,
            u3_valid,
            u3_index,
            u3_key,
            u3_value,
            bad_inc,
            bad_update_count,
            rd1_valid,
            rd1_stash,
            rd1_way,
            rd1_index,
            q_idx,
            rd2_valid,
            rd2_stash,
            rd2_way,
            rd2_index,
            rd2_pend,
            rd2_infl,
            rd2_sv,
            rd3_valid,
            rd3_stash,
            rd3_index,
            rd3_mask,
            rd3_sv,
            rd3_word,
            rd_valid_q,
            rd_entry_q
        );
        for i in 0..self.stash_len.val().index() {
            self.stash_valid[i].clock.next = self.clk.val();
            self.stash_key[i].clock.next = self.clk.val();
            self.stash_value[i].clock.next = self.clk.val();
            self.sg[i].clock.next = self.clk.val();
            self.sp[i].clock.next = self.clk.val();
            self.c_sel[i].clock.next = self.clk.val();
            self.stash_valid[i].d.next = self.stash_valid[i].q.val();
            self.stash_key[i].d.next = self.stash_key[i].q.val();
            self.stash_value[i].d.next = self.stash_value[i].q.val();
        }
        for i in 0..(self.tree_groups.val().index() * 3) {
            self.shit[i].clock.next = self.clk.val();
        }
        for g in 0..self.tree_groups.val().index() {
            self.go[g].clock.next = self.clk.val();
            self.ga[g].clock.next = self.clk.val();
            self.g_any[g].clock.next = self.clk.val();
            self.g_two[g].clock.next = self.clk.val();
        }
        for w in 0..WAYS {
            self.way[w].read_clock.next = self.clk.val();
            self.way[w].write_clock.next = self.clk.val();
            self.l1_idx[w].clock.next = self.clk.val();
            self.lm_pend[w].clock.next = self.clk.val();
            self.lm_infl[w].clock.next = self.clk.val();
            self.lg[w].clock.next = self.clk.val();
            self.lv[w].clock.next = self.clk.val();
            self.lmask[w].clock.next = self.clk.val();
            self.whit[w].clock.next = self.clk.val();
            self.wv[w].clock.next = self.clk.val();
            self.pre_home[w].clock.next = self.clk.val();
            self.c_home[w].clock.next = self.clk.val();
            self.c_tgt[w].clock.next = self.clk.val();
            self.pm_pend[w].clock.next = self.clk.val();
            self.pm_infl[w].clock.next = self.clk.val();
            self.pmask[w].clock.next = self.clk.val();
            self.pg[w].clock.next = self.clk.val();
            self.infl_tgt[w].clock.next = self.clk.val();
            self.infl_slot[w].clock.next = self.clk.val();
            self.present_q[w].clock.next = self.clk.val();
            self.pend_valid[w].clock.next = self.clk.val();
            self.pend_valid_i[w].clock.next = self.clk.val();
            self.pend_slot[w].clock.next = self.clk.val();
            self.rd1_use[w].clock.next = self.clk.val();
            self.rd2_sel[w].clock.next = self.clk.val();
            self.k_ok[w].clock.next = self.clk.val();
            self.k_bad0[w].clock.next = self.clk.val();
            self.k_badh[w].clock.next = self.clk.val();
            self.k_write[w].clock.next = self.clk.val();
            self.q_sel[w].clock.next = self.clk.val();
            self.k_fresh[w].clock.next = self.clk.val();
            self.ka_ok[w].clock.next = self.clk.val();
            self.ka_bad0[w].clock.next = self.clk.val();
            self.ka_badh[w].clock.next = self.clk.val();
            self.ka_write[w].clock.next = self.clk.val();
            self.ka_fresh[w].clock.next = self.clk.val();
            self.k_sw[w].clock.next = self.clk.val();
            self.k_rd[w].clock.next = self.clk.val();
            self.pend_slot[w].d.next = self.pend_slot[w].q.val();
            self.infl_tgt[w].d.next = self.infl_tgt[w].q.val();
            self.infl_slot[w].d.next = self.infl_slot[w].q.val();
        }
        self.stash_ram.clk.next = self.clk.val();

        // hdl_gen emits Rust constants in expressions as Verilog identifiers, so bit offsets
        // below are literals: 168 = valid bit, 112 = key offset (ENTRY_BITS - 1, VALUE_BITS).

        // ==== Lookups ====================================================================
        // c: hash straight from the port into the index registers.
        for w in 0..WAYS {
            self.hash[w].key.next = self.s_lookup_key.val();
            self.l1_idx[w].d.next = (self.hash[w].hash.val() & self.depth_m1.val());
        }
        self.l1_valid.d.next = self.s_lookup_valid.val();
        self.l1_fm.d.next = self.clearing.q.val();
        self.l1_key.d.next = self.s_lookup_key.val();
        self.l1_tag.d.next = self.s_lookup_tag.val();

        // c+1: the ways read; the stash is compared in 3-bit groups (with its valid bit on
        // bit 1); a slot the lookup reads that holds a copy awaiting its purge is marked.
        for w in 0..WAYS {
            self.way[w].read_address.next = self.l1_idx[w].q.val();
            self.lm_pend[w].d.next = (self.pend_valid[w].q.val()
                & (self.pend_slot[w].q.val() == self.l1_idx[w].q.val()));
            self.lm_infl[w].d.next =
                (self.infl_valid.q.val() & (self.infl_slot[w].q.val() == self.l1_idx[w].q.val()));
        }
        for i in 0..self.stash_len.val().index() {
            self.sx[i].next = (self.stash_key[i].q.val() ^ self.l1_key.q.val());
            self.sg[i].d.next = (!((self.sx[i].val() | (self.sx[i].val() >> 1))
                | (self.sx[i].val() >> 2))
                & self.gpos.val());
            // (bit_cast cannot take a loop index: the flag goes in through a branch.)
            if (self.stash_valid[i].q.val() & !self.l1_fm.q.val()) {
                self.sg[i].d.next = ((!((self.sx[i].val() | (self.sx[i].val() >> 1))
                    | (self.sx[i].val() >> 2))
                    & self.gpos.val())
                    | self.bit1.val());
            }
        }
        self.l2_valid.d.next = self.l1_valid.q.val();
        self.l2_fm.d.next = self.l1_fm.q.val();
        self.l2_key.d.next = self.l1_key.q.val();
        self.l2_tag.d.next = self.l1_tag.q.val();

        // c+2: the RAM words, compared in groups in the cycle of the read (the depth mux
        // and one LUT); the stash hits; the purge marks resolved.
        for w in 0..WAYS {
            self.lx[w].next =
                (self.way[w].read_data.val().get_bits::<KEY_BITS>(112) ^ self.l2_key.q.val());
            self.lg[w].d.next = (!((self.lx[w].val() | (self.lx[w].val() >> 1))
                | (self.lx[w].val() >> 2))
                & self.gpos.val());
            if self.way[w].read_data.val().get_bit(168) {
                self.lg[w].d.next = ((!((self.lx[w].val() | (self.lx[w].val() >> 1))
                    | (self.lx[w].val() >> 2))
                    & self.gpos.val())
                    | self.bit1.val());
            }
            self.lv[w].d.next = self.way[w].read_data.val().get_bits::<VALUE_BITS>(0);
            self.lmask[w].d.next =
                (self.lm_pend[w].q.val() | (self.lm_infl[w].q.val() & self.present_q[w].q.val()));
        }
        for i in 0..self.stash_len.val().index() {
            self.shit[i].d.next = (self.sg[i].q.val() | self.gfill.val()).all();
        }
        for i in self.stash_len.val().index()..(self.tree_groups.val().index() * 3) {
            self.shit[i].d.next = false;
        }
        self.l3_valid.d.next = self.l2_valid.q.val();
        self.l3_fm.d.next = self.l2_fm.q.val();
        self.l3_tag.d.next = self.l2_tag.q.val();

        // c+3: way hits; stash values OR-ed and AND-ed in groups of three entries. The
        // stash value is written two edges after its key, so the value here belongs to
        // the entry compared in c+1.
        for w in 0..WAYS {
            self.whit[w].d.next = ((self.lg[w].q.val() | self.gfill.val()).all()
                & !self.lmask[w].q.val()
                & !self.l3_fm.q.val());
            self.wv[w].d.next = self.lv[w].q.val();
        }
        for i in 0..self.stash_len.val().index() {
            if self.shit[i].q.val() {
                self.st_hv[i].next = self.stash_value[i].q.val();
                self.st_ha[i].next = self.stash_value[i].q.val();
            } else {
                self.st_hv[i].next = 0.into();
                self.st_ha[i].next = self.all_ones.val();
            }
        }
        // Padding terms of the last group.
        for i in self.stash_len.val().index()..(self.tree_groups.val().index() * 3) {
            self.st_hv[i].next = 0.into();
            self.st_ha[i].next = self.all_ones.val();
        }
        for g in 0..self.tree_groups.val().index() {
            self.go[g].d.next = ((self.st_hv[g * 3].val() | self.st_hv[g * 3 + 1].val())
                | self.st_hv[g * 3 + 2].val());
            self.ga[g].d.next = ((self.st_ha[g * 3].val() & self.st_ha[g * 3 + 1].val())
                & self.st_ha[g * 3 + 2].val());
        }
        // Hits per group: any, and two or more (padding entries never hit).
        for g in 0..self.tree_groups.val().index() {
            self.g_any[g].d.next = ((self.shit[g * 3].q.val() | self.shit[g * 3 + 1].q.val())
                | self.shit[g * 3 + 2].q.val());
            self.g_two[g].d.next = (((self.shit[g * 3].q.val() & self.shit[g * 3 + 1].q.val())
                | (self.shit[g * 3].q.val() & self.shit[g * 3 + 2].q.val()))
                | (self.shit[g * 3 + 1].q.val() & self.shit[g * 3 + 2].q.val()));
        }
        self.l4_valid.d.next = self.l3_valid.q.val();
        self.l4_tag.d.next = self.l3_tag.q.val();

        // c+4: OR of the hit values is the answer when all hits agree; AND of them differs
        // from the OR exactly when two hits carry different values. Masked terms (the value
        // if it hit, else 0 for the OR and all ones for the AND) in plain chains, which
        // synthesis balances into trees.
        self.wy_or[0].next = 0.into();
        self.wy_and[0].next = self.all_ones.val();
        self.wy_one[0].next = false;
        self.wy_two[0].next = false;
        for w in 0..WAYS {
            if self.whit[w].q.val() {
                self.wy_hv[w].next = self.wv[w].q.val();
                self.wy_ha[w].next = self.wv[w].q.val();
            } else {
                self.wy_hv[w].next = 0.into();
                self.wy_ha[w].next = self.all_ones.val();
            }
            self.wy_or[w + 1].next = (self.wy_or[w].val() | self.wy_hv[w].val());
            self.wy_and[w + 1].next = (self.wy_and[w].val() & self.wy_ha[w].val());
            self.wy_one[w + 1].next = (self.wy_one[w].val() | self.whit[w].q.val());
            self.wy_two[w + 1].next =
                (self.wy_two[w].val() | (self.wy_one[w].val() & self.whit[w].q.val()));
        }
        self.c_or[0].next = self.wy_or[4].val();
        self.c_and[0].next = self.wy_and[4].val();
        self.c_one[0].next = self.wy_one[4].val();
        self.c_two[0].next = self.wy_two[4].val();
        self.all_or.next = self.c_or[0].val();
        self.all_and.next = self.c_and[0].val();
        self.any_hit.next = self.c_one[0].val();
        self.several.next = self.c_two[0].val();
        for g in 0..self.tree_groups.val().index() {
            self.c_or[g + 1].next = (self.c_or[g].val() | self.go[g].q.val());
            self.c_and[g + 1].next = (self.c_and[g].val() & self.ga[g].q.val());
            self.c_one[g + 1].next = (self.c_one[g].val() | self.g_any[g].q.val());
            self.c_two[g + 1].next = ((self.c_two[g].val() | self.g_two[g].q.val())
                | (self.c_one[g].val() & self.g_any[g].q.val()));
            // The last iteration's assignment wins (the loop bound is a config value).
            self.all_or.next = self.c_or[g + 1].val();
            self.all_and.next = self.c_and[g + 1].val();
            self.any_hit.next = self.c_one[g + 1].val();
            self.several.next = self.c_two[g + 1].val();
        }
        self.out_valid.d.next = self.l4_valid.q.val();
        self.out_tag.d.next = self.l4_tag.q.val();
        self.out_hit.d.next = self.any_hit.val();
        self.out_value.d.next = self.all_or.val();
        // With a hit, AND <= OR bit by bit, so OR != AND is "some bit is 1 in OR, 0 in AND".
        self.chk_several.d.next = (self.l4_valid.q.val() & self.several.val());
        self.chk_dis.d.next = (self.all_or.val() & !self.all_and.val());

        // c+5 (status only): do several hits disagree? Clear first, then set: an error in
        // the clearing cycle is not lost.
        self.disagree.next = (self.chk_several.q.val() & self.chk_dis.q.val().any());
        if self.cfg_clear_errors.val() {
            self.multi_hit.d.next = false;
        }
        if self.disagree.val() {
            self.multi_hit.d.next = true;
            self.multi_hit_count.d.next = (self.multi_hit_count.q.val() + 1);
        }
        if (self.chk_several.q.val() & !self.disagree.val()) {
            self.dup_hit_count.d.next = (self.dup_hit_count.q.val() + 1);
        }

        // ==== Commands ===================================================================
        // A-1: the staged key and its own slots (the pre-read address of cycle A).
        self.pre_key.d.next = self.s_update_key.val();
        for w in 0..WAYS {
            self.uhash[w].key.next = self.s_update_key.val();
            self.pre_home[w].d.next = (self.uhash[w].hash.val() & self.depth_m1.val());
        }

        // A: decode and the checks that need the command's inputs, registered.
        self.upd_is_slot.next = ((self.s_update_op.val() == self.op_write_slot.val())
            | (self.s_update_op.val() == self.op_invalidate_slot.val()));
        self.upd_is_stash.next = !self.upd_is_slot.val();
        self.upd_is_write.next = ((self.s_update_op.val() == self.op_write_slot.val())
            | (self.s_update_op.val() == self.op_write_stash.val()));
        // With 65,536 slots every 16-bit index is in range (a constant test otherwise).
        // The depth is a power of two, so `index <= depth - 1` is "no bit above it set".
        self.upd_slot_ok.next = true;
        for _s in 0..usize::from(self.depth_m1.val().index() < 0xffff) {
            self.upd_slot_ok.next = ((self.s_update_index.val() & self.depth_hi.val()) == 0);
        }
        // Without a stash, `index < 0` would be a constant compare (Verilator UNSIGNED):
        // the loop runs once only when there is a stash (its bound is evaluated in Rust).
        self.upd_stash_ok.next = false;
        for _s in 0..self.stash_len.val().index().min(1) {
            self.upd_stash_ok.next = (((self.s_update_index.val() & 0xff80) == 0)
                & self
                    .stash_lt
                    .val()
                    .get_bit(self.s_update_index.val().get_bits::<7>(0).index()));
        }
        // A way write goes to the key's own slot: the staged key's (a write whose key
        // changed since it was staged is refused anyway).
        self.upd_home_ok.next = true;
        for w in 0..WAYS {
            if ((self.s_update_op.val() == self.op_write_slot.val())
                & (self.s_update_way.val().index() == w))
            {
                self.upd_home_ok.next = (self.s_update_index.val() == self.pre_home[w].q.val());
            }
            self.c_home[w].d.next = self.pre_home[w].q.val();
            self.c_tgt[w].d.next =
                (self.upd_is_slot.val() & (self.s_update_way.val().index() == w));
        }
        for i in 0..self.stash_len.val().index() {
            // A command in the cycle of a reset leaves the stash (folded in here, so the
            // write enable of an entry is one LUT after the command's checks).
            self.c_sel[i].d.next = ((self.upd_is_stash.val()
                & (self.s_update_index.val().index() == i))
                & !self.rst.val());
        }
        self.c_valid.d.next = self.s_update_valid.val();
        self.c_rst.d.next = self.rst.val();
        self.c_is_slot.d.next = self.upd_is_slot.val();
        self.c_is_write.d.next = self.upd_is_write.val();
        // Refused from the inputs alone, in two registers: the range checks and the sweep
        // (`bad0`), and a way write away from the key's own slot (`badh`, after a 16-bit
        // compare and the way's pick). One OR of both was a level more from the CSR's
        // index register (4.5 levels, 3.47 ns of the 2.95 ns cycle in `prnic_top`).
        self.upd_bad0.next = (self.clearing.q.val()
            | (self.upd_is_slot.val() & !self.upd_slot_ok.val())
            | (self.upd_is_stash.val() & !self.upd_stash_ok.val()));
        self.upd_badh.next = !self.upd_home_ok.val();
        self.c_bad0.d.next = self.upd_bad0.val();
        self.c_badh.d.next = self.upd_badh.val();
        self.upd_keyneq.next = (self.pre_key.q.val() != self.s_update_key.val());
        self.c_keyneq.d.next = self.upd_keyneq.val();
        self.c_ok.d.next =
            (self.s_update_valid.val() & !(self.upd_is_write.val() & self.upd_keyneq.val()));
        for w in 0..WAYS {
            self.k_ok[w].d.next =
                (self.s_update_valid.val() & !(self.upd_is_write.val() & self.upd_keyneq.val()));
            self.k_bad0[w].d.next = self.upd_bad0.val();
            self.k_badh[w].d.next = self.upd_badh.val();
            self.k_write[w].d.next = self.upd_is_write.val();
            self.ka_ok[w].d.next =
                (self.s_update_valid.val() & !(self.upd_is_write.val() & self.upd_keyneq.val()));
            self.ka_bad0[w].d.next = self.upd_bad0.val();
            self.ka_badh[w].d.next = self.upd_badh.val();
            self.ka_write[w].d.next = self.upd_is_write.val();
        }
        self.c_index.d.next = self.s_update_index.val();
        self.c_key.d.next = self.s_update_key.val();
        self.c_value.d.next = self.s_update_value.val();
        // Stash purge: the staged key vs every stash key. Nothing can write the stash on
        // the edge after A if the write in A is taken (its cycle before had no command).
        for i in 0..self.stash_len.val().index() {
            self.px[i].next = (self.stash_key[i].q.val() ^ self.pre_key.q.val());
            self.sp[i].d.next = (!((self.px[i].val() | (self.px[i].val() >> 1))
                | (self.px[i].val() >> 2))
                & self.gpos.val());
        }
        // The pre-read of this cycle's edge: a slot awaiting its purge reads as empty.
        for w in 0..WAYS {
            self.pm_pend[w].d.next = (self.pend_valid[w].q.val()
                & (self.pend_slot[w].q.val() == self.pre_home[w].q.val()));
            self.pm_infl[w].d.next =
                (self.infl_valid.q.val() & (self.infl_slot[w].q.val() == self.pre_home[w].q.val()));
        }

        // A+1: the command executes. A write is good only if the cycle before carried no
        // update, read or sweep and the key is the one staged then.
        self.bad.next = (self.c_valid.q.val()
            & ((self.c_bad0.q.val() | self.c_badh.q.val())
                | (self.c_is_write.q.val() & (self.c_keyneq.q.val() | !self.c_fresh.q.val()))));
        // `!bad` in five inputs, for the stash's write enables.
        self.take.next = (((self.c_ok.q.val() & !self.c_bad0.q.val()) & !self.c_badh.q.val())
            & !(self.c_is_write.q.val() & !self.c_fresh.q.val()));
        // The pre-read of cycle A+1 is good for a write in A+1 if nothing executes now.
        self.rd_take.next = (self.s_read_valid.val() & !self.s_update_valid.val());
        self.rd_refused.next = (self.s_read_valid.val() & !self.rd_take.val());
        self.pre_ok.d.next = !((self.rd_take.val() | self.clearing.q.val()) | self.rst.val());
        self.c_fresh.d.next = (self.pre_ok.q.val() & !self.take.val());
        // The same decision from each way's copies.
        for w in 0..WAYS {
            self.take_w[w].next = (((self.k_ok[w].q.val() & !self.k_bad0[w].q.val())
                & !self.k_badh[w].q.val())
                & !(self.k_write[w].q.val() & !self.k_fresh[w].q.val()));
            self.k_fresh[w].d.next = (self.pre_ok.q.val() & !self.take_w[w].val());
            self.take_a[w].next = (((self.ka_ok[w].q.val() & !self.ka_bad0[w].q.val())
                & !self.ka_badh[w].q.val())
                & !(self.ka_write[w].q.val() & !self.ka_fresh[w].q.val()));
            self.ka_fresh[w].d.next = (self.pre_ok.q.val() & !self.take_a[w].val());
        }
        self.c_rdref.d.next = self.rd_refused.val();
        // Counted one cycle after the command executes; a command in the cycle of a
        // reset is not.
        self.bad_inc.d.next = 0.into();
        if !self.c_rst.q.val() {
            if (self.bad.val() | self.c_rdref.q.val()) {
                self.bad_inc.d.next = 1.into();
            }
            if (self.bad.val() & self.c_rdref.q.val()) {
                self.bad_inc.d.next = 2.into();
            }
        }
        self.bad_update_count.d.next =
            (self.bad_update_count.q.val() + bit_cast::<32, 2>(self.bad_inc.q.val()));

        // Stash half: key and valid now, every other entry holding the key invalidated;
        // the value two edges later. A command in the cycle of a reset leaves the stash.
        for i in 0..self.stash_len.val().index() {
            if ((self.take.val() & self.c_is_write.q.val() & !self.c_rst.q.val())
                & (self.sp[i].q.val() | self.gfill_p.val()).all())
            {
                self.stash_valid[i].d.next = false;
            }
            if (self.take.val() & self.c_sel[i].q.val()) {
                self.stash_valid[i].d.next = self.c_is_write.q.val();
                self.stash_key[i].d.next = self.c_key.q.val();
            }
        }
        self.u2_valid.d.next = ((self.take.val() & !self.c_rst.q.val()) & !self.c_is_slot.q.val());
        self.u2_index.d.next = self.c_index.q.val();
        self.u2_key.d.next = self.c_key.q.val();
        self.u2_value.d.next = self.c_value.q.val();
        self.u3_valid.d.next = self.u2_valid.q.val();
        self.u3_index.d.next = self.u2_index.q.val();
        self.u3_key.d.next = self.u2_key.q.val();
        self.u3_value.d.next = self.u2_value.q.val();
        for i in 0..self.stash_len.val().index() {
            if (self.u3_valid.q.val() & (self.u3_index.q.val().index() == i)) {
                self.stash_value[i].d.next = self.u3_value.q.val();
            }
        }
        self.stash_ram.write_enable.next = self.u3_valid.q.val();
        self.stash_ram.write_address.next = self.u3_index.q.val();
        self.stash_ram.write_data.next = ((bit_cast::<168, KEY_BITS>(self.u3_key.q.val()) << 112)
            | bit_cast::<168, VALUE_BITS>(self.u3_value.q.val()));

        // The pre-read word (port A, read on the edge after A) vs the key, in groups.
        for w in 0..WAYS {
            self.prx[w].next =
                (self.way[w].aux_read_data.val().get_bits::<KEY_BITS>(112) ^ self.pre_key.q.val());
            self.pg[w].d.next = (!((self.prx[w].val() | (self.prx[w].val() >> 1))
                | (self.prx[w].val() >> 2))
                & self.gpos.val());
            if self.way[w].aux_read_data.val().get_bit(168) {
                self.pg[w].d.next = ((!((self.prx[w].val() | (self.prx[w].val() >> 1))
                    | (self.prx[w].val() >> 2))
                    & self.gpos.val())
                    | self.bit1.val());
            }
            self.pmask[w].d.next =
                (self.pm_pend[w].q.val() | (self.pm_infl[w].q.val() & self.present_q[w].q.val()));
        }
        // The write's copies in other ways are looked for in the next cycle.
        self.infl_valid.d.next = (self.take.val() & self.c_is_write.q.val());
        if self.take.val() {
            for w in 0..WAYS {
                self.infl_tgt[w].d.next = self.c_tgt[w].q.val();
                self.infl_slot[w].d.next = self.c_home[w].q.val();
            }
        }

        // A+2: a copy of the key in its own slot of a way other than the target.
        for w in 0..WAYS {
            self.present[w].next = (self.infl_valid.q.val()
                & (self.pg[w].q.val() | self.gfill.val()).all()
                & !self.pmask[w].q.val()
                & !self.infl_tgt[w].q.val());
            self.present_q[w].d.next = self.present[w].val();
        }

        // ==== Read-back requests =========================================================
        self.rd1_valid.d.next = self.rd_take.val();
        for w in 0..WAYS {
            self.k_rd[w].d.next = self.rd_take.val();
        }
        self.rd1_stash.d.next = self.s_read_stash.val();
        self.rd1_way.d.next = self.s_read_way.val();
        self.rd1_index.d.next = self.s_read_index.val();
        for w in 0..WAYS {
            self.rd1_use[w].d.next = (self.rd_take.val()
                & !self.s_read_stash.val()
                & (self.s_read_way.val().index() == w));
            // sw_active and rd1_use of the next cycle.
            self.q_sel[w].d.next = (self.clearing.q.val()
                | ((self.rd_take.val() & !self.s_read_stash.val())
                    & (self.s_read_way.val().index() == w)));
        }
        self.q_idx.d.next = self.s_read_index.val();
        if self.clearing.q.val() {
            self.q_idx.d.next = self.clear_index.q.val();
        }

        // ==== Port A of each way: sweep, command, read, purge, else the pre-read ========
        // A purge takes a cycle whose command or read leaves its way free: such a cycle
        // can carry no pre-read that matters (a write right after it is refused).
        // A taken command excludes the sweep (`sw_active` is `clearing` of the cycle the
        // command was registered in, which refuses it) and a read-back (taken only in a
        // cycle without an update). So each port-A input has two forms, both from
        // registers, and `take` (four register inputs) chooses.
        for w in 0..WAYS {
            self.drain[w].next = ((self.take_w[w].val() | self.k_rd[w].q.val())
                & self.pend_valid[w].q.val()
                & !(self.take_w[w].val() & self.c_tgt[w].q.val())
                & !self.rd1_use[w].q.val()
                & !self.k_sw[w].q.val());
            // Taken: the command's own slot, else a purge, else (unused) the pre-read.
            self.pa_addr_take[w].next = self.pre_home[w].q.val();
            if self.pend_valid[w].q.val() {
                self.pa_addr_take[w].next = self.pend_slot[w].q.val();
            }
            if self.c_tgt[w].q.val() {
                self.pa_addr_take[w].next = self.c_index.q.val();
            }
            self.pa_we_take[w].next = (self.c_tgt[w].q.val() | self.pend_valid[w].q.val());
            // Not taken: the sweep or a read-back, else a purge in a read-back's cycle,
            // else the pre-read.
            self.pa_addr_idle[w].next = self.pre_home[w].q.val();
            if (self.k_rd[w].q.val() & self.pend_valid_i[w].q.val()) {
                self.pa_addr_idle[w].next = self.pend_slot[w].q.val();
            }
            if self.q_sel[w].q.val() {
                self.pa_addr_idle[w].next = self.q_idx.q.val();
            }
            self.pa_we_idle[w].next = (self.k_sw[w].q.val()
                | ((self.k_rd[w].q.val() & self.pend_valid_i[w].q.val())
                    & !self.rd1_use[w].q.val()));
            self.pa_take_mask[w].next = 0.into();
            if self.take_w[w].val() {
                self.pa_take_mask[w].next = 0x00ff.into();
            }
            self.pa_take_mask_hi[w].next = 0.into();
            if self.take_a[w].val() {
                self.pa_take_mask_hi[w].next = 0xff00.into();
            }
            self.way[w].write_address.next = ((self.pa_addr_take[w].val()
                & (self.pa_take_mask[w].val() | self.pa_take_mask_hi[w].val()))
                | (self.pa_addr_idle[w].val()
                    & !(self.pa_take_mask[w].val() | self.pa_take_mask_hi[w].val())));
            self.way[w].write_enable.next = ((self.take_w[w].val() & self.pa_we_take[w].val())
                | (!self.take_w[w].val() & self.pa_we_idle[w].val()));
            self.way[w].write_data.next = ((bit_cast::<ENTRY_BITS, KEY_BITS>(self.c_key.q.val())
                << 112)
                | bit_cast::<ENTRY_BITS, VALUE_BITS>(self.c_value.q.val()));
            // Only a write sets the valid bit: key and value of an empty slot are never
            // read (read-back shows an empty slot as zeros). (bit_cast cannot take a loop
            // index: the flag goes in through a branch.)
            if ((self.take_w[w].val() & self.c_tgt[w].q.val()) & self.k_write[w].q.val()) {
                self.way[w].write_data.next = ((bit_cast::<ENTRY_BITS, 1>(true.into()) << 168)
                    | (bit_cast::<ENTRY_BITS, KEY_BITS>(self.c_key.q.val()) << 112)
                    | bit_cast::<ENTRY_BITS, VALUE_BITS>(self.c_value.q.val()));
            }
            // Pending purges: a purge written, or its slot rewritten, ends it; a copy
            // found by the last write (present) starts one. A write drains every way but
            // its target before its own copies are found, so the two never meet.
            self.pend_next[w].next = self.pend_valid[w].q.val();
            if (self.drain[w].val()
                | ((self.take_w[w].val() & self.c_tgt[w].q.val())
                    & (self.c_index.q.val() == self.pend_slot[w].q.val())))
            {
                self.pend_next[w].next = false;
            }
            if self.present[w].val() {
                self.pend_next[w].next = true;
                self.pend_slot[w].d.next = self.infl_slot[w].q.val();
            }
            self.pend_valid[w].d.next = self.pend_next[w].val();
            self.pend_valid_i[w].d.next = self.pend_next[w].val();
        }

        // ==== Read-back ==================================================================
        // r+1: port A of the read's way reads (during the sweep, the slot being swept, as
        // the sweep owns the address); a slot awaiting its purge reads as empty. The stash
        // valid bit is taken now (the key and value come from the copy in r+3, when they
        // have been written for every update before the read).
        // (`q_idx` is the sweep's slot during the sweep, else the read's index.)
        self.rm_addr.next = self.q_idx.q.val();
        for w in 0..WAYS {
            self.rm_pend_w[w].next =
                (self.pend_valid[w].q.val() & (self.pend_slot[w].q.val() == self.rm_addr.val()));
            self.rm_infl_w[w].next =
                (self.infl_valid.q.val() & (self.infl_slot[w].q.val() == self.rm_addr.val()));
        }
        self.rd2_pend.d.next = self.rm_pend_w[0].val();
        self.rd2_infl.d.next = self.rm_infl_w[0].val();
        for w in 1..WAYS {
            if (self.rd1_way.q.val().index() == w) {
                self.rd2_pend.d.next = self.rm_pend_w[w].val();
                self.rd2_infl.d.next = self.rm_infl_w[w].val();
            }
        }
        self.rsv_or[0].next = false;
        self.rd2_sv.d.next = self.rsv_or[0].val();
        for i in 0..self.stash_len.val().index() {
            self.rsv_or[i + 1].next = (self.rsv_or[i].val()
                | (self.stash_valid[i].q.val() & (self.rd1_index.q.val().index() == i)));
            self.rd2_sv.d.next = self.rsv_or[i + 1].val();
        }
        self.rd2_valid.d.next = self.rd1_valid.q.val();
        self.rd2_stash.d.next = self.rd1_stash.q.val();
        self.rd2_way.d.next = self.rd1_way.q.val();
        for w in 0..WAYS {
            self.rd2_sel[w].d.next = (self.rd1_way.q.val().index() == w);
        }
        self.rd2_index.d.next = self.rd1_index.q.val();
        // r+2: the word of the read's way, one AND-OR level after the block-RAM reads.
        for w in 0..WAYS {
            self.rd_msk[w].next = 0.into();
            if self.rd2_sel[w].q.val() {
                self.rd_msk[w].next = self.entry_ones.val();
            }
        }
        self.rd_word.next = (((self.way[0].aux_read_data.val() & self.rd_msk[0].val())
            | (self.way[1].aux_read_data.val() & self.rd_msk[1].val()))
            | ((self.way[2].aux_read_data.val() & self.rd_msk[2].val())
                | (self.way[3].aux_read_data.val() & self.rd_msk[3].val())));
        self.rd3_word.d.next = self.rd_word.val();
        self.rd3_mask.d.next =
            (self.rd2_pend.q.val() | (self.rd2_infl.q.val() & self.present_q[0].q.val()));
        for w in 1..WAYS {
            if (self.rd2_way.q.val().index() == w) {
                self.rd3_mask.d.next =
                    (self.rd2_pend.q.val() | (self.rd2_infl.q.val() & self.present_q[w].q.val()));
            }
        }
        self.rd3_valid.d.next = self.rd2_valid.q.val();
        self.rd3_stash.d.next = self.rd2_stash.q.val();
        self.rd3_index.d.next = self.rd2_index.q.val();
        self.rd3_sv.d.next = self.rd2_sv.q.val();
        // r+3: the entry.
        self.stash_ram.read_address.next = self.rd3_index.q.val();
        self.rd_valid_q.d.next = self.rd3_valid.q.val();
        if self.rd3_valid.q.val() {
            if self.rd3_stash.q.val() {
                self.rd_entry_q.d.next = ((bit_cast::<ENTRY_BITS, 1>(self.rd3_sv.q.val().into())
                    << 168)
                    | bit_cast::<ENTRY_BITS, 168>(self.stash_ram.read_data.val()));
            } else if (self.rd3_word.q.val().get_bit(168) & !self.rd3_mask.q.val()) {
                self.rd_entry_q.d.next = self.rd3_word.q.val();
            } else {
                self.rd_entry_q.d.next = 0.into();
            }
        }
        self.m_read_valid.next = self.rd_valid_q.q.val();
        self.m_read_entry.next = self.rd_entry_q.q.val();

        // ==== Reset and the clearing sweep ===============================================
        if self.clearing.q.val() {
            self.clear_index.d.next = (self.clear_index.q.val() + 1);
            if (self.clear_index.q.val() == self.depth_m1.val()) {
                self.clearing.d.next = false;
            }
        }
        for w in 0..WAYS {
            self.k_sw[w].d.next = self.clearing.q.val();
        }
        if self.rst.val() {
            self.clearing.d.next = true;
            self.clear_index.d.next = 0.into();
            for i in 0..self.stash_len.val().index() {
                self.stash_valid[i].d.next = false;
            }
            self.l1_valid.d.next = false;
            self.l2_valid.d.next = false;
            self.l3_valid.d.next = false;
            self.l4_valid.d.next = false;
            self.out_valid.d.next = false;
            self.chk_several.d.next = false;
            self.rd1_valid.d.next = false;
            for w in 0..WAYS {
                self.k_rd[w].d.next = false;
            }
            self.rd2_valid.d.next = false;
            self.rd3_valid.d.next = false;
            self.rd_valid_q.d.next = false;
            self.multi_hit.d.next = false;
            self.multi_hit_count.d.next = 0.into();
            self.dup_hit_count.d.next = 0.into();
            self.bad_update_count.d.next = 0.into();
            self.bad_inc.d.next = 0.into();
        }

        self.m_result_valid.next = self.out_valid.q.val();
        self.m_result_hit.next = self.out_hit.q.val();
        self.m_result_value.next = self.out_value.q.val();
        self.m_result_tag.next = self.out_tag.q.val();
        self.status_clearing.next = self.clearing.q.val();
        self.status_multi_hit.next = self.multi_hit.q.val();
        self.status_multi_hit_count.next = self.multi_hit_count.q.val();
        self.status_dup_hit_count.next = self.dup_hit_count.q.val();
        self.status_bad_update_count.next = self.bad_update_count.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_table_generates_verilog() {
        let mut uut = FlowTable::new(64, 4, [1, 2, 3, 4]);
        uut.connect_all();
        let v = generate_verilog(&uut);
        assert!(v.contains("mem [0:63]"));
    }
}
