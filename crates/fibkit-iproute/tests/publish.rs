//! Changes made through the command layer reach the published snapshots: after each
//! publication, the compiled answers equal the writer's namespace's full lookup.

use fibkit::fib::Fib;
use fibkit::lookup::Flow4;
use fibkit::snapshot::Answer4;
use fibkit::Netns;
use fibkit_iproute::exec::{run_ip, run_sysctl};

fn ip(ns: &mut Netns, line: &str) {
    let argv: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    if let Err(e) = run_ip(ns, &argv) {
        panic!("`ip {line}` failed: {e:?}");
    }
}

/// A namespace whose route to 10/8 has a loopback preferred source: refused on d0
/// unless `route_localnet` allows it.
fn loopback_source_route() -> Netns {
    let mut ns = Netns::new();
    for line in [
        "link add d0 type dummy",
        "link set d0 up",
        "addr add 127.0.0.2/8 dev d0",
        "route add 10.0.0.0/8 dev d0 src 127.0.0.2",
    ] {
        ip(&mut ns, line);
    }
    ns
}

/// A flow through that route.
const FLOW: Flow4 = Flow4 {
    dst: 0x0a01_0101,
    src: 0,
    oif: 0,
    iif: 0,
    mark: 0,
    tos: 0,
    proto: 17,
    sport: 0,
    dport: 0,
    uid: 0,
    scope: 0,
};

/// A sysctl that the compiled IPv4 answers depend on (`route_localnet`: a loopback
/// preferred source is refused on other devices without it) changes between two
/// publications, and nothing else does.
#[test]
fn sysctl_changes_reach_the_compiled_answers() {
    let mut fib = Fib::new(loopback_source_route());
    let mut reader = fib.reader();
    let fl = FLOW;
    let before = Answer4::of(fib.netns().route_get4(&fl));
    assert!(
        matches!(before, Answer4::Error(_)),
        "without route_localnet: {before:?}"
    );
    assert_eq!(reader.snapshot().output4(&fl), before);
    for (setting, want_route) in [
        ("net.ipv4.conf.all.route_localnet=1", true),
        ("net.ipv4.conf.all.route_localnet=0", false),
        ("net.ipv4.conf.d0.route_localnet=1", true),
    ] {
        fib.apply(|ns| run_sysctl(ns, setting)).expect("sysctl");
        fib.publish();
        let want = Answer4::of(fib.netns().route_get4(&fl));
        assert_eq!(
            matches!(want, Answer4::Route { .. }),
            want_route,
            "{setting}: {want:?}"
        );
        assert_eq!(reader.snapshot().output4(&fl), want, "after {setting}");
    }
}

/// The same sysctl written straight into `Netns::sysctl` (no `sysctls_changed`): the
/// writer notices the change at its next publication.
#[test]
fn direct_sysctl_writes_reach_the_compiled_answers() {
    let mut fib = Fib::new(loopback_source_route());
    let mut reader = fib.reader();
    let fl = FLOW;
    for on in [1, 0, 1] {
        fib.apply(|ns| ns.sysctl.v4_all.route_localnet = on);
        fib.publish();
        let want = Answer4::of(fib.netns().route_get4(&fl));
        assert_eq!(
            matches!(want, Answer4::Route { .. }),
            on == 1,
            "route_localnet={on}: {want:?}"
        );
        assert_eq!(reader.snapshot().output4(&fl), want, "route_localnet={on}");
    }
}
