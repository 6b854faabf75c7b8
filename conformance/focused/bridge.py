#!/usr/bin/env python3
"""Focused random scenarios: a bridge and its ports, kept down. Ports (dummies, a veth
pair, a macvlan, a VXLAN device, another bridge) join and leave; the bridge's address
and MTU follow its ports unless set by hand; bridge options (`type bridge ...`) and
port options (`type bridge_slave ...`), valid and refused; MTU and address changes of
ports and bridge; addresses and routes on the bridge; detailed listings of the bridge
and plain ones of all. The bridge stays down, so no port is enabled: its carrier
comes from the link watch and its ports' forward delay timers run in real time.

Usage: bridge.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link add d2 address 02:00:00:00:00:01 type dummy",
       "ip link add br0 type bridge", "ip link add v0 type veth peer name v1 address 02:00:00:00:10:99",
       "ip link add link d0 name mv0 type macvlan mode bridge", "ip link add vx0 type vxlan id 5 dstport 4789"]
ports = ["d0", "d1", "d2", "v0", "v1", "mv0", "vx0", "br1", "lo", "br0"]
macs = ["02:00:00:00:00:02", "02:00:00:00:00:ff", "02:00:00:00:00:00", "00:00:00:00:00:01", "01:00:00:00:00:01",
        "fe:00:00:00:00:01"]


def bropt():
    k = R.choice(["forward_delay %d" % R.choice([0, 2, 200, 1500, 3000, 4000]), "hello_time %d" % R.choice([0, 50, 100, 200, 1000, 1001]),
                  "max_age %d" % R.choice([0, 500, 600, 2000, 4000, 4001]), "ageing_time %d" % R.choice([0, 1000, 30000]),
                  "stp_state %d" % R.choice([0, 1, 2]), "priority %d" % R.choice([0, 100, 32768, 65535, 65536]),
                  "group_fwd_mask %s" % R.choice(["0", "0x4000", "1", "0xffff"]),
                  "group_address %s" % R.choice(["01:80:c2:00:00:00", "01:80:c2:00:00:0f", "01:80:c2:00:00:10", "02:00:00:00:00:01"]),
                  "mcast_snooping %d" % R.randint(0, 1), "mcast_router %d" % R.choice([0, 1, 2, 3]),
                  "mcast_querier %d" % R.randint(0, 1), "mcast_hash_max %d" % R.choice([1, 512, 1000, 4096]),
                  "mcast_last_member_count %d" % R.choice([0, 2]), "mcast_startup_query_count %d" % R.choice([2, 5]),
                  "mcast_igmp_version %d" % R.choice([1, 2, 3, 4]), "mcast_mld_version %d" % R.choice([0, 1, 2, 3]),
                  "mcast_query_interval %d" % R.choice([100, 12500]), "no_linklocal_learn %d" % R.randint(0, 1),
                  "nf_call_iptables %d" % R.randint(0, 1), "mcast_stats_enabled %d" % R.randint(0, 1),
                  "vlan_filtering %d" % R.randint(0, 1), "fdb_flush", "mcast_query_use_ifaddr %d" % R.randint(0, 1)])
    return " " + k


def portopt():
    k = R.choice(["cost %d" % R.choice([1, 2, 100, 65535, 0]), "priority %d" % R.choice([0, 32, 63, 64]),
                  "state %d" % R.choice([0, 1, 2, 3, 4, 5]), "guard %s" % R.choice(["on", "off"]),
                  "hairpin %s" % R.choice(["on", "off"]), "learning %s" % R.choice(["on", "off"]),
                  "flood %s" % R.choice(["on", "off"]), "root_block %s" % R.choice(["on", "off"]),
                  "proxy_arp %s" % R.choice(["on", "off"]), "mcast_router %d" % R.choice([0, 1, 2, 3]),
                  "mcast_fast_leave %s" % R.choice(["on", "off"]), "bcast_flood %s" % R.choice(["on", "off"]),
                  "mcast_flood %s" % R.choice(["on", "off"]), "isolated %s" % R.choice(["on", "off"]),
                  "neigh_suppress %s" % R.choice(["on", "off"]), "backup_port %s" % R.choice(["d0", "d1", "v0"]),
                  "nobackup_port", "fdb_flush", "locked %s" % R.choice(["on", "off"])])
    return " " + k


for _ in range(n):
    r = R.random()
    if r < 0.25:
        p = R.choice(ports)
        out.append(R.choice(["ip link set %s master br0" % p, "ip link set %s master br0" % p, "ip link set %s nomaster" % p,
                             "ip link set %s master br1" % p]))
    elif r < 0.37:
        out.append("ip link set br0 type bridge" + "".join(bropt() for _ in range(R.randint(1, 3))))
    elif r < 0.47:
        out.append("ip link set %s type bridge_slave" % R.choice(["d0", "d1", "v0", "d2", "br0"]) +
                   "".join(portopt() for _ in range(R.randint(1, 2))))
    elif r < 0.6:
        d = R.choice(["d0", "d1", "d2", "v0", "v1", "mv0", "br0", "br0"])
        out.append(R.choice(["ip link set %s mtu %d" % (d, R.choice([68, 1280, 1400, 1500, 9000, 65535, 65536])),
                             "ip link set %s address %s" % (d, R.choice(macs)),
                             "ip link del %s" % R.choice(["d1", "v1", "mv0", "br1", "vx0"]),
                             "ip link add %s" % R.choice(["d1 type dummy", "br1 type bridge", "link d0 name mv0 type macvlan",
                                                          "vx0 type vxlan id 5 dstport 4789"]),
                             "ip link add br0 type bridge", "ip link del br0",
                             "ip link set d0 up", "ip link set d0 down"]))
    elif r < 0.68:
        out.append(R.choice(["ip addr add 10.8.0.1/24 dev br0", "ip -6 addr add 2001:db8:8::1/64 dev br0 nodad",
                             "ip route add 10.80.0.0/16 dev br0", "ip addr add 10.8.1.1/24 dev d1"]))
    else:
        out.append(R.choice(["ip -d link show dev br0", "ip -j -d link show dev br0", "ip link show", "ip link show master br0",
                             "ip -br link show", "ip link show type bridge_slave", "ip -j link show", "ip route show",
                             "ip -6 route show", "ip addr show dev br0", "ip link show dev br0", "ip route get 10.80.1.1"]))
out += ["ip -d link show dev br0", "ip link show"]
print("\n".join(out))
