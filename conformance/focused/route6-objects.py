#!/usr/bin/env python3
"""Focused random scenarios: IPv6 route changes as route6, with protocols, source prefixes, nexthop objects (nhid) and their replacement.

Usage: route6-objects.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 40
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add d1 type dummy","ip link set d0 up","ip link set d1 up",
"ip -6 addr add 2001:db8:3::1/64 dev d1","ip -6 addr add 2001:db8:4::1/64 dev d0",
"ip nexthop add id 1 via fe80::1 dev d0","ip nexthop add id 2 via 2001:db8:3::9 dev d1","ip nexthop add id 3 group 1/2","ip nexthop add id 4 blackhole -6"]
pfx=["2001:db8:ff::/48","2001:db8:ff::/48","2001:db8:ff::/48 from 2001:db8:1::/64","2001:db8:fe::/48","::/0"]
gws=["via fe80::1 dev d0","via fe80::2 dev d1","via 2001:db8:3::9","via 2001:db8:3::8","via 2001:db8:4::7","dev d0","dev d1","nhid 1","nhid 2","nhid 3","nhid 4","nhid 9"]
types=["prohibit","blackhole","unreachable","throw"]
ops=["add","append","prepend","replace","change","del"]
protos=["",""," proto bgp"," proto static"," proto 99"]
def spec():
    r=R.random()
    if r<0.2: return R.choice(types), ""
    if r<0.4:
        k=R.randint(2,3); return "", " ".join("nexthop "+R.choice(gws[:5])+(" weight %d"%R.randint(1,3) if R.random()<0.3 else "") for _ in range(k))
    return "", R.choice(gws)
for i in range(n):
    r=R.random()
    p=R.choice(pfx)
    met=R.choice(["","",""," metric 1024"," metric 2000"])
    extra=R.choice(["","",""," pref high"," mtu 1400"," hoplimit 5"])+R.choice(protos)
    if r<0.65:
        op=R.choice(ops)
        t,s=spec()
        if op=="del":
            c=R.random()
            pr=R.choice(protos)
            if c<0.3: out.append(f"ip -6 route del {p}{met}{pr}")
            elif c<0.45: out.append(f"ip -6 route del {R.choice(types)} {p}{met}")
            else: out.append(f"ip -6 route del {p} {R.choice(gws)}{met}{pr}")
        else:
            out.append(f"ip -6 route {op} {t+' ' if t else ''}{p} {s}{met}{extra}".replace("  "," "))
    elif r<0.75:
        out.append(R.choice(["ip -6 route show","ip -6 route show "+p.split()[0],"ip -6 route show proto bgp","ip -d -6 route show"]))
    elif r<0.85:
        a=R.choice(["2001:db8:ff::1","2001:db8:fe::1","2001:db8:99::1"])
        out.append(R.choice([f"ip -6 route get {a}",f"ip -6 route get fibmatch {a}",f"ip -6 route get {a} from 2001:db8:1::5",f"ip -6 route get fibmatch {a} oif d1"]))
    elif r<0.95:
        out.append(R.choice(["ip -6 route flush "+p.split()[0],"ip -6 route flush proto bgp","ip -6 route flush dev d1","ip -s -6 route flush "+p.split()[0],"ip link set d1 down","ip link set d1 up","ip nexthop del id 2","ip nexthop add id 2 via 2001:db8:3::9 dev d1","ip nexthop replace id 1 via fe80::5 dev d1","ip nexthop replace id 3 group 1,2/2"]))
    else:
        out.append(R.choice(["ip -6 route del "+p+" dev d0","ip nexthop flush","ip -6 route flush table main proto static"]))
out.append("ip -6 route show")
out.append("ip nexthop show")
print("\n".join(out))
