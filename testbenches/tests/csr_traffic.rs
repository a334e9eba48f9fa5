//! CSR fuzzing interleaved with traffic on `prnic_top`: random AXI4-Lite reads and writes
//! (mapped, unmapped, misaligned, read-only, staging registers) between the beats of a
//! multi-tenant TX scenario. Unmapped and misaligned accesses answer SLVERR and are
//! counted; writes to read-only registers change nothing; and the data path does exactly
//! what the golden model says, frame for frame, as if no CSR access had happened.

use prnic_gen::PrnicConfig;
use prnic_regs::{registers, Access, Kind};
use prnic_testbenches::axil::{read, write, OKAY, SLVERR};
use prnic_testbenches::dpu_link::VerilatorRnic;
use prnic_testbenches::tx_encap::{mixed_scenario, run_hooked, TxDut};
use prnic_verif::dpu::{CheckMode, Dpu, Op};
use prnic_verif::regs::*;
use prnic_verif::rng::rng;

#[test]
fn csr_accesses_between_beats_leave_the_data_path_alone() {
    let cfg = PrnicConfig::builtin();
    let s = prnic_testbenches::tx_encap::settings(cfg);
    let geom = prnic_testbenches::flow_table::geometry(cfg);
    let hash = u64::from_str_radix(&cfg.hash_hex(), 16).unwrap();
    let mut dpu = Dpu::new(VerilatorRnic::new(), geom, hash, CheckMode::StateMachine);
    let (table, frames) = mixed_scenario(21, 150, 4, 15, s.max_frame_bytes);
    for (k, v) in &table {
        dpu.apply(Op::Insert(*k, *v)).unwrap();
    }
    let d = &mut dpu.link.dut;
    for (a, v) in [
        (PORT0_MAC_LO, s.port_mac[0] as u32),
        (PORT0_MAC_HI, (s.port_mac[0] >> 32) as u32),
        (PORT0_IPV4, s.port_ip[0]),
        (PORT1_MAC_LO, s.port_mac[1] as u32),
        (PORT1_MAC_HI, (s.port_mac[1] >> 32) as u32),
        (PORT1_IPV4, s.port_ip[1]),
        (TX_IP, 26 | (64 << 8)),
    ] {
        assert_eq!(write(d, a, v, 0xf, 0).unwrap(), OKAY);
    }
    let bad_before = read(d, CNT_CSR_BAD_ACCESS_LO, 0).unwrap().0;
    // Which words are mapped, and which are read-only.
    let mut mapped = std::collections::HashMap::new();
    for r in registers() {
        let ro = match &r.kind {
            Kind::Reg(fs) => fs.iter().all(|f| f.access == Access::Ro),
            Kind::Counter64 { .. } => true,
        };
        for a in r.offsets() {
            mapped.insert(a, (r.name, ro));
        }
    }
    let staging = [
        FT_KEY_LO, FT_KEY_HI, FT_VAL0, FT_VAL1, FT_VAL2, FT_VAL3, FT_LOC,
    ];
    let mut next = rng(5);
    let mut slverr = 0u32;
    let mut accesses = 0u32;
    let mut checks: Vec<String> = vec![];
    let want = prnic_testbenches::tx_encap::expected_default(cfg, &s, &table, &frames);
    let sent = prnic_testbenches::tx_encap::sent_frames(&want);
    let cap = run_hooked(
        d,
        &frames,
        |_| false,
        |c| c % 5 != 0,
        sent.len(),
        200,
        200_000,
        |d, _c| {
            if !next().is_multiple_of(4) {
                return;
            }
            d.drive_in(None);
            d.set_out_ready(false);
            accesses += 1;
            let r = next();
            let a = match r % 4 {
                0 => (r >> 8) as u32 & 0xffc,                    // any aligned address
                1 => ((r >> 8) as u32 & 0xfff) | 1,              // misaligned
                2 => staging[(r >> 8) as usize % staging.len()], // harmless RW staging
                _ => *mapped.keys().nth((r >> 8) as usize % mapped.len()).unwrap(),
            };
            let known = mapped.get(&a).copied();
            let writable = staging.contains(&a) || known.is_some_and(|(_, ro)| ro);
            if (r >> 40).is_multiple_of(2) && (writable || known.is_none()) {
                let before = known.map(|_| read(d, a, 0).unwrap().0);
                let resp = write(d, a, (r >> 20) as u32, 0xf, 0).unwrap();
                match known {
                    None => {
                        slverr += 1;
                        if resp != SLVERR {
                            checks.push(format!("write {a:#x}: {resp}, expected SLVERR"));
                        }
                    }
                    Some((name, true))
                        if !name.starts_with("CNT_")
                            && name != "FT_STATUS"
                            && !name.starts_with("FT_RD")
                            && read(d, a, 0).unwrap().0 != before.unwrap() =>
                    {
                        checks.push(format!("write to read-only {name} changed it"));
                    }
                    _ => {}
                }
            } else {
                let (_, resp) = read(d, a, 0).unwrap();
                let expect = if known.is_some() { OKAY } else { SLVERR };
                if known.is_none() {
                    slverr += 1;
                }
                if resp != expect {
                    checks.push(format!("read {a:#x}: {resp}, expected {expect}"));
                }
            }
        },
    )
    .expect("AXI4-Stream protocol");
    assert!(checks.is_empty(), "{checks:#?}");
    assert!(accesses > 200, "{accesses} CSR accesses");
    assert_eq!(cap.frames.len(), sent.len(), "frames on the wire");
    for (i, (g, _, _)) in cap.frames.iter().enumerate() {
        assert!(g == sent[i], "frame {i} differs from the model");
    }
    let bad_after = read(d, CNT_CSR_BAD_ACCESS_LO, 0).unwrap().0;
    assert_eq!(bad_after - bad_before, slverr, "SLVERRs counted");
    assert_eq!(read(d, ID_MAGIC, 0).unwrap().0, 0x5052_4E43);
}
