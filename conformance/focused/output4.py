#!/usr/bin/env python3
"""Focused random scenarios: IPv4 output-path lookups (ip route get without iif): source selection over primary and
secondary addresses of several scopes, preferred sources, route scopes and types, an output device or source the query
names, marks, uids and TOS through rules, connected and fibmatch answers, broadcast, multicast and local destinations,
devices going down and addresses going away.

Usage: output4.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 50
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add d1 type dummy","ip link add d2 type dummy","ip link set d0 up","ip link set d1 up",
     "ip addr add 10.0.0.1/24 dev d0","ip addr add 10.1.0.1/24 dev d1","ip route add default via 10.1.0.254"]
addrs=["10.0.0.2/24","10.0.0.3/24 scope link","10.0.1.1/24","10.1.0.2/24","10.1.0.3/32 scope host","10.2.0.1/24",
       "10.3.0.1/8 scope link","192.168.1.1/24","10.0.0.9 peer 10.9.9.9/32","10.0.0.4/24 label d0:x","172.16.0.1/16 scope 100"]
devs=["d0","d1","d2","lo"]
dsts=["10.0.0.5","10.0.0.1","10.0.0.255","10.0.0.0","10.1.0.9","10.9.9.9","10.7.0.7","10.8.1.1","8.8.8.8","255.255.255.255",
      "224.0.0.1","239.1.2.3","127.0.0.1","127.1.2.3","0.0.0.0","192.168.1.9","172.16.5.5","10.2.0.7","10.3.4.5","10.6.0.1"]
srcs=["10.0.0.1","10.0.0.2","10.1.0.1","10.1.0.3","192.168.1.1","127.0.0.1","10.9.9.9","8.8.8.8","0.0.0.0","224.0.0.1","10.0.0.255"]
def route():
    p=R.choice(["10.7.0.0/16","10.8.0.0/16","8.8.8.0/24","10.9.9.9","192.168.1.0/24","10.6.0.0/16","0.0.0.0/0","10.0.0.5","224.0.0.0/4"])
    t=R.choice(["","","","unreachable ","prohibit ","blackhole ","local ","broadcast ","throw ","multicast ","unicast ","nat "])
    nh=R.choice(["dev d0","dev d1","via 10.0.0.254","via 10.1.0.254 dev d1","via 10.0.0.254 onlink dev d1","dev d2","dev lo",
                 "nexthop via 10.0.0.254 nexthop via 10.1.0.254","dev d0 src 10.0.0.2","via 10.1.0.254 src 192.168.1.1",
                 "dev d1 scope host","dev d0 scope link src 10.0.0.3"])
    if t in ("unreachable ","prohibit ","blackhole ","throw "): nh=""
    extra=R.choice(["","",""," table 100"," metric 5"," tos 0x10"," proto static"," scope link"," table local"])
    return f"{t}{p} {nh}{extra}".replace("  "," ").strip()
for i in range(n):
    r=R.random()
    if r<0.15:
        a=R.choice(addrs); d=R.choice(["d0","d1","d2","lo"])
        out.append(f"ip addr {R.choice(['add','add','del'])} {a} dev {d}")
    elif r<0.35:
        out.append(f"ip route {R.choice(['add','add','replace','del','append','change','prepend'])} {route()}")
    elif r<0.42:
        out.append(R.choice(["ip link set d2 up","ip link set d2 down","ip link set d1 down","ip link set d1 up","ip link set d0 down",
                             "ip link set d0 up","ip link set lo down","ip link set lo up","ip link set d0 arp off","ip link set d1 mtu 1300"]))
    elif r<0.48:
        out.append(R.choice(["ip rule add fwmark 1 lookup 100","ip rule add tos 0x10 lookup 100","ip rule add uidrange 1000-2000 lookup 100",
                             "ip rule add from 10.0.0.2 lookup 100","ip rule add to 10.7.0.0/16 lookup 100","ip rule add oif d1 lookup 100",
                             "ip rule add ipproto tcp dport 80 lookup 100","ip rule add fwmark 2 prohibit","ip rule add from all lookup 100 suppress_prefixlength 0",
                             "ip rule del pref 32765","ip route flush table 100","ip route flush cache",
                             "sysctl -w net.ipv4.conf.all.route_localnet=1","sysctl -w net.ipv4.ip_nonlocal_bind=1","sysctl -w net.ipv4.conf.d0.disable_policy=1"]))
    else:
        d=R.choice(dsts); q=f"ip route get {d}"
        for k,v in R.sample([("from",R.choice(srcs)),("oif",R.choice(devs)),("mark",R.choice(["1","2"])),("tos",R.choice(["0x10","0x4"])),
                             ("uid",R.choice(["0","1500"])),("ipproto",R.choice(["tcp","udp","icmp"])),("dport","80"),("sport","1234"),
                             ("connected",None),("fibmatch",None)],R.randint(0,3)):
            q+=f" {k}" if v is None else f" {k} {v}"
        out.append(q)
print("\n".join(out))
