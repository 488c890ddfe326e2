# lib_nodes.sh - sourced (after test/dvm/lib.sh) by the MPI tests across nodes
# (ompi/t_ompi_nodes.sh, pmi/t_pmi_nodes.sh, cluster/t_cluster_mpi.sh): the fake nodes'
# agent and the check of which ranks an MPI library put on one node.

# fake_nodes_agent : PRTE_MCA_plm_ssh_agent becomes test/daemons/local_agent.sh (a prted
# per fake node on this machine) with one change. The fake nodes share this machine's
# /dev/shm and hostname, where Open MPI names its shared-memory segments
# (vader_segment.<host>.<uid>.<job>.<local rank>): ranks with the same local rank on two
# fake nodes would map the same segment. Real nodes do not share /dev/shm, so each fake
# node gets its own backing directory — a property of this test bed, not of the DVM
# (cluster-mpi runs the same programs on separate hosts with Open MPI's default).
fake_nodes_agent() {
    local agent
    agent=$(cd "$(dirname "${BASH_SOURCE[0]}")/../daemons" && pwd)/local_agent.sh
    cat >"$T/agent" <<EOA
#!/bin/sh
mkdir -p "$T/shm/\$1"
OMPI_MCA_btl_vader_backing_directory="$T/shm/\$1" exec "$agent" "\$@"
EOA
    chmod +x "$T/agent"
    export PRTE_MCA_plm_ssh_agent=$T/agent
}

# node_of R EXPR : EXPR (shell arithmetic on r, the map's node of rank r) for rank R
node_of() {
    local r=$1
    echo $(($2))
}

# check_local OUT N EXPR [HOSTS] : each rank r of N printed exactly one line
# "local r L/N ranks A,B,... host H" naming, in order, the ranks q whose node_of q EXPR is
# its own (the program's MPI_COMM_TYPE_SHARED communicator). With HOSTS (a bash array's
# name, indexed by node), H must be that node's hostname.
check_local() {
    local out=$1 n=$2 r q peers cnt mine host
    for ((r = 0; r < n; r++)); do
        peers=""
        cnt=0
        mine=$(node_of $r "$3")
        for ((q = 0; q < n; q++)); do
            if [ "$(node_of $q "$3")" = "$mine" ]; then
                peers="$peers${peers:+,}$q"
                cnt=$((cnt + 1))
            fi
        done
        host=""
        if [ -n "${4:-}" ]; then
            local -n hosts_=$4
            host=${hosts_[$mine]}
        fi
        [ "$(grep -c "^local $r $cnt/$n ranks $peers host $host" "$out")" = 1 ] ||
            fail "rank $r: \"local $r $cnt/$n ranks $peers host $host...\" expected once in $out: $(head -c 3000 "$out")"
    done
}
