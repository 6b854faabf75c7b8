//! The neighbour timers on the model's clock, at the edges of their deadlines (the
//! kernel's answers at a distance from them are recorded in conformance scenario 525):
//! a PROBE entry fails after `neigh_max_probes` retransmits and not one millisecond
//! before, the settings move the deadline, `use` of a permanent entry starts resolving
//! it, and fractional sleeps add up to whole seconds.

use fibkit::netns::NudState;
use fibkit::Netns;
use fibkit_iproute::exec::{run_ip, run_sysctl};

fn ip(ns: &mut Netns, line: &str) {
    let argv: Vec<String> = line.split_whitespace().map(String::from).collect();
    if let Err(e) = run_ip(ns, &argv[1..]) {
        panic!("{line}: {e:?}");
    }
}

fn state(ns: &Netns, addr: u32) -> NudState {
    ns.neighbours()
        .iter()
        .find(|n| !n.v6 && n.addr == u128::from(addr))
        .map(|n| n.state)
        .expect("entry")
}

fn veth() -> Netns {
    let mut ns = Netns::new();
    for l in [
        "ip link add v0 type veth peer name v1",
        "ip link set v0 up",
        "ip link set v1 up",
        "ip addr add 10.0.0.1/24 dev v0",
    ] {
        ip(&mut ns, l);
    }
    ns
}

const A2: u32 = 0x0a00_0002;
const A3: u32 = 0x0a00_0003;

#[test]
fn a_probe_fails_after_its_probes_and_not_before() {
    let mut ns = veth();
    ip(
        &mut ns,
        "ip neigh add 10.0.0.2 lladdr 02:00:00:00:00:92 dev v0 nud probe",
    );
    // three unicast probes, one second apart: failed at 3 s
    ns.sleep_ms(2990);
    assert_eq!(state(&ns, A2), NudState::Probe);
    ns.sleep_ms(20);
    assert_eq!(state(&ns, A2), NudState::Failed);
}

#[test]
fn the_same_state_keeps_the_timer_and_another_restarts_it() {
    let mut ns = veth();
    ip(
        &mut ns,
        "ip neigh add 10.0.0.2 lladdr 02:00:00:00:00:92 dev v0 nud probe",
    );
    ip(
        &mut ns,
        "ip neigh add 10.0.0.3 lladdr 02:00:00:00:00:93 dev v0 nud probe",
    );
    ns.sleep_ms(2000);
    ip(
        &mut ns,
        "ip neigh change 10.0.0.2 lladdr 02:00:00:00:00:82 dev v0 nud probe",
    );
    ip(
        &mut ns,
        "ip neigh replace 10.0.0.3 lladdr 02:00:00:00:00:93 dev v0 nud stale",
    );
    ip(
        &mut ns,
        "ip neigh replace 10.0.0.3 lladdr 02:00:00:00:00:93 dev v0 nud probe",
    );
    ns.sleep_ms(1500);
    assert_eq!(state(&ns, A2), NudState::Failed);
    assert_eq!(state(&ns, A3), NudState::Probe);
    ns.sleep_ms(1600);
    assert_eq!(state(&ns, A3), NudState::Failed);
}

#[test]
fn the_device_settings_move_the_deadline() {
    let mut ns = veth();
    run_sysctl(&mut ns, "net.ipv4.neigh.v0.retrans_time_ms=2000").unwrap();
    run_sysctl(&mut ns, "net.ipv4.neigh.v0.ucast_solicit=1").unwrap();
    ip(
        &mut ns,
        "ip neigh add 10.0.0.2 lladdr 02:00:00:00:00:92 dev v0 nud probe",
    );
    ns.sleep_ms(1900);
    assert_eq!(state(&ns, A2), NudState::Probe);
    ns.sleep_ms(200);
    assert_eq!(state(&ns, A2), NudState::Failed);
    // no probe at all: failed at once
    run_sysctl(&mut ns, "net.ipv4.neigh.v0.ucast_solicit=0").unwrap();
    ip(
        &mut ns,
        "ip neigh add 10.0.0.3 lladdr 02:00:00:00:00:93 dev v0 nud probe",
    );
    assert_eq!(state(&ns, A3), NudState::Failed);
}

#[test]
fn use_takes_permanent_away_and_resolves() {
    let mut ns = veth();
    ip(
        &mut ns,
        "ip neigh add 10.0.0.2 lladdr 02:00:00:00:00:92 dev v0 nud permanent",
    );
    ip(&mut ns, "ip neigh change 10.0.0.2 dev v0 use");
    assert_eq!(state(&ns, A2), NudState::Incomplete);
    // three multicast probes left
    ns.sleep_ms(2900);
    assert_eq!(state(&ns, A2), NudState::Incomplete);
    ns.sleep_ms(200);
    assert_eq!(state(&ns, A2), NudState::Failed);
    // a stale entry used waits the delay, then probes
    ip(
        &mut ns,
        "ip neigh add 10.0.0.3 lladdr 02:00:00:00:00:93 dev v0 nud stale",
    );
    ip(&mut ns, "ip neigh change 10.0.0.3 dev v0 use");
    ns.sleep_ms(4900);
    assert_eq!(state(&ns, A3), NudState::Delay);
    ns.sleep_ms(200);
    assert_eq!(state(&ns, A3), NudState::Probe);
    ns.sleep_ms(3000);
    assert_eq!(state(&ns, A3), NudState::Failed);
}

#[test]
fn fractional_sleeps_add_up_to_seconds() {
    let mut ns = Netns::new();
    let t0 = ns.now();
    ns.sleep_ms(500);
    assert_eq!(ns.now(), t0);
    ns.sleep_ms(700);
    assert_eq!(ns.now(), t0 + 1);
    ns.sleep_ms(800);
    assert_eq!(ns.now(), t0 + 2);
}
