//! `frame_merge` (Verilator, and rust-hdl beside it): host frames on input 0 (1 to 9
//! beats) and reply frames on input 1 (1 or 2 beats), random data, `tkeep` and `tuser`,
//! random gaps on both inputs (a beat once offered is held, as AXI4-Stream requires)
//! and a random `m_axis_tready`. Every beat leaves once, whole, inside its own frame and
//! in its input's order; a waiting frame is passed over by at most one frame of the
//! other input; with both inputs always offering and the output never waiting, one beat
//! leaves per cycle and the inputs take turns frame by frame. The 1024-bit model and
//! rust-hdl's simulator of the same block see the same stimulus and must agree cycle by
//! cycle on every output.

use std::collections::VecDeque;

use prnic_rtl::frame_merge::{FrameMerge as HdlFrameMerge, FRAME_MERGE_LATENCY};
use prnic_testbenches::bridge::{Dut, FrameMerge};
use prnic_testbenches::hdl_sim;
use prnic_verif::rng::rng;
use rust_hdl::prelude::*;

/// One beat: 1024 bits of data, 128 of keep, `tlast`, 48 bits of `tuser`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Beat {
    data: [u32; 32],
    keep: [u32; 4],
    last: bool,
    user: u64,
}

impl Beat {
    /// What an input that offers nothing drives.
    const IDLE: Beat = Beat {
        data: [0; 32],
        keep: [0; 4],
        last: false,
        user: 0,
    };
}

/// The block's ports as the run drives them, under either simulator.
trait Fm {
    fn set_rst(&mut self, on: bool);
    fn drive(&mut self, i: usize, beat: Option<&Beat>);
    fn set_ready(&mut self, ready: bool);
    fn step(&mut self);
    /// Input `i`'s `tready` (a register: the coming edge acts on it).
    fn tready(&self, i: usize) -> bool;
    fn out(&self) -> Option<Beat>;
    fn frames_1(&self) -> u64;
}

impl Fm for FrameMerge {
    fn set_rst(&mut self, on: bool) {
        FrameMerge::set_rst(self, on as u64);
    }
    fn drive(&mut self, i: usize, beat: Option<&Beat>) {
        let b = beat.copied().unwrap_or(Beat::IDLE);
        let v = beat.is_some() as u64;
        if i == 0 {
            self.set_s0_axis_tvalid(v);
            self.set_s0_axis_tdata(&b.data);
            self.set_s0_axis_tkeep(&b.keep);
            self.set_s0_axis_tlast(b.last as u64);
            self.set_s0_axis_tuser(b.user);
        } else {
            self.set_s1_axis_tvalid(v);
            self.set_s1_axis_tdata(&b.data);
            self.set_s1_axis_tkeep(&b.keep);
            self.set_s1_axis_tlast(b.last as u64);
            self.set_s1_axis_tuser(b.user);
        }
    }
    fn set_ready(&mut self, ready: bool) {
        self.set_m_axis_tready(ready as u64);
    }
    fn step(&mut self) {
        Dut::step(self);
    }
    fn tready(&self, i: usize) -> bool {
        if i == 0 {
            self.s0_axis_tready() == 1
        } else {
            self.s1_axis_tready() == 1
        }
    }
    fn out(&self) -> Option<Beat> {
        (self.m_axis_tvalid() == 1).then(|| Beat {
            data: self.m_axis_tdata(),
            keep: self.m_axis_tkeep(),
            last: self.m_axis_tlast() == 1,
            user: self.m_axis_tuser(),
        })
    }
    fn frames_1(&self) -> u64 {
        self.status_frames_1()
    }
}

/// The block in rust-hdl's simulator, 1024-bit bus.
struct Hdl(HdlFrameMerge<1024, 128, 48>);

impl Hdl {
    fn new() -> Self {
        let mut u = HdlFrameMerge::default();
        u.connect_all();
        u.clk.next = false.into();
        hdl_sim::settle(&mut u, "initial values");
        Hdl(u)
    }
}

fn bits<const N: usize>(words: &[u32]) -> Bits<N> {
    let mut b: Bits<N> = Default::default();
    for j in 0..N {
        b = b.replace_bit(j, words[j / 32] >> (j % 32) & 1 == 1);
    }
    b
}

fn words<const N: usize, const W: usize>(b: Bits<N>) -> [u32; W] {
    std::array::from_fn(|i| b.get_bits::<32>(32 * i).index() as u32)
}

impl Fm for Hdl {
    fn set_rst(&mut self, on: bool) {
        self.0.rst.next = on;
    }
    fn drive(&mut self, i: usize, beat: Option<&Beat>) {
        let u = &mut self.0;
        let b = beat.copied().unwrap_or(Beat::IDLE);
        let (data, keep, user) = (
            bits(&b.data),
            bits(&b.keep),
            bits(&[b.user as u32, (b.user >> 32) as u32]),
        );
        if i == 0 {
            u.s0_axis_tvalid.next = beat.is_some();
            u.s0_axis_tdata.next = data;
            u.s0_axis_tkeep.next = keep;
            u.s0_axis_tlast.next = b.last;
            u.s0_axis_tuser.next = user;
        } else {
            u.s1_axis_tvalid.next = beat.is_some();
            u.s1_axis_tdata.next = data;
            u.s1_axis_tkeep.next = keep;
            u.s1_axis_tlast.next = b.last;
            u.s1_axis_tuser.next = user;
        }
    }
    fn set_ready(&mut self, ready: bool) {
        self.0.m_axis_tready.next = ready;
    }
    fn step(&mut self) {
        hdl_sim::cycle(&mut self.0, |u, c| u.clk.next = c.into(), |_| ());
    }
    fn tready(&self, i: usize) -> bool {
        if i == 0 {
            self.0.s0_axis_tready.val()
        } else {
            self.0.s1_axis_tready.val()
        }
    }
    fn out(&self) -> Option<Beat> {
        let u = &self.0;
        u.m_axis_tvalid.val().then(|| Beat {
            data: words(u.m_axis_tdata.val()),
            keep: words(u.m_axis_tkeep.val()),
            last: u.m_axis_tlast.val(),
            user: u.m_axis_tuser.val().to_u64(),
        })
    }
    fn frames_1(&self) -> u64 {
        self.0.status_frames_1.val().to_u64()
    }
}

/// What a run saw.
struct Run {
    /// Every output beat with its cycle, and `tready` of both inputs each cycle.
    trace: Vec<(u64, Beat)>,
    readies: Vec<(bool, bool)>,
    /// Each output frame's input, in order.
    frame_inputs: Vec<usize>,
    max_overtaken: u64,
}

/// A frame of `len` beats: random data, `tkeep` all ones but on the last beat (1 to 128
/// bytes, packed from lane 0), one random `tuser` for all of them.
fn frame(r: &mut impl FnMut() -> u64, len: u64) -> VecDeque<Beat> {
    let user = r() & 0xffff_ffff_ffff;
    (0..len)
        .map(|b| {
            let last = b + 1 == len;
            let bytes = if last { 1 + r() % 128 } else { 128 };
            let keep = std::array::from_fn(|w| {
                let lo = 32 * w as u64;
                match bytes.saturating_sub(lo) {
                    0 => 0,
                    n if n >= 32 => u32::MAX,
                    n => (1u32 << n) - 1,
                }
            });
            Beat {
                data: std::array::from_fn(|_| r() as u32),
                keep,
                last,
                user,
            }
        })
        .collect()
}

/// `cycles` cycles: input `i` offers a beat with probability `p[i]`% when it has none
/// offered, the output is ready `p_ready`% of cycles. Checks every output beat.
fn run(d: &mut impl Fm, seed: u64, p: [u64; 2], p_ready: u64, cycles: u64) -> Run {
    let mut r = rng(seed);
    let max_len = [9, 2];
    d.drive(0, None);
    d.drive(1, None);
    d.set_ready(false);
    d.set_rst(true);
    d.step();
    d.set_rst(false);
    // Per input: the frame being offered (beats not yet taken), the beat offered now.
    let mut pending: [VecDeque<Beat>; 2] = Default::default();
    let mut on = [false; 2];
    // Per input: beats taken and not yet out, in order.
    let mut inside: [VecDeque<Beat>; 2] = Default::default();
    let mut waiting = [false; 2];
    let mut overtaken = [0u64; 2];
    let mut max_overtaken = 0;
    let mut cur: Option<usize> = None;
    let mut run = Run {
        trace: vec![],
        readies: vec![],
        frame_inputs: vec![],
        max_overtaken: 0,
    };
    for cyc in 0..cycles {
        let ready = r() % 100 < p_ready;
        if let (true, Some(b)) = (ready, d.out()) {
            let i = match cur {
                Some(i) => i,
                None => {
                    // A frame's first beat: the head of one input's beats.
                    let i = (0..2)
                        .find(|&i| inside[i].front() == Some(&b))
                        .unwrap_or_else(|| panic!("cycle {cyc}: a beat no input sent at its head"));
                    run.frame_inputs.push(i);
                    i
                }
            };
            assert_eq!(
                inside[i].pop_front(),
                Some(b),
                "cycle {cyc}: input {i}'s frame broken"
            );
            cur = (!b.last).then_some(i);
            run.trace.push((cyc, b));
        }
        d.set_ready(ready);
        for i in 0..2 {
            if !on[i] && r() % 100 < p[i] {
                if pending[i].is_empty() {
                    let len = 1 + r() % max_len[i];
                    pending[i] = frame(&mut r, len);
                    waiting[i] = true;
                }
                on[i] = true;
            }
            d.drive(i, on[i].then(|| &pending[i][0]));
        }
        let rd = [d.tready(0), d.tready(1)];
        run.readies.push((rd[0], rd[1]));
        for i in 0..2 {
            if on[i] && rd[i] {
                let b = pending[i].pop_front().unwrap();
                if waiting[i] {
                    waiting[i] = false;
                    overtaken[i] = 0;
                }
                if b.last && waiting[1 - i] {
                    overtaken[1 - i] += 1;
                    max_overtaken = max_overtaken.max(overtaken[1 - i]);
                }
                inside[i].push_back(b);
                on[i] = false;
            }
        }
        d.step();
    }
    // At most the output slice's two beats are still inside.
    assert!(inside[0].len() + inside[1].len() <= 2, "beats lost");
    let n1 = run.frame_inputs.iter().filter(|&&i| i == 1).count() as u64;
    let f1 = d.frames_1();
    assert!(
        (n1..=n1 + 2).contains(&f1),
        "status_frames_1 {f1}, {n1} out"
    );
    run.max_overtaken = max_overtaken;
    run
}

#[test]
fn frames_stay_whole_in_order_and_take_turns_under_gaps_and_backpressure() {
    for (seed, p, p_ready) in [(1, [70, 30], 70), (2, [95, 95], 50), (3, [20, 80], 90)] {
        let run = run(&mut FrameMerge::new(), seed, p, p_ready, 20_000);
        let n1 = run.frame_inputs.iter().filter(|&&i| i == 1).count();
        let n0 = run.frame_inputs.len() - n1;
        assert!(
            n0 > 500 && n1 > 500,
            "seed {seed}: {n0} host and {n1} reply frames"
        );
        assert!(
            run.max_overtaken <= 1,
            "seed {seed}: passed over {} times",
            run.max_overtaken
        );
    }
}

#[test]
fn one_beat_per_cycle_with_both_inputs_busy() {
    let run = run(&mut FrameMerge::new(), 4, [100, 100], 100, 5_000);
    let (first, last) = (run.trace[0].0, run.trace.last().unwrap().0);
    assert_eq!(first, FRAME_MERGE_LATENCY, "first beat out");
    assert_eq!(
        run.trace.len() as u64,
        last - first + 1,
        "idle output cycles"
    );
    assert!(run.frame_inputs.windows(2).all(|w| w[0] != w[1]), "turns");
}

#[test]
fn rust_hdl_and_verilator_agree_cycle_by_cycle() {
    let v = run(&mut FrameMerge::new(), 5, [60, 40], 60, 1_500);
    let h = run(&mut Hdl::new(), 5, [60, 40], 60, 1_500);
    assert_eq!(v.readies, h.readies);
    assert_eq!(v.trace, h.trace);
    assert!(v.trace.len() > 500);
}
