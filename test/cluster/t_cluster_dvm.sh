#!/usr/bin/env bash
# A DVM across the one-machine cluster of scripts/cluster.sh (issue 14, item 4): 3 nodes,
# each a network namespace with its own address and hostname. prte runs inside node1
# (the bridge has no address on this machine: the controller lives where the daemons
# can reach it) with the cluster's agent given as --prtemca plm_ssh_agent; a prted
# starts on node2 and node3 and connects back over TCP. Checks: per-node keys under
# --map-by node, slot and ppr:2:node (dvm_app xnode, on real separate hostnames); a fence
# with data and a direct modex across nodes; process sets and their events on every node;
# output from every node byte-exact; an exit
# code from another node; kill -9 of node3's prted ends its job with a message naming
# node3 and its ranks; pterm during a job leaves no process in any namespace and no
# file; a DVM with --prtemca routed_radix 1 (a chain of daemons between the nodes'
# addresses) runs a job with a fence and direct modex. Needs root (skips with 77
# otherwise, with a SKIP line).
NAME=pxd$$
. "$(dirname "$0")/lib_cluster.sh"
NODES=(node1 node2 node3)
cluster_prte node1:2,node2:2,node3:2

check_map() {
    local out=$1 n=$2 r h lr
    grep -q "FAIL" "$out" && fail "xnode failures: $(grep FAIL "$out" | head -5)"
    for ((r = 0; r < n; r++)); do
        h=${NODES[$(($3))]}
        lr=$(($4))
        expect_in "$out" "xnode rank $r host $h nodeid $(($3)) lrank $lr nrank $lr lsize 2 "
        expect_in "$out" "xnode rank $r exchanged with $n ranks"
    done
}
P -n 6 --map-by node "$APP" xnode >"$T/node" 2>&1 || fail "map-by node: $(cat "$T/node")"
check_map "$T/node" 6 'r % 3' 'r / 3'
P -n 6 --map-by slot "$APP" xnode >"$T/slot" 2>&1 || fail "map-by slot: $(cat "$T/slot")"
check_map "$T/slot" 6 'r / 2' 'r % 2'
P -n 6 --map-by ppr:2:node "$APP" xnode >"$T/ppr" 2>&1 || fail "ppr:2:node: $(cat "$T/ppr")"
check_map "$T/ppr" 6 'r / 2' 'r % 2'

# process sets on every node: each process of a --pset job sees its set (get and
# queries), a job on every node hears the set's define and delete events
PSET=$B/test/dvm/dvm_pset
on node1 "$PRUN" --dvm-uri "file:$T/uri" $RR -n 3 --map-by node "$PSET" watch ice >"$T/watch" 2>&1 &
w=$!
wait_for "$T/watch" "ready" 3
P -n 3 --map-by node --pset ice "$PSET" names >"$T/names" 2>&1 || fail "pset job: $(cat "$T/names")"
wait $w || fail "the pset watchers: $(cat "$T/watch")"
for r in 0 1 2; do
    grep -q "names rank $r host ${NODES[$r]} get=ice query=[^ ]*ice[^ ]* members=0,1,2$" "$T/names" ||
        fail "rank $r's process set on ${NODES[$r]}: $(cat "$T/names")"
    expect_in "$T/watch" "watch rank $r host ${NODES[$r]} define ice members=3"
    expect_in "$T/watch" "watch rank $r host ${NODES[$r]} delete ice"
done

# output: byte-exact per rank from every node, nothing lost at exit
N=5000000
want=$("$APP" write $N | sha256sum | cut -d' ' -f1)
P -n 3 --map-by node --output "dir=$T/o:nocopy" "$APP" write $N >"$T/out" 2>&1 ||
    fail "write: $(cat "$T/out")"
for r in 0 1 2; do
    f=$(ls "$T"/o/*/rank.$r/stdout)
    [ "$(sha256sum <"$f" | cut -d' ' -f1)" = "$want" ] || fail "rank $r's output differs"
done
rm -rf "$T/o"
out=$(P -n 6 --map-by node "$APP" write 10 2>&1) || fail "write 10"
[ "$out" = "$(printf 'abcdefghij%.0s' 1 2 3 4 5 6)" ] || fail "lost bytes: '$out'"

# an exit code on node2 is the job's, the message names node2
P --map-by node -n 1 "$APP" sleep 30 : -n 1 "$APP" exit 7 : -n 1 "$APP" sleep 30 >"$T/x" 2>&1
rc=$?
[ $rc = 7 ] || fail "exit 7 on node2 gave $rc: $(cat "$T/x")"
expect_in "$T/x" "node2"

# kill -9 of node3's prted during a job
on node1 "$PRUN" --dvm-uri "file:$T/uri" $RR -n 6 --map-by node "$APP" sleep 60 >"$T/lost" 2>&1 &
p=$!
wait_app_pids sleep 6
# the prted itself (argv[0] .../prted), not the agent's shell around it
prted3=$(ip netns pids "$NAME-node3" | while read -r q; do
    [ "$(tr '\0' '\n' <"/proc/$q/cmdline" 2>/dev/null | head -1 | sed 's|.*/||')" = prted ] && echo "$q"
done)
[ "$(echo $prted3 | wc -w)" = 1 ] || fail "one prted expected in node3's namespace: $prted3"
kill -9 $prted3
wait $p
rc=$?
[ $rc != 0 ] || fail "the job survived the loss of node3's daemon"
expect_in "$T/lost" "the daemon on node node3 (daemon 2) was lost while ranks 2,5 of the job ran"
app_none() { [ -z "$(app_pids "$1")" ]; }
poll_until app_none sleep || fail "processes left after the loss of node3: $(app_pids sleep)"
# a daemon killed with SIGKILL cannot remove its server's socket and job directory; the
# next daemon on that node would (their pid is gone)
rm -rf "$TMPDIR/pmix-$prted3.sock" "$TMPDIR"/prte."$prted3".*

# pterm while a job runs on node1 and node2: the job ends, then every daemon exits
on node1 "$PRUN" --dvm-uri "file:$T/uri" $RR -n 4 --map-by node "$APP" sleep 60 >"$T/term" 2>&1 &
p=$!
wait_app_pids sleep 4
cluster_pterm
wait $p && fail "the job outlived pterm: $(cat "$T/term")"
cluster_gone

# the routing tree between the nodes' own addresses: radix 1 makes a chain (node3's
# daemon joins node2's, which joins the controller); LAUNCH down it, the fence up it
on node1 "$PRTE" --daemonize --report-uri "$T/uri" --report-pid "$T/pid" $RR \
    --host node1:2,node2:2,node3:2 --prtemca plm_ssh_agent "$A" --prtemca routed_radix 1 \
    >"$T/prte2.out" 2>&1 || fail "prte with radix 1: $(cat "$T/prte2.out")"
DVM_PID=$(cat "$T/pid")
P -n 3 --map-by node "$APP" xnode >"$T/chain" 2>&1 || fail "a job down the chain: $(cat "$T/chain")"
for r in 0 1 2; do
    expect_in "$T/chain" "xnode rank $r host ${NODES[$r]} nodeid $r "
    expect_in "$T/chain" "xnode rank $r exchanged with 3 ranks"
done
cluster_pterm
cluster_gone
pass
