//! `csr` and the CSR path of `prnic_top` on the Verilator models, driven by an AXI4-Lite
//! master. Register addresses and fields come from `prnic_verif::regs`, generated from the
//! one register description; reset values from the description via the generator.

use prnic_gen::PrnicConfig;
use prnic_testbenches::axil::{read, write, OKAY, SLVERR};
use prnic_testbenches::bridge::{Csr, Dut, PrnicTop};
use prnic_testbenches::tx_encap::{probe, Seen};
use prnic_verif::flow_table::{value_for, Hashes, Value};
use prnic_verif::regs::*;

fn top() -> PrnicTop {
    let mut d = PrnicTop::new();
    prnic_testbenches::bridge::reset_top(&mut d);
    // Wait for the flow table's reset sweep.
    for _ in 0..20 {
        let (s, r) = read(&mut d, FT_STATUS, 0).unwrap();
        assert_eq!(r, OKAY);
        if s & FT_STATUS_CLEARING_MASK == 0 {
            return d;
        }
        d.step_n(1000);
    }
    panic!("flow table never left its reset sweep");
}

fn rd(d: &mut PrnicTop, a: u32) -> u32 {
    let (v, r) = read(d, a, 0).unwrap();
    assert_eq!(r, OKAY, "read {a:#x}");
    v
}
fn wr(d: &mut PrnicTop, a: u32, v: u32) {
    assert_eq!(write(d, a, v, 0xf, 0).unwrap(), OKAY, "write {a:#x}");
}

#[test]
fn identification_registers() {
    let mut d = top();
    d.set_id_build_hash(0x1234_abcd);
    assert_eq!(rd(&mut d, ID_MAGIC), MAGIC);
    assert_eq!(rd(&mut d, ID_VERSION), prnic_regs::MAP_VERSION);
    let hash = u64::from_str_radix(&PrnicConfig::builtin().hash_hex(), 16).unwrap();
    assert_eq!(
        rd(&mut d, ID_CONFIG_HASH_LO) as u64 | ((rd(&mut d, ID_CONFIG_HASH_HI) as u64) << 32),
        hash
    );
    assert_eq!(rd(&mut d, ID_BUILD_HASH), 0x1234_abcd);
}

#[test]
fn every_field_resets_to_its_described_value() {
    let cfg = PrnicConfig::builtin();
    let mut d = top();
    for r in prnic_regs::registers() {
        if let prnic_regs::Kind::Reg(fields) = &r.kind {
            let v = rd(&mut d, r.offset);
            for f in fields {
                if matches!(f.access, prnic_regs::Access::Rw)
                    || matches!(
                        f.reset,
                        prnic_regs::Reset::Value(_) | prnic_regs::Reset::Config(_)
                    ) && f.access == prnic_regs::Access::Ro
                {
                    let got = f.get(v as u64);
                    assert_eq!(
                        got,
                        prnic_gen::csr::reset_value(cfg, r.name, f.name),
                        "{}.{}",
                        r.name,
                        f.name
                    );
                }
            }
        }
    }
}

/// `rst` reaches the blocks only through the reset synchronizer and the per-block copies:
/// `s_axis_tx_tready` (low while `tx_encap` is in reset) falls `RESET_CYCLES` edges after
/// `rst` rises and rises again as many edges after `rst` falls, and a RW field written
/// before is back at its reset value. A model that never sees `rst` powers up in reset: the flow table
/// sweeps.
#[test]
fn rst_reaches_the_blocks_through_its_synchronizer_and_the_design_powers_up_in_reset() {
    use prnic_rtl::prnic_top::RESET_CYCLES;
    let stages = RESET_CYCLES as u64;
    let mut d = PrnicTop::new();
    d.step_n(stages + 1);
    assert_ne!(
        rd(&mut d, FT_STATUS) & FT_STATUS_CLEARING_MASK,
        0,
        "no sweep at power-up"
    );

    let mut d = top();
    let batch = rd(&mut d, CREDIT_BATCH);
    wr(&mut d, CREDIT_BATCH, batch + 64);
    assert_eq!(rd(&mut d, CREDIT_BATCH), batch + 64);
    // Clock edges after setting `rst` until `s_axis_tx_tready` changes (at most 10).
    let edges_to_change = |d: &mut PrnicTop, rst: u64| {
        let before = d.s_axis_tx_tready();
        d.set_rst(rst);
        let mut edges = 0;
        while d.s_axis_tx_tready() == before && edges < 10 {
            d.step();
            edges += 1;
        }
        edges
    };
    assert_eq!(d.s_axis_tx_tready(), 1);
    assert_eq!(
        edges_to_change(&mut d, 1),
        stages,
        "rst rising to the blocks' reset"
    );
    assert_eq!(
        edges_to_change(&mut d, 0),
        stages,
        "rst falling to the blocks' release"
    );
    assert_eq!(rd(&mut d, CREDIT_BATCH), batch, "CREDIT_BATCH after reset");
}

#[test]
fn rw_registers_honour_byte_strobes_and_field_widths() {
    let mut d = top();
    assert_eq!(
        write(&mut d, PORT0_IPV4, 0xaabb_ccdd, 0b0101, 0).unwrap(),
        OKAY
    );
    assert_eq!(rd(&mut d, PORT0_IPV4), 0x00bb_00dd);
    assert_eq!(
        write(&mut d, PORT0_IPV4, 0x1122_3344, 0b1000, 2).unwrap(),
        OKAY
    );
    assert_eq!(rd(&mut d, PORT0_IPV4), 0x11bb_00dd);
    // Bits outside the fields read as zero.
    wr(&mut d, PORT0_MAC_HI, 0xffff_ffff);
    assert_eq!(rd(&mut d, PORT0_MAC_HI), 0x0000_ffff);
    wr(&mut d, TX_IP, 0xffff_ffff);
    assert_eq!(rd(&mut d, TX_IP), TX_IP_DSCP_MASK | TX_IP_TTL_MASK);
    // A delayed rready still returns the value.
    assert_eq!(
        read(&mut d, TX_IP, 5).unwrap(),
        (TX_IP_DSCP_MASK | TX_IP_TTL_MASK, OKAY)
    );
}

#[test]
fn unmapped_and_misaligned_accesses_answer_slverr_and_are_counted() {
    let mut d = top();
    let before_magic = rd(&mut d, ID_MAGIC);
    let unmapped: Vec<u32> = (0..0x1000)
        .step_by(4)
        .filter(|a| !MAPPED.contains(a))
        .take(3)
        .collect();
    assert_eq!(read(&mut d, unmapped[0], 0).unwrap().1, SLVERR);
    assert_eq!(write(&mut d, unmapped[1], 1, 0xf, 0).unwrap(), SLVERR);
    assert_eq!(
        read(&mut d, ID_MAGIC + 2, 0).unwrap().1,
        SLVERR,
        "misaligned read"
    );
    assert_eq!(
        write(&mut d, PORT0_IPV4 + 1, 5, 0xf, 0).unwrap(),
        SLVERR,
        "misaligned write"
    );
    assert_eq!(
        rd(&mut d, PORT0_IPV4),
        0,
        "a misaligned write changed a register"
    );
    assert_eq!(rd(&mut d, CNT_CSR_BAD_ACCESS_LO), 4);
    assert_eq!(rd(&mut d, CNT_CSR_BAD_ACCESS_HI), 0);
    assert_ne!(
        rd(&mut d, ERR_FLAGS) & ERR_FLAGS_CSR_BAD_ACCESS_MASK,
        0,
        "sticky flag"
    );
    wr(&mut d, ERR_FLAGS, ERR_FLAGS_CSR_BAD_ACCESS_MASK);
    assert_eq!(
        rd(&mut d, ERR_FLAGS) & ERR_FLAGS_CSR_BAD_ACCESS_MASK,
        0,
        "write 1 clears"
    );
    assert_eq!(rd(&mut d, ID_MAGIC), before_magic);
}

#[test]
fn writes_to_read_only_registers_change_nothing_and_are_counted() {
    let mut d = top();
    for &a in READ_ONLY.iter().take(4) {
        let v = rd(&mut d, a);
        assert_eq!(write(&mut d, a, !v, 0xf, 0).unwrap(), OKAY);
        assert_eq!(rd(&mut d, a), v, "read-only {a:#x} changed");
    }
    assert_eq!(rd(&mut d, CNT_CSR_RO_WRITE_LO), 4);
}

#[test]
fn counters_read_as_one_consistent_64_bit_value() {
    let mut c = Csr::new();
    c.set_rst(1);
    c.step();
    c.set_rst(0);
    c.set_hw_cnt_ft_multi_hit(0x1_ffff_ffff);
    assert_eq!(
        read(&mut c, CNT_FT_MULTI_HIT_LO, 0).unwrap(),
        (0xffff_ffff, OKAY)
    );
    // The counter wraps into the high word between the two reads.
    c.set_hw_cnt_ft_multi_hit(0x2_0000_0005);
    assert_eq!(
        read(&mut c, CNT_FT_MULTI_HIT_HI, 0).unwrap(),
        (1, OKAY),
        "HI must be latched by the LO read"
    );
    assert_eq!(read(&mut c, CNT_FT_MULTI_HIT_LO, 0).unwrap(), (5, OKAY));
    assert_eq!(read(&mut c, CNT_FT_MULTI_HIT_HI, 0).unwrap(), (2, OKAY));
}

/// Stage a whole entry and commit it with one FT_CMD write.
fn program(d: &mut PrnicTop, op: u32, way: u32, index: u32, key: u64, v: Value) {
    let b = v.to_bits();
    wr(d, FT_KEY_LO, key as u32);
    wr(d, FT_KEY_HI, (key >> 32) as u32);
    wr(d, FT_VAL0, b as u32);
    wr(d, FT_VAL1, (b >> 32) as u32);
    wr(d, FT_VAL2, (b >> 64) as u32);
    wr(d, FT_VAL3, (b >> 96) as u32);
    wr(d, FT_LOC, index | (way << 16));
    wr(d, FT_CMD, op);
}

fn read_back(d: &mut PrnicTop, op: u32, way: u32, index: u32) -> Option<(u64, Value)> {
    wr(d, FT_LOC, index | (way << 16));
    wr(d, FT_CMD, op);
    // Software polls RD_DONE (the result lands a few cycles after the command).
    let mut polls = 0;
    while rd(d, FT_STATUS) & FT_STATUS_RD_DONE_MASK == 0 {
        polls += 1;
        assert!(polls < 4, "read-back not done after {polls} polls");
    }
    let hi = rd(d, FT_RD_KEY_HI);
    if hi & FT_RD_KEY_HI_VALID_MASK == 0 {
        return None;
    }
    let key = rd(d, FT_RD_KEY_LO) as u64 | (((hi & FT_RD_KEY_HI_VNI_MASK) as u64) << 32);
    let b = rd(d, FT_RD_VAL0) as u128
        | (rd(d, FT_RD_VAL1) as u128) << 32
        | (rd(d, FT_RD_VAL2) as u128) << 64
        | (rd(d, FT_RD_VAL3) as u128) << 96;
    Some((key, Value::from_bits(b)))
}

/// The data path's view of `key`: a frame sent through the TX path, its outer header
/// read back (`None`: dropped as a miss).
fn lookup(d: &mut PrnicTop, key: u64) -> Option<Seen> {
    probe(d, key)
}

#[test]
fn flow_entries_programmed_through_csr_are_read_back_and_seen_by_the_data_path() {
    let h = Hashes::new(&prnic_testbenches::flow_table::geometry(
        PrnicConfig::builtin(),
    ));
    let mut d = top();
    let entries: Vec<(u64, Value)> = (0..6u64)
        .map(|i| (0x0a_0000_0000 | (i * 7919) | (i << 40), value_for(i + 100)))
        .collect();
    // Ways 0..3 at the hashed index, then two in the stash.
    for (i, (k, v)) in entries.iter().enumerate() {
        if i < 4 {
            program(
                &mut d,
                ft_op::WRITE_SLOT,
                i as u32,
                h.index(i, *k) as u32,
                *k,
                *v,
            );
        } else {
            program(&mut d, ft_op::WRITE_STASH, 0, i as u32 - 4, *k, *v);
        }
    }
    for (i, (k, v)) in entries.iter().enumerate() {
        assert_eq!(
            lookup(&mut d, *k),
            Some(Seen::of(v)),
            "entry {i} on the data path"
        );
        let back = if i < 4 {
            read_back(&mut d, ft_op::READ_SLOT, i as u32, h.index(i, *k) as u32)
        } else {
            read_back(&mut d, ft_op::READ_STASH, 0, i as u32 - 4)
        };
        assert_eq!(back, Some((*k, *v)), "entry {i} read back");
    }
    // Invalidate one way entry and one stash entry.
    program(
        &mut d,
        ft_op::INVALIDATE_SLOT,
        1,
        h.index(1, entries[1].0) as u32,
        0,
        Value::from_bits(0),
    );
    program(
        &mut d,
        ft_op::INVALIDATE_STASH,
        0,
        1,
        0,
        Value::from_bits(0),
    );
    assert_eq!(lookup(&mut d, entries[1].0), None);
    assert_eq!(lookup(&mut d, entries[5].0), None);
    assert_eq!(read_back(&mut d, ft_op::READ_STASH, 0, 1), None);
    assert_eq!(lookup(&mut d, entries[0].0), Some(Seen::of(&entries[0].1)));
    // An index past the table is refused and counted by the flow table.
    program(&mut d, ft_op::WRITE_SLOT, 0, 0xffff, 1, Value::from_bits(1));
    assert_eq!(rd(&mut d, CNT_FT_BAD_UPDATE_LO), 1);
}

/// Software cannot make the table hold a key twice: a second write of a key moves it
/// (the first place reads back empty, the data path sees the new value, no multi-hit),
/// and a way write away from the key's own slot is refused and counted.
#[test]
fn a_key_written_twice_through_csr_moves_and_is_never_found_twice() {
    let h = Hashes::new(&prnic_testbenches::flow_table::geometry(
        PrnicConfig::builtin(),
    ));
    let mut d = top();
    let k = 0x33_0a0b_0c0d;
    let (i0, i3) = (h.index(0, k) as u32, h.index(3, k) as u32);
    program(&mut d, ft_op::WRITE_SLOT, 0, i0, k, value_for(1));
    program(&mut d, ft_op::WRITE_SLOT, 3, i3, k, value_for(2));
    assert_eq!(lookup(&mut d, k), Some(Seen::of(&value_for(2))));
    assert_eq!(read_back(&mut d, ft_op::READ_SLOT, 0, i0), None);
    assert_eq!(
        read_back(&mut d, ft_op::READ_SLOT, 3, i3),
        Some((k, value_for(2)))
    );
    program(&mut d, ft_op::WRITE_STASH, 0, 7, k, value_for(3));
    assert_eq!(lookup(&mut d, k), Some(Seen::of(&value_for(3))));
    assert_eq!(read_back(&mut d, ft_op::READ_SLOT, 3, i3), None);
    d.step_n(2);
    assert_eq!(rd(&mut d, ERR_FLAGS) & ERR_FLAGS_FT_MULTI_HIT_MASK, 0);
    assert_eq!(rd(&mut d, CNT_FT_MULTI_HIT_LO), 0);
    assert_eq!(rd(&mut d, CNT_FT_DUP_HIT_LO), 0);
    // Way 1, one slot away from the key's own: refused, counted, nothing changes.
    let wrong = (h.index(1, k) as u32 + 1) % PrnicConfig::builtin().slots_per_way();
    program(&mut d, ft_op::WRITE_SLOT, 1, wrong, k, value_for(4));
    assert_eq!(rd(&mut d, CNT_FT_BAD_UPDATE_LO), 1);
    assert_eq!(read_back(&mut d, ft_op::READ_SLOT, 1, wrong), None);
    assert_eq!(lookup(&mut d, k), Some(Seen::of(&value_for(3))));
}

#[test]
fn the_sprayer_takes_its_range_from_csr() {
    let mut d = top();
    let k = (5u64 << 32) | 0x0a00_0042;
    program(&mut d, ft_op::WRITE_STASH, 0, 0, k, value_for(9));
    wr(&mut d, SPRAY_PORTS, 100 | (103 << 16));
    wr(&mut d, SPRAY, 0);
    d.step_n(3);
    // Outer UDP source port: bytes 34..36 of each frame on the wire.
    let frames: Vec<_> = (0..6)
        .map(|i| prnic_verif::tx_encap::TxFrame {
            bytes: prnic_verif::tx_encap::rocev2_frame(100, k as u32, 3, i, 0, i as u64),
            vni: 5,
            qp: 3,
            bad_keep_beat: None,
        })
        .collect();
    let cap =
        prnic_testbenches::tx_encap::run(&mut d, &frames, |_| false, |_| true, 6, 10, 500).unwrap();
    let ports: Vec<u16> = cap
        .frames
        .iter()
        .map(|(f, _, _)| u16::from_be_bytes([f[34], f[35]]))
        .collect();
    assert_eq!(ports, [100, 101, 102, 103, 100, 101]);
}

/// The credit engine inside `prnic_top`: the rule comes from CSR, and the counters read
/// back through CSR.
#[test]
fn the_credit_engine_takes_its_rule_from_csr_and_counts_through_it() {
    for (rule, sent_after_bdp) in [(0u32, 0u64), (1, 16384)] {
        let mut d = top();
        wr(&mut d, CREDIT, rule);
        d.step_n(2);
        let mut sent = vec![];
        for _ in 0..18 {
            d.set_s_credit_send_valid(1);
            d.set_s_credit_send_qp(3);
            d.set_s_credit_send_remaining(1 << 30);
            d.step();
            d.set_s_credit_send_valid(0);
            // Each send's answer comes back before the next send is made.
            for _ in 0..(prnic_rtl::credit_tx::CREDIT_TX_LATENCY + 2) {
                if d.m_credit_send_valid() != 0 {
                    sent.push(d.m_credit_send_bytes());
                }
                d.step();
            }
        }
        // 262,144 bytes of BDP = 16 batches without credit, then Eq.1 waits and Eq.2
        // overdraws one batch.
        assert_eq!(&sent[..16], &[16384; 16]);
        assert_eq!(sent[16], sent_after_bdp, "rule {rule}");
        assert_eq!(sent[17], 0);
        assert_eq!(
            rd(&mut d, CNT_CREDIT_REQUESTS_LO),
            16 + (sent_after_bdp / 16384) as u32
        );
        // A grant arrives; the receiver side takes a request and grants it in a slot.
        d.set_s_credit_grant_valid(1);
        d.set_s_credit_grant_qp(3);
        d.step();
        d.set_s_credit_grant_valid(0);
        d.set_s_credit_req_valid(1);
        d.set_s_credit_req_qp(7);
        d.step();
        d.set_s_credit_req_valid(0);
        let mut granted = None;
        for _ in 0..300 {
            d.step();
            if d.m_credit_grant_valid() != 0 {
                granted = Some(d.m_credit_grant_qp());
            }
        }
        assert_eq!(granted, Some(7));
        assert_eq!(rd(&mut d, CNT_CREDIT_GRANTS_LO), 1);
        assert_eq!(rd(&mut d, CNT_CREDIT_RX_REQUESTS_LO), 1);
        assert_eq!(rd(&mut d, CNT_CREDIT_RX_GRANTS_LO), 1);
        assert_eq!(
            rd(&mut d, CREDIT_STATUS),
            0,
            "no sweep running, no debt error"
        );
    }
}

mod axil;
