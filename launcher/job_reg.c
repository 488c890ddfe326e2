/* launcher: what the Server chapter asks of a host around a job's registration — the
 * keys it must register beyond sizes and maps (job, node and process realms), and the
 * application setup (PMIx_server_setup_application before the job is launched, its data
 * handed to PMIx_server_setup_local_support before the processes are forked). Controller
 * loop, except the setup callback (library thread), which shifts back to it.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/px_common.h"
#include "launcher/dvm_int.h"

static int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw);

/* A controller killed without cleaning up (kill -9) left its jobs' directories: once
 * their pid is gone and they are ours, the next controller removes them. */
static void sweep_stale_dirs(px_dvm_t *dvm, const char *tmp)
{
    DIR *d = opendir(tmp);
    struct dirent *e;
    if (d == NULL) {
        return;
    }
    while ((e = readdir(d)) != NULL) {
        int pid = 0, end = 0;
        unsigned jobid;
        char *path = NULL;
        struct stat st;
        if (sscanf(e->d_name, "prte.%d.%u%n", &pid, &jobid, &end) != 2 || e->d_name[end] != '\0' ||
            pid == (int)getpid() || !px_pid_gone((pid_t)pid) ||
            asprintf(&path, "%s/%s", tmp, e->d_name) < 0) {
            continue;
        }
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid()) {
            px_dvm_log(dvm, 1, "removing %s: its controller (pid %d) is gone", path, pid);
            nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        }
        free(path);
    }
    closedir(d);
}

/* The job's temporary directory (PMIX_NSDIR) "<TMPDIR or /tmp>/prte.<pid>.<jobid>",
 * with one PMIX_PROCDIR per rank inside, made at registration and removed with
 * everything in them when the job is freed. The first job also removes the stale
 * directories of dead controllers. */
static void make_dirs(px_job_t *j)
{
    const char *tmp = getenv("TMPDIR");
    if (!j->dvm->swept_stale_dirs) {
        j->dvm->swept_stale_dirs = true;
        sweep_stale_dirs(j->dvm, tmp && *tmp ? tmp : "/tmp");
    }
    if (asprintf(&j->nsdir, "%s/prte.%d.%u", tmp && *tmp ? tmp : "/tmp", (int)getpid(), j->jobid) <
        0) {
        j->nsdir = NULL;
        return;
    }
    if (mkdir(j->nsdir, 0700) != 0 && errno != EEXIST) {
        px_dvm_log(j->dvm, 1, "%s: cannot make %s: %s", j->nspace, j->nsdir, strerror(errno));
        free(j->nsdir);
        j->nsdir = NULL;
    }
}

static int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if ((type == FTW_DP ? rmdir(path) : unlink(path)) != 0) {
        /* nftw passes no context: the developer log of every side */
        px_debug(1, "prte", "cannot remove %s: %s", path, strerror(errno));
    }
    return 0;
}

void px_job_reg_cleanup(px_job_t *j)
{
    if (j->nsdir != NULL) {
        nftw(j->nsdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(j->nsdir);
        j->nsdir = NULL;
    }
}

/* Job realm (and this node's, one node): the server's and the job's identity, the
 * session, the node list, whether the job has more processes than the node has slots,
 * the processes on this node, the job's directory. */
pmix_status_t px_job_reg_host_keys(px_job_t *j, void *list)
{
    pmix_rank_t zero = 0;
    uint32_t session = (uint32_t)getpid(); /* one DVM = one session on this node */
    pmix_status_t rc = PMIx_Info_list_add(list, PMIX_NSPACE, j->nspace, PMIX_STRING);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_add(list, PMIX_SERVER_NSPACE, j->dvm->nspace, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_add(list, PMIX_SERVER_RANK, &zero, PMIX_PROC_RANK);
    }
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_add(list, PMIX_SESSION_ID, &session, PMIX_UINT32);
    }
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_add(list, PMIX_NODE_LIST, j->dvm->hostname, PMIX_STRING);
    }
    bool over = j->nprocs > (size_t)(j->dvm->node.slots > 0 ? j->dvm->node.slots : 0);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_add(list, PMIX_NODE_OVERSUBSCRIBED, &over, PMIX_BOOL);
    }
    pmix_data_array_t procs = PMIX_DATA_ARRAY_STATIC_INIT;
    if (rc == PMIX_SUCCESS && j->nprocs > 0) {
        pmix_proc_t *p = calloc(j->nprocs, sizeof(*p));
        rc = p != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
        procs.type = PMIX_PROC;
        for (size_t r = 0; p != NULL && r < j->nprocs; r++) {
            p[r] = j->procs[r].proc;
        }
        procs.array = p;
        procs.size = p != NULL ? j->nprocs : 0;
    }
    if (rc == PMIX_SUCCESS && procs.size > 0) {
        rc = PMIx_Info_list_add(list, PMIX_LOCAL_PROCS, &procs, PMIX_DATA_ARRAY);
    }
    PMIx_Data_array_destruct(&procs);
    if (rc == PMIX_SUCCESS && j->nsdir == NULL) {
        make_dirs(j);
    }
    if (rc == PMIX_SUCCESS && j->nsdir != NULL) {
        rc = PMIx_Info_list_add(list, PMIX_NSDIR, j->nsdir, PMIX_STRING);
    }
    const pmix_proc_t *parent = px_job_parent(j); /* spawned from inside a job */
    if (rc == PMIX_SUCCESS && parent != NULL) {
        rc = PMIx_Info_list_add(list, PMIX_PARENT_ID, parent, PMIX_PROC);
    }
    return rc;
}

/* Process realm: never restarted; spawned when a process of another job asked for it;
 * its directory inside the job's. */
void px_job_reg_proc_keys(const px_job_t *j, pmix_rank_t rank, bool spawned, void *pl)
{
    char *dir = NULL;
    if (j->nsdir != NULL && asprintf(&dir, "%s/%u", j->nsdir, rank) >= 0) {
        if (mkdir(dir, 0700) == 0 || errno == EEXIST) {
            PMIx_Info_list_add(pl, PMIX_PROCDIR, dir, PMIX_STRING);
        } else {
            px_dvm_log(j->dvm, 1, "%s: cannot make %s: %s", j->nspace, dir, strerror(errno));
        }
        free(dir);
    }
    uint32_t reinc = 0;
    PMIx_Info_list_add(pl, PMIX_REINCARNATION, &reinc, PMIX_UINT32);
    PMIx_Info_list_add(pl, PMIX_SPAWNED, &spawned, PMIX_BOOL);
}

/* ---- application setup ---- */

typedef struct {
    px_dvm_t *dvm;
    char nspace[PMIX_MAX_NSLEN + 1];
    pmix_info_t *req; /* owned: the request, borrowed by the library until setup_cb */
    size_t nreq;
    pmix_status_t status;
    pmix_info_t *info; /* owned copy of the library's answer */
    size_t ninfo;
    px_job_setup_done_t done;
} setup_t;

static void setup_on_loop(void *arg)
{
    setup_t *s = arg;
    px_job_t *j = px_job_find(s->dvm, s->nspace);
    if (j != NULL) { /* a job waiting for its setup never ends meanwhile */
        s->done(j, s->status, s->info, s->ninfo);
    }
    PMIx_Info_free(s->info, s->ninfo);
    PMIx_Info_free(s->req, s->nreq);
    free(s);
}

/* Library thread: copy the answer, give the library its array back, go to the loop. */
static void setup_cb(pmix_status_t status, pmix_info_t info[], size_t ninfo, void *provided_cbdata,
                     pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    setup_t *s = provided_cbdata;
    s->status = status;
    if (status == PMIX_SUCCESS && ninfo > 0) {
        s->info = PMIx_Info_create(ninfo);
        s->status = s->info != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
        for (size_t i = 0; s->info != NULL && i < ninfo; i++) {
            PMIx_Info_xfer(&s->info[i], &info[i]);
        }
        s->ninfo = s->info != NULL ? ninfo : 0;
    }
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, cbdata);
    }
    if (px_dvm_shift(s->dvm, setup_on_loop, s) != 0) {
        /* cannot happen short of memory; the job then waits for its timeout or pterm */
        px_dvm_log(s->dvm, 0, "%s: lost the application setup answer", s->nspace);
        PMIx_Info_free(s->info, s->ninfo);
        PMIx_Info_free(s->req, s->nreq);
        free(s);
    }
}

static bool is_model_key(const pmix_info_t *in)
{
    return PMIX_CHECK_KEY(in, PMIX_PROGRAMMING_MODEL) ||
           PMIX_CHECK_KEY(in, PMIX_MODEL_LIBRARY_NAME) ||
           PMIX_CHECK_KEY(in, PMIX_MODEL_LIBRARY_VERSION);
}

pmix_status_t px_job_setup_app(px_job_t *j, const char *node_map, const char *proc_map,
                               const pmix_info_t *job_info, size_t njob_info,
                               px_job_setup_done_t done)
{
    size_t nmodel = 0;
    for (size_t i = 0; i < njob_info; i++) {
        nmodel += is_model_key(&job_info[i]);
    }
    pmix_info_t *info = PMIx_Info_create(3 + nmodel);
    setup_t *s = calloc(1, sizeof(*s));
    if (info == NULL || s == NULL) {
        PMIx_Info_free(info, 3 + nmodel);
        free(s);
        return PMIX_ERR_NOMEM;
    }
    bool yes = true;
    size_t n = 0;
    PMIx_Info_load(&info[n++], PMIX_NODE_MAP, node_map, PMIX_STRING);
    PMIx_Info_load(&info[n++], PMIX_PROC_MAP, proc_map, PMIX_STRING);
    PMIx_Info_load(&info[n++], PMIX_SETUP_APP_ALL, &yes, PMIX_BOOL);
    for (size_t i = 0; i < njob_info; i++) {
        if (is_model_key(&job_info[i])) {
            PMIx_Info_xfer(&info[n++], &job_info[i]);
        }
    }
    s->dvm = j->dvm;
    snprintf(s->nspace, sizeof(s->nspace), "%s", j->nspace);
    s->done = done;
    s->req = info;
    s->nreq = 3 + nmodel;
    pmix_status_t rc = PMIx_server_setup_application(j->nspace, info, n, setup_cb, s);
    if (rc != PMIX_SUCCESS) {
        PMIx_Info_free(info, 3 + nmodel);
        free(s);
    }
    return rc;
}
