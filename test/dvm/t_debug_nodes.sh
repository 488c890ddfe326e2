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
# the proc tables (pps, from the controller) show each rank's own process, the one its
# agent started, not the agent; the agents form a namespace of the DVM ("<job>.fea":
# PMIX_QUERY_NAMESPACES, pps, its proc table with the agents' pids and nodes) whose job
# data a tool of the controller reads for every agent, whichever node it is on; debugger
# daemons placed beside the job find the processes' pids and release them
run_to 120 "$PRUN" $RR --dvm-uri "file:$T/uri" -n 6 --map-by node \
    --fork-exec-agent "$FEA" "$DBG" target >"$T/fear" 2>&1 &
prun=$!
wait_for "$T/fear" "target " 6
tns=$(sed -n 's/^fea 0 pid [0-9]* host [^ ]* target \(.*\):0 cmd .*/\1/p' "$T/fear")
[ -n "$tns" ] || fail "no agent of rank 0: $(cat "$T/fear")"
pps_pids_ok() {
    run_to 10 "$PPS" --dvm-uri "file:$T/uri" $RR --parsable >"$T/pps" 2>&1 || return 1
    local r pid apid host
    for ((r = 0; r < 6; r++)); do
        pid=$(sed -n "s/^target $r\/6 .* pid \([0-9]*\)$/\1/p" "$T/fear")
        apid=$(sed -n "s/^fea $r pid \([0-9]*\) .*/\1/p" "$T/fear")
        host=${NODES[$((r % 3))]}
        grep -q "^$tns:$r:$pid:$host:" "$T/pps" && grep -q "^$tns.fea:$r:$apid:$host:RUNNING:.*:$FEA\$" "$T/pps" ||
            return 1
    done
}
poll_until pps_pids_ok || fail "pps must list the processes and their agents: $(cat "$T/pps") $(cat "$T/fear")"
run_to 30 "$DBG" feainfo "$tns" >"$T/feainfo" 2>&1 || fail "the agents' job data: $(cat "$T/feainfo")"
expect_in "$T/feainfo" "feainfo size 6 nodes $HERE,fake1,fake2"
for ((r = 0; r < 6; r++)); do
    expect_in "$T/feainfo" "feainfo $r host ${NODES[$((r % 3))]} target $tns:$r"
done
run_to 60 "$DBG" attach "$tns" node:1 "$DD" >"$T/feattach" 2>&1 || fail "attach: $(cat "$T/feattach")"
grep "^namespaces " "$T/feattach" | grep -qF "$tns.fea" ||
    fail "PMIX_QUERY_NAMESPACES lacks the agents' namespace: $(cat "$T/feattach")"
wait $prun || fail "the job under fork/exec agents failed: $(cat "$T/fear")"
cat "$T/fear" >>"$T/feattach"
per_node "$T/feattach" 6 "$tns"
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
