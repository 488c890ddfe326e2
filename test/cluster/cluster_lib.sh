# cluster_lib.sh N - sourced by the DVM tests on the one-machine cluster of
# scripts/cluster.sh (t_cluster_dvm.sh, t_cluster_debug.sh), with NAME set (the cluster's
# name) and PX_SRC naming the source directory: skips (exit 77, a SKIP line) without root,
# the tools or network namespaces; sources test/dvm/lib.sh; brings up N nodes (node1..N),
# torn down at exit; sets A (the cluster's agent, "<agent> <host> <cmd>"), on() and
# nodes_empty().
SRC=${PX_SRC:?PX_SRC must name the source directory}
CL=$SRC/scripts/cluster.sh
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
for t in ip unshare nsenter python3 timeout; do
    command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not installed"; exit 77; }
done
if ! ip netns add "$NAME-probe" 2>/dev/null; then
    echo "SKIP: cannot create network namespaces here"
    exit 77
fi
ip netns delete "$NAME-probe"
. "$SRC/test/dvm/lib.sh"
export PXCLUSTER_OWNER=$$
teardown() {
    cleanup # lib.sh: what is left of ours is killed, $T removed
    "$CL" -n "$NAME" down
}
trap teardown EXIT
A=$(run_to 60 "$CL" -n "$NAME" up "$1") || fail "cluster up failed"
NNODES=$1

# on HOST WORDS... : run on a node, as ssh would (words joined, run by sh)
on() {
    local h=$1
    shift
    run_to 120 "$A" "$h" "$*"
}

# nodes_empty : wait until no process is left in any node (fail, listing them, if some is)
ns_empty() {
    local i
    for ((i = 1; i <= NNODES; i++)); do
        [ -z "$(ip netns pids "$NAME-node$i")" ] || return 1
    done
}
nodes_empty() {
    poll_until ns_empty || fail "processes left in the nodes: $(for ((i = 1; i <= NNODES; i++)); do ip netns pids "$NAME-node$i"; done | tr '\n' ' ')"
}
