#!/usr/bin/env bash
# Debugger stop points (issue 17 item 1): a debugger-like tool (dvm_dbg tool) spawns a job
# with PMIX_DEBUG_STOP_IN_INIT / _IN_APP (true, a rank, a list of processes), hears
# PMIX_READY_FOR_DEBUG once for the job
# (its namespace, the breakpoint), sees the held processes STOPPED in the proc table and
# not past their stop point, releases them with PMIX_DEBUGGER_RELEASE in a custom range,
# and the job then ends well. A second tool registered for the event hears it too. Bad
# values and combinations fail the spawn with their message.
. "$(dirname "$0")/lib.sh"
DBG=$B/test/dvm/dvm_dbg
. "$(dirname "$0")/stop_lib.sh"
start_dvm

# run_dbg NAME ARGS... : dvm_dbg tool ARGS with marker directory $T/NAME, output $T/NAME.out
run_dbg() {
    local name=$1
    shift
    mkdir -p "$T/$name"
    run_to 150 "$DBG" tool "$@" "$T/$name" event >"$T/$name.out" 2>&1 ||
        fail "$name: $(cat "$T/$name.out")"
}
# held NAME N RANKS... : the ready event, the listed ranks STOPPED and short of their
# stop point (no init marker for an init stop), the end, every rank done, one event
held() {
    local name=$1 n=$2 kind=$3
    shift 3
    local out=$T/$name.out
    expect_in "$out" "ready ns=ok breakpoint=$BP"
    for r in "$@"; do
        expect_in "$out" "ptab $r STOPPED"
        [ "$kind" = init ] && expect_in "$out" "marker $r none"
    done
    [ "$(grep -c 'STOPPED' "$out")" = "$#" ] || fail "$name: only ranks $* are held: $(cat "$out")"
    expect_in "$out" "end PMIX_SUCCESS"
    expect_in "$out" "ready events 1"
    for r in $(seq 0 $((n - 1))); do
        [ -e "$T/$name/done.$r" ] || fail "$name: rank $r never finished: $(cat "$out")"
    done
}

BP=pmix-init
# first (the server's event cache is empty): a second tool registered for the event hears
# it as well
mkdir -p "$T/w"
"$DBG" watch "$T/w/registered" >"$T/watch.out" 2>&1 &
WATCH=$!
wait_for_file() { [ -e "$1" ]; }
poll_until wait_for_file "$T/w/registered" || fail "the watching tool never registered"
run_dbg initw init true 2 job
held initw 2 init 0 1
wait "$WATCH" || fail "the watching tool: $(cat "$T/watch.out")"
ns=$(sed -n 's/^spawned //p' "$T/initw.out")
expect_in "$T/watch.out" "watch ready $ns"

run_dbg init1 init true 1 job
held init1 1 init 0
run_dbg init16 init wild 16 job
held init16 16 init $(seq 0 15)
run_dbg init64 init true 64 job
held init64 64 init $(seq 0 63)
# one rank, given at the app level: the others run through
run_dbg initone init 2 4 app
held initone 4 init 2

# list_case NAME KIND SPEC N LEVEL HELD... : a stop value naming a list of processes
# (pmix_data_array_t of pmix_proc_t): the ranks not in it run through to their end while
# the listed ones are held (the tool waits for DIR/go, created once the others are
# done), one ready event, then the release and the end
list_case() {
    local name=$1 kind=$2 spec=$3 n=$4 level=$5
    shift 5
    local dir=$T/$name out=$T/$name.out
    mkdir -p "$dir"
    "$DBG" tool "$kind" "$spec" "$n" "$level" "$dir" event+wait >"$out" 2>&1 &
    local tool=$!
    wait_for "$out" "marker $((n - 1)) "
    run_through "$name" "$dir" "$n" "$@"
    local r
    for r in "$@"; do
        [ -e "$dir/done.$r" ] && fail "$name: rank $r went past its stop point: $(cat "$out")"
    done
    touch "$dir/go"
    wait "$tool" || fail "$name: $(cat "$out")"
    held "$name" "$n" "$kind" "$@"
}
list_case initlist init list:1,3 5 job 1 3
# app level, with a rank named twice
list_case initlistapp init list:3,0,3 4 app 0 3

# the application's own stop point: it learns it from PMIx_Get and says where it is
BP=dvm-dbg-app
run_dbg app4 app wild 4 job
held app4 4 app 0 1 2 3
list_case applist app list:2,1 4 job 1 2

# refusals, each with its message
run_to 60 "$DBG" bad >"$T/bad.out" 2>&1 || fail "bad: $(cat "$T/bad.out")"
expect_in "$T/bad.out" "string value: PMIX_ERR_NOT_SUPPORTED"
expect_in "$T/bad.out" "pmix.dbg.init is given as a PMIX_STRING"
expect_in "$T/bad.out" "rank beyond: PMIX_ERR_BAD_PARAM"
expect_in "$T/bad.out" "pmix.dbg.exec names rank 5, which is not a process of the job"
expect_in "$T/bad.out" "two stops: PMIX_ERR_NOT_SUPPORTED"
expect_in "$T/bad.out" "rank 1 would stop at two points (pmix.dbg.exec and pmix.dbg.init)"
expect_in "$T/bad.out" "other app's rank: PMIX_ERR_BAD_PARAM"
expect_in "$T/bad.out" "of the application it was given for (app 1)"
expect_in "$T/bad.out" "list of another namespace: PMIX_ERR_BAD_PARAM"
expect_in "$T/bad.out" "pmix.dbg.init names process other:0, which is not of the job"
expect_in "$T/bad.out" "list rank beyond: PMIX_ERR_BAD_PARAM"
expect_in "$T/bad.out" "pmix.dbg.exec names rank 7, which is not a process of the job"
expect_in "$T/bad.out" "list of ints: PMIX_ERR_NOT_SUPPORTED"
expect_in "$T/bad.out" "pmix.dbg.notify is given as a PMIX_DATA_ARRAY"
# the command line: prun --stop-in-init; pps shows the held processes STOPPED; a tool
# releases them by their namespace (rank 1, then all) and the job ends well
"$PRUN" $RR -n 2 --stop-in-init "$APP" hello >"$T/cli.out" 2>&1 &
PRUN_PID=$!
held_in_pps() {
    pps_now
    [ "$(grep -F "$APP hello" "$T/pps" | grep -c ' STOPPED ')" = "$1" ]
}
poll_until held_in_pps 2 || fail "pps must show 2 held processes: $(cat "$T/pps")"
ns=$(grep -F "$APP hello" "$T/pps" | head -1 | awk '{print $1}')
run_to 30 "$DBG" release "$ns" 1 >"$T/rel1.out" 2>&1 || fail "release: $(cat "$T/rel1.out")"
poll_until held_in_pps 1 || fail "pps must show rank 0 alone held: $(cat "$T/pps")"
grep -F "$APP hello" "$T/pps" | grep ' STOPPED ' | awk '$2 == 0 {ok = 1} END {exit !ok}' ||
    fail "rank 0 must be the one held: $(cat "$T/pps")"
run_to 30 "$DBG" release "$ns" >"$T/rel.out" 2>&1 || fail "release: $(cat "$T/rel.out")"
wait "$PRUN_PID" || fail "prun --stop-in-init: $(cat "$T/cli.out")"
expect_in "$T/cli.out" "hello rank 0 of 2"
expect_in "$T/cli.out" "hello rank 1 of 2"
# two stop points cannot be honoured: the spawn fails, with the reason
run_to 30 "$PRUN" $RR -n 1 --stop-on-exec --stop-in-app "$APP" hello >"$T/two.out" 2>&1 &&
    fail "two stop points were accepted: $(cat "$T/two.out")"
expect_in "$T/two.out" "rank 0 would stop at two points (pmix.dbg.exec and pmix.dbg.notify)"
# a release before the processes reach their stop point (a debugger that does not wait
# for the ready event): they pass through it (the client library gets the release from
# its server's event cache); the ready event still comes once every one got there, and
# the proc tables do not show them STOPPED afterwards
mkdir -p "$T/early"
touch "$T/early/hold"
"$PRUN" $RR -n 2 --stop-in-init "$DBG" app "$T/early" >"$T/early.out" 2>&1 &
PRUN_PID=$!
wait_pps "$DBG app" 2
ns=$(grep -F "$DBG app" "$T/pps" | head -1 | awk '{print $1}')
run_to 30 "$DBG" release "$ns" >"$T/erel.out" 2>&1 || fail "early release: $(cat "$T/erel.out")"
"$DBG" watch "$T/early/watching" "$ns" >"$T/ewatch.out" 2>&1 &
WATCH=$!
poll_until wait_for_file "$T/early/watching" || fail "the watching tool never registered"
touch "$T/early/go-init"
wait "$WATCH" || fail "no ready event after an early release: $(cat "$T/ewatch.out")"
both_init() { [ -e "$T/early/init.0" ] && [ -e "$T/early/init.1" ]; }
poll_until both_init || fail "released early, the processes must pass PMIx_Init: $(cat "$T/early.out")"
pps_now
[ "$(grep -F "$DBG app" "$T/pps" | grep -c ' STOPPED ')" = 0 ] ||
    fail "processes released early are not held: $(cat "$T/pps")"
touch "$T/early/go-end"
wait "$PRUN_PID" || fail "prun --stop-in-init, released early: $(cat "$T/early.out")"
stop_dvm
pass
