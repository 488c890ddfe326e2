#!/usr/bin/env bash
# Hosts (issue 15 item 4): --hostfile lines "name [slots=N] [max_slots=M]" with comments
# and repeated hosts (their slots add up), --host name:slots. Every bad line is reported
# as file:line with what is wrong, by prte and prterun, with a non-zero exit and nothing
# left behind; the slots of repeated lines really are the job's limit; max_slots is a
# limit even :OVERSUBSCRIBE does not pass.
. "$(dirname "$0")/lib.sh"
HERE=$(hostname)

# bad_hostfile TEXT LINE WHY: prte and prterun refuse the file, naming file:LINE and WHY
bad_hostfile() {
    printf '%b' "$1" >"$T/hosts"
    local cmd
    for cmd in "$PRTE $RR --daemonize --hostfile $T/hosts" "$PRTERUN $RR --hostfile $T/hosts -n 1 $APP hello"; do
        # shellcheck disable=SC2086
        run_to 20 $cmd >"$T/out" 2>"$T/err" &&
            fail "$cmd took a hostfile with: $1"
        expect_in "$T/err" "$T/hosts:$2: "
        expect_in "$T/err" "$3"
        grep -q hello "$T/out" && fail "$cmd started a job with a bad hostfile"
        check_clean
    done
}
bad_hostfile "# nodes\nlocalhost slots=2\nlocalhost slots=x\n" 3 "the value of slots is not a positive integer"
bad_hostfile "localhost cpus=2\n" 1 '"cpus=2" is not understood'
bad_hostfile "localhost slots=3 max_slots=2\n" 1 "max_slots=2 is less than slots=3"
bad_hostfile "localhost max_slots=2\n\nlocalhost slots=2\n" 3 "add up to 3 slots, more than its max_slots=2"
bad_hostfile "localhost\nLOCALHOST\n" 2 'same host as "localhost" with other letter case'
bad_hostfile "localhost slots=1 slots=2\n" 1 "slots is given twice"

# a repeated --host entry beyond a hostfile's max_slots
printf 'localhost slots=2 max_slots=2\n' >"$T/hosts"
run_to 20 "$PRTERUN" $RR --hostfile "$T/hosts" --host localhost -n 1 "$APP" hello >"$T/out" 2>"$T/err" &&
    fail "prterun took 3 slots on a host with max_slots=2"
expect_in "$T/err" '--host "localhost" is not valid: the host'"'"'s entries add up to 3 slots'
check_clean

# repeated lines add up: 1 + 2 = 3 slots on this node (comments and blank lines ignored)
printf '# this node twice\nlocalhost slots=1   # first\n\n%s slots=2\n' "$HERE" >"$T/hosts"
start_dvm --hostfile "$T/hosts"
run_to 30 "$PRUN" $RR -n 3 "$APP" hello >"$T/out" 2>"$T/err" || fail "3 on 3 slots: $(cat "$T/err")"
[ "$(grep -c hello "$T/out")" = 3 ] || fail "3 hellos expected: $(cat "$T/out")"
run_to 30 "$PRUN" $RR -n 4 "$APP" hello >"$T/out" 2>"$T/err" && fail "4 on 3 slots must fail"
expect_in "$T/err" "only 3 slots are on node $HERE"
stop_dvm
check_clean

# max_slots: :OVERSUBSCRIBE goes beyond the 2 slots up to max_slots=3, never beyond
printf 'localhost slots=2 max_slots=3\n' >"$T/hosts"
start_dvm --hostfile "$T/hosts"
run_to 30 "$PRUN" $RR -n 3 --map-by :OVERSUBSCRIBE "$APP" hello >"$T/out" 2>"$T/err" ||
    fail "3 within max_slots=3: $(cat "$T/err")"
[ "$(grep -c hello "$T/out")" = 3 ] || fail "3 hellos expected: $(cat "$T/out")"
run_to 30 "$PRUN" $RR -n 4 --map-by :OVERSUBSCRIBE "$APP" hello >"$T/out" 2>"$T/err" &&
    fail "4 beyond max_slots=3 must fail"
expect_in "$T/err" "4 processes were asked for, but"
expect_in "$T/err" "room for only 3 more: $HERE (max_slots 3, 0 in use)"
grep -q hello "$T/out" && fail "nothing may start beyond max_slots: $(cat "$T/out")"
stop_dvm
check_clean

# --display allocation: the DVM's node, its slots (given), max_slots and what a running
# job holds; with map and bind in the same option
printf 'localhost slots=4 max_slots=6\n' >"$T/hosts"
start_dvm --hostfile "$T/hosts"
"$PRUN" $RR -n 1 "$APP" sleep 60 >"$T/outa" 2>"$T/erra" &
pa=$!
wait_pps 'sleep 60' 1
run_to 30 "$PRUN" $RR --display allocation,map,bind -n 2 "$APP" hello >"$T/out" 2>"$T/err" ||
    fail "--display allocation,map,bind: $(cat "$T/err")"
expect_in "$T/out" "allocation of the DVM"
expect_in "$T/out" "1 nodes, 4 slots, 1 in use"
expect_in "$T/out" "Node $HERE: 4 slots (given), max_slots 6, 1 in use"
expect_in "$T/out" "2 processes on 1 nodes"
[ "$(grep -c hello "$T/out")" = 2 ] || fail "2 hellos expected: $(cat "$T/out")"
grep -q "\[$HERE:rank 1\] bound to" "$T/err" || fail "no binding line: $(cat "$T/err")"
kill -TERM $pa
wait $pa
stop_dvm
check_clean
pass
