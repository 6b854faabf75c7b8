#!/usr/bin/env python3
"""Focused random scenarios: IPv4 route changes of every type, TOS, scope, table and metric, multipath, deletes by partial match, flushes.

Usage: route4.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 40
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add d1 type dummy","ip link set d0 up","ip link set d1 up",
"ip addr add 10.0.0.1/24 dev d0","ip addr add 10.1.0.1/24 dev d1"]
pfx=["10.9.0.0/16","10.9.0.0/16","10.9.0.0/24","0.0.0.0/0","10.9.0.0/16 tos 0x10"]
gws=["via 10.0.0.2","via 10.0.0.3 dev d0","via 10.1.0.2","via 10.1.0.9 dev d1","dev d0","dev d1","via 10.0.0.2 onlink dev d1","via 10.5.5.5"]
types=["prohibit","blackhole","unreachable","throw","local","broadcast","multicast","anycast","nat","unicast"]
ops=["add","append","prepend","replace","change","del"]
def spec():
    r=R.random()
    if r<0.25:
        t=R.choice(types)
        return t, (R.choice(gws) if t in ("local","broadcast","multicast","anycast","unicast") else "")
    if r<0.45:
        k=R.randint(2,3); return "", " ".join("nexthop "+R.choice(gws)+(" weight %d"%R.randint(1,3) if R.random()<0.3 else "") for _ in range(k))
    return "", R.choice(gws)
for i in range(n):
    r=R.random()
    p=R.choice(pfx)
    met=R.choice(["","",""," metric 0"," metric 2000"," metric 10"])
    extra=R.choice(["","","",""," src 10.0.0.1"," scope link"," scope host"," mtu 1400"," proto bgp"," table 100"," realms 5"])
    if r<0.7:
        op=R.choice(ops)
        t,s=spec()
        if op=="del":
            c=R.random()
            if c<0.3: out.append(f"ip route del {p}{met}")
            elif c<0.5: out.append(f"ip route del {R.choice(types)} {p}{met}")
            else: out.append(f"ip route del {p} {R.choice(gws)}{met}{R.choice(['','',' proto bgp',' scope link',' table 100'])}")
        else:
            out.append(f"ip route {op} {t+' ' if t else ''}{p} {s}{met}{extra}".replace("  "," "))
    elif r<0.8:
        out.append(R.choice(["ip route show","ip route show table all","ip route show "+p.split()[0],"ip -j route show","ip route show table local","ip -d route show table 100"]))
    elif r<0.9:
        a=R.choice(["10.9.0.1","10.9.1.1","10.9.0.255","10.3.3.3"])
        out.append(R.choice([f"ip route get {a}",f"ip route get fibmatch {a}",f"ip route get {a} tos 0x10",f"ip route get {a} oif d1",f"ip route get {a} from 10.0.0.5 iif d0"]))
    elif r<0.95:
        out.append(R.choice(["ip route flush "+p.split()[0],"ip route flush dev d1","ip link set d1 down","ip link set d1 up","ip link set d0 down","ip link set d0 up","ip addr del 10.1.0.1/24 dev d1","ip addr add 10.1.0.1/24 dev d1"]))
    else:
        out.append(R.choice(["ip route del "+p+" dev d0","ip route del "+p+" via 10.1.0.2 dev d1","ip route flush table 100"]))
out.append("ip route show table all")
print("\n".join(out))
