//! `axil_cdc` under two free-running clocks at their real periods (Verilator): a host
//! master on `clk_s` issues a stream of writes and a stream of reads, independently and
//! with random gaps (AW before W, W before AW, a read offered while a write waits); a
//! register-file slave on `clk_m` answers with random stalls on every channel, `SLVERR`
//! above 0x800. Every transaction reaches the slave exactly once, in its stream's order,
//! with its address, data and strobes, one at a time; the core-side valids hold until
//! their handshakes; every response comes back to the host unchanged and in order; and
//! reads see every write before them. Both ways round: host at 250 MHz with the core at
//! 322.27 MHz, and the reverse.

use std::collections::VecDeque;

use prnic_rtl::testutil::{percent, write_strobed};
use prnic_testbenches::bridge::AxilCdc;

/// 322.265625 MHz and 250 MHz, in ps.
const CORE_PS: u64 = 3_103;
const HOST_PS: u64 = 4_000;
/// The slave answers SLVERR at and above this address.
const SLVERR_FROM: u64 = 0x800;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Txn {
    Write { addr: u64, data: u64, strb: u64 },
    Read { addr: u64 },
}

/// The host's transactions: `n` writes and `n` reads, addresses mostly in a small window
/// (so reads hit written words) and some past `SLVERR_FROM`.
fn streams(seed: u64, n: usize) -> (Vec<Txn>, Vec<Txn>) {
    let mut r = percent(seed);
    let addr = |r: &mut dyn FnMut() -> u64| {
        if r() < 10 {
            SLVERR_FROM + 4 * (r() % 16)
        } else {
            4 * (r() % 8)
        }
    };
    let mut writes = vec![];
    let mut reads = vec![];
    for i in 0..n {
        let a = addr(&mut r);
        let data = (i as u64).wrapping_mul(0x9E37_79B9) & 0xFFFF_FFFF;
        let strb = if r() < 70 { 0xF } else { r() % 16 };
        writes.push(Txn::Write {
            addr: a,
            data,
            strb,
        });
        let a = addr(&mut r);
        reads.push(Txn::Read { addr: a });
    }
    (writes, reads)
}

/// What a run measured.
struct Run {
    /// Host edges from a read's AR handshake to its R handshake, the largest seen.
    max_read_edges: u64,
}

/// The slave's view after its last edge: the core-side outputs of the crossing.
#[derive(Clone, Copy, Default, PartialEq, Debug)]
struct Core {
    awvalid: bool,
    awaddr: u64,
    wvalid: bool,
    wdata: u64,
    wstrb: u64,
    arvalid: bool,
    araddr: u64,
    bready: bool,
    rready: bool,
}

fn core(d: &AxilCdc) -> Core {
    Core {
        awvalid: d.m_axil_awvalid() == 1,
        awaddr: d.m_axil_awaddr(),
        wvalid: d.m_axil_wvalid() == 1,
        wdata: d.m_axil_wdata(),
        wstrb: d.m_axil_wstrb(),
        arvalid: d.m_axil_arvalid() == 1,
        araddr: d.m_axil_araddr(),
        bready: d.m_axil_bready() == 1,
        rready: d.m_axil_rready() == 1,
    }
}

/// A run: `n` writes and `n` reads. The host raises each request channel with
/// probability `p_host` per edge (and holds it until its handshake) and takes a response
/// with `p_host`; the slave is ready on each request channel, and raises a due response,
/// with `p_slave`. Each side is driven right after its own rising edges, and a handshake
/// on an edge is judged from what both sides showed just before it.
fn run(s_ps: u64, m_ps: u64, p_host: u64, p_slave: u64, n: usize) -> Run {
    let mut d = AxilCdc::new();
    d.set_clk_s_period_ps(s_ps);
    d.set_clk_m_period_ps(m_ps);
    d.set_rst(1);
    d.step_n(12);
    d.set_rst(0);
    d.step_n(12);
    let (writes, reads) = streams(s_ps * 7 + m_ps + p_host * 131 + p_slave, n);
    let mut hr = percent(s_ps ^ (p_host << 8));
    let mut sr = percent(m_ps ^ (p_slave << 8) ^ 0x55);

    // Host: next write and read, what it drives, what it has been answered.
    let (mut wi, mut ri) = (0usize, 0usize);
    let (mut awv, mut wv, mut arv, mut bready, mut rready) = (false, false, false, false, false);
    // The current write's AW and W handshakes, done on different edges or the same.
    let (mut aw_done, mut w_done) = (false, false);
    // Host-side outputs of the crossing just before the next host edge.
    let (mut awr, mut wr, mut arr) = (false, false, false);
    let (mut bvalid, mut bresp, mut rvalid, mut rresp, mut rdata) = (false, 0, false, 0, 0);
    let mut writes_out: VecDeque<usize> = VecDeque::new();
    // Per read out: the host edge its round trip starts, or the write it waits for.
    let mut ar_edge: VecDeque<(u64, Option<usize>)> = VecDeque::new();
    let mut b_got: Vec<u64> = vec![];
    let mut r_got: Vec<(u64, u64)> = vec![];
    let (mut s_edges, mut max_read_edges) = (0u64, 0u64);

    // Slave: memory, what it saw, what it drives, what it answered.
    let mut mem = [0u64; 8];
    let mut seen: Vec<Txn> = vec![];
    let (mut s_awr, mut s_wr, mut s_arr) = (false, false, false);
    let (mut aw_in, mut w_in): (Option<u64>, Option<(u64, u64)>) = (None, None);
    let (mut b_due, mut r_due): (Option<u64>, Option<(u64, u64)>) = (None, None);
    let (mut s_bv, mut s_rv) = (false, false);
    let mut b_sent: Vec<u64> = vec![];
    let mut r_sent: Vec<(u64, u64)> = vec![];
    let mut c = core(&d);

    let mut ticks = 0u64;
    while b_got.len() < n || r_got.len() < n {
        ticks += 1;
        assert!(
            ticks < 1_000 * n as u64 + 10_000,
            "stalled: {} of {n} B and {} of {n} R back; the slave saw {}",
            b_got.len(),
            r_got.len(),
            seen.len()
        );
        let rose = d.tick();
        if rose & AxilCdc::CLK_S != 0 {
            s_edges += 1;
            // This edge's handshakes.
            if awv && awr {
                (awv, aw_done) = (false, true);
            }
            if wv && wr {
                (wv, w_done) = (false, true);
            }
            if aw_done && w_done {
                writes_out.push_back(wi);
                wi += 1;
                (aw_done, w_done) = (false, false);
            }
            if arv && arr {
                // A read taken while a write is out (or taken whole on this edge: a
                // write goes first) starts when that write's B is taken.
                ar_edge.push_back((s_edges, writes_out.back().copied()));
                ri += 1;
                arv = false;
            }
            if bvalid && bready {
                let i = writes_out.pop_front().expect("a B with no write out");
                let Txn::Write { addr, .. } = writes[i] else {
                    unreachable!()
                };
                assert_eq!(bresp, if addr >= SLVERR_FROM { 2 } else { 0 }, "write {i}");
                for r in ar_edge.iter_mut().filter(|r| r.1 == Some(i)) {
                    *r = (s_edges, None);
                }
                b_got.push(bresp);
            }
            if rvalid && rready {
                let (at, behind) = ar_edge.pop_front().expect("an R with no read out");
                assert_eq!(behind, None, "an R before the B of the write ahead of it");
                max_read_edges = max_read_edges.max(s_edges - at);
                let Txn::Read { addr } = reads[r_got.len()] else {
                    unreachable!()
                };
                assert_eq!(rresp, if addr >= SLVERR_FROM { 2 } else { 0 });
                r_got.push((rresp, rdata));
            }
            // Drive: a request channel, once raised, holds until its handshake.
            if wi < n {
                let Txn::Write { addr, data, strb } = writes[wi] else {
                    unreachable!()
                };
                awv |= !aw_done && hr() < p_host;
                wv |= !w_done && hr() < p_host;
                d.set_s_axil_awaddr(addr);
                d.set_s_axil_wdata(data);
                d.set_s_axil_wstrb(strb);
            }
            if ri < n {
                let Txn::Read { addr } = reads[ri] else {
                    unreachable!()
                };
                arv |= hr() < p_host;
                d.set_s_axil_araddr(addr);
            }
            bready = hr() < p_host;
            rready = hr() < p_host;
            d.set_s_axil_awvalid(awv as u64);
            d.set_s_axil_wvalid(wv as u64);
            d.set_s_axil_arvalid(arv as u64);
            d.set_s_axil_bready(bready as u64);
            d.set_s_axil_rready(rready as u64);
            d.eval();
            (awr, wr, arr) = (
                d.s_axil_awready() == 1,
                d.s_axil_wready() == 1,
                d.s_axil_arready() == 1,
            );
            (bvalid, bresp, rvalid, rresp, rdata) = (
                d.s_axil_bvalid() == 1,
                d.s_axil_bresp(),
                d.s_axil_rvalid() == 1,
                d.s_axil_rresp(),
                d.s_axil_rdata(),
            );
            assert!(
                !(bvalid && rvalid),
                "B and R at once with one transaction out"
            );
        }
        if rose & AxilCdc::CLK_M != 0 {
            // This edge's handshakes, from the view before it (`c`) and what the slave drove.
            if c.awvalid && s_awr {
                assert!(
                    aw_in.is_none() && b_due.is_none(),
                    "a second AW before the B"
                );
                aw_in = Some(c.awaddr);
            }
            if c.wvalid && s_wr {
                assert!(w_in.is_none() && b_due.is_none(), "a second W before the B");
                w_in = Some((c.wdata, c.wstrb));
            }
            if c.arvalid && s_arr {
                assert!(
                    aw_in.is_none() && w_in.is_none() && b_due.is_none(),
                    "a read while a write is open"
                );
                assert!(r_due.is_none(), "a second AR before the R");
                let addr = c.araddr;
                seen.push(Txn::Read { addr });
                let rsp = if addr >= SLVERR_FROM {
                    (2, 0)
                } else {
                    (0, mem[(addr / 4) as usize])
                };
                r_sent.push(rsp);
                r_due = Some(rsp);
            }
            if s_bv && c.bready {
                s_bv = false;
                b_due = None;
            }
            if s_rv && c.rready {
                s_rv = false;
                r_due = None;
            }
            if let (Some(addr), Some((data, strb)), None) = (aw_in, w_in, b_due) {
                assert!(r_due.is_none(), "a write while a read is open");
                seen.push(Txn::Write { addr, data, strb });
                if addr < SLVERR_FROM {
                    write_strobed(&mut mem[(addr / 4) as usize], data, strb);
                }
                let resp = if addr >= SLVERR_FROM { 2 } else { 0 };
                b_sent.push(resp);
                b_due = Some(resp);
                (aw_in, w_in) = (None, None);
            }
            // The core-side valids hold, with their payloads, until their handshakes.
            let now = core(&d);
            if c.awvalid && !s_awr {
                assert!(
                    now.awvalid && now.awaddr == c.awaddr,
                    "AW dropped: {c:?} {now:?}"
                );
            }
            if c.wvalid && !s_wr {
                assert!(
                    now.wvalid && (now.wdata, now.wstrb) == (c.wdata, c.wstrb),
                    "W dropped: {c:?} {now:?}"
                );
            }
            if c.arvalid && !s_arr {
                assert!(
                    now.arvalid && now.araddr == c.araddr,
                    "AR dropped: {c:?} {now:?}"
                );
            }
            // Drive: readies at random; a due response, once raised, holds.
            s_awr = sr() < p_slave;
            s_wr = sr() < p_slave;
            s_arr = sr() < p_slave;
            s_bv = b_due.is_some() && (s_bv || sr() < p_slave);
            s_rv = r_due.is_some() && (s_rv || sr() < p_slave);
            d.set_m_axil_awready(s_awr as u64);
            d.set_m_axil_wready(s_wr as u64);
            d.set_m_axil_arready(s_arr as u64);
            d.set_m_axil_bvalid(s_bv as u64);
            d.set_m_axil_bresp(b_due.unwrap_or(0));
            d.set_m_axil_rvalid(s_rv as u64);
            d.set_m_axil_rresp(r_due.map_or(0, |r| r.0));
            d.set_m_axil_rdata(r_due.map_or(0, |r| r.1));
            d.eval();
            c = core(&d);
        }
    }
    // Every transaction reached the slave once, in its stream's order, as the host sent
    // it; every answer came back unchanged and in order.
    let w_seen: Vec<Txn> = seen
        .iter()
        .copied()
        .filter(|t| matches!(t, Txn::Write { .. }))
        .collect();
    let r_seen: Vec<Txn> = seen
        .iter()
        .copied()
        .filter(|t| matches!(t, Txn::Read { .. }))
        .collect();
    assert_eq!(w_seen, writes);
    assert_eq!(r_seen, reads);
    assert_eq!(b_got, b_sent);
    assert_eq!(r_got, r_sent);
    // Nothing more: no request repeated after the last response.
    for _ in 0..100 {
        d.tick();
        let now = core(&d);
        assert!(!now.awvalid && !now.wvalid && !now.arvalid, "{now:?}");
    }
    Run { max_read_edges }
}

#[test]
fn transactions_cross_both_ways_once_in_order_under_random_stalls() {
    for (s_ps, m_ps) in [(HOST_PS, CORE_PS), (CORE_PS, HOST_PS)] {
        for (p_host, p_slave) in [(60, 40), (30, 90), (100, 100)] {
            run(s_ps, m_ps, p_host, p_slave, 300);
        }
    }
}

/// With a slave that answers at once and a host that never stalls, a read takes one host
/// edge to be held, about four core edges to cross, one for the slave, then about four
/// host edges back: each way two synchronizer stages, the FIFO's `empty` and its read
/// register. A read behind a write is timed from the write's B.
#[test]
fn a_read_round_trip_is_a_few_edges_of_each_clock() {
    for (s_ps, m_ps) in [(HOST_PS, CORE_PS), (CORE_PS, HOST_PS)] {
        let r = run(s_ps, m_ps, 100, 100, 200);
        // Both ways in host edges, the core's converted at its period: at most 5 core
        // edges and 7 host edges (one to hold AR, then the crossing; one more each when
        // a pointer misses an edge).
        let bound = 7 + (5 * m_ps).div_ceil(s_ps);
        eprintln!(
            "{s_ps} ps host, {m_ps} ps core: worst read round trip {} host edges",
            r.max_read_edges
        );
        assert!(r.max_read_edges <= bound, "{} > {bound}", r.max_read_edges);
    }
}
