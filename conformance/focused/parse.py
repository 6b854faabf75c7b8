#!/usr/bin/env python3
"""Focused random scenarios: iproute2's parsers on random keyword/value sequences
(valid, repeated, out of range, misspelt, missing) for route, rule, address, neighbour,
nexthop and link commands: which error wins, with which message, and what a command
that parses does.

Usage: parse.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 40
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add d1 type dummy","ip link set d0 up","ip link set d1 up",
"ip addr add 10.0.0.1/24 dev d0","ip addr add 10.1.0.1/24 dev d1",
"ip -6 addr add 2001:db8::1/64 dev d0 nodad","ip nexthop add id 1 via 10.0.0.2 dev d0"]
BAD=["","nosuch","-1","4294967296","0x","1/","::","10.0.0.300","d9","0","255","256","65536","1e3","default","all"]
route_kv={"via":["10.0.0.2","2001:db8::2","inet6 2001:db8::2","10.0.0.300"],"dev":["d0","d1","lo","d9"],"src":["10.0.0.1","10.9.9.9","2001:db8::1"],
 "table":["100","main","local","0","4294967295","nosuch"],"metric":["5","0","4294967295"],"proto":["static","99","nosuch","256"],
 "scope":["link","host","global","nosuch","255"],"tos":["0x10","0","0x03","256","nosuch"],"mtu":["1400","lock 1400","0"],"weight":["1","256","0"],
 "realm":["5","cosmos","300"],"onlink":[None],"pervasive":[None],"type":["unicast","local","nosuch"],"nhid":["1","2","0"],"pref":["high","nosuch"],
 "expires":["10","0","nosuch"],"encap":["mpls 100","ip id 5 dst 10.0.0.9","nosuch","seg6 mode encap segs 2001:db8::9"],"from":["10.0.0.0/24","2001:db8::/64"],
 "hoplimit":["64","255","256"],"advmss":["1400"],"initcwnd":["10"],"congctl":["reno","nosuch"],"features":["ecn","nosuch"],"ttl-propagate":["enabled","nosuch"],
 "nexthop":["via 10.0.0.2","dev d0","via 10.1.0.2 weight 3"],"as":["to 10.0.0.5","10.0.0.6"],"rtt":["10","1s"],"quickack":["1","2"],"fastopen_no_cookie":["0","3"]}
rule_kv={"from":["10.0.0.0/8","all","2001:db8::/32","nosuch"],"to":["10.9.0.0/16","::/0"],"table":["100","main","0","nosuch"],"lookup":["100"],"pref":["10","0","4294967295","nosuch"],
 "priority":["20"],"fwmark":["5","5/0xff","0x"],"tos":["0x10","0x03"],"dsfield":["8"],"iif":["d0","lo","nosuch"],"oif":["d1"],"ipproto":["tcp","udp","300","nosuch"],
 "sport":["80","80-90","90-80","70000"],"dport":["53"],"uidrange":["1-2","2-1","x"],"goto":["100","5"],"nop":[None],"not":[None],"l3mdev":[None],
 "suppress_prefixlength":["0","128","-1"],"suppress_ifgroup":["0","nosuch"],"realms":["5","1/2"],"type":["unreachable","prohibit","blackhole","nat","nosuch"],
 "protocol":["static","nosuch"],"unreachable":[None],"blackhole":[None],"prohibit":[None],"flowlabel":["0x1/0xff","1"]}
addr_kv={"peer":["10.5.0.2","10.5.0.2/24"],"broadcast":["10.0.0.255","+","-"],"brd":["+"],"label":["d0:1","x0","d0:abcdefghijklmnop"],"scope":["host","link","nosuch","200"],
 "dev":["d0","d1","d9"],"valid_lft":["100","forever","0","nosuch"],"preferred_lft":["50","forever","200"],"metric":["10","nosuch"],"proto":["5","kernel_ra","nosuch"],
 "home":[None],"nodad":[None],"noprefixroute":[None],"autojoin":[None],"mngtmpaddr":[None],"optimistic":[None],"anycast":["10.0.0.7"],"local":["10.0.0.9"]}
neigh_kv={"lladdr":["02:00:00:00:00:01","zz","02:00"],"dev":["d0","d1","d9"],"nud":["permanent","reachable","stale","noarp","nosuch","none"],"router":[None],"proxy":[None],
 "extern_learn":[None],"protocol":["5","nosuch"],"use":[None],"managed":[None]}
nh_kv={"id":["2","3","0","nosuch"],"via":["10.0.0.2","2001:db8::2"],"dev":["d0","d1","d9"],"blackhole":[None],"onlink":[None],"group":["1","1/2","1,5","1/1"],"fdb":[None],
 "type":["resilient","mpath","nosuch"],"buckets":["8","0"],"idle_timer":["5"],"encap":["mpls 100"],"protocol":["static","nosuch"]}
def kv(d):
    k=R.choice(list(d)); v=R.choice(d[k])
    if R.random()<0.12: v=R.choice(BAD)
    return k if v is None else (f"{k} {v}" if v!="" else k)
def seq(d,lo=1,hi=5):
    return " ".join(kv(d) for _ in range(R.randint(lo,hi)))
pref4=["10.9.0.0/16","10.8.0.5","default","10.9.0.0/33","10.9.0.1/16","nosuch","2001:db8:9::/48"]
for i in range(n):
    r=R.random()
    if r<0.35:
        op=R.choice(["add","add","replace","change","append","del","prepend","get"])
        fam=R.choice(["","","-6 ","-4 "])
        if op=="get":
            out.append(f"ip {fam}route get {R.choice(['10.9.0.5','2001:db8:9::5','10.0.0.5'])} "+seq({k:route_kv[k] for k in ["from","oif","iif","mark","tos","ipproto","sport","dport","uid","fibmatch","vrf","connected","dsfield"] if k in route_kv} | {"oif":["d0","d9"],"iif":["d0","lo"],"mark":["1","x"],"ipproto":["tcp","300"],"sport":["1","70000"],"dport":["2"],"uid":["0","x"],"fibmatch":[None],"connected":[None],"dsfield":["0x10"]},0,3))
        else:
            t=R.choice(["","","unreachable ","blackhole ","local ","throw ","prohibit ","broadcast ","multicast ","nat ","anycast "])
            out.append(f"ip {fam}route {op} {t}{R.choice(pref4)} "+seq(route_kv,0,4))
    elif r<0.55:
        op=R.choice(["add","add","del"]); fam=R.choice(["","-6 "])
        out.append(f"ip {fam}rule {op} "+seq(rule_kv,0,4))
    elif r<0.7:
        op=R.choice(["add","add","change","replace","del"])
        a=R.choice(["10.0.0.5/24","10.0.0.6","2001:db8::5/64","10.0.0.300/24","10.0.0.5/33","fe80::9/64","10.0.0.1/24"])
        out.append(f"ip addr {op} {a} "+seq(addr_kv,1,4))
    elif r<0.8:
        op=R.choice(["add","replace","change","del"])
        out.append(f"ip neigh {op} {R.choice(['10.0.0.9','2001:db8::9','10.0.0.300','fe80::1'])} "+seq(neigh_kv,1,4))
    elif r<0.92:
        op=R.choice(["add","add","replace","del"])
        out.append(f"ip nexthop {op} "+seq(nh_kv,1,5))
    else:
        out.append(R.choice(["ip route show table all","ip -6 route show table all","ip rule show","ip -6 rule show","ip addr show","ip neigh show","ip nexthop show"]))
out+=["ip route show table all","ip -6 route show table all","ip rule show","ip -6 rule show","ip addr show","ip neigh show","ip nexthop show"]
print("\n".join(out))
