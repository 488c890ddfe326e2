#!/usr/bin/env bash
# Job and connection options end to end: --pid / --namespace / --system-server-only to
# find the DVM; --app; --map-by/--bind-to with --report-bindings and --display map (and
# the binding really applied); --output rank,timestamp / xml / merge / dir= :nocopy;
# --stdin all.
. "$(dirname "$0")/lib.sh"
start_dvm --system-server
P() { run_to 30 "$PRUN" $RR "$@" >"$T/out" 2>"$T/err" || fail "prun $*: $(cat "$T/err")"; }
P --pid "$DVM_PID" -n 1 "$APP" hello
expect_in "$T/out" "hello rank 0 of 1"
P --namespace "prte-$(hostname)-$DVM_PID" -n 1 "$APP" hello
expect_in "$T/out" "hello rank 0 of 1"
P --system-server-only -n 1 "$APP" hello
expect_in "$T/out" "hello rank 0 of 1"
printf '%s\n' "# two apps" "-n 2 --pset left $APP hello" "-n 1 --pset right $APP hello" >"$T/appfile"
P --app "$T/appfile"
expect_in "$T/out" "hello rank 1 of 3 psets=left"
expect_in "$T/out" "hello rank 2 of 3 psets=right"
ncores=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
if [ "$ncores" -ge 2 ]; then
    P -n 2 --map-by core --bind-to core --report-bindings "$APP" binding
    expect_in "$T/err" "[$(hostname):rank 0] bound to"
    [ "$(grep -c 'Cpus_allowed_list:' "$T/out")" = 2 ] || fail "binding lines: $(cat "$T/out")"
    # each process is bound to a single CPU, and not the same one
    [ "$(awk '{print $2}' "$T/out" | sort -u | wc -l)" = 2 ] || fail "two distinct bindings: $(cat "$T/out")"
    awk '{print $2}' "$T/out" | grep -q '[-,]' && fail "bound to more than one CPU: $(cat "$T/out")"
fi
P -n 2 --display map "$APP" exit 0
expect_in "$T/out" "rank 1 (app 0"
P -n 2 --output rank,timestamp "$APP" both 2
grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+ \[1\]<stdout>: out 0$' "$T/out" || fail "rank+timestamp: $(cat "$T/out")"
P -n 1 --output xml "$APP" both 2
expect_in "$T/out" '<stdout rank="0">out 0</stdout>'
P -n 1 --output merge-stderr-to-stdout "$APP" both 4
[ "$(wc -l <"$T/out")" = 4 ] && [ ! -s "$T/err" ] || fail "merge: out=$(cat "$T/out") err=$(cat "$T/err")"
P -n 2 --output dir="$T/o":nocopy "$APP" both 2
[ ! -s "$T/out" ] || fail "nocopy must print nothing: $(cat "$T/out")"
n=$(find "$T/o" -name stdout | wc -l)
[ "$n" = 2 ] || fail "two stdout files expected under $T/o, found $n"
grep -qx "out 0" "$(find "$T/o" -path '*rank.1/stdout')" || fail "rank 1's file"
# -x is per app: each app's processes see their own value
P -n 2 -x PXAPP=one "$APP" env PXAPP : -n 1 -x PXAPP=two "$APP" env PXAPP
[ "$(grep -c 'PXAPP=one' "$T/out")" = 2 ] && [ "$(grep -c 'PXAPP=two' "$T/out")" = 1 ] \
    || fail "per-app -x: $(cat "$T/out")"
# what the DVM sets for itself (hwloc's plugin switch) does not reach the processes
P -n 1 "$APP" env HWLOC_PLUGINS_PATH
expect_in "$T/out" "HWLOC_PLUGINS_PATH=(unset)"
printf 'alpha\nbeta\n' >"$T/in"
run_to 30 "$PRUN" $RR -n 3 --stdin all "$APP" cat <"$T/in" >"$T/out" 2>"$T/err" || fail "stdin all"
[ "$(grep -c alpha "$T/out")" = 3 ] || fail "every rank must read stdin: $(cat "$T/out")"
stop_dvm
pass
