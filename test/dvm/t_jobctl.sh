#!/usr/bin/env bash
# Job control for debuggers (issue 17 item 4) and the stop points across nodes.
# PMIx_Job_control from a tool (dvm_dbg jobctl): PMIX_JOB_CTRL_PAUSE / RESUME of one
# process or of a namespace (SIGSTOP / SIGCONT: /proc state T, pps STOPPED, and back),
# PMIX_JOB_CTRL_SIGNAL to one process, TERMINATE of one process (the job goes on), KILL of
# a paused namespace (the job ends at once); refusals (pause and resume together, a job
# or rank that is not there). Then on three fake nodes (test/daemons/local_agent.sh):
# pause/resume of a rank whose daemon is another node's, and every stop point with
# processes on every node (held, STOPPED in pps, READY_FOR_DEBUG, released by a tool or
# resumed by job control).
. "$(dirname "$0")/lib.sh"
DBG=$B/test/dvm/dvm_dbg
pstate() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1; }
is_T() { [ "$(pstate "$1")" = T ]; }
not_T() { [ -n "$(pstate "$1")" ] && [ "$(pstate "$1")" != T ]; }
# pid_of R : the pid pps lists for rank R of $ns
pid_of() { awk -v ns="$ns" -v r="$1" '$1 == ns && $2 == r {print $3}' "$T/pps"; }
# stopped_in_pps N : pps lists N processes of $ns STOPPED
stopped_in_pps() {
    pps_now
    [ "$(awk -v ns="$ns" '$1 == ns && $5 == "STOPPED"' "$T/pps" | wc -l)" = "$1" ]
}
jc() { run_to 30 "$DBG" jobctl "$@" >>"$T/jc.out" 2>&1; }

start_dvm
"$PRUN" $RR -n 4 "$APP" trap >"$T/trap.out" 2>&1 &
PRUN_PID=$!
wait_for "$T/trap.out" ready 4
pps_now
ns=$(grep -F "$APP trap" "$T/pps" | head -1 | awk '{print $1}')
declare -a PID
for r in 0 1 2 3; do PID[$r]=$(pid_of $r); done

# one process paused, then resumed
jc pause "$ns:1" || fail "pause: $(cat "$T/jc.out")"
poll_until is_T "${PID[1]}" || fail "rank 1 is not stopped: $(pstate "${PID[1]}")"
for r in 0 2 3; do not_T "${PID[$r]}" || fail "rank $r was stopped too"; done
poll_until stopped_in_pps 1 || fail "pps must show rank 1 STOPPED: $(cat "$T/pps")"
jc resume "$ns:1" || fail "resume: $(cat "$T/jc.out")"
poll_until not_T "${PID[1]}" || fail "rank 1 still stopped"
poll_until stopped_in_pps 0 || fail "pps still shows a STOPPED process: $(cat "$T/pps")"
# the whole namespace
jc pause "$ns" || fail "pause ns: $(cat "$T/jc.out")"
for r in 0 1 2 3; do poll_until is_T "${PID[$r]}" || fail "rank $r not stopped"; done
poll_until stopped_in_pps 4 || fail "pps must show 4 STOPPED: $(cat "$T/pps")"
jc resume "$ns" || fail "resume ns: $(cat "$T/jc.out")"
for r in 0 1 2 3; do poll_until not_T "${PID[$r]}" || fail "rank $r still stopped"; done
# a signal to one process, SIGTERM to another (it exits 0: the job goes on)
jc signal:1 "$ns:2" || fail "signal: $(cat "$T/jc.out")"
wait_for "$T/trap.out" "got signal 1"
jc terminate "$ns:3" || fail "terminate: $(cat "$T/jc.out")"
wait_for "$T/trap.out" "got signal 15"
gone3() { gone "${PID[3]}"; }
poll_until gone3 || fail "rank 3 did not end"
# refusals
jc pauseresume "$ns" && fail "pause and resume together were accepted"
expect_in "$T/jc.out" "jobctl pauseresume PMIX_ERR_BAD_PARAM"
jc pause "$ns:9" && fail "a rank beyond the job was accepted"
jc pause "nosuch@7" && fail "a job that does not exist was accepted"
[ "$(grep -c 'jobctl pause PMIX_ERR_NOT_FOUND' "$T/jc.out")" = 2 ] ||
    fail "rank 9 and nosuch@7 must be PMIX_ERR_NOT_FOUND: $(cat "$T/jc.out")"
# paused, then killed: it ends at once
jc pause "$ns" || fail "pause before kill: $(cat "$T/jc.out")"
for r in 0 1 2; do poll_until is_T "${PID[$r]}" || fail "rank $r not stopped before kill"; done
jc kill "$ns" || fail "kill: $(cat "$T/jc.out")"
wait "$PRUN_PID" && fail "the killed job ended well: $(cat "$T/trap.out")"
for r in 0 1 2; do gone "${PID[$r]}" || fail "rank $r outlived the kill"; done
stop_dvm

# ---- three fake nodes: the same across daemons, and the stop points there ----
export PRTE_MCA_plm_ssh_agent=$(cd "$(dirname "$0")/../daemons" && pwd)/local_agent.sh
export PX_AGENT_PIDS=$T/pids
mkdir -p "$PX_AGENT_PIDS"
start_dvm --host "$(hostname):2,fake1:2,fake2:2"
"$PRUN" $RR -n 3 --map-by node "$APP" trap >"$T/trap3.out" 2>&1 &
PRUN_PID=$!
wait_for "$T/trap3.out" ready 3
pps_now
ns=$(grep -F "$APP trap" "$T/pps" | head -1 | awk '{print $1}')
awk -v ns="$ns" '$1 == ns && $2 == 2' "$T/pps" | grep -q ' fake2 ' ||
    fail "rank 2 must run on fake2: $(cat "$T/pps")"
p2=$(pid_of 2)
jc pause "$ns:2" || fail "pause on fake2: $(cat "$T/jc.out")"
poll_until is_T "$p2" || fail "rank 2 on fake2 is not stopped"
poll_until stopped_in_pps 1 || fail "pps must show rank 2 STOPPED: $(cat "$T/pps")"
jc resume "$ns:2" || fail "resume on fake2: $(cat "$T/jc.out")"
poll_until not_T "$p2" || fail "rank 2 on fake2 still stopped"
jc terminate "$ns" || fail "terminate: $(cat "$T/jc.out")"
wait "$PRUN_PID"

# every stop point with a process on each node: held, seen, released
for kind in init app exec; do
    how=event
    [ $kind = exec ] && how=resume
    mkdir -p "$T/n$kind"
    run_to 150 "$DBG" tool $kind wild 6 job "$T/n$kind" $how >"$T/n$kind.out" 2>&1 ||
        fail "$kind across nodes: $(cat "$T/n$kind.out")"
    expect_in "$T/n$kind.out" "ready ns=ok"
    [ "$(grep -c ' STOPPED pid=' "$T/n$kind.out")" = 6 ] ||
        fail "$kind: 6 held processes expected: $(cat "$T/n$kind.out")"
    expect_in "$T/n$kind.out" "end PMIX_SUCCESS"
    expect_in "$T/n$kind.out" "ready events 1"
    for r in 0 1 2 3 4 5; do
        [ -e "$T/n$kind/done.$r" ] || fail "$kind: rank $r never finished"
    done
done
stop_dvm
pids_gone() {
    local f
    for f in "$PX_AGENT_PIDS"/*.pid; do gone "$(cat "$f")" || return 1; done
}
poll_until pids_gone || fail "prted left after pterm"
pass
