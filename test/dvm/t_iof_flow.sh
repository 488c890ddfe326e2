#!/usr/bin/env bash
# Output flow control: when prun's stdout is not read, the DVM stops reading the job's
# pipes (the processes block in write) instead of buffering their output: its memory
# stays flat while 2 x 100 MB wait, and every byte still arrives once the reader comes.
# A prun killed while its job is blocked that way does not leave the job hanging, and
# a third Ctrl-C makes such a prun leave.
. "$(dirname "$0")/lib.sh"
asan_rss_as_held # (lib.sh) RSS counts what the DVM holds, also under AddressSanitizer
start_dvm
rss() { awk '/^VmRSS/ {print $2}' "/proc/$DVM_PID/status"; }
# no_writer : none of our processes runs "dvm_app write" any more
no_writer() { [ -z "$(app_pids write)" ]; }
N=100000000
base=$(rss)
# prun's stdout is a FIFO nobody reads until both ranks are blocked in write (the DVM
# stopped reading their pipes); the DVM's memory is sampled while they stay blocked
mkfifo "$T/out1"
{
    run_to 120 "$PRUN" $RR -n 2 "$APP" write $N 2>"$T/err"
    echo $? >"$T/rc"
} >"$T/out1" &
pipeline=$!
exec 4<>"$T/out1" # lets the writer open the FIFO; never read: nobody takes the output
wait_app_pids write 2
writers=$PIDS
wait_stalled $writers
max=$base
for i in $(seq 1 20); do # 1 s of samples while the output waits
    r=$(rss)
    [ "$r" -le "$max" ] || max=$r
    sleep 0.05
done
stalled $writers || fail "the ranks wrote while nobody read prun's output"
wc -c <"$T/out1" >"$T/count" 4<&- &
reader=$!
exec 4<&-
wait $pipeline
wait $reader
rm -f "$T/out1"
[ "$(cat "$T/rc")" = 0 ] || fail "prun exited $(cat "$T/rc"): $(cat "$T/err")"
[ "$(tr -d ' ' <"$T/count")" = $((2 * N)) ] || fail "$(cat "$T/count") bytes instead of $((2 * N))"
grow=$((max - base))
echo "DVM VmRSS ${base} kB at rest, at most ${max} kB while the output waited (+${grow} kB)"
[ "$grow" -lt 24576 ] || fail "the DVM buffered the output: +${grow} kB while nobody read it"

# prun dies while its job is blocked on output: the job is killed, the DVM lives on
mkfifo "$T/fifo"
"$PRUN" $RR -n 1 "$APP" write $N >"$T/fifo" 2>"$T/err2" &
prun_pid=$!
exec 3<"$T/fifo" # opened, never read
wait_app_pids write 1
wait_stalled $PIDS
kill -9 $prun_pid
wait $prun_pid 2>/dev/null
exec 3<&-
poll_until no_writer || fail "the job outlived its killed prun: $(app_pids write)"
out=$(run_to 30 "$PRUN" $RR -n 1 "$APP" write 10 2>&1) || fail "DVM unusable after a killed prun: $out"

# Ctrl-C while prun is blocked on such a stdout: the first two SIGINTs cannot even be
# sent (prun's library thread waits in write); the third makes prun leave at once
"$PRUN" $RR -n 1 "$APP" write $N >"$T/fifo" 2>"$T/err3" &
prun_pid=$!
exec 3<"$T/fifo"
wait_app_pids write 1
wait_stalled $PIDS
# each SIGINT taken by prun before the next is sent (pending ones would merge)
for i in 1 2; do
    signal_taken INT $prun_pid
    gone $prun_pid && fail "prun left after $i SIGINT(s)"
done
kill -INT $prun_pid
poll_until gone $prun_pid || fail "prun did not leave after three SIGINTs"
wait $prun_pid
rc=$?
exec 3<&-
[ $rc = 130 ] || fail "prun after three SIGINTs: 130 expected, got $rc"
expect_in "$T/err3" "interrupted three times"
poll_until no_writer || fail "the job outlived its interrupted prun: $(app_pids write)"
[ "$out" = "abcdefghij" ] || fail "after a killed prun: '$out'"
stop_dvm
pass
