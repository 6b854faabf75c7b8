#!/usr/bin/env python3
"""Focused random scenarios: routing tables. Routes of both families added to,
listed from, flushed from and looked up in tables of every kind of id (0, the named
ones, small and 32-bit ones, names iproute2 does not know, `all`), rules pointing at
them (`table`, `lookup`, `goto`, `suppress_prefixlength`, `suppress_ifgroup`), and
lookups through the rules.

Usage: tables.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip addr add 10.1.0.1/24 dev d1",
       "ip -6 addr add 2001:db8:1::1/64 dev d0 nodad", "ip -6 addr add 2001:db8:2::1/64 dev d1 nodad"]
tabs = ["0", "1", "100", "252", "253", "254", "255", "256", "4294967295", "4294967294", "2147483648", "main",
        "local", "default", "unspec", "nosuch", "all", "0x10", "65536", "-1", "4294967296"]


def t():
    return R.choice(tabs)


for i in range(n):
    r = R.random()
    v6 = R.random() < 0.4
    fam = "-6 " if v6 else ""
    p = R.choice(["2001:db8:9::/48", "::/0", "2001:db8:9:1::/64"] if v6 else ["10.9.0.0/16", "0.0.0.0/0", "10.9.1.0/24"])
    via = R.choice([" via 2001:db8:1::7", " via 2001:db8:2::8", " dev d0"] if v6 else [" via 10.0.0.7", " via 10.1.0.8", " dev d1"])
    if r < 0.3:
        op = R.choice(["add", "add", "replace", "append", "del", "del"])
        typ = R.choice(["", "", "", "unreachable ", "throw ", "blackhole "])
        out.append(f"ip {fam}route {op} {typ}{p}{'' if typ else via} {R.choice(['table', 'table', 'tab'])} {t()}")
    elif r < 0.5:
        pref = R.choice(["100", "110", "120", "130"])
        act = R.choice([f"table {t()}", f"lookup {t()}", f"goto {R.choice(['110', '120', '130', '5'])}",
                        f"table {t()} suppress_prefixlength {R.choice(['0', '8', '32', '-1', '129'])}",
                        f"lookup {t()} suppress_ifgroup {R.choice(['0', '1', 'default'])}", "unreachable", "nop"])
        sel = R.choice(["", " from 10.7.0.0/16", " to 10.9.0.0/16", " fwmark 5", " iif d0", " oif d1"]) if not v6 else \
            R.choice(["", " from 2001:db8:7::/48", " to 2001:db8:9::/48", " fwmark 5"])
        out.append(R.choice([f"ip {fam}rule add pref {pref}{sel} {act}", f"ip {fam}rule del pref {pref}",
                             f"ip {fam}rule del table {t()}", f"ip {fam}rule flush table {t()}"]))
    elif r < 0.8:
        if v6:
            d = R.choice(["2001:db8:9::1", "2001:db8:9:1::1", "2001:db8:7::1"])
            out.append(R.choice([f"ip -6 route get {d}", f"ip -6 route get {d} mark 5",
                                 f"ip -6 route get {d} from 2001:db8:7::5", f"ip -6 route get fibmatch {d}"]))
        else:
            d = R.choice(["10.9.1.1", "10.9.2.1", "10.8.0.1"])
            out.append(R.choice([f"ip route get {d}", f"ip route get {d} mark 5", f"ip route get {d} from 10.7.0.5 iif d0",
                                 f"ip route get {d} oif d1", f"ip route get fibmatch {d}"]))
    else:
        out.append(R.choice([f"ip {fam}route show table {t()}", f"ip {fam}route flush table {t()}",
                             f"ip {fam}route list tab {t()}", f"ip {fam}rule show", f"ip {fam}rule show table {t()}",
                             f"ip {fam}route show table {t()} {p}", f"ip -d {fam}route show table {t()}",
                             "ip link set d1 group 1", "ip link set d1 group 0"]))
out += ["ip route show table all", "ip -6 route show table all", "ip rule show", "ip -6 rule show"]
print("\n".join(out))
