/* bench_modex - cost of the PMIx server/client core on one node: PMIx_Get of a job-level
 * key, Put+Commit+Fence(collect) of N local ranks, PMIx_Get of a peer's key. The parent
 * is a small server host (public API only, main thread + the library's progress thread);
 * it re-executes itself with --client for each rank. Every number is printed next to a
 * baseline measured in the same run (fork/exec of /bin/true, a getpid syscall). A
 * measurement, not a pass/fail test: the exit status only says whether the run worked. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_common.h"

#define PXB_MAX_RANKS 256
#define PXB_BLOCK     100 /* calls per timed block; latency = median of block means */
#define PXB_VALUE_LEN 64  /* bytes of each rank's modex value */

/* The value rank r puts in repetition rep: a pattern the reader can check. */
static void fill_value(unsigned char *buf, pmix_rank_t r, int rep)
{
    for (int i = 0; i < PXB_VALUE_LEN; i++) {
        buf[i] = (unsigned char)(r * 31u + (unsigned)rep * 7u + (unsigned)i);
    }
}

/* ================================ client ================================ */

static pmix_proc_t me;

static void client_fence(bool collect)
{
    pmix_info_t info;
    bool t = true;
    pmix_status_t rc;
    PMIx_Info_load(&info, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, collect ? &info : NULL, collect ? 1 : 0);
    PMIx_Info_destruct(&info);
    if (rc != PMIX_SUCCESS) {
        px_bench_fail("PMIx_Fence(%s) failed: %s", collect ? "collect" : "barrier",
                      PMIx_Error_string(rc));
    }
}

/* Checks a value got from proc/key: the job size, or a peer's 64-byte pattern. */
static void check_value(const pmix_value_t *v, const char *key, uint32_t want_size,
                        pmix_rank_t peer, int rep)
{
    if (rep < 0) {
        if (v->type != PMIX_UINT32 || v->data.uint32 != want_size) {
            px_bench_fail("PMIx_Get(%s): expected uint32 %u, got type %s value %u", key, want_size,
                          PMIx_Data_type_string(v->type),
                          v->type == PMIX_UINT32 ? v->data.uint32 : 0);
        }
        return;
    }
    unsigned char want[PXB_VALUE_LEN];
    fill_value(want, peer, rep);
    if (v->type != PMIX_BYTE_OBJECT || v->data.bo.size != PXB_VALUE_LEN ||
        memcmp(v->data.bo.bytes, want, PXB_VALUE_LEN) != 0) {
        px_bench_fail("PMIx_Get(rank %u, %s): not the %d-byte value that rank put (type %s)", peer,
                      key, PXB_VALUE_LEN, PMIx_Data_type_string(v->type));
    }
}

static double one_get(const pmix_proc_t *p, const char *key, uint32_t size, int rep)
{
    pmix_value_t *v = NULL;
    double t0 = px_bench_now();
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
    double t = px_bench_now() - t0;
    if (rc != PMIX_SUCCESS || v == NULL) {
        px_bench_fail("PMIx_Get(rank %d, %s) failed: %s", (int)p->rank, key, PMIx_Error_string(rc));
    }
    check_value(v, key, size, p->rank, rep);
    PMIx_Value_free(v, 1);
    return t;
}

/* iters calls of PMIx_Get (value released each time): *med = median of the block means,
 * *mean = total time / calls, both in seconds per call. */
static void time_get(const pmix_proc_t *p, const char *key, int iters, double *med, double *mean)
{
    int nblocks = iters / PXB_BLOCK > 0 ? iters / PXB_BLOCK : 1;
    double *blk = calloc((size_t)nblocks, sizeof(double));
    if (blk == NULL) {
        px_bench_fail("out of memory");
    }
    double t_all = px_bench_now();
    for (int b = 0; b < nblocks; b++) {
        double t0 = px_bench_now();
        for (int i = 0; i < PXB_BLOCK; i++) {
            pmix_value_t *v = NULL;
            pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);
            if (rc != PMIX_SUCCESS || v == NULL) {
                px_bench_fail("PMIx_Get(rank %d, %s) failed in the loop: %s", (int)p->rank, key,
                              PMIx_Error_string(rc));
            }
            PMIx_Value_free(v, 1);
        }
        blk[b] = (px_bench_now() - t0) / PXB_BLOCK;
    }
    *mean = (px_bench_now() - t_all) / ((double)nblocks * PXB_BLOCK);
    *med = px_bench_median(blk, nblocks);
    free(blk);
}

/* One rank. Prints "PXB <rank> first <ns> fence <ns>..." and rank 0 also
 * "PXB0 getjob <med> <mean> peer <med> <mean>" (ns), each line in one write. */
static int client_main(int iters, int reps)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "bench_modex client: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    px_bench_client_start("bench_modex", me.rank);
    pmix_proc_t wild, peer;
    PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v == NULL || v->type != PMIX_UINT32) {
        px_bench_fail("PMIx_Get(PMIX_JOB_SIZE) failed: %s", PMIx_Error_string(rc));
    }
    uint32_t n = v->data.uint32;
    PMIx_Value_free(v, 1);
    PMIx_Load_procid(&peer, me.nspace, (me.rank + 1) % n);
    double *fence = calloc((size_t)reps, sizeof(double));
    if (fence == NULL) {
        px_bench_fail("out of memory");
    }

    /* 1. job-level key; only rank 0 measures, the others wait in the barrier */
    double job_med = 0, job_mean = 0;
    client_fence(false);
    if (me.rank == 0) {
        (void)one_get(&wild, PMIX_JOB_SIZE, n, -1);
        time_get(&wild, PMIX_JOB_SIZE, iters, &job_med, &job_mean);
    }
    client_fence(false);

    /* 2. put + commit + fence(collect), a new key each time; a barrier lines ranks up.
     * One untimed round first, so that no repetition pays for first-use costs. */
    char key[PMIX_MAX_KEYLEN + 1];
    pmix_value_t warm;
    warm.type = PMIX_UINT32;
    warm.data.uint32 = me.rank;
    rc = PMIx_Put(PMIX_GLOBAL, "bench.modex.warmup", &warm);
    if (rc != PMIX_SUCCESS || (rc = PMIx_Commit()) != PMIX_SUCCESS) {
        px_bench_fail("warm-up PMIx_Put/PMIx_Commit failed: %s", PMIx_Error_string(rc));
    }
    client_fence(true);
    for (int rep = 0; rep < reps; rep++) {
        unsigned char buf[PXB_VALUE_LEN];
        pmix_value_t val;
        fill_value(buf, me.rank, rep);
        snprintf(key, sizeof(key), "bench.modex.%d", rep);
        client_fence(false);
        double t0 = px_bench_now();
        val.type = PMIX_BYTE_OBJECT;
        val.data.bo.bytes = (char *)buf;
        val.data.bo.size = PXB_VALUE_LEN;
        rc = PMIx_Put(PMIX_GLOBAL, key, &val);
        if (rc != PMIX_SUCCESS) {
            px_bench_fail("PMIx_Put(%s) failed: %s", key, PMIx_Error_string(rc));
        }
        rc = PMIx_Commit();
        if (rc != PMIX_SUCCESS) {
            px_bench_fail("PMIx_Commit failed: %s", PMIx_Error_string(rc));
        }
        client_fence(true);
        fence[rep] = px_bench_now() - t0;
    }

    /* 3. the peer's last key: first call (may fetch), then steady state on rank 0 */
    double first = one_get(&peer, key, n, reps - 1);
    double peer_med = 0, peer_mean = 0;
    client_fence(false);
    if (me.rank == 0) {
        time_get(&peer, key, iters, &peer_med, &peer_mean);
    }
    client_fence(false);

    char line[4096];
    size_t len =
        (size_t)snprintf(line, sizeof(line), "PXB %u first %.0f fence", me.rank, first * 1e9);
    for (int rep = 0; rep < reps && len < sizeof(line) - 32; rep++) {
        len += (size_t)snprintf(line + len, sizeof(line) - len, " %.0f", fence[rep] * 1e9);
    }
    len += (size_t)snprintf(line + len, sizeof(line) - len, "\n");
    if (me.rank == 0) {
        len += (size_t)snprintf(line + len, sizeof(line) - len,
                                "PXB0 getjob %.1f %.1f peer %.1f %.1f\n", job_med * 1e9,
                                job_mean * 1e9, peer_med * 1e9, peer_mean * 1e9);
    }
    free(fence);
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        px_bench_fail("PMIx_Finalize failed: %s", PMIx_Error_string(rc));
    }
    if (write(1, line, len) != (ssize_t)len) {
        return 1;
    }
    return 0;
}

/* ================================ parent ================================ */

typedef struct {
    int n;
    double fork_s;               /* fork/exec/waitpid of n /bin/true, median */
    double fence_s;              /* put+commit+fence: median over reps of the max over ranks */
    double fence_growth;         /* median of the last quarter of reps / of the first quarter */
    double job_med, job_mean;    /* PMIx_Get job key, s per call (rank 0) */
    double first_max, first_med; /* first PMIx_Get of the peer key, over ranks */
    double peer_med, peer_mean;  /* cached PMIx_Get of the peer key (rank 0) */
} result_t;

/* Baseline (a): fork+exec n /bin/true, then waitpid all; median of 5 trials. */
static double fork_baseline(int n)
{
    double t[5];
    pid_t pids[PXB_MAX_RANKS];
    for (int trial = 0; trial < 5; trial++) {
        double t0 = px_bench_now();
        for (int i = 0; i < n; i++) {
            pid_t pid = fork();
            if (pid < 0) {
                px_bench_fail("fork: %s", strerror(errno));
            }
            if (pid == 0) {
                execl("/bin/true", "true", (char *)NULL);
                _exit(127);
            }
            px_bench_track(pid);
            pids[i] = pid;
        }
        for (int i = 0; i < n; i++) {
            int st;
            if (waitpid(pids[i], &st, 0) != pids[i] || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                px_bench_untrack(pids[i]);
                px_bench_fail("baseline /bin/true did not exit 0 (status 0x%x)", st);
            }
            px_bench_untrack(pids[i]);
        }
        t[trial] = px_bench_now() - t0;
    }
    return px_bench_median(t, 5);
}

/* Baseline (b): seconds per call of a raw getpid syscall (median of 100-call blocks). */
static double getpid_baseline(int iters)
{
    int nblocks = iters / PXB_BLOCK > 0 ? iters / PXB_BLOCK : 1;
    double *blk = calloc((size_t)nblocks, sizeof(double));
    volatile long sink = 0;
    for (int b = 0; b < nblocks; b++) {
        double t0 = px_bench_now();
        for (int i = 0; i < PXB_BLOCK; i++) {
            sink += syscall(SYS_getpid);
        }
        blk[b] = (px_bench_now() - t0) / PXB_BLOCK;
    }
    double m = px_bench_median(blk, nblocks);
    free(blk);
    (void)sink;
    return m;
}

/* Baseline (b'): a pthread mutex lock/unlock around a 16-byte memcpy. */
static double mutex_baseline(int iters)
{
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    char src[16] = "0123456789abcde", dst[16];
    volatile char sink = 0;
    int nblocks = iters / PXB_BLOCK > 0 ? iters / PXB_BLOCK : 1;
    double *blk = calloc((size_t)nblocks, sizeof(double));
    for (int b = 0; b < nblocks; b++) {
        double t0 = px_bench_now();
        for (int i = 0; i < PXB_BLOCK; i++) {
            pthread_mutex_lock(&mu);
            memcpy(dst, src, sizeof(dst));
            src[i & 15] ^= dst[(i + 1) & 15];
            pthread_mutex_unlock(&mu);
        }
        sink ^= dst[b & 15];
        blk[b] = (px_bench_now() - t0) / PXB_BLOCK;
    }
    double m = px_bench_median(blk, nblocks);
    free(blk);
    (void)sink;
    return m;
}

/* What run_job collects from the clients' lines. */
typedef struct {
    int n, reps;
    double *fence; /* [rank * reps + rep] */
    double *first; /* [rank] */
    bool *seen;    /* [rank], [n] = rank 0's Get line */
    result_t *res;
} collect_t;

/* Reads one line from a client ("PXB ..." or "PXB0 ..."). */
static void parse_line(char *line, void *arg)
{
    collect_t *c = arg;
    result_t *res = c->res;
    unsigned rank;
    int off = 0;
    if (sscanf(line, "PXB0 getjob %lf %lf peer %lf %lf", &res->job_med, &res->job_mean,
               &res->peer_med, &res->peer_mean) == 4) {
        res->job_med *= 1e-9;
        res->job_mean *= 1e-9;
        res->peer_med *= 1e-9;
        res->peer_mean *= 1e-9;
        c->seen[c->n] = true;
        return;
    }
    double f;
    if (sscanf(line, "PXB %u first %lf fence%n", &rank, &f, &off) < 2 || off == 0 ||
        rank >= (unsigned)c->n || c->seen[rank]) {
        px_bench_fail("N=%d: unexpected client output: %s", c->n, line);
    }
    c->first[rank] = f * 1e-9;
    char *p = line + off;
    for (int rep = 0; rep < c->reps; rep++) {
        char *end;
        double v = strtod(p, &end);
        if (end == p) {
            px_bench_fail("rank %u reported %d fence times, expected %d", rank, rep, c->reps);
        }
        c->fence[(size_t)rank * (size_t)c->reps + (size_t)rep] = v * 1e-9;
        p = end;
    }
    c->seen[rank] = true;
}

/* One job of n ranks: start them, collect their lines, reap them, deregister. */
static void run_job(result_t *res, int n, int iters, int reps)
{
    char nspace[PMIX_MAX_NSLEN + 1], a_iters[16], a_reps[16];
    int fds[2];
    double *fence = calloc((size_t)n * (size_t)reps, sizeof(double));
    double *first = calloc((size_t)n, sizeof(double));
    bool *seen = calloc((size_t)n + 1, sizeof(bool));

    if (fence == NULL || first == NULL || seen == NULL) {
        px_bench_fail("out of memory");
    }
    res->n = n;
    res->fork_s = fork_baseline(n);

    snprintf(nspace, sizeof(nspace), "bench.modex.%d.%d", (int)getpid(), n);
    px_bench_register_job(nspace, n);
    if (pipe2(fds, O_CLOEXEC) < 0) {
        px_bench_fail("pipe: %s", strerror(errno));
    }
    snprintf(a_iters, sizeof(a_iters), "%d", iters);
    snprintf(a_reps, sizeof(a_reps), "%d", reps);
    char *args[] = {a_iters, a_reps, NULL};
    for (int r = 0; r < n; r++) {
        px_bench_start_client(nspace, r, fds[1], args);
    }
    close(fds[1]);
    collect_t c = {n, reps, fence, first, seen, res};
    px_bench_collect(fds[0], n, parse_line, &c);
    close(fds[0]);
    for (int r = 0; r <= n; r++) {
        if (!seen[r]) {
            px_bench_fail("N=%d: no result line from %s", n,
                          r < n ? "a rank" : "rank 0 (Get latencies)");
        }
    }

    /* fence: max over ranks per repetition, then the median over repetitions */
    double *per_rep = calloc((size_t)reps, sizeof(double));
    for (int rep = 0; rep < reps; rep++) {
        for (int r = 0; r < n; r++) {
            double v = fence[(size_t)r * (size_t)reps + (size_t)rep];
            per_rep[rep] = v > per_rep[rep] ? v : per_rep[rep];
        }
    }
    int q = reps / 4 > 0 ? reps / 4 : 1;
    double *early = calloc((size_t)q, sizeof(double)), *late = calloc((size_t)q, sizeof(double));
    if (early == NULL || late == NULL) {
        px_bench_fail("out of memory");
    }
    memcpy(early, per_rep, (size_t)q * sizeof(double));
    memcpy(late, per_rep + reps - q, (size_t)q * sizeof(double));
    res->fence_growth = px_bench_median(late, q) / px_bench_median(early, q);
    free(early);
    free(late);
    res->fence_s = px_bench_median(per_rep, reps);
    res->first_max = 0;
    for (int r = 0; r < n; r++) {
        res->first_max = first[r] > res->first_max ? first[r] : res->first_max;
    }
    res->first_med = px_bench_median(first, n);

    px_bench_deregister_job(nspace, n);
    free(per_rep);
    free(fence);
    free(first);
    free(seen);
}

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [--iters I] [--reps R] [--timeout S] [N ...]\n"
            "  N: local ranks per run (default 2 8 16, at most %d); I: PMIx_Get calls per\n"
            "  latency (default 100000); R: put+commit+fence repetitions (default 20);\n"
            "  S: give up, kill the clients and exit 1 after S seconds (default 60)\n",
            prog, PXB_MAX_RANKS);
}

int main(int argc, char **argv)
{
    int iters = 100000, reps = 20, timeout_s = 60, ns[64], nn = 0;

    if (argc == 4 && strcmp(argv[1], "--client") == 0) {
        return client_main(atoi(argv[2]), atoi(argv[3]));
    }
    for (int i = 1; i < argc; i++) {
        char *end;
        if ((strcmp(argv[i], "--iters") == 0 || strcmp(argv[i], "--reps") == 0 ||
             strcmp(argv[i], "--timeout") == 0) &&
            i + 1 < argc) {
            long v = strtol(argv[i + 1], &end, 10);
            if (*end != '\0' || v <= 0 || v > 100000000) {
                usage(argv[0]);
                return 2;
            }
            *(argv[i][2] == 'i' ? &iters : argv[i][2] == 'r' ? &reps : &timeout_s) = (int)v;
            i++;
            continue;
        }
        long v = strtol(argv[i], &end, 10);
        if (*end != '\0' || v < 1 || v > PXB_MAX_RANKS || nn == 64) {
            usage(argv[0]);
            return 2;
        }
        ns[nn++] = (int)v;
    }
    if (nn == 0) {
        ns[0] = 2;
        ns[1] = 8;
        ns[2] = 16;
        nn = 3;
    }

    px_bench_host_start("bench_modex", timeout_s);
    px_bench_server_init(NULL, 0);

    double getpid_s = getpid_baseline(iters), mutex_s = mutex_baseline(iters);
    result_t res[64];
    for (int i = 0; i < nn; i++) {
        memset(&res[i], 0, sizeof(res[i]));
        run_job(&res[i], ns[i], iters, reps);
    }
    int leftovers = px_bench_server_finalize();

    printf("bench_modex: one node (%s), %ld cpus; %d PMIx_Get calls per latency, %d fences\n",
           px_bench_hostname(), sysconf(_SC_NPROCESSORS_ONLN), iters, reps);
    printf("  baselines: getpid syscall %.1f ns; mutex lock/unlock + 16-byte memcpy %.1f ns\n",
           getpid_s * 1e9, mutex_s * 1e9);
    printf("  fork/exec = fork+exec+waitpid of N /bin/true (median of 5);\n"
           "  fence = Put(64 B)+Commit+Fence(collect), max over ranks, median of %d;\n"
           "  Get = median of 100-call blocks (value freed each call), rank 0 alone;\n"
           "  x getpid = Get latency / getpid syscall; peer first = first Get of rank\n"
           "  (r+1)%%N's key after the fence, max (median) over ranks; late/early = fence\n"
           "  time of the last quarter of reps / the first quarter (each rep adds a key).\n\n",
           reps);
    printf("  %4s %10s %9s %6s %10s | %8s %8s %8s | %16s %11s\n", "N", "fork/exec", "fence",
           "ratio", "late/early", "Get job", "(mean)", "x getpid", "peer first", "peer cached");
    printf("  %4s %10s %9s %6s %10s | %8s %8s %8s | %16s %11s\n", "", "ms", "ms", "", "", "ns",
           "ns", "", "max (med) ns", "ns");
    for (int i = 0; i < nn; i++) {
        result_t *r = &res[i];
        char firstbuf[40];
        snprintf(firstbuf, sizeof(firstbuf), "%.0f (%.0f)", r->first_max * 1e9, r->first_med * 1e9);
        printf("  %4d %10.3f %9.3f %6.2f %10.2f | %8.1f %8.1f %8.1f | %16s %11.1f\n", r->n,
               r->fork_s * 1e3, r->fence_s * 1e3, r->fence_s / r->fork_s, r->fence_growth,
               r->job_med * 1e9, r->job_mean * 1e9, r->job_med / getpid_s, firstbuf,
               r->peer_med * 1e9);
    }
    printf("\n  targets (informational, not pass/fail): cached local Get under 1 us;\n"
           "  fence of 16 local ranks within 3x the fork/exec baseline.\n");
    for (int i = 0; i < nn; i++) {
        result_t *r = &res[i];
        printf("  N=%d: Get job key %s 1 us (%.0f ns), peer cached %s 1 us (%.0f ns)", r->n,
               r->job_med < 1e-6 ? "under" : "OVER", r->job_med * 1e9,
               r->peer_med < 1e-6 ? "under" : "OVER", r->peer_med * 1e9);
        if (r->n == 16) {
            printf(", fence %s 3x fork/exec (%.2fx)",
                   r->fence_s <= 3 * r->fork_s ? "within" : "OVER", r->fence_s / r->fork_s);
        }
        printf("\n");
    }
    fflush(stdout);
    if (leftovers) {
        fprintf(stderr, "bench_modex: ERROR: %d file(s) left in the server tmpdir\n", leftovers);
        return 1;
    }
    return 0;
}