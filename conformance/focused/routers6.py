#!/usr/bin/env python3
"""Focused random scenarios: IPv6 router selection (rt6_select, rt6_score_route,
rt6_check_neigh). Several routes of one prefix and metric through gateways and devices
(multipath legs too), of several router preferences, the gateways' neighbour entries in
every state, forwarding on and off (reachability counts only with it off), devices
down, and output and input lookups with and without an output device. Neighbour
listings name one address (the kernel lists a table in a randomly seeded hash order).

Usage: routers6.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip -6 addr add 2001:db8:1::1/64 dev d0 nodad", "ip -6 addr add 2001:db8:2::1/64 dev d1 nodad"]
gws = [("fe80::1", "d0"), ("fe80::2", "d1"), ("2001:db8:1::7", "d0"), ("2001:db8:2::8", "d1"), ("fe80::3", "d0")]
states = ["reachable", "stale", "failed", "incomplete", "permanent", "noarp", "delay", "probe", "none"]
for i in range(n):
    r = R.random()
    if r < 0.3:
        p = R.choice(["::/0", "::/0", "2001:db8:9::/48"])
        op = R.choice(["add", "append", "prepend", "replace", "del", "add"])
        g, d = R.choice(gws)
        how = R.choice([f"via {g} dev {d}", f"via {g} dev {d}", f"dev {d}",
                        f"nexthop via {g} dev {d} nexthop via {R.choice(gws)[0]} dev {R.choice(['d0', 'd1'])}"])
        if "nexthop" in how and "fe80::" not in how.split("nexthop")[2] and op == "add":
            pass
        out.append(f"ip -6 route {op} {p} {how}{R.choice(['', ' metric 1024', ' metric 5'])}{R.choice(['', '', ' pref high', ' pref low'])}")
    elif r < 0.5:
        g, d = R.choice(gws)
        st = R.choice(states)
        out.append(R.choice([f"ip -6 neigh replace {g} dev {d} lladdr 02:00:00:00:0{R.randint(1, 9)}:01 nud {st}",
                             f"ip -6 neigh replace {g} dev {d} nud {st}", f"ip -6 neigh del {g} dev {d}",
                             f"ip -6 neigh change {g} dev {d} nud {st}"]))
    elif r < 0.85:
        dst = R.choice(["2001:db8:9::1", "2001:db8:99::1", "2001:db8:9::2", "2001:db8:77::5"])
        out.append(R.choice([f"ip -6 route get {dst}", f"ip -6 route get {dst}", f"ip -6 route get {dst} oif d1",
                             f"ip -6 route get {dst} oif d0", f"ip -6 route get {dst} from 2001:db8:2::5 iif d1",
                             f"ip -6 route get fibmatch {dst}", f"ip -6 route get {dst} from 2001:db8:1::1"]))
    else:
        out.append(R.choice(["sysctl -w net.ipv6.conf.all.forwarding=1", "sysctl -w net.ipv6.conf.all.forwarding=0",
                             "ip link set d1 down", "ip link set d1 up", "ip link set d0 down", "ip link set d0 up",
                             "ip -6 route flush cache", "ip -6 route show", f"ip -6 neigh show {R.choice(gws)[0]}",
                             "sysctl -w net.ipv6.fib_multipath_hash_policy=1"]))
out += ["ip -6 route show"]
print("\n".join(out))
