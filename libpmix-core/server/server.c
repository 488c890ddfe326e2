/* server: PMIx_server_init/finalize, the listener and the client handshake (security
 * checks), message dispatch, connection loss, and the rendezvous files. Handlers run on
 * the progress loop with px_srv->lock held.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "common/px_query.h"
#include "server/px_server.h"
#include "server/px_srv_host.h"
#include "server/px_srv_topo.h"

px_server_t *px_srv = NULL;

/* What a 4.2.2 program's pmix_server_module_t holds: the members up to fabric. */
#define PX_MODULE_SIZE_422 (offsetof(pmix_server_module_t, client_connected2))

void px_srv_client_retain(px_srv_client_t *c)
{
    c->refs++;
}

void px_srv_client_release(px_srv_client_t *c)
{
    if (c == NULL || --c->refs > 0) {
        return;
    }
    PMIx_Argv_free(c->cleanup_files);
    PMIx_Argv_free(c->cleanup_dirs);
    PMIx_Argv_free(c->cleanup_ignore);
    free(c->ev_codes);
    free(c->ev_int);
    free(c->ev_sent);
    free(c);
}

px_srv_client_t *px_srv_client_find(const char *nspace, pmix_rank_t rank)
{
    for (px_srv_client_t *c = px_srv->clients; c != NULL; c = c->next) {
        if (c->proc.rank == rank && PMIx_Check_nspace(c->proc.nspace, nspace)) {
            return c;
        }
    }
    return NULL;
}

pid_t px_srv_client_pid(const pmix_proc_t *proc)
{
    pid_t pid = 0;
    if (px_srv == NULL || proc == NULL) {
        return 0;
    }
    pthread_mutex_lock(&px_srv->lock);
    const px_srv_client_t *c = px_srv_client_find(proc->nspace, proc->rank);
    if (c != NULL && c->connected_once) {
        pid = c->pid;
    }
    pthread_mutex_unlock(&px_srv->lock);
    return pid;
}

void px_srv_reply(px_srv_client_t *c, uint32_t seq, uint32_t tag, pmix_status_t status,
                  const pmix_data_buffer_t *body)
{
    if (c != NULL && c->pmi != NULL) {
        px_srv_pmi_reply(c, seq, tag, status, body); /* a PMI process: answered in PMI */
        return;
    }
    if (c == NULL || c->peer == NULL) {
        return; /* gone: nobody to answer */
    }
    pmix_data_buffer_t buf;
    px_bfrops_buf_init(&buf);
    if (px_bfrops_pack(&buf, &status, 1, PMIX_STATUS) == PMIX_SUCCESS &&
        (body == NULL || body->bytes_used == 0 ||
         px_bfrops_buf_append(&buf, body->base_ptr, body->bytes_used) == PMIX_SUCCESS)) {
        if (px_peer_send_reply(c->peer, seq, tag, &buf) != 0) {
            px_debug(1, "server", "reply to %s:%u failed: %s", c->proc.nspace, c->proc.rank,
                     strerror(errno));
        }
    }
    px_bfrops_buf_free(&buf);
}

pmix_status_t px_srv_count(pmix_data_buffer_t *payload, size_t each, size_t max, size_t *n)
{
    pmix_status_t rc = px_bfrops_unpack_count(payload, PMIX_SIZE, each, max, n);
    if (rc != PMIX_SUCCESS && rc != PMIX_ERR_BAD_PARAM) {
        /* the count is missing or announces more than the message holds: malformed */
        px_srv->msg_malformed = true;
    }
    return rc;
}

pmix_status_t px_srv_unpack_procs(pmix_data_buffer_t *payload, pmix_proc_t **procs, size_t *n)
{
    int32_t one = 1;
    *procs = NULL;
    /* more than 4 Mi procs is garbage, not a job */
    pmix_status_t rc = px_srv_count(payload, px_bfrops_wire_elem(PMIX_PROC), 4u * 1024 * 1024, n);
    if (rc == PMIX_SUCCESS) {
        *procs = calloc(*n ? *n : 1, sizeof(**procs));
        rc = *procs ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    if (rc == PMIX_SUCCESS && *n > 0) {
        one = (int32_t)*n;
        rc = px_bfrops_unpack(payload, *procs, &one, PMIX_PROC);
    }
    if (rc != PMIX_SUCCESS) {
        free(*procs);
        *procs = NULL;
        *n = 0;
    }
    return rc;
}

/* ---- shifting onto the loop with the lock held ---- */

typedef struct {
    px_progress_fn_t fn;
    void *arg;
} shift_item_t;

static void shift_run(void *arg)
{
    shift_item_t *it = arg;
    pthread_mutex_lock(&px_srv->lock);
    it->fn(it->arg);
    pthread_mutex_unlock(&px_srv->lock);
    free(it);
}

int px_srv_shift(px_progress_fn_t fn, void *arg)
{
    shift_item_t *it = malloc(sizeof(*it));
    if (it == NULL || px_srv == NULL) {
        free(it);
        return -1;
    }
    it->fn = fn;
    it->arg = arg;
    if (px_progress_shift(px_srv->prog, shift_run, it) != 0) {
        free(it);
        return -1;
    }
    return 0;
}

/* ---- upcalls: never under a library lock ---- */

int px_srv_upcall(px_progress_fn_t fn, void *arg)
{
    if (px_srv == NULL || px_progress_shift(px_srv->prog, fn, arg) != 0) {
        return -1;
    }
    return 0;
}

/* ---- connections ---- */

static void client_lost(px_peer_t *peer, int err, void *cbdata);

/* Close a connection that broke the protocol; the client is handled as lost (EPROTO). */
static void client_drop(px_srv_client_t *c)
{
    if (c->peer != NULL) {
        px_peer_t *p = c->peer;
        c->peer = NULL;
        px_peer_destroy(p);
        client_lost(NULL, EPROTO, c);
    }
}

static void client_recv(px_peer_t *peer, uint32_t tag, uint32_t seq, pmix_data_buffer_t *payload,
                        void *cbdata)
{
    (void)peer;
    px_srv_client_t *c = cbdata;
    pthread_mutex_lock(&px_srv->lock);
    px_srv_client_retain(c);
    px_srv->msg_malformed = false;
    switch (tag) {
    case PX_TAG_JOBINFO: {
        char *nspace = NULL;
        int32_t one = 1;
        pmix_data_buffer_t body;
        px_bfrops_buf_init(&body);
        pmix_status_t rc = px_bfrops_unpack(payload, &nspace, &one, PMIX_STRING);
        px_nspace_t *ns =
            (rc == PMIX_SUCCESS && nspace != NULL) ? px_store_find(&px_srv->store, nspace) : NULL;
        if (rc == PMIX_SUCCESS) {
            rc = (ns != NULL && ns->complete) ? px_ns_pack(&body, ns) : PMIX_ERR_NOT_FOUND;
        }
        px_srv_reply(c, seq, tag, rc, rc == PMIX_SUCCESS ? &body : NULL);
        px_bfrops_buf_free(&body);
        free(nspace);
        break;
    }
    case PX_TAG_FINALIZE:
        px_srv_finalize_req(c, seq);
        break;
    case PX_TAG_TOPOLOGY:
        px_srv_topology_req(c, seq);
        break;
    case PX_TAG_COMMIT:
        px_srv_commit(c, payload);
        break;
    case PX_TAG_FENCE:
        px_srv_fence(c, seq, payload);
        break;
    case PX_TAG_GET:
        px_srv_get(c, seq, payload);
        break;
    case PX_TAG_PUBLISH:
        px_srv_publish(c, seq, payload);
        break;
    case PX_TAG_LOOKUP:
        px_srv_lookup(c, seq, payload);
        break;
    case PX_TAG_UNPUBLISH:
        px_srv_unpublish(c, seq, payload);
        break;
    case PX_TAG_ABORT:
        px_srv_abort(c, seq, payload);
        break;
    case PX_TAG_JOBCTL:
        px_srv_jobctl(c, seq, payload);
        break;
    case PX_TAG_LOG:
        px_srv_log(c, seq, payload);
        break;
    case PX_TAG_EVT_REGISTER:
        px_srv_evt_register(c, seq, payload);
        break;
    case PX_TAG_EVT_DEREGISTER:
        px_srv_evt_deregister(c, payload);
        break;
    case PX_TAG_NOTIFY:
        px_srv_notify(c, payload);
        break;
    case PX_TAG_QUERY:
        px_srv_query(c, seq, payload);
        break;
    case PX_TAG_SPAWN:
        px_srv_spawn(c, seq, payload);
        break;
    case PX_TAG_IOF_PULL:
        px_srv_iof_pull(c, seq, payload);
        break;
    case PX_TAG_IOF_DEREG:
        px_srv_iof_dereg(c, seq, payload);
        break;
    case PX_TAG_IOF_PUSH:
        px_srv_iof_push(c, seq, payload);
        break;
    case PX_TAG_GRP_CONSTRUCT:
        px_srv_grp_construct(c, seq, payload);
        break;
    case PX_TAG_GRP_DESTRUCT:
        px_srv_grp_destruct(c, seq, payload);
        break;
    case PX_TAG_GRP_INVITE:
        px_srv_grp_invite(c, seq, payload);
        break;
    case PX_TAG_GRP_JOIN:
        px_srv_grp_join(c, seq, payload);
        break;
    case PX_TAG_GRP_LEAVE:
        px_srv_grp_leave(c, seq, payload);
        break;
    case PX_TAG_CONNECT:
        px_srv_connect(c, seq, payload);
        break;
    case PX_TAG_DISCONNECT:
        px_srv_disconnect(c, seq, payload);
        break;
    default:
        /* A request we do not know: answer it so the client does not wait; a plain
         * message with an unknown tag is a protocol violation. */
        px_debug(1, "server", "unknown message tag %u from %s:%u", tag, c->proc.nspace,
                 c->proc.rank);
        if (seq != 0) {
            px_srv_reply(c, seq, tag, PMIX_ERR_NOT_SUPPORTED, NULL);
        } else {
            client_drop(c);
        }
        break;
    }
    if (px_srv->msg_malformed) {
        /* a count the message cannot hold (px_srv_count): this peer only goes */
        px_debug(1, "server", "malformed message (tag %u) from %s:%u: connection dropped", tag,
                 c->proc.nspace, c->proc.rank);
        px_srv->msg_malformed = false;
        client_drop(c);
    }
    px_srv_client_release(c);
    pthread_mutex_unlock(&px_srv->lock);
}

static void client_lost(px_peer_t *peer, int err, void *cbdata)
{
    px_srv_client_t *c = cbdata;
    pthread_mutex_lock(&px_srv->lock);
    if (peer != NULL) {
        px_peer_destroy(peer);
        c->peer = NULL;
    }
    c->departed = true;
    px_debug(1, "server", "connection of %s:%u (pid %d) closed: %s%s", c->proc.nspace, c->proc.rank,
             (int)c->pid, err ? strerror(err) : "end of stream",
             c->finalized ? "" : " (not finalized)");
    px_srv_data_client_gone(c, false);
    px_srv_iof_client_gone(c);
    px_srv_run_cleanup(c);
    if (c->is_tool) {
        px_srv_tool_gone(c);
    }
    px_srv_client_release(c); /* the connection's reference */
    pthread_mutex_unlock(&px_srv->lock);
}

/* The host hears of a connection; its answer cannot undo the accepted handshake. Loop,
 * no lock held; c counted by the caller. */
static void connected_upcall(void *arg)
{
    px_srv_client_t *c = arg;
    if (px_srv->module.client_connected2 != NULL) {
        px_srv->module.client_connected2(&c->proc, c->server_object, NULL, 0, NULL, NULL);
    } else if (px_srv->module.client_connected != NULL) {
        px_srv->module.client_connected(&c->proc, c->server_object, NULL, NULL);
    }
    pthread_mutex_lock(&px_srv->lock);
    px_srv_client_release(c);
    pthread_mutex_unlock(&px_srv->lock);
}

void px_srv_client_connected(px_srv_client_t *c)
{
    if (px_srv->module.client_connected2 != NULL || px_srv->module.client_connected != NULL) {
        px_srv_client_retain(c); /* the upcall's */
        if (px_srv_upcall(connected_upcall, c) != 0) {
            px_debug(1, "server", "cannot tell the host that %s:%u connected", c->proc.nspace,
                     c->proc.rank);
            px_srv_client_release(c);
        }
    }
}

static pmix_status_t accept_client(int fd, const px_usock_cred_t *cred, pmix_data_buffer_t *hello)
{
    int32_t kind = 0, one = 1;
    char *nspace = NULL, *version = NULL;
    pmix_rank_t rank = PMIX_RANK_UNDEF;
    pmix_status_t rc = px_bfrops_unpack(hello, &kind, &one, PMIX_INT32);
    if (rc == PMIX_SUCCESS) {
        one = 1;
        rc = px_bfrops_unpack(hello, &nspace, &one, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS) {
        one = 1;
        rc = px_bfrops_unpack(hello, &rank, &one, PMIX_PROC_RANK);
    }
    if (rc == PMIX_SUCCESS) {
        one = 1;
        rc = px_bfrops_unpack(hello, &version, &one, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS && kind == PX_HELLO_TOOL) {
        rc = px_srv_tool_hello(fd, cred, nspace, rank, version); /* server_tool.c */
        goto out;
    }
    if (rc != PMIX_SUCCESS || nspace == NULL) {
        px_debug(1, "server", "refused connection from pid %d (uid %u): malformed handshake",
                 (int)cred->pid, (unsigned)cred->uid);
        rc = PMIX_ERR_BAD_PARAM;
        goto out;
    }
    if (kind != PX_HELLO_CLIENT) {
        px_debug(1, "server", "refused connection from pid %d: tool connections not supported",
                 (int)cred->pid);
        rc = PMIX_ERR_NOT_SUPPORTED;
        goto out;
    }
    px_srv_client_t *c = px_srv_client_find(nspace, rank);
    if (c == NULL) {
        px_debug(1, "server",
                 "refused connection from pid %d (uid %u): %s:%u is not a registered client",
                 (int)cred->pid, (unsigned)cred->uid, nspace, rank);
        rc = PMIX_ERR_NOT_FOUND;
        goto out;
    }
    if (c->uid != cred->uid || c->gid != cred->gid) {
        px_debug(1, "server",
                 "refused connection from pid %d: %s:%u registered for uid %u gid %u, "
                 "connector has uid %u gid %u",
                 (int)cred->pid, nspace, rank, (unsigned)c->uid, (unsigned)c->gid,
                 (unsigned)cred->uid, (unsigned)cred->gid);
        rc = PMIX_ERR_NO_PERMISSIONS;
        goto out;
    }
    if (c->peer != NULL || c->connected_once) {
        px_debug(1, "server", "refused connection from pid %d: %s:%u already connected",
                 (int)cred->pid, nspace, rank);
        rc = PMIX_EXISTS;
        goto out;
    }
    c->peer = px_peer_create(px_srv->prog, fd, client_recv, client_lost, c);
    if (c->peer == NULL) {
        rc = PMIX_ERR_NOMEM;
        goto out;
    }
    c->pid = cred->pid;
    c->connected_once = true;
    px_srv_client_retain(c); /* the connection's reference */
    px_debug(2, "server", "client %s:%u connected (pid %d, library %s)", nspace, rank,
             (int)cred->pid, version ? version : "?");
    px_srv_client_connected(c);
out:
    free(nspace);
    free(version);
    return rc;
}

void px_srv_peer_recv(px_peer_t *peer, uint32_t tag, uint32_t seq, pmix_data_buffer_t *payload,
                      void *cbdata)
{
    client_recv(peer, tag, seq, payload, cbdata);
}

void px_srv_peer_lost(px_peer_t *peer, int err, void *cbdata)
{
    client_lost(peer, err, cbdata);
}

static pmix_status_t on_accept(px_usock_listener_t *l, int fd, const px_usock_cred_t *cred,
                               pmix_data_buffer_t *hello, void *cbdata)
{
    (void)l;
    (void)cbdata;
    pthread_mutex_lock(&px_srv->lock);
    pmix_status_t rc = accept_client(fd, cred, hello);
    pthread_mutex_unlock(&px_srv->lock);
    return rc;
}

/* ---- rendezvous files ---- */

/* The pid recorded in a rendezvous file (third line), or -1. */
static pid_t rndz_pid(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return -1;
    }
    char line[4096];
    pid_t pid = -1;
    for (int i = 0; i < 3 && fgets(line, sizeof(line), f) != NULL; i++) {
        if (i == 2) {
            pid = (pid_t)strtol(line, NULL, 10);
        }
    }
    fclose(f);
    return pid;
}

static bool pid_alive(pid_t pid)
{
    return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

/* Write path atomically, mode 0600: the URI, the version, our pid. A file of a live
 * other server is left alone unless force (the explicitly named launcher file). */
static int rndz_write(const char *path, bool force)
{
    if (!force) {
        pid_t other = rndz_pid(path);
        if (other != getpid() && pid_alive(other)) {
            px_debug(1, "server", "rendezvous file %s belongs to live pid %d: not replaced", path,
                     (int)other);
            errno = EEXIST;
            return -1;
        }
    }
    char *tmp = NULL;
    if (asprintf(&tmp, "%s.%d.tmp", path, (int)getpid()) < 0) {
        return -1;
    }
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    int rc = -1;
    if (f != NULL) {
        fprintf(f, "%s\n%s\n%d\n", px_srv->uri, PMIX_RUNTIME_API_LEVEL, (int)getpid());
        if (px_srv->tcp_uri != NULL) {
            fprintf(f, "%s\n", px_srv->tcp_uri); /* line 4 (px_proto.h) */
        }
        rc = fclose(f);
        if (rc == 0) {
            rc = rename(tmp, path);
        }
    } else if (fd >= 0) {
        close(fd);
    }
    if (rc != 0) {
        unlink(tmp);
    } else {
        PMIx_Argv_append_nosize(&px_srv->rndz_files, path);
    }
    free(tmp);
    return rc;
}

/* Remove from dir what a server killed without finalizing left behind: this node's
 * rendezvous files (the system file when sys, else the tool files; exact names, never those
 * of a node whose name starts with ours) whose recorded pid is dead, with that server's
 * socket, and any "pmix-<pid>.sock" socket of a dead pid. Only entries of our own user,
 * only regular files and sockets; a file being written (".tmp") or without a pid is left
 * alone. */
static void rndz_sweep_stale(const char *dir, const char *host, bool sys)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        size_t len = strlen(n);
        bool is_sys = false;
        bool rndz = px_query_rndz_name(n, host, &is_sys) && is_sys == sys;
        int spid = 0, end = 0;
        bool sock = sscanf(n, "pmix-%d.sock%n", &spid, &end) == 1 && (size_t)end == len;
        char *path = NULL;
        struct stat st;
        if ((!rndz && !sock) || asprintf(&path, "%s/%s", dir, n) < 0) {
            continue;
        }
        if (lstat(path, &st) == 0 && st.st_uid == geteuid()) {
            pid_t pid = -1;
            if (rndz && S_ISREG(st.st_mode)) {
                pid = rndz_pid(path);
            } else if (sock && S_ISSOCK(st.st_mode)) {
                pid = (pid_t)spid;
            }
            if (px_pid_gone(pid)) {
                px_debug(1, "server", "removing %s: its server (pid %d) is gone", path, (int)pid);
                unlink(path);
                if (rndz) {
                    char *s = NULL;
                    if (asprintf(&s, "%s/pmix-%d.sock", px_srv->tmpdir, (int)pid) >= 0) {
                        unlink(s);
                        free(s);
                    }
                }
            }
        }
        free(path);
    }
    closedir(d);
}

static void rndz_create(const char *launcher_file)
{
    char *path = NULL;
    const char *host = px_hostname();
    /* A server killed without finalizing (kill -9) left its files: stale once its pid is
     * gone, so the next server removes them before it writes its own. */
    rndz_sweep_stale(px_srv->tmpdir, host, false);
    if (px_srv->system_support) {
        rndz_sweep_stale(px_srv->systmpdir, host, true);
    }
    if (px_srv->system_support) {
        if (asprintf(&path, "%s/pmix.sys.%s", px_srv->systmpdir, host) >= 0) {
            rndz_write(path, false);
            free(path);
        }
    }
    if (px_srv->tool_support && !px_srv->no_rndz) {
        if (asprintf(&path, "%s/pmix.%s.tool.%s", px_srv->tmpdir, host, px_srv->myproc.nspace) >=
            0) {
            rndz_write(path, false);
            free(path);
        }
        if (asprintf(&path, "%s/pmix.%s.tool.%d", px_srv->tmpdir, host, (int)getpid()) >= 0) {
            rndz_write(path, true);
            free(path);
        }
        /* the generic name is for servers; a tool's listener (embed) would take the
         * default search of every tool on the node */
        if (px_srv->embed == NULL &&
            asprintf(&path, "%s/pmix.%s.tool", px_srv->tmpdir, host) >= 0) {
            rndz_write(path, false);
            free(path);
        }
    }
    if (launcher_file != NULL) {
        rndz_write(launcher_file, true);
    }
}

/* ---- init / finalize ---- */

struct listen_req {
    px_server_t *s;
    int err;
};

/* On the loop (or the host's thread before its loop runs). */
static void listen_on_loop(void *arg)
{
    struct listen_req *ls = arg;
    ls->s->listener = px_usock_listen(ls->s->prog, ls->s->sockpath, on_accept, NULL);
    ls->err = ls->s->listener ? 0 : errno;
    if (ls->s->listener != NULL) {
        px_srv_tool_listen(ls->s);
    }
}

static void unlisten_on_loop(void *arg)
{
    px_usock_listener_destroy(arg);
}

static pmix_status_t server_init(const pmix_server_module_t *module, size_t module_size,
                                 pmix_info_t info[], size_t ninfo)
{
    if (px_srv != NULL) {
        return PMIX_ERR_INIT;
    }
    if (ninfo > 0 && info == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    px_server_t *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return PMIX_ERR_NOMEM;
    }
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&s->lock, &ma);
    pthread_mutexattr_destroy(&ma);
    if (module != NULL) {
        memcpy(&s->module, module, module_size);
    }
    const char *hostname = px_hostname(), *launcher_file = NULL;
    char nspace[PMIX_MAX_NSLEN + 1];
    snprintf(nspace, sizeof(nspace), "pmix-server.%s.%d", px_hostname(), (int)getpid());
    pmix_rank_t rank = 0;
    struct event_base *base = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_info_t *in = &info[i];
        if (PMIX_CHECK_KEY(in, PMIX_SERVER_NSPACE) && in->value.type == PMIX_STRING) {
            PMIX_LOAD_NSPACE(nspace, in->value.data.string);
        } else if (PMIX_CHECK_KEY(in, PMIX_SERVER_RANK)) {
            PMIx_Value_get_number(&in->value, &rank, PMIX_PROC_RANK);
        } else if (PMIX_CHECK_KEY(in, PMIX_SERVER_SYSTEM_SUPPORT)) {
            s->system_support = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_SERVER_TOOL_SUPPORT)) {
            s->tool_support = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PX_SRV_NO_RNDZ)) {
            s->no_rndz = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_SERVER_REMOTE_CONNECTIONS)) {
            s->remote_connections = PMIX_INFO_TRUE(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_LAUNCHER_RENDEZVOUS_FILE) &&
                   in->value.type == PMIX_STRING) {
            launcher_file = in->value.data.string;
        } else if (PMIX_CHECK_KEY(in, PMIX_EVENT_BASE) && in->value.type == PMIX_POINTER) {
            base = in->value.data.ptr;
        } else if (PMIX_CHECK_KEY(in, PMIX_HOSTNAME) && in->value.type == PMIX_STRING) {
            hostname = in->value.data.string;
        } else if (PMIX_CHECK_KEY(in, PX_ATTR_SRV_EMBED) && in->value.type == PMIX_POINTER) {
            s->embed = in->value.data.ptr;
        }
    }
    PMIx_Load_procid(&s->myproc, nspace, rank);
    s->tmpdir = strdup(px_tmpdir_pick(info, ninfo, PMIX_SERVER_TMPDIR));
    s->systmpdir = strdup(px_tmpdir_pick(info, ninfo, PMIX_SYSTEM_TMPDIR));
    px_store_init(&s->store, hostname);
    /* A launcher's rendezvous file may also come from the environment; either way the
     * variable must not reach the children this server's host will fork. */
    char *env_launcher = NULL;
    if (launcher_file == NULL && getenv(PMIX_LAUNCHER_RNDZ_FILE) != NULL) {
        env_launcher = strdup(getenv(PMIX_LAUNCHER_RNDZ_FILE));
        launcher_file = env_launcher;
    }
    unsetenv(PMIX_LAUNCHER_RNDZ_FILE);

    pmix_status_t rc = PMIX_ERR_OUT_OF_RESOURCE;
    s->prog = px_progress_create(base);
    if (s->prog == NULL || px_progress_start(s->prog) != 0) {
        goto error;
    }
    s->keepalive_fd = -1;
    px_srv = s;
    rc = px_srv_event_init(info, ninfo);
    if (rc == PMIX_SUCCESS) {
        rc = px_srv_topo_init(info, ninfo);
    }
    if (rc != PMIX_SUCCESS) {
        goto error;
    }
    rc = PMIX_ERR_OUT_OF_RESOURCE;
    if (asprintf(&s->sockpath, "%s/pmix-%d.sock", s->tmpdir, (int)getpid()) < 0) {
        s->sockpath = NULL;
        goto error;
    }
    /* The listener is created on the loop thread (it registers events there). */
    struct listen_req ls = {s, 0};
    s->host_base = (base != NULL);
    if (s->host_base) {
        listen_on_loop(&ls);
    } else if (px_progress_shift_wait(s->prog, listen_on_loop, &ls, 10000) != 0) {
        goto error;
    }
    if (s->listener == NULL) {
        px_debug(1, "server", "cannot listen on %s: %s", s->sockpath, strerror(ls.err));
        rc = PMIX_ERR_INIT;
        goto error;
    }
    /* Anyone local may try: every connection is authenticated with SO_PEERCRED
     * against the host's registration (clients may run under other uids). */
    chmod(s->sockpath, 0666);
    s->uri = px_uri_make(&s->myproc, s->sockpath);
    if (s->uri == NULL) {
        goto error;
    }
    rndz_create(launcher_file);
    s->launcher_rndz_file = env_launcher; /* what setup_fork strips */
    px_srv_tool_env(s);
    px_debug(1, "server", "listening at %s", s->uri);
    rc = px_srv_uplink_start(s); /* a launcher started by a tool connects back to it */
    if (rc != PMIX_SUCCESS) {
        PMIx_server_finalize();
        return rc;
    }
    px_srv_keepalive_start(s);
    return PMIX_SUCCESS;
error:
    free(env_launcher);
    if (px_srv != NULL) {
        px_srv_event_fini();
        px_srv_topo_fini();
    }
    px_srv = NULL;
    if (s->listener != NULL) {
        px_usock_listener_t *l = s->listener;
        px_srv = s;
        if (s->host_base) {
            unlisten_on_loop(l);
        } else {
            px_progress_shift_wait(s->prog, unlisten_on_loop, l, 10000);
        }
        px_srv = NULL;
    }
    px_progress_destroy(s->prog);
    px_store_fini(&s->store);
    free(s->tmpdir);
    free(s->systmpdir);
    free(s->sockpath);
    free(s->uri);
    pthread_mutex_destroy(&s->lock);
    free(s);
    return rc;
}

/* The symbol our header binds PMIx_server_init to: a module of this header's size. */
PMIX_EXPORT pmix_status_t PMIx_server_init(pmix_server_module_t *module, pmix_info_t info[],
                                           size_t ninfo)
{
    return server_init(module, sizeof(pmix_server_module_t), info, ninfo);
}

/* The plain symbol, for programs built against 4.2.2 headers: their module ends
 * before client_connected2, so only that much of it may be read. */
PMIX_EXPORT pmix_status_t px_server_init_422(pmix_server_module_t *module, pmix_info_t info[],
                                             size_t ninfo) __asm__("PMIx_server_init");
PMIX_EXPORT pmix_status_t px_server_init_422(pmix_server_module_t *module, pmix_info_t info[],
                                             size_t ninfo)
{
    return server_init(module, PX_MODULE_SIZE_422, info, ninfo);
}

/* On the loop: drop every connection and the listener. */
static void teardown_on_loop(void *arg)
{
    (void)arg;
    px_server_t *s = px_srv;
    pthread_mutex_lock(&s->lock);
    px_usock_listener_destroy(s->listener);
    s->listener = NULL;
    /* answers already given (a job-control reply to the tool that asked us to stop,
     * the last events) reach their peers before the connections close */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double deadline = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6 + 1000;
    for (px_srv_client_t *c = s->clients; c != NULL; c = c->next) {
        if (c->peer != NULL) {
            px_peer_flush(c->peer, deadline);
        }
    }
    for (px_srv_client_t *c = s->tools; c != NULL; c = c->next) {
        if (c->peer != NULL) {
            px_peer_flush(c->peer, deadline);
        }
    }
    px_srv_iof_fini();
    px_srv_uplink_fini();
    px_srv_tool_fini();
    px_srv_group_fini(); /* their parked requests hold clients */
    px_srv_connect_fini();
    px_srv_pmi_fini();
    while (s->clients != NULL) {
        px_srv_client_t *c = s->clients;
        s->clients = c->next;
        c->registered = false;
        if (c->peer != NULL) {
            px_peer_destroy(c->peer);
            c->peer = NULL;
            c->departed = true;
            px_srv_client_release(c); /* connection's reference */
        }
        px_srv_data_client_gone(c, true);
        px_srv_client_release(c); /* registration's reference */
    }
    px_srv_data_fini();
    px_srv_reg_fini();
    pthread_mutex_unlock(&s->lock);
}

PMIX_EXPORT pmix_status_t PMIx_server_finalize(void)
{
    px_server_t *s = px_srv;
    if (s == NULL) {
        return PMIX_ERR_INIT;
    }
    if (px_progress_on_loop(s->prog)) {
        return PMIX_ERR_NOT_SUPPORTED; /* cannot join our own thread */
    }
    if (s->host_base) {
        /* the host calls this from its loop thread, or after its loop stopped */
        teardown_on_loop(NULL);
    } else if (px_progress_shift_wait(s->prog, teardown_on_loop, NULL, 10000) != 0) {
        return PMIX_ERR_TIMEOUT;
    }
    px_srv_event_fini();
    px_srv_topo_fini();
    px_progress_destroy(s->prog);
    for (size_t i = 0; s->rndz_files != NULL && s->rndz_files[i] != NULL; i++) {
        if (rndz_pid(s->rndz_files[i]) == getpid()) {
            unlink(s->rndz_files[i]);
        }
    }
    PMIx_Argv_free(s->rndz_files);
    while (s->psets != NULL) {
        px_pset_t *p = s->psets;
        s->psets = p->next;
        free(p->name);
        free(p->members);
        free(p);
    }
    PMIx_Info_free(s->attrs, s->nattrs);
    px_store_fini(&s->store);
    free(s->tmpdir);
    free(s->systmpdir);
    free(s->sockpath);
    free(s->uri);
    px_srv = NULL;
    pthread_mutex_destroy(&s->lock);
    free(s);
    return PMIX_SUCCESS;
}
