/* net: progress engine and thread-shift. px_progress_shift runs on any thread (it only
 * queues under a mutex and activates a user event); the queued functions and the loop
 * itself run on the engine's loop thread (ours, or the host's for a host base).
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "net/px_progress.h"

typedef struct px_shift_item {
    struct px_shift_item *next;
    px_progress_fn_t fn;
    void *arg; /* borrowed */
} px_shift_item_t;

struct px_progress {
    struct event_base *base; /* owned unless host */
    bool host;
    struct event *wake; /* owned: user event that drains the shift queue */
    pthread_t thread;
    bool running;
    pthread_mutex_t lock; /* guards the queue and closed */
    px_shift_item_t *head, *tail;
    bool closed;
};

static pthread_once_t px_progress_once = PTHREAD_ONCE_INIT;
static int px_progress_evthread_rc;

static void px_progress_init_evthread(void)
{
    px_progress_evthread_rc = evthread_use_pthreads();
}

/* ---- latch ---- */

int px_latch_init(px_latch_t *l, unsigned count)
{
    pthread_condattr_t attr;
    int rc;

    l->count = count;
    rc = pthread_mutex_init(&l->lock, NULL);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    rc = pthread_cond_init(&l->cond, &attr);
    pthread_condattr_destroy(&attr);
    if (rc != 0) {
        pthread_mutex_destroy(&l->lock);
        errno = rc;
        return -1;
    }
    return 0;
}

void px_latch_fini(px_latch_t *l)
{
    pthread_cond_destroy(&l->cond);
    pthread_mutex_destroy(&l->lock);
}

void px_latch_release(px_latch_t *l)
{
    pthread_mutex_lock(&l->lock);
    if (l->count > 0 && --l->count == 0) {
        pthread_cond_broadcast(&l->cond);
    }
    pthread_mutex_unlock(&l->lock);
}

int px_latch_wait(px_latch_t *l, int timeout_ms)
{
    struct timespec deadline;
    int rc = 0;

    clock_gettime(CLOCK_MONOTONIC, &deadline);
    if (timeout_ms >= 0) {
        deadline.tv_sec += timeout_ms / 1000;
        deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
    }
    pthread_mutex_lock(&l->lock);
    while (l->count > 0 && rc == 0) {
        if (timeout_ms < 0) {
            rc = pthread_cond_wait(&l->cond, &l->lock);
        } else {
            rc = pthread_cond_timedwait(&l->cond, &l->lock, &deadline);
        }
    }
    pthread_mutex_unlock(&l->lock);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return 0;
}

/* ---- engine ---- */

/* Loop thread: run what was queued when this callback started; later shifts
 * re-activate the event, so they run after this callback returns. */
static void px_progress_drain(evutil_socket_t fd, short what, void *cbdata)
{
    px_progress_t *p = cbdata;
    px_shift_item_t *item;

    pthread_mutex_lock(&p->lock);
    item = p->head;
    p->head = p->tail = NULL;
    pthread_mutex_unlock(&p->lock);
    while (item != NULL) {
        px_shift_item_t *next = item->next;

        item->fn(item->arg);
        free(item);
        item = next;
    }
}

px_progress_t *px_progress_create(struct event_base *host_base)
{
    px_progress_t *p = NULL;

    pthread_once(&px_progress_once, px_progress_init_evthread);
    if (px_progress_evthread_rc != 0) {
        errno = ENOSYS;
        goto error;
    }
    p = calloc(1, sizeof(*p));
    if (p == NULL) {
        goto error;
    }
    pthread_mutex_init(&p->lock, NULL);
    p->host = host_base != NULL;
    p->base = p->host ? host_base : event_base_new();
    if (p->base == NULL) {
        errno = ENOMEM;
        goto error;
    }
    p->wake = event_new(p->base, -1, 0, px_progress_drain, p);
    if (p->wake == NULL) {
        errno = ENOMEM;
        goto error;
    }
    return p;

error:
    if (p != NULL) {
        int saved = errno;

        if (!p->host && p->base != NULL) {
            event_base_free(p->base);
        }
        pthread_mutex_destroy(&p->lock);
        free(p);
        errno = saved;
    }
    return NULL;
}

static void *px_progress_main(void *arg)
{
    px_progress_t *p = arg;

    event_base_loop(p->base, EVLOOP_NO_EXIT_ON_EMPTY);
    return NULL;
}

int px_progress_start(px_progress_t *p)
{
    int rc;

    if (p->host || p->running) {
        return 0;
    }
    rc = pthread_create(&p->thread, NULL, px_progress_main, p);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    p->running = true;
    return 0;
}

static void px_progress_break(void *arg)
{
    px_progress_t *p = arg;

    event_base_loopbreak(p->base);
}

int px_progress_stop(px_progress_t *p)
{
    if (p->host || !p->running) {
        return 0;
    }
    if (px_progress_on_loop(p)) {
        errno = EDEADLK;
        return -1;
    }
    /* Breaking through the queue (not event_base_loopbreak from here) cannot be lost
     * to a loop that has not started yet, and lets earlier shifts run first. */
    if (px_progress_shift(p, px_progress_break, p) != 0) {
        return -1;
    }
    pthread_join(p->thread, NULL);
    p->running = false;
    return 0;
}

void px_progress_destroy(px_progress_t *p)
{
    px_shift_item_t *item;

    if (p == NULL) {
        return;
    }
    px_progress_stop(p);
    pthread_mutex_lock(&p->lock);
    p->closed = true;
    item = p->head;
    p->head = p->tail = NULL;
    pthread_mutex_unlock(&p->lock);
    while (item != NULL) {
        px_shift_item_t *next = item->next;

        free(item);
        item = next;
    }
    event_free(p->wake);
    if (!p->host) {
        event_base_free(p->base);
    }
    pthread_mutex_destroy(&p->lock);
    free(p);
}

struct event_base *px_progress_base(px_progress_t *p)
{
    return p->base;
}

bool px_progress_on_loop(const px_progress_t *p)
{
    return p->running && pthread_equal(p->thread, pthread_self());
}

int px_progress_shift(px_progress_t *p, px_progress_fn_t fn, void *arg)
{
    px_shift_item_t *item = malloc(sizeof(*item));

    if (item == NULL) {
        return -1;
    }
    item->next = NULL;
    item->fn = fn;
    item->arg = arg;
    pthread_mutex_lock(&p->lock);
    if (p->closed) {
        pthread_mutex_unlock(&p->lock);
        free(item);
        errno = ESHUTDOWN;
        return -1;
    }
    if (p->tail != NULL) {
        p->tail->next = item;
    } else {
        p->head = item;
    }
    p->tail = item;
    /* Under the lock so that the drain cannot free p's queue between the append and
     * the activation; activating an already active event is a no-op. */
    event_active(p->wake, 0, 0);
    pthread_mutex_unlock(&p->lock);
    return 0;
}

typedef struct px_shift_wait {
    px_latch_t latch;
    px_progress_fn_t fn;
    void *arg;
    pthread_mutex_t lock;
    int refs; /* the waiter and the shifted call */
} px_shift_wait_t;

static void px_shift_wait_unref(px_shift_wait_t *w)
{
    int refs;

    pthread_mutex_lock(&w->lock);
    refs = --w->refs;
    pthread_mutex_unlock(&w->lock);
    if (refs == 0) {
        px_latch_fini(&w->latch);
        pthread_mutex_destroy(&w->lock);
        free(w);
    }
}

static void px_shift_wait_run(void *arg)
{
    px_shift_wait_t *w = arg;

    w->fn(w->arg);
    px_latch_release(&w->latch);
    px_shift_wait_unref(w);
}

int px_progress_shift_wait(px_progress_t *p, px_progress_fn_t fn, void *arg, int timeout_ms)
{
    px_shift_wait_t *w;
    int rc = -1;

    if (px_progress_on_loop(p)) {
        errno = EDEADLK;
        return -1;
    }
    w = calloc(1, sizeof(*w));
    if (w == NULL) {
        return -1;
    }
    if (px_latch_init(&w->latch, 1) != 0) {
        free(w);
        return -1;
    }
    pthread_mutex_init(&w->lock, NULL);
    w->fn = fn;
    w->arg = arg;
    w->refs = 2;
    if (px_progress_shift(p, px_shift_wait_run, w) != 0) {
        w->refs = 1;
        goto out;
    }
    rc = px_latch_wait(&w->latch, timeout_ms);

out : {
    int saved = errno;

    px_shift_wait_unref(w);
    errno = saved;
}
    return rc;
}

/* ---- deferred completion callbacks ---- */

typedef struct px_op_later {
    pmix_op_cbfunc_t cb;
    void *cbdata; /* borrowed: the caller's */
    pmix_status_t status;
} px_op_later_t;

static void px_op_later_run(void *arg)
{
    px_op_later_t *o = arg;

    o->cb(o->status, o->cbdata);
    free(o);
}

pmix_status_t px_progress_op_later(px_progress_t *p, pmix_op_cbfunc_t cb, void *cbdata,
                                   pmix_status_t status)
{
    px_op_later_t *o;

    if (cb == NULL) {
        return status;
    }
    o = malloc(sizeof(*o));
    if (o == NULL) {
        return PMIX_ERR_NOMEM;
    }
    o->cb = cb;
    o->cbdata = cbdata;
    o->status = status;
    if (px_progress_shift(p, px_op_later_run, o) != 0) {
        pmix_status_t rc = errno == ENOMEM ? PMIX_ERR_NOMEM : PMIX_ERR_OUT_OF_RESOURCE;

        free(o);
        return rc;
    }
    return PMIX_SUCCESS;
}
