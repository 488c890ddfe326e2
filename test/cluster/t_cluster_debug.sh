#!/usr/bin/env bash
# Debugger daemons and agents across the one-machine cluster of scripts/cluster.sh (issue
# 17 items 2, 3): 3 nodes, each a network namespace with its own hostname; prte runs in
# node1, a prted on node2 and node3. The debugger's front end (test/dvm/dvm_dbg) runs in
# node1: a co-spawn with one daemon per node (examples/debugger_daemon) puts each daemon
# on its node, where it finds exactly its node's targets (PMIX_QUERY_LOCAL_PROC_TABLE
# through its prted) and releases them; fork/exec agents (examples/forkexec_agent)
# connect back to their own node's prted and start their ranks there. pterm leaves no
# process in any namespace. Needs root (skips with 77 otherwise, with a SKIP line).
set -u
SRC=${PX_SRC:?PX_SRC must name the source directory}
CL=$SRC/scripts/cluster.sh
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
for t in ip unshare nsenter python3 timeout; do
    command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not installed"; exit 77; }
done
NAME=pxg$$
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
A=$(run_to 60 "$CL" -n "$NAME" up 3) || fail "cluster up failed"
NODES=(node1 node2 node3)
DBG=$B/test/dvm/dvm_dbg
DD=$B/examples/debugger_daemon
FEA=$B/examples/forkexec_agent

# on HOST WORDS... : run on a node, as ssh would (words joined, run by sh)
on() {
    local h=$1
    shift
    run_to 120 "$A" "$h" "$*"
}

on node1 "$PRTE" --daemonize --report-uri "$T/uri" --report-pid "$T/pid" $RR \
    --host node1:2,node2:2,node3:2 --prtemca plm_ssh_agent "$A" >"$T/prte.out" 2>&1 ||
    fail "prte on node1: $(cat "$T/prte.out")"
DVM_PID=$(cat "$T/pid")

# co-spawn, one daemon per node
on node1 "$DBG" cospawn 6/node node:1 "$DBG" target -- "$DD" >"$T/cospawn" 2>&1 ||
    fail "co-spawn over the cluster: $(cat "$T/cospawn")"
ns=$(sed -n 's/^spawn PMIX_SUCCESS ns=//p' "$T/cospawn")
[ -n "$ns" ] || fail "no namespace: $(cat "$T/cospawn")"
for d in 0 1 2; do
    expect_in "$T/cospawn" "dbgd $d/3 host ${NODES[$d]} lrank 0/1 target $ns local 2 total 6 mine $d,$((d + 3)) pids "
done
for r in 0 1 2 3 4 5; do
    expect_in "$T/cospawn" "target $r/6 lsize 2 lrank $((r / 3)) host ${NODES[$((r % 3))]} pid "
    grep -q "^target $r released by " "$T/cospawn" || fail "target $r not released: $(cat "$T/cospawn")"
done
expect_in "$T/cospawn" "jobend $ns status=PMIX_SUCCESS exit=0"

# fork/exec agents on every node, each connecting back to its own node's daemon
on node1 "$PRUN" --dvm-uri "file:$T/uri" $RR -n 6 --map-by node --fork-exec-agent "$FEA" \
    "$DBG" whoami >"$T/fea" 2>&1 || fail "fork/exec agents over the cluster: $(cat "$T/fea")"
for r in 0 1 2 3 4 5; do
    apid=$(sed -n "s/^fea $r pid \([0-9]*\) host ${NODES[$((r % 3))]} target .*:$r cmd .*/\1/p" "$T/fea")
    [ -n "$apid" ] || fail "agent of rank $r on ${NODES[$((r % 3))]}: $(cat "$T/fea")"
    grep "^whoami $r/6 lsize 2 " "$T/fea" | grep -q " ppid $apid agent -$" ||
        fail "rank $r is not its agent's child: $(cat "$T/fea")"
done

on node1 "$PTERM" --dvm-uri "file:$T/uri" $RR || fail "pterm failed"
poll_until gone "$DVM_PID" || fail "prte still runs after pterm"
DVM_PID=""
ns_empty() {
    local i
    for i in 1 2 3; do
        [ -z "$(ip netns pids "$NAME-node$i")" ] || return 1
    done
}
poll_until ns_empty || fail "processes left in the nodes: $(for i in 1 2 3; do ip netns pids "$NAME-node$i"; done | tr '\n' ' ')"
pass
