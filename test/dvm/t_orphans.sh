#!/usr/bin/env bash
# kill -9 of the controller leaves nothing behind: every job process dies with it (each
# child's life is tied to its daemon, PR_SET_PDEATHSIG), and the next prte treats the
# dead controller's rendezvous files and socket as stale and removes them, then runs a
# job. Each step waits, bounded, for what it checks.
. "$(dirname "$0")/lib.sh"
start_dvm
first=$DVM_PID
"$PRUN" $RR -n 3 "$APP" sleep 300 >"$T/out" 2>"$T/err" &
p=$!
wait_pps 'sleep 300' 3
wait_app_pids sleep 3
kids=$PIDS
ls -A "$TMPDIR" >"$T/files-before"
grep -q "$first" "$T/files-before" || fail "the DVM's files should name its pid: $(cat "$T/files-before")"
kill -9 "$first"
poll_until gone "$first" || fail "prte $first survived kill -9"
DVM_PID=""
all_gone() {
    local k
    for k in $kids; do gone "$k" || return 1; done
}
poll_until all_gone || fail "job processes outlived their controller: $(leftovers)"
# prun loses its DVM and ends (with an error), bounded
prun_done() { gone "$p"; }
poll_until prun_done || fail "prun $p outlived its DVM"
wait "$p" 2>/dev/null && fail "prun must fail when its DVM is killed"
# a new controller starts, removes the stale files, and runs a job
start_dvm
[ "$DVM_PID" != "$first" ] || fail "the same pid twice?"
run_to 30 "$PRUN" $RR -n 2 "$APP" hello >"$T/out2" 2>"$T/err2" || fail "job after restart failed: $(cat "$T/err2")"
[ "$(count_in "$T/out2" hello)" -ge 2 ] || fail "job output: $(cat "$T/out2")"
# every file of the killed prte (its pid a part of the name) is gone: its rendezvous
# files and socket (removed at start), its jobs' directories (at the first job)
stale=$(ls -A "$TMPDIR" | awk -F'[.-]' -v p="$first" '{for (i = 1; i <= NF; i++) if ($i == p) print}')
[ -z "$stale" ] || fail "the killed prte's files survived the next DVM: $stale"
stop_dvm
pass
