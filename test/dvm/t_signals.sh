#!/usr/bin/env bash
# Signals to prun reach the job (SIGINT, SIGHUP forwarded; SIGTERM ends it); a second
# SIGINT kills it; killing prun kills its job.
. "$(dirname "$0")/lib.sh"
start_dvm
wait_for() { # file text
    for i in $(seq 1 200); do grep -qF -- "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
    fail "timed out waiting for '$2' in $1: $(cat "$1")"
}
"$PRUN" $RR -n 2 "$APP" trap >"$T/out" 2>"$T/err" &
p=$!
wait_for "$T/out" "ready"
sleep 0.2
kill -INT $p
wait_for "$T/out" "got signal 2"
kill -HUP $p
wait_for "$T/out" "got signal 1"
kill -TERM $p
wait $p; rc=$?
[ "$(grep -c 'got signal 15' "$T/out")" = 2 ] || fail "both ranks must get SIGTERM: $(cat "$T/out")"
# a second SIGINT kills
"$PRUN" $RR -n 2 "$APP" trap >"$T/out" 2>"$T/err" &
p=$!
wait_for "$T/out" "ready"
sleep 0.2
kill -INT $p
wait_for "$T/out" "got signal 2"
kill -INT $p
wait $p; rc=$?
[ $rc != 0 ] || fail "killed job must fail"
# SIGTSTP stops the job's processes, SIGCONT resumes them
"$PRUN" $RR -n 2 "$APP" trap >"$T/out" 2>"$T/err" &
p=$!
wait_for "$T/out" "ready"
kids=$(python3 -c '
import os, sys
mark = "PXDVM_MARK=" + sys.argv[1]
for p in os.listdir("/proc"):
    if not p.isdigit(): continue
    try:
        env = open(f"/proc/{p}/environ", "rb").read().split(b"\0")
        cmd = open(f"/proc/{p}/cmdline", "rb").read().split(b"\0")
    except OSError: continue
    if mark.encode() in env and len(cmd) > 1 and cmd[1] == b"trap": print(p)
' "$T")
[ "$(echo "$kids" | wc -w)" = 2 ] || fail "two job processes expected, found: $kids"
state() { sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1; }
kill -TSTP $p
for i in $(seq 1 100); do
    all=1; for k in $kids; do [ "$(state $k)" = T ] || all=0; done
    [ $all = 1 ] && break; sleep 0.05
done
[ $all = 1 ] || fail "SIGTSTP did not stop the job"
kill -CONT $p
for i in $(seq 1 100); do
    all=1; for k in $kids; do [ "$(state $k)" != T ] || all=0; done
    [ $all = 1 ] && break; sleep 0.05
done
[ $all = 1 ] || fail "SIGCONT did not resume the job"
kill -TERM $p
wait $p
# prun dies: its job dies
"$PRUN" $RR -n 2 "$APP" sleep 60 >"$T/out" 2>"$T/err" &
p=$!
sleep 1
kill -9 $p
wait $p 2>/dev/null
for i in $(seq 1 100); do
    [ -z "$(leftovers | grep -v prte)" ] && break
    sleep 0.05
done
[ -z "$(leftovers | grep -v prte)" ] || fail "job outlived its prun: $(leftovers)"
stop_dvm
pass
