#!/usr/bin/env bash
# Unmodified MPI programs across the one-machine cluster of scripts/cluster.sh (issue 19):
# 3 nodes, each a network namespace with its own address and hostname; prte runs in
# node1 and starts a prted on node2 and node3 through the cluster's agent (as
# cluster-dvm). Open MPI 4.1 (our libpmix.so.2, the ompi personality) and MPICH (PMI-1)
# programs: each rank's shared-memory communicator holds exactly the ranks the map put on
# its node, named by that node's hostname; a ring (Open MPI: 256 KiB messages, TCP
# between the namespaces), MPI_Allreduce and hello up to 16 ranks over 3 nodes;
# PMI_process_mapping as the map says; MPI_Abort on another node ends the job with its
# code; pterm leaves no process in any namespace. Needs root (skips with 77 otherwise).
NAME=pxm$$
ON_TIMEOUT=120
. "$(dirname "$0")/lib_cluster.sh"
. "$SRC/test/ompi/lib_ompi.sh"
. "$SRC/test/ompi/lib_nodes.sh"
MPI=${PX_MPICH_APP:-}
[ -x "$MPI" ] || fail "test/pmi/mpich_app was not built: mpicc.mpich was not found when the build was configured; install Debian's mpich and libmpich-dev (scripts/install-deps.sh) and reconfigure"
RAW=$B/test/pmi/pmi_raw
HOSTS=(node1 node2 node3)
cluster_prte node1:6,node2:5,node3:5

# MAP N EXPR MAPPING: the node of rank r under --map-by MAP, the PMI_process_mapping
for spec in "node 6 r%3 (vector,(0,3,1))" "slot 16 (r<6?0:r<11?1:2) (vector,(0,1,6),(1,2,5))"; do
    set -- $spec
    map=$1 n=$2 nodeof=$3 mapping=$4
    # Open MPI
    P -n $n --map-by $map "$O/ompi_local" >"$T/out" 2>"$T/err" ||
        fail "ompi_local --map-by $map -n $n: exit $?: $(cat "$T/err")"
    check_local "$T/out" $n "$nodeof" HOSTS
    P -n $n --map-by $map "$O/ompi_ring" >"$T/out" 2>"$T/err" ||
        fail "ompi_ring --map-by $map -n $n: exit $?: $(cat "$T/err")"
    expect_in "$T/out" "ring ok N=$n token=$((3 * n * (n - 1) / 2))"
    P -n $n --map-by $map "$O/ompi_allreduce" >"$T/out" 2>"$T/err" ||
        fail "ompi_allreduce --map-by $map -n $n: exit $?: $(cat "$T/err")"
    expect_lines "$T/out" "^allreduce ok [0-9]+ sum=$((n * (n - 1) / 2))\$" $n
    [ ! -s "$T/err" ] || fail "Open MPI --map-by $map -n $n: unexpected stderr: $(cat "$T/err")"
    # MPICH
    P -n $n --map-by $map "$RAW" mapping >"$T/out" 2>&1 || fail "pmi_raw mapping: $(cat "$T/out")"
    expect_lines "$T/out" "^mapping $(printf '%s' "$mapping" | sed 's/[()]/\\&/g')\$" $n
    P -n $n --map-by $map "$MPI" local >"$T/out" 2>&1 || fail "mpich local --map-by $map: $(cat "$T/out")"
    check_local "$T/out" $n "$nodeof" HOSTS
    P -n $n --map-by $map "$MPI" ring >"$T/out" 2>&1 || fail "mpich ring --map-by $map: $(cat "$T/out")"
    expect_in "$T/out" "ring $n ok (token $((3 * n)))"
    P -n $n --map-by $map "$MPI" allreduce >"$T/out" 2>&1 || fail "mpich allreduce: $(cat "$T/out")"
    expect_lines "$T/out" "^sum $((n * (n + 1) / 2)) ok\$" $n
done
P -n 16 "$O/ompi_hello" >"$T/out" 2>"$T/err" || fail "ompi_hello -n 16: $(cat "$T/err")"
expect_lines "$T/out" "^hello [0-9]+ of 16\$" 16
P -n 16 "$MPI" hello >"$T/out" 2>&1 || fail "mpich hello -n 16: $(cat "$T/out")"
expect_lines "$T/out" "^hello [0-9]+/16\$" 16

# MPI_Abort on another node: the code is the job's, the node named
P -n 3 --map-by node "$O/ompi_abort" 1 7 >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 7 ] || fail "Open MPI's MPI_Abort(7) on node2 gave $rc: $(cat "$T/err")"
expect_in "$T/err" "on node node2"
P -n 3 --map-by node "$MPI" abort 5 >"$T/out" 2>&1
rc=$?
[ $rc = 5 ] || fail "MPICH's MPI_Abort(5) on node3 gave $rc: $(cat "$T/out")"
expect_in "$T/out" "node3"

cluster_pterm
cluster_gone
pass
