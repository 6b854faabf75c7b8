//! Conformance: every recorded scenario under `conformance/` replayed through fibkit
//! must reproduce the kernel's output line for line (all but the header line).

use std::path::{Path, PathBuf};

use fibkit_iproute::scenario::{compare, run_scenario};

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
    let files = scenarios(dir);
    assert!(!files.is_empty(), "no scenarios in {dir}");
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable scenario");
        let exp_path = PathBuf::from(format!("{}.expected", f.display()));
        let exp = std::fs::read_to_string(&exp_path).expect("recorded .expected exists");
        let got = run_scenario(&text);
        let d = compare(&exp, &got);
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

mod never_panics {
    use fibkit::Netns;
    use fibkit_iproute::exec::run_ip;
    use proptest::prelude::*;

    const WORDS: &[&str] = &[
        "route",
        "rule",
        "addr",
        "link",
        "neigh",
        "add",
        "del",
        "get",
        "show",
        "flush",
        "replace",
        "append",
        "prepend",
        "change",
        "set",
        "up",
        "down",
        "dev",
        "d0",
        "lo",
        "via",
        "from",
        "to",
        "table",
        "100",
        "0",
        "4294967296",
        "metric",
        "tos",
        "0x10",
        "pref",
        "lookup",
        "goto",
        "nexthop",
        "weight",
        "onlink",
        "mtu",
        "lock",
        "10.0.0.0/8",
        "10.0.0.1",
        "192.0.2.1/24",
        "2001:db8::/32",
        "2001:db8::1",
        "fe80::1",
        "default",
        "-6",
        "-4",
        "-j",
        "type",
        "dummy",
        "veth",
        "peer",
        "name",
        "fwmark",
        "0x1/0xff",
        "uidrange",
        "1-2",
        "sport",
        "1000-900",
        "unreachable",
        "blackhole",
        "prohibit",
        "throw",
        "local",
        "broadcast",
        "iif",
        "oif",
        "fibmatch",
        "mark",
        "ipproto",
        "tcp",
        "scope",
        "host",
        "proto",
        "kernel",
        "src",
        "/",
        "999.1.1.1",
        "::/129",
        "",
        "nud",
        "failed",
        "expires",
        "suppress_prefixlength",
        "-1",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Any sequence of iproute2 words gives an answer or an error, never a panic, and a
        /// rejected command leaves the namespace as it was.
        #[test]
        fn random_commands(cmds in proptest::collection::vec(proptest::collection::vec(0..WORDS.len(), 1..12), 1..8)) {
            let mut ns = Netns::new();
            let _ = run_ip(&mut ns, &["link".into(), "add".into(), "d0".into(), "type".into(), "dummy".into()]);
            let _ = run_ip(&mut ns, &["link".into(), "set".into(), "d0".into(), "up".into()]);
            for c in cmds {
                let argv: Vec<String> = c.iter().map(|i| WORDS[*i].to_string()).collect();
                let before = ns.generation();
                let snapshot = format!("{:?}", ns.tables4().map(|t| t.iter().count()).collect::<Vec<_>>());
                if run_ip(&mut ns, &argv).is_err() && ns.generation() == before {
                    let after = format!("{:?}", ns.tables4().map(|t| t.iter().count()).collect::<Vec<_>>());
                    prop_assert_eq!(snapshot, after);
                }
            }
        }
    }
}
