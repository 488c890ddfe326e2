#!/usr/bin/env bash
# prun/pterm/pps with no DVM to reach, or a stale rendezvous file, fail clearly: each
# case is checked against its text (help-prte.txt [no-dvm], help-pmix-tool.txt).
. "$(dirname "$0")/lib.sh"
for cmd in "$PRUN" "$PTERM" "$PPS"; do
    args=""
    [ "$cmd" = "$PRUN" ] && args="-n 1 /bin/true"
    run_to 20 "$cmd" $RR $args >"$T/out" 2>"$T/err"; rc=$?
    [ $rc != 0 ] || fail "$cmd without a DVM must fail"
    expect_in "$T/err" "$(basename "$cmd"): no running DVM was found."
    expect_in "$T/err" 'Start one with "prte --daemonize"'
    expect_in "$T/err" "--dvm-uri <uri|file:path>, --pid <pid> or --namespace <name>."
done
# a stale URI file: the DVM that wrote it is gone
start_dvm
cp "$T/uri" "$T/stale"
stop_dvm
run_to 20 "$PRUN" $RR --dvm-uri "file:$T/stale" -n 1 /bin/true >"$T/out" 2>"$T/err"; rc=$?
[ $rc != 0 ] || fail "stale URI file must fail"
expect_in "$T/err" "prun: no running DVM was found."
expect_in "$T/err" "PMIx tool: cannot reach the PMIx server at " # [unreachable]
run_to 20 "$PRUN" $RR --dvm-uri "file:$T/missing" -n 1 /bin/true >"$T/out" 2>"$T/err"; rc=$?
[ $rc != 0 ] || fail "missing URI file must fail"
expect_in "$T/err" "PMIx tool: the attachment file $T/missing cannot be read on host $(hostname)"
expect_in "$T/err" "prun: no running DVM was found."
run_to 20 "$PRUN" $RR --dvm-uri "garbage" -n 1 /bin/true >"$T/out" 2>"$T/err"; rc=$?
[ $rc != 0 ] || fail "garbage URI must fail"
expect_in "$T/err" 'holds "garbage", which is not a server URI of this PMIx implementation.'
expect_in "$T/err" "prun: no running DVM was found."
run_to 20 "$PRUN" $RR --pid 999999 -n 1 /bin/true >"$T/out" 2>"$T/err"; rc=$?
[ $rc != 0 ] || fail "--pid of no DVM must fail"
expect_in "$T/err" "the rendezvous file of the server with the given pid $TMPDIR/pmix.$(hostname).tool.999999 cannot be read"
expect_in "$T/err" "prun: no running DVM was found."
pass
