#!/usr/bin/env python3
"""Focused random scenarios: the MPTCP path manager's endpoints and limits (`ip mptcp`).
Endpoints added with addresses of both families (local and not, IPv4-mapped, the
wildcards, link-local, multicast, words that are no address), devices (present, deleted
later, missing), IDs (given, in use, out of range), ports (their listening sockets
binding or not: taken ports, wildcards of both families, IPv6 addresses the namespace
does not have) and flag lists valid and refused; endpoints changed (`backup`,
`fullmesh` and their negations, by ID or by address), deleted (ID 0 with an address),
shown one by one and in full, flushed; the limits set in and out of range; keyword
abbreviations, unknown commands and JSON output.

Usage: mptcp.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip -6 addr add 2001:db8::1/64 dev d0 nodad"]
ADDRS = ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.9.0.1", "0.0.0.0", "255.255.255.255", "224.0.0.5",
         "127.0.0.1", "2001:db8::1", "2001:db8::2", "2001:db8:5::1", "::", "::1", "fe80::1",
         "ff02::1", "::ffff:10.0.0.2", "::ffff:10.0.0.1", "10.0.0.1/24", "2001:db8::/64",
         "default", "any", "bogus", "1.2.3"]
V4 = ADDRS[:8]


def addr():
    return R.choice(V4[:4] * 3 + ADDRS)


def pick(xs):
    return R.choice(xs)


def flags(words):
    return " ".join(R.sample(words, R.randint(0, 2)))


def opts(kind):
    parts = []
    if kind in ("add", "change", "show") or R.random() < 0.3:
        if R.random() < 0.9 or kind == "add":
            parts.append(addr())
    if R.random() < 0.5:
        parts.append(pick(["id", "i", "id"]) + " " + pick(["1", "2", "3", "5", "0", "254", "255", "256", "x", "0x4"]))
    if R.random() < 0.25:
        parts.append(pick(["dev", "d"]) + " " + pick(["d0", "d1", "lo", "nosuch", "d2"]))
    if R.random() < 0.3:
        parts.append(pick(["port", "p"]) + " " + pick(["1000", "1001", "2000", "0", "65535", "70000", "x"]))
    fl = ["signal", "subflow", "backup", "fullmesh", "nobackup", "nofullmesh", "implicit", "signal", "subflow"]
    if kind == "change":
        fl = ["backup", "nobackup", "fullmesh", "nofullmesh", "backup", "fullmesh", "signal"]
    parts.append(flags(fl))
    R.shuffle(parts)
    return " ".join(p for p in parts if p)


for _ in range(n):
    r = R.random()
    ep = pick(["endpoint", "endpoint", "endpoint", "endp", "e"])
    if r < 0.35:
        out.append("ip mptcp %s %s %s" % (ep, pick(["add", "add", "a"]), opts("add")))
    elif r < 0.45:
        out.append("ip mptcp %s %s %s" % (ep, pick(["delete", "del", "d"]), opts("del")))
    elif r < 0.55:
        out.append("ip mptcp %s %s %s" % (ep, pick(["change", "ch"]), opts("change")))
    elif r < 0.62:
        out.append("ip mptcp %s %s" % (ep, pick(["show", "show", "show id %d" % R.randint(0, 6), "show id 255",
                                                   "show 10.0.0.2", "show id x", "s", ""])))
    elif r < 0.66:
        out.append("ip mptcp %s flush" % ep)
    elif r < 0.75:
        out.append("ip mptcp %s %s" % (pick(["limits", "limits", "lim", "l"]),
                                       pick(["set subflows %s" % pick(["0", "2", "8", "9", "-1", "x"]),
                                             "set add_addr_accepted %s" % pick(["0", "3", "8", "9"]),
                                             "set subflows %d add_addr_accepted %d" % (R.randint(0, 9), R.randint(0, 9)),
                                             "set", "set foo 1", "set subflows", "show", "", "bogus"])))
    elif r < 0.8:
        out.append(pick(["ip mptcp", "ip mptcp help", "ip mptcp bogus", "ip mptcp endpoint bogus",
                         "ip mptcp endpoint help", "ip mp endpoint show", "ip -j mptcp endpoint show",
                         "ip -j mptcp limits show", "ip -j -p mptcp endpoint show", "ip -6 mptcp endpoint show",
                         "ip mptcp endpoint show id 1 id 2", "ip mptcp endpoint add 10.0.0.3 10.0.0.4"]))
    elif r < 0.88:
        out.append(pick(["ip link del d1", "ip link add d1 type dummy", "ip link set d1 name d2",
                         "ip -6 addr add 2001:db8::2/64 dev d0 nodad", "ip -6 addr del 2001:db8::2/64 dev d0",
                         "ip addr add 10.0.0.2/24 dev d0", "ip addr del 10.0.0.2/24 dev d0",
                         "ip -6 addr add 2001:db8:5::1/64 dev d1 nodad"]))
    else:
        out.append("ip mptcp endpoint show")
out += ["ip mptcp endpoint show", "ip mptcp limits show"]
print("\n".join(out))
