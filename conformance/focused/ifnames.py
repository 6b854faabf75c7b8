#!/usr/bin/env python3
"""Focused random scenarios: device arguments given as `ifN` (iproute2's
`ll_name_to_index` falls back to `ll_idx_a2n`, so `if3` is ifindex 3 whether or not a
device has it), mixed with real names, `if0`, trailing garbage (`if2x`) and indices no
device has: link changes, masters, macvlan and VXLAN lower devices, deletions and
re-creations (which move indices), addresses of both families, routes, nexthop
objects, neighbours (with `master` and `nomaster` filters), address labels, `ip route get` with `oif`/`iif`, and the
listings filtered by device (strict dumps refuse an index no device has).

Usage: ifnames.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy",
       "ip link add br0 type bridge",
       "ip link add v0 type veth peer name v1 address 02:00:00:00:20:06",
       "ip link set d0 up", "ip link set v1 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip -6 addr add 2001:db8::1/64 dev d0 nodad"]
NAMES = ["lo", "d0", "d1", "br0", "v0", "v1", "m0", "x0"]
made = 0  # devices added by the scenario (macvlan/vxlan/dummy), for fresh names


def dev():
    r = R.random()
    if r < 0.25:
        return R.choice(NAMES)
    if r < 0.85:
        return f"if{R.randint(1, 12)}"
    return R.choice(["if0", "if2x", "if3x", f"if{R.randint(40, 99)}", "if4294967295",
                     "if2147483648", "ifx"])


def net4(d):
    return f"10.{R.randint(1, 6)}.0.0/16"


def step():
    global made
    r = R.random()
    d = dev()
    if r < 0.10:
        what = R.choice(["up", "down", "mtu 1400", "mtu 1500", "mtu 100000",
                         "address 02:00:00:00:30:01", "group 5", "alias a1", "txqueuelen 50"])
        return f"ip link set dev {d} {what}"
    if r < 0.15:
        return R.choice([f"ip link set dev {d} master {dev()}", f"ip link set {d} nomaster",
                         f"ip link set {d} master br0"])
    if r < 0.19:
        made += 1
        kind = R.random()
        name = f"n{made}"
        NAMES.append(name)
        if kind < 0.4:
            return f"ip link add link {d} name {name} type macvlan"
        if kind < 0.7:
            return f"ip link add {name} type vxlan id {made} dev {d} dstport 4789"
        if kind < 0.85:
            return f"ip link add {name} master {d} type dummy"
        return f"ip link add link {d} name {name} type dummy"
    if r < 0.21:
        return f"ip link del {d}"
    if r < 0.30:
        a = f"10.{R.randint(0, 6)}.0.{R.randint(1, 3)}/24"
        verb = R.choice(["add", "add", "del", "replace", "change"])
        lab = f" label {R.choice([d, 'd0', 'if2'])}:{R.randint(1, 3)}" if R.random() < 0.1 else ""
        return f"ip addr {verb} {a} dev {d}{lab}"
    if r < 0.35:
        verb = R.choice(["add", "add", "del", "replace"])
        return f"ip -6 addr {verb} 2001:db8:{R.randint(0, 4)}::{R.randint(1, 3)}/64 dev {d} nodad"
    if r < 0.45:
        verb = R.choice(["add", "add", "replace", "del", "append"])
        via = R.choice(["", f" via 10.0.0.{R.randint(2, 9)}", " onlink via 10.9.0.1", " via 10.3.0.2"])
        return f"ip route {verb} {net4(d)}{via} dev {d}"
    if r < 0.49:
        return (f"ip route add 10.{R.randint(7, 9)}.0.0/16 nexthop via 10.0.0.2 dev {d} "
                f"nexthop via 10.0.0.3 dev {dev()}")
    if r < 0.53:
        verb = R.choice(["add", "add", "del"])
        via = R.choice(["", " via 2001:db8::9", " via fe80::1"])
        return f"ip -6 route {verb} 2001:db8:{R.randint(5, 8)}::/64{via} dev {d}"
    if r < 0.62:
        return R.choice([f"ip route get 10.{R.randint(0, 9)}.0.5 oif {d}",
                         f"ip route get 10.{R.randint(0, 9)}.0.5 from 10.0.0.1 oif {d}",
                         f"ip route get 10.{R.randint(0, 9)}.0.5 from 10.9.9.9 iif {d}",
                         f"ip -6 route get 2001:db8::5 oif {d}",
                         f"ip -6 route get 2001:db8:{R.randint(0, 8)}::5 from 2001:db8::1 oif {d}",
                         f"ip -6 route get fe80::5 oif {d}",
                         f"ip -6 route get 2001:db8::5 from 2001:db8::9 iif {d}",
                         f"ip route get fibmatch 10.0.0.5 oif {d}"])
    if r < 0.66:
        lla = f"02:00:00:00:40:{R.randint(10, 99)}"
        return R.choice([f"ip neigh replace 10.0.0.5 lladdr {lla} dev {d}",
                         f"ip neigh del 10.0.0.5 dev {d}",
                         f"ip neigh get 10.0.0.5 dev {d}",
                         f"ip neigh show dev {d}",
                         f"ip neigh show master {d} dev {dev()}",
                         f"ip neigh show nomaster dev {d}",
                         f"ip neigh show proxy master {d}",
                         f"ip neigh flush dev {d}",
                         f"ip neigh add proxy 10.0.0.7 dev {d}",
                         f"ip neigh del proxy 10.0.0.7 dev {d}",
                         f"ip -6 neigh replace 2001:db8::5 lladdr {lla} dev {d}"])
    if r < 0.71:
        i = R.randint(1, 6)
        return R.choice([f"ip nexthop add id {i} dev {d}",
                         f"ip nexthop replace id {i} via 10.0.0.{R.randint(2, 9)} dev {d}",
                         f"ip nexthop show dev {d}",
                         f"ip nexthop flush dev {d}",
                         f"ip nexthop bucket show dev {d}"])
    if r < 0.74:
        return R.choice([f"ip addrlabel add prefix 2001:db8:{R.randint(1, 3)}::/48 dev {d} label {R.randint(50, 60)}",
                         f"ip addrlabel del prefix 2001:db8:{R.randint(1, 3)}::/48 dev {d}",
                         "ip addrlabel list"])
    if r < 0.90:
        return R.choice([f"ip route show dev {d}", f"ip route show table all dev {d}",
                         f"ip route show iif {d}", f"ip -6 route show dev {d}",
                         f"ip route flush dev {d}", f"ip -6 route flush dev {d}",
                         f"ip addr show dev {d}", f"ip -j addr show dev {d}",
                         f"ip -4 addr flush dev {d}", f"ip link show dev {d}",
                         f"ip -br link show master {d}", f"ip link show master {d}",
                         f"ip mroute show iif {d}", f"ip token get dev {d}",
                         f"ip link afstats dev {d}"])
    return R.choice(["ip route show", "ip -6 route show", "ip addr show", "ip -d link show",
                     "ip nexthop show", "ip route show table all"])


for _ in range(n):
    out.append(step())
out += ["ip -d link show", "ip addr show", "ip route show table all", "ip -6 route show table all",
        "ip nexthop show", "ip addrlabel list"]
print("# random ifnames scenario, seed", seed)
print("\n".join(out))
