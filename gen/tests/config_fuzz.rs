//! Config fuzzing: any TOML either gives a valid config whose outputs generate, or a
//! one-line error naming what is wrong — never a panic. Random field values around and
//! outside their ranges, and raw TOML text mangled from the defaults.

use prnic_gen::{config::DEFAULT_TOML, output, ConfigError, PrnicConfig};
use proptest::prelude::*;

/// Generation either works or reports an error; a panic fails the test by itself.
fn check(text: &str) {
    match PrnicConfig::from_toml(text) {
        Ok(cfg) => {
            let files = output::all_files(&cfg).expect("a valid config generates");
            assert!(files.keys().any(|p| p.ends_with("prnic_top.v")));
        }
        Err(e) => {
            let line = e.to_string();
            assert!(!line.contains('\n'), "multi-line error: {line}");
            assert!(!line.is_empty());
            if let ConfigError::Invalid { field, .. } = &e {
                assert!(field.contains('.'), "error must name section.field: {line}");
            }
        }
    }
}

fn field_value() -> impl Strategy<Value = (&'static str, &'static str, String)> {
    let ints = prop_oneof![
        Just(0i64),
        Just(1),
        Just(-1),
        2i64..70000,
        Just(i64::MAX),
        Just(1 << 20),
        prop::sample::select(vec![
            64i64, 128, 256, 512, 1024, 4096, 8192, 16384, 32768, 65536, 262144
        ]),
    ];
    let field = prop::sample::select(vec![
        ("axis", "data_bits"),
        ("ports", "count"),
        ("ports", "rate_gbps"),
        ("flow_table", "entries"),
        ("flow_table", "ways"),
        ("flow_table", "stash"),
        ("flow_table", "key_bits"),
        ("packet", "mtu_bytes"),
        ("packet", "max_frame_bytes"),
        ("sprayer", "port_min"),
        ("sprayer", "port_max"),
        ("credit", "batch_bytes"),
        ("credit", "bdp_bytes"),
        ("reorder", "qps"),
        ("reorder", "window_bits"),
        ("reorder", "ooo_threshold"),
        ("reorder", "missing_share_pct"),
        ("reorder", "loss_after"),
    ]);
    (field, ints).prop_map(|((s, f), v)| (s, f, v.to_string()))
}

proptest! {
    // Each valid case generates every output (about a second in a debug build).
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_values_validate_or_generate(changes in prop::collection::vec(field_value(), 1..4), mhz in prop_oneof![Just(322.265625f64), 1.0f64..1200.0]) {
        let mut text = format!("[clock]\nmhz = {mhz:?}\n");
        for (s, f, v) in changes {
            text.push_str(&format!("[{s}]\n{f} = {v}\n"));
        }
        // Repeated sections are a TOML error: that is one of the outcomes under test.
        check(&text);
    }

}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn mangled_default_toml_never_panics(cuts in prop::collection::vec((0usize..DEFAULT_TOML.len(), 0usize..6, any::<u8>()), 1..5)) {
        let mut b = DEFAULT_TOML.as_bytes().to_vec();
        for (at, len, byte) in cuts {
            let at = at.min(b.len());
            let end = (at + len).min(b.len());
            b.splice(at..end, std::iter::once(byte));
        }
        let text = String::from_utf8_lossy(&b).to_string();
        check(&text);
    }
}

#[test]
fn the_smallest_and_largest_tables_generate() {
    for (entries, stash) in [(256, 0), (256, 64), (262144, 64), (262144, 1)] {
        check(&format!(
            "[flow_table]\nentries = {entries}\nstash = {stash}\n"
        ));
    }
}
