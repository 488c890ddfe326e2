#!/usr/bin/env bash
# --timeout kills the job, says which ranks were still running, exits non-zero.
. "$(dirname "$0")/lib.sh"
start_dvm
start=$(date +%s)
run_to 30 "$PRUN" $RR -n 2 --timeout 1 "$APP" sleep 60 >"$T/out" 2>"$T/err"; rc=$?
[ $rc != 0 ] && [ $rc != 124 -o -s "$T/err" ] || fail "timeout must fail the job (rc $rc)"
[ $(( $(date +%s) - start )) -lt 20 ] || fail "took too long"
expect_in "$T/err" "time limit of 1 seconds"
expect_in "$T/err" "0-1"
run_to 30 "$PRTERUN" $RR -n 1 --timeout 1 "$APP" sleep 60 >"$T/out" 2>"$T/err"; rc=$?
[ $rc != 0 ] || fail "prterun timeout must fail"
expect_in "$T/err" "time limit"
stop_dvm
pass
