#!/usr/bin/env bash
# A job that cannot start says which executable, node and why, exits non-zero and leaves
# nothing running: missing program, program not executable, bad working directory.
. "$(dirname "$0")/lib.sh"
start_dvm
P() { run_to 30 "$PRUN" $RR "$@" >"$T/out" 2>"$T/err"; }
P -n 4 /nonexistent/prog; rc=$?
[ $rc = 127 ] || fail "missing executable: 127 expected, got $rc"
expect_in "$T/err" "/nonexistent/prog"
expect_in "$T/err" "$(hostname)"
printf '#!/bin/sh\necho hi\n' >"$T/noexec"; chmod 644 "$T/noexec"
P -n 2 "$T/noexec"; rc=$?
[ $rc = 126 ] || fail "not executable: 126 expected, got $rc"
expect_in "$T/err" "Permission denied"
P -n 2 --wdir /nonexistent/dir "$APP" hello; rc=$?
[ $rc != 0 ] || fail "bad wdir must fail"
expect_in "$T/err" "chdir"
P -n 2 "$APP" hello || fail "the DVM must still run jobs: $(cat "$T/err")"
stop_dvm
pass
