#!/usr/bin/env python3
"""Focused random scenarios: IPv4 broadcast. Addresses of prefix lengths /8 to /32
(/31 and /32 included) with default, computed (`brd +`), none (`brd -`) and custom
broadcast addresses, peers, secondaries and labels, on two devices; the broadcast
routes the local table gets and loses as addresses come and go; queries to each
network's first, last and custom broadcast addresses and to 255.255.255.255, on the
output and input paths (forwarding on and off), with sources of every kind.

Usage: bcast4.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up"]
nets = ["10.0.0", "10.0.1", "10.1.0"]
def addr():
    net = R.choice(nets)
    host = R.choice([1, 2, 5, 0, 255, 254, 128, 129])
    plen = R.choice([8, 16, 22, 24, 24, 25, 30, 31, 32])
    d = R.choice(["d0", "d1"])
    b = R.choice(["", "", " brd +", " brd -", " brd %s.77" % net, " broadcast %s.255" % net, " brd 255.255.255.255",
                  " peer %s.9" % net, " label %s:1" % d, " noprefixroute"])
    return "ip addr %s %s.%d/%d dev %s%s" % (R.choice(["add", "add", "add", "del", "replace"]), net, host, plen, d, b)
def dst():
    net = R.choice(nets)
    return R.choice(["%s.255" % net, "%s.0" % net, "%s.77" % net, "%s.127" % net, "%s.128" % net, "%s.3" % net,
                     "10.255.255.255", "10.0.255.255", "255.255.255.255", "%s.1" % net, "0.0.0.0"])
def src():
    return R.choice(["10.0.0.1", "10.0.0.5", "10.1.0.9", "0.0.0.0", "%s.255" % R.choice(nets), "10.0.1.2", "192.168.1.1"])
for _ in range(n):
    r = R.random()
    if r < 0.35:
        out.append(addr())
    elif r < 0.42:
        out.append(R.choice(["sysctl -w net.ipv4.ip_forward=%d" % R.randint(0, 1),
                             "sysctl -w net.ipv4.conf.all.promote_secondaries=%d" % R.randint(0, 1),
                             "ip link set d1 down", "ip link set d1 up", "ip addr flush dev d1",
                             "ip route add 10.9.0.0/16 via 10.0.0.9", "ip route add broadcast 10.0.0.99 dev d0 table local",
                             "sysctl -w net.ipv4.conf.d0.rp_filter=%d" % R.randint(0, 2)]))
    elif r < 0.55:
        out.append(R.choice(["ip route show table local", "ip addr show", "ip route show", "ip route show table local type broadcast"]))
    elif r < 0.78:
        x = R.choice(["", "", " oif d0", " oif d1", " from %s" % src(), " fibmatch"])
        out.append("ip route get %s%s" % (dst(), x))
    else:
        out.append("ip route get %s from %s iif %s" % (dst(), src(), R.choice(["d0", "d1", "lo"])))
out += ["ip route show table local", "ip addr show"]
print("\n".join(out))
