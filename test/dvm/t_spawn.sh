#!/usr/bin/env bash
# PMIx_Spawn from inside a job (issue 18, MPI_Comm_spawn's path), with real client
# programs (dvm_grp): the child gets PMIX_PARENT_ID and PMIX_SPAWNED; the parent's -x,
# --pset and --map-by do not reach it unless the spawn asks; the job-end event reaches the
# parent (success and failure); the child's output goes where the parent job's goes (prun,
# prterun); a child that cannot start is the spawn's error; the parent job's end ends its
# children unless PMIX_NOHUP.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/grp_lib.sh"
start_dvm

# --- what the child has, its end event, its output in the parent's prun
run_to 60 "$PRUN" $RR --dvm-uri "file:$T/uri" -n 1 -x FOO=parent --pset ocean --map-by node \
    "$GRP" job env:FOO psets mapby 'spawn:2:-:job+parent+env%FOO+psets+mapby' waitend \
    'spawn:1:env,pset=kid,mapby=node:env%FOO+psets+mapby' waitend \
    'spawn:1:-:exit%0%3' waitend 'spawn:1:bad:-' >"$T/s" 2>&1 ||
    fail "parent job failed: $(cat "$T/s")"
p=$(sed -n 's/^rank 0 job: //p' "$T/s" | head -1)
c=$(sed -n 's/.*spawn:2:-:.*: PMIX_SUCCESS child=\([0-9]*\)$/\1/p' "$T/s")
[ -n "$p" ] && [ -n "$c" ] && [ "$p" != "$c" ] || fail "parent and child jobs: $(cat "$T/s")"
lines "$T/s" "job: $c" 2
lines "$T/s" "parent: parent=$p:0 spawned=true" 2
lines "$T/s" "env:FOO: parent" 1
lines "$T/s" "env:FOO: -" 2
lines "$T/s" "env:FOO: child" 1
lines "$T/s" "psets: ocean" 1
lines "$T/s" "psets: -" 2
lines "$T/s" "psets: kid" 1
lines "$T/s" "mapby: node" 2
lines "$T/s" "mapby: slot" 2
lines "$T/s" "jobend child=$c status=PMIX_SUCCESS exit=0" 1
lines "$T/s" "status=PMIX_ERR_JOB_NON_ZERO_TERM exit=3" 1
lines "$T/s" "spawn:1:bad:-: PMIX_ERR_JOB_EXE_NOT_FOUND child=-" 1

# --- the parent job's end ends its child (which waits for a file the driver makes only
# once no process is left); with PMIX_NOHUP the child outlives it
run_to 60 "$PRUN" $RR --dvm-uri "file:$T/uri" -n 1 "$GRP" \
    "spawn:1:-:wait%$T/go1+touch%$T/done1" >"$T/e1" 2>&1 || fail "parent failed: $(cat "$T/e1")"
lines "$T/e1" "PMIX_SUCCESS child=" 1
wait_pps dvm_grp 0
touch "$T/go1"
[ ! -e "$T/done1" ] || fail "the child outlived its parent job"
run_to 60 "$PRUN" $RR --dvm-uri "file:$T/uri" -n 1 "$GRP" \
    "spawn:1:nohup:wait%$T/go2+touch%$T/done2" >"$T/e2" 2>&1 || fail "parent failed: $(cat "$T/e2")"
lines "$T/e2" "PMIX_SUCCESS child=" 1
touch "$T/go2"
poll_until test -e "$T/done2" || fail "the PMIX_NOHUP child did not outlive its parent job"
wait_pps dvm_grp 0

stop_dvm

# --- prterun: the child's output is prterun's
run_to 60 "$PRTERUN" $RR -n 1 "$GRP" job 'spawn:1:-:parent' waitend >"$T/r" 2>&1 ||
    fail "prterun failed: $(cat "$T/r")"
lines "$T/r" "parent: parent=1:0 spawned=true" 1
lines "$T/r" "status=PMIX_SUCCESS exit=0" 1
pass
