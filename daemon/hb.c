/* daemon: heartbeats, the silence detector of a controller-daemon connection (px_hb.h).
 * One persistent libevent timer; CLOCK_MONOTONIC times in ms. Loop thread only.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/px_hb.h"

typedef struct {
    bool watched;
    double heard; /* ms */
} hb_peer_t;

struct px_hb {
    px_hb_opts_t o;
    struct event *timer;
    hb_peer_t *peers; /* owned, by id */
    size_t npeers;
    double last_tick; /* ms */
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    px_hb_t *hb = arg;
    double now = now_ms();
    /* this loop was held up for longer than half the timeout beyond its interval: what
     * the peers sent meanwhile is unread, so none of them is blamed for it */
    if (now - hb->last_tick > hb->o.interval_ms + hb->o.timeout_ms / 2.0) {
        for (size_t i = 0; i < hb->npeers; i++) {
            hb->peers[i].heard = now;
        }
    }
    hb->last_tick = now;
    if (hb->o.tick != NULL) {
        hb->o.tick(hb->o.arg);
    }
    /* silent() may grow the table: index it afresh each time */
    for (size_t i = 0; i < hb->npeers; i++) {
        double quiet = now - hb->peers[i].heard;
        if (hb->peers[i].watched && quiet > hb->o.timeout_ms) {
            hb->peers[i].watched = false;
            hb->o.silent((unsigned)i, quiet, hb->o.arg);
        }
    }
}

px_hb_t *px_hb_create(struct event_base *base, const px_hb_opts_t *o)
{
    if (o->interval_ms == 0 || o->timeout_ms == 0 || o->silent == NULL) {
        errno = EINVAL;
        return NULL;
    }
    px_hb_t *hb = calloc(1, sizeof(*hb));
    if (hb == NULL) {
        return NULL;
    }
    hb->o = *o;
    hb->last_tick = now_ms();
    struct timeval tv = {o->interval_ms / 1000, (o->interval_ms % 1000) * 1000};
    hb->timer = event_new(base, -1, EV_PERSIST, on_tick, hb);
    if (hb->timer == NULL || event_add(hb->timer, &tv) != 0) {
        px_hb_destroy(hb);
        errno = ENOMEM;
        return NULL;
    }
    return hb;
}

int px_hb_heard(px_hb_t *hb, unsigned id)
{
    if (hb == NULL) {
        return 0;
    }
    if (id >= hb->npeers) {
        size_t n = hb->npeers ? hb->npeers : 8;
        while (n <= id) {
            n *= 2;
        }
        hb_peer_t *p = realloc(hb->peers, n * sizeof(*p));
        if (p == NULL) {
            errno = ENOMEM;
            return -1;
        }
        memset(p + hb->npeers, 0, (n - hb->npeers) * sizeof(*p));
        hb->peers = p;
        hb->npeers = n;
    }
    hb->peers[id].watched = true;
    hb->peers[id].heard = now_ms();
    return 0;
}

void px_hb_forget(px_hb_t *hb, unsigned id)
{
    if (hb != NULL && id < hb->npeers) {
        hb->peers[id].watched = false;
    }
}

void px_hb_destroy(px_hb_t *hb)
{
    if (hb == NULL) {
        return;
    }
    if (hb->timer != NULL) {
        event_free(hb->timer);
    }
    free(hb->peers);
    free(hb);
}

static int parse_ms(const char *s, char **end, unsigned *v)
{
    if (*s < '0' || *s > '9') {
        return -1;
    }
    errno = 0;
    unsigned long x = strtoul(s, end, 10);
    if (errno != 0 || x == 0 || x >= 10000000) {
        return -1;
    }
    *v = (unsigned)x;
    return 0;
}

int px_hb_parse(const char *s, px_hb_opts_t *o)
{
    char *end = NULL;
    unsigned i = 0, t = 0;
    if (parse_ms(s, &end, &i) != 0 || *end != ':' || parse_ms(end + 1, &end, &t) != 0 ||
        *end != '\0') {
        return -1;
    }
    o->interval_ms = i;
    o->timeout_ms = t;
    return 0;
}
