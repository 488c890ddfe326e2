#!/usr/bin/env bash
# Open MPI 4.1 programs across nodes (issue 19): a DVM of three nodes on this machine
# (this one and fake1, fake2 through test/daemons/local_agent.sh, as dvm-multinode).
# Each rank must see exactly the ranks the map put on its node as its shared-memory
# peers (MPI_Comm_split_type SHARED, from our PMIx locality keys), and hello, a ring of
# 256 KiB messages (TCP between nodes, shared memory within one), MPI_Allreduce and
# MPI_Comm_split must work under --map-by node, ppr:2:node and slot, up to 16 ranks;
# MPI_Comm_spawn from parents on every node; an MPI_Abort on another node ends the job
# with its code.
# The fake nodes get their own shared-memory directories (lib_nodes.sh says why).
. "$(dirname "$0")/../dvm/lib.sh"
. "$(dirname "$0")/lib_ompi.sh"
. "$(dirname "$0")/lib_nodes.sh"
fake_nodes_agent
HERE=$(hostname)
start_dvm --host "$HERE:6,fake1:5,fake2:5"
run() { run_to 120 "$PRUN" --dvm-uri "file:$T/uri" $RR "$@"; }

# MAP N EXPR: the node of rank r under --map-by MAP
for spec in "node 6 r%3" "ppr:2:node 6 r/2" "node 5 r%3"; do
    set -- $spec
    map=$1 n=$2 nodeof=$3
    run -n $n --map-by $map "$O/ompi_local" >"$T/out" 2>"$T/err" ||
        fail "local --map-by $map -n $n: exit $?: $(cat "$T/err")"
    check_local "$T/out" $n "$nodeof"
    run -n $n --map-by $map "$O/ompi_ring" >"$T/out" 2>"$T/err" ||
        fail "ring --map-by $map -n $n: exit $?: $(cat "$T/err")"
    expect_in "$T/out" "ring ok N=$n token=$((3 * n * (n - 1) / 2))"
    run -n $n --map-by $map "$O/ompi_split" >"$T/out" 2>"$T/err" ||
        fail "split --map-by $map -n $n: exit $?: $(cat "$T/err")"
    expect_lines "$T/out" "^split ok " $n
    [ ! -s "$T/err" ] || fail "--map-by $map -n $n: unexpected stderr: $(cat "$T/err")"
done
# 16 ranks by slot: 0-5 here, 6-10 on fake1, 11-15 on fake2
run -n 16 "$O/ompi_local" >"$T/out" 2>"$T/err" || fail "local -n 16: exit $?: $(cat "$T/err")"
check_local "$T/out" 16 '(r < 6 ? 0 : r < 11 ? 1 : 2)'
run -n 16 "$O/ompi_ring" >"$T/out" 2>"$T/err" || fail "ring -n 16: $(cat "$T/err")"
expect_in "$T/out" "ring ok N=16 token=360"
run -n 16 "$O/ompi_allreduce" >"$T/out" 2>"$T/err" || fail "allreduce -n 16: $(cat "$T/err")"
expect_lines "$T/out" "^allreduce ok [0-9]+ sum=120\$" 16
run -n 16 "$O/ompi_hello" >"$T/out" 2>"$T/err" || fail "hello -n 16: $(cat "$T/err")"
expect_lines "$T/out" "^hello [0-9]+ of 16\$" 16

# MPI_Comm_spawn with parents on every node (the prteds' servers connect them to their
# children), then children that end while their parents still run
run -n 3 --map-by node "$O/ompi_spawn" 3 >"$T/out" 2>"$T/err" || fail "spawn 3+3 across nodes: exit $?: $(cat "$T/err")"
expect_lines "$T/out" "^spawn ok parents=3 children=3 sum=6\$" 1
expect_lines "$T/out" "^child [0-9]+ of 3 ok\$" 3
run -n 3 --map-by node "$O/ompi_spawn" 2 late >"$T/out" 2>"$T/err" || fail "spawn 3+2 across nodes, late parents: exit $?: $(cat "$T/err")"
expect_lines "$T/out" "^parent [0-9]+ done\$" 3

# MPI_Abort on fake2 (rank 2 under --map-by node): the job's code, the node named
run -n 3 --map-by node "$O/ompi_abort" 2 7 >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 7 ] || fail "MPI_Abort(7) on fake2 gave $rc: $(cat "$T/err")"
expect_in "$T/err" "MPI_ABORT was invoked on rank 2 in communicator MPI_COMM_WORLD"
expect_in "$T/err" "on node fake2"
stop_dvm
pass
