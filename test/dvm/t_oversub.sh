#!/usr/bin/env bash
# Slots given with --host: more processes than slots is an error naming both numbers,
# unless --map-by :OVERSUBSCRIBE. Without given slots (hwloc's count), oversubscription
# is allowed.
. "$(dirname "$0")/lib.sh"
start_dvm --host localhost:2
run_to 30 "$PRUN" $RR -n 3 "$APP" hello >"$T/out" 2>"$T/err"; rc=$?
[ $rc != 0 ] || fail "3 procs on 2 slots must fail"
# help-prte-map.txt [too-many-procs]: what was asked, what there is, where, the way out
expect_in "$T/err" "not enough slots available for the job: 3 processes were asked for"
expect_in "$T/err" "only 2 slots are on node $(hostname)"
expect_in "$T/err" "or allow oversubscription with --map-by :OVERSUBSCRIBE."
grep -q "hello" "$T/out" && fail "nothing may start: $(cat "$T/out")"
run_to 30 "$PRUN" $RR -n 3 --map-by :OVERSUBSCRIBE "$APP" hello >"$T/out" 2>"$T/err" \
    || fail "oversubscribe allowed: $(cat "$T/err")"
[ "$(grep -c hello "$T/out")" = 3 ] || fail "3 hellos expected"
run_to 30 "$PRUN" $RR -n 2 "$APP" hello >"$T/out" 2>"$T/err" || fail "2 on 2: $(cat "$T/err")"
stop_dvm
start_dvm
run_to 30 "$PRUN" $RR -n 9 "$APP" hello >"$T/out" 2>"$T/err" || fail "no slots given: $(cat "$T/err")"
[ "$(grep -c hello "$T/out")" = 9 ] || fail "9 hellos expected"
stop_dvm
pass
