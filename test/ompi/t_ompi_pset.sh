#!/usr/bin/env bash
# Process sets seen from an Open MPI 4.1 program (4.1 has no MPI_Session): ompi_pset calls
# PMIx_Init itself after MPI_Init (a nested init of the libpmix.so.2 Open MPI loaded:
# ours), reads PMIX_PSET_NAMES, finalizes its init and still runs an MPI_Allreduce. The
# sets' definitions must not reach Open MPI's default event handler (it would abort).
. "$(dirname "$0")/../dvm/lib.sh"
. "$(dirname "$0")/lib_ompi.sh"
check_psets() {
    for r in 0 1 2; do expect_in "$T/out" "pset rank $r of 5 psets=ocean sum=10"; done
    for r in 3 4; do expect_in "$T/out" "pset rank $r of 5 psets=ice sum=10"; done
    expect_lines "$T/out" "^pset rank " 5
}
run_to 60 "$PRTERUN" $RR -n 3 --pset ocean "$O/ompi_pset" : -n 2 --pset ice "$O/ompi_pset" \
    >"$T/out" 2>"$T/err" || fail "prterun: exit $?: $(cat "$T/err")"
check_psets
start_dvm
run_to 60 "$PRUN" --dvm-uri "file:$T/uri" $RR -n 3 --pset ocean "$O/ompi_pset" : \
    -n 2 --pset ice "$O/ompi_pset" >"$T/out" 2>"$T/err" || fail "prun: exit $?: $(cat "$T/err")"
check_psets
# a set defined by another job while an Open MPI job runs (past MPI_Init): the event
# reaches its processes' library, not Open MPI's default handler; the job ends well
run_to 60 "$PRUN" --dvm-uri "file:$T/uri" $RR -n 2 "$O/ompi_hello" --wait "$T/go" >"$T/held" 2>&1 &
held=$!
wait_for "$T/held" "hello" 2
run_to 60 "$PRUN" --dvm-uri "file:$T/uri" $RR -n 1 --pset late "$APP" hello >"$T/late" 2>&1 ||
    fail "the job defining a set: $(cat "$T/late")"
expect_in "$T/late" "psets=late"
touch "$T/go"
wait $held || fail "the Open MPI job running while another job defined a set: $(cat "$T/held")"
rm -f "$T/go"
stop_dvm
pass
