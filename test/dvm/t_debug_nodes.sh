#!/usr/bin/env bash
# Debugger daemons across nodes (issue 17 item 2): prte --host <this node>,fake1,fake2
# with the stand-in agent test/daemons/local_agent.sh (a prted per fake node, reporting
# the fake name). Each daemon lands on the node of the processes it serves: per node
# (one daemon per node with targets, each finding exactly its node's targets through
# PMIX_QUERY_LOCAL_PROC_TABLE — answered for a prted node by the controller, QUERY
# message — and all of them through PMIX_QUERY_PROC_TABLE) and per process (the daemon
# beside its target, by local rank), co-spawned at 12 and 64 processes and co-located
# with a running job; a daemon killed on another node ends the co-spawned application
# with a message naming it; fork/exec and exec agents on every node (issue 17 item 3).
# Nothing is left behind.
. "$(dirname "$0")/lib.sh"
export PRTE_MCA_plm_ssh_agent=$(cd "$(dirname "$0")/../daemons" && pwd)/local_agent.sh
export PX_AGENT_PIDS=$T/pids
mkdir -p "$PX_AGENT_PIDS"
HERE=$(hostname)
start_dvm --host "$HERE:22,fake1:21,fake2:21"
NODES=("$HERE" fake1 fake2)
. "$(dirname "$0")/dbg_lib.sh"

for n in 12 64; do
    out=$T/cospawn$n
    run_to 180 "$DBG" cospawn $n/node node:1 "$DBG" target -- "$DD" >"$out" 2>&1 ||
        fail "co-spawn of $n over 3 nodes: $(cat "$out")"
    ns=$(sed -n 's/^spawn PMIX_SUCCESS ns=//p' "$out")
    [ -n "$ns" ] || fail "no namespace: $(cat "$out")"
    per_node "$out" $n "$ns"
    expect_in "$out" "jobend $ns status=PMIX_SUCCESS exit=0"
done

# per process: daemon d serves target (d/2) + 3*(d%2), beside it
out=$T/perproc
run_to 120 "$DBG" cospawn 6/node proc:1 "$DBG" target -- "$DD" >"$out" 2>&1 ||
    fail "co-spawn per process over 3 nodes: $(cat "$out")"
ns=$(sed -n 's/^spawn PMIX_SUCCESS ns=//p' "$out")
for d in 0 1 2 3 4 5; do
    expect_in "$out" "dbgd $d/6 host ${NODES[$((d / 2))]} lrank $((d % 2))/2 target $ns local 2 total 6 mine $((d / 2 + 3 * (d % 2))) pids "
done
[ "$(grep -c '^target [0-9]* released by ' "$out")" = 6 ] || fail "releases: $(cat "$out")"

# co-location onto a job running on the three nodes
run_to 120 "$PRUN" $RR -n 6 --map-by node "$DBG" target >"$T/running" 2>&1 &
prun=$!
wait_for "$T/running" "target " 6
tns=$(run_to 10 "$PPS" --dvm-uri "file:$T/uri" $RR --parsable 2>/dev/null | head -1 | cut -d: -f1)
[ -n "$tns" ] || fail "no namespace from pps"
run_to 60 "$DBG" attach "$tns" node:1 "$DD" >"$T/attach" 2>&1 || fail "attach: $(cat "$T/attach")"
wait $prun || fail "the debugged job failed: $(cat "$T/running")"
cat "$T/running" >>"$T/attach" # (once prun has ended: the releases come after attach's end)
per_node "$T/attach" 6 "$tns"

# fork/exec and exec agents on every node: each agent connects back to its own node's
# daemon (a prted's server, no rendezvous file) and starts its rank there
run_to 120 "$PRUN" $RR --dvm-uri "file:$T/uri" -n 6 --map-by node \
    --fork-exec-agent "$FEA" "$DBG" whoami >"$T/fea" 2>&1 ||
    fail "fork/exec agents over 3 nodes: $(cat "$T/fea")"
fea_children "$T/fea" 6
run_to 120 "$PRUN" $RR --dvm-uri "file:$T/uri" -n 6 --map-by node \
    --exec-agent "$B/examples/exec_agent" "$DBG" whoami >"$T/ea" 2>&1 ||
    fail "exec agents over 3 nodes: $(cat "$T/ea")"
[ "$(grep -c '^whoami [0-9]/6 lsize 2 pid \([0-9]*\) ppid [0-9]* agent \1$' "$T/ea")" = 6 ] ||
    fail "exec agents: $(cat "$T/ea")"

# a daemon killed on a fake node ends its application, naming the daemon's node
out=$T/die
run_to 120 "$DBG" cospawn 3/node node:1 "$DBG" target -- "$DD" --no-release --die 9 >"$out" 2>&1 ||
    fail "co-spawn with dying daemons: $(cat "$out")"
ns=$(sed -n 's/^spawn PMIX_SUCCESS ns=//p' "$out")
expect_in "$out" "jobend $ns status=PMIX_ERR_JOB_TERM_WO_SYNC exit=1"
expect_in "$out" "Job $ns was terminated because the debugger daemons spawned with it"
grep -q "on node \($HERE\|fake1\|fake2\) (pid" "$out" || fail "no node named: $(cat "$out")"
wait_pps dvm_dbgd 0
wait_pps debugger_daemon 0
stop_dvm
pass
