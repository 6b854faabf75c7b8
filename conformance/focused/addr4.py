#!/usr/bin/env python3
"""Focused random scenarios: IPv4 address changes: overlapping primaries and secondaries, labels, peers, flags, promote_secondaries, flushes (with -s), lookups and the local table.

Usage: addr4.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 40
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add d1 type dummy","ip link set d0 up","ip link set d1 up"]
addrs=["10.0.0.1/24","10.0.0.2/24","10.0.0.3/25","10.0.0.129/25","10.0.1.1/16","10.0.0.1/32","10.0.0.255/24","10.0.0.0/24","192.168.1.1/30","10.0.0.5/24"]
opts=["","",""," noprefixroute"," brd +"," brd 10.0.0.77"," label d0:1"," metric 50"," scope link"," scope host"," valid_lft forever preferred_lft forever"," broadcast -"," peer 10.9.9.9"]
for i in range(n):
    r=R.random()
    d=R.choice(["d0","d0","d1"])
    a=R.choice(addrs)
    if r<0.35:
        out.append(f"ip addr {R.choice(['add','add','replace','change'])} {a} dev {d}{R.choice(opts)}")
    elif r<0.55:
        out.append(f"ip addr del {a} dev {d}" if R.random()<0.8 else f"ip addr del {a.split('/')[0]} dev {d}")
    elif r<0.65:
        out.append(R.choice([f"ip addr show dev {d}","ip -4 addr show","ip route show table local","ip route show table all","ip -j addr show dev d0","ip addr show dev d0 secondary","ip addr show dev d0 primary"]))
    elif r<0.75:
        dst=R.choice(["10.0.0.9","10.0.0.130","10.0.1.9","10.0.0.255","10.0.0.0","192.168.1.2","10.0.0.1"])
        out.append(R.choice([f"ip route get {dst}",f"ip route get {dst} oif {d}",f"ip route get fibmatch {dst}",f"ip route get {dst} from 10.0.0.2 iif d1"]))
    elif r<0.82:
        out.append(R.choice(["sysctl -w net.ipv4.conf.d0.promote_secondaries=1","sysctl -w net.ipv4.conf.d0.promote_secondaries=0","sysctl -w net.ipv4.conf.all.promote_secondaries=1"]))
    elif r<0.9:
        out.append(R.choice([f"ip addr flush dev {d}",f"ip addr flush dev {d} secondary",f"ip addr flush dev {d} to 10.0.0.0/25",f"ip -s addr flush dev {d} label d0:1",f"ip link set {d} down",f"ip link set {d} up",f"ip addr flush dev {d} primary"]))
    else:
        out.append(R.choice([f"ip route add 10.5.0.0/16 via 10.0.0.9 dev {d}",f"ip route add 10.6.0.0/16 dev {d} src 10.0.0.1",f"ip route show"]))
out.append("ip addr show")
out.append("ip route show table all")
print("\n".join(out))
