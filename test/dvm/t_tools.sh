#!/usr/bin/env bash
# Other tools against the DVM: process sets seen from a query tool (count, names,
# membership) while a job runs; a tool's own PMIx_Spawn with PMIX_NOTIFY_JOB_EVENTS gets
# JOB_START, LAUNCH_COMPLETE and JOB_END (with its status, proc, exit code and timestamp)
# in that order, with only PMIX_NOTIFY_COMPLETION only JOB_END; a job
# submitted with --nohup survives its prun; pterm then ends it.
. "$(dirname "$0")/lib.sh"
start_dvm
"$PRUN" $RR -n 2 --pset ocean "$APP" sleep 30 : -n 1 --pset ice "$APP" sleep 30 >"$T/bg" 2>&1 &
bg=$!
sets_seen() {
    run_to 10 "$APP" toolq ocean >"$T/q" 2>&1
    grep -q "psetnum=PMIX_SIZE: 2" "$T/q"
}
poll_until sets_seen || fail "the query tool never saw the job's 2 process sets: $(cat "$T/q")"
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
run_to 30 "$APP" toolspawn 2 completion >"$T/ev" 2>&1 || fail "toolspawn completion: $(cat "$T/ev")"
[ "$(grep '^event' "$T/ev" | tr '\n' ' ')" = "event PMIX_EVENT_JOB_END " ] ||
    fail "only JOB_END was asked for: $(cat "$T/ev")"
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
# --nohup: the job outlives its prun. A control job without --nohup, whose prun is
# killed right after, shows when the DVM has acted on a launcher's departure: the DVM
# hears of both departures in the order the pruns died (one connection's end, then the
# other's, through the same thread and the same ordered shift to its loop), so once the
# control job is gone the DVM has handled the --nohup prun's departure too.
"$PRUN" $RR --nohup -n 1 "$APP" sleep 30 >"$T/nh" 2>&1 &
p=$!
"$PRUN" $RR -n 1 "$APP" sleep 31 >"$T/ctl" 2>&1 &
c=$!
wait_pps 'sleep 30' 1
wait_pps 'sleep 31' 1
kill -9 $p
wait $p 2>/dev/null
kill -9 $c
wait $c 2>/dev/null
wait_pps 'sleep 31' 0
expect_in "$T/pps" "sleep 30"
stop_dvm
pass
