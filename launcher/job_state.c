/* launcher: the job state table — names and allowed moves (px_job_state.h). Pure data,
 * callable from any thread; unit test test/unit/test_job_state.c.
 */
#include "launcher/px_job_state.h"

static const char *const names[PX_JOB_NSTATES] = {
    [PX_JOB_INIT] = "init",       [PX_JOB_SETUP] = "setup", [PX_JOB_LAUNCHING] = "launching",
    [PX_JOB_RUNNING] = "running", [PX_JOB_HELD] = "held",   [PX_JOB_TERMINATING] = "terminating",
    [PX_JOB_ENDED] = "ended",
};

/* allowed[from] is the set of states reachable in one move, as bits */
#define B(s) (1u << (s))
static const unsigned allowed[PX_JOB_NSTATES] = {
    /* INIT: set up, or ended (could not be checked, mapped or set up) */
    [PX_JOB_INIT] = B(PX_JOB_SETUP) | B(PX_JOB_ENDED),
    /* SETUP: launch, or ended (could not be registered or given its psets, or killed
     * while waiting: the kill is recorded and the job ends once the answer is in) */
    [PX_JOB_SETUP] = B(PX_JOB_LAUNCHING) | B(PX_JOB_ENDED),
    /* LAUNCHING: every start settled and none failed, or a start failed */
    [PX_JOB_LAUNCHING] = B(PX_JOB_RUNNING) | B(PX_JOB_TERMINATING),
    /* RUNNING: every target at its stop point (once), a failure or kill, or every
     * process ended well */
    [PX_JOB_RUNNING] = B(PX_JOB_HELD) | B(PX_JOB_TERMINATING) | B(PX_JOB_ENDED),
    /* HELD: a target released or continued, a failure or kill, or every process ended
     * well (released in a way the DVM does not see, e.g. by a debugger's ptrace) */
    [PX_JOB_HELD] = B(PX_JOB_RUNNING) | B(PX_JOB_TERMINATING) | B(PX_JOB_ENDED),
    /* TERMINATING: nothing left */
    [PX_JOB_TERMINATING] = B(PX_JOB_ENDED),
    /* ENDED: final */
    [PX_JOB_ENDED] = 0,
};
#undef B

const char *px_job_state_name(px_job_state_t s)
{
    return (unsigned)s < PX_JOB_NSTATES ? names[s] : "?";
}

bool px_job_state_allowed(px_job_state_t from, px_job_state_t to)
{
    if ((unsigned)from >= PX_JOB_NSTATES || (unsigned)to >= PX_JOB_NSTATES) {
        return false;
    }
    return (allowed[from] & (1u << to)) != 0;
}
