#!/usr/bin/env bash
# Open MPI 4.1 programs, unmodified, under LAUNCHER (prterun: a one-shot DVM per job;
# prun: one DVM for all): hello, a ring of 256 KiB sends, MPI_Allreduce and
# MPI_Comm_split on 1, 2, 4, 8 and 16 ranks of this node, each checking its values.
# Nothing tells the DVM these are Open MPI programs: it sees libmpi.so.40 in them and
# gives them the "ompi" personality (without it every one of them fails in MPI_Init,
# deciding it is a singleton).
# Usage: t_ompi_runs.sh prterun|prun  (t_ompi_runs_prterun.sh / t_ompi_runs_prun.sh)
. "$(dirname "$0")/../dvm/lib.sh"
. "$(dirname "$0")/lib_ompi.sh"
launcher=${1:?prterun or prun}
if [ "$launcher" = prun ]; then
    start_dvm
    run() { run_to 120 "$PRUN" --dvm-uri "file:$T/uri" $RR "$@"; }
else
    run() { run_to 120 "$PRTERUN" $RR "$@"; }
fi
for n in 1 2 4 8 16; do
    run -n $n "$O/ompi_hello" >"$T/out" 2>"$T/err" || fail "hello -n $n: exit $?: $(cat "$T/err")"
    expect_lines "$T/out" "^hello [0-9]+ of $n\$" $n
    for r in $(seq 0 $((n - 1))); do expect_in "$T/out" "hello $r of $n"; done

    run -n $n "$O/ompi_ring" >"$T/out" 2>"$T/err" || fail "ring -n $n: exit $?: $(cat "$T/err")"
    # three laps, each rank adding its rank: 3 * n(n-1)/2
    expect_in "$T/out" "ring ok N=$n token=$((3 * n * (n - 1) / 2))"

    run -n $n "$O/ompi_allreduce" >"$T/out" 2>"$T/err" ||
        fail "allreduce -n $n: exit $?: $(cat "$T/err")"
    expect_lines "$T/out" "^allreduce ok [0-9]+ sum=$((n * (n - 1) / 2))\$" $n

    run -n $n "$O/ompi_split" >"$T/out" 2>"$T/err" || fail "split -n $n: exit $?: $(cat "$T/err")"
    expect_lines "$T/out" "^split ok " $n
    expect_in "$T/out" "split ok 0 color=0 subrank=$(((n - 1) / 2)) subsize=$(((n + 1) / 2))"
    if [ $n -gt 1 ]; then
        expect_in "$T/out" "split ok 1 color=1 subrank=$((n / 2 - 1)) subsize=$((n / 2))"
    fi
    [ ! -s "$T/err" ] || fail "-n $n: unexpected stderr: $(cat "$T/err")"
done
# MPMD: two executables, one MPI_COMM_WORLD
run -n 3 "$O/ompi_allreduce" : -n 2 "$O/ompi_allreduce" >"$T/out" 2>"$T/err" ||
    fail "MPMD allreduce: exit $?: $(cat "$T/err")"
expect_lines "$T/out" "^allreduce ok [0-9]+ sum=10\$" 5
if [ "$launcher" = prun ]; then
    stop_dvm
fi
pass
