/* bench_fence - the client bench_ssh_scale.py launches with prun -n N across nodes: times
 * PMIx_Fence over the whole job, as a barrier and with data. Runs on the client's main thread.
 *
 *   bench_fence [ITERS [SIZE...]]      (defaults: 20 iterations; sizes 0 64 1024 16384)
 *
 * SIZE 0 is a barrier (no Put, no PMIX_COLLECT_DATA). Any other SIZE: each iteration every
 * rank puts a SIZE-byte value (PMIX_GLOBAL, the same key each time, so the stores stay at
 * one value per rank), commits and fences with PMIX_COLLECT_DATA; timed from before the
 * Put to after the Fence. Three rounds of ITERS, a barrier before each round; the median
 * round's mean per fence. After the last round every rank gets its neighbour's value and
 * checks its size and contents, so the data did cross. Rank 0 prints one line per SIZE:
 *   N=<n> size=<bytes> fence_us=<us>
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bench_common.h"

#define ROUNDS 3

static pmix_proc_t me;

static void check(pmix_status_t rc, const char *what)
{
    if (rc != PMIX_SUCCESS) {
        px_bench_fail("%s: %s", what, PMIx_Error_string(rc));
    }
}

/* One timed fence: with data (put, commit, collect) unless size is 0. */
static void fence_once(const pmix_proc_t *job, const char *key, char *bytes, size_t size)
{
    if (size == 0) {
        check(PMIx_Fence(job, 1, NULL, 0), "PMIx_Fence (barrier)");
        return;
    }
    pmix_value_t val = {.type = PMIX_BYTE_OBJECT};
    val.data.bo.bytes = bytes;
    val.data.bo.size = size;
    check(PMIx_Put(PMIX_GLOBAL, key, &val), "PMIx_Put");
    check(PMIx_Commit(), "PMIx_Commit");
    bool yes = true;
    pmix_info_t collect;
    PMIx_Info_load(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    check(PMIx_Fence(job, 1, &collect, 1), "PMIx_Fence (collect)");
    PMIx_Info_destruct(&collect);
}

/* The neighbour's value of key: size bytes, each its rank's low byte. */
static void check_peer(uint32_t n, const char *key, size_t size)
{
    pmix_proc_t peer;
    PMIx_Load_procid(&peer, me.nspace, (me.rank + 1) % n);
    pmix_value_t *v = NULL;
    check(PMIx_Get(&peer, key, NULL, 0, &v), "PMIx_Get of the neighbour's value");
    if (v->type != PMIX_BYTE_OBJECT || v->data.bo.size != size) {
        px_bench_fail("the neighbour's value has the wrong type or size");
    }
    for (size_t i = 0; i < size; i++) {
        if ((unsigned char)v->data.bo.bytes[i] != (unsigned char)(peer.rank & 0xff)) {
            px_bench_fail("the neighbour's value has the wrong contents");
        }
    }
    PMIx_Value_free(v, 1);
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 20;
    static const char *defaults[] = {"0", "64", "1024", "16384"};
    const char **sizes = argc > 2 ? (const char **)argv + 2 : defaults;
    int nsizes = argc > 2 ? argc - 2 : 4;
    if (iters < 1) {
        fprintf(stderr, "bench_fence: ITERS must be a positive integer\n");
        return 2;
    }
    px_bench_client_start("bench_fence", 0);
    check(PMIx_Init(&me, NULL, 0), "PMIx_Init");
    px_bench_client_start("bench_fence", me.rank);
    pmix_proc_t job;
    PMIx_Load_procid(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    check(PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v), "PMIx_Get(PMIX_JOB_SIZE)");
    uint32_t n = 0;
    check(PMIx_Value_get_number(v, &n, PMIX_UINT32), "job size");
    PMIx_Value_free(v, 1);
    for (int i = 0; i < 3; i++) {
        check(PMIx_Fence(&job, 1, NULL, 0), "warm-up fence");
    }
    for (int s = 0; s < nsizes; s++) {
        char *end = NULL;
        unsigned long size = strtoul(sizes[s], &end, 10);
        if (end == sizes[s] || *end != '\0' || size > (64UL << 20)) {
            fprintf(stderr, "bench_fence: SIZE \"%s\" is not a byte count up to 64 MiB\n",
                    sizes[s]);
            PMIx_Finalize(NULL, 0);
            return 2;
        }
        char key[PMIX_MAX_KEYLEN + 1];
        snprintf(key, sizeof(key), "bf.%lu", size);
        char *bytes = malloc(size > 0 ? size : 1);
        if (bytes == NULL) {
            px_bench_fail("out of memory");
        }
        memset(bytes, (int)(me.rank & 0xff), size);
        fence_once(&job, key, bytes, size); /* untimed: the first of this size */
        double t[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
            check(PMIx_Fence(&job, 1, NULL, 0), "barrier before a round");
            double t0 = px_bench_now();
            for (int i = 0; i < iters; i++) {
                fence_once(&job, key, bytes, size);
            }
            t[round] = (px_bench_now() - t0) / iters;
        }
        if (size > 0) {
            check_peer(n, key, size);
        }
        free(bytes);
        if (me.rank == 0) {
            printf("N=%u size=%lu fence_us=%.1f\n", n, size, px_bench_median(t, ROUNDS) * 1e6);
            fflush(stdout);
        }
    }
    check(PMIx_Finalize(NULL, 0), "PMIx_Finalize");
    return 0;
}
