//! The check that a command the kernel refuses changes nothing.
//!
//! [`check_lines`] runs `ip` command lines on a namespace and, after each refused one,
//! compares everything `ip` can show of the namespace ([`state`]) with what it showed
//! before: links, addresses, routes of every table, rules, nexthop objects and
//! resilient groups' buckets, neighbours, and the answers of a few lookups. The
//! kernel's own exceptions, where it keeps part of a refused command, are listed in
//! [`kernel_keeps_part`] with the conformance scenario that records each.
//!
//! Used by the `atomic` tests of this crate and by the `ip_lines` fuzz target.

use fibkit::Netns;
use fibkit_iproute::exec::{run_ip, Outcome};
use fibkit_iproute::scenario::{read_statements, shell_split, Stmt};

/// Everything `ip` can show of a namespace, as text.
pub fn state(ns: &Netns) -> String {
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
pub fn kernel_keeps_part(ns: &Netns, argv: &[String]) -> bool {
    let words: Vec<&str> = argv.iter().map(String::as_str).collect();
    // `ip link set DEV master M` for a port of another master: `do_set_master` releases
    // it from the old one before it finds that M takes no ports (EOPNOTSUPP) or refuses
    // it (scenario 393; found by the `ip_lines` fuzz target)
    let body: Vec<&str> = words
        .iter()
        .copied()
        .skip_while(|w| w.starts_with('-'))
        .collect();
    if let [link, set, rest @ ..] = body.as_slice() {
        let dev = match rest {
            ["dev", d, ..] => Some(*d),
            [d, ..] => Some(*d),
            [] => None,
        };
        let is_port = dev.is_some_and(|d| ns.links().any(|l| l.name == d && l.master != 0));
        let master = rest.contains(&"master");
        if !link.is_empty() && "link".starts_with(link) && *set == "set" && master && is_port {
            return true;
        }
    }
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
        // an MTU below 1280 takes the device's IPv6 state away before its `addrgenmode`
        // is set, which is then refused (EAFNOSUPPORT) with the MTU kept (scenario 393;
        // found by the `ip_lines` fuzz target)
        "addrgenmode",
    ];
    if words.contains(&"link")
        && words.contains(&"set")
        && words.iter().filter(|w| changes.contains(w)).count() > 1
    {
        return true;
    }
    // `ip link set DEV type bridge|bridge_slave OPTIONS`: `br_changelink` and
    // `br_setport` apply the options in turn and keep those before a refused one; and
    // any kind's settings, applied, end do_setlink with `netdev_state_change` even
    // when one of its own changes is then refused (scenario 396)
    if words.contains(&"link") && words.contains(&"set") && words.contains(&"type") {
        let bridge = words.contains(&"bridge") || words.contains(&"bridge_slave");
        if bridge || words.iter().any(|w| changes.contains(w)) {
            return true;
        }
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
    // `ip -6 addr add` refused after `addrconf_add_dev`: the device's default multicast
    // route is made again (and its groups loaded again, which `state` does not list)
    // all the same (scenarios 354, 364 and 393; found by the `ip_lines` fuzz target
    // with the route deleted beforehand): only when the device lacked that route
    let addr6 = words.contains(&"addr") || words.contains(&"address") || words.contains(&"a");
    if addr6
        && words
            .iter()
            .any(|w| ["add", "replace", "change"].contains(w))
        && (v6 || words.iter().any(|w| w.contains(':')))
    {
        let dev = words.windows(2).find(|w| w[0] == "dev").map(|w| w[1]);
        let missing = dev.is_some_and(|d| {
            let argv: Vec<String> = ["-6", "route", "show", "table", "local", "dev", d]
                .iter()
                .map(|w| w.to_string())
                .collect();
            match run_ip(&mut ns.clone(), &argv) {
                Ok(Outcome::Ok(text)) => !text.contains("multicast ff00::/8"),
                _ => false,
            }
        });
        if missing {
            return true;
        }
    }
    // `ip -6 route del` with nexthops deletes each path on its own and answers the last
    // failing path's error (`ip6_route_multipath_del`, scenario 319)
    v6 && words.contains(&"route") && words.contains(&"del") && words.contains(&"nexthop")
}

/// Run `ip` lines, checking every refused one left the namespace as it was; the number
/// of refused lines.
pub fn check_lines(ns: &mut Netns, lines: &[Vec<String>]) -> Result<usize, String> {
    check_lines_with(ns, lines, |_, _| Ok(()))
}

/// [`check_lines`], also handing each accepted line and what it printed to `accepted`,
/// whose error stops the run.
pub fn check_lines_with(
    ns: &mut Netns,
    lines: &[Vec<String>],
    mut accepted: impl FnMut(&[String], &Outcome) -> Result<(), String>,
) -> Result<usize, String> {
    let mut refused = 0;
    for argv in lines {
        // (seen one command's time later: `run_ip` moves the clock on by 1 ms, and
        // resilient groups' buckets may move with it, refused command or not)
        let mut later = ns.clone();
        later.tick();
        let failure = match run_ip(ns, argv) {
            Ok(out) => {
                accepted(argv, &out)?;
                continue;
            }
            Err(f) => f,
        };
        if !kernel_keeps_part(&later, argv) {
            refused += 1;
            let before = state(&later);
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

/// The `ip` lines of a scenario text, split into words, without the leading `ip`.
pub fn scenario_lines(text: &str) -> Vec<Vec<String>> {
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

/// The namespace the word test and the `ip_lines` fuzz target start from: two dummies,
/// a bridge with a port, a tun device, a macvlan and a VXLAN device, addresses of both
/// families, routes, a rule and nexthop objects with a group.
pub const SETUP: &str = "ip link add d0 type dummy\nip link add d1 type dummy\nip link set d0 up\n\
         ip link set d1 up\nip addr add 10.0.0.1/24 dev d0\nip addr add 10.1.0.1/16 dev d1\n\
         ip -6 addr add 2001:db8::1/64 dev d0\nip -6 addr add 2001:db8:1::1/64 dev d1\n\
         ip route add 10.9.0.0/16 via 10.0.0.2\nip nexthop add id 1 via 10.0.0.2 dev d0\n\
         ip nexthop add id 2 via 10.1.0.2 dev d1\nip nexthop add id 3 group 1/2\n\
         ip -6 route add 2001:db8:9::/48 via 2001:db8::2\nip rule add pref 100 lookup 100\n\
         ip link add br0 type bridge\nip link set d1 master br0\nip link set br0 up\n\
         ip tuntap add dev tun mode tun\n\
         ip link add mv0 link d0 type macvlan mode source macaddr add 02:11:22:33:44:55\n\
         ip link add vx0 type vxlan id 42 dstport 4789 dev d0 remote 2001:db8::9\n";
