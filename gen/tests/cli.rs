//! `prnic` as a user runs it: exit status, one-line errors, atomic and reproducible output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn prnic(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_prnic"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn tmp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("prnic-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every file under `dir` with its contents, sorted.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut v = vec![];
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd {
            let p = e.unwrap().path();
            if p.is_dir() {
                v.extend(snapshot(&p));
            } else {
                v.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    v.sort();
    v
}

fn stderr_line(o: &Output) -> String {
    let s = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(
        s.trim_end().lines().count(),
        1,
        "expected one line, got:\n{s}"
    );
    s
}

#[test]
fn generate_writes_verilog_manifest_report_and_is_reproducible() {
    let d = tmp("gen");
    let o = prnic(&["generate", "--out", "a"], &d);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in [
        "verilog/sprayer.v",
        "manifest.json",
        "report.md",
        "constraints/prnic.xdc",
        "constraints/prnic.sdc",
    ] {
        assert!(d.join("a").join(f).is_file(), "{f} missing");
    }
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("a/manifest.json")).unwrap()).unwrap();
    let spr = m["modules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "sprayer")
        .expect("sprayer in manifest");
    let ports = &spr["ports"];
    assert!(ports
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["name"] == "s_req_flow" && p["bits"] == 48 && p["dir"] == "input"));
    assert_eq!(m["config_hash"].as_str().unwrap().len(), 16);
    // Same config, byte-identical output, also when the folder is regenerated in place.
    assert!(prnic(&["generate", "--out", "b"], &d).status.success());
    assert!(prnic(&["generate", "--out", "a"], &d).status.success());
    let strip = |v: Vec<(PathBuf, Vec<u8>)>, root: &str| -> Vec<(PathBuf, Vec<u8>)> {
        v.into_iter()
            .map(|(p, b)| (p.strip_prefix(d.join(root)).unwrap().to_path_buf(), b))
            .collect()
    };
    assert_eq!(
        strip(snapshot(&d.join("a")), "a"),
        strip(snapshot(&d.join("b")), "b")
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_input_exits_2_with_one_line_and_leaves_output_untouched() {
    let d = tmp("bad");
    assert!(prnic(&["generate", "--out", "out"], &d).status.success());
    let before = snapshot(&d);
    let cases: &[(&str, &str, &str)] = &[
        ("ways.toml", "[flow_table]\nways = 3\n", "flow_table.ways"),
        (
            "stash.toml",
            "[flow_table]\nstash = 100\n",
            "flow_table.stash",
        ),
        (
            "spw.toml",
            "[flow_table]\nentries = 24000\n",
            "flow_table.entries",
        ),
        ("bus.toml", "[axis]\ndata_bits = 256\n", "axis.data_bits"),
        (
            "batch.toml",
            "[credit]\nbatch_bytes = 6000\n",
            "credit.batch_bytes",
        ),
        (
            "unknown.toml",
            "[clock]\nmhz = 300.0\nturbo = true\n",
            "line 3",
        ),
        ("syntax.toml", "[clock]\nmhz = = 3\n", "line 2"),
    ];
    for (name, text, needle) in cases {
        std::fs::write(d.join(name), text).unwrap();
        let o = prnic(&["generate", "--config", name, "--out", "out"], &d);
        assert_eq!(o.status.code(), Some(2), "{name}");
        let line = stderr_line(&o);
        assert!(line.contains(needle), "{name}: {line}");
        std::fs::remove_file(d.join(name)).unwrap();
    }
    let o = prnic(
        &["generate", "--config", "missing.toml", "--out", "out"],
        &d,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr_line(&o).contains("missing.toml"));
    assert_eq!(
        snapshot(&d),
        before,
        "a failed run changed the output folder"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn refuses_to_replace_a_folder_it_did_not_write() {
    let d = tmp("foreign");
    std::fs::create_dir_all(d.join("src")).unwrap();
    std::fs::write(d.join("src/keep.txt"), b"mine").unwrap();
    let o = prnic(&["generate", "--out", "src"], &d);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr_line(&o).contains("not written by prnic"));
    assert_eq!(std::fs::read(d.join("src/keep.txt")).unwrap(), b"mine");
    // Some other tool's manifest.json does not make a folder prnic's.
    std::fs::write(d.join("src/manifest.json"), b"{\"name\": \"web app\"}").unwrap();
    let o = prnic(&["generate", "--out", "src"], &d);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read(d.join("src/keep.txt")).unwrap(), b"mine");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn config_dump_round_trips_and_help_explains() {
    let d = tmp("dump");
    let o = prnic(&["config", "--dump"], &d);
    assert!(o.status.success());
    std::fs::write(d.join("dumped.toml"), &o.stdout).unwrap();
    let o2 = prnic(&["config", "--dump", "--config", "dumped.toml"], &d);
    assert_eq!(o.stdout, o2.stdout);
    let h = prnic(&["generate", "--help"], &d);
    let help = String::from_utf8_lossy(&h.stdout);
    assert!(
        help.contains("--config") && help.contains("atomically"),
        "{help}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn regmap_prints_each_format_and_matches_generate() {
    let d = tmp("regmap");
    assert!(prnic(&["generate", "--out", "o"], &d).status.success());
    for (fmt, file) in [
        ("md", "regmap.md"),
        ("c", "prnic_regs.h"),
        ("rdl", "prnic_regs.rdl"),
        ("json", "regmap.json"),
        ("rust", "regs.rs"),
    ] {
        let o = prnic(&["regmap", "--format", fmt], &d);
        assert!(o.status.success());
        assert_eq!(
            o.stdout,
            std::fs::read(d.join("o/regmap").join(file)).unwrap(),
            "{fmt}"
        );
    }
    let o = prnic(&["regmap", "--format", "vhdl"], &d);
    assert_eq!(o.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&d);
}
