#!/usr/bin/env python3
"""Focused random scenarios: multicast. Groups joined by addresses with `autojoin`
(IPv4 and IPv6) and link-layer entries of `ip maddr`, routes of type multicast and
routes to multicast prefixes in several tables, and the lookups that depend on them:
input queries (`iif`, a joined group or not, sources of every kind, rp_filter and
route_localnet), output queries with and without an output device or source,
`fibmatch`, over devices going down and up, deleted and re-created.

Usage: mcast.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip addr add 10.1.0.1/24 dev d1",
       "ip -6 addr add 2001:db8::1/64 dev d0 nodad", "ip -6 addr add 2001:db8:1::1/64 dev d1 nodad",
       "ip route add 10.9.0.0/16 via 10.1.0.9", "ip -6 route add 2001:db8:9::/48 via 2001:db8:1::9"]
g4 = ["224.0.0.251", "239.1.1.1", "239.1.1.2", "232.0.0.5", "224.0.0.1", "224.0.1.1", "239.255.255.250"]
g6 = ["ff02::fb", "ff05::5", "ff0e::1", "ff02::1", "ff15::9", "ff02::1:ff00:1", "ff01::1"]
s4 = ["10.0.0.5", "10.1.0.5", "10.9.0.5", "10.0.0.1", "0.0.0.0", "127.0.0.1", "192.168.0.5", "10.0.0.255", "224.0.0.5"]
s6 = ["2001:db8::5", "2001:db8:1::5", "2001:db8:9::5", "fe80::5", "::", "2001:db8::1", "::1", "ff02::5"]
devs = ["d0", "d1", "m0", "lo"]
def step():
    r = R.random()
    if r < 0.16:
        d = R.choice(devs[:3])
        if R.random() < 0.5:
            g = R.choice(g4)
            return "ip addr %s %s/32 dev %s autojoin" % (R.choice(["add", "add", "del"]), g, d)
        g = R.choice(g6)
        return "ip -6 addr %s %s/128 dev %s autojoin" % (R.choice(["add", "add", "del"]), g, d)
    if r < 0.24:
        d = R.choice(devs[:3])
        mac = R.choice(["01:00:5e:01:01:01", "33:33:00:00:00:05", "01:00:5e:00:00:fb", "02:00:00:00:00:01"])
        return "ip maddr %s %s dev %s" % (R.choice(["add", "del"]), mac, d)
    if r < 0.36:
        op = R.choice(["add", "add", "replace", "del"])
        if R.random() < 0.6:
            p = R.choice(["239.0.0.0/8", "224.0.0.0/4", "239.1.1.1", "232.0.0.0/8", "224.0.0.0/24"])
            t = R.choice(["multicast ", "", "", "unreachable ", "blackhole ", "local ", "broadcast "])
            nh = "" if t in ("unreachable ", "blackhole ") else R.choice([" dev d0", " dev d1", " via 10.1.0.9", " dev m0"])
            x = R.choice(["", "", " table local", " table 100", " metric 5", " scope link", " src 10.0.0.1", " tos 0x10"])
            return "ip route %s %s%s%s%s" % (op, t, p, nh, x)
        p = R.choice(["ff00::/8", "ff05::/16", "ff0e::1", "ff02::/16"])
        t = R.choice(["multicast ", "", "", "unreachable ", "blackhole "])
        nh = "" if t in ("unreachable ", "blackhole ") else R.choice([" dev d0", " dev d1", " via 2001:db8:1::9", " dev m0"])
        x = R.choice(["", "", " table local", " table 100", " metric 5", " metric 256"])
        return "ip -6 route %s %s%s%s%s" % (op, t, p, nh, x)
    if r < 0.44:
        return R.choice([
            "ip link set %s %s" % (R.choice(devs[:3]), R.choice(["down", "up", "up", "multicast off", "multicast on",
                                                               "allmulticast on", "allmulticast off", "promisc on"])),
            "ip link add m0 link d0 type macvlan mode " + R.choice(["bridge", "private"]), "ip link del m0",
            "ip link del d1", "ip link add d1 type dummy", "ip addr add 10.1.0.1/24 dev d1",
            "ip rule add to 239.0.0.0/8 lookup 100", "ip rule del to 239.0.0.0/8 lookup 100",
            "ip -6 rule add to ff05::/16 lookup 100", "ip -6 rule del to ff05::/16 lookup 100",
            "sysctl -w net.ipv4.conf.%s.rp_filter=%d" % (R.choice(["all", "d0"]), R.randint(0, 2)),
            "sysctl -w net.ipv4.conf.d0.route_localnet=%d" % R.randint(0, 1),
            "sysctl -w net.ipv4.conf.d0.accept_local=%d" % R.randint(0, 1),
            "sysctl -w net.ipv4.ip_forward=%d" % R.randint(0, 1),
            "sysctl -w net.ipv6.conf.all.forwarding=%d" % R.randint(0, 1)])
    if r < 0.55:
        return R.choice(["ip maddr", "ip maddr show dev d0", "ip -6 maddr show dev d0", "ip -4 maddr", "ip -j maddr show dev d1",
                         "ip route show table local type multicast", "ip route show table all type multicast",
                         "ip -6 route show table local", "ip addr show dev d0", "ip -6 route show table all type multicast",
                         "ip route show table 100", "ip maddr show dev m0"])
    if R.random() < 0.55:
        d = R.choice(g4 + ["10.0.0.255", "255.255.255.255", "10.9.0.9"])
        opts = R.choice(["", " iif d0", " iif d0", " iif d1", " iif m0", " oif d0", " oif d1", " fibmatch", " iif lo", " oif m0"])
        if "iif" in opts:
            opts = " from %s%s" % (R.choice(s4), opts)
        elif R.random() < 0.3:
            opts += " from %s" % R.choice(["10.0.0.1", "10.1.0.1", "10.0.0.5"])
        if R.random() < 0.15: opts += " tos 0x10"
        return "ip %sroute get %s%s" % (R.choice(["", "", "-d ", "-j "]), d, opts)
    d = R.choice(g6 + ["2001:db8:9::9"])
    opts = R.choice(["", " iif d0", " iif d0", " iif d1", " iif m0", " oif d0", " oif d1", " fibmatch", " oif lo"])
    if "iif" in opts:
        opts = " from %s%s" % (R.choice(s6), opts)
    elif R.random() < 0.3:
        opts += " from %s" % R.choice(["2001:db8::1", "2001:db8:1::1", "2001:db8::5"])
    return "ip %s-6 route get %s%s" % (R.choice(["", "", "-d "]), d, opts)
for _ in range(n):
    out.append(step())
out += ["ip maddr", "ip route show table all type multicast", "ip -6 route show table all"]
print("\n".join(out))
