#!/usr/bin/env bash
# MPI_Abort(MPI_COMM_WORLD, 7) on rank 1 of 4 ends the job under prterun and prun: exit
# status 7, Open MPI's own report and ours (help-prte.txt proc-abort: rank, status), the
# other ranks (waiting in a barrier) killed, nothing left behind. A job whose MPI_Init
# fails leaves the DVM's files alone.
. "$(dirname "$0")/../dvm/lib.sh"
. "$(dirname "$0")/lib_ompi.sh"
check_abort() {
    local what=$1 rc=$2
    [ "$rc" = 7 ] || fail "$what: exit status $rc, expected 7: $(cat "$T/err")"
    expect_lines "$T/out" "^aborting with 7\$" 1
    expect_in "$T/err" "MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD"
    expect_in "$T/err" "Process rank 1 of job"
    expect_in "$T/err" "called"
    expect_in "$T/err" "PMIx_Abort (or PMI abort) with status 7"
    expect_in "$T/err" "The job was terminated as the process asked."
}
run_to 60 "$PRTERUN" $RR -n 4 "$O/ompi_abort" 1 7 >"$T/out" 2>"$T/err"
check_abort prterun $?
check_clean

start_dvm
run_to 60 "$PRUN" --dvm-uri "file:$T/uri" $RR -n 4 "$O/ompi_abort" 1 7 >"$T/out" 2>"$T/err"
check_abort prun $?
# an MPI_Init that fails (no such pml) ends the job; Open MPI then removes every file in
# its PMIX_TMPDIR: that must be the job's own directory, not the DVM's TMPDIR, where its
# socket and rendezvous files (and here a file of ours) live
touch "$TMPDIR/precious"
ls -A "$TMPDIR" | sort >"$T/before"
run_to 60 "$PRUN" --dvm-uri "file:$T/uri" $RR -n 2 -x OMPI_MCA_pml=no-such-pml "$O/ompi_hello" \
    >"$T/out" 2>&1 && fail "a job whose MPI_Init fails succeeded: $(cat "$T/out")"
ls -A "$TMPDIR" | sort >"$T/after"
cmp -s "$T/before" "$T/after" ||
    fail "files of the DVM's TMPDIR went with the failed job: before $(cat "$T/before"), after $(cat "$T/after")"
rm "$TMPDIR/precious"
# the DVM goes on: the next job runs
run_to 60 "$PRUN" --dvm-uri "file:$T/uri" $RR -n 2 "$O/ompi_hello" >"$T/out" 2>&1 ||
    fail "hello after the abort: $(cat "$T/out")"
expect_lines "$T/out" "^hello [01] of 2\$" 2
stop_dvm
pass
