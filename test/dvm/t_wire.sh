#!/usr/bin/env bash
# Counts read from the wire: a process of one job writes a well-framed FENCE whose proc
# count (4,000,000) its message cannot hold. The DVM drops that connection only: the
# sender sees its connection closed by the server, another job running meanwhile goes on
# (its stdin still reaches it, it ends normally) and new jobs run.
. "$(dirname "$0")/lib.sh"
start_dvm
mkfifo "$T/in"
"$PRUN" $RR -n 1 "$APP" cat <"$T/in" >"$T/a.out" 2>&1 &
a=$!
exec 3>"$T/in"
wait_pps 'dvm_app cat' 1
# the misbehaving job: its process is dropped, its prun ends (the process exits
# without PMIx_Finalize, so the job fails; the exit code is not what we check)
run_to 30 "$PRUN" $RR -n 1 "$APP" badcount >"$T/bad" 2>&1
rc=$?
[ $rc -ne 124 ] || fail "prun of the malformed job timed out: $(cat "$T/bad")"
expect_in "$T/bad" "dropped by the server"
# the other job is still there and still served
pps_now
expect_in "$T/pps" "dvm_app cat"
echo "still served" >&3
exec 3>&-
wait $a || fail "the other job failed after the malformed message: $(cat "$T/a.out")"
expect_in "$T/a.out" "still served"
run_to 30 "$PRUN" $RR -n 2 "$APP" hello >"$T/out" 2>&1 || fail "DVM harmed by the malformed message: $(cat "$T/out")"
[ "$(grep -c hello "$T/out")" = 2 ] || fail "2 hellos after the malformed message: $(cat "$T/out")"
stop_dvm
pass
