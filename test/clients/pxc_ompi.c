/*
 * pxc_ompi.c - what Open MPI 4.1's PMIx component (mca_pmix_ext3x) and its direct-launch
 * start-up (ess pmi) ask of libpmix.so.2 in MPI_Init, in that order, so that a change
 * breaking Open MPI programs fails here without Open MPI:
 *   - PMIx_Get_version() starts with a digit of 3 or more;
 *   - PMIx_Init twice (the component, then the program itself), the inner finalize
 *     leaves the library initialized;
 *   - an event handler registered with PMIX_EVENT_HDLR_PREPEND carrying no value
 *     (PMIX_UNDEF: Open MPI sets only the key) and PMIX_EVENT_HDLR_NAME is accepted;
 *     no event reaches these default handlers (Open MPI aborts on any), e.g. not the
 *     definition of a process set (run it with pxhost --pset);
 *   - the keys it reads, with their types: pmix.lrank/pmix.nrank uint16 (own rank),
 *     pmix.max.size/pmix.job.size/pmix.local.size uint32 (wildcard), pmix.lpeers and
 *     pmix.locstr strings;
 *   - PMIX_OPTIONAL/PMIX_IMMEDIATE gets of keys nobody has are answered NOT_FOUND at once:
 *     the one asked of a peer comes before that peer committed anything (it waits in
 *     the fence below), so a get that waited at the server would never return;
 *   - PMIx_Job_control_nb with a NULL callback (how Open MPI registers its session
 *     directory for cleanup): accepted, and the directory is removed when this client
 *     leaves (--cleanup-dir; the test checks it is gone);
 *   - a collecting fence, then finalize.
 * Usage: pxc_ompi [--cleanup-dir DIR]
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pxc_common.h"

static pmix_proc_t me;
static int nranks;

static void check(pmix_status_t rc, pmix_status_t want, const char *what)
{
    if (rc != want)
        pxc_fail("%s: expected %s, got %s", what, PMIx_Error_string(want), PMIx_Error_string(rc));
}

static void version(void)
{
    const char *v = PMIx_Get_version();

    /* ext3x refuses a library whose version does not start with a digit >= 3 */
    if (v == NULL || !isdigit((unsigned char)v[0]) || v[0] < '3')
        pxc_fail("PMIx_Get_version() = \"%s\": Open MPI 4.1 needs a leading digit >= 3",
                 v ? v : "(null)");
}

static void nested_init(void)
{
    pmix_proc_t again;

    check(PMIx_Init(&again, NULL, 0), PMIX_SUCCESS, "nested PMIx_Init");
    if (!PMIx_Check_procid(&again, &me))
        pxc_fail("nested PMIx_Init returned another identity");
    check(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "inner PMIx_Finalize");
    if (!PMIx_Initialized())
        pxc_fail("the inner PMIx_Finalize finalized the library");
}

/* Open MPI 4.1's default handlers abort the job with the event's code, whatever it is:
 * no event may reach them in a job that goes well (a process set's definition, notably,
 * is for handlers that asked for its code). */
static void evhandler(size_t id, pmix_status_t status, const pmix_proc_t *source,
                      pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                      pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    (void)cbfunc, (void)cbdata;
    pxc_fail("a default event handler got %s: Open MPI 4.1 would abort with it",
             PMIx_Error_string(status));
}

static pxc_cb_t reg_cb;

static void reg_done(pmix_status_t status, size_t ref, void *cbdata)
{
    (void)ref, (void)cbdata;
    pxc_cb_mark(&reg_cb, status);
}

/* Register a handler for every code with info[], as Open MPI does: accepted, and the
 * registration callback says so. */
static void register_default(pmix_info_t *info, size_t ninfo, const char *what)
{
    pxc_cb_init(&reg_cb);
    check(PMIx_Register_event_handler(NULL, 0, info, ninfo, evhandler, reg_done, NULL),
          PMIX_SUCCESS, what);
    if (!pxc_cb_wait(&reg_cb, 10))
        pxc_fail("%s: no callback within 10 s", what);
    check(reg_cb.status, PMIX_SUCCESS, what);
}

static void event_handlers(void)
{
    pmix_info_t info[2];

    /* the component's default handler: no codes, no info */
    register_default(NULL, 0, "PMIx_Register_event_handler(default)");
    /* MPI_Init's "MPI-Default" handler: PMIX_EVENT_HDLR_PREPEND given as a bare key */
    PMIx_Info_construct(&info[0]);
    PMIX_LOAD_KEY(info[0].key, PMIX_EVENT_HDLR_PREPEND);
    info[0].value.type = PMIX_UNDEF;
    PMIx_Info_load(&info[1], PMIX_EVENT_HDLR_NAME, "MPI-Default", PMIX_STRING);
    register_default(info, 2,
                     "PMIx_Register_event_handler(PMIX_EVENT_HDLR_PREPEND without a value)");
    PMIx_Info_destruct(&info[1]);
}

static pmix_value_t *get_typed(const pmix_proc_t *p, const char *key, pmix_data_type_t type)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(p, key, NULL, 0, &v);

    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Get(%s): %s", key, PMIx_Error_string(rc));
    if (v->type != type)
        pxc_fail("PMIx_Get(%s): type %s, Open MPI 4.1 reads it as %s", key,
                 PMIx_Data_type_string(v->type), PMIx_Data_type_string(type));
    return v;
}

static void keys(void)
{
    pmix_proc_t wild;
    pmix_value_t *v;
    char mine[16];

    PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
    PMIx_Value_free(get_typed(&me, PMIX_LOCAL_RANK, PMIX_UINT16), 1);
    PMIx_Value_free(get_typed(&me, PMIX_NODE_RANK, PMIX_UINT16), 1);
    v = get_typed(&wild, PMIX_MAX_PROCS, PMIX_UINT32);
    if (v->data.uint32 < (uint32_t)nranks)
        pxc_fail("pmix.max.size %u is below the job size %d", v->data.uint32, nranks);
    PMIx_Value_free(v, 1);
    v = get_typed(&wild, PMIX_JOB_SIZE, PMIX_UINT32);
    if (v->data.uint32 != (uint32_t)nranks)
        pxc_fail("pmix.job.size %u, expected %d", v->data.uint32, nranks);
    PMIx_Value_free(v, 1);
    PMIx_Value_free(get_typed(&wild, PMIX_LOCAL_SIZE, PMIX_UINT32), 1);
    v = get_typed(&wild, PMIX_LOCAL_PEERS, PMIX_STRING);
    snprintf(mine, sizeof(mine), "%u", me.rank);
    bool found = false;
    for (char *s = v->data.string, *tok; (tok = strsep(&s, ",")) != NULL;)
        found = found || strcmp(tok, mine) == 0;
    if (!found)
        pxc_fail("pmix.lpeers does not list this rank");
    PMIx_Value_free(v, 1);
    PMIx_Value_free(get_typed(&me, PMIX_LOCALITY_STRING, PMIX_STRING), 1);
}

/* Gets of keys nobody has: NOT_FOUND without waiting for anyone. */
static void missing_keys(void)
{
    pmix_info_t info;
    pmix_value_t *v = NULL;
    pmix_proc_t wild, peer;
    bool yes = true;

    PMIx_Load_procid(&wild, me.nspace, PMIX_RANK_WILDCARD);
    PMIx_Info_load(&info, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    check(PMIx_Get(&me, "pxc.ompi.none", &info, 1, &v), PMIX_ERR_NOT_FOUND,
          "PMIx_Get(own rank, a key nobody has, PMIX_OPTIONAL)");
    check(PMIx_Get(&wild, "pxc.ompi.none", &info, 1, &v), PMIX_ERR_NOT_FOUND,
          "PMIx_Get(wildcard, a key nobody has, PMIX_OPTIONAL)");
    PMIx_Info_destruct(&info);
    if (nranks < 2)
        return;
    /* the peer has committed nothing yet: it is waiting in the fence for us */
    PMIx_Load_procid(&peer, me.nspace, (me.rank + 1) % (pmix_rank_t)nranks);
    PMIx_Info_load(&info, PMIX_IMMEDIATE, &yes, PMIX_BOOL);
    check(PMIx_Get(&peer, "pxc.ompi.never", &info, 1, &v), PMIX_ERR_NOT_FOUND,
          "PMIx_Get(a peer that committed nothing, PMIX_IMMEDIATE)");
    PMIx_Info_destruct(&info);
}

static void cleanup_dir(const char *dir)
{
    pmix_info_t info[2];
    char file[4096];
    bool yes = true;
    int fd;

    if (dir == NULL || me.rank != 0)
        return;
    snprintf(file, sizeof(file), "%s/session", dir);
    if (mkdir(dir, 0700) != 0 || (fd = open(file, O_CREAT | O_WRONLY, 0600)) < 0)
        pxc_fail("cannot create %s", file);
    close(fd);
    PMIx_Info_load(&info[0], PMIX_REGISTER_CLEANUP_DIR, dir, PMIX_STRING);
    PMIx_Info_load(&info[1], PMIX_CLEANUP_RECURSIVE, &yes, PMIX_BOOL);
    check(PMIx_Job_control_nb(&me, 1, info, 2, NULL, NULL), PMIX_SUCCESS,
          "PMIx_Job_control_nb(PMIX_REGISTER_CLEANUP_DIR, no callback)");
    PMIx_Info_destruct(&info[0]);
    PMIx_Info_destruct(&info[1]);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;

    pxc_name = "pxc_ompi";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--cleanup-dir") == 0 && i + 1 < argc)
            dir = argv[++i];
        else
            pxc_fail("unknown argument %s", argv[i]);
    }
    version();
    pxc_init(&me, &nranks);
    nested_init();
    event_handlers();
    keys();
    if (me.rank == 0)
        missing_keys();
    cleanup_dir(dir);
    pmix_info_t info;
    bool yes = true;
    PMIx_Info_load(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    check(PMIx_Fence(NULL, 0, &info, 1), PMIX_SUCCESS, "PMIx_Fence(collect)");
    PMIx_Info_destruct(&info);
    check(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    printf("pxc_ompi: rank %u ok\n", me.rank);
    return 0;
}
