#!/usr/bin/env python3
"""Focused random scenarios: the IPv6 local table. Addresses of several prefix
lengths (/64, /127, /128, /0-ish) added, deleted and shared by two devices, with and
without `noprefixroute`, forwarding turned on and off (subnet-router anycast routes),
devices down and up, and the local, anycast and prefix routes that follow, listed and
looked up (output and input).

Usage: local6.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up"]
addrs = ["2001:db8:1::1/64", "2001:db8:1::2/64", "2001:db8:1::/64", "2001:db8:2::1/127", "2001:db8:2::/127",
         "2001:db8:3::1/128", "2001:db8:1::1/48", "2001:db8:4::1/120", "fd00::1/8", "2001:db8:1:0:ffff::1/64"]
for i in range(n):
    r = R.random()
    if r < 0.35:
        a = R.choice(addrs)
        d = R.choice(["d0", "d1"])
        out.append(R.choice([f"ip -6 addr add {a} dev {d} nodad", f"ip -6 addr add {a} dev {d} nodad noprefixroute",
                             f"ip -6 addr del {a} dev {d}", f"ip -6 addr change {a} dev {d} nodad noprefixroute",
                             f"ip -6 addr replace {a} dev {d} nodad"]))
    elif r < 0.7:
        dst = R.choice(["2001:db8:1::1", "2001:db8:1::", "2001:db8:1::5", "2001:db8:2::", "2001:db8:2::1", "2001:db8:3::1",
                        "2001:db8:4::", "2001:db8:4::1", "fd00::", "2001:db8:1:0:ffff::1"])
        out.append(R.choice([f"ip -6 route get {dst}", f"ip -6 route get {dst}", f"ip -6 route get fibmatch {dst}",
                             f"ip -6 route get {dst} from 2001:db8:9::1 iif d1", f"ip -6 route get {dst} oif d1"]))
    elif r < 0.85:
        out.append(R.choice(["ip -6 route show table local", "ip -6 route show", "ip -6 addr show",
                             "ip -6 route show table local type anycast", "ip -6 route show table all 2001:db8:1::/64"]))
    else:
        out.append(R.choice(["sysctl -w net.ipv6.conf.all.forwarding=1", "sysctl -w net.ipv6.conf.all.forwarding=0",
                             "sysctl -w net.ipv6.conf.d0.forwarding=1", "sysctl -w net.ipv6.conf.d0.forwarding=0",
                             "ip link set d0 down", "ip link set d0 up", "ip link set d1 down", "ip link set d1 up",
                             "ip -6 addr flush dev d1", "ip -6 route del 2001:db8:1::/64 dev d0"]))
out += ["ip -6 route show table all"]
print("\n".join(out))
