#!/usr/bin/env python3
"""Focused random scenarios: macvlan and macvtap devices. Devices on a dummy, a veth, a
bridge or another macvlan (whose own lower device is taken), in every mode (private,
vepa, bridge, passthru, source with its address list) with flags, broadcast queue
lengths, MTUs and addresses, valid and refused; later `ip link set DEV type macvlan`
changes of mode, flags and source addresses, MTU and address changes of the devices and
their lower devices, lower devices deleted; IP addresses and routes on the devices;
detailed and JSON listings and route queries through them. The lower devices stay up
and no device is made up at creation nor put into the bridge (a macvlan's operational
state comes from the link watch, one second later; a bridge port's forward delay timer
runs in real time).

Usage: macvlan.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip link add br0 type bridge", "ip link set br0 up", "ip link add v0 type veth peer name v1",
       "ip link set v0 up", "ip link set v1 up"]
mv = ["mv0", "mv1", "mv2", "mt0"]
lowers = ["d0", "d1", "br0", "v0", "mv0", "mv1", "lo", "nosuch"]
macs = ["02:00:00:00:aa:01", "02:00:00:00:aa:02", "02:00:00:00:aa:03", "01:00:00:00:00:01"]


def mode():
    return R.choice(["private", "vepa", "bridge", "passthru", "source", "bridge", "nosuch"])


def opts(changing=False):
    # (the oracle gives any `ip link` line with the word `add` an address after its
    # first `add`: a change's `macaddr add` cannot be recorded)
    o = ""
    if R.random() < 0.85:
        o += " mode %s" % mode()
    if R.random() < 0.25:
        o += " flag %s" % R.choice(["nopromisc", "nodst", "null", "nosuch"])
    if R.random() < 0.2:
        o += " bcqueuelen %d" % R.choice([0, 1, 100, 1000, 4294967295])
    if R.random() < 0.25:
        o += " macaddr %s" % R.choice(["del %s" % R.choice(macs) if changing else "add %s" % R.choice(macs),
                                       "del %s" % R.choice(macs), "flush",
                                       "set %s %s" % (R.choice(macs), R.choice(macs)), "set"])
    return o


for _ in range(n):
    r = R.random()
    if r < 0.2:
        d = R.choice(mv)
        kind = "macvtap" if d == "mt0" else "macvlan"
        pre = R.choice(["", "", " mtu %d" % R.choice([68, 1000, 1500, 1501, 9000]),
                        " address %s" % R.choice(macs)])
        out.append("ip link add link %s name %s%s type %s%s" % (R.choice(lowers), d, pre, kind, opts()))
    elif r < 0.32:
        d = R.choice(mv)
        kind = "macvtap" if d == "mt0" else R.choice(["macvlan", "macvlan", "macvtap"])
        out.append("ip link set %s type %s%s" % (d, kind, opts(True)))
    elif r < 0.45:
        d = R.choice(mv)
        out.append(R.choice(["ip link set %s up" % d, "ip link set %s down" % d, "ip link del %s" % d,
                             "ip link set %s mtu %d" % (d, R.choice([68, 1000, 1500, 1501, 9000])),
                             "ip link set %s address %s" % (d, R.choice(macs)),
                             "ip link set %s mtu %d" % (R.choice(["d0", "d1", "br0", "v0"]), R.choice([1280, 1400, 1500, 9000])),
                             "ip link set %s address 02:00:00:00:bb:0%d" % (R.choice(["d0", "d1", "v0"]), R.randint(1, 9)),
                             "ip link del %s" % R.choice(["d1", "v1", "br0"]),
                             "ip link add d1 type dummy", "ip link set d1 up",
                             "ip link set %s promisc %s" % (R.choice(["d0"] + mv), R.choice(["on", "off"]))]))
    elif r < 0.55:
        d = R.choice(mv)
        i = mv.index(d)
        out.append(R.choice(["ip addr add 10.7.%d.1/24 dev %s" % (i, d),
                             "ip -6 addr add 2001:db8:7:%d::1/64 dev %s nodad" % (i, d),
                             "ip route add 10.70.0.0/16 via 10.7.%d.9 dev %s" % (i, d),
                             "ip route add 10.71.0.0/16 dev %s" % d,
                             "ip -6 route add 2001:db8:70::/48 dev %s" % d]))
    elif r < 0.8:
        out.append(R.choice(["ip -d link show", "ip -j -d link show", "ip link show type macvlan", "ip link show type macvtap",
                             "ip -d link show dev %s" % R.choice(mv), "ip -j -d link show dev %s" % R.choice(mv),
                             "ip link show", "ip -br link show", "ip addr show", "ip route show", "ip -6 route show",
                             "ip -d link show dev d0", "ip link show master br0", "ip -d -j link show type macvlan"]))
    else:
        out.append(R.choice(["ip route get 10.70.1.1", "ip route get 10.71.1.1", "ip -6 route get 2001:db8:70::1",
                             "ip route get 10.7.0.9", "ip route get 10.7.1.9 from 10.7.1.1",
                             "ip -6 route get 2001:db8:7:1::9"]))
out += ["ip -d link show", "ip route show"]
print("\n".join(out))
