//! `host_cdc` under two free-running clocks at their real periods (Verilator): the host
//! at 250 MHz, the core at 322.27 MHz. All four streams run at once, TX frames into the
//! core and placement, completions and ACK records out of it, with random stalls on both
//! sides of each. Every beat comes out once, in order, with every field it went in with
//! (tdata, tkeep, tlast, tuser); no CQE reaches the host before a placement beat that
//! went in ahead of it; at full rate each FIFO moves a word on every edge of the slower
//! clock.

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
    let kept = if last { 1 + n as usize % 127 } else { 128 };
    (prnic_testbenches::axis::keep_low::<4>(kept), last)
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
}

/// What a run measured: host edges (the slower clock) from the first beat moved on the
/// host side to the last, for TX, for placement and CQEs together (they share a FIFO),
/// and for ACKs.
struct Rates {
    tx: u64,
    place_cqe: u64,
    ack: u64,
}

/// `beats` beats on every lane, offered with probability `p_valid` per writer edge and
/// taken with `p_ready` per reader edge. Every CQE must reach the host after every
/// placement beat that went in before it.
fn run(p_valid: u64, p_ready: u64, beats: u64) -> Rates {
    let mut d = HostCdc::new();
    d.set_clk_host_period_ps(HOST_PS);
    d.set_clk_mac_period_ps(MAC_PS);
    d.set_rst(1);
    d.step_n(12);
    d.set_rst(0);
    d.step_n(12);
    let mut lanes: [Lane; LANES] = Default::default();
    // Placement beats handed over before each CQE.
    let mut cqe_after: Vec<u64> = vec![];
    let mut rates = Rates {
        tx: 0,
        place_cqe: 0,
        ack: 0,
    };
    let mut rng_v = percent(31 + p_valid);
    let mut rng_r = percent(17 + p_ready);
    let mut ticks = 0u64;
    while lanes.iter().any(|x| x.got < beats) {
        ticks += 1;
        assert!(ticks < 100 * beats + 1_000, "stalled");
        let rose = d.tick();
        let writer = |l: usize| {
            if l == TX {
                HostCdc::CLK_HOST
            } else {
                HostCdc::CLK_MAC
            }
        };
        let reader = |l: usize| {
            if l == TX {
                HostCdc::CLK_MAC
            } else {
                HostCdc::CLK_HOST
            }
        };
        // Writers: what moved on this edge, then the next offer. The placement and CQE
        // readies depend on both offers, so they are read after all are driven.
        for l in 0..LANES {
            if rose & writer(l) == 0 {
                continue;
            }
            let x = &mut lanes[l];
            if x.valid && x.s_ready {
                x.sent += 1;
                if l == CQE {
                    cqe_after.push(lanes[PLACE].sent);
                }
            }
            let x = &mut lanes[l];
            x.valid = x.sent < beats && rng_v() < p_valid;
            offer(&mut d, l, x.sent, x.valid);
        }
        d.eval();
        for (l, x) in lanes.iter_mut().enumerate() {
            if rose & writer(l) != 0 {
                x.s_ready = s_ready(&mut d, l);
            }
        }
        // Readers.
        for l in 0..LANES {
            if rose & reader(l) == 0 {
                continue;
            }
            let placed = lanes[PLACE].got;
            let x = &mut lanes[l];
            if x.ready && x.m_valid {
                assert!(x.got < x.sent, "lane {l}: beat {} before it went in", x.got);
                assert!(
                    x.beat == expected(l, x.got),
                    "lane {l}: beat {} differs",
                    x.got
                );
                if l == CQE {
                    let need = cqe_after[x.got as usize];
                    assert!(
                        placed >= need,
                        "CQE {} reached the host after {placed} placement beats, before \
                         the {need} that went in ahead of it",
                        x.got
                    );
                }
                x.got += 1;
            }
            (x.m_valid, x.beat) = on_offer(&mut d, l);
            x.ready = rng_r() < p_ready;
            take(&mut d, l, x.ready);
        }
        if rose & HostCdc::CLK_HOST != 0 {
            let moving = |a: u64, n: u64| a > 0 && a < n;
            rates.tx += moving(lanes[TX].sent, beats) as u64;
            rates.place_cqe += moving(lanes[PLACE].got + lanes[CQE].got, 2 * beats) as u64;
            rates.ack += moving(lanes[ACK].got, beats) as u64;
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
    rates
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
    let r = run(100, 100, beats);
    eprintln!(
        "host edges for {beats} beats on each stream: TX {}, placement and CQEs together {}, ACK {}",
        r.tx, r.place_cqe, r.ack
    );
    // One word per host edge, but for an edge or two while a pointer crosses: the
    // FIFOs cover the round trip. Placement and CQEs share one FIFO: one word per edge
    // between them.
    assert!(r.tx <= beats + 2, "TX: {} host edges", r.tx);
    assert!(r.ack <= beats + 2, "ACK: {} host edges", r.ack);
    assert!(
        r.place_cqe <= 2 * beats + 2,
        "placement and CQEs: {} host edges",
        r.place_cqe
    );
}
