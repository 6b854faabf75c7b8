#!/usr/bin/env python3
"""Focused random scenarios: output formats of every listing (`-j`, `-p`, `-o`, `-br`,
`-d`, `-N`, family options) over a state that mixes link kinds (a veth pair, never
deleted: a re-created peer takes a random address; bridge and its ports, macvlan, vxlan, ifb with alias/group/mtu/txqueuelen/master,
settings made by group), IPv4 and IPv6
addresses with labels, peers and flags, neighbours in several states (one address
of each family: the kernel lists a table in a randomly seeded hash order), rules, nexthop
objects and groups, routes of several types, and changes echoed (`-echo`).

Usage: formats.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy", "ip link set d0 up", "ip link set d1 up",
       "ip addr add 10.0.0.1/24 dev d0", "ip -6 addr add 2001:db8::1/64 dev d0 nodad",
       "ip link add v0 type veth peer name v1", "ip link set v0 up", "ip link set v1 up", "sleep 1"]
links = ["d0", "d1", "v0", "v1", "br0", "m0", "x0", "d2"]
def link_op():
    c = R.random()
    if c < 0.5:
        return R.choice([
            "ip link add v0 type veth peer name v1", "ip link add br0 type bridge", "ip link add d2 type dummy",
            "ip link add m0 link d0 type macvlan mode " + R.choice(["bridge", "private", "vepa", "passthru"]),
            "ip link add x0 type vxlan id %d dstport 4789 dev d0" % R.randint(1, 99),
            "ip link add x0 type vxlan id 7 local 10.0.0.1 remote 10.0.0.9 dstport 4789",
            "ip link del " + R.choice(["d1", "br0", "m0", "x0", "d2"])])
    if c < 0.6:
        return "ip link set group %d %s" % (R.randint(0, 3), R.choice(["up", "mtu 1400", "mtu 1500", "promisc on",
                                                                     "txqueuelen 77", "alias grouped"]))
    d = R.choice(links)
    # (the veth pair stays up: its link-local routes wait for the link watch, up to a
    # second, so their place among other devices' would vary)
    updown = ["up", "up", "down"] if d not in ("v0", "v1") else ["up"]
    return "ip link set %s %s" % (d, R.choice(updown + ["master br0", "nomaster", "alias 'port %d'" % R.randint(0, 9), "group %d" % R.randint(0, 3),
        "mtu %d" % R.choice([1280, 1400, 1500, 9000]), "txqueuelen %d" % R.choice([0, 10, 1000]),
        "address 02:00:00:00:00:%02x" % R.randint(1, 9), "multicast off", "allmulticast on",
        "promisc on", "name " + R.choice(links)]))
def addr_op():
    d = R.choice(links[:6])
    if R.random() < 0.5:
        a = "10.%d.0.%d/%d" % (R.randint(0, 3), R.randint(1, 9), R.choice([8, 24, 24, 32]))
        x = R.choice(["", "", " label %s:%d" % (d, R.randint(0, 3)), " brd +", " peer 10.9.9.%d" % R.randint(1, 5),
                      " noprefixroute", " metric 7", " scope link", " scope host", " valid_lft forever preferred_lft 0"])
        return "ip addr %s %s dev %s%s" % (R.choice(["add", "add", "del", "replace"]), a, d, x)
    a = "2001:db8:%x::%x/%d" % (R.randint(0, 3), R.randint(1, 9), R.choice([64, 64, 128, 48]))
    x = R.choice([" nodad", " nodad noprefixroute", " nodad home", " nodad mngtmpaddr", " nodad metric 9",
                  " nodad preferred_lft 0", " nodad scope link", ""])
    return "ip -6 addr %s %s dev %s%s" % (R.choice(["add", "add", "del", "replace"]), a, d, x)
def neigh_op():
    if R.random() < 0.5:
        a, d = "10.0.0.2", "d0"
    else:
        a, d = "2001:db8::2", "d0"
    st = R.choice(["permanent", "noarp", "reachable", "stale", "delay", "probe", "failed", "incomplete", "none"])
    x = R.choice(["", "", " router", " extern_learn", " proxy"])
    if x == " proxy":
        return "ip neigh %s proxy %s dev %s" % (R.choice(["add", "del"]), a, d)
    return "ip neigh %s %s lladdr 02:00:00:00:aa:%02x nud %s dev %s%s" % (
        R.choice(["add", "replace", "change", "del"]), a, R.randint(0, 5), st, d, x)
def rule_op():
    f = R.choice(["", "-6 "])
    sel = R.choice(["from 10.0.0.0/8", "to 10.1.0.0/16", "fwmark 0x10/0xff", "iif d0", "oif d1", "tos 0x10", "uidrange 1-100",
                    "ipproto tcp dport 80", "sport 1000-2000", "not from 10.2.0.0/16", "l3mdev", "protocol bgp", "goto 32000",
                    "from all", "suppress_prefixlength 0", "suppress_ifgroup 2", "realms 3/4", "nop", "dsfield 0x20"])
    if f and ("10." in sel or "realms" in sel or "tos" in sel):
        sel = sel.replace("10.0.0.0/8", "2001:db8::/32").replace("10.1.0.0/16", "2001:db8:1::/48").replace("10.2.0.0/16", "2001:db8:2::/48")
        sel = sel.replace("realms 3/4", "from all")
    act = R.choice(["lookup 100", "lookup main", "table 200", "unreachable", "blackhole", "prohibit", ""])
    if sel in ("goto 32000", "nop"): act = ""
    pr = R.choice(["", " pref %d" % R.randint(1, 40000)])
    return "ip %srule %s %s %s%s" % (f, R.choice(["add", "add", "del"]), sel, act, pr)
def nh_op():
    i = R.randint(1, 8)
    return R.choice([
        "ip nexthop add id %d via 10.0.0.%d dev d0" % (i, R.randint(2, 6)),
        "ip nexthop add id %d via 2001:db8::%d dev d0" % (i, R.randint(2, 6)),
        "ip nexthop add id %d dev d1" % i, "ip nexthop add id %d blackhole" % i,
        "ip nexthop add id %d group %d/%d,%d" % (i, R.randint(1, 8), R.randint(1, 8), R.randint(1, 5)),
        "ip nexthop add id %d group %d/%d type resilient buckets 8" % (i, R.randint(1, 8), R.randint(1, 8)),
        "ip nexthop add id %d via 10.0.0.%d dev d0 fdb" % (i, R.randint(2, 6)),
        "ip nexthop del id %d" % i, "ip nexthop replace id %d via 10.0.0.7 dev d0" % i])
def route_op():
    if R.random() < 0.5:
        p = R.choice(["10.50.0.0/16", "10.51.0.0/24", "10.52.0.1", "default"])
        nh = R.choice(["via 10.0.0.2", "dev d1", "nhid %d" % R.randint(1, 8), "nexthop via 10.0.0.2 weight 2 nexthop dev d1",
                       "blackhole", "unreachable", "prohibit", "throw", "local", "broadcast"])
        t = nh if nh in ("blackhole", "unreachable", "prohibit", "throw", "local", "broadcast") else None
        x = R.choice(["", " proto bgp", " metric 10", " table 100", " mtu 1400", " src 10.0.0.1", " realm 4", " onlink"])
        if t: return "ip route %s %s %s%s" % (R.choice(["add", "replace"]), t, p, x)
        return "ip route %s %s %s%s" % (R.choice(["add", "replace", "append", "del"]), p, nh, x)
    p = R.choice(["2001:db8:50::/48", "2001:db8:51::/64", "2001:db8:52::1", "default"])
    nh = R.choice(["via 2001:db8::2", "dev d1", "nhid %d" % R.randint(1, 8), "nexthop via 2001:db8::2 nexthop dev d1",
                   "blackhole", "unreachable", "prohibit"])
    x = R.choice(["", " proto ra", " metric 10", " table 100", " pref high", " mtu 1400", " expires 300"])
    if nh in ("blackhole", "unreachable", "prohibit"): return "ip -6 route %s %s %s%s" % (R.choice(["add", "replace"]), nh, p, x)
    return "ip -6 route %s %s %s%s" % (R.choice(["add", "replace", "append", "del"]), p, nh, x)
OPTS = ["", "", "-j ", "-j -p ", "-o ", "-d ", "-d -j ", "-N ", "-br ", "-br -d ", "-0 ", "-4 ", "-6 ",
        "-o -d ", "-j -d -p ", "-N -j ", "-N -d "]
def show_op():
    o = R.choice(OPTS)
    obj = R.choice(["link", "link", "addr", "addr", "route", "-6 route", "rule", "-6 rule", "neigh show dev d0", "-6 neigh show dev d0", "-4 neigh", "nexthop",
                    "maddr", "addrlabel", "route show table all", "-6 route show table all",
                    "link show type veth", "link show master br0", "link show group 1", "addr show group 2", "-br link show group 0", "link show group default", "addr show dev d0", "addr show label d0:1",
                    "neigh show proxy", "nexthop show groups", "nexthop show fdb", "link show up", "addr show up",
                    "-4 addr show scope global", "addr show permanent", "route show proto bgp",
                    "-6 addr show nodad", "link show d0", "addr show to 10.0.0.0/8", "rule show table 100"])
    if obj.startswith("-6 ") and o.strip() in ("-4", "-0", "-6"):
        o = ""
    return "ip %s%s" % (o, obj)
def echoed(c):
    if R.random() < 0.15:
        return c.replace("ip ", "ip " + R.choice(["-echo ", "-echo -j ", "-echo -d ", "-echo -o "]), 1)
    return c
for _ in range(n):
    r = R.random()
    if r < 0.15: out.append(link_op())
    elif r < 0.3: out.append(echoed(addr_op()))
    elif r < 0.38: out.append(echoed(neigh_op()))
    elif r < 0.45: out.append(echoed(rule_op()))
    elif r < 0.52: out.append(echoed(nh_op()))
    elif r < 0.6: out.append(echoed(route_op()))
    else: out.append(show_op())
out += ["ip -j -d link", "ip -j addr", "ip -br addr", "ip -o route show table all"]
print("\n".join(out))
