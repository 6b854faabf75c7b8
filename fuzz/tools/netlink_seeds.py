#!/usr/bin/env python3
"""Write seeds for the `netlink` fuzz target from the namespace this runs in.

Dumps links, addresses, routes, rules, nexthop objects, resilient buckets and
neighbours over rtnetlink (a raw NETLINK_ROUTE socket, no library), and writes each
kind's payloads to OUTDIR/KIND and all of them to OUTDIR/all, in the target's
format: [kind][length, 2 bytes little-endian][payload], kind 0-6 in the order above.

    ip netns exec NS python3 fuzz/tools/netlink_seeds.py OUTDIR
"""
import os
import socket
import struct
import sys

NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_DONE, NLMSG_ERROR = 3, 2
AF_UNSPEC, AF_INET, AF_INET6 = 0, 2, 10

# (kind number, name, request type, answer type, header of the request)
KINDS = [
    (0, "link", 18, 16, struct.pack("=BxHiII", AF_UNSPEC, 0, 0, 0, 0)),
    (1, "addr", 22, 20, struct.pack("=BBBBI", AF_UNSPEC, 0, 0, 0, 0)),
    (2, "route4", 26, 24, struct.pack("=BBBBBBBBI", AF_INET, 0, 0, 0, 0, 0, 0, 0, 0)),
    (2, "route6", 26, 24, struct.pack("=BBBBBBBBI", AF_INET6, 0, 0, 0, 0, 0, 0, 0, 0)),
    (3, "rule4", 34, 32, struct.pack("=BBBBBBBBI", AF_INET, 0, 0, 0, 0, 0, 0, 0, 0)),
    (3, "rule6", 34, 32, struct.pack("=BBBBBBBBI", AF_INET6, 0, 0, 0, 0, 0, 0, 0, 0)),
    (4, "nexthop", 106, 104, struct.pack("=BBBBI", AF_UNSPEC, 0, 0, 0, 0)),
    (5, "bucket", 118, 116, struct.pack("=BBBBI", AF_UNSPEC, 0, 0, 0, 0)),
    (6, "neigh", 30, 28, struct.pack("=BxxxiHBB", AF_UNSPEC, 0, 0, 0, 0)),
]


def dump(sock, seq, req_type, want, hdr):
    msg = struct.pack("=IHHII", 16 + len(hdr), req_type, NLM_F_REQUEST | NLM_F_DUMP, seq, 0) + hdr
    sock.send(msg)
    out = []
    while True:
        data = sock.recv(1 << 20)
        off = 0
        while off + 16 <= len(data):
            length, ty, _flags, _seq, _pid = struct.unpack_from("=IHHII", data, off)
            if length < 16:
                return out
            if ty == NLMSG_DONE or ty == NLMSG_ERROR:
                return out
            if ty == want:
                out.append(data[off + 16 : off + length])
            off += (length + 3) & ~3


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    every = b""
    for seq, (kind, name, req, want, hdr) in enumerate(KINDS, 1):
        blob = b"".join(
            bytes([kind]) + struct.pack("<H", len(p)) + p for p in dump(sock, seq, req, want, hdr)
        )
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(blob)
        every += blob
    with open(os.path.join(outdir, "all"), "wb") as f:
        f.write(every)


if __name__ == "__main__":
    main()
