#!/usr/bin/env bash
# Tools that launch (Tools chapter, "Launching Applications with Tools", issue 16): one
# case per run, named by $1.
#   listener   a tool initialised with PMIX_LAUNCHER has a listener: its URI from
#              PMIx_Get(PMIX_MYSERVER_URI), rendezvous files by pid and namespace (not
#              the generic one), a tool that is not a launcher connecting back refused,
#              events both ways with one that is; nothing left once both finalized.
#   setup-fork launcher variables: inherited ones stripped from children, the app's kept
#   server-back prterun started with PMIX_LAUNCHER_RNDZ_URI attaches back; bad URIs
#   self-spawn a tool without a server starts a program itself (directives, output, end)
#   prterun-il, prterun-initiator, prun-il, prun-initiator   indirect launch by
#              examples/pdbg, both methods, prterun and prun as the launcher
#   no-release the launcher's bounded hold; keepalive  kill -9 of the initiator; nohup
#   direct     direct launch through a DVM, a tool spawned through it (PMIX_SPAWN_TOOL), attach
#   old-handshake  PMIX_LAUNCHER_PAUSE_FOR_TOOL, PMIx_tool_connect_to_server, PMIX_LAUNCH_DIRECTIVE
#   old-timeout    its bound (PX_LAUNCHER_HOLD_SECS): no tool, no directives, a bad value
. "$(dirname "$0")/lib.sh"
TOOL=$B/test/clients/pxt_tool
H=$(hostname)
EMPTY=$T/empty
mkdir -p "$EMPTY"

# start_initiator OUT ARGS... : a tool with PMIX_LAUNCHER in the background (pid in INIT,
# its URI in URI once it printed it)
start_initiator() {
    local out=$1
    shift
    "$TOOL" --do-not-connect --launcher --print-uri "$@" >"$out" 2>&1 &
    INIT=$!
    wait_for "$out" "pxt_tool: my server uri "
    URI=$(sed -n 's/^pxt_tool: my server uri //p' "$out")
}

case_listener() {
    start_initiator "$T/a" --wait-event 5001 --reply 5002 --end-until "$T/b.done"
    local id
    id=$(sed -n 's/^pxt_tool: id \([^ ]*\) connected.*/\1/p' "$T/a")
    case "$URI" in
    "${id%:*}.0;usock:$TMPDIR/pmix-$INIT.sock") ;;
    *) fail "the URI $URI must name the tool ${id} and its socket in $TMPDIR" ;;
    esac
    [ -f "$TMPDIR/pmix.$H.tool.$INIT" ] || fail "no rendezvous file by pid: $(ls "$TMPDIR")"
    [ -f "$TMPDIR/pmix.$H.tool.${id%:*}" ] || fail "no rendezvous file by namespace: $(ls "$TMPDIR")"
    [ ! -e "$TMPDIR/pmix.$H.tool" ] || fail "a tool's listener must not take the generic file"
    [ "$(sed -n 1p "$TMPDIR/pmix.$H.tool.$INIT")" = "$URI" ] || fail "rendezvous file names another URI"
    # only launchers connecting back: another tool's default search goes past it
    run_to 20 "$TOOL" --uri "$URI" --expect PMIX_ERR_NOT_SUPPORTED >"$T/c" 2>&1 ||
        fail "a plain tool must be refused: $(cat "$T/c")"
    PMIX_LAUNCHER_RNDZ_URI=$URI run_to 20 "$TOOL" --tmpdir "$EMPTY" --notify 5001 \
        --wait-event 5002 >"$T/b" 2>&1 || fail "the launcher: $(cat "$T/b") initiator: $(cat "$T/a")"
    expect_in "$T/b" "event UNKNOWN STATUS from $id \"from pxt_tool\""
    touch "$T/b.done"
    wait $INIT || fail "the initiator: $(cat "$T/a")"
    local bid
    bid=$(sed -n 's/^pxt_tool: id \([^ ]*\) connected.*/\1/p' "$T/b")
    expect_in "$T/a" "event UNKNOWN STATUS from $bid \"from pxt_tool\""
}

# PMIx_server_setup_fork strips the launcher variables this process inherited (here
# prterun's PMIX_LAUNCHER_RNDZ_FILE, passed on by a bare -x) and keeps those the requester
# put in the app's environment
case_setup_fork() {
    PMIX_LAUNCHER_RNDZ_FILE=$T/lrf run_to 30 "$PRTERUN" $RR -n 1 -x PMIX_LAUNCHER_RNDZ_FILE \
        "$APP" env PMIX_LAUNCHER_RNDZ_FILE >"$T/o1" 2>&1 || fail "prterun: $(cat "$T/o1")"
    expect_in "$T/o1" "PMIX_LAUNCHER_RNDZ_FILE=(unset)"
    run_to 30 "$PRTERUN" $RR -n 1 -x "PMIX_LAUNCHER_RNDZ_URI=x.0;usock:$T/none" \
        -x PMIX_KEEPALIVE_PIPE=7 "$APP" env PMIX_LAUNCHER_RNDZ_URI >"$T/o2" 2>&1 ||
        fail "prterun: $(cat "$T/o2")"
    expect_in "$T/o2" "PMIX_LAUNCHER_RNDZ_URI=x.0;usock:$T/none"
}

# a server started with PMIX_LAUNCHER_RNDZ_URI (prterun) attaches back to that tool,
# telling it its own server's URI; a URI that is not one, or names nobody, is a clear
# error and prterun exits non-zero
case_server_back() {
    PMIX_RUNTIME_DEBUG=2 start_initiator "$T/a" --end-until "$T/done"
    PMIX_LAUNCHER_RNDZ_URI=$URI run_to 30 "$PRTERUN" $RR -n 1 "$APP" hello >"$T/o" 2>&1 ||
        fail "prterun: $(cat "$T/o")"
    expect_in "$T/o" "hello rank 0 of 1"
    grep -q "own server: launcher prte-[^ ]*:0 connected back (pid [0-9]*, server prte-[^ ]*;usock:" "$T/a" ||
        fail "prterun did not connect back: $(cat "$T/a")"
    touch "$T/done"
    wait $INIT || fail "the initiator: $(cat "$T/a")"
    PMIX_LAUNCHER_RNDZ_URI=garbage run_to 30 "$PRTERUN" $RR -n 1 "$APP" hello >"$T/o" 2>&1 &&
        fail "prterun with a bad URI must fail: $(cat "$T/o")"
    expect_in "$T/o" 'PMIX_LAUNCHER_RNDZ_URI (set by the tool that started this launcher) holds "garbage"'
    PMIX_LAUNCHER_RNDZ_URI="x.0;usock:$T/none" run_to 30 "$PRTERUN" $RR -n 1 "$APP" hello \
        >"$T/o" 2>&1 && fail "prterun with an unreachable URI must fail: $(cat "$T/o")"
    expect_in "$T/o" "cannot reach the PMIx server at x.0;usock:$T/none"
    grep -q "hello rank" "$T/o" && fail "nothing may run: $(cat "$T/o")"
    return 0
}

# self-spawn: a tool with PMIX_LAUNCHER and no server starts the program itself, registers
# it with its spawn's job info (the child, a tool connecting back, reads its
# PMIX_LAUNCH_DIRECTIVES and PMIX_PARENT_ID), forwards its stdout, hears its end with the
# exit code; a program that does not exist is a clear error
case_self_spawn() {
    run_to 30 "$TOOL" --do-not-connect --launcher --self-spawn -- "$TOOL" --tmpdir "$EMPTY" \
        --directives >"$T/a" 2>&1 || fail "self-spawn: $(cat "$T/a")"
    local id ns
    id=$(sed -n '1s/^pxt_tool: id \([^ ]*\) connected.*/\1/p' "$T/a")
    ns=$(sed -n 's/^pxt_tool: spawned \([^ ]*\): PMIX_SUCCESS$/\1/p' "$T/a")
    [ "$ns" = "${id%:*}.1" ] || fail "the namespace must be ${id%:*}.1: $(cat "$T/a")"
    expect_in "$T/a" "pxt_tool: id $ns:0 connected yes"
    expect_in "$T/a" "pxt_tool: servers after init (PMIX_SUCCESS): $id"
    expect_in "$T/a" "pxt_tool: directive pmix.timeout=PMIX_INT: 7"
    expect_in "$T/a" "pxt_tool: directive pmix.mapby=PMIX_STRING: slot"
    expect_in "$T/a" "pxt_tool: parent $id"
    expect_in "$T/a" "pxt_tool: job $ns ended, exit code 0"
    run_to 30 "$TOOL" --do-not-connect --launcher --self-spawn -- sh -c 'echo child here; exit 3' \
        >"$T/b" 2>&1 || fail "self-spawn of sh: $(cat "$T/b")"
    expect_in "$T/b" "child here"
    expect_in "$T/b" "exit code 3"
    # captured (PMIX_FWD_STDOUT: the child's stdout is a pipe to us), or, with
    # PMIX_IOF_LOCAL_OUTPUT, the child writes to our stdout itself
    run_to 30 "$TOOL" --do-not-connect --launcher --self-spawn -- sh -c 'readlink /proc/self/fd/1' \
        >"$T/f" 2>&1 || fail "self-spawn: $(cat "$T/f")"
    grep -q "^pipe:" "$T/f" || fail "output must be captured: $(cat "$T/f")"
    run_to 30 "$TOOL" --do-not-connect --launcher --local-output --self-spawn -- sh -c \
        'readlink /proc/self/fd/1' >"$T/l" 2>&1 || fail "self-spawn: $(cat "$T/l")"
    grep -qx "$T/l" "$T/l" || fail "PMIX_IOF_LOCAL_OUTPUT: our own stdout: $(cat "$T/l")"
    run_to 30 "$TOOL" --do-not-connect --launcher --self-spawn -- "$T/nosuch" >"$T/c" 2>&1 &&
        fail "a missing program must fail: $(cat "$T/c")"
    expect_in "$T/c" "the tool could not start $T/nosuch on host"
    expect_in "$T/c" "spawned -: PMIX_ERR_JOB_EXE_NOT_FOUND"
}

# ---- indirect launch with the example debugger front end (examples/pdbg.c) ----
PDBG=$B/examples/pdbg

# pdbg_ok OUT N ARGS... : pdbg must succeed, its job of N dvm_app hello print N hellos,
# launch complete and the job's end in that order
pdbg_ok() {
    local out=$1 n=$2
    shift 2
    run_to 120 "$PDBG" --timeout 60 "$@" >"$out" 2>&1 || fail "pdbg $*: $(cat "$out")"
    [ "$(grep -c '^hello rank' "$out")" = "$n" ] || fail "$n hellos expected: $(cat "$out")"
    local ns
    ns=$(sed -n 's/^pdbg: launch complete //p' "$out")
    [ -n "$ns" ] || fail "no launch complete: $(cat "$out")"
    expect_in "$out" "pdbg: job $ns ended: exit code 0"
}

# the launcher parses the command line: one spawn of "prterun -n N app", held in init
# until our release, the directives applied, its events and the job's output reach us;
# at 1, 16 and 64 processes; the exit code is the job's
case_prterun_il() {
    local n
    for n in 1 16 64; do
        pdbg_ok "$T/o$n" "$n" -- "$PRTERUN" $RR -n "$n" "$APP" hello
        expect_in "$T/o$n" "pdbg: released"
        grep -q "pdbg: launch complete .*@1" "$T/o$n" || fail "the app's namespace: $(cat "$T/o$n")"
    done
    run_to 60 "$PDBG" --timeout 30 -- "$PRTERUN" $RR -n 2 "$APP" exit 3 >"$T/x" 2>&1
    [ $? = 3 ] || fail "exit code 3 expected: $(cat "$T/x")"
    expect_in "$T/x" "ended: exit code 3"
    # PMIX_LAUNCH_DIRECTIVES reach the job: a map-by policy the DVM refuses
    run_to 60 "$PDBG" --timeout 30 --map-by bogus -- "$PRTERUN" $RR -n 2 "$APP" hello \
        >"$T/d" 2>&1 && fail "a bogus map-by directive must fail the job: $(cat "$T/d")"
    grep -q "bogus" "$T/d" || fail "the refusal must name the policy: $(cat "$T/d")"
    grep -q "^hello" "$T/d" && fail "nothing may run: $(cat "$T/d")"
    return 0
}

# we parse the command line: prterun alone (no executable: it takes our spawn requests,
# says PMIX_LAUNCHER_READY), then the job through it; prterun ends when we do
case_prterun_initiator() {
    local n
    for n in 1 16 64; do
        pdbg_ok "$T/o$n" "$n" --launcher "$PRTERUN $RR" -n "$n" -- "$APP" hello
        expect_in "$T/o$n" "pdbg: launcher ready"
    done
    # prte, a persistent DVM, started the same way: ready once released, gone with us
    pdbg_ok "$T/p" 4 --launcher "$PRTE $RR" -n 4 -- "$APP" hello
    expect_in "$T/p" "pdbg: launcher ready"
    poll_until no_leftovers || fail "prte must end with the tool that started it: $(leftovers)"
}

# prun as the launcher of a running DVM (the launcher parses the command line)
case_prun_il() {
    start_dvm
    local n
    for n in 1 16 64; do
        pdbg_ok "$T/o$n" "$n" -- "$PRUN" $RR -n "$n" "$APP" hello
    done
    run_to 60 "$PDBG" --timeout 30 -- "$PRUN" $RR -n 1 "$APP" exit 5 >"$T/x" 2>&1
    [ $? = 5 ] || fail "exit code 5 expected: $(cat "$T/x")"
    PMIX_LAUNCHER_RNDZ_URI=garbage run_to 30 "$PRUN" $RR -n 1 "$APP" hello >"$T/b" 2>&1 &&
        fail "prun with a bad URI must fail: $(cat "$T/b")"
    expect_in "$T/b" 'PMIX_LAUNCHER_RNDZ_URI (set by the tool that started this one) holds "garbage"'
    stop_dvm
    # no DVM: the tool that started prun runs no jobs
    run_to 60 "$PDBG" --timeout 30 -- "$PRUN" $RR -n 1 "$APP" hello >"$T/n" 2>&1 &&
        fail "prun without a DVM must fail: $(cat "$T/n")"
    expect_in "$T/n" "prun: no running DVM was found"
}

# prun as the launcher of the initiator-parsed method: started alone (no executable), it
# says PMIX_LAUNCHER_READY and passes our spawn requests on to its DVM; the job's events
# (JOB_END with the exit code, PMIX_READY_FOR_DEBUG) and output come back to us through
# prun's server, our release of the held job goes up to the DVM; kill -9 of the
# initiator: prun goes, and the DVM ends the job it passed on
case_prun_initiator() {
    start_dvm
    local n
    for n in 1 16 64; do
        pdbg_ok "$T/o$n" "$n" --launcher "$PRUN $RR" -n "$n" -- "$APP" hello
        expect_in "$T/o$n" "pdbg: launcher ready"
        grep -q "pdbg: launch complete prte-" "$T/o$n" || fail "a job of the DVM: $(cat "$T/o$n")"
    done
    # the output is the job's as it reaches our own pull (tagged with the job's ranks),
    # not prun's; the processes held in init until our release
    run_to 120 "$PDBG" --timeout 60 --tag --stop --launcher "$PRUN $RR" -n 2 -- "$APP" hello \
        >"$T/t" 2>&1 || fail "pdbg --tag --stop: $(cat "$T/t")"
    local ns
    ns=$(sed -n 's/^pdbg: launch complete //p' "$T/t")
    expect_in "$T/t" "pdbg: job $ns ready for debug"
    expect_in "$T/t" "pdbg: released job $ns: PMIX_SUCCESS"
    expect_in "$T/t" "[$ns,0]<stdout>: hello rank 0 of 2"
    expect_in "$T/t" "[$ns,1]<stdout>: hello rank 1 of 2"
    grep -q "^hello" "$T/t" && fail "untagged output (not through prun's server): $(cat "$T/t")"
    run_to 60 "$PDBG" --timeout 30 --launcher "$PRUN $RR" -n 1 -- "$APP" exit 4 >"$T/x" 2>&1
    [ $? = 4 ] || fail "exit code 4 expected: $(cat "$T/x")"
    expect_in "$T/x" "ended: exit code 4"
    # PMIX_NOHUP of a relaying prun: refused (its jobs would end with it), not ignored
    run_to 60 "$PDBG" --timeout 30 --nohup --launcher "$PRUN $RR" -n 1 -- "$APP" hello \
        >"$T/h" 2>&1 && fail "PMIX_NOHUP of a relaying prun must fail: $(cat "$T/h")"
    expect_in "$T/h" "asked PMIX_NOHUP of it,"
    grep -q "^hello" "$T/h" && fail "nothing may run: $(cat "$T/h")"
    "$PDBG" --timeout 60 --launcher "$PRUN $RR" -n 4 -- "$APP" sleep 60 >"$T/k" 2>&1 &
    local pid=$!
    wait_app_pids sleep 4
    kill -9 $pid
    wait $pid 2>/dev/null
    wait_pps 'sleep 60' 0
    poll_until only_dvm_left || fail "left after kill -9 of the initiator: $(leftovers)"
    stop_dvm
    sweep_stale
}

# an initiator that never releases its launcher: the launcher gives up after the bound
# it was given (PMIX_SPAWN_TIMEOUT; 60 s by default) with a clear message, runs nothing
case_no_release() {
    run_to 60 "$PDBG" --timeout 3 --no-release -- "$PRTERUN" $RR -n 2 "$APP" hello >"$T/o" 2>&1 &&
        fail "pdbg must fail: $(cat "$T/o")"
    expect_in "$T/o" "asked it to wait in its"
    expect_in "$T/o" "none came within 3 s"
    grep -q "^hello" "$T/o" && fail "nothing may run: $(cat "$T/o")"
    start_dvm
    run_to 60 "$PDBG" --timeout 3 --no-release -- "$PRUN" $RR -n 2 "$APP" hello >"$T/p" 2>&1 &&
        fail "pdbg must fail: $(cat "$T/p")"
    expect_in "$T/p" "none came within 3 s"
    stop_dvm
}

# the initiator killed with kill -9 once the job runs: the keepalive pipe closes, the
# launcher tears the job down and exits; nothing is left (prterun at 1, 16, 64; prun)
case_keepalive() {
    local n pid
    for n in 1 16 64; do
        "$PDBG" --timeout 60 -- "$PRTERUN" $RR -n "$n" "$APP" sleep 60 >"$T/k$n" 2>&1 &
        pid=$!
        wait_app_pids sleep "$n"
        kill -9 $pid
        wait $pid 2>/dev/null
        poll_until no_leftovers || fail "left after kill -9 of the initiator ($n): $(leftovers)"
        sweep_stale
    done
    # prte started by the tool: its DVM ends
    "$PDBG" --timeout 60 --launcher "$PRTE $RR" -n 4 -- "$APP" sleep 60 >"$T/kd" 2>&1 &
    pid=$!
    wait_app_pids sleep 4
    kill -9 $pid
    wait $pid 2>/dev/null
    poll_until no_leftovers || fail "left after kill -9 of the initiator (prte): $(leftovers)"
    sweep_stale
    start_dvm
    "$PDBG" --timeout 60 -- "$PRUN" $RR -n 4 "$APP" sleep 60 >"$T/kp" 2>&1 &
    pid=$!
    wait_app_pids sleep 4
    kill -9 $pid
    wait $pid 2>/dev/null
    wait_pps 'sleep 60' 0
    poll_until only_dvm_left || fail "left after kill -9 of the initiator (prun): $(leftovers)"
    stop_dvm
    sweep_stale
}
no_leftovers() { [ -z "$(leftovers)" ]; }
# A killed initiator cannot remove its rendezvous files: the next server that starts on
# the node removes those of dead pids (here a tool's own server, started and finalized).
sweep_stale() {
    run_to 20 "$TOOL" --do-not-connect --launcher >"$T/sweep" 2>&1 || fail "sweep: $(cat "$T/sweep")"
}
only_dvm_left() {
    leftovers >"$T/left" # (a pipe's reader would list itself)
    [ "$(grep -cv "^$DVM_PID " "$T/left")" = 0 ]
}

# PMIX_NOHUP: the job outlives the initiator
case_nohup() {
    PMIX_RUNTIME_DEBUG=1 "$PDBG" --timeout 60 --nohup --no-forward -- "$PRTERUN" $RR -n 1 \
        "$APP" waitfile "$T/go" 0 >"$T/o" 2>&1 &
    local pid=$!
    wait_app_pids waitfile 1
    kill -9 $pid
    wait $pid 2>/dev/null
    wait_for "$T/o" "keepalive pipe closed: the tool that started us"
    [ -n "$(app_pids waitfile)" ] || fail "the job must outlive its initiator: $(cat "$T/o")"
    touch "$T/go"
    poll_until no_leftovers || fail "left after the job ended: $(leftovers)"
    sweep_stale
}

# direct launch through a DVM, and PMIX_SPAWN_TOOL: a tool started by the DVM for us gets
# the PMIX_LAUNCHER_RNDZ_URI we put in its env (the DVM's setup_fork keeps it), finds the
# DVM as its primary and connects back to us; attach: a second tool lists a running
# job's processes
case_direct() {
    start_dvm
    pdbg_ok "$T/o" 4 --direct -n 4 -- "$APP" hello
    run_to 60 "$PDBG" --direct --tool -n 1 -- "$TOOL" --tmpdir "$TMPDIR" >"$T/t" 2>&1 ||
        fail "a tool through the DVM: $(cat "$T/t")"
    grep -q "pxt_tool: servers after init (PMIX_SUCCESS): prte-[^ ]*:0 prte-[^ ]*\.tool[0-9]*:0$" "$T/t" ||
        fail "the tool must keep the DVM as primary and connect back to us: $(cat "$T/t")"
    "$PDBG" --direct -n 2 -- "$APP" waitfile "$T/go" 0 >"$T/bg" 2>&1 &
    local bg=$!
    wait_pps 'waitfile' 2
    local ns
    ns=$(sed -n 's/^pdbg: launch complete //p' "$T/bg")
    run_to 30 "$PDBG" --attach "$ns" >"$T/a" 2>&1 || fail "attach: $(cat "$T/a")"
    [ "$(grep -c "^pdbg: $ns rank [01] pid [0-9]* host " "$T/a")" = 2 ] || fail "proc table: $(cat "$T/a")"
    # pdbg's debugger daemons (examples/debugger_daemon): placed beside the running job,
    # one per process, each finding its target
    run_to 60 "$PDBG" --attach "$ns" --daemon "$B/examples/debugger_daemon" --per-proc >"$T/ad" 2>&1 ||
        fail "attach with daemons: $(cat "$T/ad")"
    for r in 0 1; do
        expect_in "$T/ad" "dbgd $r/2 host $(hostname) lrank $r/2 target $ns local 2 total 2 mine $r pids "
    done
    expect_in "$T/ad" "pdbg: job $(sed -n 's/^pdbg: launch complete //p' "$T/ad") ended: exit code 0"
    touch "$T/go"
    wait $bg || fail "the direct launch: $(cat "$T/bg")"
    # co-spawned with a job held in init: one daemon on the node finds all 3 targets and
    # releases them; pdbg hears the job's ready event and waits for the daemons' end too
    pdbg_ok "$T/cd" 3 --direct --stop --daemon "$B/examples/debugger_daemon" -n 3 -- "$APP" hello
    ns=$(sed -n 's/^pdbg: launch complete //p' "$T/cd")
    expect_in "$T/cd" "pdbg: job $ns ready for debug"
    expect_in "$T/cd" "pdbg: its debugger daemons release it"
    expect_in "$T/cd" "dbgd 0/1 host $(hostname) lrank 0/1 target $ns local 3 total 3 mine 0,1,2 pids "
    grep -q "^pdbg: daemons [^ ]* ended: exit code 0$" "$T/cd" || fail "the daemons' end: $(cat "$T/cd")"
    stop_dvm
}

# the older "wait for directives" handshake (OpenPMIx 3.x): prterun paused for a tool
# (PMIX_LAUNCHER_PAUSE_FOR_TOOL, given directly or as a PMIX_SET_ENVAR of the spawn that
# starts it) writes PMIX_LAUNCHER_RENDEZVOUS_FILE, the tool connects with the deprecated
# PMIx_tool_connect_to_server, hears PMIX_LAUNCHER_READY, sends PMIX_LAUNCH_DIRECTIVE
# (-154) with PMIX_DEBUG_JOB_DIRECTIVES, which the job gets; a bad value is refused
case_old_handshake() {
    local n
    for n in 1 16 64; do
        pdbg_ok "$T/o$n" "$n" --old -- "$PRTERUN" $RR -n "$n" "$APP" hello
        expect_in "$T/o$n" "pdbg: launcher ready"
        expect_in "$T/o$n" "pdbg: directives sent: PMIX_SUCCESS"
    done
    pdbg_ok "$T/v" 2 --old --via-spawn -- "$PRTERUN" $RR -n 2 "$APP" hello
    run_to 60 "$PDBG" --old --timeout 30 --map-by bogus -- "$PRTERUN" $RR -n 2 "$APP" hello \
        >"$T/d" 2>&1 && fail "a bogus map-by directive must fail the job: $(cat "$T/d")"
    grep -q "bogus" "$T/d" || fail "the refusal must name the policy: $(cat "$T/d")"
    PMIX_LAUNCHER_PAUSE_FOR_TOOL=garbage run_to 30 "$PRTERUN" $RR -n 1 "$APP" hello >"$T/b" 2>&1 &&
        fail "a bad PMIX_LAUNCHER_PAUSE_FOR_TOOL must fail: $(cat "$T/b")"
    expect_in "$T/b" 'PMIX_LAUNCHER_PAUSE_FOR_TOOL holds "garbage", which does not name a tool'
    grep -q "^hello" "$T/b" && fail "nothing may run: $(cat "$T/b")"
    return 0
}

# the older handshake's bound (PX_LAUNCHER_HOLD_SECS, 60 s by default): prterun paused
# for a tool that never connects, or connects, hears PMIX_LAUNCHER_READY and never sends
# its directives, gives up with a clear message and exit 1, runs nothing, leaves nothing
# (no process, no rendezvous file); a bound that is not a number of seconds is refused
case_old_timeout() {
    PX_LAUNCHER_HOLD_SECS=2 PMIX_LAUNCHER_PAUSE_FOR_TOOL=nobody:0 \
        PMIX_LAUNCHER_RENDEZVOUS_FILE=$T/rf run_to 30 "$PRTERUN" $RR -n 1 "$APP" hello \
        >"$T/a" 2>&1
    [ $? = 1 ] || fail "prterun must give up with exit 1: $(cat "$T/a")"
    expect_in "$T/a" "asked this launcher to wait for the tool nobody:0 to"
    expect_in "$T/a" "none came within 2 s; nothing was launched"
    grep -q "^hello" "$T/a" && fail "nothing may run: $(cat "$T/a")"
    [ ! -e "$T/rf" ] || fail "the rendezvous file must go with prterun"
    PX_LAUNCHER_HOLD_SECS=2 run_to 60 "$PDBG" --old --no-release --timeout 30 -- "$PRTERUN" $RR \
        -n 1 "$APP" hello >"$T/b" 2>&1 && fail "pdbg must fail: $(cat "$T/b")"
    expect_in "$T/b" "pdbg: launcher ready"
    expect_in "$T/b" "pdbg: directives not sent"
    expect_in "$T/b" "none came within 2 s; nothing was launched"
    expect_in "$T/b" "pdbg: launcher exited with status 1"
    grep -q "^hello" "$T/b" && fail "nothing may run: $(cat "$T/b")"
    PX_LAUNCHER_HOLD_SECS=soon PMIX_LAUNCHER_PAUSE_FOR_TOOL=nobody:0 run_to 30 "$PRTERUN" $RR \
        -n 1 "$APP" hello >"$T/c" 2>&1
    [ $? = 1 ] || fail "a bad PX_LAUNCHER_HOLD_SECS must fail with exit 1: $(cat "$T/c")"
    expect_in "$T/c" 'PX_LAUNCHER_HOLD_SECS holds "soon", which is not a number of seconds'
    grep -q "^hello" "$T/c" && fail "nothing may run: $(cat "$T/c")"
    poll_until no_leftovers || fail "left behind: $(leftovers)"
    [ -z "$(ls -A "$TMPDIR")" ] || fail "files left in TMPDIR: $(ls -A "$TMPDIR")"
}

case "${1:-}" in
listener) case_listener ;;
old-handshake) case_old_handshake ;;
old-timeout) case_old_timeout ;;
direct) case_direct ;;
prterun-il) case_prterun_il ;;
prterun-initiator) case_prterun_initiator ;;
prun-il) case_prun_il ;;
prun-initiator) case_prun_initiator ;;
no-release) case_no_release ;;
keepalive) case_keepalive ;;
nohup) case_nohup ;;
self-spawn) case_self_spawn ;;
setup-fork) case_setup_fork ;;
server-back) case_server_back ;;
*) fail "unknown case '${1:-}'" ;;
esac
pass
