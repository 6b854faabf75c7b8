//! Random scenarios for differential runs against the kernel.
//!
//! [`scenario`] draws a scenario in the oracle's format (`conformance/README.md`) from a
//! deterministic generator: links, addresses, routes of every type in a few tables,
//! multipath, nexthop objects, neighbours, link groups, policy rules, sysctls, changes
//! and deletions,
//! each few steps followed by `ip route get` queries (output and input, with
//! selectors, `fibmatch`) on addresses chosen near the prefixes in play, and a final
//! dump. The values come from small pools so that prefixes overlap, gateways are
//! sometimes reachable and sometimes not, and commands sometimes fail: errors are part
//! of what is compared.
//!
//! `conformance/random-diff.sh` records seeds through the oracle and checks fibkit
//! against them; the test suite runs the generated scenarios through fibkit's compiled
//! snapshots, and through the live kernel when the oracle is at hand.

use std::fmt::Write as _;

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

const LINKS: [&str; 4] = ["d0", "d1", "d2", "v0"];

/// IPv4 subnets of the links (address, prefix length), a few per link.
const ADDR4: [(&str, &str, u8); 8] = [
    ("d0", "10.0.0.1", 24),
    ("d0", "10.0.0.129", 25),
    ("d1", "10.1.0.1", 16),
    ("d1", "192.168.1.1", 24),
    ("d2", "172.16.5.1", 31),
    ("d2", "172.16.9.9", 32),
    ("v0", "10.2.0.1", 24),
    ("d1", "10.1.2.3", 24),
];

/// IPv4 addresses inside the subnets above: secondaries when the primary is there.
const SEC4: [(&str, &str, u8); 5] = [
    ("lo", "10.9.9.9", 32),
    ("d0", "10.0.0.77", 24),
    ("d0", "10.0.0.200", 25),
    ("d1", "10.1.9.9", 16),
    ("v0", "10.2.0.55", 24),
];

const ADDR6: [(&str, &str, u8); 7] = [
    ("d0", "2001:db8:0:1::1", 64),
    ("d0", "2001:db8:0:1::99", 128),
    ("d1", "2001:db8:1::1", 48),
    ("d1", "2001:db8:1:5::1", 64),
    ("d2", "2001:db8:2::1", 127),
    ("v0", "2001:db8:3::1", 64),
    ("d2", "fd00::2", 64),
];

const DST4: [&str; 18] = [
    "default",
    "0.0.0.0/1",
    "10.0.0.0/8",
    "10.0.0.0/16",
    "10.0.0.0/24",
    "10.0.0.128/25",
    "10.0.0.5/32",
    "10.1.0.0/16",
    "10.1.2.0/24",
    "172.16.0.0/12",
    "172.16.5.0/24",
    "8.8.8.0/24",
    "8.0.0.0/8",
    "192.168.1.0/24",
    "192.168.1.7/32",
    "10.2.0.0/24",
    "203.0.113.0/24",
    "203.0.113.64/26",
];

const DST6: [&str; 15] = [
    "default",
    "::/1",
    "2001:db8::/32",
    "2001:db8::/48",
    "2001:db8:0:1::/64",
    "2001:db8:0:1::5/128",
    "2001:db8:1::/48",
    "2001:db8:1:5::/64",
    "2001:db8:2::/64",
    "2001:db8:3::/64",
    "2001:db8:ff::/48",
    "2001:db8:ff:1::/64",
    "2400:cb00::/32",
    "fd00::/8",
    "fd00::/64",
];

const GW4: [&str; 10] = [
    "10.0.0.2",
    "10.0.0.130",
    "10.1.7.7",
    "192.168.1.254",
    "172.16.5.0",
    "10.2.0.9",
    "10.1.2.200",
    "8.8.8.8",
    "10.0.0.1",
    "203.0.113.1",
];

const GW6: [&str; 9] = [
    "2001:db8:0:1::2",
    "2001:db8:1::fe",
    "2001:db8:1:5::5",
    "2001:db8:2::",
    "2001:db8:3::9",
    "fe80::1",
    "fe80::2",
    "2001:db8:ff::1",
    "fd00::9",
];

/// Destinations to ask about: inside, at the edges of and outside the prefixes.
const Q4: [&str; 28] = [
    "10.0.0.1",
    "10.0.0.2",
    "10.0.0.5",
    "10.0.0.0",
    "10.0.0.255",
    "10.0.0.127",
    "10.0.0.200",
    "10.0.1.1",
    "10.1.0.1",
    "10.1.2.3",
    "10.1.2.255",
    "10.1.255.255",
    "10.2.0.5",
    "10.9.9.9",
    "172.16.5.0",
    "172.16.5.1",
    "172.16.9.9",
    "172.20.0.1",
    "192.168.1.7",
    "192.168.1.255",
    "8.8.8.8",
    "8.8.4.4",
    "203.0.113.70",
    "1.1.1.1",
    "127.0.0.1",
    "224.0.0.5",
    "239.1.1.1",
    "224.0.0.9",
];

const Q6: [&str; 21] = [
    "2001:db8:0:1::1",
    "2001:db8:0:1::2",
    "2001:db8:0:1::5",
    "2001:db8:0:1::99",
    "2001:db8:0:2::1",
    "2001:db8:1::1",
    "2001:db8:1:5::1",
    "2001:db8:1:5::77",
    "2001:db8:1:9::1",
    "2001:db8:2::",
    "2001:db8:2::1",
    "2001:db8:3::5",
    "2001:db8:ff::1",
    "2001:db8:ff:1::1",
    "2001:db8:7::1",
    "2400:cb00::1",
    "2a00::1",
    "fd00::5",
    "fd00:1::1",
    "::1",
    "ff05::5",
];

const TABLES: [&str; 5] = ["main", "main", "100", "200", "local"];

/// Nexthop object ids are drawn from 1..=NH_IDS.
const NH_IDS: usize = 12;

struct Gen {
    r: Rng,
    out: String,
    /// rule priorities in use, per family (to delete some later)
    prefs: [Vec<u32>; 2],
    /// A link has been renamed: no link is added from then on. (After each `ip link
    /// add` the oracle gives every link name it has not seen a MAC of its own, and
    /// when that fails on a link that is up it takes the link down and up again:
    /// an artifact of the recording that would drop the link's addresses.)
    renamed: bool,
    /// `sleep 1` lines written so far (at most [`Gen::MAX_SLEEPS`]).
    sleeps: u8,
    /// An `arp` flag was changed: the kernel restarts the device's DAD runs after
    /// random delays, each joining its address's solicited-node group again, so the
    /// IPv6 and link-layer multicast lists come in a random order from then on, and
    /// `ip maddr` listings show IPv4 groups only.
    arp_changed: bool,
    /// The state of a second generator that picks the changes written with `-echo`
    /// (about one in ten), apart from `r` so that the rest of a seed's scenario does
    /// not depend on it.
    echo: u64,
}

impl Gen {
    /// Seconds a scenario may sleep in all: little enough that no neighbour entry's
    /// reachable time (15 s at least) runs out.
    const MAX_SLEEPS: u8 = 5;

    fn line(&mut self, s: impl AsRef<str>) {
        let s = s.as_ref();
        if let Some(rest) = s.strip_prefix("ip ") {
            self.echo = self
                .echo
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            // the verb after the object (and any options before it)
            let verb = rest.split_whitespace().find(|w| !w.starts_with('-'));
            let verb = verb.and_then(|o| rest.split_whitespace().skip_while(|w| *w != o).nth(1));
            let change = matches!(
                verb,
                Some(
                    "add" | "del" | "delete" | "replace" | "change" | "append" | "prepend" | "set"
                )
            );
            if change && (self.echo >> 33) % 10 == 0 {
                self.out.push_str("ip -echo ");
                self.out.push_str(rest);
                self.out.push('\n');
                return;
            }
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn links(&mut self) {
        self.line("ip link add d0 type dummy");
        self.line("ip link add d1 type dummy");
        self.line("ip link add d2 type dummy");
        self.line("ip link add v0 type veth peer name v0p");
        for l in ["d0", "d1", "d2", "v0"] {
            if self.r.chance(85) {
                self.line(format!("ip link set {l} up"));
            }
        }
        if self.r.chance(30) {
            self.line("ip link set v0p up");
        }
        for (dev, a, len) in ADDR4 {
            if self.r.chance(70) {
                let extra = match self.r.below(8) {
                    0 => " metric 50",
                    1 => " noprefixroute",
                    _ => "",
                };
                self.line(format!("ip addr add {a}/{len} dev {dev}{extra}"));
            }
        }
        for (dev, a, len) in ADDR6 {
            if self.r.chance(70) {
                let extra = match self.r.below(8) {
                    0 => " metric 50",
                    1 => " noprefixroute",
                    _ => "",
                };
                self.line(format!("ip -6 addr add {a}/{len} dev {dev}{extra}"));
            }
        }
    }

    /// A bridge's episode, written at once so that nothing else changes its ports
    /// meanwhile: `br0` made and up, an address of each family, some ports (a dummy,
    /// the veth's peer), perhaps an MTU change of a port or of the bridge; queries
    /// through it; then a port leaves or loses its carrier, queries again; the bridge
    /// is deleted. The kernel tells a bridge's change of carrier through the link
    /// watch, which may hold it for up to a second: a `sleep 1` follows the gain and
    /// a `sleep 2` the loss (three of [`Gen::MAX_SLEEPS`]).
    fn bridge(&mut self) {
        if self.renamed || self.sleeps + 3 > Gen::MAX_SLEEPS {
            return;
        }
        // the bridge's own settings (a forward delay of 0 keeps every port timer at
        // 0, so that `ip -d link` of a port reads the same each run: the bridge's own
        // garbage collection timer runs while it is up, so it is never listed so)
        let fd0 = self.r.chance(50);
        if fd0 {
            let extra = self.r.pick(&[
                "",
                " priority 4096",
                " mcast_snooping 0 mcast_router 2",
                " group_fwd_mask 8 group_address 01:80:c2:00:00:0e",
                " max_age 599",
                " nf_call_iptables 1 mcast_igmp_version 3",
            ]);
            self.line(format!(
                "ip link add br0 type bridge forward_delay 0{extra}"
            ));
        } else {
            self.line("ip link add br0 type bridge");
        }
        if self.r.chance(85) {
            self.line("ip link set br0 up");
        }
        self.line("ip addr add 10.3.0.1/24 dev br0");
        if self.r.chance(70) {
            self.line("ip -6 addr add 2001:db8:4::1/64 dev br0");
        }
        let mut ports = Vec::new();
        for p in ["d2", "v0p", "v0", "lo"] {
            if self.r.chance(if p == "lo" { 10 } else { 45 }) {
                self.line(format!("ip link set {p} master br0"));
                ports.push(p);
            }
        }
        if self.r.chance(30) {
            self.line("ip link set v0p up");
        }
        match self.r.below(6) {
            0 => self.line(format!(
                "ip link set {} mtu 1400",
                ports.first().copied().unwrap_or("d2")
            )),
            1 => self.line("ip link set br0 mtu 1300"),
            _ => {}
        }
        if self.r.chance(40) {
            let gw = self.r.pick(&["10.3.0.9", "10.0.0.2"]);
            self.line(format!("ip route add 10.4.0.0/16 via {gw} dev br0"));
        }
        // a port's settings: its spanning tree state decides the bridge's carrier
        if self.r.chance(50) {
            let p = self.r.pick(&["d2", "v0p", "v0"]);
            let o = self.r.pick(&[
                "state 2",
                "state 0",
                "state 4",
                "state 3",
                "cost 5 priority 10",
                "priority 64",
                "hairpin on learning off mcast_router 2",
                "backup_port d2",
                "group_fwd_mask 0x4001 isolated on",
            ]);
            self.line(format!("ip link set {p} type bridge_slave {o}"));
        }
        if self.r.chance(25) {
            let o = self.r.pick(&[
                "priority 100",
                "mcast_router 3",
                "stp_state 0 nf_call_arptables 1",
                "mcast_vlan_snooping 1",
            ]);
            self.line(format!("ip link set br0 type bridge {o}"));
        }
        self.line("sleep 1");
        self.sleeps += 1;
        self.bridge_queries();
        if fd0 && self.r.chance(60) {
            let q = self.r.pick(&[
                "ip -d link show master br0",
                "ip -d -j link show master br0",
                "ip -d link show d2",
            ]);
            self.line(q);
        }
        match self.r.below(4) {
            0 => self.line(format!(
                "ip link set {} nomaster",
                ports.first().copied().unwrap_or("d2")
            )),
            1 => self.line("ip link set v0p down"),
            2 => self.line(format!(
                "ip link set {} down",
                ports.last().copied().unwrap_or("d2")
            )),
            _ => self.line("ip link set br0 down"),
        }
        // a loss of carrier waits for the link watch's next non-urgent run, a second
        // after its last one at most, plus the work queue's delay: one second was not
        // always enough (mirror-diff seed 4664)
        self.line("sleep 2");
        self.sleeps += 2;
        self.bridge_queries();
        self.line("ip link del br0");
    }

    /// A tun or tap device (`ip tuntap`), which has no carrier: brought up, given
    /// addresses and a route, queried, perhaps deleted (sometimes with the wrong mode,
    /// which fails). A tap is given an address of its own (the kernel draws one).
    ///
    /// A tap made before a later `ip link add` would have its address replaced by the
    /// oracle's then (it numbers links it has not seen): `allow_tap` is false then.
    fn tuntap(&mut self, allow_tap: bool) {
        let tap = self.r.chance(50) && allow_tap;
        let (dev, mode) = if tap { ("tp0", "tap") } else { ("tun0", "tun") };
        let extra = self.r.pick(&["", "", " pi", " vnet_hdr", " multi_queue"]);
        self.line(format!("ip tuntap add dev {dev} mode {mode}{extra}"));
        if tap {
            self.line(format!("ip link set {dev} address 02:00:00:00:0c:01"));
        }
        if self.r.chance(85) {
            self.line(format!("ip link set {dev} up"));
        }
        self.line(format!("ip addr add 10.5.0.1/24 dev {dev}"));
        if self.r.chance(60) {
            self.line(format!("ip -6 addr add 2001:db8:5::1/64 dev {dev}"));
        }
        match self.r.below(3) {
            0 => self.line(format!("ip route add 10.7.0.0/16 via 10.5.0.2 dev {dev}")),
            1 => self.line(format!("ip route add 10.7.0.0/16 dev {dev} metric 5")),
            _ => {}
        }
        for q in [
            "ip route get 10.5.0.9",
            "ip route get 10.7.1.1",
            "ip route get 10.0.0.5 from 10.5.0.9 iif ",
            "ip -6 route get 2001:db8:5::9",
        ] {
            if self.r.chance(60) {
                let q = if q.ends_with("iif ") {
                    format!("{q}{dev}")
                } else {
                    q.to_string()
                };
                self.line(q);
            }
        }
        let s = self.r.pick(&[
            "ip tuntap show",
            "ip -j tuntap show",
            "ip link show",
            "dump routes",
        ]);
        self.line(s);
        if self.r.chance(50) {
            let m = if self.r.chance(80) {
                mode
            } else if tap {
                "tun"
            } else {
                "tap"
            };
            self.line(format!("ip tuntap del dev {dev} mode {m}"));
        }
    }

    /// A macvlan episode: `mv0` (sometimes a macvtap) on a dummy or a veth end, in some mode (passthru and
    /// source too), perhaps a second one made on it (which goes on the same lower
    /// device), up with addresses and a route; perhaps an MTU change or the lower
    /// device going down; queries and listings (the lower device's multicast list
    /// among them); perhaps deleted again.
    fn macvlan(&mut self) {
        if self.renamed {
            return;
        }
        let lower = self.r.pick(&["d2", "v0", "v0p", "d0"]);
        let mode = self.r.pick(&[
            "",
            " mode bridge",
            " mode private",
            " mode vepa",
            " mode passthru",
            " mode source",
        ]);
        let kind = if self.r.chance(25) {
            "macvtap"
        } else {
            "macvlan"
        };
        // a source-mode device's remote addresses (never `macaddr add` on `ip link
        // set`: the oracle puts an `address` after the first `add` of an `ip link` line)
        let remotes = if mode == " mode source" && self.r.chance(60) {
            self.r
                .pick(&[
                    " macaddr add 02:51:00:00:00:01",
                    " macaddr set 02:51:00:00:00:01 02:51:00:00:00:02 12:51:00:00:00:01",
                    " macaddr set 02:51:00:00:00:03 01:00:5e:00:00:01",
                ])
                .to_string()
        } else {
            String::new()
        };
        self.line(format!(
            "ip link add mv0 link {lower} type {kind}{mode}{remotes}"
        ));
        if !remotes.is_empty() && self.r.chance(50) {
            let c = self.r.pick(&[
                "macaddr del 02:51:00:00:00:01",
                "macaddr flush",
                "macaddr set 02:51:00:00:00:09",
                "mode bridge macaddr flush",
            ]);
            self.line(format!("ip link set mv0 type {kind} {c}"));
            self.line("ip -d link show dev mv0");
        }
        if self.r.chance(35) {
            self.line("ip link add mv1 link mv0 type macvlan mode bridge");
        }
        if self.r.chance(85) {
            self.line("ip link set mv0 up");
        }
        self.line("ip addr add 10.6.0.1/24 dev mv0");
        if self.r.chance(60) {
            self.line("ip -6 addr add 2001:db8:6::1/64 dev mv0");
        }
        if self.r.chance(50) {
            self.line("ip route add 10.8.0.0/16 via 10.6.0.2 dev mv0");
        }
        match self.r.below(6) {
            0 => self.line(format!("ip link set {lower} mtu 1400")),
            1 => self.line("ip link set mv0 mtu 1600"),
            2 => self.line(format!("ip link set {lower} down")),
            3 => self.line(format!("ip link set mv0 type {kind} mode private")),
            _ => {}
        }
        for q in [
            "ip route get 10.6.0.9",
            "ip route get 10.8.1.1",
            "ip route get 10.0.0.5 from 10.6.0.9 iif mv0",
            "ip -6 route get 2001:db8:6::9",
        ] {
            if self.r.chance(60) {
                self.line(q);
            }
        }
        let s = self.r.pick(&[
            "ip link show",
            "ip -d link show dev mv0",
            "ip link show type macvlan",
            "ip maddr show dev mv0",
            "dump routes",
        ]);
        self.line(s);
        self.line(format!("ip maddr show dev {lower}"));
        if self.r.chance(40) {
            self.line("ip link del mv0");
        }
    }

    /// A VXLAN episode: `vx0` with a VNI and port, perhaps on a lower device (with a
    /// group or a remote address), up with an address and a route; perhaps an MTU
    /// change or a TTL change; queries and listings (the lower device's groups among
    /// them); perhaps deleted again.
    fn vxlan(&mut self) {
        if self.renamed {
            return;
        }
        let lower = self.r.pick(&["", " dev d0", " dev d2", " dev v0"]);
        let peer = match self.r.below(4) {
            0 if !lower.is_empty() => " group 239.1.1.1",
            1 => " remote 10.0.0.9",
            2 => " remote 2001:db8::9",
            _ => "",
        };
        let extra = self.r.pick(&[
            "",
            " nolearning",
            " ttl 64",
            " ageing 60",
            " mtu 9000",
            " gbp",
        ]);
        let (pre, extra) = if extra == " mtu 9000" {
            (extra, "")
        } else {
            ("", extra)
        };
        let vni = self.r.pick(&["42", "43"]);
        self.line(format!(
            "ip link add vx0{pre} type vxlan id {vni} dstport 4789{lower}{peer}{extra}"
        ));
        // a second device on the port: the VNI check, and at its opening the port's
        // sockets (shared only by devices of the same receive flags)
        if self.r.chance(30) {
            let o = self.r.pick(&[
                "id 42",
                "id 42 gbp",
                "id 44 udp6zerocsumrx",
                "external",
                "external vnifilter",
                "id 45 remote 2001:db8::8",
            ]);
            self.line(format!("ip link add vx1 type vxlan {o} dstport 4789"));
            if self.r.chance(60) {
                self.line("ip link set vx1 up");
            }
        }
        if self.r.chance(85) {
            self.line("ip link set vx0 up");
        }
        self.line("ip addr add 10.7.0.1/24 dev vx0");
        if self.r.chance(50) {
            self.line("ip -6 addr add 2001:db8:7::1/64 dev vx0");
        }
        if self.r.chance(50) {
            self.line("ip route add 10.9.0.0/16 via 10.7.0.2 dev vx0");
        }
        match self.r.below(5) {
            0 => self.line("ip link set vx0 mtu 1400"),
            1 => self.line("ip link set vx0 mtu 1480"),
            2 => self.line("ip link set vx0 type vxlan ttl 3"),
            3 => self.line("ip link set vx0 down"),
            _ => {}
        }
        for q in [
            "ip route get 10.7.0.9",
            "ip route get 10.9.1.1",
            "ip route get 10.0.0.5 from 10.7.0.9 iif vx0",
            "ip -6 route get 2001:db8:7::9",
        ] {
            if self.r.chance(60) {
                self.line(q);
            }
        }
        let s = self.r.pick(&[
            "ip link show",
            "ip -d link show dev vx0",
            "ip link show type vxlan",
            "dump routes",
        ]);
        self.line(s);
        if let Some(d) = lower.strip_prefix(" dev ") {
            self.line(format!("ip maddr show dev {d}"));
        }
        if self.r.chance(40) {
            self.line("ip link del vx0");
        }
    }

    /// Queries of [`Gen::bridge`]: to and from the bridge's subnets, and its listings.
    fn bridge_queries(&mut self) {
        let q = self.r.pick(&[
            "ip route get 10.3.0.5",
            "ip route get 10.4.1.1",
            "ip route get 10.3.0.5 from 10.0.0.9 iif d0",
            "ip route get 10.0.0.5 from 10.3.0.9 iif br0",
            "ip route get fibmatch 10.3.0.5",
        ]);
        self.line(q);
        let q = self.r.pick(&[
            "ip -6 route get 2001:db8:4::5",
            "ip -6 route get 2001:db8:4::5 from 2001:db8:0:1::9 iif d0",
            "ip -6 route get fe80::5 oif br0",
        ]);
        self.line(q);
        let s = self.r.pick(&[
            "ip link show",
            "ip -br link",
            "ip addr show dev br0",
            "ip link show master br0",
            "ip maddr show dev br0",
            "ip -j link show type bridge_slave",
        ]);
        self.line(s);
        self.line("dump routes");
    }

    fn sysctl(&mut self) {
        let s = self.r.pick(&[
            "net.ipv4.ip_forward=1",
            "net.ipv4.ip_forward=0",
            "net.ipv6.conf.all.forwarding=1",
            "net.ipv4.conf.all.rp_filter=1",
            "net.ipv4.conf.all.rp_filter=2",
            "net.ipv4.conf.d0.rp_filter=1",
            "net.ipv4.conf.all.accept_local=1",
            "net.ipv4.conf.d1.route_localnet=1",
            "net.ipv4.conf.all.ignore_routes_with_linkdown=1",
            "net.ipv6.conf.all.ignore_routes_with_linkdown=1",
            "net.ipv4.fib_multipath_hash_policy=1",
            "net.ipv6.fib_multipath_hash_policy=1",
            "net.ipv4.fib_multipath_use_neigh=1",
            "net.ipv6.conf.all.forwarding=0",
            "net.ipv4.conf.all.promote_secondaries=1",
            "net.ipv4.conf.d0.promote_secondaries=1",
            "net.ipv4.conf.all.src_valid_mark=1",
            "net.ipv4.conf.d1.forwarding=0",
            "net.ipv6.conf.d0.keep_addr_on_down=1",
            "net.ipv6.conf.all.use_oif_addrs_only=1",
            "net.ipv6.conf.d1.disable_ipv6=1",
            "net.ipv6.conf.d1.disable_ipv6=0",
            "net.ipv4.conf.v0.arp_evict_nocarrier=0",
            "net.ipv6.conf.all.ndisc_evict_nocarrier=0",
            "net.ipv6.conf.d0.stable_secret=2001:db8::1",
            "net.ipv6.conf.default.stable_secret=2001:db8::99",
            "net.ipv4.conf.all.bc_forwarding=1",
            "net.ipv4.conf.d0.bc_forwarding=1",
            "net.ipv4.conf.default.rp_filter=1",
            "net.ipv4.conf.default.rp_filter=0",
            "net.ipv4.conf.default.accept_local=1",
            "net.ipv4.conf.default.ignore_routes_with_linkdown=1",
            "net.ipv4.conf.default.src_valid_mark=1",
            "net.ipv4.conf.default.bc_forwarding=1",
            "net.ipv6.conf.v0.ignore_routes_with_linkdown=1",
            "net.ipv6.conf.all.ignore_routes_with_linkdown=0",
        ]);
        self.line(format!("sysctl {s}"));
    }

    fn route(&mut self, v6: bool) {
        let fam = if v6 { "-6 " } else { "" };
        let verb = self.r.pick(&[
            "add", "add", "add", "add", "replace", "append", "prepend", "change", "del",
        ]);
        let dst = if v6 {
            self.r.pick(&DST6)
        } else {
            self.r.pick(&DST4)
        };
        let gw = |g: &mut Gen| -> &'static str {
            if v6 {
                g.r.pick(&GW6)
            } else {
                g.r.pick(&GW4)
            }
        };
        if verb == "del" && self.r.chance(35) {
            // a delete naming fewer attributes than the route has: the kernel removes
            // the first route the given ones match
            let mut s = format!("ip {fam}route del {dst}");
            match self.r.below(6) {
                0 => s += &format!(" dev {}", self.r.pick(&LINKS)),
                1 => s += &format!(" table {}", self.r.pick(&TABLES)),
                2 => s += &format!(" metric {}", self.r.pick(&[0, 1, 10, 100, 1024])),
                3 => s += &format!(" proto {}", self.r.pick(&["static", "boot", "kernel"])),
                4 if self.r.chance(30) => s += &format!(" nhid {}", 1 + self.r.below(NH_IDS)),
                4 => {
                    s += &format!(
                        " {}",
                        self.r
                            .pick(&["unreachable", "prohibit", "blackhole", "unicast"])
                    )
                }
                _ => {}
            }
            if !v6 && self.r.chance(15) {
                s += &format!(" scope {}", self.r.pick(&["link", "host", "global"]));
            }
            self.line(s);
            return;
        }
        let mut s = format!("ip {fam}route {verb} ");
        let kind = self.r.below(20);
        match kind {
            0 => s += &format!("unreachable {dst}"),
            1 => s += &format!("prohibit {dst}"),
            2 => s += &format!("blackhole {dst}"),
            3 => s += &format!("throw {dst}"),
            4 => s += &format!("local {dst} dev {}", self.r.pick(&["lo", "d0", "d1"])),
            5 if !v6 => s += &format!("broadcast {dst} dev {}", self.r.pick(&LINKS)),
            6 if !v6 => s += &format!("multicast {dst} dev {}", self.r.pick(&LINKS)),
            7 => {
                // multipath
                s += dst;
                for _ in 0..2 + self.r.below(2) {
                    if !v6 && self.r.chance(20) {
                        s += &format!(" nexthop dev {}", self.r.pick(&LINKS));
                        continue;
                    }
                    let g = gw(self);
                    s += &format!(" nexthop via {g}");
                    if self.r.chance(40) {
                        s += &format!(" dev {}", self.r.pick(&LINKS));
                    }
                    if self.r.chance(40) {
                        s += &format!(" weight {}", 1 + self.r.below(4));
                    }
                    if self.r.chance(8) {
                        s += " onlink";
                    }
                    if !v6 && self.r.chance(8) {
                        s += " realms 9";
                    }
                }
            }
            8..=10 => s += &format!("{dst} dev {}", self.r.pick(&LINKS)),
            11 => {
                // through a nexthop object (which may or may not exist, or suit)
                s += &format!("{dst} nhid {}", 1 + self.r.below(NH_IDS));
            }
            _ => {
                // an IPv4 route through an IPv6 gateway now and then
                let g = if !v6 && self.r.chance(6) {
                    let g6 = self.r.pick(&GW6);
                    s += &format!("{dst} via inet6 {g6}");
                    g6
                } else {
                    let g = gw(self);
                    s += &format!("{dst} via {g}");
                    g
                };
                if self.r.chance(35) || g.starts_with("fe80") {
                    s += &format!(" dev {}", self.r.pick(&LINKS));
                }
                if self.r.chance(8) {
                    s += " onlink";
                }
            }
        }
        let table = if kind == 4 && self.r.chance(60) {
            "local"
        } else {
            self.r.pick(&TABLES)
        };
        if table != "main" || self.r.chance(10) {
            s += &format!(" table {table}");
        }
        if self.r.chance(30) {
            s += &format!(" metric {}", self.r.pick(&[0, 1, 10, 100, 1024]));
        }
        if !v6 && self.r.chance(10) {
            s += &format!(" tos {}", self.r.pick(&["0x10", "0x08", "0x04"]));
        }
        if !v6 && self.r.chance(10) {
            s += &format!(" scope {}", self.r.pick(&["link", "host", "global"]));
        }
        if self.r.chance(10) {
            let src = if v6 {
                self.r.pick(&ADDR6).1
            } else {
                self.r.pick(&ADDR4).1
            };
            s += &format!(" src {src}");
        }
        if v6 && self.r.chance(10) {
            s += &format!(" pref {}", self.r.pick(&["low", "medium", "high"]));
        }
        if v6 && self.r.chance(8) {
            s += &format!(" from {}", self.r.pick(&DST6));
        }
        if self.r.chance(5) {
            // an encapsulation (its words end at the next route keyword they do not
            // know; an inline SRH is refused on IPv4 routes)
            s += self.r.pick(&[
                " encap ip id 5 dst 10.9.9.9",
                " encap ip dst 10.9.9.8 ttl 9 key",
                " encap ip6 dst 2001:db8::99 hoplimit 3",
                " encap seg6 mode encap segs 2001:db8::a,2001:db8::b",
                " encap seg6 mode inline segs 2001:db8::a",
            ]);
        }
        if self.r.chance(8) {
            s += &format!(" mtu {}", self.r.pick(&[1280, 1400, 9000]));
        }
        if self.r.chance(10) {
            s += self.r.pick(&[
                " advmss 1400",
                " hoplimit 10",
                " mtu lock 1300",
                " initcwnd 10",
                " rtt 20ms",
                " rtt 1.5s rttvar 0.25",
                " rto_min 200ms",
                " congctl cubic",
                " congctl lock bbr",
                " congctl vegas",
                " features ecn quickack 1",
                " advmss 70000",
                " realms 2",
                " realms 1/3",
                " expires 600",
            ]);
        }
        if self.r.chance(6) {
            s += &format!(
                " proto {}",
                self.r.pick(&["static", "boot", "kernel", "bgp"])
            );
        }
        self.line(s);
    }

    fn rule(&mut self, v6: bool) {
        let fam = if v6 { "-6 " } else { "" };
        let fi = usize::from(v6);
        if !self.prefs[fi].is_empty() && self.r.chance(20) {
            let i = self.r.below(self.prefs[fi].len());
            let p = self.prefs[fi].swap_remove(i);
            self.line(format!("ip {fam}rule del pref {p}"));
            return;
        }
        if !self.prefs[fi].is_empty() && self.r.chance(5) {
            // a flush through the listing's selectors (never the priority-0 rules)
            let sel = match self.r.below(7) {
                0 => format!("table {}", self.r.pick(&["100", "200", "main", "300"])),
                1 => format!("protocol {}", self.r.pick(&["static", "boot", "99"])),
                2 => "not".to_string(),
                3 => format!("iif {}", self.r.pick(&["d0", "lo"])),
                4 => format!("pref {}", self.r.pick(&self.prefs[fi])),
                5 => format!("fwmark {}", self.r.pick(&["1", "0x10/0xf0"])),
                _ => String::new(),
            };
            self.line(format!("ip {fam}rule flush {sel}").trim_end());
            return;
        }
        let pref = 100 * (1 + self.r.below(40)) as u32;
        let pref_kw = self
            .r
            .pick(&["pref", "pref", "priority", "preference", "order"]);
        let mut s = format!("ip {fam}rule add {pref_kw} {pref}");
        if self.r.chance(15) {
            s += " not";
        }
        if self.r.chance(35) {
            let p = if v6 {
                self.r.pick(&DST6)
            } else {
                self.r.pick(&DST4)
            };
            s += &format!(" from {}", if p == "default" { "all" } else { p });
        }
        if self.r.chance(35) {
            let p = if v6 {
                self.r.pick(&DST6)
            } else {
                self.r.pick(&DST4)
            };
            s += &format!(" to {}", if p == "default" { "all" } else { p });
        }
        if self.r.chance(15) {
            s += &format!(" iif {}", self.r.pick(&["d0", "d1", "lo", "v0"]));
        }
        if self.r.chance(15) {
            s += &format!(" oif {}", self.r.pick(&["d0", "d1", "d2"]));
        }
        if self.r.chance(15) {
            s += &format!(" fwmark {}", self.r.pick(&["1", "2", "0x10/0xf0", "3/1"]));
        }
        if !v6 && self.r.chance(10) {
            s += &format!(" tos {}", self.r.pick(&["0x10", "0x08"]));
        }
        if self.r.chance(10) {
            s += &format!(" ipproto {}", self.r.pick(&["tcp", "udp", "icmp"]));
        }
        if self.r.chance(5) {
            s += &format!(" dsfield {}", self.r.pick(&["0x10", "0x04", "8"]));
        }
        if self.r.chance(5) {
            s += &format!(
                " protocol {}",
                self.r.pick(&["static", "boot", "kernel", "99"])
            );
        }
        if self.r.chance(10) {
            s += &format!(" dport {}", self.r.pick(&["53", "80-90", "443"]));
        }
        if self.r.chance(8) {
            s += &format!(" sport {}", self.r.pick(&["1000", "1024-2000"]));
        }
        if self.r.chance(8) {
            s += &format!(" uidrange {}", self.r.pick(&["0-0", "1000-2000"]));
        }
        match self.r.below(12) {
            0 => s += " blackhole",
            1 => s += " unreachable",
            2 => s += " prohibit",
            3 => s += " nop",
            4 => s += &format!(" goto {}", 100 * (1 + self.r.below(40))),
            _ => {
                s += &format!(
                    " {} {}",
                    self.r.pick(&["lookup", "lookup", "table"]),
                    self.r.pick(&["100", "200", "main", "local", "300"])
                );
                if self.r.chance(20) {
                    s += &format!(" suppress_prefixlength {}", self.r.pick(&[0, 8, 24, 48]));
                }
                if self.r.chance(10) {
                    s += &format!(" suppress_ifgroup {}", self.r.below(3));
                }
            }
        }
        self.prefs[fi].push(pref);
        self.line(s);
    }

    fn neigh(&mut self) {
        let v6 = self.r.chance(50);
        let gw = if v6 {
            self.r.pick(&GW6)
        } else {
            self.r.pick(&GW4)
        };
        let fam = if v6 { "-6 " } else { "" };
        let dev = self.r.pick(&LINKS);
        let nud = self
            .r
            .pick(&["permanent", "failed", "noarp", "permanent", "stale"]);
        let verb = self
            .r
            .pick(&["add", "replace", "replace", "del", "change", "flush"]);
        if self.r.chance(15) {
            // proxy entries (scenario 282): listed in the kernel's hash order
            let v = self.r.pick(&["add", "replace", "del", "add"]);
            let extra = self
                .r
                .pick(&["", "", " router", " extern_learn", " protocol 9"]);
            self.line(format!("ip {fam}neigh {v} proxy {gw} dev {dev}{extra}"));
            if self.r.chance(40) {
                self.line(format!("ip {fam}neigh show proxy"));
            }
            return;
        }
        // flags of ordinary entries (scenario 282)
        let flag = self.r.pick(&[
            "",
            "",
            "",
            "",
            " router",
            " extern_learn",
            " protocol static",
        ]);
        if verb == "del" {
            self.line(format!("ip {fam}neigh del {gw} dev {dev}"));
        } else if verb == "flush" {
            // what iproute2's filter selects (scenario 270)
            let sel = self
                .r
                .pick(&["dev d0", "dev v0", "nud all", "to 0/0", "nud permanent"]);
            self.line(format!("ip {fam}neigh flush {sel}"));
        } else if self.r.chance(25) {
            // without an address: the device's own without ARP, else refused and left
            // in NUD_NONE (scenario 269)
            self.line(format!(
                "ip {fam}neigh {verb} {gw} dev {dev} nud {nud}{flag}"
            ));
        } else {
            let mac = self.r.below(256);
            self.line(format!(
                "ip {fam}neigh {verb} {gw} lladdr 02:00:00:00:99:{mac:02x} dev {dev} nud {nud}{flag}"
            ));
        }
    }

    /// An informational command: its (normalized) output is compared too.
    fn show(&mut self) {
        let v6 = self.r.chance(45);
        let fam = if v6 { "-6 " } else { "" };
        let s = match self.r.below(8) {
            0 => format!("ip {fam}rule show"),
            1 => format!("ip {fam}addr show dev {}", self.r.pick(&LINKS)),
            2 => {
                let t = self.r.pick(&["main", "100", "200", "local", "all"]);
                format!("ip {fam}route show table {t}")
            }
            3 => format!("ip {fam}route show dev {}", self.r.pick(&LINKS)),
            4 => {
                let p = if v6 {
                    self.r.pick(&DST6)
                } else {
                    self.r.pick(&DST4)
                };
                let how = self.r.pick(&["root", "match", "exact"]);
                format!(
                    "ip {fam}route show {how} {}",
                    if p == "default" { "0/0" } else { p }
                )
            }
            5 => {
                let sel = self.r.pick(&[
                    "proto kernel",
                    "scope link",
                    "type unicast",
                    "type local",
                    "proto boot",
                ]);
                format!("ip {fam}route show table all {sel}")
            }
            6 => {
                let g = if v6 {
                    self.r.pick(&GW6)
                } else {
                    self.r.pick(&GW4)
                };
                format!("ip {fam}route show via {g}")
            }
            7 if self.r.chance(15) => {
                // the AF_PACKET family (scenario 281)
                self.r
                    .pick(&[
                        "ip -0 addr show",
                        "ip -0 -br addr",
                        "ip -0 route show table all",
                        "ip -0 neigh show dev d0",
                        "ip -0 nexthop show",
                        "ip -0 nexthop show id 1",
                        "ip -0 rule show",
                        "ip -0 neigh flush dev d0",
                        // the MPLS and bridge families (scenario 323)
                        "ip -f mpls route show table all",
                        "ip -f mpls addr show",
                        "ip -f mpls route get 100",
                        "ip -f bridge route show",
                        "ip -f bridge neigh show proxy",
                        "ip -f mpls neigh add 100 dev d0",
                        "ip -f bridge nexthop show",
                    ])
                    .to_string()
            }
            _ => format!("ip {fam}route list"),
        };
        self.line(s);
    }

    /// A starting set of nexthop objects whose gateways are mostly reachable (so that
    /// routes naming ids of the pool often find one), each drawn or not.
    fn nexthop_set(&mut self) {
        for c in [
            "ip nexthop add id 1 via 10.0.0.2 dev d0",
            "ip nexthop add id 2 via 10.1.7.7 dev d1",
            "ip nexthop add id 3 via 2001:db8:0:1::2 dev d0",
            "ip nexthop add id 4 via 2001:db8:1::fe dev d1",
            "ip nexthop add id 5 dev d2",
            "ip -6 nexthop add id 6 blackhole",
            "ip nexthop add id 7 group 1/2,3",
            "ip nexthop add id 8 group 3/4",
            "ip nexthop add id 9 group 1/4",
        ] {
            if self.r.chance(80) {
                self.line(c);
            }
        }
    }

    /// An `ip nexthop` command: objects of both families, blackholes and groups with
    /// ids from a small pool (so that they collide, refer to each other and to missing
    /// ones), replaced, deleted, shown and flushed.
    fn nexthop(&mut self) {
        let id = 1 + self.r.below(NH_IDS);
        let idw = if self.r.chance(8) {
            String::new()
        } else {
            format!("id {id} ")
        };
        let verb = if self.r.chance(20) { "replace" } else { "add" };
        let fam = if self.r.chance(50) { "-6 " } else { "" };
        let s = match self.r.below(14) {
            0..=2 => {
                let onlink = if self.r.chance(8) { " onlink" } else { "" };
                format!(
                    "ip nexthop {verb} {idw}via {} dev {}{onlink}",
                    self.r.pick(&GW4),
                    self.r.pick(&LINKS)
                )
            }
            3 | 4 => format!(
                "ip nexthop {verb} {idw}via {} dev {}",
                self.r.pick(&GW6),
                self.r.pick(&LINKS)
            ),
            5 => format!(
                "ip {fam}nexthop {verb} {idw}dev {}",
                self.r.pick(&["d0", "d1", "d2", "v0", "lo"])
            ),
            6 if self.r.chance(30) => {
                let g = if fam.is_empty() {
                    self.r.pick(&GW4)
                } else {
                    self.r.pick(&GW6)
                };
                format!("ip nexthop {verb} {idw}via {g} fdb")
            }
            6 => format!("ip {fam}nexthop {verb} {idw}blackhole"),
            7..=9 => {
                let n = 1 + self.r.below(3);
                let members: Vec<String> = (0..n)
                    .map(|_| {
                        let m = 1 + self.r.below(NH_IDS);
                        if self.r.chance(30) {
                            format!("{m},{}", 1 + self.r.below(4))
                        } else {
                            m.to_string()
                        }
                    })
                    .collect();
                let fdb = if self.r.chance(15) { " fdb" } else { "" };
                // a resilient group: buckets left out now and then (refused unless
                // replacing), an idle timer of 0 (busy buckets move too) or the default
                let res = if self.r.chance(30) {
                    let mut t = " type resilient".to_string();
                    if !self.r.chance(15) {
                        t += &format!(" buckets {}", self.r.below(17));
                    }
                    if self.r.chance(40) {
                        t += " idle_timer 0";
                    }
                    t
                } else {
                    String::new()
                };
                format!(
                    "ip nexthop {verb} {idw}group {}{fdb}{res}",
                    members.join("/")
                )
            }
            10 | 11 => format!("ip nexthop del id {id}"),
            12 => match self.r.below(6) {
                0 => "ip nexthop show".to_string(),
                1 => format!("ip {fam}nexthop show"),
                2 => format!("ip nexthop show dev {}", self.r.pick(&LINKS)),
                3 => "ip nexthop show groups".to_string(),
                4 => "ip nexthop bucket show".to_string(),
                _ => format!("ip nexthop bucket show id {id}"),
            },
            _ => match self.r.below(4) {
                0 => "ip nexthop flush".to_string(),
                1 => format!("ip nexthop flush dev {}", self.r.pick(&LINKS)),
                2 => "ip nexthop flush groups".to_string(),
                _ => format!("ip nexthop flush id {id}"),
            },
        };
        self.line(s);
    }

    /// A malformed or refused command: its error (errno and message) is compared, and
    /// nothing may change.
    fn invalid(&mut self) {
        let c = self.r.pick(&[
            "ip route add 10.1.0.0/8 via 10.0.0.2",
            "ip route add 10.0.0.0/33 dev d0",
            "ip -6 route add 2001:db8::/129 dev d0",
            "ip route add 10.7.0.0/16 via 10.0.0.2 dev nosuch",
            "ip route add 10.7.0.0/16 via 2001:db8::1",
            "ip route add 10.7.0.0/16 dev d0 metric -1",
            "ip route add 10.7.0.0/16 dev d0 table 0",
            "ip route add 10.7.0.0/16 dev d0 scope bogus",
            "ip route add 10.7.0.0/16 dev d0 proto 256",
            "ip route add 10.7.0.0/16 nexthop dev d0 weight 0",
            "ip route add 10.7.0.0/16 nexthop via 10.0.0.2 weight 257",
            "ip route add 10.7.0.0/16 dev d0 mtu 70000",
            "ip route add 10.7.0.0/16 dev d0 nhid 5",
            "ip -6 route add 2001:db8:7::/64 dev d0 tos 0x10",
            "ip -6 route add 2001:db8:7::/64 via 10.0.0.2",
            "ip -6 route add 2001:db8:7::/64 dev d0 pref bogus",
            "ip route del 10.77.0.0/16",
            "ip -6 route del 2001:db8:77::/64",
            "ip route add local 10.7.7.7 dev nosuch",
            "ip rule add pref 100 from 10.0.0.0/33 lookup 100",
            "ip rule add pref 100 sport 70000 lookup 100",
            "ip rule add pref 100 ipproto bogus lookup 100",
            "ip rule add pref 100 fwmark 0x1/0x0 lookup 100",
            "ip rule add pref 100 lookup 0",
            "ip rule add pref 100 goto 50",
            "ip rule add pref 100 uidrange 5-1 lookup 100",
            "ip -6 rule add pref 100 tos 0x10 lookup 100",
            "ip rule add pref 100 l3mdev",
            "ip rule add pref 100 realms 3 lookup 100",
            "ip rule del pref 12345",
            "ip addr add 10.0.0.1/33 dev d0",
            "ip addr add 10.0.0.1/24 dev nosuch",
            "ip addr add 224.0.0.1/24 dev d0",
            "ip -6 addr add ff02::5/64 dev d0",
            "ip -6 addr add ::1/128 dev d0",
            "ip addr del 10.99.0.1/24 dev d0",
            "ip link set nosuch up",
            "ip link set d0 mtu 70000",
            "ip link add d0 type dummy",
            "ip route get 10.0.0.5 iif nosuch",
            "ip route get 10.0.0.5 oif nosuch",
            "ip route get 300.0.0.1",
            "ip -6 route get 2001:db8::/64",
            "ip route get 10.0.0.5 as 10.0.0.9",
            "ip -6 route get 2001:db8::5 as to 2001:db8::9",
            "ip route get 10.0.0.5 as",
            "ip addr add 10.0.0.1/24 dev d0 valid_lft 0",
            "ip addr add 10.0.0.1/24 dev d0 valid_lft 5 preferred_lft 9",
        ]);
        self.line(c);
    }

    /// Multicast memberships: `ip maddr` listings and static link-layer entries, and
    /// addresses added with `autojoin` (whose groups an IPv4 input route of a
    /// multicast destination is delivered for).
    fn mcast(&mut self) {
        let dev = self.r.pick(&["d0", "d1", "v0", "v0p", "lo"]);
        match self.r.below(4) {
            0 => {
                let l = self.r.pick(&[
                    "ip maddr show",
                    "ip -4 maddr show",
                    "ip -6 maddr show dev v0",
                    "ip -0 maddr",
                    "ip -j maddr show dev v0p",
                    "ip -o maddr show dev d0",
                ]);
                if self.arp_changed {
                    self.line("ip -4 maddr show");
                } else {
                    self.line(l);
                }
            }
            1 => {
                let verb = if self.r.chance(65) { "add" } else { "del" };
                let a = self.r.pick(&[
                    "33:33:00:00:00:01",
                    "01:00:5e:00:00:01",
                    "33:33:ff:00:00:01",
                    "33:33:00:00:00:99",
                    "02:00:00:00:00:77",
                ]);
                self.line(format!("ip maddr {verb} {a} dev {dev}"));
            }
            2 => {
                let g = self
                    .r
                    .pick(&["239.1.1.1", "239.1.1.2", "224.0.0.1", "224.0.0.9"]);
                let plen = self.r.pick(&[32, 32, 24]);
                if self.r.chance(70) {
                    self.line(format!("ip addr add {g}/{plen} dev {dev} autojoin"));
                } else {
                    self.line(format!("ip addr del {g}/{plen} dev {dev}"));
                }
            }
            _ => {
                let g = self.r.pick(&[
                    "ff05::5", "ff02::7", "ff0e::6", "ff02::1", "ff01::9", "ff05::2",
                ]);
                let plen = self.r.pick(&[128, 128, 64]);
                if self.r.chance(70) {
                    self.line(format!("ip -6 addr add {g}/{plen} dev {dev} autojoin"));
                } else {
                    self.line(format!("ip -6 addr del {g}/{plen} dev {dev}"));
                }
            }
        }
        if self.r.chance(40) {
            let fam = if self.arp_changed { "-4 " } else { "" };
            self.line(format!("ip {fam}maddr show dev {dev}"));
        }
    }

    fn change(&mut self) {
        if self.r.chance(4) {
            return self.invalid();
        }
        if self.r.chance(25) {
            return self.show();
        }
        match self.r.below(19) {
            17 | 18 => self.nexthop(),
            16 if self.r.chance(45) => self.mcast(),
            16 => {
                // loopback down, and most of the time up again at once
                self.line("ip link set lo down");
                if self.r.chance(70) {
                    self.line("ip link set lo up");
                }
            }
            13 => {
                let a = self.r.pick(&[
                    "ip addr add 10.9.0.1 peer 10.9.0.2/32 dev d0",
                    "ip addr add 10.9.1.1 peer 10.9.1.0/24 dev d1",
                    "ip addr add 10.0.0.99/24 brd + dev d0",
                    "ip addr add 10.1.4.4/16 dev d1 label d1:x",
                    "ip addr del 10.9.0.1 peer 10.9.0.2/32 dev d0",
                    "ip addr add 192.168.1.9/24 brd 192.168.1.0 dev d1",
                    "ip addr add 10.9.2.1/24 peer 10.9.2.2 brd + dev d0",
                    "ip addr add 10.9.3.1/24 dev d1 mngtmpaddr label d1:peer",
                    "ip addr del 10.9.3.1/24 dev d1 label d1:peer",
                    "ip -6 addr add 2001:db8:9::1 peer 2001:db8:9::2 dev d0",
                    "ip -6 addr add 2001:db8:9:1::1 peer 2001:db8:9:1::2/64 dev d1 metric 50",
                    "ip -6 addr replace 2001:db8:9::1 peer 2001:db8:9::3 dev d0",
                    "ip -6 addr del 2001:db8:9::1/128 dev d0",
                    "ip addr add 0.0.0.0/8 dev d2",
                    "ip link add v7 mtu 1400 txqueuelen 50 type veth peer name v8 mtu 1300",
                    "ip -6 route add 2001:db8:77::/48 via fe80::1 dev lo",
                    "ip -6 route add 2001:db8:78::/48 via 2001:db8:0:1::2 dev lo",
                    "ip neigh get 10.0.0.2 dev d0",
                    "ip route add 10.77.0.0/16 dev d0 nexthop dev d1",
                    // alternative names (`a`: the oracle rewrites a link command
                    // with the word `add` in it), which then name the device
                    "ip link property a dev d0 altname up0",
                    "ip link property a dev d1 altname lan0 altname up0",
                    "ip link property del dev d0 altname up0",
                    "ip route add 10.78.0.0/16 dev up0",
                    "ip rule add iif lan0 table 100 pref 77",
                    "ip link set up0 down",
                    "ip link set d2 addrgenmode none",
                    "ip link set v0 addrgenmode none up",
                    "ip link set d2 addrgenmode eui64",
                ]);
                // after a rename the oracle takes the renamed link for a new one at the
                // next `link add` and resets its address (bouncing it): no link add then
                if !(self.renamed && a.starts_with("ip link add")) {
                    self.line(a);
                }
            }
            14 => {
                // a rename (rules naming the old or the new name follow it), and back
                let (a, b) = self
                    .r
                    .pick(&[("d2", "d9"), ("d9", "d2"), ("v0", "v9"), ("v9", "v0")]);
                self.line(format!("ip link set {a} name {b}"));
                self.renamed = true;
            }
            15 if self.r.chance(50) => {
                let l = self.r.pick(&LINKS);
                let mac = self.r.below(256);
                self.line(format!("ip link set {l} address 02:00:00:00:aa:{mac:02x}"));
            }
            15 => {
                // interface flags: a NOARP change flushes the device's neighbours, any
                // change on a veth up without carrier its non-permanent ones (scenario 280)
                let l = self.r.pick(&["d0", "d1", "v0", "v0p", "lo"]);
                let f = self.r.pick(&[
                    "arp",
                    "arp",
                    "multicast",
                    "promisc",
                    "allmulticast",
                    "dynamic",
                    "trailers",
                ]);
                let v = self.r.pick(&["on", "off"]);
                let extra = self.r.pick(&["", "", "", " up", " down"]);
                self.line(format!("ip link set {l} {f} {v}{extra}"));
                self.arp_changed |= f == "arp";
                if f == "arp" && self.sleeps < Gen::MAX_SLEEPS {
                    // the kernel restarts the device's IPv6 DAD runs after a random
                    // delay under a second (scenario 331): let them run before the
                    // next step, so that the recording does not depend on timing
                    self.line("sleep 1");
                    self.sleeps += 1;
                }
                if self.r.chance(30) {
                    // a neighbour made on it afterwards (on lo: keyed by 0.0.0.0)
                    let a = if l == "lo" { "127.0.0.9" } else { "10.0.0.9" };
                    self.line(format!("ip neigh replace {a} dev {l}"));
                }
            }
            9 => {
                let l = self.r.pick(&LINKS);
                // 60: below IPv4's minimum, the link loses its IPv4 state (scenario 267)
                let mtu = self.r.pick(&[1280, 1400, 1500, 9000, 1200, 60]);
                self.line(format!("ip link set {l} mtu {mtu}"));
            }
            10 if self.renamed => self.sysctl(),
            10 => {
                // a link goes away (with its addresses, routes and neighbours) and
                // may come back as a new link of the same name
                let (l, add) = self.r.pick(&[
                    ("d1", "ip link add d1 type dummy"),
                    ("d2", "ip link add d2 type dummy"),
                    // the peer's address given: the oracle numbers only links whose
                    // names it has not seen, so a new v0p would keep a random one
                    // (random seeds 30947, 31072)
                    (
                        "v0",
                        "ip link add v0 type veth peer name v0p address 02:00:00:00:10:77",
                    ),
                ]);
                self.line(format!("ip link del {l}"));
                if self.r.chance(60) {
                    self.line(add);
                    if self.r.chance(70) {
                        self.line(format!("ip link set {l} up"));
                    }
                }
            }
            11 => {
                let (dev, a, len) = self.r.pick(&SEC4);
                let verb = if self.r.chance(65) { "add" } else { "del" };
                self.line(format!("ip addr {verb} {a}/{len} dev {dev}"));
            }
            12 if self.r.chance(30) => {
                let (dev, a, len) = self.r.pick(&ADDR6);
                let verb = self.r.pick(&["replace", "change"]);
                let extra = self.r.pick(&[
                    " metric 50",
                    " metric 7",
                    " noprefixroute",
                    " preferred_lft 0",
                    " valid_lft forever preferred_lft forever",
                    "",
                ]);
                self.line(format!("ip -6 addr {verb} {a}/{len} dev {dev}{extra}"));
            }
            12 => {
                let (dev, a, len) = self.r.pick(&ADDR6);
                self.line(format!("ip -6 addr add {a}/{len} dev {dev}"));
            }
            6 | 7 => self.neigh(),
            8 => {
                let l = self.r.pick(&LINKS);
                let g = self.r.below(3);
                self.line(format!("ip link set {l} group {g}"));
            }
            0 => {
                let l = self.r.pick(&LINKS);
                let st = if self.r.chance(50) { "down" } else { "up" };
                self.line(format!("ip link set {l} {st}"));
            }
            1 => {
                let (dev, a, len) = self.r.pick(&ADDR4);
                self.line(format!("ip addr del {a}/{len} dev {dev}"));
            }
            2 => {
                let (dev, a, len) = self.r.pick(&ADDR6);
                self.line(format!("ip -6 addr del {a}/{len} dev {dev}"));
            }
            3 => self.sysctl(),
            4 if self.r.chance(30) => {
                // an address re-added with other attributes (a metric, a scope), or
                // changed in place
                let (dev, a, len) = self.r.pick(&ADDR4);
                let verb = self.r.pick(&["replace", "change", "add"]);
                // lifetimes: forever, or deprecated from the start (finite ones count
                // down during the oracle's run, which the generator cannot time)
                let extra = self.r.pick(&[
                    " metric 50",
                    " metric 7",
                    " scope link",
                    " scope host",
                    " noprefixroute",
                    " preferred_lft 0",
                    " valid_lft forever preferred_lft forever",
                    "",
                ]);
                self.line(format!("ip addr {verb} {a}/{len} dev {dev}{extra}"));
            }
            4 => {
                let (dev, a, len) = self.r.pick(&ADDR4);
                self.line(format!("ip addr add {a}/{len} dev {dev}"));
            }
            _ => {
                let fam = if self.r.chance(50) { "-6 " } else { "" };
                let what = match self.r.below(6) {
                    0 => format!("dev {}", self.r.pick(&LINKS)),
                    1 => format!("proto {}", self.r.pick(&["static", "boot", "kernel"])),
                    2 => "cache".to_string(),
                    // one prefix: the routes of its node, those a dump hides between
                    // the legs of a multipath route in a later round
                    3 if fam.is_empty() => "10.0.0.0/16".to_string(),
                    3 => "2001:db8:ff::/48".to_string(),
                    _ => format!("table {}", self.r.pick(&["100", "200", "main"])),
                };
                // -s counts the rounds, -s -s also prints each route taken
                let stats = self.r.pick(&["", "", "", "-s ", "-s -s "]);
                if self.r.chance(15) {
                    let l = self.r.pick(&LINKS);
                    self.line(format!("ip {fam}addr flush dev {l}"));
                } else {
                    self.line(format!("ip {stats}{fam}route flush {what}"));
                }
            }
        }
    }

    fn query(&mut self, v6: bool) {
        let fam = if v6 { "-6 " } else { "" };
        let dst = if v6 {
            self.r.pick(&Q6)
        } else {
            self.r.pick(&Q4)
        };
        // output options: the text `ip` prints is recorded too (the oracle's --raw)
        let opts = match self.r.below(20) {
            0 => "-d ",
            1 => "-j ",
            2 => "-d -j ",
            _ => "",
        };
        let mut s = format!("ip {opts}{fam}route get ");
        if self.r.chance(12) {
            s += "fibmatch ";
        }
        s += dst;
        let input = self.r.chance(30);
        let from = |g: &mut Gen| -> &'static str {
            if v6 {
                if g.r.chance(60) {
                    g.r.pick(&Q6)
                } else {
                    g.r.pick(&ADDR6).1
                }
            } else if g.r.chance(60) {
                g.r.pick(&Q4)
            } else {
                g.r.pick(&ADDR4).1
            }
        };
        if input {
            let src = from(self);
            s += &format!(
                " from {src} iif {}",
                self.r.pick(&["d0", "d1", "d2", "v0", "lo"])
            );
        } else {
            if self.r.chance(30) {
                let src = from(self);
                s += &format!(" from {src}");
            }
            if self.r.chance(20) {
                s += &format!(" oif {}", self.r.pick(&LINKS));
            }
        }
        if self.r.chance(12) {
            s += &format!(" mark {}", self.r.pick(&["1", "2", "0x13", "3"]));
        }
        if !v6 && self.r.chance(10) {
            s += &format!(" tos {}", self.r.pick(&["0x10", "0x08", "0x04"]));
        }
        if self.r.chance(12) {
            s += &format!(" ipproto {}", self.r.pick(&["tcp", "udp", "icmp"]));
            if self.r.chance(60) {
                s += &format!(" dport {}", self.r.pick(&["53", "85", "443"]));
            }
            if self.r.chance(40) {
                s += &format!(" sport {}", self.r.pick(&["1000", "1500", "3000"]));
            }
        }
        if self.r.chance(6) {
            s += &format!(" uid {}", self.r.pick(&["0", "1500"]));
        }
        // `notify` marks the route answered with; an IPv4 output route is cached per
        // CPU, so the cache is flushed after one (the next answer through its nexthop
        // would depend on the CPU); input routes keep the mark for later queries
        // (conformance scenarios 266, 322); IPv6 refuses the flag
        if self.r.chance(5) {
            // printed twice unless `from` is given (scenario 333)
            s += " connected";
        }
        let mut flush = false;
        if self.r.chance(8) {
            s += " notify";
            flush = !input && !v6;
        }
        self.line(s);
        if flush {
            self.line("ip route flush cache");
        }
    }
}

/// The scenario of `seed` with `steps` random steps (commands, each fourth followed by
/// three queries), then twelve queries and a dump of links, addresses, routes and
/// rules. The same seed and steps always give the same text.
pub fn scenario(seed: u64, steps: usize) -> String {
    let mut g = Gen {
        r: Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1),
        out: String::new(),
        prefs: [Vec::new(), Vec::new()],
        renamed: false,
        sleeps: 0,
        arp_changed: false,
        echo: seed ^ 0x5eed_ec40,
    };
    let _ = writeln!(g.out, "## random scenario, seed {seed}, {steps} steps");
    g.links();
    if g.r.chance(60) {
        g.nexthop_set();
    }
    for _ in 0..g.r.below(3) {
        g.sysctl();
    }
    // one bridge episode in some scenarios, at a step drawn now
    let bridge_at = g.r.chance(40).then(|| g.r.below(steps.max(1)));
    let tuntap_at = g.r.chance(30).then(|| g.r.below(steps.max(1)));
    let macvlan_at = g.r.chance(35).then(|| g.r.below(steps.max(1)));
    let vxlan_at = g.r.chance(30).then(|| g.r.below(steps.max(1)));
    for step in 0..steps {
        if bridge_at == Some(step) {
            g.bridge();
        }
        if tuntap_at == Some(step) {
            // (a macvlan at this step comes after it)
            g.tuntap(
                bridge_at.is_none_or(|b| b <= step)
                    && macvlan_at.is_none_or(|m| m < step)
                    && vxlan_at.is_none_or(|x| x < step),
            );
        }
        if macvlan_at == Some(step) {
            g.macvlan();
        }
        if vxlan_at == Some(step) {
            g.vxlan();
        }
        let v6 = g.r.chance(45);
        match g.r.below(11) {
            0..=4 => g.route(v6),
            5 | 6 => g.rule(v6),
            7 => g.nexthop(),
            _ => g.change(),
        }
        if step % 4 == 3 {
            for _ in 0..3 {
                let v6 = g.r.chance(45);
                g.query(v6);
            }
        }
    }
    for _ in 0..12 {
        let v6 = g.r.chance(45);
        g.query(v6);
    }
    g.line(if g.arp_changed {
        "ip -4 maddr show"
    } else {
        "ip maddr show"
    });
    g.line("dump links addrs routes rules nexthops");
    g.out
}
