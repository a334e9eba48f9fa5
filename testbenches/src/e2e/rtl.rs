//! The rtl backend: two Verilated `prnic_top`s, programmed over CSR by the DPU model,
//! and the CSR fuzzer that runs beside the traffic. RNIC B runs on one clock, or with
//! its host side (placement, CQE and ACK streams, CSR) on a clock of its own through
//! `host_cdc` and `axil_cdc` (`host_mhz`).

use super::*;
use crate::axil::AxilPort;
use crate::bridge::{AxilCdc, HostCdc};
use crate::two_clock::TwoClockRnic;

/// RNIC B: on one clock, or on two ([`TwoClockRnic`]) with what its host side saw.
pub(super) enum RnicB {
    One(VerilatorRnic),
    Two(Box<TwoClockRnic>, HostSide),
}

impl RnicB {
    /// The host's register port.
    pub(super) fn csr(&mut self) -> &mut dyn AxilPort {
        match self {
            RnicB::One(r) => &mut r.dut,
            RnicB::Two(t, _) => t.as_mut(),
        }
    }

    /// B on one clock (the whole-RNIC reset scenario drives its reset cycle by cycle).
    pub(super) fn one_clock(&mut self) -> &mut VerilatorRnic {
        match self {
            RnicB::One(r) => r,
            RnicB::Two(..) => panic!("this run needs RNIC B on one clock (host_mhz = 0)"),
        }
    }
}

/// The host side of a two-clock RNIC B between `clk_host` edges: the readies it drives
/// and what the streams offered after the last edge (taken at the next one if ready).
#[derive(Default)]
pub(super) struct HostSide {
    ready: [bool; 3],
    valid: [bool; 3],
    place: (Vec<u32>, Vec<u32>, bool, Vec<u32>),
    cqe: Vec<u32>,
    ack: Vec<u32>,
}

/// Two Verilated `prnic_top`s. A's TX streams feed the fabric; B's two RX ports take the
/// arrivals in turn.
pub(super) struct RtlRnics {
    pub(super) a: Dpu<VerilatorRnic>,
    pub(super) b: RnicB,
    /// Beats of the frames waiting for A's TX input.
    pub(super) a_in: VecDeque<Beat>,
    pub(super) a_out: [Vec<u8>; 2],
    /// Beats waiting at each of B's ports, and how many frames they hold.
    pub(super) b_in: [VecDeque<Beat>; 2],
    pub(super) b_frames: [u64; 2],
    pub(super) next_port: usize,
    pub(super) place: Vec<u8>,
    pub(super) peak_backlog: u64,
    pub(super) backpressure: f64,
    pub(super) next: Box<dyn FnMut() -> u64>,
    pub(super) csr_fuzz: f64,
    pub(super) fuzz: CsrFuzz,
    pub(super) rx_gaps: f64,
    pub(super) rx_bad_frames: f64,
    pub(super) port_frames: [u64; 2],
    pub(super) port_marked_bad: [u64; 2],
    pub(super) both_busy: u64,
    pub(super) rx_burst_frames: u64,
    /// Bursts: when the oldest held frame arrived; the ports are emptying a burst.
    pub(super) held_since_ns: Option<f64>,
    pub(super) releasing: bool,
}

/// Random CSR accesses with their expected answers.
#[derive(Default)]
pub(super) struct CsrFuzz {
    /// Mapped word → (register, read-only).
    pub(super) mapped: BTreeMap<u32, (&'static str, bool)>,
    pub(super) accesses: u64,
    pub(super) slverr: u64,
    pub(super) violations: u64,
}

impl CsrFuzz {
    pub(super) fn new() -> Self {
        let mut mapped = BTreeMap::new();
        for r in prnic_regs::registers() {
            let ro = match &r.kind {
                prnic_regs::Kind::Reg(fs) => fs.iter().all(|f| f.access == prnic_regs::Access::Ro),
                prnic_regs::Kind::Counter64 { .. } => true,
            };
            for a in r.offsets() {
                mapped.insert(a, (r.name, ro));
            }
        }
        CsrFuzz {
            mapped,
            ..Default::default()
        }
    }

    /// One access chosen by `r`. Writes go only where the map says they change nothing
    /// the traffic depends on: unmapped words, read-only words, and staging registers
    /// (flow-table entry, QP_ID/QP_CFG/QP_PSN: nothing happens without a command).
    fn access(&mut self, d: &mut dyn AxilPort, r: u64) {
        const STAGING: [u32; 10] = [
            regs::FT_KEY_LO,
            regs::FT_KEY_HI,
            regs::FT_VAL0,
            regs::FT_VAL1,
            regs::FT_VAL2,
            regs::FT_VAL3,
            regs::FT_LOC,
            regs::QP_ID,
            regs::QP_CFG,
            regs::QP_PSN,
        ];
        self.accesses += 1;
        let a = match r % 4 {
            0 => (r >> 8) as u32 & 0xffc,
            1 => ((r >> 8) as u32 & 0xfff) | 1,
            2 => STAGING[(r >> 8) as usize % STAGING.len()],
            _ => *self
                .mapped
                .keys()
                .nth((r >> 8) as usize % self.mapped.len())
                .unwrap(),
        };
        let known = self.mapped.get(&a).copied();
        if known.is_none() {
            self.slverr += 1;
        }
        let expect = if known.is_some() {
            crate::axil::OKAY
        } else {
            crate::axil::SLVERR
        };
        let writable = STAGING.contains(&a) || known.is_some_and(|(_, ro)| ro);
        if (r >> 40).is_multiple_of(2) && (writable || known.is_none()) {
            let resp = write(d, a, (r >> 20) as u32, 0xf, 0).expect("CSR answers");
            self.violations += (resp != expect) as u64;
            // A read-only identification word must not change.
            if a == regs::ID_MAGIC && csr_read(d, a) != prnic_regs::MAGIC {
                self.violations += 1;
            }
        } else {
            let (_, resp) = read(d, a, 0).expect("CSR answers");
            self.violations += (resp != expect) as u64;
        }
    }
}

/// RNIC B as the scenario needs it, over CSR: tenants, window and thresholds, and every
/// QP created at PSN 0 (waiting for each `QP_CMD` as software does).
pub(super) fn program_b(d: &mut dyn AxilPort, s: &Scenario) {
    for t in 0..s.tenants {
        csr_write(d, regs::LOCAL_VNI0 + 4 * t, tenant_vni(t) | 1 << 31);
    }
    csr_write(d, regs::REORDER_WINDOW, s.window);
    csr_write(
        d,
        regs::REORDER_THRESH,
        s.ooo_threshold | s.missing_share_pct << 16 | s.loss_after << 24,
    );
    for q in 0..s.qps {
        csr_write(d, regs::QP_ID, q);
        csr_write(d, regs::QP_CFG, (q % s.tenants) | 1 << 31);
        csr_write(d, regs::QP_PSN, 0);
        csr_write(d, regs::QP_CMD, 1);
        let mut polls = 0;
        while csr_read(d, regs::RX_STATUS) & regs::RX_STATUS_QP_BUSY_MASK != 0 {
            polls += 1;
            assert!(polls < 10_000, "QP_CMD never completed");
            for _ in 0..64 {
                d.step();
            }
        }
    }
}

pub(super) fn csr_write(d: &mut dyn AxilPort, addr: u32, v: u32) {
    let r = write(d, addr, v, 0xf, 0).expect("CSR answers");
    assert_eq!(r, crate::axil::OKAY, "CSR write {addr:#x} answered {r}");
}

pub(super) fn csr_read(d: &mut dyn AxilPort, addr: u32) -> u32 {
    read(d, addr, 0).expect("CSR answers").0
}

pub(super) fn beat_bytes(data: &[u32], keep: &[u32], out: &mut Vec<u8>) {
    crate::axis::push_kept(data, keep, BEAT_BYTES, out);
}

/// The trace of crossing `module` beside RNIC B's `trace`: `b.fst` gives
/// `b.host_cdc.fst`.
fn crossing_trace(trace: &std::path::Path, module: &str) -> std::path::PathBuf {
    let ext = trace.extension().unwrap_or_default().to_string_lossy();
    trace.with_extension(format!("{module}.{ext}"))
}

impl RtlRnics {
    /// Both RNICs out of reset and programmed through CSR for `s`; RNIC B writes a
    /// waveform to `trace` if given.
    pub(super) fn new(
        s: &Scenario,
        trace: Option<&std::path::Path>,
    ) -> Result<Self, crate::bridge::TraceError> {
        let cfg = PrnicConfig::builtin();
        let geom = crate::flow_table::geometry(cfg);
        let hash = u64::from_str_radix(&cfg.hash_hex(), 16).expect("hex");
        let mut a = Dpu::new(VerilatorRnic::new(), geom, hash, CheckMode::StateMachine);
        // A: ports, spraying, and one flow entry per tenant (installed by the DPU).
        {
            let d = &mut a.link.dut;
            // `p` is the port number the registers and the addresses are named by.
            #[allow(clippy::needless_range_loop)]
            for p in 0..2 {
                let (lo, hi, ip) = if p == 0 {
                    (regs::PORT0_MAC_LO, regs::PORT0_MAC_HI, regs::PORT0_IPV4)
                } else {
                    (regs::PORT1_MAC_LO, regs::PORT1_MAC_HI, regs::PORT1_IPV4)
                };
                csr_write(d, lo, 0xa000_0000 | p as u32);
                csr_write(d, hi, 0x02aa);
                csr_write(d, ip, A_PORT_IP[p]);
            }
            let mode = match s.spray {
                Spray::PerPacket => 0,
                Spray::PerFlow => 1,
            };
            csr_write(d, regs::SPRAY, mode);
        }
        for t in 0..s.tenants {
            let v = Value {
                underlay_ip: B_PORT_IP[(t % 2) as usize],
                next_hop_mac: 0x02bb_0000_0000 | t as u64,
                vni: tenant_vni(t),
                flags: (t % 2) as u8,
            };
            a.apply(Op::Insert(key(tenant_vni(t), INNER_DST_IP), v))
                .expect("the DPU installs a tenant's flow");
        }
        // B: tenants, thresholds, QPs.
        let mac_ps = cfg.clock_period_ps();
        let core = match trace {
            Some(t) => PrnicTop::with_trace(t, mac_ps)?,
            None => PrnicTop::new(),
        };
        let mut b = if s.host_mhz > 0.0 {
            let host_ps = prnic_gen::config::period_ps(s.host_mhz);
            // With a trace, each crossing writes its own next to the core's.
            let (streams, csr) = match trace {
                Some(t) => (
                    HostCdc::with_trace(&crossing_trace(t, HostCdc::MODULE), host_ps)?,
                    AxilCdc::with_trace(&crossing_trace(t, AxilCdc::MODULE), host_ps)?,
                ),
                None => (HostCdc::new(), AxilCdc::new()),
            };
            let t = TwoClockRnic::with_models(core, streams, csr, host_ps, mac_ps);
            RnicB::Two(Box::new(t), HostSide::default())
        } else {
            RnicB::One(VerilatorRnic::with_dut(core))
        };
        program_b(b.csr(), s);
        Ok(RtlRnics {
            a,
            b,
            a_in: VecDeque::new(),
            a_out: [vec![], vec![]],
            b_in: [VecDeque::new(), VecDeque::new()],
            b_frames: [0, 0],
            next_port: 0,
            place: vec![],
            peak_backlog: 0,
            backpressure: s.host_backpressure,
            next: Box::new(rng(s.seed ^ 0xbac)),
            csr_fuzz: s.csr_fuzz,
            fuzz: CsrFuzz::new(),
            rx_gaps: s.rx_gaps,
            rx_bad_frames: s.rx_bad_frames,
            port_frames: [0; 2],
            port_marked_bad: [0; 2],
            both_busy: 0,
            rx_burst_frames: s.rx_burst_frames as u64,
            held_since_ns: None,
            releasing: false,
        })
    }
}

impl Rnics for RtlRnics {
    fn tx_ready(&self) -> bool {
        // One frame queued ahead keeps A's input busy without a gap.
        self.a_in.len() < 2 * 4096 / BEAT_BYTES + 2
    }
    fn tx_push(&mut self, p: &RdmaPacket) {
        let inner = wire_frame(p)[50..].to_vec();
        let f = TxFrame {
            bytes: inner,
            vni: p.vni,
            qp: p.qp,
            bad_keep_beat: None,
        };
        self.a_in.extend(beats_of(&f));
    }
    fn step(&mut self, now_ns: f64, fabric: &mut Fabric, arrived: Vec<Vec<u8>>) -> RxOut {
        for f in arrived {
            let frame = TxFrame {
                bytes: f,
                vni: 0,
                qp: 0,
                bad_keep_beat: None,
            };
            let mut beats = beats_of(&frame);
            // The MAC's bad-frame flag rides on the last beat only.
            let bad = self.rx_bad_frames > 0.0 && unit((self.next)()) < self.rx_bad_frames;
            if let Some(b) = beats.last_mut() {
                b.tuser = bad as u64;
            }
            self.port_marked_bad[self.next_port] += bad as u64;
            self.b_in[self.next_port].extend(beats);
            self.b_frames[self.next_port] += 1;
            self.peak_backlog = self.peak_backlog.max(self.b_frames[self.next_port]);
            self.next_port ^= 1;
        }
        // A: the next TX beat in, both MAC ports always ready.
        let a = &mut self.a.link.dut;
        a.drive_in(self.a_in.front());
        a.set_out_ready(true);
        a.eval();
        if self.a_in.front().is_some() && a.s_axis_tx_tready() != 0 {
            self.a_in.pop_front();
        }
        if a.m_axis_port0_tx_tvalid() != 0 {
            beat_bytes(
                &a.m_axis_port0_tx_tdata(),
                &a.m_axis_port0_tx_tkeep(),
                &mut self.a_out[0],
            );
            if a.m_axis_port0_tx_tlast() != 0 {
                fabric.send(now_ns, std::mem::take(&mut self.a_out[0]));
            }
        }
        if a.m_axis_port1_tx_tvalid() != 0 {
            beat_bytes(
                &a.m_axis_port1_tx_tdata(),
                &a.m_axis_port1_tx_tkeep(),
                &mut self.a_out[1],
            );
            if a.m_axis_port1_tx_tlast() != 0 {
                fabric.send(now_ns, std::mem::take(&mut self.a_out[1]));
            }
        }
        a.step();

        // B: now and then a CSR access between beats (streams idle meanwhile).
        if self.csr_fuzz > 0.0 && unit((self.next)()) < self.csr_fuzz {
            match &mut self.b {
                RnicB::One(r) => {
                    let b = &mut r.dut;
                    b.set_s_axis_port0_rx_tvalid(0);
                    b.set_s_axis_port1_rx_tvalid(0);
                    b.set_m_axis_place_tready(0);
                    b.set_m_axis_cqe_tready(0);
                    b.set_m_axis_ack_tready(0);
                }
                RnicB::Two(t, h) => {
                    t.core.set_s_axis_port0_rx_tvalid(0);
                    t.core.set_s_axis_port1_rx_tvalid(0);
                    h.ready = [false; 3];
                    t.streams.set_m_axis_place_tready(0);
                    t.streams.set_m_axis_cqe_tready(0);
                    t.streams.set_m_axis_ack_tready(0);
                }
            }
            let r = (self.next)();
            self.fuzz.access(self.b.csr(), r);
        }
        // B: a beat on each port that has a frame, every host stream ready.
        let none = Beat {
            data: [0; BEAT_BYTES / 4],
            keep: [0; BEAT_BYTES / 32],
            last: false,
            tuser: 0,
        };
        // Bursts: hold frames until enough wait, then empty both ports back to back.
        let waiting = self.b_frames[0] + self.b_frames[1];
        if self.rx_burst_frames > 0 {
            if waiting == 0 {
                self.releasing = false;
                self.held_since_ns = None;
            } else if !self.releasing {
                let since = *self.held_since_ns.get_or_insert(now_ns);
                self.releasing = waiting >= self.rx_burst_frames || now_ns - since > 20_000.0;
            }
        }
        let hold = self.rx_burst_frames > 0 && !self.releasing;
        let gap0 = self.rx_gaps > 0.0 && unit((self.next)()) < self.rx_gaps;
        let gap1 = self.rx_gaps > 0.0 && unit((self.next)()) < self.rx_gaps;
        let (v0, v1) = (
            !self.b_in[0].is_empty() && !gap0 && !hold,
            !self.b_in[1].is_empty() && !gap1 && !hold,
        );
        let b0 = self.b_in[0].front().unwrap_or(&none);
        let b1 = self.b_in[1].front().unwrap_or(&none);
        let b = match &mut self.b {
            RnicB::One(r) => &mut r.dut,
            RnicB::Two(t, _) => &mut t.core,
        };
        b.set_s_axis_port0_rx_tvalid(v0 as u64);
        b.set_s_axis_port0_rx_tdata(&b0.data);
        b.set_s_axis_port0_rx_tkeep(&b0.keep);
        b.set_s_axis_port0_rx_tlast(b0.last as u64);
        b.set_s_axis_port0_rx_tuser((b0.last && b0.tuser != 0) as u64);
        b.set_s_axis_port1_rx_tvalid(v1 as u64);
        b.set_s_axis_port1_rx_tdata(&b1.data);
        b.set_s_axis_port1_rx_tkeep(&b1.keep);
        b.set_s_axis_port1_rx_tlast(b1.last as u64);
        b.set_s_axis_port1_rx_tuser((b1.last && b1.tuser != 0) as u64);
        let backpressure = self.backpressure;
        let next = &mut self.next;
        let mut ready = || unit(next()) >= backpressure;
        let mut out = RxOut::default();
        let taken = match &mut self.b {
            RnicB::One(r) => {
                let b = &mut r.dut;
                let (rp, rc, ra) = (ready(), ready(), ready());
                b.set_m_axis_place_tready(rp as u64);
                b.set_m_axis_cqe_tready(rc as u64);
                b.set_m_axis_ack_tready(ra as u64);
                b.eval();
                let taken = [
                    b.s_axis_port0_rx_tready() != 0,
                    b.s_axis_port1_rx_tready() != 0,
                ];
                if rp && b.m_axis_place_tvalid() != 0 {
                    let u = b.m_axis_place_tuser();
                    let (d, k, l) = (
                        b.m_axis_place_tdata(),
                        b.m_axis_place_tkeep(),
                        b.m_axis_place_tlast() != 0,
                    );
                    take_place(&d, &k, l, &u, &mut self.place, &mut out);
                }
                if rc && b.m_axis_cqe_tvalid() != 0 {
                    take_cqe(&b.m_axis_cqe_tdata(), &mut out);
                }
                if ra && b.m_axis_ack_tvalid() != 0 {
                    take_ack(&b.m_axis_ack_tdata(), &mut out);
                }
                b.step();
                taken
            }
            RnicB::Two(t, h) => {
                // The MAC ports never wait (read before the edge takes the beats).
                let taken = [
                    t.core.s_axis_port0_rx_tready() != 0,
                    t.core.s_axis_port1_rx_tready() != 0,
                ];
                // Up to and including B's next core edge; the host takes what it was
                // ready for on each host edge on the way.
                loop {
                    let rose = t.tick();
                    if rose & TwoClockRnic::HOST != 0 {
                        host_edge(t, h, [ready(), ready(), ready()], &mut self.place, &mut out);
                    }
                    if rose & TwoClockRnic::MAC != 0 {
                        break;
                    }
                }
                taken
            }
        };
        // The ports are MACs: they never wait (prnic_top's FIFOs take every beat).
        debug_assert!(taken[0] && taken[1]);
        self.both_busy += (v0 && v1) as u64;
        for p in 0..2 {
            if taken[p] && [v0, v1][p] {
                if let Some(beat) = self.b_in[p].pop_front() {
                    self.b_frames[p] -= beat.last as u64;
                    self.port_frames[p] += beat.last as u64;
                }
            }
        }
        out
    }
    fn idle(&self) -> bool {
        self.a_in.is_empty() && self.b_in.iter().all(|q| q.is_empty())
    }
    fn peak_port_backlog(&self) -> u64 {
        self.peak_backlog
    }
    fn csr_fuzz(&self) -> (u64, u64, u64) {
        (self.fuzz.accesses, self.fuzz.slverr, self.fuzz.violations)
    }
    fn port_stats(&self) -> ([u64; 2], [u64; 2], u64) {
        (self.port_frames, self.port_marked_bad, self.both_busy)
    }
    fn counters(&mut self) -> BTreeMap<String, u64> {
        let d = self.b.csr();
        let mut m = BTreeMap::new();
        for r in prnic_regs::registers() {
            if r.name.starts_with("CNT_RX_") || r.name == "CNT_CSR_BAD_ACCESS" {
                let lo = csr_read(d, r.offset) as u64;
                let hi = csr_read(d, r.offset + 4) as u64;
                m.insert(r.name.to_lowercase(), lo | hi << 32);
            }
        }
        m
    }
}

/// One placement beat the host took: its bytes, and at `tlast` the placement (QP, VA,
/// rkey, payload) from `tuser`.
fn take_place(
    data: &[u32],
    keep: &[u32],
    last: bool,
    u: &[u32],
    place: &mut Vec<u8>,
    out: &mut RxOut,
) {
    beat_bytes(data, keep, place);
    if last {
        let qp = u[0] & 0xffff;
        let va = u[1] as u64 | (u[2] as u64) << 32;
        let payload = std::mem::take(place);
        if payload.len() != u[4] as usize {
            // The sideband length disagrees with the bytes: a misplacement.
            out.placed.push((qp, u64::MAX, u[3], payload));
        } else {
            out.placed.push((qp, va, u[3], payload));
        }
    }
}

/// One completion record the host took.
fn take_cqe(w: &[u32], out: &mut RxOut) {
    out.cqes.push((w[1] & 0xffff, w[0] & 0xff_ffff, w[2]));
}

/// One ACK / retransmission-request record the host took.
fn take_ack(w: &[u32], out: &mut RxOut) {
    let qp = w[0] & 0xffff;
    if w[0] >> 16 & 1 == 1 {
        out.acks.push((qp, w[1] & 0xff_ffff));
    }
    if w[0] >> 17 & 1 == 1 {
        let base = w[2] & 0xff_ffff;
        let missing = (0..256u32)
            .filter(|j| w[4 + (*j as usize) / 32] >> (j % 32) & 1 == 1)
            .map(|j| (base + j) & 0xff_ffff)
            .collect();
        out.naks.push((qp, missing));
    }
}

/// A `clk_host` edge of a two-clock RNIC B: the beats that moved on it (offered after
/// the edge before and the host ready), then what is on offer now and the host's
/// readies for the next edge.
fn host_edge(
    t: &mut TwoClockRnic,
    h: &mut HostSide,
    ready: [bool; 3],
    place: &mut Vec<u8>,
    out: &mut RxOut,
) {
    if h.ready[0] && h.valid[0] {
        let (d, k, l, u) = &h.place;
        take_place(d, k, *l, u, place, out);
    }
    if h.ready[1] && h.valid[1] {
        take_cqe(&h.cqe, out);
    }
    if h.ready[2] && h.valid[2] {
        take_ack(&h.ack, out);
    }
    let s = &mut t.streams;
    h.valid = [
        s.m_axis_place_tvalid() != 0,
        s.m_axis_cqe_tvalid() != 0,
        s.m_axis_ack_tvalid() != 0,
    ];
    h.place = (
        s.m_axis_place_tdata().to_vec(),
        s.m_axis_place_tkeep().to_vec(),
        s.m_axis_place_tlast() != 0,
        s.m_axis_place_tuser().to_vec(),
    );
    h.cqe = s.m_axis_cqe_tdata().to_vec();
    h.ack = s.m_axis_ack_tdata().to_vec();
    h.ready = ready;
    s.set_m_axis_place_tready(ready[0] as u64);
    s.set_m_axis_cqe_tready(ready[1] as u64);
    s.set_m_axis_ack_tready(ready[2] as u64);
}
