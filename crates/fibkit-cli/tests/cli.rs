//! The `fib` binary: batch semantics, exit statuses and iproute2's texts.

use std::io::Write;
use std::process::{Child, Command, Output, Stdio};

/// `cmd` running with its output captured, `stdin` written to its input and closed.
fn spawn_with_input(cmd: &mut Command, stdin: &str) -> Child {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child
}

/// `fib ARGS` running, its input written and closed.
fn spawn_fib(args: &[&str], stdin: &str) -> Child {
    spawn_with_input(Command::new(env!("CARGO_BIN_EXE_fib")).args(args), stdin)
}

fn fib(args: &[&str], stdin: &str) -> Output {
    spawn_fib(args, stdin)
        .wait_with_output()
        .expect("fib finishes")
}

/// Whether the live tests can run: root, with `ip netns` working and the kernel's
/// rtnetlink answering.
fn can_make_namespaces() -> bool {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let ok = root
        && Command::new("ip")
            .args(["netns", "list"])
            .output()
            .is_ok_and(|o| o.status.success());
    // a kernel whose rtnetlink hangs would leave `ip netns add` asleep for good
    ok && fibkit_iproute::scenario::kernel_netlink_answers(std::time::Duration::from_secs(10))
}

/// A private namespace `name` with its loopback up (for the live comparisons).
fn make_netns(name: &str) {
    let ok = Command::new("ip").args(["netns", "add", name]).status();
    assert!(ok.is_ok_and(|s| s.success()), "ip netns add {name}");
    let _ = Command::new("ip")
        .args(["-n", name, "link", "set", "lo", "up"])
        .status();
}

const SETUP: &str = "link add d0 type dummy\nlink set d0 up\naddr add 192.0.2.1/24 dev d0\n";

#[test]
fn batch_applies_commands_in_order() {
    let out = fib(
        &["-batch", "-"],
        &format!("{SETUP}route add default via 192.0.2.254\nroute get 8.8.8.8\n"),
    );
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "8.8.8.8 via 192.0.2.254 dev d0 src 192.0.2.1 uid 0 \n    cache \n"
    );
}

#[test]
fn batch_stops_at_the_first_failure_and_keeps_earlier_commands() {
    let out = fib(
        &["-batch", "-"],
        &format!("{SETUP}route add 10.0.0.0/8 via 203.0.113.1\nroute get 192.0.2.9\n"),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Error: Nexthop has invalid gateway."), "{err}");
    assert!(err.contains("Command failed -:4"), "{err}");
    // the query after the failure did not run
    assert!(out.stdout.is_empty());
}

#[test]
fn force_continues_after_a_failure() {
    let out = fib(
        &["-force", "-batch", "-"],
        &format!("{SETUP}route add 10.0.0.0/8 via 203.0.113.1\nroute get 192.0.2.9\n"),
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "192.0.2.9 dev d0 src 192.0.2.1 uid 0 \n    cache \n"
    );
}

#[test]
fn parse_errors_have_iproute2_text_and_status() {
    let out = fib(&["route", "add", "999.1.1.1/33", "dev", "lo"], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Error: any valid prefix is expected rather than \"999.1.1.1/33\".\n"
    );
    let out = fib(
        &["route", "add", "10.0.0.0/8", "via", "1.2.3.4", "mtu", "abc"],
        "",
    );
    assert_eq!(out.status.code(), Some(255));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("Error: argument \"abc\" is wrong"));
    let out = fib(&["route", "add", "10.0.0.0/8", "dev", "nosuch"], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Cannot find device \"nosuch\"\n"
    );
    let out = fib(&["foo"], "");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn kernel_errors_exit_2() {
    let out = fib(&["-batch", "-"], "route add 10.1.2.3/8 dev lo\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("Error: Invalid prefix for given prefix length."));
    let out = fib(&["route", "add", "10.1.2.3/8", "dev", "lo"], "");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn scenario_check_passes_on_the_demo() {
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/demo.scn");
    let out = fib(&["scenario", "--check", demo], "");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("PASS"));
}

/// The recordings made with the oracle's `--raw` hold, after each answered query, the
/// text `ip route get` printed (plain, `-j`, `-d`, fibmatch): `fib scenario --check`
/// prints the same text for each, line for line, trailing blanks included.
#[test]
fn recorded_ip_text_matches_the_kernel() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/scenarios");
    let mut files = Vec::new();
    let mut raw_lines = 0;
    for e in std::fs::read_dir(&dir).expect("conformance/scenarios") {
        let path = e.expect("entry").path();
        if path.extension().is_none_or(|x| x != "scn") {
            continue;
        }
        let exp =
            std::fs::read_to_string(format!("{}.expected", path.display())).expect("recording");
        let n = exp.lines().filter(|l| l.starts_with("  raw| ")).count();
        if n > 0 {
            raw_lines += n;
            files.push(path.display().to_string());
        }
    }
    assert!(
        files.len() > 90 && raw_lines > 2000,
        "only {} recordings with {raw_lines} lines of ip text",
        files.len()
    );
    let mut args = vec!["scenario", "--check"];
    args.extend(files.iter().map(String::as_str));
    let out = fib(&args, "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let failed: Vec<&str> = stdout.lines().filter(|l| !l.starts_with("PASS ")).collect();
    assert!(
        out.status.success() && failed.is_empty(),
        "ip text differs from the kernel's:\n{}",
        failed.join("\n")
    );
    assert_eq!(stdout.lines().count(), files.len());
}

#[test]
fn a_closed_output_pipe_ends_the_process_quietly() {
    // `fib ... | head -1`: more output than a pipe holds, and the reader leaves after
    // the first bytes; iproute2's `ip` dies of SIGPIPE (status 141 in a shell), and
    // fib must not panic
    use std::io::Read;
    let mut script = String::from("link add d0 type dummy\nlink set d0 up\n");
    for i in 0..6000 {
        script.push_str(&format!(
            "route add 10.{}.{}.0/24 dev d0\n",
            i / 250,
            i % 250
        ));
    }
    script.push_str("route show\n");
    let mut child = spawn_fib(&["-batch", "-"], &script);
    let mut stdout = child.stdout.take().expect("stdout");
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).expect("some output");
    drop(stdout);
    let out = child.wait_with_output().expect("fib finishes");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(141), "{stderr}");
}

/// The benchmarks refuse bad arguments and unreadable tables with a message and status
/// 2 before measuring anything, and never panic on them.
#[test]
fn bench_refuses_bad_arguments_with_a_message() {
    let dir = std::env::temp_dir().join(format!("fib-bench-args-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).expect("write table");
        p.to_string_lossy().into_owned()
    };
    let empty = file("empty.txt", "# nothing\n\n");
    let host_bits = file("host.txt", "10.0.0.0/8\n10.0.0.1/8\n");
    let v4 = file("v4.txt", "10.0.0.0/8\n");
    let stream = file("updates.txt", "A 10.0.0.0/8\nW 10.0.0.0/8\n");
    let missing = dir.join("missing.txt").to_string_lossy().into_owned();
    let svg = dir
        .join("no-such-dir")
        .join("h")
        .to_string_lossy()
        .into_owned();
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["lpm", "--table", &empty],
            format!("no IPv4 prefix to look up in {empty}"),
        ),
        (
            vec!["lpm", "--table", &host_bits],
            format!("{host_bits}: line 2: bits set past the prefix length: \"10.0.0.1/8\""),
        ),
        (
            vec!["lpm", "--family", "6", "--table", &v4],
            format!("{v4}: line 1: not an address of the expected family"),
        ),
        (
            vec!["lpm", "--table", &missing],
            format!("{missing}: read error"),
        ),
        (
            vec!["lpm", "--family", "6", "--routes", "0"],
            "no IPv6 prefix to look up in the first --routes".into(),
        ),
        (
            vec![],
            "Usage: fib bench { kbench | lpm | flood | updates | files }".into(),
        ),
        (vec!["lmp"], "  lpm [--family 4|6] [--table FILE]".into()),
        (vec!["lpm", "--passes", "0"], "bad --passes".into()),
        (vec!["lpm", "--batch", "0"], "bad --batch".into()),
        (
            vec!["lpm", "--family", "5"],
            "bad family \"5\": 4 or 6".into(),
        ),
        (vec!["flood", "--family", "inet"], "bad family".into()),
        (vec!["updates", "--family", "46"], "bad family".into()),
        (
            vec!["updates", "--file", &v4],
            format!("{v4}: line 1: update is not 'A <prefix>' or 'W <prefix>': \"10.0.0.0/8\""),
        ),
        (
            vec!["updates", "--file", &empty],
            format!("{empty}: no update to replay"),
        ),
        (
            vec!["updates", "--limit", "0", "--file", &stream],
            format!("{stream}: no update to replay"),
        ),
        (vec!["files", &v4, &v4, "5"], "bad family \"5\"".into()),
        (
            vec!["files", &v4, &v4, "4", "--rules", "0,x"],
            "bad --rules".into(),
        ),
        (
            vec!["files", &v4, &v4, "4", "--rule", "0"],
            "Usage: fib bench files".into(),
        ),
        (
            vec!["files", &v4, &v4, "4", "--input", "--rules"],
            "Usage: fib bench files".into(),
        ),
        (vec!["flood", "--threads", "0"], "bad --threads".into()),
        (vec!["flood", "--threads", "1,x"], "bad --threads".into()),
        (vec!["flood", "--seconds", "-1"], "bad --seconds".into()),
        (vec!["flood", "--seconds", "NaN"], "bad --seconds".into()),
        (vec!["updates", "--batch", "0"], "bad --batch".into()),
        (
            vec!["kbench", "--clock", "rdtscp"],
            "Usage: fib bench kbench".into(),
        ),
        (
            vec![
                "kbench", "--routes", "100", "--loop", "5", "--quiet", "--svg", &svg,
            ],
            format!("cannot write {svg}.default-rules.svg"),
        ),
    ];
    for (args, want) in cases {
        let mut all = vec!["bench"];
        all.extend(&args);
        let out = fib(&all, "");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&want), "{args:?}: want {want:?} in {err:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `fib bench kbench --clock`: the time-stamp counter read in order with the lookup
/// (the default), or unordered like the module's get_cycles(), or `Instant`; each
/// run's header names the clock and its own cost (where the CPU has a usable TSC).
#[test]
fn kbench_clock_choices_are_labelled() {
    for (clock, label) in [
        (None, "read in order with the lookup"),
        (Some("tsc"), "read in order with the lookup"),
        (Some("tsc-unordered"), "unordered like get_cycles()"),
        (Some("instant"), "clock: Instant)"),
    ] {
        let mut args = vec![
            "bench", "kbench", "--routes", "200", "--warmup", "10", "--loop", "5", "--quiet",
        ];
        if let Some(c) = clock {
            args.extend(["--clock", c]);
        }
        let out = fib(&args, "");
        assert_eq!(out.status.code(), Some(0), "{clock:?}: {out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        let headers: Vec<&str> = text.lines().filter(|l| l.starts_with("## ")).collect();
        assert_eq!(headers.len(), 2, "{clock:?}: {text}");
        for h in headers {
            if h.contains("clock: TSC") {
                assert!(h.contains(label), "{clock:?}: {h}");
                let cost = h
                    .split("empty timed region: median ")
                    .nth(1)
                    .and_then(|r| r.trim_end_matches(')').parse::<u64>().ok());
                assert!(cost.is_some(), "{clock:?}: no clock cost in {h}");
            } else {
                // no invariant TSC here: every choice but `instant` falls back to it
                assert!(h.contains("clock: Instant)"), "{clock:?}: {h}");
            }
        }
    }
}

/// `fib bench kbench --repeat N` alternates N runs of each kind and sums up their
/// medians: the summary lists exactly the runs' own `50th=` figures, sorted, and its
/// middle is the lower of the two middle ones for an even count.
#[test]
fn kbench_repeat_sums_up_the_runs_medians() {
    let args = [
        "bench",
        "kbench",
        "--warmup",
        "10",
        "--loop",
        "20",
        "--max-loop",
        "20000",
        "--start",
        "2400::",
        "--end",
        "2a07::",
        "--repeat",
        "4",
        "--quiet",
    ];
    let out = fib(&args, "");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    for (kind, header) in [
        ("default-rules", "## default-rules "),
        ("one-custom-rule", "## one-custom-rule "),
    ] {
        // each run: its header, then its statistics line
        let lines: Vec<&str> = text.lines().collect();
        let mut medians: Vec<u64> = lines
            .windows(2)
            .filter(|w| w[0].starts_with(header))
            .map(|w| {
                let p50 = w[1].split(' ').find_map(|f| f.strip_prefix("50th="));
                p50.and_then(|v| v.parse().ok()).expect("a 50th= figure")
            })
            .collect();
        assert_eq!(medians.len(), 4, "{kind}: four runs in {text}");
        medians.sort_unstable();
        let want = format!(
            "# {kind}: medians of 4 runs (ns): min {}, middle {}, max {}; sorted: {} {} {} {}",
            medians[0], medians[1], medians[3], medians[0], medians[1], medians[2], medians[3]
        );
        assert!(text.lines().any(|l| l == want), "{want:?} in {text}");
        // each run's chained line replays exactly the hits the run timed
        let chained: Vec<String> = lines
            .windows(3)
            .filter(|w| w[0].starts_with(header))
            .map(|w| {
                let count = w[1].split(' ').find_map(|f| f.strip_prefix("count="));
                let first = w[2]
                    .split("first pass ")
                    .nth(1)
                    .and_then(|r| r.split(' ').next());
                assert!(
                    w[2].starts_with(&format!(
                        "chained: {} hits back to back",
                        count.unwrap_or("?")
                    )),
                    "{kind}: {:?} after {:?}",
                    w[2],
                    w[1]
                );
                let first = first
                    .and_then(|v| v.parse::<f64>().ok())
                    .expect("first pass");
                assert!(first > 0.0, "{kind}: {}", w[2]);
                format!("{first:.1}")
            })
            .collect();
        assert_eq!(chained.len(), 4, "{kind}: {text}");
        let summary = format!("# {kind}: chained first passes of 4 runs (ns/hit): min ");
        let line = text.lines().find(|l| l.starts_with(&summary));
        let listed = line
            .and_then(|l| l.split("sorted: ").nth(1))
            .map(|l| l.split(' ').map(str::to_string).collect::<Vec<_>>());
        let mut sorted = chained.clone();
        sorted.sort_by(|a, b| {
            a.parse::<f64>()
                .unwrap_or(0.0)
                .total_cmp(&b.parse().unwrap_or(0.0))
        });
        assert_eq!(listed, Some(sorted), "{kind}: {text}");
    }
    // a count of runs outside 1..=10000 is refused
    let out = fib(&["bench", "kbench", "--repeat", "0"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad --repeat"));
}

/// `fib bench lpm --input`: forwarded packets arriving on d1 and hairpinned on d0 are
/// all routed (the input lookups answer routes, not errors), for both families.
#[test]
fn lpm_input_lines_forward_every_packet() {
    for family in ["4", "6"] {
        let args = [
            "bench", "lpm", "--family", family, "--routes", "2000", "--passes", "1", "--input",
        ];
        let out = fib(&args, "");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        for (name, iif) in [("forwarded", "iif d1"), ("hairpin", "iif d0")] {
            let line = text
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("{name}:")))
                .unwrap_or_else(|| panic!("a {name} line in {text}"));
            assert!(line.contains(iif), "{line}");
            assert!(line.contains("100.0 % forwarded"), "{line}");
        }
    }
}

/// `fib bench files ... --input`: the forwarded packets' lookups (in on d1, forwarding
/// on) answer routes, with and without custom rules, each count on its own line.
#[test]
fn files_input_times_forwarded_packets() {
    let dir = std::env::temp_dir().join(format!("fib-bench-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let routes = dir.join("routes.txt");
    let lookups = dir.join("lookups.txt");
    std::fs::write(&routes, "10.0.0.0/8\n172.16.0.0/12\n").expect("routes");
    std::fs::write(&lookups, "10.1.2.3\n172.16.0.9\n").expect("lookups");
    let (r, l) = (routes.to_string_lossy(), lookups.to_string_lossy());
    let out = fib(
        &["bench", "files", &r, &l, "4", "--input", "--rules", "0,2"],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    for rules in ["rules=0 input=d1 ", "rules=2 input=d1 "] {
        let line = text
            .lines()
            .find(|l| l.contains(rules))
            .unwrap_or_else(|| panic!("{rules} in {text}"));
        // "ok N" counts the lookups that answered a route (forwarding off: none)
        let ok = line
            .rsplit("ok ")
            .next()
            .and_then(|v| v.trim_end_matches(')').parse::<u64>().ok());
        assert!(ok.is_some_and(|n| n > 0), "{line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// What `ip` prints (stdout and stderr) and its exit status, compared with `fib` on the same line,
/// each on a fresh namespace whose loopback is up: warnings printed while the line is
/// read (address flags dropped, `nat`), parse errors and kernel refusals. Runs only as
/// root with `ip netns`, on the kernel version the conformance recordings were made on
/// (any local build of it); otherwise it says why it skipped.
#[test]
fn stderr_and_status_match_ip_live() {
    let recording = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../conformance/scenarios/274-addr-modify-line.scn.expected");
    let header = std::fs::read_to_string(recording).unwrap_or_default();
    let recorded = header.split_whitespace().nth(2).unwrap_or("").to_string();
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    if !can_make_namespaces() {
        println!("SKIPPED: needs root and `ip netns`");
        return;
    }
    // the kernel's version, without the local build suffix after `-` (as the live
    // random scenarios compare)
    let version = |r: &str| r.trim().split('-').next().unwrap_or("").to_string();
    if version(&release) != version(&recorded) {
        println!(
            "SKIPPED: recorded on kernel {recorded}, running {}",
            release.trim()
        );
        return;
    }
    let list = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stderr-lines.txt");
    let text = std::fs::read_to_string(list).expect("tests/stderr-lines.txt");
    let lines: Vec<Vec<&str>> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert!(lines.len() > 100, "the list of lines is read");
    let mut bad = Vec::new();
    for line in &lines {
        let ns = format!("fibkit-cli-{}", std::process::id());
        make_netns(&ns);
        let k = Command::new("ip").args(["-n", &ns]).args(line).output();
        let _ = Command::new("ip").args(["netns", "del", &ns]).status();
        let k = k.expect("ip runs");
        let f = fib(line, "");
        if f.stderr != k.stderr || f.stdout != k.stdout || f.status.code() != k.status.code() {
            bad.push(format!(
                "{line:?}: ip {:?} {:?} {:?}, fib {:?} {:?} {:?}",
                k.status.code(),
                String::from_utf8_lossy(&k.stdout),
                String::from_utf8_lossy(&k.stderr),
                f.status.code(),
                String::from_utf8_lossy(&f.stdout),
                String::from_utf8_lossy(&f.stderr)
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// What `ip -n NS` prints on stdout for `lines` run one at a time in a private namespace
/// (named from `prefix`, deleted after; `dummy` links made as `ifb`, which this kernel
/// has).
fn ip_stdout_in_netns(prefix: &str, lines: &[&str]) -> Vec<u8> {
    let ns = format!("{prefix}-{}", std::process::id());
    make_netns(&ns);
    let mut out = Vec::new();
    for l in lines {
        let words: Vec<&str> = l
            .split_whitespace()
            .map(|w| if w == "dummy" { "ifb" } else { w })
            .collect();
        let o = Command::new("ip").args(["-n", &ns]).args(&words).output();
        out.extend(o.expect("ip runs").stdout);
    }
    let _ = Command::new("ip").args(["netns", "del", &ns]).status();
    out
}

/// `-echo` prints what `ip -echo` prints, byte for byte: each line of
/// `tests/echo-lines.txt` run by `ip -n NS` in a private namespace, one command at a
/// time, and all of them by one `fib -batch`.
#[test]
fn echo_text_matches_ip_live() {
    if !can_make_namespaces() {
        println!("SKIPPED: needs root and `ip netns`");
        return;
    }
    let list = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/echo-lines.txt");
    let text = std::fs::read_to_string(list).expect("tests/echo-lines.txt");
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .collect();
    assert!(lines.len() > 20, "the list of lines is read");
    let kernel = ip_stdout_in_netns("fibkit-echo", &lines);
    let f = fib(&["-batch", "-"], &(lines.join("\n") + "\n"));
    assert!(f.status.success(), "{}", String::from_utf8_lossy(&f.stderr));
    assert_eq!(
        String::from_utf8_lossy(&f.stdout),
        String::from_utf8_lossy(&kernel)
    );
}

/// `ip route get ... connected` asks the kernel twice and prints both answers; with
/// default routes of one metric taking turns (`fib_select_default`) the two differ, and
/// `fib` prints the same two: each line run by `ip -n NS` in a private namespace, and all
/// of them by one `fib -batch`, byte for byte.
#[test]
fn connected_asks_twice_live() {
    if !can_make_namespaces() {
        println!("SKIPPED: needs root and `ip netns`");
        return;
    }
    let lines = [
        "link add d0 type dummy",
        "link set d0 up",
        "addr add 10.0.0.1/24 dev d0",
        "route add default via 10.0.0.2",
        "route append default via 10.0.0.3",
        "neigh add 10.0.0.2 lladdr 02:00:00:00:00:02 dev d0 nud stale",
        "neigh add 10.0.0.3 lladdr 02:00:00:00:00:03 dev d0 nud stale",
        "route get 8.8.8.8 connected",
        "route get 8.8.8.8",
        "route get 8.8.8.8 connected",
        "-j route get 8.8.8.8 connected",
    ];
    let kernel = ip_stdout_in_netns("fibkit-conn", &lines);
    let f = fib(&["-batch", "-"], &(lines.join("\n") + "\n"));
    assert!(f.status.success(), "{}", String::from_utf8_lossy(&f.stderr));
    let kernel = String::from_utf8_lossy(&kernel);
    // the two answers of one query differ, or the test shows nothing
    assert!(
        kernel.contains("via 10.0.0.2") && kernel.contains("via 10.0.0.3"),
        "{kernel}"
    );
    assert_eq!(String::from_utf8_lossy(&f.stdout), kernel);
}

/// `ip -n NS OPTS -batch -` with `text` on its input, in a fresh private namespace
/// (loopback up, `dummy` made as `ifb`): stdout, stderr and the exit status.
fn ip_batch_in_netns(prefix: &str, opts: &[&str], text: &str) -> (String, String, Option<i32>) {
    let ns = format!("{prefix}-{}", std::process::id());
    make_netns(&ns);
    let o = spawn_with_input(
        Command::new("ip")
            .args(["-n", &ns])
            .args(opts)
            .args(["-batch", "-"]),
        &text.replace("type dummy", "type ifb"),
    )
    .wait_with_output()
    .expect("ip finishes");
    let _ = Command::new("ip").args(["netns", "del", &ns]).status();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
        o.status.code(),
    )
}

/// `fib -batch` reads a batch file as `ip -batch` does and ends it where `ip` does,
/// byte for byte and status for status against `ip` in a private namespace: comments,
/// continuation lines (and a missing one), quoted words (and an unterminated one),
/// a failure that returns (`-force` goes on) and one inside an `exit()` (the batch
/// ends at once, `-force` or not: a parser's, a refused neighbour change's).
#[test]
fn batch_files_read_and_end_like_ip_live() {
    if !can_make_namespaces() {
        println!("SKIPPED: needs root and `ip netns`");
        return;
    }
    let setup = "link add d0 type dummy\nlink set d0 up\naddr add 192.0.2.1/24 dev d0\n";
    let cases: &[(&[&str], String)] = &[
        (
            &[],
            format!(
                "# a comment\n{setup}\nroute add 10.9.0.0/16 \\\n   via 192.0.2.2 # the gateway\n\
                 route add \"10.8.0.0/16\" via '192.0.2.3'\nroute add 10.7.0.0/16 via 192.0.2.4 # \\\n\
                 route show\nroute get 10.9.1.1\n"
            ),
        ),
        (
            &["-force"],
            format!("{setup}route add 10.7.0.0/16 via 203.0.113.1\nroute show\nroute add 10.0.0.0/33 dev d0\nroute show\n"),
        ),
        (
            &["-force"],
            format!("{setup}neigh del 192.0.2.77 dev d0\nroute show\n"),
        ),
        (
            &["-force"],
            format!("{setup}link set d0 type vlan nosuch\nroute add 10.6.0.0/16 nexthop dev nosuch\nroute show\n"),
        ),
        (&[], format!("{setup}route show\nroute add 10.6.0.0/16 \\\n")),
        // a batch's requests are not strict: a table that does not exist lists
        // nothing; a query's attributes and flags a strict one refuses are ignored
        (
            &[],
            format!("{setup}route show table 100\nroute flush table 100\nroute show\n"),
        ),
        (
            &[],
            format!(
                "{setup}addr add 2001:db8:5::1/64 dev d0 nodad\nroute add default via 192.0.2.9\n\
                 route add ::/0 via 2001:db8:5::9\nroute get 8.8.8.8 as 192.0.2.9\n\
                 route get 8.8.8.8 from 192.0.2.1/24\nroute get 8.8.8.8 from 192.0.2.1/0\n\
                 route get 2001:db8:7::1 from 2001:db8:5::1/64\n\
                 route get 2001:db8:7::1 as 2001:db8::9 notify\nroute get fibmatch 2001:db8:7::1 notify\n"
            ),
        ),
        (
            &["-force"],
            format!("{setup}route show\nroute add \"10.6.0.0/16 dev d0\nroute show\n"),
        ),
        (&[], format!("{setup}route get {}\n", vec!["x"; 600].join(" "))),
        // `ip` alone is an unknown object (fib drops a leading `ip` before other words)
        (&["-force"], format!("{setup}ip\nroute show\n")),
    ];
    for (i, (opts, text)) in cases.iter().enumerate() {
        let (out, err, status) = ip_batch_in_netns("fibkit-batch", opts, text);
        let mut args = opts.to_vec();
        args.extend(["-batch", "-"]);
        let f = fib(&args, text);
        assert_eq!(
            (
                String::from_utf8_lossy(&f.stdout).into_owned(),
                String::from_utf8_lossy(&f.stderr).into_owned(),
                f.status.code()
            ),
            (out, err, status),
            "case {i}:\n{text}"
        );
    }
    // a file that cannot be opened
    let f = fib(&["-batch", "/nonexistent/batch"], "");
    let ip = Command::new("ip")
        .args(["-batch", "/nonexistent/batch"])
        .output()
        .expect("ip runs");
    assert_eq!(f.stderr, ip.stderr);
    assert_eq!(f.status.code(), ip.status.code());
}

/// The global options end `fib` where they end `ip` (iproute2 6.1, when the host has
/// it), before any request: `--` ends them (the next word is the object), `-echo`
/// only whole, `-he` is `-help`'s usage, a value missing after `-family`, `-loops`,
/// `-rcvbuf` or `-batch` is usage too, `-f help` as well, `-rcvbuf` needs a number, a
/// missing namespace name is printed `(null)`; the options before `-batch` are read
/// before the file is opened. Nothing here reaches the kernel (`-V` ends `ip` on the
/// spot).
#[test]
fn global_options_end_like_ip_live() {
    let version = Command::new("ip").arg("-V").output();
    if !version.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("iproute2-6.1.0")) {
        println!("SKIPPED: needs iproute2 6.1's ip");
        return;
    }
    let lines: &[&[&str]] = &[
        &["-e", "-V"],
        &["-ec", "-V"],
        &["-echo", "-V"],
        &["-he", "-V"],
        &["-help", "route"],
        &["-rcvbuf", "x", "-V"],
        &["-rc", "-1", "-V"],
        &["-rc", "0x10", "-V"],
        &["-rcvbuf"],
        &["-loops"],
        &["-netns"],
        &["-I", "-V"],
        &["--V"],
        &["--", "-V"],
        &["-4", "--", "foo"],
        &["-f"],
        &["-f", "help"],
        &["-family", "help", "route"],
        &["-b"],
        &["-f", "inet7", "-batch", "/nonexistent/batch"],
        &["-batch", "/nonexistent/batch", "-f", "inet7"],
        &["-batch", "/nonexistent/batch", "-V"],
        &["-fo", "-V"],
        &["--batch", "/nonexistent/batch"],
        &["-batch", "/"],
    ];
    for line in lines {
        let ip = Command::new("ip").args(*line).output().expect("ip runs");
        let f = fib(line, "");
        assert_eq!(
            (f.stdout, f.stderr, f.status.code()),
            (ip.stdout, ip.stderr, ip.status.code()),
            "{line:?}"
        );
    }
}
