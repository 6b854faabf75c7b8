#!/usr/bin/env python3
"""Focused random scenarios: multipath leg selection (IPv4 and IPv6) under the hash
policies and hash fields, weights, dead legs, and route get with ports, protocol,
source, input device, mark and flow label.

Usage: multipath.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 40
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add d1 type dummy","ip link add d2 type dummy",
"ip link set d0 up","ip link set d1 up","ip link set d2 up",
"ip addr add 10.0.0.1/24 dev d0","ip addr add 10.1.0.1/24 dev d1","ip addr add 10.2.0.1/24 dev d2",
"ip -6 addr add 2001:db8::1/64 dev d0 nodad","ip -6 addr add 2001:db8:1::1/64 dev d1 nodad","ip -6 addr add 2001:db8:2::1/64 dev d2 nodad"]
def legs(v6):
    k=R.choice([2,2,3,3,4]); s=""
    for j in range(k):
        d=R.choice([0,1,2]); h=R.randint(2,9)
        s+=f" nexthop via 2001:db8:{d}::{h}" if v6 else f" nexthop via 10.{d}.0.{h}"
        if R.random()<0.4: s+=f" weight {R.choice([1,2,3,5,10,255] if v6 else [1,2,3,5,10,255,256])}"
    return s
src4=["10.0.0.1","10.1.0.1","10.2.0.1","10.9.9.9","192.0.2.7","10.0.0.77"]
src6=["2001:db8::1","2001:db8:1::1","2001:db8:2::1","2001:db8:9::9","2001:db8:5::77"]
for i in range(n):
    r=R.random()
    if r<0.12:
        fam=R.choice(["ipv4","ipv6"])
        if R.random()<0.6:
            out.append(f"sysctl -w net.{fam}.fib_multipath_hash_policy={R.choice([0,1,2,3])}")
        else:
            out.append(f"sysctl -w net.{fam}.fib_multipath_hash_fields=0x{R.choice([1,2,3,4,7,8,0x10,0x20,0x37,0x3f,0x40,0x7f,0xff0]):x}")
    elif r<0.3:
        op=R.choice(["add","replace","replace","append","prepend","del"])
        if R.random()<0.5:
            p=R.choice(["10.9.0.0/16","10.8.0.0/24","default"])
            out.append(f"ip route {op} {p}{legs(False)}" if op!="del" else f"ip route del {p}")
        else:
            p=R.choice(["2001:db8:9::/48","2001:db8:8::/64","default"])
            if op=="del": out.append(f"ip -6 route del {p}")
            elif R.random()<0.3: out.append(f"ip -6 route {op} {p} via 2001:db8:{R.randint(0,2)}::{R.randint(2,9)}")
            else: out.append(f"ip -6 route {op} {p}{legs(True)}")
    elif r<0.36:
        out.append(R.choice(["ip link set d1 down","ip link set d1 up","ip link set d2 carrier off","ip link set d2 carrier on",
          "sysctl -w net.ipv4.conf.all.ignore_routes_with_linkdown=1","sysctl -w net.ipv6.conf.all.ignore_routes_with_linkdown=1",
          "sysctl -w net.ipv4.fib_multipath_use_neigh=1","ip neigh add 10.1.0.3 lladdr 02:00:00:00:01:03 dev d1 nud permanent",
          "ip route show","ip -6 route show","sysctl -w net.ipv4.fib_multipath_hash_seed=7","sysctl -w net.ipv6.fib_multipath_hash_seed=0"]))
    else:
        v6=R.random()<0.5
        if v6:
            d=f"2001:db8:{R.choice([9,8,7])}::{R.randint(1,300):x}"
            s=" from "+R.choice(src6) if R.random()<0.7 else ""
        else:
            d=f"10.{R.choice([9,8,7])}.{R.randint(0,255)}.{R.randint(1,254)}"
            s=" from "+R.choice(src4) if R.random()<0.7 else ""
        x=""
        if R.random()<0.6: x+=" ipproto "+R.choice(["tcp","udp","icmp","17","sctp","ipv6-icmp"])
        if R.random()<0.5: x+=f" sport {R.randint(1,65535)}"
        if R.random()<0.5: x+=f" dport {R.randint(1,65535)}"
        if R.random()<0.1: x+=" mark 5"
        if s and R.random()<0.3: x+=" iif "+R.choice(["d0","d1","d2"])
        if R.random()<0.1: x+=" fibmatch"
        out.append(f"ip {'-6 ' if v6 else ''}route get {d}{s}{x}")
print("\n".join(out))
