# dbg_lib.sh - sourced (after lib.sh) by the debugger tests across nodes (t_debug_nodes.sh,
# test/cluster/t_cluster_debug.sh): checks of dvm_dbgd's and the examples' lines for a
# job mapped by node over the nodes named in the array NODES (rank r on NODES[r % n]).
DBG=$B/test/dvm/dvm_dbgd
DD=$B/examples/debugger_daemon
FEA=$B/examples/forkexec_agent

# mine_of N D : the ranks of N processes mapped by node that are on node D ("0,3,6")
mine_of() { seq -s, "$2" ${#NODES[@]} $(($1 - 1)); }
# on_node N R : how many of N processes mapped by node share rank R's node
on_node() { echo $((($1 - $2 % ${#NODES[@]} + ${#NODES[@]} - 1) / ${#NODES[@]})); }

# per_node OUT N NS : N targets of job NS mapped by node, one daemon per node, each on
# its node finding that node's targets; every target released; the daemons' pids right
per_node() {
    local out=$1 n=$2 ns=$3 k=${#NODES[@]} r d
    for ((r = 0; r < n; r++)); do
        expect_in "$out" "target $r/$n lsize $(on_node "$n" $r) lrank $((r / k)) host ${NODES[$((r % k))]} pid "
        grep -q "^target $r released by " "$out" || fail "target $r not released: $(cat "$out")"
    done
    for ((d = 0; d < k; d++)); do
        expect_in "$out" "dbgd $d/$k host ${NODES[$d]} lrank 0/1 target $ns local $(on_node "$n" $d) total $n mine $(mine_of "$n" $d) pids "
    done
    local a b
    a=$(sed -n 's/^target [0-9]*\/[0-9]* .* pid \([0-9]*\)$/\1/p' "$out" | sort -n | tr '\n' ' ')
    b=$(sed -n 's/^dbgd .* pids \([0-9,]*\)$/\1/p' "$out" | tr ',' '\n' | sort -n | tr '\n' ' ')
    [ "$a" = "$b" ] || fail "daemons found pids [$b], targets are [$a]"
}

# fea_children OUT N : each of N ranks mapped by node ran its fork/exec agent on its node
# (the agent's line), and is that agent's child with its job's own local size
fea_children() {
    local out=$1 n=$2 k=${#NODES[@]} r apid
    for ((r = 0; r < n; r++)); do
        apid=$(sed -n "s/^fea $r pid \([0-9]*\) host ${NODES[$((r % k))]} target .*:$r cmd .*/\1/p" "$out")
        [ -n "$apid" ] || fail "agent of rank $r on ${NODES[$((r % k))]}: $(cat "$out")"
        grep "^whoami $r/$n lsize $(on_node "$n" $r) " "$out" | grep -q " ppid $apid agent -$" ||
            fail "rank $r is not its agent's child: $(cat "$out")"
    done
}
