#!/usr/bin/env bash
# Output integrity: 100 MB without a newline arrives byte-exact (checksums) through prun
# and prterun; --output tag prefixes interleaved stdout/stderr lines; stdin reaches rank 0
# and end of input propagates; -x and --wdir reach the processes; the launchers enlarge
# a stdout pipe.
. "$(dirname "$0")/lib.sh"
start_dvm
N=100000000
want=$("$APP" write $N | sha256sum | cut -d' ' -f1)
run_to 120 "$PRUN" $RR -n 1 "$APP" write $N >"$T/big" 2>"$T/err" || fail "prun write: $(cat "$T/err")"
[ "$(stat -c %s "$T/big")" = $N ] || fail "size $(stat -c %s "$T/big") != $N"
[ "$(sha256sum <"$T/big" | cut -d' ' -f1)" = "$want" ] || fail "100 MB checksum differs (prun)"
rm -f "$T/big"
run_to 120 "$PRTERUN" $RR -n 1 "$APP" write $N >"$T/big" 2>"$T/err" || fail "prterun write: $(cat "$T/err")"
[ "$(sha256sum <"$T/big" | cut -d' ' -f1)" = "$want" ] || fail "100 MB checksum differs (prterun)"
rm -f "$T/big"
# the last bytes of a process that exits right after writing are not lost
for i in 1 2 3 4 5; do
    out=$(run_to 20 "$PRUN" $RR -n 4 "$APP" write 10 2>&1) || fail "write 10"
    [ "$out" = "abcdefghijabcdefghijabcdefghijabcdefghij" ] || fail "lost bytes: '$out'"
done
run_to 30 "$PRUN" $RR -n 2 --output tag "$APP" both 20 >"$T/out" 2>"$T/err" || fail "tag: $(cat "$T/err")"
[ "$(grep -c '<stdout>: out' "$T/out")" = 20 ] || fail "20 tagged stdout lines expected: $(cat "$T/out")"
[ "$(grep -c '<stderr>: err' "$T/err")" = 20 ] || fail "20 tagged stderr lines expected: $(cat "$T/err")"
grep -q '^\[[0-9]*,1\]<stdout>: out 0$' "$T/out" || fail "rank 1 tag missing: $(cat "$T/out")"
seq 1 20000 >"$T/in"
run_to 30 "$PRUN" $RR -n 2 "$APP" cat <"$T/in" >"$T/out" 2>"$T/err" || fail "cat: $(cat "$T/err")"
cmp -s "$T/in" "$T/out" || fail "stdin did not reach rank 0 intact"
run_to 30 "$PRUN" $RR -n 1 --stdin none "$APP" cat <"$T/in" >"$T/out" 2>"$T/err" || fail "stdin none"
[ ! -s "$T/out" ] || fail "--stdin none must give no input"
FOO=bar run_to 30 "$PRUN" $RR -n 1 -x FOO -x BAZ=qux "$APP" env FOO >"$T/out" 2>&1 || fail "-x"
expect_in "$T/out" "FOO=bar"
run_to 30 "$PRUN" $RR -n 1 -x BAZ=qux "$APP" env BAZ >"$T/out" 2>&1 || fail "-x"
expect_in "$T/out" "BAZ=qux"
mkdir -p "$T/wd"
run_to 30 "$PRUN" $RR -n 1 --wdir "$T/wd" "$APP" pwd >"$T/out" 2>&1 || fail "wdir"
expect_in "$T/out" "$T/wd"
# a launcher whose stdout is a pipe makes it hold 1 MiB (fewer wake-ups per byte)
pipe_size() { python3 -c 'import fcntl, time; time.sleep(0.5); print(fcntl.fcntl(0, 1032))'; }
if [ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/fs/pipe-max-size)" -ge 1048576 ]; then
    sz=$(run_to 30 "$PRUN" $RR -n 1 "$APP" sleep 1 | pipe_size)
    [ "$sz" = 1048576 ] || fail "prun left its stdout pipe at $sz bytes"
    sz=$(run_to 30 "$PRTERUN" $RR -n 1 "$APP" sleep 1 | pipe_size)
    [ "$sz" = 1048576 ] || fail "prterun left its stdout pipe at $sz bytes"
fi
stop_dvm
pass
