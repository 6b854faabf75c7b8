#!/usr/bin/env bash
# Differential runs of random scenarios: the kernel (through ../shared/oracle/linux-oracle)
# against fibkit (`fib scenario --check`). Needs root, `ip netns` and ../shared.
#
#   conformance/random-diff.sh FIRST_SEED COUNT [STEPS] [OUT_DIR]
#
# Each seed's scenario comes from `examples/random_scenario.rs` (fibkit-iproute); the
# kernel's answers, with the text `ip` printed for each query (--raw), are recorded next
# to it and fibkit checks them. A disagreement keeps
# the scenario, the recording and fibkit's diff in OUT_DIR (default target/random-diff);
# agreeing seeds leave nothing behind. Exit status 1 when any seed disagreed.
set -euo pipefail
cd "$(dirname "$0")/.."
first=${1:?first seed}
count=${2:?number of seeds}
steps=${3:-40}
out=${4:-target/random-diff}
oracle=../shared/oracle/linux-oracle
if [ ! -x "$oracle" ]; then
    echo "random-diff: $oracle is absent (a clone without ../shared): nothing to compare with" >&2
    exit 0
fi
cargo build -q --release -p fibkit-cli --bin fib -p fibkit-iproute --example random_scenario
gen=target/release/examples/random_scenario
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
    scn="$work/r$s.scn"
    "$gen" "$s" "$steps" >"$scn"
    $pin "$oracle" --raw --write-expected "$scn" >/dev/null
    if ! "$fib" scenario --check "$scn" >"$work/r$s.diff" 2>&1; then
        cp "$scn" "$scn.expected" "$work/r$s.diff" "$out/"
        echo "seed $s: fibkit disagrees with the kernel ($out/r$s.diff)"
        bad=$((bad + 1))
    fi
    rm -f "$scn" "$scn.expected" "$work/r$s.diff"
done
echo "random-diff: $count seeds from $first, $bad disagreed"
[ "$bad" -eq 0 ]
