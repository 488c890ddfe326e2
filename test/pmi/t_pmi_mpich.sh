#!/usr/bin/env bash
# MPICH over PMI-1 (issue 19 part 2): a real MPI program built with Debian's mpicc.mpich
# runs under prun and prterun with 1 to 16 ranks on one node — hello, a ring, an
# MPI_Allreduce, shared memory among the node's ranks (PMI_process_mapping) and an
# MPI_Abort whose code ends the job; the same over PMI_PORT (PX_PMI=port) through a
# wrapper that closes inherited descriptors. A PMIx job runs in the same DVM meanwhile.
. "$(dirname "$0")/../dvm/lib.sh"
. "$(dirname "$0")/lib_pmi.sh"
MPI=${PX_MPICH_APP:-}
need_prog "$MPI" "test/pmi/mpich_app" \
    "mpicc.mpich was not found when the build was configured; install Debian's mpich and libmpich-dev (scripts/install-deps.sh) and reconfigure"

start_dvm
# each process leads a session of its own, as under Hydra: under the kernel's autogroup
# scheduling it then has its own share of the CPUs, not one share with the daemon and
# every other process of the DVM (MPICH's MPI_Init took 2-3x Hydra's on a loaded node)
run_job "$T/sid" 0 "$PRUN" $RR -n 3 sh -c 'echo "session $(cut -d" " -f6 /proc/$$/stat) pid $$"'
[ "$(awk '$1 == "session" && $2 == $4' "$T/sid" | wc -l)" = 3 ] ||
    fail "each process must lead its own session: $(cat "$T/sid")"
bystander_start # a PMIx program shares the DVM with the MPICH jobs

for n in 1 2 5 16; do
    run_job "$T/hello$n" 0 "$PRUN" $RR -n $n "$MPI" hello
    for r in $(seq 0 $((n - 1))); do
        lines_in "$T/hello$n" "hello $r/$n" 1
    done
done
for n in 3 16; do
    run_job "$T/ring$n" 0 "$PRUN" $RR -n $n "$MPI" ring
    expect_in "$T/ring$n" "ring $n ok (token $((3 * n)))"
done
for n in 4 16; do
    run_job "$T/sum$n" 0 "$PRUN" $RR -n $n "$MPI" allreduce
    lines_in "$T/sum$n" "sum $((n * (n + 1) / 2)) ok" $n
done
# every rank shares memory with the others: MPICH takes the node layout from
# PMI_process_mapping (a mapping that put the ranks on different nodes gives "1/4")
run_job "$T/local" 0 "$PRUN" $RR -n 4 "$MPI" local
lines_in "$T/local" " 4/4 ranks 0,1,2,3 host " 4
# MPI_Abort's code is the job's exit code; the others were ended, not left in a barrier
run_job "$T/abort" 7 "$PRUN" $RR -n 4 "$MPI" abort 7
expect_in "$T/abort" "MPI_Abort(MPI_COMM_WORLD, 7)"
grep -q "passed a barrier" "$T/abort" && fail "a rank passed the barrier: $(cat "$T/abort")"

# PMI_PORT (PX_PMI=port): MPICH started through a wrapper that closes the descriptors it
# inherited (fd 4 among them) connects by TCP instead
CLOSER='exec 4>&-; exec "$0" "$@"'
run_job "$T/pring" 0 "$PRUN" $RR -n 4 -x PX_PMI=port /bin/sh -c "$CLOSER" "$MPI" ring
expect_in "$T/pring" "ring 4 ok (token 12)"
run_job "$T/psum" 0 "$PRUN" $RR -n 3 -x PX_PMI=port /bin/sh -c "$CLOSER" "$MPI" allreduce
lines_in "$T/psum" "sum 6 ok" 3
run_job "$T/pabort" 5 "$PRUN" $RR -n 2 -x PX_PMI=port "$MPI" abort 5

bystander_check
stop_dvm

# prterun: its own DVM for one job
run_job "$T/p-hello" 0 "$PRTERUN" $RR -n 4 "$MPI" hello
lines_in "$T/p-hello" "/4" 4
run_job "$T/p-sum" 0 "$PRTERUN" $RR -n 16 "$MPI" allreduce
lines_in "$T/p-sum" "sum 136 ok" 16
run_job "$T/p-abort" 3 "$PRTERUN" $RR -n 2 "$MPI" abort 3
pass
