#!/usr/bin/env bash
# MPICH over PMI-1 and the PMI-2 wire across nodes (issue 19): a DVM of three nodes on
# this machine (this one and fake1, fake2 through test/daemons/local_agent.sh, as
# dvm-multinode). PMI_process_mapping describes the map's placement (raw wire, under
# --map-by node, ppr:2:node, an uneven node map and 16 ranks by slot) and MPICH's
# shared-memory communicator holds exactly the ranks the map put on the rank's node;
# hello, a ring and MPI_Allreduce on 6 and 16 ranks; PMI and PMIx processes of one job on
# different nodes exchange data through one fence; PMI-2 gets by rank across nodes;
# its name service and PMI2_Job_Spawn from other nodes; an MPI_Abort on another node ends the job with its
# code.
. "$(dirname "$0")/../dvm/lib.sh"
. "$(dirname "$0")/lib_pmi.sh"
. "$(dirname "$0")/../ompi/lib_nodes.sh"
MPI=${PX_MPICH_APP:-}
need_prog "$MPI" "test/pmi/mpich_app" \
    "mpicc.mpich was not found when the build was configured; install Debian's mpich and libmpich-dev (scripts/install-deps.sh) and reconfigure"
P2=${PX_PMI2_APP:-}
need_prog "$P2" "test/pmi/pmi2_app" \
    "slurm/pmi2.h or libpmi2 was not found when the build was configured; install Debian's libpmi2-0-dev (scripts/install-deps.sh) and reconfigure"
fake_nodes_agent
HERE=$(hostname)
start_dvm --host "$HERE:6,fake1:5,fake2:5"
PEER=$PMI_DIR/pmix_peer

# MAP N EXPR MAPPING: the node of rank r under --map-by MAP, and the PMI_process_mapping
# that says so (node numbers: this node 0, fake1 1, fake2 2)
for spec in "node 6 r%3 (vector,(0,3,1))" "ppr:2:node 6 r/2 (vector,(0,3,2))" \
    "node 5 r%3 (vector,(0,3,1),(0,2,1))" "slot 16 (r<6?0:r<11?1:2) (vector,(0,1,6),(1,2,5))"; do
    set -- $spec
    map=$1 n=$2 nodeof=$3 mapping=$4
    run_job "$T/raw" 0 "$PRUN" $RR -n $n --map-by $map "$RAW" mapping
    lines_in "$T/raw" "mapping $mapping" $n
    run_job "$T/local" 0 "$PRUN" $RR -n $n --map-by $map "$MPI" local
    check_local "$T/local" $n "$nodeof"
    run_job "$T/ring" 0 "$PRUN" $RR -n $n --map-by $map "$MPI" ring
    expect_in "$T/ring" "ring $n ok (token $((3 * n)))"
    run_job "$T/sum" 0 "$PRUN" $RR -n $n --map-by $map "$MPI" allreduce
    lines_in "$T/sum" "sum $((n * (n + 1) / 2)) ok" $n
done
run_job "$T/hello" 0 "$PRUN" $RR -n 16 "$MPI" hello
for r in $(seq 0 15); do
    lines_in "$T/hello" "hello $r/16" 1
done

# PMIx processes here and on fake2, PMI ones on fake1: one fence, everyone's data
run_job "$T/mixed" 0 "$PRUN" $RR --map-by ppr:2:node -n 2 "$PEER" : -n 2 "$RAW" mixed : -n 2 "$PEER"
lines_in "$T/mixed" "got 6 of 6" 6
lines_in "$T/mixed" "pmi rank" 2
# PMI-2 (Slurm's library): each rank gets every rank's key, by rank across nodes
run_job "$T/kvs" 0 "$PRUN" $RR -n 6 --map-by node "$P2" kvs
lines_in "$T/kvs" "got 12 of 12" 6
lines_in "$T/kvs" "PMI_process_mapping (vector,(0,3,1))" 6
grep -q FAIL "$T/kvs" && fail "$(cat "$T/kvs")"

# PMI-2's name service with ranks on every node (a prted's server forwards it: PUBSUB)
run_job "$T/names" 0 "$PRUN" $RR -n 3 --map-by node "$P2" names
lines_in "$T/names" "lookup port-1234" 3

# PMI2_Job_Spawn from a process on fake1 (its prted's server forwards the spawn): the
# children say spawned and find the preput key
run_job "$T/spawn" 0 "$PRUN" $RR --host fake1 -n 2 "$P2" spawn
lines_in "$T/spawn" "size 2 appnum 0 spawned 1" 2
lines_in "$T/spawn" "preput PARENT_KEY=from-" 2
grep -q FAIL "$T/spawn" && fail "$(cat "$T/spawn")"

# MPI_Abort by the last rank, on fake2: its code is the job's, the node named
run_job "$T/abort" 7 "$PRUN" $RR -n 3 --map-by node "$MPI" abort 7
expect_in "$T/abort" "fake2"
grep -q "passed a barrier" "$T/abort" && fail "a rank passed the barrier: $(cat "$T/abort")"
stop_dvm
pass
