//! Two RNICs end to end (`prnic_top` twice, programmed through CSR by the DPU model)
//! through a sprayed fabric with jitter, loss and duplication: every payload byte placed
//! at its address exactly once, every CQE exactly once and in order, and the RX counters
//! read over CSR agree. The golden-model backend runs the same scenario.

use prnic_testbenches::e2e::{reset_mid_traffic, run, Backend, FabricReport, Scenario};
use std::path::PathBuf;

fn scenarios() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios")
}

fn load(name: &str) -> Scenario {
    let text = std::fs::read_to_string(scenarios().join(name)).unwrap();
    Scenario::parse(&text).unwrap()
}

#[test]
fn two_verilated_rnics_deliver_every_byte_and_cqe_once_in_order() {
    let mut s = load("two_rnics.toml");
    s.messages = 150;
    let r = run(&s, |_, _| {});
    println!("{}", serde_json::to_string_pretty(&r).unwrap());
    assert!(r.clean(), "{r:?}");
    // The scenario exercised what it claims to.
    assert!(
        r.fabric_lost > 0 && r.fabric_duplicated > 0,
        "no loss or duplication: {r:?}"
    );
    assert!(r.retransmitted_packets > 0 && r.cqes > 0 && r.peak_ooo_packets > 0);
    // RNIC B's own counters, read over CSR, agree with the checker.
    let c = &r.rx_counters;
    assert_eq!(c["cnt_rx_placed"], r.packets);
    assert_eq!(c["cnt_rx_cqes"], r.cqes);
    assert_eq!(
        c["cnt_rx_frames"],
        c["cnt_rx_placed"] + c["cnt_rx_drop_refused"],
        "every frame is placed or refused (none malformed here): {c:?}"
    );
    assert!(c["cnt_rx_reorder_duplicate"] > 0, "{c:?}");
}

/// Every frame RNIC B's MAC ports delivered was taken whole by `rx_decap` or dropped
/// whole by its port FIFO and counted there by reason (read over CSR); no frame was
/// malformed on its way (interleaved or cut frames would be dropped by `rx_decap` as
/// bad keep, truncated, bad length and the like). Returns the port FIFOs' drops
/// `[full, error, long]` per port.
fn whole_frames_only(r: &FabricReport) -> [[u64; 3]; 2] {
    let c = &r.rx_counters;
    let mut drops = [[0; 3]; 2];
    for (p, d) in drops.iter_mut().enumerate() {
        for (i, why) in ["full", "error", "long"].iter().enumerate() {
            d[i] = c[&format!("cnt_rx_port{p}_drop_{why}")];
        }
    }
    let dropped: u64 = drops.iter().flatten().sum();
    assert_eq!(
        r.port_frames[0] + r.port_frames[1],
        c["cnt_rx_frames"] + dropped,
        "frames delivered by the MACs = frames taken by rx_decap + frames the port FIFOs dropped: {c:?}"
    );
    for (k, v) in c {
        if k.starts_with("cnt_rx_drop_") && k != "cnt_rx_drop_refused" {
            assert_eq!(*v, 0, "{k}: a frame was malformed on its way to rx_decap");
        }
    }
    assert_eq!(
        drops[0][2] + drops[1][2],
        0,
        "no frame is longer than the largest"
    );
    drops
}

/// The host side stalls half the cycles (placements back up, CQEs wait behind their data,
/// rx_reorder is held) and both MAC ports pause inside frames. The MACs are never held:
/// when the RX path falls behind, the port FIFOs drop whole frames and count them, and
/// the transport recovers them. Nothing is lost for good, duplicated or reordered.
#[test]
fn host_backpressure_and_port_gaps_lose_only_whole_counted_frames() {
    let mut s = load("two_rnics.toml");
    s.messages = 60;
    s.host_backpressure = 0.5;
    // Both MAC ports pause inside frames too: the arbiter keeps each frame whole.
    s.rx_gaps = 0.3;
    let r = run(&s, |_, _| {});
    assert!(r.clean(), "{r:?}");
    assert_eq!(r.rx_counters["cnt_rx_placed"], r.packets);
    let drops = whole_frames_only(&r);
    println!("port FIFO drops [full, error, long]: {drops:?}");
}

/// Both MAC ports deliver back to back at once, in bursts of 64 frames (32 per port):
/// twice what the one RX path takes, so the port FIFOs must drop. They drop only whole
/// frames and count every one, the MACs are never held, and the transport resends
/// what was dropped.
#[test]
fn both_mac_ports_at_full_rate_lose_only_whole_counted_frames() {
    let mut s = load("two_rnics.toml");
    s.messages = 60;
    s.rx_burst_frames = 64;
    let r = run(&s, |_, _| {});
    assert!(r.clean(), "{r:?}");
    let drops = whole_frames_only(&r);
    println!(
        "both ports busy {} of {} cycles; port FIFO drops [full, error, long]: {drops:?}",
        r.both_ports_busy_cycles, r.cycles
    );
    // Most of each port's beats came while the other port was busy too.
    let beats_per_frame = 9; // 1024-byte payloads plus headers, 128 bytes per beat
    assert!(
        r.both_ports_busy_cycles > (r.port_frames[0] + r.port_frames[1]) * beats_per_frame / 4,
        "the ports were rarely busy together: {r:?}"
    );
    assert!(
        drops[0][0] > 0 && drops[1][0] > 0,
        "a port FIFO never overflowed: {r:?}"
    );
}

/// No silent refusal: a write-with-immediate that finds its QP's two immediate slots
/// full is refused, and `rx_reorder` names its PSN in a request at once, so the sender
/// resends it instead of waiting for the timeout. Every message here is one packet with
/// an immediate, on a lossless fabric with 3 µs of delay spread, so refusals are common;
/// with the share and age requests off, a refusal's request is the only way back short of
/// the 40 µs timeout, and the run must need none.
#[test]
fn a_refused_write_with_immediate_is_requested_at_once_not_by_timeout() {
    let mut s = load("two_rnics.toml");
    s.messages = 200;
    s.qps = 2;
    s.tenants = 1;
    s.imm_share = 1.0;
    (s.message_bytes_min, s.message_bytes_max) = (1, s.packet_bytes);
    s.injection_gbps = 100.0;
    (s.missing_share_pct, s.loss_after) = (100, 0);
    for (i, p) in s.paths.iter_mut().enumerate() {
        (p.loss, p.dup) = (0.0, 0.0);
        (p.delay_ns, p.jitter_ns) = (2000.0 + 500.0 * i as f64, 1500.0);
    }
    let r = run(&s, |_, _| {});
    assert!(r.clean(), "{r:?}");
    let c = &r.rx_counters;
    let refused = c["cnt_rx_reorder_imm_full"];
    println!(
        "refused {refused}, requests {}, resent {}, timeouts {}, last arrival {:.1} us",
        c["cnt_rx_naks"], r.retransmitted_packets, r.timeouts, r.last_arrival_us
    );
    assert!(refused > 0, "no refusal to recover from: {c:?}");
    assert_eq!(
        c["cnt_rx_naks"], refused,
        "one request per refusal, no other: {c:?}"
    );
    assert_eq!(r.timeouts, 0, "{r:?}");
}

/// The sender's probe recovers what no request names, instead of the timeout: a head
/// whose ACK comes back `probe_ns` after its last send without moving it, a head
/// resent on request whose resend was lost too (the receiver names a hole once per head
/// position), and the losses of a QP that has stopped sending (too few packets behind
/// them for either threshold). The same traffic with the probe off waits for the
/// timeout.
#[test]
fn stalled_heads_and_tail_losses_are_probed_not_left_to_the_timeout() {
    let mut s = load("two_rnics.toml");
    s.messages = 150;
    assert!(s.probe_ns > 0.0 && s.probe_ns < s.rto_ns, "{}", s.probe_ns);
    let on = run(&s, |_, _| {});
    let off = run(
        &Scenario {
            probe_ns: 0.0,
            ..s.clone()
        },
        |_, _| {},
    );
    for (name, r) in [("probe", &on), ("no probe", &off)] {
        println!(
            "{name}: {:.1} us, {:.1} Gb/s, {} probes, {} timeouts, {} resent ({} by probes, {} on a late ACK)",
            r.last_arrival_us,
            r.throughput_gbps,
            r.probes,
            r.timeouts,
            r.retransmitted_packets,
            r.probe_resent_packets,
            r.late_ack_resends
        );
        assert!(r.clean(), "{name}: {r:?}");
    }
    assert!(off.timeouts > 0, "nothing for the probe to do: {off:?}");
    assert_eq!(on.timeouts, 0, "{on:?}");
    // Both triggers fired: a quiet QP, and an ACK that came back late without
    // moving the head.
    assert!(on.probes > 0 && on.late_ack_resends > 0, "{on:?}");
    assert!(on.probe_resent_packets >= on.late_ack_resends, "{on:?}");
    assert_eq!(off.probes + off.probe_resent_packets, 0, "{off:?}");
    assert!(
        on.last_arrival_us < off.last_arrival_us,
        "{} us with the probe, {} us without",
        on.last_arrival_us,
        off.last_arrival_us
    );
    // The bound is the traffic's, not the run's.
    assert_eq!(on.rx_bound_gbps, off.rx_bound_gbps);
    assert!(on.throughput_gbps < on.rx_bound_gbps);
}

/// Frames the MAC marks bad (`tuser` at `tlast`, an FCS error) are dropped whole at
/// their port, counted there, and never placed; the transport resends them.
#[test]
fn frames_the_mac_marks_bad_are_dropped_whole_and_counted_per_port() {
    let mut s = load("two_rnics.toml");
    s.messages = 60;
    s.rx_bad_frames = 0.05;
    let r = run(&s, |_, _| {});
    assert!(r.clean(), "{r:?}");
    let drops = whole_frames_only(&r);
    // `p` is the port number, the index of every per-port figure.
    #[allow(clippy::needless_range_loop)]
    for p in 0..2 {
        assert!(r.port_marked_bad[p] > 0, "{r:?}");
        // A bad frame that finds no room is counted as full instead.
        assert!(
            drops[p][1] <= r.port_marked_bad[p]
                && drops[p][1] + drops[p][0] >= r.port_marked_bad[p],
            "port {p}: marked {} dropped {:?}",
            r.port_marked_bad[p],
            drops[p]
        );
    }
}

/// Random AXI4-Lite accesses to RNIC B between beats (reads anywhere, writes to
/// unmapped, read-only and staging registers) while it receives: SLVERR exactly on
/// unmapped and misaligned words, counted, and the traffic is untouched.
/// RNIC B as a NIC shell runs it: the core on the MAC clock (322.27 MHz) and its host
/// side, the placement, CQE and ACK streams and the CSR port, on a 250 MHz DMA clock
/// through the generated crossings (`host_cdc`, `axil_cdc`; three Verilator models in
/// lockstep, `two_clock.rs`). Programmed over the crossed CSR port, with the host
/// stalling a fifth of its edges and random CSR accesses between beats, every byte and
/// CQE arrives once, in order; B's counters, read back through the crossing, agree with
/// the checker, and the MACs lose only whole counted frames.
#[test]
fn the_host_side_on_its_own_clock_delivers_every_byte_and_cqe_once_in_order() {
    let mut s = load("two_rnics.toml");
    s.messages = 100;
    s.host_mhz = 250.0;
    s.host_backpressure = 0.2;
    s.csr_fuzz = 0.005;
    let r = run(&s, |_, _| {});
    println!("{}", serde_json::to_string_pretty(&r).unwrap());
    assert!(r.clean(), "{r:?}");
    assert!(r.retransmitted_packets > 0 && r.cqes > 0 && r.peak_ooo_packets > 0);
    let c = &r.rx_counters;
    assert_eq!(c["cnt_rx_placed"], r.packets);
    assert_eq!(c["cnt_rx_cqes"], r.cqes);
    assert!(r.csr_accesses > 20 && r.csr_slverr > 0, "{r:?}");
    assert_eq!(r.csr_violations, 0);
    assert_eq!(c["cnt_csr_bad_access"], r.csr_slverr, "SLVERRs counted");
    whole_frames_only(&r);
}

#[test]
fn csr_fuzzing_during_rx_traffic_answers_by_the_map_and_disturbs_nothing() {
    let mut s = load("two_rnics.toml");
    s.messages = 60;
    s.csr_fuzz = 0.02;
    let r = run(&s, |_, _| {});
    assert!(r.clean(), "{r:?}");
    assert!(r.csr_accesses > 200 && r.csr_slverr > 20, "{r:?}");
    assert_eq!(r.csr_violations, 0);
    assert_eq!(
        r.rx_counters["cnt_csr_bad_access"], r.csr_slverr,
        "SLVERRs counted"
    );
    assert_eq!(r.rx_counters["cnt_rx_placed"], r.packets);
}

#[test]
fn the_golden_model_backend_runs_the_same_scenario() {
    let mut s = load("two_rnics.toml");
    s.backend = Backend::Model;
    let r = run(&s, |_, _| {});
    assert!(r.clean(), "{r:?}");
    assert_eq!(r.messages_completed, s.messages);
}

/// What-if beyond the hardware: the model backend takes a receive window of up to
/// 65,536 PSNs and reports the widest one the fabric needed (`peak_span_psns`); on the
/// same traffic the hardware's window bounds what the sender keeps in flight, and the
/// rtl backend refuses a window rx_reorder cannot hold, naming the field and its limit.
#[test]
fn a_model_window_beyond_the_hardware_shows_what_the_fabric_needs() {
    use prnic_testbenches::e2e::MODEL_MAX_WINDOW;
    let hw = prnic_gen::PrnicConfig::builtin().reorder.window_bits;
    let wide = load("whatif_window.toml");
    assert_eq!(wide.window, MODEL_MAX_WINDOW);
    let r = run(&wide, |_, _| {});
    println!(
        "window {}: {}",
        wide.window,
        serde_json::to_string(&r).unwrap()
    );
    assert!(r.clean(), "{r:?}");
    assert_eq!(r.timeouts, 0, "{r:?}");
    // This fabric needs more window than the hardware has...
    assert!(
        r.peak_span_psns > u64::from(hw),
        "the fabric needed only {} PSNs",
        r.peak_span_psns
    );
    assert!(r.peak_ooo_packets > 0 && r.peak_span_psns <= u64::from(wide.window));

    // ...so at the hardware's window the sender waits on it, and delivers less (the
    // out-of-order threshold as high as the window allows, so that no spurious resend
    // takes a share of the difference).
    let narrow = Scenario {
        window: hw,
        ooo_threshold: hw - 1,
        ..wide.clone()
    };
    narrow.check().unwrap();
    let n = run(&narrow, |_, _| {});
    println!(
        "window {}: {}",
        narrow.window,
        serde_json::to_string(&n).unwrap()
    );
    assert!(n.clean(), "{n:?}");
    assert!(
        n.peak_span_psns <= u64::from(hw),
        "the sender left the window: {} PSNs",
        n.peak_span_psns
    );
    assert!(
        n.throughput_gbps < r.throughput_gbps,
        "{} Gb/s at window {hw}, {} Gb/s at {}",
        n.throughput_gbps,
        r.throughput_gbps,
        wide.window
    );

    // The limits, one line each, naming the field.
    let rtl = Scenario {
        backend: Backend::Rtl,
        ..wide.clone()
    };
    let e = rtl.check().unwrap_err();
    assert!(
        e.starts_with("window:") && e.contains(&format!("1..={hw}")) && !e.contains('\n'),
        "{e}"
    );
    let beyond = Scenario {
        window: MODEL_MAX_WINDOW + 1,
        ..wide.clone()
    };
    let e = beyond.check().unwrap_err();
    assert!(e.starts_with("window:") && e.contains("65536"), "{e}");
}

#[test]
fn every_shipped_scenario_parses_and_runs_on_the_models() {
    let mut n = 0;
    for e in std::fs::read_dir(scenarios()).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            let text = std::fs::read_to_string(&p).unwrap();
            let mut s = Scenario::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            s.backend = Backend::Model;
            s.messages = s.messages.min(200);
            let r = run(&s, |_, _| {});
            assert!(r.clean(), "{}: {r:?}", p.display());
            n += 1;
        }
    }
    assert!(n >= 3, "only {n} scenario files");
}

#[test]
fn scenario_errors_name_the_field() {
    let good = std::fs::read_to_string(scenarios().join("two_rnics.toml")).unwrap();
    for (from, to, field) in [
        ("packet_bytes = 1024", "packet_bytes = 0", "packet_bytes"),
        ("window = 256", "window = 300", "window"),
        ("ooo_threshold = 32", "ooo_threshold = 256", "ooo_threshold"),
        ("tenants = 4", "tenants = 9", "tenants"),
        ("loss = 0.004", "loss = 0.7", "paths[0].loss"),
        (
            "dup = 0.002",
            "dup = 0.002\ncorrupt = 0.5",
            "paths[0].corrupt",
        ),
        ("backend = \"rtl\"", "backend = \"fpga\"", "backend"),
        ("seed = 1", "seed = 1\nspeed = 3", "speed"),
        (
            "seed = 1",
            "seed = 1\nrx_burst_frames = 65",
            "rx_burst_frames",
        ),
        ("seed = 1", "seed = 1\nrx_bad_frames = 0.6", "rx_bad_frames"),
        ("seed = 1", "seed = 1\nhost_mhz = 20", "host_mhz"),
        ("probe_ns = 10000", "probe_ns = 40000", "probe_ns"),
        ("probe_ns = 10000", "probe_ns = 5500", "probe_ns"),
        (
            "backend = \"rtl\"",
            "backend = \"model\"\nhost_mhz = 250",
            "host_mhz",
        ),
    ] {
        assert!(good.contains(from), "{from}");
        let e = Scenario::parse(&good.replacen(from, to, 1)).unwrap_err();
        assert!(e.contains(field) && !e.contains('\n'), "{to}: {e}");
    }
}

/// RNIC B is reset with frames in its ports, payload inside `rx_decap` and CQEs queued,
/// while frames keep arriving: it returns to the documented reset state (every tenant
/// VNI and QP disabled, counters zero), places nothing and raises no stale CQE or ACK
/// until software reprograms it, and then carries new traffic cleanly.
#[test]
fn whole_rnic_reset_mid_traffic_recovers_with_nothing_stale() {
    let mut s = load("two_rnics.toml");
    s.messages = 80;
    let r = reset_mid_traffic(&s, 6_000);
    assert_eq!(r.qp_cmd_op0_busy, 0, "QP_CMD with OP = 0 must do nothing");
    assert_ne!(
        r.qp_cmd_op1_busy, 0,
        "QP_CMD with OP = 1 waits for the sweep"
    );
    println!("{}", serde_json::to_string_pretty(&r).unwrap());
    assert!(r.before.packets > r.before.rx_counters.len() as u64);
    assert!(
        r.before.messages_completed < s.messages,
        "the reset came after the traffic: {:?}",
        r.before.messages_completed
    );
    assert!(r.frames_after_reset > 0, "nothing was in flight");
    assert_eq!(
        (r.placed_after_reset, r.cqes_after_reset, r.acks_after_reset),
        (0, 0, 0)
    );
    assert!(r.local_vni_after_reset.iter().all(|v| *v == 0));
    let c = &r.counters_after_reset;
    for (k, v) in c {
        // Only the frames that arrived after the reset count, all dropped: the VNIs
        // are disabled (and a frame cut by the reset arrives headless).
        if k.starts_with("cnt_rx_drop_") || k == "cnt_rx_frames" || k == "cnt_csr_bad_access" {
            continue;
        }
        assert_eq!(*v, 0, "{k} after reset: {c:?}");
    }
    let dropped: u64 = c
        .iter()
        .filter(|(k, _)| k.starts_with("cnt_rx_drop_"))
        .map(|(_, v)| v)
        .sum();
    assert_eq!(c["cnt_rx_frames"], dropped, "{c:?}");
    assert!(c["cnt_rx_drop_unknown_vni"] > 0, "{c:?}");
    assert!(r.after.clean(), "{:?}", r.after);
    assert_eq!(r.after.rx_counters["cnt_rx_placed"], r.after.packets);
}

/// The short CI version of the whole-RNIC soak (`rnic_soak.toml`, every fault at once;
/// `prnic-sim fabric --config testbenches/scenarios/rnic_soak.toml --messages N` runs
/// it long): nothing lost, duplicated or misordered, and no corrupted byte placed.
#[test]
fn rnic_soak_short_every_fault_at_once() {
    let mut s = load("rnic_soak.toml");
    s.messages = 300;
    let r = run(&s, |_, _| {});
    assert!(r.clean(), "{r:?}");
    assert!(r.csr_accesses > 0 && r.fabric_duplicated > 0, "{r:?}");
    // Frames with a changed byte were dropped on the ICRC (and resent), none placed.
    let icrc = r.rx_counters["cnt_rx_drop_bad_icrc"];
    assert!(icrc > 0 && icrc <= r.fabric_corrupted, "{r:?}");
}

/// With its host side on its own clock, RNIC B's trace is three files on one time base:
/// `prnic_top` in the file named, and each crossing, with both clocks, beside it.
#[test]
fn a_two_clock_trace_writes_the_core_and_both_crossings() {
    let dir = std::env::temp_dir().join(format!("prnic-e2e-trace-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut s = load("two_rnics.toml");
    s.messages = 2;
    s.host_mhz = 250.0;
    let trace = dir.join("b.vcd");
    let r = prnic_testbenches::e2e::run_traced(&s, &trace, |_, _| {}).unwrap();
    assert!(r.clean() && r.messages_completed == 2, "{r:?}");
    let top = std::fs::read_to_string(&trace).unwrap();
    assert!(top.contains(" clk $end") && top.contains(" m_axis_cqe_tvalid $end"));
    for (file, clocks) in [
        ("b.host_cdc.vcd", ["clk_host", "clk_mac"]),
        ("b.axil_cdc.vcd", ["clk_s", "clk_m"]),
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        for c in clocks {
            assert!(text.contains(&format!(" {c} $end")), "{file}: no {c}");
        }
    }
    // One time base: the three traces end within a clk_host period of each other.
    let last = |t: &str| -> u64 {
        t.lines()
            .rev()
            .find_map(|l| l.strip_prefix('#').and_then(|n| n.parse().ok()))
            .unwrap()
    };
    let end = last(&top);
    for file in ["b.host_cdc.vcd", "b.axil_cdc.vcd"] {
        let t = last(&std::fs::read_to_string(dir.join(file)).unwrap());
        assert!(
            t.abs_diff(end) <= 4_000,
            "{file} ends at {t} ps, the core at {end}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
