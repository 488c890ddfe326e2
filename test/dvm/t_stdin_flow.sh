#!/usr/bin/env bash
# stdin backpressure: a rank that never reads its stdin, fed by an endless producer, does
# not grow the DVM's memory (nor prterun's): the push completion waits for room, so prun
# stops reading and the producer blocks. 50 MB reach a slow reader byte-exact (prun and
# prterun); --stdin all feeds a fast and a slow rank the same bytes and holds the fast
# one back to the slowest; a target that exits while prun pushes, a prun killed while its
# push is held, and pterm with a push held end cleanly.
. "$(dirname "$0")/lib.sh"
asan_rss_as_held # (lib.sh) RSS counts what the DVM holds, also under AddressSanitizer

# The memory bound: held data is one queue of ~1 MiB per target; without backpressure
# the DVM grows by hundreds of MB per second here.
LIMIT_KB=16384

rss() {
    awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0
}

# peak_rss PID SAMPLES BASE : the highest VmRSS (kB) of PID over SAMPLES samples 0.1 s
# apart; stops early once it is LIMIT_KB above BASE (without the bound memory grows by
# GBs within seconds: the caller fails at once, and cleanup kills everything)
peak_rss() {
    local peak=0 r i
    for i in $(seq 1 "$2"); do
        r=$(rss "$1")
        [ "${r:-0}" -gt "$peak" ] && peak=$r
        [ $((peak - $3)) -ge $LIMIT_KB ] && break
        sleep 0.1
    done
    echo "$peak"
}

# child_of PID : the pid of PID's (only) child, once it exists
child_of() {
    local c i
    for i in $(seq 1 100); do
        c=$(pgrep -P "$1" | head -1)
        [ -n "$c" ] && echo "$c" && return 0
        sleep 0.05
    done
    return 1
}

# yes_into FIFO : start `yes` writing into FIFO (made here) in the background; YES = its
# pid. Once the push is held, yes blocks in write: wait_stalled $YES shows it.
yes_into() {
    mkfifo "$1"
    yes >"$1" &
    YES=$!
}

start_dvm

# (1) rank 0 sleeps 3 s without reading; `yes` pushes as fast as it can.
base=$(rss "$DVM_PID")
yes | run_to 30 "$PRUN" $RR -n 1 "$APP" sleep 3 >"$T/out" 2>"$T/err" &
bg=$!
peak=$(peak_rss "$DVM_PID" 28 "$base")
echo "not reading: the DVM grew by $((peak - base)) kB (bound $LIMIT_KB kB)"
[ $((peak - base)) -lt $LIMIT_KB ] ||
    fail "the DVM grew by $((peak - base)) kB (from $base kB) while its job did not read stdin"
wait $bg
rc=$?
[ $rc = 0 ] || fail "prun with a non-reading rank exited $rc: $(cat "$T/err")"

# (1b) --stdin all, rank 0 reads at full speed, rank 1 never reads, the job ends by its
# --timeout: rank 0 is held back to the slowest target, the DVM stays bounded.
base=$(rss "$DVM_PID")
yes | run_to 30 "$PRUN" $RR --timeout 3 --stdin all -n 1 "$APP" slowread "$T/fast" 0 : \
    -n 1 "$APP" sleep 30 >"$T/out" 2>"$T/err" &
bg=$!
peak=$(peak_rss "$DVM_PID" 28 "$base")
echo "--stdin all, one rank not reading: the DVM grew by $((peak - base)) kB"
[ $((peak - base)) -lt $LIMIT_KB ] || fail "the DVM grew by $((peak - base)) kB with --stdin all"
wait $bg
rc=$?
[ $rc = 124 ] || fail "prun --stdin all --timeout 3 exited $rc: $(cat "$T/err")"
got=$(stat -c %s "$T/fast.0")
[ "$got" -gt 0 ] && [ "$got" -lt $((LIMIT_KB * 1024)) ] ||
    fail "the fast rank got $got bytes: it was not fed, or not held back to the slowest target"
rm -f "$T/fast.0"

# (2) 50 MB byte-exact through a slow reader (64 KiB reads, 1 ms apart), prun and prterun
head -c 50000000 /dev/urandom >"$T/in"
run_to 60 "$PRUN" $RR -n 1 "$APP" slowread "$T/slow" 1000 <"$T/in" >"$T/out" 2>"$T/err" ||
    fail "prun slowread: $(cat "$T/err")"
cmp -s "$T/in" "$T/slow.0" || fail "50 MB through a slow reader differ (prun)"
expect_in "$T/out" "rank 0 read 50000000 bytes"
rm -f "$T/slow.0"
run_to 60 "$PRTERUN" $RR -n 1 "$APP" slowread "$T/slow" 1000 <"$T/in" >"$T/out" 2>"$T/err" ||
    fail "prterun slowread: $(cat "$T/err")"
cmp -s "$T/in" "$T/slow.0" || fail "50 MB through a slow reader differ (prterun)"
rm -f "$T/slow.0"

# (2b) prterun's stdin is ready before its job's processes exist: nothing may be dropped.
# prterun used to read and push its first chunk at once, and stdin for a process not yet
# forked went nowhere (seen once in CI as a short 50 MB copy). The last of 16 ranks is
# the target, so it is forked last; repeated, since the old race did not lose every time
# (about 1 run in 10 here).
head -c 300000 "$T/in" >"$T/in300k"
for i in 1 2 3 4 5 6 7 8; do
    run_to 60 "$PRTERUN" $RR -n 16 --stdin 15 "$APP" slowread "$T/late" 0 <"$T/in300k" \
        >"$T/out" 2>"$T/err" || fail "prterun --stdin 15: $(cat "$T/err")"
    cmp -s "$T/in300k" "$T/late.15" ||
        fail "run $i: stdin read before the last rank started was lost ($(stat -c %s "$T/late.15") of 300000 bytes)"
    rm -f "$T"/late.*
done
rm -f "$T/in300k"

# (3) --stdin all, 2 ranks, rank 1 slow: both get every byte
run_to 60 "$PRUN" $RR -n 2 --stdin all "$APP" slowread "$T/all" 1000 1 <"$T/in" >"$T/out" \
    2>"$T/err" || fail "prun --stdin all: $(cat "$T/err")"
cmp -s "$T/in" "$T/all.0" || fail "--stdin all: rank 0 (fast) got different bytes"
cmp -s "$T/in" "$T/all.1" || fail "--stdin all: rank 1 (slow) got different bytes"
rm -f "$T/all.0" "$T/all.1" "$T/in"

# (4) the target reads 10 bytes and exits 3 while prun still pushes: prun ends with the
# job's status, the DVM goes on
yes | run_to 30 "$PRUN" $RR -n 1 "$APP" take 10 3 >"$T/out" 2>"$T/err"
rc=${PIPESTATUS[1]}
[ "$rc" = 3 ] || fail "prun should exit 3 when its stdin target exits 3, got $rc: $(cat "$T/err")"
[ "$(head -c 10 "$T/out")" = "$(printf 'y\ny\ny\ny\ny\n')" ] || fail "take 10: $(cat "$T/out")"

# (1c) prterun: the same bound on its own memory (sampled after its start-up)
yes | run_to 30 "$PRTERUN" $RR -n 1 "$APP" sleep 3 >"$T/out" 2>"$T/err" &
bg=$!
pr=$(child_of $bg) || fail "no prterun under timeout $bg"
# its start-up is over once its job's process runs
wait_app_pids sleep 1
base=$(rss "$pr")
peak=$(peak_rss "$pr" 18 "$base")
echo "prterun, not reading: prterun grew by $((peak - base)) kB"
[ $((peak - base)) -lt $LIMIT_KB ] ||
    fail "prterun grew by $((peak - base)) kB (from $base kB) while its job did not read stdin"
wait $bg
rc=$?
[ $rc = 0 ] || fail "prterun with a non-reading rank exited $rc: $(cat "$T/err")"
yes | run_to 30 "$PRTERUN" $RR -n 1 "$APP" take 10 3 >"$T/out" 2>"$T/err"
rc=${PIPESTATUS[1]}
[ "$rc" = 3 ] || fail "prterun should exit 3 when its stdin target exits 3, got $rc"

# (5) prun killed while its push is held (--nohup: the job stays): the DVM lets go of the
# push and serves the next job
# (killed once the job runs and the producer is blocked: the push is held)
yes_into "$T/y5"
"$PRUN" $RR --nohup -n 1 "$APP" sleep 30 <"$T/y5" >/dev/null 2>&1 &
bg=$!
wait_pps 'sleep 30' 1
wait_stalled $YES
kill -9 $bg
wait $bg 2>/dev/null
run_to 30 "$PRUN" $RR -n 1 "$APP" hello >"$T/out" 2>"$T/err" ||
    fail "the DVM after a killed prun: $(cat "$T/err")"
expect_in "$T/out" "hello rank 0 of 1"
wait $YES # the pipe's reader is gone: yes ends (SIGPIPE)
rm -f "$T/y5"

# (6) pterm while a push is held: prun ends with the killed job's status, nothing stays
yes_into "$T/y6"
run_to 30 "$PRUN" $RR -n 1 "$APP" sleep 30 <"$T/y6" >"$T/out" 2>"$T/err" &
bg=$!
wait_pps 'sleep 30' 2 # this job and the --nohup one of (5)
wait_stalled $YES
stop_dvm
wait $bg
rc=$?
[ $rc = 143 ] || fail "prun after pterm exited $rc (expected 143): $(cat "$T/err")"
wait $YES
rm -f "$T/y6"
pass
