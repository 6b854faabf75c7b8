#!/usr/bin/env python3
"""Focused random scenarios: IPv4 default routes of one metric taking turns (`fib_select_default`): default routes
appended, prepended, replaced and deleted in main, local and another table (rules added or not), of several metrics, types and scopes,
through gateways (IPv4 and IPv6), devices and nexthop objects; the gateways' neighbour entries in every state;
devices going down and up; queries with and without an output device, `fibmatch` and `connected`.

Usage: defaults4.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 50
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add d1 type dummy","ip link set d0 up","ip link set d1 up",
     "ip addr add 10.0.0.1/24 dev d0","ip addr add 10.1.0.1/24 dev d1","ip -6 addr add 2001:db8::1/64 dev d0 nodad",
     "ip nexthop add id 1 via 10.0.0.2 dev d0","ip nexthop add id 2 via 10.1.0.3 dev d1",
     ]+(["ip rule add to 9.9.9.0/24 lookup 100"] if seed%2 else [])
gws=["10.0.0.2","10.0.0.3","10.0.0.4","10.1.0.2","10.1.0.3"]
def gwdev(g): return "d0" if g.startswith("10.0.") else "d1"
def nh():
    r=R.random()
    if r<0.7:
        g=R.choice(gws); return f"via {g}"+(f" dev {gwdev(g)}" if R.random()<0.3 else "")
    return R.choice(["nhid 1","nhid 2","via inet6 2001:db8::7 dev d0","dev d1","nexthop via 10.0.0.2 nexthop via 10.0.0.3"])
def route():
    t=R.choice(["","","","","unreachable ","blackhole "])
    extra=R.choice(["","","",""," metric 5"," metric 5"," table 100"," scope link"," tos 0x10"," proto static"," table local"])
    if t: return f"{t}default{extra}"
    return f"default {nh()}{extra}".replace("  "," ")
states=["reachable","stale","failed","incomplete","permanent","noarp","delay","probe"]
for i in range(n):
    r=R.random()
    if r<0.3:
        out.append(f"ip route {R.choice(['append','append','add','prepend','replace','del','del'])} {route()}")
    elif r<0.5:
        g=R.choice(gws+["2001:db8::7"])
        d="d0" if ":" in g else gwdev(g)
        if R.random()<0.2: out.append(f"ip neigh del {g} dev {d}")
        else: out.append(f"ip neigh replace {g} lladdr 02:00:00:00:00:{R.randint(1,99):02d} dev {d} nud {R.choice(states)}")
    elif r<0.55:
        out.append(R.choice(["ip link set d1 down","ip link set d1 up","ip link set d0 down","ip link set d0 up",
                             "ip route flush cache","ip nexthop replace id 1 via 10.0.0.3 dev d0","ip neigh flush dev d0",
                             "ip rule add to 1.2.3.4 lookup 101","ip rule del to 1.2.3.4 lookup 101"]))
    else:
        d=R.choice(["8.8.8.8","8.8.8.8","8.8.8.8","9.9.9.9","10.0.0.9"])
        q=f"ip route get {d}"
        for k,v in R.sample([("oif",R.choice(["d0","d1"])),("fibmatch",None),("connected",None),("tos","0x10"),("mark","1"),("from","10.0.0.1")],R.randint(0,1)):
            q+=f" {k}" if v is None else f" {k} {v}"
        out.append(q)
print("\n".join(out))
