#!/usr/bin/env python3
"""Focused random scenarios: alternative link names. Names added to and deleted from a
dummy, a veth pair and a bridge (`ip link property a|del`, valid, taken, too long),
renames and deletions of the devices, and every command naming a device by one of
its alternative names: links, addresses, routes of both families, nexthops, rules,
neighbours, route queries, filtered listings.

Usage: altnames.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md).
(The oracle rewrites a link command with the word `add`: properties use `a`.)"""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip link add br0 type bridge", "ip addr add 10.0.0.1/24 dev d0", "ip -6 addr add 2001:db8::1/64 dev d0 nodad"]
alts = ["a0", "a1", "alt-long-name-x", "b0", "d1", "d0", "x" * 20, "br0"]
devs = ["d0", "d1", "br0", "a0", "a1", "alt-long-name-x", "b0", "nosuch", "x" * 20]


def dev():
    return R.choice(devs)


for _ in range(n):
    r = R.random()
    if r < 0.22:
        op = R.choice(["a", "a", "del"])
        names = " ".join("altname %s" % R.choice(alts) for _ in range(R.randint(1, 2)))
        out.append("ip link property %s dev %s %s" % (op, R.choice(["d0", "d1", "br0", "a0", "b0", "lo"]), names))
    elif r < 0.32:
        out.append(R.choice(["ip link set %s name %s" % (dev(), R.choice(["d2", "a0", "d0", "b1"])),
                             "ip link set %s up" % dev(), "ip link set %s down" % dev(), "ip link set %s mtu 1400" % dev(),
                             "ip link set %s master br0" % dev(), "ip link set %s nomaster" % dev(),
                             "ip link set %s alias al" % dev(), "ip link del %s" % R.choice(["d1", "a1", "b0", "br0"]),
                             "ip link add d1 type dummy", "ip link add br0 type bridge", "ip link set dev %s group 2" % dev()]))
    elif r < 0.55:
        d = dev()
        out.append(R.choice(["ip addr add 10.1.0.1/24 dev %s" % d, "ip addr del 10.1.0.1/24 dev %s" % d,
                             "ip -6 addr add 2001:db8:1::1/64 dev %s nodad" % d, "ip addr flush dev %s" % d,
                             "ip route add 10.9.0.0/16 dev %s" % d, "ip route add 10.8.0.0/16 via 10.0.0.9 dev %s" % d,
                             "ip -6 route add 2001:db8:9::/48 dev %s" % d, "ip route del 10.9.0.0/16 dev %s" % d,
                             "ip nexthop add id %d dev %s" % (R.randint(1, 3), d),
                             "ip nexthop add id %d via 10.0.0.9 dev %s" % (R.randint(4, 6), d),
                             "ip rule add iif %s lookup 10 pref %d" % (d, R.choice([100, 101])),
                             "ip rule add oif %s lookup 10 pref 102" % d, "ip rule del pref %d" % R.choice([100, 101, 102]),
                             "ip neigh add 10.0.0.9 lladdr 02:00:00:00:00:99 dev %s" % d,
                             "ip route add 10.7.0.0/16 dev %s table 10" % d]))
    elif r < 0.8:
        d = dev()
        out.append(R.choice(["ip link show", "ip link show %s" % d, "ip link show dev %s" % d, "ip -j link show dev %s" % d,
                             "ip addr show dev %s" % d, "ip -br addr show", "ip route show dev %s" % d, "ip -6 route show dev %s" % d,
                             "ip route show", "ip rule show", "ip nexthop show", "ip nexthop show dev %s" % d,
                             "ip neigh show dev %s" % d, "ip link show master %s" % d, "ip -d link show dev %s" % d,
                             "ip route show table 10"]))
    else:
        d = dev()
        out.append(R.choice(["ip route get 10.9.1.1 oif %s" % d, "ip route get 10.9.1.1 from 10.0.0.2 iif %s" % d,
                             "ip -6 route get 2001:db8:9::1 oif %s" % d, "ip route get 10.7.1.1 iif %s from 10.0.0.3" % d,
                             "ip route get 10.8.1.1"]))
out += ["ip link show", "ip route show", "ip rule show"]
print("\n".join(out))
