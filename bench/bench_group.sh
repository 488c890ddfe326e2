#!/usr/bin/env bash
# bench_group.sh [ITERS [N...]] - process groups and connect on a real DVM against a plain
# fence of the same processes, measured in the same run (defaults: 50 operations per
# round, N = 2 16 64). Starts its own DVM in a private TMPDIR, runs
# `prun -n N bench_group ITERS` for each N and prints per N the microseconds per operation
# and the ratios to the fence; the goal is within 2x the fence. A benchmark: no verdict
# fails it. Needs PX_BUILD (the build directory), as meson's benchmark() sets it.
set -u
B=${PX_BUILD:?PX_BUILD must name the build directory}
ITERS=${1:-50}
shift || true
SIZES=${*:-2 16 64}
T=$(mktemp -d "${TMPDIR:-/tmp}/pxbgrp.XXXXXX")
export TMPDIR=$T
RR=""
[ "$(id -u)" = 0 ] && RR="--allow-run-as-root"
DVM_PID=""

cleanup() {
    if [ -n "$DVM_PID" ] && kill -0 "$DVM_PID" 2>/dev/null; then
        timeout 20 "$B/cli/pterm" --dvm-uri "file:$T/uri" $RR >/dev/null 2>&1 ||
            kill -9 "$DVM_PID" 2>/dev/null
    fi
    rm -rf "$T"
}
trap cleanup EXIT

timeout 20 "$B/cli/prte" --daemonize --report-uri "$T/uri" --report-pid "$T/pid" $RR \
    >"$T/prte.out" 2>&1 || { echo "bench_group: prte failed: $(cat "$T/prte.out")"; exit 1; }
DVM_PID=$(cat "$T/pid")

printf '%-4s %12s %14s %8s %12s %8s %12s %12s\n' N "fence us" "construct us" ratio \
    "connect us" ratio "destruct us" "disconn. us"
for n in $SIZES; do
    if ! out=$(timeout 600 "$B/cli/prun" $RR --dvm-uri "file:$T/uri" -n "$n" \
        "$B/bench/bench_group" "$ITERS" 2>&1); then
        echo "bench_group: N=$n failed: $out"
        exit 1
    fi
    line=$(echo "$out" | grep "^N=$n ")
    [ -n "$line" ] || { echo "bench_group: N=$n printed no result: $out"; exit 1; }
    echo "$line" | awk '{
        for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
        printf "%-4s %12.1f %14.1f %7.2fx %12.1f %7.2fx %12.1f %12.1f\n", v["N"], v["fence"],
               v["construct"], v["construct"] / v["fence"], v["connect"],
               v["connect"] / v["fence"], v["destruct"], v["disconnect"]
    }'
done
echo "goal: construct (with a context id) and connect within 2x the fence of the same processes"
