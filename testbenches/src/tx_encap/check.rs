//! Driving a `TxDut` and checking what leaves it: the protocol, and the frames against
//! the golden model.

use super::*;

/// What the sink saw.
#[derive(Debug, Default, Clone)]
pub struct TxCapture {
    /// Each frame, its `tdest`, and the cycle its last beat left.
    pub frames: Vec<(Vec<u8>, u8, u64)>,
    /// Beats accepted by the sink.
    pub beats: u64,
    /// Cycle of the first and last accepted output beat.
    pub first_beat: Option<u64>,
    pub last_beat: u64,
    /// Cycles the source held a beat that was accepted, and the cycle the last input
    /// beat was accepted.
    pub in_beats: u64,
    /// The cycle each input frame's last beat was accepted.
    pub in_last: Vec<u64>,
    pub cycles: u64,
}

/// A stream-protocol violation seen by the sink.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Violation {
    /// A beat offered and not taken changed or disappeared.
    Unstable { cycle: u64 },
    /// `tkeep` not all ones before `tlast`, or not low-justified and non-empty on it.
    BadKeep { cycle: u64 },
    /// `tdest` changed inside a frame.
    DestChanged { cycle: u64 },
}

/// Drive `frames` through the DUT. `gap(cycle)` true leaves the input idle for a cycle
/// (only between beats: a beat once offered stays until taken); `ready(cycle)` is the
/// sink's `tready`. Runs until `expect_out` frames have left and then `drain` more
/// cycles (so a frame that should not leave would be seen), or `max_cycles`.
pub fn run<T: TxDut>(
    dut: &mut T,
    frames: &[TxFrame],
    gap: impl FnMut(u64) -> bool,
    ready: impl FnMut(u64) -> bool,
    expect_out: usize,
    drain: u64,
    max_cycles: u64,
) -> Result<TxCapture, Violation> {
    run_hooked(
        dut,
        frames,
        gap,
        ready,
        expect_out,
        drain,
        max_cycles,
        |_, _| {},
    )
}

/// [`run`], with `hook(dut, cycle)` called at the start of every cycle in which no input
/// beat is on offer. The hook may step the DUT (e.g. an AXI4-Lite access): it must leave
/// `tvalid` low and `tready` low while it does, which keeps both streams legal.
#[allow(clippy::too_many_arguments)]
pub fn run_hooked<T: TxDut>(
    dut: &mut T,
    frames: &[TxFrame],
    mut gap: impl FnMut(u64) -> bool,
    mut ready: impl FnMut(u64) -> bool,
    expect_out: usize,
    drain: u64,
    max_cycles: u64,
    mut hook: impl FnMut(&mut T, u64),
) -> Result<TxCapture, Violation> {
    let mut beats: VecDeque<Beat> = frames.iter().flat_map(beats_of).collect();
    let mut cap = TxCapture::default();
    let mut offered: Option<Beat> = None;
    let mut out_pending: Option<OutBeat> = None;
    let mut cur: Vec<u8> = vec![];
    let mut cur_dest: Option<u8> = None;
    let mut done_at: Option<u64> = None;
    for cycle in 0..max_cycles {
        if offered.is_none() {
            hook(dut, cycle);
        }
        if offered.is_none() && !beats.is_empty() && !gap(cycle) {
            offered = beats.pop_front();
        }
        dut.drive_in(offered.as_ref());
        let r = ready(cycle);
        dut.set_out_ready(r);
        dut.settle();
        let in_fire = offered.is_some() && dut.in_ready();
        let out = dut.out_beat();
        if let Some(p) = &out_pending {
            if out.as_ref() != Some(p) {
                return Err(Violation::Unstable { cycle });
            }
        }
        out_pending = None;
        if let Some(o) = out {
            if r {
                let n = crate::axis::keep_len(&o.keep).ok_or(Violation::BadKeep { cycle })?;
                if (!o.last && n != BEAT_BYTES) || (o.last && n == 0) {
                    return Err(Violation::BadKeep { cycle });
                }
                if cur_dest.is_some_and(|d| d != o.dest) {
                    return Err(Violation::DestChanged { cycle });
                }
                cur_dest = Some(o.dest);
                cur.extend(crate::axis::unpack(&o.data, n));
                cap.beats += 1;
                cap.first_beat.get_or_insert(cycle);
                cap.last_beat = cycle;
                if o.last {
                    cap.frames.push((std::mem::take(&mut cur), o.dest, cycle));
                    cur_dest = None;
                }
            } else {
                out_pending = Some(o);
            }
        }
        dut.step();
        if in_fire {
            if offered.as_ref().is_some_and(|b| b.last) {
                cap.in_last.push(cycle);
            }
            offered = None;
            cap.in_beats += 1;
        }
        cap.cycles = cycle + 1;
        if cap.frames.len() >= expect_out && beats.is_empty() && offered.is_none() {
            let d = *done_at.get_or_insert(cycle);
            if cycle >= d + drain {
                break;
            }
        }
    }
    dut.drive_in(None);
    Ok(cap)
}

/// The expected outcome of every frame, in order: one sprayer request per frame (the
/// hardware asks at each first beat, whatever becomes of the frame).
pub fn expected(
    s: &TxSettings,
    table: &HashMap<u64, Value>,
    frames: &[TxFrame],
    spray: &mut SprayerModel,
    mode: Mode,
    min: u16,
    max: u16,
) -> Vec<TxOutcome> {
    frames
        .iter()
        .map(|f| {
            let port = spray.port(mode, min, max, flow_id(f.vni, f.qp));
            let hit = table.get(&key(f.vni, inner_dst_ip(&f.bytes))).copied();
            encapsulate(s, f, hit, port)
        })
        .collect()
}

/// The default-mode expectation: `expected` with a fresh sprayer model in per-packet mode
/// over the config's default port range.
pub fn expected_default(
    cfg: &PrnicConfig,
    s: &TxSettings,
    table: &HashMap<u64, Value>,
    frames: &[TxFrame],
) -> Vec<TxOutcome> {
    expected(
        s,
        table,
        frames,
        &mut SprayerModel::new(cfg.sprayer.hash_seed),
        Mode::PerPacket,
        cfg.sprayer.port_min as u16,
        cfg.sprayer.port_max as u16,
    )
}

/// The frames the model sends, in order.
pub fn sent_frames(want: &[TxOutcome]) -> Vec<&Vec<u8>> {
    want.iter()
        .filter_map(|o| match o {
            TxOutcome::Sent { frame, .. } => Some(frame),
            _ => None,
        })
        .collect()
}

/// The TX settings the default config's CSR reset values give, with test addresses.
pub fn settings(cfg: &PrnicConfig) -> TxSettings {
    TxSettings {
        port_mac: [0x02_00_5e_10_00_01, 0x02_00_5e_10_00_02],
        port_ip: [0x0a01_0001, 0x0a01_0002],
        dscp: 26,
        ttl: 64,
        bth_mark: true,
        max_frame_bytes: cfg.packet.max_frame_bytes as usize,
    }
}
