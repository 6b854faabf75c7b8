#!/usr/bin/env python3
"""Focused random scenarios: route attributes (metrics, locks, congestion control,
features, realms, protocols, scopes, preference, expiry) on IPv4 and IPv6 routes, the
show filters that select them and the output formats that print them.

Usage: attrs.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 40
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add d1 type dummy","ip link set d0 up","ip link set d1 up",
"ip addr add 10.0.0.1/24 dev d0","ip addr add 10.1.0.1/24 dev d1",
"ip -6 addr add 2001:db8::1/64 dev d0 nodad","ip -6 addr add 2001:db8:1::1/64 dev d1 nodad"]
def metric():
    k=R.choice(["mtu","mtu lock","advmss","advmss lock","window","rtt","rttvar","rtt lock","ssthresh","cwnd","initcwnd","initrwnd",
      "reordering","hoplimit","rto_min","rto_min lock","features ecn","quickack","congctl","congctl lock","fastopen_no_cookie","realms","realm"])
    if k.startswith("features"): return k
    if k.startswith("congctl"): return k+" "+R.choice(["cubic","reno","bbr","nosuch"])
    if k in ("quickack","fastopen_no_cookie"): return k+" "+R.choice(["0","1","2"])
    if k in ("realms","realm"): return k+" "+R.choice(["1","5/6","0/3","cosmos","256"])
    if k.startswith("rtt") or k.startswith("rto_min"): return k+" "+R.choice(["10","200ms","1s","3","0","4294967295"])
    if k.startswith("mtu"): return k+" "+R.choice(["1280","1500","9000","67","65536","0","70000"])
    return k+" "+R.choice(["1","10","100","0","65535","4294967295","-1"])
def attrs(v6):
    s=""
    for _ in range(R.choice([0,1,1,2,3])): s+=" "+metric()
    if R.random()<0.3: s+=" proto "+R.choice(["static","bgp","boot","kernel","ra","99","zebra","nosuch"])
    if not v6 and R.random()<0.2: s+=" scope "+R.choice(["link","global","host","site","200"])
    if v6 and R.random()<0.2: s+=" pref "+R.choice(["low","medium","high","bogus"])
    if v6 and R.random()<0.1: s+=" expires "+R.choice(["100","0","4294967296"])
    if not v6 and R.random()<0.15: s+=" tos "+R.choice(["0x10","8","0x1c","0x04"])
    if R.random()<0.2: s+=" metric "+R.choice(["5","1024","0","4294967295"])
    if R.random()<0.1: s+=" table "+R.choice(["100","local","main"])
    return s
pref4=["10.9.0.0/16","10.8.0.0/24","10.7.7.7","default"]
pref6=["2001:db8:9::/48","2001:db8:8::/64","2001:db8:7::7","default"]
for i in range(n):
    r=R.random()
    if r<0.45:
        v6=R.random()<0.5
        op=R.choice(["add","add","replace","change","append","prepend"])
        if v6:
            p=R.choice(pref6); nh=R.choice(["via 2001:db8::2","dev d1","via 2001:db8:1::3 dev d1","via fe80::1 dev d0",""])
            if not nh: out.append(f"ip -6 route {op} {R.choice(['unreachable','blackhole','prohibit'])} {p}{attrs(True)}")
            else: out.append(f"ip -6 route {op} {p} {nh}{attrs(True)}")
        else:
            p=R.choice(pref4); nh=R.choice(["via 10.0.0.2","dev d1","via 10.1.0.3 dev d1","nexthop via 10.0.0.2 nexthop via 10.1.0.2",""])
            if not nh: out.append(f"ip route {op} {R.choice(['unreachable','blackhole','prohibit','local','broadcast','throw'])} {p}{attrs(False)}")
            else: out.append(f"ip route {op} {p} {nh}{attrs(False)}")
    elif r<0.55:
        v6=R.random()<0.5
        p=R.choice(pref6 if v6 else pref4)
        out.append(f"ip {'-6 ' if v6 else ''}route del {p}"+(R.choice([""," proto static"," metric 5"," table 100"," scope link"," realm 5"," mtu 1500"]) ))
    elif r<0.75:
        v6=R.random()<0.5; f="-6 " if v6 else ""
        opt=R.choice(["","-d ","-j ","-o ","-s ","-p -j ","-d -j "])
        flt=R.choice(["",""," proto static"," proto bgp"," proto kernel"," scope link"," scope global"," type unreachable"," type unicast",
          " table all"," table 100"," realm 5"," realms 5/6"," tos 0x10"," metric 5"," via 10.0.0.2"," dev d1"," root 10.0.0.0/8"," match 10.9.1.1"," exact default",
          " proto 99"," table all type local"," cached"])
        out.append(f"ip {opt}{f}route show{flt}")
    else:
        v6=R.random()<0.5
        if v6:
            d=R.choice(["2001:db8:9::5","2001:db8:8::5","2001:db8:7::7","3000::1"])
            out.append(f"ip {R.choice(['','-d ','-j '])}-6 route get {d}"+R.choice(["",""," fibmatch"," from 2001:db8::1"," oif d1"]))
        else:
            d=R.choice(["10.9.0.5","10.8.0.5","10.7.7.7","192.0.2.1"])
            out.append(f"ip {R.choice(['','-d ','-j '])}route get {d}"+R.choice(["",""," fibmatch"," tos 0x10"," from 10.0.0.1"," oif d1"]))
out.append("ip route show table all"); out.append("ip -6 route show table all")
print("\n".join(out))
