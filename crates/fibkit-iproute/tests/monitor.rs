//! `ip monitor` and `ip mptcp monitor` wait for kernel notifications, which a model
//! never sends (the oracle refuses them, so no recording can stand for them): fib
//! refuses both with a message and `ip`'s usage status.

use fibkit::Netns;
use fibkit_iproute::exec::run_ip;

fn refused(line: &str) {
    let mut ns = Netns::new();
    let argv: Vec<String> = line.split_whitespace().skip(1).map(String::from).collect();
    let e = run_ip(&mut ns, &argv).expect_err(line);
    assert_eq!(e.status, 255, "{line}");
    assert!(e.errno.is_none(), "{line}");
    assert!(e.stderr.contains("no event stream"), "{line}: {}", e.stderr);
}

#[test]
fn monitors_are_refused_with_a_message() {
    for l in [
        "ip monitor",
        "ip monitor route",
        "ip mo all",
        "ip mptcp monitor",
        "ip mptcp m",
    ] {
        refused(l);
    }
}

#[test]
fn a_word_after_mptcp_monitor_is_an_unknown_command() {
    let mut ns = Netns::new();
    let argv: Vec<String> = ["mptcp", "monitor", "x"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let e = run_ip(&mut ns, &argv).unwrap_err();
    assert_eq!(
        e.stderr,
        "Command \"x\" is unknown, try \"ip mptcp help\".\n"
    );
}
