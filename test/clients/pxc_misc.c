/*
 * pxc_misc.c - assorted client API checks: PMIx_Initialized, nested init/finalize,
 * PMIx_Get_version, optional and timed-out gets, PMIx_Get_nb, PMIx_Store_internal,
 * PMIx_Resolve_peers/nodes, PMIX_PSET_NAMES, PMIx_Job_control(PMIX_REGISTER_CLEANUP),
 * PMIx_Job_control_nb(PMIX_REGISTER_CLEANUP_DIR, recursive: PATH.d), PMIx_Log_nb(PMIX_LOG_STDERR).
 * --cleanup-guard G: rank 0 builds G/ (mine, keep, sub/x, other: owned by uid 65534 when
 * run as root) and a file G.o owned by 65534 (root only), and registers G recursively with
 * PMIX_CLEANUP_IGNORE=keep and PMIX_CLEANUP_LEAVE_TOPDIR, and G.o as a file; a relative
 * path must be refused. Afterwards G, G/keep (and G/other, G.o) remain; G/mine, G/sub go.
 * Usage: pxc_misc [--nodes K] [--pset NAME:R,R,...]... [--cleanup-file PATH]
 *                 [--cleanup-guard PATH]
 */
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pxc_common.h"

static pmix_proc_t me;
static int nranks, nnodes = 1;

static void check(pmix_status_t rc, pmix_status_t want, const char *what)
{
    if (rc != want)
        pxc_fail("%s: expected %s, got %s", what, PMIx_Error_string(want), PMIx_Error_string(rc));
}

static void init_and_nesting(void)
{
    pmix_proc_t again;
    pmix_status_t rc;

    if (PMIx_Initialized())
        pxc_fail("PMIx_Initialized() is true before PMIx_Init");
    pxc_init(&me, &nranks);
    if (!PMIx_Initialized())
        pxc_fail("PMIx_Initialized() is false after PMIx_Init");
    rc = PMIx_Init(&again, NULL, 0);
    check(rc, PMIX_SUCCESS, "second (nested) PMIx_Init");
    if (!PMIx_Check_procid(&again, &me))
        pxc_fail("nested PMIx_Init returned %s rank %u, the first one %s rank %u", again.nspace,
                 again.rank, me.nspace, me.rank);
    rc = PMIx_Finalize(NULL, 0);
    check(rc, PMIX_SUCCESS, "inner PMIx_Finalize");
    if (!PMIx_Initialized())
        pxc_fail("PMIx_Initialized() is false after the inner of two PMIx_Finalize");
    if ((int)pxc_get_job_u32(&me, PMIX_JOB_SIZE) != nranks)
        pxc_fail("PMIX_JOB_SIZE changed after the inner PMIx_Finalize");
}

static void version(void)
{
    const char *v = PMIx_Get_version();

    if (!v || !*v)
        pxc_fail("PMIx_Get_version returned %s", v ? "an empty string" : "NULL");
}

static void gets(void)
{
    pmix_value_t *val = NULL;
    pmix_info_t info;
    pmix_proc_t peer;
    bool t = true;
    int one = 1;
    double t0;
    pmix_status_t rc;

    PMIx_Info_load(&info, PMIX_OPTIONAL, &t, PMIX_BOOL);
    t0 = pxc_now();
    rc = PMIx_Get(&me, "pxc.no.such.key", &info, 1, &val);
    PMIx_Info_destruct(&info);
    check(rc, PMIX_ERR_NOT_FOUND, "PMIx_Get(own rank, missing key, PMIX_OPTIONAL)");
    if (pxc_now() - t0 > 1)
        pxc_fail("PMIx_Get(own rank, missing key, PMIX_OPTIONAL) took %.1f s", pxc_now() - t0);
    /* a rank past the job is not found, at once; the server must not size its rank table
     * by it (2^22 ranks would be hundreds of MB there) */
    PMIx_Load_procid(&peer, me.nspace, (pmix_rank_t)nranks + (1u << 22));
    t0 = pxc_now();
    rc = PMIx_Get(&peer, "pxc.no.such.key", NULL, 0, &val);
    check(rc, PMIX_ERR_NOT_FOUND, "PMIx_Get(a rank past the job)");
    if (pxc_now() - t0 > 1)
        pxc_fail("PMIx_Get(a rank past the job) took %.1f s", pxc_now() - t0);
    if (nranks < 2)
        return;
    PMIx_Load_procid(&peer, me.nspace, (me.rank + 1) % (pmix_rank_t)nranks);
    PMIx_Info_load(&info, PMIX_TIMEOUT, &one, PMIX_INT);
    t0 = pxc_now();
    rc = PMIx_Get(&peer, "pxc.never.put", &info, 1, &val);
    PMIx_Info_destruct(&info);
    if (rc != PMIX_ERR_TIMEOUT && rc != PMIX_ERR_NOT_FOUND)
        pxc_fail("PMIx_Get(rank %u, key never put, PMIX_TIMEOUT 1): expected PMIX_ERR_TIMEOUT or "
                 "PMIX_ERR_NOT_FOUND, got %s",
                 peer.rank, PMIx_Error_string(rc));
    if (pxc_now() - t0 > 2.5)
        pxc_fail("PMIx_Get(rank %u, key never put, PMIX_TIMEOUT 1) took %.1f s", peer.rank,
                 pxc_now() - t0);
}

static void value_cb(pmix_status_t status, pmix_value_t *kv, void *cbdata)
{
    pxc_cb_t *cb = cbdata;

    pthread_mutex_lock(&cb->lock);
    if (cb->calls == 0 && status == PMIX_SUCCESS && kv)
        PMIx_Value_xfer(cb->value = PMIx_Value_create(1), kv);
    pthread_mutex_unlock(&cb->lock);
    pxc_cb_mark(cb, status);
}

static void get_nb(void)
{
    pmix_proc_t wild;
    pxc_cb_t cb;
    pmix_status_t rc;

    PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pxc_cb_init(&cb);
    rc = PMIx_Get_nb(&wild, PMIX_JOB_SIZE, NULL, 0, value_cb, &cb);
    check(rc, PMIX_SUCCESS, "PMIx_Get_nb(PMIX_JOB_SIZE)");
    if (!pxc_cb_wait(&cb, 10))
        pxc_fail("PMIx_Get_nb(PMIX_JOB_SIZE): no callback within 10 s");
    usleep(100000);
    if (cb.calls != 1)
        pxc_fail("PMIx_Get_nb(PMIX_JOB_SIZE): callback called %d times", cb.calls);
    check(cb.status, PMIX_SUCCESS, "PMIx_Get_nb(PMIX_JOB_SIZE) callback");
    if (!cb.value || cb.value->type != PMIX_UINT32 || cb.value->data.uint32 != (uint32_t)nranks)
        pxc_fail("PMIx_Get_nb(PMIX_JOB_SIZE): expected PMIX_UINT32 %d", nranks);
    PMIx_Value_free(cb.value, 1);
}

static void store_internal(void)
{
    pmix_value_t v, *got = NULL;
    pmix_status_t rc;

    v.type = PMIX_STRING;
    v.data.string = "stored-internally";
    rc = PMIx_Store_internal(&me, "pxc.internal", &v);
    check(rc, PMIX_SUCCESS, "PMIx_Store_internal(pxc.internal)");
    rc = PMIx_Get(&me, "pxc.internal", NULL, 0, &got);
    check(rc, PMIX_SUCCESS, "PMIx_Get(pxc.internal) after PMIx_Store_internal");
    if (got->type != PMIX_STRING || strcmp(got->data.string, "stored-internally") != 0)
        pxc_fail("PMIx_Get(pxc.internal): expected \"stored-internally\", got type %s",
                 PMIx_Data_type_string(got->type));
    PMIx_Value_free(got, 1);
}

static void resolve(void)
{
    int node = pxc_node_of(nranks, nnodes, (int)me.rank);
    int start = pxc_node_start(nranks, nnodes, node), count = pxc_node_count(nranks, nnodes, node);
    char host[32], *nodelist = NULL;
    const char *names[2] = {NULL, host};
    pmix_status_t rc;

    snprintf(host, sizeof(host), "pxnode%d", node);
    for (int k = 0; k < 2; k++) {
        pmix_proc_t *procs = NULL;
        size_t n = 0;
        bool seen[4096] = {false};

        rc = PMIx_Resolve_peers(names[k], me.nspace, &procs, &n);
        if (rc != PMIX_SUCCESS)
            pxc_fail("PMIx_Resolve_peers(%s, %s) failed: %s", names[k] ? names[k] : "NULL",
                     me.nspace, PMIx_Error_string(rc));
        if (n != (size_t)count)
            pxc_fail("PMIx_Resolve_peers(%s): expected %d procs, got %zu",
                     names[k] ? names[k] : "NULL", count, n);
        for (size_t i = 0; i < n; i++) {
            int r = (int)procs[i].rank;
            if (r < start || r >= start + count || seen[r] ||
                strncmp(procs[i].nspace, me.nspace, PMIX_MAX_NSLEN))
                pxc_fail("PMIx_Resolve_peers(%s): unexpected proc %s rank %u (node hosts %d-%d)",
                         names[k] ? names[k] : "NULL", procs[i].nspace, procs[i].rank, start,
                         start + count - 1);
            seen[r] = true;
        }
        PMIx_Proc_free(procs, n);
    }
    rc = PMIx_Resolve_nodes(me.nspace, &nodelist);
    if (rc != PMIX_SUCCESS || !nodelist)
        pxc_fail("PMIx_Resolve_nodes(%s) failed: %s", me.nspace, PMIx_Error_string(rc));
    {
        char **list = PMIx_Argv_split(nodelist, ',');
        if (PMIx_Argv_count(list) != nnodes)
            pxc_fail("PMIx_Resolve_nodes: expected %d nodes, got \"%s\"", nnodes, nodelist);
        for (int i = 0; i < nnodes; i++) {
            bool found = false;
            snprintf(host, sizeof(host), "pxnode%d", i);
            for (int k = 0; list[k]; k++)
                found |= strcmp(list[k], host) == 0;
            if (!found)
                pxc_fail("PMIx_Resolve_nodes: %s missing from \"%s\"", host, nodelist);
        }
        PMIx_Argv_free(list);
    }
    free(nodelist);
}

/* psets: "NAME:R,R,..." strings; check PMIX_PSET_NAMES of our own rank. */
static void psets(char **specs, int nspecs)
{
    char *want[16];
    int nwant = 0;
    pmix_value_t *val = NULL;
    pmix_status_t rc;

    if (nspecs == 0)
        return;
    for (int i = 0; i < nspecs; i++) {
        char *colon = strchr(specs[i], ':');
        char **ranks = colon ? PMIx_Argv_split(colon + 1, ',') : NULL;
        for (int k = 0; ranks && ranks[k]; k++) {
            if (atoi(ranks[k]) == (int)me.rank && nwant < 16)
                want[nwant++] = strndup(specs[i], (size_t)(colon - specs[i]));
        }
        PMIx_Argv_free(ranks);
    }
    rc = PMIx_Get(&me, PMIX_PSET_NAMES, NULL, 0, &val);
    if (rc == PMIX_ERR_NOT_FOUND && nwant == 0)
        return;
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Get(PMIX_PSET_NAMES, own rank) failed: %s (expected %d names)",
                 PMIx_Error_string(rc), nwant);
    if (val->type != PMIX_DATA_ARRAY || !val->data.darray ||
        (val->data.darray->size && val->data.darray->type != PMIX_STRING))
        pxc_fail("PMIx_Get(PMIX_PSET_NAMES): expected a data array of strings, got %s",
                 PMIx_Data_type_string(val->type));
    if (val->data.darray->size != (size_t)nwant)
        pxc_fail("PMIx_Get(PMIX_PSET_NAMES): expected %d names, got %zu", nwant,
                 val->data.darray->size);
    for (int i = 0; i < nwant; i++) {
        char **names = val->data.darray->array;
        bool found = false;
        for (size_t k = 0; k < val->data.darray->size; k++)
            found |= names[k] && strcmp(names[k], want[i]) == 0;
        if (!found)
            pxc_fail("PMIx_Get(PMIX_PSET_NAMES): pset \"%s\" missing", want[i]);
        free(want[i]);
    }
    PMIx_Value_free(val, 1);
}

static void cleanup(const char *path)
{
    pmix_info_t info;
    pmix_info_t *results = NULL;
    size_t nresults = 0;
    pmix_status_t rc;
    int fd;

    if (!path || me.rank != 0)
        return;
    fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd < 0)
        pxc_fail("cannot create %s", path);
    close(fd);
    PMIx_Info_load(&info, PMIX_REGISTER_CLEANUP, path, PMIX_STRING);
    rc = PMIx_Job_control(&me, 1, &info, 1, &results, &nresults);
    PMIx_Info_destruct(&info);
    check(rc, PMIX_SUCCESS, "PMIx_Job_control(PMIX_REGISTER_CLEANUP)");
    if (results)
        PMIx_Info_free(results, nresults);
}

/* PMIx_Job_control_nb: callback once, with a release function for the results. */
static pxc_cb_t jc_cb;
static bool jc_release_given;

static void jobctl_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                      pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)info;
    (void)ninfo;
    (void)cbdata;
    jc_release_given = release_fn != NULL;
    if (release_fn)
        release_fn(release_cbdata);
    pxc_cb_mark(&jc_cb, status);
}

static void cleanup_dir_nb(const char *path)
{
    pmix_info_t info[2];
    char dir[1024], file[1100];
    bool yes = true;
    pmix_status_t rc;
    int fd;

    if (!path || me.rank != 0)
        return;
    snprintf(dir, sizeof(dir), "%s.d", path);
    snprintf(file, sizeof(file), "%s/inner", dir);
    if (mkdir(dir, 0700) != 0 || (fd = open(file, O_CREAT | O_WRONLY, 0644)) < 0)
        pxc_fail("cannot create %s", file);
    close(fd);
    PMIx_Info_construct(&info[0]);
    PMIx_Info_construct(&info[1]);
    PMIx_Info_load(&info[0], PMIX_REGISTER_CLEANUP_DIR, dir, PMIX_STRING);
    PMIx_Info_load(&info[1], PMIX_CLEANUP_RECURSIVE, &yes, PMIX_BOOL);
    pxc_cb_init(&jc_cb);
    rc = PMIx_Job_control_nb(&me, 1, info, 2, jobctl_cb, NULL);
    check(rc, PMIX_SUCCESS, "PMIx_Job_control_nb(PMIX_REGISTER_CLEANUP_DIR)");
    if (!pxc_cb_wait(&jc_cb, 10))
        pxc_fail("PMIx_Job_control_nb: no callback within 10 s");
    usleep(100000);
    if (jc_cb.calls != 1)
        pxc_fail("PMIx_Job_control_nb: callback called %d times", jc_cb.calls);
    check(jc_cb.status, PMIX_SUCCESS, "PMIx_Job_control_nb callback");
    if (!jc_release_given)
        pxc_fail("PMIx_Job_control_nb: no release function for the results");
    PMIx_Info_destruct(&info[0]);
    PMIx_Info_destruct(&info[1]);
}

static void make_file(const char *path, bool foreign)
{
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd < 0)
        pxc_fail("cannot create %s", path);
    close(fd);
    if (foreign && chown(path, 65534, 65534) != 0)
        pxc_fail("cannot give %s to uid 65534", path);
}

static void cleanup_guard(const char *g)
{
    char p[1100];
    bool yes = true, root = geteuid() == 0;
    pmix_info_t info[4], *results = NULL;
    size_t nresults = 0;
    pmix_status_t rc;

    if (!g || me.rank != 0)
        return;
    snprintf(p, sizeof(p), "%s/sub", g);
    if (mkdir(g, 0700) != 0 || mkdir(p, 0700) != 0)
        pxc_fail("cannot create %s", p);
    snprintf(p, sizeof(p), "%s/sub/x", g);
    make_file(p, false);
    snprintf(p, sizeof(p), "%s/mine", g);
    make_file(p, false);
    snprintf(p, sizeof(p), "%s/keep", g);
    make_file(p, false);
    if (root) {
        snprintf(p, sizeof(p), "%s/other", g);
        make_file(p, true);
        snprintf(p, sizeof(p), "%s.o", g);
        make_file(p, true);
    }
    PMIx_Info_load(&info[0], PMIX_REGISTER_CLEANUP, "relative/file", PMIX_STRING);
    rc = PMIx_Job_control(&me, 1, info, 1, &results, &nresults);
    check(rc, PMIX_ERR_BAD_PARAM, "PMIx_Job_control(PMIX_REGISTER_CLEANUP, a relative path)");
    PMIx_Info_destruct(&info[0]);
    PMIx_Info_load(&info[0], PMIX_REGISTER_CLEANUP_DIR, g, PMIX_STRING);
    PMIx_Info_load(&info[1], PMIX_CLEANUP_RECURSIVE, &yes, PMIX_BOOL);
    PMIx_Info_load(&info[2], PMIX_CLEANUP_IGNORE, "keep", PMIX_STRING);
    PMIx_Info_load(&info[3], PMIX_CLEANUP_LEAVE_TOPDIR, &yes, PMIX_BOOL);
    rc = PMIx_Job_control(&me, 1, info, 4, &results, &nresults);
    check(rc, PMIX_SUCCESS, "PMIx_Job_control(PMIX_REGISTER_CLEANUP_DIR, ignore, leave top)");
    for (int i = 0; i < 4; i++)
        PMIx_Info_destruct(&info[i]);
    if (results)
        PMIx_Info_free(results, nresults);
    results = NULL;
    if (root) {
        snprintf(p, sizeof(p), "%s.o", g);
        PMIx_Info_load(&info[0], PMIX_REGISTER_CLEANUP, p, PMIX_STRING);
        rc = PMIx_Job_control(&me, 1, info, 1, &results, &nresults);
        check(rc, PMIX_SUCCESS, "PMIx_Job_control(PMIX_REGISTER_CLEANUP, another user's file)");
        PMIx_Info_destruct(&info[0]);
        if (results)
            PMIx_Info_free(results, nresults);
    }
}

static void log_nb(void)
{
    pmix_info_t info;
    pxc_cb_t cb;
    pmix_status_t rc;
    char msg[128];

    snprintf(msg, sizeof(msg), "pxc_misc log line from rank %u", me.rank);
    PMIx_Info_load(&info, PMIX_LOG_STDERR, msg, PMIX_STRING);
    pxc_cb_init(&cb);
    rc = PMIx_Log_nb(&info, 1, NULL, 0, pxc_cb_op, &cb);
    check(rc, PMIX_SUCCESS, "PMIx_Log_nb(PMIX_LOG_STDERR)");
    if (!pxc_cb_wait(&cb, 10))
        pxc_fail("PMIx_Log_nb: no callback within 10 s");
    usleep(100000);
    if (cb.calls != 1)
        pxc_fail("PMIx_Log_nb: callback called %d times", cb.calls);
    check(cb.status, PMIX_SUCCESS, "PMIx_Log_nb callback");
    PMIx_Info_destruct(&info);
}

/* --spawn yes|no: PMIx_Spawn from a client; the host has the upcall (pxhost --spawn:
 * a new namespace) or not (PMIX_ERR_NOT_SUPPORTED). No PMIX_FWD_*: no output comes. */
static void spawn(const char *mode)
{
    pmix_app_t app;
    pmix_nspace_t ns;
    pmix_status_t rc;

    if (mode == NULL || me.rank != 0)
        return;
    PMIx_App_construct(&app);
    app.cmd = strdup("/bin/true");
    app.maxprocs = 1;
    rc = PMIx_Spawn(NULL, 0, &app, 1, ns);
    PMIx_App_destruct(&app);
    if (strcmp(mode, "yes") == 0) {
        check(rc, PMIX_SUCCESS, "PMIx_Spawn");
        printf("pxc_misc: rank 0 spawned %s\n", ns);
    } else {
        check(rc, PMIX_ERR_NOT_SUPPORTED, "PMIx_Spawn without a spawn upcall");
        printf("pxc_misc: rank 0 PMIx_Spawn: %s\n", PMIx_Error_string(rc));
    }
    check(PMIx_Spawn(NULL, 0, NULL, 1, ns), PMIX_ERR_BAD_PARAM, "PMIx_Spawn(NULL apps)");
}

int main(int argc, char **argv)
{
    char *specs[16], *cleanup_path = NULL, *spawn_mode = NULL, *guard_path = NULL;
    int nspecs = 0;
    pmix_proc_t all;
    pmix_status_t rc;

    pxc_name = "pxc_misc";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--nodes") == 0 && i + 1 < argc)
            nnodes = pxc_parse_int("--nodes", argv[++i]);
        else if (strcmp(argv[i], "--pset") == 0 && i + 1 < argc && nspecs < 16)
            specs[nspecs++] = argv[++i];
        else if (strcmp(argv[i], "--cleanup-file") == 0 && i + 1 < argc)
            cleanup_path = argv[++i];
        else if (strcmp(argv[i], "--cleanup-guard") == 0 && i + 1 < argc)
            guard_path = argv[++i];
        else if (strcmp(argv[i], "--spawn") == 0 && i + 1 < argc)
            spawn_mode = argv[++i];
        else {
            fprintf(stderr, "pxc_misc: unknown argument \"%s\"\n", argv[i]);
            return 2;
        }
    }
    version();
    init_and_nesting();
    if (nnodes < 1 || nnodes > nranks)
        pxc_fail("--nodes %d does not fit a job of %d ranks", nnodes, nranks);
    gets();
    get_nb();
    store_internal();
    resolve();
    psets(specs, nspecs);
    cleanup(cleanup_path);
    cleanup_dir_nb(cleanup_path);
    cleanup_guard(guard_path);
    log_nb();
    spawn(spawn_mode);
    PMIx_Load_procid(&all, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Fence(&all, 1, NULL, 0);
    check(rc, PMIX_SUCCESS, "final PMIx_Fence");
    rc = PMIx_Finalize(NULL, 0);
    check(rc, PMIX_SUCCESS, "PMIx_Finalize");
    if (PMIx_Initialized())
        pxc_fail("PMIx_Initialized() is true after the last PMIx_Finalize");
    return 0;
}
