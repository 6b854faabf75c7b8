#!/usr/bin/env python3
"""Focused random scenarios: nexthop objects and routes through devices whose state
changes under them: veth devices losing and regaining carrier (their peers down and
up), devices down, up and deleted, addresses removed and added back, a bridge gaining
and losing its only port (after which the scenario waits out the link watch), a macvlan
device on a veth; nexthop objects of both families (gateways, device-only,
blackholes, groups, resilient groups, fdb nexthops), routes through them and through
plain gateways and multipath legs, `ignore_routes_with_linkdown`; forwarding and
reverse-path filtering; listings, `ip nexthop get`, and output, input and `fibmatch`
lookups after each change.

Usage: nhcarrier.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link set d0 up",
       "ip link add v0 type veth peer name v1 address 02:00:00:00:10:91",
       "ip link add v2 type veth peer name v3 address 02:00:00:00:10:93",
       "ip link set v1 up", "ip link set v0 up", "ip link set v3 up", "ip link set v2 up",
       "ip link add br0 type bridge", "ip link set br0 up",
       "ip link add m0 link v2 type macvlan mode bridge", "ip link set m0 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip addr add 10.1.0.1/24 dev v0", "ip addr add 10.2.0.1/24 dev v2",
       "ip addr add 10.3.0.1/24 dev br0",
       "ip -6 addr add 2001:db8:0::1/64 dev d0 nodad", "ip -6 addr add 2001:db8:1::1/64 dev v0 nodad",
       "ip -6 addr add 2001:db8:2::1/64 dev v2 nodad", "ip -6 addr add 2001:db8:3::1/64 dev br0 nodad",
       "ip addr add 10.4.0.1/24 dev m0", "ip -6 addr add 2001:db8:4::1/64 dev m0 nodad"]
DEV4 = {"d0": "10.0.0", "v0": "10.1.0", "v2": "10.2.0", "br0": "10.3.0", "m0": "10.4.0"}
DEV6 = {"d0": "2001:db8:0", "v0": "2001:db8:1", "v2": "2001:db8:2", "br0": "2001:db8:3", "m0": "2001:db8:4"}
IDS = list(range(1, 13))


def dev():
    return R.choice(list(DEV4))


def single():
    d = dev()
    r = R.random()
    if r < 0.4:
        return f"via {DEV4[d]}.{R.randint(2, 9)} dev {d}"
    if r < 0.7:
        return f"via {DEV6[d]}::{R.randint(2, 9)} dev {d}"
    if r < 0.85:
        return f"dev {d}"
    if r < 0.9:
        return "blackhole"
    return f"via {DEV4[d]}.{R.randint(2, 9)} fdb" if R.random() < 0.5 else f"via {DEV6[d]}::5 fdb"


def nh_add():
    i = R.choice(IDS)
    r = R.random()
    verb = R.choice(["add", "add", "add", "replace"])
    if r < 0.6:
        return f"ip nexthop {verb} id {i} {single()}"
    k = R.randint(1, 3)
    mem = R.sample(IDS, k)
    grp = "/".join(f"{m},{R.randint(1, 4)}" if R.random() < 0.3 else str(m) for m in mem)
    if r < 0.85:
        return f"ip nexthop {verb} id {i} group {grp}" + (" fdb" if R.random() < 0.05 else "")
    return f"ip nexthop {verb} id {i} group {grp} type resilient buckets {R.choice([2, 4, 8])}"


def route_add():
    fam = R.random() < 0.5
    pfx = (f"10.9.{R.randint(0, 3)}.0/24" if fam else f"2001:db8:9:{R.randint(0, 3)}::/64")
    dflt = "default" if R.random() < 0.1 else pfx
    f = "" if fam else "-6 "
    verb = R.choice(["add", "add", "replace", "append", "del"])
    r = R.random()
    if r < 0.55:
        via = f"nhid {R.choice(IDS)}"
    elif r < 0.8:
        d = dev()
        via = f"via {DEV4[d]}.{R.randint(2, 9)} dev {d}" if fam else f"via {DEV6[d]}::{R.randint(2, 9)} dev {d}"
    else:
        legs = []
        for d in R.sample(list(DEV4), 2):
            legs.append(f"nexthop via {DEV4[d]}.7 dev {d}" if fam else f"nexthop via {DEV6[d]}::7 dev {d}")
        via = " ".join(legs)
    if verb == "del" and R.random() < 0.5:
        via = ""
    return f"ip {f}route {verb} {dflt} {via}".rstrip()


def event():
    e = event1()
    # the bridge's carrier changes reach routes through the link watch, which holds a
    # device's event for up to a second: wait it out
    return e + "\nsleep 2" if " d1 " in e + " " else e


def event1():
    return R.choice(["ip link set m0 down", "ip link set m0 up","ip link set v1 down", "ip link set v1 up", "ip link set v3 down", "ip link set v3 up",
                     "ip link set v1 down", "ip link set v1 up",
                     "ip link set v0 down", "ip link set v0 up", "ip link set v2 down", "ip link set v2 up",
                     "ip link set d0 down", "ip link set d0 up",
                     "ip addr del 10.1.0.1/24 dev v0", "ip addr add 10.1.0.1/24 dev v0",
                     "ip -6 addr del 2001:db8:1::1/64 dev v0", "ip -6 addr add 2001:db8:1::1/64 dev v0 nodad",
                     "ip addr flush dev v2", "ip addr add 10.2.0.1/24 dev v2",
                     "ip link add d1 type dummy", "ip link set d1 up", "ip link set d1 master br0",
                     "ip link set d1 nomaster", "ip link del d1", "ip link set d1 down",
                     "ip link del v2", "ip link add v2 type veth peer name v3 address 02:00:00:00:10:93",
                     "ip link add m0 link v2 type macvlan mode bridge",
                     "sysctl -w net.ipv4.conf.all.ignore_routes_with_linkdown=1",
                     "sysctl -w net.ipv4.conf.all.ignore_routes_with_linkdown=0",
                     "sysctl -w net.ipv6.conf.all.ignore_routes_with_linkdown=1",
                     "sysctl -w net.ipv4.ip_forward=1", "sysctl -w net.ipv6.conf.all.forwarding=1",
                     "sysctl -w net.ipv4.conf.all.rp_filter=1"])


def query():
    r = R.random()
    if r < 0.3:
        return R.choice(["ip nexthop show", "ip nexthop show", "ip route show", "ip -6 route show",
                         "ip -d nexthop show", "ip nexthop show dev v0", "ip nexthop show groups",
                         "ip route show nhid %d" % R.choice(IDS), "ip -6 route show table all"])
    if r < 0.4:
        return f"ip nexthop get id {R.choice(IDS)}"
    if r < 0.5:
        return "ip route get 10.9.%d.%d from %s iif %s" % (R.randint(0, 4), R.randint(1, 200),
                                                       R.choice(["10.1.0.9", "10.2.0.9", "10.4.0.9", "10.0.0.9"]),
                                                       R.choice(["v0", "v2", "m0", "d0"]))
    if r < 0.55:
        return "ip -6 route get 2001:db8:9:%d::%x from %s iif %s" % (
            R.randint(0, 4), R.randint(1, 200), R.choice(["2001:db8:1::9", "2001:db8:2::9", "2001:db8:4::9"]),
            R.choice(["v0", "v2", "m0"]))
    if r < 0.75:
        return "ip route get 10.9.%d.%d%s" % (R.randint(0, 4), R.randint(1, 200),
                                             R.choice(["", "", " fibmatch", " oif v0", " mark 3"]))
    return "ip -6 route get 2001:db8:9:%d::%x%s" % (R.randint(0, 4), R.randint(1, 200),
                                                 R.choice(["", "", " fibmatch", " oif v0"]))


for _ in range(n):
    r = R.random()
    if r < 0.22:
        out.append(nh_add())
    elif r < 0.28:
        out.append(f"ip nexthop del id {R.choice(IDS)}")
    elif r < 0.45:
        out.append(route_add())
    elif r < 0.65:
        out.append(event())
    else:
        out.append(query())
out += ["ip nexthop show", "ip route show", "ip -6 route show"]
print("\n".join(out))
