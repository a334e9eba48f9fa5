//! The drive loop: the sender transport (window, resends, timeouts, credits), the
//! fabric, and the checker that knows every packet the sender built.

use super::*;

/// Why a packet waits in the resend queue: named by a request or the timeout, or by
/// the sender's probe (its timers, or an ACK that came back late).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Why {
    Asked,
    Probe,
    LateAck,
}

/// The sender's resend bookkeeping, shared by the probe's three triggers and the
/// receiver's requests.
#[derive(Default)]
struct Resends {
    /// Packets to send again, in order: (why, QP, PSN).
    queue: VecDeque<(Why, u32, u32)>,
    /// When each (QP, PSN) was last resent on request, and the QP's ACKed PSN then.
    requested: BTreeMap<(u32, u32), (f64, u32)>,
    /// Requests held until an ACK moves the receiver's head.
    parked: BTreeSet<(u32, u32)>,
}

impl Resends {
    /// Queue `key` (QP, PSN) for a resend unless it was resent less than `within` ago,
    /// and note when and at which ACKed PSN (`acked`). A request parked for it is taken
    /// over.
    fn unless_recent(&mut self, key: (u32, u32), acked: u32, now: f64, within: f64, why: Why) {
        if self
            .requested
            .get(&key)
            .is_some_and(|&(t, _)| now - t < within)
        {
            return;
        }
        self.parked.remove(&key);
        self.requested.insert(key, (now, acked));
        self.queue.push_back((why, key.0, key.1));
    }
}

pub(super) fn drive(
    s: &Scenario,
    r: &mut impl Rnics,
    progress: &mut dyn FnMut(u32, u32),
) -> FabricReport {
    drive_until(s, r, progress, None)
}

/// [`drive`], stopped after `stop_at` cycles if given (traffic still in flight).
pub(super) fn drive_until(
    s: &Scenario,
    r: &mut impl Rnics,
    progress: &mut dyn FnMut(u32, u32),
    stop_at: Option<u64>,
) -> FabricReport {
    let cfg = PrnicConfig::builtin();
    let period_ns = cfg.clock_period_ns();
    let tr = build_traffic(s);
    let nq = s.qps as usize;
    let paths: Vec<PathSpec> = s
        .paths
        .iter()
        .map(|p| PathSpec {
            rate_gbps: p.rate_gbps,
            delay_ns: p.delay_ns,
            jitter_ns: p.jitter_ns,
            loss: p.loss,
            dup: p.dup,
            queue_bytes: p.queue_bytes,
            held: 0.0,
            held_ns: 0.0,
            corrupt: p.corrupt,
        })
        .collect();
    let sel = match s.path_policy {
        PathPolicy::Ecmp => Selection::Ecmp(SwitchHash::Crc32),
        PathPolicy::RoundRobin => Selection::RoundRobin,
    };
    let mut fabric = Fabric::new(paths, sel, s.seed);
    let total_pkts: u64 = tr.per_qp.iter().map(|v| v.len() as u64).sum();
    let payload_bytes: u64 = tr
        .per_qp
        .iter()
        .flatten()
        .map(|p| p.p.payload.len() as u64)
        .sum();
    // Lookup of a placement: (QP, VA) to PSN.
    let by_va: HashMap<(u32, u64), u32> = tr
        .per_qp
        .iter()
        .flatten()
        .map(|p| ((p.p.qp, p.p.va), p.p.psn))
        .collect();
    // The most this traffic can carry through RNIC B's one beat per cycle: every frame
    // once, whole beats each, no idle cycle.
    let beat_bytes = u64::from(cfg.keep_bits());
    let min_beats: u64 = tr
        .per_qp
        .iter()
        .flatten()
        .map(|p| (wire_frame(&p.p).len() as u64).div_ceil(beat_bytes))
        .sum();
    let mut rep = FabricReport {
        name: s.name.clone(),
        backend: format!("{:?}", s.backend).to_lowercase(),
        messages: s.messages,
        packets: total_pkts,
        payload_bytes,
        rx_bound_gbps: payload_bytes as f64 * 8.0 / (min_beats as f64 * period_ns),
        ..Default::default()
    };
    // Sender state per QP.
    let mut next_psn = vec![0u32; nq];
    let mut acked = vec![0u32; nq];
    let mut last_progress = vec![0f64; nq];
    let mut probed = vec![0f64; nq];
    let mut last_sent = vec![0f64; nq];
    // When each packet was last sent.
    let mut sent_at: Vec<Vec<f64>> = tr.per_qp.iter().map(|v| vec![0.0; v.len()]).collect();
    // Where a probed QP had stopped sending: its ACKs short of it are chased.
    let mut chase_to = vec![0u32; nq];
    let mut replies: VecDeque<(f64, u32, Option<u32>, Vec<u32>)> = VecDeque::new();
    // When each (QP, PSN) was last resent on request, and the QP's ACKed PSN then. A
    // request naming it again means the resend was refused again (no immediate slot yet)
    // or lost. It is honoured once the fastest round trip has passed (a request sooner
    // was raised before the resend could arrive), and only if the receiver's head has
    // moved since or the PSN is the head itself: otherwise a refused write-with-immediate
    // would meet the same full slots again. Such a request waits in `parked` until an
    // ACK moves the head.
    let mut rs = Resends::default();
    let round_trip_ns = s
        .paths
        .iter()
        .map(|p| (p.delay_ns - p.jitter_ns).max(0.0))
        .fold(f64::INFINITY, f64::min)
        + s.reverse_delay_ns;
    let ns = s.senders as usize;
    let mut cur = vec![0usize; ns];
    let mut next_send_ns = vec![0.0f64; ns];
    // Credits: one sender model per host, one receiver model; requests and grants
    // travel with the reverse delay.
    let rate = if s.credit_rate_gbps > 0.0 {
        s.credit_rate_gbps
    } else {
        s.paths.iter().map(|p| p.rate_gbps).sum()
    };
    let grant_every_ns = s.credit_batch_bytes as f64 * 8.0 / rate;
    let mut next_grant_ns = 0.0;
    let mut cs: Vec<SenderModel> = (0..ns)
        .map(|_| SenderModel::new(Rule::Eq2, s.credit_batch_bytes, s.credit_bdp_bytes))
        .collect();
    let mut cr = ReceiverModel::default();
    let mut to_rx: VecDeque<(f64, u32, Option<bool>)> = VecDeque::new();
    let mut to_tx: VecDeque<(f64, u32, Option<bool>)> = VecDeque::new();
    let mut allowance = vec![0u64; nq];
    // Bytes of each QP not yet covered by credit.
    let mut uncovered: Vec<u64> = tr
        .per_qp
        .iter()
        .map(|v| v.iter().map(|p| p.p.payload.len() as u64).sum())
        .collect();
    let credits = s.credits == Credits::On;
    // Checker state.
    let mut placed: Vec<Vec<bool>> = tr.per_qp.iter().map(|v| vec![false; v.len()]).collect();
    let mut in_order = vec![0u32; nq];
    let mut ooo_now: u64 = 0;
    let mut msg_left: Vec<u32> = tr.msgs.iter().map(|m| m.1 + m.2.is_some() as u32).collect();
    let mut cqe_last: Vec<Option<u32>> = vec![None; nq];
    let mut cqe_seen: BTreeSet<(u32, u32)> = BTreeSet::new();
    let mut placed_count: u64 = 0;
    let mut last_ns = 0.0f64;
    let mut cycle: u64 = 0;
    let mut quiet: u64 = 0;
    let limit = stop_at.unwrap_or(2_000_000 + total_pkts * 20_000);
    let expected_cqes: u64 = tr.msgs.iter().filter(|m| m.2.is_some()).count() as u64;
    while cycle < limit {
        let now = cycle as f64 * period_ns;
        // Replies reach the sender.
        while replies.front().is_some_and(|r| r.0 <= now) {
            let (_, qp, ack, missing) = replies.pop_front().unwrap();
            let q = qp as usize;
            let mut named = missing;
            if let Some(a) = ack {
                // An ACK that does not move the head, generated longer after the head's
                // last send than any forward delay: packets behind the head arrived
                // and it did not. Resend it (TCP's RACK, timed on the head).
                if s.probe_ns > 0.0
                    && a == acked[q]
                    && a < next_psn[q]
                    && now - sent_at[q][a as usize] > s.probe_ns
                {
                    rs.unless_recent((qp, a), a, now, s.probe_ns, Why::LateAck);
                }
                if a > acked[q] && a <= next_psn[q] {
                    acked[q] = a;
                    last_progress[q] = now;
                    // Chasing after a probe: the new head is the next hole.
                    if a < chase_to[q] && now - sent_at[q][a as usize] > s.probe_ns {
                        rs.unless_recent((qp, a), a, now, round_trip_ns, Why::Probe);
                    }
                    // The head moved: the lowest request parked for it is due (the
                    // ones above it would most likely meet the same full slots).
                    rs.parked.retain(|&(pq, pp)| pq != qp || pp >= a);
                    let first = rs.parked.range((qp, a)..=(qp, u32::MAX)).next().copied();
                    if let Some(k) = first {
                        rs.parked.remove(&k);
                        rs.requested.remove(&k);
                        named.push(k.1);
                    }
                }
            }
            for p in named {
                if p < acked[q] || p >= next_psn[q] {
                    continue;
                }
                match rs.requested.get(&(qp, p)) {
                    Some(&(t, _)) if now - t < round_trip_ns => {}
                    Some(&(_, a)) if acked[q] == a && p != acked[q] => {
                        rs.parked.insert((qp, p));
                    }
                    _ => {
                        rs.requested.insert((qp, p), (now, acked[q]));
                        rs.queue.push_back((Why::Asked, qp, p));
                    }
                }
            }
        }
        // Probe, for the two stalls no request will end (the timeout would):
        // - a QP that has stopped sending (all sent, or its window full) and heard
        //   nothing for `probe_ns`: a loss with nothing sent behind it passes neither
        //   threshold. Its head is resent, and after that each ACK that moves the head
        //   short of where the sending stopped names the next hole, resent at once if
        //   it was last sent over `probe_ns` ago;
        // - a head resent on request over `probe_ns` ago that the ACK has not passed:
        //   the resend was lost too, and the receiver names a hole once per head
        //   position.
        for q in 0..nq {
            if s.probe_ns <= 0.0
                || acked[q] >= next_psn[q]
                || now - last_progress[q].max(probed[q]) <= s.probe_ns
            {
                continue;
            }
            let stopped =
                next_psn[q] as usize >= tr.per_qp[q].len() || next_psn[q] >= acked[q] + s.window;
            let key = (q as u32, acked[q]);
            let quiet = stopped && now - last_sent[q] > s.probe_ns;
            let resend_lost = rs
                .requested
                .get(&key)
                .is_some_and(|&(t, _)| now - t > s.probe_ns);
            if !(quiet || resend_lost) {
                continue;
            }
            rep.probes += 1;
            probed[q] = now;
            if quiet {
                chase_to[q] = next_psn[q];
            }
            rs.unless_recent(key, acked[q], now, round_trip_ns, Why::Probe);
        }
        for q in 0..nq {
            if acked[q] < next_psn[q] && now - last_progress[q] > s.rto_ns {
                rep.timeouts += 1;
                rs.queue.push_back((Why::Asked, q as u32, acked[q]));
                last_progress[q] = now;
            }
        }
        // Credit messages.
        if credits {
            while to_rx.front().is_some_and(|m| m.0 <= now) {
                let (_, qp, onoff) = to_rx.pop_front().unwrap();
                match onoff {
                    Some(on) => cr.onoff(qp, on),
                    None => cr.request(qp),
                }
            }
            while to_tx.front().is_some_and(|m| m.0 <= now) {
                let (_, qp, _) = to_tx.pop_front().unwrap();
                if let Some(on) = cs[qp as usize % ns].grant(qp) {
                    to_rx.push_back((now + s.reverse_delay_ns, qp, Some(on)));
                }
                rep.credit_grants += 1;
            }
            if now >= next_grant_ns {
                if let Some(qp) = cr.slot() {
                    to_tx.push_back((now + s.reverse_delay_ns, qp, None));
                }
                next_grant_ns += grant_every_ns;
            }
        }
        // Each sender: resends first, then its QPs round robin within their windows
        // (and their credit).
        for h in 0..ns {
            if now < next_send_ns[h] || !r.tx_ready() {
                continue;
            }
            let mut sent: Option<usize> = None;
            if let Some(i) = rs
                .queue
                .iter()
                .position(|&(_, qp, _)| qp as usize % ns == h)
            {
                let (why, qp, psn) = rs.queue.remove(i).unwrap();
                if psn >= acked[qp as usize] {
                    sent_at[qp as usize][psn as usize] = now;
                    if why != Why::Asked {
                        rep.probe_resent_packets += 1;
                    }
                    if why == Why::LateAck {
                        rep.late_ack_resends += 1;
                    }
                    let mut p = tr.per_qp[qp as usize][psn as usize].p.clone();
                    p.ack_req = true;
                    r.tx_push(&p);
                    rep.retransmitted_packets += 1;
                    sent = Some(p.payload.len());
                }
            }
            if sent.is_none() {
                let mine = (nq + ns - 1 - h) / ns;
                for _ in 0..mine {
                    let q = h + ns * cur[h];
                    cur[h] = (cur[h] + 1) % mine;
                    if (next_psn[q] as usize) >= tr.per_qp[q].len()
                        || next_psn[q] >= acked[q] + s.window
                    {
                        continue;
                    }
                    let len = tr.per_qp[q][next_psn[q] as usize].p.payload.len() as u64;
                    if credits && allowance[q] < len {
                        let d = cs[h].send(q as u32, uncovered[q]);
                        allowance[q] += d.bytes;
                        uncovered[q] -= d.bytes;
                        if d.request {
                            rep.credit_requests += 1;
                            to_rx.push_back((now + s.reverse_delay_ns, q as u32, None));
                        }
                        if let Some(on) = d.onoff {
                            to_rx.push_back((now + s.reverse_delay_ns, q as u32, Some(on)));
                        }
                        if allowance[q] < len {
                            continue;
                        }
                    }
                    if credits {
                        allowance[q] -= len;
                    }
                    if next_psn[q] == acked[q] {
                        last_progress[q] = now;
                    }
                    last_sent[q] = now;
                    sent_at[q][next_psn[q] as usize] = now;
                    let p = &tr.per_qp[q][next_psn[q] as usize].p;
                    r.tx_push(p);
                    next_psn[q] += 1;
                    sent = Some(p.payload.len());
                    break;
                }
            }
            if let Some(n) = sent {
                if s.injection_gbps > 0.0 {
                    next_send_ns[h] = now + (n + 124 + 50) as f64 * 8.0 / s.injection_gbps;
                }
            }
        }
        let arrived: Vec<Vec<u8>> = fabric.poll(now).into_iter().map(|(_, f)| f).collect();
        let out = r.step(now, &mut fabric, arrived);
        // The checker.
        for (qp, va, rkey, payload) in out.placed {
            let Some(&psn) = by_va.get(&(qp, va)) else {
                rep.misplaced += 1;
                continue;
            };
            let pk = &tr.per_qp[qp as usize][psn as usize];
            if pk.p.payload != payload || pk.p.rkey != rkey {
                rep.misplaced += 1;
                continue;
            }
            let q = qp as usize;
            if placed[q][psn as usize] {
                rep.placed_twice += 1;
                continue;
            }
            placed[q][psn as usize] = true;
            rep.peak_span_psns = rep
                .peak_span_psns
                .max(u64::from(psn) + 1 - u64::from(in_order[q]));
            placed_count += 1;
            last_ns = now;
            ooo_now += 1;
            while (in_order[q] as usize) < placed[q].len() && placed[q][in_order[q] as usize] {
                in_order[q] += 1;
                ooo_now -= 1;
            }
            rep.peak_ooo_packets = rep.peak_ooo_packets.max(ooo_now);
            let m = pk.msg as usize;
            msg_left[m] -= 1;
            if msg_left[m] == 0 {
                rep.messages_completed += 1;
            }
        }
        for (qp, psn, imm) in out.cqes {
            rep.cqes += 1;
            last_ns = now;
            let q = qp as usize;
            let pk = tr.per_qp.get(q).and_then(|v| v.get(psn as usize));
            let Some(pk) = pk.filter(|pk| pk.p.imm == Some(imm)) else {
                rep.cqe_wrong += 1;
                continue;
            };
            if !cqe_seen.insert((qp, psn)) {
                rep.cqe_twice += 1;
                continue;
            }
            if cqe_last[q].is_some_and(|l| l >= psn)
                || !placed[q][..=psn as usize].iter().all(|x| *x)
            {
                rep.cqe_misordered += 1;
            }
            cqe_last[q] = Some(psn);
            let m = pk.msg as usize;
            msg_left[m] -= 1;
            if msg_left[m] == 0 {
                rep.messages_completed += 1;
            }
        }
        for (qp, a) in out.acks {
            replies.push_back((now + s.reverse_delay_ns, qp, Some(a), vec![]));
        }
        for (qp, missing) in out.naks {
            rep.retransmission_requests += 1;
            replies.push_back((now + s.reverse_delay_ns, qp, None, missing));
        }
        cycle += 1;
        // A run that stops making progress ends (and fails its checks) instead of
        // hanging: nothing placed or completed for 20 timeouts.
        if now - last_ns > 20.0 * s.rto_ns + 1e6 {
            break;
        }
        if cycle.is_multiple_of(65_536) {
            progress(rep.messages_completed, s.messages);
        }
        let done = placed_count == total_pkts && cqe_seen.len() as u64 == expected_cqes;
        if done && r.idle() && fabric.in_flight() == 0 {
            quiet += 1;
            // Let late duplicates and stray outputs show themselves.
            if quiet > 2_000 {
                break;
            }
        } else {
            quiet = 0;
        }
    }
    progress(rep.messages_completed, s.messages);
    rep.cycles = cycle;
    rep.last_arrival_us = last_ns / 1000.0;
    rep.throughput_gbps = if last_ns > 0.0 {
        payload_bytes as f64 * 8.0 / last_ns
    } else {
        0.0
    };
    rep.packets_never_placed = total_pkts - placed_count;
    rep.cqes_missing = expected_cqes - cqe_seen.len() as u64;
    let FabricStats {
        lost,
        duplicated,
        queue_drops,
        peak_queue_bytes,
        corrupted,
        ..
    } = fabric.stats.clone();
    rep.fabric_lost = lost;
    rep.fabric_duplicated = duplicated;
    rep.fabric_corrupted = corrupted;
    rep.fabric_queue_drops = queue_drops;
    rep.peak_fabric_queue_bytes = peak_queue_bytes;
    rep.peak_port_backlog_frames = r.peak_port_backlog();
    rep.rx_counters = r.counters();
    (
        rep.port_frames,
        rep.port_marked_bad,
        rep.both_ports_busy_cycles,
    ) = r.port_stats();
    (rep.csr_accesses, rep.csr_slverr, rep.csr_violations) = r.csr_fuzz();
    rep.senders = s.senders;
    rep.credits = credits;
    rep
}
