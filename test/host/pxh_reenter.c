/*
 * pxh_reenter.c - pxhost --reenter: at the start of every upcall it implements, pxhost
 * has another thread call back into the library (register and deregister a scratch
 * namespace, PMIx_generate_regex, PMIx_Register_attributes, a PMIx_Notify_event of the
 * server's own range) and waits, bounded, until those calls returned. A library lock
 * held across the upcall blocks that thread: the wait times out and pxhost reports a
 * host error (exit 1) instead of hanging. Runs on whatever thread made the upcall.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pxh_node.h"

#define PXH_REENTER_MS 10000
/* a private code, raised in PMIX_RANGE_PROC_LOCAL: no client or host sees it */
#define PXH_REENTER_EVENT (PMIX_EXTERNAL_ERR_BASE - 77)

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
    int refs; /* the upcall and the thread */
    unsigned n;
} reenter_t;

static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static char *seen[64]; /* upcall names already reported */
static unsigned nreenter;
static __thread bool on_reenter_thread;

static void reenter_unref(reenter_t *r)
{
    pthread_mutex_lock(&r->lock);
    int left = --r->refs;
    pthread_mutex_unlock(&r->lock);
    if (left == 0) {
        pthread_cond_destroy(&r->cond);
        pthread_mutex_destroy(&r->lock);
        free(r);
    }
}

static void ignore_op(pmix_status_t status, void *cbdata)
{
    (void)status;
    (void)cbdata;
}

static void *reenter_main(void *arg)
{
    reenter_t *r = arg;
    char ns[PMIX_MAX_NSLEN + 1];
    char *regex = NULL;
    char fn[64], *attrs[] = {"pxh.reenter", NULL};
    pmix_status_t rc;

    on_reenter_thread = true;
    snprintf(ns, sizeof(ns), "pxh-reenter.%d.%u", pxh_node.id, r->n);
    rc = PMIx_server_register_nspace(ns, 0, NULL, 0, ignore_op, NULL);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED)
        pxh_host_error("reenter: PMIx_server_register_nspace: %s", PMIx_Error_string(rc));
    PMIx_server_deregister_nspace(ns, ignore_op, NULL);
    rc = PMIx_generate_regex("pxnode0,pxnode1", &regex);
    if (rc != PMIX_SUCCESS)
        pxh_host_error("reenter: PMIx_generate_regex: %s", PMIx_Error_string(rc));
    free(regex);
    snprintf(fn, sizeof(fn), "pxh_reenter_%u", r->n);
    PMIx_Register_attributes(fn, attrs);
    rc =
        PMIx_Notify_event(PXH_REENTER_EVENT, NULL, PMIX_RANGE_PROC_LOCAL, NULL, 0, ignore_op, NULL);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED)
        pxh_host_error("reenter: PMIx_Notify_event: %s", PMIx_Error_string(rc));
    pthread_mutex_lock(&r->lock);
    r->done = true;
    pthread_cond_signal(&r->cond);
    pthread_mutex_unlock(&r->lock);
    reenter_unref(r);
    return NULL;
}

/* Print "reentered from NAME" once per upcall name. */
static void report(const char *upcall)
{
    pthread_mutex_lock(&seen_lock);
    size_t i;
    for (i = 0; i < sizeof(seen) / sizeof(seen[0]) && seen[i] != NULL; i++) {
        if (strcmp(seen[i], upcall) == 0)
            break;
    }
    if (i < sizeof(seen) / sizeof(seen[0]) && seen[i] == NULL) {
        seen[i] = strdup(upcall);
        printf("pxhost: node %d: reentered the library from %s\n", pxh_node.id, upcall);
        fflush(stdout);
    }
    pthread_mutex_unlock(&seen_lock);
}

void pxh_reenter(const char *upcall)
{
    pthread_t t;
    struct timespec deadline;
    reenter_t *r;
    bool done;

    if (!pxh_opts.reenter || on_reenter_thread)
        return; /* an upcall the calls below caused: no cascade */
    r = calloc(1, sizeof(*r));
    if (r == NULL) {
        pxh_host_error("reenter: out of memory in %s", upcall);
        return;
    }
    pthread_mutex_init(&r->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r->cond, &ca);
    pthread_condattr_destroy(&ca);
    r->refs = 2;
    pthread_mutex_lock(&seen_lock);
    r->n = nreenter++;
    pthread_mutex_unlock(&seen_lock);
    if (pthread_create(&t, NULL, reenter_main, r) != 0) {
        pxh_host_error("reenter: cannot start a thread in %s", upcall);
        r->refs = 1;
        reenter_unref(r);
        return;
    }
    pthread_detach(t);
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += PXH_REENTER_MS / 1000;
    pthread_mutex_lock(&r->lock);
    while (!r->done) {
        if (pthread_cond_timedwait(&r->cond, &r->lock, &deadline) == ETIMEDOUT)
            break;
    }
    done = r->done;
    pthread_mutex_unlock(&r->lock);
    reenter_unref(r);
    if (!done) {
        /* the thread stays blocked until the library lets go of its lock */
        pxh_host_error("upcall %s: a call back into the library from another thread did not "
                       "return within %d ms (a library lock is held across the upcall)",
                       upcall, PXH_REENTER_MS);
        return;
    }
    report(upcall);
}
