#!/usr/bin/env bash
# Proc tables from a tool program against the real DVM: hosts, pids (real processes
# running our program), states and exit codes, while the job runs and after one process
# ended with exit code 3 (the others ignore SIGTERM, so they are still there until the
# DVM's SIGKILL 2 s later).
# The second table must be read inside those 2 s. toolptab says how long after making
# rank 2 exit its last read ended; past 1.9 s the attempt proves nothing (the others may
# already be gone) and is run again, up to 3 times. Under 1.9 s every check is strict.
. "$(dirname "$0")/lib.sh"
start_dvm
h=$(hostname)
for attempt in 1 2 3; do
    rm -f "$T/go"
    "$PRUN" $RR -n 2 "$APP" hold : -n 1 "$APP" waitfile "$T/go" 3 >"$T/job" 2>&1 &
    job=$!
    run_to 60 "$APP" toolptab "$T/go" >"$T/tab" 2>&1 || fail "toolptab: $(cat "$T/tab")"
    wait $job
    rc=$?
    [ $rc = 3 ] || fail "prun exit $rc, 3 expected: $(cat "$T/job")"
    ms=$(sed -n 's/^ptab read after \([0-9]*\) ms$/\1/p' "$T/tab")
    [ -n "$ms" ] || fail "toolptab did not say when it read: $(cat "$T/tab")"
    [ "$ms" -lt 1900 ] && break
    echo "attempt $attempt: the tables were read ${ms} ms after rank 2 was let go (the DVM's" \
        "SIGKILL comes 2 s after it ends): not conclusive, again"
    [ $attempt = 3 ] && fail "3 attempts could not read the tables within the DVM's 2 s window"
done
rm -f "$T/go"
for r in 0 1; do
    expect_in "$T/tab" "ptab1 rank $r host $h pid"
    grep -q "^ptab1 rank $r host $h pid [1-9][0-9]* state 6 .* exit 0 cmd $APP hold" "$T/tab" ||
        fail "rank $r while running: $(cat "$T/tab")"
    grep -q "^ptab2 rank $r host $h pid [1-9][0-9]* state 6 .* exit 0 cmd $APP hold" "$T/tab" ||
        fail "rank $r after rank 2 ended: $(cat "$T/tab")"
done
grep -q "^ptab1 rank 2 host $h pid [1-9][0-9]* state 6 .* exit 0 cmd $APP waitfile" "$T/tab" ||
    fail "rank 2 while running: $(cat "$T/tab")"
# ended: its state says how (PMIX_PROC_STATE_TERM_NON_ZERO = 62) and its exit code is 3
grep -q "^ptab2 rank 2 host $h pid [1-9][0-9]* state 62 .* exit 3 cmd" "$T/tab" ||
    fail "rank 2 ended with 3: $(cat "$T/tab")"
grep -q "^lptab rank 2 host $h pid [1-9][0-9]* state 62 .* exit 3" "$T/tab" ||
    fail "local table, rank 2: $(cat "$T/tab")"
# the pids are the ones the job's processes had: each ptab1 pid is the same in ptab2
for r in 0 1 2; do
    p1=$(sed -n "s/^ptab1 rank $r host [^ ]* pid \([0-9]*\) .*/\1/p" "$T/tab")
    p2=$(sed -n "s/^ptab2 rank $r host [^ ]* pid \([0-9]*\) .*/\1/p" "$T/tab")
    [ -n "$p1" ] && [ "$p1" = "$p2" ] || fail "rank $r pid $p1 / $p2"
done
stop_dvm
pass
