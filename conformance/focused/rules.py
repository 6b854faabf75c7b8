#!/usr/bin/env python3
"""Focused random scenarios: policy rules of one family (add and del with every selector and action, goto included) with lookups through them.

Usage: rules.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 40
R=random.Random(seed)
v6 = R.random()<0.5
f = "-6 " if v6 else ""
out=["ip link add d0 type dummy","ip link add d1 type dummy","ip link set d0 up","ip link set d1 up"]
if v6:
    out+=["ip -6 addr add 2001:db8:1::1/64 dev d0","ip -6 addr add 2001:db8:2::1/64 dev d1",
          "ip -6 route add 2001:db8:9::/48 via 2001:db8:1::2 table 100","ip -6 route add default via 2001:db8:2::2 table 200",
          "ip -6 route add 2001:db8:9:1::/64 dev d1 table 200","ip -6 route add unreachable 2001:db8:9:2::/64 table 100"]
    pf=["2001:db8:9::/48","2001:db8:9:1::/64","2001:db8:1::/64","::/0","2001:db8::/32"]
    dsts=["2001:db8:9::1","2001:db8:9:1::1","2001:db8:9:2::1","2001:db8:1::5","2001:db8:77::1"]
    srcs=["2001:db8:1::1","2001:db8:2::1","2001:db8:1::9"]
else:
    out+=["ip addr add 10.0.0.1/24 dev d0","ip addr add 10.1.0.1/24 dev d1",
          "ip route add 10.9.0.0/16 via 10.0.0.2 table 100","ip route add default via 10.1.0.2 table 200",
          "ip route add 10.9.1.0/24 dev d1 table 200","ip route add unreachable 10.9.2.0/24 table 100","ip route add blackhole 10.9.3.0/24 table 200"]
    pf=["10.9.0.0/16","10.9.1.0/24","10.0.0.0/24","0.0.0.0/0","10.0.0.0/8"]
    dsts=["10.9.0.1","10.9.1.1","10.9.2.1","10.9.3.1","10.0.0.5","10.77.0.1"]
    srcs=["10.0.0.1","10.1.0.1","10.0.0.9"]
acts=["lookup 100","lookup 200","table main","lookup local","blackhole","unreachable","prohibit","goto 3000","goto 1500","nop","lookup 300"]
sels=["from {s}","to {d}","iif d0","oif d1","fwmark 0x1","fwmark 0x2/0x2","tos 0x10","ipproto tcp","dport 80","sport 1000-2000","uidrange 0-10","not from {s}","suppress_prefixlength 0","suppress_prefixlength 16","suppress_ifgroup 0","iif lo","l3mdev","priority 1000","pref 2000","pref 3000","protocol bgp"]
def sel():
    k=R.randint(0,3); parts=[]
    for _ in range(k):
        s=R.choice(sels).format(s=R.choice(pf),d=R.choice(pf))
        parts.append(s)
    return " ".join(parts)
for i in range(n):
    r=R.random()
    if r<0.4:
        out.append(f"ip {f}rule add {sel()} {R.choice(acts)}".replace("  "," "))
    elif r<0.5:
        out.append(f"ip {f}rule del {sel()} {R.choice(acts+['',''])}".replace("  "," ").rstrip())
    elif r<0.55:
        out.append(R.choice([f"ip {f}rule show",f"ip -j {f}rule show",f"ip {f}rule flush",f"ip {f}rule show table 100",f"ip {f}rule list pref 2000"]))
    else:
        d=R.choice(dsts)
        extra=R.choice(["",""," from "+R.choice(srcs)," mark 1"," mark 2"," tos 0x10"," ipproto tcp dport 80"," ipproto tcp sport 1500"," uid 5"," oif d1"," iif d0 from "+R.choice(srcs)," fibmatch"])
        out.append(f"ip {f}route get {d}{extra}")
out.append(f"ip {f}rule show")
print("\n".join(out))
