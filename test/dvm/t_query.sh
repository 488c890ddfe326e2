#!/usr/bin/env bash
# Query results in the form programs read: a debugger asks the DVM for its spawn and
# debug support in one query (two keys) and must get two results, each under its key;
# a tool's multi-key query and pps read the same flat form.
. "$(dirname "$0")/lib.sh"
start_dvm
run_to 30 "$APP" debugq >"$T/dq" 2>&1 || fail "debugger capability query: $(cat "$T/dq")"
[ "$(grep -c '^debugq: ' "$T/dq")" = 2 ] || fail "2 results expected: $(cat "$T/dq")"
grep -q '^debugq: pmix\.qry\.spawn=.' "$T/dq" || fail "no spawn support: $(cat "$T/dq")"
grep -q '^debugq: pmix\.qry\.debug=.' "$T/dq" || fail "no debug support: $(cat "$T/dq")"
# two queries in one call (count and names; a set's members): one line per key found
"$PRUN" $RR -n 2 --pset sea "$APP" sleep 30 >"$T/bg" 2>&1 &
bg=$!
for i in $(seq 1 100); do
    run_to 10 "$APP" toolq sea >"$T/q" 2>&1
    grep -q "psetnum=PMIX_SIZE: 1" "$T/q" && break
    sleep 0.05
done
[ "$(grep -c '^tool ' "$T/q")" = 3 ] || fail "3 results expected: $(cat "$T/q")"
expect_in "$T/q" "tool pmix.qry.psetnum=PMIX_SIZE: 1"
expect_in "$T/q" "tool pmix.qry.psets="
expect_in "$T/q" "tool pmix.qry.pmems=PMIX_DATA_ARRAY: PMIX_PROC[2]"
run_to 10 "$PPS" $RR >"$T/pps" 2>&1 || fail "pps: $(cat "$T/pps")"
expect_in "$T/pps" "sleep 30"
kill -TERM $bg
wait $bg
stop_dvm
pass
