#!/usr/bin/env bash
# Output flow control: when prun's stdout is not read, the DVM stops reading the job's
# pipes (the processes block in write) instead of buffering their output: its memory
# stays flat while 2 x 100 MB wait, and every byte still arrives once the reader comes.
# A prun killed while its job is blocked that way does not leave the job hanging, and
# a third Ctrl-C makes such a prun leave.
. "$(dirname "$0")/lib.sh"
start_dvm
rss() { awk '/^VmRSS/ {print $2}' "/proc/$DVM_PID/status"; }
N=100000000
base=$(rss)
{
    run_to 120 "$PRUN" $RR -n 2 "$APP" write $N 2>"$T/err"
    echo $? >"$T/rc"
} | {
    sleep 3
    wc -c >"$T/count"
} &
pipeline=$!
max=$base
for i in $(seq 1 20); do # samples while nobody reads (0.5 s to 2.5 s)
    sleep 0.1
    [ "$i" -ge 5 ] || continue
    r=$(rss)
    [ "$r" -le "$max" ] || max=$r
done
wait $pipeline
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
sleep 1
kill -9 $prun_pid
wait $prun_pid 2>/dev/null
exec 3<&-
for i in $(seq 1 100); do
    [ -z "$(pgrep -f "$APP write $N" || true)" ] && break
    sleep 0.1
done
[ -z "$(pgrep -f "$APP write $N" || true)" ] || fail "the job outlived its killed prun"
out=$(run_to 30 "$PRUN" $RR -n 1 "$APP" write 10 2>&1) || fail "DVM unusable after a killed prun: $out"

# Ctrl-C while prun is blocked on such a stdout: the first two SIGINTs cannot even be
# sent (prun's library thread waits in write); the third makes prun leave at once
"$PRUN" $RR -n 1 "$APP" write $N >"$T/fifo" 2>"$T/err3" &
prun_pid=$!
exec 3<"$T/fifo"
sleep 1
for i in 1 2 3; do
    kill -INT $prun_pid 2>/dev/null
    sleep 0.3
done
for i in $(seq 1 50); do
    gone $prun_pid && break
    sleep 0.1
done
gone $prun_pid || fail "prun did not leave after three SIGINTs"
wait $prun_pid
rc=$?
exec 3<&-
[ $rc = 130 ] || fail "prun after three SIGINTs: 130 expected, got $rc"
expect_in "$T/err3" "interrupted three times"
for i in $(seq 1 100); do
    [ -z "$(pgrep -f "$APP write $N" || true)" ] && break
    sleep 0.1
done
[ -z "$(pgrep -f "$APP write $N" || true)" ] || fail "the job outlived its interrupted prun"
[ "$out" = "abcdefghij" ] || fail "after a killed prun: '$out'"
stop_dvm
pass
