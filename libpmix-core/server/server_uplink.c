/* server: a launcher's link back to the tool that started it (Tools chapter, "Indirect
 * launch"). A server whose process was started with PMIX_LAUNCHER_RNDZ_URI (prterun or
 * prte started by a debugger) attaches to that tool at PMIx_server_init, as
 * PMIx_tool_attach_to_server would, under its own id, and keeps the connection: the
 * tool's events reach this process's handlers (and its connections in range, as a
 * connected tool's would), this server's events in the tool's range reach the tool while
 * the tool is not connected to this server itself, and the namespace the tool registered
 * for us (its spawn's job info: PMIX_LAUNCH_DIRECTIVES, PMIX_PARENT_ID...) answers this
 * process's own PMIx_Get. The attach runs on the host's thread at init (bounded); the
 * peer lives on the server's loop; ul.lock guards what other threads read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "bfrops/px_bfrops.h"
#include "client/px_client.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "help/px_help.h"
#include "net/px_call.h"
#include "net/px_closewatch.h"
#include "net/px_tcp.h"
#include "net/px_usock.h"
#include "server/px_server.h"

#define PX_UPLINK_MS 10000

static struct {
    pthread_mutex_t lock;
    px_peer_t *peer;    /* owned, loop only; NULL once lost */
    bool on;            /* attached and not lost */
    pmix_proc_t parent; /* the tool we attached to */
    px_store_t store;   /* the namespace it registered for us, when it did */
    bool have_store;
} ul = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* ---- a request waited for on the host's thread (net/px_call.h) ---- */

static px_peer_t *ul_peer(const void *key)
{
    (void)key;
    return ul.peer;
}

/* tag + msg (borrowed) to the tool; *reply (initialised here) gets the bytes after the
 * status. Not on the loop. */
static pmix_status_t ureq_wait(uint32_t tag, const pmix_data_buffer_t *msg,
                               pmix_data_buffer_t *reply)
{
    return px_call_wait(px_srv->prog, ul_peer, "", 0, tag, msg, PX_UPLINK_MS, reply);
}

/* ---- the peer (loop) ---- */

static void ul_recv(px_peer_t *peer, uint32_t tag, uint32_t seq, pmix_data_buffer_t *payload,
                    void *cbdata)
{
    (void)peer;
    (void)cbdata;
    if (tag == PX_TAG_EVENT && seq == 0) {
        px_srv_event_from_uplink(payload);
        return;
    }
    px_debug(1, "server", "unexpected message tag %u from the tool that started us", tag);
}

static void ul_lost(px_peer_t *peer, int err, void *cbdata)
{
    (void)cbdata;
    px_debug(1, "server", "connection to the tool that started us (%s:%u) lost: %s",
             ul.parent.nspace, ul.parent.rank, err ? strerror(err) : "closed");
    px_peer_destroy(peer);
    pthread_mutex_lock(&ul.lock);
    ul.peer = NULL;
    ul.on = false;
    pmix_proc_t parent = ul.parent;
    pthread_mutex_unlock(&ul.lock);
    /* our own handlers hear it as any lost tool: the host may end what it ran for it */
    pmix_info_t info[2];
    PMIx_Info_load(&info[0], PMIX_EVENT_AFFECTED_PROC, &parent, PMIX_PROC);
    PMIx_Info_load(&info[1], PMIX_EVENT_TEXT_MESSAGE,
                   "connection to the tool that started this launcher lost", PMIX_STRING);
    px_srv_event_local(PMIX_ERR_LOST_CONNECTION, &parent, info, 2);
    PMIx_Info_destruct(&info[0]);
    PMIx_Info_destruct(&info[1]);
}

typedef struct {
    int fd;
    int err;
} ul_adopt_t;

static void adopt_on_loop(void *arg)
{
    ul_adopt_t *a = arg;
    ul.peer = px_peer_create(px_srv->prog, a->fd, ul_recv, ul_lost, NULL);
    a->err = ul.peer != NULL ? 0 : errno;
}

static void drop_on_loop(void *arg)
{
    (void)arg;
    px_peer_destroy(ul.peer);
    ul.peer = NULL;
}

/* ---- start / stop ---- */

static const char *const what_var = "PMIX_LAUNCHER_RNDZ_URI (set by the tool that started "
                                    "this launcher)";

/* Attach: our id, that we are a launcher connecting back, where our own server is. */
static pmix_status_t attach(const char *uri)
{
    pmix_info_t info[5];
    bool yes = true;
    size_t n = 0;
    PMIx_Info_load(&info[n++], PMIX_TOOL_NSPACE, px_srv->myproc.nspace, PMIX_STRING);
    PMIx_Info_load(&info[n++], PMIX_TOOL_RANK, &px_srv->myproc.rank, PMIX_PROC_RANK);
    PMIx_Info_load(&info[n++], PMIX_LAUNCHER, &yes, PMIX_BOOL);
    PMIx_Info_load(&info[n++], PMIX_LAUNCHER_RNDZ_URI, uri, PMIX_STRING);
    PMIx_Info_load(&info[n++], PMIX_MYSERVER_URI, px_srv->uri, PMIX_STRING);
    pmix_data_buffer_t msg, reply;
    px_bfrops_buf_init(&msg);
    pmix_status_t rc = px_bfrops_pack_info_array(&msg, info, n);
    for (size_t i = 0; i < n; i++) {
        PMIx_Info_destruct(&info[i]);
    }
    if (rc == PMIX_SUCCESS) {
        rc = ureq_wait(PX_TAG_TOOL_ATTACH, &msg, &reply);
        px_bfrops_buf_free(&reply);
    }
    px_bfrops_buf_free(&msg);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    /* every event the tool raises in our range: it decides what is ours */
    size_t zero = 0;
    px_bfrops_buf_init(&msg);
    rc = px_bfrops_pack(&msg, &zero, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(&msg, NULL, 0);
    }
    if (rc == PMIX_SUCCESS) {
        rc = ureq_wait(PX_TAG_EVT_REGISTER, &msg, &reply);
        px_bfrops_buf_free(&reply);
    }
    px_bfrops_buf_free(&msg);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    /* the namespace it registered for us, when it started us itself */
    const char *ns = px_srv->myproc.nspace;
    px_bfrops_buf_init(&msg);
    rc = px_bfrops_pack(&msg, &ns, 1, PMIX_STRING);
    if (rc == PMIX_SUCCESS) {
        rc = ureq_wait(PX_TAG_JOBINFO, &msg, &reply);
    }
    px_bfrops_buf_free(&msg);
    if (rc == PMIX_SUCCESS) {
        pthread_mutex_lock(&ul.lock);
        px_nspace_t *rec = px_store_add(&ul.store, ns);
        rc = rec != NULL ? px_ns_unpack(&reply, rec) : PMIX_ERR_NOMEM;
        ul.have_store = rc == PMIX_SUCCESS;
        pthread_mutex_unlock(&ul.lock);
    } else if (rc == PMIX_ERR_NOT_FOUND) {
        px_debug(2, "server", "the tool that started us registered no namespace %s", ns);
        rc = PMIX_SUCCESS;
    }
    px_bfrops_buf_free(&reply);
    return rc;
}

pmix_status_t px_srv_uplink_start(px_server_t *s)
{
    const char *uri = s->launcher_rndz_uri;
    if (uri == NULL) {
        return PMIX_SUCCESS;
    }
    if (s->host_base) {
        /* the host's loop does not run yet: we cannot wait for the attach here */
        px_debug(1, "server", "PMIX_LAUNCHER_RNDZ_URI ignored: the host runs our loop");
        return PMIX_SUCCESS;
    }
    px_uri_t u;
    if (px_uri_parse_any(uri, &u) != 0) {
        px_show_help("help-pmix-tool.txt", "bad-uri", what_var, uri);
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_data_buffer_t hello;
    pmix_status_t answer = PMIX_SUCCESS;
    pmix_status_t rc = px_cl_hello_pack(&hello, PX_HELLO_TOOL, s->myproc.nspace, s->myproc.rank);
    int fd = -1;
    if (rc == PMIX_SUCCESS) {
        fd = u.tcp ? px_tcp_connect(u.addr, u.port, u.secret, &hello, PX_UPLINK_MS, &answer)
                   : px_usock_connect(u.path, &hello, PX_UPLINK_MS, &answer);
    }
    int err = errno;
    px_bfrops_buf_free(&hello);
    pmix_proc_t parent = u.server;
    px_uri_fini(&u);
    if (fd < 0) {
        if (err == ECONNREFUSED && answer != PMIX_SUCCESS) {
            px_show_help("help-pmix-tool.txt", "refused", uri, PMIx_Error_string(answer),
                         "it did not take this launcher back");
            return answer;
        }
        px_show_help("help-pmix-tool.txt", "unreachable", uri, px_hostname(), strerror(err));
        return PMIX_ERR_UNREACH;
    }
    px_store_init(&ul.store, NULL);
    ul.parent = parent;
    ul_adopt_t a = {fd, ENOMEM};
    if (px_progress_shift_wait(s->prog, adopt_on_loop, &a, PX_UPLINK_MS) != 0 || a.err != 0) {
        px_store_fini(&ul.store);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    rc = attach(uri);
    if (rc != PMIX_SUCCESS) {
        if (rc == PMIX_ERR_UNREACH || rc == PMIX_ERR_TIMEOUT || rc == PMIX_ERR_LOST_CONNECTION) {
            px_show_help("help-pmix-tool.txt", "unreachable", uri, px_hostname(),
                         "no answer to the attach request");
        } else {
            px_show_help("help-pmix-tool.txt", "refused", uri, PMIx_Error_string(rc),
                         "it did not take this launcher back");
        }
        px_progress_shift_wait(s->prog, drop_on_loop, NULL, PX_UPLINK_MS);
        pthread_mutex_lock(&ul.lock);
        px_store_fini(&ul.store);
        ul.have_store = false;
        pthread_mutex_unlock(&ul.lock);
        return rc;
    }
    pthread_mutex_lock(&ul.lock);
    ul.on = ul.peer != NULL;
    pthread_mutex_unlock(&ul.lock);
    px_debug(1, "server", "attached to the tool that started us, %s:%u", parent.nspace,
             parent.rank);
    return PMIX_SUCCESS;
}

/* ---- the keepalive pipe (Tools chapter: the tool that started us holds its write end) ---- */

static px_closewatch_t *ka; /* loop only */

static void ka_closed(void *arg)
{
    (void)arg;
    /* the tool ended: PMIX_EVENT_JOB_END for its namespace, to our own handlers */
    pmix_proc_t parent;
    if (!px_srv_uplink_parent(&parent)) {
        parent = px_srv->myproc; /* it never connected back: we only know it was ours */
    }
    px_debug(1, "server", "keepalive pipe closed: the tool that started us (%s) has gone",
             parent.nspace);
    pmix_proc_t job;
    PMIx_Load_procid(&job, parent.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t info[3];
    PMIx_Info_load(&info[0], PMIX_NSPACE, parent.nspace, PMIX_STRING);
    PMIx_Info_load(&info[1], PMIX_EVENT_AFFECTED_PROC, &job, PMIX_PROC);
    PMIx_Info_load(&info[2], PMIX_EVENT_TEXT_MESSAGE,
                   "keepalive pipe closed: the tool that started this launcher has gone",
                   PMIX_STRING);
    px_srv_event_local(PMIX_EVENT_JOB_END, &parent, info, 3);
    for (int i = 0; i < 3; i++) {
        PMIx_Info_destruct(&info[i]);
    }
}

static void ka_on_loop(void *arg)
{
    px_server_t *s = arg;
    ka = px_closewatch_start(px_progress_base(s->prog), s->keepalive_fd, ka_closed, NULL);
    if (ka == NULL) {
        px_debug(1, "server", "PMIX_KEEPALIVE_PIPE %d not watched: %s", s->keepalive_fd,
                 strerror(errno));
    }
}

void px_srv_keepalive_start(px_server_t *s)
{
    if (s->keepalive_fd >= 0 && !s->host_base) {
        px_progress_shift_wait(s->prog, ka_on_loop, s, PX_UPLINK_MS);
    }
}

/* At finalize, on the loop. */
void px_srv_uplink_fini(void)
{
    px_closewatch_stop(ka);
    ka = NULL;
    if (ul.peer != NULL) {
        /* our last events (a job's end) reach the tool before we close */
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        px_peer_flush(ul.peer, (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6 + 1000);
    }
    px_peer_destroy(ul.peer);
    ul.peer = NULL;
    pthread_mutex_lock(&ul.lock);
    ul.on = false;
    if (ul.have_store) {
        px_store_fini(&ul.store);
        ul.have_store = false;
    }
    pthread_mutex_unlock(&ul.lock);
}

bool px_srv_uplink_parent(pmix_proc_t *parent)
{
    pthread_mutex_lock(&ul.lock);
    bool on = ul.on;
    if (on) {
        *parent = ul.parent;
    }
    pthread_mutex_unlock(&ul.lock);
    return on;
}

void px_srv_uplink_send(const pmix_data_buffer_t *event)
{
    if (ul.peer != NULL && px_peer_send(ul.peer, PX_TAG_NOTIFY, event) != 0) {
        px_debug(1, "server", "event not sent to the tool that started us: %s", strerror(errno));
    }
}

pmix_status_t px_srv_uplink_get(const pmix_proc_t *proc, const char *key, pmix_value_t **val)
{
    pmix_status_t rc = PMIX_ERR_NOT_FOUND;
    pthread_mutex_lock(&ul.lock);
    px_nspace_t *ns = ul.have_store ? px_store_find(&ul.store, px_srv->myproc.nspace) : NULL;
    const pmix_value_t *v = NULL;
    if (ns != NULL && PMIx_Check_nspace(proc->nspace, px_srv->myproc.nspace)) {
        px_getq_t q;
        px_getq_parse(&q, NULL, 0);
        v = px_ns_lookup(ns, proc->rank == PMIX_RANK_UNDEF ? PMIX_RANK_WILDCARD : proc->rank, key,
                         &q);
    }
    pmix_value_t parent;
    bool own = PMIx_Check_nspace(proc->nspace, px_srv->myproc.nspace);
    if (v == NULL && own && ul.on && strcmp(key, PMIX_PARENT_ID) == 0) {
        PMIx_Value_load(&parent, &ul.parent, PMIX_PROC); /* the tool that started us */
        v = &parent;
    }
    if (v != NULL) {
        *val = PMIx_Value_create(1);
        rc = *val != NULL ? PMIx_Value_xfer(*val, v) : PMIX_ERR_NOMEM;
    }
    if (v == &parent) {
        PMIx_Value_destruct(&parent);
    }
    pthread_mutex_unlock(&ul.lock);
    return rc;
}
