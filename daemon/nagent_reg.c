/* daemon: the node agent's registration of a job with the PMIx server of its process
 * (PMIx_server_register_nspace with this node's facts, the local clients, the job's
 * directory) and the bindings left to this daemon (PX_DP_PROC_BIND_LATER). Every daemon
 * registers every job, with or without local processes, so a process can read any job's
 * data from its own server. Daemon's loop only (the blocking server calls are made from
 * it, which is never the library's thread).
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

#include "util/px_info_list.h"
#include "common/px_common.h"
#include "daemon/nagent_int.h"

/* ---- the job's directories (PMIX_NSDIR, PMIX_PROCDIR) ---- */

static int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if ((type == FTW_DP ? rmdir(path) : unlink(path)) != 0) {
        px_debug(1, "nagent", "cannot remove %s: %s", path, strerror(errno));
    }
    return 0;
}

static const char *tmpdir(void)
{
    const char *tmp = getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/tmp";
}

/* A daemon killed without cleaning up (kill -9) left its jobs' directories
 * "prte.<pid>.<n>": once their pid is gone and they are ours, the next agent on the
 * node removes them when it starts (px_nagent_create). */
void px_na_sweep_stale_dirs(void)
{
    const char *tmp = tmpdir();
    DIR *d = opendir(tmp);
    struct dirent *e;
    if (d == NULL) {
        return;
    }
    while ((e = readdir(d)) != NULL) {
        int pid = 0, end = 0;
        unsigned n;
        char *path = NULL;
        struct stat st;
        if (sscanf(e->d_name, "prte.%d.%u%n", &pid, &n, &end) != 2 || e->d_name[end] != '\0' ||
            pid == (int)getpid() || !px_pid_gone((pid_t)pid) ||
            asprintf(&path, "%s/%s", tmp, e->d_name) < 0) {
            continue;
        }
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid()) {
            px_debug(1, "nagent", "removing %s: its daemon (pid %d) is gone", path, pid);
            nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        }
        free(path);
    }
    closedir(d);
}

/* "<TMPDIR or /tmp>/prte.<pid>.<n>", n counting this agent's jobs. */
static void make_nsdir(px_nagent_t *a, na_job_t *j)
{
    const char *tmp = tmpdir();
    if (asprintf(&j->nsdir, "%s/prte.%d.%u", tmp, (int)getpid(), ++a->ndirs) < 0) {
        j->nsdir = NULL;
        return;
    }
    if (mkdir(j->nsdir, 0700) != 0 && errno != EEXIST) {
        px_debug(1, "nagent", "%s: cannot make %s: %s", j->nspace, j->nsdir, strerror(errno));
        free(j->nsdir);
        j->nsdir = NULL;
    }
}

/* ---- bindings left to this daemon ---- */

static hwloc_obj_type_t bind_type(uint8_t obj, uint16_t pe)
{
    if (pe > 0) {
        return HWLOC_OBJ_CORE;
    }
    switch (obj) {
    case PX_DP_BIND_CORE:
        return HWLOC_OBJ_CORE;
    case PX_DP_BIND_PACKAGE:
        return HWLOC_OBJ_PACKAGE;
    case PX_DP_BIND_HWTHREAD:
        return HWLOC_OBJ_PU;
    default:
        return HWLOC_OBJ_TYPE_MAX;
    }
}

/* The PUs the other jobs' live processes on this node are bound to. */
static hwloc_bitmap_t held_cpus(px_nagent_t *a, const na_job_t *self)
{
    hwloc_bitmap_t held = hwloc_bitmap_alloc();
    hwloc_bitmap_t one = hwloc_bitmap_alloc();
    for (na_job_t *j = a->jobs; held != NULL && one != NULL && j != NULL; j = j->next) {
        for (size_t r = 0; j != self && r < j->nprocs; r++) {
            const char *cs = j->procs[r].cpuset;
            if (j->procs[r].child != NULL && cs != NULL && strncmp(cs, "hwloc:", 6) == 0 &&
                hwloc_bitmap_list_sscanf(one, cs + 6) == 0) {
                hwloc_bitmap_or(held, held, one);
            }
        }
    }
    hwloc_bitmap_free(one);
    return held;
}

int px_na_bind_later(px_nagent_t *a, na_job_t *j, const px_dp_launch_t *l)
{
    hwloc_obj_type_t type = bind_type(l->bind_obj, l->pe);
    bool any = false;
    for (size_t r = 0; r < l->nprocs && !any; r++) {
        any = j->procs[r].local && (l->procs[r].flags & PX_DP_PROC_BIND_LATER);
    }
    if (!any || type == HWLOC_OBJ_TYPE_MAX) {
        return 0; /* nothing to bind here: such processes run unbound */
    }
    int nobjs = hwloc_get_nbobjs_by_type(a->o.topo, type);
    hwloc_obj_t *order = calloc(nobjs > 0 ? (size_t)nobjs : 1, sizeof(*order));
    hwloc_bitmap_t held = held_cpus(a, j);
    int rc = -1;
    if (nobjs <= 0 || order == NULL || held == NULL) {
        rc = nobjs <= 0 ? 0 : -1;
        goto out;
    }
    /* the objects no other job holds first, then the held ones, each in logical order */
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < nobjs; i++) {
            hwloc_obj_t o = hwloc_get_obj_by_type(a->o.topo, type, (unsigned)i);
            if (o != NULL && hwloc_bitmap_intersects(o->cpuset, held) == (pass == 1)) {
                order[n++] = o;
            }
        }
    }
    /* the k-th such process of this node (by local rank, which counts in rank order)
     * takes the k-th object (pe of them with :PE); packages are dealt round; beyond the
     * objects a process is not bound, as the mapper does */
    size_t k = 0;
    size_t per = l->pe > 0 ? l->pe : 1;
    for (size_t r = 0; r < l->nprocs; r++) {
        na_proc_t *p = &j->procs[r];
        if (!p->local || !(l->procs[r].flags & PX_DP_PROC_BIND_LATER)) {
            continue;
        }
        size_t first = type == HWLOC_OBJ_PACKAGE ? k % (size_t)n : k * per;
        k++;
        if (first + per > (size_t)n) {
            continue;
        }
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        char *list = NULL;
        for (size_t i = first; set != NULL && i < first + per; i++) {
            hwloc_bitmap_or(set, set, order[i]->cpuset);
        }
        if (set == NULL || hwloc_bitmap_list_asprintf(&list, set) < 0 ||
            asprintf(&p->cpuset, "hwloc:%s", list) < 0) {
            p->cpuset = NULL;
            hwloc_bitmap_free(set);
            free(list);
            rc = -1;
            goto out;
        }
        hwloc_bitmap_free(set);
        free(list);
    }
    rc = 0;
out:
    hwloc_bitmap_free(held);
    free(order);
    return rc;
}

/* ---- registration ---- */

/* Per node of the launch: its ranks (PMIX_LOCAL_PEERS), their count, the first. */
typedef struct {
    char *peers; /* owned */
    size_t len, cap;
    uint32_t n;
    pmix_rank_t first;
} node_ranks_t;

static int peers_add(node_ranks_t *nr, pmix_rank_t r)
{
    if (nr->len + 12 > nr->cap) {
        size_t cap = nr->cap ? 2 * nr->cap : 64;
        char *p = realloc(nr->peers, cap);
        if (p == NULL) {
            return -1;
        }
        nr->peers = p;
        nr->cap = cap;
    }
    nr->len += (size_t)snprintf(nr->peers + nr->len, nr->cap - nr->len, nr->n ? ",%u" : "%u", r);
    if (nr->n++ == 0) {
        nr->first = r;
    }
    return 0;
}

/* Node realm: every node of the job (name, id, its ranks), this one's size and
 * oversubscription. */
static pmix_status_t node_realm(px_nagent_t *a, const px_dp_launch_t *l, node_ranks_t *nr,
                                size_t mine, uint32_t node_size, void *list)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < l->nnodes; i++) {
        void *nl = PMIx_Info_list_start();
        bool over = (l->nodes[i].flags & PX_DP_NODE_OVERSUB) != 0;
        PMIx_Info_list_add(nl, PMIX_HOSTNAME, l->nodes[i].name, PMIX_STRING);
        px_ilist_add_u32(nl, PMIX_NODEID, l->nodes[i].daemon);
        px_ilist_add_u32(nl, PMIX_LOCAL_SIZE, nr[i].n);
        PMIx_Info_list_add(nl, PMIX_NODE_OVERSUBSCRIBED, &over, PMIX_BOOL);
        if (nr[i].n > 0) {
            PMIx_Info_list_add(nl, PMIX_LOCAL_PEERS, nr[i].peers, PMIX_STRING);
            PMIx_Info_list_add(nl, PMIX_LOCALLDR, &nr[i].first, PMIX_PROC_RANK);
        }
        if (i == mine) {
            px_ilist_add_u32(nl, PMIX_NODE_SIZE, node_size);
        }
        rc = px_ilist_add_array(list, PMIX_NODE_INFO_ARRAY, nl);
    }
    (void)a;
    return rc;
}

/* Job realm as this node sees it: the controller's part (l->reg), this server's rank,
 * the node count, this node's id, name, local size, peers, leader, processes and
 * oversubscription, the job's directory. */
static pmix_status_t job_realm(px_nagent_t *a, na_job_t *j, const px_dp_launch_t *l,
                               node_ranks_t *nr, size_t mine, uint32_t node_size, void *list)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < l->nreg; i++) {
        rc = PMIx_Info_list_xfer(list, &l->reg[i]);
    }
    pmix_rank_t me = a->o.self;
    PMIx_Info_list_add(list, PMIX_SERVER_RANK, &me, PMIX_PROC_RANK);
    px_ilist_add_u32(list, PMIX_NUM_NODES, (uint32_t)l->nnodes);
    px_ilist_add_u32(list, PMIX_NODEID, a->o.self);
    PMIx_Info_list_add(list, PMIX_HOSTNAME, a->o.node, PMIX_STRING);
    uint32_t nlocal = mine < l->nnodes ? nr[mine].n : 0;
    px_ilist_add_u32(list, PMIX_LOCAL_SIZE, nlocal);
    px_ilist_add_u32(list, PMIX_NODE_SIZE, node_size);
    bool over = mine < l->nnodes && (l->nodes[mine].flags & PX_DP_NODE_OVERSUB) != 0;
    PMIx_Info_list_add(list, PMIX_NODE_OVERSUBSCRIBED, &over, PMIX_BOOL);
    if (nlocal > 0) {
        PMIx_Info_list_add(list, PMIX_LOCAL_PEERS, nr[mine].peers, PMIX_STRING);
        PMIx_Info_list_add(list, PMIX_LOCALLDR, &nr[mine].first, PMIX_PROC_RANK);
        pmix_proc_t *p = PMIx_Proc_create(nlocal);
        if (p == NULL) {
            return PMIX_ERR_NOMEM;
        }
        size_t k = 0;
        for (size_t r = 0; r < j->nprocs; r++) {
            if (j->procs[r].local) {
                PMIx_Load_procid(&p[k++], j->nspace, (pmix_rank_t)r);
            }
        }
        pmix_data_array_t da = {.type = PMIX_PROC, .size = nlocal, .array = p};
        rc = PMIx_Info_list_add(list, PMIX_LOCAL_PROCS, &da, PMIX_DATA_ARRAY);
        PMIx_Proc_free(p, nlocal);
    }
    if (j->nsdir == NULL) {
        make_nsdir(a, j);
    }
    if (rc == PMIX_SUCCESS && j->nsdir != NULL) {
        rc = PMIx_Info_list_add(list, PMIX_NSDIR, j->nsdir, PMIX_STRING);
    }
    /* The job's directory is also its PMIX_TMPDIR (else the server's tmpdir, where the
     * DVM's sockets and rendezvous files live, or /tmp): a process may treat it as its
     * own — Open MPI 4.1 removes every file in it when its MPI_Init fails (issue 19). */
    if (rc == PMIX_SUCCESS && j->nsdir != NULL) {
        rc = PMIx_Info_list_add(list, PMIX_TMPDIR, j->nsdir, PMIX_STRING);
    }
    return rc;
}

/* Process realm: every rank's place; a local rank's directory, binding, spawned flag. */
static pmix_status_t proc_realm(na_job_t *j, const px_dp_launch_t *l, void *list)
{
    uint32_t *app_next = calloc(l->napps, sizeof(*app_next));
    if (app_next == NULL) {
        return PMIX_ERR_NOMEM;
    }
    bool spawned = (l->flags & PX_DP_JOB_SPAWNED) != 0;
    uint32_t reinc = 0;
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t r = 0; rc == PMIX_SUCCESS && r < l->nprocs; r++) {
        const px_dp_lproc_t *lp = &l->procs[r];
        const px_dp_lnode_t *node = &l->nodes[lp->node];
        na_proc_t *p = &j->procs[r];
        pmix_rank_t rank = (pmix_rank_t)r, app_rank = app_next[lp->app]++;
        void *pl = PMIx_Info_list_start();
        PMIx_Info_list_add(pl, PMIX_RANK, &rank, PMIX_PROC_RANK);
        px_ilist_add_u32(pl, PMIX_APPNUM, lp->app);
        PMIx_Info_list_add(pl, PMIX_APP_RANK, &app_rank, PMIX_PROC_RANK);
        PMIx_Info_list_add(pl, PMIX_GLOBAL_RANK, &rank, PMIX_PROC_RANK);
        PMIx_Info_list_add(pl, PMIX_LOCAL_RANK, &lp->local_rank, PMIX_UINT16);
        PMIx_Info_list_add(pl, PMIX_NODE_RANK, &lp->node_rank, PMIX_UINT16);
        px_ilist_add_u32(pl, PMIX_NODEID, node->daemon);
        PMIx_Info_list_add(pl, PMIX_HOSTNAME, node->name, PMIX_STRING);
        if (p->local) {
            char *dir = NULL;
            if (j->nsdir != NULL && asprintf(&dir, "%s/%u", j->nsdir, rank) >= 0) {
                if (mkdir(dir, 0700) == 0 || errno == EEXIST) {
                    PMIx_Info_list_add(pl, PMIX_PROCDIR, dir, PMIX_STRING);
                }
                free(dir);
            }
            PMIx_Info_list_add(pl, PMIX_REINCARNATION, &reinc, PMIX_UINT32);
            PMIx_Info_list_add(pl, PMIX_SPAWNED, &spawned, PMIX_BOOL);
            if (p->cpuset != NULL) {
                /* "hwloc:<list>"; the server library adds PMIX_LOCALITY_STRING from it */
                PMIx_Info_list_add(pl, PMIX_CPUSET, p->cpuset, PMIX_STRING);
            }
        }
        rc = px_ilist_add_array(list, PMIX_PROC_INFO_ARRAY, pl);
    }
    free(app_next);
    return rc;
}

/* Processes of every job alive on this node, and those this job brings. */
static uint32_t node_size(px_nagent_t *a, const na_job_t *self, uint32_t nlocal)
{
    size_t n = nlocal;
    for (na_job_t *j = a->jobs; j != NULL; j = j->next) {
        n += j != self ? j->nalive : 0;
    }
    return (uint32_t)n;
}

pmix_status_t px_na_register(px_nagent_t *a, na_job_t *j, const px_dp_launch_t *l)
{
    node_ranks_t *nr = calloc(l->nnodes ? l->nnodes : 1, sizeof(*nr));
    if (nr == NULL) {
        return PMIX_ERR_NOMEM;
    }
    size_t mine = l->nnodes; /* none: no process of the job here */
    for (size_t i = 0; i < l->nnodes; i++) {
        if (l->nodes[i].daemon == a->o.self) {
            mine = i;
        }
    }
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t r = 0; rc == PMIX_SUCCESS && r < l->nprocs; r++) {
        rc = peers_add(&nr[l->procs[r].node], (pmix_rank_t)r) == 0 ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    uint32_t nsize = node_size(a, j, mine < l->nnodes ? nr[mine].n : 0);
    void *list = PMIx_Info_list_start();
    if (rc == PMIX_SUCCESS) {
        rc = job_realm(a, j, l, nr, mine, nsize, list);
    }
    if (rc == PMIX_SUCCESS) {
        rc = node_realm(a, l, nr, mine, nsize, list);
    }
    if (rc == PMIX_SUCCESS) {
        rc = proc_realm(j, l, list);
    }
    pmix_data_array_t da = PMIX_DATA_ARRAY_STATIC_INIT;
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Info_list_convert(list, &da);
    }
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_server_register_nspace(j->nspace, (int)(mine < l->nnodes ? nr[mine].n : 0),
                                         da.array, da.size, NULL, NULL);
        rc = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
        j->registered = rc == PMIX_SUCCESS;
        PMIx_Data_array_destruct(&da);
    }
    PMIx_Info_list_release(list);
    for (size_t i = 0; i < l->nnodes; i++) {
        free(nr[i].peers);
    }
    free(nr);
    if (rc == PMIX_SUCCESS) {
        /* the application setup data, before any local process is forked */
        rc = PMIx_server_setup_local_support(j->nspace, l->setup, l->nsetup, NULL, NULL);
        rc = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
    }
    uid_t uid = getuid();
    gid_t gid = getgid();
    for (size_t r = 0; rc == PMIX_SUCCESS && r < j->nprocs; r++) {
        na_proc_t *p = &j->procs[r];
        if (!p->local) {
            continue;
        }
        pmix_proc_t proc;
        PMIx_Load_procid(&proc, j->nspace, (pmix_rank_t)r);
        rc = PMIx_server_register_client(&proc, uid, gid, p, NULL, NULL);
        rc = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
        p->registered = rc == PMIX_SUCCESS;
    }
    if (rc != PMIX_SUCCESS) {
        px_debug(1, "nagent", "%s: registration failed: %s", j->nspace, PMIx_Error_string(rc));
    }
    return rc;
}

void px_na_deregister(na_job_t *j)
{
    for (size_t r = 0; j->procs != NULL && r < j->nprocs; r++) {
        if (j->procs[r].registered) {
            pmix_proc_t proc;
            PMIx_Load_procid(&proc, j->nspace, (pmix_rank_t)r);
            PMIx_server_deregister_client(&proc, NULL, NULL);
            j->procs[r].registered = false;
        }
    }
    if (j->registered) {
        PMIx_server_deregister_nspace(j->nspace, NULL, NULL);
        j->registered = false;
    }
    if (j->nsdir != NULL) {
        nftw(j->nsdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(j->nsdir);
        j->nsdir = NULL;
    }
}
