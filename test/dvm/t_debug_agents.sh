#!/usr/bin/env bash
# Debugger agents (issue 17 item 3) with real processes: examples/exec_agent and
# examples/forkexec_agent under prun --exec-agent / --fork-exec-agent, the application
# test/dvm/dvm_dbgd. Exec agent: the agent gets the process's command line and execs it
# (the process has the agent's pid). Fork/exec agent: the agent connects back to its
# daemon as a tool, reads the process it replaces (its rank's target, command, working
# directory, environment) and starts it; the process is the registered client of its
# rank (PMIx_Init works, its job's sizes do not count the agents), the agent its parent;
# stdin reaches it; at 1, 16 and 64 processes. Errors, each with its message naming node
# and rank and a non-zero exit: an agent that cannot be executed, one that exits before
# connecting, one that never connects, an agent killed while its process runs (the job
# ends, nothing is left), two agents, an empty path. An agent given in one app's info
# applies to that app's processes only (the job's agent to the others).
. "$(dirname "$0")/lib.sh"
DBG=$B/test/dvm/dvm_dbgd
EA=$B/examples/exec_agent
FEA=$B/examples/forkexec_agent
start_dvm
P() { run_to 120 "$PRUN" $RR --dvm-uri "file:$T/uri" "$@"; }

# ---- exec agent: the process is the agent (same pid), with its whole command line
for n in 1 16; do
    P -n $n --exec-agent "$EA" "$DBG" whoami >"$T/ea$n" 2>&1 || fail "exec agent, $n: $(cat "$T/ea$n")"
    [ "$(grep -c '^whoami ' "$T/ea$n")" = $n ] || fail "exec agent, $n: $(cat "$T/ea$n")"
    for ((r = 0; r < n; r++)); do
        line=$(grep "^whoami $r/$n lsize $n pid " "$T/ea$n") || fail "rank $r: $(cat "$T/ea$n")"
        pid=$(sed -n 's/.* pid \([0-9]*\) ppid .*/\1/p' <<<"$line")
        grep -q " agent $pid$" <<<"$line" || fail "rank $r is not its agent's process: $line"
        expect_in "$T/ea$n" "exec_agent pid $pid execs $DBG"
    done
done

# ---- fork/exec agent: the agent starts the process it read from its daemon
for n in 1 16 64; do
    P -n $n --fork-exec-agent "$FEA" "$DBG" whoami >"$T/fea$n" 2>&1 ||
        fail "fork/exec agent, $n: $(cat "$T/fea$n")"
    ns=$(sed -n 's/^fea 0 pid [0-9]* host [^ ]* target \(.*\):0 cmd .*/\1/p' "$T/fea$n")
    [ -n "$ns" ] || fail "no agent of rank 0: $(cat "$T/fea$n")"
    [ "$(grep -c '^whoami ' "$T/fea$n")" = $n ] || fail "fork/exec agent, $n: $(cat "$T/fea$n")"
    for ((r = 0; r < n; r++)); do
        fline=$(grep "^fea $r pid [0-9]* host $(hostname) target $ns:$r cmd $DBG cwd $PWD$" "$T/fea$n") ||
            fail "agent of rank $r: $(cat "$T/fea$n")"
        apid=$(sed -n 's/^fea [0-9]* pid \([0-9]*\) .*/\1/p' <<<"$fline")
        # the process: registered client of its rank, sizes without the agents, the
        # agent's child
        expect_in "$T/fea$n" "whoami $r/$n lsize $n pid "
        grep "^whoami $r/$n " "$T/fea$n" | grep -q " ppid $apid agent -$" ||
            fail "rank $r is not its agent's ($apid) child: $(grep "^whoami $r/" "$T/fea$n")"
    done
done

# stdin reaches the process through its agent; -x reaches it in the description's env
echo "through the agent" | P -n 1 --fork-exec-agent "$FEA" -x PX_SEEN=yes "$APP" cat >"$T/in" 2>&1 ||
    fail "stdin through a fork/exec agent: $(cat "$T/in")"
expect_in "$T/in" "through the agent"
P -n 1 --fork-exec-agent "$FEA" -x PX_SEEN=yes "$APP" env PX_SEEN >"$T/env" 2>&1 || fail "env: $(cat "$T/env")"
expect_in "$T/env" "yes"

# ---- an agent given in one app's info applies to that app only (issue 17 item 4); the
# agents' namespace numbers the ranks under a fork/exec agent in rank order
# apps_case NAME JOB A0 A1 : dvm_dbgd apps of 2 + 2 whoami processes
apps_case() {
    local name=$1
    run_to 120 "$DBG" apps "$2" "$3" "$4" "$DBG" whoami >"$T/$name" 2>&1 ||
        fail "$name: $(cat "$T/$name")"
    expect_in "$T/$name" "spawn PMIX_SUCCESS ns="
    [ "$(grep -c '^whoami [0-3]/4 lsize 4 ' "$T/$name")" = 4 ] || fail "$name: $(cat "$T/$name")"
    grep -q "^jobend .* status=PMIX_SUCCESS exit=0" "$T/$name" || fail "$name: $(cat "$T/$name")"
}
# fea_of NAME R K : rank R was started by the fork/exec agent of rank K of the agents'
# namespace (its child, the agent's line naming it)
fea_of() {
    local out=$T/$1 ns apid
    ns=$(sed -n 's/^spawn PMIX_SUCCESS ns=//p' "$out")
    apid=$(sed -n "s|^fea $3 pid \([0-9]*\) host $(hostname) target $ns:$2 cmd $DBG cwd .*|\1|p" "$out")
    [ -n "$apid" ] || fail "$1: no agent $3 for rank $2: $(cat "$out")"
    grep "^whoami $2/4 " "$out" | grep -q " ppid $apid agent -$" ||
        fail "$1: rank $2 is not the child of agent $3 ($apid): $(cat "$out")"
}
# plain NAME R : rank R was started by its daemon: no agent's child, no exec agent
plain() {
    local out=$T/$1 ppid
    ppid=$(sed -n "s/^whoami $2\/4 .* ppid \([0-9]*\) agent -$/\1/p" "$out")
    [ -n "$ppid" ] || fail "$1: rank $2 ran under an exec agent: $(cat "$out")"
    grep -q "^fea [0-9]* pid $ppid " "$out" && fail "$1: rank $2 ran under a fork/exec agent: $(cat "$out")"
    return 0
}
apps_case app0 - "2:fea=$FEA" 2:-
[ "$(grep -c '^fea ' "$T/app0")" = 2 ] || fail "app0: two agents expected: $(cat "$T/app0")"
fea_of app0 0 0
fea_of app0 1 1
plain app0 2
plain app0 3
apps_case app1 - 2:- "2:fea=$FEA"
[ "$(grep -c '^fea ' "$T/app1")" = 2 ] || fail "app1: two agents expected: $(cat "$T/app1")"
plain app1 0
plain app1 1
fea_of app1 2 0
fea_of app1 3 1
# the job's exec agent for app 0, app 1's own fork/exec agent in its place
apps_case mixed "ea=$EA" 2:- "2:fea=$FEA"
for r in 0 1; do
    line=$(grep "^whoami $r/4 " "$T/mixed")
    pid=$(sed -n 's/.* pid \([0-9]*\) ppid .*/\1/p' <<<"$line")
    grep -q " agent $pid$" <<<"$line" || fail "mixed: rank $r is not its exec agent's process: $line"
done
fea_of mixed 2 0
fea_of mixed 3 1
[ "$(grep -c '^exec_agent pid ' "$T/mixed")" = 2 ] || fail "mixed: two exec agents: $(cat "$T/mixed")"
# refusals: two agents in one app; an agent for debugger daemons (in their app's info, or
# in the job info of a request of daemons only)
run_to 60 "$DBG" apps - "1:both=$FEA" 1:- "$DBG" whoami >"$T/app2" 2>&1 || fail "app2: $(cat "$T/app2")"
expect_in "$T/app2" "spawn PMIX_ERR_BAD_PARAM ns=-"
expect_in "$T/app2" "it names both a fork/exec agent (PMIX_FORKEXEC_AGENT,"
run_to 60 "$DBG" apps - 1:- "1:fea=$FEA:daemons" "$DBG" whoami >"$T/app3" 2>&1 || fail "app3: $(cat "$T/app3")"
expect_in "$T/app3" "spawn PMIX_ERR_NOT_SUPPORTED ns=-"
expect_in "$T/app3" "app 1 is debugger daemons (PMIX_DEBUGGER_DAEMONS or"
run_to 60 "$DBG" apps "fea=$FEA" 1:-:daemons 1:-:daemons "$DBG" whoami >"$T/app4" 2>&1 ||
    fail "app4: $(cat "$T/app4")"
expect_in "$T/app4" "spawn PMIX_ERR_NOT_SUPPORTED ns=-"
expect_in "$T/app4" "is debugger daemons only and names a debugger agent"
grep -q '^whoami' "$T/app2" "$T/app3" "$T/app4" && fail "a refused spawn ran something"
wait_pps dvm_dbgd 0

# ---- errors
P -n 2 --exec-agent /nonexistent/agent "$DBG" whoami >"$T/e1" 2>&1
[ $? = 127 ] || fail "a missing exec agent must exit 127: $(cat "$T/e1")"
expect_in "$T/e1" "could not start: its exec agent \"/nonexistent/agent\" could not be"
expect_in "$T/e1" "on node $(hostname)"
P -n 2 --fork-exec-agent /nonexistent/fea "$DBG" whoami >"$T/e2" 2>&1
[ $? = 127 ] || fail "a missing fork/exec agent must exit 127: $(cat "$T/e2")"
expect_in "$T/e2" "its fork/exec agent \"/nonexistent/fea\" could not be"
printf '#!/bin/sh\nexit 3\n' >"$T/early.sh"
chmod +x "$T/early.sh"
P -n 2 --fork-exec-agent "$T/early.sh" "$DBG" whoami >"$T/e3" 2>&1 && fail "an agent exiting early must fail the job"
expect_in "$T/e3" "The fork/exec agent \"$T/early.sh\" of rank "
expect_in "$T/e3" "exited with status 3 before it"
grep -q '^whoami' "$T/e3" && fail "a process started although its agent exited: $(cat "$T/e3")"
P -n 1 --fork-exec-agent /bin/true "$DBG" whoami >"$T/e3b" 2>&1 && fail "an agent exiting 0 at once succeeded"
expect_in "$T/e3b" "exited with status 0 before it"
P -n 2 --fork-exec-agent "$FEA" --exec-agent "$EA" "$DBG" whoami >"$T/e4" 2>&1 && fail "two agents accepted"
expect_in "$T/e4" "names both a fork/exec agent (PMIX_FORKEXEC_AGENT,"
P -n 1 --exec-agent "" "$DBG" whoami >"$T/e5" 2>&1 && fail "an empty agent path accepted"
expect_in "$T/e5" "the value of pmix.exec.agnt must be the agent's path"

# an agent killed while its process runs: the job ends naming the agent, the process
# (the agent's child) is gone too
P -n 3 --fork-exec-agent "$FEA" "$DBG" target >"$T/kill" 2>&1 &
prun=$!
wait_for "$T/kill" "target " 3
victim=$(sed -n 's/^fea 1 pid \([0-9]*\) .*/\1/p' "$T/kill")
[ -n "$victim" ] || fail "no agent of rank 1: $(cat "$T/kill")"
kill -9 "$victim"
wait $prun && fail "the job survived its agent's death: $(cat "$T/kill")"
expect_in "$T/kill" "started through the fork/exec agent"
expect_in "$T/kill" "(pid $victim), was killed by signal 9 (Killed)"
wait_pps dvm_dbgd 0
stop_dvm

# ---- prterun (a one-shot DVM) takes the agents the same way
run_to 120 "$PRTERUN" $RR -n 2 --fork-exec-agent "$FEA" "$DBG" whoami >"$T/pr1" 2>&1 ||
    fail "prterun --fork-exec-agent: $(cat "$T/pr1")"
[ "$(grep -c '^whoami [01]/2 lsize 2 pid .* agent -$' "$T/pr1")" = 2 ] || fail "prterun fea: $(cat "$T/pr1")"
[ "$(grep -c '^fea [01] pid ' "$T/pr1")" = 2 ] || fail "prterun fea: $(cat "$T/pr1")"
run_to 120 "$PRTERUN" $RR -n 2 --exec-agent "$EA" "$DBG" whoami >"$T/pr2" 2>&1 ||
    fail "prterun --exec-agent: $(cat "$T/pr2")"
[ "$(grep -c '^whoami [01]/2 lsize 2 pid \([0-9]*\) ppid [0-9]* agent \1$' "$T/pr2")" = 2 ] ||
    fail "prterun exec agent: $(cat "$T/pr2")"

# ---- an agent that never connects back: killed after the wait, its rank failed
export PX_NAGENT_TEST_AGENT_WAIT=3
start_dvm
printf '#!/bin/sh\nexec sleep 300\n' >"$T/mute.sh"
chmod +x "$T/mute.sh"
P -n 2 --fork-exec-agent "$T/mute.sh" "$DBG" whoami >"$T/e6" 2>&1 && fail "a mute agent's job succeeded"
expect_in "$T/e6" "The fork/exec agent \"$T/mute.sh\" of rank "
expect_in "$T/e6" "did not connect back"
expect_in "$T/e6" "to its daemon within 3 seconds, so it was killed and rank"
wait_pps dvm_dbgd 0
stop_dvm
pass
