#!/usr/bin/env bash
# Differential runs of one focused generator: the kernel (../shared/oracle/linux-oracle)
# against fibkit (`fib scenario --check`). Needs root, `ip netns`, python3 and ../shared.
#
#   conformance/focused/focused-diff.sh GENERATOR FIRST_SEED COUNT [STEPS] [OUT_DIR]
#
# GENERATOR is one of this directory's scripts without `.py` (route6, route6-objects,
# copies6, copies4, mtu, filters, realms, tos, labels, tables, onlink, routers6, local6,
# formats, mcast, addrfilters, echo, sysctls, prefsrc, lpm, bcast4, vxlan, macvlan,
# bridge, tunnels, groups, altnames, kinds, route4, addr4, addr6, encap, rules, nexthops,
# input4, links, input6, multipath, attrs, parse, parselink, mptcp, neightimers, genl, stp, rulesdev, resilient, lifetimes, nhcarrier, stacked, stats, ifnames, xfrm). A disagreement keeps the
# scenario, the recording and fibkit's diff in OUT_DIR (default target/focused-diff);
# agreeing seeds leave nothing behind. Exit status 1 when any seed disagreed.
set -euo pipefail
cd "$(dirname "$0")/../.."
name=${1:?generator}
first=${2:?first seed}
count=${3:?number of seeds}
steps=${4:-60}
out=${5:-target/focused-diff}
gen=conformance/focused/$name.py
oracle=../shared/oracle/linux-oracle
[ -f "$gen" ] || { echo "focused-diff: no generator $gen" >&2; exit 2; }
if [ ! -x "$oracle" ]; then
    echo "focused-diff: $oracle is absent (a clone without ../shared): nothing to compare with" >&2
    exit 0
fi
cargo build -q --release -p fibkit-cli --bin fib
fib=target/release/fib
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the kernel on one CPU, as fibkit answers: its per-CPU cached routes (an IPv4
# nexthop's output route, scenario 467) then meet every query
pin=""
if command -v taskset >/dev/null 2>&1; then pin="taskset -c 0"; fi
bad=0
for ((s = first; s < first + count; s++)); do
    scn=$work/$name-$s.scn
    python3 "$gen" "$s" "$steps" > "$scn"
    $pin "$oracle" --raw --write-expected "$scn" > /dev/null 2> "$work/err"
    if "$fib" scenario --check "$scn" > "$work/diff" 2>&1; then
        echo "seed $s ok"
    else
        cp "$scn" "$scn.expected" "$out/"
        cp "$work/diff" "$out/$name-$s.diff"
        echo "seed $s DISAGREE"
        bad=1
    fi
    rm -f "$scn" "$scn.expected"
done
exit $bad
