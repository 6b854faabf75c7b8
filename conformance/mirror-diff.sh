#!/usr/bin/env bash
# Differential runs of the live mirror: each random scenario's commands are applied to a
# private namespace with `ip`, and at every `ip route get` the kernel's own answer (the
# text `ip` prints, its stderr and exit status) is compared with `fib mirror`'s answer
# from a fresh mirror of that namespace. This checks the mirror (dump, translation,
# reconciliation) and fib's iproute2 text printer together; scenarios' DUMP lines are
# not compared. Needs root and `ip netns`; nothing outside the namespace is touched.
#
#   conformance/mirror-diff.sh FIRST_SEED COUNT [STEPS] [OUT_DIR]
#
# A seed with differences keeps its scenario and a diff in OUT_DIR (default
# target/mirror-diff). Exit status 1 when any seed disagreed.
set -uo pipefail
cd "$(dirname "$0")/.."
first=${1:?first seed}
count=${2:?number of seeds}
steps=${3:-40}
out=${4:-target/mirror-diff}
if [ "$(id -u)" != 0 ]; then
    echo "mirror-diff: needs root (ip netns)" >&2
    exit 0
fi
cargo build -q --release -p fibkit-cli --bin fib -p fibkit-iproute --example random_scenario || exit 2
gen=$PWD/target/release/examples/random_scenario
fib=$PWD/target/release/fib
mkdir -p "$out"
bad=0
for ((s = first; s < first + count; s++)); do
    ns="fibkit-mdiff-$$-$s"
    ip netns add "$ns" || exit 2
    # as the oracle prepares its namespaces: no DAD, no router solicitations, a fixed
    # multipath hash seed, the loopback up
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
        net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.all.router_solicitations=0 \
        net.ipv6.conf.default.router_solicitations=0 net.ipv4.fib_multipath_hash_seed=1
    ip -n "$ns" link set lo up
    diffs="$out/m$s.diff"
    : >"$diffs"
    n=0
    while IFS= read -r line; do
        case "$line" in
        "" | "#"* | dump* | echo*) continue ;;
        sleep\ *)
            # the link watch may hold a bridge's change of carrier up to a second
            sleep "${line#sleep }"
            continue
            ;;
        sysctl\ *)
            ip netns exec "$ns" sysctl -qw "${line#sysctl }" >/dev/null 2>&1
            continue
            ;;
        esac
        read -r -a argv <<<"${line#ip }"
        for i in "${!argv[@]}"; do
            [ "${argv[$i]}" = dummy ] && argv[$i]=ifb
        done
        # a bridge made without an address keeps the carrier it was born with until
        # it has a port (a limit the mirror warns about): give it one, as docker and
        # libvirt do (after any options: `-echo link add br0 type bridge`, seed 5667)
        # (and before the bridge's own options: `type bridge forward_delay 0`)
        if [[ "${argv[*]} " == *"link add br0 type bridge "* ]]; then
            line2="${argv[*]}"
            read -r -a argv <<<"${line2/ type bridge/ address 02:00:00:00:0b:00 type bridge}"
        fi
        if [[ " ${argv[*]} " == *" route get "* ]]; then
            n=$((n + 1))
            k=$(ip -n "$ns" "${argv[@]}" 2>&1; echo "exit $?")
            f=$(ip netns exec "$ns" "$fib" mirror -q "${argv[@]}" 2>&1; echo "exit $?")
            if [ "$k" != "$f" ]; then
                printf '%s\n  kernel: %q\n  fibkit: %q\n' "$line" "$k" "$f" >>"$diffs"
            fi
        else
            ip -n "$ns" "${argv[@]}" >/dev/null 2>&1
        fi
    done < <("$gen" "$s" "$steps")
    ip netns del "$ns"
    if [ -s "$diffs" ]; then
        "$gen" "$s" "$steps" >"$out/m$s.scn"
        echo "seed $s: $(grep -c '^  kernel' "$diffs") of $n answers differ ($diffs)"
        bad=$((bad + 1))
    else
        rm -f "$diffs"
    fi
done
echo "mirror-diff: $count seeds from $first, $bad disagreed"
[ "$bad" -eq 0 ]
