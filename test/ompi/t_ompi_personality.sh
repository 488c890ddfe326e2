#!/usr/bin/env bash
# --personality: what the DVM adds to the environment of each personality's processes,
# a wrapper that hides the Open MPI executable, an unknown name refused (prun and
# prterun, help-prte.txt personality-unknown), and an Open MPI program run as plain PMIx
# ("prte") failing in MPI_Init — the environment is what makes the others work.
. "$(dirname "$0")/../dvm/lib.sh"
. "$(dirname "$0")/lib_ompi.sh"
# asked for: each process gets Open MPI's selection, its place, our library first
run_to 60 "$PRTERUN" $RR -n 2 --personality ompi env >"$T/out" 2>&1 || fail "env: $(cat "$T/out")"
expect_lines "$T/out" "^OMPI_MCA_schizo=ompi\$" 2
expect_lines "$T/out" "^OMPI_MCA_ess=pmi\$" 2
expect_lines "$T/out" "^OMPI_COMM_WORLD_SIZE=2\$" 2
expect_lines "$T/out" "^OMPI_COMM_WORLD_LOCAL_SIZE=2\$" 2
expect_lines "$T/out" "^OMPI_UNIVERSE_SIZE=2\$" 2
for r in 0 1; do
    expect_lines "$T/out" "^OMPI_COMM_WORLD_RANK=$r\$" 1
    expect_lines "$T/out" "^OMPI_COMM_WORLD_LOCAL_RANK=$r\$" 1
done
expect_lines "$T/out" "^LD_LIBRARY_PATH=$B/libpmix-core(:|\$)" 2
# more processes than CPUs: Open MPI is told it is oversubscribed (it then yields)
over=$(($(nproc) + 1))
run_to 60 "$PRTERUN" $RR -n $over --personality ompi env >"$T/out" 2>&1 || fail "env -n $over: $(cat "$T/out")"
expect_lines "$T/out" "^OMPI_MCA_mpi_oversubscribe=1\$" $over
run_to 60 "$PRTERUN" $RR -n 1 --personality ompi env >"$T/out" 2>&1 || fail "env -n 1: $(cat "$T/out")"
expect_lines "$T/out" "^OMPI_MCA_mpi_oversubscribe=" 0
# -x wins over the personality's selection
run_to 60 "$PRTERUN" $RR -n 1 --personality ompi -x OMPI_MCA_ess=mine env >"$T/out" 2>&1 ||
    fail "env -x: $(cat "$T/out")"
expect_lines "$T/out" "^OMPI_MCA_ess=mine\$" 1
# not asked for, not Open MPI: nothing added
run_to 60 "$PRTERUN" $RR -n 1 env >"$T/out" 2>&1 || fail "plain env: $(cat "$T/out")"
expect_lines "$T/out" "^OMPI_" 0
# a wrapper: the DVM sees env, not the program; --personality ompi makes it work
run_to 60 "$PRTERUN" $RR -n 2 --personality ompi env PXOMPI_WRAPPED=1 "$O/ompi_hello" >"$T/out" 2>&1 ||
    fail "hello through env: $(cat "$T/out")"
expect_lines "$T/out" "^hello [01] of 2\$" 2
# unknown names
run_to 60 "$PRTERUN" $RR -n 1 --personality mvapich "$O/ompi_hello" >"$T/out" 2>&1 &&
    fail "prterun --personality mvapich succeeded: $(cat "$T/out")"
expect_in "$T/out" 'asks for personality "mvapich", which this DVM does not'
expect_in "$T/out" "The personalities are: prte, ompi."
expect_lines "$T/out" "^hello" 0
start_dvm
run_to 60 "$PRUN" --dvm-uri "file:$T/uri" $RR -n 1 --personality "" "$O/ompi_hello" >"$T/out" 2>&1 &&
    fail "prun --personality '' succeeded: $(cat "$T/out")"
expect_in "$T/out" 'asks for personality "", which this DVM does not'
# Open MPI 4.1 without its personality: a singleton that cannot start its own daemon
run_to 60 "$PRUN" --dvm-uri "file:$T/uri" $RR -n 2 --personality prte "$O/ompi_hello" >"$T/out" 2>&1 &&
    fail "Open MPI ran without its personality: $(cat "$T/out")"
expect_lines "$T/out" "^hello" 0
# that failed singleton may have started Open MPI's own orted (setsid: out of the DVM's
# reach, and it does not always end when its singleton does). It is Open MPI's daemon,
# provoked by this negative case, not ours: end it, and fail on anything else left.
for p in $(leftovers | awk '/orted --hnp/ {print $1}'); do
    kill -9 "$p" 2>/dev/null
done
no_orted() { case "$(leftovers)" in *"orted --hnp"*) return 1 ;; esac; }
poll_until no_orted || fail "Open MPI's singleton daemon did not end: $(leftovers)"
# it may leave Open MPI's own session directory (not ours) behind
rm -rf "$TMPDIR"/ompi.*
stop_dvm
pass
