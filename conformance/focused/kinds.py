#!/usr/bin/env python3
"""Focused random scenarios: routing over every link kind this kernel has. A dummy, a
veth pair, a bridge with a port, a macvlan and a VXLAN device, each with IPv4 and IPv6
addresses (added and removed), up and down; routes through each (via gateways,
multipath, nexthop objects); input-path queries arriving on each (`iif`, with sources
on and off their networks, forwarding and reverse-path filtering changed) and output
queries leaving through each (`oif`), in both families.

Usage: kinds.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add v0 type veth peer name v1 address 02:00:00:00:10:99",
       "ip link add br0 type bridge", "ip link add d1 type dummy", "ip link set d1 master br0",
       "ip link add link d0 name mv0 type macvlan mode bridge", "ip link add vx0 type vxlan id 5 dstport 4789",
       "ip link set d0 up", "ip link set v0 up", "ip link set v1 up", "ip link set br0 up", "ip link set d1 up",
       "ip link set mv0 up", "ip link set vx0 up"]
devs = ["d0", "v0", "v1", "br0", "d1", "mv0", "vx0", "lo"]
# (the bridge and its port stay up: the bridge's carrier follows its port through the
# link watch, a second later)
updown = ["d0", "v0", "v1", "mv0", "vx0"]
for i, d in enumerate(devs[:-1]):
    out.append("ip addr add 10.%d.0.1/24 dev %s" % (i, d))
    out.append("ip -6 addr add 2001:db8:%d::1/64 dev %s nodad" % (i, d))


def addr4():
    i = R.randrange(len(devs) - 1)
    return "10.%d.0.%d" % (i, R.choice([1, 2, 9, 255]))


def addr6():
    return "2001:db8:%d::%d" % (R.randrange(len(devs) - 1), R.choice([1, 2, 9]))


for _ in range(n):
    r = R.random()
    d = R.choice(devs)
    if r < 0.15:
        i = R.randrange(len(devs) - 1)
        out.append(R.choice(["ip addr del 10.%d.0.1/24 dev %s" % (i, devs[i]), "ip addr add 10.%d.0.1/24 dev %s" % (i, devs[i]),
                             "ip -6 addr del 2001:db8:%d::1/64 dev %s" % (i, devs[i]),
                             "ip link set %s down" % R.choice(updown), "ip link set %s up" % R.choice(updown),
                             "ip addr add 10.%d.0.5/24 dev %s" % (i, devs[i])]))
    elif r < 0.3:
        out.append(R.choice(["ip route add 10.50.0.0/16 via %s" % addr4(), "ip route replace 10.50.0.0/16 dev %s" % d,
                             "ip route add 10.51.0.0/16 nexthop via %s nexthop via %s" % (addr4(), addr4()),
                             "ip nexthop add id %d via %s" % (R.randint(1, 3), addr4()),
                             "ip route replace 10.52.0.0/16 nhid %d" % R.randint(1, 3),
                             "ip -6 route add 2001:db8:50::/48 via %s" % addr6(),
                             "ip -6 route replace 2001:db8:50::/48 dev %s" % d,
                             "ip route del 10.50.0.0/16", "ip -6 route del 2001:db8:50::/48",
                             "ip route add blackhole 10.53.0.0/16", "ip route add default via %s" % addr4()]))
    elif r < 0.38:
        out.append(R.choice(["sysctl -w net.ipv4.ip_forward=%d" % R.randint(0, 1),
                             "sysctl -w net.ipv4.conf.%s.rp_filter=%d" % (R.choice(devs + ["all"]), R.randint(0, 2)),
                             "sysctl -w net.ipv6.conf.all.forwarding=%d" % R.randint(0, 1),
                             "sysctl -w net.ipv4.conf.%s.forwarding=%d" % (R.choice(devs + ["all"]), R.randint(0, 1)),
                             "sysctl -w net.ipv4.conf.%s.accept_local=%d" % (R.choice(devs), R.randint(0, 1))]))
    elif r < 0.7:
        dst = R.choice([addr4(), "10.50.1.1", "10.51.1.1", "10.52.1.1", "10.53.1.1", "8.8.8.8"])
        out.append("ip route get %s from %s iif %s" % (dst, R.choice([addr4(), "192.0.2.1", "10.0.0.1"]), d))
    elif r < 0.85:
        dst = R.choice([addr6(), "2001:db8:50::1", "2001:db8:99::1"])
        out.append("ip -6 route get %s from %s iif %s" % (dst, R.choice([addr6(), "2001:db8:77::1"]), d))
    elif r < 0.93:
        out.append(R.choice(["ip route get %s oif %s" % (R.choice([addr4(), "10.50.1.1", "8.8.8.8"]), d),
                             "ip -6 route get %s oif %s" % (R.choice([addr6(), "2001:db8:50::1"]), d)]))
    else:
        out.append(R.choice(["ip route show", "ip -6 route show", "ip addr show", "ip -br link show"]))
out += ["ip route show", "ip -6 route show"]
print("\n".join(out))
