#!/usr/bin/env bash
# Stop points with co-spawned debugger daemons (issue 17 items 1 and 2 together): one
# PMIx_Spawn of an application with PMIX_DEBUG_STOP_IN_INIT or PMIX_DEBUG_STOP_ON_EXEC in
# the job info and of an app marked PMIX_DEBUGGER_DAEMONS (examples/debugger_daemon
# --wait-ready). The stop applies to the application only: the daemons run (they print
# their line while the application is held), hear the target's PMIX_READY_FOR_DEBUG, see
# their targets STOPPED in PMIX_QUERY_LOCAL_PROC_TABLE, release them (PMIX_DEBUGGER_RELEASE
# in a custom range for a stop in init; SIGCONT for a stop at exec, as a debugger does
# after attaching), and both jobs end well. The front end (dvm_dbgd) hears one ready event
# for the application. Nothing is left behind.
. "$(dirname "$0")/lib.sh"
DBG=$B/test/dvm/dvm_dbgd
DD=$B/examples/debugger_daemon
start_dvm

# stop_case NAME KIND N PLACE BP DAEMON_ARGS... : the co-spawn and every check
stop_case() {
    local name=$1 kind=$2 n=$3 place=$4 bp=$5
    shift 5
    local out=$T/$name r
    run_to 150 "$DBG" --stop "$kind" cospawn "$n" "$place" "$DBG" whoami -- "$DD" --wait-ready "$@" \
        >"$out" 2>&1 || fail "$name: $(cat "$out")"
    local ns
    ns=$(sed -n 's/^spawn PMIX_SUCCESS ns=//p' "$out")
    [ -n "$ns" ] || fail "$name: no namespace: $(cat "$out")"
    # one ready event, for the application, with the stop's breakpoint
    [ "$(grep -c "^ready $ns bp=$bp\$" "$out")" = 1 ] ||
        fail "$name: one ready event for $ns (breakpoint $bp) expected: $(cat "$out")"
    # none for the daemons' job (the front end also hears earlier jobs' from the cache:
    # only the namespaces running now count)
    local x
    for x in $(sed -n 's/^namespaces //p' "$out" | tr ',' ' '); do
        [ "$x" = "$ns" ] || ! grep -q "^ready $x " "$out" ||
            fail "$name: a ready event for the daemons' job $x: $(cat "$out")"
    done
    # the daemons ran while every target was held: each saw its own targets STOPPED
    local ndaemons seen=0
    ndaemons=$(grep -c "^dbgd [0-9]*/[0-9]* host .* target $ns local $n total $n mine " "$out")
    [ "$ndaemons" -gt 0 ] || fail "$name: the daemons did not run: $(cat "$out")"
    [ "$(grep -c "^dbgd [0-9]*/[0-9]* ready $bp states " "$out")" = "$ndaemons" ] ||
        fail "$name: each daemon must hear the ready event: $(cat "$out")"
    local states
    states=$(sed -n "s/^dbgd [0-9]*\/[0-9]* ready $bp states //p" "$out" | tr ',' '\n')
    seen=$(grep -c . <<<"$states")
    [ "$seen" = "$n" ] || fail "$name: the daemons serve $seen of $n targets: $(cat "$out")"
    grep -qv '^STOPPED$' <<<"$states" &&
        fail "$name: a target was not held when its daemon looked: $(cat "$out")"
    # released, every target ran to its end; the daemons' job (not counted in the
    # application's size) and the application ended well
    for ((r = 0; r < n; r++)); do
        expect_in "$out" "whoami $r/$n lsize $n pid "
    done
    expect_in "$out" "jobend $ns status=PMIX_SUCCESS exit=0"
    [ "$(grep -c '^jobend .* status=PMIX_SUCCESS exit=0$' "$out")" = 2 ] ||
        fail "$name: both jobs must end well: $(cat "$out")"
}

# a stop in PMIx_Init, released by the daemons' event: one daemon per node, one per process
stop_case init4 init 4 node:1 pmix-init
stop_case init16 init 16 proc:1 pmix-init
# a stop at exec: the daemons resume their targets with SIGCONT
stop_case exec4 exec 4 node:1 pmix-exec --no-release --cont
stop_case exec16 exec 16 proc:1 pmix-exec --no-release --cont
wait_pps whoami 0
stop_dvm
pass
