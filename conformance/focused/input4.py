#!/usr/bin/env python3
"""Focused random scenarios: input-path lookups (ip route get ... iif) under the IPv4 conf sysctls (rp_filter, accept_local, route_localnet, forwarding, ...).

Usage: input4.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 40
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add d1 type dummy","ip link set d0 up","ip link set d1 up",
"ip addr add 10.0.0.1/24 dev d0","ip addr add 10.1.0.1/24 dev d1","ip route add 10.9.0.0/16 via 10.0.0.2","ip route add 10.8.0.0/16 via 10.1.0.2",
"ip route add default via 10.1.0.254"]
knobs=["rp_filter","accept_local","route_localnet","forwarding","src_valid_mark","accept_source_route","bc_forwarding","disable_policy","disable_xfrm","proxy_arp"]
devs=["all","default","d0","d1","lo"]
srcs=["10.0.0.5","10.1.0.5","10.9.0.5","10.8.0.5","10.0.0.1","127.0.0.1","0.0.0.0","255.255.255.255","224.0.0.5","10.0.0.255","10.0.0.0","192.168.5.5","10.1.0.1"]
dsts=["10.9.0.9","10.8.0.9","10.0.0.1","10.1.0.1","10.0.0.255","255.255.255.255","127.0.0.1","224.0.0.5","239.1.1.1","10.0.0.0","192.168.9.9","10.0.0.7","0.0.0.0"]
for i in range(n):
    r=R.random()
    if r<0.3:
        k=R.choice(knobs); d=R.choice(devs)
        v=R.choice(["0","1","2"]) if k=="rp_filter" else R.choice(["0","1"])
        out.append(f"sysctl -w net.ipv4.conf.{d}.{k}={v}")
    elif r<0.35:
        out.append(R.choice(["sysctl -w net.ipv4.ip_forward=1","sysctl -w net.ipv4.ip_forward=0","ip route add 10.7.0.0/16 dev d1","ip route add blackhole 10.6.0.0/16","ip route add local 10.5.0.0/16 dev d0","ip addr add 10.2.0.1/24 dev d1","ip rule add from 10.9.0.0/16 lookup 100","ip route add 10.0.0.0/24 dev d1 table 100"]))
    elif r<0.4:
        out.append(R.choice(["ip link set d1 down","ip link set d1 up","ip link set d0 arp off","ip link set d0 arp on"]))
    else:
        s=R.choice(srcs); d=R.choice(dsts); i_=R.choice(["d0","d1","d0","lo"])
        extra=R.choice(["","",""," mark 1"," tos 0x10"," ipproto udp dport 53"])
        out.append(f"ip route get {d} from {s} iif {i_}{extra}")
print("\n".join(out))
