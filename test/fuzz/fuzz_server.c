/* libFuzzer target: the server's message dispatch. The input is what a connected client
 * sends after its handshake: framed messages (16-byte header + payload), cut anywhere.
 * One server runs for the whole process on our own event base (PMIX_EVENT_BASE, so this
 * thread is its loop), with namespace "fz" of two ranks; per input rank 0 is registered,
 * attached to one end of a socketpair as its handshake would (px_peer + the dispatch
 * callbacks), fed the bytes, half-closed; the loop runs until the server lets the
 * connection go (end of stream, or a malformed message dropped it); then rank 0 is
 * deregistered. Any crash, sanitizer report, leak or allocation beyond
 * -malloc_limit_mb is a bug. The host module is empty: every upcall is refused, as a
 * host without that function would, so the fuzzer reaches the request decoding.
 * PX_FUZZ_SEEDS=DIR: write seed inputs to DIR/corpus-server and DIR/corpus-nspace, exit. */
#include <errno.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "common/px_proto.h"
#include "net/px_msg.h"
#include "server/px_server.h"

#include "fuzz_host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* ---- seeds: one request of each kind, framed ---- */

static void frame(pmix_data_buffer_t *out, uint32_t tag, uint32_t seq, pmix_data_buffer_t *body)
{
    px_msg_hdr_t h = {(uint32_t)px_bfrops_buf_remaining(body), tag, seq, 0};
    uint8_t hdr[PX_MSG_HDR_SIZE];
    px_msg_hdr_encode(&h, hdr);
    px_bfrops_buf_append(out, hdr, sizeof(hdr));
    px_bfrops_buf_append(out, body->unpack_ptr, px_bfrops_buf_remaining(body));
    px_bfrops_buf_free(body);
}

static void write_seed(const char *dir, const char *name, const pmix_data_buffer_t *b)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL ||
        fwrite(b->unpack_ptr, 1, px_bfrops_buf_remaining(b), f) != px_bfrops_buf_remaining(b)) {
        perror(path);
        exit(1);
    }
    fclose(f);
}

#define P(v, t)     px_bfrops_pack(&m, &(v), 1, (t))
#define PINFO(i, n) px_bfrops_pack_info_array(&m, (i), (n))
#define EMIT(tag)   frame(&all, (tag), seq++, &m)

static void make_seeds(const char *dir)
{
    char sub[4096];
    pmix_data_buffer_t all, m;
    uint32_t seq = 1;
    size_t one = 1, zero = 0;
    char *s = "fz", *key = "k", *text = "x";
    int32_t st = PMIX_ERR_PROC_ABORTED;
    uint8_t range = PMIX_RANGE_LOCAL;
    pmix_iof_channel_t ch = PMIX_FWD_STDOUT_CHANNEL;
    pmix_byte_object_t bo = {"in", 2};
    pmix_info_t info[2];
    bool yes = true;
    pmix_query_t q;
    pmix_app_t app;
    char *qkeys[] = {PMIX_QUERY_NAMESPACES, NULL};
    char *argv[] = {"/bin/true", NULL};

    PMIx_Info_load(&info[0], "k", "v", PMIX_STRING);
    PMIx_Info_load(&info[1], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    PMIx_Query_construct(&q);
    q.keys = qkeys;
    PMIx_App_construct(&app);
    app.cmd = "/bin/true";
    app.argv = argv;
    app.maxprocs = 1;
    snprintf(sub, sizeof(sub), "%s/corpus-server", dir);
    mkdir(sub, 0755);
    px_bfrops_buf_init(&all);
    px_bfrops_buf_init(&m);
    P(s, PMIX_STRING);
    EMIT(PX_TAG_JOBINFO);
    PINFO(info, 1);
    PINFO(info, 1);
    EMIT(PX_TAG_COMMIT);
    P(one, PMIX_SIZE);
    P(rank0, PMIX_PROC);
    PINFO(info + 1, 1);
    EMIT(PX_TAG_FENCE);
    P(rank1, PMIX_PROC);
    P(key, PMIX_STRING);
    PINFO(NULL, 0);
    EMIT(PX_TAG_GET);
    PINFO(info, 1);
    EMIT(PX_TAG_PUBLISH);
    P(one, PMIX_SIZE);
    P(key, PMIX_STRING);
    PINFO(NULL, 0);
    EMIT(PX_TAG_LOOKUP);
    P(one, PMIX_SIZE);
    P(key, PMIX_STRING);
    PINFO(NULL, 0);
    EMIT(PX_TAG_UNPUBLISH);
    P(zero, PMIX_SIZE);
    PINFO(info, 1);
    EMIT(PX_TAG_JOBCTL);
    PINFO(info, 1);
    PINFO(NULL, 0);
    EMIT(PX_TAG_LOG);
    P(one, PMIX_SIZE);
    P(st, PMIX_STATUS);
    PINFO(NULL, 0);
    EMIT(PX_TAG_EVT_REGISTER);
    P(st, PMIX_STATUS);
    P(rank0, PMIX_PROC);
    P(range, PMIX_DATA_RANGE);
    PINFO(info, 1);
    EMIT(PX_TAG_NOTIFY);
    P(one, PMIX_SIZE);
    P(q, PMIX_QUERY);
    EMIT(PX_TAG_QUERY);
    PINFO(NULL, 0);
    P(one, PMIX_SIZE);
    P(app, PMIX_APP);
    EMIT(PX_TAG_SPAWN);
    P(one, PMIX_SIZE);
    P(rank0, PMIX_PROC);
    P(ch, PMIX_IOF_CHANNEL);
    PINFO(NULL, 0);
    EMIT(PX_TAG_IOF_PULL);
    P(one, PMIX_SIZE);
    P(rank0, PMIX_PROC);
    P(bo, PMIX_BYTE_OBJECT);
    PINFO(NULL, 0);
    EMIT(PX_TAG_IOF_PUSH);
    P(one, PMIX_SIZE);
    P(rank0, PMIX_PROC);
    P(ch, PMIX_IOF_CHANNEL);
    EMIT(PX_TAG_IOF_DEREG);
    P(st, PMIX_INT32);
    P(text, PMIX_STRING);
    P(zero, PMIX_SIZE);
    EMIT(PX_TAG_ABORT);
    /* groups and connect (server_group*.c, server_connect.c) */
    char *grp = "g";
    uint8_t accept = 1;
    pmix_info_t ginfo;
    PMIx_Info_load(&ginfo, PMIX_GROUP_NOTIFY_TERMINATION, &yes, PMIX_BOOL);
    P(grp, PMIX_STRING);
    P(one, PMIX_SIZE);
    P(rank0, PMIX_PROC);
    PINFO(&ginfo, 1);
    EMIT(PX_TAG_GRP_CONSTRUCT);
    P(grp, PMIX_STRING);
    PINFO(NULL, 0);
    EMIT(PX_TAG_GRP_LEAVE);
    P(grp, PMIX_STRING);
    PINFO(NULL, 0);
    EMIT(PX_TAG_GRP_DESTRUCT);
    P(grp, PMIX_STRING);
    P(one, PMIX_SIZE);
    P(rank1, PMIX_PROC);
    PINFO(NULL, 0);
    EMIT(PX_TAG_GRP_INVITE);
    P(grp, PMIX_STRING);
    P(rank0, PMIX_PROC);
    P(accept, PMIX_UINT8);
    PINFO(NULL, 0);
    EMIT(PX_TAG_GRP_JOIN);
    P(one, PMIX_SIZE);
    P(rank0, PMIX_PROC);
    PINFO(NULL, 0);
    EMIT(PX_TAG_CONNECT);
    P(one, PMIX_SIZE);
    P(rank0, PMIX_PROC);
    PINFO(NULL, 0);
    EMIT(PX_TAG_DISCONNECT);
    PMIx_Info_destruct(&ginfo);
    EMIT(PX_TAG_FINALIZE);
    write_seed(sub, "every-request", &all);
    /* each request alone: cut the stream at each header */
    for (int i = 0; px_bfrops_buf_remaining(&all) >= PX_MSG_HDR_SIZE; i++) {
        px_msg_hdr_t h;
        char name[64];
        if (px_msg_hdr_decode((const uint8_t *)all.unpack_ptr, &h) != 0)
            break;
        pmix_data_buffer_t one_msg;
        px_bfrops_buf_init(&one_msg);
        px_bfrops_buf_append(&one_msg, all.unpack_ptr, PX_MSG_HDR_SIZE + h.len);
        snprintf(name, sizeof(name), "tag-%u", h.tag);
        write_seed(sub, name, &one_msg);
        px_bfrops_buf_free(&one_msg);
        all.unpack_ptr += PX_MSG_HDR_SIZE + h.len;
    }
    px_bfrops_buf_free(&all);
    /* the namespace the server registered, as its JOBINFO reply carries it */
    snprintf(sub, sizeof(sub), "%s/corpus-nspace", dir);
    mkdir(sub, 0755);
    px_nspace_t *ns = px_store_find(&px_srv->store, "fz");
    if (ns == NULL || px_ns_pack(&m, ns) != PMIX_SUCCESS)
        abort();
    write_seed(sub, "fz-2-ranks", &m);
    px_bfrops_buf_free(&m);
    PMIx_Info_destruct(&info[0]);
    PMIx_Info_destruct(&info[1]);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    signal(SIGPIPE, SIG_IGN);
    start_server();
    const char *dir = getenv("PX_FUZZ_SEEDS");
    if (dir != NULL) {
        make_seeds(dir);
        exit(0);
    }
    return 0;
}

/* ---- one input ---- */

typedef struct {
    int fd;
    const uint8_t *data;
    size_t size, off;
    struct event *ev;
} feed_t;

/* Our end of the connection: write the input, half-close, read and drop the replies. */
static void feed_cb(evutil_socket_t fd, short what, void *arg)
{
    feed_t *f = arg;
    char junk[65536];
    ssize_t r = 1;
    (void)what;
    while (f->off < f->size) {
        ssize_t w = send(fd, f->data + f->off, f->size - f->off, MSG_NOSIGNAL);
        if (w < 0 && errno == EAGAIN)
            break;
        f->off = w > 0 ? f->off + (size_t)w : f->size; /* an error: the server dropped us */
        if (f->off == f->size) {
            shutdown(fd, SHUT_WR);
            event_del(f->ev);
            event_assign(f->ev, base, fd, EV_READ | EV_PERSIST, feed_cb, f);
            event_add(f->ev, NULL);
        }
    }
    while ((r = recv(fd, junk, sizeof(junk), MSG_DONTWAIT)) > 0) {
    }
    if (r == 0)
        event_del(f->ev); /* the server closed: nothing more to read */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int sv[2];
    pmix_status_t done = PMIX_ERR_TIMEOUT;

    if (PMIx_server_register_client(&rank0, getuid(), getgid(), NULL, NULL, NULL) != PMIX_SUCCESS)
        abort();
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        abort();
    fcntl(sv[1], F_SETFL, O_NONBLOCK);
    /* what the handshake does once it accepts rank 0 (server.c accept_client) */
    pthread_mutex_lock(&px_srv->lock);
    px_srv_client_t *c = px_srv_client_find("fz", 0);
    if (c == NULL)
        abort();
    c->peer = px_peer_create(px_srv->prog, sv[0], px_srv_peer_recv, px_srv_peer_lost, c);
    if (c->peer == NULL)
        abort();
    c->connected_once = true;
    px_srv_client_retain(c); /* the connection's */
    px_srv_client_retain(c); /* ours, to watch it leave */
    pthread_mutex_unlock(&px_srv->lock);

    feed_t f = {sv[1], data, size, 0, NULL};
    f.ev = event_new(base, sv[1], EV_READ | EV_WRITE | EV_PERSIST, feed_cb, &f);
    if (size == 0)
        shutdown(sv[1], SHUT_WR);
    event_add(f.ev, NULL);
    while (!c->departed)
        event_base_loop(base, EVLOOP_ONCE);
    event_free(f.ev);
    pthread_mutex_lock(&px_srv->lock);
    px_srv_client_release(c);
    pthread_mutex_unlock(&px_srv->lock);
    PMIx_server_deregister_client(&rank0, op_done, &done);
    run_until(&done);
    close(sv[1]);
    return 0;
}
