#!/usr/bin/env bash
# Slurm (issue 15 item 3) on the one-machine cluster: a real slurmctld (in node1) and a
# slurmd in each of 3 nodes, munge for their authentication (one munged whose socket all
# namespaces share), a configuration of the test's own (SLURM_CONF). Inside allocations:
#  1. salloc -N 3 -n 6 prterun: the hosts and slots come from the allocation
#     (SLURM_JOB_NODELIST, SLURM_TASKS_PER_NODE), the daemons of node2 and node3 start
#     through one srun; 6 ranks, 2 per node, each on the node its PMIX_HOSTNAME names;
#  2. prte and prun under salloc, and prterun in an sbatch script;
#  3. a daemon that fails (node3's exits at once): srun kills the step, the start fails
#     with the reason, prterun exits 1, no hang; nothing of ours is left on any node.
# Needs root; fails when a Slurm or munge program is missing (scripts/install-deps.sh);
# skips (77) saying why when slurmd cannot run in this environment.
set -u
NAME=pxl$$
export PXCLUSTER_NET=10.219.$(($$ % 250))
# (packages: slurmctld slurmd slurm-client munge)
CLUSTER_TOOLS="munged slurmctld slurmd srun salloc sbatch sinfo squeue"
ON_TIMEOUT=120
cluster_teardown() {
    [ -n "${S:-}" ] && [ -s "$S/munged.pid" ] && kill "$(cat "$S/munged.pid")" 2>/dev/null
}
. "$(dirname "$0")/lib_cluster.sh"
S=$T/slurm # state of this test's Slurm (munge key, spool, logs)
mkdir -p "$S/munge" "$S/ctld" "$S/spool"
chmod 755 "$T" "$S"

# munge: one daemon, its socket reached from every namespace (a filesystem socket)
head -c 1024 /dev/urandom >"$S/munge.key"
chmod 400 "$S/munge.key"
munged --force --socket="$S/munge/sock" --key-file="$S/munge.key" --pid-file="$S/munged.pid" \
    --log-file="$S/munged.log" --seed-file="$S/munge.seed" ||
    fail "munged did not start: $(cat "$S/munged.log" 2>/dev/null)"
cat >"$S/slurm.conf" <<EOF
ClusterName=px$$
SlurmctldHost=node1
AuthType=auth/munge
AuthInfo=socket=$S/munge/sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$S/ctld
SlurmdSpoolDir=$S/spool/%n
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd-%n.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
NodeName=node[1-3] CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
printf 'CgroupPlugin=cgroup/v1\n' >"$S/cgroup.conf"
export SLURM_CONF=$S/slurm.conf
on node1 slurmctld || fail "slurmctld did not start: $(tail -20 "$S/slurmctld.log" 2>/dev/null)"
for n in 1 2 3; do
    mkdir -p "$S/spool/node$n"
    if ! on "node$n" slurmd; then
        echo "SKIP: slurmd cannot run in this environment: $(tail -3 "$S/slurmd-node$n.log" 2>/dev/null | tr '\n' ' ')"
        exit 77
    fi
done
idle3() { [ "$(on node1 sinfo -h -o %D:%t 2>/dev/null)" = "3:idle" ]; }
poll_until idle3 || fail "the 3 nodes never became idle: $(on node1 sinfo 2>&1)"

# ---- 1. prterun inside salloc: the allocation's nodes and slots, one srun
on node1 salloc -N 3 -n 6 "$PRTERUN" $RR -v -n 6 --map-by node "$APP" xnode >"$T/run1" 2>&1 ||
    fail "prterun under salloc: $(cat "$T/run1")"
for r in 0 1 2 3 4 5; do
    expect_in "$T/run1" "xnode rank $r host node$((r % 3 + 1)) "
    expect_in "$T/run1" "xnode rank $r exchanged with 6 ranks"
done
grep -qE "daemons 1\.\.2: srun [0-9]+ on node2,node3" "$T/run1" ||
    fail "the daemons were not started by one srun: $(cat "$T/run1")"
grep -q "FAIL" "$T/run1" && fail "xnode failures: $(grep FAIL "$T/run1" | head -3)"

# ---- 2. prte + prun under salloc, and prterun in an sbatch script
on node1 salloc -N 3 sh -c "'$PRTE $RR --daemonize --report-uri $T/uri2 && $PRUN $RR --dvm-uri file:$T/uri2 -n 3 --map-by node $APP xnode; rc=\$?; $PTERM $RR --dvm-uri file:$T/uri2; exit \$rc'" \
    >"$T/run2" 2>&1 || fail "prte and prun under salloc: $(cat "$T/run2")"
for r in 0 1 2; do expect_in "$T/run2" "xnode rank $r host node$((r + 1)) "; done
on node1 sbatch -N 3 -n 3 -o "$T/batch.out" --wrap "'$PRTERUN $RR -n 3 --map-by node $APP xnode'" \
    >"$T/sbatch" 2>&1 || fail "sbatch: $(cat "$T/sbatch")"
queue_empty() { [ -z "$(on node1 squeue -h 2>/dev/null)" ]; }
poll_until queue_empty || fail "the batch job did not end: $(on node1 squeue 2>&1)"
for r in 0 1 2; do expect_in "$T/batch.out" "xnode rank $r host node$((r + 1)) "; done

# ---- 3. the daemon of node3 fails: the whole step is killed, the start fails, no hang
mkdir -p "$T/pfx/bin"
cat >"$T/pfx/bin/prted" <<EOF
#!/bin/sh
[ "\$(hostname)" = node3 ] && { echo "prted on node3 refuses to start" >&2; exit 3; }
exec "$B/daemon/prted" "\$@"
EOF
chmod +x "$T/pfx/bin/prted"
on node1 salloc -N 3 "$PRTERUN" $RR --prefix "$T/pfx" -n 3 "$APP" hello >"$T/run3" 2>&1
rc=$?
[ $rc = 1 ] || fail "prterun with a failing daemon gave $rc: $(cat "$T/run3")"
grep -qE "the daemon [12] on host node[23] did not start: srun (exited with status|was killed by signal)" "$T/run3" ||
    fail "the failed start is not reported with srun's end: $(cat "$T/run3")"
expect_in "$T/run3" "node3: task 1: Exited with exit code 3" # srun, before it cancels the step
grep -q "hello rank" "$T/run3" && fail "the job ran: $(cat "$T/run3")"
nothing_of_ours() {
    local n p
    for n in 1 2 3; do
        for p in $(ip netns pids "$NAME-node$n"); do
            grep -qaE 'prted|dvm_app' "/proc/$p/cmdline" 2>/dev/null && return 1
        done
    done
    return 0
}
poll_until nothing_of_ours || fail "processes of ours left on the nodes"

# Slurm's and munge's daemons (and what they forked) go before the no-leftover check
no_slurm() {
    local left
    left=$(leftovers | grep -E '^[0-9]+ (slurm|munged)' | awk '{print $1}')
    [ -z "$left" ] && return 0
    kill -9 $left 2>/dev/null # slurmd's helpers may ignore SIGTERM
    return 1
}
stop_slurm() {
    poll_until no_slurm || fail "Slurm's daemons did not stop: $(leftovers)"
}
stop_slurm
pass
