#!/usr/bin/env bash
# Never silently ignore a directive: PMIx_Init / PMIx_tool_init refuse a required one
# they do not act on; the DVM refuses a spawn carrying a required directive it does not
# honour (job or app level) and every debugger attribute it does not support yet, naming
# it (the stop points are supported: t_stop.sh); it answers
# PMIX_QUERY_SPAWN_SUPPORT from the table its job-info reader uses.
. "$(dirname "$0")/lib.sh"
start_dvm
run_to 30 "$PRUN" $RR -n 1 "$APP" initreqd >"$T/init" 2>&1 || fail "initreqd: $(cat "$T/init")"
expect_in "$T/init" "init required model: PMIX_ERR_NOT_SUPPORTED"
expect_in "$T/init" "PMIx_Init: the directive pmix.pgm.model is marked required"
run_to 60 "$APP" toolreqd >"$T/out" 2>&1 || fail "toolreqd: $(cat "$T/out")"
expect_in "$T/out" "tool_init required model: PMIX_ERR_NOT_SUPPORTED"
expect_in "$T/out" "PMIx_tool_init: the directive pmix.pgm.model is marked required"
# the support list is the reader's table: output, mapping, pset and stop-point keys; no
# other debugger keys
sup=$(sed -n 's/^support=//p' "$T/out" | tr ',' '\n')
for k in pmix.mapby pmix.rankby pmix.bindto pmix.cpuperproc pmix.iof.rank pmix.iof.file \
    pmix.iof.xml pmix.pset.nm pmix.stdin pmix.nohup pmix.notecomp pmix.note.jev \
    pmix.fwd.stdout pmix.dbg.exec pmix.dbg.init pmix.dbg.notify pmix.spwn.tool; do
    grep -qx "$k" <<<"$sup" || fail "spawn support lacks $k: $sup"
done
for k in pmix.wdir; do
    grep -qx "$k" <<<"$sup" && fail "spawn support lists $k, which the DVM does not honour"
done
expect_in "$T/out" "optional max-restarts: PMIX_SUCCESS"
expect_in "$T/out" "required max-restarts: PMIX_ERR_NOT_SUPPORTED"
expect_in "$T/out" "required app max-restarts: PMIX_ERR_NOT_SUPPORTED"
expect_in "$T/out" "requires pmix.maxrestarts (marked PMIX_INFO_REQD)"
expect_in "$T/out" "required notify-completion: PMIX_SUCCESS"
# debugger daemons are honoured (job_dbgd.c, t_debug_daemons.sh): listed, and refused
# only for what a request gets wrong (daemons with no target, a target with no daemons)
for k in pmix.debugger pmix.cospawn pmix.dbg.tgt pmix.dbg.job pmix.dbg.dpnd pmix.dbg.dpproc; do
    grep -qx "$k" <<<"$sup" || fail "spawn support lacks $k: $sup"
done
expect_in "$T/out" "debugger pmix.debugger: PMIX_ERR_BAD_PARAM"
expect_in "$T/out" "its apps are debugger daemons (PMIX_DEBUGGER_DAEMONS or"
expect_in "$T/out" "debugger pmix.dbg.tgt: PMIX_ERR_BAD_PARAM"
expect_in "$T/out" "gives pmix.dbg.tgt, which only applies to debugger"
# the agents are honoured (t_debug_agents.sh): /bin/env as an exec agent runs the job's
# /bin/true; as a fork/exec agent it never connects back, a start failure naming it
for k in pmix.fe.agnt pmix.exec.agnt; do
    grep -qx "$k" <<<"$sup" || fail "spawn support lacks $k: $sup"
done
expect_in "$T/out" "debugger pmix.exec.agnt: PMIX_SUCCESS"
expect_in "$T/out" "debugger pmix.fe.agnt: PMIX_ERR_JOB_FAILED_TO_LAUNCH"
expect_in "$T/out" "The fork/exec agent \"/bin/env\" of rank 0 of job"
# nothing of the refused jobs runs; the DVM still works
run_to 30 "$PRUN" $RR -n 2 "$APP" hello >"$T/hello" 2>&1 || fail "hello after refusals: $(cat "$T/hello")"
stop_dvm
pass
