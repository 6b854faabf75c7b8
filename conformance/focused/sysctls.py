#!/usr/bin/env python3
"""Focused random scenarios: how the per-device sysctls combine with `all` and
`default` -- written to `all`, `default` and devices in every order, devices created
after a `default` change, values copied or combined (forwarding and ip_forward,
rp_filter's maximum, accept_local, route_localnet, src_valid_mark, promote_secondaries,
ignore_routes_with_linkdown, IPv6 forwarding, disable_ipv6, keep_addr_on_down,
addr_gen_mode, use_tempaddr) -- and what they change: input and output route queries,
addresses kept or dropped at link down, link-local addresses of new devices.

Usage: sysctls.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip addr add 10.1.0.1/24 dev d1", "ip addr add 10.1.0.7/24 dev d1",
       "ip -6 addr add 2001:db8::1/64 dev d0 nodad", "ip -6 addr add 2001:db8:1::1/64 dev d1 nodad",
       "ip route add 10.9.0.0/16 via 10.1.0.9", "ip -6 route add 2001:db8:9::/48 via 2001:db8:1::9",
       "ip route add 10.8.0.0/16 via 10.0.0.9 table 100", "ip rule add fwmark 0x5 lookup 100"]
V4 = {"forwarding": ["0", "1"], "rp_filter": ["0", "1", "2"], "accept_local": ["0", "1"], "route_localnet": ["0", "1"],
      "src_valid_mark": ["0", "1"], "promote_secondaries": ["0", "1"], "ignore_routes_with_linkdown": ["0", "1"],
      "disable_policy": ["0", "1"], "mc_forwarding": ["1"], "accept_redirects": ["0", "1"]}
V6 = {"forwarding": ["0", "1"], "disable_ipv6": ["0", "1"], "keep_addr_on_down": ["0", "1", "-1"],
      "addr_gen_mode": ["0", "1"], "use_tempaddr": ["0", "2"], "ignore_routes_with_linkdown": ["0", "1"],
      "accept_dad": ["0", "1"], "mtu": ["1280", "1400"], "hop_limit": ["1", "64"]}
devs = ["all", "default", "d0", "d1", "d2"]
def write():
    if R.random() < 0.55:
        k = R.choice(list(V4))
        return "sysctl -w net.ipv4.conf.%s.%s=%s" % (R.choice(devs), k, R.choice(V4[k]))
    if R.random() < 0.1:
        return "sysctl -w net.ipv4.ip_forward=%d" % R.randint(0, 1)
    k = R.choice(list(V6))
    return "sysctl -w net.ipv6.conf.%s.%s=%s" % (R.choice(devs), k, R.choice(V6[k]))
def query():
    r = R.random()
    if r < 0.45:
        d = R.choice(["10.9.0.5", "10.0.0.1", "10.1.0.7", "127.0.0.1", "10.8.0.5", "10.0.0.255", "10.1.0.5"])
        s = R.choice(["10.0.0.5", "10.1.0.5", "10.9.0.9", "10.0.0.1", "127.0.0.1", "10.8.0.8", "10.1.0.7"])
        x = R.choice(["", "", " mark 0x5", " mark 0x5"])
        return "ip route get %s from %s iif %s%s" % (d, s, R.choice(["d0", "d1", "d2"]), x)
    if r < 0.6:
        return "ip route get %s%s" % (R.choice(["10.9.0.5", "10.8.0.5", "10.0.0.5"]), R.choice(["", " mark 0x5", " oif d1"]))
    if r < 0.8:
        d = R.choice(["2001:db8:9::5", "2001:db8::1", "2001:db8:1::5", "fe80::5", "2001:db8:7::1"])
        s = R.choice(["2001:db8::5", "2001:db8:1::5", "2001:db8:9::9", "fe80::9"])
        return R.choice(["ip -6 route get %s from %s iif %s" % (d, s, R.choice(["d0", "d1", "d2"])),
                         "ip -6 route get %s" % d])
    return R.choice(["ip addr show", "ip -6 addr show dev d2", "ip -6 addr show", "ip route show table all",
                     "ip -6 route show", "ip link show d2"])
for _ in range(n):
    r = R.random()
    if r < 0.4:
        out.append(write())
    elif r < 0.55:
        out.append(R.choice(["ip link add d2 type dummy", "ip link set d2 up", "ip link del d2", "ip link set d1 down",
                             "ip link set d1 up", "ip addr add 10.2.0.1/24 dev d2", "ip -6 addr add 2001:db8:2::1/64 dev d2 nodad",
                             "ip addr del 10.1.0.1/24 dev d1", "ip addr add 10.1.0.1/24 dev d1", "ip link set d0 down",
                             "ip link set d0 up", "ip -6 addr add 2001:db8:1::1/64 dev d1 nodad"]))
    else:
        out.append(query())
out += ["ip addr show", "ip route show table all", "ip -6 route show table all"]
print("\n".join(out))
