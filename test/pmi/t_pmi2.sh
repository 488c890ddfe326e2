#!/usr/bin/env bash
# The PMI-2 wire (issue 19 part 3) through Slurm's client library (libpmi2): KVS put,
# fence and get by any rank and by rank (values holding ';'), the job attributes
# PMI_process_mapping, universeSize and the --pset names (pmix.pset.nms), node
# attributes with a waiting get, the name service, abort, PMI2_Job_Spawn; under prun and
# prterun.
. "$(dirname "$0")/../dvm/lib.sh"
. "$(dirname "$0")/lib_pmi.sh"
P2=${PX_PMI2_APP:-}
need_prog "$P2" "test/pmi/pmi2_app" \
    "slurm/pmi2.h or libpmi2 was not found when the build was configured; install Debian's libpmi2-0-dev (scripts/install-deps.sh) and reconfigure"

start_dvm
for n in 1 4 16; do
    run_job "$T/kvs$n" 0 "$PRUN" $RR -n $n --pset grp$n "$P2" kvs
    lines_in "$T/kvs$n" "got $((2 * n)) of $((2 * n))" $n
    lines_in "$T/kvs$n" "PMI_process_mapping (vector,(0,1,$n))" $n
    lines_in "$T/kvs$n" "universeSize $n" $n
    lines_in "$T/kvs$n" "pmix.pset.nms grp$n" $n
    lines_in "$T/kvs$n" " size $n appnum 0 spawned 0" $n
    grep -q FAIL "$T/kvs$n" && fail "$(cat "$T/kvs$n")"
done
run_job "$T/nodeattr" 0 "$PRUN" $RR -n 4 "$P2" nodeattr
lines_in "$T/nodeattr" "nodeattr seg;0" 4
run_job "$T/names" 0 "$PRUN" $RR -n 3 "$P2" names
lines_in "$T/names" "lookup port-1234" 3
# PMI2_Abort(1, msg): the job ends with 1 and the others do not pass their fence
run_job "$T/abort" 1 "$PRUN" $RR -n 3 "$P2" abort
grep -q "passed a fence" "$T/abort" && fail "a rank passed the fence: $(cat "$T/abort")"
# PMI2_Job_Spawn: the children say spawned (fullinit's spawner-jobid) and find the preput
# key in their KVS
run_job "$T/spawn" 0 "$PRUN" $RR -n 2 "$P2" spawn
child=$(sed -n 's/^spawned \([^ ]*\) errors 0,0$/\1/p' "$T/spawn")
[ -n "$child" ] || fail "PMI2_Job_Spawn: $(cat "$T/spawn")"
lines_in "$T/spawn" "size 2 appnum 0 spawned 1" 2
lines_in "$T/spawn" "size 2 appnum 0 spawned 0" 2
lines_in "$T/spawn" "preput PARENT_KEY=from-" 2
grep -q FAIL "$T/spawn" && fail "$(cat "$T/spawn")"
stop_dvm

run_job "$T/p-kvs" 0 "$PRTERUN" $RR -n 2 "$P2" kvs
lines_in "$T/p-kvs" "got 4 of 4" 2
pass
