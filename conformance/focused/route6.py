#!/usr/bin/env python3
"""Focused random scenarios: IPv6 route changes of every kind (add, append, prepend, replace, change, del) with reject types, multipath legs and flushes on two prefixes, with listings and lookups.

Usage: route6.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 40
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add d1 type dummy","ip link set d0 up","ip link set d1 up",
"ip -6 addr add 2001:db8:3::1/64 dev d1","ip -6 addr add 2001:db8:4::1/64 dev d0"]
pfx=["2001:db8:ff::/48","2001:db8:ff::/48","2001:db8:fe::/48","::/0"]
gws=["via fe80::1 dev d0","via fe80::2 dev d1","via 2001:db8:3::9","via 2001:db8:3::8","via 2001:db8:4::7","dev d0","dev d1"]
types=["prohibit","blackhole","unreachable","throw"]
ops=["add","append","prepend","replace","change","del"]
def nh():
    return R.choice(gws)
def spec():
    r=R.random()
    if r<0.25: return R.choice(types), ""
    if r<0.4:
        k=R.randint(2,3); return "", " ".join("nexthop "+R.choice(gws)+(" weight %d"%R.randint(1,3) if R.random()<0.3 else "") for _ in range(k))
    return "", nh()
for i in range(n):
    r=R.random()
    p=R.choice(pfx)
    met=R.choice(["","",""," metric 1024"," metric 2000"," metric 10"])
    extra=R.choice(["","",""," src 2001:db8:3::1"," pref high"," mtu 1400"," proto bgp"])
    if r<0.7:
        op=R.choice(ops)
        t,s=spec()
        if op=="del":
            c=R.random()
            if c<0.3: out.append(f"ip -6 route del {p}{met}")
            elif c<0.5: out.append(f"ip -6 route del {R.choice(types)} {p}{met}")
            else: out.append(f"ip -6 route del {p} {nh()}{met}")
        else:
            out.append(f"ip -6 route {op} {t+' ' if t else ''}{p} {s}{met}{extra}".replace("  "," "))
    elif r<0.8:
        out.append(R.choice(["ip -6 route show","ip -6 route show table main","ip -6 route show "+p,"ip -j -6 route show"]))
    elif r<0.9:
        a=R.choice(["2001:db8:ff::1","2001:db8:fe::1","2001:db8:99::1"])
        out.append(R.choice([f"ip -6 route get {a}",f"ip -6 route get fibmatch {a}",f"ip -6 route get {a} oif d1"]))
    elif r<0.95:
        out.append(R.choice(["ip -6 route flush "+p,"ip -6 route flush dev d1","ip link set d1 down","ip link set d1 up","ip link set d0 down","ip link set d0 up"]))
    else:
        out.append(R.choice(["ip -6 route del "+p+" dev d0","ip -6 route del "+p+" via 2001:db8:3::9 dev d1"]))
out.append("ip -6 route show")
print("\n".join(out))
