/* launcher: the states of a job's life and the moves allowed between them. Pure data
 * (no loop, no PMIx): job.c's px_job_move checks each move here, logs it and does what
 * entering the state asks (the lifecycle events). Drawn in docs/ARCHITECTURE.md,
 * "A job's states".
 */
#ifndef PX_JOB_STATE_H
#define PX_JOB_STATE_H

#include <stdbool.h>

typedef enum {
    PX_JOB_INIT,        /* created: directives checked, mapped, requests checked */
    PX_JOB_SETUP,       /* waiting for PMIx_server_setup_application's answer */
    PX_JOB_LAUNCHING,   /* registered; processes forked, waiting for each exec (a failure
                         * or kill meanwhile is recorded in why and signalled at once; the
                         * job leaves this state only once every start is settled) */
    PX_JOB_RUNNING,     /* launched: spawn answered, JOB_START and LAUNCH_COMPLETE raised */
    PX_JOB_HELD,        /* every process a debugger's stop point names is held there
                         * (PMIX_DEBUG_STOP_*, job_debug.c): PMIX_READY_FOR_DEBUG raised;
                         * back to RUNNING once one is released or continued */
    PX_JOB_TERMINATING, /* being ended (first failure, timeout, kill): its processes are
                         * signalled; ends when none is left and no answer is pending */
    PX_JOB_ENDED,       /* the result was told (JOB_END raised); freed right after */
    PX_JOB_NSTATES
} px_job_state_t;

/* Its name for logs ("?" outside the enum). */
const char *px_job_state_name(px_job_state_t s);
/* Whether a job may move from -> to (the table in job_state.c). */
bool px_job_state_allowed(px_job_state_t from, px_job_state_t to);

#endif /* PX_JOB_STATE_H */
