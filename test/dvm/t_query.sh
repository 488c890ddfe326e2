#!/usr/bin/env bash
# Query results in the form programs read: a debugger asks the DVM for its spawn and
# debug support in one non-blocking query (two keys) and must get exactly two results,
# each under its key (as OpenPMIx's examples/debugger.c expects). t_tools.sh checks a
# tool's two-query call and pps in the same flat form.
. "$(dirname "$0")/lib.sh"
start_dvm
run_to 30 "$APP" debugq >"$T/dq" 2>&1 || fail "debugger capability query: $(cat "$T/dq")"
[ "$(grep -c '^debugq: ' "$T/dq")" = 2 ] || fail "2 results expected: $(cat "$T/dq")"
grep -q '^debugq: pmix\.qry\.spawn=.' "$T/dq" || fail "no spawn support: $(cat "$T/dq")"
grep -q '^debugq: pmix\.qry\.debug=.' "$T/dq" || fail "no debug support: $(cat "$T/dq")"
stop_dvm
pass
