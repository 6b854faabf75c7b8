//! A command the kernel refuses changes nothing: after every failing command of the
//! random scenarios (the generator behind the oracle runs, see `random.rs`) and of
//! random word sequences, the whole namespace shows as it did before (links, addresses,
//! routes of every table, rules, nexthop objects and resilient groups' buckets,
//! neighbours, and the answers of a few lookups). The kernel's own exceptions, where it
//! keeps part of a refused command, are listed in `kernel_keeps_part` with the scenario
//! that records each.
//! `FIBKIT_ATOMIC_SEEDS=N` runs N random scenarios (default 40; 3,000 pass) and
//! `PROPTEST_CASES=N` more word sequences.

use fibkit::Netns;
use fibkit_iproute::exec::{run_ip, Outcome};
use fibkit_iproute::scenario::{read_statements, shell_split, Stmt};
use proptest::prelude::*;

/// Everything `ip` can show of a namespace, as text.
fn state(ns: &Netns) -> String {
    let mut c = ns.clone();
    let mut out = String::new();
    for cmd in [
        "-d link show",
        "addr show",
        "route show table all",
        "-6 route show table all",
        "rule show",
        "-6 rule show",
        "nexthop show",
        "nexthop bucket show",
        "neigh show nud all",
        "-6 neigh show nud all",
        "route get 10.1.2.3",
        "route get 10.0.0.5 from 10.1.0.1 iif d1",
        "-6 route get 2001:db8:1::5",
        "-6 route get 2001:db8::9 from 2001:db8:1::1",
    ] {
        let argv: Vec<String> = cmd.split(' ').map(str::to_string).collect();
        out.push_str(&format!("## ip {cmd}\n"));
        match run_ip(&mut c, &argv) {
            Ok(Outcome::Ok(text)) => out.push_str(&text),
            Ok(Outcome::Get(g)) => out.push_str(&format!("{g:?}\n")),
            Err(f) => out.push_str(&format!("error {:?} {}", f.errno, f.stderr)),
        }
    }
    out
}

/// Refused commands the kernel applies in part, each recorded by a conformance scenario.
fn kernel_keeps_part(argv: &[String]) -> bool {
    let words: Vec<&str> = argv.iter().map(String::as_str).collect();
    let v6 = words.contains(&"-6");
    // `ip ... flush` is iproute2 deleting what it listed one by one: what went before a
    // refused delete stays gone (scenario 239)
    if words.contains(&"flush") {
        return true;
    }
    // `ip link set` with several changes: `do_setlink` makes them in turn and keeps
    // those before a refused one (scenario 268)
    let changes = [
        "up",
        "down",
        "mtu",
        "address",
        "group",
        "name",
        "alias",
        "txqueuelen",
        "qlen",
        "master",
    ];
    if words.contains(&"link")
        && words.contains(&"set")
        && words.iter().filter(|w| changes.contains(w)).count() > 1
    {
        return true;
    }
    // `ip link property` with several names: `rtnl_linkprop` takes them in turn and
    // keeps those before a refused one (scenario 342)
    if words.contains(&"property") && words.iter().filter(|w| **w == "altname").count() > 1 {
        return true;
    }
    // a neighbour in a valid state without an address, on a device with ARP: refused,
    // and the entry made for it stays in NUD_NONE (`__neigh_update`, scenario 269)
    if words.contains(&"neigh") && !words.contains(&"lladdr") && !words.contains(&"del") {
        return true;
    }
    // `ip link set DEV type macvlan ... macaddr ...`: `macvlan_changelink` sets the mode,
    // flags and queue length before it refuses source addresses for a device not in
    // source mode (scenario 375)
    if words.contains(&"link") && words.contains(&"set") && words.contains(&"macaddr") {
        return true;
    }
    // `ip -6 route del` with nexthops deletes each path on its own and answers the last
    // failing path's error (`ip6_route_multipath_del`, scenario 319)
    v6 && words.contains(&"route") && words.contains(&"del") && words.contains(&"nexthop")
}

/// Run `ip` lines, checking every refused one left the namespace as it was; the number
/// of refused lines.
fn check_lines(ns: &mut Netns, lines: &[Vec<String>]) -> Result<usize, String> {
    let mut refused = 0;
    for argv in lines {
        // (seen one command's time later: `run_ip` moves the clock on by 1 ms, and
        // resilient groups' buckets may move with it, refused command or not)
        let mut later = ns.clone();
        later.tick();
        let before = state(&later);
        let Err(failure) = run_ip(ns, argv) else {
            continue;
        };
        if !kernel_keeps_part(argv) {
            refused += 1;
            let after = state(ns);
            if before != after {
                let diff: Vec<String> = before
                    .lines()
                    .zip(after.lines())
                    .filter(|(a, b)| a != b)
                    .take(6)
                    .map(|(a, b)| format!("  before: {a}\n  after:  {b}"))
                    .collect();
                return Err(format!(
                    "refused `ip {}` ({:?} {:?}) changed the namespace:\n{}",
                    argv.join(" "),
                    failure.errno,
                    failure.stderr,
                    diff.join("\n")
                ));
            }
        }
    }
    Ok(refused)
}

fn scenario_lines(text: &str) -> Vec<Vec<String>> {
    read_statements(text)
        .into_iter()
        .filter_map(|s| match s {
            Stmt::Line(l) => shell_split(&l).ok(),
            Stmt::Comment(_) => None,
        })
        .filter(|t| t.first().is_some_and(|w| w == "ip"))
        .map(|t| t[1..].to_vec())
        .collect()
}

#[test]
fn refused_commands_of_random_scenarios_change_nothing() {
    let seeds: u64 = std::env::var("FIBKIT_ATOMIC_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    let mut refused = 0;
    for seed in 0..seeds {
        let lines = scenario_lines(&fibkit_iproute::random::scenario(seed, 80));
        match check_lines(&mut Netns::new(), &lines) {
            Ok(n) => refused += n,
            Err(e) => panic!("seed {seed}: {e}"),
        }
    }
    // the check is only worth something if many commands were refused
    assert!(refused > 100, "only {refused} refused commands");
}

/// Words of commands that reach deep into the parsers, with values that are out of range
/// or name what does not exist. (Any panic fails the test too: this replaces the word
/// test that only checked for panics.)
const WORDS: &[&str] = &[
    "route",
    "rule",
    "addr",
    "link",
    "neigh",
    "nexthop",
    "add",
    "del",
    "replace",
    "append",
    "prepend",
    "change",
    "set",
    "flush",
    "dev",
    "d0",
    "d1",
    "lo",
    "nosuch",
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
    "nhid",
    "id",
    "1",
    "2",
    "group",
    "1/2",
    "1,300",
    "weight",
    "onlink",
    "mtu",
    "lock",
    "10.0.0.0/8",
    "10.0.0.1",
    "10.0.0.2",
    "10.1.0.0/16",
    "2001:db8::/32",
    "2001:db8::1",
    "2001:db8:1::/64",
    "fe80::1",
    "default",
    "-6",
    "type",
    "dummy",
    "up",
    "down",
    "name",
    "fwmark",
    "uidrange",
    "1-2",
    "unreachable",
    "blackhole",
    "local",
    "broadcast",
    "iif",
    "oif",
    "scope",
    "host",
    "proto",
    "src",
    "nud",
    "permanent",
    "lladdr",
    "02:00:00:00:00:01",
    "peer",
    "label",
    "d0:1",
    "expires",
    "300",
    "-1",
    "",
    "get",
    "show",
    "1/2,3",
    "resilient",
    "fdb",
    "groups",
    "192.0.2.1/24",
    "-4",
    "-j",
    "veth",
    "0x1/0xff",
    "sport",
    "1000-900",
    "prohibit",
    "throw",
    "fibmatch",
    "mark",
    "ipproto",
    "tcp",
    "kernel",
    "/",
    "999.1.1.1",
    "::/129",
    "failed",
    "suppress_prefixlength",
    "buckets",
    "idle_timer",
    "bucket",
    "index",
    "encap",
    "ip",
    "ip6",
    "seg6",
    "seg6local",
    "action",
    "End.X",
    "End.B6",
    "nh6",
    "srh",
    "segs",
    "mode",
    "inline",
    "hmac",
    "csum",
    "-M",
    "-B",
    "-0",
    "mpls",
    "bridge",
    "valid_lft",
    "preferred_lft",
    "forever",
    "proxy",
    "property",
    "altname",
    "a",
    "up0",
    "netconf",
    "if1",
    "addrlabel",
    "prefix",
    "mrule",
    "token",
    "help",
    "ls",
    "maddress",
    "m",
    "33:33:00:00:00:01",
    "01:00:5e:00:00:01",
    "master",
    "nomaster",
    "br0",
    "tuntap",
    "tun",
    "tap",
    "multi_queue",
    "pi",
    "macvlan",
    "macvtap",
    "mv0",
    "macaddr",
    "set",
    "source",
    "passthru",
    "nodst",
    "02:11:22:33:44:55",
    "02:11",
    "vxlan",
    "vx0",
    "id",
    "42",
    "dstport",
    "4789",
    "remote",
    "2001:db8::9",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]
    #[test]
    fn refused_random_words_change_nothing(
        cmds in proptest::collection::vec(proptest::collection::vec(0..WORDS.len(), 2..11), 1..10)
    ) {
        let mut ns = Netns::new();
        let setup = scenario_lines(
            "ip link add d0 type dummy\nip link add d1 type dummy\nip link set d0 up\n\
             ip link set d1 up\nip addr add 10.0.0.1/24 dev d0\nip addr add 10.1.0.1/16 dev d1\n\
             ip -6 addr add 2001:db8::1/64 dev d0\nip -6 addr add 2001:db8:1::1/64 dev d1\n\
             ip route add 10.9.0.0/16 via 10.0.0.2\nip nexthop add id 1 via 10.0.0.2 dev d0\n\
             ip nexthop add id 2 via 10.1.0.2 dev d1\nip nexthop add id 3 group 1/2\n\
             ip -6 route add 2001:db8:9::/48 via 2001:db8::2\nip rule add pref 100 lookup 100\n\
             ip link add br0 type bridge\nip link set d1 master br0\nip link set br0 up\n\
             ip tuntap add dev tun mode tun\n\
             ip link add mv0 link d0 type macvlan mode source macaddr add 02:11:22:33:44:55\n\
             ip link add vx0 type vxlan id 42 dstport 4789 dev d0 remote 2001:db8::9\n",
        );
        for argv in &setup {
            prop_assert!(run_ip(&mut ns, argv).is_ok(), "setup `{}`", argv.join(" "));
        }
        let lines: Vec<Vec<String>> = cmds
            .iter()
            .map(|c| c.iter().map(|i| WORDS[*i].to_string()).collect())
            .collect();
        if let Err(e) = check_lines(&mut ns, &lines) {
            prop_assert!(false, "{}", e);
        }
    }
}
