#!/usr/bin/env python3
"""Focused random scenarios: `ip stats` and `ip link xstats` lines of every shape
(groups, subgroups and suites valid and not, in every order and repeated, `dev` by
name, by `ifN` index, missing or unknown, `set ... l3_stats on|off` with good and bad
words, `help`, abbreviations of the object, `-j`, `-j -p`, `-s`, `-d`, `-o`) over
dummies, a veth pair, bridges and their ports (spanning tree off and on, with a long
hello time) and macvlans, made, moved between bridges and deleted. Every device but lo
stays down: a kernel device that is up counts its own neighbour discovery and
multicast reports, fibkit's pass no packets. A bridge port on a `bond` xstats line
crashes iproute2 6.1, which fib answers the same way.

Usage: stats.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link add br0 type bridge",
       "ip link add v0 type veth peer name v1 address 02:00:00:00:10:91"]
DEVS = ["lo", "d0", "d1", "d2", "br0", "br1", "v0", "v1", "m0", "if1", "if2", "if99", "if0", "nosuch"]
GROUPS = ["link", "offload", "xstats", "xstats_slave", "afstats", "bogus", "subgroup", "suite"]
SUBS = {"offload": ["l3_stats", "hw_stats_info", "cpu_hit", "bogus"], "xstats": ["bridge", "bond", "bogus"],
        "xstats_slave": ["bridge", "bond"], "afstats": ["mpls", "bogus"], "link": ["bogus"]}
SUITES = {"bridge": ["stp", "mcast", "bogus"], "bond": ["802.3ad", "bogus"]}


def opts():
    return R.choice(["", "", "", "-j ", "-j -p ", "-s ", "-d ", "-o ", "-s -s "])


def sel():
    parts = []
    for _ in range(R.choice([0, 1, 1, 2, 3])):
        g = R.choice(GROUPS)
        parts.append(f"group {g}")
        if g in SUBS and R.random() < 0.6:
            sg = R.choice(SUBS[g])
            parts.append(f"subgroup {sg}")
            if sg in SUITES and R.random() < 0.6:
                parts.append(f"suite {R.choice(SUITES[sg])}")
        elif R.random() < 0.1:
            parts.append(R.choice(["subgroup bridge", "suite stp", "help", "bogus"]))
    if R.random() < 0.7:
        parts.insert(R.randint(0, len(parts)), f"dev {R.choice(DEVS)}")
    if R.random() < 0.05:
        parts.append(R.choice(["dev", "group", "dev d0"]))
    return " ".join(parts)


def stats_line():
    r = R.random()
    obj = R.choice(["stats", "stats", "stats", "st", "sta", "stat"])
    if r < 0.7:
        verb = R.choice(["show", "show", "show", ""])
        if verb == "":
            return f"ip {opts()}{obj}"
        return f"ip {opts()}{obj} show {sel()}".rstrip()
    if r < 0.9:
        parts = []
        if R.random() < 0.9:
            parts.append(f"dev {R.choice(DEVS)}")
        if R.random() < 0.9:
            parts.append(f"l3_stats {R.choice(['on', 'off', 'on', 'off', 'maybe'])}")
        if R.random() < 0.05:
            parts.append(R.choice(["l3_stats on", "bogus", "dev d0"]))
        R.shuffle(parts)
        return f"ip {obj} set {' '.join(parts)}".rstrip()
    return f"ip {obj} {R.choice(['help', 'bogus', 'list', 'show help'])}"


def xstats_line():
    kind = R.choice(["bridge", "bridge_slave", "bridge", "bridge_slave", "bond", "bond_slave", "veth", "bogus"])
    parts = [f"type {kind}"]
    for _ in range(R.choice([0, 1, 1, 2])):
        parts.append(R.choice(["igmp", "mcast", "stp", f"dev {R.choice(DEVS)}", "help", "bogus", "802.3ad"]))
    return f"ip {opts()}link xstats {' '.join(parts)}"


def change():
    return R.choice(["ip link add d2 type dummy", "ip link del d2", "ip link add br1 type bridge",
                     "ip link add br1 type bridge stp_state 1 hello_time 1000", "ip link del br1",
                     f"ip link set {R.choice(['d0', 'd1', 'd2', 'v0', 'v1', 'm0'])} master {R.choice(['br0', 'br1'])}",
                     f"ip link set {R.choice(['d0', 'd1', 'd2', 'v0', 'v1', 'm0'])} nomaster",
                     "ip link add m0 link d1 type macvlan", "ip link del m0",
                     "ip link set br0 type bridge stp_state 1 hello_time 1000",
                     "ip link set br0 type bridge stp_state 0", "ip link set br0 type bridge mcast_stats_enabled 1"])


for _ in range(n):
    r = R.random()
    if r < 0.55:
        out.append(stats_line())
    elif r < 0.75:
        out.append(xstats_line())
    else:
        out.append(change())
out += ["ip stats show", "ip link xstats type bridge_slave"]
print("\n".join(out))
