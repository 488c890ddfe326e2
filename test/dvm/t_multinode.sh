#!/usr/bin/env bash
# Jobs across nodes (issue 14, items 1-4 of the launch path): prte --host <this
# node>:2,fake1:2,fake2:2 with the stand-in agent test/daemons/local_agent.sh (a prted
# per fake node, on this machine, reporting the fake name). Checks: each process runs on
# the node its PMIX_HOSTNAME names and sees that node's facts (dvm_app xnode checks
# PMIX_LOCAL_PEERS, PMIX_LOCAL_SIZE, PMIX_LOCAL_RANK, PMIX_NODEID, PMIX_NUM_NODES against
# every rank's host) under --map-by node, slot and ppr:2:node; a fence with data and a
# direct modex across nodes (put/commit/fence/get every peer); PMIX_NODE_RANK counts the
# other jobs' processes on the node; an event raised on one node reaches the others,
# PMIx_Job_control from another node signals a rank here; output from every node arrives byte-exact (per-rank
# files) and nothing is lost at exit; stdin reaches a rank on another node; exit codes,
# signals and PMIx_Abort from another node end the job with the node named; signals
# forwarded by prun reach every node; process sets and their events on every node
# (dvm_pset); PMIx_Spawn from a process on another node (dvm_grp); a prted killed with
# kill -9 ends its job with a
# message naming the node and the ranks, and the DVM goes on without that node; pterm
# during a job on several nodes ends it and leaves no process; a prted's own message
# (SIGTERM) reaches prterun's terminal through the controller, counted when repeated.
. "$(dirname "$0")/lib.sh"
export PRTE_MCA_plm_ssh_agent=$(cd "$(dirname "$0")/../daemons" && pwd)/local_agent.sh
export PX_AGENT_PIDS=$T/pids
mkdir -p "$PX_AGENT_PIDS"
HERE=$(hostname)
start_dvm --host "$HERE:2,fake1:2,fake2:2"
NODES=("$HERE" fake1 fake2)
P() { run_to 60 "$PRUN" $RR "$@"; }

# a fence whose collected data is more than one release message carries (3 x 25 MB over
# 64 MiB): every participant's fence fails at once (PMIX_ERR_OUT_OF_RESOURCE) with the
# DVM's message; none waits for ever (bench/bench_fence: put SIZE bytes, fence, collect)
FENCE=$B/bench/bench_fence
[ -x "$FENCE" ] || fail "$FENCE was not built"
P -n 3 --map-by node "$FENCE" 1 25000000 >"$T/big" 2>&1
rc=$?
[ $rc != 0 ] && [ $rc != 124 ] && [ $rc != 137 ] || fail "a 75 MB fence: exit $rc: $(cat "$T/big")"
expect_in "$T/big" "PMIx_Fence (collect): PMIX_ERR_OUT_OF_RESOURCE"

# check_map OUT N HOSTOF LROF : every rank's xnode line names the host and local rank
# the policy gives (HOSTOF / LROF: shell arithmetic on r), node rank = local rank, and
# every rank exchanged with all N ranks
check_map() {
    local out=$1 n=$2 r h lr
    grep -q "FAIL" "$out" && fail "xnode failures: $(grep FAIL "$out" | head -5)"
    for ((r = 0; r < n; r++)); do
        h=${NODES[$(($3))]}
        lr=$(($4))
        expect_in "$out" "xnode rank $r host $h nodeid $(($3)) lrank $lr nrank $lr lsize 2 "
        expect_in "$out" "xnode rank $r exchanged with $n ranks"
    done
    [ "$(grep -c ' nnodes 3$' "$out")" = "$n" ] || fail "PMIX_NUM_NODES is not 3 everywhere: $(cat "$out")"
}

P -n 6 --map-by node "$APP" xnode >"$T/node" 2>&1 || fail "map-by node: $(cat "$T/node")"
check_map "$T/node" 6 'r % 3' 'r / 3'
expect_in "$T/node" "xnode rank 1 host fake1 nodeid 1 lrank 0 nrank 0 lsize 2 peers 1,4 nnodes 3"
P -n 6 --map-by slot "$APP" xnode >"$T/slot" 2>&1 || fail "map-by slot: $(cat "$T/slot")"
check_map "$T/slot" 6 'r / 2' 'r % 2'
expect_in "$T/slot" "xnode rank 5 host fake2 nodeid 2 lrank 1 nrank 1 lsize 2 peers 4,5 nnodes 3"
P -n 6 --map-by ppr:2:node "$APP" xnode >"$T/ppr" 2>&1 || fail "ppr:2:node: $(cat "$T/ppr")"
check_map "$T/ppr" 6 'r / 2' 'r % 2'

# node rank: one process of another job holds rank 0 on each node
"$PRUN" $RR -n 3 --map-by node "$APP" sleep 60 >"$T/sleep" 2>&1 &
sleeper=$!
wait_app_pids sleep 3
P -n 3 --map-by node "$APP" xnode >"$T/nrank" 2>&1 || fail "second job: $(cat "$T/nrank")"
for r in 0 1 2; do
    expect_in "$T/nrank" "xnode rank $r host ${NODES[$r]} nodeid $r lrank 0 nrank 1 lsize 1 peers $r nnodes 3"
done
kill -TERM $sleeper
wait $sleeper
app_none() { [ -z "$(app_pids "$1")" ]; }
poll_until app_none sleep || fail "the sleeping job outlived its prun"

# an event beyond a node reaches every node (raised on fake2, and on this node); job
# control from fake2 signals rank 0 here
for who in 2 0; do
    P -n 3 --map-by node "$APP" xevent $who >"$T/ev" 2>&1 || fail "xevent $who: $(cat "$T/ev")"
    for r in 0 1 2; do
        expect_in "$T/ev" "xevent rank $r got the event from $who"
    done
    expect_in "$T/ev" "xevent rank $who jobctl PMIX_SUCCESS"
    expect_in "$T/ev" "xevent rank 0 got SIGUSR1"
done

# process sets on every node (PSET): a job's --pset is seen by each of its processes,
# wherever it runs, through PMIx_Get(PMIX_PSET_NAMES) and the pset queries; a job already
# running on every node hears PMIX_PROCESS_SET_DEFINE and _DELETE on each node
PSET=$B/test/dvm/dvm_pset
"$PRUN" $RR -n 3 --map-by node "$PSET" watch ocean >"$T/watch" 2>&1 &
w=$!
wait_for "$T/watch" "ready" 3
P -n 3 --map-by node --pset ocean "$PSET" names >"$T/names" 2>&1 || fail "pset job: $(cat "$T/names")"
for r in 0 1 2; do
    expect_in "$T/names" "names rank $r host ${NODES[$r]} get=ocean query="
    grep "names rank $r " "$T/names" | grep -q "query=[^ ]*ocean[^ ]* members=0,1,2$" ||
        fail "rank $r's pset queries: $(cat "$T/names")"
done
wait $w || fail "the pset watchers: $(cat "$T/watch")"
for r in 0 1 2; do
    expect_in "$T/watch" "watch rank $r host ${NODES[$r]} define ocean members=3"
    expect_in "$T/watch" "watch rank $r host ${NODES[$r]} delete ocean"
done

# PMIx_Spawn from a process on fake1 (rank 1; SPAWN through the controller): the children
# (mapped by node) know their parent, their output reaches the parent's prun, the parent
# hears their JOB_END; a child that cannot start is the spawn's error
GRP=$B/test/dvm/dvm_grp
P -n 2 --map-by node "$GRP" @1/job @1/env:PX_PRTED_TEST_NODENAME @1/'spawn:2:mapby=node:job+parent+env%PX_PRTED_TEST_NODENAME' \
    @1/waitend @1/'spawn:1:-:exit%0%3' @1/waitend @1/'spawn:1:bad:-' >"$T/sp" 2>&1 ||
    fail "a spawn from fake1: $(cat "$T/sp")"
p=$(sed -n 's/^rank 1 job: //p' "$T/sp" | head -1)
c=$(sed -n 's/.*spawn:2:mapby=node:.*: PMIX_SUCCESS child=\([0-9]*\)$/\1/p' "$T/sp")
[ -n "$p" ] && [ -n "$c" ] && [ "$p" != "$c" ] || fail "parent and child jobs: $(cat "$T/sp")"
[ "$(grep -c "parent: parent=$p:1 spawned=true" "$T/sp")" = 2 ] || fail "the children's parent: $(cat "$T/sp")"
# the parent's rank 1 and the child's rank 1 run on fake1
[ "$(grep -c "rank 1 env:PX_PRTED_TEST_NODENAME: fake1" "$T/sp")" = 2 ] || fail "placement: $(cat "$T/sp")"
expect_in "$T/sp" "rank 1 jobend child=$c status=PMIX_SUCCESS exit=0"
expect_in "$T/sp" "status=PMIX_ERR_JOB_NON_ZERO_TERM exit=3"
expect_in "$T/sp" "rank 1 spawn:1:bad:-: PMIX_ERR_JOB_EXE_NOT_FOUND child=-"

# output: byte-exact per rank from every node, nothing lost at exit, stdin to fake1
N=20000000
want=$("$APP" write $N | sha256sum | cut -d' ' -f1)
P -n 3 --map-by node --output dir="$T/o":nocopy "$APP" write $N >"$T/out" 2>&1 ||
    fail "write: $(cat "$T/out")"
for r in 0 1 2; do
    f=$(ls "$T"/o/*/rank.$r/stdout)
    [ "$(sha256sum <"$f" | cut -d' ' -f1)" = "$want" ] || fail "rank $r's output differs ($(stat -c %s "$f") bytes)"
done
rm -rf "$T/o"
for i in 1 2 3; do
    out=$(P -n 6 --map-by node "$APP" write 10 2>&1) || fail "write 10"
    [ "$out" = "$(printf 'abcdefghij%.0s' 1 2 3 4 5 6)" ] || fail "lost bytes: '$out'"
done
P -n 6 --map-by node --output tag "$APP" both 40 >"$T/tag" 2>"$T/tagerr" || fail "tag: $(cat "$T/tagerr")"
for r in 0 1 2 3 4 5; do
    grep "^\[[0-9]*,$r\]<stdout>: " "$T/tag" | sed 's/.*: //' >"$T/got"
    seq 0 2 38 | sed 's/^/out /' >"$T/want"
    cmp -s "$T/got" "$T/want" || fail "rank $r's lines differ: $(cat "$T/got" | head -3)"
    [ "$(grep -c "^\[[0-9]*,$r\]<stderr>: err" "$T/tagerr")" = 20 ] || fail "rank $r's stderr lines"
done
seq 1 20000 >"$T/in"
P -n 3 --map-by node --stdin 1 "$APP" cat <"$T/in" >"$T/cat" 2>"$T/err" || fail "cat: $(cat "$T/err")"
cmp -s "$T/in" "$T/cat" || fail "stdin did not reach rank 1 (fake1) intact"

# exit codes, signals and abort on another node: the node is named
P --map-by node -n 1 "$APP" sleep 30 : -n 1 "$APP" exit 7 : -n 1 "$APP" sleep 30 >"$T/x" 2>&1
rc=$?
[ $rc = 7 ] || fail "exit 7 on fake1 gave $rc: $(cat "$T/x")"
expect_in "$T/x" "fake1"
P --map-by node -n 1 "$APP" sleep 30 : -n 1 "$APP" sleep 30 : -n 1 "$APP" crash >"$T/x" 2>&1
rc=$?
[ $rc = 139 ] || fail "a crash on fake2 gave $rc: $(cat "$T/x")"
expect_in "$T/x" "fake2"
P --map-by node -n 1 "$APP" sleep 30 : -n 1 "$APP" abort 5 "remote-bye" : -n 1 "$APP" sleep 30 >"$T/x" 2>&1
rc=$?
[ $rc = 5 ] || fail "an abort on fake1 gave $rc: $(cat "$T/x")"
expect_in "$T/x" "remote-bye"
expect_in "$T/x" "fake1"
"$PRUN" $RR -n 3 --map-by node "$APP" trap >"$T/trap" 2>&1 &
p=$!
wait_for "$T/trap" "ready" 3
kill -HUP $p
wait_for "$T/trap" "got signal 1" 3
kill -TERM $p
wait $p
[ "$(count_in "$T/trap" 'got signal 15')" = 3 ] || fail "every node's rank must get SIGTERM: $(cat "$T/trap")"

# kill -9 of fake1's prted during a job: the job ends naming fake1 and its ranks
"$PRUN" $RR -n 6 --map-by node "$APP" sleep 60 >"$T/lost" 2>&1 &
p=$!
wait_app_pids sleep 6
dead=$(cat "$PX_AGENT_PIDS/fake1.pid")
kill -9 "$dead"
wait $p
rc=$?
[ $rc != 0 ] || fail "the job survived the loss of a node's daemon"
expect_in "$T/lost" "the daemon on node fake1 (daemon 1) was lost while ranks 1,4 of the job ran"
poll_until app_none sleep || fail "processes left after the loss of fake1: $(app_pids sleep)"
# a daemon killed with SIGKILL cannot remove its server's socket and its job's directory:
# the next daemon that starts on that node removes them (below: every fake node shares
# this TMPDIR)
poll_until gone "$dead" || fail "fake1's prted survived kill -9"
[ -S "$TMPDIR/pmix-$dead.sock" ] && ls -d "$TMPDIR"/prte."$dead".* >/dev/null 2>&1 ||
    fail "the killed prted's socket and job directory were expected: $(ls -A "$TMPDIR")"
# the DVM goes on without that node
P -n 4 "$APP" xnode >"$T/after" 2>&1 || fail "a job after the loss: $(cat "$T/after")"
grep -q "host fake1" "$T/after" && fail "a job was placed on the lost node: $(cat "$T/after")"
expect_in "$T/after" "xnode rank 3 exchanged with 4 ranks"
# pterm while a job runs on two nodes: the job is terminated, then the daemons exit
"$PRUN" $RR -n 4 --map-by node "$APP" sleep 60 >"$T/term" 2>&1 &
p=$!
wait_app_pids sleep 4
stop_dvm
wait $p && fail "the job outlived pterm: $(cat "$T/term")"
expect_in "$T/term" "was terminated"
poll_until app_none sleep || fail "processes left after pterm: $(app_pids sleep)"
pids_gone() {
    local f
    for f in "$PX_AGENT_PIDS"/*.pid; do gone "$(cat "$f")" || return 1; done
}
poll_until pids_gone || fail "prted left after pterm"

# a prted's own messages reach the controller's terminal (REPORT), not its stderr (which
# this agent discards): SIGTERM to one daemon of a prte (not daemonized: its terminal is a
# file) during a job, then to another; the message shows once and names the daemon and
# its node, the repeat is counted in the summary at the end; the job ends naming the node
rm -f "$PX_AGENT_PIDS"/*.pid
PX_AGENT_NO_STDERR=1 "$PRTE" --report-uri "$T/uri" --report-pid "$T/pid" $RR \
    --host "$HERE:2,rep1:2,rep2:2" >"$T/rep" 2>&1 &
wait_for "$T/rep" "DVM ready"
DVM_PID=$(cat "$T/pid")
# the daemons that just started removed what the prted killed with SIGKILL left behind
[ -z "$(ls -A "$TMPDIR" | grep -E "^(pmix-$dead\.sock|prte\.$dead\.)")" ] ||
    fail "the killed prted's files outlived the next daemons' start: $(ls -lA "$TMPDIR")"

"$PRUN" $RR --dvm-uri "file:$T/uri" -n 3 --map-by node "$APP" sleep 60 >"$T/repjob" 2>&1 &
p=$!
wait_app_pids sleep 3
kill -TERM "$(cat "$PX_AGENT_PIDS/rep1.pid")"
wait $p && fail "the job survived the loss of rep1's daemon: $(cat "$T/repjob")"
expect_in "$T/repjob" "the daemon on node rep1 (daemon 1) was lost while ranks 1 of the job ran"
expect_in "$T/rep" 'prted (daemon 1 on node rep1) got the signal "Terminated" and stops'
kill -TERM "$(cat "$PX_AGENT_PIDS/rep2.pid")"
wait_for "$T/rep" "lost the daemon 2 on host rep2"
stop_dvm
[ "$(grep -c 'got the signal "Terminated" and stops' "$T/rep")" = 1 ] ||
    fail "one daemon-signal message expected on prte's terminal: $(cat "$T/rep")"
expect_in "$T/rep" "1 more process sent help message help-prted.txt / daemon-signal"
poll_until app_none sleep || fail "processes left: $(app_pids sleep)"
poll_until pids_gone || fail "prted left"
pass
