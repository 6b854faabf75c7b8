#!/usr/bin/env python3
"""Focused random scenarios: IPv6 lookups on the input and output paths (ip -6 route get
... iif / oif / from) with source-specific routes, reject types, local and anycast
addresses, link-locals, forwarding and disable_ipv6.

Usage: input6.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 40
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add d1 type dummy","ip link set d0 up","ip link set d1 up",
"ip -6 addr add 2001:db8:0::1/64 dev d0 nodad","ip -6 addr add 2001:db8:1::1/64 dev d1 nodad",
"ip -6 route add 2001:db8:9::/48 via 2001:db8::2","ip -6 route add 2001:db8:8::/48 via 2001:db8:1::2",
"ip -6 route add default via 2001:db8:1::fe"]
devs=["all","default","d0","d1","lo"]
addrs=["2001:db8::5","2001:db8:1::5","2001:db8:9::5","2001:db8:8::5","2001:db8::1","2001:db8:1::1","::1","::",
"fe80::1","fe80::5","ff02::1","ff05::2","2001:db8::","2001:db8:1::","2001:db8:7::7","2001:db8:6::6","2001:db8:5::5",
"2001:db8:4::4","3000::1","::ffff:10.0.0.1","2001:db8:2::1","fc00::1"]
changes=[
 "ip -6 route add 2001:db8:7::/48 dev d1","ip -6 route add blackhole 2001:db8:6::/48","ip -6 route add unreachable 2001:db8:6::/48",
 "ip -6 route add prohibit 2001:db8:5::/48","ip -6 route add local 2001:db8:4::/48 dev d0","ip -6 route add anycast 2001:db8:4::4 dev d0",
 "ip -6 route add 2001:db8:7::/48 from 2001:db8::/64 via 2001:db8::3","ip -6 route add 2001:db8:7::/48 from 2001:db8:9::/48 dev d0",
 "ip -6 route add ::/0 from 2001:db8:9::/48 via 2001:db8::9","ip -6 route add 2001:db8:9::/48 from 2001:db8:1::/64 dev d1",
 "ip -6 route add 2001:db8:5::/48 from ::/0 dev d0","ip -6 route del 2001:db8:7::/48","ip -6 route del 2001:db8:7::/48 from 2001:db8::/64",
 "ip -6 route del ::/0 from 2001:db8:9::/48","ip -6 route flush from 2001:db8:9::/48",
 "ip -6 addr add 2001:db8:2::1/64 dev d1 nodad","ip -6 addr add 2001:db8:3::1/128 dev d0 nodad","ip -6 addr del 2001:db8:2::1/64 dev d1",
 "ip -6 addr add fe80::5/64 dev d0 nodad","ip -6 rule add from 2001:db8:9::/48 lookup 100","ip -6 rule add iif d0 lookup 100",
 "ip -6 route add 2001:db8:8::/48 dev d0 table 100","ip -6 route add throw 2001:db8:8::/48 table 100","ip -6 route add prohibit default table 100",
 "ip -6 rule add to 2001:db8:5::/48 prohibit","ip -6 rule add iif lo lookup 100","ip -6 route add fc00::/7 dev d1 metric 5",
 "ip -6 route add fc00::/7 via 2001:db8::7 metric 1","ip -6 route add 2001:db8:9::/48 via 2001:db8:1::9 metric 2048",
 "ip -6 route add 2001:db8:6::/48 nexthop via 2001:db8::6 nexthop via 2001:db8:1::6",
]
for i in range(n):
    r=R.random()
    if r<0.15:
        k=R.choice(["forwarding","forwarding","disable_ipv6","accept_source_route","disable_policy","seg6_enabled"]); d=R.choice(devs)
        v="1" if k=="disable_ipv6" and R.random()<0.3 else R.choice(["0","1"])
        if k=="disable_ipv6": v=R.choice(["0","0","1"])
        out.append(f"sysctl -w net.ipv6.conf.{d}.{k}={v}")
    elif r<0.35:
        out.append(R.choice(changes))
    elif r<0.4:
        out.append(R.choice(["ip link set d1 down","ip link set d1 up","ip link set d0 down","ip link set d0 up","ip link set d0 mtu 1400"]))
    else:
        d=R.choice(addrs); s=R.choice(addrs)
        mode=R.random()
        extra=R.choice(["","","",""," mark 1"," tos 0x10"," ipproto udp dport 53"," fibmatch"])
        if mode<0.5:
            i_=R.choice(["d0","d1","d0","lo"])
            out.append(f"ip -6 route get {d} from {s} iif {i_}{extra}")
        elif mode<0.7:
            o=R.choice(["d0","d1","lo"])
            out.append(f"ip -6 route get {d} from {s} oif {o}{extra}" if R.random()<0.5 else f"ip -6 route get {d} oif {o}{extra}")
        elif mode<0.85:
            out.append(f"ip -6 route get {d} from {s}{extra}")
        else:
            out.append(f"ip -6 route get {d}{extra}")
print("\n".join(out))
