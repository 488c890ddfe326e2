#!/usr/bin/env bash
# prterun as mpiexec (issue 19 part 4): the spellings of Open MPI's and MPICH's mpiexec
# (-np, -H, -hosts, -ppn, -genv, -x) through a link named mpiexec, as the installed
# alias (libexec/pmix-runtime/mpiexec) is; messages then name mpiexec. Bad values are
# refused with their help-prte-cli.txt text.
. "$(dirname "$0")/lib.sh"
ln -s "$PRTERUN" "$T/mpiexec"
MPIEXEC="$T/mpiexec"
host=$(hostname)
# -np, -genv (both forms, every executable), -x (its executable, wins over -genv)
run_to 30 "$MPIEXEC" $RR -np 2 -genv G one -genv K=two -x G=own "$APP" env G : \
    -np 1 "$APP" env K >"$T/out" 2>&1 || fail "mpiexec -np/-genv/-x: $(cat "$T/out")"
[ "$(grep -cx G=own "$T/out")" = 2 ] || fail "-x G=own in both processes of app 0: $(cat "$T/out")"
[ "$(grep -cx K=two "$T/out")" = 1 ] || fail "-genv K=two in app 1: $(cat "$T/out")"
run_to 30 "$MPIEXEC" $RR -np 1 -genv G one "$APP" env G >"$T/out" 2>&1 || fail "-genv: $(cat "$T/out")"
[ "$(cat "$T/out")" = G=one ] || fail "-genv G one: $(cat "$T/out")"
# -hosts and -ppn: N per node, and -n defaults to it
run_to 30 "$MPIEXEC" $RR -hosts "$host:4" -ppn 3 --display map "$APP" hello >"$T/out" 2>&1 ||
    fail "-hosts/-ppn: $(cat "$T/out")"
expect_in "$T/out" "map-by ppr:3:node"
[ "$(grep -c '^hello rank' "$T/out")" = 3 ] || fail "-ppn 3 on one node: 3 processes: $(cat "$T/out")"
# -H
run_to 30 "$MPIEXEC" $RR -H "$host" -np 1 "$APP" hello >"$T/out" 2>&1 || fail "-H: $(cat "$T/out")"
expect_in "$T/out" "hello rank 0 of 1"
# the help says what it is and where the meaning differs
run_to 30 "$MPIEXEC" --help >"$T/out" 2>&1 || fail "--help: $(cat "$T/out")"
expect_in "$T/out" "Usage: mpiexec [options]"
expect_in "$T/out" "It serves as mpiexec for Open MPI"
run_to 30 "$MPIEXEC" --help ppn >"$T/out" 2>&1 || fail "--help ppn: $(cat "$T/out")"
expect_in "$T/out" "Unlike MPICH's mpiexec"
# bad spellings: a clear message naming the command, exit 1, nothing started
bad() {
    run_to 30 "$MPIEXEC" $RR "$@" >"$T/out" 2>&1
    local rc=$?
    [ $rc = 1 ] || fail "mpiexec $*: exit $rc, expected 1: $(cat "$T/out")"
}
bad -ppn 0 "$APP" hello
expect_in "$T/out" 'mpiexec: the number of processes per node "0" (-ppn) is not valid.'
bad -ppn 2 --map-by node "$APP" hello
expect_in "$T/out" "mpiexec: the options --map-by and -ppn cannot be used together."
bad -np 1 -genv G
expect_in "$T/out" 'mpiexec: the option "-genv" needs a value: -genv <name> <value>'
bad -np 1 -genv 9G x "$APP" hello
expect_in "$T/out" 'mpiexec: -genv "9G" is not valid.'
bad -hosts "" "$APP" hello
expect_in "$T/out" 'mpiexec: --host "" is not valid: the host name is empty.'
# more processes than -ppn allows on the nodes (where MPICH would wrap around): refused
# before anything starts
run_to 30 "$MPIEXEC" $RR -hosts "$host:8" -ppn 2 -np 3 "$APP" hello >"$T/out" 2>&1 &&
    fail "-ppn 2 -np 3 on one node ran: $(cat "$T/out")"
expect_in "$T/out" "ppr:2:node"
[ "$(grep -c '^hello rank' "$T/out")" = 0 ] || fail "processes started: $(cat "$T/out")"
pass
