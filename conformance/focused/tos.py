#!/usr/bin/env python3
"""Focused random scenarios: TOS and DSCP. IPv4 routes and rules of both families with
`tos`/`dsfield`/`dscp` selectors of every kind of value (DSCP bits, ECN bits, legacy
TOS bits, names, out of range), lookups of both families with TOS values of every
kind (output, input, `fibmatch`), the route cache between them, and listings.

Usage: tos.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip addr add 10.1.0.1/24 dev d1",
       "ip -6 addr add 2001:db8:1::1/64 dev d0 nodad", "ip -6 addr add 2001:db8:2::1/64 dev d1 nodad",
       "sysctl -w net.ipv4.ip_forward=1", "sysctl -w net.ipv6.conf.all.forwarding=1"]
tosv = ["0x10", "0x1c", "0x04", "0x08", "0x02", "0x01", "0x03", "0xfc", "0xb8", "0x20", "0xe0", "0x1e", "0",
        "lowdelay", "throughput", "reliability", "mincost", "0x100", "16", "nosuch", "0x0c", "0x14"]


def tv():
    return R.choice(tosv)


for i in range(n):
    r = R.random()
    if r < 0.25:
        op = R.choice(["add", "add", "replace", "append", "del", "change"])
        p = R.choice(["10.9.0.0/16", "10.9.1.0/24", "0.0.0.0/0"])
        via = R.choice([" via 10.0.0.7", " via 10.1.0.8", " dev d0", ""])
        if op == "del":
            out.append(f"ip route del {p} {R.choice(['tos', 'dsfield'])} {tv()}")
        else:
            out.append(f"ip route {op} {p}{via or ' dev d1'} {R.choice(['tos', 'dsfield', 'tos'])} {tv()}{R.choice(['', ' metric 5', ' table 100'])}")
    elif r < 0.4:
        fam = R.choice(["", "", "-6 "])
        sel = R.choice(["tos", "dsfield", "dscp", "tos"])
        val = tv() if sel != "dscp" else R.choice(["46", "0", "63", "64", "0x2e", "af11", "cs1", "ef", "nosuch"])
        act = R.choice(["table 100", "table main", "unreachable", "table 200"])
        pref = R.choice(["100", "101", "102"])
        out.append(R.choice([f"ip {fam}rule add pref {pref} {sel} {val} {act}", f"ip {fam}rule del pref {pref}",
                             f"ip {fam}rule del {sel} {val}", f"ip {fam}rule show"]))
    elif r < 0.9:
        if R.random() < 0.7:
            d = R.choice(["10.9.1.1", "10.9.2.1", "10.8.0.1", "10.1.0.5"])
            out.append(R.choice([f"ip route get {d} tos {tv()}", f"ip route get {d} dsfield {tv()}",
                                 f"ip route get {d} tos {tv()} from 10.0.0.5 iif d0",
                                 f"ip route get fibmatch {d} tos {tv()}", f"ip route get {d}",
                                 f"ip route get {d} tos {tv()} oif d1"]))
        else:
            d = R.choice(["2001:db8:9::1", "2001:db8:2::5"])
            out.append(R.choice([f"ip -6 route get {d} tos {tv()}", f"ip -6 route get {d} dsfield {tv()}",
                                 f"ip -6 route get {d} tos {tv()} from 2001:db8:1::5 iif d0",
                                 f"ip -6 route get fibmatch {d} tos {tv()}"]))
    else:
        out.append(R.choice(["ip route show", "ip route show table 100", "ip route flush cache",
                             "ip route show tos 0x10", "ip route add 10.9.0.0/16 via 10.0.0.7 table 100",
                             "ip -6 route add 2001:db8:9::/48 via 2001:db8:1::7 table 100",
                             "ip -6 route add 2001:db8:9::/48 via 2001:db8:2::8 table 200",
                             "ip route add 10.9.0.0/16 via 10.1.0.9 table 200", "ip rule show", "ip -6 rule show"]))
out += ["ip route show table all", "ip rule show", "ip -6 rule show"]
print("\n".join(out))
