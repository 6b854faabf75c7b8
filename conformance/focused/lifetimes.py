#!/usr/bin/env python3
"""Focused random scenarios: address lifetimes and route expiry over time. IPv4 and
IPv6 addresses added, changed and replaced with finite valid and preferred lifetimes
(primaries and secondaries, `noprefixroute`, peers), IPv6 routes with `expires`;
then time passes (`sleep`) while addresses are listed (deprecated, their lifetimes
counting down), routes are dumped and lookups choose source addresses (a deprecated
address is passed over) — until addresses expire (taking their routes, promoting a
secondary) and routes expire.

The kernel checks lifetimes from work rounded up to whole seconds of its own clock,
so an expiry can come up to a second late: changes fall on multiples of 3 s, every
lifetime and expiry is 1 more than a multiple of 3 s (so every due time is 1 s after a
change time, and 2 s before the next), and every look 1.5 s after a due time. The
scenario ends before the IPv6 garbage collector's first timer run (30 s).

Usage: lifetimes.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 30
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip -6 addr add 2001:db8::1/64 dev d0 nodad",
       "ip route add 10.9.0.0/16 via 10.0.0.9", "ip -6 route add 2001:db8:9::/48 via 2001:db8::9"]
A4 = ["10.0.0.2/24", "10.0.0.3/24", "10.1.0.1/24", "10.1.0.2/24", "10.2.0.1/16", "10.0.0.4/32"]
A6 = ["2001:db8::2/64", "2001:db8::3/64", "2001:db8:1::1/64", "2001:db8:1::2/64", "2001:db8:2::1/48"]


def life():
    v = R.choice([1, 4, 7, 4, "forever"])
    p = R.choice([0, 1, 4, v, v, "forever"])
    if v != "forever" and (p == "forever" or p > v):
        p = v
    return "valid_lft %s preferred_lft %s" % (v, p)


def change():
    r = R.random()
    d = R.choice(["d0", "d1"])
    if r < 0.35:
        return "ip addr %s %s dev %s %s%s" % (R.choice(["add", "add", "replace", "change"]), R.choice(A4), d, life(),
                                              R.choice(["", "", " noprefixroute", " label %s:1" % d]))
    if r < 0.65:
        return "ip -6 addr %s %s dev %s nodad %s%s" % (R.choice(["add", "add", "replace", "change"]), R.choice(A6), d,
                                                       life(), R.choice(["", "", " noprefixroute"]))
    if r < 0.78:
        return "ip -6 route %s 2001:db8:%d::/48 dev %s expires %d" % (
            R.choice(["add", "replace", "change"]), R.randint(5, 7), d, R.choice([1, 4, 7]))
    if r < 0.88:
        return R.choice(["ip addr del %s dev %s" % (R.choice(A4), d), "ip -6 addr del %s dev %s" % (R.choice(A6), d)])
    return R.choice(["sysctl -w net.ipv4.conf.all.promote_secondaries=%d" % R.randint(0, 1),
                     "ip link set %s %s" % (d, R.choice(["down", "up", "up"])),
                     # (runs the IPv6 garbage collector at once)
                     "sysctl -w net.ipv6.route.flush=%d" % R.choice([1, 0, -1])])


def look():
    return R.choice(["ip addr show", "ip addr show dev d0", "ip -6 addr show dev d1", "ip -4 addr show",
                     "ip -j addr show dev d0", "ip route show", "ip -6 route show", "ip route show table local",
                     "ip -6 addr show deprecated", "ip -4 addr show dynamic", "ip addr show permanent",
                     "ip route get 10.9.1.1", "ip route get 10.1.0.9", "ip -6 route get 2001:db8:9::1",
                     "ip -6 route get 2001:db8:5::1", "ip -6 route get 2001:db8:1::9", "ip -6 route get 2001:db8::9"])


t = 0
for _ in range(n):
    if t >= 21:
        break
    # t (a multiple of 3): changes; t + 2.5: looks (due times are at t + 1); t + 3: next
    for _ in range(R.choice([0, 1, 1, 2, 3])):
        out.append(change())
    out.append("sleep 2.5")
    for _ in range(R.randint(1, 3)):
        out.append(look())
    out.append("sleep 0.5")
    t += 3
# the last due time is 1 + 3k s at most 7 s after the last change
out += ["sleep %g" % (t - 3 + 8.5 - t if t - 3 + 8.5 > t else 0.5), "ip addr show", "ip route show", "ip -6 route show"]
print("\n".join(out))
