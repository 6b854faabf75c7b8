#!/usr/bin/env python3
"""Focused random scenarios: longest-prefix match over many overlapping prefixes.
IPv4 prefixes of every length 0-32 and IPv6 prefixes of every length 0-128, drawn
around a few anchors so that they nest, with several types (unicast through two
devices and gateways, blackhole, unreachable, prohibit, throw), metrics and TOS;
deletions of some; then queries for addresses inside, beside and between them, with
`fibmatch`, and full listings.

Usage: lpm.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys, ipaddress
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip addr add 192.0.2.1/24 dev d0", "ip addr add 198.51.100.1/24 dev d1",
       "ip -6 addr add 2001:db8:ffff::1/64 dev d0 nodad", "ip -6 addr add 2001:db8:fffe::1/64 dev d1 nodad"]
A4 = [int(ipaddress.IPv4Address(a)) for a in ["10.20.30.40", "10.20.31.0", "172.16.5.9", "10.0.0.0", "203.0.113.77"]]
A6 = [int(ipaddress.IPv6Address(a)) for a in ["2001:db8:1234:5678::9", "2001:db8:1234:5600::", "2400:cb00::1", "2001:db8::", "fd00:1:2:3::4"]]
def near4(a):
    # flip a few low bits, sometimes
    if R.random() < 0.5:
        a ^= 1 << R.randint(0, 31)
    return a & 0xFFFFFFFF
def near6(a):
    if R.random() < 0.5:
        a ^= 1 << R.randint(0, 127)
    return a
def p4():
    l = R.choice([0, 1, 7, 8, 9, 15, 16, 17, 20, 23, 24, 25, 28, 30, 31, 32, R.randint(0, 32)])
    a = near4(R.choice(A4))
    net = ipaddress.IPv4Network((a & ((0xFFFFFFFF << (32 - l)) & 0xFFFFFFFF) if l else 0, l))
    return str(net)
def p6():
    l = R.choice([0, 1, 16, 32, 33, 47, 48, 56, 63, 64, 65, 96, 120, 127, 128, R.randint(0, 128)])
    a = near6(R.choice(A6))
    mask = ((1 << 128) - 1) ^ ((1 << (128 - l)) - 1) if l else 0
    return str(ipaddress.IPv6Network((a & mask, l)))
routes4, routes6 = [], []
def add4():
    p = p4()
    t = R.choice(["", "", "", "blackhole ", "unreachable ", "prohibit ", "throw "])
    nh = "" if t else R.choice([" dev d0", " dev d1", " via 192.0.2.9", " via 198.51.100.9"])
    x = R.choice(["", "", "", " metric 10", " metric 5", " tos 0x10", " table 100"])
    routes4.append((p, x))
    return "ip route %s %s%s%s%s" % (R.choice(["add", "add", "replace", "append"]), t, p, nh, x)
def add6():
    p = p6()
    t = R.choice(["", "", "", "blackhole ", "unreachable ", "prohibit "])
    nh = "" if t else R.choice([" dev d0", " dev d1", " via 2001:db8:ffff::9", " via 2001:db8:fffe::9"])
    x = R.choice(["", "", "", " metric 10", " metric 5", " table 100"])
    routes6.append((p, x))
    return "ip -6 route %s %s%s%s%s" % (R.choice(["add", "add", "replace", "append"]), t, p, nh, x)
def q4():
    a = near4(R.choice(A4))
    if R.random() < 0.3:
        a = R.getrandbits(32)
    return "ip route get %s%s" % (ipaddress.IPv4Address(a), R.choice(["", "", " fibmatch", " tos 0x10", " mark 0x1"]))
def q6():
    a = near6(R.choice(A6))
    if R.random() < 0.2:
        a = (0x2001 << 112) | R.getrandbits(112)
    return "ip -6 route get %s%s" % (ipaddress.IPv6Address(a), R.choice(["", "", " fibmatch"]))
out.append("ip rule add mark 0x1 lookup 100")
for _ in range(n):
    r = R.random()
    if r < 0.25: out.append(add4())
    elif r < 0.45: out.append(add6())
    elif r < 0.52 and routes4:
        p, x = R.choice(routes4); out.append("ip route del %s%s" % (p, x))
    elif r < 0.58 and routes6:
        p, x = R.choice(routes6); out.append("ip -6 route del %s%s" % (p, x))
    elif r < 0.8: out.append(q4())
    else: out.append(q6())
out += ["ip route show table all", "ip -6 route show table all"]
print("\n".join(out))
