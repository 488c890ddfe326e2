/* server: client requests the host answers through its module — finalize, publish,
 * lookup, unpublish, abort, job control, log — and the cleanup registrations job
 * control may carry. Requests arrive on the loop (lock held); the upcalls are made later
 * on the loop without it (px_srv_upcall); the host's callbacks may come from any thread
 * and are shifted back to the loop to send the reply.
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "server/px_server.h"
#include "types/px_types.h"

typedef struct up up_t;

/* One request in the host's hands. Everything the upcall borrowed lives here until the
 * host calls back. */
struct up {
    px_srv_client_t *client; /* counted */
    uint32_t seq;
    uint32_t tag;
    pmix_status_t status;
    pmix_data_buffer_t body; /* reply after the status */
    pmix_info_t *info;       /* owned */
    size_t ninfo;
    pmix_info_t *info2; /* owned */
    size_t ninfo2;
    char **keys;        /* owned argv */
    pmix_proc_t *procs; /* owned */
    size_t nprocs;
    char *msg; /* owned */
    int32_t abort_status;
    /* the upcall itself (no lock held): its immediate answer, as the module gives it */
    pmix_status_t (*call)(up_t *u);
};

/* NULL when out of memory, the client already answered. */
static up_t *up_new(px_srv_client_t *c, uint32_t seq, uint32_t tag)
{
    up_t *u = calloc(1, sizeof(*u));
    if (u == NULL) {
        px_srv_reply(c, seq, tag, PMIX_ERR_NOMEM, NULL);
    } else {
        u->client = c;
        px_srv_client_retain(c);
        u->seq = seq;
        u->tag = tag;
        px_bfrops_buf_init(&u->body);
    }
    return u;
}

static void up_finish(up_t *u)
{
    px_srv_reply(u->client, u->seq, u->tag, u->status, u->status == PMIX_SUCCESS ? &u->body : NULL);
    px_srv_client_release(u->client);
    px_bfrops_buf_free(&u->body);
    px_bfrops_info_array_free(u->info, u->ninfo);
    px_bfrops_info_array_free(u->info2, u->ninfo2);
    PMIx_Argv_free(u->keys);
    free(u->procs);
    free(u->msg);
    free(u);
}

static void up_finish_on_loop(void *arg)
{
    up_finish(arg);
}

/* Host callbacks, any thread. */
static void up_op_cb(pmix_status_t status, void *cbdata)
{
    up_t *u = cbdata;
    u->status = status;
    if (px_srv_shift(up_finish_on_loop, u) != 0) {
        px_debug(1, "server", "cannot deliver the host's answer (tag %u)", u->tag);
    }
}

static void up_info_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                       pmix_release_cbfunc_t relfn, void *relcbdata)
{
    up_t *u = cbdata;
    u->status = status;
    if (status == PMIX_SUCCESS) {
        u->status = px_bfrops_pack_info_array(&u->body, info, ninfo);
    }
    if (relfn != NULL) {
        relfn(relcbdata);
    }
    up_op_cb(u->status, u);
}

static void up_lookup_cb(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata)
{
    up_t *u = cbdata;
    u->status = status;
    if (status == PMIX_SUCCESS) {
        u->status = px_bfrops_pack(&u->body, &ndata, 1, PMIX_SIZE);
        if (u->status == PMIX_SUCCESS && ndata > 0) {
            u->status = px_bfrops_pack(&u->body, data, (int32_t)ndata, PMIX_PDATA);
        }
    }
    up_op_cb(u->status, u);
}

/* The upcall's immediate answer: PMIX_SUCCESS means the callback will come. */
static void up_started(up_t *u, pmix_status_t rc)
{
    if (rc == PMIX_SUCCESS) {
        return;
    }
    u->status = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
    up_finish(u);
}

/* Loop, no lock held: the module call, then its immediate answer under the lock. */
static void up_upcall(void *arg)
{
    up_t *u = arg;
    pmix_status_t rc = u->call(u);
    pthread_mutex_lock(&px_srv->lock);
    up_started(u, rc);
    pthread_mutex_unlock(&px_srv->lock);
}

/* Hand u to the host: call(u) runs later, outside the lock (px_srv_upcall). */
static void up_launch(up_t *u, pmix_status_t (*call)(up_t *u))
{
    u->call = call;
    if (px_srv_upcall(up_upcall, u) != 0) {
        up_started(u, PMIX_ERR_OUT_OF_RESOURCE);
    }
}

/* info + PMIX_USERID + PMIX_GRPID of the requesting client. */
static pmix_status_t add_ids(up_t *u)
{
    pmix_info_t *all = PMIx_Info_create(u->ninfo + 2);
    if (all == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < u->ninfo; i++) {
        PMIx_Info_xfer(&all[i], &u->info[i]);
    }
    uint32_t uid = (uint32_t)u->client->uid, gid = (uint32_t)u->client->gid;
    PMIx_Info_load(&all[u->ninfo], PMIX_USERID, &uid, PMIX_UINT32);
    PMIx_Info_load(&all[u->ninfo + 1], PMIX_GRPID, &gid, PMIX_UINT32);
    px_bfrops_info_array_free(u->info, u->ninfo);
    u->info = all;
    u->ninfo += 2;
    return PMIX_SUCCESS;
}

static pmix_status_t unpack_keys(pmix_data_buffer_t *payload, char ***keys)
{
    size_t n = 0;
    int32_t one = 1;
    pmix_status_t rc = px_srv_count(payload, px_bfrops_wire_item(PMIX_STRING, 1), 0, &n);
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        char *k = NULL;
        one = 1;
        rc = px_bfrops_unpack(payload, &k, &one, PMIX_STRING);
        if (rc == PMIX_SUCCESS) {
            rc = k ? PMIx_Argv_append_nosize(keys, k) : PMIX_ERR_BAD_PARAM;
        }
        free(k);
    }
    return rc;
}

/* ---- finalize ---- */

static pmix_status_t call_finalized(up_t *u)
{
    px_srv_client_t *c = u->client;
    pmix_status_t rc = px_srv->module.client_finalized(&c->proc, c->server_object, up_op_cb, u);
    /* the client is finalized whatever the host answered */
    return rc == PMIX_SUCCESS ? rc : PMIX_OPERATION_SUCCEEDED;
}

void px_srv_finalize_req(px_srv_client_t *c, uint32_t seq)
{
    c->finalized = true;
    up_t *u = up_new(c, seq, PX_TAG_FINALIZE);
    if (u == NULL) {
        return; /* answered; the client leaves anyway */
    }
    if (px_srv->module.client_finalized == NULL) {
        up_started(u, PMIX_OPERATION_SUCCEEDED);
        return;
    }
    up_launch(u, call_finalized);
}

/* ---- publish / lookup / unpublish ---- */

static pmix_status_t call_publish(up_t *u)
{
    return px_srv->module.publish(&u->client->proc, u->info, u->ninfo, up_op_cb, u);
}

static pmix_status_t call_lookup(up_t *u)
{
    return px_srv->module.lookup(&u->client->proc, u->keys, u->info, u->ninfo, up_lookup_cb, u);
}

static pmix_status_t call_unpublish(up_t *u)
{
    /* NULL keys: everything this process published */
    return px_srv->module.unpublish(&u->client->proc, u->keys, u->info, u->ninfo, up_op_cb, u);
}

void px_srv_publish(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    up_t *u = up_new(c, seq, PX_TAG_PUBLISH);
    if (u == NULL) {
        return;
    }
    pmix_status_t rc = px_bfrops_unpack_info_array(payload, &u->info, &u->ninfo);
    if (rc == PMIX_SUCCESS) {
        rc = px_srv->module.publish ? add_ids(u) : PMIX_ERR_NOT_SUPPORTED;
    }
    if (rc == PMIX_SUCCESS) {
        up_launch(u, call_publish);
        return;
    }
    up_started(u, rc);
}

void px_srv_lookup(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    up_t *u = up_new(c, seq, PX_TAG_LOOKUP);
    if (u == NULL) {
        return;
    }
    pmix_status_t rc = unpack_keys(payload, &u->keys);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(payload, &u->info, &u->ninfo);
    }
    if (rc == PMIX_SUCCESS && u->keys == NULL) {
        rc = PMIX_ERR_BAD_PARAM;
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_srv->module.lookup ? add_ids(u) : PMIX_ERR_NOT_SUPPORTED;
    }
    if (rc == PMIX_SUCCESS) {
        up_launch(u, call_lookup);
        return;
    }
    up_started(u, rc);
}

void px_srv_unpublish(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    up_t *u = up_new(c, seq, PX_TAG_UNPUBLISH);
    if (u == NULL) {
        return;
    }
    pmix_status_t rc = unpack_keys(payload, &u->keys);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(payload, &u->info, &u->ninfo);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_srv->module.unpublish ? add_ids(u) : PMIX_ERR_NOT_SUPPORTED;
    }
    if (rc == PMIX_SUCCESS) {
        up_launch(u, call_unpublish);
        return;
    }
    up_started(u, rc);
}

/* ---- abort ---- */

static pmix_status_t call_abort(up_t *u)
{
    px_srv_client_t *c = u->client;
    return px_srv->module.abort(&c->proc, c->server_object, u->abort_status, u->msg, u->procs,
                                u->nprocs, up_op_cb, u);
}

void px_srv_abort(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    up_t *u = up_new(c, seq, PX_TAG_ABORT);
    if (u == NULL) {
        return;
    }
    int32_t status = 0, one = 1;
    pmix_status_t rc = px_bfrops_unpack(payload, &status, &one, PMIX_INT32);
    if (rc == PMIX_SUCCESS) {
        one = 1;
        rc = px_bfrops_unpack(payload, &u->msg, &one, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_srv_unpack_procs(payload, &u->procs, &u->nprocs);
    }
    if (rc == PMIX_SUCCESS) {
        px_debug(1, "server", "%s:%u aborts with status %d: %s", c->proc.nspace, c->proc.rank,
                 (int)status, u->msg ? u->msg : "");
        u->abort_status = status;
        rc = px_srv->module.abort ? PMIX_SUCCESS : PMIX_ERR_NOT_SUPPORTED;
    }
    if (rc == PMIX_SUCCESS) {
        up_launch(u, call_abort);
        return;
    }
    up_started(u, rc);
}

/* ---- job control and cleanup registration ---- */

static bool cleanup_key(const pmix_info_t *in)
{
    return PMIX_CHECK_KEY(in, PMIX_REGISTER_CLEANUP) ||
           PMIX_CHECK_KEY(in, PMIX_REGISTER_CLEANUP_DIR) ||
           PMIX_CHECK_KEY(in, PMIX_CLEANUP_RECURSIVE) || PMIX_CHECK_KEY(in, PMIX_CLEANUP_EMPTY) ||
           PMIX_CHECK_KEY(in, PMIX_CLEANUP_IGNORE) || PMIX_CHECK_KEY(in, PMIX_CLEANUP_LEAVE_TOPDIR);
}

/* Cleanup requests name paths on this node, removed when the client leaves. The server
 * may run with more rights than the client (root, or the DVM's owner), so it removes only
 * what the client's registered uid owns, never follows a symbolic link, and takes
 * absolute paths only (a relative one would resolve against the server's directory). */
static pmix_status_t add_paths(char ***to, const pmix_value_t *v)
{
    if (v->type != PMIX_STRING || v->data.string == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    char **paths = PMIx_Argv_split(v->data.string, ',');
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t k = 0; rc == PMIX_SUCCESS && paths != NULL && paths[k] != NULL; k++) {
        rc = paths[k][0] == '/' ? PMIx_Argv_append_nosize(to, paths[k]) : PMIX_ERR_BAD_PARAM;
    }
    PMIx_Argv_free(paths);
    return rc;
}

static pmix_status_t register_cleanup(px_srv_client_t *c, const pmix_info_t *info, size_t ninfo)
{
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_info_t *in = &info[i];
        pmix_status_t rc = PMIX_SUCCESS;
        if (PMIX_CHECK_KEY(in, PMIX_CLEANUP_RECURSIVE)) {
            c->cleanup_recursive = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_CLEANUP_EMPTY)) {
            c->cleanup_empty = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_CLEANUP_LEAVE_TOPDIR)) {
            c->cleanup_leave_top = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_CLEANUP_IGNORE)) {
            /* file names (no '/') or absolute paths */
            char **names = in->value.type == PMIX_STRING && in->value.data.string != NULL
                               ? PMIx_Argv_split(in->value.data.string, ',')
                               : NULL;
            rc = names != NULL ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM;
            for (size_t k = 0; rc == PMIX_SUCCESS && names[k] != NULL; k++) {
                rc = PMIx_Argv_append_nosize(&c->cleanup_ignore, names[k]);
            }
            PMIx_Argv_free(names);
        } else if (PMIX_CHECK_KEY(in, PMIX_REGISTER_CLEANUP)) {
            rc = add_paths(&c->cleanup_files, &in->value);
        } else if (PMIX_CHECK_KEY(in, PMIX_REGISTER_CLEANUP_DIR)) {
            rc = add_paths(&c->cleanup_dirs, &in->value);
        }
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

/* nftw has no user argument: the client being cleaned up (server thread only). */
static const px_srv_client_t *cleaning;

static bool ignored(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    for (size_t i = 0; cleaning->cleanup_ignore != NULL && cleaning->cleanup_ignore[i]; i++) {
        const char *n = cleaning->cleanup_ignore[i];
        if (strcmp(n, strchr(n, '/') != NULL ? path : base) == 0) {
            return true;
        }
    }
    return false;
}

static int rm_one(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    if (sb->st_uid != cleaning->uid || ignored(path)) {
        return 0; /* not the client's to remove; its directory stays (not empty) */
    }
    if (type == FTW_DP) {
        if (ftw->level > 0 || !cleaning->cleanup_leave_top) {
            rmdir(path);
        }
    } else if (type != FTW_DNR && type != FTW_NS && !cleaning->cleanup_empty) {
        unlink(path);
    }
    return 0;
}

void px_srv_run_cleanup(px_srv_client_t *c)
{
    cleaning = c;
    struct stat st;
    for (size_t i = 0; c->cleanup_files != NULL && c->cleanup_files[i] != NULL; i++) {
        const char *f = c->cleanup_files[i];
        if (lstat(f, &st) == 0 && st.st_uid == c->uid && !S_ISDIR(st.st_mode) && !ignored(f) &&
            unlink(f) == 0) {
            px_debug(2, "server", "cleanup: removed %s", f);
        }
    }
    for (size_t i = 0; c->cleanup_dirs != NULL && c->cleanup_dirs[i] != NULL; i++) {
        const char *d = c->cleanup_dirs[i];
        if (lstat(d, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != c->uid) {
            continue;
        }
        if (c->cleanup_recursive) {
            nftw(d, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        } else if (!c->cleanup_leave_top && !ignored(d)) {
            rmdir(d);
        }
    }
    cleaning = NULL;
    PMIx_Argv_free(c->cleanup_files);
    PMIx_Argv_free(c->cleanup_dirs);
    PMIx_Argv_free(c->cleanup_ignore);
    c->cleanup_files = c->cleanup_dirs = c->cleanup_ignore = NULL;
}

static pmix_status_t call_job_control(up_t *u)
{
    return px_srv->module.job_control(&u->client->proc, u->procs, u->nprocs, u->info, u->ninfo,
                                      up_info_cb, u);
}

void px_srv_jobctl(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    up_t *u = up_new(c, seq, PX_TAG_JOBCTL);
    if (u == NULL) {
        return;
    }
    pmix_status_t rc = px_srv_unpack_procs(payload, &u->procs, &u->nprocs);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(payload, &u->info, &u->ninfo);
    }
    bool only_cleanup = true;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < u->ninfo; i++) {
        only_cleanup = only_cleanup && cleanup_key(&u->info[i]);
    }
    if (rc == PMIX_SUCCESS) {
        rc = register_cleanup(c, u->info, u->ninfo);
    }
    if (rc == PMIX_SUCCESS && only_cleanup && u->ninfo > 0) {
        /* answered here: an empty result set */
        rc = px_bfrops_pack_info_array(&u->body, NULL, 0);
        up_started(u, rc == PMIX_SUCCESS ? PMIX_OPERATION_SUCCEEDED : rc);
        return;
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_srv->module.job_control ? PMIX_SUCCESS : PMIX_ERR_NOT_SUPPORTED;
    }
    if (rc == PMIX_SUCCESS) {
        up_launch(u, call_job_control);
        return;
    }
    up_started(u, rc);
}

/* ---- log ---- */

/* Without a host log function, the two channels this process owns are served here. */
static pmix_status_t log_locally(const pmix_info_t *data, size_t ndata)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < ndata; i++) {
        FILE *out = PMIX_CHECK_KEY(&data[i], PMIX_LOG_STDERR)   ? stderr
                    : PMIX_CHECK_KEY(&data[i], PMIX_LOG_STDOUT) ? stdout
                                                                : NULL;
        if (out == NULL || data[i].value.type != PMIX_STRING) {
            rc = PMIX_ERR_NOT_SUPPORTED;
            continue;
        }
        fputs(data[i].value.data.string ? data[i].value.data.string : "", out);
        fflush(out);
    }
    return rc;
}

static pmix_status_t call_log(up_t *u)
{
    px_srv->module.log(&u->client->proc, u->info, u->ninfo, u->info2, u->ninfo2, up_op_cb, u);
    return PMIX_SUCCESS; /* the host always calls back */
}

void px_srv_log(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    up_t *u = up_new(c, seq, PX_TAG_LOG);
    if (u == NULL) {
        return;
    }
    pmix_status_t rc = px_bfrops_unpack_info_array(payload, &u->info, &u->ninfo);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(payload, &u->info2, &u->ninfo2);
    }
    if (rc == PMIX_SUCCESS && px_srv->module.log != NULL) {
        up_launch(u, call_log);
        return;
    }
    if (rc == PMIX_SUCCESS) {
        rc = log_locally(u->info, u->ninfo);
    }
    up_started(u, rc == PMIX_SUCCESS ? PMIX_OPERATION_SUCCEEDED : rc);
}

/* The server process's own PMIx_Log (PMIx_Log/_nb when this process is a server and not a
 * client): the host's log function when it has one (with this server as the source),
 * else the channels served here. cbfunc NULL: the blocking form (waits for the host's
 * answer; refused on the loop thread, which the answer needs). */
typedef struct {
    pmix_info_t *data, *dirs; /* owned copies */
    size_t ndata, ndirs;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
    px_latch_t latch; /* the blocking form */
    pmix_status_t status;
} api_log_t;

static void api_log_free(api_log_t *l)
{
    px_bfrops_info_array_free(l->data, l->ndata);
    px_bfrops_info_array_free(l->dirs, l->ndirs);
    free(l);
}

static void api_log_done(pmix_status_t status, void *cbdata)
{
    api_log_t *l = cbdata;
    if (l->cbfunc == NULL) {
        l->status = status;
        px_latch_release(&l->latch); /* the waiter frees l */
        return;
    }
    l->cbfunc(status, l->cbdata);
    api_log_free(l);
}

/* Loop, no lock held (px_srv_upcall). */
static void api_log_upcall(void *arg)
{
    api_log_t *l = arg;
    px_srv->module.log(&px_srv->myproc, l->data, l->ndata, l->dirs, l->ndirs, api_log_done, l);
}

pmix_status_t px_srv_api_log(const pmix_info_t data[], size_t ndata, const pmix_info_t dirs[],
                             size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (data == NULL || ndata == 0 || (ndirs > 0 && dirs == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (px_srv->module.log == NULL) {
        pmix_status_t rc = log_locally(data, ndata);
        return rc != PMIX_SUCCESS ? rc : cbfunc != NULL ? PMIX_OPERATION_SUCCEEDED : PMIX_SUCCESS;
    }
    if (cbfunc == NULL && px_srv_on_loop()) {
        return PMIX_ERR_WOULD_BLOCK;
    }
    api_log_t *l = calloc(1, sizeof(*l));
    if (l == NULL || px_info_array_dup(data, ndata, &l->data) != PMIX_SUCCESS ||
        (ndirs > 0 && px_info_array_dup(dirs, ndirs, &l->dirs) != PMIX_SUCCESS)) {
        if (l != NULL) {
            px_bfrops_info_array_free(l->data, l->data != NULL ? ndata : 0);
            free(l);
        }
        return PMIX_ERR_NOMEM;
    }
    l->ndata = ndata;
    l->ndirs = l->dirs != NULL ? ndirs : 0;
    l->cbfunc = cbfunc;
    l->cbdata = cbdata;
    if (cbfunc == NULL && px_latch_init(&l->latch, 1) != 0) {
        api_log_free(l);
        return PMIX_ERR_NOMEM;
    }
    if (px_srv_upcall(api_log_upcall, l) != 0) {
        if (cbfunc == NULL) {
            px_latch_fini(&l->latch);
        }
        api_log_free(l);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    if (cbfunc != NULL) {
        return PMIX_SUCCESS;
    }
    px_latch_wait(&l->latch, -1); /* the host always calls back */
    px_latch_fini(&l->latch);
    pmix_status_t rc = l->status;
    api_log_free(l);
    return rc;
}
