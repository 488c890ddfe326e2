#!/usr/bin/env bash
# Other tools against the DVM: process sets seen from a query tool (count, names,
# membership) while a job runs; a tool's own PMIx_Spawn gets JOB_START, LAUNCH_COMPLETE
# and JOB_END (with its status, proc, exit code and timestamp) in that order; a job
# submitted with --nohup survives its prun; pterm then ends it.
. "$(dirname "$0")/lib.sh"
start_dvm
"$PRUN" $RR -n 2 --pset ocean "$APP" sleep 30 : -n 1 --pset ice "$APP" sleep 30 >"$T/bg" 2>&1 &
bg=$!
for i in $(seq 1 100); do
    run_to 10 "$APP" toolq ocean >"$T/q" 2>&1
    grep -q "psetnum=PMIX_SIZE: 2" "$T/q" && break
    sleep 0.05
done
# flat results: one line per key found (count, names; members), none wrapped
[ "$(grep -c '^tool ' "$T/q")" = 3 ] || fail "3 query results expected: $(cat "$T/q")"
expect_in "$T/q" "pmix.qry.psetnum=PMIX_SIZE: 2"
expect_in "$T/q" "{ocean, ice}"
expect_in "$T/q" "pmix.qry.pmems=PMIX_DATA_ARRAY: PMIX_PROC[2]"
expect_in "$T/q" "@1:0, "
kill -TERM $bg
wait $bg
run_to 30 "$APP" toolspawn 3 >"$T/ev" 2>&1 || fail "toolspawn: $(cat "$T/ev")"
[ "$(grep '^event' "$T/ev" | tr '\n' ' ')" = "event PMIX_EVENT_JOB_START event PMIX_LAUNCH_COMPLETE event PMIX_EVENT_JOB_END " ] \
    || fail "lifecycle events: $(cat "$T/ev")"
for k in pmix.job.term.status pmix.procid pmix.exit.code pmix.evtstamp; do expect_in "$T/ev" "has $k"; done
# malformed requests and garbage on the DVM's socket harm nobody
run_to 30 "$APP" toolbad >"$T/bad" 2>&1 || fail "toolbad: $(cat "$T/bad")"
grep -q "bogus mapby: PMIX_ERR" "$T/bad" || fail "bogus map-by must be refused: $(cat "$T/bad")"
grep -q "missing program: PMIX_ERR" "$T/bad" || fail "missing program must be refused: $(cat "$T/bad")"
sock=$(sed -n '1s/.*usock://p' "$T/uri")
python3 - "$sock" <<'PY' || fail "garbage connection"
import os, socket, sys
for n in (0, 7, 4096, 100000):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    try:
        s.sendall(os.urandom(n))
    except OSError:
        pass
    s.close()
PY
run_to 30 "$PRUN" $RR -n 2 "$APP" hello >"$T/out" 2>&1 || fail "DVM harmed by bad requests: $(cat "$T/out")"
[ "$(grep -c hello "$T/out")" = 2 ] || fail "2 hellos after bad requests"
# --nohup: the job outlives its prun
"$PRUN" $RR --nohup -n 1 "$APP" sleep 30 >"$T/nh" 2>&1 &
p=$!
for i in $(seq 1 100); do
    run_to 10 "$PPS" $RR >"$T/pps" 2>&1
    grep -q 'sleep 30' "$T/pps" && break
    sleep 0.05
done
kill -9 $p
wait $p 2>/dev/null
sleep 1
run_to 10 "$PPS" $RR >"$T/pps" 2>&1
expect_in "$T/pps" "sleep 30"
stop_dvm
pass
