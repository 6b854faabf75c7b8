#!/usr/bin/env python3
"""Focused random scenarios: IPv6 output-path lookups (ip -6 route get without iif): source address selection (RFC 6724
rules as ipv6_dev_get_saddr ranks them: scope, deprecated and optimistic addresses, home addresses, the outgoing device,
labels, longest match) over global, ULA, site-local, link-local, IPv4-mapped and deprecated addresses on several devices;
preferred sources, route types and metrics, an output device, source, mark, uid or flow label the query names, rules,
link-local and multicast destinations, devices going down.

Usage: output6.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 50
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add d1 type dummy","ip link add d2 type dummy","ip link set d0 up","ip link set d1 up",
     "ip -6 addr add 2001:db8:0::1/64 dev d0 nodad","ip -6 addr add 2001:db8:1::1/64 dev d1 nodad",
     "ip -6 route add default via 2001:db8:1::fe"]
addrs=["2001:db8:0::2/64","fd00::1/64","fd00:1::1/64","fec0::1/64","2001:db8:5::1/128","2002:c000:201::1/48","2001:db8:0::3/64 preferred_lft 0",
       "2001:db8:1::3/64 home","3ffe::1/64","2001:db8:9::1/64 noprefixroute","fe80::99/64","::ffff:10.0.0.1/128","2001:db8:0::4/64 optimistic",
       "2001::1/32","fc00::1/7","2001:db8:0::5/64 nodad preferred_lft 0 valid_lft 100"]
devs=["d0","d1","d2","lo"]
dsts=["2001:db8:0::9","2001:db8:1::9","2001:db8:7::7","fd00::9","fd00:1::9","fec0::9","fe80::5","ff02::1","ff05::1","ff0e::1",
      "::1","2001:db8:5::1","2002:c000:201::9","3ffe::9","2001:4860::8888","::ffff:10.0.0.9","64:ff9b::a00:1","2001:db8:9::9","::"]
srcs=["2001:db8:0::1","2001:db8:0::2","2001:db8:1::1","fd00::1","fe80::99","::1","2001:db8:7::7","::"]
def route():
    p=R.choice(["2001:db8:7::/48","2001:db8:8::/48","fd00::/8","2001:4860::/32","::/0","2001:db8:0::9/128","ff00::/8","64:ff9b::/96","fe80::/64"])
    t=R.choice(["","","","unreachable ","prohibit ","blackhole ","local ","throw ","anycast ","multicast "])
    nh=R.choice(["dev d0","dev d1","via 2001:db8:0::fe","via 2001:db8:1::fe dev d1","via fe80::1 dev d0","dev d2","dev lo",
                 "nexthop via 2001:db8:0::fe nexthop via 2001:db8:1::fe","dev d0 src 2001:db8:0::2","via 2001:db8:1::fe src fd00::1",
                 "dev d1 src 2001:db8:0::1","dev d0 pref high","dev d1 pref low"])
    if t in ("unreachable ","prohibit ","blackhole ","throw "): nh=R.choice(["","dev lo"])
    extra=R.choice(["","",""," table 100"," metric 5"," metric 2000"," proto static"," table local"])
    return f"{t}{p} {nh}{extra}".replace("  "," ").strip()
for i in range(n):
    r=R.random()
    if r<0.17:
        a=R.choice(addrs); d=R.choice(["d0","d1","d2","lo"])
        extra=" nodad" if "nodad" not in a and "optimistic" not in a else ""
        out.append(f"ip -6 addr {R.choice(['add','add','del'])} {a} dev {d}{extra}")
    elif r<0.35:
        out.append(f"ip -6 route {R.choice(['add','add','replace','del','append','change'])} {route()}")
    elif r<0.42:
        out.append(R.choice(["ip link set d2 up","ip link set d2 down","ip link set d1 down","ip link set d1 up","ip link set d0 down",
                             "ip link set d0 up","ip link set d1 mtu 1300","sysctl -w net.ipv6.conf.all.forwarding=1",
                             "sysctl -w net.ipv6.conf.d0.use_tempaddr=2","sysctl -w net.ipv6.conf.all.optimistic_dad=1",
                             "sysctl -w net.ipv6.conf.d0.use_optimistic=1","sysctl -w net.ipv6.conf.all.keep_addr_on_down=1",
                             "ip addrlabel add prefix 2001:db8:1::/48 label 7","ip addrlabel add prefix fd00::/8 label 1",
                             "ip addrlabel del prefix fd00::/8 label 1","sysctl -w net.ipv6.conf.d1.disable_ipv6=1",
                             "sysctl -w net.ipv6.conf.d1.disable_ipv6=0"]))
    elif r<0.48:
        out.append(R.choice(["ip -6 rule add fwmark 1 lookup 100","ip -6 rule add uidrange 1000-2000 lookup 100",
                             "ip -6 rule add from 2001:db8:0::2 lookup 100","ip -6 rule add to 2001:db8:7::/48 lookup 100",
                             "ip -6 rule add oif d1 lookup 100","ip -6 rule add ipproto tcp dport 80 lookup 100","ip -6 rule add fwmark 2 prohibit",
                             "ip -6 rule add from all lookup 100 suppress_prefixlength 0","ip -6 rule del pref 32766","ip -6 route flush table 100",
                             "ip -6 rule add tos 0x10 lookup 100","ip -6 route flush cache"]))
    else:
        d=R.choice(dsts); q=f"ip -6 route get {d}"
        for k,v in R.sample([("from",R.choice(srcs)),("oif",R.choice(devs)),("mark",R.choice(["1","2"])),("tos",R.choice(["0x10","0x4"])),
                             ("uid",R.choice(["0","1500"])),("ipproto",R.choice(["tcp","udp","ipv6-icmp"])),("dport","80"),("sport","1234"),
                             ("fibmatch",None)],R.randint(0,3)):
            q+=f" {k}" if v is None else f" {k} {v}"
        out.append(q)
print("\n".join(out))
