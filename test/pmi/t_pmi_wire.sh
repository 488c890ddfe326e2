#!/usr/bin/env bash
# The PMI wires spoken byte by byte (test/pmi/pmi_raw): the --pset names and the name
# service through PMI-1; a job of PMIx and PMI processes sharing fences and data; framed bad requests answered with rc=-1 and the catalog's
# message while the connection and the job go on (PMI-1 and PMI-2); bytes that cannot be
# framed answered and that one connection closed, while another job keeps being served
# and the DVM runs new jobs; a PMI process that leaves without finalize fails its job;
# PX_PMI=0 offers no PMI; PMI-1 and PMI-2 spawn and their refusals; PX_PMI=port offers PMI_PORT/PMI_ID instead of PMI_FD: the
# initack handshake (size, rank, debug), then the usual commands; a port connection that
# does not start with initack, or names a wrong or used PMI_ID, is answered and closed.
. "$(dirname "$0")/../dvm/lib.sh"
. "$(dirname "$0")/lib_pmi.sh"
need_prog "$RAW" "test/pmi/pmi_raw" "build the tests (meson -Dtests=true)"

start_dvm
run_job "$T/psets" 0 "$PRUN" $RR -n 3 --pset blue "$RAW" psets
lines_in "$T/psets" "psets blue" 3
lines_in "$T/psets" "mapping (vector,(0,1,3))" 3
lines_in "$T/psets" "maxes 1024" 3
lines_in "$T/psets" "universe 3" 3 # the DVM's universe size is the job's size
lines_in "$T/psets" "lookup port-" 3
for r in 0 1 2; do
    lines_in "$T/psets" "lookup port-$(((r + 1) % 3))" 1
done
grep -q FAIL "$T/psets" && fail "$(cat "$T/psets")"

# PMIx and PMI processes in one job: one fence, each other's data
PEER=$PMI_DIR/pmix_peer
run_job "$T/mixed" 0 "$PRUN" $RR -n 2 "$PEER" : -n 2 "$RAW" mixed : -n 1 "$PEER"
lines_in "$T/mixed" "got 5 of 5" 5
lines_in "$T/mixed" "pmix rank" 3
lines_in "$T/mixed" "pmi rank" 2

# framed bad requests: each answered, the job still succeeds
run_job "$T/bad" 0 "$PRUN" $RR -n 3 "$RAW" bad
lines_in "$T/bad" "bad done" 3
for topic in not-initialized unknown-command malformed reserved-key bad-kvsname bad-key \
    bad-value key-not-found unknown-kvsname already-connected bad-version spawn-bad \
    initack-not-port; do
    expect_in "$T/bad" "$(help_line $topic)"
done
run_job "$T/bad2" 0 "$PRUN" $RR -n 2 "$RAW" pmi2-bad
lines_in "$T/bad2" "pmi2-bad done" 2
for topic in wrong-rank not-initialized unknown-command reserved-key unsupported; do
    expect_in "$T/bad2" "$(help_line $topic 2)"
done

# bytes that cannot be framed: that connection goes; a job beside it is not harmed
bystander_start
for mode in unframed pmi2-unframed notpmi; do
    run_job "$T/$mode" 3 "$PRUN" $RR -n 2 "$RAW" $mode
    expect_in "$T/$mode" "closed by the server"
    expect_in "$T/$mode" "rc=-1"
done
expect_in "$T/unframed" "$(help_line unframed)"
expect_in "$T/unframed" "a_message_longer_than_the_limit"
expect_in "$T/pmi2-unframed" "a length header that is not a number"
expect_in "$T/notpmi" "the_connection_does_not_speak_PMI"
bystander_check

# init without finalize fails the job as PMIx_Init without PMIx_Finalize does
run_job "$T/noinit" 1 "$PRUN" $RR -n 2 "$RAW" noinit-exit
expect_in "$T/noinit" "without calling PMIx_Finalize"

# PMI is offered by default, and not with PX_PMI=0
run_job "$T/env" 0 "$PRUN" $RR -n 2 "$RAW" env
lines_in "$T/env" "PMI_FD=4 PMI_RANK=" 2
expect_in "$T/env" "PMI_RANK=1 PMI_SIZE=2"
run_job "$T/env0" 0 "$PRUN" $RR -n 2 -x PX_PMI=0 "$RAW" env
lines_in "$T/env0" "no PMI_FD" 2
run_job "$T/hello" 0 "$PRUN" $RR -n 2 "$APP" hello
lines_in "$T/hello" "hello" 2

# PMI_PORT and PMI_ID instead of PMI_FD
run_job "$T/penv" 0 "$PRUN" $RR -n 2 -x PX_PMI=port "$RAW" env
lines_in "$T/penv" "no PMI_FD" 2
lines_in "$T/penv" "PMI_PORT=127.0.0.1:" 2
run_job "$T/port" 0 "$PRUN" $RR -n 3 -x PX_PMI=port "$RAW" port
lines_in "$T/port" "port done" 3
for r in 0 1 2; do
    lines_in "$T/port" "port rank $r size 3 debug 0" 1
done
run_job "$T/portbad" 0 "$PRUN" $RR -n 2 -x PX_PMI=port "$RAW" port-bad
lines_in "$T/portbad" "port-bad done" 2
lines_in "$T/portbad" "closed by the server" 3
lines_in "$T/portbad" "$(help_line initack-first)" 1
lines_in "$T/portbad" "$(help_line bad-pmiid)" 2
# PMIx and PMI_PORT processes in one job
run_job "$T/pmixed" 0 "$PRUN" $RR -n 1 "$PEER" : -n 2 -x PX_PMI=port "$RAW" port
lines_in "$T/pmixed" "port done" 2

# spawn (PMI-1: two mcmd=spawn blocks, PMI-2: one spawn) onto the DVM's spawn path: the
# children are a job of their own with PMI_SPAWNED / spawner-jobid, the preput keys in
# their KVS, their arguments, appnum and wdir; their output comes to the parent's prun
# even when a rank spawns before its siblings started (3 parents: rank 0 spawns at once)
run_job "$T/spawn" 0 "$PRUN" $RR -n 3 "$RAW" spawn
lines_in "$T/spawn" "parent 0 spawned" 1
parent=$(sed -n 's/.*preput PARENT_KEY=from-//p' "$T/spawn" | sort -u)
[ "$(echo "$parent" | wc -l)" = 1 ] && [ -n "$parent" ] || fail "one parent KVS expected: $(cat "$T/spawn")"
for r in 0 1; do
    lines_in "$T/spawn" "child $r of 3 spawned=1 appnum=0 args=[a],[two words] cwd=/" 1
done
lines_in "$T/spawn" "child 2 of 3 spawned=1 appnum=1 args=[b] cwd=$PWD" 1
lines_in "$T/spawn" "preput PARENT_KEY=from-$parent" 3
lines_in "$T/spawn" "preput OTHER=x" 3
for r in 0 1 2; do
    lines_in "$T/spawn" "child $r got v$(((r + 1) % 3))" 1
done
run_job "$T/spawn2" 0 "$PRUN" $RR -n 2 "$RAW" pmi2-spawn
child=$(sed -n 's/^spawned jobid //p' "$T/spawn2")
parent=$(sed -n 's/^child2 0 spawner=//p' "$T/spawn2")
[ -n "$child" ] && [ -n "$parent" ] && [ "$child" != "$parent" ] || fail "spawn2: $(cat "$T/spawn2")"
lines_in "$T/spawn2" "spawner=$parent" 2
lines_in "$T/spawn2" "parent2 0 spawner=(none)" 1
lines_in "$T/spawn2" "preput PARENT_KEY=v;semi" 2
# refused: an info key we cannot honour, a reserved preput key, a bad count, blocks out
# of order, a missing argument; nothing starts, the job goes on
run_job "$T/spawnbad" 0 "$PRUN" $RR -n 2 "$RAW" spawn-bad
lines_in "$T/spawnbad" "spawn-bad done" 2
lines_in "$T/spawnbad" "$(help_line spawn-info)" 1
lines_in "$T/spawnbad" "$(help_line reserved-key)" 1
lines_in "$T/spawnbad" "$(help_line spawn-bad)" 3
wait_pps true 0
stop_dvm
pass
