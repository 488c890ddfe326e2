#!/usr/bin/env bash
# Debugger daemons (issue 17 item 2) with real processes: test/dvm/dvm_dbgd as the
# debugger's front end (a PMIx tool) and the target application, examples/debugger_daemon
# as the daemons. Co-spawn: one PMIx_Spawn of the application and of an app marked
# PMIX_DEBUGGER_DAEMONS (or PMIX_COSPAWN_APP) answers with the application's namespace;
# the daemons are a job of their own that the application's sizes and local peers do not
# count; each daemon finds its targets by local rank through PMIX_DEBUG_TARGET and
# PMIX_QUERY_LOCAL_PROC_TABLE (pids equal to the targets' own) and releases them with
# PMIX_DEBUGGER_RELEASE in a custom range; per node and per process, at 1, 16 and 64
# processes. Co-location onto a running job (PMIX_DEBUG_TARGET of the job or of one rank,
# the older PMIX_DEBUG_JOB). Co-spawned daemons that die end their application with a
# message naming them; PMIX_QUERY_DEBUG_SUPPORT and PMIX_QUERY_SPAWN_SUPPORT list the
# keys; refusals name what is wrong; the daemons hold no slot.
# Nothing is left behind.
. "$(dirname "$0")/lib.sh"
DBG=$B/test/dvm/dvm_dbgd
DD=$B/examples/debugger_daemon
start_dvm

# targets_ok OUT N NS : N targets of job NS printed their facts with the job's own size
# and local size N (the daemons not counted) and were released by the daemons' job
targets_ok() {
    local out=$1 n=$2 ns=$3 r
    for ((r = 0; r < n; r++)); do
        expect_in "$out" "target $r/$n lsize $n lrank $r host "
        grep -q "^target $r released by " "$out" || fail "target $r not released: $(cat "$out")"
    done
    [ "$(grep -c '^target [0-9]* released by ' "$out")" = "$n" ] || fail "releases: $(cat "$out")"
    grep "^target [0-9]* released by " "$out" | grep -q " by $ns:" &&
        fail "a target was released by its own job: $(grep 'released by' "$out" | head -3)"
    return 0
}

# pids_match OUT : the pids the daemons found (PMIX_QUERY_LOCAL_PROC_TABLE) are the
# targets' own, each listed once
pids_match() {
    local a b
    a=$(sed -n 's/^target [0-9]*\/[0-9]* .* pid \([0-9]*\)$/\1/p' "$1" | sort -n | tr '\n' ' ')
    b=$(sed -n 's/^dbgd .* pids \([0-9,]*\)$/\1/p' "$1" | tr ',' '\n' | sort -n | tr '\n' ' ')
    [ -n "$a" ] && [ "$a" = "$b" ] || fail "daemons found pids [$b], targets are [$a]: $(cat "$1")"
}

# job_ns : the namespace of the DVM's one running job (pps)
job_ns() {
    local ns
    ns=$(run_to 10 "$PPS" --dvm-uri "file:$T/uri" $RR --parsable 2>/dev/null | head -1 | cut -d: -f1)
    [ -n "$ns" ] || fail "no namespace from pps: $(run_to 10 "$PPS" --dvm-uri "file:$T/uri" $RR 2>&1)"
    echo "$ns"
}

# ---- co-spawn, one daemon per node, 1 / 16 / 64 processes
for n in 1 16 64; do
    out=$T/cospawn$n
    run_to 120 "$DBG" cospawn $n node:1 "$DBG" target -- "$DD" >"$out" 2>&1 ||
        fail "co-spawn of $n: $(cat "$out")"
    ns=$(sed -n 's/^spawn PMIX_SUCCESS ns=//p' "$out")
    [ -n "$ns" ] || fail "co-spawn of $n: no namespace: $(cat "$out")"
    targets_ok "$out" $n "$ns"
    last=$((n - 1))
    mine=$(seq -s, 0 $last)
    expect_in "$out" "dbgd 0/1 host $(hostname) lrank 0/1 target $ns local $n total $n mine $mine pids "
    pids_match "$out"
    dns=$(sed -n 's/^target 0 released by \(.*\):0$/\1/p' "$out")
    [ -n "$dns" ] && [ "$dns" != "$ns" ] || fail "the daemons' namespace: $(cat "$out")"
    expect_in "$out" "jobend $ns status=PMIX_SUCCESS exit=0"
    expect_in "$out" "jobend $dns status=PMIX_SUCCESS exit=0"
done

# ---- co-spawn, two daemons per process: daemon of local rank L serves target L/2
out=$T/perproc
run_to 120 "$DBG" cospawn 4 proc:2 "$DBG" target 2 -- "$DD" >"$out" 2>&1 ||
    fail "co-spawn per proc: $(cat "$out")"
ns=$(sed -n 's/^spawn PMIX_SUCCESS ns=//p' "$out")
targets_ok "$out" 4 "$ns"
for d in 0 1 2 3 4 5 6 7; do
    expect_in "$out" "dbgd $d/8 host $(hostname) lrank $d/8 target $ns local 4 total 4 mine $((d / 2)) pids "
done

# ---- without a placement the daemons are mapped like any job (2 of them on this node),
# and still find their targets by local rank
out=$T/mapped
run_to 120 "$DBG" cospawn 2 np:2 "$DBG" target -- "$DD" >"$out" 2>&1 || fail "co-spawn np:2: $(cat "$out")"
ns=$(sed -n 's/^spawn PMIX_SUCCESS ns=//p' "$out")
targets_ok "$out" 2 "$ns"
for d in 0 1; do
    expect_in "$out" "dbgd $d/2 host $(hostname) lrank $d/2 target $ns local 2 total 2 mine $d pids "
done

# ---- PMIX_COSPAWN_APP is a co-spawned app as well; daemons that stay are listed by
# PMIX_QUERY_NAMESPACES (how a tool finds their namespace), outlive the application and
# end with their front end's connection
out=$T/cosapp
run_to 120 "$DBG" --ends 1 cospawn 2 cospawn-app "$DBG" target -- "$DD" --stay >"$out" 2>&1 ||
    fail "PMIX_COSPAWN_APP: $(cat "$out")"
ns=$(sed -n 's/^spawn PMIX_SUCCESS ns=//p' "$out")
targets_ok "$out" 2 "$ns"
expect_in "$out" "dbgd 0/1 host $(hostname) lrank 0/1 target $ns local 2 total 2 mine 0,1 pids "
dns=$(sed -n 's/^target 0 released by \(.*\):0$/\1/p' "$out")
grep "^namespaces " "$out" | grep -q "$dns" || fail "PMIX_QUERY_NAMESPACES lacks $dns: $(cat "$out")"
expect_in "$out" "jobend $ns status=PMIX_SUCCESS exit=0"
wait_pps debugger_daemon 0

# ---- co-location onto a running job: the whole job, one rank, the older PMIX_DEBUG_JOB
run_to 120 "$PRUN" $RR -n 4 "$DBG" target >"$T/running" 2>&1 &
prun=$!
wait_for "$T/running" "target " 4
run_to 60 "$DBG" attach auto proc:1 "$DD" >"$T/attach1" 2>&1 || fail "attach: $(cat "$T/attach1")"
tns=$(sed -n 's/^dbgd 0\/4 .* target \([^ ]*\) .*/\1/p' "$T/attach1")
[ -n "$tns" ] || fail "attach: no daemon line: $(cat "$T/attach1")"
for d in 0 1 2 3; do
    expect_in "$T/attach1" "dbgd $d/4 host $(hostname) lrank $d/4 target $tns local 4 total 4 mine $d pids "
done
dns=$(sed -n 's/^spawn PMIX_SUCCESS ns=//p' "$T/attach1")
expect_in "$T/attach1" "jobend $dns status=PMIX_SUCCESS exit=0"
wait $prun || fail "the debugged job failed: $(cat "$T/running")"
targets_ok "$T/running" 4 "$tns"
cat "$T/running" "$T/attach1" >"$T/both1"
pids_match "$T/both1"

run_to 120 "$PRUN" $RR -n 3 "$DBG" target >"$T/running2" 2>&1 &
prun=$!
wait_for "$T/running2" "target " 3
tns=$(job_ns)
run_to 60 "$DBG" attach "$tns:1" node:1 "$DD" >"$T/attach2" 2>&1 || fail "attach rank 1: $(cat "$T/attach2")"
expect_in "$T/attach2" "dbgd 0/1 host $(hostname) lrank 0/1 target $tns:1 local 3 total 3 mine 1 pids "
wait_for "$T/running2" "target 1 released by "
[ "$(count_in "$T/running2" "released by")" = 1 ] || fail "only rank 1 is released: $(cat "$T/running2")"
run_to 60 "$DBG" attach "job:$tns" node:1 "$DD" >"$T/attach3" 2>&1 || fail "attach PMIX_DEBUG_JOB: $(cat "$T/attach3")"
expect_in "$T/attach3" "dbgd 0/1 host $(hostname) lrank 0/1 target $tns local 3 total 3 mine 0,1,2 pids "
wait $prun || fail "the debugged job failed: $(cat "$T/running2")"
targets_ok "$T/running2" 3 "$tns"

# ---- co-spawned daemons that die end their application, naming them
out=$T/die
run_to 120 "$DBG" cospawn 2 node:1 "$DBG" target -- "$DD" --no-release --die 9 >"$out" 2>&1 ||
    fail "co-spawn with a dying daemon: $(cat "$out")"
ns=$(sed -n 's/^spawn PMIX_SUCCESS ns=//p' "$out")
expect_in "$out" "jobend $ns status=PMIX_ERR_JOB_TERM_WO_SYNC exit=1"
expect_in "$out" "Job $ns was terminated because the debugger daemons spawned with it"
expect_in "$out" "was killed by"
expect_in "$out" "signal 9 (Killed)"

# ---- an application that ends at once, before its daemons run: the spawn still
# succeeds (the application's namespace, its end), the daemons' job ends (ran and found
# its target gone, or never started); the daemons' output is not lost when they run
for i in 1 2 3 4 5; do
    out=$T/quick$i
    run_to 120 "$DBG" cospawn 16 node:1 /bin/true -- "$DD" >"$out" 2>&1 || fail "quick application: $(cat "$out")"
    ns=$(sed -n 's/^spawn PMIX_SUCCESS ns=//p' "$out")
    [ -n "$ns" ] || fail "the spawn of a quick application failed: $(cat "$out")"
    expect_in "$out" "jobend $ns status=PMIX_SUCCESS exit=0"
    [ "$(grep -c '^jobend ' "$out")" = 2 ] || fail "two job ends expected: $(cat "$out")"
    if grep -q "^jobend .* status=PMIX_SUCCESS exit=0" <<<"$(grep -v "jobend $ns " "$out")"; then
        grep -q '^dbgd 0/1 ' "$out" || fail "the daemon ran, its output is lost: $(cat "$out")"
    fi
done

# ---- daemons that cannot start fail the co-spawn, with their message
out=$T/nodaemon
run_to 120 "$DBG" --ends 2 cospawn 2 node:1 "$DBG" target -- /nonexistent/daemon >"$out" 2>&1 ||
    fail "co-spawn of a missing daemon: $(cat "$out")"
expect_in "$out" "spawn PMIX_ERR_JOB_TERM_WO_SYNC ns=-"
expect_in "$out" "/nonexistent/daemon"
expect_in "$out" "because the debugger daemons spawned with it"
wait_pps dvm_dbgd 0

# ---- what the DVM says it supports: PMIX_QUERY_DEBUG_SUPPORT lists the debugger
# daemons' keys (and proc tables), PMIX_QUERY_SPAWN_SUPPORT lists them among the spawn
# directives
run_to 10 "$B/cli/pquery" $RR --dvm-uri "file:$T/uri" PMIX_QUERY_DEBUG_SUPPORT \
    PMIX_QUERY_SPAWN_SUPPORT >"$T/support" 2>&1 || fail "pquery: $(cat "$T/support")"
# the items of one answer: pquery prints a list as indented lines under its key
items() { awk -v k="$1:" '$0 == k {on = 1; next} /^[^ ]/ {on = 0} on {print $1}' "$T/support"; }
dsup=$(items pmix.qry.debug)
ssup=$(items pmix.qry.spawn)
for k in pmix.debugger pmix.cospawn pmix.dbg.tgt pmix.dbg.job pmix.dbg.dpnd pmix.dbg.dpproc; do
    grep -qx "$k" <<<"$dsup" || fail "debug support lacks $k: $(cat "$T/support")"
    grep -qx "$k" <<<"$ssup" || fail "spawn support lacks $k: $(cat "$T/support")"
done
for k in pmix.qry.ptable pmix.qry.lptable; do
    grep -qx "$k" <<<"$dsup" || fail "debug support lacks $k: $(cat "$T/support")"
done
grep -qx pmix.mapby <<<"$dsup" && fail "debug support lists a non-debugger key: $(cat "$T/support")"

# ---- refusals, each naming what is wrong
refused() { # OUT STATUS TEXT
    expect_in "$1" "spawn $2 ns=-"
    expect_in "$1" "$3"
}
run_to 60 "$DBG" attach "nosuch@7" node:1 "$DD" >"$T/r1" 2>&1 || fail "refusal r1: $(cat "$T/r1")"
refused "$T/r1" PMIX_ERR_NOT_FOUND "debugger daemons' target nosuch@7 is not a job of this DVM"
run_to 60 "$DBG" attach none node:1 "$DD" >"$T/r2" 2>&1 || fail "refusal r2: $(cat "$T/r2")"
refused "$T/r2" PMIX_ERR_BAD_PARAM "with nothing to debug"
run_to 60 "$DBG" attach "nosuch@7" both "$DD" >"$T/r3" 2>&1 || fail "refusal r3: $(cat "$T/r3")"
refused "$T/r3" PMIX_ERR_BAD_PARAM "both PMIX_DEBUG_DAEMONS_PER_NODE and"
run_to 60 "$DBG" attach "nosuch@7" node:0 "$DD" >"$T/r4" 2>&1 || fail "refusal r4: $(cat "$T/r4")"
refused "$T/r4" PMIX_ERR_BAD_PARAM "the value of pmix.dbg.dpnd must be a count"
run_to 60 "$DBG" cospawn 1 target-too "$DBG" target -- "$DD" >"$T/r5" 2>&1 || fail "refusal r5: $(cat "$T/r5")"
refused "$T/r5" PMIX_ERR_BAD_PARAM "also names a target with pmix.dbg.tgt"
# nothing of the refused requests runs; the DVM still works
run_to 30 "$PRUN" $RR -n 2 "$APP" hello >"$T/hello" 2>&1 || fail "hello after refusals: $(cat "$T/hello")"
wait_pps dvm_ 0
stop_dvm

# ---- debugger daemons hold no slot: on a DVM of 2 slots, a job of 1 with its daemon
# beside it leaves room for another job of 1
start_dvm --host "$(hostname):2"
run_to 120 "$PRUN" $RR -n 1 "$DBG" target >"$T/slot" 2>&1 &
prun=$!
wait_for "$T/slot" "target 0/1 "
tns=$(job_ns)
"$DBG" attach "$tns" proc:1 "$DD" --stay --no-release >"$T/slotd" 2>&1 & # waits <= 120 s
front=$!
wait_pps debugger_daemon 1
run_to 30 "$PRUN" $RR -n 1 "$APP" hello >"$T/slot2" 2>&1 || fail "no slot left beside a daemon: $(cat "$T/slot2")"
kill -TERM $front # the front end leaves: its daemons go with its connection
wait $front
wait_pps debugger_daemon 0
run_to 60 "$DBG" attach "$tns" node:1 "$DD" >>"$T/slot" 2>&1 || fail "release: $(cat "$T/slot")"
wait $prun || fail "the target failed: $(cat "$T/slot")"
stop_dvm
pass
