use super::*;

#[test]
fn default_toml_is_complete_and_valid() {
    // Parsing with every section present must not need the section defaults.
    let v: toml::Value = toml::from_str(DEFAULT_TOML).unwrap();
    for s in [
        "clock",
        "axis",
        "ports",
        "flow_table",
        "packet",
        "sprayer",
        "credit",
        "reorder",
    ] {
        assert!(v.get(s).is_some(), "default.toml lacks [{s}]");
    }
    PrnicConfig::builtin().validate().unwrap();
}

#[test]
fn dump_round_trips() {
    let c = PrnicConfig::builtin();
    assert_eq!(&PrnicConfig::from_toml(&c.to_toml()).unwrap(), c);
}

#[test]
fn partial_file_overrides_one_field() {
    let c = PrnicConfig::from_toml("[flow_table]\nstash = 16\n").unwrap();
    assert_eq!(c.flow_table.stash, 16);
    assert_eq!(
        c.flow_table.entries,
        PrnicConfig::builtin().flow_table.entries
    );
}

fn field_of(text: &str) -> String {
    match PrnicConfig::from_toml(text).unwrap_err() {
        ConfigError::Invalid { field, .. } => field,
        e => panic!("expected a validation error, got {e}"),
    }
}

#[test]
fn illegal_values_name_their_field() {
    assert_eq!(field_of("[flow_table]\nways = 3\n"), "flow_table.ways");
    assert_eq!(
        field_of("[flow_table]\nentries = 30000\n"),
        "flow_table.entries"
    );
    assert_eq!(field_of("[flow_table]\nstash = 65\n"), "flow_table.stash");
    assert_eq!(field_of("[axis]\ndata_bits = 64\n"), "axis.data_bits");
    assert_eq!(
        field_of("[credit]\nbatch_bytes = 10000\n"),
        "credit.batch_bytes"
    );
    assert_eq!(
        field_of("[sprayer]\nport_min = 60000\nport_max = 50000\n"),
        "sprayer.port_max"
    );
    assert_eq!(field_of("[clock]\nmhz = 0.0\n"), "clock.mhz");
    assert_eq!(field_of("[clock]\nhost_mhz = 5.0\n"), "clock.host_mhz");
}

#[test]
fn unknown_field_and_syntax_errors_carry_a_line() {
    let e = PrnicConfig::from_toml("[clock]\nmhz = 300.0\nspeed = 1\n").unwrap_err();
    assert!(matches!(e, ConfigError::Parse { line: Some(3), .. }), "{e}");
    assert!(e.to_string().contains("speed"), "{e}");
    let e = PrnicConfig::from_toml("[clock\n").unwrap_err();
    assert!(matches!(e, ConfigError::Parse { line: Some(1), .. }), "{e}");
    assert!(!e.to_string().contains('\n'));
}

#[test]
fn derived_values_match_the_paper() {
    let c = PrnicConfig::builtin();
    assert_eq!(c.slots_per_way(), 8192);
    assert_eq!(c.keep_bits(), 128);
    // 16 KiB at 400 Gb/s = 327.68 ns.
    assert!((c.batch_time_ns() - 327.68).abs() < 1e-9);
    // 20 ns at 322.265625 MHz = 6 whole cycles.
    assert_eq!(c.cycles_within_ns(20.0), 6);
    assert!(c.reorder_state_bytes_per_qp() <= MAX_REORDER_STATE_BYTES);
}
