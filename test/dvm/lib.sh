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
