//! A bridge's spanning tree timers on the model's clock, at the edges of their
//! deadlines (the kernel's answers half a second away from them are recorded in
//! conformance scenario 528): a port listens for exactly one forward delay and learns
//! for another, the bridge gets its carrier when the port forwards, the topology
//! change lasts the forward delay and the maximum age, and the ageing time in force
//! follows it only under spanning tree.

use fibkit::bridge::port_state;
use fibkit::Netns;
use fibkit_iproute::exec::run_ip;

fn ip(ns: &mut Netns, line: &str) {
    let argv: Vec<String> = line.split_whitespace().map(String::from).collect();
    if let Err(e) = run_ip(ns, &argv[1..]) {
        panic!("{line}: {e:?}");
    }
}

fn port(ns: &Netns, name: &str) -> u8 {
    let i = ns.link_index(name).expect("port");
    ns.bridge_port(i).expect("a port").state
}

fn carrier(ns: &Netns) -> bool {
    let i = ns.link_index("br0").expect("bridge");
    ns.link(i).expect("bridge").carrier
}

/// A bridge under spanning tree (forward delay 2 s, maximum age 6 s, ageing time
/// 10 s) with d0 as its port, both just brought up.
fn bridge(stp: &str) -> Netns {
    let mut ns = Netns::new();
    for l in [
        "ip link add d0 type dummy",
        &format!(
            "ip link add br0 type bridge {stp} forward_delay 200 max_age 600 ageing_time 1000"
        ),
        "ip link set d0 master br0",
        "ip link set d0 up",
        "ip link set br0 up",
    ] {
        ip(&mut ns, l);
    }
    ns
}

#[test]
fn a_port_listens_then_learns_then_forwards() {
    let mut ns = bridge("stp_state 1");
    assert_eq!(port(&ns, "d0"), port_state::LISTENING);
    assert!(!carrier(&ns));
    ns.sleep_ms(1990);
    assert_eq!(port(&ns, "d0"), port_state::LISTENING);
    ns.sleep_ms(20);
    assert_eq!(port(&ns, "d0"), port_state::LEARNING);
    ns.sleep_ms(1970);
    assert_eq!(port(&ns, "d0"), port_state::LEARNING);
    assert!(!carrier(&ns));
    ns.sleep_ms(20);
    assert_eq!(port(&ns, "d0"), port_state::FORWARDING);
    assert!(carrier(&ns));
}

#[test]
fn the_topology_change_lasts_forward_delay_and_max_age() {
    let mut ns = bridge("stp_state 1");
    let br = ns.link_index("br0").expect("bridge");
    assert_eq!(ns.bridge_conf(br).ageing_time, 2500);
    ns.sleep_ms(4010);
    let c = ns.bridge_conf(br);
    assert!(c.topology_change && c.topology_change_detected);
    // twice the forward delay (500 ticks) while it lasts
    assert_eq!(c.ageing_time, 1000);
    // 2 s + 6 s after the port forwarded
    ns.sleep_ms(7970);
    assert!(ns.bridge_conf(br).topology_change);
    ns.sleep_ms(40);
    let c = ns.bridge_conf(br);
    assert!(!c.topology_change && !c.topology_change_detected);
    assert_eq!(c.ageing_time, 2500);
}

#[test]
fn stopping_spanning_tree_keeps_the_timers_and_the_ageing_time() {
    let mut ns = bridge("stp_state 1");
    let br = ns.link_index("br0").expect("bridge");
    ns.sleep_ms(4010);
    ip(&mut ns, "ip link set br0 type bridge stp_state 0");
    ns.sleep_ms(8000);
    let c = ns.bridge_conf(br);
    assert!(!c.topology_change);
    // restored only under spanning tree
    assert_eq!(c.ageing_time, 1000);
    // and a port that listened when it was stopped goes on to forward
    let mut ns = bridge("stp_state 1");
    ip(&mut ns, "ip link set br0 type bridge stp_state 0");
    ns.sleep_ms(2010);
    assert_eq!(port(&ns, "d0"), port_state::LEARNING);
    ns.sleep_ms(2000);
    assert_eq!(port(&ns, "d0"), port_state::FORWARDING);
}

#[test]
fn a_port_going_down_loses_its_timer() {
    let mut ns = bridge("stp_state 1");
    ns.sleep_ms(1000);
    ip(&mut ns, "ip link set d0 down");
    ip(&mut ns, "ip link set d0 up");
    // listening again from now, not from the start
    ns.sleep_ms(1500);
    assert_eq!(port(&ns, "d0"), port_state::LISTENING);
    ns.sleep_ms(510);
    assert_eq!(port(&ns, "d0"), port_state::LEARNING);
}

#[test]
fn without_spanning_tree_a_port_forwards_at_once() {
    let ns = bridge("stp_state 0");
    assert_eq!(port(&ns, "d0"), port_state::FORWARDING);
    assert!(carrier(&ns));
    let br = ns.link_index("br0").expect("bridge");
    assert!(!ns.bridge_conf(br).topology_change);
}
