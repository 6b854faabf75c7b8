//! Conformance: every recorded scenario under `conformance/` replayed through fibkit
//! must reproduce the kernel's output line for line (all but the header line).

use std::path::{Path, PathBuf};

use fibkit_iproute::scenario::{
    compare, has_raw, run_scenario, run_scenario_asking_twice, run_scenario_bulk, strip_raw,
};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scenarios(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(repo().join(dir))
        .expect("conformance folder exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "scn"))
        .collect();
    v.sort();
    v
}

fn check(dir: &str) {
    check_with(dir, false);
}

/// Replay every scenario of `dir` (as one bulk load when `bulk`), a recording with raw
/// lines as the oracle's `--raw` made it: each answered query asked twice.
fn check_with(dir: &str, bulk: bool) {
    let files = scenarios(dir);
    assert!(!files.is_empty(), "no scenarios in {dir}");
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable scenario");
        let exp_path = PathBuf::from(format!("{}.expected", f.display()));
        let exp = std::fs::read_to_string(&exp_path).expect("recorded .expected exists");
        let got = match (has_raw(&exp), bulk) {
            (true, b) => run_scenario_asking_twice(&text, b),
            (false, false) => run_scenario(&text),
            (false, true) => run_scenario_bulk(&text),
        };
        // the `ip` text of `--raw` recordings is checked by fibkit-cli's tests
        let d = compare(&strip_raw(&exp), &got);
        if !d.is_empty() {
            let mut msg = format!("{}: {} line(s) differ\n", f.display(), d.len());
            for (n, e, g) in d.iter().take(8) {
                msg.push_str(&format!("  line {n}\n    kernel: {e}\n    fibkit: {g}\n"));
            }
            failures.push(msg);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} scenarios differ from the kernel:\n{}",
        failures.len(),
        files.len(),
        failures.join("")
    );
}

#[test]
fn oracle_examples() {
    check("conformance/oracle-examples");
}

#[test]
fn recorded_scenarios() {
    check("conformance/scenarios");
}

/// The same recordings with each scenario applied as one bulk load (`fib -batch`):
/// answers from stale indexes (the tables probed directly) and remembered gateway
/// checks must still be the kernel's.
#[test]
fn recorded_scenarios_as_one_bulk_load() {
    check_with("conformance/oracle-examples", true);
    check_with("conformance/scenarios", true);
}

/// The snapshot's compiled answers equal the full lookup's (which the recordings tie to
/// the kernel) on every state the scenarios reach at their `ip route get` lines: rules
/// of every kind, the IPv4 table flip, reject routes, down links. Probes: every
/// address the line names, and the first and last address of every prefix of every
/// table, as output flows that only the destination decides (and with a mark and TCP,
/// which some rules select), and as the line's input flow (its `iif` and `from`).
#[test]
fn snapshot_answers_equal_full_lookup_on_recorded_states() {
    let mut states = 0usize;
    let mut compiled = 0usize;
    for dir in ["conformance/oracle-examples", "conformance/scenarios"] {
        for f in scenarios(dir) {
            let text = std::fs::read_to_string(&f).expect("readable scenario");
            let (s, c) = snapshot_equals_full_lookup(&f.display().to_string(), &text);
            states += s;
            compiled += c;
        }
    }
    eprintln!("{states} states, {compiled} compiled answer sets");
    assert!(states > 100, "only {states} states checked");
    assert!(
        compiled > states,
        "compiled answers in only {compiled} of {} cases",
        2 * states
    );
}

/// The same check on the states of random scenarios (`fibkit_iproute::random`, seeds
/// 1-50 of 40 steps: every route type, multipath, neighbours, rules, link changes),
/// which the runner must also take without panicking.
#[test]
fn snapshot_answers_equal_full_lookup_on_random_states() {
    let mut states = 0usize;
    for seed in 1..=50 {
        let text = fibkit_iproute::random::scenario(seed, 40);
        states += snapshot_equals_full_lookup(&format!("random seed {seed}"), &text).0;
    }
    eprintln!("{states} random states");
    assert!(states > 250, "only {states} states checked");
}

/// Run scenario `text` and, at each `ip route get` line, check that a snapshot of the
/// namespace answers every probe as the full lookup does (see the recorded-states
/// test). Returns the states checked and the compiled answer sets among them.
fn snapshot_equals_full_lookup(name: &str, text: &str) -> (usize, usize) {
    use fibkit::fib6::Flow6;
    use fibkit::lookup::Flow4;
    use fibkit::snapshot::{Answer4, Answer6, Snapshot};
    use fibkit_iproute::scenario::{read_statements, Runner, Stmt};
    let mut states = 0usize;
    let mut compiled = 0usize;
    let mut r = Runner::new();
    let mut last: Option<Snapshot> = None;
    for st in read_statements(text) {
        let Stmt::Line(line) = st else { continue };
        r.statement(&line);
        if !line.contains(" get ") {
            continue;
        }
        let ns = &r.ns;
        // one snapshot per state: consecutive queries share it
        let snap = match last.take() {
            Some(s) if s.generation() == ns.generation() => s,
            _ => {
                let s = Snapshot::new(ns.clone());
                states += 1;
                compiled += usize::from(s.fast4().is_some()) + usize::from(s.fast6().is_some());
                s
            }
        };
        let mut v4: Vec<u32> = Vec::new();
        let mut v6: Vec<u128> = Vec::new();
        // the line's input interface and source: its input flow, to every probe
        let words: Vec<&str> = line.split_whitespace().collect();
        let after = |key: &str| words.windows(2).find(|w| w[0] == key).map(|w| w[1]);
        let iif = after("iif").and_then(|n| ns.link_index(n));
        let from = after("from").and_then(|a| a.parse::<std::net::IpAddr>().ok());
        let (in4, in6) = match (iif, from) {
            (Some(iif), Some(std::net::IpAddr::V4(a))) => (Some((iif, u32::from(a))), None),
            (Some(iif), Some(std::net::IpAddr::V6(a))) => (None, Some((iif, u128::from(a)))),
            _ => (None, None),
        };
        for w in &words {
            match w.parse::<std::net::IpAddr>() {
                Ok(std::net::IpAddr::V4(a)) => v4.push(a.into()),
                Ok(std::net::IpAddr::V6(a)) => v6.push(a.into()),
                Err(_) => {}
            }
        }
        for t in ns.tables4() {
            for p in t.prefix_list() {
                v4.push(p.addr);
                v4.push(p.addr | !fibkit::prefix::mask4(p.len));
            }
        }
        for t in ns.tables6() {
            for p in t.dsts() {
                v6.push(p.addr);
                v6.push(p.addr | !fibkit::prefix::mask6(p.len));
            }
        }
        for dst in v4 {
            let fl = Flow4 {
                dst,
                proto: 17,
                ..Default::default()
            };
            let input = in4.map(|(iif, src)| Flow4 {
                dst,
                src,
                iif,
                ..Default::default()
            });
            for fl in [fl, Flow4 { mark: 0x1234, ..fl }, Flow4 { proto: 6, ..fl }]
                .into_iter()
                .chain(input)
            {
                let got = ns.route_get4(&fl);
                // a default route taking turns with others answers differently each
                // time (scenario 454): nothing to compare
                if got.as_ref().is_ok_and(|g| ns.answer_takes_turns4(g)) {
                    continue;
                }
                let want = Answer4::of(got);
                assert_eq!(snap.output4(&fl), want, "{}: after `{line}`: {fl:?}", name);
                assert_eq!(
                    *snap.output4_ref(&fl),
                    want,
                    "{}: ref, after `{line}`: {fl:?}",
                    name
                );
            }
        }
        for dst in v6 {
            let fl = Flow6 {
                dst,
                ..Default::default()
            };
            let input = in6.map(|(iif, src)| Flow6 {
                dst,
                src,
                iif,
                ..Default::default()
            });
            for fl in [fl, Flow6 { mark: 0x1234, ..fl }, Flow6 { proto: 6, ..fl }]
                .into_iter()
                .chain(input)
            {
                let want = Answer6::of(ns.route_output6(&fl));
                assert_eq!(snap.output6(&fl), want, "{}: after `{line}`: {fl:?}", name);
                assert_eq!(
                    *snap.output6_ref(&fl),
                    want,
                    "{}: ref, after `{line}`: {fl:?}",
                    name
                );
                assert_eq!(
                    *snap.output6_view().output6_ref(&fl),
                    want,
                    "{}: view, after `{line}`: {fl:?}",
                    name
                );
            }
        }
        last = Some(snap);
    }
    (states, compiled)
}
