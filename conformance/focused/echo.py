#!/usr/bin/env python3
"""Focused random scenarios: `ip -echo`, the kernel's notification of each change as
the change's own request receives it: routes of both families added, replaced,
appended, prepended, changed and deleted (multipath legs, nexthop objects, types,
metrics), addresses (secondaries, promotion, peers, flags), neighbours, rules, nexthop
objects and groups, links; in text, `-j`, `-o` and `-d`.

Usage: echo.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip addr add 10.1.0.1/24 dev d1",
       "ip -6 addr add 2001:db8::1/64 dev d0 nodad", "ip -6 addr add 2001:db8:1::1/64 dev d1 nodad"]
def eo():
    return R.choice(["-echo ", "-echo ", "-echo -j ", "-echo -o ", "-echo -d ", "-echo -j -p ", ""])
def nh4():
    return R.choice(["via 10.0.0.2", "via 10.1.0.2 dev d1", "dev d1", "nhid %d" % R.randint(1, 6),
                     "nexthop via 10.0.0.2 nexthop via 10.1.0.2", "nexthop via 10.0.0.3 weight 3 nexthop dev d1",
                     "via inet6 2001:db8::2 dev d0"])
def nh6():
    return R.choice(["via 2001:db8::2", "via 2001:db8:1::2 dev d1", "dev d1", "nhid %d" % R.randint(1, 6),
                     "nexthop via 2001:db8::2 nexthop via 2001:db8:1::2", "via fe80::1 dev d0"])
def step():
    r = R.random()
    if r < 0.3:
        op = R.choice(["add", "replace", "append", "prepend", "change", "del", "add"])
        p = R.choice(["10.9.0.0/16", "10.8.0.0/24", "default", "10.7.7.7"])
        x = R.choice(["", "", " metric 5", " proto bgp", " table 100", " mtu 1400", " src 10.0.0.1", " tos 0x10", " realm 3"])
        if R.random() < 0.15:
            return "ip %sroute %s %s %s%s" % (eo(), op, R.choice(["blackhole", "unreachable", "prohibit", "local", "broadcast", "throw"]), p, x)
        return "ip %sroute %s %s %s%s" % (eo(), op, p, nh4(), x)
    if r < 0.55:
        op = R.choice(["add", "replace", "append", "prepend", "change", "del", "add"])
        p = R.choice(["2001:db8:9::/48", "2001:db8:8::/64", "default", "2001:db8:7::7"])
        x = R.choice(["", "", " metric 5", " proto bgp", " table 100", " mtu 1400", " pref high", " expires 600"])
        if R.random() < 0.15:
            return "ip %s-6 route %s %s %s%s" % (eo(), op, R.choice(["blackhole", "unreachable", "prohibit"]), p, x)
        return "ip %s-6 route %s %s %s%s" % (eo(), op, p, nh6(), x)
    if r < 0.68:
        if R.random() < 0.6:
            a = "10.%d.0.%d/24" % (R.randint(0, 1), R.randint(1, 5))
            x = R.choice(["", "", " label d0:1", " metric 9", " noprefixroute", " peer 10.9.9.9", " broadcast +"])
            return "ip %saddr %s %s dev %s%s" % (eo(), R.choice(["add", "add", "del", "replace", "change"]), a, R.choice(["d0", "d1"]), x)
        a = "2001:db8:%d::%d/64" % (R.randint(0, 1), R.randint(1, 5))
        x = R.choice([" nodad", " nodad metric 9", " nodad noprefixroute", " nodad home"])
        return "ip %s-6 addr %s %s dev %s%s" % (eo(), R.choice(["add", "add", "del", "replace", "change"]), a, R.choice(["d0", "d1"]), x)
    if r < 0.76:
        i = R.randint(1, 6)
        return "ip %snexthop %s" % (eo(), R.choice([
            "add id %d via 10.0.0.%d dev d0" % (i, R.randint(2, 4)), "add id %d via 2001:db8::%d dev d0" % (i, R.randint(2, 4)),
            "add id %d dev d1" % i, "add id %d blackhole" % i, "replace id %d via 10.1.0.2 dev d1" % i,
            "add id %d group %d/%d" % (i, R.randint(1, 6), R.randint(1, 6)), "del id %d" % i,
            "add id %d group %d,2/%d type resilient buckets 4" % (i, R.randint(1, 6), R.randint(1, 6))]))
    if r < 0.84:
        return "ip %s%srule %s %s" % (eo(), R.choice(["", "-6 "]), R.choice(["add", "add", "del"]), R.choice([
            "from 10.0.0.0/8 lookup 100", "to 10.9.0.0/16 table 100 pref 50", "fwmark 0x10 lookup 100", "iif d0 lookup main",
            "from all lookup 100 suppress_prefixlength 0", "ipproto tcp dport 80 lookup 100", "not to 10.8.0.0/24 prohibit",
            "from 2001:db8::/32 lookup 100", "uidrange 1-10 lookup 100", "goto 32766 pref 10", "l3mdev"]))
    if r < 0.9:
        return "ip %sneigh %s %s lladdr 02:00:00:00:aa:%02x dev d0 nud %s" % (
            eo(), R.choice(["add", "replace", "change", "del"]), R.choice(["10.0.0.2", "2001:db8::2"]), R.randint(0, 3),
            R.choice(["permanent", "reachable", "stale", "noarp"]))
    if r < 0.94:
        return R.choice(["ip %slink add d2 type dummy" % eo(), "ip %slink del d2" % eo(), "ip link set d1 down", "ip link set d1 up",
                         "ip %slink set d2 up" % eo(), "ip %slink set d2 mtu 1400" % eo()])
    return R.choice(["ip route show table all", "ip -6 route show table all", "ip nexthop", "ip rule", "ip -6 rule", "ip addr"])
for _ in range(n):
    out.append(step())
out += ["ip route show table all", "ip -6 route show table all", "ip nexthop"]
print("\n".join(out))
