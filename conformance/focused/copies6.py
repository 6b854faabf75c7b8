#!/usr/bin/env python3
"""Focused random scenarios: the IPv6 route copies lookups leave behind (rt6i_pcpu of a
route's or a nexthop object's fib6_nh) and what answers they give: many lookups (output
with and without a device or source, input, fibmatch) between route changes that add,
append, prepend, replace and delete routes and multipath legs of several preferences and
metrics, nexthop objects and groups replaced, and the events that do or do not outdate a
copy (addresses, rules, links, cache flushes). Run it with the oracle on one CPU.

Usage: copies6.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip -6 addr add 2001:db8:3::1/64 dev d1", "ip -6 addr add 2001:db8:4::1/64 dev d0",
       "ip nexthop add id 1 via 2001:db8:4::9 dev d0", "ip nexthop add id 2 via 2001:db8:3::9 dev d1",
       "ip nexthop add id 3 group 1/2"]
pfx = ["2001:db8:ff::/48", "2001:db8:ff::/48", "2001:db8:fe::/48", "::/0", "::/0"]
gws = ["via 2001:db8:4::7", "via 2001:db8:3::8", "via fe80::2 dev d1", "via fe80::1 dev d0",
       "dev d0", "dev d1", "nhid 1", "nhid 2", "nhid 3"]
prefs = ["", "", " pref high", " pref low", " pref medium"]
dsts = ["2001:db8:ff::1", "2001:db8:ff::2", "2001:db8:ff::3", "2001:db8:fe::1", "2001:db8:99::1",
        "2001:db8:99::2", "2001:db8:99::5"]


def spec():
    r = R.random()
    if r < 0.1:
        return R.choice(["blackhole ", "unreachable ", "prohibit "]), ""
    if r < 0.3:
        k = R.randint(2, 3)
        return "", " ".join("nexthop " + R.choice(gws[:4]) for _ in range(k))
    return "", R.choice(gws)


def query():
    a = R.choice(dsts)
    return R.choice([f"ip -6 route get {a}", f"ip -6 route get {a}", f"ip -6 route get {a} oif d1",
                     f"ip -6 route get {a} oif d0", f"ip -6 route get fibmatch {a}",
                     f"ip -6 route get {a} from 2001:db8:3::1", f"ip -6 route get {a} from 2001:db8:4::1",
                     f"ip -6 route get {a} iif d0", f"ip -6 route get {a} from 2001:db8:3::5 iif d1",
                     f"ip -6 route get {a} mark 5"])


for i in range(n):
    r = R.random()
    if r < 0.4:
        out.append(query())
    elif r < 0.75:
        op = R.choice(["add", "append", "append", "prepend", "replace", "change", "del"])
        p = R.choice(pfx)
        met = R.choice(["", "", " metric 1024", " metric 2000"])
        if op == "del":
            out.append(R.choice([f"ip -6 route del {p}{met}", f"ip -6 route del {p} {R.choice(gws)}{met}"]))
        else:
            t, s = spec()
            out.append(f"ip -6 route {op} {t}{p} {s}{met}{R.choice(prefs)}".replace("  ", " ").rstrip())
    elif r < 0.9:
        out.append(R.choice(["ip -6 addr add 2001:db8:3::2/64 dev d1", "ip -6 addr del 2001:db8:3::2/64 dev d1",
                             "ip -6 addr add 2001:db8:5::1/64 dev d0", "ip -6 addr del 2001:db8:5::1/64 dev d0",
                             "ip -6 rule add pref 100 fwmark 5 table main", "ip -6 rule del pref 100",
                             "ip -6 route flush cache", "ip link set d1 down", "ip link set d1 up",
                             "ip link set d0 down", "ip link set d0 up",
                             "ip nexthop replace id 1 via 2001:db8:4::8 dev d0",
                             "ip nexthop replace id 2 via fe80::7 dev d1", "ip nexthop replace id 3 group 2/1",
                             "ip nexthop replace id 3 group 1,3/2,1", "ip -6 route add 2001:db8:77::/48 dev d0",
                             "ip -6 route del 2001:db8:77::/48"]))
    else:
        out.append(R.choice(["ip -6 route show", "ip -6 route show ::/0", "ip -6 route flush 2001:db8:ff::/48"]))
out.append("ip -6 route show")
print("\n".join(out))
