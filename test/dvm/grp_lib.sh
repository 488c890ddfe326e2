# grp_lib.sh - sourced by the group, connect and spawn tests (after lib.sh): run dvm_grp
# jobs and count the lines they print. PX_GRP_NODES runs the same cases with every job
# mapped --map-by node over three nodes, so a job's ranks are served by different daemons
# and the collectives go through the controller:
#   PX_GRP_NODES=fake     two more fake nodes (test/daemons/local_agent.sh: a prted each,
#                         on this machine)
#   PX_GRP_NODES=cluster  the one-machine cluster of scripts/cluster.sh (network and UTS
#                         namespaces): prte and every prun in node1, a prted on node2 and
#                         node3 (needs root: skips with 77 otherwise)
GRP=$B/test/dvm/dvm_grp
GRP_MAP=""
GRP_ON="" # the agent and node1 in cluster mode: every command the DVM sees runs there
# grp_start_dvm : start_dvm, across three nodes with PX_GRP_NODES
grp_start_dvm() {
    local here
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    case "${PX_GRP_NODES:-}" in
    "") start_dvm ;;
    fake)
        export PRTE_MCA_plm_ssh_agent=$here/../daemons/local_agent.sh
        GRP_MAP="--map-by node"
        start_dvm --host "$(hostname):40,fake1:40,fake2:40"
        grp_check_spread "$(hostname)" fake1 fake2
        ;;
    cluster)
        grp_cluster_up "$here/../../scripts/cluster.sh"
        GRP_MAP="--map-by node"
        run_to 60 $GRP_ON "$PRTE" --daemonize --report-uri "$T/uri" --report-pid "$T/pid" $RR \
            --host node1:40,node2:40,node3:40 --prtemca plm_ssh_agent "${GRP_ON% *}" \
            >"$T/prte.out" 2>&1 || fail "prte on node1: $(cat "$T/prte.out")"
        DVM_PID=$(cat "$T/pid")
        grp_check_spread node1 node2 node3
        ;;
    *) fail "PX_GRP_NODES=$PX_GRP_NODES: fake or cluster expected" ;;
    esac
}

# grp_check_spread HOST... : a --map-by node job has a rank on each of these hosts
grp_check_spread() {
    run_to 60 $GRP_ON "$PRUN" $RR --dvm-uri "file:$T/uri" $GRP_MAP -n $# "$APP" xnode \
        >"$T/spread" 2>&1 || fail "a job across the nodes: $(cat "$T/spread")"
    local h
    for h in "$@"; do
        expect_in "$T/spread" " host $h nodeid "
    done
}

# grp_cluster_up CLUSTER_SH : three nodes (torn down at exit); GRP_ON runs on node1
grp_cluster_up() {
    local cl=$1 t
    [ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
    for t in ip unshare nsenter; do
        command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not installed"; exit 77; }
    done
    GRP_CL=$cl
    GRP_CLNAME=pxg$$
    ip netns add "$GRP_CLNAME-probe" 2>/dev/null || { echo "SKIP: no network namespaces here"; exit 77; }
    ip netns delete "$GRP_CLNAME-probe"
    export PXCLUSTER_OWNER=$$
    trap 'cleanup; "$GRP_CL" -n "$GRP_CLNAME" down' EXIT
    local agent
    agent=$(run_to 60 "$cl" -n "$GRP_CLNAME" up 3) || fail "cluster up failed"
    GRP_ON="$agent node1"
    # pterm reaches the controller only from inside the cluster
    stop_dvm() {
        run_to 20 $GRP_ON "$PTERM" --dvm-uri "file:$T/uri" $RR || fail "pterm failed"
        poll_until gone "$DVM_PID" || fail "DVM $DVM_PID still running after pterm returned"
        DVM_PID=""
    }
}

# grp OUT N OPS... : prun -n N dvm_grp OPS in the background, output to OUT; LAST = its pid
grp() {
    local out=$1 n=$2
    shift 2
    run_to 120 $GRP_ON "$PRUN" $RR --dvm-uri "file:$T/uri" $GRP_MAP -n "$n" "$GRP" "$@" >"$out" 2>&1 &
    LAST=$!
}
# done_ok PID OUT : the job succeeded
done_ok() { wait "$1" || fail "job failed: $(cat "$2")"; }
# lines FILE TEXT COUNT : exactly COUNT lines of FILE hold TEXT
lines() {
    [ "$(count_in "$1" "$2")" = "$3" ] || fail "$3 line(s) \"$2\" expected in $1: $(cat "$1")"
}
