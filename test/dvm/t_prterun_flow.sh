#!/usr/bin/env bash
# prterun's job takes prun's path: its lifecycle events (JOB_START, LAUNCH_COMPLETE,
# JOB_END) reach prterun, and its output goes through the same flow control into an
# in-process sink that never blocks the loop. With prterun's stdout not read, the rank
# blocks in write and prterun still forwards a SIGTERM to it at once; every byte written
# before then still arrives once the reader comes.
. "$(dirname "$0")/lib.sh"

run_to 30 "$PRTERUN" $RR -v -n 1 "$APP" hello >"$T/out" 2>"$T/err" ||
    fail "prterun failed: $(cat "$T/err")"
for e in PMIX_EVENT_JOB_START PMIX_LAUNCH_COMPLETE PMIX_EVENT_JOB_END; do
    grep -q "event $e" "$T/err" || fail "prterun never got $e: $(cat "$T/err")"
done

N=100000000
mkfifo "$T/out1"
{
    run_to 60 "$PRTERUN" $RR -n 1 "$APP" write $N 2>"$T/err"
    echo $? >"$T/rc"
} >"$T/out1" &
pipeline=$!
exec 4<>"$T/out1" # lets prterun open the FIFO; not read until the rank is gone
wait_app_pids write 1
writer=$PIDS
wait_stalled $writer
prterun=$(awk '{print $4}' "/proc/$writer/stat")
kill -TERM "$prterun"
# a loop blocked on its stdout would never forward the signal
poll_until gone "$writer" || fail "rank $writer still there after prterun got SIGTERM"
wc -c <"$T/out1" >"$T/count" 4<&- &
reader=$!
exec 4<&-
wait $pipeline
wait $reader
rm -f "$T/out1"
rc=$(cat "$T/rc")
[ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "prterun exited $rc after SIGTERM: $(cat "$T/err")"
[ "$(tr -d ' ' <"$T/count")" -gt 0 ] || fail "none of the output written before SIGTERM arrived"
pass
