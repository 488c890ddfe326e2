#!/usr/bin/env bash
# PMIX_DEBUG_STOP_ON_EXEC (issue 17 item 1): every process of the job is stopped at its
# first instruction (state T in /proc, not traced, its program exec'd and main() not
# run), a debugger can attach to it (ptrace attach and detach from here), pps and the
# proc table say STOPPED, PMIX_READY_FOR_DEBUG comes once (breakpoint pmix-exec), and
# SIGCONT lets it run to a good end. One rank only, or a list of processes: the others
# run through. A debugger that leaves without resuming its job: the DVM ends it, nothing
# is left.
. "$(dirname "$0")/lib.sh"
DBG=$B/test/dvm/dvm_dbg
. "$(dirname "$0")/stop_lib.sh"
start_dvm

# the state, tracer and program of pid
pstate() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1; }
tracer() { awk '/^TracerPid:/ {print $2}' "/proc/$1/status"; }
# attach PID: a debugger's PTRACE_ATTACH and PTRACE_DETACH (leaving it stopped)
attach() {
    python3 - "$1" <<'PY'
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
pid = int(sys.argv[1])
if libc.ptrace(16, pid, None, None) != 0:  # PTRACE_ATTACH
    sys.exit("attach: " + os.strerror(ctypes.get_errno()))
_, st = os.waitpid(pid, 0)
if not os.WIFSTOPPED(st):
    sys.exit("not stopped after attach")
if libc.ptrace(17, pid, None, ctypes.c_void_p(signal.SIGSTOP)) != 0:  # PTRACE_DETACH
    sys.exit("detach: " + os.strerror(ctypes.get_errno()))
PY
}

# exec_case NAME N SPEC LEVEL HELD_RANKS... : spawn, look at the held ones, release, end
exec_case() {
    local name=$1 n=$2 spec=$3 level=$4
    shift 4
    local dir=$T/$name out=$T/$name.out
    mkdir -p "$dir"
    "$DBG" tool exec "$spec" "$n" "$level" "$dir" cont+wait >"$out" 2>&1 &
    local tool=$!
    wait_for "$out" "marker $((n - 1)) "
    expect_in "$out" "ready ns=ok breakpoint=pmix-exec"
    [ "$(grep -c ' STOPPED pid=' "$out")" = "$#" ] || fail "$name: ranks $* are held: $(cat "$out")"
    local ns pid
    ns=$(sed -n 's/^spawned //p' "$out")
    pps_now
    [ "$(grep -F "$ns " "$T/pps" | grep -c ' STOPPED ')" = "$#" ] ||
        fail "$name: pps must show $# STOPPED processes: $(cat "$T/pps")"
    for r in "$@"; do
        pid=$(sed -n "s/^ptab $r STOPPED pid=//p" "$out")
        [ -n "$pid" ] || fail "$name: rank $r not STOPPED: $(cat "$out")"
        [ "$(pstate "$pid")" = T ] || fail "$name: rank $r (pid $pid) is in state $(pstate "$pid")"
        [ "$(tracer "$pid")" = 0 ] || fail "$name: rank $r is still traced by $(tracer "$pid")"
        [ "$(readlink "/proc/$pid/exe")" = "$DBG" ] || fail "$name: rank $r has not exec'd"
        [ -e "$dir/init.$r" ] && fail "$name: rank $r ran before its release"
    done
    run_through "$name" "$dir" "$n" "$@" # the others run through meanwhile
    # a debugger attaches to one of them (and leaves it stopped)
    pid=$(sed -n "s/^ptab $1 STOPPED pid=//p" "$out")
    attach "$pid" || fail "$name: a debugger cannot attach to pid $pid"
    [ "$(pstate "$pid")" = T ] || fail "$name: pid $pid runs after the debugger detached"
    touch "$dir/go"
    wait "$tool" || fail "$name: $(cat "$out")"
    expect_in "$out" "end PMIX_SUCCESS"
    expect_in "$out" "ready events 1"
    for r in $(seq 0 $((n - 1))); do
        [ -e "$dir/done.$r" ] || fail "$name: rank $r never finished: $(cat "$out")"
    done
}

exec_case one 1 true job 0
exec_case all16 16 wild job $(seq 0 15)
exec_case rank1 3 1 app 1
# a list of processes (pmix_data_array_t of pmix_proc_t): those alone are held
exec_case list 5 list:4,0,2 job 0 2 4
# 64 processes, resumed by job control (PMIX_JOB_CTRL_RESUME of the namespace)
mkdir -p "$T/r64"
run_to 200 "$DBG" tool exec wild 64 job "$T/r64" resume >"$T/r64.out" 2>&1 ||
    fail "64 held at exec: $(cat "$T/r64.out")"
[ "$(grep -c ' STOPPED pid=' "$T/r64.out")" = 64 ] || fail "64 held expected: $(cat "$T/r64.out")"
expect_in "$T/r64.out" "ready events 1"
expect_in "$T/r64.out" "released PMIX_SUCCESS"
[ "$(ls "$T/r64" | grep -c '^done\.')" = 64 ] || fail "not every one of 64 finished"

# the debugger leaves without resuming: its job is ended (SIGTERM, then SIGCONT so the
# stopped processes take it), nothing of it is left
mkdir -p "$T/leave"
run_to 60 "$DBG" tool exec true 4 job "$T/leave" leave >"$T/leave.out" 2>&1 ||
    fail "leave: $(cat "$T/leave.out")"
expect_in "$T/leave.out" "ready ns=ok breakpoint=pmix-exec"
ns=$(sed -n 's/^spawned //p' "$T/leave.out")
job_gone() {
    pps_now
    ! grep -qF "$ns " "$T/pps"
}
poll_until job_gone || fail "the left job still runs: $(cat "$T/pps")"
# the command line: prun --stop-on-exec; pps lists them STOPPED; SIGCONT to each pid
"$PRUN" $RR -n 2 --stop-on-exec "$APP" hello >"$T/cli.out" 2>&1 &
PRUN_PID=$!
held_in_pps() {
    pps_now
    [ "$(grep -F "$APP hello" "$T/pps" | grep -c ' STOPPED ')" = 2 ]
}
poll_until held_in_pps || fail "pps must show 2 processes stopped at exec: $(cat "$T/pps")"
for pid in $(grep -F "$APP hello" "$T/pps" | awk '{print $3}'); do
    [ "$(pstate "$pid")" = T ] || fail "pid $pid is in state $(pstate "$pid")"
    kill -CONT "$pid"
done
wait "$PRUN_PID" || fail "prun --stop-on-exec: $(cat "$T/cli.out")"
expect_in "$T/cli.out" "hello rank 1 of 2"
stop_dvm
pass
