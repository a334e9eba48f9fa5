//! `host_cdc` under two free-running clocks at their real periods (Verilator): the host
//! at 250 MHz, the core at 322.27 MHz. All four streams run at once, TX frames into the
//! core and placement, completions and ACK records out of it, with random stalls on both
//! sides of each. Every beat comes out once, in order, with every field it went in with
//! (tdata, tkeep, tlast, tuser); at full rate each stream moves a beat on every edge of
//! the slower clock.

use prnic_rtl::testutil::percent;
use prnic_testbenches::bridge::HostCdc;

/// 322.265625 MHz and 250 MHz, in ps.
const MAC_PS: u64 = 3_103;
const HOST_PS: u64 = 4_000;

/// The streams: TX (host to core), placement, completions, ACKs (core to host).
const LANES: usize = 4;
const TX: usize = 0;
const PLACE: usize = 1;
const CQE: usize = 2;
const ACK: usize = 3;

/// Word `i` of beat `n` on lane `l`: each depends on all three, so a beat torn between
/// two writes, read twice or handed to another stream is caught.
fn word(l: usize, n: u64, i: usize) -> u32 {
    (n as u32).wrapping_mul(0x9E37_79B9)
        ^ (i as u32).wrapping_mul(0x85EB_CA6B)
        ^ (l as u32).wrapping_mul(0xC2B2_AE35)
}

fn words<const N: usize>(l: usize, n: u64, from: usize) -> [u32; N] {
    std::array::from_fn(|i| word(l, n, from + i))
}

/// tkeep and tlast of frame beat `n`: every seventh beat is the last of its frame, with
/// 1 to 127 bytes.
fn keep_last(n: u64) -> ([u32; 4], bool) {
    let last = n % 7 == 6;
    let keep: u128 = if last {
        (1u128 << (1 + n % 127)) - 1
    } else {
        u128::MAX
    };
    let k = std::array::from_fn(|i| (keep >> (32 * i)) as u32);
    (k, last)
}

/// Beat `n` of lane `l` as it should come out: its fields, concatenated.
fn expected(l: usize, n: u64) -> Vec<u32> {
    match l {
        TX | PLACE => {
            let (k, last) = keep_last(n + l as u64);
            let mut v = words::<32>(l, n, 0).to_vec();
            v.extend(k);
            v.push(last as u32);
            if l == TX {
                v.extend([word(l, n, 40), word(l, n, 41) & 0xFFFF]);
            } else {
                v.extend(words::<5>(l, n, 40));
            }
            v
        }
        CQE => words::<4>(l, n, 0).to_vec(),
        ACK => words::<12>(l, n, 0).to_vec(),
        _ => unreachable!("lane {l}"),
    }
}

/// Drives beat `n` of lane `l` on its writer's side, valid or not.
fn offer(d: &mut HostCdc, l: usize, n: u64, valid: bool) {
    let v = valid as u64;
    let (k, last) = keep_last(n + l as u64);
    match l {
        TX => {
            d.set_s_axis_tx_tdata(&words::<32>(l, n, 0));
            d.set_s_axis_tx_tkeep(&k);
            d.set_s_axis_tx_tlast(last as u64);
            d.set_s_axis_tx_tuser(word(l, n, 40) as u64 | ((word(l, n, 41) as u64 & 0xFFFF) << 32));
            d.set_s_axis_tx_tvalid(v);
        }
        PLACE => {
            d.set_s_axis_core_place_tdata(&words::<32>(l, n, 0));
            d.set_s_axis_core_place_tkeep(&k);
            d.set_s_axis_core_place_tlast(last as u64);
            d.set_s_axis_core_place_tuser(&words::<5>(l, n, 40));
            d.set_s_axis_core_place_tvalid(v);
        }
        CQE => {
            d.set_s_axis_core_cqe_tdata(&words::<4>(l, n, 0));
            d.set_s_axis_core_cqe_tvalid(v);
        }
        _ => {
            d.set_s_axis_core_ack_tdata(&words::<12>(l, n, 0));
            d.set_s_axis_core_ack_tvalid(v);
        }
    }
}

fn s_ready(d: &mut HostCdc, l: usize) -> bool {
    1 == match l {
        TX => d.s_axis_tx_tready(),
        PLACE => d.s_axis_core_place_tready(),
        CQE => d.s_axis_core_cqe_tready(),
        _ => d.s_axis_core_ack_tready(),
    }
}

/// The reader's side of lane `l`: valid, and the beat on offer as [`expected`] lays it
/// out.
fn on_offer(d: &mut HostCdc, l: usize) -> (bool, Vec<u32>) {
    match l {
        TX => {
            let mut v = d.m_axis_core_tx_tdata().to_vec();
            v.extend(d.m_axis_core_tx_tkeep());
            v.push(d.m_axis_core_tx_tlast() as u32);
            let u = d.m_axis_core_tx_tuser();
            v.extend([u as u32, (u >> 32) as u32]);
            (d.m_axis_core_tx_tvalid() == 1, v)
        }
        PLACE => {
            let mut v = d.m_axis_place_tdata().to_vec();
            v.extend(d.m_axis_place_tkeep());
            v.push(d.m_axis_place_tlast() as u32);
            v.extend(d.m_axis_place_tuser());
            (d.m_axis_place_tvalid() == 1, v)
        }
        CQE => (d.m_axis_cqe_tvalid() == 1, d.m_axis_cqe_tdata().to_vec()),
        _ => (d.m_axis_ack_tvalid() == 1, d.m_axis_ack_tdata().to_vec()),
    }
}

fn take(d: &mut HostCdc, l: usize, ready: bool) {
    let r = ready as u64;
    match l {
        TX => d.set_m_axis_core_tx_tready(r),
        PLACE => d.set_m_axis_place_tready(r),
        CQE => d.set_m_axis_cqe_tready(r),
        _ => d.set_m_axis_ack_tready(r),
    }
}

/// One stream's writer and reader, each driven right after its own clock's rising
/// edges from the outputs that edge left.
#[derive(Default)]
struct Lane {
    sent: u64,
    got: u64,
    valid: bool,
    s_ready: bool,
    ready: bool,
    m_valid: bool,
    beat: Vec<u32>,
    /// Edges of the host clock (the slower) from this lane's first beat moved on the
    /// host side to its last.
    host_edges: u64,
}

/// `beats` beats on every lane, offered with probability `p_valid` per writer edge and
/// taken with `p_ready` per reader edge. Returns each lane's host edges.
fn run(p_valid: u64, p_ready: u64, beats: u64) -> [u64; LANES] {
    let mut d = HostCdc::new();
    d.set_clk_host_period_ps(HOST_PS);
    d.set_clk_mac_period_ps(MAC_PS);
    d.set_rst(1);
    d.step_n(12);
    d.set_rst(0);
    d.step_n(12);
    let mut lanes: [Lane; LANES] = Default::default();
    let mut rng_v = percent(31 + p_valid);
    let mut rng_r = percent(17 + p_ready);
    let mut ticks = 0u64;
    while lanes.iter().any(|x| x.got < beats) {
        ticks += 1;
        assert!(ticks < 100 * beats + 1_000, "stalled");
        let rose = d.tick();
        for (l, x) in lanes.iter_mut().enumerate() {
            let (w_clk, r_clk) = if l == TX {
                (HostCdc::CLK_HOST, HostCdc::CLK_MAC)
            } else {
                (HostCdc::CLK_MAC, HostCdc::CLK_HOST)
            };
            if rose & w_clk != 0 {
                if x.valid && x.s_ready {
                    x.sent += 1;
                }
                if l == TX && x.sent > 0 && x.sent < beats {
                    x.host_edges += 1;
                }
                x.s_ready = s_ready(&mut d, l);
                x.valid = x.sent < beats && rng_v() < p_valid;
                offer(&mut d, l, x.sent, x.valid);
            }
            if rose & r_clk != 0 {
                if x.ready && x.m_valid {
                    assert!(x.got < x.sent, "lane {l}: beat {} before it went in", x.got);
                    assert!(
                        x.beat == expected(l, x.got),
                        "lane {l}: beat {} differs",
                        x.got
                    );
                    x.got += 1;
                }
                if l != TX && x.got > 0 && x.got < beats {
                    x.host_edges += 1;
                }
                (x.m_valid, x.beat) = on_offer(&mut d, l);
                x.ready = rng_r() < p_ready;
                take(&mut d, l, x.ready);
            }
        }
    }
    // Nothing more comes out: no beat duplicated at the end.
    for (l, x) in lanes.iter().enumerate() {
        assert_eq!(x.sent, beats, "lane {l}");
        offer(&mut d, l, 0, false);
        take(&mut d, l, true);
    }
    for _ in 0..40 {
        d.tick();
        for l in 0..LANES {
            assert!(
                !on_offer(&mut d, l).0,
                "lane {l}: a beat after the last one"
            );
        }
    }
    std::array::from_fn(|l| lanes[l].host_edges)
}

#[test]
fn four_streams_cross_at_once_in_order_under_random_stalls() {
    for (pv, pr) in [(70, 40), (40, 90), (95, 95)] {
        run(pv, pr, 800);
    }
}

#[test]
fn every_stream_runs_at_the_host_clocks_full_rate() {
    let beats = 2_000;
    let edges = run(100, 100, beats);
    eprintln!("host edges for {beats} beats (TX, placement, CQE, ACK): {edges:?}");
    for (l, e) in edges.into_iter().enumerate() {
        // One beat per host edge, but for the edge a pointer is one edge late: the
        // FIFOs cover the round trip.
        assert!(e <= beats + 2, "lane {l}: {e} host edges for {beats} beats");
    }
}
