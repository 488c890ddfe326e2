/* bench_group - the client bench_group.sh launches with prun -n N on a DVM: times, per
 * operation, PMIx_Fence over the job (the baseline), PMIx_Group_construct with a context id
 * (and its destruct), and PMIx_Connect (and its disconnect) of the same processes. Three
 * rounds of `iters` operations each; rank 0 prints one line with the median round's mean
 * per operation, in microseconds:
 *   N=<n> fence=<us> construct=<us> destruct=<us> connect=<us> disconnect=<us>
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>

#define ROUNDS 3

static pmix_proc_t me;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void check(pmix_status_t rc, const char *what)
{
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "bench_group rank %u: %s: %s\n", me.rank, what, PMIx_Error_string(rc));
        exit(1);
    }
}

static double median3(double *v)
{
    double a = v[0], b = v[1], c = v[2];
    return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 50;
    check(PMIx_Init(&me, NULL, 0), "PMIx_Init");
    pmix_proc_t job;
    PMIx_Load_procid(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    check(PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v), "job size");
    uint32_t n = 0;
    PMIx_Value_get_number(v, &n, PMIX_UINT32);
    PMIx_Value_free(v, 1);
    pmix_proc_t *members = calloc(n, sizeof(*members));
    for (uint32_t r = 0; r < n; r++) {
        PMIx_Load_procid(&members[r], me.nspace, r);
    }
    bool yes = true;
    pmix_info_t ctx;
    PMIx_Info_load(&ctx, PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    for (int i = 0; i < 5; i++) {
        check(PMIx_Fence(&job, 1, NULL, 0), "warm-up fence");
    }
    double t[5][ROUNDS];
    int gid = 0;
    for (int round = 0; round < ROUNDS; round++) {
        double t0 = now();
        for (int i = 0; i < iters; i++) {
            check(PMIx_Fence(&job, 1, NULL, 0), "PMIx_Fence");
        }
        t[0][round] = (now() - t0) / iters;
        double cons = 0, des = 0;
        for (int i = 0; i < iters; i++) {
            char id[32];
            snprintf(id, sizeof(id), "bench-%d", gid++);
            pmix_info_t *res = NULL;
            size_t nres = 0;
            double a = now();
            check(PMIx_Group_construct(id, members, n, &ctx, 1, &res, &nres),
                  "PMIx_Group_construct");
            double b = now();
            check(PMIx_Group_destruct(id, NULL, 0), "PMIx_Group_destruct");
            des += now() - b;
            cons += b - a;
            PMIx_Info_free(res, nres);
        }
        t[1][round] = cons / iters;
        t[2][round] = des / iters;
        double con = 0, dis = 0;
        for (int i = 0; i < iters; i++) {
            double a = now();
            check(PMIx_Connect(&job, 1, NULL, 0), "PMIx_Connect");
            double b = now();
            check(PMIx_Disconnect(&job, 1, NULL, 0), "PMIx_Disconnect");
            dis += now() - b;
            con += b - a;
        }
        t[3][round] = con / iters;
        t[4][round] = dis / iters;
    }
    if (me.rank == 0) {
        printf("N=%u fence=%.1f construct=%.1f destruct=%.1f connect=%.1f disconnect=%.1f\n", n,
               median3(t[0]) * 1e6, median3(t[1]) * 1e6, median3(t[2]) * 1e6, median3(t[3]) * 1e6,
               median3(t[4]) * 1e6);
        fflush(stdout);
    }
    PMIx_Info_destruct(&ctx);
    free(members);
    check(PMIx_Finalize(NULL, 0), "PMIx_Finalize");
    return 0;
}
