#!/usr/bin/env python3
"""Focused random scenarios: VXLAN devices. Devices created with random VNIs, ports,
remote/group/local addresses of both families, lower devices, TTL/TOS/flow label, the
learning/ageing/checksum/df flags and MTUs (valid and refused combinations); later
`ip link set DEV type vxlan ...` changes, MTU changes of the device and its lower
device, the lower device going down, losing its addresses or being deleted; addresses,
routes and neighbours on the VXLAN devices; detailed and JSON listings and route
queries through them.

Usage: vxlan.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip -6 addr add 2001:db8::1/64 dev d0 nodad"]
vx = ["vx0", "vx1", "vx2"]


def addr_opt():
    return R.choice([" remote 10.0.0.9", " remote 2001:db8::9", " group 239.1.1.1", " group ff05::5",
                     " local 10.0.0.1", " local 2001:db8::1", " remote 10.0.0.9 local 10.0.0.1",
                     " group 239.1.1.2 dev d0", " group 239.1.1.3", " local 10.0.0.7", " remote 0.0.0.0", "",
                     " local fe80::1", " remote fe80::2", " local fe80::1 remote fe80::2", " group ff02::5",
                     " remote ::"])


def opts(changing):
    o = ""
    if not changing and R.random() < 0.9:
        o += " id %d" % R.choice([1, 2, 7, 16777215, 16777216, 0])
    if R.random() < 0.5:
        o += addr_opt()
    if R.random() < 0.4:
        o += " dev %s" % R.choice(["d0", "d1", "lo", "nosuch", "d0", "d1"] + vx)
    if R.random() < 0.6:
        o += " dstport %d" % R.choice([4789, 4789, 8472, 0, 5000])
    for _ in range(R.randint(0, 3)):
        o += R.choice([" ttl %d" % R.choice([0, 1, 64, 255, 256]), " ttl inherit", " tos 0x%02x" % R.choice([0, 0x10, 0x1c]),
                       " tos inherit", " learning", " nolearning", " ageing %d" % R.choice([0, 10, 300]), " ageing none",
                       " udpcsum", " noudpcsum", " udp6zerocsumtx", " noudp6zerocsumrx", " df set", " df inherit",
                       " df unset", " flowlabel %d" % R.choice([0, 5, 1048575, 1048576]), " srcport 100 200",
                       " proxy", " l2miss", " rsc", " maxaddress 10", " external", " noexternal", " gbp",
                       " ttl auto", " tos 0x01"])
    return o


def name():
    return R.choice(vx)


for _ in range(n):
    r = R.random()
    if r < 0.2:
        m = R.choice(["", "", " mtu %d" % R.choice([1000, 1450, 1500, 9000, 67])])
        out.append("ip link add %s%s type vxlan%s" % (name(), m, opts(False)))
    elif r < 0.3:
        out.append("ip link set %s type vxlan%s" % (name(), opts(True)))
    elif r < 0.42:
        d = name()
        out.append(R.choice(["ip link set %s up" % d, "ip link set %s down" % d, "ip link del %s" % d,
                             "ip link set %s mtu %d" % (d, R.choice([68, 1000, 1450, 1451, 1500, 9000, 65535])),
                             "ip link set d0 mtu %d" % R.choice([1280, 1500, 9000]), "ip link set d0 down", "ip link set d0 up",
                             "ip addr flush dev d0", "ip addr add 10.0.0.1/24 dev d0", "ip link del d0",
                             "ip link add d0 type dummy", "ip link set %s master br0" % d, "ip link add br0 type bridge",
                             "ip link set %s address 02:00:00:00:00:0%d" % (d, R.randint(1, 9))]))
    elif r < 0.55:
        d = name()
        out.append(R.choice(["ip addr add 10.5.%d.1/24 dev %s" % (vx.index(d), d),
                             "ip -6 addr add 2001:db8:5:%d::1/64 dev %s nodad" % (vx.index(d), d),
                             "ip route add 10.50.0.0/16 dev %s" % d, "ip route add 10.60.0.0/16 via 10.5.%d.9 dev %s" % (vx.index(d), d),
                             "ip -6 route add 2001:db8:60::/48 dev %s" % d,
                             "ip neigh add 10.5.%d.9 lladdr 02:00:00:00:00:99 dev %s" % (vx.index(d), d),
                             "ip route add 10.70.0.0/16 dev %s mtu 9000" % d]))
    elif r < 0.78:
        out.append(R.choice(["ip -d link show", "ip -j -d link show", "ip link show type vxlan", "ip -d link show dev %s" % name(),
                             "ip -j -d link show dev %s" % name(), "ip link show", "ip -br link show", "ip addr show",
                             "ip maddr show dev d0", "ip -6 maddr show dev d0", "ip route show", "ip -6 route show",
                             "ip neigh show", "ip -d -j link show type vxlan"]))
    else:
        out.append(R.choice(["ip route get 10.50.1.1", "ip route get 10.60.1.1", "ip -6 route get 2001:db8:60::1",
                             "ip route get 10.70.0.1", "ip route get 10.5.0.9", "ip route get 10.5.1.9 from 10.5.1.1",
                             "ip -6 route get 2001:db8:5:1::9"]))
out += ["ip -d link show", "ip route show", "ip -6 route show"]
print("\n".join(out))
