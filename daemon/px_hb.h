/* daemon: heartbeats, the silence detector both ends of a controller-daemon connection
 * run (docs/PROTOCOL.md "HEARTBEAT"): every interval a tick (the controller pings its
 * daemons there), and each watched peer that gave no sign of life for the timeout is
 * reported once. A loop that itself did not run for a while (the process was stopped,
 * the machine overloaded) does not blame its peers for it: a late tick first counts
 * every watched peer as heard. Loop thread only.
 */
#ifndef PX_HB_H
#define PX_HB_H

#include <stddef.h>

#include <event2/event.h>

typedef struct px_hb px_hb_t;

typedef struct {
    unsigned interval_ms; /* > 0: how often tick runs and silence is checked */
    unsigned timeout_ms;  /* > 0: silence longer than this is reported */
    /* each interval, before the checks (may be NULL) */
    void (*tick)(void *arg);
    /* peer id was silent for silent_ms (>= timeout_ms); it is no longer watched. May
     * call px_hb_heard/px_hb_forget on any id. */
    void (*silent)(unsigned id, double silent_ms, void *arg);
    void *arg;
} px_hb_opts_t;

/* NULL + errno on failure. The timer runs from now on base's loop. */
px_hb_t *px_hb_create(struct event_base *base, const px_hb_opts_t *o);
/* A sign of life from id (any message); starts watching id if it was not. 0, or -1
 * with ENOMEM (id is then not watched). */
int px_hb_heard(px_hb_t *hb, unsigned id);
/* Stop watching id (it left, or was failed for another reason). */
void px_hb_forget(px_hb_t *hb, unsigned id);
/* Accepts NULL. */
void px_hb_destroy(px_hb_t *hb);

/* "I:T" (milliseconds, as prted's --heartbeat takes it) into *o's two fields: 0, or -1
 * when it is not two positive integers below 10^7 joined by ':'. */
int px_hb_parse(const char *s, px_hb_opts_t *o);

#endif /* PX_HB_H */
