#!/usr/bin/env bash
# Tools that attach to a DVM's jobs (issue 16 items 5-6). Lifecycle events: a second
# tool that registers naming a prun job (PMIX_EVENT_AFFECTED_PROC) hears its JOB_START,
# LAUNCH_COMPLETE (from the server's event cache: it registered after them) and JOB_END
# with the namespace, timestamp, status, first failed process and its exit code, and
# nothing of another job; one attaching after the job ended still hears JOB_END. The
# requester gets all three with PMIX_NOTIFY_JOB_EVENTS, only JOB_END with
# PMIX_NOTIFY_COMPLETION; PMIX_LOG_JOB_EVENTS / PMIX_LOG_COMPLETION log them with
# PMIx_Log (the DVM's stderr).
# Output for attached tools: tools that pull a job's output and then stop reading (SIGSTOP)
# do not stall it for prun, which still gets every byte; once they read again each has
# a PMIX_ERR_IOF_FAILURE, and what was kept for it: the first bytes
# (PMIX_IOF_DROP_NEWEST, the default) or the last ones (PMIX_IOF_DROP_OLDEST).
# PMIx_IOF_pull's options: a late pull first gets the output kept for the job, then the
# rest (PMIX_IOF_COPY: prun gets it all too); PMIX_IOF_REDIRECT (the default) takes the
# output from prun while the pull lasts and gives it back at PMIx_IOF_deregister; a pull
# of a channel the job was not spawned to forward, or of no such job, or with both modes,
# fails. A pull's own formatting (tag, timestamp, XML) and aggregation
# (PMIX_IOF_BUFFERING_SIZE, PMIX_IOF_BUFFERING_TIME).
# stdin: PMIX_FWD_STDIN (every rank, or one) keeps the ranks' stdin open and
# PMIx_IOF_push reaches them; a push to a rank whose stdin was not kept fails;
# PMIX_IOF_PUSH_STDIN has the tool's library forward the tool's own stdin, byte-exact,
# and close the targets' stdin at its end.
# prterun's own job: a tool may take its output (PMIX_IOF_REDIRECT, the default: prterun
# stops printing it until the pull is deregistered) or tap it (PMIX_IOF_COPY: prterun
# prints everything); a tap that stops reading does not stall what prterun prints.
. "$(dirname "$0")/lib.sh"
ATT=$B/test/dvm/dvm_attach
# a DVM in the foreground: its stderr holds what PMIx_Log writes there
"$PRTE" $RR --report-uri "$T/uri" --report-pid "$T/pid" >"$T/prte.out" 2>"$T/prte.err" &
DVM_PID=$!
wait_for "$T/prte.out" "DVM ready"

# ---- a debugger attaching to a running prun job hears its end
"$PRUN" $RR -n 2 "$APP" waitfile "$T/go" 5 >"$T/prun.out" 2>&1 &
prun=$!
wait_pps 'waitfile' 2
ns=$(awk '/waitfile/ {print $1; exit}' "$T/pps")
case "$ns" in *@*) ;; *) fail "no namespace in pps: $(cat "$T/pps")" ;; esac
"$ATT" watch "$ns" >"$T/w1" 2>&1 &
w1=$!
wait_for "$T/w1" "registered"
wait_for "$T/w1" "event PMIX_LAUNCH_COMPLETE ns=$ns ts=ok"
expect_in "$T/w1" "event PMIX_EVENT_JOB_START ns=$ns ts=ok"
# another job's end does not reach a tool that named this one
run_to 30 "$PRUN" $RR -n 1 "$APP" exit 0 >"$T/other" 2>&1 || fail "other job: $(cat "$T/other")"
touch "$T/go"
wait $prun
rc=$?
[ $rc = 5 ] || fail "prun: exit 5 expected, got $rc: $(cat "$T/prun.out")"
wait $w1 || fail "watch: $(cat "$T/w1")"
grep -q "^event PMIX_EVENT_JOB_END ns=$ns ts=ok status=PMIX_ERR_[A-Z_]* proc=$ns:[01] exit=5$" \
    "$T/w1" || fail "JOB_END fields: $(cat "$T/w1")"
[ "$(grep -c '^event' "$T/w1")" = 3 ] || fail "3 events of $ns only: $(cat "$T/w1")"
# a tool attaching after the job ended hears it from the server's event cache
run_to 30 "$ATT" watch "$ns" >"$T/w2" 2>&1 || fail "late watch: $(cat "$T/w2")"
grep "^event PMIX_EVENT_JOB_END" "$T/w1" >"$T/end1"
grep "^event PMIX_EVENT_JOB_END" "$T/w2" >"$T/end2"
cmp -s "$T/end1" "$T/end2" || fail "late JOB_END differs: $(cat "$T/w2")"

# ---- the requester: what its spawn asked for
run_to 30 "$ATT" spawn 2 events >"$T/s1" 2>&1 || fail "spawn events: $(cat "$T/s1")"
[ "$(grep '^event' "$T/s1" | cut -d' ' -f2 | tr '\n' ' ')" = \
    "PMIX_EVENT_JOB_START PMIX_LAUNCH_COMPLETE PMIX_EVENT_JOB_END " ] ||
    fail "PMIX_NOTIFY_JOB_EVENTS: $(cat "$T/s1")"
expect_in "$T/s1" "status=PMIX_SUCCESS"
run_to 30 "$ATT" spawn 2 end >"$T/s2" 2>&1 || fail "spawn end: $(cat "$T/s2")"
[ "$(grep '^event' "$T/s2" | cut -d' ' -f2 | tr '\n' ' ')" = "PMIX_EVENT_JOB_END " ] ||
    fail "PMIX_NOTIFY_COMPLETION: JOB_END only: $(cat "$T/s2")"

# ---- logged with PMIx_Log
run_to 30 "$ATT" spawn 2 log >"$T/s3" 2>&1 || fail "spawn log: $(cat "$T/s3")"
ns3=$(sed -n 's/^spawned //p' "$T/s3")
wait_for "$T/prte.err" "job $ns3: PMIX_EVENT_JOB_END status PMIX_SUCCESS, first failed rank none, exit code 0"
expect_in "$T/prte.err" "job $ns3: PMIX_EVENT_JOB_START"
expect_in "$T/prte.err" "job $ns3: PMIX_LAUNCH_COMPLETE"
run_to 30 "$ATT" spawn 1 logend >"$T/s4" 2>&1 || fail "spawn logend: $(cat "$T/s4")"
ns4=$(sed -n 's/^spawned //p' "$T/s4")
wait_for "$T/prte.err" "job $ns4: PMIX_EVENT_JOB_END status PMIX_SUCCESS"
grep -qF "job $ns4: PMIX_EVENT_JOB_START" "$T/prte.err" && fail "PMIX_LOG_COMPLETION logged JOB_START"

# ---- tools that stop reading do not stall the job's output for prun
N=$((48 * 1024 * 1024)) # 786432 lines of 64 bytes
want=$("$ATT" writeafter /dev/null $N | sha256sum | cut -d' ' -f1)
last=$(printf '%063d' $((N / 64 - 1)))
"$PRUN" $RR -n 1 "$ATT" writeafter "$T/go2" $N >"$T/out2" 2>"$T/err2" &
prun=$!
wait_pps 'writeafter' 1
ns=$(awk '/writeafter/ {print $1; exit}' "$T/pps")
"$ATT" pull "$ns" "$T/new.bytes" copy >"$T/p1" 2>&1 &
p1=$!
"$ATT" pull "$ns" "$T/old.bytes" copy oldest cache=1048576 >"$T/p2" 2>&1 &
p2=$!
wait_for "$T/p1" "pulled"
wait_for "$T/p2" "pulled"
kill -STOP $p1 $p2
touch "$T/go2"
poll_until gone $prun || { kill -CONT $p1 $p2; fail "prun stalled behind tools that stopped reading"; }
wait $prun || fail "prun: $(cat "$T/err2")"
kill -CONT $p1 $p2
[ "$(stat -c %s "$T/out2")" = $N ] || fail "prun got $(stat -c %s "$T/out2") bytes of $N"
[ "$(sha256sum <"$T/out2" | cut -d' ' -f1)" = "$want" ] || fail "prun's output differs"
wait $p1 || fail "pull (newest): $(cat "$T/p1")"
wait $p2 || fail "pull (oldest): $(cat "$T/p2")"
for p in p1 p2; do
    expect_in "$T/$p" "iof failure: Output forwarding: you are not reading the stdout of $ns:0"
    [ "$(grep -c 'iof failure' "$T/$p")" = 1 ] || fail "one IOF failure expected: $(cat "$T/$p")"
done
b1=$(sed -n 's/^received \([0-9]*\) bytes$/\1/p' "$T/p1")
b2=$(sed -n 's/^received \([0-9]*\) bytes$/\1/p' "$T/p2")
[ -n "$b1" ] && [ "$b1" -lt $N ] && [ "$b1" = "$(stat -c %s "$T/new.bytes")" ] ||
    fail "DROP_NEWEST tool: $b1 bytes: $(cat "$T/p1")"
[ -n "$b2" ] && [ "$b2" -lt $N ] || fail "DROP_OLDEST tool: $b2 bytes: $(cat "$T/p2")"
head -c 64 "$T/new.bytes" | grep -q "^$(printf '%063d' 0)$" || fail "DROP_NEWEST lost the first bytes"
grep -q "^$last$" "$T/new.bytes" && fail "DROP_NEWEST kept the newest bytes"
[ "$(tail -c 64 "$T/old.bytes")" = "$last" ] || fail "DROP_OLDEST did not keep the last bytes"

# ---- PMIx_IOF_pull's options
K=6400 # 100 lines per phase
lines() { # lines LETTER COUNT: what "phases" writes in one phase
    local i
    for ((i = 0; i < $2; i++)); do printf '%s%062d\n' "$1" $i; done
}
lines A 100 >"$T/A"
lines B 100 >"$T/B"
lines C 100 >"$T/C"
# a late pull with PMIX_IOF_COPY: the kept output first (A), then the rest (B); prun too
"$PRUN" $RR -n 1 "$ATT" phases "$T/f" $K >"$T/out3" 2>"$T/err3" &
prun=$!
wait_for "$T/out3" "A$(printf '%062d' 99)"
ns=$(run_to 10 "$PPS" --dvm-uri "file:$T/uri" $RR | awk '/phases/ {print $1; exit}')
run_to 30 "$ATT" pull "$ns" "$T/late" copy until=$((2 * K)) >"$T/p3" 2>&1 &
p3=$!
wait_for "$T/p3" "pulled"
touch "$T/f.1"
wait $p3 || fail "late pull: $(cat "$T/p3")"
cat "$T/A" "$T/B" | cmp -s - "$T/late" || fail "late pull: A then B expected: $(head -c 300 "$T/late")"
# refused: a channel the job was not spawned to forward, no such job, both modes
run_to 30 "$ATT" pull "$ns" "$T/x" stddiag >"$T/p4" 2>&1 && fail "stddiag pull accepted"
expect_in "$T/p4" "pull: PMIX_ERR_NOT_SUPPORTED"
run_to 30 "$ATT" pull "nosuchjob@9" "$T/x" copy >"$T/p4" 2>&1 && fail "pull of no job accepted"
expect_in "$T/p4" "pull: PMIX_ERR_NOT_FOUND"
run_to 30 "$ATT" pull "$ns" "$T/x" copy redirect >"$T/p4" 2>&1 && fail "copy+redirect accepted"
expect_in "$T/p4" "pull: PMIX_ERR_BAD_PARAM"
touch "$T/f.2"
wait $prun || fail "phases job: $(cat "$T/err3")"
cat "$T/A" "$T/B" "$T/C" | cmp -s - "$T/out3" || fail "COPY: prun must get everything"
# PMIX_IOF_REDIRECT (the default): B goes to the tool only; C, after its deregistration,
# to prun again
rm -f "$T/f.1" "$T/f.2"
"$PRUN" $RR -n 1 "$ATT" phases "$T/f" $K >"$T/out5" 2>"$T/err5" &
prun=$!
wait_for "$T/out5" "A$(printf '%062d' 99)"
ns=$(run_to 10 "$PPS" --dvm-uri "file:$T/uri" $RR | awk '/phases/ {print $1; exit}')
run_to 30 "$ATT" pull "$ns" "$T/redir" until=$((2 * K)) >"$T/p5" 2>&1 &
p5=$!
wait_for "$T/p5" "pulled"
touch "$T/f.1"
wait $p5 || fail "redirecting pull: $(cat "$T/p5")"
expect_in "$T/p5" "deregistered: PMIX_SUCCESS"
cat "$T/A" "$T/B" | cmp -s - "$T/redir" || fail "redirect: A then B expected: $(head -c 300 "$T/redir")"
touch "$T/f.2"
wait $prun || fail "phases job: $(cat "$T/err5")"
cat "$T/A" "$T/C" | cmp -s - "$T/out5" || fail "REDIRECT: prun must get A and C only: $(cut -c1 "$T/out5" | uniq -c)"

# ---- a pull's formatting and aggregation (the tool's library does them)
rm -f "$T/f.1" "$T/f.2"
"$PRUN" $RR -n 1 "$ATT" phases "$T/f" $K >"$T/out6" 2>"$T/err6" &
prun=$!
wait_for "$T/out6" "A$(printf '%062d' 99)"
ns=$(run_to 10 "$PPS" --dvm-uri "file:$T/uri" $RR | awk '/phases/ {print $1; exit}')
run_to 30 "$ATT" pull "$ns" "$T/tag" copy tag lines=100 >"$T/p6" 2>&1 || fail "tag: $(cat "$T/p6")"
sed "s/^/[$ns,0]<stdout>: /" "$T/A" | cmp -s - "$T/tag" || fail "tag: $(head -2 "$T/tag")"
run_to 30 "$ATT" pull "$ns" "$T/xml" copy xml lines=100 >"$T/p6" 2>&1 || fail "xml: $(cat "$T/p6")"
sed "s|^\(.*\)$|<stdout nspace=\"$ns\" rank=\"0\">\1</stdout>|" "$T/A" | cmp -s - "$T/xml" ||
    fail "xml: $(head -2 "$T/xml")"
run_to 30 "$ATT" pull "$ns" "$T/ts" copy ts rank lines=100 >"$T/p6" 2>&1 || fail "ts: $(cat "$T/p6")"
[ "$(grep -cE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\.[0-9]{6} \[0\]<stdout>: A[0-9]{62}$' "$T/ts")" = 100 ] ||
    fail "timestamp + rank: $(head -2 "$T/ts")"
# aggregation: the tagged lines (two pieces each) reach the callback in chunks of at
# least 4096 bytes; the rest after at most a second (PMIX_IOF_BUFFERING_TIME)
run_to 30 "$ATT" pull "$ns" "$T/agg" copy tag bsize=4096 btime=1 lines=100 >"$T/p6" 2>&1 ||
    fail "bsize: $(cat "$T/p6")"
cmp -s "$T/tag" "$T/agg" || fail "aggregated output differs"
[ "$(head -n -1 "$T/agg.sizes" | awk '$1 < 4096' | wc -l)" = 0 ] && [ "$(wc -l <"$T/agg.sizes")" -le 3 ] ||
    fail "PMIX_IOF_BUFFERING_SIZE 4096: chunks $(tr '\n' ' ' <"$T/agg.sizes")"
run_to 30 "$ATT" pull "$ns" "$T/agt" copy bsize=1000000 btime=1 lines=100 >"$T/p6" 2>&1 ||
    fail "btime: $(cat "$T/p6")"
cmp -s "$T/A" "$T/agt" || fail "PMIX_IOF_BUFFERING_TIME: $(head -c 200 "$T/agt")"
run_to 30 "$ATT" pull "$ns" "$T/x" copy newest oldest >"$T/p6" 2>&1 && fail "both drop policies accepted"
expect_in "$T/p6" "pull: PMIX_ERR_BAD_PARAM"
touch "$T/f.1" "$T/f.2"
wait $prun || fail "phases job: $(cat "$T/err6")"

# ---- stdin for tools
run_to 30 "$ATT" stdin 2 all push:all:hello close:all >"$T/i1" 2>"$T/i1.err" ||
    fail "PMIX_FWD_STDIN all: $(cat "$T/i1" "$T/i1.err")"
[ "$(grep -c '^hello$' "$T/i1")" = 2 ] || fail "both ranks must echo: $(cat "$T/i1" "$T/i1.err")"
expect_in "$T/i1.err" "push all: PMIX_SUCCESS"
run_to 30 "$ATT" stdin 2 1 push:0:zero push:1:one close:1 >"$T/i2" 2>"$T/i2.err" ||
    fail "PMIX_FWD_STDIN 1: $(cat "$T/i2" "$T/i2.err")"
expect_in "$T/i2.err" "push 0: PMIX_ERR_NOT_SUPPORTED"
expect_in "$T/i2.err" "push 1: PMIX_SUCCESS"
[ "$(grep -v '^event' "$T/i2")" = one ] || fail "rank 1 only: $(cat "$T/i2")"
head -c 6000000 /dev/urandom | base64 >"$T/in"
run_to 60 "$ATT" stdin 1 0 own:0 <"$T/in" >"$T/i3" 2>"$T/i3.err" ||
    fail "PMIX_IOF_PUSH_STDIN: $(cat "$T/i3.err")"
expect_in "$T/i3.err" "own 0: PMIX_SUCCESS"
grep -v '^event' "$T/i3" | cmp -s - "$T/in" || fail "PMIX_IOF_PUSH_STDIN: the output differs from the input"
stop_dvm
wait

# ---- prterun's own job (its server is the only one left in our TMPDIR)
# PMIX_IOF_REDIRECT: B goes to the tool only; C, after its deregistration, is printed
rm -f "$T/f.1" "$T/f.2"
run_to 60 "$PRTERUN" $RR -n 1 "$ATT" phases "$T/f" $K >"$T/out9" 2>"$T/err9" &
prterun=$!
wait_for "$T/out9" "A$(printf '%062d' 99)"
ns=$(run_to 10 "$PPS" $RR | awk '/phases/ {print $1; exit}')
run_to 30 "$ATT" pull "$ns" "$T/take" until=$K >"$T/p9" 2>&1 &
p9=$!
wait_for "$T/p9" "pulled"
touch "$T/f.1"
wait $p9 || fail "redirecting pull of prterun's job: $(cat "$T/p9")"
expect_in "$T/p9" "deregistered: PMIX_SUCCESS"
cmp -s "$T/B" "$T/take" || fail "PMIX_IOF_REDIRECT of prterun's job: B expected: $(head -c 200 "$T/take")"
touch "$T/f.2"
wait $prterun || fail "prterun: $(cat "$T/err9")"
cat "$T/A" "$T/C" | cmp -s - "$T/out9" ||
    fail "REDIRECT: prterun must print A and C only: $(cut -c1 "$T/out9" | uniq -c)"
# PMIX_IOF_COPY: the tool gets B, prterun prints everything
rm -f "$T/f.1" "$T/f.2"
run_to 60 "$PRTERUN" $RR -n 1 "$ATT" phases "$T/f" $K >"$T/out7" 2>"$T/err7" &
prterun=$!
wait_for "$T/out7" "A$(printf '%062d' 99)"
ns=$(run_to 10 "$PPS" $RR | awk '/phases/ {print $1; exit}')
run_to 30 "$ATT" pull "$ns" "$T/tap" copy until=$K >"$T/p7" 2>&1 &
p7=$!
wait_for "$T/p7" "pulled"
touch "$T/f.1"
wait $p7 || fail "tap of prterun's job: $(cat "$T/p7")"
cmp -s "$T/B" "$T/tap" || fail "PMIX_IOF_COPY of prterun's job: B expected: $(head -c 200 "$T/tap")"
touch "$T/f.2"
wait $prterun || fail "prterun: $(cat "$T/err7")"
cat "$T/A" "$T/B" "$T/C" | cmp -s - "$T/out7" || fail "prterun must print everything"
rm -f "$T/go2"
"$PRTERUN" $RR -n 1 "$ATT" writeafter "$T/go2" $N "$T/go3" >"$T/out8" 2>"$T/err8" &
prterun=$!
pps8() { run_to 10 "$PPS" $RR >"$T/pps8" 2>&1 && grep -q writeafter "$T/pps8"; }
poll_until pps8 || fail "prterun's job not listed: $(cat "$T/pps8")"
ns=$(awk '/writeafter/ {print $1; exit}' "$T/pps8")
"$ATT" pull "$ns" "$T/tap8" copy >"$T/p8" 2>&1 &
p8=$!
wait_for "$T/p8" "pulled"
kill -STOP $p8
touch "$T/go2"
printed() { [ "$(stat -c %s "$T/out8")" = $N ]; }
poll_until printed || { kill -CONT $p8; fail "prterun stalled behind a tap that stopped reading"; }
kill -CONT $p8
wait_for "$T/p8" "iof failure: Output forwarding: you are not reading the stdout of $ns:0"
touch "$T/go3"
wait $prterun || fail "prterun: $(cat "$T/err8")"
[ "$(sha256sum <"$T/out8" | cut -d' ' -f1)" = "$want" ] || fail "prterun's output differs"
wait $p8 || fail "tap: $(cat "$T/p8")"
pass
