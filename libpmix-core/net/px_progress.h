/* net: the progress engine (a libevent event_base, run on its own thread or owned by the
 * host), the thread-shift primitive that moves work onto that loop, and a latch used to
 * wait for work done there. Everything in net/ that touches an engine's state runs on
 * its loop thread; px_progress_shift is the only way in from other threads.
 */
#ifndef PX_PROGRESS_H
#define PX_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>

#include <pmix_common.h>

struct event_base;

/* ---- latch: a count-down latch on a mutex + condvar (never spins) ---- */

typedef struct px_latch {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    unsigned count; /* releases still expected */
} px_latch_t;

/* Expect count releases (0: already open). 0 / -1 with errno. */
int px_latch_init(px_latch_t *l, unsigned count);
void px_latch_fini(px_latch_t *l);
/* One release; extra releases past zero are ignored. Any thread. */
void px_latch_release(px_latch_t *l);
/* Block until the count reaches zero: 0, or -1 with errno ETIMEDOUT after timeout_ms
 * (timeout_ms < 0: no bound). */
int px_latch_wait(px_latch_t *l, int timeout_ms);

/* ---- progress engine ---- */

typedef struct px_progress px_progress_t;
typedef void (*px_progress_fn_t)(void *arg);

/* host_base NULL: a new event_base, run by px_progress_start on a thread of ours.
 * host_base given: borrowed, the host runs its loop (it must have been created after
 * evthread_use_pthreads(), which this call also makes sure of). NULL + errno on failure. */
px_progress_t *px_progress_create(struct event_base *host_base);
/* Start the loop thread (own base only; a no-op for a host base). 0 / -1 + errno. */
int px_progress_start(px_progress_t *p);
/* Stop and join the loop thread; work already shifted runs first. Not from the loop
 * thread (EDEADLK). 0 / -1 + errno. */
int px_progress_stop(px_progress_t *p);
/* Stop if running, then free; shifted work that never ran is dropped. Accepts NULL. */
void px_progress_destroy(px_progress_t *p);

struct event_base *px_progress_base(px_progress_t *p);
/* True when the caller is the engine's own loop thread (always false for a host base). */
bool px_progress_on_loop(const px_progress_t *p);

/* Run fn(arg) on the loop thread, in call order, never inside this call: even from the
 * loop thread itself it runs only after the current callback returns. Any thread.
 * 0 / -1 + errno (ENOMEM; ESHUTDOWN after px_progress_destroy has begun). */
int px_progress_shift(px_progress_t *p, px_progress_fn_t fn, void *arg);

/* px_progress_shift, then block until fn has returned. Not from the loop thread
 * (EDEADLK). After timeout_ms (< 0: no bound) returns -1/ETIMEDOUT; fn may still run
 * later then, so arg must stay valid (tests treat that as a failure). */
int px_progress_shift_wait(px_progress_t *p, px_progress_fn_t fn, void *arg, int timeout_ms);

/* The Standard's "success => callback exactly once, later" for an operation that is
 * already complete: cb(status, cbdata) runs on the loop thread through
 * px_progress_shift (so: in call order with other shifts, never inside this call).
 * cb NULL: nothing to deliver, returns status. Otherwise PMIX_SUCCESS, or
 * PMIX_ERR_NOMEM / PMIX_ERR_OUT_OF_RESOURCE (engine shutting down) and cb never runs:
 * the caller still owns cbdata. It returns a pmix_status_t (unlike the rest of this
 * file) because every caller hands that result straight back through the API. */
pmix_status_t px_progress_op_later(px_progress_t *p, pmix_op_cbfunc_t cb, void *cbdata,
                                   pmix_status_t status);

#endif /* PX_PROGRESS_H */
