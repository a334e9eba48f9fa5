//! The AXI4-Lite slave under back-to-back accesses, with and without backpressure on
//! its responses: every access gets exactly one response, in order.

use super::*;

/// The slave's AXI4-Lite outputs in one cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct AxilOut {
    awready: bool,
    wready: bool,
    bvalid: bool,
    bresp: u8,
    arready: bool,
    rvalid: bool,
    rdata: u32,
    rresp: u8,
}

fn axil_out(d: &Csr) -> AxilOut {
    use prnic_testbenches::axil::AxilPort;
    AxilOut {
        awready: d.awready(),
        wready: d.wready(),
        bvalid: d.bvalid(),
        bresp: d.bresp(),
        arready: d.arready(),
        rvalid: d.rvalid(),
        rdata: d.rdata(),
        rresp: d.rresp(),
    }
}

/// What a run of [`back_to_back`] saw: every response in order, and the cycles it took.
struct Responses {
    b: Vec<u8>,
    r: Vec<(u32, u8)>,
    cycles: u64,
}

/// Drive `writes` (address, data, strobes) and `reads` on both channels at once, each
/// request presented in the cycle after the previous one was taken (valid never waits
/// for ready); `bready(c)` / `rready(c)` give the master's readiness in cycle `c`. Every
/// cycle the outputs are read as the clock edge left them and again after the inputs
/// change: they must be equal (no combinational path from an input port to an output
/// port). A response must stay, unchanged, until it is taken; none may come without a
/// request; and the slave must be quiet once everything is answered.
fn back_to_back(
    d: &mut Csr,
    writes: &[(u32, u32, u8)],
    reads: &[u32],
    mut bready: impl FnMut(u64) -> bool,
    mut rready: impl FnMut(u64) -> bool,
) -> Responses {
    use prnic_testbenches::axil::AxilPort;
    let (mut wi, mut ri) = (0, 0);
    let mut out = Responses {
        b: vec![],
        r: vec![],
        cycles: 0,
    };
    let mut held_b: Option<u8> = None;
    let mut held_r: Option<(u32, u8)> = None;
    while out.b.len() < writes.len() || out.r.len() < reads.len() {
        let c = out.cycles;
        let before = axil_out(d);
        let w = writes.get(wi);
        let (br, rr) = (bready(c), rready(c));
        d.drive(
            w.map(|x| x.0),
            w.map(|x| (x.1, x.2)),
            br,
            reads.get(ri).copied(),
            rr,
        );
        d.settle();
        let o = axil_out(d);
        assert_eq!(
            before, o,
            "cycle {c}: an input reached an output in the same cycle"
        );
        assert_eq!(o.awready, o.wready, "cycle {c}: awready and wready differ");
        if let Some(b) = held_b {
            assert!(
                o.bvalid && o.bresp == b,
                "cycle {c}: a write response changed before it was taken"
            );
        }
        if let Some(r) = held_r {
            assert!(
                o.rvalid && (o.rdata, o.rresp) == r,
                "cycle {c}: a read response changed before it was taken"
            );
        }
        // A response only ever answers a request taken in an earlier cycle.
        if o.bvalid {
            assert!(
                out.b.len() < wi,
                "cycle {c}: a write response without a write"
            );
            if br {
                out.b.push(o.bresp);
            }
        }
        if o.rvalid {
            assert!(
                out.r.len() < ri,
                "cycle {c}: a read response without a read"
            );
            if rr {
                out.r.push((o.rdata, o.rresp));
            }
        }
        held_b = (o.bvalid && !br).then_some(o.bresp);
        held_r = (o.rvalid && !rr).then_some((o.rdata, o.rresp));
        if w.is_some() && o.awready {
            wi += 1;
        }
        if ri < reads.len() && o.arready {
            ri += 1;
        }
        d.step();
        out.cycles += 1;
        assert!(
            out.cycles < 64 * (writes.len() + reads.len() + 1) as u64,
            "hung after {wi} writes and {ri} reads taken"
        );
    }
    for _ in 0..8 {
        d.drive(None, None, true, None, true);
        d.settle();
        let o = axil_out(d);
        assert!(!o.bvalid && !o.rvalid, "a response nobody asked for");
        d.step();
    }
    out
}

/// `true` with probability `num`/8 per cycle.
fn random_ready(seed: u64, num: u64) -> impl FnMut(u64) -> bool {
    let mut r = prnic_verif::rng::rng(seed);
    move |_| (r() >> 61) < num
}

/// Back-to-back accesses on both channels at once, with and without backpressure on B
/// and R: every response is the one the register map says, whatever the handshake
/// timing. Writes go to RW registers (some with partial strobes), read-only words,
/// unmapped and misaligned addresses; reads, at the same time, to constants, hardware
/// inputs, a 64-bit counter (LO then HI), unmapped and misaligned addresses. Then
/// everything written is read back, back to back, with the block's own counters.
#[test]
fn back_to_back_accesses_with_and_without_backpressure_get_every_response() {
    let cfg = PrnicConfig::builtin();
    // RW bits and reset value per register word.
    let mut rw: std::collections::HashMap<u32, (u32, u32)> = Default::default();
    for r in prnic_regs::registers() {
        let mut m = 0u32;
        let mut v = 0u32;
        for f in r.fields() {
            if f.access == prnic_regs::Access::Rw {
                let fm = f.mask() as u32;
                m |= fm;
                v |= ((prnic_gen::csr::reset_value(cfg, r.name, f.name) << f.lsb) as u32) & fm;
            }
        }
        if m != 0 {
            rw.insert(r.offset, (m, v));
        }
    }
    let unmapped: Vec<u32> = (0..0x1000)
        .step_by(4)
        .filter(|a| !MAPPED.contains(a))
        .take(5)
        .collect();
    let rw_words = [
        FT_KEY_LO,
        FT_KEY_HI,
        FT_VAL0,
        FT_VAL1,
        FT_VAL2,
        FT_VAL3,
        FT_LOC,
        PORT0_MAC_LO,
        PORT0_MAC_HI,
        PORT0_IPV4,
        PORT1_IPV4,
        TX_IP,
        SPRAY_PORTS,
        CREDIT_BATCH,
        QP_ID,
        QP_PSN,
        LOCAL_VNI0,
        LOCAL_VNI7,
        REORDER_THRESH,
    ];
    #[allow(clippy::type_complexity)]
    let patterns: [(&str, Box<dyn Fn(u64) -> Box<dyn FnMut(u64) -> bool>>); 4] = [
        ("always ready", Box::new(|_| Box::new(|_| true))),
        (
            "ready every third cycle",
            Box::new(|_| Box::new(|c| c % 3 == 2)),
        ),
        (
            "ready 1/4 at random",
            Box::new(|s| Box::new(random_ready(s, 2))),
        ),
        (
            "ready 7/8 at random",
            Box::new(|s| Box::new(random_ready(s, 7))),
        ),
    ];
    for (name, pattern) in &patterns {
        let mut d = Csr::new();
        d.set_rst(1);
        d.step();
        d.set_rst(0);
        d.set_hw_id_build_hash_hash(0x0bad_cafe);
        d.set_hw_cnt_tx_frames(0x1234_5678_9abc_def0);
        // Writes, with the response and the RW image each must leave.
        let mut image: std::collections::HashMap<u32, u32> =
            rw.iter().map(|(a, (_, v))| (*a, *v)).collect();
        let mut writes = vec![];
        let mut want_b = vec![];
        let (mut bad, mut ro) = (0u64, 0u64);
        for (i, &a) in rw_words.iter().enumerate() {
            let data = 0x9e37_79b9u32.wrapping_mul(i as u32 + 1);
            let strb = if i % 4 == 3 { 0b0110 } else { 0xf };
            let bytes: u32 = (0..4)
                .filter(|b| strb >> b & 1 == 1)
                .map(|b| 0xffu32 << (8 * b))
                .sum();
            let m = rw[&a].0 & bytes;
            let e = image.get_mut(&a).unwrap();
            *e = (*e & !m) | (data & m);
            writes.push((a, data, strb));
            want_b.push(OKAY);
            // Between them: a bad or read-only write every other access.
            match i % 4 {
                0 => {
                    writes.push((unmapped[i % unmapped.len()], data, 0xf));
                    want_b.push(SLVERR);
                    bad += 1;
                }
                2 => {
                    writes.push((ID_MAGIC, !MAGIC, 0xf));
                    want_b.push(OKAY);
                    ro += 1;
                }
                3 => {
                    writes.push((PORT0_IPV4 + 2, data, 0xf));
                    want_b.push(SLVERR);
                    bad += 1;
                }
                _ => {}
            }
        }
        let mut reads = vec![];
        let mut want_r = vec![];
        for i in 0..12u32 {
            let (a, v) = match i % 6 {
                0 => (ID_MAGIC, (MAGIC, OKAY)),
                1 => (ID_BUILD_HASH, (0x0bad_cafe, OKAY)),
                2 => (CNT_TX_FRAMES_LO, (0x9abc_def0, OKAY)),
                3 => (CNT_TX_FRAMES_HI, (0x1234_5678, OKAY)),
                4 => (unmapped[(i as usize) % unmapped.len()], (0, SLVERR)),
                _ => (ID_VERSION + 1 + i % 3, (0, SLVERR)),
            };
            if v.1 == SLVERR {
                bad += 1;
            }
            reads.push(a);
            want_r.push(v);
        }
        let seed = name.len() as u64 * 0x9e37_79b9;
        let got = back_to_back(&mut d, &writes, &reads, pattern(seed), pattern(seed ^ 0x55));
        assert_eq!(got.b, want_b, "{name}: write responses");
        assert_eq!(got.r, want_r, "{name}: read responses");
        // Read everything back, back to back.
        let mut reads = vec![];
        let mut want_r = vec![];
        for &a in &rw_words {
            reads.push(a);
            want_r.push((image[&a], OKAY));
        }
        for (a, v) in [
            (CNT_CSR_BAD_ACCESS_LO, bad as u32),
            (CNT_CSR_BAD_ACCESS_HI, 0),
            (CNT_CSR_RO_WRITE_LO, ro as u32),
            (CNT_CSR_RO_WRITE_HI, 0),
            (ERR_FLAGS, ERR_FLAGS_CSR_BAD_ACCESS_MASK),
            (ID_MAGIC, MAGIC),
        ] {
            reads.push(a);
            want_r.push((v, OKAY));
        }
        let back = back_to_back(&mut d, &[], &reads, pattern(seed ^ 1), pattern(seed ^ 2));
        assert_eq!(back.r, want_r, "{name}: read back");
        // With no backpressure a channel takes one access every CSR_ACCESS_CYCLES cycles.
        if *name == "always ready" {
            let n = writes.len().max(got.r.len()) as u64;
            assert!(
                got.cycles <= n * prnic_rtl::csr::CSR_ACCESS_CYCLES as u64 + 4,
                "{} cycles for {n} accesses per channel",
                got.cycles
            );
        }
    }
}
