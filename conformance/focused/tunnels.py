#!/usr/bin/env python3
"""Focused random scenarios: `ip tunnel`, `ip -6 tunnel` and `ip tuntap`. Tunnel lines
of every verb with random options and values (valid, out of range, of the wrong
family, repeated), which this kernel (without IP tunnel drivers) answers through its
ioctls; tun and tap devices made and deleted with their options (each named device
given an address at once: a tap's is random), then used as links (up and down, MTU,
addresses, routes, listings).

Usage: tunnels.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link set d0 up", "ip addr add 10.0.0.1/24 dev d0"]


def v4opt():
    return R.choice(["mode %s" % R.choice(["gre", "ipip", "sit", "isatap", "vti", "ipip6", "nosuch", "ip6ip6"]),
                     "remote %s" % R.choice(["10.0.0.2", "any", "2001:db8::1", "bogus", "0.0.0.0"]),
                     "local %s" % R.choice(["10.0.0.1", "any", "1.2.3"]),
                     "ttl %s" % R.choice(["0", "64", "255", "256", "inherit", "x"]),
                     "tos %s" % R.choice(["0x10", "inherit", "0x1ff", "zz"]),
                     "key %s" % R.choice(["5", "1.2.3.4", "abc", "4294967296"]), "ikey 7", "okey 8",
                     "csum", "seq", "icsum", "nopmtudisc", "pmtudisc",
                     "dev %s" % R.choice(["d0", "nosuch", "lo"]), "name %s" % R.choice(["t0", "t1"]),
                     "encap %s" % R.choice(["fou", "gue", "none", "x"]), "t0", "t1"])


def v6opt():
    return R.choice(["mode %s" % R.choice(["ip6ip6", "ipip6", "any", "ip6gre", "vti6", "gre", "nosuch"]),
                     "remote %s" % R.choice(["2001:db8::2", "any", "10.0.0.2", "zz"]),
                     "local %s" % R.choice(["2001:db8::1", "any"]),
                     "encaplimit %s" % R.choice(["none", "0", "4", "255", "256"]),
                     "hoplimit %s" % R.choice(["0", "64", "255", "256"]),
                     "tclass %s" % R.choice(["0x10", "inherit", "0x100"]),
                     "flowlabel %s" % R.choice(["0x5", "inherit", "0x100000"]),
                     "dscp %s" % R.choice(["inherit", "0x10"]), "allow-localremote", "noallow-localremote",
                     "key 5", "seq", "csum", "dev %s" % R.choice(["d0", "nosuch"]), "name t6", "t6"])


def tuntap():
    o = "ip tuntap %s" % R.choice(["add", "add", "del", "show", "list", "help", "foo"])
    for _ in range(R.randint(0, 4)):
        o += " " + R.choice(["mode tun", "mode tap", "mode foo", "dev tn%d" % R.randint(0, 2), "name tp%d" % R.randint(0, 1),
                             "user %s" % R.choice(["0", "root", "65534", "nosuchuser"]),
                             "group %s" % R.choice(["0", "root", "nosuchgroup"]), "one_queue", "pi", "vnet_hdr",
                             "multi_queue", "numqueues 2", "tn%d" % R.randint(0, 2)])
    return o


for _ in range(n):
    r = R.random()
    if r < 0.25:
        verb = R.choice(["add", "change", "del", "show", "prl", "6rd", "add", "a", "ls"])
        out.append("ip tunnel %s" % verb + "".join(" " + v4opt() for _ in range(R.randint(0, 4))))
    elif r < 0.4:
        verb = R.choice(["add", "change", "del", "show", "add"])
        out.append("ip -6 tunnel %s" % verb + "".join(" " + v6opt() for _ in range(R.randint(0, 4))))
    elif r < 0.65:
        t = tuntap()
        out.append(t)
        # a tap device's address is random: give the devices the line names one
        if t.startswith("ip tuntap add"):
            named = [d for d in ["tn0", "tn1", "tn2", "tp0", "tp1"] if d in t.split()]
            # without a name, the kernel names a tap tapN
            for i, d in enumerate(["tn0", "tn1", "tn2", "tp0", "tp1", "tap0", "tap1", "tap2", "tap3"]):
                if d in named or (not named and d.startswith("tap")):
                    out.append("ip link set %s address 02:00:00:00:cc:0%d" % (d, i + 1))
    elif r < 0.8:
        d = R.choice(["tn0", "tn1", "tn2", "tp0", "tp1"])
        out.append(R.choice(["ip link set %s up" % d, "ip link set %s down" % d, "ip link set %s mtu %d" % (d, R.choice([68, 1000, 1500, 9000, 65535, 65536])),
                             "ip addr add 10.9.%d.1/24 dev %s" % (R.randint(0, 3), d), "ip -6 addr add 2001:db8:9::%d/64 dev %s nodad" % (R.randint(1, 9), d),
                             "ip route add 10.90.0.0/16 dev %s" % d, "ip link del %s" % d,
                             "ip link set %s address 02:00:00:00:cc:01" % d, "ip link set %s txqueuelen 10" % d]))
    else:
        out.append(R.choice(["ip link show", "ip -d link show", "ip -j -d link show", "ip addr show", "ip route show",
                             "ip tuntap show", "ip -d tuntap show", "ip tunnel show", "ip -6 tunnel show", "ip -br link show",
                             "ip route get 10.90.1.1", "ip link show type tun"]))
out += ["ip -d link show", "ip tuntap show"]
print("\n".join(out))
