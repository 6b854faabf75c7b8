#!/usr/bin/env python3
"""Focused random scenarios: IPv6 address labels (RFC 6724 policy table, `ip
addrlabel`): labels added, replaced and deleted for prefixes of every length, with and
without a device, listed and flushed, and the source addresses output lookups choose by
them (rule 6, matching labels) among addresses of several prefixes and devices.

Usage: labels.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip -6 addr add 2001:db8:1::1/64 dev d0 nodad", "ip -6 addr add fd00:1::1/64 dev d0 nodad",
       "ip -6 addr add 2002:c000:201::1/64 dev d1 nodad", "ip -6 addr add 2001:db8:2::1/64 dev d1 nodad",
       "ip -6 route add default via 2001:db8:1::9 dev d0",
       "ip -6 route add 2001:db8:99::/48 via 2001:db8:2::9 dev d1"]
pfx = ["2001:db8::/32", "2001:db8:1::/48", "fd00::/8", "2002::/16", "2001:db8:99::/48", "::/0", "2001:db8:99::5/128",
       "fc00::/7", "::ffff:0:0/96", "2001:db8:2::/64", "3ffe::/16", "fd00:1::/64", "2001:db8::/31", "::/128"]
dsts = ["2001:db8:99::5", "2001:db8:99::6", "fd00:2::1", "2002:c000:202::1", "2001:db8:77::1", "3ffe::1",
        "::ffff:10.0.0.1", "fd00:1::5", "64:ff9b::1"]
for i in range(n):
    r = R.random()
    if r < 0.35:
        p = R.choice(pfx)
        dev = R.choice(["", "", " dev d0", " dev d1", " dev nosuch"])
        lab = R.choice(["1", "2", "3", "4", "5", "6", "7", "13", "99", "100", "4294967295", "4294967296", "-1", "abc"])
        op = R.choice(["add", "add", "add", "del", "del"])
        out.append(f"ip addrlabel {op} prefix {p}{dev} label {lab}" if R.random() < 0.9 else
                   R.choice([f"ip addrlabel {op} prefix {p}", f"ip addrlabel {op} label {lab}",
                             f"ip addrlabel {op} prefix {p} label {lab} label 2",
                             f"ip addrlabel {op} prefix {p} prefix ::/0 label {lab}"]))
    elif r < 0.8:
        d = R.choice(dsts)
        out.append(R.choice([f"ip -6 route get {d}", f"ip -6 route get {d}", f"ip -6 route get {d} oif d1",
                             f"ip -6 route get {d} oif d0"]))
    else:
        out.append(R.choice(["ip addrlabel list", "ip addrlabel show", "ip -6 addrlabel list", "ip addrlabel flush",
                             "ip -4 addrlabel list", "ip addrlabel", "ip -j addrlabel list",
                             "ip -6 addr add 2001:db8:99::1/64 dev d0 nodad", "ip -6 addr del 2001:db8:99::1/64 dev d0",
                             "ip -6 addr add fd00:2::7/64 dev d1 nodad", "ip -6 addr del fd00:2::7/64 dev d1",
                             "ip link del d1", "ip link add d1 type dummy", "ip link set d1 up"]))
out += ["ip addrlabel list"]
print("\n".join(out))
