#!/usr/bin/env bash
# Tools that launch (Tools chapter, "Launching Applications with Tools", issue 16): one
# case per run, named by $1.
#   listener   a tool initialised with PMIX_LAUNCHER has a listener: its URI from
#              PMIx_Get(PMIX_MYSERVER_URI), rendezvous files by pid and namespace (not
#              the generic one), a tool that is not a launcher connecting back refused,
#              events both ways with one that is; nothing left once both finalized.
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

case "${1:-}" in
listener) case_listener ;;
*) fail "unknown case '${1:-}'" ;;
esac
pass
