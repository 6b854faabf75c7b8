#!/usr/bin/env python3
"""Focused random scenarios: policy rules that name devices (`iif`, `oif`) and device
groups (`suppress_ifgroup`) while those devices come and go: created, deleted,
renamed to and from the names rules hold (a rule naming an absent device is
`[detached]` and matches nothing), moved between groups, brought down and up; with
lookups of both families through the rules (output with `oif`, input with `iif`,
fibmatch) and rule listings filtered by device.

Usage: rulesdev.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
NAMES = ["d0", "d1", "d2", "x0", "x1"]
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip addr add 10.1.0.1/24 dev d1",
       "ip -6 addr add 2001:db8:1::1/64 dev d0 nodad", "ip -6 addr add 2001:db8:2::1/64 dev d1 nodad",
       "ip route add 10.9.0.0/16 via 10.0.0.2 table 100", "ip route add default via 10.1.0.2 table 200",
       "ip route add 10.9.1.0/24 dev d1 table 200", "ip route add unreachable 10.9.2.0/24 table 100",
       "ip -6 route add 2001:db8:9::/48 via 2001:db8:1::2 table 100",
       "ip -6 route add default via 2001:db8:2::2 table 200",
       "ip -6 route add 2001:db8:9:1::/64 dev d1 table 200"]
present = {"d0", "d1"}
ACTS = ["lookup 100", "lookup 200", "lookup main", "prohibit", "goto 32000", "nop", "blackhole"]


def fam():
    return R.choice(["", "-6 "])


def dev():
    return R.choice(NAMES + ["lo"])


def sel():
    parts = []
    for _ in range(R.randint(1, 2)):
        parts.append(R.choice([f"iif {dev()}", f"oif {dev()}", f"iif {dev()}", f"oif {dev()}",
                               "from 10.0.0.0/8", "to 10.9.0.0/16", "fwmark 1"]))
    return " ".join(parts)


def rule_line():
    f = fam()
    s = sel()
    if f == "-6 ":
        s = s.replace("from 10.0.0.0/8", "from 2001:db8::/32").replace("to 10.9.0.0/16", "to 2001:db8:9::/48")
    r = R.random()
    if r < 0.6:
        a = R.choice(ACTS)
        if R.random() < 0.2:
            a = f"lookup {R.choice(['100', '200', 'main'])} suppress_ifgroup {R.randint(0, 3)}"
        if R.random() < 0.15:
            a = f"lookup {R.choice(['100', '200', 'main'])} suppress_prefixlength {R.choice([0, 16, 24])}"
        pref = f"pref {R.choice([100, 200, 300, 400, 500])} " if R.random() < 0.6 else ""
        return f"ip {f}rule add {pref}{s} {a}"
    if r < 0.85:
        return f"ip {f}rule del {s}"
    return R.choice([f"ip {f}rule del pref {R.choice([100, 200, 300, 400, 500])}", f"ip {f}rule flush"])


def link_line():
    r = R.random()
    if r < 0.25:
        nm = R.choice(NAMES)
        return f"ip link add {nm} type {R.choice(['dummy', 'dummy', 'veth'])}"
    if r < 0.4:
        return f"ip link del {R.choice(NAMES)}"
    if r < 0.6:
        return f"ip link set {R.choice(NAMES)} name {R.choice(NAMES)}"
    if r < 0.75:
        return f"ip link set {R.choice(NAMES)} group {R.randint(0, 3)}"
    if r < 0.88:
        return f"ip link set {R.choice(NAMES)} {R.choice(['up', 'down'])}"
    nm = R.choice(NAMES)
    return R.choice([f"ip addr add 10.{R.randint(2, 5)}.0.1/24 dev {nm}",
                     f"ip -6 addr add 2001:db8:{R.randint(3, 5)}::1/64 dev {nm} nodad",
                     f"ip route add 10.9.{R.randint(0, 3)}.0/24 dev {nm} table {R.choice([100, 200])}",
                     f"ip -6 route add 2001:db8:9:{R.randint(0, 3)}::/64 dev {nm} table {R.choice([100, 200])}"])


def look():
    r = R.random()
    if r < 0.45:
        d = R.choice(["10.9.0.1", "10.9.1.1", "10.9.2.1", "10.1.0.5", "10.77.0.1"])
        x = R.choice(["", f" oif {dev()}", f" iif {dev()} from 10.0.0.9", f" iif {dev()} from 10.1.0.9",
                      " mark 1", f" oif {dev()} mark 1", " fibmatch", f" fibmatch oif {dev()}"])
        return f"ip route get {d}{x}"
    if r < 0.8:
        d = R.choice(["2001:db8:9::1", "2001:db8:9:1::1", "2001:db8:2::5", "2001:db8:77::1"])
        x = R.choice(["", f" oif {dev()}", f" iif {dev()} from 2001:db8:1::9", " mark 1", " fibmatch",
                      f" fibmatch oif {dev()}"])
        return f"ip -6 route get {d}{x}"
    f = fam()
    return R.choice([f"ip {f}rule show", f"ip {f}rule show iif {dev()}", f"ip {f}rule show oif {dev()}",
                     f"ip -j {f}rule show", f"ip -d {f}rule show"])


for _ in range(n):
    r = R.random()
    out.append(rule_line() if r < 0.3 else link_line() if r < 0.6 else look())
out += ["ip rule show", "ip -6 rule show"]
print("\n".join(out))
