#!/usr/bin/env bash
# prun/pterm/pps with no DVM to reach, or a stale rendezvous file, fail clearly.
. "$(dirname "$0")/lib.sh"
for cmd in "$PRUN" "$PTERM" "$PPS"; do
    args=""
    [ "$cmd" = "$PRUN" ] && args="-n 1 /bin/true"
    run_to 20 "$cmd" $RR $args >"$T/out" 2>"$T/err"; rc=$?
    [ $rc != 0 ] || fail "$cmd without a DVM must fail"
    expect_in "$T/err" "no running DVM was found"
    expect_in "$T/err" "prte --daemonize"
done
# a stale URI file: the DVM that wrote it is gone
start_dvm
cp "$T/uri" "$T/stale"
stop_dvm
run_to 20 "$PRUN" $RR --dvm-uri "file:$T/stale" -n 1 /bin/true >"$T/out" 2>"$T/err"; rc=$?
[ $rc != 0 ] || fail "stale URI file must fail"
expect_in "$T/err" "no running DVM was found"
run_to 20 "$PRUN" $RR --dvm-uri "file:$T/missing" -n 1 /bin/true >"$T/out" 2>"$T/err"; rc=$?
[ $rc != 0 ] || fail "missing URI file must fail"
run_to 20 "$PRUN" $RR --dvm-uri "garbage" -n 1 /bin/true >"$T/out" 2>"$T/err"; rc=$?
[ $rc != 0 ] || fail "garbage URI must fail"
run_to 20 "$PRUN" $RR --pid 999999 -n 1 /bin/true >"$T/out" 2>"$T/err"; rc=$?
[ $rc != 0 ] || fail "--pid of no DVM must fail"
pass
