use super::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

type Uut = CdcStream<8, 1, 10>;

/// Beats `0, 1, 2, …` (tdata = the count, tlast every 5th) offered with probability
/// `p_valid` per `clk_s` cycle and taken with `p_ready` per `clk_m` cycle, the clocks'
/// half periods in ps. Every beat the writer handed over comes out once, in order,
/// with its tlast. Returns (beats sent, `clk_s` cycles the writer offered, `clk_m`
/// cycles the reader ran).
fn run(half_s: u64, half_m: u64, p_valid: u64, p_ready: u64, beats: u64) -> (u64, u64) {
    run_with(half_s, half_m, p_valid, p_ready, beats, false)
}

/// `jitter`: each synchronizer samples every pointer bit that changed since its last
/// edge as old or new at random (`SyncReg::_jitter`).
fn run_with(
    half_s: u64,
    half_m: u64,
    p_valid: u64,
    p_ready: u64,
    beats: u64,
    jitter: bool,
) -> (u64, u64) {
    let mut uut = Uut::new("t");
    if jitter {
        uut.fifo.wsync._jitter = Some(half_s ^ 0x5DEECE66D);
        uut.fifo.rsync._jitter = Some(half_m ^ 0xB);
    }
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(half_s, |x: &mut Box<Uut>| x.clk_s.next = !x.clk_s.val());
    sim.add_clock(half_m, |x: &mut Box<Uut>| x.clk_m.next = !x.clk_m.val());
    let sent = Arc::new(AtomicU64::new(u64::MAX));
    let offered = Arc::new(AtomicU64::new(0));
    let (sent_w, offered_w) = (sent.clone(), offered.clone());
    sim.add_testbench(move |mut ep: Sim<Uut>| {
        let mut x = ep.init()?;
        let mut next = crate::testutil::percent(half_s ^ p_valid);
        crate::reset_crossing!(ep, clk_s, x);
        let mut n = 0u64;
        let mut cycles = 0u64;
        let mut gray = x.fifo.wgray.q.val().index();
        while n < beats {
            // What crosses changes in at most one bit per edge.
            let g = x.fifo.wgray.q.val().index();
            sim_assert!(ep, (g ^ gray).count_ones() <= 1, x);
            gray = g;
            let v = next() < p_valid;
            x.s_axis_tvalid.next = v;
            x.s_axis_tdata.next = (n & 0xFF).into();
            x.s_axis_tlast.next = n % 5 == 4;
            x.s_axis_tkeep.next = true.into();
            let ready = x.s_axis_tready.val();
            wait_clock_true!(ep, clk_s, x);
            cycles += 1;
            if v && ready {
                n += 1;
            }
            wait_clock_false!(ep, clk_s, x);
        }
        x.s_axis_tvalid.next = false;
        offered_w.store(cycles, Ordering::SeqCst);
        sent_w.store(n, Ordering::SeqCst);
        ep.done(x)
    });
    let got = Arc::new(AtomicU64::new(0));
    let got_r = got.clone();
    sim.add_testbench(move |mut ep: Sim<Uut>| {
        let mut x = ep.init()?;
        let mut next = crate::testutil::percent(half_m ^ p_ready);
        let mut n = 0u64;
        let mut gray = x.fifo.rgray.q.val().index();
        loop {
            wait_clock_false!(ep, clk_m, x);
            let g = x.fifo.rgray.q.val().index();
            sim_assert!(ep, (g ^ gray).count_ones() <= 1, x);
            gray = g;
            let r = next() < p_ready;
            x.m_axis_tready.next = r;
            let (valid, data, last) = (
                x.m_axis_tvalid.val(),
                x.m_axis_tdata.val().index() as u64,
                x.m_axis_tlast.val(),
            );
            wait_clock_true!(ep, clk_m, x);
            if valid && r {
                sim_assert!(ep, data == n & 0xFF && last == (n % 5 == 4), x);
                n += 1;
            }
            if sent.load(Ordering::SeqCst) == n {
                break;
            }
        }
        got_r.store(n, Ordering::SeqCst);
        ep.done(x)
    });
    sim.run(Box::new(uut), 2_000 * beats * (half_s + half_m) + 1_000_000)
        .unwrap();
    assert_eq!(got.load(Ordering::SeqCst), beats);
    (beats, offered.load(Ordering::SeqCst))
}

#[test]
fn crossing_keeps_order_under_random_stalls_both_ways() {
    // clk_s at 250 MHz into clk_m at 322.27 MHz, and back.
    run(2_000, 1_552, 70, 50, 600);
    run(1_552, 2_000, 80, 60, 600);
}

/// A synchronizer's first stage may resolve a bit that changes near its edge either
/// way. Every run checks that each pointer that crosses changes in at most one bit
/// per edge (Gray code: binary pointers fail every test here), so whatever a stage
/// resolves to is the pointer before or after a step. This run samples every
/// changing bit at random, and beats still come out once, in order.
#[test]
fn crossing_survives_either_sampling_of_a_changing_pointer() {
    // Mostly empty (the write pointer's samples matter), then mostly full (the read
    // pointer's), both ways round.
    for (half_s, half_m) in [(2_000, 1_552), (1_552, 2_000)] {
        run_with(half_s, half_m, 30, 100, 1_500, true);
        run_with(half_s, half_m, 100, 30, 1_500, true);
    }
}

#[test]
fn crossing_runs_at_the_slower_clock() {
    // Writer slower: it is never held up after the start.
    let (beats, cycles) = run(2_000, 1_552, 100, 100, 1_000);
    assert!(cycles <= beats + 1, "{cycles} cycles for {beats} beats");
    // Reader slower: the writer is held to the reader's rate (4000 / 3104 of it),
    // not less.
    let (beats, cycles) = run(1_552, 2_000, 100, 100, 1_000);
    assert!(
        cycles * 3_104 <= beats * 4_000 + 10 * 3_104,
        "{cycles} cycles for {beats} beats"
    );
}
