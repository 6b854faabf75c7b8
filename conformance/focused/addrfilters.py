#!/usr/bin/env python3
"""Focused random scenarios: the selectors of `ip addr show` and `ip addr flush`
(`dev`, `to PREFIX`, `scope`, `label PATTERN` with wildcards, `dynamic`/`permanent`,
`primary`/`secondary`, flag words and their `-` negations, `up`, `master`/`nomaster`,
`type`, `group`), flushes with `-s` rounds, over IPv4 primaries and secondaries with
labels (promote_secondaries on and off) and IPv6 addresses with flags, on devices up
and down, in bridges and groups.

Usage: addrfilters.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link add br0 type bridge",
       "ip link set d0 up", "ip link set d1 up", "ip link set d1 group 2"]
devs = ["d0", "d1", "br0"]
def addr4():
    d = R.choice(devs)
    net = R.choice(["10.0.0", "10.0.1", "10.1.0", "192.168.5"])
    a = "%s.%d/%d" % (net, R.randint(1, 6), R.choice([24, 24, 16, 32, 30]))
    x = R.choice(["", "", " label %s:%s" % (d, R.choice(["0", "1", "x", "ab"])), " scope link", " scope host",
                  " noprefixroute", " preferred_lft 0", " metric 5", " peer 10.9.9.%d" % R.randint(1, 3)])
    return "ip addr %s %s dev %s%s" % (R.choice(["add", "add", "add", "del"]), a, d, x)
def addr6():
    d = R.choice(devs)
    a = "2001:db8:%x::%x/%d" % (R.randint(0, 2), R.randint(1, 6), R.choice([64, 64, 128, 48]))
    x = R.choice([" nodad", " nodad", " nodad home", " nodad mngtmpaddr", " nodad noprefixroute", " nodad preferred_lft 0",
                  " nodad scope link", " nodad scope site", ""])
    return "ip -6 addr %s %s dev %s%s" % (R.choice(["add", "add", "del"]), a, d, x)
SEL = ["dev d0", "dev d1", "dev br0", "to 10.0.0.0/24", "to 10.0.0.0/8", "to 10.0.1.3", "to 2001:db8:1::/48",
       "to 2001:db8::/32", "scope global", "scope link", "scope host", "scope site", "label d0:*", "label d0:1",
       "label 'd*'", "label d?", "label br0", "dynamic", "permanent", "primary", "secondary", "deprecated",
       "-deprecated", "nodad", "-nodad", "home", "noprefixroute", "mngtmpaddr", "tentative", "-tentative",
       "up", "master br0", "nomaster", "type bridge", "type dummy", "group 2", "group default", "temporary", "-secondary",
       "scope 200", "to 0/0", "to default", "label nosuch"]
def sel():
    k = R.choice([0, 1, 1, 1, 2, 2, 3])
    return " ".join(R.sample(SEL, k))
for _ in range(n):
    r = R.random()
    if r < 0.35:
        out.append(addr4() if R.random() < 0.6 else addr6())
    elif r < 0.45:
        out.append(R.choice([
            "sysctl -w net.ipv4.conf.%s.promote_secondaries=%d" % (R.choice(["all", "d0", "d1"]), R.randint(0, 1)),
            "ip link set %s %s" % (R.choice(devs), R.choice(["up", "down", "master br0", "nomaster", "group 2", "group 0"])),
            "sysctl -w net.ipv6.conf.d0.keep_addr_on_down=%d" % R.randint(0, 1)]))
    elif r < 0.75:
        f = R.choice(["", "", "-4 ", "-6 ", "-o ", "-br ", "-j "])
        out.append(("ip %saddr show %s" % (f, sel())).rstrip())
    else:
        f = R.choice(["", "", "-4 ", "-6 ", "-s ", "-s -s ", "-4 -s "])
        s = sel()
        if not s or R.random() < 0.3:
            s = (R.choice(["dev d0", "dev d1", "dev br0"]) + " " + s).strip()
        out.append("ip %saddr flush %s" % (f, s))
out += ["ip addr show", "ip -6 route show table all", "ip route show table all"]
print("\n".join(out))
