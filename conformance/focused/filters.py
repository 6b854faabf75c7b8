#!/usr/bin/env python3
"""Focused random scenarios: the selectors of `ip route show|flush` and `ip rule show`
over routes of both families, several tables, types, scopes, protocols, TOS, realms,
metrics, preferred sources, gateways, multipath legs and nexthop objects: `root`,
`match`, `exact`, `from`, `table`, `proto`, `scope`, `type`, `dev`/`oif`, `via`, `src`,
`tos`, `realm`, `metric`, the families and output options, with route changes between.

Usage: filters.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip addr add 10.1.0.1/24 dev d1",
       "ip -6 addr add 2001:db8:1::1/64 dev d0 nodad", "ip -6 addr add 2001:db8:2::1/64 dev d1 nodad",
       "ip nexthop add id 1 via 10.0.0.9 dev d0", "ip nexthop add id 2 via 2001:db8:2::9 dev d1"]
p4 = ["10.9.0.0/16", "10.9.1.0/24", "10.9.1.128/25", "10.8.0.0/16", "0.0.0.0/0", "10.9.1.7"]
p6 = ["2001:db8:ff::/48", "2001:db8:ff:1::/64", "2001:db8:fe::/48", "::/0", "2001:db8:ff::7"]
tables = ["", "", " table 100", " table 200", " table local"]


def route4():
    typ = R.choice(["", "", "", "blackhole ", "unreachable ", "local ", "broadcast ", "prohibit "])
    if typ in ("blackhole ", "unreachable ", "prohibit "):
        via = ""
    else:
        via = R.choice([" via 10.0.0.7", " via 10.1.0.8 dev d1", " dev d0", " dev d1", " nhid 1",
                        " nexthop via 10.0.0.7 nexthop via 10.1.0.8", " via inet6 2001:db8:1::7 dev d0"])
    extra = "".join(R.choice(["", x]) for x in [" proto bgp", " scope link", " tos 0x10", " realm 5", " metric 10",
                                                   " src 10.0.0.1", " mtu 1400"])
    return f"ip route {R.choice(['add', 'add', 'replace', 'append', 'prepend'])} {typ}{R.choice(p4)}{via}{extra}{R.choice(tables)}"


def route6():
    typ = R.choice(["", "", "", "blackhole ", "unreachable ", "local ", "prohibit "])
    via = "" if typ in ("blackhole ", "unreachable ", "prohibit ") else R.choice(
        [" via 2001:db8:1::7", " via 2001:db8:2::8 dev d1", " dev d0", " dev d1", " nhid 2",
         " nexthop via 2001:db8:1::7 nexthop via 2001:db8:2::8", " via fe80::1 dev d0"])
    extra = "".join(R.choice(["", x]) for x in [" proto bgp", " metric 10", " src 2001:db8:1::1", " pref high",
                                                   " from 2001:db8:77::/64"])
    return f"ip -6 route {R.choice(['add', 'add', 'replace', 'append'])} {typ}{R.choice(p6)}{via}{extra}{R.choice(tables)}"


def sel(v6):
    pf = p6 if v6 else p4
    opts = [lambda: f"root {R.choice(pf)}", lambda: f"match {R.choice(pf)}", lambda: f"exact {R.choice(pf)}",
            lambda: R.choice(pf), lambda: f"table {R.choice(['100', '200', 'all', 'local', 'main', '0', 'nosuch', '300'])}",
            lambda: f"proto {R.choice(['bgp', 'kernel', 'boot', 'static', '5', 'nosuch'])}",
            lambda: f"scope {R.choice(['link', 'host', 'global', 'nosuch'])}",
            lambda: f"type {R.choice(['unicast', 'blackhole', 'local', 'broadcast', 'unreachable', 'multicast', 'nosuch'])}",
            lambda: f"dev {R.choice(['d0', 'd1', 'lo', 'nosuch'])}", lambda: f"oif {R.choice(['d0', 'd1'])}",
            lambda: f"via {R.choice(['10.0.0.7', '10.1.0.8', '2001:db8:1::7', '2001:db8:2::8', 'inet6 2001:db8:1::7', 'fe80::1'])}",
            lambda: f"src {R.choice(['10.0.0.1', '2001:db8:1::1', '10.0.0.0/8'])}", lambda: f"from {R.choice(['2001:db8:77::/64', '10.0.0.0/8', 'root 2001:db8::/32'])}",
            lambda: f"tos {R.choice(['0x10', '0', 'nosuch'])}", lambda: f"realm {R.choice(['5', '0', '5/0'])}",
            lambda: f"metric {R.choice(['10', '0', '1024'])}", lambda: "cache", lambda: "cloned",
            lambda: f"{R.choice(['protocol', 'preference'])} {R.choice(['bgp', 'high'])}", lambda: "nhid 1"]
    return " ".join(R.choice(opts)() for _ in range(R.randint(0, 3)))


for i in range(n):
    r = R.random()
    if r < 0.3:
        out.append(route4() if R.random() < 0.5 else route6())
    elif r < 0.85:
        v6 = R.random() < 0.45
        fam = R.choice(["-6 ", "-6 "]) if v6 else R.choice(["", "-4 ", ""])
        o = R.choice(["", "", "", "-o ", "-j ", "-d ", "-N ", "-s "])
        cmd = R.choice(["show", "show", "show", "list", "flush"])
        out.append(f"ip {o}{fam}route {cmd} {sel(v6)}".rstrip())
    elif r < 0.93:
        out.append(R.choice(["ip route del 10.9.0.0/16", "ip -6 route del 2001:db8:ff::/48", "ip route flush table 100",
                             "ip link set d1 down", "ip link set d1 up", "ip nexthop replace id 1 via 10.1.0.9 dev d1"]))
    else:
        out.append(R.choice(["ip rule add pref 100 from 10.0.0.0/8 table 100", "ip rule add pref 200 to 10.9.0.0/16 tos 0x10 table 200",
                             "ip -6 rule add pref 300 from 2001:db8:77::/64 table 100", "ip rule show", "ip -6 rule show",
                             "ip rule show pref 100", "ip rule show table 100", "ip rule show from 10.0.0.0/8",
                             "ip rule list to 10.9.0.0/16", "ip rule del pref 100", "ip rule show tos 0x10",
                             "ip rule flush table 200"]))
out += ["ip route show table all", "ip -6 route show table all"]
print("\n".join(out))
