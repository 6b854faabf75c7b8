#!/usr/bin/env python3
"""Focused random scenarios: IPv4 routing realms. Routes with source/destination
realms (`realms S/D`, `realm D`) of several types, through gateways, devices, multipath
legs and nexthop objects, rules with `realms` and selectors, the reverse routes the
source check finds (`rp_filter`, `accept_local`, forwarding), and the realms output and
input answers report (`fib_combine_itag`, `rt_set_nexthop`, the rule's class).

Usage: realms.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip addr add 10.1.0.1/24 dev d1",
       "ip nexthop add id 1 via 10.0.0.9 dev d0", "ip nexthop add id 2 via 10.1.0.9 dev d1",
       "ip nexthop add id 3 group 1/2", "sysctl -w net.ipv4.ip_forward=1"]
pfx = ["10.9.0.0/16", "10.9.1.0/24", "10.8.0.0/16", "0.0.0.0/0", "10.7.0.0/16", "10.1.0.0/24"]


def realm():
    return R.choice(["", "", " realm 5", " realms 3/4", " realms 0/7", " realms 6/0", " realm 65535", " realms 2/2"])


def route():
    op = R.choice(["add", "add", "replace", "append", "prepend", "change", "del"])
    p = R.choice(pfx)
    if op == "del":
        return f"ip route del {p}{R.choice(['', ' realm 5', ' realms 3/4', ' table 100'])}"
    via = R.choice([" via 10.0.0.7", " via 10.1.0.8", " dev d0", " dev d1", " nhid 1", " nhid 3",
                    " nexthop via 10.0.0.7 realm 8 nexthop via 10.1.0.8",
                    " nexthop via 10.0.0.7 nexthop via 10.1.0.8 realms 1/9"])
    typ = R.choice(["", "", "", "blackhole ", "unreachable ", "local "])
    if typ in ("blackhole ", "unreachable "):
        via = ""
    r = "" if "nhid" in via else realm()
    return f"ip route {op} {typ}{p}{via}{r}{R.choice(['', '', ' table 100', ' metric 5', ' tos 0x10'])}"


def query():
    d = R.choice(["10.9.1.1", "10.9.2.1", "10.8.0.1", "10.6.0.1", "10.7.0.5", "10.1.0.5", "10.0.0.5", "10.1.0.1"])
    s = R.choice(["10.7.0.5", "10.9.1.5", "10.8.0.5", "10.0.0.5", "10.1.0.5", "10.6.6.6", "10.1.0.1"])
    return R.choice([f"ip route get {d}", f"ip route get {d} from {s} iif d0", f"ip route get {d} from {s} iif d1",
                     f"ip route get {d} from {s} iif d1 tos 0x10", f"ip route get {d} oif d1",
                     f"ip route get {d} mark 7", f"ip route get {d} from {s} iif d0 mark 7",
                     f"ip route get fibmatch {d}", f"ip route get {d} from 10.0.0.1"])


for i in range(n):
    r = R.random()
    if r < 0.45:
        out.append(query())
    elif r < 0.75:
        out.append(route())
    elif r < 0.9:
        out.append(R.choice(["ip rule add pref 100 fwmark 7 table 100 realms 11/12",
                             "ip rule add pref 110 from 10.7.0.0/16 table 100 realms 13",
                             "ip rule add pref 120 iif d1 lookup main realms 0/14",
                             "ip rule add pref 130 to 10.9.0.0/16 table 100",
                             "ip rule add pref 140 tos 0x10 lookup main realms 15/0",
                             "ip rule del pref 100", "ip rule del pref 110", "ip rule del pref 120",
                             "ip rule del pref 130", "ip rule del pref 140", "ip rule show"]))
    else:
        out.append(R.choice(["sysctl -w net.ipv4.conf.all.rp_filter=1", "sysctl -w net.ipv4.conf.all.rp_filter=0",
                             "sysctl -w net.ipv4.conf.d1.rp_filter=2", "sysctl -w net.ipv4.conf.d1.rp_filter=0",
                             "sysctl -w net.ipv4.conf.d0.accept_local=1", "sysctl -w net.ipv4.ip_forward=0",
                             "sysctl -w net.ipv4.ip_forward=1", "ip route flush cache", "ip link set d1 down",
                             "ip link set d1 up", "ip route show", "ip route show table 100",
                             "ip nexthop replace id 1 via 10.0.0.8 dev d0"]))
out += ["ip route show table all"]
print("\n".join(out))
