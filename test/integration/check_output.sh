#!/bin/sh
# Runs a command and checks its exit status and output.
# Usage: check_output.sh EXPECTED_STATUS PATTERN -- COMMAND [ARGS...]
#   EXPECTED_STATUS: a number, or "nonzero"
#   PATTERN: an extended regular expression that stdout+stderr must match
#            (prefix with '!' to require that it does NOT match)
set -u
want=$1
pattern=$2
shift 3
out=$(timeout 60 "$@" 2>&1)
status=$?
printf '%s\n' "$out"
if [ "$status" -ge 124 ] && [ "$status" -le 137 ]; then
    echo "FAIL: exited with status $status (timeout or signal)"
    exit 1
fi
case "$want" in
nonzero) [ "$status" -ne 0 ] || { echo "FAIL: expected a non-zero exit status"; exit 1; } ;;
*) [ "$status" -eq "$want" ] || { echo "FAIL: exit status $status, expected $want"; exit 1; } ;;
esac
case "$pattern" in
!*)
    if printf '%s\n' "$out" | grep -Eq -- "${pattern#!}"; then
        echo "FAIL: output matches '${pattern#!}'"; exit 1
    fi ;;
*)
    if ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then
        echo "FAIL: output does not match '$pattern'"; exit 1
    fi ;;
esac
echo "ok"
