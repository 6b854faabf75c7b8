//! Re-record a sample of scenarios from the live kernel with `../shared/oracle/linux-oracle`
//! and compare with the recordings. Runs only as root with `ip netns` and the oracle
//! available, and only when the running kernel release equals the recorded one;
//! otherwise it prints why it skipped.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn skip(why: &str) {
    println!("SKIPPED live re-record: {why}");
}

#[test]
fn rerecord_sample_matches_live_kernel() {
    let oracle = repo().join("../shared/oracle/linux-oracle");
    if !oracle.exists() {
        return skip("../shared/oracle/linux-oracle is absent (a clone without ../shared)");
    }
    let uid = Command::new("id").arg("-u").output().ok();
    if uid
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() != "0")
        .unwrap_or(true)
    {
        return skip("not running as root");
    }
    if Command::new("ip")
        .args(["netns", "list"])
        .output()
        .map(|o| !o.status.success())
        .unwrap_or(true)
    {
        return skip("`ip netns` is not available");
    }
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let release = release.trim();
    let sample = [
        "conformance/scenarios/101-links-veth-carrier.scn",
        "conformance/scenarios/163-get4-prefsrc-selection.scn",
        "conformance/scenarios/207-rules-goto-nop.scn",
        "conformance/oracle-examples/01-fast-path-default-rules.scn",
        "conformance/oracle-examples/10-add-errors.scn",
    ];
    let mut compared = 0;
    for s in sample {
        let path = repo().join(s);
        let exp =
            std::fs::read_to_string(format!("{}.expected", path.display())).expect("recording");
        let header = exp.lines().next().unwrap_or("");
        let recorded = header.split_whitespace().nth(2).unwrap_or("");
        if recorded != release {
            println!("SKIPPED {s}: recorded on kernel {recorded}, running {release}");
            continue;
        }
        let out = Command::new(&oracle)
            .arg("--check")
            .arg(&path)
            .output()
            .expect("oracle runs");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "live kernel disagrees with {s}:\n{text}"
        );
        compared += 1;
    }
    println!("re-recorded and compared {compared} scenario(s) on kernel {release}");
}
