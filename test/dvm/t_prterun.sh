#!/usr/bin/env bash
# prterun: a one-shot DVM runs one job (MPMD with psets), exits with its status, and
# leaves no process, rendezvous file or socket behind.
. "$(dirname "$0")/lib.sh"
run_to 30 "$PRTERUN" $RR -n 2 --pset a "$APP" hello : -n 1 --pset b "$APP" hello >"$T/out" 2>"$T/err" \
    || fail "prterun exit $?: $(cat "$T/err")"
expect_in "$T/out" "hello rank 0 of 3 psets=a"
expect_in "$T/out" "hello rank 2 of 3 psets=b"
run_to 30 "$PRTERUN" $RR -n 2 "$APP" exit 5 >"$T/out" 2>"$T/err"
[ $? = 5 ] || fail "prterun should exit 5"
expect_in "$T/err" "exited with"
check_clean
pass
