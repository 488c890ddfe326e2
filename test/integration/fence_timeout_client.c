/* fence_timeout_client: PMIX_TIMEOUT bounds a fence a participant never joins in time.
 * Rank 0 fences (all ranks, PMIX_TIMEOUT 1) at once; the other ranks join only once rank
 * 0's fence has returned, with their own 1 s timeout, and rank 0 stays connected until
 * theirs have returned too (a participant that has left fails a fence at once instead).
 * The ranks learn of each other's fences through marker files in the server's tmpdir
 * ("<nspace>.fence0" from rank 0, "<nspace>.fence<R>" from rank R; rank 0 removes them),
 * waited for at most 15 s each, so nothing depends on how fast a loaded machine starts
 * them. Every rank must get PMIX_ERR_TIMEOUT no sooner than its timeout, and well before
 * pxhost's --timeout (10 s: not hanging). Started by test/host/pxhost.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void marker(char *path, size_t size, const pmix_proc_t *me, unsigned rank)
{
    const char *dir = getenv("PMIX_SERVER_TMPDIR");
    snprintf(path, size, "%s/%s.fence%u", dir ? dir : "/tmp", me->nspace, rank);
}

static void mark(const pmix_proc_t *me)
{
    char path[PATH_MAX];
    marker(path, sizeof(path), me, me->rank);
    int fd = open(path, O_WRONLY | O_CREAT, 0600);
    if (fd >= 0) {
        close(fd);
    }
}

/* 0 once rank's marker exists, -1 after 15 s */
static int wait_mark(const pmix_proc_t *me, unsigned rank)
{
    char path[PATH_MAX];
    marker(path, sizeof(path), me, rank);
    for (int i = 0; i < 1500; i++) {
        if (access(path, F_OK) == 0) {
            return 0;
        }
        usleep(10000);
    }
    fprintf(stderr, "fence_timeout_client: rank %u: no %s after 15 s\n", me->rank, path);
    return -1;
}

int main(void)
{
    pmix_proc_t me, wild;
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "fence_timeout_client: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    uint32_t size = 0;
    PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) == PMIX_SUCCESS) {
        PMIx_Value_get_number(v, &size, PMIX_UINT32);
        PMIx_Value_free(v, 1);
    }
    int ok = size > 0;
    if (me.rank != 0 && wait_mark(&me, 0) != 0) {
        ok = 0;
    }
    pmix_info_t info;
    int secs = 1;
    PMIx_Info_construct(&info);
    PMIx_Info_load(&info, PMIX_TIMEOUT, &secs, PMIX_INT);
    double t0 = now();
    rc = PMIx_Fence(NULL, 0, &info, 1);
    double took = now() - t0;
    PMIx_Info_destruct(&info);
    mark(&me);
    if (me.rank == 0) {
        /* until the others' fences have timed out too; then nothing is left behind */
        for (unsigned r = 1; r < size; r++) {
            if (wait_mark(&me, r) != 0) {
                ok = 0;
            }
        }
        for (unsigned r = 0; r < size; r++) {
            char path[PATH_MAX];
            marker(path, sizeof(path), &me, r);
            unlink(path);
        }
    }
    ok = ok && rc == PMIX_ERR_TIMEOUT && took > 0.8 && took < 10.0;
    fprintf(stderr, "fence_timeout_client: rank %u: PMIx_Fence returned %s after %.2f s%s\n",
            me.rank, PMIx_Error_string(rc), took,
            ok ? "" : " — expected PMIX_ERR_TIMEOUT after about 1 s");
    PMIx_Finalize(NULL, 0);
    return ok ? 0 : 1;
}
