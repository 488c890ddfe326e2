#!/usr/bin/env bash
# The routing tree (issue 14): prte --prtemca routed_radix 2 over this node and five fake
# nodes (test/daemons/local_agent.sh): daemons 1 and 2 are daemon 0's children, 3 and 4
# daemon 1's, 5 daemon 2's. Checks: the tree is made; every daemon gets every LAUNCH
# (jobs --map-by node over the six nodes see their facts, a --pset job sees its set on
# every node, stdin reaches the rank on the deepest node) and fences with data complete,
# their contributions coming up the tree (the controller hears only from daemons 0, 1
# and 2); PRTE_MCA_routed_radix the same, with an interior daemon that relays late (job
# messages straight from the controller wait for their job's LAUNCH: stdin, a kill); the
# loss of an interior daemon (kill -9 of
# daemon 1) loses its subtree (daemons 3 and 4 stop), ends the job naming the node, and
# the DVM goes on with the rest; a bad radix is refused with a clear message.
. "$(dirname "$0")/lib.sh"
export PRTE_MCA_plm_ssh_agent=$(cd "$(dirname "$0")/../daemons" && pwd)/local_agent.sh
export PX_AGENT_PIDS=$T/pids
mkdir -p "$PX_AGENT_PIDS"
HERE=$(hostname)
HOSTS="$HERE:2,t1:2,t2:2,t3:2,t4:2,t5:2"
NODES=("$HERE" t1 t2 t3 t4 t5)
PSET=$B/test/dvm/dvm_pset
P() { run_to 60 "$PRUN" $RR --dvm-uri "file:$T/uri" "$@"; }

# --- a bad radix: refused before anything starts
for bad in 0 -1 two 4097 ""; do
    run_to 20 "$PRTE" $RR --host "$HOSTS" --prtemca routed_radix "$bad" >"$T/bad" 2>&1 &&
        fail "routed_radix '$bad' was taken: $(cat "$T/bad")"
    if [ -n "$bad" ]; then
        expect_in "$T/bad" "gives \"routed_radix\" the value \"$bad\", which is not a radix"
    else
        expect_in "$T/bad" "gives an empty value for \"routed_radix\""
    fi
done
PRTE_MCA_routed_radix=x run_to 20 "$PRTE" $RR --host "$HOSTS" >"$T/bad" 2>&1 &&
    fail "PRTE_MCA_routed_radix=x was taken"
expect_in "$T/bad" "PRTE_MCA_routed_radix gives \"routed_radix\" the value \"x\", which is not a radix"

# --- a DVM whose daemons form a tree of radix 2 (prte not daemonized: its log is a file)
"$PRTE" --report-uri "$T/uri" --report-pid "$T/pid" $RR --host "$HOSTS" \
    --prtemca routed_radix 2 -vvv >"$T/prte.out" 2>&1 &
wait_for "$T/prte.out" "DVM ready"
DVM_PID=$(cat "$T/pid")
expect_in "$T/prte.out" "routing tree: radix 2 over 6 daemons"

# every daemon gets every LAUNCH, fences with data and direct modex across the six
check_xnode() {
    local out=$1 n=$2 r
    grep -q "FAIL" "$out" && fail "xnode failures: $(grep FAIL "$out" | head -5)"
    for ((r = 0; r < n; r++)); do
        expect_in "$out" "xnode rank $r host ${NODES[$r]} nodeid $r "
        expect_in "$out" "xnode rank $r exchanged with $n ranks"
    done
}
for i in 1 2 3; do
    P -n 6 --map-by node "$APP" xnode >"$T/x$i" 2>&1 || fail "job $i: $(cat "$T/x$i")"
    check_xnode "$T/x$i" 6
done
# fence contributions came up the tree: only daemon 0's children (and daemon 0) report
# to the controller
grep -q "fence .*: daemon [345] in" "$T/prte.out" &&
    fail "a fence contribution came straight from a grandchild: $(grep 'fence .*: daemon' "$T/prte.out" | head)"
expect_in "$T/prte.out" ": daemon 1 in ("
expect_in "$T/prte.out" ": daemon 2 in ("
# process sets (PSET down the tree) on every node
P -n 6 --map-by node --pset sea "$PSET" names >"$T/ps" 2>&1 || fail "pset job: $(cat "$T/ps")"
for r in 0 1 2 3 4 5; do
    grep -q "names rank $r host ${NODES[$r]} get=sea query=[^ ]*sea[^ ]* members=0,1,2,3,4,5$" "$T/ps" ||
        fail "rank $r's process set: $(cat "$T/ps")"
done
# stdin to the rank on t5 (its STDIN may reach t5 before the LAUNCH relayed through t2:
# it waits for it)
seq 1 5000 >"$T/in"
for i in 1 2 3; do
    P -n 6 --map-by node --stdin 5 "$APP" cat <"$T/in" >"$T/cat" 2>"$T/caterr" ||
        fail "stdin job: $(cat "$T/caterr")"
    cmp -s "$T/in" "$T/cat" || fail "stdin did not reach rank 5 on t5 intact"
done

# --- kill -9 of daemon 1 (t1, interior): its subtree (t3, t4) is lost with it, the job
# ends naming t1, the DVM goes on with this node, t2 and t5
"$PRUN" $RR --dvm-uri "file:$T/uri" -n 6 --map-by node "$APP" sleep 60 >"$T/lost" 2>&1 &
p=$!
wait_app_pids sleep 6
dead=$(cat "$PX_AGENT_PIDS/t1.pid")
kill -9 "$dead"
wait $p && fail "the job survived the loss of t1's daemon: $(cat "$T/lost")"
# (whichever loss of the subtree the controller notices first ends the job)
grep -qE "the daemon on node t([134]) \(daemon \1\) was lost" "$T/lost" ||
    fail "the job's end names a node of t1's subtree: $(cat "$T/lost")"
wait_for "$T/prte.out" "lost the daemon 1 on host t1"
for h in t3 t4; do
    poll_until gone "$(cat "$PX_AGENT_PIDS/$h.pid")" || fail "$h's daemon outlived its parent t1"
done
wait_for "$T/prte.out" "lost the daemon 3 on host t3"
wait_for "$T/prte.out" "lost the daemon 4 on host t4"
app_none() { [ -z "$(app_pids "$1")" ]; }
poll_until app_none sleep || fail "processes left after the loss of t1: $(app_pids sleep)"
# (a daemon killed with SIGKILL leaves its socket and job directory to the next daemon
# started on its node: none is, here)
rm -rf "$TMPDIR/pmix-$dead.sock" "$TMPDIR"/prte."$dead".*
NODES=("$HERE" t2 t5)
P -n 3 --map-by node "$APP" xnode >"$T/after" 2>&1 || fail "a job after the loss: $(cat "$T/after")"
for r in 0 1 2; do
    expect_in "$T/after" "xnode rank $r host ${NODES[$r]} "
    expect_in "$T/after" "xnode rank $r exchanged with 3 ranks"
done
stop_dvm
pids_gone() {
    local f
    for f in "$PX_AGENT_PIDS"/*.pid; do gone "$(cat "$f")" || return 1; done
}
poll_until pids_gone || fail "prted left after pterm"

# --- PRTE_MCA_routed_radix: the same tree. t2 relays late (PX_AGENT_SLOW_RELAY), so
# what the controller sends t5 straight (stdin, the kill of a failed job) comes before
# t5 has the job's LAUNCH: it waits for it
rm -f "$PX_AGENT_PIDS"/*.pid
PX_AGENT_SLOW_RELAY=t2 PRTE_MCA_routed_radix=2 "$PRTE" --report-uri "$T/uri" \
    --report-pid "$T/pid" $RR --host "$HOSTS" -v >"$T/prte2.out" 2>&1 &
wait_for "$T/prte2.out" "DVM ready"
DVM_PID=$(cat "$T/pid")
expect_in "$T/prte2.out" "routing tree: radix 2 over 6 daemons"
NODES=("$HERE" t1 t2 t3 t4 t5)
P -n 6 --map-by node "$APP" xnode >"$T/x4" 2>&1 || fail "job with the variable's tree: $(cat "$T/x4")"
check_xnode "$T/x4" 6
P -n 6 --map-by node --stdin 5 "$APP" cat <"$T/in" >"$T/cat" 2>"$T/caterr" ||
    fail "stdin job (slow relay): $(cat "$T/caterr")"
cmp -s "$T/in" "$T/cat" || fail "stdin did not reach rank 5 on t5 intact (slow relay)"
P --map-by node -n 1 "$APP" exit 3 : -n 5 "$APP" sleep 60 >"$T/k" 2>&1
rc=$?
[ $rc = 3 ] || fail "a job whose rank 0 exits 3 at once gave $rc (slow relay): $(cat "$T/k")"
poll_until app_none sleep || fail "t5's rank outlived its job's kill: $(app_pids sleep)"
stop_dvm
poll_until pids_gone || fail "prted left after pterm"

# prterun reads its stdin at once: the first STDIN for rank 5 leaves right after the
# LAUNCH, which t2 relays late; t5 keeps it until the LAUNCH is there
rm -f "$PX_AGENT_PIDS"/*.pid
for i in 1 2 3; do
    PX_AGENT_SLOW_RELAY=t2 run_to 60 "$PRTERUN" $RR --host "$HOSTS" --prtemca routed_radix 2 \
        -n 6 --map-by node --stdin 5 "$APP" cat <"$T/in" >"$T/rcat" 2>"$T/rcaterr" ||
        fail "prterun's stdin job: $(cat "$T/rcaterr")"
    cmp -s "$T/in" "$T/rcat" || fail "prterun's stdin did not reach rank 5 on t5 intact"
done
poll_until pids_gone || fail "prted left after prterun"
pass
