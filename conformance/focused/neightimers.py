#!/usr/bin/env python3
"""Focused random scenarios: the neighbour timers. Entries of both families put into
every state by `ip neigh add|replace|change` (delay, probe and incomplete included)
and started resolving by `use` (a stale entry delayed, a new or failed one
incomplete), deleted, their devices going down; the per-device probe counts, retransmit
time and probe delay set at the start; then time passing (`sleep`) while single
entries are listed and lookups that weigh the neighbours' states run (IPv4 multipath
under `fib_multipath_use_neigh`, IPv6 router selection). No packet ever answers, so a
probed entry fails.

The kernel's timers fire late by up to a quarter second (the timer wheel's
granularity), so changes happen on whole seconds of the scenario's time, every look
half a second away from them, and a round of changes waits until every timer it
started has run out (probe counts and times known from the settings) before the next
round; the scenario stays shorter than the shortest reachable time (15 s), after
which a reachable entry turns stale at a random moment.

Usage: neightimers.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 40
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add v0 type veth peer name v1", "ip link set d0 up",
       "ip link set v0 up", "ip link set v1 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip addr add 10.1.0.1/24 dev v0",
       "ip -6 addr add 2001:db8:1::1/64 dev v0 nodad"]
# the parameters of each family's table on v0: unicast, application, multicast and
# multicast re-probes, retransmit time (s), delay (s)
P = {f: dict(u=3, a=0, m=3, mr=0, r=1, d=5) for f in ["ipv4", "ipv6"]}
for fam in ["ipv4", "ipv6"]:
    for _ in range(R.choice([0, 1, 2, 2, 3])):
        k, v = R.choice([("ucast_solicit", R.randint(0, 4)), ("mcast_solicit", R.randint(0, 3)),
                         ("app_solicit", R.randint(0, 2)), ("mcast_resolicit", R.randint(0, 2)),
                         ("retrans_time_ms", R.choice([1000, 2000])),
                         # USER_HZ hundredths for ARP, jiffies (HZ=250) for ND
                         ("retrans_time", R.choice([100, 200] if fam == "ipv4" else [250, 500])),
                         ("delay_first_probe_time", R.choice([1, 2, 5]))])
        out.append("sysctl -w net.%s.neigh.v0.%s=%d" % (fam, k, v))
        key = {"ucast_solicit": "u", "mcast_solicit": "m", "app_solicit": "a", "mcast_resolicit": "mr",
               "retrans_time_ms": "r", "retrans_time": "r", "delay_first_probe_time": "d"}[k]
        P[fam][key] = (v // 1000 if k == "retrans_time_ms" else
                       (v // 100 if fam == "ipv4" else v // 250) if k == "retrans_time" else v)
# the longest any timer runs: a delayed entry's delay and probes, an incomplete one's
WAIT = max(max(p["d"] + (p["u"] + p["a"] + p["mr"]) * p["r"], (p["a"] + p["m"]) * p["r"]) for p in P.values())
if R.random() < 0.7:
    out += ["sysctl -w net.ipv4.fib_multipath_use_neigh=1",
            "ip route add 10.9.0.0/16 nexthop via 10.1.0.9 dev v0 nexthop via 10.1.0.8 dev v0"]
if R.random() < 0.7:
    out += ["ip -6 route add 2001:db8:9::/48 via 2001:db8:1::9 dev v0",
            "ip -6 route add 2001:db8:8::/48 via 2001:db8:1::8 dev v0 pref high",
            "ip -6 route append 2001:db8:8::/48 via 2001:db8:1::9 dev v0"]
A4 = ["10.1.0.9", "10.1.0.8", "10.1.0.7"]
A6 = ["2001:db8:1::9", "2001:db8:1::8", "2001:db8:1::7"]
LL = ["02:00:00:00:00:99", "02:00:00:00:00:98"]
STATES = ["delay", "probe", "incomplete", "stale", "reachable", "failed", "permanent", "noarp", "none", "delay", "probe"]


def who():
    if R.random() < 0.1:
        return "10.0.0.9", "d0"
    return R.choice(A4 + A6), "v0"


def event():
    a, d = who()
    r = R.random()
    if r < 0.5:
        s = "ip neigh %s %s dev %s" % (R.choice(["add", "replace", "change", "replace"]), a, d)
        if R.random() < 0.85:
            s += " lladdr " + R.choice(LL)
        return s + " nud " + R.choice(STATES)
    if r < 0.75:
        return "ip neigh %s %s dev %s use" % (R.choice(["change", "replace", "add"]), a, d)
    if r < 0.88:
        return "ip neigh del %s dev %s" % (a, d)
    return R.choice(["ip link set v0 down", "ip link set v0 up", "ip link set v1 down", "ip link set v1 up",
                     "ip neigh flush dev v0", "ip -6 neigh flush dev v0 nud failed"])


def look():
    r = R.random()
    if r < 0.6:
        a, d = who()
        return R.choice(["ip neigh show %s dev %s" % (a, d), "ip neigh get %s dev %s" % (a, d),
                         "ip -j neigh show %s dev %s" % (a, d)])
    if r < 0.8:
        return "ip route get 10.9.%d.%d" % (R.randint(0, 9), R.randint(1, 200))
    return "ip -6 route get 2001:db8:%d::%d" % (R.choice([8, 9]), R.randint(1, 200))


# rounds of changes on whole seconds; looks on half seconds until the round's timers
# have all run out; everything within 14 s of the first change
t = 0
for _ in range(n):
    if t + WAIT + 1 > 14 and t > 0:
        break
    for _ in range(R.randint(1, 4)):
        out.append(event())
    end = t + WAIT + 1
    while t < end:
        k = R.randint(0, min(3, end - t - 1))
        out.append("sleep %d.5" % k)
        for _ in range(R.randint(1, 3)):
            out.append(look())
        out.append("sleep 0.5")
        t += k + 1
print("\n".join(out))
