#!/usr/bin/env python3
"""Focused random scenarios: the IPv4 routes a nexthop caches (its output route, its
input route) and what answers they give: many lookups (output with and without a device,
source or mark; input from a device; fibmatch) of unicast, broadcast and multicast
destinations between route changes of several types, metrics, TOS, realms and metrics
(mtu, advmss), multipath routes and nexthop objects shared between routes, and the
events that do or do not flush the cache (addresses, rules, links, cache flushes,
sysctls). Run it with the oracle on one CPU.

Usage: copies4.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip addr add 10.1.0.1/24 dev d1",
       "ip nexthop add id 1 via 10.0.0.9 dev d0", "ip nexthop add id 2 via 10.1.0.9 dev d1",
       "ip nexthop add id 3 group 1/2"]
pfx = ["10.9.0.0/16", "10.9.0.0/16", "10.9.1.0/24", "224.0.0.0/4", "default", "default"]
gws = ["via 10.0.0.7", "via 10.1.0.8", "dev d0", "dev d1", "nhid 1", "nhid 2", "nhid 3",
       "via 10.0.0.7 dev d0 onlink"]
attrs = ["", "", "", " mtu 1400", " advmss 1300", " realm 5", " tos 0x10", " metric 10", " metric 20",
         " src 10.1.0.1", " scope link", " proto static"]
dsts = ["10.9.0.1", "10.9.1.1", "10.9.1.255", "10.9.255.255", "224.1.2.3", "239.1.1.1", "8.8.8.8",
        "10.0.0.255", "10.0.0.9", "10.1.0.1"]


def spec():
    r = R.random()
    if r < 0.15:
        return R.choice(["blackhole ", "unreachable ", "prohibit ", "broadcast ", "multicast "]), R.choice(["", "dev d0"])
    if r < 0.3:
        k = R.randint(2, 3)
        return "", " ".join("nexthop " + R.choice(gws[:4]) + R.choice(["", " weight 2"]) for _ in range(k))
    return "", R.choice(gws)


def query():
    a = R.choice(dsts)
    return R.choice([f"ip route get {a}", f"ip route get {a}", f"ip route get {a} oif d1",
                     f"ip route get {a} oif d0", f"ip route get fibmatch {a}",
                     f"ip route get {a} from 10.1.0.1", f"ip route get {a} from 10.0.0.1",
                     f"ip route get {a} from 10.0.0.5 iif d0", f"ip route get {a} from 10.1.0.5 iif d1",
                     f"ip route get {a} mark 5", f"ip route get {a} tos 0x10", f"ip route get {a} connected"])


for i in range(n):
    r = R.random()
    if r < 0.42:
        out.append(query())
    elif r < 0.75:
        op = R.choice(["add", "append", "prepend", "replace", "replace", "change", "del"])
        p = R.choice(pfx)
        if op == "del":
            out.append(R.choice([f"ip route del {p}", f"ip route del {p} {R.choice(gws)}",
                                 f"ip route del {p}{R.choice(attrs)}"]))
        else:
            t, s = spec()
            line = f"ip route {op} {t}{p}{R.choice(attrs)} {s}" if s.startswith("nexthop") else \
                f"ip route {op} {t}{p} {s}{R.choice(attrs)}"
            out.append(" ".join(line.split()))
    elif r < 0.92:
        out.append(R.choice(["ip addr add 10.0.0.2/24 dev d0", "ip addr del 10.0.0.2/24 dev d0",
                             "ip addr add 10.2.0.1/24 dev d1", "ip addr del 10.2.0.1/24 dev d1",
                             "ip rule add pref 100 fwmark 5 table main", "ip rule del pref 100",
                             "ip route flush cache", "ip link set d1 down", "ip link set d1 up",
                             "ip link set d0 mtu 1400", "ip link set d0 mtu 1500",
                             "ip nexthop replace id 1 via 10.0.0.8 dev d0", "ip nexthop replace id 2 via 10.1.0.7 dev d1",
                             "ip nexthop replace id 3 group 2/1", "ip route add 10.77.0.0/16 dev d0",
                             "ip route del 10.77.0.0/16", "sysctl net.ipv4.conf.all.rp_filter=1",
                             "sysctl net.ipv4.conf.all.rp_filter=0", "sysctl net.ipv4.ip_forward=1",
                             "sysctl net.ipv4.ip_forward=0", "sysctl net.ipv4.conf.d1.route_localnet=1"]))
    else:
        out.append(R.choice(["ip route show", "ip route show table all", "ip route flush 10.9.0.0/16"]))
out.append("ip route show")
print("\n".join(out))
