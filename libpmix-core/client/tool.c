/* client: the tool side — PMIx_tool_init/finalize, connections to several servers (the
 * primary one serves every API request through px_cl.peer), attach / set_server /
 * disconnect / get_servers, and the keepalive pipe. API calls run on user threads; the
 * peers, their callbacks and every change of px_cl.peer run on the client's loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <pmix.h>
#include <pmix_tool.h>

#include "bfrops/px_bfrops.h"
#include "client/px_client.h"
#include "event/px_event.h"
#include "client/px_tool.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "help/px_help.h"
#include "net/px_call.h"
#include "net/px_closewatch.h"
#include "net/px_tcp.h"
#include "net/px_usock.h"

#define PX_TOOL_CONNECT_MS 10000
#define PX_TOOL_ATTACH_MS  30000
#define PX_TOOL_BYE_MS     5000

/* One server connection. Owned by the thread attaching it until adopted (then by the
 * list); the peer is touched only on the loop. */
typedef struct tconn {
    struct tconn *next;
    pmix_proc_t server;
    px_peer_t *peer; /* owned; NULL once lost */
    bool adopted;    /* on tl.conns */
} tconn_t;

static struct {
    pthread_mutex_t lock; /* conns and primary (read by user threads, changed on the loop) */
    tconn_t *conns;
    tconn_t *primary; /* borrowed: the one px_cl.peer is */
    bool have_id;
    bool launcher;
    bool no_connect; /* PMIX_TOOL_DO_NOT_CONNECT at init */
    bool optional;   /* PMIX_TOOL_CONNECT_OPTIONAL at init */
    int keepalive_fd;
    px_closewatch_t *keepalive; /* loop only */
    char *env_uri;              /* owned: $PMIX_LAUNCHER_RNDZ_URI at init */
    pmix_proc_t parent;         /* the tool that started us, connected back to */
    bool have_parent;
    char *env_file; /* owned: $PMIX_LAUNCHER_RNDZ_FILE at init */
} tl = {.lock = PTHREAD_MUTEX_INITIALIZER, .keepalive_fd = -1};

/* ---- loop side ---- */

static void tconn_recv(px_peer_t *peer, uint32_t tag, uint32_t seq, pmix_data_buffer_t *payload,
                       void *cbdata)
{
    (void)peer;
    tconn_t *c = cbdata;
    if (tag == PX_TAG_EVENT && seq == 0) {
        px_cl_event_recv(payload);
        return;
    }
    if (tag == PX_TAG_IOF_DATA && seq == 0) {
        px_cl_iof_recv(payload); /* output of jobs, whichever server forwards it */
        return;
    }
    px_debug(1, "tool", "unexpected message tag %u seq %u from server %s:%u", tag, seq,
             c->server.nspace, c->server.rank);
}

static void tconn_unlink(tconn_t *c)
{
    pthread_mutex_lock(&tl.lock);
    for (tconn_t **pp = &tl.conns; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    if (tl.primary == c) {
        tl.primary = NULL; /* no primary: requests fail PMIX_ERR_UNREACH */
    }
    pthread_mutex_unlock(&tl.lock);
    if (px_cl.peer == c->peer) {
        px_cl.peer = NULL;
    }
}

static void tconn_lost(px_peer_t *peer, int err, void *cbdata)
{
    tconn_t *c = cbdata;
    px_debug(1, "tool", "connection to server %s:%u lost: %s", c->server.nspace, c->server.rank,
             err ? strerror(err) : "closed");
    bool primary = px_cl.peer == peer;
    if (primary) {
        px_cl.peer = NULL;
    }
    px_peer_destroy(peer);
    c->peer = NULL;
    if (primary) {
        px_cl_event_lost(); /* the tool hears of its lost primary server as an event */
    }
    if (c->adopted) {
        tconn_unlink(c);
        free(c);
    } /* else the attaching thread frees it */
}

static tconn_t *tconn_find(const pmix_proc_t *server)
{
    for (tconn_t *c = tl.conns; c != NULL; c = c->next) {
        if (c->server.rank == server->rank && PMIx_Check_nspace(c->server.nspace, server->nspace)) {
            return c;
        }
    }
    return NULL;
}

/* A request to one server (not the primary), waited for by a user thread
 * (net/px_call.h): to the connection c (not adopted yet), or to server's, found on the
 * loop. */
typedef struct {
    tconn_t *c;
    pmix_proc_t server;
} treq_key_t;

static px_peer_t *treq_peer(const void *key)
{
    const treq_key_t *k = key;
    tconn_t *c = k->c;
    if (c == NULL) {
        pthread_mutex_lock(&tl.lock);
        c = tconn_find(&k->server);
        pthread_mutex_unlock(&tl.lock);
    }
    return c != NULL ? c->peer : NULL;
}

/* Send tag + msg (borrowed) to c (or to server), wait at most ms. The reply's bytes
 * after its status go to *reply (initialised here) when reply is not NULL. */
static pmix_status_t treq_wait(tconn_t *c, const pmix_proc_t *server, uint32_t tag,
                               const pmix_data_buffer_t *msg, int ms, pmix_data_buffer_t *reply)
{
    treq_key_t k = {.c = c};
    if (server != NULL) {
        k.server = *server;
    }
    return px_call_wait(px_cl.prog, treq_peer, &k, sizeof(k), tag, msg, ms, reply);
}

typedef struct {
    tconn_t *c;
    int fd;
    bool primary;
    int err;
} adopt_t;

static void peer_on_loop(void *arg)
{
    adopt_t *a = arg;
    a->c->peer = px_peer_create(px_cl.prog, a->fd, tconn_recv, tconn_lost, a->c);
    a->err = a->c->peer != NULL ? 0 : errno;
}

static void make_primary(tconn_t *c)
{
    pthread_mutex_lock(&tl.lock);
    tl.primary = c;
    pthread_mutex_unlock(&tl.lock);
    px_cl.peer = c->peer;
    px_cl.server = c->server;
}

/* After the approval: onto the list; the first one (or a requested one) is primary. */
static void adopt_on_loop(void *arg)
{
    adopt_t *a = arg;
    tconn_t *c = a->c;
    if (c->peer == NULL) {
        a->err = ECONNRESET; /* lost between the approval and now */
        return;
    }
    pthread_mutex_lock(&tl.lock);
    c->adopted = true;
    c->next = tl.conns;
    tl.conns = c;
    bool first = tl.primary == NULL;
    pthread_mutex_unlock(&tl.lock);
    if (first || a->primary) {
        make_primary(c);
    }
    a->err = 0;
}

/* Drop an unadopted connection (after a refusal). */
static void drop_on_loop(void *arg)
{
    tconn_t *c = arg;
    px_peer_destroy(c->peer);
    c->peer = NULL;
}

/* ---- connecting ---- */

static const char *refusal_reason(pmix_status_t st)
{
    switch (st) {
    case PMIX_ERR_NOT_SUPPORTED:
        return "it does not accept tools (started without tool support, or its host "
               "provides no tool_connected hook)";
    case PMIX_ERR_NO_PERMISSIONS:
        return "permission denied (a wrong or missing secret for its TCP listener, or the "
               "server serves only its own user and this tool runs as another one)";
    case PMIX_EXISTS:
        return "a process with this tool's identity is connected already";
    default:
        return "its host did not approve the connection";
    }
}

void px_tool_show_refused(const char *uri, pmix_status_t status)
{
    px_show_help("help-pmix-tool.txt", "refused", uri, PMIx_Error_string(status),
                 refusal_reason(status));
}

/* What a tool tells a server it attaches to: its id if it has one, that it is a
 * launcher; connecting back to the tool that started it (uri = the
 * PMIX_LAUNCHER_RNDZ_URI it was given, else NULL), that and its own server's URI. */
static pmix_status_t attach_info(pmix_data_buffer_t *msg, const char *uri)
{
    pmix_info_t info[5];
    size_t n = 0;
    px_bfrops_buf_init(msg);
    if (tl.have_id) {
        PMIx_Info_load(&info[n++], PMIX_TOOL_NSPACE, px_cl.myproc.nspace, PMIX_STRING);
        PMIx_Info_load(&info[n++], PMIX_TOOL_RANK, &px_cl.myproc.rank, PMIX_PROC_RANK);
    }
    if (tl.launcher) {
        bool t = true;
        PMIx_Info_load(&info[n++], PMIX_LAUNCHER, &t, PMIX_BOOL);
    }
    if (uri != NULL) {
        PMIx_Info_load(&info[n++], PMIX_LAUNCHER_RNDZ_URI, uri, PMIX_STRING);
        char *mine = px_tool_srv_uri();
        if (mine != NULL) {
            PMIx_Info_load(&info[n++], PMIX_MYSERVER_URI, mine, PMIX_STRING);
            free(mine);
        }
    }
    pmix_status_t rc = px_bfrops_pack_info_array(msg, info, n);
    for (size_t i = 0; i < n; i++) {
        PMIx_Info_destruct(&info[i]);
    }
    return rc;
}

pmix_status_t px_tool_connect_uri(const char *uri, const px_tool_try_t *how, pmix_proc_t *server)
{
    px_uri_t u;
    pmix_status_t rc, answer = PMIX_SUCCESS;
    pmix_data_buffer_t hello, msg, reply;
    int fd;

    if (px_uri_parse_any(uri, &u) != 0) {
        if (!how->quiet) {
            px_show_help("help-pmix-tool.txt", "bad-uri",
                         how->connect_back ? "PMIX_LAUNCHER_RNDZ_URI (set by the tool that "
                                             "started this one)"
                                           : "the server URI",
                         uri ? uri : "");
        }
        return PMIX_ERR_BAD_PARAM;
    }
    if (how->tcp_only && !u.tcp) {
        if (!how->quiet) {
            px_show_help("help-pmix-tool.txt", "not-tcp", uri);
        }
        px_uri_fini(&u);
        return PMIX_ERR_BAD_PARAM;
    }
    pthread_mutex_lock(&tl.lock);
    bool known = tconn_find(&u.server) != NULL;
    pthread_mutex_unlock(&tl.lock);
    if (known) {
        px_uri_fini(&u);
        return PMIX_OPERATION_SUCCEEDED; /* already connected: ignored */
    }
    rc = px_cl_hello_pack(&hello, PX_HELLO_TOOL, tl.have_id ? px_cl.myproc.nspace : "",
                          tl.have_id ? px_cl.myproc.rank : PMIX_RANK_UNDEF);
    fd = -1;
    if (rc == PMIX_SUCCESS) {
        fd = u.tcp ? px_tcp_connect(u.addr, u.port, u.secret, &hello, PX_TOOL_CONNECT_MS, &answer)
                   : px_usock_connect(u.path, &hello, PX_TOOL_CONNECT_MS, &answer);
    }
    px_bfrops_buf_free(&hello);
    if (fd < 0) {
        int err = errno;
        if (rc == PMIX_SUCCESS && err == ECONNREFUSED && answer != PMIX_SUCCESS) {
            rc = answer;
            if (!how->quiet) {
                px_tool_show_refused(uri, rc);
            }
        } else if (rc == PMIX_SUCCESS) {
            rc = PMIX_ERR_UNREACH;
            if (!how->quiet) {
                px_show_help("help-pmix-tool.txt", "unreachable", uri, px_hostname(),
                             strerror(err));
            }
        }
        px_debug(1, "tool", "cannot connect to %s: %s", uri, PMIx_Error_string(rc));
        px_uri_fini(&u);
        return rc;
    }
    tconn_t *c = calloc(1, sizeof(*c));
    adopt_t a = {c, fd, how->primary, ENOMEM};
    if (c == NULL) {
        close(fd);
        px_uri_fini(&u);
        return PMIX_ERR_NOMEM;
    }
    c->server = u.server;
    px_uri_fini(&u);
    if (px_progress_shift_wait(px_cl.prog, peer_on_loop, &a, PX_TOOL_CONNECT_MS) != 0 ||
        a.err != 0) {
        free(c);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    rc = attach_info(&msg, how->connect_back ? uri : NULL);
    if (rc == PMIX_SUCCESS) {
        rc = treq_wait(c, NULL, PX_TAG_TOOL_ATTACH, &msg, PX_TOOL_ATTACH_MS, &reply);
        if (rc == PMIX_ERR_LOST_CONNECTION) {
            rc = PMIX_ERR_UNREACH;
        }
    } else {
        px_bfrops_buf_init(&reply);
    }
    px_bfrops_buf_free(&msg);
    pmix_proc_t me;
    if (rc == PMIX_SUCCESS) {
        int32_t one = 1;
        rc = px_bfrops_unpack(&reply, &me, &one, PMIX_PROC);
    }
    px_bfrops_buf_free(&reply);
    if (rc == PMIX_SUCCESS) {
        if (!tl.have_id) {
            px_cl.myproc = me; /* the host assigned our identity */
            tl.have_id = true;
        }
        a.err = ENOMEM;
        if (px_progress_shift_wait(px_cl.prog, adopt_on_loop, &a, PX_TOOL_CONNECT_MS) != 0 ||
            a.err != 0) {
            rc = PMIX_ERR_UNREACH;
        }
    } else if (!how->quiet) {
        if (rc == PMIX_ERR_UNREACH || rc == PMIX_ERR_TIMEOUT) {
            px_show_help("help-pmix-tool.txt", "unreachable", uri, px_hostname(),
                         "no answer to the attach request");
        } else {
            px_tool_show_refused(uri, rc);
        }
    }
    if (rc != PMIX_SUCCESS) {
        px_debug(1, "tool", "attach to %s failed: %s", uri, PMIx_Error_string(rc));
        px_progress_shift_wait(px_cl.prog, drop_on_loop, c, PX_TOOL_CONNECT_MS);
        free(c);
        return rc;
    }
    px_debug(2, "tool", "connected to %s:%u as %s:%u", c->server.nspace, c->server.rank,
             px_cl.myproc.nspace, px_cl.myproc.rank);
    if (server != NULL) {
        *server = c->server;
    }
    return PMIX_SUCCESS;
}

/* ---- keepalive pipe ---- */

/* The tool that started us: the one we connected back to, else the PMIX_PARENT_ID the
 * namespace it registered for us holds, else (we cannot tell) ourselves. Loop. */
static void parent_id(pmix_proc_t *parent)
{
    if (px_tool_parent(parent)) {
        return;
    }
    *parent = px_cl.myproc;
    pthread_mutex_lock(&px_cl.lock);
    px_nspace_t *ns = px_store_find(&px_cl.store, px_cl.myproc.nspace);
    const pmix_value_t *v =
        ns != NULL ? px_ns_lookup(ns, px_cl.myproc.rank, PMIX_PARENT_ID, NULL) : NULL;
    if (v != NULL && v->type == PMIX_PROC && v->data.proc != NULL) {
        *parent = *v->data.proc;
    }
    pthread_mutex_unlock(&px_cl.lock);
}

void px_cl_keepalive_closed(void)
{
    px_debug(1, "tool", "keepalive pipe closed: the parent tool has gone");
    /* Tools chapter: "providing a PMIX_EVENT_JOB_END event when the pipe closes"; the
     * launcher finds the initiator's namespace with PMIx_Get(PMIX_PARENT_ID) and decides
     * (tears its job down and exits). Kept for a handler registered only after the pipe
     * closed (e.g. during PMIx_tool_init). */
    pmix_proc_t parent, job;
    parent_id(&parent);
    PMIx_Load_procid(&job, parent.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t info[3];
    PMIX_INFO_LOAD(&info[0], PMIX_NSPACE, parent.nspace, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_EVENT_AFFECTED_PROC, &job, PMIX_PROC);
    PMIX_INFO_LOAD(&info[2], PMIX_EVENT_TEXT_MESSAGE,
                   "keepalive pipe closed: the parent tool has gone", PMIX_STRING);
    px_cl_event_keep_local(PMIX_EVENT_JOB_END, info, 3);
    for (int i = 0; i < 3; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
}

static void keepalive_closed(void *arg)
{
    (void)arg;
    px_cl_keepalive_closed();
}

static void keepalive_on_loop(void *arg)
{
    (void)arg;
    tl.keepalive =
        px_closewatch_start(px_progress_base(px_cl.prog), tl.keepalive_fd, keepalive_closed, NULL);
    if (tl.keepalive == NULL) {
        px_debug(1, "tool", "PMIX_KEEPALIVE_PIPE %d not watched: %s", tl.keepalive_fd,
                 strerror(errno));
    }
}

static void unkeepalive_on_loop(void *arg)
{
    (void)arg;
    px_closewatch_stop(tl.keepalive);
    tl.keepalive = NULL;
}

/* ---- API ---- */

static void read_env(void)
{
    const char *v = getenv(PMIX_LAUNCHER_RNDZ_URI);
    free(tl.env_uri);
    free(tl.env_file);
    tl.env_uri = v != NULL && *v != '\0' ? strdup(v) : NULL;
    v = getenv(PMIX_LAUNCHER_RNDZ_FILE);
    tl.env_file = v != NULL && *v != '\0' ? strdup(v) : NULL;
    v = getenv(PMIX_KEEPALIVE_PIPE);
    tl.keepalive_fd = -1;
    if (v != NULL && *v != '\0') {
        char *end;
        long fd = strtol(v, &end, 10);
        if (*end == '\0' && fd >= 0 && fd < 1 << 20) {
            tl.keepalive_fd = (int)fd;
        }
    }
    /* the Standard: cleared after use, before any child could inherit them */
    unsetenv(PMIX_LAUNCHER_RNDZ_URI);
    unsetenv(PMIX_LAUNCHER_RNDZ_FILE);
    unsetenv(PMIX_KEEPALIVE_PIPE);
}

static void self_assign(void)
{
    char ns[PMIX_MAX_NSLEN + 1];
    snprintf(ns, sizeof(ns), "%s.tool.%d", px_hostname(), (int)getpid());
    PMIx_Load_procid(&px_cl.myproc, ns, 0);
    tl.have_id = true;
}

/* The directives PMIx_tool_init acts on: read here or by the rendezvous (tool_rndz.c).
 * A required directive not listed is refused with PMIX_ERR_NOT_SUPPORTED. */
static const char *const tool_init_honoured[] = {
    PMIX_TOOL_NSPACE,
    PMIX_TOOL_RANK,
    PMIX_LAUNCHER,
    PMIX_TOOL_DO_NOT_CONNECT,
    PMIX_TOOL_CONNECT_OPTIONAL,
    PMIX_TOOL_ATTACHMENT_FILE,
    PMIX_SERVER_URI,
    PMIX_TCP_URI,
    PMIX_SERVER_NSPACE,
    PMIX_SERVER_PIDINFO,
    PMIX_CONNECT_TO_SYSTEM,
    PMIX_CONNECT_SYSTEM_FIRST,
    PMIX_PRIMARY_SERVER,
    PMIX_CONNECT_MAX_RETRIES,
    PMIX_CONNECT_RETRY_DELAY,
    PMIX_WAIT_FOR_CONNECTION,
    PMIX_TIMEOUT,
    PMIX_SERVER_TMPDIR,
    PMIX_SYSTEM_TMPDIR,
    PMIX_LAUNCHER_RENDEZVOUS_FILE, /* our own server's (PMIX_LAUNCHER) */
    NULL,
};

/* Who we are: the directives (read once, at the first init), else later from the
 * server or self-assigned in tool_join. */
static pmix_status_t tool_identify(const pmix_info_t info[], size_t ninfo)
{
    read_env();
    const char *nspace = NULL;
    pmix_rank_t rank = 0;
    tl.launcher = false;
    tl.have_id = false;
    tl.no_connect = false;
    tl.optional = false;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_TOOL_NSPACE)) {
            if (info[i].value.type != PMIX_STRING || info[i].value.data.string == NULL ||
                info[i].value.data.string[0] == '\0' ||
                strlen(info[i].value.data.string) > PMIX_MAX_NSLEN) {
                return PMIX_ERR_BAD_PARAM;
            }
            nspace = info[i].value.data.string;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_TOOL_RANK)) {
            if (PMIx_Value_get_number(&info[i].value, &rank, PMIX_PROC_RANK) != PMIX_SUCCESS) {
                return PMIX_ERR_BAD_PARAM;
            }
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_LAUNCHER)) {
            /* told to servers; our own listener (tool_srv.c) starts in tool_join */
            tl.launcher = PMIX_INFO_TRUE(&info[i]);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_TOOL_DO_NOT_CONNECT)) {
            tl.no_connect = PMIX_INFO_TRUE(&info[i]);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_TOOL_CONNECT_OPTIONAL)) {
            tl.optional = PMIX_INFO_TRUE(&info[i]);
        }
    }
    if (nspace == NULL && tl.env_uri != NULL && getenv(PX_ENV_NSPACE) != NULL &&
        strlen(getenv(PX_ENV_NSPACE)) <= PMIX_MAX_NSLEN) {
        /* a launcher started by a tool: the id that tool registered for it (the namespace
         * its PMIx_Spawn returned, rank 0), so that both name it alike */
        nspace = getenv(PX_ENV_NSPACE);
        const char *r = getenv(PX_ENV_RANK);
        rank = r != NULL ? (pmix_rank_t)strtoul(r, NULL, 10) : 0;
    }
    if (nspace != NULL) {
        PMIx_Load_procid(&px_cl.myproc, nspace, rank);
        tl.have_id = true;
    }
    return PMIX_SUCCESS;
}

/* Tools chapter, indirect launch: a launcher started with PMIX_LAUNCHER_RNDZ_URI
 * connects back to the tool that started it, as PMIx_tool_attach_to_server would, and
 * keeps its current primary server (the tool becomes primary only when there is none). */
static pmix_status_t connect_back(void)
{
    px_tool_try_t how = {.connect_back = true};
    pmix_proc_t parent;
    px_uri_t u;
    if (px_uri_parse_any(tl.env_uri, &u) == 0) {
        /* known before it hears from us: it may make us its server at once */
        pthread_mutex_lock(&tl.lock);
        tl.parent = u.server;
        tl.have_parent = true;
        pthread_mutex_unlock(&tl.lock);
        px_uri_fini(&u);
    }
    pmix_status_t rc = px_tool_connect_uri(tl.env_uri, &how, &parent);
    if (rc == PMIX_OPERATION_SUCCEEDED) {
        return PMIX_SUCCESS; /* already connected to it (it is the server we found) */
    }
    if (rc != PMIX_SUCCESS) {
        pthread_mutex_lock(&tl.lock);
        tl.have_parent = false;
        pthread_mutex_unlock(&tl.lock);
        return rc;
    }
    /* every event it raises in our range (it decides what is ours), whichever server is
     * our primary */
    pmix_data_buffer_t msg, reply;
    size_t zero = 0;
    px_bfrops_buf_init(&msg);
    rc = px_bfrops_pack(&msg, &zero, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(&msg, NULL, 0);
    }
    if (rc == PMIX_SUCCESS) {
        rc = treq_wait(NULL, &parent, PX_TAG_EVT_REGISTER, &msg, PX_TOOL_ATTACH_MS, &reply);
        px_bfrops_buf_free(&reply);
    }
    px_bfrops_buf_free(&msg);
    /* the namespace it registered for us when it started us itself: its spawn's job info
     * (PMIX_LAUNCH_DIRECTIVES...), which our PMIx_Get then answers */
    const char *ns = px_cl.myproc.nspace;
    px_bfrops_buf_init(&msg);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(&msg, &ns, 1, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS) {
        rc = treq_wait(NULL, &parent, PX_TAG_JOBINFO, &msg, PX_TOOL_ATTACH_MS, &reply);
        if (rc == PMIX_SUCCESS) {
            rc = px_cl_store_jobinfo(ns, &reply);
        } else if (rc == PMIX_ERR_NOT_FOUND) {
            rc = PMIX_SUCCESS; /* it did not start us itself: no directives */
        }
        px_bfrops_buf_free(&reply);
    }
    px_bfrops_buf_free(&msg);
    if (rc != PMIX_SUCCESS) {
        px_show_help("help-pmix-tool.txt", "unreachable", tl.env_uri, px_hostname(),
                     "no answer to the requests after the attach");
        return rc;
    }
    /* PMIx_Get(PMIX_PARENT_ID) names it even when it registered nothing for us */
    pthread_mutex_lock(&px_cl.lock);
    px_nspace_t *rec = px_store_add(&px_cl.store, px_cl.myproc.nspace);
    px_ns_rank_t *r = rec != NULL ? px_ns_rank(rec, px_cl.myproc.rank) : NULL;
    if (r != NULL && px_ns_lookup(rec, px_cl.myproc.rank, PMIX_PARENT_ID, NULL) == NULL) {
        pmix_value_t v;
        PMIx_Value_load(&v, &parent, PMIX_PROC);
        px_kvset_put(&r->info, PMIX_PARENT_ID, &v);
        PMIx_Value_destruct(&v);
    }
    pthread_mutex_unlock(&px_cl.lock);
    return PMIX_SUCCESS;
}

static pmix_status_t tool_join(const pmix_info_t info[], size_t ninfo)
{
    pmix_status_t rc = PMIX_SUCCESS;
    if (!tl.no_connect) {
        /* a launcher started by a tool looks for its own server as any tool does; with
         * none, the tool it connects back to below is its only (so primary) server */
        bool quiet = tl.optional || tl.env_uri != NULL;
        rc = px_tool_rndz(info, ninfo, NULL, tl.env_file, quiet, NULL);
        if (rc != PMIX_SUCCESS && quiet) {
            px_debug(1, "tool", "no server (%s): running unconnected", PMIx_Error_string(rc));
            rc = PMIX_SUCCESS;
        }
    }
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (!tl.have_id) {
        self_assign();
    }
    /* our identity is known now (given, approved by the server, or self-assigned) */
    px_cl.event_bound = px_cl_event_bind() == PMIX_SUCCESS;
    /* watched from here on: its closure, even one before or during this init, is then an
     * event from a known source that the event engine can run and keep */
    if (tl.keepalive_fd >= 0) {
        px_progress_shift_wait(px_cl.prog, keepalive_on_loop, NULL, PX_TOOL_CONNECT_MS);
    }
    /* a launcher's listener first, so that connecting back can say where it is */
    if (tl.launcher) {
        rc = px_tool_srv_start(info, ninfo);
    }
    if (rc == PMIX_SUCCESS && tl.env_uri != NULL) {
        rc = connect_back();
    }
    return rc;
}

/* Tell a server we leave, then drop its connection. */
static void bye_on_loop(void *arg)
{
    pmix_proc_t *server = arg;
    pthread_mutex_lock(&tl.lock);
    tconn_t *c = tconn_find(server);
    pthread_mutex_unlock(&tl.lock);
    if (c == NULL) {
        return;
    }
    tconn_unlink(c);
    px_peer_destroy(c->peer);
    free(c);
}

static pmix_status_t disconnect(const pmix_proc_t *server)
{
    pmix_proc_t s = *server;
    pmix_status_t rc = treq_wait(NULL, &s, PX_TAG_FINALIZE, NULL, PX_TOOL_BYE_MS, NULL);
    if (rc == PMIX_ERR_UNREACH) {
        return PMIX_ERR_NOT_FOUND; /* not one of ours */
    }
    px_progress_shift_wait(px_cl.prog, bye_on_loop, &s, PX_TOOL_CONNECT_MS);
    return PMIX_SUCCESS;
}

/* Goodbye to every server, the primary included. */
static void tool_leave(void)
{
    px_tool_spawn_fini(); /* what we started is no longer watched */
    px_tool_relay_stop(); /* no more waiting for a relayed job's requester */
    px_tool_srv_stop();   /* the launchers connected to us hear that we left */
    px_tool_relay_fini();
    for (;;) {
        pthread_mutex_lock(&tl.lock);
        pmix_proc_t s;
        bool any = tl.conns != NULL;
        if (any) {
            s = tl.conns->server;
        }
        pthread_mutex_unlock(&tl.lock);
        if (!any) {
            break;
        }
        if (disconnect(&s) != PMIX_SUCCESS) {
            px_progress_shift_wait(px_cl.prog, bye_on_loop, &s, PX_TOOL_CONNECT_MS);
        }
    }
}

static void tool_release(void)
{
    px_tool_srv_stop(); /* a failed init's */
    px_progress_shift_wait(px_cl.prog, unkeepalive_on_loop, NULL, PX_TOOL_CONNECT_MS);
    free(tl.env_uri);
    free(tl.env_file);
    tl.env_uri = tl.env_file = NULL;
    tl.have_id = false;
    tl.have_parent = false;
}

static const px_cl_side_t tool_side = {
    .helpfile = "help-pmix-tool.txt",
    .honoured = tool_init_honoured,
    .identify = tool_identify,
    .join = tool_join,
    .leave = tool_leave,
    .release = tool_release,
};

PMIX_EXPORT pmix_status_t PMIx_tool_init(pmix_proc_t *proc, pmix_info_t info[], size_t ninfo)
{
    return px_cl_start(&tool_side, proc, info, ninfo);
}

PMIX_EXPORT pmix_status_t PMIx_tool_finalize(void)
{
    return px_cl_stop(&tool_side);
}

PMIX_EXPORT pmix_status_t PMIx_tool_attach_to_server(pmix_proc_t *myproc, pmix_proc_t *server,
                                                     pmix_info_t info[], size_t ninfo)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (ninfo > 0 && info == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pthread_mutex_lock(&px_cl.init_lock);
    pmix_proc_t s;
    pmix_status_t rc = px_tool_rndz(info, ninfo, NULL, NULL, false, &s);
    pthread_mutex_unlock(&px_cl.init_lock);
    if (rc == PMIX_SUCCESS) {
        if (myproc != NULL) {
            *myproc = px_cl.myproc;
        }
        if (server != NULL) {
            *server = s;
        }
    }
    return rc;
}

/* The deprecated form (OpenPMIx 3.x, still what MPIR shims call): connect to the server
 * the directives name (the rendezvous chain, as attach_to_server), make it the primary
 * and leave every other server, as a tool then held one connection at a time. */
PMIX_EXPORT pmix_status_t PMIx_tool_connect_to_server(pmix_proc_t *proc, pmix_info_t info[],
                                                      size_t ninfo)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (ninfo > 0 && info == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_info_t *all = PMIx_Info_create(ninfo + 1);
    if (all == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < ninfo; i++) {
        PMIx_Info_xfer(&all[i], &info[i]);
    }
    bool yes = true;
    PMIx_Info_load(&all[ninfo], PMIX_PRIMARY_SERVER, &yes, PMIX_BOOL);
    pmix_proc_t s;
    pthread_mutex_lock(&px_cl.init_lock);
    pmix_status_t rc = px_tool_rndz(all, ninfo + 1, NULL, NULL, false, &s);
    pthread_mutex_unlock(&px_cl.init_lock);
    PMIx_Info_free(all, ninfo + 1);
    if (rc == PMIX_EXISTS) {
        rc = PMIX_SUCCESS; /* connected to it already */
    }
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    (void)s;
    for (;;) { /* the others go */
        pmix_proc_t other;
        bool any = false;
        pthread_mutex_lock(&tl.lock);
        for (tconn_t *c = tl.conns; c != NULL && !any; c = c->next) {
            if (c != tl.primary) {
                other = c->server;
                any = true;
            }
        }
        pthread_mutex_unlock(&tl.lock);
        if (!any || disconnect(&other) != PMIX_SUCCESS) {
            break;
        }
    }
    if (proc != NULL) {
        *proc = px_cl.myproc;
    }
    return PMIX_SUCCESS;
}

static void primary_on_loop(void *arg)
{
    pmix_proc_t *server = arg;
    pthread_mutex_lock(&tl.lock);
    tconn_t *c = tconn_find(server);
    pthread_mutex_unlock(&tl.lock);
    if (c != NULL && c->peer != NULL) {
        make_primary(c);
    } else {
        server->rank = PMIX_RANK_INVALID; /* tells the caller */
    }
}

static pmix_status_t make_primary_now(const pmix_proc_t *server)
{
    pmix_proc_t s = *server;
    if (px_progress_shift_wait(px_cl.prog, primary_on_loop, &s, PX_TOOL_CONNECT_MS) != 0) {
        return PMIX_ERR_TIMEOUT;
    }
    return s.rank == PMIX_RANK_INVALID ? PMIX_ERR_NOT_FOUND : PMIX_SUCCESS;
}

static long ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* PMIX_WAIT_FOR_CONNECTION (+ PMIX_TIMEOUT): the server may be a launcher we started that
 * has yet to connect back to our own server (Tools chapter, indirect launch). Once it
 * has, with the URI of its own server, we connect to that and make it our primary. The
 * wait ends at the timeout (none given: when a launcher we started ourselves ended). */
PMIX_EXPORT pmix_status_t PMIx_tool_set_server(const pmix_proc_t *server, pmix_info_t info[],
                                               size_t ninfo)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (server == NULL || (ninfo > 0 && info == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    bool wait = false;
    int timeout_s = 0;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_WAIT_FOR_CONNECTION)) {
            wait = PMIX_INFO_TRUE(&info[i]);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_TIMEOUT)) {
            PMIx_Value_get_number(&info[i].value, &timeout_s, PMIX_INT);
        }
    }
    pmix_status_t rc = make_primary_now(server);
    if (rc != PMIX_ERR_NOT_FOUND || !px_tool_srv_running()) {
        return rc == PMIX_ERR_NOT_FOUND && wait ? PMIX_ERR_UNREACH : rc;
    }
    long deadline = timeout_s > 0 ? ms_now() + (long)timeout_s * 1000 : 0;
    char *uri = NULL;
    for (;;) {
        long left = deadline > 0 ? deadline - ms_now() : 100;
        uri = px_tool_srv_back_uri(server, !wait        ? 0
                                           : left < 100 ? (int)(left > 0 ? left : 0)
                                                        : 100);
        if (uri != NULL || !wait) {
            break;
        }
        if (px_tool_spawn_ended(server->nspace)) {
            return PMIX_ERR_UNREACH; /* the launcher we started ended without connecting */
        }
        if (deadline > 0 && ms_now() >= deadline) {
            return PMIX_ERR_TIMEOUT;
        }
    }
    if (uri == NULL) {
        return PMIX_ERR_NOT_FOUND;
    }
    px_tool_try_t how = {.primary = true};
    pmix_proc_t got;
    rc = px_tool_connect_uri(uri, &how, &got);
    free(uri);
    if (rc == PMIX_OPERATION_SUCCEEDED) {
        rc = make_primary_now(server);
    } else if (rc == PMIX_SUCCESS &&
               !(PMIx_Check_procid(&got, server) && got.rank == server->rank)) {
        rc = make_primary_now(server); /* its server answers to another id: not the one asked */
    }
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_tool_disconnect(const pmix_proc_t *server)
{
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    if (server == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    return disconnect(server);
}

PMIX_EXPORT pmix_status_t PMIx_tool_get_servers(pmix_proc_t *servers[], size_t *nservers)
{
    if (servers == NULL || nservers == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    *servers = NULL;
    *nservers = 0;
    if (!px_cl_initialized()) {
        return PMIX_ERR_INIT;
    }
    pthread_mutex_lock(&tl.lock);
    size_t n = 0;
    for (tconn_t *c = tl.conns; c != NULL; c = c->next) {
        n++;
    }
    pmix_status_t rc = PMIX_SUCCESS;
    if (n > 0) {
        *servers = PMIx_Proc_create(n);
        if (*servers == NULL) {
            rc = PMIX_ERR_NOMEM;
        } else {
            /* the primary first, then the others */
            size_t i = 0;
            if (tl.primary != NULL) {
                (*servers)[i++] = tl.primary->server;
            }
            for (tconn_t *c = tl.conns; c != NULL; c = c->next) {
                if (c != tl.primary) {
                    (*servers)[i++] = c->server;
                }
            }
            *nservers = n;
        }
    }
    pthread_mutex_unlock(&tl.lock);
    return rc;
}

/* On the loop: NOTIFY to the tool that started us. */
typedef struct {
    pmix_proc_t parent;
    pmix_data_buffer_t msg;
} up_note_t;

static void parent_notify_on_loop(void *arg)
{
    up_note_t *n = arg;
    pthread_mutex_lock(&tl.lock);
    tconn_t *c = tconn_find(&n->parent);
    pthread_mutex_unlock(&tl.lock);
    if (c != NULL && c->peer != NULL) {
        px_peer_send(c->peer, PX_TAG_NOTIFY, &n->msg);
    }
    px_bfrops_buf_free(&n->msg);
    free(n);
}

/* Is the tool that started us within an event's range? (Its namespace is not ours.) */
static bool parent_in_range(const pmix_proc_t *parent, pmix_data_range_t range,
                            const pmix_info_t info[], size_t ninfo)
{
    return range != PMIX_RANGE_PROC_LOCAL && range != PMIX_RANGE_NAMESPACE &&
           px_cl_range_names(range, info, ninfo, parent);
}

void px_tool_parent_notify(const pmix_data_buffer_t *msg, pmix_data_range_t range,
                           const pmix_info_t info[], size_t ninfo)
{
    pmix_proc_t parent, primary;
    pthread_mutex_lock(&tl.lock);
    bool have = tl.have_parent;
    parent = tl.parent;
    pthread_mutex_unlock(&tl.lock);
    /* it hears it from our primary server when that is it, or from our own server when
     * it is connected there */
    if (!have ||
        (px_tool_primary(&primary) && PMIx_Check_procid(&primary, &parent) &&
         primary.rank == parent.rank) ||
        !parent_in_range(&parent, range, info, ninfo) || px_tool_srv_has(&parent)) {
        return;
    }
    up_note_t *n = calloc(1, sizeof(*n));
    if (n == NULL) {
        return;
    }
    n->parent = parent;
    px_bfrops_buf_init(&n->msg);
    px_bfrops_buf_append(&n->msg, msg->base_ptr, msg->bytes_used);
    if (px_progress_shift(px_cl.prog, parent_notify_on_loop, n) != 0) {
        px_bfrops_buf_free(&n->msg);
        free(n);
    }
}

bool px_tool_parent(pmix_proc_t *parent)
{
    pthread_mutex_lock(&tl.lock);
    bool have = tl.have_parent;
    if (have) {
        *parent = tl.parent;
    }
    pthread_mutex_unlock(&tl.lock);
    return have;
}

bool px_tool_primary(pmix_proc_t *server)
{
    pthread_mutex_lock(&tl.lock);
    bool any = tl.primary != NULL;
    if (any) {
        *server = tl.primary->server;
    }
    pthread_mutex_unlock(&tl.lock);
    return any;
}

PMIX_EXPORT bool PMIx_tool_is_connected(void)
{
    if (!px_cl_initialized()) {
        return false;
    }
    pthread_mutex_lock(&tl.lock);
    bool on = tl.primary != NULL;
    pthread_mutex_unlock(&tl.lock);
    return on;
}
