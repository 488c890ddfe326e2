#!/usr/bin/env bash
# A job that cannot start says which executable, node and why, exits non-zero and leaves
# nothing running: missing program (with the PATH searched for a bare name), program not
# executable, bad working directory, an output file that cannot be created.
. "$(dirname "$0")/lib.sh"
start_dvm
P() { run_to 30 "$PRUN" $RR "$@" >"$T/out" 2>"$T/err"; }
P -n 4 /nonexistent/prog; rc=$?
[ $rc = 127 ] || fail "missing executable: 127 expected, got $rc"
expect_in "$T/err" '"/nonexistent/prog" was not found'
expect_in "$T/err" "$(hostname)"
P -n 1 -x PATH=/nonexistent/bin:/also/not no_such_prog_px; rc=$?
[ $rc = 127 ] || fail "bare name not found: 127 expected, got $rc"
expect_in "$T/err" '"no_such_prog_px" was not found'
expect_in "$T/err" "Searched: /nonexistent/bin:/also/not"
printf '#!/bin/sh\necho hi\n' >"$T/noexec"; chmod 644 "$T/noexec"
P -n 2 "$T/noexec"; rc=$?
[ $rc = 126 ] || fail "not executable: 126 expected, got $rc"
expect_in "$T/err" "$T/noexec\" could not be started"
expect_in "$T/err" "is not executable by you"
P -n 2 --wdir /nonexistent/dir "$APP" hello; rc=$?
[ $rc != 0 ] || fail "bad wdir must fail"
expect_in "$T/err" "Cannot change to the working directory /nonexistent/dir"
expect_in "$T/err" "No such file or directory"
# a path under a regular file cannot be created, even by root
P -n 1 --output file="$T/noexec/out" "$APP" hello; rc=$?
[ $rc != 0 ] || fail "an output file that cannot be created must fail the job"
expect_in "$T/err" "Cannot open the output file $T/noexec/out"
P -n 2 "$APP" hello || fail "the DVM must still run jobs: $(cat "$T/err")"
stop_dvm
pass
