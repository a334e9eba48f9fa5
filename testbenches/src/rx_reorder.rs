//! Harness for `rx_reorder` under Verilator: headers and QP commands in, every verdict,
//! CQE, ACK and retransmission request compared with `prnic_verif::rx_reorder` in order.

use crate::bridge::{self, Dut};
use prnic_gen::PrnicConfig;
use prnic_rtl::rx_reorder::{QP_CMD_HOLD_CYCLES, RX_REORDER_LATENCY};
use prnic_verif::rng::rng;
use prnic_verif::rx_reorder::{
    Header, Nak, Outcome, ReorderModel, ReorderSettings, Verdict, PSN_MOD,
};

/// The settings of the default config.
pub fn default_settings() -> ReorderSettings {
    let r = &PrnicConfig::builtin().reorder;
    ReorderSettings {
        qps: r.qps,
        window: r.window_bits,
        ooo_threshold: r.ooo_threshold,
        missing_share_pct: r.missing_share_pct,
        loss_after: r.loss_after,
    }
}

/// `rx_reorder` out of reset with `s`'s thresholds, its QP sweep done.
pub fn rx_reorder(s: &ReorderSettings) -> bridge::RxReorder {
    let mut d = bridge::RxReorder::new();
    d.set_cfg_window(s.window as u64);
    d.set_cfg_ooo_thresh(s.ooo_threshold as u64);
    d.set_cfg_miss_pct(s.missing_share_pct as u64);
    d.set_cfg_loss_after(s.loss_after as u64);
    bridge::reset_and_sweep(&mut d, |d, v| d.set_rst(v), |d| d.status_clearing());
    d
}

/// One input of `rx_reorder`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// Create (or destroy) a QP expecting `psn`, owned by tenant slot `vni_slot`.
    Qp {
        qp: u32,
        enable: bool,
        vni_slot: u8,
        psn: u32,
    },
    Hdr(Header),
    /// A cycle with no input.
    Idle,
}

/// Present a QP command on `s_qp_*` (or nothing: `s_qp_valid` low).
pub fn drive_qp(d: &mut bridge::RxReorder, cmd: Option<(u32, bool, u8, u32)>) {
    d.set_s_qp_valid(cmd.is_some() as u64);
    if let Some((qp, enable, vni_slot, psn)) = cmd {
        d.set_s_qp_qp(qp as u64);
        d.set_s_qp_enable(enable as u64);
        d.set_s_qp_vni_slot(vni_slot as u64);
        d.set_s_qp_psn(psn as u64);
    }
}

/// Present `h` on `s_hdr_*` (or nothing: `s_hdr_valid` low).
pub fn drive_hdr(d: &mut bridge::RxReorder, h: Option<&Header>) {
    d.set_s_hdr_valid(h.is_some() as u64);
    if let Some(h) = h {
        d.set_s_hdr_qp(h.qp as u64);
        d.set_s_hdr_psn(h.psn as u64);
        d.set_s_hdr_vni_slot(h.vni_slot as u64);
        d.set_s_hdr_ack_req(h.ack_req as u64);
        d.set_s_hdr_has_imm(h.imm.is_some() as u64);
        d.set_s_hdr_imm(h.imm.unwrap_or(0) as u64);
    }
}

/// What the RTL produced for one header.
pub fn rtl_outcome(d: &bridge::RxReorder) -> Outcome {
    let mut cqes = vec![];
    for (v, p, i) in [
        (d.m_cqe0_valid(), d.m_cqe0_psn(), d.m_cqe0_imm()),
        (d.m_cqe1_valid(), d.m_cqe1_psn(), d.m_cqe1_imm()),
        (d.m_cqe2_valid(), d.m_cqe2_psn(), d.m_cqe2_imm()),
    ] {
        if v != 0 {
            cqes.push((p as u32, i as u32));
        }
    }
    let nak = (d.m_nak_valid() != 0).then(|| {
        let head = d.m_nak_psn() as u32;
        let w = d.m_nak_missing();
        Nak {
            head,
            missing: (0..256u32)
                .filter(|j| w[(j / 32) as usize] >> (j % 32) & 1 == 1)
                .map(|j| (head + j) % PSN_MOD)
                .collect(),
        }
    });
    Outcome {
        verdict: Verdict::from_code(d.m_verdict_code()).unwrap_or(Verdict::UnknownQp),
        cqes,
        ack: (d.m_ack_valid() != 0).then(|| d.m_ack_psn() as u32),
        nak,
    }
}

/// A uniform draw in `0..n` (n > 0) from the project's seeded generator.
fn below(r: &mut impl FnMut() -> u64, n: u64) -> u64 {
    r() % n
}

/// The result of a comparison run.
#[derive(Debug, Default, Clone)]
pub struct Compare {
    pub headers: usize,
    /// Cycles from the first header accepted to the last.
    pub header_cycles: u64,
    pub outcomes: Vec<(Header, Outcome)>,
    pub mismatches: Vec<String>,
}

/// Drive `events` (one per cycle, each waiting for its `ready`) into `d` and into the
/// model, and compare every header's outcome.
pub fn compare(d: &mut bridge::RxReorder, model: &mut ReorderModel, events: &[Event]) -> Compare {
    let mut out = Compare::default();
    let mut expected: std::collections::VecDeque<(Header, Outcome)> = Default::default();
    let mut first_accept: Option<u64> = None;
    let mut last_accept = 0;
    let mut i = 0;
    let mut drain = 0;
    while i < events.len() || drain < RX_REORDER_LATENCY + 2 {
        let ev = events.get(i).copied().unwrap_or(Event::Idle);
        if i >= events.len() {
            drain += 1;
        }
        d.set_s_qp_valid(0);
        d.set_s_hdr_valid(0);
        match ev {
            Event::Qp {
                qp,
                enable,
                vni_slot,
                psn,
            } => drive_qp(d, Some((qp, enable, vni_slot, psn))),
            Event::Hdr(h) => drive_hdr(d, Some(&h)),
            Event::Idle => {}
        }
        d.eval();
        let accepted = match ev {
            Event::Qp { .. } => d.s_qp_ready() != 0,
            Event::Hdr(_) => d.s_hdr_ready() != 0,
            Event::Idle => true,
        };
        // Results of earlier headers leave before this edge.
        if d.m_verdict_valid() != 0 {
            let got = rtl_outcome(d);
            match expected.pop_front() {
                Some((h, want)) => {
                    if got != want && out.mismatches.len() < 20 {
                        out.mismatches.push(format!(
                            "header {} {h:?}: rtl {got:?}, model {want:?}",
                            out.outcomes.len()
                        ));
                    }
                    out.outcomes.push((h, got));
                }
                None => out.mismatches.push(format!("unexpected verdict {got:?}")),
            }
        }
        if accepted {
            match ev {
                Event::Qp {
                    qp,
                    enable,
                    vni_slot,
                    psn,
                } => model.configure(qp, enable, vni_slot, psn),
                Event::Hdr(h) => {
                    expected.push_back((h, model.packet(&h)));
                    out.headers += 1;
                    let c = d.cycle();
                    first_accept.get_or_insert(c);
                    last_accept = c;
                }
                Event::Idle => {}
            }
            i += 1;
        }
        d.step();
    }
    if !expected.is_empty() {
        out.mismatches
            .push(format!("{} headers without a verdict", expected.len()));
    }
    out.header_cycles = first_accept.map_or(0, |f| last_accept - f + 1);
    out
}

/// A randomized multi-tenant run: `qps` QPs (each owned by one of 8 tenant slots, some
/// disabled), each sending `per_qp` packets (every `msg`-th a write-with-immediate)
/// that are permuted within a reorder distance, duplicated and lost at the given rates,
/// and interleaved across QPs; plus foreign-tenant and unknown-QP packets.
pub struct Traffic {
    pub qps: u32,
    pub per_qp: u32,
    pub msg: u32,
    pub reorder_distance: usize,
    pub dup_pct: u32,
    pub loss_pct: u32,
    pub foreign_pct: u32,
    pub idle_pct: u32,
    pub seed: u64,
}

impl Traffic {
    /// The QP commands and the header stream.
    pub fn events(&self, s: &ReorderSettings) -> Vec<Event> {
        let mut r = rng(self.seed);
        let mut ev = vec![];
        let mut streams: Vec<Vec<Header>> = vec![];
        for k in 0..self.qps {
            // Spread QPs over the whole QP space, including its top.
            let qp = (k * 97 + (self.seed as u32 % 31)) % s.qps;
            let slot = (qp % 8) as u8;
            let start = below(&mut r, PSN_MOD as u64) as u32;
            let enable = k % 13 != 12;
            ev.push(Event::Qp {
                qp,
                enable,
                vni_slot: slot,
                psn: start,
            });
            let mut pk: Vec<Header> = (0..self.per_qp)
                .map(|i| Header {
                    qp,
                    psn: (start + i) % PSN_MOD,
                    vni_slot: slot,
                    ack_req: i % 4 == 3,
                    imm: ((i + 1) % self.msg == 0).then(|| r() as u32),
                })
                .collect();
            // Local permutation: shuffle within blocks of `reorder_distance`.
            for chunk in pk.chunks_mut(self.reorder_distance.max(1)) {
                for a in (1..chunk.len()).rev() {
                    let b = below(&mut r, a as u64 + 1) as usize;
                    chunk.swap(a, b);
                }
            }
            let mut s2 = vec![];
            for h in pk {
                if below(&mut r, 100) < self.loss_pct as u64 {
                    continue;
                }
                s2.push(h);
                if below(&mut r, 100) < self.dup_pct as u64 {
                    s2.push(h);
                }
                if below(&mut r, 100) < self.foreign_pct as u64 {
                    let mut f = h;
                    f.vni_slot = (f.vni_slot + 1 + below(&mut r, 7) as u8) % 8;
                    s2.push(f);
                }
                if below(&mut r, 1000) < 5 {
                    let mut u = h;
                    u.qp = s.qps + below(&mut r, (65536 - s.qps) as u64) as u32;
                    s2.push(u);
                }
            }
            streams.push(s2);
        }
        // Interleave the QPs' streams at random, keeping each stream's order.
        let mut idx = vec![0usize; streams.len()];
        loop {
            let live: Vec<usize> = (0..streams.len())
                .filter(|&q| idx[q] < streams[q].len())
                .collect();
            if live.is_empty() {
                break;
            }
            let q = live[below(&mut r, live.len() as u64) as usize];
            ev.push(Event::Hdr(streams[q][idx[q]]));
            idx[q] += 1;
            if below(&mut r, 100) < self.idle_pct as u64 {
                ev.push(Event::Idle);
            }
        }
        ev
    }
}

/// Presents at most one header per cycle to a running `rx_reorder` and returns each
/// header's outcome when it leaves ([`RX_REORDER_LATENCY`] cycles later).
pub struct Stream {
    pub dut: bridge::RxReorder,
    in_flight: std::collections::VecDeque<Header>,
}

impl Stream {
    pub fn new(s: &ReorderSettings) -> Self {
        Self {
            dut: rx_reorder(s),
            in_flight: Default::default(),
        }
    }

    /// Create a QP (call before its headers). Headers wait a few cycles after a QP
    /// command; this returns once they are taken again, with the verdicts of headers
    /// still in flight dropped (create QPs before traffic).
    pub fn create(&mut self, qp: u32, vni_slot: u8, psn: u32) {
        let d = &mut self.dut;
        drive_hdr(d, None);
        drive_qp(d, Some((qp, true, vni_slot, psn)));
        d.step();
        drive_qp(d, None);
        d.eval();
        while d.s_hdr_ready() == 0 {
            d.step();
            d.eval();
        }
    }

    /// One cycle: offer `h` (always accepted: no QP command and no hold), return the
    /// outcome leaving now, if any.
    pub fn cycle(&mut self, h: Option<Header>) -> Option<(Header, Outcome)> {
        let d = &mut self.dut;
        drive_hdr(d, h.as_ref());
        d.eval();
        let out = (d.m_verdict_valid() != 0).then(|| rtl_outcome(d));
        if let Some(h) = h {
            debug_assert!(d.s_hdr_ready() != 0);
            self.in_flight.push_back(h);
        }
        d.step();
        out.map(|o| {
            (
                self.in_flight.pop_front().expect("verdict without header"),
                o,
            )
        })
    }
}

/// `prnic-sim reorder`: header throughput of `rx_reorder` and its per-QP state.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ReorderReport {
    pub qps: u32,
    pub window: u32,
    pub state_bytes_per_qp: u32,
    /// Headers of a mixed run (127 QPs, reordered, duplicated, lost, foreign), offered
    /// back to back.
    pub headers: usize,
    pub header_cycles: u64,
    pub packets_per_cycle: f64,
    /// One QP, in order, back to back (the forwarding path every cycle).
    pub same_qp_packets_per_cycle: f64,
    pub placed: usize,
    pub duplicates: usize,
    pub cqes: usize,
    pub retransmission_requests: usize,
    /// Outcomes that differ from the golden model (must be 0).
    pub model_mismatches: usize,
}

pub fn reorder_scenario(per_qp: u32, seed: u64) -> ReorderReport {
    let cfg = PrnicConfig::builtin();
    let s = default_settings();
    let t = Traffic {
        qps: 127,
        per_qp,
        msg: 8,
        reorder_distance: 32,
        dup_pct: 2,
        loss_pct: 1,
        foreign_pct: 1,
        idle_pct: 0,
        seed,
    };
    let ev = t.events(&s);
    let mut d = rx_reorder(&s);
    let mut m = ReorderModel::new(s);
    let r = compare(&mut d, &mut m, &ev);
    let n = 10_000u32;
    let mut one = vec![Event::Qp {
        qp: 1,
        enable: true,
        vni_slot: 1,
        psn: 0,
    }];
    one.extend((0..n).map(|i| {
        Event::Hdr(Header {
            qp: 1,
            psn: i,
            vni_slot: 1,
            ack_req: false,
            imm: (i % 8 == 7).then_some(i),
        })
    }));
    let r1 = compare(&mut d, &mut m, &one);
    let count = |v: Verdict| r.outcomes.iter().filter(|(_, o)| o.verdict == v).count();
    ReorderReport {
        qps: cfg.reorder.qps,
        window: cfg.reorder.window_bits,
        state_bytes_per_qp: cfg.reorder_state_bytes_per_qp(),
        headers: r.headers,
        header_cycles: r.header_cycles,
        packets_per_cycle: r.headers as f64 / r.header_cycles.max(1) as f64,
        same_qp_packets_per_cycle: r1.headers as f64 / r1.header_cycles.max(1) as f64,
        placed: count(Verdict::Place),
        duplicates: count(Verdict::Duplicate),
        cqes: r.outcomes.iter().map(|(_, o)| o.cqes.len()).sum(),
        retransmission_requests: r.outcomes.iter().filter(|(_, o)| o.nak.is_some()).count(),
        model_mismatches: r.mismatches.len() + r1.mismatches.len(),
    }
}

/// Every output of `rx_reorder` in one cycle, as text, for the two-simulator agreement.
fn snapshot_rtl(d: &bridge::RxReorder) -> String {
    format!(
        "rdy {} {} v {} {} {} {} cqe {} {} {} {} {} {} {} {} {} {} ack {} {} nak {} {} {:x?} st {} {} {} {} {} {} {} {} {} {}",
        d.s_qp_ready(), d.s_hdr_ready(),
        d.m_verdict_valid(), d.m_verdict_code(), d.m_verdict_qp(), d.m_verdict_psn(),
        d.m_cqe_qp(), d.m_cqe0_valid(), d.m_cqe0_psn(), d.m_cqe0_imm(),
        d.m_cqe1_valid(), d.m_cqe1_psn(), d.m_cqe1_imm(),
        d.m_cqe2_valid(), d.m_cqe2_psn(), d.m_cqe2_imm(),
        d.m_ack_valid(), d.m_ack_psn(), d.m_nak_valid(), d.m_nak_psn(), d.m_nak_missing(),
        d.status_clearing(), d.status_placed(), d.status_duplicate(), d.status_beyond_window(),
        d.status_unknown_qp(), d.status_bad_qp(), d.status_imm_full(), d.status_cqes(),
        d.status_acks(), d.status_naks(),
    )
}

fn snapshot_hdl(u: &prnic_rtl::rx_reorder::RxReorder) -> String {
    let w = |b: rust_hdl::prelude::Bits<256>| -> [u32; 8] {
        std::array::from_fn(|i| b.get_bits::<32>(32 * i).to_u32())
    };
    let b = |x: bool| x as u64;
    format!(
        "rdy {} {} v {} {} {} {} cqe {} {} {} {} {} {} {} {} {} {} ack {} {} nak {} {} {:x?} st {} {} {} {} {} {} {} {} {} {}",
        b(u.s_qp_ready.val()), b(u.s_hdr_ready.val()),
        b(u.m_verdict_valid.val()), u.m_verdict_code.val().to_u64(), u.m_verdict_qp.val().to_u64(), u.m_verdict_psn.val().to_u64(),
        u.m_cqe_qp.val().to_u64(), b(u.m_cqe0_valid.val()), u.m_cqe0_psn.val().to_u64(), u.m_cqe0_imm.val().to_u64(),
        b(u.m_cqe1_valid.val()), u.m_cqe1_psn.val().to_u64(), u.m_cqe1_imm.val().to_u64(),
        b(u.m_cqe2_valid.val()), u.m_cqe2_psn.val().to_u64(), u.m_cqe2_imm.val().to_u64(),
        b(u.m_ack_valid.val()), u.m_ack_psn.val().to_u64(), b(u.m_nak_valid.val()), u.m_nak_psn.val().to_u64(), w(u.m_nak_missing.val()),
        b(u.status_clearing.val()), u.status_placed.val().to_u64(), u.status_duplicate.val().to_u64(), u.status_beyond_window.val().to_u64(),
        u.status_unknown_qp.val().to_u64(), u.status_bad_qp.val().to_u64(), u.status_imm_full.val().to_u64(), u.status_cqes.val().to_u64(),
        u.status_acks.val().to_u64(), u.status_naks.val().to_u64(),
    )
}

/// What the agreement run saw (on the Verilator side).
#[derive(Debug, Default)]
pub struct Agreement {
    /// Cycles on which any output differs, with both snapshots (up to 5).
    pub diffs: Vec<String>,
    pub verdicts: u64,
    pub cqes: u64,
    pub naks: u64,
}

/// Run `events` (one per cycle, no waiting) through the Verilator model and rust-hdl's
/// simulator of the same block from the same reset, comparing every output every cycle.
pub fn hdl_agreement(s: &ReorderSettings, events: &[Event]) -> Agreement {
    let cfg = PrnicConfig::builtin();
    let mut v = bridge::RxReorder::new();
    let mut u = prnic_gen::blocks::rx_reorder(cfg);
    v.set_cfg_window(s.window as u64);
    v.set_cfg_ooo_thresh(s.ooo_threshold as u64);
    v.set_cfg_miss_pct(s.missing_share_pct as u64);
    v.set_cfg_loss_after(s.loss_after as u64);
    u.cfg_window.next = (s.window as u64).into();
    u.cfg_ooo_thresh.next = (s.ooo_threshold as u64).into();
    u.cfg_miss_pct.next = (s.missing_share_pct as u64).into();
    u.cfg_loss_after.next = (s.loss_after as u64).into();
    u.clk.next = false.into();
    crate::hdl_sim::settle(&mut u, "initial values");
    let mut out = Agreement::default();
    let sweep = std::iter::repeat_n(Event::Idle, cfg.reorder.qps as usize + 4);
    // Nothing waits for `ready` here, so the cycles headers wait after a QP command are
    // left idle.
    let hold = QP_CMD_HOLD_CYCLES as usize;
    let all: Vec<(bool, Event)> = std::iter::once((true, Event::Idle))
        .chain(sweep.map(|e| (false, e)))
        .chain(events.iter().flat_map(|e| {
            let idle = if matches!(e, Event::Qp { .. }) {
                hold
            } else {
                0
            };
            std::iter::once((false, *e)).chain(std::iter::repeat_n((false, Event::Idle), idle))
        }))
        .chain(std::iter::repeat_n(
            (false, Event::Idle),
            RX_REORDER_LATENCY as usize + 2,
        ))
        .collect();
    for (c, (rst, ev)) in all.into_iter().enumerate() {
        v.set_rst(rst as u64);
        u.rst.next = rst;
        let (qv, hv) = match ev {
            Event::Qp { .. } => (true, false),
            Event::Hdr(_) => (false, true),
            Event::Idle => (false, false),
        };
        v.set_s_qp_valid(qv as u64);
        v.set_s_hdr_valid(hv as u64);
        u.s_qp_valid.next = qv;
        u.s_hdr_valid.next = hv;
        if let Event::Qp {
            qp,
            enable,
            vni_slot,
            psn,
        } = ev
        {
            drive_qp(&mut v, Some((qp, enable, vni_slot, psn)));
            u.s_qp_qp.next = (qp as u64).into();
            u.s_qp_enable.next = enable;
            u.s_qp_vni_slot.next = (vni_slot as u64).into();
            u.s_qp_psn.next = (psn as u64).into();
        }
        if let Event::Hdr(h) = ev {
            drive_hdr(&mut v, Some(&h));
            u.s_hdr_qp.next = (h.qp as u64).into();
            u.s_hdr_psn.next = (h.psn as u64).into();
            u.s_hdr_vni_slot.next = (h.vni_slot as u64).into();
            u.s_hdr_ack_req.next = h.ack_req;
            u.s_hdr_has_imm.next = h.imm.is_some();
            u.s_hdr_imm.next = (h.imm.unwrap_or(0) as u64).into();
        }
        v.eval();
        crate::hdl_sim::settle(&mut u, "inputs");
        let (a, b) = (snapshot_rtl(&v), snapshot_hdl(&u));
        if a != b && out.diffs.len() < 5 {
            out.diffs
                .push(format!("cycle {c}:\n verilator {a}\n rust-hdl  {b}"));
        }
        out.verdicts += v.m_verdict_valid();
        out.naks += v.m_nak_valid();
        out.cqes += v.m_cqe0_valid() + v.m_cqe1_valid() + v.m_cqe2_valid();
        v.step();
        crate::hdl_sim::cycle(&mut u, |u, c| u.clk.next = c.into(), |_| ());
    }
    out
}
