//! The generated files committed for the default config must match what the generator
//! writes now. Regenerate with `scripts/regen.sh` (PRNIC_BLESS=1 rewrites them).

use prnic_gen::{output, PrnicConfig};
use std::path::{Path, PathBuf};

/// Where each reproducible output lives in the repository.
fn repo_path(rel: &Path) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    if rel == Path::new("regmap/regmap.md") {
        root.join("docs/regmap.md")
    } else if rel == Path::new("regmap/regs.rs") {
        // The constants verif/ uses, generated from the same description.
        root.join("verif/src/regs.rs")
    } else {
        root.join("generated").join(rel)
    }
}

#[test]
fn committed_generated_files_are_fresh() {
    let files = output::reproducible_files(PrnicConfig::builtin()).unwrap();
    let bless = std::env::var_os("PRNIC_BLESS").is_some();
    let mut stale = vec![];
    for (rel, data) in &files {
        let p = repo_path(rel);
        if std::fs::read(&p).ok().as_deref() != Some(data.as_slice()) {
            if bless {
                std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                std::fs::write(&p, data).unwrap();
            } else {
                stale.push(p.display().to_string());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated files (run scripts/regen.sh): {stale:?}"
    );
}
