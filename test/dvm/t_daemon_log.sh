#!/usr/bin/env bash
# --debug-daemons (issue 20 item 7) with the stand-in agent (fake nodes on this machine):
# prterun and prte start each prted with --debug, which logs every message from and to
# the controller on its stderr, and that reaches the command's own stderr: the LAUNCH
# of a job, its process states, its cleanup, the exit. The job's output is unchanged.
# Without the option no daemon logs anything. prte --daemonize --debug-daemons keeps
# its stdio, so the daemons' logs of a job run after it went to the background still
# arrive (over ssh they are copied by prte itself: test/cluster/t_ssh.sh checks that).
. "$(dirname "$0")/lib.sh"
export PRTE_MCA_plm_ssh_agent=$(cd "$(dirname "$0")/../daemons" && pwd)/local_agent.sh
HERE=$(hostname)

# prterun: the daemon of fake1 logs the job's messages
run_to 60 "$PRTERUN" $RR --debug-daemons --host "$HERE,fake1" -n 2 --map-by node \
    "$APP" hello >"$T/out" 2>"$T/err" || fail "prterun --debug-daemons: $(cat "$T/out" "$T/err")"
expect_in "$T/out" "hello rank 0 of 2"
expect_in "$T/out" "hello rank 1 of 2"
grep -q '^\[prted' "$T/out" && fail "daemon logs on stdout: $(cat "$T/out")"
for m in "received LAUNCH (tag 5," "sent PSTATE (tag 6," "received JOB_CLEANUP (tag 16," \
    "received EXIT (tag 3,"; do
    grep -E "^\[prted 1 fake1:[0-9]+\] " "$T/err" | grep -qF -- "$m" ||
        fail "no \"$m\" from the daemon on fake1: $(cat "$T/err")"
done
expect_in "$T/err" "daemon 1 hello: node fake1"

# without the option: nothing from the daemons, the job's output alone
run_to 60 "$PRTERUN" $RR --host "$HERE,fake1" -n 2 --map-by node "$APP" hello >"$T/out2" 2>"$T/err2" ||
    fail "prterun: $(cat "$T/out2" "$T/err2")"
grep -q '^\[prted' "$T/err2" && fail "a daemon logged without --debug-daemons: $(cat "$T/err2")"
[ "$(grep -c 'hello rank' "$T/out2")" = 2 ] || fail "hello lines: $(cat "$T/out2")"

# prte --daemonize: the daemons' logs of a job run later still reach prte's stderr
run_to 20 "$PRTE" --daemonize --debug-daemons --report-uri "$T/uri" --report-pid "$T/pid" $RR \
    --host "$HERE,fake1" >"$T/prte.out" 2>&1 || fail "prte --daemonize: $(cat "$T/prte.out")"
DVM_PID=$(cat "$T/pid")
run_to 60 "$PRUN" --dvm-uri "file:$T/uri" $RR -n 2 --map-by node "$APP" hello >"$T/j" 2>&1 ||
    fail "prun: $(cat "$T/j")"
wait_for "$T/prte.out" "received JOB_CLEANUP (tag 16,"
stop_dvm
expect_in "$T/prte.out" "received LAUNCH (tag 5,"
pass
