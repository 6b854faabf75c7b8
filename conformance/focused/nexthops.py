#!/usr/bin/env python3
"""Focused random scenarios: nexthop objects (gateways, blackholes, groups, resilient and fdb groups), routes through them, link events.

Usage: nexthops.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 40
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add d1 type dummy","ip link set d0 up","ip link set d1 up",
"ip addr add 10.0.0.1/24 dev d0","ip addr add 10.1.0.1/24 dev d1","ip -6 addr add 2001:db8:1::1/64 dev d0","ip -6 addr add 2001:db8:2::1/64 dev d1"]
ids=[1,2,3,4,5,6,7,8]
def nh():
    r=R.random()
    if r<0.2: return "via 10.0.0.2 dev d0"
    if r<0.35: return "via 10.1.0.2"
    if r<0.45: return "via 2001:db8:1::2 dev d0"
    if r<0.55: return "via fe80::1 dev d1"
    if r<0.62: return "dev d0"
    if r<0.68: return "blackhole"
    if r<0.72: return "via 10.5.5.5"
    if r<0.76: return "via 10.0.0.2 dev d1 onlink"
    if r<0.8: return "via 2001:db8:1::2 fdb"
    if r<0.83: return "dev d1 proto bgp"
    k=R.randint(1,3); g="/".join(str(R.choice(ids))+(","+str(R.randint(1,4)) if R.random()<0.3 else "") for _ in range(k))
    t=R.choice([""," type resilient buckets 8 idle_timer 0",""," fdb"])
    return "group "+g+t
for i in range(n):
    r=R.random()
    if r<0.35:
        out.append(f"ip nexthop {R.choice(['add','add','replace'])} id {R.choice(ids)} {nh()}")
    elif r<0.45:
        out.append(R.choice([f"ip nexthop del id {R.choice(ids)}","ip nexthop flush","ip nexthop flush dev d1","ip nexthop flush groups",f"ip nexthop flush id {R.choice(ids)}"]))
    elif r<0.6:
        p=R.choice(["10.9.0.0/16","10.8.0.0/16","2001:db8:9::/48"])
        fam="-6 " if ":" in p else ""
        out.append(f"ip {fam}route {R.choice(['add','replace','append','del','change'])} {p} nhid {R.choice(ids)}{R.choice(['','',' metric 5',' table 100'])}")
    elif r<0.7:
        out.append(R.choice(["ip nexthop show","ip -j nexthop show","ip nexthop show groups","ip nexthop show fdb","ip -6 nexthop show",f"ip nexthop get id {R.choice(ids)}","ip nexthop bucket show","ip route show","ip -6 route show","ip nexthop show dev d1"]))
    elif r<0.85:
        a=R.choice(["10.9.0.1","10.8.0.1","2001:db8:9::1"])
        fam="-6 " if ":" in a else ""
        out.append(R.choice([f"ip {fam}route get {a}",f"ip {fam}route get fibmatch {a}",f"ip {fam}route get {a} oif d1"]))
    else:
        out.append(R.choice(["ip link set d1 down","ip link set d1 up","ip link set d0 down","ip link set d0 up","ip addr flush dev d1","ip addr add 10.1.0.1/24 dev d1","ip link set d1 carrier off"]))
out.append("ip nexthop show")
out.append("ip route show table all")
print("\n".join(out))
