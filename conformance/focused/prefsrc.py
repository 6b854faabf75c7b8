#!/usr/bin/env python3
"""Focused random scenarios: routes' preferred sources (`src`). Routes of both
families, in several tables, of several types, through gateways, devices, multipath
legs and nexthop objects, naming a source that is or is not a local address (on the
route's device or another, primary or secondary, tentative, deprecated, of another
scope); then the addresses come and go (deleted, promoted, replaced, flushed, their
device down or deleted) and the routes are listed and queried: IPv4 routes go with
their source (fib_sync_down_addr), IPv6 routes lose it (rt6_remove_prefsrc).

Usage: prefsrc.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip addr add 10.0.0.2/24 dev d0", "ip addr add 10.1.0.1/24 dev d1",
       "ip addr add 192.168.7.7/32 dev d1", "ip -6 addr add 2001:db8::1/64 dev d0 nodad",
       "ip -6 addr add 2001:db8:1::1/64 dev d1 nodad", "ip -6 addr add 2001:db8:7::7/128 dev d1 nodad",
       "ip nexthop add id 1 via 10.0.0.9 dev d0", "ip nexthop add id 2 via 2001:db8::9 dev d0"]
src4 = ["10.0.0.1", "10.0.0.2", "10.1.0.1", "192.168.7.7", "10.0.0.3", "127.0.0.1", "10.5.5.5"]
src6 = ["2001:db8::1", "2001:db8:1::1", "2001:db8:7::7", "2001:db8::3", "::1", "fe80::ff:fe00:1", "2001:db8:5::5"]
def route():
    if R.random() < 0.55:
        p = R.choice(["10.9.0.0/16", "10.8.0.0/24", "default", "10.7.7.7"])
        nh = R.choice(["via 10.0.0.9", "via 10.1.0.9 dev d1", "dev d1", "nhid 1", "nexthop via 10.0.0.9 nexthop via 10.1.0.9",
                       "dev d0 scope link"])
        x = R.choice(["", "", " table 100", " metric 7", " proto static"])
        t = R.choice(["", "", "", "local ", "unreachable ", "blackhole "])
        if t in ("unreachable ", "blackhole "):
            nh = ""
        return "ip route %s %s%s %s src %s%s" % (R.choice(["add", "add", "replace", "append"]), t, p, nh, R.choice(src4), x)
    p = R.choice(["2001:db8:9::/48", "2001:db8:8::/64", "default", "2001:db8:6::6"])
    nh = R.choice(["via 2001:db8::9", "via 2001:db8:1::9 dev d1", "dev d1", "nhid 2", "nexthop via 2001:db8::9 nexthop via 2001:db8:1::9"])
    x = R.choice(["", "", " table 100", " metric 7", " proto static"])
    return "ip -6 route %s %s %s src %s%s" % (R.choice(["add", "add", "replace", "append"]), p, nh, R.choice(src6), x)
def addr():
    r = R.random()
    if r < 0.5:
        a = R.choice(["10.0.0.1/24", "10.0.0.2/24", "10.0.0.3/24", "10.1.0.1/24", "192.168.7.7/32", "10.5.5.5/32"])
        d = R.choice(["d0", "d1"])
        x = R.choice(["", "", " scope link", " scope host", " noprefixroute"])
        return "ip addr %s %s dev %s%s" % (R.choice(["add", "del", "del", "replace"]), a, d, x)
    a = R.choice(["2001:db8::1/64", "2001:db8::3/64", "2001:db8:1::1/64", "2001:db8:7::7/128", "2001:db8:5::5/128"])
    d = R.choice(["d0", "d1"])
    x = R.choice([" nodad", " nodad", " nodad preferred_lft 0", "", " nodad scope link"])
    return "ip -6 addr %s %s dev %s%s" % (R.choice(["add", "del", "del", "replace"]), a, d, x)
def other():
    return R.choice(["ip link set d1 down", "ip link set d1 up", "ip link set d0 down", "ip link set d0 up",
                     "sysctl -w net.ipv4.conf.all.promote_secondaries=%d" % R.randint(0, 1),
                     "ip addr flush dev d1", "ip -6 addr flush dev d1", "ip link del d1", "ip link add d1 type dummy",
                     "sysctl -w net.ipv6.conf.d1.keep_addr_on_down=%d" % R.randint(0, 1)])
def show():
    return R.choice(["ip route show table all", "ip -6 route show table all", "ip route show", "ip -6 route show",
                     "ip route get 10.9.0.5", "ip route get 10.8.0.5", "ip route get 10.7.7.7", "ip route get 10.9.0.5 table 100",
                     "ip -6 route get 2001:db8:9::5", "ip -6 route get 2001:db8:8::5", "ip -6 route get 2001:db8:6::6",
                     "ip route get 10.9.0.5 from 10.0.0.2", "ip -6 route get 2001:db8:9::5 from 2001:db8:7::7",
                     "ip route get fibmatch 10.9.0.5", "ip -6 route get fibmatch 2001:db8:9::5", "ip addr show"])
for _ in range(n):
    r = R.random()
    if r < 0.35: out.append(route())
    elif r < 0.6: out.append(addr())
    elif r < 0.68: out.append(other())
    else: out.append(show())
out += ["ip route show table all", "ip -6 route show table all"]
print("\n".join(out))
