#!/usr/bin/env bash
# MPI_Comm_spawn with Open MPI 4.1 (issue 19): the job's ranks spawn more copies of
# ompi_spawn, parents and children exchange messages over the intercommunicator, merge
# it and reduce over both. Under prun (2 parents spawn 2 children, 1 spawns 3) and under
# prterun. The launcher raises a job's JOB_START and LAUNCH_COMPLETE only for a
# requester that asked (PMIX_NOTIFY_JOB_EVENTS): Open MPI's default event handler aborts
# the parent on any event it did not register for (status -191, JOB_START).
# Parents on other nodes: t_ompi_nodes.sh.
. "$(dirname "$0")/../dvm/lib.sh"
. "$(dirname "$0")/lib_ompi.sh"

# check_spawn OUT PARENTS CHILDREN
check_spawn() {
    local out=$1 p=$2 c=$3
    expect_lines "$out" "^spawn ok parents=$p children=$c sum=$((p + c))\$" 1
    expect_lines "$out" "^parent [0-9]+ done\$" "$p"
    expect_lines "$out" "^child [0-9]+ of $c ok\$" "$c"
}
start_dvm
run() { run_to 120 "$PRUN" --dvm-uri "file:$T/uri" $RR "$@"; }
run -n 2 "$O/ompi_spawn" 2 >"$T/out" 2>"$T/err" || fail "spawn 2+2: exit $?: $(cat "$T/err")"
check_spawn "$T/out" 2 2
run -n 1 "$O/ompi_spawn" 3 >"$T/out" 2>"$T/err" || fail "spawn 1+3: exit $?: $(cat "$T/err")"
check_spawn "$T/out" 1 3
# the children end while their parents still run: Open MPI 4.1's MPI_Comm_disconnect is
# a fence, not PMIx_Disconnect, so the DVM must not report their normal end
# (PMIX_ERR_PROC_TERM_WO_SYNC), which Open MPI's default handler answers by aborting
run -n 2 "$O/ompi_spawn" 2 late >"$T/out" 2>"$T/err" || fail "spawn 2+2, late parents: exit $?: $(cat "$T/err")"
check_spawn "$T/out" 2 2
[ ! -s "$T/err" ] || fail "unexpected stderr: $(cat "$T/err")"
# the DVM lists no job once both ended (children included)
no_jobs() {
    pps_now
    ! grep -q ompi_spawn "$T/pps"
}
poll_until no_jobs || fail "jobs left after the spawns: $(cat "$T/pps")"
stop_dvm

run_to 120 "$PRTERUN" $RR -n 2 "$O/ompi_spawn" 1 >"$T/out" 2>"$T/err" ||
    fail "prterun spawn 2+1: exit $?: $(cat "$T/err")"
check_spawn "$T/out" 2 1
pass
