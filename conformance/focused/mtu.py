#!/usr/bin/env python3
"""Focused random scenarios: path MTUs. Routes of both families with `mtu` metrics (locked
or not), `advmss` and `hoplimit`, through devices, gateways, multipath legs and nexthop
objects, while the devices' MTUs (a bridge's following its port's), the IPv6 `mtu` conf
sysctl and the dummies' states change; the MTU lookups answer with (output and input,
`fibmatch`) and what listings show. The bridge keeps its port and stays up: its carrier
follows port changes through the link watch, up to a second late.

Usage: mtu.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link add v0 type veth peer name v1",
       "ip link add br0 type bridge", "ip link set d0 up", "ip link set d1 up", "ip link set v0 up",
       "ip link set v1 up", "ip link set v1 master br0", "ip link set br0 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip addr add 10.1.0.1/24 dev d1", "ip addr add 10.2.0.1/24 dev br0",
       "ip -6 addr add 2001:db8:1::1/64 dev d0 nodad", "ip -6 addr add 2001:db8:2::1/64 dev d1 nodad",
       "ip -6 addr add 2001:db8:3::1/64 dev br0 nodad",
       "ip nexthop add id 1 via 10.0.0.9 dev d0", "ip nexthop add id 2 via 2001:db8:2::9 dev d1",
       "ip nexthop add id 3 dev d1"]
devs = ["d0", "d1", "br0", "v0"]
mtus = ["1280", "1300", "1400", "1500", "9000", "1279", "68", "1000"]


def metric():
    return R.choice(["", "", " mtu 1400", " mtu lock 1400", " mtu 1300", " mtu 9000", " mtu lock 1200",
                     " advmss 1300", " hoplimit 7", " mtu 1500 advmss 1400"])


def route(v6):
    if v6:
        p = R.choice(["2001:db8:ff::/48", "2001:db8:fe::/48", "::/0"])
        via = R.choice(["via 2001:db8:1::7 dev d0", "via 2001:db8:2::8", "dev br0", "dev v0", "nhid 2",
                        "nhid 3", "nexthop via 2001:db8:1::7 dev d0 nexthop via 2001:db8:2::8 dev d1"])
        fam = "-6 "
    else:
        p = R.choice(["10.9.0.0/16", "10.8.0.0/16", "0.0.0.0/0"])
        via = R.choice(["via 10.0.0.7", "via 10.1.0.8", "dev br0", "dev v0", "nhid 1", "nhid 3",
                        "nexthop via 10.0.0.7 nexthop via 10.1.0.8"])
        fam = ""
    op = R.choice(["add", "replace", "replace", "change", "append", "del"])
    if op == "del":
        return f"ip {fam}route del {p}"
    return f"ip {fam}route {op} {p} {via}{metric()}"


def query():
    if R.random() < 0.5:
        a = R.choice(["2001:db8:ff::1", "2001:db8:fe::1", "2001:db8:99::1", "2001:db8:1::5", "2001:db8:3::5"])
        return R.choice([f"ip -6 route get {a}", f"ip -6 route get {a}", f"ip -6 route get fibmatch {a}",
                         f"ip -6 route get {a} oif d0", f"ip -6 route get {a} from 2001:db8:2::5 iif d1"])
    a = R.choice(["10.9.0.1", "10.8.0.1", "10.99.0.1", "10.0.0.5", "10.2.0.5"])
    return R.choice([f"ip route get {a}", f"ip route get {a}", f"ip route get fibmatch {a}",
                     f"ip route get {a} oif d1", f"ip route get {a} from 10.1.0.5 iif d1"])


for i in range(n):
    r = R.random()
    if r < 0.35:
        out.append(query())
    elif r < 0.65:
        out.append(route(R.random() < 0.5))
    elif r < 0.9:
        d = R.choice(devs)
        out.append(R.choice([f"ip link set {d} mtu {R.choice(mtus)}", f"ip link set {d} mtu {R.choice(mtus)}",
                             f"sysctl -w net.ipv6.conf.{d}.mtu={R.choice(mtus)}",
                             f"ip link set {R.choice(['d0', 'd1'])} down", f"ip link set {R.choice(['d0', 'd1'])} up",
                             "ip nexthop replace id 3 dev d0", "ip nexthop replace id 2 via 2001:db8:1::9 dev d0",
                             "ip -6 route flush cache", "ip route flush cache"]))
    else:
        out.append(R.choice(["ip route show", "ip -6 route show", "ip link show", "ip -6 route show table all",
                             "ip -d link show br0", "ip route show table local"]))
out += ["ip route show", "ip -6 route show", "ip link show"]
print("\n".join(out))
