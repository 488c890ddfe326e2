#!/usr/bin/env bash
# bench_stop.sh [REPS [N...]] - the added cost of a debugger's stop in PMIx_Init on a real
# DVM: bench_stop (a PMIx tool) spawns N PMIx clients plainly and with
# PMIX_DEBUG_STOP_IN_INIT + PMIX_READY_FOR_DEBUG + PMIX_DEBUGGER_RELEASE, alternately, and
# prints the medians and their ratio (defaults: 9 of each, N = 16 64). Starts its own DVM
# in a private TMPDIR. A benchmark: no verdict fails it. Needs PX_BUILD.
set -u
B=${PX_BUILD:?PX_BUILD must name the build directory}
REPS=${1:-9}
shift || true
T=$(mktemp -d "${TMPDIR:-/tmp}/pxbstop.XXXXXX")
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
    >"$T/prte.out" 2>&1 || { echo "bench_stop: prte failed: $(cat "$T/prte.out")"; exit 1; }
DVM_PID=$(cat "$T/pid")
timeout 900 "$B/bench/bench_stop" "$REPS" "$@" || exit 1
echo "the ratio is the stop's whole cost: the processes' READY_FOR_DEBUG, the job's, the release"
