//! `flow_table`: the tenant flow table. Overlay `{VNI, destination IPv4}` → underlay
//! address and VXLAN fields; a miss means the packet must be dropped.
//!
//! ```text
//!            cycle 0                 cycle 1                        cycle 2              out
//! key ──► H3_w(key) & (depth-1) ─► BRAM way w (registered read) ─┐
//!   │                              ├ compare valid & key, per way ├─► s2: hits, way values
//!   └──────────────► s1_key ───────┴ compare 0..stash_len stash   ┘   one-hot select,     ─► m_result_*
//!                                     (registers)                      multi-hit check
//! ```
//!
//! * 4-way cuckoo: one `BankRam` per way (`depth` = slots per way), each way indexed by its
//!   own H3 hash (seeds from the config). A stash of `stash_len` (≤ 64) entries in
//!   registers is compared in the same cycle as the four ways.
//! * Fixed latency of [`FLOW_TABLE_LATENCY`] cycles, one lookup accepted every cycle,
//!   never a stall; results come back in order with the caller's `s_lookup_tag`.
//!
//! ### Inputs
//! * `clk`, `rst`: synchronous reset. Reset clears the stash, the counters and flags, and
//!   starts a sweep that writes every way slot invalid (`depth` cycles,
//!   `status_clearing` high). Lookups during the sweep answer miss; updates during it
//!   are ignored and counted as bad updates.
//! * `s_lookup_valid`, `s_lookup_key` (`{VNI[55:32], IPv4[31:0]}`), `s_lookup_tag`.
//! * `s_update_valid`, `s_update_op` (0 write way slot, 1 write stash slot, 2 invalidate
//!   way slot, 3 invalidate stash slot), `s_update_way`, `s_update_index`, `s_update_key`,
//!   `s_update_value`: one whole entry. For a write, `s_update_key` must be set up one
//!   cycle ahead (the CSR staging registers are) and the cycle before must carry no
//!   other command (update or read-back); see *Updates* below. Refused and counted in
//!   `status_bad_update_count`: an index beyond the table (or the stash), a way write to
//!   any slot but the key's own slot in that way, a write whose key was not set up in the
//!   cycle before or that follows another command, any update during the sweep.
//! * `cfg_clear_errors`: clears the sticky `status_multi_hit` flag (write-1-to-clear).
//! * `s_read_valid`, `s_read_stash`, `s_read_way`, `s_read_index`: read one slot (or stash
//!   entry) back for software; `m_read_valid` / `m_read_entry` (`{valid, key, value}`) two
//!   cycles later. Reads use the RAMs' write ports and never disturb lookups.
//!
//! ### Outputs
//! * `m_result_valid`, `m_result_hit`, `m_result_value`, `m_result_tag`. Value layout:
//!   `{underlay IPv4[111:80], next-hop MAC[79:32], egress VNI[31:8], flags[7:0]}`; zero
//!   on a miss.
//! * `status_multi_hit` (sticky), `status_multi_hit_count`: lookups whose hits disagree
//!   in value (updated one cycle after the lookup's result). `status_dup_hit_count`:
//!   lookups that hit in more than one place with equal values. Updates cannot cause
//!   either (see *Updates*); both stay as monitors of the RAM contents.
//!
//! ### Updates: a key is in one place, and a lookup sees an update whole
//! A lookup of key K reads K's own slot in each way and every stash entry. A write of K
//! to one of those places removes K from all the others **in the same update**, so no
//! lookup ever finds K in two places (proven with Yosys for every reachable state, see
//! `testbenches/tests/formal.rs`). Relocating a key is therefore one write to its new
//! place: it never misses and is never found twice while it moves.
//!
//! ```text
//!  cycle A-1 (every cycle) each way's write port reads the staged key's own slot
//!  cycle A   the command: write the target way slot; invalidate the key's slot in any
//!            other way that holds the key (all on the edge after A)
//!  cycle A+1 write the target stash entry; invalidate any other stash entry holding it
//! ```
//!
//! A lookup reads the ways one edge before it compares the stash. The stash half of an
//! update lands one edge after its way half, so a lookup accepted in cycle c sees every
//! update taken in cycle c - 1 or earlier, whole, and none taken later (as if the table
//! were written in one cycle).
//!
//! The stash value is selected in cycle 2, one edge after the compare. If an update
//! rewrites that entry on the edge between them, a one-entry shadow register holds the
//! old value for cycle 2, so the lookup returns the entry it compared.
//!
//! Read-back uses the ways' write ports: a read in the same cycle as an update is
//! refused and counted in `status_bad_update_count`.

use crate::hash::H3Hash;
use crate::ram::BankRam;
use array_init::array_init;
use rust_hdl::prelude::*;

pub const KEY_BITS: usize = 56;
pub const VALUE_BITS: usize = 112;
/// RAM word: `{valid[168], key[167:112], value[111:0]}`.
pub const ENTRY_BITS: usize = 1 + KEY_BITS + VALUE_BITS;
pub const TAG_BITS: usize = 16;
pub const INDEX_BITS: usize = 16;
pub const WAYS: usize = 4;
pub const MAX_STASH: usize = 64;
/// Cycles from `s_lookup_valid` to the matching `m_result_valid`.
pub const FLOW_TABLE_LATENCY: u32 = 3;

pub const OP_WRITE_SLOT: u64 = 0;
pub const OP_WRITE_STASH: u64 = 1;
pub const OP_INVALIDATE_SLOT: u64 = 2;
pub const OP_INVALIDATE_STASH: u64 = 3;

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

    // Sizes from the config, as constants: `stash_len` bounds the unrolled stash loops.
    depth_m1: Constant<Bits<INDEX_BITS>>,
    stash_len: Constant<Bits<8>>,
    op_write_slot: Constant<Bits<2>>,
    op_write_stash: Constant<Bits<2>>,
    op_invalidate_slot: Constant<Bits<2>>,
    op_invalidate_stash: Constant<Bits<2>>,

    hash: [H3Hash<KEY_BITS, INDEX_BITS>; WAYS],
    way: [BankRam<Bits<ENTRY_BITS>>; WAYS],
    stash_valid: Vec<DFF<Bit>>,
    stash_key: Vec<DFF<Bits<KEY_BITS>>>,
    stash_value: Vec<DFF<Bits<VALUE_BITS>>>,

    clearing: DFF<Bit>,
    clear_index: DFF<Bits<INDEX_BITS>>,

    // Stage 1 (RAM read in flight).
    s1_valid: DFF<Bit>,
    s1_force_miss: DFF<Bit>,
    s1_key: DFF<Bits<KEY_BITS>>,
    s1_tag: DFF<Bits<TAG_BITS>>,
    // Stage 2 (hits known).
    s2_valid: DFF<Bit>,
    s2_tag: DFF<Bits<TAG_BITS>>,
    s2_way_hit: [DFF<Bit>; WAYS],
    s2_way_value: [DFF<Bits<VALUE_BITS>>; WAYS],
    s2_stash_hit: Vec<DFF<Bit>>,
    shadow_valid: DFF<Bit>,
    shadow_index: DFF<Bits<INDEX_BITS>>,
    shadow_value: DFF<Bits<VALUE_BITS>>,
    // Outputs and status.
    out_valid: DFF<Bit>,
    out_hit: DFF<Bit>,
    out_value: DFF<Bits<VALUE_BITS>>,
    out_tag: DFF<Bits<TAG_BITS>>,
    // Read-back (CSR): request registered while the RAM reads on its write port.
    rd_pending: DFF<Bit>,
    rd_stash: DFF<Bit>,
    rd_way: DFF<Bits<2>>,
    rd_index: DFF<Bits<INDEX_BITS>>,
    rd_valid_q: DFF<Bit>,
    rd_entry_q: DFF<Bits<ENTRY_BITS>>,
    rdk_or: Vec<Signal<Local, Bits<KEY_BITS>>>,
    rdv_or: Vec<Signal<Local, Bits<VALUE_BITS>>>,
    rdb_or: Vec<Signal<Local, Bit>>,
    rdk_term: Vec<Signal<Local, Bits<KEY_BITS>>>,
    rdv_term: Vec<Signal<Local, Bits<VALUE_BITS>>>,
    rdb_term: Vec<Signal<Local, Bit>>,
    rd_key_sel: Signal<Local, Bits<KEY_BITS>>,
    rd_val_sel: Signal<Local, Bits<VALUE_BITS>>,
    rd_valid_sel: Signal<Local, Bit>,
    rd_stash_entry: Signal<Local, Bits<ENTRY_BITS>>,
    rd_way_entry: Signal<Local, Bits<ENTRY_BITS>>,
    // Stage 3: the multi-hit check.
    chk_several: DFF<Bit>,
    chk_or: DFF<Bits<VALUE_BITS>>,
    chk_and: DFF<Bits<VALUE_BITS>>,
    multi_hit: DFF<Bit>,
    multi_hit_count: DFF<Bits<32>>,
    dup_hit_count: DFF<Bits<32>>,
    bad_update_count: DFF<Bits<32>>,

    // Update decode.
    upd_slot_ok: Signal<Local, Bit>,
    upd_stash_ok: Signal<Local, Bit>,
    upd_is_slot: Signal<Local, Bit>,
    upd_is_stash: Signal<Local, Bit>,
    upd_is_write: Signal<Local, Bit>,
    upd_bad: Signal<Local, Bit>,
    // Updates (see "Updates" in the module docs): every cycle the ways' write ports
    // read the staged key's own slots (pre); cycle A writes the ways, A + 1 the stash.
    uhash: [H3Hash<KEY_BITS, INDEX_BITS>; WAYS],
    uhome: [Signal<Local, Bits<INDEX_BITS>>; WAYS],
    upd_home_ok: Signal<Local, Bit>,
    upd_fresh: Signal<Local, Bit>,
    upd_take: Signal<Local, Bit>,
    upd_entry: Signal<Local, Bits<ENTRY_BITS>>,
    upd_present: [Signal<Local, Bit>; WAYS],
    upd_target: [Signal<Local, Bit>; WAYS],
    pre_valid: DFF<Bit>,
    pre_key: DFF<Bits<KEY_BITS>>,
    u2_is_stash: DFF<Bit>,
    u2_is_write: DFF<Bit>,
    u2_purge: DFF<Bit>,
    u2_index: DFF<Bits<INDEX_BITS>>,
    u2_key: DFF<Bits<KEY_BITS>>,
    u2_value: DFF<Bits<VALUE_BITS>>,
    rd_take: Signal<Local, Bit>,
    rd_refused: Signal<Local, Bit>,
    // Stage 2 select chains: element i+1 folds in stash entry i (element 0 is the start).
    // Vecs sized by the config, so no unused (unconnected) elements exist.
    stash_v: Vec<Signal<Local, Bits<VALUE_BITS>>>,
    st_or: Vec<Signal<Local, Bits<VALUE_BITS>>>,
    st_and: Vec<Signal<Local, Bits<VALUE_BITS>>>,
    st_one: Vec<Signal<Local, Bit>>,
    st_two: Vec<Signal<Local, Bit>>,
    sh_or: Vec<Signal<Local, Bits<VALUE_BITS>>>,
    sh_term: Vec<Signal<Local, Bits<VALUE_BITS>>>,
    st_hv: Vec<Signal<Local, Bits<VALUE_BITS>>>,
    st_ha: Vec<Signal<Local, Bits<VALUE_BITS>>>,
    wy_hv: [Signal<Local, Bits<VALUE_BITS>>; WAYS],
    wy_ha: [Signal<Local, Bits<VALUE_BITS>>; WAYS],
    wy_or: [Signal<Local, Bits<VALUE_BITS>>; 5],
    wy_and: [Signal<Local, Bits<VALUE_BITS>>; 5],
    wy_one: [Signal<Local, Bit>; 5],
    wy_two: [Signal<Local, Bit>; 5],
    stash_or: Signal<Local, Bits<VALUE_BITS>>,
    stash_and: Signal<Local, Bits<VALUE_BITS>>,
    stash_one: Signal<Local, Bit>,
    stash_two: Signal<Local, Bit>,
    any_hit: Signal<Local, Bit>,
    several: Signal<Local, Bit>,
    disagree: Signal<Local, Bit>,
    all_ones: Constant<Bits<VALUE_BITS>>,
}

impl FlowTable {
    /// `slots_per_way`: power of two, 2..=65536; `stash`: 0..=64; one H3 seed per way.
    pub fn new(slots_per_way: usize, stash: usize, seeds: [u64; WAYS]) -> Self {
        assert!(stash <= MAX_STASH);
        let ones = {
            let mut b: Bits<VALUE_BITS> = Default::default();
            for i in 0..VALUE_BITS {
                b = b.replace_bit(i, true);
            }
            b
        };
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
            stash_len: Constant::new((stash as LiteralType).into()),
            op_write_slot: Constant::new(OP_WRITE_SLOT.into()),
            op_write_stash: Constant::new(OP_WRITE_STASH.into()),
            op_invalidate_slot: Constant::new(OP_INVALIDATE_SLOT.into()),
            op_invalidate_stash: Constant::new(OP_INVALIDATE_STASH.into()),
            hash: array_init(|w| H3Hash::new(seeds[w])),
            way: array_init(|_| BankRam::new(slots_per_way)),
            stash_valid: (0..stash).map(|_| Default::default()).collect(),
            stash_key: (0..stash).map(|_| Default::default()).collect(),
            stash_value: (0..stash).map(|_| Default::default()).collect(),
            clearing: Default::default(),
            clear_index: Default::default(),
            s1_valid: Default::default(),
            s1_force_miss: Default::default(),
            s1_key: Default::default(),
            s1_tag: Default::default(),
            s2_valid: Default::default(),
            s2_tag: Default::default(),
            s2_way_hit: array_init(|_| Default::default()),
            s2_way_value: array_init(|_| Default::default()),
            s2_stash_hit: (0..stash).map(|_| Default::default()).collect(),
            shadow_valid: Default::default(),
            shadow_index: Default::default(),
            shadow_value: Default::default(),
            out_valid: Default::default(),
            out_hit: Default::default(),
            out_value: Default::default(),
            out_tag: Default::default(),
            rd_pending: Default::default(),
            rd_stash: Default::default(),
            rd_way: Default::default(),
            rd_index: Default::default(),
            rd_valid_q: Default::default(),
            rd_entry_q: Default::default(),
            rdk_or: (0..=stash).map(|_| Default::default()).collect(),
            rdv_or: (0..=stash).map(|_| Default::default()).collect(),
            rdb_or: (0..=stash).map(|_| Default::default()).collect(),
            rdk_term: (0..stash).map(|_| Default::default()).collect(),
            rdv_term: (0..stash).map(|_| Default::default()).collect(),
            rdb_term: (0..stash).map(|_| Default::default()).collect(),
            rd_key_sel: Default::default(),
            rd_val_sel: Default::default(),
            rd_valid_sel: Default::default(),
            rd_stash_entry: Default::default(),
            rd_way_entry: Default::default(),
            chk_several: Default::default(),
            chk_or: Default::default(),
            chk_and: Default::default(),
            multi_hit: Default::default(),
            multi_hit_count: Default::default(),
            dup_hit_count: Default::default(),
            bad_update_count: Default::default(),
            upd_slot_ok: Default::default(),
            upd_stash_ok: Default::default(),
            upd_is_slot: Default::default(),
            upd_is_stash: Default::default(),
            upd_is_write: Default::default(),
            upd_bad: Default::default(),
            uhash: array_init(|w| H3Hash::new(seeds[w])),
            uhome: array_init(|_| Default::default()),
            upd_home_ok: Default::default(),
            upd_fresh: Default::default(),
            upd_take: Default::default(),
            upd_entry: Default::default(),
            upd_present: array_init(|_| Default::default()),
            upd_target: array_init(|_| Default::default()),
            pre_valid: Default::default(),
            pre_key: Default::default(),
            u2_is_stash: Default::default(),
            u2_is_write: Default::default(),
            u2_purge: Default::default(),
            u2_index: Default::default(),
            u2_key: Default::default(),
            u2_value: Default::default(),
            rd_take: Default::default(),
            rd_refused: Default::default(),
            stash_v: (0..stash).map(|_| Default::default()).collect(),
            st_or: (0..=stash).map(|_| Default::default()).collect(),
            st_and: (0..=stash).map(|_| Default::default()).collect(),
            st_one: (0..=stash).map(|_| Default::default()).collect(),
            st_two: (0..=stash).map(|_| Default::default()).collect(),
            sh_or: (0..=stash).map(|_| Default::default()).collect(),
            sh_term: (0..stash).map(|_| Default::default()).collect(),
            st_hv: (0..stash).map(|_| Default::default()).collect(),
            st_ha: (0..stash).map(|_| Default::default()).collect(),
            wy_hv: array_init(|_| Default::default()),
            wy_ha: array_init(|_| Default::default()),
            wy_or: array_init(|_| Default::default()),
            wy_and: array_init(|_| Default::default()),
            wy_one: array_init(|_| Default::default()),
            wy_two: array_init(|_| Default::default()),
            stash_or: Default::default(),
            stash_and: Default::default(),
            stash_one: Default::default(),
            stash_two: Default::default(),
            any_hit: Default::default(),
            several: Default::default(),
            disagree: Default::default(),
            all_ones: Constant::new(ones),
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
            s1_valid,
            s1_force_miss,
            s1_key,
            s1_tag,
            s2_valid,
            s2_tag,
            shadow_valid,
            shadow_index,
            shadow_value,
            out_valid,
            out_hit,
            out_value,
            out_tag,
            rd_pending,
            rd_stash,
            rd_way,
            rd_index,
            rd_valid_q,
            rd_entry_q,
            chk_several,
            chk_or,
            chk_and,
            multi_hit,
            multi_hit_count,
            dup_hit_count,
            bad_update_count,
            pre_valid,
            pre_key,
            u2_is_stash,
            u2_is_write,
            u2_purge,
            u2_index,
            u2_key,
            u2_value
        );
        for i in 0..self.stash_len.val().index() {
            self.stash_valid[i].clock.next = self.clk.val();
            self.stash_key[i].clock.next = self.clk.val();
            self.stash_value[i].clock.next = self.clk.val();
            self.stash_valid[i].d.next = self.stash_valid[i].q.val();
            self.stash_key[i].d.next = self.stash_key[i].q.val();
            self.stash_value[i].d.next = self.stash_value[i].q.val();
            self.s2_stash_hit[i].clock.next = self.clk.val();
            self.s2_stash_hit[i].d.next = false;
        }
        for w in 0..WAYS {
            self.s2_way_hit[w].clock.next = self.clk.val();
            self.s2_way_value[w].clock.next = self.clk.val();
            self.way[w].read_clock.next = self.clk.val();
            self.way[w].write_clock.next = self.clk.val();
        }

        // ---- Cycle 0: hash the key; each way's RAM reads its slot. ----------------------
        for w in 0..WAYS {
            self.hash[w].key.next = self.s_lookup_key.val();
            self.way[w].read_address.next = (self.hash[w].hash.val() & self.depth_m1.val());
        }
        self.s1_valid.d.next = self.s_lookup_valid.val();
        self.s1_force_miss.d.next = self.clearing.q.val();
        self.s1_key.d.next = self.s_lookup_key.val();
        self.s1_tag.d.next = self.s_lookup_tag.val();

        // hdl_gen emits Rust constants in expressions as Verilog identifiers, so bit offsets
        // below are literals: 168 = valid bit, 112 = key offset (ENTRY_BITS - 1, VALUE_BITS).

        // ---- Cycle 1: compare every way and every stash entry with the key. -------------
        for w in 0..WAYS {
            self.s2_way_hit[w].d.next = (self.way[w].read_data.val().get_bit(168)
                & (self.way[w].read_data.val().get_bits::<KEY_BITS>(112) == self.s1_key.q.val())
                & !self.s1_force_miss.q.val());
            self.s2_way_value[w].d.next = self.way[w].read_data.val().get_bits::<VALUE_BITS>(0);
        }
        for i in 0..self.stash_len.val().index() {
            self.s2_stash_hit[i].d.next = (self.stash_valid[i].q.val()
                & (self.stash_key[i].q.val() == self.s1_key.q.val())
                & !self.s1_force_miss.q.val());
        }
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_tag.d.next = self.s1_tag.q.val();

        // ---- Cycle 2: one-hot select; hits that disagree are a multi-hit error. ----------
        // OR of the hit values is the answer when all hits agree; AND of them differs
        // from the OR exactly when two hits carry different values.
        // Each source contributes a masked term (its value if it hit, else 0 for the OR
        // and all ones for the AND), and the chains are plain OR / AND / boolean chains:
        // synthesis balances those into trees, where an if/else per source would become
        // a priority-mux chain as long as the stash.
        self.wy_or[0].next = 0.into();
        self.wy_and[0].next = self.all_ones.val();
        self.wy_one[0].next = false;
        self.wy_two[0].next = false;
        for w in 0..WAYS {
            if self.s2_way_hit[w].q.val() {
                self.wy_hv[w].next = self.s2_way_value[w].q.val();
                self.wy_ha[w].next = self.s2_way_value[w].q.val();
            } else {
                self.wy_hv[w].next = 0.into();
                self.wy_ha[w].next = self.all_ones.val();
            }
            self.wy_or[w + 1].next = (self.wy_or[w].val() | self.wy_hv[w].val());
            self.wy_and[w + 1].next = (self.wy_and[w].val() & self.wy_ha[w].val());
            self.wy_one[w + 1].next = (self.wy_one[w].val() | self.s2_way_hit[w].q.val());
            self.wy_two[w + 1].next =
                (self.wy_two[w].val() | (self.wy_one[w].val() & self.s2_way_hit[w].q.val()));
        }
        self.st_or[0].next = 0.into();
        self.st_and[0].next = self.all_ones.val();
        self.st_one[0].next = false;
        self.st_two[0].next = false;
        self.stash_or.next = self.st_or[0].val();
        self.stash_and.next = self.st_and[0].val();
        self.stash_one.next = self.st_one[0].val();
        self.stash_two.next = self.st_two[0].val();
        for i in 0..self.stash_len.val().index() {
            // The value as it was when the entry was compared (see the shadow register).
            if (self.shadow_valid.q.val() & (self.shadow_index.q.val().index() == i)) {
                self.stash_v[i].next = self.shadow_value.q.val();
            } else {
                self.stash_v[i].next = self.stash_value[i].q.val();
            }
            if self.s2_stash_hit[i].q.val() {
                self.st_hv[i].next = self.stash_v[i].val();
                self.st_ha[i].next = self.stash_v[i].val();
            } else {
                self.st_hv[i].next = 0.into();
                self.st_ha[i].next = self.all_ones.val();
            }
            self.st_or[i + 1].next = (self.st_or[i].val() | self.st_hv[i].val());
            self.st_and[i + 1].next = (self.st_and[i].val() & self.st_ha[i].val());
            self.st_one[i + 1].next = (self.st_one[i].val() | self.s2_stash_hit[i].q.val());
            self.st_two[i + 1].next =
                (self.st_two[i].val() | (self.st_one[i].val() & self.s2_stash_hit[i].q.val()));
            // The last iteration's assignment wins (the loop bound is a config value).
            self.stash_or.next = self.st_or[i + 1].val();
            self.stash_and.next = self.st_and[i + 1].val();
            self.stash_one.next = self.st_one[i + 1].val();
            self.stash_two.next = self.st_two[i + 1].val();
        }
        self.any_hit.next = (self.wy_one[4].val() | self.stash_one.val());
        self.several.next = (self.wy_two[4].val()
            | self.stash_two.val()
            | (self.wy_one[4].val() & self.stash_one.val()));
        self.out_valid.d.next = self.s2_valid.q.val();
        self.out_tag.d.next = self.s2_tag.q.val();
        self.out_hit.d.next = self.any_hit.val();
        self.out_value.d.next = (self.wy_or[4].val() | self.stash_or.val());

        // ---- Cycle 3 (status only, off the result path): do several hits disagree? ------
        // The OR and AND trees are registered first, so the 112-bit compare does not sit
        // behind them in the same cycle. The error flag and counters trail the result by
        // one cycle.
        self.chk_several.d.next = (self.s2_valid.q.val() & self.several.val());
        self.chk_or.d.next = (self.wy_or[4].val() | self.stash_or.val());
        self.chk_and.d.next = (self.wy_and[4].val() & self.stash_and.val());
        self.disagree.next =
            (self.chk_several.q.val() & (self.chk_or.q.val() != self.chk_and.q.val()));
        // Clear first, then set: an error in the clearing cycle is not lost.
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

        // ---- Updates: the ways on the edge after cycle A, the stash one edge later. ----
        // A key is found in at most one place (its own slot in a way, or a stash entry):
        // a write of key K to one place removes K from every other place where a lookup
        // of K would find it, in the same update. A way write must go to K's own slot in
        // that way (the index a lookup of K reads); any other index is refused.
        self.upd_is_slot.next = ((self.s_update_op.val() == self.op_write_slot.val())
            | (self.s_update_op.val() == self.op_invalidate_slot.val()));
        self.upd_is_stash.next = !self.upd_is_slot.val();
        self.upd_is_write.next = ((self.s_update_op.val() == self.op_write_slot.val())
            | (self.s_update_op.val() == self.op_write_stash.val()));
        // With 65,536 slots every 16-bit index is in range (a constant compare otherwise).
        self.upd_slot_ok.next = true;
        for _s in 0..usize::from(self.depth_m1.val().index() < 0xffff) {
            self.upd_slot_ok.next = (self.s_update_index.val() <= self.depth_m1.val());
        }
        // Without a stash, `index < 0` would be a constant compare (Verilator UNSIGNED):
        // the loop runs once only when there is a stash (its bound is evaluated in Rust).
        self.upd_stash_ok.next = false;
        for _s in 0..self.stash_len.val().index().min(1) {
            self.upd_stash_ok.next =
                (self.s_update_index.val() < bit_cast::<INDEX_BITS, 8>(self.stash_len.val()));
        }
        self.upd_home_ok.next = true;
        for w in 0..WAYS {
            self.uhash[w].key.next = self.s_update_key.val();
            self.uhome[w].next = (self.uhash[w].hash.val() & self.depth_m1.val());
            if ((self.s_update_op.val() == self.op_write_slot.val())
                & (self.s_update_way.val().index() == w))
            {
                self.upd_home_ok.next = (self.s_update_index.val() == self.uhome[w].val());
            }
        }
        // The pre-read: in the cycle before, the write ports read this key's own slots
        // and nothing was written (no update, read-back or sweep), so `aux_read_data`
        // holds them as they are now.
        self.upd_fresh.next =
            (self.pre_valid.q.val() & (self.pre_key.q.val() == self.s_update_key.val()));
        // Refused (and counted): during the sweep; a write without a fresh pre-read (an
        // update or read-back in the cycle before, or a key that changed with the
        // command); an index out of range; a way write away from the key's own slot.
        self.upd_bad.next = (self.s_update_valid.val()
            & (self.clearing.q.val()
                | (self.upd_is_write.val() & !self.upd_fresh.val())
                | (self.upd_is_slot.val() & !self.upd_slot_ok.val())
                | (self.upd_is_stash.val() & !self.upd_stash_ok.val())
                | !self.upd_home_ok.val()));
        self.upd_take.next = (self.s_update_valid.val() & !self.upd_bad.val());
        if self.upd_is_write.val() {
            self.upd_entry.next = ((bit_cast::<ENTRY_BITS, 1>(true.into()) << 168)
                | (bit_cast::<ENTRY_BITS, KEY_BITS>(self.s_update_key.val()) << 112)
                | bit_cast::<ENTRY_BITS, VALUE_BITS>(self.s_update_value.val()));
        } else {
            self.upd_entry.next = 0.into();
        }
        // Cycle A: the target way slot is written; any other way holding the key at the
        // key's own slot is invalidated on the same edge.
        for w in 0..WAYS {
            self.upd_present[w].next = (self.upd_is_write.val()
                & self.way[w].aux_read_data.val().get_bit(168)
                & (self.way[w].aux_read_data.val().get_bits::<KEY_BITS>(112)
                    == self.s_update_key.val()));
            self.upd_target[w].next =
                (self.upd_is_slot.val() & (self.s_update_way.val().index() == w));
            self.way[w].write_address.next = self.uhome[w].val();
            self.way[w].write_data.next = 0.into();
            self.way[w].write_enable.next = false;
            if self.upd_take.val() {
                if self.upd_target[w].val() {
                    self.way[w].write_address.next = self.s_update_index.val();
                    self.way[w].write_data.next = self.upd_entry.val();
                    self.way[w].write_enable.next = true;
                } else {
                    self.way[w].write_enable.next = self.upd_present[w].val();
                }
            }
        }
        // The stash half goes to u2, one edge after the ways: a lookup compares the ways
        // as they were one edge before its stash compare, so with the stash written one
        // edge later every lookup sees an update whole or not at all.
        self.u2_is_stash.d.next = (self.upd_take.val() & self.upd_is_stash.val());
        self.u2_purge.d.next = (self.upd_take.val() & self.upd_is_write.val());
        self.u2_is_write.d.next = self.upd_is_write.val();
        self.u2_index.d.next = self.s_update_index.val();
        self.u2_key.d.next = self.s_update_key.val();
        self.u2_value.d.next = self.s_update_value.val();
        // The shadow takes the stash value u2 addresses every cycle (one-hot AND-OR, so it
        // maps to a balanced OR tree rather than a priority chain); it is marked valid
        // only when that stash slot is actually rewritten.
        self.shadow_valid.d.next = false;
        self.shadow_index.d.next = self.u2_index.q.val();
        self.sh_or[0].next = 0.into();
        self.shadow_value.d.next = self.sh_or[0].val();
        for i in 0..self.stash_len.val().index() {
            if (self.u2_index.q.val().index() == i) {
                self.sh_term[i].next = self.stash_value[i].q.val();
            } else {
                self.sh_term[i].next = 0.into();
            }
            self.sh_or[i + 1].next = (self.sh_or[i].val() | self.sh_term[i].val());
            self.shadow_value.d.next = self.sh_or[i + 1].val();
            // Another stash entry holding the written key is invalidated.
            if (self.u2_purge.q.val() & (self.stash_key[i].q.val() == self.u2_key.q.val())) {
                self.stash_valid[i].d.next = false;
            }
            if (self.u2_is_stash.q.val() & (self.u2_index.q.val().index() == i)) {
                self.stash_valid[i].d.next = self.u2_is_write.q.val();
                self.stash_key[i].d.next = self.u2_key.q.val();
                self.stash_value[i].d.next = self.u2_value.q.val();
                self.shadow_valid.d.next = true;
            }
        }

        // ---- Read-back: a slot through the RAM's write port, or a stash entry. --------
        // The request takes the write port's address when no update uses it this cycle
        // (software issues one command at a time); the word arrives a cycle later.
        // A read in the same cycle as an update is refused and counted with the refused
        // updates (both need the write ports).
        self.rd_take.next = (self.s_read_valid.val() & !self.s_update_valid.val());
        self.rd_refused.next = (self.s_read_valid.val() & !self.rd_take.val());
        if (self.upd_bad.val() | self.rd_refused.val()) {
            self.bad_update_count.d.next = (self.bad_update_count.q.val() + 1);
        }
        if (self.upd_bad.val() & self.rd_refused.val()) {
            self.bad_update_count.d.next = (self.bad_update_count.q.val() + 2);
        }
        if self.rd_take.val() {
            for w in 0..WAYS {
                self.way[w].write_address.next = self.s_read_index.val();
            }
        }
        self.rd_pending.d.next = self.rd_take.val();
        self.rd_stash.d.next = self.s_read_stash.val();
        self.rd_way.d.next = self.s_read_way.val();
        self.rd_index.d.next = self.s_read_index.val();
        // Separate OR chains for key, value and valid (rust-hdl cannot bit_cast an
        // indexed signal inside a loop); assembled into one entry after the loop.
        self.rdk_or[0].next = 0.into();
        self.rdv_or[0].next = 0.into();
        self.rdb_or[0].next = false;
        self.rd_key_sel.next = self.rdk_or[0].val();
        self.rd_val_sel.next = self.rdv_or[0].val();
        self.rd_valid_sel.next = self.rdb_or[0].val();
        for i in 0..self.stash_len.val().index() {
            if (self.rd_index.q.val().index() == i) {
                self.rdk_term[i].next = self.stash_key[i].q.val();
                self.rdv_term[i].next = self.stash_value[i].q.val();
                self.rdb_term[i].next = self.stash_valid[i].q.val();
            } else {
                self.rdk_term[i].next = 0.into();
                self.rdv_term[i].next = 0.into();
                self.rdb_term[i].next = false;
            }
            self.rdk_or[i + 1].next = (self.rdk_or[i].val() | self.rdk_term[i].val());
            self.rdv_or[i + 1].next = (self.rdv_or[i].val() | self.rdv_term[i].val());
            self.rdb_or[i + 1].next = (self.rdb_or[i].val() | self.rdb_term[i].val());
            self.rd_key_sel.next = self.rdk_or[i + 1].val();
            self.rd_val_sel.next = self.rdv_or[i + 1].val();
            self.rd_valid_sel.next = self.rdb_or[i + 1].val();
        }
        self.rd_stash_entry.next = ((bit_cast::<ENTRY_BITS, 1>(self.rd_valid_sel.val().into())
            << 168)
            | (bit_cast::<ENTRY_BITS, KEY_BITS>(self.rd_key_sel.val()) << 112)
            | bit_cast::<ENTRY_BITS, VALUE_BITS>(self.rd_val_sel.val()));
        self.rd_way_entry.next = self.way[0].aux_read_data.val();
        for w in 1..WAYS {
            if (self.rd_way.q.val().index() == w) {
                self.rd_way_entry.next = self.way[w].aux_read_data.val();
            }
        }
        self.rd_valid_q.d.next = self.rd_pending.q.val();
        if self.rd_pending.q.val() {
            if self.rd_stash.q.val() {
                self.rd_entry_q.d.next = self.rd_stash_entry.val();
            } else {
                self.rd_entry_q.d.next = self.rd_way_entry.val();
            }
        }
        self.m_read_valid.next = self.rd_valid_q.q.val();
        self.m_read_entry.next = self.rd_entry_q.q.val();

        // ---- Reset and the clearing sweep. --------------------------------------------
        if self.clearing.q.val() {
            for w in 0..WAYS {
                self.way[w].write_address.next = self.clear_index.q.val();
                self.way[w].write_data.next = 0.into();
                self.way[w].write_enable.next = true;
            }
            self.clear_index.d.next = (self.clear_index.q.val() + 1);
            if (self.clear_index.q.val() == self.depth_m1.val()) {
                self.clearing.d.next = false;
            }
        }
        // The next cycle's pre-read is good if this cycle wrote nothing and read nothing
        // else on the write ports.
        self.pre_valid.d.next = !(self.upd_take.val() | self.rd_take.val() | self.clearing.q.val());
        self.pre_key.d.next = self.s_update_key.val();
        if self.rst.val() {
            self.clearing.d.next = true;
            self.clear_index.d.next = 0.into();
            for i in 0..self.stash_len.val().index() {
                self.stash_valid[i].d.next = false;
            }
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.out_valid.d.next = false;
            self.shadow_valid.d.next = false;
            self.chk_several.d.next = false;
            self.rd_pending.d.next = false;
            self.rd_valid_q.d.next = false;
            self.pre_valid.d.next = false;
            self.u2_is_stash.d.next = false;
            self.u2_purge.d.next = false;
            self.multi_hit.d.next = false;
            self.multi_hit_count.d.next = 0.into();
            self.dup_hit_count.d.next = 0.into();
            self.bad_update_count.d.next = 0.into();
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
