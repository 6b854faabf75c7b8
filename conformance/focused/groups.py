#!/usr/bin/env python3
"""Focused random scenarios: device groups. Dummies, a veth pair, a bridge and a macvlan
moved between groups (by number and by name, `default` included); changes of a whole
group (`ip link set group G ...`: up, down, MTU, queue length, flags, another group,
settings refused by some members), deletion of a whole group, listings filtered by
group (`ip link show group`, `ip addr show group`, brief and JSON), and rules that
suppress a route through a group (`suppress_ifgroup`) with route queries.

Usage: groups.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link add d2 type dummy",
       "ip link add v0 type veth peer name v1 address 02:00:00:00:10:99", "ip link add br0 type bridge",
       "ip link add link d0 name mv0 type macvlan mode bridge",
       "ip link set d0 up", "ip link set d1 up", "ip addr add 10.0.0.1/24 dev d0", "ip addr add 10.1.0.1/24 dev d1",
       "ip route add 10.9.0.0/16 via 10.1.0.9", "ip route add default via 10.0.0.9"]
devs = ["d0", "d1", "d2", "v0", "v1", "br0", "mv0", "lo"]


def grp():
    return R.choice(["0", "1", "2", "3", "default", "4294967295", "nosuch", "0x2"])


def setting():
    return R.choice(["up", "down", "mtu %d" % R.choice([68, 1280, 1500, 9000, 65536]), "txqueuelen %d" % R.choice([0, 10, 1000]),
                     "group %s" % grp(), "multicast off", "arp off", "promisc on", "alias g", "address 02:00:00:00:dd:01",
                     "name x0", "master br0", "nomaster", "type bridge stp_state 1", "allmulticast on"])


for _ in range(n):
    r = R.random()
    if r < 0.25:
        out.append("ip link set dev %s group %s" % (R.choice(devs), grp()))
    elif r < 0.45:
        out.append("ip link set group %s %s" % (grp(), " ".join(setting() for _ in range(R.randint(1, 2)))))
    elif r < 0.5:
        out.append(R.choice(["ip link del group %s" % grp(), "ip link add d2 type dummy",
                             "ip link add link d0 name mv0 type macvlan mode bridge", "ip link set d2 up"]))
    elif r < 0.6:
        out.append(R.choice(["ip rule add suppress_ifgroup %s table main pref %d" % (grp(), R.choice([100, 200])),
                             "ip rule del pref 100", "ip rule del pref 200", "ip rule show",
                             "ip rule add from 10.5.0.0/16 lookup main suppress_ifgroup %s pref 150" % grp()]))
    elif r < 0.8:
        out.append(R.choice(["ip link show group %s" % grp(), "ip -br link show group %s" % grp(), "ip -j link show group %s" % grp(),
                             "ip addr show group %s" % grp(), "ip link show", "ip -d link show dev d0", "ip -br addr show",
                             "ip link show group %s up" % grp(), "ip -6 addr show group %s" % grp()]))
    else:
        out.append("ip route get %s%s" % (R.choice(["10.9.1.1", "10.0.0.5", "8.8.8.8", "10.1.0.7"]),
                                           R.choice(["", "", " from 10.5.0.1", " oif d1", " mark 1"])))
out += ["ip link show", "ip rule show"]
print("\n".join(out))
