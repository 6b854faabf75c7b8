#!/usr/bin/env python3
"""Focused random scenarios: iproute2's link parsers (`ip link add|set|del|show`) on
random keyword/value sequences, valid and not, over dummy, veth, bridge, vlan and
macvlan devices: which error wins, with which message, and what a command that parses
changes.

Usage: parselink.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 40
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add v0 type veth peer name v1","ip link add br0 type bridge"]
BAD=["","nosuch","-1","4294967296","0x","65536","1e3","default","all","02:00","zz:zz"]
set_kv={"up":[None],"down":[None],"arp":["on","off","x"],"multicast":["on","off"],"allmulticast":["on","off"],"promisc":["on","off"],
 "dynamic":["on","off"],"trailers":["on","off"],"carrier":["on","off"],"mtu":["1400","68","67","65535","0"],"txqueuelen":["0","10","1000"],
 "txqlen":["5"],"qlen":["7"],"name":["x0","d0","lo","a"*16],"address":["02:00:00:00:aa:01","00:00:00:00:00:00","01:00:5e:00:00:01"],
 "broadcast":["ff:ff:ff:ff:ff:fe"],"brd":["ff:ff:ff:ff:ff:ff"],"alias":["a1",""],"group":["1","default","5","nosuch"],
 "master":["br0","d0","nosuch"],"nomaster":[None],"addrgenmode":["eui64","none","stable_secret","random","nosuch"],
 "protodown":["on","off"],"protodown_reason":["0 on"],"gso_max_size":["1000","65536"],"gso_max_segs":["10"],"gro_max_size":["1000"],
 "vf":["0 mac 02:00:00:00:00:01"],"xdp":["off"],"mode":["default","dormant"],"state":["up","down","dormant"],
 "type":["bridge_slave","vlan"],"vrf":["d0","nosuch"],"dev":["d0","v0"],"alt":["x"],"property":["a altname y0"]}
add_kinds=[("dummy",[]),("veth",["peer name PEER","peer"]),("bridge",["stp_state 1","forward_delay 5","vlan_filtering 1","ageing_time 30","nosuch 1"]),
 ("vlan",["id 5","id 4095","id 0","protocol 802.1Q","protocol 802.1ad","reorder_hdr off","id x"]),("macvlan",["mode bridge","mode private","mode vepa","mode nosuch"]),
 ("ifb",[]),("nosuchkind",[])]
def kv(d):
    k=R.choice(list(d)); v=R.choice(d[k])
    if R.random()<0.12: v=R.choice(BAD)
    return k if v is None else (f"{k} {v}" if v!="" else k)
devs=["d0","v0","v1","br0","lo","d9","x0"]
k=0
for i in range(n):
    r=R.random()
    if r<0.5:
        d=R.choice(devs)
        out.append(f"ip link set {R.choice(['','dev '])}{d} "+" ".join(kv(set_kv) for _ in range(R.randint(1,4))))
    elif r<0.75:
        kind,opts=R.choice(add_kinds); k+=1; name=f"n{k%4}"
        pre=[]
        for _ in range(R.randint(0,2)):
            pre.append(R.choice(["mtu 1400","txqueuelen 5","address 02:00:00:00:bb:%02x"%R.randint(0,3),"numtxqueues 2","numrxqueues 0","group 2","up","link d0","link nosuch","index 50","index 1","addrgenmode none","addrgenmode bogus","broadcast 02:ff:ff:ff:ff:01","brd 02:ff","vrf d0"]))
        o=" ".join(R.choice(opts).replace("PEER",f"p{k%4}") for _ in range(R.randint(0,2))) if opts else ""
        if kind in ("vlan","macvlan") and R.random()<0.8: pre.append("link d0")
        out.append(f"ip link add {' '.join(pre)} name {name} type {kind} {o}".replace("  "," ").strip())
    elif r<0.85:
        out.append(f"ip link del {R.choice(['n0','n1','n2','n3','d0','lo','d9','v1','dev n1','n0 type vlan','group 3'])}")
    else:
        out.append(R.choice(["ip link show","ip -br link show","ip -d link show n0","ip link show type vlan","ip link show master br0","ip -j link show d0","ip link show group 1","ip link show up","ip -o link show n1"]))
out+=["ip -d link show","ip -br addr show"]
print("\n".join(out))
