//! `sprayer` on the Verilator model, checked against the golden model in prnic-verif.
//!
//! A driver puts requests on the ports (with idle cycles), a monitor collects every output
//! with its cycle, and a scoreboard compares them in order with the model and asserts the
//! fixed latency. Every test ends by checking that nothing else came out (drained).

use prnic_gen::blocks::Dir;
use prnic_gen::PrnicConfig;
use prnic_rtl::sprayer::SPRAYER_LATENCY;
use prnic_testbenches::bridge::{Dut, Sprayer, SPRAYER_PORTS};
use prnic_testbenches::sprayer::{stimulus, HdlSprayer, Inputs, Outputs, SprayerSim};
use prnic_verif::sprayer::{Mode, SprayerModel};
use proptest::prelude::*;
use std::collections::VecDeque;

fn cfg() -> &'static PrnicConfig {
    PrnicConfig::builtin()
}

/// One request: the flow id and the idle cycles before it.
#[derive(Debug, Clone)]
struct Req {
    idle_before: u32,
    flow: u64,
}

struct Tb {
    dut: Sprayer,
    inputs: Inputs,
}

impl Tb {
    fn new(mode: Mode, min: u16, max: u16) -> Self {
        let mut tb = Tb {
            dut: Sprayer::new(),
            inputs: Inputs {
                mode: mode as u8,
                port_min: min,
                port_max: max,
                ..Default::default()
            },
        };
        tb.reset();
        tb
    }

    /// Two cycles of synchronous reset, then idle.
    fn reset(&mut self) {
        self.inputs.rst = true;
        self.inputs.req_valid = false;
        for _ in 0..2 {
            self.dut.clock(&self.inputs);
        }
        self.inputs.rst = false;
    }

    /// Drive `reqs`, then `drain` idle cycles; returns (request cycles, outputs with cycles).
    fn run(&mut self, reqs: &[Req], drain: u32) -> (Vec<u64>, Vec<(u64, Outputs)>) {
        let mut sent = vec![];
        let mut seen = vec![];
        let tick = |tb: &mut Tb, valid: bool, flow: u64, seen: &mut Vec<(u64, Outputs)>| {
            tb.inputs.req_valid = valid;
            tb.inputs.flow = flow;
            let c = tb.dut.cycle();
            let o = tb.dut.clock(&tb.inputs);
            if o.port_valid {
                seen.push((c + 1, o));
            }
            c
        };
        for r in reqs {
            for _ in 0..r.idle_before {
                tick(self, false, 0, &mut seen);
            }
            sent.push(tick(self, true, r.flow, &mut seen));
        }
        for _ in 0..drain {
            tick(self, false, 0, &mut seen);
        }
        (sent, seen)
    }
}

/// Scoreboard: every request answered once, in order, after exactly the block latency,
/// with the model's port; nothing else comes out.
fn check(mode: Mode, min: u16, max: u16, reqs: &[Req], sent: &[u64], seen: &[(u64, Outputs)]) {
    let mut model = SprayerModel::new(cfg().sprayer.hash_seed);
    let mut expected: VecDeque<(u64, u16)> = reqs
        .iter()
        .zip(sent)
        .map(|(r, &c)| {
            (
                c + SPRAYER_LATENCY as u64,
                model.port(mode, min, max, r.flow),
            )
        })
        .collect();
    for (cycle, o) in seen {
        let (want_cycle, want_port) = expected
            .pop_front()
            .unwrap_or_else(|| panic!("unexpected output at cycle {cycle}: {o:?}"));
        assert_eq!(
            *cycle, want_cycle,
            "latency: output at cycle {cycle}, expected {want_cycle}"
        );
        assert_eq!(
            o.port, want_port,
            "port at cycle {cycle} ({mode:?}, {min}..={max})"
        );
        assert_eq!(o.cfg_error, min > max);
    }
    assert!(
        expected.is_empty(),
        "{} requests never answered",
        expected.len()
    );
}

fn back_to_back(flows: impl IntoIterator<Item = u64>) -> Vec<Req> {
    flows
        .into_iter()
        .map(|flow| Req {
            idle_before: 0,
            flow,
        })
        .collect()
}

#[test]
fn bindings_match_the_manifest_ports() {
    let all = prnic_gen::blocks::modules(cfg()).unwrap();
    let m = all.iter().find(|m| m.name == Sprayer::MODULE).unwrap();
    assert_eq!(m.name, Sprayer::MODULE);
    let want: Vec<(String, bool, usize)> = m
        .ports
        .iter()
        .map(|p| (p.name.clone(), p.dir == Dir::Input, p.bits))
        .collect();
    let got: Vec<(String, bool, usize)> = SPRAYER_PORTS
        .iter()
        .map(|(n, i, b)| (n.to_string(), *i, *b))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn per_packet_walks_the_range_and_wraps() {
    let (min, max) = (1000, 1004);
    let mut tb = Tb::new(Mode::PerPacket, min, max);
    let reqs = back_to_back(0..12);
    let (sent, seen) = tb.run(&reqs, 8);
    // Directed expectation, independent of the model: 1000..=1004, wrapping.
    let ports: Vec<u16> = seen.iter().map(|(_, o)| o.port).collect();
    let want: Vec<u16> = (0..12).map(|i| min + (i % 5) as u16).collect();
    assert_eq!(ports, want);
    check(Mode::PerPacket, min, max, &reqs, &sent, &seen);
}

#[test]
fn consecutive_packets_of_one_qp_get_different_ports() {
    let c = &cfg().sprayer;
    let mut tb = Tb::new(Mode::PerPacket, c.port_min as u16, c.port_max as u16);
    let (_, seen) = tb.run(&back_to_back(std::iter::repeat_n(42, 1000)), 4);
    assert_eq!(seen.len(), 1000);
    assert!(seen.windows(2).all(|w| w[0].1.port != w[1].1.port));
}

#[test]
fn per_flow_keeps_a_flow_on_one_port() {
    let mut tb = Tb::new(Mode::PerFlow, 49152, 65535);
    let reqs = back_to_back([7, 7, 9, 7, 9, 9, 7]);
    let (sent, seen) = tb.run(&reqs, 4);
    assert_eq!(seen[0].1.port, seen[1].1.port);
    assert_eq!(seen[2].1.port, seen[4].1.port);
    check(Mode::PerFlow, 49152, 65535, &reqs, &sent, &seen);
}

#[test]
fn fixed_and_bad_range() {
    let mut tb = Tb::new(Mode::Fixed, 5000, 6000);
    let reqs = back_to_back([1, 2, 3]);
    let (sent, seen) = tb.run(&reqs, 4);
    assert!(seen.iter().all(|(_, o)| o.port == 5000 && !o.cfg_error));
    check(Mode::Fixed, 5000, 6000, &reqs, &sent, &seen);

    // min > max: flagged, and every mode answers min.
    for mode in [Mode::PerPacket, Mode::PerFlow, Mode::Fixed] {
        let mut tb = Tb::new(mode, 7000, 6000);
        let (sent, seen) = tb.run(&reqs, 4);
        assert!(seen.iter().all(|(_, o)| o.port == 7000 && o.cfg_error));
        check(mode, 7000, 6000, &reqs, &sent, &seen);
    }
}

#[test]
fn reset_restarts_the_walk_and_drops_requests_in_flight() {
    let mut tb = Tb::new(Mode::PerPacket, 100, 199);
    let (_, seen) = tb.run(&back_to_back(0..10), 0);
    // Requests still in the pipeline when reset arrives are discarded.
    tb.reset();
    let mut quiet = 0;
    for _ in 0..4 {
        if tb.dut.clock(&tb.inputs).port_valid {
            quiet += 1;
        }
    }
    assert_eq!(quiet, 0, "outputs after reset from requests before it");
    assert!(seen.len() < 10);
    let (_, after) = tb.run(&back_to_back(0..3), 4);
    assert_eq!(
        after.iter().map(|(_, o)| o.port).collect::<Vec<_>>(),
        vec![100, 101, 102]
    );
}

#[test]
fn trace_files_are_written_in_both_formats() {
    let dir = std::env::temp_dir().join(format!("prnic-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for ext in ["fst", "vcd"] {
        let path = dir.join(format!("sprayer.{ext}"));
        {
            let mut d = Sprayer::with_trace(&path, 3103).unwrap();
            let i = Inputs {
                req_valid: true,
                port_min: 1,
                port_max: 9,
                ..Default::default()
            };
            for _ in 0..50 {
                d.clock(&i);
            }
        }
        let bytes = std::fs::read(&path).unwrap();
        assert!(bytes.len() > 100, "{ext} trace is {} bytes", bytes.len());
        if ext == "vcd" {
            let text = String::from_utf8_lossy(&bytes);
            assert!(
                text.contains("m_port_valid") && text.contains("#3103"),
                "VCD lacks ports or ps times"
            );
        }
    }
    assert!(Sprayer::with_trace(&dir.join("x.txt"), 3103).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}

fn mode_strategy() -> impl Strategy<Value = Mode> {
    prop_oneof![
        Just(Mode::PerPacket),
        Just(Mode::PerFlow),
        Just(Mode::Fixed)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Random ranges, flows and idle gaps, all modes, against the model.
    #[test]
    fn random_requests_match_the_model(
        mode in mode_strategy(),
        min in 1u16..=65535,
        width in prop_oneof![Just(0u16), 1u16..16, 16u16..20000],
        reqs in prop::collection::vec((prop_oneof![3 => Just(0u32), 1 => 1u32..4], 0u64..(1 << 48)), 1..300),
    ) {
        let max = min.saturating_add(width);
        let reqs: Vec<Req> = reqs.into_iter().map(|(idle_before, flow)| Req { idle_before, flow }).collect();
        let mut tb = Tb::new(mode, min, max);
        let (sent, seen) = tb.run(&reqs, SPRAYER_LATENCY + 4);
        check(mode, min, max, &reqs, &sent, &seen);
    }
}

/// The same stimulus through rust-hdl's simulator and the Verilator model gives identical
/// outputs on every cycle. This is what catches rust-hdl's operator-precedence emission
/// bug (it drops implicit precedence): the two simulate different texts of the same design.
#[test]
fn two_simulators_agree_cycle_by_cycle() {
    let stim = stimulus(0x5eed, 3000);
    let mut vl = Sprayer::new();
    let mut hdl = HdlSprayer::new(cfg().sprayer.hash_seed);
    let mut valid_outputs = 0;
    for (c, i) in stim.iter().enumerate() {
        let a = vl.clock(i);
        let b = hdl.clock(i);
        assert_eq!(a, b, "simulators disagree at cycle {c} with inputs {i:?}");
        valid_outputs += a.port_valid as u32;
    }
    // The run must exercise the block, or agreement means nothing.
    assert!(valid_outputs > 2000, "only {valid_outputs} outputs");
    let _ = vl.cycle();
}
