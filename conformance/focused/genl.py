#!/usr/bin/env python3
"""Focused random scenarios: the small generic netlink and ioctl objects of `ip`:
`ip ioam` namespaces and schemas (IDs, data and wide data, schema data of every
length, links between them, deletions, parse errors), `ip token` (tokens of every
shape on devices with and without router solicitations, advertisements, forwarding
or IPv6, listings and `get`), `ip sr` (the SRv6 tunnel source, `hmac show`) and
`ip tcp_metrics` (show, get, delete and flush of every kind of selector), with words
valid and not. The kernel lists IOAM entries in a randomly seeded hash order, so a
listing here comes only while at most one namespace and one schema exist.

Usage: genl.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add v0 type veth peer name v1",
       "ip link set d0 up", "ip link set v0 up", "ip link set v1 up"]
nss, scs = set(), set()
links = {}


def num(big=False):
    return R.choice(["0", "1", "5", "7", "65535", "65536", "0x10", "-1", "x", "4294967295", "4294967296"] +
                    (["0xffffffffffffffff", "0x1234567890", "18446744073709551616", "0x"] if big else []))


def tok():
    return R.choice(["::1", "::1:2:3:4", "::1/64", "::1:2/128", "::", "::/64", "2001:db8::5", "fe80::1:2",
                     "::ffff:1.2.3.4", "10.0.0.1", "bogus", "::1/200", "::5/0"])


for _ in range(n):
    r = R.random()
    if r < 0.3:
        k = R.random()
        if k < 0.45:
            i = R.choice(["1", "2", "7", "65535", "65536", "x", "-1", "0x10"])
            s = "ip ioam namespace add " + i
            if R.random() < 0.5:
                s += " data " + num()
            if R.random() < 0.4:
                s += " wide " + num(True)
            if R.random() < 0.1:
                s += R.choice([" bogus 1", " data", " wide 1 data 2"])
            out.append(s)
            # (counted even when the line is refused: a listing only comes when at
            # most one can exist)
            if i in ("1", "2", "7", "65535", "0x10"):
                nss.add({"0x10": "16"}.get(i, i))
        elif k < 0.6:
            i = R.choice(["1", "2", "7", "x"])
            out.append("ip ioam namespace del " + i)
            nss.discard(i)
        elif k < 0.8:
            i = R.choice(["1", "2", "5", "4294967295", "4294967296", "x"])
            data = R.choice(["a", "abcd", "abcdefgh", "x" * 255, "y" * 1020, "z" * 1021, "hello world"])
            out.append("ip ioam schema add %s %s" % (i, data.replace(" ", "_")))
            if i in ("1", "2", "5", "4294967295") and len(data) <= 1020:
                scs.add(i)
        elif k < 0.9:
            i = R.choice(["1", "2", "5", "x"])
            out.append("ip ioam schema del " + i)
            scs.discard(i)
        else:
            out.append("ip ioam namespace set %s schema %s" % (R.choice(["1", "2", "7", "9", "x"]),
                                                            R.choice(["1", "2", "5", "none", "9", "x"])))
        if len(nss) <= 1 and len(scs) <= 1 and R.random() < 0.6:
            out.append(R.choice(["ip ioam namespace show", "ip ioam schema show", "ip -j ioam namespace show",
                                 "ip -j ioam schema show"]))
    elif r < 0.55:
        d = R.choice(["d0", "v0", "v1", "lo", "nosuch"])
        k = R.random()
        if k < 0.4:
            out.append("ip token %s %s dev %s" % (R.choice(["set", "add", "s"]), tok(), d))
        elif k < 0.5:
            out.append("ip token del dev " + d)
        elif k < 0.7:
            out.append(R.choice(["ip token", "ip token list", "ip token show", "ip token get dev " + d,
                                 "ip -j token", "ip token get", "ip token bogus"]))
        else:
            out.append(R.choice(["sysctl -w net.ipv6.conf.%s.router_solicitations=%d" % (d, R.choice([0, 1, 3, -1])),
                                 "sysctl -w net.ipv6.conf.%s.accept_ra=%d" % (d, R.randint(0, 2)),
                                 "sysctl -w net.ipv6.conf.%s.forwarding=%d" % (d, R.randint(0, 1)),
                                 "sysctl -w net.ipv6.conf.%s.disable_ipv6=%d" % (d, R.randint(0, 1)),
                                 "ip link set %s down" % d, "ip link set %s up" % d, "ip link set %s mtu 1200" % d,
                                 "ip link set %s mtu 1500" % d, "ip link set %s arp off" % d,
                                 "ip link set %s arp on" % d]))
    elif r < 0.7:
        out.append(R.choice(["ip sr tunsrc set %s" % R.choice(["2001:db8::1", "::", "10.0.0.1", "bogus", "fe80::1"]),
                             "ip sr tunsrc show", "ip sr hmac show", "ip sr hmac set 1 sha1", "ip sr", "ip sr bogus",
                             "ip sr tunsrc", "ip -j sr tunsrc show"]))
    elif r < 0.85:
        sel = R.choice(["", "10.0.0.1", "10.0.0.0/24", "default", "any", "2001:db8::1", "2001:db8::/64",
                        "address 10.0.0.1", "src 10.0.0.2", "10.0.0.1 src 10.0.0.2", "bogus", "src 10.0.0.0/8"])
        out.append("ip %stcp_metrics %s %s" % (R.choice(["", "-4 ", "-6 "]),
                                                R.choice(["show", "flush", "delete", "get", "list", "bogus"]), sel))
    else:
        out.append(R.choice(["ip token", "ip ioam", "ip ioam bogus", "ip ioam namespace", "ip ioam schema bogus",
                             "ip link del v0", "ip link add v0 type veth peer name v1",
                             "ip link set v0 up", "ip link set v1 up"]))
out += ["ip token"]
print("\n".join(out))
