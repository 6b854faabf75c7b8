#!/usr/bin/env python3
"""Focused random scenarios: link changes (up, down, mtu, group, alias, queue length, flags, master, address, name, operational state and link mode, protodown) on a dummy, a veth pair, a bridge and a macvlan.

Usage: links.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 40
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add v0 type veth peer name v1","ip link add br0 type bridge","ip link add mv0 link d0 type macvlan mode bridge"]
devs=["d0","v0","v1","br0","mv0","lo"]
for i in range(n):
    r=R.random()
    d=R.choice(devs)
    if r<0.45:
        parts=[]
        for _ in range(R.randint(1,3)):
            parts.append(R.choice(["up","down","mtu %d"%R.choice([1280,1400,1500,9000,68,67,65535,100]),"group %d"%R.randint(0,3),"alias a%d"%R.randint(0,2),"txqueuelen %d"%R.choice([0,10,1000]),"arp off","arp on","multicast off","promisc on","master br0","nomaster","address 02:00:00:00:aa:%02x"%R.randint(0,3),"name x%d"%R.randint(0,1),
                "state dormant","state up","state testing","mode dormant","mode default","protodown on","protodown off","gso_max_size 1000"]))
        out.append(f"ip link set {d} "+" ".join(parts))
    elif r<0.6:
        out.append(R.choice([f"ip link show {d}","ip link show","ip -br link","ip link show master br0","ip -j link show "+d]))
    elif r<0.7:
        out.append(R.choice([f"ip addr add 10.0.{R.randint(0,3)}.1/24 dev {d}",f"ip -6 addr add 2001:db8:{R.randint(0,3)}::1/64 dev {d} nodad","ip addr show","ip -6 route show","ip route show table all"]))
    elif r<0.8:
        # (a re-created peer names its address: the oracle gives one only to names it has not seen, the kernel a random one)
        out.append(R.choice(["ip link add d0 type dummy","ip link add v0 type veth peer name v1 address 02:00:00:00:10:99","ip link add br0 type bridge","ip link add mv0 link d0 type macvlan mode bridge","ip link del "+d]))
    else:
        out.append(R.choice([f"ip route get 10.0.{R.randint(0,3)}.9",f"ip -6 route get 2001:db8:{R.randint(0,3)}::9","ip -6 route show table local"]))
out.append("ip link show")
out.append("ip addr show")
print("\n".join(out))
