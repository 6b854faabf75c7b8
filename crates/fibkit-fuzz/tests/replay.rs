//! Every input kept for the fuzz targets, run through the target's function on stable
//! Rust: the findings under `fuzz/regressions/TARGET/` (each named after what it found)
//! must stay fixed, and the seeds under `fuzz/seeds/TARGET/` (a sample of the corpus the
//! fuzzer grew, see `fuzz/README.md`) must still run. A panic in any of them fails the
//! test, which names the file.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// The files of `fuzz/seeds/TARGET` and `fuzz/regressions/TARGET`, sorted.
fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut files = Vec::new();
    for dir in ["seeds", "regressions"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir).join(target)) else {
            continue;
        };
        files.extend(rd.filter_map(|e| e.ok()).map(|e| e.path()));
    }
    files.sort();
    files
}

/// Every target's kept inputs; the test names each one that panicked.
#[test]
fn kept_inputs_run_through_their_targets() {
    let mut failed = Vec::new();
    for (target, f) in fibkit_fuzz::TARGETS {
        let files = inputs(target);
        assert!(
            !files.is_empty(),
            "no inputs kept for the fuzz target `{target}`"
        );
        for p in &files {
            let data = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            if catch_unwind(AssertUnwindSafe(|| f(&data))).is_err() {
                failed.push(format!("{target}: {}", p.display()));
            }
        }
    }
    assert!(
        failed.is_empty(),
        "{} kept inputs panicked:\n{}",
        failed.len(),
        failed.join("\n")
    );
}
