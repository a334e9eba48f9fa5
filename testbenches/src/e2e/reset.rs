//! The whole-RNIC reset in the middle of traffic.

use super::*;

/// `reset_mid_traffic`'s findings.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ResetReport {
    /// The traffic cut by the reset (incomplete by design).
    pub before: FabricReport,
    /// Frames still arriving at B's ports, and leaving A, after the reset.
    pub frames_after_reset: u64,
    /// Bytes of a placement the reset cut short (no `tlast`; the host discards them).
    pub cut_placement_bytes: u64,
    /// What B put out between its reset and its reprogramming: must all be 0 (every QP
    /// and every tenant VNI is disabled by the reset).
    pub placed_after_reset: u64,
    pub cqes_after_reset: u64,
    pub acks_after_reset: u64,
    /// B's registers and counters read over CSR after the reset, before reprogramming.
    pub local_vni_after_reset: Vec<u32>,
    /// `RX_STATUS.QP_BUSY` right after a `QP_CMD` write with OP = 0 (must be 0).
    pub qp_cmd_op0_busy: u32,
    /// The same after OP = 1 (must be set).
    pub qp_cmd_op1_busy: u32,
    pub counters_after_reset: BTreeMap<String, u64>,
    /// New traffic on the reprogrammed RNIC.
    pub after: FabricReport,
}

/// Reset RNIC B (the whole `prnic_top`) after `at_cycle` cycles of `s`, with frames in
/// its ports, payload in `rx_decap` and CQEs queued; keep the rest of the frames coming;
/// then reprogram it over CSR as software would and run new traffic (seed + 1).
pub fn reset_mid_traffic(s: &Scenario, at_cycle: u64) -> ResetReport {
    assert_eq!(s.backend, Backend::Rtl);
    let mut r = RtlRnics::new(s, None).expect("no trace");
    let mut rep = ResetReport {
        before: drive_until(s, &mut r, &mut |_, _| {}, Some(at_cycle)),
        ..Default::default()
    };
    let d = &mut r.b.one_clock().dut;
    crate::bridge::reset_top(d);
    // During rx_reorder's sweep a QP command waits (RX_STATUS.QP_BUSY): OP = 0 must not
    // be one, OP = 1 is (the staging registers are at reset: it disables QP 0).
    csr_write(d, regs::QP_CMD, 0);
    rep.qp_cmd_op0_busy = csr_read(d, regs::RX_STATUS) & regs::RX_STATUS_QP_BUSY_MASK;
    csr_write(d, regs::QP_CMD, 1);
    rep.qp_cmd_op1_busy = csr_read(d, regs::RX_STATUS) & regs::RX_STATUS_QP_BUSY_MASK;
    // A placement cut by the reset never gets its last beat: the host discards it.
    rep.cut_placement_bytes = r.place.len() as u64;
    r.place.clear();
    // The frames already on their way keep arriving while B sweeps and sits idle.
    let period_ns = PrnicConfig::builtin().clock_period_ns();
    let mut sink = Fabric::new(
        vec![PathSpec {
            rate_gbps: 1e5,
            delay_ns: 0.0,
            jitter_ns: 0.0,
            loss: 0.0,
            dup: 0.0,
            queue_bytes: u64::MAX / 2,
            held: 0.0,
            held_ns: 0.0,
            corrupt: 0.0,
        }],
        Selection::RoundRobin,
        1,
    );
    rep.frames_after_reset =
        r.b_frames.iter().sum::<u64>() + r.a_in.iter().filter(|b| b.last).count() as u64;
    let mut c = 0u64;
    while c < 20_000 && !(r.idle() && c > 4_000) {
        let now = c as f64 * period_ns;
        // What A still sends goes straight to B (B's MAC FIFOs took what waited at its
        // ports before the reset, and the reset emptied them).
        let arrived: Vec<Vec<u8>> = sink.poll(now).into_iter().map(|(_, f)| f).collect();
        let o = r.step(now, &mut sink, arrived);
        rep.placed_after_reset += o.placed.len() as u64;
        rep.cqes_after_reset += o.cqes.len() as u64;
        rep.acks_after_reset += (o.acks.len() + o.naks.len()) as u64;
        c += 1;
    }
    let d = &mut r.b.one_clock().dut;
    assert_eq!(
        csr_read(d, regs::RX_STATUS) & regs::RX_STATUS_CLEARING_MASK,
        0,
        "rx_reorder's sweep (one cycle per QP) is over by now"
    );
    rep.local_vni_after_reset = (0..8)
        .map(|t| csr_read(d, regs::LOCAL_VNI0 + 4 * t))
        .collect();
    rep.counters_after_reset = r.counters();
    program_b(r.b.csr(), s);
    let s2 = Scenario {
        seed: s.seed + 1,
        ..s.clone()
    };
    rep.after = drive(&s2, &mut r, &mut |_, _| {});
    rep
}
