#!/usr/bin/env python3
"""Record which values the running kernel's /proc/sys/net files take, for the sysctl
files fibkit knows (crates/fibkit-iproute/src/sysctl-names.txt): for each, whether it
reads a number at all, signed or not, and the interval of values a write is taken in
(found by bisection: the handlers check a minimum and a maximum). Writes go to a
private namespace with one `ifb` device (`d0`), the `*` of `conf/*/` is `default` and
of `neigh/*/` the device; every accepted write is undone.

Usage (root, `ip netns`): conformance/sysctl-ranges.py > crates/fibkit-iproute/src/sysctl-ranges.txt
"""
import errno, os, platform, subprocess, sys

NS = "fibkit-sysctl-probe"
HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = os.path.join(HERE, "..", "crates", "fibkit-iproute", "src", "sysctl-names.txt")


def child():
    out = []
    for line in open(NAMES):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        inst = line.replace("conf/*/", "conf/default/").replace("neigh/*/", "neigh/d0/")
        path = "/proc/sys/net/" + inst
        if not os.path.exists(path):
            continue
        try:
            orig = open(path).read().strip()
        except OSError:
            orig = None

        def put(v):
            try:
                fd = os.open(path, os.O_WRONLY)
            except OSError as e:
                return e.errno
            try:
                os.write(fd, str(v).encode())
                ok = 0
            except OSError as e:
                ok = e.errno
            finally:
                os.close(fd)
            if ok == 0 and orig is not None:
                try:
                    fd = os.open(path, os.O_WRONLY)
                    os.write(fd, orig.encode())
                    os.close(fd)
                except OSError:
                    pass
            return ok

        if orig is not None and (len(orig.split()) != 1):
            out.append(f"{line} vector")
            continue
        if put("abc") == 0:
            out.append(f"{line} text")
            continue
        lo_end, hi_end = -(1 << 63), (1 << 64) - 1

        def ok(v):
            return put(v) == 0

        # a point taken: the current value, else 0 or 1
        start = None
        for v in ([int(orig)] if orig is not None and orig.lstrip("-").isdigit() else []) + [0, 1, 68, 1280]:
            if ok(v):
                start = v
                break
        if start is None:
            out.append(f"{line} refused")
            continue

        def edge(good, bad):
            # good taken, bad not: the last taken between them
            while abs(bad - good) > 1:
                mid = (good + bad) // 2
                if ok(mid):
                    good = mid
                else:
                    bad = mid
            return good

        hi = hi_end if ok(hi_end) else edge(start, hi_end)
        lo = lo_end if ok(lo_end) else edge(start, lo_end)
        # an interval only if every probe agrees (a handler converting milliseconds
        # to jiffies takes values here and there)
        probes = {lo, hi, lo - 1, hi + 1, 0, 1, 2, 255, 256, 65535, 65536, -1, -65536}
        for b in (31, 32, 63, 64):
            probes |= {(1 << b) - 1, 1 << b, -(1 << b), -(1 << b) - 1}
        probes = {v for v in probes if lo_end <= v <= hi_end}
        if any(ok(v) != (lo <= v <= hi) for v in sorted(probes)):
            out.append(f"{line} irregular")
            continue
        # `-0`: the signed handlers read 0, the unsigned ones (`proc_douintvec_minmax`,
        # `proc_dou8vec_minmax`, `proc_doulongvec_minmax`) refuse any minus sign; told
        # apart only where 0 is taken
        sign = " unsigned" if lo <= 0 <= hi and not ok("-0") else ""
        out.append(f"{line} {lo} {hi}{sign}")
    print("\n".join(out))


if len(sys.argv) > 1 and sys.argv[1] == "--child":
    child()
    sys.exit(0)
subprocess.run(["ip", "netns", "del", NS], stderr=subprocess.DEVNULL)
subprocess.run(["ip", "netns", "add", NS], check=True)
try:
    subprocess.run(["ip", "-n", NS, "link", "add", "d0", "type", "ifb"], check=True)
    r = subprocess.run(["ip", "netns", "exec", NS, sys.executable, os.path.abspath(__file__), "--child"],
                       check=True, capture_output=True, text=True)
finally:
    subprocess.run(["ip", "netns", "del", NS])
print(f"# Values the sysctl files take (kernel {platform.release()}; recorded by conformance/sysctl-ranges.py):")
print("# NAME MIN MAX (a write outside is EINVAL; then `unsigned` if `-0` is refused though 0")
print("# is taken), `text` (not a number), `vector` (several numbers), `refused` (no value")
print("# tried was taken), `irregular` (values taken are not one interval).")
print(r.stdout, end="")
