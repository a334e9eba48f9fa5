//! CSR fuzzing: random AXI4-Lite reads and writes to any address (mapped, unmapped,
//! misaligned; any data and byte strobes) on the `csr` block, each answer checked against
//! a behavioural model of the register map written here from docs/regmap.md's rules and
//! the description's field list. No effect beyond the documented semantics.

use prnic_gen::PrnicConfig;
use prnic_regs::{registers, Access, Kind, Reset};
use prnic_testbenches::axil::{read, write, OKAY, SLVERR};
use prnic_testbenches::bridge::{Csr, Dut};
use proptest::prelude::*;
use std::collections::HashMap;

/// What is at a word address.
#[derive(Clone)]
enum Word {
    Reg(&'static str),
    CounterLo(&'static str),
    CounterHi(&'static str),
}

struct Model {
    words: HashMap<u32, Word>,
    /// RW field values by (register, field).
    rw: HashMap<(&'static str, &'static str), u64>,
    hw: HashMap<(&'static str, &'static str), u64>,
    hw_counters: HashMap<&'static str, u64>,
    shadow: HashMap<&'static str, u32>,
    bad: u64,
    ro_write: u64,
    bad_flag: bool,
}

impl Model {
    fn new(
        hw: HashMap<(&'static str, &'static str), u64>,
        hw_counters: HashMap<&'static str, u64>,
    ) -> Self {
        let cfg = PrnicConfig::builtin();
        let mut words = HashMap::new();
        let mut rw = HashMap::new();
        for r in registers() {
            match &r.kind {
                Kind::Reg(fs) => {
                    words.insert(r.offset, Word::Reg(r.name));
                    for f in fs {
                        if f.access == Access::Rw {
                            rw.insert(
                                (r.name, f.name),
                                prnic_gen::csr::reset_value(cfg, r.name, f.name),
                            );
                        }
                    }
                }
                Kind::Counter64 { .. } => {
                    words.insert(r.offset, Word::CounterLo(r.name));
                    words.insert(r.offset + 4, Word::CounterHi(r.name));
                }
            }
        }
        Model {
            words,
            rw,
            hw,
            hw_counters,
            shadow: HashMap::new(),
            bad: 0,
            ro_write: 0,
            bad_flag: false,
        }
    }

    fn counter(&self, name: &str) -> u64 {
        match name {
            "CNT_CSR_BAD_ACCESS" => self.bad,
            "CNT_CSR_RO_WRITE" => self.ro_write,
            n => self.hw_counters[n],
        }
    }

    fn read(&mut self, a: u32) -> (u32, u8) {
        let Some(w) = self.words.get(&a).cloned() else {
            self.bad += 1;
            self.bad_flag = true;
            return (0, SLVERR);
        };
        let cfg = PrnicConfig::builtin();
        let v = match w {
            Word::CounterLo(n) => {
                let c = self.counter(n);
                self.shadow.insert(n, (c >> 32) as u32);
                c as u32
            }
            Word::CounterHi(n) => *self.shadow.get(n).unwrap_or(&0),
            Word::Reg(name) => {
                let r = registers().into_iter().find(|r| r.name == name).unwrap();
                let mut v = 0u64;
                for f in r.fields() {
                    let x = match (f.access, f.reset) {
                        (Access::Rw, _) => self.rw[&(name, f.name)],
                        (Access::Ro, Reset::Hw) | (Access::W1c, Reset::Hw) => {
                            self.hw[&(name, f.name)]
                        }
                        (Access::Ro, _) => prnic_gen::csr::reset_value(cfg, name, f.name),
                        (Access::W1c, Reset::Internal) => self.bad_flag as u64,
                        (Access::Wo, _) => 0,
                        _ => unreachable!(),
                    };
                    v |= (x << f.lsb) & f.mask();
                }
                v as u32
            }
        };
        (v, OKAY)
    }

    fn write(&mut self, a: u32, d: u32, strb: u8) -> u8 {
        let Some(w) = self.words.get(&a).cloned() else {
            self.bad += 1;
            self.bad_flag = true;
            return SLVERR;
        };
        let mask: u64 = (0..4)
            .filter(|i| strb >> i & 1 == 1)
            .map(|i| 0xffu64 << (8 * i))
            .sum();
        match w {
            Word::CounterLo(..) | Word::CounterHi(_) => self.ro_write += 1,
            Word::Reg(name) => {
                let r = registers().into_iter().find(|r| r.name == name).unwrap();
                if !r.writable() {
                    self.ro_write += 1;
                }
                for f in r.fields() {
                    let fm = f.mask();
                    let m = mask & fm;
                    match (f.access, f.reset) {
                        (Access::Rw, _) => {
                            let old = self.rw[&(name, f.name)] << f.lsb;
                            let new = (old & !m) | (d as u64 & m);
                            self.rw.insert((name, f.name), (new & fm) >> f.lsb);
                        }
                        (Access::W1c, Reset::Internal) if d as u64 & m != 0 => {
                            self.bad_flag = false;
                        }
                        _ => {}
                    }
                }
            }
        }
        OKAY
    }
}

fn address() -> impl Strategy<Value = u32> {
    let mapped: Vec<u32> = registers().iter().flat_map(|r| r.offsets()).collect();
    prop_oneof![
        6 => prop::sample::select(mapped),
        2 => (0u32..0x400).prop_map(|w| w * 4),
        1 => 0u32..0x1000,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn random_accesses_match_the_register_map(
        ops in prop::collection::vec((any::<bool>(), address(), any::<u32>(), 0u8..16, 0u32..3), 200..1200),
        hw_seed in any::<u64>(),
    ) {
        let mut d = Csr::new();
        d.set_rst(1);
        d.step();
        d.set_rst(0);
        // Constant values on every hardware input, known to the model.
        let mut hw = HashMap::new();
        let mut next = prnic_verif::rng::rng(hw_seed);
        let build = next() as u32;
        d.set_hw_id_build_hash_hash(build as u64);
        hw.insert(("ID_BUILD_HASH", "HASH"), build as u64);
        let flag = next() & 1;
        d.set_hw_err_flags_ft_multi_hit(flag);
        hw.insert(("ERR_FLAGS", "FT_MULTI_HIT"), flag);
        let st = next();
        d.set_hw_ft_status_clearing(st & 1);
        d.set_hw_ft_status_rd_done((st >> 1) & 1);
        hw.insert(("FT_STATUS", "CLEARING"), st & 1);
        hw.insert(("FT_STATUS", "RD_DONE"), (st >> 1) & 1);
        let words: Vec<u64> = (0..7).map(|_| next()).collect();
        d.set_hw_ft_rd_key_lo_ipv4(words[0] & 0xffff_ffff);
        d.set_hw_ft_rd_key_hi_vni(words[1] & 0xff_ffff);
        d.set_hw_ft_rd_key_hi_valid(words[1] >> 63);
        d.set_hw_ft_rd_val0_bits(words[2] & 0xffff_ffff);
        d.set_hw_ft_rd_val1_bits(words[3] & 0xffff_ffff);
        d.set_hw_ft_rd_val2_bits(words[4] & 0xffff_ffff);
        d.set_hw_ft_rd_val3_bits(words[5] & 0xffff);
        for (k, v) in [("FT_RD_KEY_LO", "IPV4"), ("FT_RD_KEY_HI", "VNI"), ("FT_RD_KEY_HI", "VALID"), ("FT_RD_VAL0", "BITS"), ("FT_RD_VAL1", "BITS"), ("FT_RD_VAL2", "BITS"), ("FT_RD_VAL3", "BITS")].iter().zip([words[0] & 0xffff_ffff, words[1] & 0xff_ffff, words[1] >> 63, words[2] & 0xffff_ffff, words[3] & 0xffff_ffff, words[4] & 0xffff_ffff, words[5] & 0xffff]) {
            hw.insert(*k, v);
        }
        let cr = next();
        d.set_hw_credit_status_tx_clearing(cr & 1);
        d.set_hw_credit_status_rx_clearing((cr >> 1) & 1);
        d.set_hw_credit_status_debt_error((cr >> 2) & 1);
        hw.insert(("CREDIT_STATUS", "TX_CLEARING"), cr & 1);
        hw.insert(("CREDIT_STATUS", "RX_CLEARING"), (cr >> 1) & 1);
        hw.insert(("CREDIT_STATUS", "DEBT_ERROR"), (cr >> 2) & 1);
        let tx = next();
        d.set_hw_tx_status_spray_cfg_error(tx & 1);
        d.set_hw_tx_status_fifo_overflow((tx >> 1) & 1);
        hw.insert(("TX_STATUS", "SPRAY_CFG_ERROR"), tx & 1);
        hw.insert(("TX_STATUS", "FIFO_OVERFLOW"), (tx >> 1) & 1);
        let rxs = next();
        d.set_hw_rx_status_clearing(rxs & 1);
        d.set_hw_rx_status_qp_busy((rxs >> 1) & 1);
        d.set_hw_rx_status_event_overflow((rxs >> 2) & 1);
        hw.insert(("RX_STATUS", "CLEARING"), rxs & 1);
        hw.insert(("RX_STATUS", "QP_BUSY"), (rxs >> 1) & 1);
        hw.insert(("RX_STATUS", "EVENT_OVERFLOW"), (rxs >> 2) & 1);
        let mut counters = HashMap::new();
        for n in [
            "CNT_FT_MULTI_HIT", "CNT_FT_DUP_HIT", "CNT_FT_BAD_UPDATE", "CNT_TX_FRAMES", "CNT_TX_DROP_MISS",
            "CNT_TX_DROP_SHORT", "CNT_TX_DROP_NOT_IPV4", "CNT_TX_DROP_TOO_LONG", "CNT_TX_DROP_BAD_KEEP",
            "CNT_CREDIT_REQUESTS", "CNT_CREDIT_GRANTS", "CNT_CREDIT_WASTED_BYTES", "CNT_CREDIT_STARVED_CYCLES",
            "CNT_CREDIT_GRANTS_DROPPED", "CNT_CREDIT_RX_REQUESTS", "CNT_CREDIT_RX_GRANTS", "CNT_CREDIT_RX_IDLE_SLOTS",
        ] {
            counters.insert(n, next());
        }
        d.set_hw_cnt_ft_multi_hit(counters["CNT_FT_MULTI_HIT"]);
        d.set_hw_cnt_ft_dup_hit(counters["CNT_FT_DUP_HIT"]);
        d.set_hw_cnt_ft_bad_update(counters["CNT_FT_BAD_UPDATE"]);
        d.set_hw_cnt_tx_frames(counters["CNT_TX_FRAMES"]);
        d.set_hw_cnt_tx_drop_miss(counters["CNT_TX_DROP_MISS"]);
        d.set_hw_cnt_tx_drop_short(counters["CNT_TX_DROP_SHORT"]);
        d.set_hw_cnt_tx_drop_not_ipv4(counters["CNT_TX_DROP_NOT_IPV4"]);
        d.set_hw_cnt_tx_drop_too_long(counters["CNT_TX_DROP_TOO_LONG"]);
        d.set_hw_cnt_tx_drop_bad_keep(counters["CNT_TX_DROP_BAD_KEEP"]);
        d.set_hw_cnt_credit_requests(counters["CNT_CREDIT_REQUESTS"]);
        d.set_hw_cnt_credit_grants(counters["CNT_CREDIT_GRANTS"]);
        d.set_hw_cnt_credit_wasted_bytes(counters["CNT_CREDIT_WASTED_BYTES"]);
        d.set_hw_cnt_credit_starved_cycles(counters["CNT_CREDIT_STARVED_CYCLES"]);
        d.set_hw_cnt_credit_grants_dropped(counters["CNT_CREDIT_GRANTS_DROPPED"]);
        d.set_hw_cnt_credit_rx_requests(counters["CNT_CREDIT_RX_REQUESTS"]);
        d.set_hw_cnt_credit_rx_grants(counters["CNT_CREDIT_RX_GRANTS"]);
        d.set_hw_cnt_credit_rx_idle_slots(counters["CNT_CREDIT_RX_IDLE_SLOTS"]);
        // The RX counters, each driven through its own setter.
        #[allow(clippy::type_complexity)]
        let rx_setters: [(&str, fn(&mut Csr, u64)); 29] = [
            ("CNT_RX_FRAMES", |d, v| d.set_hw_cnt_rx_frames(v)),
            ("CNT_RX_PLACED", |d, v| d.set_hw_cnt_rx_placed(v)),
            ("CNT_RX_DROP_BAD_KEEP", |d, v| d.set_hw_cnt_rx_drop_bad_keep(v)),
            ("CNT_RX_DROP_TOO_LONG", |d, v| d.set_hw_cnt_rx_drop_too_long(v)),
            ("CNT_RX_DROP_TRUNCATED", |d, v| d.set_hw_cnt_rx_drop_truncated(v)),
            ("CNT_RX_DROP_NOT_IPV4", |d, v| d.set_hw_cnt_rx_drop_not_ipv4(v)),
            ("CNT_RX_DROP_BAD_CHECKSUM", |d, v| d.set_hw_cnt_rx_drop_bad_checksum(v)),
            ("CNT_RX_DROP_BAD_PORT", |d, v| d.set_hw_cnt_rx_drop_bad_port(v)),
            ("CNT_RX_DROP_BAD_VXLAN", |d, v| d.set_hw_cnt_rx_drop_bad_vxlan(v)),
            ("CNT_RX_DROP_UNKNOWN_VNI", |d, v| d.set_hw_cnt_rx_drop_unknown_vni(v)),
            ("CNT_RX_DROP_BAD_INNER", |d, v| d.set_hw_cnt_rx_drop_bad_inner(v)),
            ("CNT_RX_DROP_BAD_OPCODE", |d, v| d.set_hw_cnt_rx_drop_bad_opcode(v)),
            ("CNT_RX_DROP_BAD_LENGTH", |d, v| d.set_hw_cnt_rx_drop_bad_length(v)),
            ("CNT_RX_DROP_BAD_ICRC", |d, v| d.set_hw_cnt_rx_drop_bad_icrc(v)),
            ("CNT_RX_DROP_REFUSED", |d, v| d.set_hw_cnt_rx_drop_refused(v)),
            ("CNT_RX_REORDER_DUPLICATE", |d, v| d.set_hw_cnt_rx_reorder_duplicate(v)),
            ("CNT_RX_REORDER_BEYOND_WINDOW", |d, v| d.set_hw_cnt_rx_reorder_beyond_window(v)),
            ("CNT_RX_REORDER_UNKNOWN_QP", |d, v| d.set_hw_cnt_rx_reorder_unknown_qp(v)),
            ("CNT_RX_REORDER_BAD_QP", |d, v| d.set_hw_cnt_rx_reorder_bad_qp(v)),
            ("CNT_RX_REORDER_IMM_FULL", |d, v| d.set_hw_cnt_rx_reorder_imm_full(v)),
            ("CNT_RX_CQES", |d, v| d.set_hw_cnt_rx_cqes(v)),
            ("CNT_RX_ACKS", |d, v| d.set_hw_cnt_rx_acks(v)),
            ("CNT_RX_NAKS", |d, v| d.set_hw_cnt_rx_naks(v)),
            ("CNT_RX_PORT0_DROP_FULL", |d, v| d.set_hw_cnt_rx_port0_drop_full(v)),
            ("CNT_RX_PORT0_DROP_ERROR", |d, v| d.set_hw_cnt_rx_port0_drop_error(v)),
            ("CNT_RX_PORT0_DROP_LONG", |d, v| d.set_hw_cnt_rx_port0_drop_long(v)),
            ("CNT_RX_PORT1_DROP_FULL", |d, v| d.set_hw_cnt_rx_port1_drop_full(v)),
            ("CNT_RX_PORT1_DROP_ERROR", |d, v| d.set_hw_cnt_rx_port1_drop_error(v)),
            ("CNT_RX_PORT1_DROP_LONG", |d, v| d.set_hw_cnt_rx_port1_drop_long(v)),
        ];
        for (n, set) in rx_setters {
            let v = next();
            counters.insert(n, v);
            set(&mut d, v);
        }
        let mut m = Model::new(hw, counters);
        for (i, (is_write, a, data, strb, delay)) in ops.into_iter().enumerate() {
            if is_write {
                let got = write(&mut d, a, data, strb, delay).expect("the slave answered");
                prop_assert_eq!(got, m.write(a, data, strb), "access {}: write {:#x} = {:#x} strb {:#x}", i, a, data, strb);
            } else {
                let got = read(&mut d, a, delay).expect("the slave answered");
                prop_assert_eq!(got, m.read(a), "access {}: read {:#x}", i, a);
            }
        }
        // Finally every mapped word reads as the model says (counters included).
        let all: Vec<u32> = registers().iter().flat_map(|r| r.offsets()).collect();
        for a in all {
            let got = read(&mut d, a, 0).unwrap();
            prop_assert_eq!(got, m.read(a), "final read {:#x}", a);
        }
    }
}
