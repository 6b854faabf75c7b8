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

/// The oracle and the running kernel's release, or why the live tests cannot run.
fn live_oracle() -> Result<(PathBuf, String), &'static str> {
    let oracle = repo().join("../shared/oracle/linux-oracle");
    if !oracle.exists() {
        return Err("../shared/oracle/linux-oracle is absent (a clone without ../shared)");
    }
    let uid = Command::new("id").arg("-u").output().ok();
    if uid
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() != "0")
        .unwrap_or(true)
    {
        return Err("not running as root");
    }
    if Command::new("ip")
        .args(["netns", "list"])
        .output()
        .map(|o| !o.status.success())
        .unwrap_or(true)
    {
        return Err("`ip netns` is not available");
    }
    if !fibkit_iproute::scenario::kernel_netlink_answers(std::time::Duration::from_secs(10)) {
        return Err("the kernel's rtnetlink does not answer (`ip link show lo` hung)");
    }
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    Ok((oracle, release.trim().to_string()))
}

/// The oracle's command, on one CPU when `taskset` is there: fibkit answers as one CPU
/// does where the kernel caches routes per CPU (scenario 467).
fn oracle_command(oracle: &Path) -> Command {
    let pinned = Command::new("taskset")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if pinned {
        let mut c = Command::new("taskset");
        c.args(["-c", "0"]).arg(oracle);
        c
    } else {
        Command::new(oracle)
    }
}

#[test]
fn rerecord_sample_matches_live_kernel() {
    let (oracle, release) = match live_oracle() {
        Ok(x) => x,
        Err(why) => return skip(why),
    };
    let release = release.as_str();
    let sample = [
        "conformance/scenarios/101-links-veth-carrier.scn",
        "conformance/scenarios/163-get4-prefsrc-selection.scn",
        "conformance/scenarios/207-rules-goto-nop.scn",
        "conformance/oracle-examples/01-fast-path-default-rules.scn",
        "conformance/oracle-examples/10-add-errors.scn",
        "conformance/scenarios/255-nexthop-resilient-member-removal.scn",
        "conformance/scenarios/375-macvlan-source-addresses.scn",
        "conformance/scenarios/376-ipv6-multicast-input-route-get-without-mroute.scn",
        "conformance/scenarios/377-multicast-rules-and-routes-without-mroute.scn",
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
        let mut cmd = oracle_command(&oracle);
        if fibkit_iproute::scenario::has_raw(&exp) {
            cmd.arg("--raw");
        }
        // compared as `fib scenario --check` compares (the kernel's own timers, such
        // as a resilient group's idle times, count from when each command ran)
        let out = cmd.arg(&path).output().expect("oracle runs");
        assert!(out.status.success(), "the oracle failed on {s}");
        let live = String::from_utf8_lossy(&out.stdout);
        let diffs = fibkit_iproute::scenario::compare(&exp, &live);
        assert!(
            diffs.is_empty(),
            "live kernel disagrees with {s}: {diffs:?}"
        );
        compared += 1;
    }
    println!("re-recorded and compared {compared} scenario(s) on kernel {release}");
}

/// Random scenarios (`fibkit_iproute::random`) through the live kernel and through
/// fibkit, compared line by line: a few seeds of what `conformance/random-diff.sh` runs
/// by the hundred. Nothing recorded is involved, the live kernel is the reference: it
/// runs where the kernel's version (its release without the local build suffix after
/// `-`) is the one the recordings were made on.
#[test]
fn random_scenarios_match_live_kernel() {
    let (oracle, release) = match live_oracle() {
        Ok(x) => x,
        Err(why) => return skip(why),
    };
    let rec = std::fs::read_to_string(
        repo().join("conformance/oracle-examples/01-fast-path-default-rules.scn.expected"),
    )
    .expect("recording");
    let recorded = rec.split_whitespace().nth(2).unwrap_or("");
    let version = |r: &str| r.split('-').next().unwrap_or("").to_string();
    if version(recorded) != version(&release) {
        return skip(&format!(
            "the recordings model kernel {recorded}, running {release}"
        ));
    }
    let dir = std::env::temp_dir().join(format!("fibkit-random-live-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut failures = Vec::new();
    for seed in [7u64, 42, 1001, 2026, 31337] {
        let text = fibkit_iproute::random::scenario(seed, 40);
        let path = dir.join(format!("seed-{seed}.scn"));
        std::fs::write(&path, &text).expect("scenario written");
        let out = oracle_command(&oracle)
            .arg(&path)
            .output()
            .expect("oracle runs");
        let kernel = String::from_utf8_lossy(&out.stdout);
        let ours = fibkit_iproute::scenario::run_scenario(&text);
        let kernel = fibkit_iproute::scenario::strip_raw(&kernel);
        let diffs = fibkit_iproute::scenario::compare(&kernel, &ours);
        if let Some((line, k, f)) = diffs.first() {
            failures.push(format!(
                "seed {seed}: {} lines differ, first at {line}:\n  kernel: {k}\n  fibkit: {f}",
                diffs.len()
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("5 random scenarios agree with the live kernel {release}");
}
