/* mt_client: a PMIx client that calls the API from several threads at once (started by
 * test/host/pxhost). Each of T threads: Gets job- and proc-level keys, Puts its own
 * keys; rank-wide Commit + Fence(collect); then every thread Gets every peer's keys
 * (blocking and _nb, caches and fetches racing), while one thread also runs a Fence_nb
 * (no data) — each callback must come exactly once. Exit 0 when every check holds.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define NTHREADS 8
#define ROUNDS   200

static pmix_proc_t me;
static uint32_t size;
static atomic_int failures;

static void fail(const char *what, const char *key, pmix_status_t rc)
{
    fprintf(stderr, "mt_client: rank %u: %s %s: %s\n", me.rank, what, key ? key : "",
            PMIx_Error_string(rc));
    atomic_fetch_add(&failures, 1);
}

static void *phase1(void *arg)
{
    int t = (int)(intptr_t)arg;
    pmix_proc_t wild;
    PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
    for (int i = 0; i < ROUNDS; i++) {
        pmix_value_t *v = NULL;
        pmix_status_t rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
        if (rc != PMIX_SUCCESS || v->data.uint32 != size) {
            fail("Get", PMIX_JOB_SIZE, rc);
        }
        PMIx_Value_free(v, 1);
        v = NULL;
        rc = PMIx_Get(&me, PMIX_LOCAL_RANK, NULL, 0, &v);
        if (rc != PMIX_SUCCESS || v->type != PMIX_UINT16) {
            fail("Get", PMIX_LOCAL_RANK, rc);
        }
        PMIx_Value_free(v, 1);
    }
    char key[64];
    snprintf(key, sizeof(key), "mt.%u.%d", me.rank, t);
    pmix_value_t val;
    uint64_t x = (uint64_t)me.rank * 1000 + (uint64_t)t;
    PMIx_Value_load(&val, &x, PMIX_UINT64);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &val);
    if (rc != PMIX_SUCCESS) {
        fail("Put", key, rc);
    }
    PMIx_Value_destruct(&val);
    return NULL;
}

typedef struct {
    atomic_int calls;
    pmix_status_t status;
    uint64_t value;
} nbres_t;

static void get_cb(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    nbres_t *r = cbdata;
    r->status = status;
    if (status == PMIX_SUCCESS && kv != NULL) {
        r->value = kv->data.uint64;
    }
    atomic_fetch_add(&r->calls, 1);
}

static atomic_int fence_calls;
static pmix_status_t fence_status = PMIX_ERR_TIMEOUT;

static void fence_cb(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    fence_status = status;
    atomic_fetch_add(&fence_calls, 1);
}

static void *phase2(void *arg)
{
    int t = (int)(intptr_t)arg;
    if (t == 0) {
        pmix_status_t rc = PMIx_Fence_nb(NULL, 0, NULL, 0, fence_cb, NULL);
        if (rc != PMIX_SUCCESS) {
            fail("Fence_nb", NULL, rc);
            atomic_fetch_add(&fence_calls, 1);
        }
    }
    for (uint32_t r = 0; r < size; r++) {
        for (int u = 0; u < NTHREADS; u++) {
            char key[64];
            snprintf(key, sizeof(key), "mt.%u.%d", r, u);
            pmix_proc_t p;
            PMIx_Load_procid(&p, me.nspace, r);
            uint64_t want = (uint64_t)r * 1000 + (uint64_t)u;
            if ((r + (uint32_t)u + (uint32_t)t) % 2 == 0) {
                pmix_value_t *v = NULL;
                pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
                if (rc != PMIX_SUCCESS || v->data.uint64 != want) {
                    fail("Get", key, rc);
                }
                PMIx_Value_free(v, 1);
            } else {
                nbres_t res = {.status = PMIX_ERR_TIMEOUT};
                pmix_status_t rc = PMIx_Get_nb(&p, key, NULL, 0, get_cb, &res);
                if (rc != PMIX_SUCCESS) {
                    fail("Get_nb", key, rc);
                    continue;
                }
                for (int w = 0; w < 10000 && atomic_load(&res.calls) == 0; w++) {
                    usleep(1000);
                }
                usleep(1000); /* a second callback would show up now */
                if (atomic_load(&res.calls) != 1 || res.status != PMIX_SUCCESS ||
                    res.value != want) {
                    fprintf(stderr, "mt_client: rank %u: Get_nb %s: %d callbacks, %s\n", me.rank,
                            key, atomic_load(&res.calls), PMIx_Error_string(res.status));
                    atomic_fetch_add(&failures, 1);
                }
            }
        }
    }
    return NULL;
}

static void run(void *(*fn)(void *))
{
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        pthread_create(&th[t], NULL, fn, (void *)(intptr_t)t);
    }
    for (int t = 0; t < NTHREADS; t++) {
        pthread_join(th[t], NULL);
    }
}

int main(void)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "mt_client: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_proc_t wild;
    PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS) {
        fprintf(stderr, "mt_client: no job size\n");
        return 1;
    }
    size = v->data.uint32;
    PMIx_Value_free(v, 1);
    run(phase1);
    pmix_info_t collect;
    bool yes = true;
    PMIx_Info_construct(&collect);
    PMIx_Info_load(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS ||
        (rc = PMIx_Fence(NULL, 0, &collect, 1)) != PMIX_SUCCESS) {
        fail("Commit/Fence", NULL, rc);
    }
    PMIx_Info_destruct(&collect);
    run(phase2);
    for (int w = 0; w < 10000 && atomic_load(&fence_calls) == 0; w++) {
        usleep(1000);
    }
    usleep(2000);
    if (atomic_load(&fence_calls) != 1 || fence_status != PMIX_SUCCESS) {
        fprintf(stderr, "mt_client: rank %u: Fence_nb: %d callbacks, %s\n", me.rank,
                atomic_load(&fence_calls), PMIx_Error_string(fence_status));
        failures++;
    }
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fail("Finalize", NULL, rc);
    }
    if (failures == 0) {
        printf("mt_client: rank %u: %d threads ok\n", me.rank, NTHREADS);
    }
    return failures ? 1 : 0;
}
