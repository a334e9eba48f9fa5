use super::*;

fn three() -> (Module, Module, Module) {
    let m = crate::blocks::modules(PrnicConfig::builtin()).unwrap();
    let find = |n: &str| m.iter().find(|x| x.name == n).unwrap().clone();
    (find(TOP), find(STREAM_CDC), find(CSR_CDC))
}

/// The constraints (output.rs) name each FIFO's cells by path: the pointer
/// registers `wgray`/`rgray` (`gray_ff` with `gray`), the synchronizers' `sync_ff`
/// with `stage1`, the memory `ram` (`mem`) and `rdata` (`q`). Those names must be in
/// the Verilog.
#[test]
fn the_cells_the_crossing_constraints_name_are_in_the_verilog() {
    let (top, streams, csr) = three();
    let t = two_clock_top(&top, &streams, &csr).unwrap();
    for f in &t.fifos {
        let (inst, path) = f.split_once('/').unwrap();
        let m = if inst == "streams" { &streams } else { &csr };
        let module = |leaf: &str| {
            let name = format!("{}${}${leaf}", m.name, path.replace('/', "$"));
            let start = m
                .verilog
                .find(&format!("module {name}("))
                .unwrap_or_else(|| panic!("{f}: no module {name}"));
            let end = start + m.verilog[start..].find("endmodule").unwrap();
            m.verilog[start..end].to_string()
        };
        assert!(module("rdata").contains("q <= d;"), "{f}/rdata");
        for leaf in ["wgray", "rgray"] {
            assert!(module(leaf).contains(" gray_ff("), "{f}/{leaf}");
            let core = format!("{}_{}_{leaf}", m.name, path.replace('/', "_"));
            let body = &m.verilog[m.verilog.find(&format!("module {core}(")).unwrap()..];
            assert!(body.contains("reg [") && body.contains(" gray "), "{core}");
        }
        assert!(module("ram").contains(" mem ["), "{f}/ram");
        for leaf in ["wsync", "rsync"] {
            let wrapper = module(leaf);
            assert!(wrapper.contains(" sync_ff("), "{f}/{leaf}");
            let core = format!("{}_{}_{leaf}", m.name, path.replace('/', "_"));
            let body = &m.verilog[m.verilog.find(&format!("module {core}(")).unwrap()..];
            assert!(
                body.contains("reg [") && body.contains(" stage1 "),
                "{core}"
            );
        }
    }
}

#[test]
fn every_port_is_connected_once_on_the_right_clock() {
    let (top, streams, csr) = three();
    let t = two_clock_top(&top, &streams, &csr).unwrap();
    let conn = |inst: &str, port: &str| {
        let i = t.instances.iter().find(|i| i.name == inst).unwrap();
        i.conns.iter().find(|(p, _)| p == port).unwrap().1.clone()
    };
    assert_eq!(conn("core", "clk"), "clk_mac");
    assert_eq!(conn("streams", "clk_mac"), "clk_mac");
    assert_eq!(conn("streams", "clk_host"), "clk_host");
    assert_eq!(conn("csr", "clk_m"), "clk_mac");
    assert_eq!(conn("csr", "clk_s"), "clk_host");
    // The core's host streams and CSR port reach the top only through the crossings.
    assert_eq!(conn("core", "s_axis_tx_tdata"), "core_s_axis_tx_tdata");
    assert_eq!(
        conn("streams", "m_axis_core_tx_tdata"),
        "core_s_axis_tx_tdata"
    );
    assert_eq!(conn("streams", "s_axis_tx_tdata"), "s_axis_tx_tdata");
    assert_eq!(conn("core", "m_axis_cqe_tready"), "core_m_axis_cqe_tready");
    assert_eq!(conn("csr", "m_axil_rdata"), "core_s_axil_rdata");
    assert_eq!(conn("csr", "s_axil_rdata"), "s_axil_rdata");
    // The constraints name every asynchronous FIFO by its path.
    assert_eq!(
        t.fifos,
        [
            "streams/ack",
            "streams/place",
            "streams/tx",
            "csr/req",
            "csr/rsp"
        ]
    );
    for (name, d) in [
        ("s_axis_tx_tdata", Domain::Host),
        ("m_axis_place_tuser", Domain::Host),
        ("m_axis_ack_tready", Domain::Host),
        ("s_axil_awaddr", Domain::Host),
        ("s_axis_port1_rx_tuser", Domain::Mac),
        ("m_axis_port0_tx_tready", Domain::Mac),
        ("s_credit_send_valid", Domain::Mac),
        ("s_pcie_depth", Domain::Mac),
        ("id_build_hash", Domain::Static),
        ("rst", Domain::Async),
        ("clk_host", Domain::Clock),
    ] {
        assert_eq!(t.domain(name), Some(d), "{name}");
    }
    // Each core port once, and the top has every port of the core but its clock and
    // the streams it hands to the crossings, plus the two clocks.
    let core_own = top
        .ports
        .iter()
        .filter(|p| conn("core", &p.name) == p.name)
        .count();
    let host = t.ports.iter().filter(|(_, d)| *d == Domain::Host).count();
    assert_eq!(t.ports.len(), core_own + host + 2);
}

#[test]
fn a_port_left_over_or_a_width_that_differs_is_refused() {
    let (top, streams, csr) = three();
    let mut s = streams.clone();
    s.ports.retain(|p| p.name != "m_axis_core_tx_tlast");
    let e = two_clock_top(&top, &s, &csr).unwrap_err().0;
    assert!(e.contains("s_axis_tx_tlast"), "{e}");
    let mut s = streams.clone();
    s.ports
        .iter_mut()
        .find(|p| p.name == "s_axis_core_place_tuser")
        .unwrap()
        .bits -= 1;
    let e = two_clock_top(&top, &s, &csr).unwrap_err().0;
    assert!(e.contains("core_m_axis_place_tuser"), "{e}");
    let mut c = csr.clone();
    c.ports.push(Port {
        name: "m_axil_extra".into(),
        dir: Dir::Output,
        bits: 1,
    });
    let e = two_clock_top(&top, &streams, &c).unwrap_err().0;
    assert!(e.contains("m_axil_extra"), "{e}");
}
