/*
 * pxc_common.c - helpers shared by the test clients. Callbacks from the library's thread
 * only touch pxc_cb_t under its mutex.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pxc_common.h"

const char *pxc_name = "pxc";
int pxc_rank = -1;

/* One write per message, so that lines of concurrent ranks do not interleave. */
static void vprint(const char *fmt, va_list ap)
{
    char line[2048];
    int len;

    if (pxc_rank >= 0)
        len = snprintf(line, sizeof(line), "%s: rank %d: ", pxc_name, pxc_rank);
    else
        len = snprintf(line, sizeof(line), "%s: pid %d: ", pxc_name, (int)getpid());
    len += vsnprintf(line + len, sizeof(line) - (size_t)len - 1, fmt, ap);
    if (len > (int)sizeof(line) - 2)
        len = (int)sizeof(line) - 2;
    line[len++] = '\n';
    if (write(2, line, (size_t)len) < 0) {
        /* nowhere left to report it */
    }
}

void pxc_fail(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vprint(fmt, ap);
    va_end(ap);
    exit(1);
}

void pxc_note(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vprint(fmt, ap);
    va_end(ap);
}

double pxc_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int pxc_node_count(int n, int k, int node)
{
    return n / k + (node < n % k ? 1 : 0);
}

int pxc_node_start(int n, int k, int node)
{
    int s = 0;

    for (int i = 0; i < node; i++)
        s += pxc_node_count(n, k, i);
    return s;
}

int pxc_node_of(int n, int k, int rank)
{
    for (int i = 0; i < k; i++) {
        if (rank < pxc_node_start(n, k, i) + pxc_node_count(n, k, i))
            return i;
    }
    return -1;
}

void pxc_cb_init(pxc_cb_t *cb)
{
    memset(cb, 0, sizeof(*cb));
    pthread_mutex_init(&cb->lock, NULL);
    pthread_cond_init(&cb->cond, NULL);
    cb->status = PMIX_ERR_TIMEOUT;
}

void pxc_cb_mark(pxc_cb_t *cb, pmix_status_t status)
{
    pthread_mutex_lock(&cb->lock);
    cb->calls++;
    cb->status = status;
    pthread_cond_broadcast(&cb->cond);
    pthread_mutex_unlock(&cb->lock);
}

void pxc_cb_op(pmix_status_t status, void *cbdata)
{
    pxc_cb_mark(cbdata, status);
}

bool pxc_cb_wait(pxc_cb_t *cb, double secs)
{
    struct timespec ts;
    bool done;

    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)secs;
    ts.tv_nsec += (long)((secs - (double)(time_t)secs) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&cb->lock);
    while (cb->calls == 0) {
        if (pthread_cond_timedwait(&cb->cond, &cb->lock, &ts) == ETIMEDOUT)
            break;
    }
    done = cb->calls > 0;
    pthread_mutex_unlock(&cb->lock);
    return done;
}

void pxc_init(pmix_proc_t *proc, int *size)
{
    pmix_status_t rc = PMIx_Init(proc, NULL, 0);

    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Init failed: %s", PMIx_Error_string(rc));
    pxc_rank = (int)proc->rank;
    if (size)
        *size = (int)pxc_get_job_u32(proc, PMIX_JOB_SIZE);
}

uint32_t pxc_get_job_u32(const pmix_proc_t *me, const char *key)
{
    pmix_proc_t wild;
    pmix_value_t *val = NULL;
    pmix_status_t rc;
    uint32_t v;

    PMIx_Load_procid(&wild, me->nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&wild, key, NULL, 0, &val);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Get(%s, rank WILDCARD) failed: %s", key, PMIx_Error_string(rc));
    if (val->type != PMIX_UINT32)
        pxc_fail("PMIx_Get(%s, rank WILDCARD): expected type PMIX_UINT32, got %s", key,
                 PMIx_Data_type_string(val->type));
    v = val->data.uint32;
    PMIx_Value_free(val, 1);
    return v;
}

void pxc_exchange(const pmix_proc_t *me, const int *members, int n)
{
    pmix_proc_t *procs = calloc((size_t)n, sizeof(pmix_proc_t));
    pmix_info_t info;
    pmix_value_t val, *got = NULL;
    pmix_status_t rc;
    bool collect = true;
    char key[64];

    snprintf(key, sizeof(key), "xchg.%u", me->rank);
    val.type = PMIX_UINT64;
    val.data.uint64 = 1000003ULL * me->rank + 17;
    rc = PMIx_Put(PMIX_GLOBAL, key, &val);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Put(%s) failed: %s", key, PMIx_Error_string(rc));
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Commit failed: %s", PMIx_Error_string(rc));
    for (int i = 0; i < n; i++)
        PMIx_Load_procid(&procs[i], me->nspace, (pmix_rank_t)members[i]);
    PMIx_Info_load(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(procs, (size_t)n, &info, 1);
    PMIx_Info_destruct(&info);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Fence over %d ranks (collect data) failed: %s", n, PMIx_Error_string(rc));
    for (int i = 0; i < n; i++) {
        snprintf(key, sizeof(key), "xchg.%d", members[i]);
        rc = PMIx_Get(&procs[i], key, NULL, 0, &got);
        if (rc != PMIX_SUCCESS)
            pxc_fail("PMIx_Get(%s) from rank %d failed: %s", key, members[i],
                     PMIx_Error_string(rc));
        if (got->type != PMIX_UINT64 || got->data.uint64 != 1000003ULL * members[i] + 17)
            pxc_fail("PMIx_Get(%s) from rank %d: expected PMIX_UINT64 %llu, got %s", key,
                     members[i], 1000003ULL * members[i] + 17,
                     PMIx_Value_string(got) ? PMIx_Value_string(got) : "?");
        PMIx_Value_free(got, 1);
    }
    free(procs);
}

int pxc_parse_int(const char *opt, const char *s)
{
    char *end;
    long v;

    errno = 0;
    v = s ? strtol(s, &end, 10) : 0;
    if (!s || errno || *end || end == s || v < 0 || v > 1000000) {
        fprintf(stderr, "%s: %s needs a non-negative number (got \"%s\")\n", pxc_name, opt,
                s ? s : "");
        exit(2);
    }
    return (int)v;
}
