/* Unit tests of libpmix-core/net: latch, progress engine and thread-shift, framing,
 * peers over socketpairs and Unix-domain listeners. The test thread drives an engine
 * running on its own thread; every wait is bounded (a bug fails, never hangs).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "bfrops/px_bfrops.h"
#include "net/px_msg.h"
#include "net/px_peer.h"
#include "net/px_progress.h"
#include "net/px_usock.h"

#include "net_test.h"

#include <event2/event.h>

/* ---- latch ---- */

static void *release_thread(void *arg)
{
    px_latch_release(arg);
    return NULL;
}

Test(net, latch_counts_down)
{
    px_latch_t l;
    pthread_t t[3];

    cr_assert_eq(px_latch_init(&l, 3), 0);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(pthread_create(&t[i], NULL, release_thread, &l), 0);
    }
    cr_assert_eq(px_latch_wait(&l, WAIT_MS), 0);
    for (int i = 0; i < 3; i++) {
        pthread_join(t[i], NULL);
    }
    px_latch_release(&l); /* past zero: ignored */
    cr_assert_eq(px_latch_wait(&l, 0), 0);
    px_latch_fini(&l);
}

Test(net, latch_times_out)
{
    px_latch_t l;

    cr_assert_eq(px_latch_init(&l, 1), 0);
    errno = 0;
    cr_assert_eq(px_latch_wait(&l, 20), -1);
    cr_assert_eq(errno, ETIMEDOUT);
    px_latch_fini(&l);
}

/* ---- progress / shift ---- */

typedef struct order {
    px_progress_t *p;
    int seen[1000];
    int n;
    bool on_loop;
    px_latch_t done;
} order_t;

typedef struct order_item {
    order_t *o;
    int v;
} order_item_t;

static void record(void *arg)
{
    order_item_t *it = arg;

    it->o->seen[it->o->n++] = it->v;
    if (!px_progress_on_loop(it->o->p)) {
        it->o->on_loop = false;
    }
    if (it->o->n == 1000) {
        px_latch_release(&it->o->done);
    }
}

Test(net, shift_runs_in_order_on_loop)
{
    static order_t o;
    static order_item_t items[1000];

    o.p = px_progress_create(NULL);
    cr_assert_not_null(o.p);
    o.on_loop = true;
    cr_assert_eq(px_latch_init(&o.done, 1), 0);
    cr_assert_eq(px_progress_start(o.p), 0);
    cr_assert(!px_progress_on_loop(o.p));
    for (int i = 0; i < 1000; i++) {
        items[i].o = &o;
        items[i].v = i;
        cr_assert_eq(px_progress_shift(o.p, record, &items[i]), 0);
    }
    cr_assert_eq(px_latch_wait(&o.done, WAIT_MS), 0);
    for (int i = 0; i < 1000; i++) {
        cr_assert_eq(o.seen[i], i);
    }
    cr_assert(o.on_loop);
    px_progress_destroy(o.p);
    px_latch_fini(&o.done);
}

typedef struct never_before {
    px_progress_t *p;
    pthread_mutex_t m;
    atomic_bool returned;
    atomic_bool ok;
    atomic_bool inner_done;
    atomic_bool inner_saw_outer_done;
    pthread_t caller;
    px_latch_t done;
} never_before_t;

static void nb_remote(void *arg)
{
    never_before_t *nb = arg;
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 10;
    /* The caller holds m across px_progress_shift: if fn ran inside that call on the
     * caller's thread this would fail (timed lock of a held mutex). */
    if (pthread_mutex_timedlock(&nb->m, &ts) == 0) {
        nb->ok = nb->returned && !pthread_equal(pthread_self(), nb->caller) &&
                 px_progress_on_loop(nb->p);
        pthread_mutex_unlock(&nb->m);
    }
    px_latch_release(&nb->done);
}

static void nb_inner(void *arg)
{
    never_before_t *nb = arg;

    nb->inner_saw_outer_done = nb->inner_done;
    px_latch_release(&nb->done);
}

static void nb_outer(void *arg)
{
    never_before_t *nb = arg;

    /* From the loop thread: deferred until this callback returns. */
    if (px_progress_shift(nb->p, nb_inner, nb) == 0) {
        nb->inner_done = true;
    }
}

Test(net, shift_never_runs_before_return)
{
    never_before_t nb = {0};

    nb.p = px_progress_create(NULL);
    cr_assert_not_null(nb.p);
    pthread_mutex_init(&nb.m, NULL);
    cr_assert_eq(px_latch_init(&nb.done, 2), 0);
    nb.caller = pthread_self();
    cr_assert_eq(px_progress_start(nb.p), 0);
    pthread_mutex_lock(&nb.m);
    cr_assert_eq(px_progress_shift(nb.p, nb_remote, &nb), 0);
    nb.returned = true;
    pthread_mutex_unlock(&nb.m);
    cr_assert_eq(px_progress_shift(nb.p, nb_outer, &nb), 0);
    cr_assert_eq(px_latch_wait(&nb.done, WAIT_MS), 0);
    cr_assert(nb.ok);
    cr_assert(nb.inner_saw_outer_done);
    px_progress_destroy(nb.p);
    px_latch_fini(&nb.done);
    pthread_mutex_destroy(&nb.m);
}

static void set_flag(void *arg)
{
    *(int *)arg = 42;
}

/* ---- px_progress_op_later ---- */

typedef struct op_later {
    px_progress_t *p;
    atomic_bool returned; /* the caller's call returned */
    int calls;
    pmix_status_t status;
    bool ok; /* on the loop, after the call returned */
    px_latch_t done;
} op_later_t;

static void op_later_cb(pmix_status_t status, void *cbdata)
{
    op_later_t *o = cbdata;

    o->calls++;
    o->status = status;
    o->ok = o->returned && px_progress_on_loop(o->p);
    px_latch_release(&o->done);
}

static void op_later_marker(void *arg)
{
    px_latch_release(arg);
}

Test(net, op_later_calls_back_once_later_with_status)
{
    op_later_t o = {0};
    px_latch_t after;

    o.p = px_progress_create(NULL);
    cr_assert_not_null(o.p);
    cr_assert_eq(px_latch_init(&o.done, 1), 0);
    cr_assert_eq(px_latch_init(&after, 1), 0);
    cr_assert_eq(px_progress_start(o.p), 0);
    /* no callback: the status comes straight back and nothing is queued */
    cr_assert_eq(px_progress_op_later(o.p, NULL, &o, PMIX_ERR_NOT_FOUND), PMIX_ERR_NOT_FOUND);
    cr_assert_eq(px_progress_op_later(o.p, NULL, &o, PMIX_SUCCESS), PMIX_SUCCESS);
    cr_assert_eq(px_progress_op_later(o.p, op_later_cb, &o, PMIX_ERR_TIMEOUT), PMIX_SUCCESS);
    o.returned = true;
    cr_assert_eq(px_progress_shift(o.p, op_later_marker, &after), 0);
    cr_assert_eq(px_latch_wait(&o.done, WAIT_MS), 0);
    cr_assert_eq(px_latch_wait(&after, WAIT_MS), 0);
    px_progress_destroy(o.p); /* joins the loop: nothing more can run */
    cr_assert_eq(o.calls, 1);
    cr_assert_eq(o.status, PMIX_ERR_TIMEOUT);
    cr_assert(o.ok);
    px_latch_fini(&o.done);
    px_latch_fini(&after);
}

Test(net, shift_wait_and_stop)
{
    px_progress_t *p = px_progress_create(NULL);
    int v = 0;

    cr_assert_not_null(p);
    cr_assert_eq(px_progress_start(p), 0);
    cr_assert_eq(px_progress_shift_wait(p, set_flag, &v, WAIT_MS), 0);
    cr_assert_eq(v, 42);
    cr_assert_eq(px_progress_stop(p), 0);
    /* Restart after stop works, and a destroy with nothing running is clean. */
    cr_assert_eq(px_progress_start(p), 0);
    v = 0;
    cr_assert_eq(px_progress_shift_wait(p, set_flag, &v, WAIT_MS), 0);
    cr_assert_eq(v, 42);
    px_progress_destroy(p);
    px_progress_destroy(NULL);
}

Test(net, host_base_runs_in_host_loop)
{
    struct event_base *base;
    px_progress_t *p = px_progress_create(NULL); /* ensures evthread is set up */
    int v = 0;

    cr_assert_not_null(p);
    px_progress_destroy(p);
    base = event_base_new();
    cr_assert_not_null(base);
    p = px_progress_create(base);
    cr_assert_not_null(p);
    cr_assert_eq(px_progress_start(p), 0); /* no thread */
    cr_assert_eq(px_progress_shift(p, set_flag, &v), 0);
    cr_assert_eq(v, 0);
    event_base_loop(base, EVLOOP_NONBLOCK);
    cr_assert_eq(v, 42);
    px_progress_destroy(p);
    event_base_free(base);
}

/* ---- framing ---- */

static size_t build_stream(uint8_t *out)
{
    size_t off = 0;
    const char *bodies[3] = {"", "a", "hello, world"};

    for (uint32_t i = 0; i < 3; i++) {
        px_msg_hdr_t h = {.len = (uint32_t)strlen(bodies[i]),
                          .tag = 100 + i,
                          .seq = i,
                          .flags = i == 2 ? PX_MSG_FLAG_REPLY : 0};

        px_msg_hdr_encode(&h, out + off);
        off += PX_MSG_HDR_SIZE;
        memcpy(out + off, bodies[i], h.len);
        off += h.len;
    }
    return off;
}

static void check_stream_msgs(px_msg_t **m)
{
    cr_assert_eq(m[0]->hdr.tag, 100);
    cr_assert_eq(m[0]->hdr.len, 0);
    cr_assert_eq(m[1]->hdr.tag, 101);
    cr_assert_eq(m[1]->payload.bytes_used, 1);
    cr_assert_eq(m[1]->payload.base_ptr[0], 'a');
    cr_assert_eq(m[2]->hdr.seq, 2);
    cr_assert_eq(m[2]->hdr.flags, PX_MSG_FLAG_REPLY);
    cr_assert_eq(memcmp(m[2]->payload.base_ptr, "hello, world", 12), 0);
}

Test(net, header_is_network_order)
{
    px_msg_hdr_t h = {.len = 0x01020304, .tag = 5, .seq = 6, .flags = 1}, back;
    uint8_t b[PX_MSG_HDR_SIZE];
    const uint8_t want[PX_MSG_HDR_SIZE] = {1, 2, 3, 4, 0, 0, 0, 5, 0, 0, 0, 6, 0, 0, 0, 1};

    px_msg_hdr_encode(&h, b);
    cr_assert_eq(memcmp(b, want, sizeof(b)), 0);
    cr_assert_eq(px_msg_hdr_decode(b, &back), 0);
    cr_assert_eq(back.len, h.len);
    b[0] = 0x10; /* 256 MiB */
    cr_assert_eq(px_msg_hdr_decode(b, &back), -1);
    cr_assert_eq(errno, EMSGSIZE);
    b[0] = 0;
    b[15] = 0x80;
    cr_assert_eq(px_msg_hdr_decode(b, &back), -1);
    cr_assert_eq(errno, EPROTO);
}

Test(net, reader_split_at_every_byte_boundary)
{
    uint8_t s[256];
    size_t len = build_stream(s);

    /* Two cuts at every pair of positions: every boundary of header and body. */
    for (size_t a = 0; a <= len; a++) {
        for (size_t b = a; b <= len; b++) {
            px_msg_reader_t r = {0};
            px_msg_t *got[3] = {NULL};
            size_t ngot = 0;
            size_t cuts[4] = {0, a, b, len};

            for (int c = 0; c < 3; c++) {
                size_t off = cuts[c];

                while (off < cuts[c + 1]) {
                    px_msg_t *m;
                    ssize_t u = px_msg_reader_feed(&r, s + off, cuts[c + 1] - off, &m);

                    cr_assert_gt(u, 0);
                    off += (size_t)u;
                    if (m != NULL) {
                        cr_assert_lt(ngot, 3);
                        got[ngot++] = m;
                    }
                }
            }
            cr_assert_eq(ngot, 3, "cuts %zu %zu", a, b);
            check_stream_msgs(got);
            for (int i = 0; i < 3; i++) {
                px_msg_free(got[i]);
            }
            px_msg_reader_reset(&r);
        }
    }
}

/* ---- peers ---- */

typedef struct rx {
    px_progress_t *p;
    px_peer_t *peer;
    int fd; /* the fd handed to the peer */
    px_latch_t got;
    px_latch_t lost;
    int nlost;
    int lost_err;
    int nmsg;
    uint32_t tags[64];
    uint32_t seqs[64];
    char bodies[64][32];
    int nreply;
    int nreply_err;
    int reply_order[64];
    char reply_bodies[64][32];
    px_latch_t replies;
} rx_t;

static void rx_recv(px_peer_t *peer, uint32_t tag, uint32_t seq, pmix_data_buffer_t *payload,
                    void *cbdata)
{
    rx_t *rx = cbdata;

    if (rx->nmsg < 64) {
        size_t n = payload->bytes_used < 31 ? payload->bytes_used : 31;

        rx->tags[rx->nmsg] = tag;
        rx->seqs[rx->nmsg] = seq;
        if (n > 0) {
            memcpy(rx->bodies[rx->nmsg], payload->base_ptr, n);
        }
        rx->bodies[rx->nmsg][n] = '\0';
    }
    rx->nmsg++;
    px_latch_release(&rx->got);
}

static void rx_lost(px_peer_t *peer, int err, void *cbdata)
{
    rx_t *rx = cbdata;

    rx->nlost++;
    rx->lost_err = err;
    px_latch_release(&rx->lost);
}

static void rx_setup(rx_t *rx, px_progress_t *p, int fd, unsigned nmsgs)
{
    memset(rx, 0, sizeof(*rx));
    rx->p = p;
    rx->fd = fd;
    cr_assert_eq(px_latch_init(&rx->got, nmsgs), 0);
    cr_assert_eq(px_latch_init(&rx->lost, 1), 0);
    cr_assert_eq(px_latch_init(&rx->replies, 0), 0);
}

static void rx_fini(rx_t *rx)
{
    px_latch_fini(&rx->got);
    px_latch_fini(&rx->lost);
    px_latch_fini(&rx->replies);
}

static void do_create(void *arg)
{
    rx_t *rx = arg;

    rx->peer = px_peer_create(rx->p, rx->fd, rx_recv, rx_lost, rx);
}

static void do_destroy(void *arg)
{
    rx_t *rx = arg;

    px_peer_destroy(rx->peer);
    rx->peer = NULL;
}

static px_progress_t *engine(void)
{
    px_progress_t *p = px_progress_create(NULL);

    cr_assert_not_null(p);
    cr_assert_eq(px_progress_start(p), 0);
    return p;
}

static void write_all(int fd, const void *b, size_t n)
{
    const uint8_t *c = b;

    while (n > 0) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);

        cr_assert_gt(w, 0);
        c += w;
        n -= (size_t)w;
    }
}

/* Read exactly n bytes within WAIT_MS; false on EOF/timeout. */
static bool read_all(int fd, void *b, size_t n)
{
    uint8_t *c = b;

    while (n > 0) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        ssize_t r;

        if (poll(&pfd, 1, WAIT_MS) != 1) {
            return false;
        }
        r = read(fd, c, n);
        if (r <= 0) {
            return false;
        }
        c += r;
        n -= (size_t)r;
    }
    return true;
}

static void send_raw(int fd, uint32_t tag, uint32_t seq, uint32_t flags, const char *body)
{
    px_msg_hdr_t h = {.len = (uint32_t)strlen(body), .tag = tag, .seq = seq, .flags = flags};
    uint8_t hb[PX_MSG_HDR_SIZE];

    px_msg_hdr_encode(&h, hb);
    write_all(fd, hb, sizeof(hb));
    write_all(fd, body, h.len);
}

static void noop(void *arg)
{
}

Test(net, peer_reads_stream_written_byte_by_byte)
{
    int fds0 = count_fds();
    px_progress_t *p = engine();
    int sv[2];
    uint8_t s[256];
    size_t len = build_stream(s);
    rx_t rx;

    cr_assert_gt(len, PX_MSG_HDR_SIZE * 2 + 1);

    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    rx_setup(&rx, p, sv[0], 2); /* the third message is an unmatched reply */
    on_loop(p, do_create, &rx);
    cr_assert_not_null(rx.peer);
    /* Two non-reply messages, byte by byte, letting the loop run between bytes. */
    for (size_t i = 0; i < PX_MSG_HDR_SIZE * 2 + 1; i++) {
        write_all(sv[1], s + i, 1);
        on_loop(p, noop, NULL);
    }
    cr_assert_eq(px_latch_wait(&rx.got, WAIT_MS), 0);
    cr_assert_eq(rx.nmsg, 2);
    cr_assert_eq(rx.tags[0], 100);
    cr_assert_eq(rx.tags[1], 101);
    cr_assert_str_eq(rx.bodies[1], "a");
    on_loop(p, do_destroy, &rx);
    cr_assert_eq(rx.nlost, 0);
    close(sv[1]);
    px_progress_destroy(p);
    rx_fini(&rx);
    cr_assert_eq(count_fds(), fds0);
}

typedef struct flood {
    rx_t *rx;
    int n;
    size_t size;
    int rc;
    size_t queued;
} flood_t;

static void do_flood(void *arg)
{
    flood_t *f = arg;
    pmix_data_buffer_t b;
    char *body = malloc(f->size);

    px_bfrops_buf_init(&b);
    for (int i = 0; i < f->n && f->rc == 0; i++) {
        memset(body, 'a' + i % 26, f->size);
        px_bfrops_buf_free(&b);
        px_bfrops_buf_append(&b, body, f->size);
        f->rc = px_peer_send(f->rx->peer, (uint32_t)i, &b);
    }
    px_bfrops_buf_free(&b);
    free(body);
}

static void get_queued(void *arg)
{
    flood_t *f = arg;

    f->queued = px_peer_queued_bytes(f->rx->peer);
}

Test(net, send_queue_holds_while_other_end_does_not_read)
{
    int fds0 = count_fds();
    px_progress_t *p = engine();
    int sv[2];
    rx_t rx;
    flood_t f = {.n = 5000, .size = 4096};
    char *body = malloc(f.size);

    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    rx_setup(&rx, p, sv[0], 0);
    f.rx = &rx;
    on_loop(p, do_create, &rx);
    on_loop(p, do_flood, &f);
    cr_assert_eq(f.rc, 0);
    on_loop(p, get_queued, &f);
    /* 20 MiB cannot fit in a socket buffer (at most 8 MiB): some of it waits in the queue. */
    cr_assert_gt(f.queued, 0);
    for (int i = 0; i < f.n; i++) {
        uint8_t hb[PX_MSG_HDR_SIZE];
        px_msg_hdr_t h;

        cr_assert(read_all(sv[1], hb, sizeof(hb)));
        cr_assert_eq(px_msg_hdr_decode(hb, &h), 0);
        cr_assert_eq(h.tag, (uint32_t)i);
        cr_assert_eq(h.len, f.size);
        cr_assert(read_all(sv[1], body, f.size));
        cr_assert_eq(body[0], 'a' + i % 26);
        cr_assert_eq(body[f.size - 1], 'a' + i % 26);
    }
    on_loop(p, get_queued, &f);
    cr_assert_eq(f.queued, 0);
    on_loop(p, do_destroy, &rx);
    close(sv[1]);
    px_progress_destroy(p);
    rx_fini(&rx);
    free(body);
    cr_assert_eq(count_fds(), fds0);
}

static void bad_header_case(uint32_t len, uint32_t flags, int want_err)
{
    int fds0 = count_fds();
    px_progress_t *p = engine();
    int a[2], b[2];
    rx_t ra, rb;
    px_msg_hdr_t h = {.len = len, .tag = 1, .flags = 0};
    uint8_t hb[PX_MSG_HDR_SIZE];

    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, a), 0);
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, b), 0);
    rx_setup(&ra, p, a[0], 1);
    rx_setup(&rb, p, b[0], 1);
    on_loop(p, do_create, &ra);
    on_loop(p, do_create, &rb);
    px_msg_hdr_encode(&h, hb);
    hb[12] = (uint8_t)(flags >> 24); /* encode does not check flags */
    hb[15] = (uint8_t)flags;
    write_all(a[1], hb, sizeof(hb));
    /* The peer may already have closed its end: no SIGPIPE, and the result is moot. */
    (void)!send(a[1], "more garbage", 12, MSG_NOSIGNAL);
    cr_assert_eq(px_latch_wait(&ra.lost, WAIT_MS), 0);
    send_raw(b[1], 7, 0, 0, "still here");
    cr_assert_eq(px_latch_wait(&rb.got, WAIT_MS), 0);
    on_loop(p, noop, NULL);
    cr_assert_eq(ra.nlost, 1);
    cr_assert_eq(ra.lost_err, want_err);
    cr_assert_eq(ra.nmsg, 0);
    cr_assert_eq(rb.nlost, 0);
    cr_assert_str_eq(rb.bodies[0], "still here");
    on_loop(p, do_destroy, &ra);
    on_loop(p, do_destroy, &rb);
    cr_assert_eq(ra.nlost, 1);
    close(a[1]);
    close(b[1]);
    px_progress_destroy(p);
    rx_fini(&ra);
    rx_fini(&rb);
    cr_assert_eq(count_fds(), fds0);
}

Test(net, oversized_length_drops_only_that_peer)
{
    bad_header_case(PX_MSG_MAX_PAYLOAD + 1, 0, EMSGSIZE);
}

Test(net, garbage_flags_drop_only_that_peer)
{
    bad_header_case(4, 0xdead0000u, EPROTO);
}

/* ---- request / reply ---- */

typedef struct req_ctx {
    rx_t *rx;
    int idx;
} req_ctx_t;

static void on_reply(px_peer_t *peer, pmix_status_t status, pmix_data_buffer_t *reply, void *cbdata)
{
    req_ctx_t *c = cbdata;
    rx_t *rx = c->rx;

    if (status == PMIX_SUCCESS) {
        size_t n = reply->bytes_used < 31 ? reply->bytes_used : 31;

        memcpy(rx->reply_bodies[c->idx], reply->base_ptr, n);
        rx->reply_bodies[c->idx][n] = '\0';
        rx->reply_order[rx->nreply] = c->idx;
        rx->nreply++;
    } else {
        cr_assert_eq(status, PMIX_ERR_LOST_CONNECTION);
        cr_assert_null(reply);
        rx->nreply_err++;
    }
    px_latch_release(&rx->replies);
}

typedef struct reqs {
    rx_t *rx;
    req_ctx_t ctx[8];
    int n;
    int rc;
    size_t pending;
} reqs_t;

static void do_requests(void *arg)
{
    reqs_t *r = arg;
    pmix_data_buffer_t b;

    px_bfrops_buf_init(&b);
    for (int i = 0; i < r->n && r->rc == 0; i++) {
        char body[16];

        snprintf(body, sizeof(body), "req%d", i);
        px_bfrops_buf_free(&b);
        px_bfrops_buf_append(&b, body, strlen(body));
        r->ctx[i].rx = r->rx;
        r->ctx[i].idx = i;
        r->rc = px_peer_send_request(r->rx->peer, 9, &b, on_reply, &r->ctx[i]);
    }
    px_bfrops_buf_free(&b);
    r->pending = px_peer_pending_requests(r->rx->peer);
}

static void get_pending(void *arg)
{
    reqs_t *r = arg;

    r->pending = px_peer_pending_requests(r->rx->peer);
}

Test(net, replies_out_of_order_are_matched)
{
    int fds0 = count_fds();
    px_progress_t *p = engine();
    int sv[2];
    rx_t rx;
    reqs_t r = {.n = 3};
    uint32_t seqs[3];

    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    rx_setup(&rx, p, sv[0], 0);
    px_latch_fini(&rx.replies);
    cr_assert_eq(px_latch_init(&rx.replies, 3), 0);
    r.rx = &rx;
    on_loop(p, do_create, &rx);
    on_loop(p, do_requests, &r);
    cr_assert_eq(r.rc, 0);
    cr_assert_eq(r.pending, 3);
    for (int i = 0; i < 3; i++) {
        uint8_t hb[PX_MSG_HDR_SIZE];
        char body[8] = {0};
        px_msg_hdr_t h;

        cr_assert(read_all(sv[1], hb, sizeof(hb)));
        cr_assert_eq(px_msg_hdr_decode(hb, &h), 0);
        cr_assert_eq(h.tag, 9);
        cr_assert_neq(h.seq, 0);
        cr_assert_eq(h.flags, 0);
        cr_assert(read_all(sv[1], body, h.len));
        cr_assert_eq(body[3], '0' + i);
        seqs[i] = h.seq;
    }
    cr_assert_neq(seqs[0], seqs[1]);
    cr_assert_neq(seqs[1], seqs[2]);
    send_raw(sv[1], 9, seqs[2], PX_MSG_FLAG_REPLY, "two");
    send_raw(sv[1], 9, seqs[0], PX_MSG_FLAG_REPLY, "zero");
    send_raw(sv[1], 9, seqs[1], PX_MSG_FLAG_REPLY, "one");
    cr_assert_eq(px_latch_wait(&rx.replies, WAIT_MS), 0);
    on_loop(p, get_pending, &r);
    cr_assert_eq(r.pending, 0);
    cr_assert_eq(rx.nreply, 3);
    cr_assert_eq(rx.nreply_err, 0);
    cr_assert_eq(rx.reply_order[0], 2);
    cr_assert_eq(rx.reply_order[1], 0);
    cr_assert_eq(rx.reply_order[2], 1);
    cr_assert_str_eq(rx.reply_bodies[0], "zero");
    cr_assert_str_eq(rx.reply_bodies[1], "one");
    cr_assert_str_eq(rx.reply_bodies[2], "two");
    cr_assert_eq(rx.nmsg, 0);
    /* A reply to nothing is a protocol error. */
    send_raw(sv[1], 9, 12345, PX_MSG_FLAG_REPLY, "stray");
    cr_assert_eq(px_latch_wait(&rx.lost, WAIT_MS), 0);
    cr_assert_eq(rx.lost_err, EPROTO);
    on_loop(p, do_destroy, &rx);
    close(sv[1]);
    px_progress_destroy(p);
    rx_fini(&rx);
    cr_assert_eq(count_fds(), fds0);
}

Test(net, lost_peer_fails_each_pending_request_once)
{
    int fds0 = count_fds();
    px_progress_t *p = engine();
    int sv[2];
    rx_t rx;
    reqs_t r = {.n = 5};

    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    rx_setup(&rx, p, sv[0], 0);
    px_latch_fini(&rx.replies);
    cr_assert_eq(px_latch_init(&rx.replies, 5), 0);
    r.rx = &rx;
    on_loop(p, do_create, &rx);
    on_loop(p, do_requests, &r);
    cr_assert_eq(r.rc, 0);
    close(sv[1]);
    cr_assert_eq(px_latch_wait(&rx.lost, WAIT_MS), 0);
    cr_assert_eq(px_latch_wait(&rx.replies, WAIT_MS), 0);
    on_loop(p, do_destroy, &rx);
    cr_assert_eq(rx.nlost, 1);
    cr_assert_eq(rx.nreply_err, 5);
    cr_assert_eq(rx.nreply, 0);
    px_progress_destroy(p);
    rx_fini(&rx);
    cr_assert_eq(count_fds(), fds0);
}

Test(net, destroy_fails_pending_requests_once)
{
    int fds0 = count_fds();
    px_progress_t *p = engine();
    int sv[2];
    rx_t rx;
    reqs_t r = {.n = 4};

    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    rx_setup(&rx, p, sv[0], 0);
    r.rx = &rx;
    on_loop(p, do_create, &rx);
    on_loop(p, do_requests, &r);
    on_loop(p, do_destroy, &rx);
    cr_assert_eq(rx.nreply_err, 4);
    cr_assert_eq(rx.nlost, 0);
    close(sv[1]);
    px_progress_destroy(p);
    rx_fini(&rx);
    cr_assert_eq(count_fds(), fds0);
}

/* ---- usock ---- */

typedef struct lsn {
    px_progress_t *p;
    px_usock_listener_t *l;
    char dir[64];
    char path[128];
    int naccept;
    int fd;
    px_usock_cred_t cred;
    char hello[32];
    pmix_status_t answer;
    int err;
} lsn_t;

static pmix_status_t on_accept(px_usock_listener_t *l, int fd, const px_usock_cred_t *cred,
                               pmix_data_buffer_t *hello, void *cbdata)
{
    lsn_t *s = cbdata;
    char *str = NULL;
    int32_t n = 1;

    s->naccept++;
    s->cred = *cred;
    if (px_bfrops_unpack(hello, &str, &n, PMIX_STRING) == PMIX_SUCCESS && str != NULL) {
        strncpy(s->hello, str, sizeof(s->hello) - 1);
    }
    free(str);
    if (s->answer == PMIX_SUCCESS) {
        s->fd = fd;
    }
    return s->answer;
}

static void do_listen(void *arg)
{
    lsn_t *s = arg;

    s->l = px_usock_listen(s->p, s->path, on_accept, s);
    s->err = errno;
}

static void do_unlisten(void *arg)
{
    lsn_t *s = arg;

    px_usock_listener_destroy(s->l);
    s->l = NULL;
}

static void lsn_setup(lsn_t *s)
{
    memset(s, 0, sizeof(*s));
    s->fd = -1;
    strcpy(s->dir, "/tmp/pxnet.XXXXXX");
    cr_assert_not_null(mkdtemp(s->dir));
    snprintf(s->path, sizeof(s->path), "%s/sub/sock", s->dir);
    s->p = engine();
    on_loop(s->p, do_listen, s);
    cr_assert_not_null(s->l, "listen: %s", strerror(s->err));
}

static void lsn_fini(lsn_t *s)
{
    struct stat st;

    on_loop(s->p, do_unlisten, s);
    cr_assert_neq(lstat(s->path, &st), 0);
    px_progress_destroy(s->p);
    cr_assert_eq(rmdir(s->dir), 0); /* the sub directory went with the listener */
}

Test(net, usock_handshake_accepted_with_peercred)
{
    int fds0 = count_fds();
    lsn_t s;
    pmix_data_buffer_t hello;
    const char *str = "hi there";
    pmix_status_t st;
    struct stat sb;
    int fd;

    lsn_setup(&s);
    cr_assert_eq(lstat(s.path, &sb), 0);
    cr_assert(S_ISSOCK(sb.st_mode));
    cr_assert_eq(sb.st_mode & 0777, 0600);
    px_bfrops_buf_init(&hello);
    cr_assert_eq(px_bfrops_pack(&hello, &str, 1, PMIX_STRING), PMIX_SUCCESS);
    fd = px_usock_connect(s.path, &hello, WAIT_MS, &st);
    px_bfrops_buf_free(&hello);
    cr_assert_geq(fd, 0, "connect: %s", strerror(errno));
    cr_assert_eq(st, PMIX_SUCCESS);
    on_loop(s.p, noop, NULL);
    cr_assert_eq(s.naccept, 1);
    cr_assert_str_eq(s.hello, "hi there");
    cr_assert_eq(s.cred.uid, getuid());
    cr_assert_eq(s.cred.gid, getgid());
    cr_assert_eq(s.cred.pid, getpid());
    cr_assert_geq(s.fd, 0);
    /* The accepted fd is a live connection to ours. */
    write_all(fd, "x", 1);
    {
        char c = 0;

        cr_assert(read_all(s.fd, &c, 1));
        cr_assert_eq(c, 'x');
    }
    close(s.fd);
    close(fd);
    lsn_fini(&s);
    cr_assert_eq(count_fds(), fds0);
}

Test(net, usock_wrong_version_refused)
{
    int fds0 = count_fds();
    lsn_t s;
    pmix_status_t st;

    lsn_setup(&s);
    errno = 0;
    cr_assert_eq(px_usock_connect_version(s.path, PX_HS_VERSION + 1, NULL, WAIT_MS, &st), -1);
    cr_assert_eq(errno, ECONNREFUSED);
    cr_assert_eq(st, PMIX_ERR_NOT_SUPPORTED);
    on_loop(s.p, noop, NULL);
    cr_assert_eq(s.naccept, 0);
    lsn_fini(&s);
    cr_assert_eq(count_fds(), fds0);
}

Test(net, usock_callback_refusal_and_busy_path)
{
    int fds0 = count_fds();
    lsn_t s, other;
    pmix_status_t st;

    lsn_setup(&s);
    s.answer = PMIX_ERR_INVALID_CRED;
    cr_assert_eq(px_usock_connect(s.path, NULL, WAIT_MS, &st), -1);
    cr_assert_eq(errno, ECONNREFUSED);
    cr_assert_eq(st, PMIX_ERR_INVALID_CRED);
    /* A second listener on a live path is refused. */
    memset(&other, 0, sizeof(other));
    other.p = s.p;
    strcpy(other.path, s.path);
    on_loop(s.p, do_listen, &other);
    cr_assert_null(other.l);
    cr_assert_eq(other.err, EADDRINUSE);
    lsn_fini(&s);
    cr_assert_eq(count_fds(), fds0);
}

/* A stand-in listener: accept one connection, read the 8-byte header of a NULL hello,
 * answer with the given 8 bytes, wait for the connector to hang up. */
typedef struct fake {
    int lfd;
    uint8_t answer[8];
} fake_t;

static void *fake_listener(void *arg)
{
    fake_t *f = arg;
    uint8_t head[8];
    struct pollfd pfd = {.fd = f->lfd, .events = POLLIN};
    int fd;

    if (poll(&pfd, 1, WAIT_MS) != 1 || (fd = accept(f->lfd, NULL, NULL)) < 0) {
        return NULL;
    }
    if (read_all(fd, head, sizeof(head))) {
        write_all(fd, f->answer, sizeof(f->answer));
        pfd.fd = fd;
        (void)poll(&pfd, 1, WAIT_MS);
    }
    close(fd);
    return NULL;
}

/* Shared with TCP since px_hs: an answer that is not a handshake answer (wrong
 * version byte) is EPROTO, even when its status field reads success. */
Test(net, usock_connect_refuses_a_malformed_answer)
{
    int fds0 = count_fds();
    char dir[] = "/tmp/pxnet.XXXXXX", path[128];
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    fake_t f = {.answer = {PX_HS_VERSION + 7, 0, 0, 0, 0, 0, 0, 0}};
    pthread_t t;
    pmix_status_t st;

    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/sock", dir);
    strcpy(sa.sun_path, path);
    f.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert_eq(bind(f.lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    cr_assert_eq(listen(f.lfd, 1), 0);
    cr_assert_eq(pthread_create(&t, NULL, fake_listener, &f), 0);
    errno = 0;
    int fd = px_usock_connect(path, NULL, WAIT_MS, &st);
    int err = errno;
    if (fd >= 0) {
        close(fd);
    }
    pthread_join(t, NULL);
    close(f.lfd);
    unlink(path);
    rmdir(dir);
    cr_assert_eq(fd, -1);
    cr_assert_eq(err, EPROTO);
    cr_assert_eq(st, PMIX_ERR_UNREACH);
    cr_assert_eq(count_fds(), fds0);
}

/* ---- bulk sends (px_peer_send_ext) and direct body reads ---- */

#define EXT_N    100
#define EXT_SIZE (200 * 1024)

typedef struct ext_ctx {
    rx_t *rx;
    uint8_t *blocks[EXT_N]; /* borrowed by the peer until released */
    atomic_int released[EXT_N];
    atomic_int nreleased;
    int rc;
} ext_ctx_t;

typedef struct ext_ref {
    ext_ctx_t *x;
    int i;
} ext_ref_t;

static ext_ref_t ext_refs[EXT_N];

static void ext_release(void *arg)
{
    ext_ref_t *r = arg;

    atomic_fetch_add(&r->x->released[r->i], 1);
    atomic_fetch_add(&r->x->nreleased, 1);
}

static void do_send_ext(void *arg)
{
    ext_ctx_t *x = arg;

    for (int i = 0; i < EXT_N && x->rc == 0; i++) {
        pmix_data_buffer_t head, tail;
        char h[16], t[16];

        px_bfrops_buf_init(&head);
        px_bfrops_buf_init(&tail);
        snprintf(h, sizeof(h), "H%02d", i);
        snprintf(t, sizeof(t), "T%02d", i);
        px_bfrops_buf_append(&head, h, 3);
        px_bfrops_buf_append(&tail, t, 3);
        ext_refs[i] = (ext_ref_t){x, i};
        /* the first message has no head, the second no tail: NULL halves are allowed */
        x->rc =
            px_peer_send_ext(x->rx->peer, 300 + (uint32_t)i, i == 0 ? NULL : &head, x->blocks[i],
                             EXT_SIZE, i == 1 ? NULL : &tail, ext_release, &ext_refs[i]);
        px_bfrops_buf_free(&head);
        px_bfrops_buf_free(&tail);
    }
}

static void ext_setup(ext_ctx_t *x, rx_t *rx)
{
    memset(x, 0, sizeof(*x));
    x->rx = rx;
    for (int i = 0; i < EXT_N; i++) {
        x->blocks[i] = malloc(EXT_SIZE);
        for (size_t k = 0; k < EXT_SIZE; k++) {
            x->blocks[i][k] = (uint8_t)(i * 31 + k * 7);
        }
    }
}

static void ext_free(ext_ctx_t *x)
{
    for (int i = 0; i < EXT_N; i++) {
        free(x->blocks[i]);
    }
}

/* An engine, a peer on sv[0] and EXT_N bulk messages queued to it. */
static px_progress_t *ext_start(int sv[2], rx_t *rx, ext_ctx_t *x)
{
    px_progress_t *p = engine();

    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    rx_setup(rx, p, sv[0], 0);
    ext_setup(x, rx);
    on_loop(p, do_create, rx);
    on_loop(p, do_send_ext, x);
    cr_assert_eq(x->rc, 0);
    return p;
}

static void ext_finish(px_progress_t *p, rx_t *rx, ext_ctx_t *x)
{
    px_progress_destroy(p);
    rx_fini(rx);
    ext_free(x);
}

/* Every block released exactly once (waited for a little), then the peer destroyed and
 * everything freed. */
static void ext_all_released_then_finish(px_progress_t *p, int sv[2], rx_t *rx, ext_ctx_t *x)
{
    for (int k = 0; k < 100 && atomic_load(&x->nreleased) < EXT_N; k++) {
        on_loop(p, noop, NULL);
        usleep(10000);
    }
    for (int i = 0; i < EXT_N; i++) {
        cr_assert_eq(atomic_load(&x->released[i]), 1, "block %d released %d times", i,
                     atomic_load(&x->released[i]));
    }
    on_loop(p, do_destroy, rx);
    close(sv[1]);
    ext_finish(p, rx, x);
}

Test(net, send_ext_sends_head_ext_tail_and_releases_after_the_write)
{
    int fds0 = count_fds();
    int sv[2];
    rx_t rx;
    ext_ctx_t x;
    uint8_t *body = malloc(EXT_SIZE + 6);
    px_progress_t *p = ext_start(sv, &rx, &x);

    on_loop(p, noop, NULL);
    /* 20 MB cannot all be in the socket (its buffer is at most 8 MiB): the last blocks
     * are still borrowed. */
    cr_assert_lt(atomic_load(&x.nreleased), EXT_N);
    cr_assert_eq(atomic_load(&x.released[EXT_N - 1]), 0);
    for (int i = 0; i < EXT_N; i++) {
        uint8_t hb[PX_MSG_HDR_SIZE];
        px_msg_hdr_t h;
        size_t hl = i == 0 ? 0 : 3, tl = i == 1 ? 0 : 3;
        char want[4];

        cr_assert(read_all(sv[1], hb, sizeof(hb)));
        cr_assert_eq(px_msg_hdr_decode(hb, &h), 0);
        cr_assert_eq(h.tag, 300 + (uint32_t)i);
        cr_assert_eq(h.len, hl + EXT_SIZE + tl);
        cr_assert(read_all(sv[1], body, h.len));
        snprintf(want, sizeof(want), "H%02d", i);
        cr_assert(hl == 0 || memcmp(body, want, 3) == 0);
        cr_assert_eq(memcmp(body + hl, x.blocks[i], EXT_SIZE), 0, "message %d: ext bytes", i);
        snprintf(want, sizeof(want), "T%02d", i);
        cr_assert(tl == 0 || memcmp(body + hl + EXT_SIZE, want, 3) == 0);
    }
    /* everything was read, so everything was written: each block released once */
    ext_all_released_then_finish(p, sv, &rx, &x);
    free(body);
    cr_assert_eq(count_fds(), fds0);
}

Test(net, send_ext_blocks_are_released_once_when_the_peer_goes)
{
    int fds0 = count_fds();
    int sv[2];
    rx_t rx;
    ext_ctx_t x;
    px_progress_t *p = ext_start(sv, &rx, &x);

    cr_assert_lt(atomic_load(&x.nreleased), EXT_N);
    on_loop(p, do_destroy, &rx); /* nobody read: the queue is dropped */
    cr_assert_eq(atomic_load(&x.nreleased), EXT_N);
    for (int i = 0; i < EXT_N; i++) {
        cr_assert_eq(atomic_load(&x.released[i]), 1);
    }
    close(sv[1]);
    ext_finish(p, &rx, &x);
    cr_assert_eq(count_fds(), fds0);
}

Test(net, send_ext_blocks_are_released_when_the_connection_is_lost)
{
    int fds0 = count_fds();
    int sv[2];
    rx_t rx;
    ext_ctx_t x;
    px_progress_t *p = ext_start(sv, &rx, &x);

    close(sv[1]);
    cr_assert_eq(px_latch_wait(&rx.lost, WAIT_MS), 0);
    on_loop(p, noop, NULL);
    cr_assert_eq(rx.nlost, 1);
    cr_assert_eq(atomic_load(&x.nreleased), EXT_N);
    /* a send on a lost peer fails and releases nothing */
    x.rc = 0;
    atomic_store(&x.nreleased, 0);
    on_loop(p, do_send_ext, &x);
    cr_assert_eq(x.rc, -1);
    cr_assert_eq(atomic_load(&x.nreleased), 0);
    on_loop(p, do_destroy, &rx);
    ext_finish(p, &rx, &x);
    cr_assert_eq(count_fds(), fds0);
}

/* On the loop, with the EXT_N messages queued: the last one's ext moves to a copy (the
 * original is then scribbled over), the one before is dropped unsent; the first (written
 * at once, released) cannot be dropped, nor can a message never sent. */
typedef struct {
    ext_ctx_t *x;
    uint8_t *copy;
    int moved, dropped, head_dropped, unknown;
} ext_edit_t;

static void do_ext_edit(void *arg)
{
    ext_edit_t *e = arg;
    ext_ctx_t *x = e->x;
    memcpy(e->copy, x->blocks[EXT_N - 1], EXT_SIZE);
    e->moved = px_peer_ext_move(x->rx->peer, &ext_refs[EXT_N - 1], e->copy);
    memset(x->blocks[EXT_N - 1], 0xee, EXT_SIZE);
    e->dropped = px_peer_drop_unsent(x->rx->peer, &ext_refs[EXT_N - 2]);
    e->head_dropped = px_peer_drop_unsent(x->rx->peer, &ext_refs[0]);
    e->unknown = px_peer_drop_unsent(x->rx->peer, e);
}

Test(net, send_ext_queued_bytes_can_move_and_unsent_messages_can_be_dropped)
{
    int fds0 = count_fds();
    int sv[2];
    rx_t rx;
    ext_ctx_t x;
    uint8_t *body = malloc(EXT_SIZE + 6);
    px_progress_t *p = ext_start(sv, &rx, &x);
    ext_edit_t e = {.x = &x, .copy = malloc(EXT_SIZE)};
    uint8_t *want_last = malloc(EXT_SIZE);
    memcpy(want_last, x.blocks[EXT_N - 1], EXT_SIZE);

    on_loop(p, do_ext_edit, &e);
    cr_assert_eq(e.moved, 0);
    cr_assert_eq(e.dropped, 0);
    cr_assert_eq(e.head_dropped, -1, "the first message was written: nothing to drop");
    cr_assert_eq(e.unknown, -1);
    cr_assert_eq(atomic_load(&x.released[EXT_N - 2]), 1, "a dropped message is released");
    for (int i = 0; i < EXT_N; i++) {
        uint8_t hb[PX_MSG_HDR_SIZE];
        px_msg_hdr_t h;
        size_t hl = i == 0 ? 0 : 3;
        if (i == EXT_N - 2) {
            continue; /* dropped: never on the wire */
        }
        cr_assert(read_all(sv[1], hb, sizeof(hb)));
        cr_assert_eq(px_msg_hdr_decode(hb, &h), 0);
        cr_assert_eq(h.tag, 300 + (uint32_t)i, "message %d", i);
        cr_assert(read_all(sv[1], body, h.len));
        cr_assert_eq(memcmp(body + hl, i == EXT_N - 1 ? want_last : x.blocks[i], EXT_SIZE), 0,
                     "message %d: ext bytes", i);
    }
    ext_all_released_then_finish(p, sv, &rx, &x);
    free(body);
    free(e.copy);
    free(want_last);
    cr_assert_eq(count_fds(), fds0);
}

Test(net, reader_room_fills_a_large_body_in_place)
{
    px_msg_reader_t r = {0};
    px_msg_hdr_t h = {.len = 100000, .tag = 9};
    uint8_t hb[PX_MSG_HDR_SIZE + 10];
    px_msg_t *m = NULL;
    size_t room;

    cr_assert_null(px_msg_reader_room(&r, &room)); /* no header yet */
    cr_assert_eq(room, 0);
    px_msg_hdr_encode(&h, hb);
    memset(hb + PX_MSG_HDR_SIZE, 'a', 10);
    cr_assert_eq(px_msg_reader_feed(&r, hb, sizeof(hb), &m), (ssize_t)sizeof(hb));
    cr_assert_null(m);
    size_t have = 10;
    while (m == NULL) {
        uint8_t *at = px_msg_reader_room(&r, &room);

        cr_assert_not_null(at);
        cr_assert_eq(room, h.len - have);
        cr_assert_eq((uintptr_t)(at - have) % 64, 0, "bodies are cache-line aligned");
        size_t n = room < 7777 ? room : 7777;
        memset(at, 'b', n);
        px_msg_reader_filled(&r, n, &m);
        have += n;
    }
    cr_assert_eq(have, h.len);
    cr_assert_eq(m->hdr.tag, 9);
    cr_assert_eq(m->payload.bytes_used, h.len);
    cr_assert_eq(m->payload.base_ptr[9], 'a');
    cr_assert_eq(m->payload.base_ptr[10], 'b');
    cr_assert_eq(m->payload.base_ptr[h.len - 1], 'b');
    cr_assert_null(px_msg_reader_room(&r, &room)); /* the next header is pending */
    px_msg_free(m);
    px_msg_reader_reset(&r);
}

typedef struct big_rx {
    px_latch_t got;
    size_t len;
    bool ok;
} big_rx_t;

static void big_recv(px_peer_t *peer, uint32_t tag, uint32_t seq, pmix_data_buffer_t *payload,
                     void *cbdata)
{
    big_rx_t *b = cbdata;

    b->len = payload->bytes_used;
    b->ok = true;
    for (size_t k = 0; k < b->len && b->ok; k++) {
        b->ok = (uint8_t)payload->base_ptr[k] == (uint8_t)(k * 13 + 1);
    }
    px_latch_release(&b->got);
}

typedef struct big_create {
    px_progress_t *p;
    int fd;
    big_rx_t *b;
    px_peer_t *peer;
} big_create_t;

static void do_big_create(void *arg)
{
    big_create_t *c = arg;

    c->peer = px_peer_create(c->p, c->fd, big_recv, NULL, c->b);
}

static void do_big_destroy(void *arg)
{
    big_create_t *c = arg;

    px_peer_destroy(c->peer);
}

Test(net, peer_receives_a_large_message_written_in_odd_pieces)
{
    int fds0 = count_fds();
    px_progress_t *p = engine();
    int sv[2];
    big_rx_t b = {0};
    size_t len = 3 * 1024 * 1024 + 17;
    uint8_t *msg = malloc(PX_MSG_HDR_SIZE + len);
    px_msg_hdr_t h = {.len = (uint32_t)len, .tag = 5};

    px_msg_hdr_encode(&h, msg);
    for (size_t k = 0; k < len; k++) {
        msg[PX_MSG_HDR_SIZE + k] = (uint8_t)(k * 13 + 1);
    }
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    cr_assert_eq(px_latch_init(&b.got, 1), 0);
    big_create_t c = {.p = p, .fd = sv[0], .b = &b};
    on_loop(p, do_big_create, &c);
    cr_assert_not_null(c.peer);
    for (size_t off = 0; off < PX_MSG_HDR_SIZE + len;) {
        size_t n = PX_MSG_HDR_SIZE + len - off < 12345 ? PX_MSG_HDR_SIZE + len - off : 12345;

        write_all(sv[1], msg + off, n);
        off += n;
    }
    cr_assert_eq(px_latch_wait(&b.got, WAIT_MS), 0);
    cr_assert_eq(b.len, len);
    cr_assert(b.ok, "the body arrived intact");
    on_loop(p, do_big_destroy, &c);
    close(sv[1]);
    px_progress_destroy(p);
    px_latch_fini(&b.got);
    free(msg);
    cr_assert_eq(count_fds(), fds0);
}

Test(net, local_stream_peers_ask_for_a_large_send_buffer)
{
    px_progress_t *p = engine();
    int sv[2];
    rx_t rx;
    long wmem_max = 0;
    FILE *f = fopen("/proc/sys/net/core/wmem_max", "r");

    cr_assert_not_null(f);
    cr_assert_eq(fscanf(f, "%ld", &wmem_max), 1);
    fclose(f);
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    rx_setup(&rx, p, sv[0], 0);
    on_loop(p, do_create, &rx);
    cr_assert_not_null(rx.peer);
    int got = 0;
    socklen_t gl = sizeof(got);
    cr_assert_eq(getsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &got, &gl), 0);
    /* the kernel doubles what it grants, and grants at most wmem_max */
    long want = 2 * (wmem_max < 4 * 1024 * 1024 ? wmem_max : 4 * 1024 * 1024);
    cr_assert_eq(got, want, "SO_SNDBUF %d, expected %ld (wmem_max %ld)", got, want, wmem_max);
    on_loop(p, do_destroy, &rx);
    close(sv[1]);
    px_progress_destroy(p);
    rx_fini(&rx);
}
