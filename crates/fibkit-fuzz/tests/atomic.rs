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
use fibkit_fuzz::atomic::{check_lines, scenario_lines, SETUP};
use fibkit_iproute::exec::run_ip;
use proptest::prelude::*;

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
        let setup = scenario_lines(SETUP);
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
