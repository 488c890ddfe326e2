# lib_pmi.sh - sourced by the PMI tests after ../dvm/lib.sh: the test programs, and a
# clear failure when one could not be built (CI installs their compilers and libraries
# through scripts/install-deps.sh, so a missing one is an error, never a skip).
PMI_DIR=$B/test/pmi
RAW=$PMI_DIR/pmi_raw

# need_prog PATH WHAT : PATH must be an executable built by meson
need_prog() {
    [ -n "$1" ] && [ -x "$1" ] || fail "$2 was not built: $3"
}

# run_job OUT RC CMD... : run a launcher command (bounded); its output in OUT, its exit
# code must be RC
run_job() {
    local out=$1 want=$2
    shift 2
    run_to 120 "$@" >"$out" 2>&1
    local rc=$?
    [ $rc -ne 124 ] || fail "timed out: $*: $(head -c 2000 "$out")"
    [ $rc -eq "$want" ] || fail "exit $rc (expected $want): $*: $(head -c 3000 "$out")"
}

# lines_in FILE TEXT N : exactly N lines of FILE hold TEXT
lines_in() {
    [ "$(count_in "$1" "$2")" = "$3" ] || fail "expected $3 lines \"$2\" in $1; it has: $(head -c 3000 "$1")"
}

# help_line TOPIC [2] : the longest literal piece of the first line of a help-pmi.txt
# topic (between its printf conversions), as PMI-1 carries it (spaces made '_') or, with
# 2, as PMI-2 does
help_line() {
    python3 - "$(dirname "$0")/../../share/help/help-pmi.txt" "$1" "${2:-1}" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
first = lines[lines.index("[" + sys.argv[2] + "]") + 1]
pieces = re.split(r"%[-0-9.]*[sdu]", first)
piece = max(pieces, key=len).strip()
print(piece if sys.argv[3] == "2" else piece.replace(" ", "_"))
PY
}

# bystander_start : a PMIx job (dvm_app cat on a fifo) runs beside what follows
bystander_start() {
    mkfifo "$T/in"
    "$PRUN" $RR -n 1 "$APP" cat <"$T/in" >"$T/bystander.out" 2>&1 &
    BYSTANDER=$!
    exec 3>"$T/in"
    wait_pps 'dvm_app cat' 1
}

# bystander_check : the PMIx job is still there and served: a line sent to it comes back,
# and it ends well
bystander_check() {
    pps_now
    expect_in "$T/pps" "dvm_app cat"
    echo "still served" >&3
    exec 3>&-
    wait "$BYSTANDER" || fail "the PMIx job beside the PMI jobs failed: $(cat "$T/bystander.out")"
    expect_in "$T/bystander.out" "still served"
}
