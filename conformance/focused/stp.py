#!/usr/bin/env python3
"""Focused random scenarios: a bridge's spanning tree timers. A bridge under kernel
spanning tree (forward delay 2 s, maximum age 6 s) whose ports (two dummies and one
end of a veth pair) join and leave, go down and up, while spanning tree is turned off
and on, the bridge goes down and up, and port states are set by hand (refused under
spanning tree); time passes (`sleep`) and listings look at the ports' states
(listening, learning, forwarding), the bridge's carrier and its topology change
flags and ageing time, the routes through it (`linkdown`) and its IPv6 link-local
address (made once it has carrier).

Timers run from the moment of the change that started them: a port listens for a
forward delay, learns for another, then forwards; the topology change lasts the
forward delay and the maximum age. Every such time is an even number of seconds after
some change, and the kernel's timers fire up to a quarter second late, so no change
or look happens from 0.1 s before to 0.45 s after an even number of seconds after
any change. A bridge that loses its carrier tells it through the link watch, up to a
second later: nothing is looked at in the 1.5 s after a change that can take it.

Usage: stp.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link add v0 type veth peer name v1",
       "ip link add br0 type bridge stp_state 1 forward_delay 200 max_age 600",
       "ip link set d0 master br0", "ip link set v0 master br0",
       "ip link set d0 up", "ip link set d1 up", "ip link set v0 up", "ip link set v1 up",
       "ip addr add 10.8.0.1/24 dev br0", "ip route add 10.80.0.0/16 via 10.8.0.9",
       "ip link set br0 up"]
if R.random() < 0.5:
    out.append("ip link set br0 type bridge ageing_time %d" % R.choice([1000, 2000]))
changes = [0.0]       # the times of changes (s)
quiet_until = 1.5     # no look before this (a carrier loss may be on its way)


def free(t):
    for e in changes:
        d = t - e
        for m in range(1, 20):
            if 2 * m - 0.1 <= d <= 2 * m + 0.45:
                return False
    return True


def event():
    """A change, and whether it can take the bridge's carrier away."""
    r = R.random()
    p = R.choice(["d0", "d1", "v0"])
    if r < 0.22:
        return R.choice(["ip link set %s master br0" % p, "ip link set %s nomaster" % p]), True
    if r < 0.42:
        d = R.choice(["d0", "d1", "v0", "v1", "br0"])
        return "ip link set %s %s" % (d, R.choice(["up", "down"])), True
    if r < 0.6:
        return "ip link set br0 type bridge stp_state %d" % R.choice([0, 1, 1]), False
    if r < 0.72:
        return "ip link set %s type bridge_slave state %d" % (p, R.randint(0, 4)), True
    if r < 0.8:
        return "ip link set br0 type bridge ageing_time %d" % R.choice([1000, 3000]), False
    if r < 0.86:
        return "ip link set br0 type bridge forward_delay %d" % R.choice([200, 3000]), False
    if r < 0.93:
        return "ip link set br0 type bridge priority %d" % R.choice([0, 32768, 4096]), False
    return R.choice(["ip link set %s type bridge_slave priority %d" % (p, R.choice([0, 32, 63])),
                     "ip link set %s type bridge_slave cost %d" % (p, R.choice([1, 100]))]), False


def look():
    return R.choice(["ip -d link show dev br0", "ip -d link show dev %s" % R.choice(["d0", "d1", "v0"]),
                     "ip -j -d link show dev %s" % R.choice(["br0", "d0", "v0"]), "ip link show",
                     "ip link show master br0", "ip route show", "ip -6 addr show dev br0",
                     "ip -6 route show dev br0", "ip route get 10.80.1.1", "ip -br link show"])


t = 0.0
for _ in range(n):
    step = R.choice([0.25, 0.5, 0.75, 1.0, 1.25, 1.5])
    nt = t + step
    if nt > 16:
        break
    if not free(nt):
        continue
    out.append("sleep %g" % (nt - t))
    t = nt
    if R.random() < 0.4:
        for _ in range(R.randint(1, 2)):
            line, lossy = event()
            out.append(line)
            if lossy:
                quiet_until = max(quiet_until, t + 1.5)
        changes.append(t)
    elif t >= quiet_until:
        for _ in range(R.randint(1, 3)):
            out.append(look())
# the end: after every timer has run out (the last change's topology change at most
# 2 + 2 + 8 s later)
out.append("sleep %g" % (max(changes) + 13 - t if max(changes) + 13 > t else 1))
out += ["ip -d link show dev br0", "ip link show", "ip route show", "ip -6 addr show dev br0"]
print("\n".join(out))
