#!/usr/bin/env bash
# Allocation (issue 15 item 4) with fake nodes (test/daemons/local_agent.sh behind a
# small agent of this test: hosts "down*" cannot be reached, host "alias1" is node fake1
# under another name). prun --host picks the DVM's nodes of one job (":N" caps its
# processes there); a host not in the DVM is refused naming the DVM's nodes. prun
# --add-host grows the running DVM (a prted is started, the job and later ones use the
# node); a host already in the DVM, named twice, malformed, unreachable, or another name
# of a node the DVM has, is refused with its message and the DVM goes on. prte given two
# names of one node does not start. Nothing is left at the end.
. "$(dirname "$0")/lib.sh"
LOCAL=$(cd "$(dirname "$0")/../daemons" && pwd)/local_agent.sh
cat >"$T/agent" <<EOF
#!/bin/sh
case \$1 in
down*) echo "agent: cannot reach \$1" >&2; exit 255 ;;
alias1) shift; exec "$LOCAL" fake1 "\$@" ;;
esac
exec "$LOCAL" "\$@"
EOF
chmod +x "$T/agent"
export PRTE_MCA_plm_ssh_agent=$T/agent
HERE=$(hostname)
P() { run_to 60 "$PRUN" --dvm-uri "file:$T/uri" $RR "$@"; }

# two names of one node: the DVM does not start
run_to 60 "$PRTE" $RR --host "$HERE,fake1,alias1" >"$T/dup" 2>&1 && fail "prte started: $(cat "$T/dup")"
expect_in "$T/dup" "hosts fake1 and alias1 (in the order given) are the same node; name each node once"
expect_in "$T/dup" "did not start"

# in the background, not daemonized: its messages stay in prte.out
"$PRTE" $RR --report-uri "$T/uri" --report-pid "$T/pid" --host "$HERE:2,fake1:2" >"$T/prte.out" 2>&1 &
PRTE_BG=$!
wait_for "$T/prte.out" "DVM ready"
DVM_PID=$(cat "$T/pid")

# --host: this job on fake1 only
P --host fake1 -n 2 "$APP" xnode >"$T/h1" 2>&1 || fail "--host fake1: $(cat "$T/h1")"
[ "$(grep -c 'xnode rank [01] host fake1 ' "$T/h1")" = 2 ] || fail "not both on fake1: $(cat "$T/h1")"
# ":N" caps the job there: 2 processes do not fit 1 slot
P --host fake1:1 -n 2 "$APP" hello >"$T/h2" 2>&1 && fail "--host fake1:1 ran 2 processes: $(cat "$T/h2")"
grep -q "hello" "$T/h2" && fail "a process started: $(cat "$T/h2")"
P --host "fake1:1,$HERE:1" -n 2 --map-by node "$APP" xnode >"$T/h3" 2>&1 || fail "--host fake1:1,here:1: $(cat "$T/h3")"
expect_in "$T/h3" "host fake1 "
expect_in "$T/h3" "host $HERE "
# a host that is not a node of the DVM
P --host nosuch -n 1 "$APP" hello >"$T/h4" 2>&1 && fail "--host nosuch ran: $(cat "$T/h4")"
expect_in "$T/h4" "host nosuch (--host) is not a node of the DVM"
expect_in "$T/h4" "Its nodes are: $HERE,fake1."

# --add-host: the DVM grows by fake2, this job and later ones use it
P --add-host fake2:2 -n 3 --map-by node "$APP" xnode >"$T/a1" 2>&1 || fail "--add-host fake2: $(cat "$T/a1")"
expect_in "$T/a1" "xnode rank 2 host fake2 nodeid 2 "
grep -q "FAIL" "$T/a1" && fail "xnode failures: $(cat "$T/a1")"
P --host fake2 -n 2 "$APP" xnode >"$T/a2" 2>&1 || fail "--host fake2 after the add: $(cat "$T/a2")"
[ "$(grep -c 'host fake2 ' "$T/a2")" = 2 ] || fail "not on fake2: $(cat "$T/a2")"
# refusals: already there, twice, malformed (prun), unreachable, another name of fake1
P --add-host fake1 -n 1 "$APP" hello >"$T/r1" 2>&1 && fail "--add-host fake1 ran"
expect_in "$T/r1" "host fake1 (--add-host) is already in the DVM"
P --add-host fake3,fake3 -n 1 "$APP" hello >"$T/r2" 2>&1 && fail "--add-host twice ran"
expect_in "$T/r2" "--add-host \"fake3\" is not valid: it is named twice"
P --add-host fake3:0 -n 1 "$APP" hello >"$T/r3" 2>&1 && fail "--add-host fake3:0 ran"
expect_in "$T/r3" "--add-host \"fake3:0\" is not valid"
P --add-host down1 -n 1 "$APP" hello >"$T/r4" 2>&1 && fail "--add-host down1 ran"
expect_in "$T/r4" "host down1 could not be added to the DVM"
expect_in "$T/prte.out" "the daemon 3 on host down1 did not start: the agent exited with status 255"
P --add-host alias1 -n 1 "$APP" hello >"$T/r5" 2>&1 && fail "--add-host alias1 ran"
expect_in "$T/r5" "host alias1 could not be added to the DVM"
expect_in "$T/prte.out" "hosts fake1 and alias1 (in the order given) are the same node"
# the DVM goes on, on all three nodes
P -n 3 --map-by node "$APP" xnode >"$T/after" 2>&1 || fail "a job after the refusals: $(cat "$T/after")"
for h in "$HERE" fake1 fake2; do expect_in "$T/after" "host $h "; done
stop_dvm
wait "$PRTE_BG" || fail "prte exited with $?: $(cat "$T/prte.out")"
pass
