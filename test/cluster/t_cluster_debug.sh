#!/usr/bin/env bash
# Debugger daemons and agents across the one-machine cluster of scripts/cluster.sh (issue
# 17 items 2, 3): 3 nodes, each a network namespace with its own hostname; prte runs in
# node1, a prted on node2 and node3. The debugger's front end (test/dvm/dvm_dbgd) runs in
# node1: a co-spawn with one daemon per node (examples/debugger_daemon) puts each daemon
# on its node, where it finds exactly its node's targets (PMIX_QUERY_LOCAL_PROC_TABLE
# through its prted) and releases them; fork/exec agents (examples/forkexec_agent)
# connect back to their own node's prted and start their ranks there. Stop points
# (issue 17 item 1) across the nodes: at exec and in PMIx_Init, one ready event, pps
# showing the held processes on each node, a release ending the job well; and with
# co-spawned daemons, one per node, releasing their node's targets. pterm leaves no
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

# ---- stop points across the nodes (issue 17 item 1): a debugger-like tool in node1
# (test/dvm/dvm_dbg) spawns 6 processes (2 per node) stopped at exec or in PMIx_Init;
# PMIX_READY_FOR_DEBUG comes once, when all 6 are held; pps shows them STOPPED on every
# node; a release (PMIx_Job_control RESUME: each node's daemon sends SIGCONT, for a stop
# at exec; PMIX_DEBUGGER_RELEASE in the job's custom range, for a stop in init) lets
# the job end well
DBGT=$B/test/dvm/dvm_dbg
pstate() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1; }
stop_case() {
    local name=$1 kind=$2 how=$3 bp=$4 dir=$T/$1 out=$T/$1.out r pid
    mkdir -p "$dir"
    on node1 "$DBGT" tool "$kind" true 6 job "$dir" "$how+wait" >"$out" 2>&1 &
    local tool=$!
    wait_for "$out" "marker 5 "
    expect_in "$out" "ready ns=ok breakpoint=$bp"
    [ "$(grep -c '^ptab [0-5] STOPPED pid=' "$out")" = 6 ] || fail "$name: 6 held expected: $(cat "$out")"
    for r in 0 1 2 3 4 5; do
        expect_in "$out" "marker $r none" # not past its stop point
        pid=$(sed -n "s/^ptab $r STOPPED pid=//p" "$out")
        # held at exec: stopped by the kernel (the nodes share this machine's pids)
        [ "$kind" != exec ] || [ "$(pstate "$pid")" = T ] ||
            fail "$name: rank $r (pid $pid) is in state $(pstate "$pid")"
    done
    local ns
    ns=$(sed -n 's/^spawned //p' "$out")
    on node1 "$PPS" --dvm-uri "file:$T/uri" $RR --parsable >"$T/$name.pps" 2>&1 || fail "pps: $(cat "$T/$name.pps")"
    for h in "${NODES[@]}"; do
        [ "$(grep -c "^$ns:[0-9]*:[0-9]*:$h:STOPPED:" "$T/$name.pps")" = 2 ] ||
            fail "$name: pps must show 2 STOPPED on $h: $(cat "$T/$name.pps")"
    done
    touch "$dir/go"
    wait "$tool" || fail "$name: $(cat "$out")"
    expect_in "$out" "end PMIX_SUCCESS"
    expect_in "$out" "ready events 1"
    for r in 0 1 2 3 4 5; do
        [ -e "$dir/done.$r" ] || fail "$name: rank $r never finished: $(cat "$out")"
    done
}
stop_case exec exec resume pmix-exec
stop_case init init event pmix-init

# ---- a stop point with co-spawned debugger daemons, one per node: they are not held,
# hear the ready event on their node, see their node's targets STOPPED, release them
# (init: the event; exec: SIGCONT on their own node) and both jobs end well
for kind in init exec; do
    bp=pmix-$kind
    extra=""
    [ "$kind" = exec ] && extra="--no-release --cont"
    on node1 "$DBG" --stop "$kind" cospawn 6/node node:1 "$DBG" whoami -- "$DD" --wait-ready $extra \
        >"$T/dstop$kind" 2>&1 || fail "co-spawn with a stop in $kind: $(cat "$T/dstop$kind")"
    ns=$(sed -n 's/^spawn PMIX_SUCCESS ns=//p' "$T/dstop$kind")
    [ -n "$ns" ] || fail "no namespace: $(cat "$T/dstop$kind")"
    [ "$(grep -c "^ready $ns bp=$bp\$" "$T/dstop$kind")" = 1 ] || fail "one ready event: $(cat "$T/dstop$kind")"
    for d in 0 1 2; do
        expect_in "$T/dstop$kind" "dbgd $d/3 host ${NODES[$d]} lrank 0/1 target $ns local 2 total 6 mine $(mine_of 6 $d) pids "
        expect_in "$T/dstop$kind" "dbgd $d/3 ready $bp states STOPPED,STOPPED"
    done
    for r in 0 1 2 3 4 5; do
        expect_in "$T/dstop$kind" "whoami $r/6 lsize 2 "
    done
    [ "$(grep -c '^jobend .* status=PMIX_SUCCESS exit=0$' "$T/dstop$kind")" = 2 ] ||
        fail "both jobs must end well: $(cat "$T/dstop$kind")"
done

cluster_pterm
cluster_gone
pass
