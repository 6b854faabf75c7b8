#!/usr/bin/env python3
"""Focused random scenarios: lightweight tunnel encapsulations (`seg6`, `seg6local`, `ip`, `ip6`, `bpf`; others
refused, and `seg6`/`seg6local` too by a kernel built without SRv6 tunnels) on routes of both families and on nexthop objects: their options valid and not, how they are listed, replaced,
deleted and answered in lookups.

Usage: encap.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 40
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add d1 type dummy","ip link set d0 up","ip link set d1 up",
     "ip addr add 10.0.0.1/24 dev d0","ip -6 addr add 2001:db8::1/64 dev d0 nodad","ip addr add 10.1.0.1/24 dev d1",
     "ip -6 addr add 2001:db8:1::1/64 dev d1 nodad"]
segs=["2001:db8::9","2001:db8::9,2001:db8:5::5","fc00::1,fc00::2,fc00::3","::","10.0.0.9",""]
def seg6():
    mode=R.choice(["encap","inline","l2encap","encap.red","l2encap.red","bogus",""])
    s=f"seg6 mode {mode}" if mode else "seg6"
    s+=" segs "+R.choice(segs)
    if R.random()<0.2: s+=R.choice([" hmac 5"," hmac 0"," hmac x"])
    return s
def seg6local():
    a=R.choice(["End","End.X nh6 2001:db8::9","End.X nh4 10.0.0.9","End.T table 100","End.DX2 oif d1","End.DX4 nh4 10.0.0.9",
                "End.DX6 nh6 2001:db8::9","End.DT6 table 100","End.DT4 vrftable 100","End.DT46 vrftable 100","End.B6 srh segs 2001:db8::9",
                "End.B6.Encaps srh segs 2001:db8::9,2001:db8::8","End.BM srh segs 2001:db8::9","End.S","End.AS","End.X","End.T","Bogus",
                "End.DX6 nh6 2001:db8::9 oif d1","End.T table main","End.DT6 table 100 table 101","End.BPF",
                "End.BPF endpoint obj /nonexistent.o","End.DT6 vrftable bogus"])
    s=f"seg6local action {a}"
    if R.random()<0.2: s+=R.choice([" count"," flavors psp"," flavors next-csid lblen 32 nflen 16"," flavors usp,usd"])
    return s
def ip4():
    s="ip"
    for k,v in R.sample([("id","5"),("id","x"),("dst","10.0.0.9"),("dst","2001:db8::9"),("src","10.0.0.1"),("tos","0x10"),("ttl","64"),
                         ("ttl","300"),("key",None),("csum",None),("seq",None),("tos","bogus")],R.randint(1,4)):
        s+=f" {k}" if v is None else f" {k} {v}"
    return s
def ip6():
    s="ip6"
    for k,v in R.sample([("id","7"),("dst","2001:db8::9"),("dst","10.0.0.9"),("src","2001:db8::1"),("tc","0x10"),("hoplimit","64"),
                         ("hoplimit","256"),("key",None),("csum",None),("seq",None)],R.randint(1,4)):
        s+=f" {k}" if v is None else f" {k} {v}"
    return s
def bpf():
    s="bpf"
    for k,v in R.sample([("headroom","16"),("headroom","0"),("in","obj /nonexistent.o"),("out","pinned /sys/fs/bpf/none"),
                         ("xmit","obj /nonexistent.o sec lwt_xmit"),("xmit","fd 7"),("in","bogus"),("headroom","-1")],R.randint(0,2)):
        s+=f" {k} {v}"
    return s
def enc():
    return R.choice([seg6,seg6,seg6local,seg6local,ip4,ip6,bpf,lambda:R.choice(["mpls 100","rpl segs 2001:db8::9","bogus","ila 2001:db8:1:2 csum-mode no-action","xfrm if_id 5","ioam6 trace prealloc type 0x800000 ns 1 size 12","ioam6 mode encap trace prealloc type 1 ns 1 size 4"])])()
p4=["10.5.0.0/16","10.6.0.0/16","10.6.0.0/24"]
p6=["2001:db8:5::/48","2001:db8:6::/48","2001:db8:6::/64"]
for i in range(n):
    r=R.random()
    six=R.random()<0.5
    pfx=R.choice(p6 if six else p4)
    fam="-6 " if six else ""
    d=R.choice(["d0","d0","d1"])
    via=R.choice(["",f" via {'2001:db8::9' if six else '10.0.0.9'}"]) if d=="d0" else ""
    if r<0.4:
        out.append(f"ip {fam}route {R.choice(['add','add','replace','change','append','prepend'])} {pfx} encap {enc()}{via} dev {d}{R.choice(['','',' metric 5',' table 100',' mtu 1400'])}")
    elif r<0.5:
        out.append(f"ip {fam}route add {pfx} nexthop encap {enc()}{via} dev {d} nexthop dev d1"+("" if six else " weight 2"))
    elif r<0.6:
        out.append(f"ip {fam}route del {pfx}"+R.choice(["",f" dev {d}"," encap "+enc()]))
    elif r<0.7:
        fam6=R.random()<0.5
        out.append(f"ip {'-6 ' if fam6 else ''}nexthop {R.choice(['add','replace'])} id {R.randint(1,3)} encap {enc()} dev {d}")
    elif r<0.76:
        out.append(f"ip {fam}route replace {pfx} nhid {R.randint(1,3)}")
    elif r<0.9:
        dst=R.choice(["2001:db8:5::1","2001:db8:6::1","2001:db8:6:0:1::1"] if six else ["10.5.0.1","10.6.0.1","10.6.1.1"])
        out.append(R.choice([f"ip {fam}route get {dst}",f"ip {fam}route get fibmatch {dst}",f"ip {fam}route get {dst} oif d1",f"ip -d {fam}route get {dst}"]))
    else:
        out.append(R.choice(["ip route show","ip -6 route show","ip route show table 100","ip -6 route show table all","ip nexthop show",
                             "ip -j route show","ip -j -6 route show","ip -d route show","ip -6 route show dev d0"]))
out+=["ip route show table all","ip -6 route show table all","ip nexthop show"]
print("\n".join(out))
