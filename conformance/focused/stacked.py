#!/usr/bin/env python3
"""Focused random scenarios: devices stacked on one another and what each copies from
the device under it, once or for good: macvlans on a bridge, a veth or another
macvlan, VXLAN devices on a bridge, a macvlan or another VXLAN device, bridges whose
ports are VXLAN devices, macvlans, dummies and a tap; the lower devices' MTU, address,
TSO/GSO/GRO limits, queue length, state and ports then change, devices are made
again on the changed devices, and detailed listings show what each copied (MTUs and
their bounds, TSO and GSO limits, promiscuity and allmulti counts, operational
states). No device is made up at creation nor brought up (the link watch).

Usage: stacked.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link add br0 type bridge",
       "ip link add br1 type bridge", "ip link add v0 type veth peer name v1 address 02:00:00:00:10:91",
       "ip tuntap add t0 mode tap",
       # a tap's address is random until the oracle's next `ip link add`: set one
       "ip link set t0 address 02:00:00:00:10:77"]
LOWERS = ["d0", "d1", "br0", "br1", "v0", "t0"]
TOPS = ["m0", "m1", "x0", "x1"]
vni = [10]


def any_dev():
    return R.choice(LOWERS + TOPS)


def make():
    t = R.choice(TOPS)
    low = R.choice(LOWERS + TOPS)
    mtu = R.choice(["", "", f" mtu {R.choice([1000, 1400, 1450, 1500, 9000])}"])
    if t.startswith("m"):
        return f"ip link add {t} link {low}{mtu} type macvlan mode {R.choice(['bridge', 'vepa', 'private'])}"
    vni[0] += 1
    return f"ip link add {t}{mtu} type vxlan id {vni[0]} dev {low} dstport 4789"


def change():
    d = any_dev()
    r = R.random()
    if r < 0.2:
        return f"ip link set {d} mtu {R.choice([1000, 1280, 1400, 1500, 1600, 9000, 65535])}"
    if r < 0.35:
        return f"ip link set {d} gso_max_size {R.choice([1000, 32768, 65536, 100000, 524280])}"
    if r < 0.4:
        return f"ip link set {d} gro_max_size {R.choice([1000, 65536, 100000])}"
    if r < 0.45:
        return f"ip link set {d} gso_max_segs {R.choice([10, 1000, 65535])}"
    if r < 0.55:
        return f"ip link set {d} address 02:00:00:00:{R.randint(0x20, 0x29):02x}:01"
    if r < 0.6:
        return f"ip link set {d} txqueuelen {R.choice([0, 100, 500])}"
    if r < 0.7:
        return f"ip link set {d} {R.choice(['promisc', 'allmulticast'])} {R.choice(['on', 'off'])}"
    if r < 0.88:
        br = R.choice(["br0", "br1"])
        p = R.choice(["d0", "d1", "t0", "v0", "m0", "m1", "x0", "x1", "br0"])
        return R.choice([f"ip link set {p} master {br}", f"ip link set {p} nomaster"])
    if r < 0.94:
        x = R.choice(["x0", "x1"])
        return f"ip link set {x} type vxlan dev {R.choice(LOWERS + TOPS)}"
    return f"ip link del {R.choice(TOPS)}"


def look():
    d = any_dev()
    return R.choice([f"ip -d link show dev {d}", f"ip -d link show dev {d}", "ip -d link show",
                     f"ip -j -d link show dev {d}", "ip link show"])


for _ in range(n):
    r = R.random()
    if r < 0.25:
        out.append(make())
    elif r < 0.7:
        out.append(change())
    else:
        out.append(look())
out += ["ip -d link show"]
print("\n".join(out))
