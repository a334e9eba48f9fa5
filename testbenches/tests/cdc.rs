//! `cdc_fifo` under two free-running clocks at their real periods (Verilator): beats
//! cross from `clk_s` to `clk_m` in order, none lost, none duplicated, none torn, both
//! ways round (host at 250 MHz into the MAC clock at 322.27 MHz, and back), with random
//! stalls on both sides, and at full rate the crossing runs at the slower clock's rate.

use prnic_rtl::testutil::percent;
use prnic_testbenches::bridge::CdcFifo;

/// 322.265625 MHz and 250 MHz, in ps.
const MAC_PS: u64 = 3_103;
const HOST_PS: u64 = 4_000;

/// The beat numbered `n`: tdata words, tkeep words, tlast. Every tdata word depends on
/// `n` and its index, so a beat torn between two writes or read twice is caught.
fn beat(n: u64) -> ([u32; 32], [u32; 4], bool) {
    let mut w = [0u32; 32];
    for (i, x) in w.iter_mut().enumerate() {
        *x = (n as u32).wrapping_mul(0x9E37_79B9) ^ (i as u32).wrapping_mul(0x85EB_CA6B);
    }
    let last = n % 7 == 6;
    let kept = if last { 1 + n as usize % 127 } else { 128 };
    (w, prnic_testbenches::axis::keep_low::<4>(kept), last)
}

/// What one run measured.
struct Run {
    /// `clk_s` edges from the first beat offered to the last one taken.
    s_edges: u64,
}

/// `beats` beats offered on `clk_s` with probability `p_valid` per edge and taken on
/// `clk_m` with `p_ready`. Each domain is driven right after its own rising edges, from
/// the outputs that edge left (registers of that domain), as its logic would.
fn run(d: &mut CdcFifo, s_ps: u64, m_ps: u64, p_valid: u64, p_ready: u64, beats: u64) -> Run {
    d.set_clk_s_period_ps(s_ps);
    d.set_clk_m_period_ps(m_ps);
    // The reset is asynchronous: held across a few edges of both clocks.
    d.set_rst(1);
    d.step_n(12);
    d.set_rst(0);
    d.step_n(12);
    let mut next_v = percent(s_ps * 31 + p_valid);
    let mut next_r = percent(m_ps * 17 + p_ready);
    // Writer: what it drives, and `s_axis_tready` as the last clk_s edge left it.
    let (mut valid, mut s_ready, mut sent, mut s_edges) = (false, false, 0u64, 0u64);
    // Reader: what it drives, and the beat on offer after the last clk_m edge.
    let (mut ready, mut m_valid, mut got) = (false, false, 0u64);
    let mut on_offer = ([0u32; 32], [0u32; 4], false);
    let mut ticks = 0u64;
    while got < beats {
        ticks += 1;
        assert!(
            ticks < 100 * beats + 1_000,
            "stalled: {got} of {beats} beats out, {sent} in"
        );
        let rose = d.tick();
        if rose & CdcFifo::CLK_S != 0 {
            if valid && s_ready {
                sent += 1;
            }
            if sent > 0 && sent < beats {
                s_edges += 1;
            }
            s_ready = d.s_axis_tready() == 1;
            valid = sent < beats && next_v() < p_valid;
            let (w, k, last) = beat(sent);
            d.set_s_axis_tdata(&w);
            d.set_s_axis_tkeep(&k);
            d.set_s_axis_tlast(last as u64);
            d.set_s_axis_tvalid(valid as u64);
        }
        if rose & CdcFifo::CLK_M != 0 {
            if ready && m_valid {
                assert!(got < sent, "beat {got} came out before it went in");
                assert!(on_offer == beat(got), "beat {got} differs");
                got += 1;
            }
            m_valid = d.m_axis_tvalid() == 1;
            on_offer = (d.m_axis_tdata(), d.m_axis_tkeep(), d.m_axis_tlast() == 1);
            ready = next_r() < p_ready;
            d.set_m_axis_tready(ready as u64);
        }
    }
    assert_eq!(sent, beats);
    // Nothing more comes out: no beat duplicated at the end.
    d.set_m_axis_tready(1);
    d.set_s_axis_tvalid(0);
    for _ in 0..40 {
        d.tick();
        assert_eq!(d.m_axis_tvalid(), 0, "a beat after the last one");
    }
    Run { s_edges }
}

#[test]
fn beats_cross_both_ways_in_order_under_random_stalls() {
    for (s_ps, m_ps) in [(HOST_PS, MAC_PS), (MAC_PS, HOST_PS)] {
        for (pv, pr) in [(70, 40), (40, 90), (95, 95)] {
            let mut d = CdcFifo::new();
            run(&mut d, s_ps, m_ps, pv, pr, 1_500);
        }
    }
}

#[test]
fn crossing_runs_at_the_slower_clock() {
    let beats = 3_000;
    // Writer slower (host into MAC clock): it is never held up.
    let r = run(&mut CdcFifo::new(), HOST_PS, MAC_PS, 100, 100, beats);
    assert!(r.s_edges <= beats, "{} edges for {beats} beats", r.s_edges);
    // Reader slower (MAC into host clock): the writer is held to the reader's rate,
    // beats * 4000 / 3103 of its edges, and not more (a few edges to fill the FIFO).
    let r = run(&mut CdcFifo::new(), MAC_PS, HOST_PS, 100, 100, beats);
    let floor = beats * HOST_PS / MAC_PS;
    assert!(
        r.s_edges >= floor - 40 && r.s_edges <= floor + 5,
        "{} edges for {beats} beats; the reader's rate needs {floor}",
        r.s_edges
    );
}

/// The trace shows both clocks on their own periods: the first rising edges at half
/// a period, then every period, in ps.
#[test]
fn vcd_trace_has_both_clocks_at_their_periods() {
    let path = std::env::temp_dir().join(format!("prnic-cdc-{}.vcd", std::process::id()));
    {
        let mut d = CdcFifo::with_trace(&path, 0).unwrap();
        d.set_clk_s_period_ps(HOST_PS);
        d.set_clk_m_period_ps(MAC_PS);
        let mut rises = vec![];
        for _ in 0..6 {
            rises.push((d.tick(), d.time_ps()));
        }
        // clk_m rises at 1552, 4655, 7758; clk_s at 2000, 6000, 10000.
        assert_eq!(
            rises,
            vec![
                (CdcFifo::CLK_M, 1_552),
                (CdcFifo::CLK_S, 2_000),
                (CdcFifo::CLK_M, 4_655),
                (CdcFifo::CLK_S, 6_000),
                (CdcFifo::CLK_M, 7_758),
                (CdcFifo::CLK_S, 10_000),
            ]
        );
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    for want in [
        " clk_s ", " clk_m ", "#1552\n", "#2000\n", "#4655\n", "#6000\n",
    ] {
        assert!(text.contains(want), "trace lacks {want:?}");
    }
}
