# grp_lib.sh - sourced by the group, connect and spawn tests (after lib.sh): run dvm_grp
# jobs and count the lines they print.
GRP=$B/test/dvm/dvm_grp

# grp OUT N OPS... : prun -n N dvm_grp OPS in the background, output to OUT; LAST = its pid
grp() {
    local out=$1 n=$2
    shift 2
    run_to 120 "$PRUN" $RR --dvm-uri "file:$T/uri" -n "$n" "$GRP" "$@" >"$out" 2>&1 &
    LAST=$!
}
# done_ok PID OUT : the job succeeded
done_ok() { wait "$1" || fail "job failed: $(cat "$2")"; }
# lines FILE TEXT COUNT : exactly COUNT lines of FILE hold TEXT
lines() {
    [ "$(count_in "$1" "$2")" = "$3" ] || fail "$3 line(s) \"$2\" expected in $1: $(cat "$1")"
}
