#!/usr/bin/env bash
# Faults of a DVM across the one-machine cluster (issue 15 item 5): 4 nodes, prte inside
# node1 with the cluster's agent, heartbeats every 0.5 s with a 3 s timeout.
#  1. a frozen daemon (SIGSTOP of node3's prted) is found silent by the heartbeats: the
#     controller's message names it and how long it was silent (within the documented
#     bound: timeout .. timeout + interval + timeout/2), the job with a rank there ends
#     naming node3 and the rank, a job on node1/node2 goes on and ends well, a new job
#     runs on the nodes left; once thawed, node3 has nothing of ours left;
#  2. a node cut off (its link set down): the controller loses it (job ends naming node4),
#     and nothing of ours is left on node4;
#  3. daemon 0's node frozen (SIGSTOP of prte): the last prted hears no ping, kills its
#     processes and exits; once prte is thawed, pterm ends it; nothing is left anywhere;
#  4. a node that cannot start its daemon (its link down before the start): the start
#     fails with the reason and prte exits 1, no hang, also while another daemon is
#     still starting (its agent is ended).
# Without heartbeats, 1-3 wait forever (each wait below is bounded: the test fails).
# Needs root (skips with 77 otherwise).
set -u
NAME=pxf$$
export PXCLUSTER_NET=10.215.$(($$ % 250))
CLUSTER_N=4
ON_TIMEOUT=90
. "$(dirname "$0")/lib_cluster.sh"
HB="--prtemca dvm_heartbeat_interval 0.5 --prtemca dvm_heartbeat_timeout 3"


# the pid of the prted in node N's namespace (argv[0] .../prted)
prted_of() {
    ip netns pids "$NAME-node$1" | while read -r q; do
        [ "$(tr '\0' '\n' <"/proc/$q/cmdline" 2>/dev/null | head -1 | sed 's|.*/||')" = prted ] && echo "$q"
    done
}
# check_silence FILE REGEX: the silence the first line matching REGEX reports ("for X s
# (heartbeat timeout 3.0 s)") is within the bound; by construction of the detector
# (daemon/hb.c) it is, however loaded the machine: this is not a timing test
check_silence() {
    python3 - "$1" "$2" <<'PY' || fail "silence outside 3.0 .. 5.0 s or not reported: $(cat "$1")"
import re, sys
m = re.search(sys.argv[2] + r"\s+([0-9.]+) s \(heartbeat timeout 3\.0 s\)", open(sys.argv[1]).read())
sys.exit(0 if m and 3.0 <= float(m.group(1)) <= 5.0 else 1)
PY
}

on node1 "$PRTE" --report-uri "$T/uri" --report-pid "$T/pid" $RR $HB \
    --host node1:2,node2:2,node3:2,node4:2 --prtemca plm_ssh_agent "$A" >"$T/prte.out" 2>&1 &
PRTE_BG=$!
wait_for "$T/prte.out" "DVM ready"
DVM_PID=$(cat "$T/pid")

# ---- 1. node3's prted frozen
P -n 4 --map-by node "$APP" sleep 60 >"$T/a" 2>&1 &
pa=$!
wait_app_pids sleep 4
P -n 2 --map-by slot "$APP" waitfile "$T/goB" 0 >"$T/b" 2>&1 &
pb=$!
wait_app_pids waitfile 2
p3=$(prted_of 3)
[ "$(echo $p3 | wc -w)" = 1 ] || fail "one prted expected on node3: $p3"
kill -STOP "$p3"
poll_until gone "$pa" || fail "the job with a rank on the frozen node3 did not end: $(cat "$T/a")"
wait "$pa" && fail "the job survived the loss of node3"
expect_in "$T/a" "the daemon on node node3 (daemon 2) was lost while ranks 2 of the job ran"
expect_in "$T/prte.out" "lost the daemon 2 on host node3: it sent nothing for"
check_silence "$T/prte.out" "lost the daemon 2 on host node3: it sent nothing for"
# the other job goes on, and ends well
kill -0 "$pb" 2>/dev/null || fail "the job on node1/node2 ended with node3: $(cat "$T/b")"
touch "$T/goB"
wait "$pb" || fail "the job on node1/node2 failed: $(cat "$T/b")"
# a new job runs on the nodes left
P -n 3 --map-by node "$APP" xnode >"$T/c" 2>&1 || fail "a job after the loss failed: $(cat "$T/c")"
grep -q "host node3" "$T/c" && fail "a job was placed on the lost node3: $(cat "$T/c")"
for h in node1 node2 node4; do expect_in "$T/c" "host $h "; done
# thawed, the daemon finds its controller gone (or was killed with its agent): nothing left
kill -CONT "$p3" 2>/dev/null
poll_until ns_empty 3 || fail "processes left on node3: $(ip netns pids "$NAME-node3" | tr '\n' ' ')"

# ---- 2. node4 cut off: its link down
P -n 3 --map-by node "$APP" sleep 60 >"$T/d" 2>&1 &
pd=$!
wait_app_pids sleep 3
p4=$(prted_of 4)
ip -n "$NAME-node4" link set eth0 down
poll_until gone "$pd" || fail "the job with a rank on the cut-off node4 did not end: $(cat "$T/d")"
wait "$pd" && fail "the job survived the loss of node4"
expect_in "$T/d" "the daemon on node node4 (daemon 3) was lost while ranks 2 of the job ran"
check_silence "$T/prte.out" "lost the daemon 3 on host node4: it sent nothing for"
# node4's daemon ends with its processes (here the controller kills the agent's process
# group, prted included; over ssh the daemon ends itself, case 3 shows that side)
poll_until ns_empty 4 || fail "processes left on node4: $(ip netns pids "$NAME-node4" | tr '\n' ' ')"

# ---- 3. daemon 0's node frozen: the controller itself
P -n 2 --map-by node "$APP" sleep 60 >"$T/e" 2>&1 &
pe=$!
wait_app_pids sleep 2
kill -STOP "$DVM_PID"
poll_until ns_empty 2 || fail "node2 kept processes with its controller frozen: $(ip netns pids "$NAME-node2" | tr '\n' ' ')"
expect_in "$T/prte.out" "prted (daemon 1 on node node2) heard nothing from its controller"
check_silence "$T/prte.out" "node node2\) heard nothing from its controller at [0-9.:]*\s+for"
kill -CONT "$DVM_PID"
poll_until gone "$pe" || fail "the job on the lost node2 did not end: $(cat "$T/e")"
wait "$pe" && fail "the job survived the loss of node2"
on node1 "$PTERM" --dvm-uri "file:$T/uri" $RR || fail "pterm failed"
# the daemons the controller killed with their agent (SIGKILL) could not remove their
# server's socket and job directories (the next daemon on that node would)
for q in $p3 $p4; do
    rm -rf "$TMPDIR/pmix-$q.sock" "$TMPDIR"/prte."$q".*
done
wait "$PRTE_BG" || fail "prte exited with $?: $(tail -5 "$T/prte.out")"
DVM_PID=""
poll_until ns_empty 1 2 3 4 || fail "processes left: $(for i in 1 2 3 4; do ip netns pids "$NAME-node$i"; done | tr '\n' ' ')"

# ---- 4. a node that cannot start its daemon (node4's link is still down)
on node1 "$PRTE" $RR $HB --host node1,node2,node4 --prtemca plm_ssh_agent "$A" >"$T/start" 2>&1
rc=$?
[ $rc = 1 ] || fail "prte with an unreachable node4 gave $rc: $(cat "$T/start")"
expect_in "$T/start" "the daemon 2 on host node4 did not start"
expect_in "$T/start" "cannot connect to its controller"
grep -q "DVM ready" "$T/start" && fail "the DVM said ready: $(cat "$T/start")"
poll_until ns_empty 1 2 3 4 || fail "processes left after the failed start"
# the same while another daemon is still starting (its agent never runs prted): that
# agent is ended too, and prte exits 1 instead of waiting for it
cat >"$T/slow_agent" <<EOF
#!/bin/sh
[ "\$1" = node2 ] && exec sleep 300
exec "$A" "\$@"
EOF
chmod +x "$T/slow_agent"
on node1 "$PRTE" $RR $HB --host node1,node2,node4 --prtemca plm_ssh_agent "$T/slow_agent" >"$T/start2" 2>&1
rc=$?
[ $rc = 1 ] || fail "prte with node2 starting and node4 unreachable gave $rc: $(cat "$T/start2")"
expect_in "$T/start2" "the daemon 2 on host node4 did not start"
poll_until ns_empty 1 2 3 4 || fail "processes left after the failed start"
pass
