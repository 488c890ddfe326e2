# lib_cluster.sh - sourced by the DVM tests on scripts/cluster.sh's nodes (t_cluster_dvm.sh,
# t_cluster_mpi.sh, t_cluster_debug.sh, t_faults.sh, t_slurm.sh) with NAME set (the run's
# name, unique to the test): skips (77, with a SKIP line) where the cluster cannot be made
# (not root, a tool missing, no network namespaces); fails when a tool of CLUSTER_TOOLS
# (what the test itself needs, installed by scripts/install-deps.sh) is missing; then
# ../dvm/lib.sh (private TMPDIR, the leftover checks), CLUSTER_N nodes up (default 3:
# node1..node3; A is their agent), taken down at exit (after the caller's
# cluster_teardown, when it defines one). Gives:
#   on HOST WORDS...   run on a node, as ssh would (words joined, run by sh); bounded by
#                      ON_TIMEOUT seconds (default 60)
#   ns_empty [N...]    no process in node N's namespace (default: every node)
#   P ARGS...          prun in node1 against the DVM of cluster_prte
#   cluster_prte HOSTS prte --daemonize in node1 over HOSTS (--host) with the agent
#   cluster_pterm, cluster_gone   pterm from node1; prte and every process of the nodes gone
set -u
SRC=${PX_SRC:?PX_SRC must name the source directory}
CL=$SRC/scripts/cluster.sh
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
for t in ip unshare nsenter python3 timeout; do
    command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not installed"; exit 77; }
done
for t in ${CLUSTER_TOOLS:-}; do
    command -v "$t" >/dev/null 2>&1 || { echo "FAIL: $t not installed (scripts/install-deps.sh)"; exit 1; }
done
CLUSTER_N=${CLUSTER_N:-3}
if ! ip netns add "$NAME-probe" 2>/dev/null; then
    echo "SKIP: cannot create network namespaces here"
    exit 77
fi
ip netns delete "$NAME-probe"
. "$SRC/test/dvm/lib.sh"
export PXCLUSTER_OWNER=$$
teardown() {
    if declare -F cluster_teardown >/dev/null; then
        cluster_teardown
    fi
    cleanup # lib.sh: what is left of ours is killed, $T removed
    "$CL" -n "$NAME" down
}
trap teardown EXIT
A=$(run_to 60 "$CL" -n "$NAME" up "$CLUSTER_N") || fail "cluster up failed"

on() {
    local h=$1
    shift
    run_to "${ON_TIMEOUT:-60}" "$A" "$h" "$*"
}
ns_empty() {
    local i
    for i in ${*:-$(seq 1 "$CLUSTER_N")}; do
        [ -z "$(ip netns pids "$NAME-node$i")" ] || return 1
    done
}
P() { on node1 "$PRUN" --dvm-uri "file:$T/uri" $RR "$@"; }

cluster_prte() {
    on node1 "$PRTE" --daemonize --report-uri "$T/uri" --report-pid "$T/pid" $RR \
        --host "$1" --prtemca plm_ssh_agent "$A" >"$T/prte.out" 2>&1 ||
        fail "prte on node1: $(cat "$T/prte.out")"
    DVM_PID=$(cat "$T/pid")
}

# cluster_pterm : pterm from node1
cluster_pterm() { on node1 "$PTERM" --dvm-uri "file:$T/uri" $RR || fail "pterm failed"; }

# cluster_gone : prte has exited and no process is left in any node's namespace
cluster_gone() {
    poll_until gone "$DVM_PID" || fail "prte still runs after pterm"
    DVM_PID=""
    poll_until ns_empty ||
        fail "processes left in the nodes: $(for i in $(seq 1 "$CLUSTER_N"); do ip netns pids "$NAME-node$i"; done | tr '\n' ' ')"
}
