#!/usr/bin/env bash
# Debugger daemons and agents across the one-machine cluster of scripts/cluster.sh (issue
# 17 items 2, 3): 3 nodes, each a network namespace with its own hostname; prte runs in
# node1, a prted on node2 and node3. The debugger's front end (test/dvm/dvm_dbgd) runs in
# node1: a co-spawn with one daemon per node (examples/debugger_daemon) puts each daemon
# on its node, where it finds exactly its node's targets (PMIX_QUERY_LOCAL_PROC_TABLE
# through its prted) and releases them; fork/exec agents (examples/forkexec_agent)
# connect back to their own node's prted and start their ranks there. pterm leaves no
# process in any namespace. Needs root (skips with 77 otherwise, with a SKIP line).
set -u
NAME=pxg$$
ON_TIMEOUT=120
. "$(dirname "$0")/lib_cluster.sh"
NODES=(node1 node2 node3)
. "$SRC/test/dvm/dbg_lib.sh"
cluster_prte node1:2,node2:2,node3:2

# co-spawn, one daemon per node
on node1 "$DBG" cospawn 6/node node:1 "$DBG" target -- "$DD" >"$T/cospawn" 2>&1 ||
    fail "co-spawn over the cluster: $(cat "$T/cospawn")"
ns=$(sed -n 's/^spawn PMIX_SUCCESS ns=//p' "$T/cospawn")
[ -n "$ns" ] || fail "no namespace: $(cat "$T/cospawn")"
per_node "$T/cospawn" 6 "$ns"
expect_in "$T/cospawn" "jobend $ns status=PMIX_SUCCESS exit=0"

# fork/exec agents on every node, each connecting back to its own node's daemon
P -n 6 --map-by node --fork-exec-agent "$FEA" "$DBG" whoami >"$T/fea" 2>&1 || fail "fork/exec agents over the cluster: $(cat "$T/fea")"
fea_children "$T/fea" 6

cluster_pterm
cluster_gone
pass
