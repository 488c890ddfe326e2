#!/usr/bin/env bash
# Signals to prun reach the job (SIGINT, SIGHUP forwarded; SIGTERM ends it); a second
# SIGINT kills it; SIGTSTP stops the job (caught, it is delivered); killing prun kills
# its job. Each signal is sent once every rank has
# printed "ready" (its handlers are installed), and each step waits for what it checks.
. "$(dirname "$0")/lib.sh"
start_dvm
"$PRUN" $RR -n 2 "$APP" trap >"$T/out" 2>"$T/err" &
p=$!
wait_for "$T/out" "ready" 2
kill -INT $p
poll_until has_count "$T/out" "got signal 2" 2 ||
    fail "SIGINT did not reach both ranks: $(cat "$T/out" "$T/err")"
kill -HUP $p
wait_for "$T/out" "got signal 1" 2
kill -TERM $p
wait $p; rc=$?
[ "$(count_in "$T/out" 'got signal 15')" = 2 ] || fail "both ranks must get SIGTERM: $(cat "$T/out")"
# a second SIGINT kills
"$PRUN" $RR -n 2 "$APP" trap >"$T/out" 2>"$T/err" &
p=$!
wait_for "$T/out" "ready" 2
kill -INT $p
poll_until has_count "$T/out" "got signal 2" 2 ||
    fail "SIGINT did not reach both ranks: $(cat "$T/out" "$T/err")"
kill -INT $p
wait $p; rc=$?
[ $rc != 0 ] || fail "killed job must fail"
# SIGTSTP stops the job's processes, SIGCONT resumes them
"$PRUN" $RR -n 2 "$APP" trap >"$T/out" 2>"$T/err" &
p=$!
wait_for "$T/out" "ready" 2
wait_app_pids trap 2
kids=$PIDS
all_in() { # STATE-TEST: every job process is (=) or is not (!=) stopped
    local k
    for k in $kids; do [ "$(proc_state $k)" $1 T ] || return 1; done
}
kill -TSTP $p
poll_until all_in = || fail "SIGTSTP did not stop the job"
kill -CONT $p
poll_until all_in != || fail "SIGCONT did not resume the job"
kill -TERM $p
wait $p
# a process that catches SIGTSTP gets SIGTSTP (each process leads its own session, where
# only a default SIGTSTP would be discarded: that one goes as SIGSTOP, above)
"$PRUN" $RR -n 1 sh -c 'trap "echo got TSTP" TSTP; echo ready; while :; do sleep 0.05; done' \
    >"$T/out" 2>"$T/err" &
p=$!
wait_for "$T/out" "ready"
kill -TSTP $p
wait_for "$T/out" "got TSTP"
kill -TERM $p
wait $p
# prun dies: its job dies (killed once pps lists both processes: the job runs)
"$PRUN" $RR -n 2 "$APP" sleep 60 >"$T/out" 2>"$T/err" &
p=$!
wait_pps 'sleep 60' 2
kill -9 $p
wait $p 2>/dev/null
no_job() { [ -z "$(leftovers | grep -v prte)" ]; }
poll_until no_job || fail "job outlived its prun: $(leftovers)"
stop_dvm
pass
