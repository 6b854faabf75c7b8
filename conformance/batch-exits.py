#!/usr/bin/env python3
"""Record how `ip` ends on each failing command of the conformance scenarios, alone
and in a batch.

iproute2 runs a batch line by line (`do_batch`). A command that fails by returning an
error makes it print `Command failed FILE:LINE` and, with `-force`, go on to the next
line; a command that fails inside one of iproute2's functions that call `exit()`
(`get_prefix`, `invarg`, `duparg`, a `usage`, `ip neigh`'s refused change) ends the
whole batch there, with that exit status and no `Command failed` line. A batch also
asks the kernel differently: it never sets strict dump checking (`batch()` in ip.c
opens its socket without `rtnl_set_strict_dump`), so some dumps and queries a single
command fails pass in a batch, and the other way round. fibkit-iproute's test
`batch_ends_like_ip` checks fibkit against this recording.

This replays every scenario of conformance/scenarios in a private network namespace,
as the oracle does (loopback up, DAD and router solicitations off, multipath seed 1,
`dummy` made as `ifb` when the kernel lacks it, each new link given the oracle's
`02:00:00:00:00:NN` address, then `02:00:00:00:1h:ll` from its index for links it
made on the side), runs each `ip` statement as a one-line `ip -n NS OPTS -force -batch
-` (a query as the oracle asks it, `ip -d -j route get ...`, and once more for its text
when the scenario's recording holds raw lines), and prints, for each statement that
fails in the batch or failed when the oracle recorded it, one line:

    SCENARIO INDEX STATUS BATCH STATEMENT

INDEX counts the scenario's statements from 0 (what `read_statements` yields: comments
skipped, continuation lines joined); STATUS is the exit status of the command run on
its own (run again after the batch line; left out when that run fails with another
message: the failed line changed something, as a rename before a refusal); BATCH is
`exit:N` (the batch ended there with status N), `return` (`Command failed`, the batch
goes on with `-force`) or `ok`. Statements a batch line cannot carry (a word holding
`#`, which `getcmdline` cuts) are left out, and so are scenarios that name the kernel
build options they were recorded with (`# kernel-config:`). A scenario with a line that
passes in one mode and fails in the other is replayed twice, and such a line kept only
when both replays agree (an input-path query's answer can depend on timing).

Usage (root, `ip netns`, iproute2): conformance/batch-exits.py > conformance/batch-exits.txt
(or name scenario files to replay only those).
"""
import glob
import os
import platform
import re
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.abspath(__file__))
NS = "fkbatch%d" % os.getpid()
OPTS_WITH_ARG = {"-f", "-family"}


def read_statements(text):
    """The oracle's statement reader: `#` lines skipped, `\\` continuations joined,
    a trailing ` #...` comment cut."""
    buf = ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if not buf and (not stripped or stripped.startswith("#")):
            continue
        if raw.rstrip().endswith("\\"):
            buf += raw.rstrip()[:-1] + " "
            continue
        buf += raw
        stmt = re.sub(r"\s+#.*$", "", buf).strip()
        buf = ""
        if stmt:
            yield stmt
    if buf.strip():
        yield buf.strip()


def run(cmd, stdin=None):
    r = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout, r.stderr


def ip(args):
    return run(["ip", "-n", NS] + args)


def split_opts(args):
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in OPTS_WITH_ARG else 1
    return args[:i], args[i:]


def batch_word(w):
    """A word as `makeargs` reads it back: quoted when it holds white space, is empty
    or starts with a quote."""
    if w and not re.search(r"[ \t\r\n]", w) and w[0] not in "'\"":
        return w
    if '"' not in w:
        return '"%s"' % w
    return "'%s'" % w


class Replay:
    def __init__(self, raw):
        self.raw = raw
        self.macs = 0
        self.known = set()
        self.dummy = "ifb"

    def setup(self):
        subprocess.run(["ip", "netns", "add", NS], check=True)
        ip(["link", "set", "lo", "up"])
        for a in ["net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0",
                  "net.ipv6.conf.all.router_solicitations=0",
                  "net.ipv6.conf.default.router_solicitations=0",
                  "net.ipv4.fib_multipath_hash_seed=1"]:
            run(["ip", "netns", "exec", NS, "sysctl", "-q", "-w", a])
        rc, _, _ = ip(["link", "add", "oracleprobe0", "type", "dummy"])
        if rc == 0:
            self.dummy = "dummy"
            ip(["link", "del", "oracleprobe0"])
        self.known = {l for l in self.link_names()}

    def link_names(self):
        _, out, _ = ip(["-o", "link", "show"])
        names = []
        for l in out.splitlines():
            parts = l.split(":")
            if len(parts) > 2:
                names.append(parts[1].strip().split("@")[0])
        return names

    def translate(self, opts, rest):
        if not rest or not "link".startswith(rest[0]) or "add" not in rest:
            return rest, None
        rest = list(rest)
        if self.dummy != "dummy":
            for i in range(len(rest) - 1):
                if rest[i] == "type" and rest[i + 1] == "dummy":
                    rest[i + 1] = self.dummy
        a = rest.index("add")
        t = rest.index("type") if "type" in rest else len(rest)
        given = None
        if "address" not in rest[a:t]:
            self.macs += 1
            given = "02:00:00:00:00:%02x" % (self.macs & 0xff)
            rest[a + 1:a + 1] = ["address", given]
        return rest, given

    def refresh(self, words):
        explicit = {w.lower() for w in words
                    if re.match(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$", w)}
        _, out, _ = ip(["-o", "link", "show"])
        for l in out.splitlines():
            m = re.match(r"^(\d+): ([^:@]+)[@:].*link/(\S+) (\S+)", l)
            if not m:
                continue
            idx, name, kind, mac = int(m.group(1)), m.group(2), m.group(3), m.group(4)
            if name in self.known:
                continue
            self.known.add(name)
            if kind != "ether" or mac.lower() in explicit:
                continue
            want = "02:00:00:00:%02x:%02x" % (0x10 + ((idx >> 8) & 0xef), idx & 0xff)
            rc, _, _ = ip(["link", "set", "dev", name, "address", want])
            if rc != 0 and ",UP" in l.split(">")[0]:
                ip(["link", "set", "dev", name, "down"])
                ip(["link", "set", "dev", name, "address", want])
                ip(["link", "set", "dev", name, "up"])

    def statement(self, stmt, single_fails):
        """-> (single-mode status, batch outcome) for an `ip` statement that fails in
        either mode, None otherwise. The batch outcome is `exit:N`, `return` or `ok`.
        `single_fails`: the oracle's recording says the statement failed."""
        try:
            toks = shlex.split(stmt)
        except ValueError:
            return None
        if not toks:
            return None
        head, args = toks[0], toks[1:]
        if head == "sysctl":
            a = "".join(t for t in args if t not in ("-w", "-q"))
            run(["ip", "netns", "exec", NS, "sysctl", "-q", "-w", a])
            return None
        if head == "sleep":
            time.sleep(min(float(args[0]) if args else 1.0, 30.0))
            return None
        if head != "ip":
            return None
        opts, rest = split_opts(args)
        if any("#" in w for w in rest):
            return None
        rest, given = self.translate(opts, rest)
        line = " ".join(batch_word(w) for w in rest) + "\n"
        query = len(rest) > 1 and "route".startswith(rest[0]) and "get".startswith(rest[1])
        # the oracle asks a query as `ip -d -j`, and again for its text when it records
        # raw lines: a lookup can change what the next one answers
        first = ["-d", "-j"] if query else []
        rc, _, err = run(["ip", "-n", NS] + first + opts + ["-force", "-batch", "-"], line)
        if query and rc == 0 and self.raw:
            run(["ip", "-n", NS] + opts + ["-batch", "-"], line)
        if rc == 0 and rest and "link".startswith(rest[0]) and "add" in rest:
            self.refresh(rest + ([given] if given else []))
        if rc == 0 and not single_fails:
            return None
        if rc == 0:
            batch = "ok"
        elif re.search(r"^Command failed -:1$", err, re.M):
            batch = "return"
        else:
            batch = "exit:%d" % rc
        # the same command on its own, as the oracle ran it: it failed in one mode
        # (and changed nothing then, but for a query's own bookkeeping)
        single, _, serr = run(["ip", "-n", NS] + first + opts + rest)
        if (single != 0) != single_fails:
            # this replay has left the oracle's path (a query's state, a flush's
            # rounds): nothing to record
            sys.stderr.write("batch-exits.py: %s differs from the recording, left out\n" % stmt)
            return None
        berr = re.sub(r"^Command failed -:1\n", "", err, flags=re.M)
        if rc != 0 and single != 0 and serr != berr and not query:
            # the failed batch line changed something after all (a rename the kernel
            # made before refusing the rest), so the second run fails otherwise
            sys.stderr.write("batch-exits.py: %s failed otherwise the second time, left out\n"
                             % stmt)
            return None
        return single, batch


def replay(path, text):
    """One replay of a scenario: {statement index: (single status, batch outcome)}."""
    rep = Replay(os.path.exists(path + ".expected")
                 and "  raw| " in open(path + ".expected").read())
    rep.setup()
    found = {}
    try:
        outcomes = [l for l in open(path + ".expected").read().splitlines()
                    if l.startswith(("CMD ip ", "QUERY ip ", "REFUSED ip ", "BADLINE ip "))] \
            if os.path.exists(path + ".expected") else []
        k = 0
        for i, stmt in enumerate(read_statements(text)):
            single_fails = False
            if stmt.startswith("ip ") and k < len(outcomes):
                single_fails = " => error" in outcomes[k] and outcomes[k].startswith(("CMD", "QUERY"))
                k += 1
            r = rep.statement(stmt, single_fails)
            if r:
                found[i] = r
    finally:
        subprocess.run(["ip", "netns", "del", NS])
    return found


def main():
    # one CPU, as fibkit answers: the kernel's per-CPU cached routes (an IPv4
    # nexthop's output route, an IPv6 object's route copy) then meet every query
    if hasattr(os, "sched_setaffinity"):
        try:
            os.sched_setaffinity(0, {0})
        except OSError:
            pass
    if os.geteuid() != 0:
        sys.exit("batch-exits.py: needs root (ip netns)")
    _, ver, _ = run(["ip", "-V"])
    print("# iproute2 %s | kernel %s | recorded by conformance/batch-exits.py"
          % (ver.split(",")[1].strip() if "," in ver else ver.strip(), platform.release()))
    paths = sys.argv[1:] or sorted(glob.glob(os.path.join(ROOT, "scenarios", "*.scn")))
    for path in paths:
        name = os.path.basename(path)
        with open(path) as f:
            text = f.read()
        if "# kernel-config:" in text:
            # recorded on a kernel build with other options than the running one may have
            continue
        first = replay(path, text)
        if any((r[0] == 0) != (r[1] == "ok") for r in first.values()):
            # a line that passes in one mode and fails in the other: replayed once more,
            # and kept only if it does so again (the input path's answers can depend on
            # the machine's timing)
            again = replay(path, text)
            for i in [i for i in first if first[i] != again.get(i)]:
                sys.stderr.write("batch-exits.py: %s statement %d unstable, left out\n" % (name, i))
                del first[i]
        stmts = list(read_statements(text))
        for i in sorted(first):
            print("%s %d %d %s %s" % (name, i, first[i][0], first[i][1], stmts[i]))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
