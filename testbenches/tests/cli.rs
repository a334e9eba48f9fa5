//! `prnic-sim` as a user runs it.

use std::process::Command;

#[test]
fn bench_json_reports_both_simulators_and_their_ratio() {
    let o = Command::new(env!("CARGO_BIN_EXE_prnic-sim"))
        .args([
            "bench",
            "--json",
            "--cycles",
            "5000",
            "--hdl-cycles",
            "500",
            "--top-cycles",
            "20000",
            "--top-hdl-cycles",
            "5",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for k in [
        "verilator_cycles_per_s",
        "rust_hdl_cycles_per_s",
        "ratio",
        "verilator_raw_cycles_per_s",
    ] {
        assert!(
            v[k].as_f64().is_some_and(|x| x > 0.0),
            "{k} missing or not positive: {v}"
        );
    }
    assert_eq!(v["verilator_cycles"], 5000);
    assert_eq!(v["rust_hdl_cycles"], 500);
    assert_eq!(v["outputs_agree"], true);
    assert_eq!(v["top"]["block"], "prnic_top");
    assert_eq!(v["top"]["rust_hdl_cycles"], 5);
    assert!(v["top"]["ratio"].as_f64().unwrap() > 1.0, "{v}");
}

#[test]
fn bad_arguments_exit_2() {
    let o = Command::new(env!("CARGO_BIN_EXE_prnic-sim"))
        .args(["bench", "--cycles", "5"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    // A host clock out of range, and one for the model backend, each named in one line.
    let scenario = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/rnic_soak.toml");
    for (extra, field) in [
        (&["--host-mhz", "5"][..], "host_mhz"),
        (&["--host-mhz", "250", "--backend", "model"][..], "host_mhz"),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_prnic-sim"))
            .args(["fabric", "--config", scenario])
            .args(extra)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(field) && err.lines().count() == 1, "{err}");
    }
}

fn sim_json(args: &[&str]) -> serde_json::Value {
    let o = Command::new(env!("CARGO_BIN_EXE_prnic-sim"))
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn table_fill_json_reports_load_factor_and_hardware_agreement() {
    let v = sim_json(&["table-fill", "--json", "--seeds", "11"]);
    assert_eq!(v["entries"], 32800);
    assert_eq!(v["seeds"][0], 11);
    let lf = v["load_factor_at_first_failure"][0].as_f64().unwrap();
    assert!(lf >= 0.97, "load factor {lf}");
    assert!(v["stash_used"][0].as_u64().is_some());
    assert_eq!(v["hardware_hits"], v["keys_inserted"]);
}

#[test]
fn lookup_latency_json_is_within_the_20_ns_budget_at_one_per_cycle() {
    let v = sim_json(&["lookup-latency", "--json", "--lookups", "100000"]);
    let cycles = v["lookup_latency_cycles"].as_u64().unwrap();
    assert_eq!(cycles, prnic_rtl::flow_table::FLOW_TABLE_LATENCY as u64);
    assert!(cycles <= v["budget_cycles"].as_u64().unwrap());
    assert!(v["lookup_latency_ns"].as_f64().unwrap() <= 20.0);
    assert_eq!(v["lookups_per_cycle"].as_f64().unwrap(), 1.0);
    assert_eq!(v["results_in_order"], true);
    assert_eq!(v["clock_mhz"].as_f64().unwrap(), 322.265625);
}

#[test]
fn spray_json_per_packet_loads_every_path_within_5_percent_per_flow_uses_one() {
    let v = sim_json(&["spray", "--json", "--packets", "1000000"]);
    let rows = v.as_array().unwrap();
    assert_eq!(
        rows.len(),
        3 * 2 * 4,
        "3 modes x 2 switch hashes x 4 path counts"
    );
    for r in rows {
        assert_eq!(r["packets"], 1_000_000);
        let paths = r["paths"].as_u64().unwrap();
        assert!([8, 16, 32, 64].contains(&paths));
        match r["mode"].as_str().unwrap() {
            "per-packet" => {
                let m = r["max_over_mean"].as_f64().unwrap();
                assert!(m <= 1.05, "per-packet over {paths} paths: max/mean {m}");
                assert!(r["min_over_mean"].as_f64().unwrap() >= 0.95);
                assert_eq!(r["paths_used"].as_u64().unwrap(), paths);
            }
            "per-flow" | "fixed" => assert_eq!(r["paths_used"], 1, "{r}"),
            m => panic!("unknown mode {m}"),
        }
    }
}

#[test]
fn vpc_update_json_reports_both_modes_and_a_clean_audit() {
    for extra in [&[][..], &["--verilator"][..]] {
        let mut args = vec!["vpc-update", "--json", "--flows", "150"];
        args.extend_from_slice(extra);
        let v = sim_json(&args);
        let rows = v["rows"].as_array().unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0]["mode"], "address-check-per-command");
        assert_eq!(rows[1]["mode"], "state-machine");
        for r in rows {
            assert_eq!(r["audit_clean"], true, "{r}");
            assert!(
                r["accesses"].as_u64().unwrap() >= 150 * 8,
                "at least 8 CSR writes per flow"
            );
            assert!(r["modeled_seconds"].as_f64().unwrap() > 0.0);
        }
        assert!(v["speedup"].as_f64().unwrap() > 1.0);
    }
}

#[test]
fn tx_writes_a_pcap_and_reports_bus_rate() {
    let dir = std::env::temp_dir().join(format!("prnic-tx-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("tx.pcap");
    let v = sim_json(&[
        "tx",
        "--json",
        "--frames",
        "60",
        "--pcap",
        pcap.to_str().unwrap(),
    ]);
    assert_eq!(v["frames_in"], 60);
    assert_eq!(v["model_mismatches"], 0);
    let sent = v["frames_sent"].as_u64().unwrap();
    let dropped: u64 = v["dropped"]
        .as_object()
        .unwrap()
        .values()
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert_eq!(sent + dropped, 60);
    assert!(
        v["dropped"]["miss"].as_u64().unwrap() > 0,
        "the scenario has misses"
    );
    // A classic pcap: 24-byte header, then one 16-byte record header per frame.
    let b = std::fs::read(&pcap).unwrap();
    assert_eq!(&b[..4], &0xa1b2_c3d4u32.to_le_bytes());
    let (mut at, mut n) = (24, 0);
    while at < b.len() {
        at += 16 + u32::from_le_bytes(b[at + 8..at + 12].try_into().unwrap()) as usize;
        n += 1;
    }
    assert_eq!((at, n), (b.len(), sent));
    // Every RoCEv2 frame on the wire carries a valid ICRC (the host's; tx_encap changes
    // only a byte it masks).
    let (mut at, mut roce) = (24, 0);
    while at < b.len() {
        let n = u32::from_le_bytes(b[at + 8..at + 12].try_into().unwrap()) as usize;
        let f = &b[at + 16..at + 16 + n];
        if f[62..64] == [0x08, 0x00] {
            assert!(prnic_verif::icrc::icrc_ok(&f[64..]), "frame at {at}");
            roce += 1;
        }
        at += 16 + n;
    }
    assert!(roce > 0, "{roce} of {sent}");
    let mtu = &v["throughput"][0];
    assert_eq!(mtu["inner_bytes"], 4170);
    assert!(
        mtu["idle_beats_per_frame"].as_f64().unwrap() <= 1.0,
        "{mtu}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn credit_jitter_json_rows_and_plot() {
    let dir = std::env::temp_dir().join(format!("prnic-cj-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("j.svg");
    let v = sim_json(&[
        "credit-jitter",
        "--json",
        "--qps",
        "1,2",
        "--jitter-batches",
        "0,1",
        "--slots",
        "400",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    let rows = v.as_array().unwrap();
    assert_eq!(
        rows.len(),
        2 * 2 * 2 * 2,
        "rules x QPs x jitters x BDP modes"
    );
    for r in rows {
        for k in [
            "rule",
            "jitter_ns",
            "qps",
            "throughput_gbps",
            "line_rate_gbps",
        ] {
            assert!(!r[k].is_null(), "{k} missing: {r}");
        }
        assert_eq!(r["line_rate_gbps"], 400.0);
    }
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.starts_with("<svg") && s.contains("polyline"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn credit_starvation_writes_traces_save_files_and_intervals() {
    let dir = std::env::temp_dir().join(format!("prnic-cs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let vcd = dir.join("starve.vcd");
    let v = sim_json(&[
        "credit-starvation",
        "--json",
        "--fst",
        vcd.to_str().unwrap(),
        "--slots",
        "150",
    ]);
    let runs = v.as_array().unwrap();
    assert_eq!(runs[0]["rule"], "eq1");
    assert_eq!(runs[1]["rule"], "eq2");
    assert!(
        !runs[0]["intervals"].as_array().unwrap().is_empty(),
        "Eq.1 starves with jitter"
    );
    assert!(
        runs[1]["starved_share"].as_f64().unwrap() < runs[0]["starved_share"].as_f64().unwrap()
    );
    // Every signal the save file names is in the trace.
    let trace = std::fs::read_to_string(&vcd).unwrap();
    let gtkw = std::fs::read_to_string(dir.join("starve.gtkw")).unwrap();
    for line in gtkw.lines().filter(|l| l.starts_with("credit_scope.")) {
        let name = line
            .trim_start_matches("credit_scope.")
            .split('[')
            .next()
            .unwrap();
        assert!(
            trace.contains(&format!(" {name} ")),
            "{name} not in the trace"
        );
    }
    // It opens on the longest interval: the primary marker at its start, named markers
    // A, B, ... on the intervals the report lists, longest first, the rest unset; the
    // view starts before the marker.
    let mut ivs: Vec<(u64, u64, u64)> = runs[0]["intervals"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["cycles"].as_u64().unwrap(),
                (i["start_ns"].as_f64().unwrap() * 1000.0).round() as u64,
                i["start_cycle"].as_u64().unwrap(),
            )
        })
        .collect();
    ivs.sort_by_key(|&(c, t, _)| (std::cmp::Reverse(c), t));
    let zoom: Vec<&str> = gtkw
        .lines()
        .find(|l| l.starts_with('*'))
        .expect("a zoom and marker line")
        .split_whitespace()
        .collect();
    assert_eq!(zoom.len(), 2 + 26, "{zoom:?}");
    assert_eq!(zoom[1].parse::<u64>().unwrap(), ivs[0].1, "primary marker");
    for (k, m) in zoom[2..].iter().enumerate() {
        match ivs.get(k).filter(|_| k < 5) {
            Some(&(_, t, _)) => assert_eq!(m.parse::<u64>().unwrap(), t, "marker {k}"),
            None => assert_eq!(*m, "-1", "marker {k}"),
        }
    }
    let start: u64 = gtkw
        .lines()
        .find_map(|l| l.strip_prefix("[timestart] "))
        .unwrap()
        .parse()
        .unwrap();
    assert!(start < ivs[0].1);
    // The text report lists the same intervals in the same order.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_prnic-sim"))
        .args([
            "credit-starvation",
            "--fst",
            vcd.to_str().unwrap(),
            "--slots",
            "150",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    let listed: Vec<u64> = text
        .lines()
        .take_while(|l| !l.starts_with("eq2"))
        .filter_map(|l| {
            l.strip_prefix("  starved from cycle ")?
                .split(' ')
                .next()?
                .parse()
                .ok()
        })
        .collect();
    let expect: Vec<u64> = ivs.iter().take(5).map(|&(_, _, c)| c).collect();
    assert_eq!(listed, expect, "{text}");
    assert!(dir.join("starve-eq2.vcd").exists() && dir.join("starve-eq2.gtkw").exists());
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_prnic-sim"))
        .args([
            "credit-starvation",
            "--fst",
            dir.join("x.txt").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "a trace name that is neither .fst nor .vcd"
    );
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_prnic-sim"))
        .args([
            "credit-starvation",
            "--fst",
            "/nonexistent-dir/x.fst",
            "--slots",
            "20",
        ])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "an unwritable trace path is an error, not a panic"
    );
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.starts_with("prnic-sim: error:") && !e.contains("panicked"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn soak_finds_nothing_lost_duplicated_misordered_or_leaked() {
    let v = sim_json(&["soak", "--json", "--packets", "3000", "--seed", "7"]);
    assert_eq!(v["packets"], 3000);
    for k in [
        "lost",
        "duplicated",
        "misordered",
        "vni_leaks",
        "protocol_violations",
    ] {
        assert_eq!(v[k], 0, "{k}: {v}");
    }
    assert!(
        v["resets"].as_u64().unwrap() > 0,
        "resets mid-traffic were exercised"
    );
    assert!(v["sent"].as_u64().unwrap() > 1000);
    let dropped: u64 = v["dropped"]
        .as_object()
        .unwrap()
        .values()
        .map(|x| x.as_u64().unwrap())
        .sum();
    assert!(dropped > 0, "malformed frames and misses were exercised");
}

#[test]
fn reorder_json_one_header_per_cycle_and_80_bytes_per_qp() {
    let v = sim_json(&["reorder", "--json", "--per-qp", "100"]);
    assert_eq!(v["packets_per_cycle"].as_f64(), Some(1.0), "{v}");
    assert_eq!(v["same_qp_packets_per_cycle"].as_f64(), Some(1.0), "{v}");
    assert!(v["state_bytes_per_qp"].as_u64().unwrap() <= 80);
    assert_eq!(v["qps"].as_u64(), Some(2048));
    assert_eq!(v["window"].as_u64(), Some(256));
    assert_eq!(v["model_mismatches"].as_u64(), Some(0));
}

#[test]
fn retransmit_json_reports_both_rates_and_recovered_losses() {
    let v = sim_json(&["retransmit", "--json", "--packets-per-flow", "64"]);
    for k in [
        "spurious_rate_ooo_only",
        "spurious_rate_dual",
        "spurious_rate_policy",
        "real_losses",
        "real_losses_recovered",
        "round_trip_us",
    ] {
        assert!(v[k].is_number(), "{k} in {v}");
    }
    assert_eq!(v["real_losses"], v["real_losses_recovered"]);
    assert_eq!(v["flows"].as_u64(), Some(127));
    assert_eq!(v["fabric"], "fig12");
    // The policy's age bound is the fabric's reordering: (3.4 + 1.0 + 6.0 - 2.0) us over
    // 81.92 ns per 4 KiB packet at 400 Gb/s, rounded up, plus one.
    assert_eq!(v["reorder_bound_packets"].as_u64(), Some(104));
    assert_eq!(v["policy"]["loss_after"].as_u64(), Some(104));
}

#[test]
fn rx_soak_json_reports_zero_leaks() {
    let v = sim_json(&["rx-soak", "--json", "--packets", "2000", "--seed", "3"]);
    for k in [
        "tenant_leaks",
        "duplicate_placements",
        "misordered_cqes",
        "mismatches",
        "corrupted_placements",
    ] {
        assert_eq!(v[k].as_u64(), Some(0), "{k} in {v}");
    }
    assert_eq!(v["packets"].as_u64(), Some(2000));
    assert!(v["corrupted_frames"].as_u64() > Some(20), "{v}");
    assert!(v["dropped"]["BadIcrc"].as_u64() > Some(0), "{v}");
}

#[test]
fn retransmit_rejects_bad_fabric_options_with_status_2() {
    for (flag, bad) in [
        ("--jitter-ns", "-5"),
        ("--jitter-ns", "nan"),
        ("--jitter-ns", "1e12"),
        ("--jitter-ns", "fast"),
        ("--held-pct", "-1"),
        ("--held-pct", "101"),
        ("--held-pct", "many"),
    ] {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_prnic-sim"))
            .args(["retransmit".to_string(), format!("{flag}={bad}")])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{flag} {bad}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains(flag) && !e.contains("panicked"), "{e}");
    }
    // A fabric that reorders more than the age test can count: one line, status 2.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_prnic-sim"))
        .args(["retransmit", "--held-ns", "30000"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("reorder.loss_after") && e.contains("255"), "{e}");
}

#[test]
fn fabric_incast_json_compares_credits_on_the_same_traffic() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let o = Command::new(env!("CARGO_BIN_EXE_prnic-sim"))
        .args(["fabric", "--json", "--messages", "24", "--config"])
        .arg(format!("{dir}/scenarios/incast.toml"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(o.stderr.is_empty(), "quiet under --json");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for k in ["last_arrival_us", "throughput_gbps"] {
        assert!(v[k].as_f64().is_some_and(|x| x > 0.0), "{k}: {v}");
    }
    assert_eq!(v["messages_completed"], 24);
    assert!(v["peak_ooo_packets"].is_u64());
    assert_eq!(v["credits"], true);
    let w = &v["without_credits"];
    assert_eq!(w["credits"], false);
    assert_eq!(w["messages_completed"], 24);
    // Credits keep the fabric queue shallower than the uncredited incast.
    assert!(
        v["peak_fabric_queue_bytes"].as_u64() < w["peak_fabric_queue_bytes"].as_u64(),
        "{v}"
    );
}

#[test]
fn fabric_rejects_bad_scenario_files_with_status_2() {
    let dir = std::env::temp_dir().join(format!("prnic-cli-fabric-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/two_rnics.toml"
    ))
    .unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, good.replace("messages = 400", "messages = 0")).unwrap();
    for args in [
        vec![
            "fabric".to_string(),
            "--config".into(),
            bad.display().to_string(),
        ],
        vec![
            "fabric".into(),
            "--config".into(),
            "/nonexistent/scenario.toml".into(),
        ],
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_prnic-sim"))
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(e.lines().count(), 1, "one line: {e}");
        assert!(o.stdout.is_empty());
    }
    let e = String::from_utf8_lossy(
        &Command::new(env!("CARGO_BIN_EXE_prnic-sim"))
            .args(["fabric", "--config"])
            .arg(&bad)
            .output()
            .unwrap()
            .stderr,
    )
    .to_string();
    assert!(e.contains("messages"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
