//! `docs/testplan.md` maps every requirement and fault model to the tests that cover it.
//! This checks the map against the tree: every test it names exists, every integration
//! test is named, and every testpoint lists a test.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Test references in the plan: `` `path/to/file.rs::function` ``.
fn references(plan: &str) -> Vec<(String, String)> {
    let mut refs = vec![];
    for chunk in plan.split('`').skip(1).step_by(2) {
        if let Some((file, func)) = chunk.split_once("::") {
            if file.ends_with(".rs")
                && !func.is_empty()
                && func.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                refs.push((file.to_string(), func.to_string()));
            }
        }
    }
    refs
}

/// The test functions of a source file: a `fn` after `#[test]` and only attributes,
/// doc comments or blank lines between them.
fn test_functions(src: &str) -> Vec<String> {
    let mut out = vec![];
    let mut after_test = false;
    for line in src.lines() {
        let t = line.trim();
        if t.starts_with("#[test]") {
            after_test = true;
            continue;
        }
        if !after_test {
            continue;
        }
        if t.is_empty() || t.starts_with("#[") || t.starts_with("//") {
            continue;
        }
        if let Some(rest) = t
            .strip_prefix("fn ")
            .or_else(|| t.strip_prefix("async fn "))
        {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            out.push(name);
        }
        after_test = false;
    }
    out
}

/// What is wrong with `plan` against the files under `root`; empty when it is right.
/// Every `.rs` file under `dir`, sorted: a test binary may be one file or a folder of
/// modules (`tests/<name>/main.rs`).
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            out.extend(rust_files(&p));
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
    out
}

fn problems(plan: &str, root: &Path, integration_dirs: &[&str]) -> Vec<String> {
    let mut found = vec![];
    let refs = references(plan);
    let mut listed = BTreeSet::new();
    for (file, func) in &refs {
        match fs::read_to_string(root.join(file)) {
            Err(_) => found.push(format!("{file}::{func}: no such file")),
            Ok(src) => {
                if !test_functions(&src).contains(func) {
                    found.push(format!("{file}::{func}: no such test in the file"));
                }
            }
        }
        listed.insert(format!("{file}::{func}"));
    }
    for dir in integration_dirs {
        for path in rust_files(&root.join(dir)) {
            let name = path
                .strip_prefix(root.join(dir))
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let src = fs::read_to_string(&path).unwrap_or_default();
            for func in test_functions(&src) {
                let r = format!("{dir}/{name}::{func}");
                if !listed.contains(&r) {
                    found.push(format!("{r}: a test the plan does not list"));
                }
            }
        }
    }
    // Each testpoint (a `### ` heading) lists at least one test before the next heading.
    let mut point: Option<(&str, usize)> = None;
    for line in plan.lines().chain(std::iter::once("## end")) {
        if line.starts_with('#') {
            if let Some((title, 0)) = point {
                found.push(format!("testpoint without a test: {title}"));
            }
            point = line.strip_prefix("### ").map(|t| (t, 0));
        } else if let Some((_, n)) = point.as_mut() {
            *n += references(line).len();
        }
    }
    found
}

#[test]
fn every_listed_test_exists_and_every_integration_test_is_listed() {
    let plan = fs::read_to_string(root().join("docs/testplan.md")).expect("docs/testplan.md");
    let refs = references(&plan);
    assert!(
        refs.len() > 150,
        "only {} test references parsed",
        refs.len()
    );
    let found = problems(&plan, &root(), &["testbenches/tests", "gen/tests"]);
    assert!(
        found.is_empty(),
        "docs/testplan.md disagrees with the tree:\n{}",
        found.join("\n")
    );

    // The check itself fails on each kind of mistake.
    let bad = format!(
        "{plan}\n### BROKEN-A: a test that is gone\n- `gen/tests/cli.rs::no_such_test`\n\
         ### BROKEN-B: a testpoint with no test\nnothing here\n"
    );
    let found = problems(&bad, &root(), &["gen/tests"]);
    assert!(
        found.iter().any(|p| p.contains("no_such_test")),
        "{found:?}"
    );
    assert!(found.iter().any(|p| p.contains("BROKEN-B")), "{found:?}");
    let without_one = plan.replace(
        "`gen/tests/cli.rs::bad_input_exits_2_with_one_line_and_leaves_output_untouched`",
        "",
    );
    let found = problems(&without_one, &root(), &["gen/tests"]);
    assert!(
        found
            .iter()
            .any(|p| p.contains("bad_input_exits_2") && p.contains("does not list")),
        "{found:?}"
    );
}
