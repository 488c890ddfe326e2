#!/usr/bin/env bash
# The README's demo: a DVM, then prun -n 4 --pset ocean app : -n 3 --pset ice app. Every
# process sees its own process set; the job ends with status 0; pterm leaves nothing.
. "$(dirname "$0")/lib.sh"
start_dvm
run_to 30 "$PRUN" $RR -n 4 --pset ocean "$APP" hello : -n 3 --pset ice "$APP" hello \
    >"$T/out" 2>"$T/err" || fail "prun exit $?: $(cat "$T/err")"
[ "$(grep -c 'psets=ocean' "$T/out")" = 4 ] || fail "4 ocean ranks expected: $(cat "$T/out")"
[ "$(grep -c 'psets=ice' "$T/out")" = 3 ] || fail "3 ice ranks expected: $(cat "$T/out")"
for r in 0 1 2 3; do expect_in "$T/out" "hello rank $r of 7 psets=ocean"; done
for r in 4 5 6; do expect_in "$T/out" "hello rank $r of 7 psets=ice"; done
# the application realm from inside: each process reads its own app's set (name and
# members), number, size, leader, directory and command with rank PMIX_RANK_WILDCARD;
# PMIX_APP_INFO + PMIX_APPNUM 0 reads app 0's set from either app
mkdir -p "$T/wd"
run_to 30 "$PRUN" $RR -n 4 --pset ocean "$APP" realm : -n 3 --pset ice --wdir "$T/wd" "$APP" realm \
    >"$T/realm" 2>&1 || fail "realm job: $(cat "$T/realm")"
for r in 0 1 2 3; do
    expect_in "$T/realm" "realm rank $r pset=ocean members=0,1,2,3 appnum=0 size=4 ldr=0 wdir=$PWD argv=$APP realm app0pset=ocean"
done
for r in 4 5 6; do
    expect_in "$T/realm" "realm rank $r pset=ice members=4,5,6 appnum=1 size=3 ldr=4 wdir=$T/wd argv=$APP realm app0pset=ocean"
done
# the sets are gone with the job: a second job sees only its own
run_to 30 "$PRUN" $RR -n 1 --pset fresh "$APP" psetq >"$T/out2" 2>&1 || fail "second job: $(cat "$T/out2")"
expect_in "$T/out2" "pmix.qry.psetnum=PMIX_SIZE: 1"
expect_in "$T/out2" "{fresh}"
stop_dvm
pass
