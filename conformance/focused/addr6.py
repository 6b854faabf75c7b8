#!/usr/bin/env python3
"""Focused random scenarios: IPv6 addresses on dummies and, in half the seeds, a veth pair: flags (nodad, noprefixroute, home, mngtmpaddr, optimistic), metrics, peers, deprecated addresses, the conf sysctls that act on addresses, link down/up and MTU, flushes, and source address selection in lookups.

Usage: addr6.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed=int(sys.argv[1]); n=int(sys.argv[2]) if len(sys.argv)>2 else 40
R=random.Random(seed)
out=["ip link add d0 type dummy","ip link add d1 type dummy","ip link set d0 up","ip link set d1 up"]
# a veth pair (not NOARP: duplicate address detection runs on it once accept_dad is on)
veth=R.random()<0.5
if veth:
    out+=["ip link add v0 type veth peer name v1","ip link set v0 up","ip link set v1 up"]
devs=["d0","d0","d1"]+(["v0","v0"] if veth else [])
addrs=["ff05::2/128","ff02::1:3/128","2001:db8::1/64","2001:db8::2/64","2001:db8::1/128","2001:db8:0:1::1/64","2001:db8::1/48","2001:db8::/64",
       "fe80::5/64","fe80::6/10","fd00::1/64","fd00::1/8","2002:a00:1::1/64","fec0::1/64","2001:db8::ff/127","::ffff:10.0.0.1/96"]
opts=["","",""," nodad"," nodad"," noprefixroute"," home"," mngtmpaddr"," optimistic"," metric 50"," metric 1024",
      " preferred_lft 0"," valid_lft forever preferred_lft 0"," valid_lft forever preferred_lft forever"," scope link"," scope host",
      " scope site"," nodad noprefixroute"," home nodad"," autojoin"," autojoin nodad"," peer 2001:db8:9::9/64"," peer 2001:db8:9::9"," label d0:x"]
dsts=["2001:db8::9","2001:db8:0:1::9","2001:db8:5::1","fd00::9","fd01::9","fe80::9","2002:a00:1::9","fec0::9","2001:db8::1","2001:db8:9::9","2001:db8::fe","::ffff:10.0.0.9","ff02::1","2600::1"]
sysctls=["accept_dad=0","accept_dad=1","accept_dad=2","optimistic_dad=1","use_optimistic=1","keep_addr_on_down=1","keep_addr_on_down=-1",
         "keep_addr_on_down=0","disable_ipv6=1","disable_ipv6=0","forwarding=1","forwarding=0","use_oif_addrs_only=1","addr_gen_mode=1","addr_gen_mode=0",
         "addr_gen_mode=2","stable_secret=2001:db8:1234::5678","use_optimistic=1","optimistic_dad=0"]
for i in range(n):
    r=R.random()
    d=R.choice(devs)
    a=R.choice(addrs)
    if r<0.32:
        out.append(f"ip -6 addr {R.choice(['add','add','add','replace','change'])} {a} dev {d}{R.choice(opts)}")
    elif r<0.47:
        out.append(f"ip -6 addr del {a} dev {d}" if R.random()<0.8 else f"ip -6 addr del {a.split('/')[0]} dev {d}")
    elif r<0.57:
        out.append(R.choice([f"ip -6 addr show dev {d}","ip -6 addr show","ip -6 route show table local","ip -6 route show table all","ip -6 route show",
                             "ip -j -6 addr show dev d0","ip -6 addr show scope global","ip -6 addr show permanent","ip -6 addr show deprecated",
                             "ip -6 addr show home","ip -6 addr show noprefixroute","ip -6 addr show to 2001:db8::/48","ip -o -6 addr show",
                             "ip -6 addr show tentative","ip -6 addr show dadfailed","ip -6 addr show -tentative","ip -6 addr show optimistic"]))
    elif r<0.73:
        dst=R.choice(dsts)
        out.append(R.choice([f"ip -6 route get {dst}",f"ip -6 route get {dst}",f"ip -6 route get {dst} oif {d}",f"ip -6 route get fibmatch {dst}",
                             f"ip -6 route get {dst} from 2001:db8::1",f"ip -6 route get {dst} from 2001:db8::2 iif {d}",f"ip -6 route get {dst} from {R.choice(dsts)}"]))
    elif r<0.83:
        dev=R.choice(["all","default",d,d])
        out.append(f"sysctl -w net.ipv6.conf.{dev}.{R.choice(sysctls)}")
    elif r<0.93:
        out.append(R.choice([f"ip -6 addr flush dev {d}",f"ip -6 addr flush dev {d} scope global",f"ip -6 addr flush dev {d} permanent",
                             f"ip -6 addr flush dev {d} to 2001:db8::/64",f"ip -s -6 addr flush dev {d}",f"ip link set {d} down",f"ip link set {d} up",
                             f"ip link set {d} up",f"ip link set {d} mtu 1200",f"ip link set {d} mtu 1500",f"ip -6 addr flush dev {d} deprecated",
                             f"ip link set {d} addrgenmode none",f"ip link set {d} addrgenmode eui64",f"ip link set {d} addrgenmode stable_secret",
                             f"ip link set {d} mtu 1280",f"ip link set {d} mtu 1279",f"ip token set ::1:2 dev {d}",f"ip -6 maddr show dev {d}"]))
    else:
        out.append(R.choice([f"ip -6 route add 2001:db8:5::/48 via 2001:db8::9 dev {d}",f"ip -6 route add 2001:db8:6::/48 dev {d} src 2001:db8::1",
                             f"ip -6 route add 2600::/16 dev {d}",f"ip -6 route add default via fe80::9 dev {d}",f"ip -6 route add 2001:db8:7::/48 dev {d} src 2001:db8::2",
                             "ip -6 route show"]))
out.append("ip -6 addr show")
out.append("ip -6 route show table all")
print("\n".join(out))
