#!/usr/bin/env python3
"""Focused random scenarios: resilient nexthop groups over time. Groups of both
families with a few buckets, idle and unbalanced timers, whose members' weights change
(`ip nexthop replace ... type resilient`), whose members go (deleted, their device
down) and come back, and which routes use; lookups through the routes mark buckets
used (`ip route get` of many flows), and time passes (`sleep`) while the bucket
tables and groups are listed. A bucket moves to an underweight member once it has been
idle for the idle timer, or once the group has been unbalanced for the unbalanced
timer.

The kernel's upkeep runs at each deadline (a bucket's last use plus the idle timer,
the time the group became unbalanced plus the unbalanced timer) and, while the group
stays unbalanced, at least half a second after its previous run. Rounds are 1.5 s
apart: changes and then lookups at the start of a round, looks 0.75 s in. With idle
timers of 1 or 2 s and unbalanced timers of 0, 1, 2 or 4 s every deadline falls 0.5
or 1 s into a round, and so does every run of the upkeep: none at a change, a lookup
or a look.

Usage: resilient.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 30
R = random.Random(seed)
v6 = R.random() < 0.3
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip addr add 10.1.0.1/24 dev d1",
       "ip -6 addr add 2001:db8::1/64 dev d0 nodad", "ip -6 addr add 2001:db8:1::1/64 dev d1 nodad"]
if v6:
    MEM = {1: "via 2001:db8::2 dev d0", 2: "via 2001:db8::3 dev d0", 3: "via 2001:db8:1::2 dev d1",
           4: "via 2001:db8:1::3 dev d1"}
    DST = "2001:db8:9::%x"
    ROUTE = "ip -6 route add 2001:db8:9::/64 nhid 10"
else:
    MEM = {1: "via 10.0.0.2 dev d0", 2: "via 10.0.0.3 dev d0", 3: "via 10.1.0.2 dev d1", 4: "via 10.1.0.3 dev d1"}
    DST = "10.9.0.%d"
    ROUTE = "ip route add 10.9.0.0/24 nhid 10"
for i, m in MEM.items():
    out.append("ip nexthop add id %d %s" % (i, m))
idle = R.choice([1, 2])
unb = R.choice([0, 1, 2, 4])
buckets = R.choice([4, 6, 8, 12])


def group():
    k = R.randint(1, 3)
    ms = sorted(R.sample(list(MEM), k))
    return "/".join("%d,%d" % (m, R.randint(1, 3)) if R.random() < 0.6 else str(m) for m in ms)


out.append("ip nexthop add id 10 group %s type resilient buckets %d idle_timer %d unbalanced_timer %d"
           % (group(), buckets, idle, unb))
out.append(ROUTE)


def change():
    r = R.random()
    if r < 0.55:
        s = "ip nexthop replace id 10 group %s type resilient" % group()
        if R.random() < 0.2:
            s += R.choice([" idle_timer %d" % R.choice([1, 2]), " unbalanced_timer %d" % R.choice([0, 1, 2, 4]),
                           " buckets %d" % buckets])
        return s
    if r < 0.7:
        m = R.choice(list(MEM))
        return R.choice(["ip nexthop del id %d" % m, "ip nexthop add id %d %s" % (m, MEM[m])])
    if r < 0.85:
        return "ip link set %s %s" % (R.choice(["d0", "d1"]), R.choice(["down", "up", "up"]))
    m = R.choice(list(MEM))
    return "ip nexthop replace id %d %s" % (m, MEM[R.choice(list(MEM))])


def look():
    # (no lookup: it would mark a bucket used, and start an idle time, at a look's time)
    return R.choice(["ip nexthop bucket show id 10", "ip nexthop bucket show id 10",
                     "ip nexthop bucket show nhid %d" % R.choice(list(MEM)), "ip nexthop show id 10",
                     "ip -j nexthop bucket show id 10", "ip nexthop bucket show dev d0",
                     "ip nexthop show"])


t = 0
for _ in range(n):
    if t >= 15:
        break
    # a round: changes, then lookups (marking buckets used), looks 0.75 s in
    if R.random() < 0.5:
        for _ in range(R.randint(1, 2)):
            out.append(change())
    if R.random() < 0.6:
        for _ in range(R.randint(1, 4)):
            out.append("ip route get " + DST % R.randint(1, 250))
    out.append("sleep 0.75")
    for _ in range(R.randint(0, 2)):
        out.append(look())
    out.append("sleep 0.75")
    t += 1.5
out += ["sleep 0.75", "ip nexthop bucket show id 10", "ip nexthop show id 10"]
print("\n".join(out))
