/* Unit tests of launcher/job_state.c, the table of a job's states: every move the
 * controller makes is allowed, every other one is refused, ENDED is final, names. */
#include <criterion/criterion.h>
#include <string.h>

#include "launcher/px_job_state.h"

/* The moves docs/ARCHITECTURE.md draws, and only these. */
static const struct {
    px_job_state_t from, to;
} moves[] = {
    {PX_JOB_INIT, PX_JOB_SETUP},          {PX_JOB_INIT, PX_JOB_ENDED},
    {PX_JOB_SETUP, PX_JOB_LAUNCHING},     {PX_JOB_SETUP, PX_JOB_ENDED},
    {PX_JOB_LAUNCHING, PX_JOB_RUNNING},   {PX_JOB_LAUNCHING, PX_JOB_TERMINATING},
    {PX_JOB_RUNNING, PX_JOB_TERMINATING}, {PX_JOB_RUNNING, PX_JOB_ENDED},
    {PX_JOB_RUNNING, PX_JOB_HELD},        {PX_JOB_HELD, PX_JOB_RUNNING},
    {PX_JOB_HELD, PX_JOB_TERMINATING},    {PX_JOB_HELD, PX_JOB_ENDED},
    {PX_JOB_TERMINATING, PX_JOB_ENDED},
};

static bool drawn(px_job_state_t from, px_job_state_t to)
{
    for (size_t i = 0; i < sizeof(moves) / sizeof(moves[0]); i++) {
        if (moves[i].from == from && moves[i].to == to) {
            return true;
        }
    }
    return false;
}

Test(job_state, allowed_moves)
{
    for (size_t i = 0; i < sizeof(moves) / sizeof(moves[0]); i++) {
        cr_expect(px_job_state_allowed(moves[i].from, moves[i].to), "%s -> %s refused",
                  px_job_state_name(moves[i].from), px_job_state_name(moves[i].to));
    }
}

Test(job_state, every_other_move_refused)
{
    for (int f = 0; f < PX_JOB_NSTATES; f++) {
        for (int t = 0; t < PX_JOB_NSTATES; t++) {
            if (!drawn(f, t)) {
                cr_expect(!px_job_state_allowed(f, t), "%s -> %s allowed", px_job_state_name(f),
                          px_job_state_name(t));
            }
        }
    }
}

Test(job_state, no_stay_no_way_back)
{
    for (int s = 0; s < PX_JOB_NSTATES; s++) {
        cr_expect(!px_job_state_allowed(s, s), "%s -> itself allowed", px_job_state_name(s));
        cr_expect(!px_job_state_allowed(s, PX_JOB_INIT));
        cr_expect(!px_job_state_allowed(PX_JOB_ENDED, s), "ENDED -> %s allowed",
                  px_job_state_name(s));
    }
    /* a job is never launched twice: no way back to RUNNING once ending */
    cr_expect(!px_job_state_allowed(PX_JOB_TERMINATING, PX_JOB_RUNNING));
    /* a launch is settled before the job can end: LAUNCHING never ends directly */
    cr_expect(!px_job_state_allowed(PX_JOB_LAUNCHING, PX_JOB_ENDED));
    /* held only once launched (the spawn answered), never while ending */
    cr_expect(!px_job_state_allowed(PX_JOB_LAUNCHING, PX_JOB_HELD));
    cr_expect(!px_job_state_allowed(PX_JOB_TERMINATING, PX_JOB_HELD));
}

Test(job_state, out_of_range)
{
    cr_expect(!px_job_state_allowed(PX_JOB_NSTATES, PX_JOB_ENDED));
    cr_expect(!px_job_state_allowed(PX_JOB_INIT, (px_job_state_t)99));
    cr_expect_str_eq(px_job_state_name((px_job_state_t)99), "?");
}

Test(job_state, names)
{
    cr_expect_str_eq(px_job_state_name(PX_JOB_INIT), "init");
    cr_expect_str_eq(px_job_state_name(PX_JOB_RUNNING), "running");
    cr_expect_str_eq(px_job_state_name(PX_JOB_HELD), "held");
    cr_expect_str_eq(px_job_state_name(PX_JOB_ENDED), "ended");
    for (int s = 0; s < PX_JOB_NSTATES; s++) {
        cr_expect(strcmp(px_job_state_name(s), "?") != 0, "state %d has no name", s);
    }
}
