#!/usr/bin/env bash
# How a job ends decides prun's status and message: non-zero exit, signal (128+n),
# PMIx_Abort (its status and message), exit without PMIx_Finalize. The DVM survives each.
. "$(dirname "$0")/lib.sh"
start_dvm
P() { run_to 30 "$PRUN" $RR "$@" >"$T/out" 2>"$T/err"; }
P -n 2 "$APP" exit 3; rc=$?
[ $rc = 3 ] || fail "exit 3 expected, got $rc"
expect_in "$T/err" "exited with"
expect_in "$T/err" "status 3"
P -n 2 "$APP" crash; rc=$?
[ $rc = 139 ] || fail "128+SIGSEGV expected, got $rc"
expect_in "$T/err" "signal 11"
P -n 3 "$APP" abort 7 "the ocean boiled"; rc=$?
[ $rc = 7 ] || fail "abort status 7 expected, got $rc"
expect_in "$T/err" "the ocean boiled"
expect_in "$T/err" "PMIx_Abort"
P -n 1 "$APP" nofinal; rc=$?
[ $rc != 0 ] || fail "exit without finalize must fail the job"
expect_in "$T/err" "without calling PMIx_Finalize"
P -n 1 "$APP" exit raw:0; rc=$?
[ $rc = 0 ] || fail "a non-PMIx program exiting 0 succeeds, got $rc"
P -n 2 "$APP" hello || fail "the DVM must still run jobs: $(cat "$T/err")"
stop_dvm
pass
