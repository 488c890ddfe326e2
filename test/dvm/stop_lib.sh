# stop_lib.sh - sourced (after lib.sh) by the stop-point tests (t_stop.sh, t_stop_exec.sh).
# run_through NAME DIR N HELD... : every rank of 0..N-1 not in HELD finishes (DIR/done.R
# appears) while the held ones wait at their stop point; the tool's output is DIR.out
run_through() {
    local name=$1 dir=$2 n=$3 r others=""
    shift 3
    for r in $(seq 0 $((n - 1))); do
        case " $* " in *" $r "*) ;; *) others="$others $r" ;; esac
    done
    others_done() {
        local x
        for x in $others; do [ -e "$dir/done.$x" ] || return 1; done
    }
    poll_until others_done || fail "$name: ranks$others must run through: $(cat "$dir.out")"
}
