#!/usr/bin/env python3
"""Focused random scenarios: the life of devices under the objects that name them -- devices renamed, deleted,
re-created, moved down and up, their MTU changed, while addresses of both families, routes (plain, multipath, with
preferred sources), nexthop objects and groups, policy rules naming devices (`iif`, `oif`, which attach and detach
as devices of those names come and go), neighbours and a bridge's ports refer to them; listings and lookups after each
step.

Usage: lifecycle.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 60
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add d1 type dummy","ip link add v0 type veth peer name v1 address 02:00:00:00:10:98",
     "ip link add br0 type bridge","ip link set d0 up","ip link set d1 up","ip link set v0 up","ip link set v1 up",
     "ip addr add 10.0.0.1/24 dev d0","ip addr add 10.1.0.1/24 dev d1","ip -6 addr add 2001:db8::1/64 dev d0 nodad",
     "ip -6 addr add 2001:db8:1::1/64 dev d1 nodad"]
names=["d0","d1","d2","v0","v1","br0","x0"]
def dev(): return R.choice(names)
steps=[
 lambda: f"ip link set {dev()} name {R.choice(names)}",
 lambda: f"ip link del {dev()}",
 lambda: R.choice([f"ip link add {R.choice(['d0','d1','d2','x0'])} type dummy","ip link add v0 type veth peer name v1 address 02:00:00:00:10:98",
                   "ip link add br0 type bridge"]),
 lambda: f"ip link set {dev()} {R.choice(['up','down','up','mtu 1280','mtu 1000','mtu 1500'])}",
 lambda: f"ip link set {dev()} master br0",
 lambda: f"ip link set {dev()} nomaster",
 lambda: f"ip addr add {R.choice(['10.0.0.1/24','10.1.0.1/24','10.2.0.1/24','10.0.0.2/24'])} dev {dev()}",
 lambda: f"ip -6 addr add {R.choice(['2001:db8::1/64','2001:db8:1::1/64','2001:db8:2::1/64'])} dev {dev()} nodad",
 lambda: f"ip addr flush dev {dev()}",
 lambda: f"ip route {R.choice(['add','replace'])} {R.choice(['10.9.0.0/16','10.8.0.0/16','default'])} {R.choice(['via 10.0.0.254','via 10.1.0.254','dev '+dev(),'nexthop via 10.0.0.254 nexthop via 10.1.0.254','nhid 1','nhid 10','via 10.0.0.254 src 10.0.0.1'])}",
 lambda: f"ip -6 route {R.choice(['add','replace'])} {R.choice(['2001:db8:9::/48','::/0'])} {R.choice(['via 2001:db8::fe','via 2001:db8:1::fe','dev '+dev(),'nhid 2','nexthop via 2001:db8::fe nexthop via 2001:db8:1::fe'])}",
 lambda: f"ip nexthop {R.choice(['add','replace'])} id {R.choice(['1','2','3'])} {R.choice(['via 10.0.0.254 dev d0','via 10.1.0.254 dev d1','dev '+dev(),'via 2001:db8::fe dev d0','blackhole'])}",
 lambda: f"ip nexthop {R.choice(['add','replace'])} id 10 group {R.choice(['1/3','1','3'])}",
 lambda: f"ip rule add {R.choice(['iif','oif'])} {dev()} lookup {R.choice(['100','main'])} pref {R.choice(['100','200'])}",
 lambda: f"ip -6 rule add {R.choice(['iif','oif'])} {dev()} lookup 100 pref 100",
 lambda: f"ip route add {R.choice(['10.9.0.0/16','default'])} dev {dev()} table 100",
 lambda: f"ip neigh add {R.choice(['10.0.0.9','10.1.0.9','2001:db8::9'])} lladdr 02:00:00:00:00:99 dev {dev()}",
 lambda: f"ip rule del pref {R.choice(['100','200'])}",
 lambda: f"ip nexthop del id {R.choice(['1','2','3','10'])}",
]
shows=["ip route show","ip -6 route show","ip rule show","ip -6 rule show","ip nexthop show","ip -br addr show","ip -br link show",
       "ip route show table 100","ip neigh show dev d0","ip link show master br0","ip route show table all"]
for i in range(n):
    r=R.random()
    if r<0.6: out.append(R.choice(steps)())
    elif r<0.75: out.append(R.choice(shows))
    else:
        q=R.choice(["ip route get 10.9.1.1","ip route get 10.8.1.1","ip -6 route get 2001:db8:9::1","ip route get 10.0.0.5",
                    f"ip route get 10.9.1.1 from 10.0.0.9 iif {dev()}",f"ip route get 10.9.1.1 oif {dev()}",
                    f"ip -6 route get 2001:db8:9::1 oif {dev()}",f"ip -6 route get 2001:db8:9::1 from 2001:db8::9 iif {dev()}",
                    "ip route get 8.8.8.8","ip -6 route get 2001:4860::1"])
        out.append(q)
out+=["ip route show table all","ip -6 route show table all","ip rule show","ip -6 rule show","ip nexthop show","ip -br addr show"]
print("\n".join(out))
