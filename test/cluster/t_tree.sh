#!/bin/bash
# t_tree.sh - tree spawn through the built-in ssh client (issue 15 item 1) on 4 cluster
# nodes with real sshd: prte --host node1..node4 --prtemca plm_ssh_tree_radix 2 starts
# node1 and node2 itself; node1's prted, once up, is told (SPAWN) to start node3 and
# node4 and does so over ssh; every daemon connects back to the controller, a job runs
# on all four nodes, pterm leaves no prted. The ssh sessions show who started whom: the
# controller has sessions to node1 and node2 only, node1 has sessions to node3 and node4.
# Then node4's sshd is down: node1 reports the failed start (CHILD_END), prte's start
# fails naming node4 and node1, no hang and nothing left. Needs root.
set -u
NAME=pxr$$
export PXCLUSTER_NET=10.217.$(($$ % 250))
SSH_NODES=4
SSH_TOOLS=ss
PPID_=""
. "$(dirname "$0")/lib_ssh.sh"
N=$PXCLUSTER_NET

wait_for() { # FILE TEXT: bounded (60 s)
    local i
    for i in $(seq 1 1200); do
        grep -qF -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.05
    done
    fail "timed out waiting for \"$2\" in $1: $(cat "$1" 2>/dev/null)"
}
prteds() {
    local n p
    for n in 1 2 3 4; do
        for p in $(ip netns pids "$NAME-node$n"); do
            grep -q prted "/proc/$p/cmdline" 2>/dev/null && echo "node$n:$p"
        done
    done
}
no_prted_wait() {
    local i
    for i in $(seq 1 1200); do
        [ -z "$(prteds)" ] && return 0
        sleep 0.05
    done
    fail "prted left: $(prteds | tr '\n' ' ')"
}
# ssh sessions (peers on port 22) established from a namespace ("" = this machine's)
sessions() {
    if [ -n "$1" ]; then
        ip netns exec "$NAME-$1" ss -Htn state established '( dport = :22 )'
    else
        ss -Htn state established '( dport = :22 )'
    fi | awk '{print $4}' | sed 's/:22$//' | sort | tr '\n' ' '
}

HOME=$H timeout 120 "$PRTE" --host node1,node2,node3,node4 --prtemca plm_ssh_tree_radix 2 -v \
    --report-uri "$T/uri" >"$T/prte.out" 2>&1 &
PPID_=$!
wait_for "$T/prte.out" "DVM ready"
grep -q "daemons: 5 up" "$T/prte.out" || fail "5 daemons expected: $(cat "$T/prte.out")"
grep -q "daemon 1 (node1) starts 2 daemons of the tree" "$T/prte.out" ||
    fail "node1 was not told to start its children: $(cat "$T/prte.out")"
grep -q "daemon 2 (node2) starts" "$T/prte.out" && fail "node2 has no children with radix 2"
# who started whom, from the live ssh sessions
mine=$(sessions "" | tr ' ' '\n' | grep -E "^$N\.[0-9]+$" | tr '\n' ' ')
[ "$mine" = "$N.1 $N.2 " ] || fail "the controller's ssh sessions go to: '$mine' (node1 and node2 expected)"
n1=$(sessions node1)
[ "$n1" = "$N.3 $N.4 " ] || fail "node1's ssh sessions go to: '$n1' (node3 and node4 expected)"
# a job on every node
HOME=$H timeout 60 "$PRUN" --dvm-uri "file:$T/uri" --host node1,node2,node3,node4 -n 4 \
    --map-by node hostname >"$T/job" 2>&1 || fail "prun: $(cat "$T/job")"
for n in 1 2 3 4; do
    grep -q "^node$n\$" "$T/job" || fail "no output from node$n: $(cat "$T/job")"
done
HOME=$H timeout 30 "$PTERM" --dvm-uri "file:$T/uri" >"$T/pterm" 2>&1 || fail "pterm: $(cat "$T/pterm")"
wait "$PPID_" || fail "prte exited with $?: $(tail -5 "$T/prte.out")"
PPID_=""
no_prted_wait

# node4 without sshd: node1 cannot start it and says so; the start fails
"$CL" -n "$NAME" sshd-stop node4 || fail "sshd-stop failed"
HOME=$H timeout 120 "$PRTE" --host node1,node2,node3,node4 --prtemca plm_ssh_tree_radix 2 \
    >"$T/fail.out" 2>&1
rc=$?
[ $rc = 1 ] || fail "prte with node4 unreachable gave $rc: $(cat "$T/fail.out")"
grep -qF 'the daemon 4 on host node4 did not start: daemon 1 (host node1), which started it, reports:' \
    "$T/fail.out" || fail "node4's failed start is not reported: $(cat "$T/fail.out")"
grep -qF 'cannot reach the ssh server on host "node4"' "$T/fail.out" ||
    fail "node1's ssh message is missing: $(cat "$T/fail.out")"
no_prted_wait

timeout 60 "$CL" -n "$NAME" down || fail "down failed"
echo PASS
