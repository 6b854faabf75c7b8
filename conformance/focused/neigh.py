#!/usr/bin/env python3
"""Focused random scenarios: neighbour entries (ip neigh) of both families on a dummy and a veth pair: states and flags
(`nud`, `router`, `extern_learn`, `managed`, `proxy`), link-layer addresses, add/replace/change/delete, flushes with
filters, `ip neigh get`, devices going down or losing addresses, and how entries are listed. The kernel lists a table in
its hash order (seeded at random), so a listing here names one address and device.

Usage: neigh.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 50
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add v0 type veth peer name v1","ip link set d0 up","ip link set v0 up","ip link set v1 up",
     "ip addr add 10.0.0.1/24 dev d0","ip addr add 10.1.0.1/24 dev v0","ip -6 addr add 2001:db8::1/64 dev d0 nodad",
     "ip -6 addr add 2001:db8:1::1/64 dev v0 nodad"]
addrs=["10.0.0.9","10.1.0.9","2001:db8::9","2001:db8:1::9","fe80::9","10.9.9.9","224.0.0.5","10.0.0.255","0.0.0.0","::"]
devs=["d0","v0","v1","lo","nosuch"]
lls=["02:00:00:00:00:99","02:00:00:00:00:98","00:00:00:00:00:00","ff:ff:ff:ff:ff:ff","02:00","null"]
# (`delay`, `probe` and `incomplete` move on with the neighbour timers within seconds: not drawn)
states=["permanent","noarp","reachable","stale","none","failed","bogus"]
def nbr():
    a=R.choice(addrs); s=f"{a} dev {R.choice(devs)}"
    if R.random()<0.8: s+=f" lladdr {R.choice(lls)}"
    if R.random()<0.6: s+=f" nud {R.choice(states)}"
    for f in ["router","extern_learn","managed","proxy"]:
        if R.random()<0.1: s+=f" {f}"
    return s
d1=lambda: R.choice(["d0","v0","v1","lo"])
shows=lambda: R.choice([f"ip neigh show to {R.choice(addrs)} dev {d1()}",f"ip -4 neigh show dev {R.choice(['d0','v0'])} to {R.choice(addrs[:2])}",
                        f"ip neigh get {R.choice(addrs)} dev {R.choice(devs)}",f"ip -6 neigh show to {R.choice(addrs[2:5])} dev {d1()}",
                        f"ip neigh show proxy to {R.choice(addrs)} dev {d1()}",f"ip -j neigh show to {R.choice(addrs)} dev {d1()}",
                        f"ip neigh show nud {R.choice(['permanent','all','stale','noarp','none'])} to {R.choice(addrs)} dev {d1()}",
                        f"ip -d neigh show to {R.choice(addrs)} dev {d1()}",
                        f"ip neigh show to {R.choice(addrs)} dev {d1()} {R.choice(['router','extern_learn','proxy'])}"])
for i in range(n):
    r=R.random()
    if r<0.45:
        out.append(f"ip neigh {R.choice(['add','add','replace','replace','change','del','append','prepend'])} {nbr()}")
    elif r<0.52:
        out.append(R.choice(["ip link set d0 down","ip link set d0 up","ip link set v0 down","ip link set v0 up","ip link set v1 down",
                             "ip link set v1 up","ip addr flush dev v0","ip addr add 10.1.0.1/24 dev v0","ip link set d0 arp off",
                             "ip link set d0 arp on","ip link set v0 address 02:00:00:00:00:42","sysctl -w net.ipv6.conf.v0.disable_ipv6=1",
                             "sysctl -w net.ipv6.conf.v0.disable_ipv6=0","ip link set v0 mtu 1300","sysctl -w net.ipv4.neigh.default.gc_thresh3=2"]))
    elif r<0.6:
        out.append(R.choice(["ip neigh flush dev d0","ip neigh flush all","ip -4 neigh flush dev v0","ip -6 neigh flush all",
                             f"ip neigh flush to {R.choice(addrs)}","ip neigh flush nud permanent dev d0","ip neigh flush nud all dev v0",
                             "ip neigh flush dev nosuch","ip neigh flush"]))
    else:
        out.append(shows())
print("\n".join(out))
