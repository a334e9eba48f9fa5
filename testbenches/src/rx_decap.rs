//! Harness for the receive path: the Verilated `rx_decap` and `rx_reorder` wired together
//! cycle by cycle (headers out of `rx_decap` into `rx_reorder`, verdicts back), driven
//! with wire frames, and checked against `prnic_verif::rx_decap` and `prnic_verif::rx_reorder`.
//!
//! [`RxModelPath`] puts the reorder model in `rx_reorder`'s place, answering each header
//! after a chosen number of cycles and refusing headers on a chosen pattern, so that
//! `rx_decap` is checked against any verdict latency and header backpressure.

use crate::axis;
use crate::bridge::{self, Dut};
use crate::rx_reorder::{drive_hdr, drive_qp, rtl_outcome, rx_reorder};
use prnic_gen::PrnicConfig;
use prnic_verif::reply::Reply;
use prnic_verif::rx_decap::{decapsulate, RxDrop, RxFrame};
use prnic_verif::rx_reorder::{Header, Outcome, ReorderModel, ReorderSettings, Verdict};
use std::collections::VecDeque;

/// Bytes per beat of the default config.
pub const K: usize = 128;

/// The largest wire frame the default config accepts.
pub fn max_wire_frame() -> usize {
    PrnicConfig::builtin().packet.max_frame_bytes as usize + prnic_rtl::rx_decap::OUTER_BYTES
}

/// A frame as it is offered on `s_axis_wire`.
#[derive(Debug, Clone)]
pub struct WireInput {
    pub bytes: Vec<u8>,
    /// Break `tkeep` (a hole in a beat), which must drop the frame as `bad_keep`.
    pub bad_keep: bool,
}

/// One placed packet, as `m_axis_place` delivered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub qp: u32,
    pub va: u64,
    pub rkey: u32,
    pub len: u32,
    pub data: Vec<u8>,
}

/// Everything a run produced.
#[derive(Debug, Default, Clone)]
pub struct RxRun {
    pub placements: Vec<Placement>,
    /// Each header's outcome in `rx_reorder`, with the CQE lanes' QP.
    pub outcomes: Vec<(u32, Outcome)>,
    pub cycles: u64,
    /// Cycle each frame's last beat was accepted, and cycle each placement ended.
    pub frame_done: Vec<u64>,
    pub place_done: Vec<u64>,
    /// Cycle each header was taken from `rx_decap`, and cycle each placement's first beat
    /// was.
    pub hdr_taken: Vec<u64>,
    pub place_start: Vec<u64>,
    /// Placement beats with `tvalid` and no payload bytes, or `tkeep` not low-justified.
    pub protocol_errors: usize,
    /// Placements `rx_decap` reported finished on `m_place_done` (zero-length ones
    /// included).
    pub places_done: u64,
    /// Reply records on `m_reply_*`, with their tenant slot, in order; and the cycle of
    /// each.
    pub replies: Vec<(u8, Reply)>,
    pub reply_at: Vec<u64>,
}

/// Both blocks, out of reset, with the given tenant VNIs and thresholds.
pub struct RxPath {
    pub decap: bridge::RxDecap,
    pub reorder: bridge::RxReorder,
}

/// A Verilated `rx_decap` with the tenants' VNIs set, one cycle in reset and then out.
fn decap_out_of_reset(local_vni: &[u32; 8]) -> bridge::RxDecap {
    let mut decap = bridge::RxDecap::new();
    let v = local_vni;
    decap.set_cfg_local_vni0(v[0] as u64);
    decap.set_cfg_local_vni1(v[1] as u64);
    decap.set_cfg_local_vni2(v[2] as u64);
    decap.set_cfg_local_vni3(v[3] as u64);
    decap.set_cfg_local_vni4(v[4] as u64);
    decap.set_cfg_local_vni5(v[5] as u64);
    decap.set_cfg_local_vni6(v[6] as u64);
    decap.set_cfg_local_vni7(v[7] as u64);
    decap.set_rst(1);
    decap.step();
    decap.set_rst(0);
    decap
}

impl RxPath {
    pub fn new(local_vni: &[u32; 8], s: &ReorderSettings) -> Self {
        let decap = decap_out_of_reset(local_vni);
        let reorder = rx_reorder(s);
        RxPath { decap, reorder }
    }

    /// Create a QP in `rx_reorder` (one cycle of both blocks).
    pub fn create_qp(&mut self, qp: u32, slot: u8, psn: u32) {
        let r = &mut self.reorder;
        drive_qp(r, Some((qp, true, slot, psn)));
        drive_hdr(r, None);
        r.step();
        drive_qp(r, None);
        self.decap.set_m_hdr_ready(0);
        self.decap.set_s_verdict_valid(0);
        self.decap.step();
    }

    /// Offer `frames` back to back (with `idle` deciding idle input cycles and `ready`
    /// the placement `tready` per cycle), run until everything has drained, and return
    /// what came out.
    pub fn run(
        &mut self,
        frames: &[WireInput],
        idle: impl FnMut(u64) -> bool,
        ready: impl FnMut(u64) -> bool,
    ) -> RxRun {
        self.run_until(frames, idle, ready, None)
    }

    /// [`RxPath::run`], but stop after `stop_at` cycles if given (traffic still inside,
    /// for a reset in the middle of it).
    pub fn run_until(
        &mut self,
        frames: &[WireInput],
        idle: impl FnMut(u64) -> bool,
        ready: impl FnMut(u64) -> bool,
        stop_at: Option<u64>,
    ) -> RxRun {
        run_loop(
            &mut self.decap,
            &mut RtlReorder(&mut self.reorder),
            frames,
            idle,
            ready,
            stop_at,
        )
    }

    /// Reset both blocks (one cycle of `rst`, then `rx_reorder`'s QP sweep): every QP
    /// disabled, counters zero, frames inside lost.
    pub fn reset(&mut self) {
        self.decap.set_rst(1);
        self.reorder.set_rst(1);
        self.decap.set_s_axis_wire_tvalid(0);
        self.decap.set_m_hdr_ready(0);
        self.decap.set_s_verdict_valid(0);
        self.reorder.set_s_hdr_valid(0);
        self.reorder.set_s_qp_valid(0);
        self.decap.step();
        self.reorder.step();
        self.decap.set_rst(0);
        self.reorder.set_rst(0);
        while self.reorder.status_clearing() != 0 {
            self.decap.step();
            self.reorder.step();
        }
    }

    /// The drop counters of `rx_decap`, by reason.
    pub fn drops(&self) -> Vec<(RxDrop, u64)> {
        drops_of(&self.decap)
    }
}

/// The drop counters of `rx_decap`, by reason.
pub fn drops_of(d: &bridge::RxDecap) -> Vec<(RxDrop, u64)> {
    let v = [
        d.status_drop_bad_keep(),
        d.status_drop_too_long(),
        d.status_drop_truncated(),
        d.status_drop_not_ipv4(),
        d.status_drop_bad_checksum(),
        d.status_drop_bad_port(),
        d.status_drop_bad_vxlan(),
        d.status_drop_unknown_vni(),
        d.status_drop_bad_inner(),
        d.status_drop_bad_opcode(),
        d.status_drop_bad_length(),
        d.status_drop_bad_icrc(),
    ];
    RxDrop::ALL.iter().copied().zip(v).collect()
}

/// What answers `rx_decap`'s headers: the Verilated `rx_reorder` or the reorder model.
trait ReorderSide {
    /// One cycle: take `rx_decap`'s header if it is offered and accepted, drive
    /// `m_hdr_ready` and `s_verdict_*`, and evaluate `rx_decap` again. Records each
    /// header's outcome; true while anything is in flight.
    fn exchange(&mut self, d: &mut bridge::RxDecap, c: u64, out: &mut RxRun) -> bool;
    fn step(&mut self);
}

struct RtlReorder<'a>(&'a mut bridge::RxReorder);

impl ReorderSide for RtlReorder<'_> {
    fn exchange(&mut self, d: &mut bridge::RxDecap, c: u64, out: &mut RxRun) -> bool {
        let r = &mut *self.0;
        r.set_s_hdr_valid(d.m_hdr_valid());
        r.set_s_hdr_qp(d.m_hdr_qp());
        r.set_s_hdr_psn(d.m_hdr_psn());
        r.set_s_hdr_vni_slot(d.m_hdr_vni_slot());
        r.set_s_hdr_ack_req(d.m_hdr_ack_req());
        r.set_s_hdr_has_imm(d.m_hdr_has_imm());
        r.set_s_hdr_imm(d.m_hdr_imm());
        r.eval();
        d.set_m_hdr_ready(r.s_hdr_ready());
        d.set_s_verdict_valid(r.m_verdict_valid());
        d.set_s_verdict_code(r.m_verdict_code());
        d.eval();
        if d.m_hdr_valid() != 0 && r.s_hdr_ready() != 0 {
            out.hdr_taken.push(c);
        }
        if r.m_verdict_valid() != 0 {
            out.outcomes.push((r.m_cqe_qp() as u32, rtl_outcome(r)));
        }
        d.m_hdr_valid() != 0 || r.m_verdict_valid() != 0
    }

    fn step(&mut self) {
        self.0.step();
    }
}

/// The reorder model in `rx_reorder`'s place: a header accepted in cycle c has its
/// verdict on `s_verdict_*` in cycle c + `latency` (`rx_reorder` itself: 3).
struct ModelReorder<'a, R: FnMut(u64) -> bool> {
    model: &'a mut ReorderModel,
    latency: u64,
    hdr_ready: R,
    /// (cycle due, verdict code), in header order.
    due: &'a mut VecDeque<(u64, u64)>,
}

impl<R: FnMut(u64) -> bool> ReorderSide for ModelReorder<'_, R> {
    fn exchange(&mut self, d: &mut bridge::RxDecap, c: u64, out: &mut RxRun) -> bool {
        let rdy = (self.hdr_ready)(c);
        d.set_m_hdr_ready(rdy as u64);
        let verdict = match self.due.front() {
            Some(&(at, code)) if at <= c => {
                assert_eq!(at, c, "verdicts are due one per cycle at most");
                self.due.pop_front();
                Some(code)
            }
            _ => None,
        };
        d.set_s_verdict_valid(verdict.is_some() as u64);
        d.set_s_verdict_code(verdict.unwrap_or(0));
        d.eval();
        if rdy && d.m_hdr_valid() != 0 {
            let h = Header {
                qp: d.m_hdr_qp() as u32,
                psn: d.m_hdr_psn() as u32,
                vni_slot: d.m_hdr_vni_slot() as u8,
                ack_req: d.m_hdr_ack_req() != 0,
                imm: (d.m_hdr_has_imm() != 0).then_some(d.m_hdr_imm() as u32),
            };
            out.hdr_taken.push(c);
            let o = self.model.packet(&h);
            self.due.push_back((c + self.latency, o.verdict.code()));
            out.outcomes.push((h.qp, o));
        }
        d.m_hdr_valid() != 0 || verdict.is_some() || !self.due.is_empty()
    }

    fn step(&mut self) {}
}

/// Offer `frames` back to back to `decap` (with `idle` deciding idle input cycles and
/// `ready` the placement `tready` per cycle), `side` answering its headers; run until
/// everything has drained (or `stop_at` cycles) and return what came out.
fn run_loop(
    decap: &mut bridge::RxDecap,
    side: &mut impl ReorderSide,
    frames: &[WireInput],
    mut idle: impl FnMut(u64) -> bool,
    mut ready: impl FnMut(u64) -> bool,
    stop_at: Option<u64>,
) -> RxRun {
    let mut out = RxRun::default();
    let mut fi = 0;
    let mut beat = 0;
    let mut cur: Option<Placement> = None;
    let mut quiet = 0;
    let start = decap.cycle();
    while quiet < 64 {
        let c = decap.cycle() - start;
        if stop_at.is_some_and(|s| c >= s) {
            break;
        }
        let d = &mut *decap;
        // Input beat.
        let offer = fi < frames.len() && !idle(c);
        if offer {
            let f = &frames[fi];
            let n = f.bytes.len();
            let lo = beat * K;
            let hi = (lo + K).min(n);
            let last = hi == n;
            let mut keep = axis::keep_low::<4>(hi - lo);
            if f.bad_keep && (beat == 0) {
                keep[0] &= !(1 << 5);
            }
            d.set_s_axis_wire_tdata(&axis::pack::<32>(&f.bytes[lo..hi]));
            d.set_s_axis_wire_tkeep(&keep);
            d.set_s_axis_wire_tlast(last as u64);
        }
        d.set_s_axis_wire_tvalid(offer as u64);
        let rdy = ready(c);
        d.set_m_axis_place_tready(rdy as u64);
        d.eval();
        // Headers out, verdicts back.
        let mut busy = side.exchange(d, c, &mut out) || offer;
        out.places_done += d.m_place_done();
        if d.m_reply_valid() != 0 {
            out.replies
                .push((d.m_reply_vni_slot() as u8, reply_record(d)));
            out.reply_at.push(c);
        }
        if offer && d.s_axis_wire_tready() != 0 {
            let n = frames[fi].bytes.len();
            if (beat + 1) * K >= n {
                out.frame_done.push(c);
                fi += 1;
                beat = 0;
            } else {
                beat += 1;
            }
        }
        if d.m_axis_place_tvalid() != 0 {
            busy = true;
            if rdy {
                let keep = d.m_axis_place_tkeep();
                let k = keep.iter().map(|w| w.count_ones()).sum::<u32>() as usize;
                if axis::keep_len(&keep).is_none_or(|n| n == 0) {
                    out.protocol_errors += 1;
                }
                if cur.is_none() {
                    out.place_start.push(c);
                }
                let p = cur.get_or_insert_with(|| Placement {
                    qp: d.m_place_qp() as u32,
                    va: d.m_place_va(),
                    rkey: d.m_place_rkey() as u32,
                    len: d.m_place_len() as u32,
                    data: vec![],
                });
                p.data.extend(axis::unpack(&d.m_axis_place_tdata(), k));
                if d.m_axis_place_tlast() != 0 {
                    out.placements.push(cur.take().unwrap());
                    out.place_done.push(c);
                }
            }
        }
        decap.step();
        side.step();
        quiet = if busy || fi < frames.len() {
            0
        } else {
            quiet + 1
        };
    }
    out.cycles = decap.cycle() - start;
    out
}

/// The reply `rx_decap` offers on `m_reply_*` (valid this cycle).
fn reply_record(d: &bridge::RxDecap) -> Reply {
    let missing: [u8; 32] = axis::unpack(&d.m_reply_bitmap(), 32).try_into().unwrap();
    let kind = d.m_reply_kind();
    // `ack_psn` is a request's; an ACK's next expected PSN is `psn`.
    let ack = (kind == 1 && d.m_reply_ack() != 0).then_some(d.m_reply_ack_psn() as u32);
    Reply::from_record(
        kind,
        d.m_reply_qp() as u32,
        d.m_reply_psn() as u32,
        ack,
        missing,
    )
    .unwrap_or_else(|| panic!("m_reply_kind {kind} is not a reply kind"))
}

/// The Verilated `rx_decap` with the reorder model in `rx_reorder`'s place, answering
/// each header `latency` cycles after it is accepted (at least 1).
pub struct RxModelPath {
    pub decap: bridge::RxDecap,
    pub model: ReorderModel,
    pub latency: u64,
    due: VecDeque<(u64, u64)>,
}

impl RxModelPath {
    pub fn new(local_vni: &[u32; 8], s: &ReorderSettings, latency: u64) -> Self {
        assert!(
            latency >= 1,
            "a verdict comes at least a cycle after its header"
        );
        let decap = decap_out_of_reset(local_vni);
        RxModelPath {
            decap,
            model: ReorderModel::new(*s),
            latency,
            due: VecDeque::new(),
        }
    }

    /// Create a QP in the reorder model.
    pub fn create_qp(&mut self, qp: u32, slot: u8, psn: u32) {
        self.model.configure(qp, true, slot, psn);
    }

    /// [`RxPath::run`], with `hdr_ready` deciding per cycle whether the reorder side
    /// takes a header (it holds them otherwise, as `rx_reorder` does while its
    /// downstream is full).
    pub fn run(
        &mut self,
        frames: &[WireInput],
        idle: impl FnMut(u64) -> bool,
        ready: impl FnMut(u64) -> bool,
        hdr_ready: impl FnMut(u64) -> bool,
    ) -> RxRun {
        let mut side = ModelReorder {
            model: &mut self.model,
            latency: self.latency,
            hdr_ready,
            due: &mut self.due,
        };
        run_loop(&mut self.decap, &mut side, frames, idle, ready, None)
    }
}

/// What the models expect from `frames`.
#[derive(Debug, Default, Clone)]
pub struct Expected {
    pub placements: Vec<Placement>,
    pub outcomes: Vec<(u32, Outcome)>,
    pub drops: Vec<(RxDrop, u64)>,
    pub verdict_drops: u64,
    pub placed_frames: u64,
    pub replies: Vec<(u8, Reply)>,
}

pub fn expected(frames: &[WireInput], local_vni: &[u32; 8], model: &mut ReorderModel) -> Expected {
    let mut e = Expected::default();
    let mut counts = std::collections::BTreeMap::new();
    for f in frames {
        let r = if f.bad_keep {
            Err(RxDrop::BadKeep)
        } else {
            decapsulate(&f.bytes, local_vni, max_wire_frame())
        };
        match r {
            Err(reason) => *counts.entry(reason).or_insert(0u64) += 1,
            Ok(RxFrame::Reply { vni_slot, reply }) => e.replies.push((vni_slot, reply)),
            Ok(RxFrame::Data(p)) => {
                let h = p.header();
                let o = model.packet(&h);
                if o.verdict == Verdict::Place {
                    e.placed_frames += 1;
                    if !p.payload.is_empty() {
                        e.placements.push(Placement {
                            qp: p.qp,
                            va: p.va,
                            rkey: p.rkey,
                            len: p.payload.len() as u32,
                            data: p.payload,
                        });
                    }
                } else {
                    e.verdict_drops += 1;
                }
                e.outcomes.push((p.qp, o));
            }
        }
    }
    e.drops = RxDrop::ALL
        .iter()
        .map(|r| (*r, counts.get(r).copied().unwrap_or(0)))
        .collect();
    e
}

/// Compare a run with the models; the list of differences (empty when they agree).
pub fn compare(path: &RxPath, run: &RxRun, want: &Expected) -> Vec<String> {
    compare_decap(&path.decap, run, want)
}

/// [`compare`] for any harness around the Verilated `rx_decap`.
pub fn compare_decap(decap: &bridge::RxDecap, run: &RxRun, want: &Expected) -> Vec<String> {
    let mut diffs = vec![];
    if run.placements.len() != want.placements.len() {
        diffs.push(format!(
            "{} placements, expected {}",
            run.placements.len(),
            want.placements.len()
        ));
    }
    for (i, (g, w)) in run.placements.iter().zip(&want.placements).enumerate() {
        if g != w {
            let at = g.data.iter().zip(&w.data).position(|(a, b)| a != b);
            diffs.push(format!(
                "placement {i}: got qp {} va {:#x} len {} ({} bytes), want qp {} va {:#x} len {} ({} bytes); first differing byte {at:?}",
                g.qp, g.va, g.len, g.data.len(), w.qp, w.va, w.len, w.data.len()
            ));
            break;
        }
    }
    // CQE lanes carry the QP only when some lane is valid.
    let norm = |v: &[(u32, Outcome)]| -> Vec<(u32, Outcome)> {
        v.iter()
            .map(|(q, o)| (if o.cqes.is_empty() { 0 } else { *q }, o.clone()))
            .collect()
    };
    if norm(&run.outcomes) != norm(&want.outcomes) {
        let i = norm(&run.outcomes)
            .iter()
            .zip(norm(&want.outcomes))
            .position(|(a, b)| *a != b);
        diffs.push(format!(
            "reorder outcomes differ ({} vs {}), first at {i:?}",
            run.outcomes.len(),
            want.outcomes.len()
        ));
    }
    let drops = drops_of(decap);
    if drops != want.drops {
        diffs.push(format!("drops {drops:?}, expected {:?}", want.drops));
    }
    if decap.status_drop_verdict() != want.verdict_drops {
        diffs.push(format!(
            "verdict drops {}, expected {}",
            decap.status_drop_verdict(),
            want.verdict_drops
        ));
    }
    if decap.status_placed() != want.placed_frames {
        diffs.push(format!(
            "placed {}, expected {}",
            decap.status_placed(),
            want.placed_frames
        ));
    }
    if run.replies != want.replies {
        let i = run
            .replies
            .iter()
            .zip(&want.replies)
            .position(|(a, b)| a != b);
        diffs.push(format!(
            "{} replies, expected {}; first difference at {i:?}",
            run.replies.len(),
            want.replies.len()
        ));
    }
    if decap.status_replies() != want.replies.len() as u64 {
        diffs.push(format!(
            "status_replies {}, expected {}",
            decap.status_replies(),
            want.replies.len()
        ));
    }
    if run.protocol_errors != 0 {
        diffs.push(format!("{} bad placement beats", run.protocol_errors));
    }
    diffs
}
