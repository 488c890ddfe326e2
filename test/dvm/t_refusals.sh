#!/usr/bin/env bash
# Requests the DVM cannot honour are refused with a message naming what was asked, before
# anything starts: an empty --pset (by prun itself), a --stdin rank outside the job, a
# set name a live job already uses.
. "$(dirname "$0")/lib.sh"
# no DVM runs yet: prun must refuse the empty name on its own, naming the option
run_to 10 "$PRUN" $RR --pset '' -n 1 "$APP" hello >"$T/out" 2>&1 && fail "--pset '' accepted"
expect_in "$T/out" '--pset "" is not a valid process set name'
grep -q "DVM" "$T/out" && fail "--pset '' reached for the DVM: $(cat "$T/out")"
start_dvm
# a stdin target outside the job: refused, nothing runs
run_to 30 "$PRUN" $RR --stdin 99 -n 2 "$APP" hello </dev/null >"$T/out" 2>&1 && fail "--stdin 99 accepted"
expect_in "$T/out" "stdin target (--stdin, PMIX_STDIN_TGT) is rank 99"
expect_in "$T/out" "the job has 2 processes"
grep -q "hello rank" "$T/out" && fail "a process ran: $(cat "$T/out")"
grep -q "internal error" "$T/out" && fail "called an internal error: $(cat "$T/out")"
# the last rank is fine
run_to 30 "$PRUN" $RR --stdin 1 -n 2 "$APP" hello </dev/null >"$T/out" 2>&1 || fail "--stdin 1: $(cat "$T/out")"
# a set name of a live job: refused, naming the set and the job holding it
"$PRUN" $RR -n 1 --pset ocean "$APP" sleep 30 >"$T/a" 2>&1 &
a=$!
wait_pps 'sleep 30' 1
run_to 30 "$PRUN" $RR -n 1 --pset ocean "$APP" hello >"$T/out" 2>&1 && fail "a second ocean accepted"
expect_in "$T/out" 'the process set "ocean" (--pset, PMIX_PSET_NAME)'
expect_in "$T/out" "already defined by prte-"
grep -q "hello rank" "$T/out" && fail "a process ran: $(cat "$T/out")"
# another name is fine meanwhile
run_to 30 "$PRUN" $RR -n 1 --pset ice "$APP" hello >"$T/out" 2>&1 || fail "ice: $(cat "$T/out")"
kill -TERM $a
wait $a
stop_dvm
pass
