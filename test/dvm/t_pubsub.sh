#!/usr/bin/env bash
# The DVM's name service (PMIx_Publish/Lookup/Unpublish between jobs): a job waits with
# PMIX_WAIT for a key that a concurrent job publishes later; ranges and persistence decide
# what later jobs see; unsupported directives, duplicates and a lookup's timeout.
. "$(dirname "$0")/lib.sh"
start_dvm

# B waits for svc (PMIX_WAIT, PMIX_TIMEOUT 30), then answers with ack; A, started once B
# is inside its lookup, publishes svc and waits for the ack: both run at the same time.
# B's ack persists for the session: B ends right after publishing it, and A's lookup may
# reach the DVM only after B's job ended, which removes an entry of the default
# persistence (PMIX_PERSIST_APP).
run_to 60 "$PRUN" $RR -n 1 "$APP" ns look:svc:30 pub:ack=ok:session:session >"$T/b.out" 2>"$T/b.err" &
b=$!
wait_for "$T/b.out" "rank 0 > look:svc:30"
run_to 60 "$PRUN" $RR -n 1 "$APP" ns pub:svc=port-42 look:ack:30 >"$T/a.out" 2>"$T/a.err" ||
    fail "publisher job failed: $(cat "$T/a.out" "$T/a.err")"
wait $b || fail "looking-up job failed: $(cat "$T/b.out" "$T/b.err")"
expect_in "$T/b.out" "rank 0 look:svc:30: PMIX_SUCCESS port-42 from other:0"
expect_in "$T/a.out" "rank 0 pub:svc=port-42: PMIX_SUCCESS"
expect_in "$T/a.out" "rank 0 look:ack:30: PMIX_SUCCESS ok from other:0"

# persistence and range, seen by a later job of the same user
run_to 30 "$PRUN" $RR -n 1 "$APP" ns pub:p_proc=1:session:proc pub:p_app=2:session:app \
    pub:p_sess=3:session:session pub:p_ns=4:ns:session pub:p_once=5:global:first \
    look:p_ns >"$T/p1.out" 2>&1 || fail "publishing job failed: $(cat "$T/p1.out")"
[ "$(grep -c ': PMIX_SUCCESS' "$T/p1.out")" = 6 ] ||
    fail "the publishes and the job's own namespace lookup must succeed: $(cat "$T/p1.out")"
run_to 30 "$PRUN" $RR -n 1 "$APP" ns look:p_proc look:p_app look:p_sess look:p_ns look:p_once \
    look:p_once >"$T/p2.out" 2>&1 || fail "lookup job failed: $(cat "$T/p2.out")"
expect_in "$T/p2.out" "look:p_proc: PMIX_ERR_NOT_FOUND"
expect_in "$T/p2.out" "look:p_app: PMIX_ERR_NOT_FOUND"
expect_in "$T/p2.out" "look:p_sess: PMIX_SUCCESS 3 from other:"
expect_in "$T/p2.out" "look:p_ns: PMIX_ERR_NOT_FOUND"
[ "$(grep -c 'look:p_once: PMIX_SUCCESS 5' "$T/p2.out")" = 1 ] ||
    fail "a first-read entry is read once: $(cat "$T/p2.out")"
[ "$(grep -c 'look:p_once: PMIX_ERR_NOT_FOUND' "$T/p2.out")" = 1 ] ||
    fail "a first-read entry is gone after its first read: $(cat "$T/p2.out")"

# refusals, duplicates, unpublish, and a lookup that waits in vain for 2 s
run_to 30 "$PRUN" $RR -n 1 "$APP" ns pub:r=1:rm perm:q=1 pub:d=1 pub:d=2 pub:d=3:ns unpub:d \
    look:d:0:session unpub:d look:never:2 >"$T/e.out" 2>&1 || fail "job failed: $(cat "$T/e.out")"
expect_in "$T/e.out" "pub:r=1:rm: PMIX_ERR_NOT_SUPPORTED"
expect_in "$T/e.out" "perm:q=1: PMIX_ERR_NOT_SUPPORTED"
expect_in "$T/e.out" "pub:d=1: PMIX_SUCCESS"
expect_in "$T/e.out" "pub:d=2: PMIX_ERR_DUPLICATE_KEY"
expect_in "$T/e.out" "pub:d=3:ns: PMIX_SUCCESS"
expect_in "$T/e.out" "look:d:0:session: PMIX_ERR_NOT_FOUND"
expect_in "$T/e.out" "look:never:2: PMIX_ERR_TIMEOUT"

# a lookup still waiting when the DVM terminates: its job is killed, nothing is left
run_to 60 "$PRUN" $RR -n 1 "$APP" ns look:forever:60 >"$T/w.out" 2>&1 &
w=$!
wait_for "$T/w.out" "rank 0 > look:forever:60"
stop_dvm
wait $w && fail "the job waiting in its lookup must be reported killed"
pass
