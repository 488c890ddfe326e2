#!/usr/bin/env bash
# Eight pruns at once against one DVM: each gets only its own output and status; a
# failing one harms nobody; pterm while a job runs kills it and its prun reports it.
. "$(dirname "$0")/lib.sh"
start_dvm
pids=()
for i in 1 2 3 4 5 6 7 8; do
    "$PRUN" $RR -n 2 -x PXJOB=job$i "$APP" env PXJOB >"$T/out$i" 2>"$T/err$i" &
    pids+=($!)
done
"$PRUN" $RR -n 2 "$APP" exit 9 >"$T/outbad" 2>"$T/errbad" &
bad=$!
for i in 1 2 3 4 5 6 7 8; do
    wait ${pids[$((i-1))]} || fail "prun $i failed: $(cat "$T/err$i")"
    [ "$(grep -c "PXJOB=job$i" "$T/out$i")" = 2 ] || fail "job $i output: $(cat "$T/out$i")"
    [ "$(wc -l <"$T/out$i")" = 2 ] || fail "job $i got others' output: $(cat "$T/out$i")"
done
wait $bad; [ $? = 9 ] || fail "the failing job must exit 9"
# pps lists a running job; pterm kills it
"$PRUN" $RR -n 3 "$APP" sleep 60 >"$T/outs" 2>"$T/errs" &
sp=$!
wait_pps 'sleep 60' 3
expect_in "$T/pps" "$(hostname)"
stop_dvm
wait $sp; rc=$?
[ $rc != 0 ] || fail "a job killed by pterm must fail"
expect_in "$T/errs" "was terminated"
pass
