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
    run_to 30 "$TOOL" --do-not-connect --launcher --self-spawn -- "$T/nosuch" >"$T/c" 2>&1 &&
        fail "a missing program must fail: $(cat "$T/c")"
    expect_in "$T/c" "the tool could not start $T/nosuch on host"
    expect_in "$T/c" "spawned -: PMIX_ERR_JOB_EXE_NOT_FOUND"
}

case "${1:-}" in
listener) case_listener ;;
self-spawn) case_self_spawn ;;
setup-fork) case_setup_fork ;;
server-back) case_server_back ;;
*) fail "unknown case '${1:-}'" ;;
esac
pass
