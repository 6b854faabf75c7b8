#!/usr/bin/env python3
"""Focused random scenarios: `ip xfrm policy` lines of every shape, valid and not
(selectors with prefixes of both families, host bits, `default`/`any`, upper-layer
specs with ports, ICMP type/code, GRE keys and protocol names or numbers, `dev` by name,
`ifN` or `none`; `dir`, `index` matching its direction or not, `ptype`, `action`,
`priority`, `mark`/`mask`, `if_id`, `flag` lists, `limit`s, `ctx`, templates of every
protocol, mode, level, SPI and family, too many of them; words repeated, missing or
unknown, abbreviated commands), `update`, `get`/`delete` by selector or index,
`deleteall`/`list` with every filter, `flush` by type, `count`, `set`, `setdefault` and
`getdefault`, with `-4`, `-6`, `-o` and `-d`, and the SA commands this kernel answers
without any state (`list`, `count`, `flush`, `get`, `delete`, adds refused by iproute2
or by the kernel, which has no ESP/AH/IPcomp type: EPROTONOSUPPORT). Never `-s`
listings (they print the wall-clock time a policy was added) or `allocspi` (a random
SPI).

Usage: xfrm.py SEED [STEPS] > FILE.scn (see conformance/focused/README.md)."""
import random, sys
seed = int(sys.argv[1]); n = int(sys.argv[2]) if len(sys.argv) > 2 else 60
R = random.Random(seed)
out = ["ip link add d0 type dummy", "ip link add d1 type dummy"]

P4 = ["10.0.0.0/24", "10.0.1.0/24", "10.0.0.0/16", "10.0.0.1", "10.0.0.5/24", "0.0.0.0/0",
      "10.0.0.0/24", "10.0.1.0/24", "10.0.0.0/16", "10.0.0.1", "10.0.2.0/24", "10.0.3.0/24",
      "default", "any", "192.168.1.0/24", "10.0.0.0/33", "10.1.2.3/8"]
P6 = ["2001:db8::/64", "2001:db8:1::/48", "::/0", "2001:db8::1", "fe80::/10", "2001:db8::/129"]
DEVS = ["d0", "d1", "lo", "if1", "if2", "if77", "none", "nosuch", "d2"]
PROTOS = ["tcp", "udp", "icmp", "ipv6-icmp", "gre", "sctp", "dccp", "mobility-header", "any",
          "17", "300", "TCP", "esp", "bogus", "0", "tcp", "udp", "icmp"]
DIRS = ["in", "out", "fwd"] * 4 + ["bad"]


def pfx(fam):
    if fam == 6:
        return R.choice(P6)
    if fam == 4:
        return R.choice(P4)
    return R.choice(P4 + P6)


def upspec():
    p = R.choice(PROTOS)
    parts = [f"proto {p}"]
    for _ in range(R.choice([0, 1, 1, 2])):
        k = R.choice(["sport", "dport", "type", "code", "key"])
        v = R.choice(["80", "0", "443", "8", "300", "65536", "0x50", "1.2.3.4", "70000", "x"])
        parts.append(f"{k} {v}")
    if R.random() < 0.1:
        R.shuffle(parts)
    return " ".join(parts)


def selector(fam=None):
    fam = fam or R.choice([4, 4, 4, 6, 0])
    parts = []
    if R.random() < 0.85:
        parts.append(f"src {pfx(fam)}")
    if R.random() < 0.85:
        parts.append(f"dst {pfx(fam)}")
    if R.random() < 0.05:
        parts.append(f"src {pfx(0)}")
    if R.random() < 0.3:
        parts.append(upspec())
    if R.random() < 0.2:
        parts.insert(R.randint(0, len(parts)), f"dev {R.choice(DEVS)}")
    return " ".join(parts)


def tmpl(fam):
    parts = []
    if R.random() < 0.6:
        f = R.choice([fam, fam, 6 if fam == 4 else 4])
        a = ["1.1.1.1", "2.2.2.2"] if f == 4 else ["2001::1", "2001::2"]
        if R.random() < 0.8:
            parts.append(f"src {a[0]}")
        parts.append(f"dst {a[1]}")
    if R.random() < 0.95:
        parts.append(f"proto {R.choice(['esp', 'esp', 'ah', 'comp', 'route2', 'hao', 'ipsec-any', 'bogus'])}")
    if R.random() < 0.3:
        parts.append(f"spi {R.choice(['0x100', '5', '0', '0x10000', 'zz'])}")
    if R.random() < 0.6:
        parts.append(f"mode {R.choice(['tunnel', 'transport', 'beet', 'ro', 'in_trigger', 'tun', 'x'])}")
    if R.random() < 0.3:
        parts.append(f"reqid {R.choice(['1', '7', '0x10', 'q'])}")
    if R.random() < 0.3:
        parts.append(f"level {R.choice(['use', 'required', 'maybe'])}")
    if R.random() < 0.2:
        R.shuffle(parts)
    return "tmpl " + " ".join(parts)


def attrs(fam, full=True):
    parts = []
    if R.random() < 0.3:
        parts.append(f"priority {R.choice(['0', '1', '5', '100', '0x10', 'p'])}")
    if R.random() < 0.2:
        parts.append(f"action {R.choice(['allow', 'block', 'block', 'deny'])}")
    if R.random() < 0.2:
        m = f"mark {R.choice(['5', '0x10', '0', '7', 'm'])}"
        if R.random() < 0.6:
            m += f" mask {R.choice(['0xff', '0', '0xffffffff', '0xf0'])}"
        parts.append(m)
    if R.random() < 0.15:
        parts.append(f"if_id {R.choice(['0', '7', '0x20', 'i'])}")
    if R.random() < 0.15:
        parts.append(f"ptype {R.choice(['main', 'sub', 'sub', 'other'])}")
    if R.random() < 0.15:
        parts.append(f"index {R.choice(['0', '1', '8', '9', '17', '18', '25', '100', 'x'])}")
    if full:
        if R.random() < 0.15:
            parts.append(f"flag {R.choice(['localok', 'icmp', 'localok icmp', '0x3', '0x4', 'bogus', '0xzz'])}")
        if R.random() < 0.15:
            parts.append(f"limit {R.choice(['time-soft', 'time-hard', 'byte-soft', 'packet-hard', 'time-use-soft', 'bogus'])} {R.choice(['100', '0', 'x'])}")
        if R.random() < 0.05:
            parts.append("ctx system_u:object_r:ipsec_spd_t:s0")
        for _ in range(R.choice([0, 0, 0, 1, 1, 2, 3])):
            parts.append(tmpl(fam))
        if R.random() < 0.02:
            parts.extend(["tmpl proto esp"] * 7)
    return parts


def policy_change():
    fam = R.choice([4, 4, 4, 6])
    verb = R.choice(["add", "add", "add", "add", "update", "a", "upd"])
    parts = [selector(fam)] if R.random() < 0.95 else []
    if R.random() < 0.95:
        parts.append(f"dir {R.choice(DIRS)}")
    parts += attrs(fam)
    if R.random() < 0.3:
        R.shuffle(parts)
    if R.random() < 0.03:
        parts.append(R.choice(["dir out", "bogus", "src 10.9.9.0/24", "ptype main", "dir"]))
    return f"ip {R.choice(['', '', '', '-4 ', '-6 '])}xfrm policy {verb} " + " ".join(p for p in parts if p)


def policy_id():
    fam = R.choice([4, 4, 6])
    verb = R.choice(["get", "get", "delete", "del", "g"])
    parts = []
    if R.random() < 0.6:
        parts.append(selector(fam))
    else:
        parts.append(f"index {R.choice(['1', '8', '9', '17', '18', '25', '33', '41', '0', '2'])}")
    if R.random() < 0.9:
        parts.append(f"dir {R.choice(DIRS)}")
    parts += attrs(fam, full=False)
    if R.random() < 0.2:
        R.shuffle(parts)
    return f"ip xfrm policy {verb} " + " ".join(parts)


def listing():
    verb = R.choice(["list", "show", "", "lst", "deleteall", "delall", "l"])
    parts = []
    for _ in range(R.choice([0, 0, 1, 1, 2, 3])):
        k = R.choice(["dir", "index", "ptype", "action", "priority", "flag", "nosock", "sel", "sel"])
        if k == "dir":
            parts.append(f"dir {R.choice(DIRS)}")
        elif k == "index":
            parts.append(f"index {R.choice(['1', '8', '9', '17', 'x'])}")
        elif k == "ptype":
            parts.append(f"ptype {R.choice(['main', 'sub'])}")
        elif k == "action":
            parts.append(f"action {R.choice(['allow', 'block'])}")
        elif k == "priority":
            parts.append(f"priority {R.choice(['0', '5', '100'])}")
        elif k == "flag":
            parts.append(f"flag {R.choice(['localok', 'icmp', 'bogus', '0x1'])}")
        elif k == "nosock":
            parts.append("nosock")
        else:
            parts.append(selector())
    o = R.choice(["", "", "", "-o ", "-4 ", "-6 ", "-d "])
    if verb == "":
        return f"ip {o}xfrm policy".rstrip()
    return f"ip {o}xfrm policy {verb} " + " ".join(parts)


def misc():
    return R.choice([
        "ip xfrm policy count", "ip xfrm policy flush", "ip xfrm policy flush ptype sub",
        "ip xfrm policy flush ptype main", "ip xfrm policy flush bogus", "ip xfrm policy flush ptype x",
        "ip xfrm policy getdefault", "ip xfrm policy setdefault in block",
        "ip xfrm policy setdefault out block fwd accept", "ip xfrm policy setdefault in accept in block",
        "ip xfrm policy setdefault up block", "ip xfrm policy setdefault in maybe",
        "ip xfrm policy set hthresh4 24 16", "ip xfrm policy set hthresh6 33 129",
        "ip xfrm policy set hthresh4 40 0", "ip xfrm policy set bogus",
        "ip xfrm policy bogus", "ip xfrm policy help", "ip xfrm", "ip xfrm bogus", "ip xfrm help",
        "ip x p", "ip xf po li", "ip -o xfrm policy count", "ip -s xfrm policy count",
        "ip xfrm state", "ip xfrm state count", "ip xfrm state flush", "ip xfrm state flush proto ah",
        "ip xfrm state flush proto bogus", "ip xfrm state list src 1.1.1.1",
        "ip xfrm state get src 1.1.1.1 dst 2.2.2.2 proto esp spi 5",
        "ip xfrm state delete dst 2.2.2.2 proto ah spi 1", "ip xfrm state get src 1.1.1.1",
        "ip xfrm state deleteall", "ip xfrm state add src 1.1.1.1 dst 2.2.2.2 proto esp spi 5",
        "ip xfrm state add src 1.1.1.1 dst 2.2.2.2 proto ah spi 5 enc aes 0x00",
        "ip xfrm state add src 1.1.1.1 dst 2.2.2.2 proto route2 mode ro",
        "ip xfrm state add src 1.1.1.1 dst 2.2.2.2 proto esp spi 0x100 enc aes 0x00112233445566778899aabbccddeeff",
        "ip xfrm state update src 1.1.1.1 dst 2.2.2.2 proto comp spi 0x100 comp deflate",
        "ip xfrm state bogus", "ip xfrm sa count",
        "ip link del d1", "ip link add d1 type dummy", "ip link add d2 type dummy", "ip link del d2",
    ])


for _ in range(n):
    r = R.random()
    if r < 0.45:
        out.append(policy_change())
    elif r < 0.6:
        out.append(policy_id())
    elif r < 0.85:
        out.append(listing())
    else:
        out.append(misc())
out += ["ip xfrm policy", "ip xfrm policy count"]
print("\n".join(out))
