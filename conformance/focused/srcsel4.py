#!/usr/bin/env python3
"""Focused random scenarios: the IPv4 source address an output route answers with when the query names none --
`inet_select_addr` over primary and secondary addresses of several scopes and devices (the loopback's among them),
`route_localnet` turned on and off for all devices or one, and what the nexthops remember of their choice
(`nh_saddr`, kept until an address event): routes through devices, gateways (IPv4 and IPv6), nexthop objects and
groups, of several scopes and tables, sharing infos or not; fibmatch queries, which choose too; addresses added and
deleted, devices going down and up.

Usage: srcsel4.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 50
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add d1 type dummy","ip link set d0 up","ip link set d1 up",
     "ip addr add 10.0.0.1/24 dev d0 scope link","ip addr add 10.0.1.1/24 dev d0","ip addr add 10.1.0.1/24 dev d1",
     "ip -6 addr add 2001:db8::2/64 dev d0 nodad","ip nexthop add id 1 dev d0","ip nexthop add id 2 via 10.0.0.254 dev d0",
     "ip nexthop add id 3 via 2001:db8::1 dev d0","ip nexthop add id 4 group 1/2"]
addrs=["10.0.0.2/24","10.0.0.3/24 scope link","10.0.1.2/24","10.0.2.1/24 scope host","10.1.0.2/24 scope link","32.1.13.185/29",
       "127.0.0.2/8 scope link","10.5.5.5/32","10.9.0.1/24","192.168.1.1/24 scope 100","127.0.0.1/8"]
def route():
    p=R.choice(["10.5.0.0/16","10.6.0.0/16","10.7.0.0/16","10.8.0.0/16","224.0.0.0/4","10.9.9.9"])
    nh=R.choice(["dev lo","dev lo","dev d0","dev d1","via 10.0.0.254","via 10.0.1.254","via 10.1.0.254 dev d1",
                 "via inet6 2001:db8::1 dev d0","nhid 1","nhid 2","nhid 3","nhid 4","dev d0 src 10.0.1.1",
                 "nexthop dev d0 nexthop dev d1","nexthop via 10.0.0.254 nexthop dev lo"])
    t=R.choice(["","","","multicast ","broadcast ","local "])
    extra=R.choice(["","",""," scope link"," scope host"," metric 5"," table 100"," proto static"])
    # (a multicast or broadcast route, or a route to multicast destinations, through an object that other routes share
    # meets their per-CPU cached output route, or they its: README.md)
    if nh.startswith("nhid") and (t in ("multicast ","broadcast ") or p=="224.0.0.0/4"): t=""; p=R.choice(["10.5.0.0/16","10.6.0.0/16"])
    return f"{t}{p} {nh}{extra}"
for i in range(n):
    r=R.random()
    if r<0.14:
        out.append(f"ip addr {R.choice(['add','add','del'])} {R.choice(addrs)} dev {R.choice(['d0','d0','d1','lo'])}")
    elif r<0.32:
        out.append(f"ip route {R.choice(['add','add','replace','del','append'])} {route()}")
    elif r<0.42:
        d=R.choice(["all","all","d0","d1","lo","default"])
        out.append(f"sysctl -w net.ipv4.conf.{d}.route_localnet={R.choice([0,1])}")
    elif r<0.47:
        out.append(R.choice(["ip link set d1 down","ip link set d1 up","ip link set d0 down","ip link set d0 up",
                             "ip nexthop replace id 1 dev d0","ip nexthop replace id 2 via 10.0.1.254 dev d0",
                             "ip nexthop replace id 2 via 10.0.0.254 dev d0","ip rule add to 10.5.0.0/16 lookup 100",
                             "ip rule del pref 32765","ip route flush cache","ip link add d2 type dummy","ip link del d2",
                             "ip addr add 10.2.0.1/24 dev d2","ip link set d2 up"]))
    else:
        d=R.choice(["10.5.0.1","10.6.0.1","10.7.0.1","10.8.0.1","10.9.9.9","224.0.0.1","239.1.2.3","10.0.0.5","10.0.1.5",
                    "10.1.0.5","8.8.8.8"])
        q=f"ip route get {d}"
        for k,v in R.sample([("oif",R.choice(["d0","d1","lo"])),("fibmatch",None),("mark","1"),("ipproto","icmp")],R.randint(0,1)):
            q+=f" {k}" if v is None else f" {k} {v}"
        out.append(q)
print("\n".join(out))
