#!/usr/bin/env bash
# The tools around the runtime (issue 20) against a real DVM: pmix_info (the local
# library, no DVM), pquery (any query key, readable and --parsable, bad keys), pattrs
# (the DVM's attribute-support answers, one function, an unknown function), pps
# --nspace / --node / --parsable, and each tool's bad inputs (clear message, exit 1).
. "$(dirname "$0")/lib.sh"
PQUERY=$B/cli/pquery
PATTRS=$B/cli/pattrs
PMIX_INFO=$B/cli/pmix_info
U="--dvm-uri file:$T/uri"

# ---- pmix_info: no DVM needed
run_to 10 "$PMIX_INFO" >"$T/pi" 2>&1 || fail "pmix_info: $(cat "$T/pi")"
expect_in "$T/pi" "api                      4.2.2"
expect_in "$T/pi" "libevent"
expect_in "$T/pi" "prefix"
expect_in "$T/pi" "tool-search"
expect_in "$T/pi" "PMIx_Fence (client)"
expect_in "$T/pi" "PMIX_COLLECT_DATA"
run_to 10 "$PMIX_INFO" --parsable --all --param PMIx_Fence >"$T/pip" 2>&1 || fail "pmix_info --param: $(cat "$T/pip")"
expect_in "$T/pip" "attribute:client:PMIx_Fence:PMIX_COLLECT_DATA:pmix.collect:PMIX_BOOL:"
grep -q "^version:" "$T/pip" && fail "--param shows only the functions: $(cat "$T/pip")"
grep -qv "PMIx_Fence" "$T/pip" && fail "--param PMIx_Fence shows other functions: $(cat "$T/pip")"
run_to 10 "$PMIX_INFO" -p >"$T/pip2" 2>&1 || fail "pmix_info -p"
grep -q "^version:api:4.2.2$" "$T/pip2" || fail "parsable version line: $(head "$T/pip2")"
run_to 10 "$PMIX_INFO" --param PMIx_Nothing >"$T/pib" 2>&1 && fail "unknown --param accepted"
expect_in "$T/pib" 'no function "PMIx_Nothing"'
run_to 10 "$PMIX_INFO" --bogus >"$T/pib" 2>&1 && fail "pmix_info --bogus accepted"
expect_in "$T/pib" "--bogus"
run_to 10 "$PMIX_INFO" --param >"$T/pib" 2>&1 && fail "pmix_info --param without a value accepted"
run_to 10 "$PMIX_INFO" --help >"$T/pih" 2>&1 || fail "pmix_info --help"
expect_in "$T/pih" "--parsable"

# ---- without a DVM: the tools say how to start one
run_to 10 "$PQUERY" $RR $U PMIX_QUERY_NAMESPACES >"$T/nd" 2>&1 && fail "pquery without a DVM succeeded"
expect_in "$T/nd" "prte"
run_to 10 "$PATTRS" $RR $U >"$T/nd" 2>&1 && fail "pattrs without a DVM succeeded"

start_dvm
"$PRUN" $RR -n 2 --pset ocean "$APP" sleep 30 >"$T/bg" 2>&1 &
bg=$!
wait_pps 'sleep 30' 2
ns=$(awk '/sleep 30/ {print $1; exit}' "$T/pps")
node=$(awk '/sleep 30/ {print $4; exit}' "$T/pps")

# ---- pmix_info names the one directory a tool's default search reads: the DVM's
# rendezvous file is there, and a tool finds the DVM with no more than that directory
run_to 10 "$PMIX_INFO" --parsable >"$T/pit" 2>&1 || fail "pmix_info -p: $(cat "$T/pit")"
sd=$(sed -n 's/^tmpdir:tool-search://p' "$T/pit")
[ -f "$sd/pmix.$(hostname).tool" ] || fail "no DVM rendezvous file in pmix_info's tool-search \"$sd\": $(ls "$TMPDIR")"
grep -q "^tmpdir:tool-system:$TMPDIR$" "$T/pit" || fail "tool-system: $(grep tool- "$T/pit")"
run_to 10 env TMPDIR="$sd" "$PQUERY" $RR PMIX_QUERY_NAMESPACES >"$T/q" 2>&1 || fail "default search in $sd: $(cat "$T/q")"
expect_in "$T/q" "pmix.qry.ns: $ns"

# ---- pquery
run_to 10 "$PQUERY" $RR $U PMIX_QUERY_NAMESPACES pmix.qry.spawn PMIX_QUERY_DEBUG_SUPPORT >"$T/q" 2>&1 ||
    fail "pquery: $(cat "$T/q")"
expect_in "$T/q" "pmix.qry.ns: $ns"
expect_in "$T/q" "pmix.qry.spawn:"
expect_in "$T/q" "pmix.qry.debug:"
run_to 10 "$PQUERY" $RR $U --nspace "$ns" PMIX_QUERY_PROC_TABLE >"$T/q" 2>&1 || fail "pquery ptable: $(cat "$T/q")"
[ "$(grep -c "^  $ns" "$T/q")" = 2 ] || fail "2 rows of the process table: $(cat "$T/q")"
run_to 10 "$PQUERY" $RR $U --parsable --nspace "$ns" PMIX_QUERY_PROC_TABLE >"$T/q" 2>&1 || fail "pquery -p: $(cat "$T/q")"
grep -q "^pmix.qry.ptable:1:nspace=$ns:rank=1:pid=[0-9]*:node=$node:state=[A-Z_]*:exec=" "$T/q" ||
    fail "parsable process table: $(cat "$T/q")"
run_to 10 "$PQUERY" $RR $U -p PMIX_QUERY_PSET_NAMES >"$T/q" 2>&1 || fail "pquery psets: $(cat "$T/q")"
grep -q "^pmix.qry.psets:.*ocean" "$T/q" || fail "pset names: $(cat "$T/q")"
run_to 10 "$PQUERY" $RR $U PMIX_NOT_A_KEY >"$T/q" 2>&1 && fail "unknown key name accepted"
expect_in "$T/q" '"PMIX_NOT_A_KEY" is not the name'
run_to 10 "$PQUERY" $RR $U >"$T/q" 2>&1 && fail "pquery without a key accepted"
expect_in "$T/q" "no query key"
run_to 10 "$PQUERY" $RR $U pmix.no.such.key >"$T/q" 2>&1 && fail "unanswered key gave success"
expect_in "$T/q" "no answer for pmix.no.such.key"
run_to 10 "$PQUERY" $RR $U --nspace "" PMIX_QUERY_PROC_TABLE >"$T/q" 2>&1 && fail "empty --nspace accepted"
expect_in "$T/q" "non-empty value"

# ---- pattrs: the DVM's answers
run_to 10 "$PATTRS" $RR $U >"$T/a" 2>&1 || fail "pattrs: $(cat "$T/a")"
expect_in "$T/a" "PMIx_Query_info:"
expect_in "$T/a" "PMIx_server_init:"
run_to 10 "$PATTRS" $RR $U --function PMIx_Fence --parsable >"$T/a" 2>&1 || fail "pattrs -f: $(cat "$T/a")"
expect_in "$T/a" "PMIx_Fence:client:PMIX_COLLECT_DATA:pmix.collect:PMIX_BOOL"
grep -qv "^PMIx_Fence:" "$T/a" && fail "--function PMIx_Fence shows others: $(cat "$T/a")"
run_to 10 "$PATTRS" $RR $U --function PMIx_Bogus >"$T/a" 2>&1 && fail "unknown function accepted"
expect_in "$T/a" 'no function "PMIx_Bogus"'
run_to 10 "$PATTRS" $RR $U --function , >"$T/a" 2>&1 && fail "empty function list accepted"
run_to 10 "$PATTRS" $RR $U extra >"$T/a" 2>&1 && fail "pattrs took an argument"
expect_in "$T/a" 'unexpected argument "extra"'

# ---- pattrs: the host level, what the DVM registered from the tables its readers use
run_to 10 "$PATTRS" $RR $U --function PMIx_Spawn --parsable >"$T/as" 2>&1 || fail "pattrs PMIx_Spawn: $(cat "$T/as")"
host=$(awk -F: '$2 == "host" {print $4}' "$T/as" | sort)
run_to 10 "$PQUERY" $RR $U -p PMIX_QUERY_SPAWN_SUPPORT >"$T/ss" 2>&1 || fail "spawn support: $(cat "$T/ss")"
spawn=$(sed -n 's/^pmix\.qry\.spawn://p' "$T/ss" | tr ',' '\n' | sort)
[ -n "$host" ] && [ "$host" = "$spawn" ] ||
    fail "PMIx_Spawn's host attributes are not the spawn directives the DVM honours: $(cat "$T/as") / $(cat "$T/ss")"
expect_in "$T/as" "PMIx_Spawn:host:PMIX_MAPBY:pmix.mapby:PMIX_STRING"
run_to 10 "$PATTRS" $RR $U -p -f PMIx_Spawn_nb >"$T/as" 2>&1 || fail "pattrs PMIx_Spawn_nb: $(cat "$T/as")"
expect_in "$T/as" "PMIx_Spawn_nb:host:PMIX_MAPBY:pmix.mapby:PMIX_STRING"
# every query key registered for PMIx_Query_info is one the DVM answers
run_to 10 "$PATTRS" $RR $U -p -f PMIx_Query_info >"$T/aq" 2>&1 || fail "pattrs PMIx_Query_info: $(cat "$T/aq")"
qkeys=$(awk -F: '$2 == "host" {print $4}' "$T/aq")
[ "$(echo "$qkeys" | grep -c .)" -ge 5 ] || fail "host query keys: $(cat "$T/aq")"
for k in $qkeys; do
    run_to 10 "$PQUERY" $RR $U -p --nspace "$ns" "$k" >"$T/q1" 2>&1 || fail "registered query key $k not answered: $(cat "$T/q1")"
    grep -q "^$k" "$T/q1" || fail "no answer under $k: $(cat "$T/q1")"
done
run_to 10 "$PATTRS" $RR $U -p -f PMIx_Job_control,PMIx_Lookup >"$T/aj" 2>&1 || fail "pattrs PMIx_Job_control: $(cat "$T/aj")"
for k in pmix.jctrl.kill pmix.jctrl.term pmix.jctrl.sig; do
    grep -q "^PMIx_Job_control:host:[A-Z_]*:$k:" "$T/aj" || fail "job control host attribute $k: $(cat "$T/aj")"
done
expect_in "$T/aj" "PMIx_Lookup:host:PMIX_WAIT:pmix.wait:"

# ---- pps options
"$PRUN" $RR -n 1 "$APP" sleep 31 >"$T/bg2" 2>&1 &
bg2=$!
wait_pps 'sleep 31' 1
run_to 10 "$PPS" $RR $U --nspace "$ns" >"$T/p" 2>&1 || fail "pps --nspace: $(cat "$T/p")"
[ "$(grep -c 'sleep 30' "$T/p")" = 2 ] || fail "pps --nspace: the job's 2 processes: $(cat "$T/p")"
grep -q 'sleep 31' "$T/p" && fail "pps --nspace shows another job: $(cat "$T/p")"
run_to 10 "$PPS" $RR $U --node "$node" >"$T/p" 2>&1 || fail "pps --node"
[ "$(grep -c 'sleep 3[01]' "$T/p")" = 3 ] || fail "pps --node $node: 3 processes: $(cat "$T/p")"
run_to 10 "$PPS" $RR $U --node no-such-node >"$T/p" 2>&1 || fail "pps --node other"
grep -q 'sleep 3' "$T/p" && fail "pps --node no-such-node lists processes: $(cat "$T/p")"
run_to 10 "$PPS" $RR $U --parsable --nspace "$ns" >"$T/p" 2>&1 || fail "pps --parsable"
grep -q NAMESPACE "$T/p" && fail "no header in the parsable form: $(cat "$T/p")"
grep -q "^$ns:1:[0-9]*:$node:[A-Z_]*:[^:]*:.*sleep 30" "$T/p" || fail "parsable pps line: $(cat "$T/p")"
run_to 10 "$PPS" $RR $U --nspace no-such-job >"$T/p" 2>&1 && fail "pps --nspace of no job succeeded"
expect_in "$T/p" "runs no job no-such-job"
run_to 10 "$PPS" $RR $U --node >"$T/p" 2>&1 && fail "pps --node without a value accepted"

kill -TERM $bg $bg2
wait $bg $bg2 2>/dev/null
stop_dvm
pass
