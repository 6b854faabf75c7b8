#!/usr/bin/env python3
"""Focused random scenarios: gateways and their checks. Routes and nexthop objects of
both families through gateways on and off the devices' subnets, with and without
`onlink`, through devices up, down and without carrier, gateways that are local
addresses, link-local, multicast, broadcast or IPv4-mapped, IPv4 routes through IPv6
gateways, and the lookups and listings that follow (flags `onlink`, `linkdown`, `dead`).

Usage: onlink.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link add v0 type veth peer name v1",
       "ip link set d0 up", "ip link set d1 up", "ip link set v0 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip addr add 10.1.0.1/24 dev d1", "ip addr add 10.2.0.1/24 dev v0",
       "ip -6 addr add 2001:db8:1::1/64 dev d0 nodad", "ip -6 addr add 2001:db8:2::1/64 dev d1 nodad"]
gw4 = ["10.0.0.7", "10.1.0.8", "10.2.0.9", "10.5.0.1", "10.0.0.1", "10.0.0.255", "224.0.0.5", "0.0.0.0", "127.0.0.1",
       "10.1.0.0", "192.0.2.1"]
gw6 = ["2001:db8:1::7", "2001:db8:2::8", "2001:db8:5::1", "fe80::1", "2001:db8:1::1", "ff02::1", "::ffff:10.0.0.7",
       "::1", "::", "fe80::2"]
devs = ["d0", "d1", "v0", "v1", "lo"]
for i in range(n):
    r = R.random()
    onl = R.choice(["", "", " onlink"])
    dev = R.choice(["", f" dev {R.choice(devs)}", f" dev {R.choice(devs)}"])
    if r < 0.25:
        p = R.choice(["10.9.0.0/16", "10.8.0.0/16", "0.0.0.0/0"])
        via = R.choice([f"via {R.choice(gw4)}", f"via inet6 {R.choice(gw6)}"])
        out.append(f"ip route {R.choice(['add', 'replace', 'add', 'append'])} {p} {via}{dev}{onl}{R.choice(['', ' scope link', ' table 100'])}")
    elif r < 0.45:
        p = R.choice(["2001:db8:9::/48", "2001:db8:8::/48", "::/0"])
        out.append(f"ip -6 route {R.choice(['add', 'replace', 'add', 'append'])} {p} via {R.choice(gw6)}{dev}{onl}")
    elif r < 0.55:
        i_ = R.choice(["1", "2", "3"])
        via = R.choice([f"via {R.choice(gw4)}", f"via {R.choice(gw6)}"])
        out.append(R.choice([f"ip nexthop {R.choice(['add', 'replace'])} id {i_} {via}{dev or ' dev d0'}{onl}",
                             f"ip nexthop del id {i_}", f"ip route replace 10.7.0.0/16 nhid {i_}",
                             f"ip -6 route replace 2001:db8:7::/48 nhid {i_}"]))
    elif r < 0.8:
        if R.random() < 0.6:
            d = R.choice(["10.9.1.1", "10.8.1.1", "10.7.1.1", "10.66.0.1"])
            out.append(R.choice([f"ip route get {d}", f"ip route get fibmatch {d}", f"ip route get {d} oif d1",
                                 f"ip route get {d} from 10.0.0.5 iif d0"]))
        else:
            d = R.choice(["2001:db8:9::1", "2001:db8:8::1", "2001:db8:7::1", "2001:db8:66::1"])
            out.append(R.choice([f"ip -6 route get {d}", f"ip -6 route get fibmatch {d}",
                                 f"ip -6 route get {d} from 2001:db8:1::5 iif d0"]))
    else:
        out.append(R.choice(["ip link set d1 down", "ip link set d1 up", "ip link set v1 up", "ip link set v1 down",
                             "ip link set d0 carrier off", "ip link set d0 carrier on", "ip route show",
                             "ip -6 route show", "ip nexthop show", "ip route show table 100",
                             "sysctl -w net.ipv4.conf.all.ignore_routes_with_linkdown=1",
                             "sysctl -w net.ipv6.conf.all.ignore_routes_with_linkdown=1",
                             "ip route del 10.9.0.0/16", "ip -6 route del 2001:db8:9::/48",
                             "ip addr del 10.1.0.1/24 dev d1", "ip addr add 10.1.0.1/24 dev d1"]))
out += ["ip route show table all", "ip -6 route show", "ip nexthop show"]
print("\n".join(out))
