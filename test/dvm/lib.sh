# lib.sh - sourced by the DVM tests: a private TMPDIR (so the tool search finds only our
# DVM and leftovers are easy to see), helpers to start/stop a DVM, to run a command with
# a time limit, and the no-leftover check. Needs PX_BUILD (the build directory).
set -u
B=${PX_BUILD:?PX_BUILD must name the build directory}
PRTE=$B/cli/prte
PRTERUN=$B/cli/prterun
PRUN=$B/cli/prun
PTERM=$B/cli/pterm
PPS=$B/cli/pps
APP=$B/test/dvm/dvm_app
T=$(mktemp -d "${TMPDIR:-/tmp}/pxdvm.XXXXXX")
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR"
# every process we start inherits this marker: the leftover check looks for it
export PXDVM_MARK=$T
# under a sanitizer, every process writes its report into $T (prte's stderr is
# /dev/null once daemonized): pass() fails when any report exists
if [ -n "${ASAN_OPTIONS:-}" ]; then
    export ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$T/asan"
    export UBSAN_OPTIONS="${UBSAN_OPTIONS:-}:log_path=$T/ubsan"
fi
# asan_rss_as_held : for tests that bound a process's memory by its RSS. Under
# AddressSanitizer freed memory waits in a quarantine (256 MB), so RSS counts every byte
# that went through a process, not what it holds; the processes of such a test run
# without the quarantine (every other check of the sanitizers stays on).
asan_rss_as_held() {
    if [ -n "${ASAN_OPTIONS:-}" ]; then
        export ASAN_OPTIONS="$ASAN_OPTIONS:quarantine_size_mb=0"
    fi
}
RR=""
if [ "$(id -u)" = 0 ]; then
    RR="--allow-run-as-root"
fi
DVM_PID=""

leftovers() {
    python3 - "$T" "$$" <<'EOF'
import os, sys
mark, me = "PXDVM_MARK=" + sys.argv[1], int(sys.argv[2])
mine = {os.getpid(), os.getppid(), me}
found = []
for p in os.listdir("/proc"):
    if not p.isdigit() or int(p) in mine:
        continue
    try:
        env = open(f"/proc/{p}/environ", "rb").read().split(b"\0")
        stat = open(f"/proc/{p}/stat").read()
    except OSError:
        continue
    if mark.encode() in env and stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X"):
        found.append(p + " " + open(f"/proc/{p}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace"))
print("\n".join(found))
EOF
}

cleanup() {
    if [ -n "$DVM_PID" ] && kill -0 "$DVM_PID" 2>/dev/null; then
        kill -9 "$DVM_PID" 2>/dev/null
    fi
    local left
    left=$(leftovers)
    if [ -n "$left" ]; then
        while read -r pid rest; do kill -9 "$pid" 2>/dev/null; done <<<"$left"
    fi
    rm -rf "$T"
}

fail() {
    echo "FAIL: $*"
    cleanup
    exit 1
}

# run_to SECONDS CMD... : run with a time limit; a timeout is a failure (exit 124).
run_to() {
    local secs=$1
    shift
    timeout -k 2 "$secs" "$@"
}

start_dvm() {
    run_to 20 "$PRTE" --daemonize --report-uri "$T/uri" --report-pid "$T/pid" $RR "$@" \
        >"$T/prte.out" 2>&1 || fail "prte --daemonize failed: $(cat "$T/prte.out")"
    DVM_PID=$(cat "$T/pid")
    [ -n "$DVM_PID" ] || fail "no pid reported"
}

# gone PID: no such process, or a zombie its parent has not reaped yet
gone() {
    [ ! -e "/proc/$1/stat" ] && return 0
    local st
    st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
    [ -z "$st" ] || [ "$st" = Z ] || [ "$st" = X ]
}

stop_dvm() {
    run_to 20 "$PTERM" --dvm-uri "file:$T/uri" $RR || fail "pterm failed"
    gone "$DVM_PID" || fail "DVM $DVM_PID still running after pterm returned"
    DVM_PID=""
}

# No process of ours, no rendezvous file, socket or session directory left.
check_clean() {
    local left
    left=$(leftovers)
    [ -z "$left" ] || fail "processes left behind: $left"
    local files
    files=$(ls -A "$TMPDIR")
    [ -z "$files" ] || fail "files left in TMPDIR: $files"
}

# ---- waiting on observable state (never sleep-and-hope). Each wait polls every 0.05 s
# and fails the test after PX_WAIT seconds (default 30).
PX_WAIT=${PX_WAIT:-30}

# poll_until CMD... : until CMD succeeds (0), or 1 after PX_WAIT seconds
poll_until() {
    local i
    for i in $(seq 1 $((PX_WAIT * 20))); do
        "$@" && return 0
        sleep 0.05
    done
    return 1
}

# count_in FILE TEXT : the number of lines of FILE holding TEXT (fixed string)
count_in() {
    local c
    c=$(grep -cF -- "$2" "$1" 2>/dev/null)
    echo "${c:-0}"
}
has_count() { [ "$(count_in "$1" "$2")" -ge "$3" ]; }

# wait_for FILE TEXT [N] : until N (default 1) lines of FILE hold TEXT
wait_for() {
    local n=${3:-1}
    poll_until has_count "$1" "$2" "$n" ||
        fail "timed out waiting for $n line(s) \"$2\" in $1; it has: $(head -c 2000 "$1" 2>/dev/null)"
}

# pps_now : the DVM's listing (pps against $T/uri) into $T/pps
pps_now() { run_to 10 "$PPS" --dvm-uri "file:$T/uri" $RR >"$T/pps" 2>&1; }
pps_lists() {
    pps_now
    [ "$(awk -v p="$1" 'index($0, p) && $3 != 0' "$T/pps" | wc -l)" = "$2" ]
}

# wait_pps PATTERN COUNT : until pps lists exactly COUNT processes matching PATTERN whose
# pid is known (a process reported but not yet started by its daemon shows pid 0)
wait_pps() {
    poll_until pps_lists "$1" "$2" ||
        fail "pps must list $2 processes matching '$1': $(cat "$T/pps" 2>/dev/null)"
}

# app_pids WHAT : the pids of our dvm_app processes whose first argument is WHAT
app_pids() {
    python3 - "$T" "$APP" "$1" <<'PY'
import os, sys
mark, app, what = ("PXDVM_MARK=" + sys.argv[1]).encode(), sys.argv[2].encode(), sys.argv[3].encode()
for p in os.listdir("/proc"):
    if not p.isdigit():
        continue
    try:
        env = open(f"/proc/{p}/environ", "rb").read().split(b"\0")
        cmd = open(f"/proc/{p}/cmdline", "rb").read().split(b"\0")
    except OSError:
        continue
    if mark in env and len(cmd) > 1 and cmd[0] == app and cmd[1] == what:
        print(p)
PY
}

# wait_app_pids WHAT N : until N dvm_app processes run WHAT; sets PIDS to their pids
wait_app_pids() {
    app_n() {
        PIDS=$(app_pids "$1")
        [ "$(echo $PIDS | wc -w)" = "$2" ]
    }
    poll_until app_n "$1" "$2" ||
        fail "$2 processes \"$APP $1\" expected, found: $(app_pids "$1" | tr '\n' ' ')"
}

# proc_state PID : its state letter (R, S, D, T, Z...), empty once it is gone
proc_state() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1; }

# stalled PID... : each PID sleeps and wrote nothing over 5 samples 0.05 s apart (a
# process that only writes, blocked because nobody takes its output)
stalled() {
    local p k w0 w
    for p in "$@"; do
        w0=$(awk '/^wchar:/ {print $2}' "/proc/$p/io" 2>/dev/null)
        [ -n "$w0" ] || return 1
        for k in 1 2 3 4 5; do
            [ "$(proc_state "$p")" = S ] || return 1
            w=$(awk '/^wchar:/ {print $2}' "/proc/$p/io" 2>/dev/null)
            [ "$w" = "$w0" ] || return 1
            sleep 0.05
        done
    done
}

# wait_stalled PID... : until each PID is blocked writing (see stalled)
wait_stalled() { poll_until stalled "$@" || fail "processes $* never blocked in write"; }

# sig_pending PID SIGNUM : SIGNUM is pending for PID (not yet taken by its handler,
# signalfd or default action)
sig_pending() {
    python3 - "$1" "$2" <<'PY'
import sys
bit = 1 << (int(sys.argv[2]) - 1)
try:
    lines = open(f"/proc/{sys.argv[1]}/status").read().splitlines()
except OSError:
    sys.exit(1)
pend = 0
for l in lines:
    if l.startswith(("SigPnd:", "ShdPnd:")):
        pend |= int(l.split()[1], 16)
sys.exit(0 if pend & bit else 1)
PY
}

# signal_taken SIG PID : send SIG and wait until PID has taken it (no longer pending), so
# that the next signal of the same number is not merged with this one
signal_taken() {
    local num
    num=$(kill -l "$1")
    kill -"$1" "$2" || fail "kill -$1 $2"
    poll_until not sig_pending "$2" "$num" || fail "process $2 never took signal $1"
}
not() { ! "$@"; }

# expect_in FILE TEXT : FILE contains TEXT (fixed string)
expect_in() {
    grep -qF -- "$2" "$1" || fail "expected \"$2\" in $1; it has: $(head -c 2000 "$1")"
}

pass() {
    check_clean
    if ls "$T"/asan.* "$T"/ubsan.* >/dev/null 2>&1; then
        cat "$T"/asan.* "$T"/ubsan.* 2>/dev/null | head -60
        fail "sanitizer reports (above)"
    fi
    rm -rf "$T"
    echo "PASS"
    exit 0
}
