#!/usr/bin/env bash
# One DVM, one pool of resources (issue 12, item 4): a new job is bound to cores no running
# job holds (checked in /proc and in pps's CPUS column); slots given with --host are a limit
# for all the DVM's jobs together, the error names what is needed, what is free and which
# jobs hold the rest; :OVERSUBSCRIBE lifts it; without given slots jobs still oversubscribe.
. "$(dirname "$0")/lib.sh"
cpus_of_pid() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status"; }

ncores=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
if [ "$ncores" -ge 2 ]; then
    start_dvm
    "$PRUN" $RR -n 1 --bind-to core "$APP" sleep 60 >"$T/outa" 2>"$T/erra" &
    pa=$!
    wait_pps 'sleep 60' 1
    pid=$(awk '/sleep 60/ {print $3}' "$T/pps")
    held=$(cpus_of_pid "$pid")
    [ -n "$held" ] || fail "no Cpus_allowed_list for $pid"
    # pps shows the CPUs the process holds: its binding
    [ "$(awk '/sleep 60/ {print $6}' "$T/pps")" = "$held" ] || fail "pps CPUS must be $held: $(cat "$T/pps")"
    # a second job is bound to a core the first does not hold
    run_to 30 "$PRUN" $RR -n 1 --bind-to core "$APP" binding >"$T/out" 2>"$T/err" \
        || fail "second job: $(cat "$T/err")"
    got=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$T/out")
    [ -n "$got" ] || fail "no binding printed: $(cat "$T/out")"
    [ "$got" != "$held" ] || fail "both jobs bound to CPUs $held"
    # nobody gave slots: oversubscription is still allowed next to a running job
    run_to 30 "$PRUN" $RR -n "$((ncores + 1))" "$APP" hello >"$T/out" 2>"$T/err" \
        || fail "no slots given must oversubscribe: $(cat "$T/err")"
    [ "$(grep -c hello "$T/out")" = "$((ncores + 1))" ] || fail "hellos: $(cat "$T/out")"
    stop_dvm
    wait $pa
fi

start_dvm --host localhost:2
"$PRUN" $RR -n 1 "$APP" sleep 60 >"$T/outa" 2>"$T/erra" &
pa=$!
wait_pps 'sleep 60' 1
nsa=$(awk '/sleep 60/ {print $1}' "$T/pps")
run_to 30 "$PRUN" $RR -n 2 "$APP" hello >"$T/out" 2>"$T/err"; rc=$?
[ $rc != 0 ] || fail "2 procs with 1 of 2 slots free must fail"
[ $rc != 124 ] || fail "prun hung"
expect_in "$T/err" "it needs 2, but only 1 of the 2"
expect_in "$T/err" "$nsa (1 on "
expect_in "$T/err" ":OVERSUBSCRIBE"
[ ! -s "$T/out" ] || fail "nothing may start: $(cat "$T/out")"
run_to 30 "$PRUN" $RR -n 1 "$APP" hello >"$T/out" 2>"$T/err" || fail "the free slot: $(cat "$T/err")"
run_to 30 "$PRUN" $RR -n 2 --map-by :OVERSUBSCRIBE "$APP" hello >"$T/out" 2>"$T/err" \
    || fail ":OVERSUBSCRIBE lifts the limit: $(cat "$T/err")"
[ "$(grep -c hello "$T/out")" = 2 ] || fail "2 hellos expected: $(cat "$T/out")"
# the first job ends: its slot is free again
kill -TERM $pa
wait $pa
wait_pps 'sleep 60' 0
run_to 30 "$PRUN" $RR -n 2 "$APP" hello >"$T/out" 2>"$T/err" || fail "2 on 2 free: $(cat "$T/err")"
stop_dvm
pass
