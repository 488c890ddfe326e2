/* net: the handshake shared by the Unix-socket and TCP listeners. Accepting and reading
 * run on the engine's loop thread (non-blocking); px_hs_connect blocks its caller,
 * bounded by a deadline, and must not be called on a loop thread.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include "bfrops/px_bfrops.h"
#include "net/px_hs.h"

/* What a connection in handshake is reading: the 8-byte header, the prefix, the hello. */
typedef enum { PX_HS_HEAD, PX_HS_PREFIX, PX_HS_BODY } px_hs_phase_t;

typedef struct px_hs_conn {
    struct px_hs_conn *next, *prev;
    px_hs_listener_t *l; /* borrowed */
    int fd;              /* owned until handed over */
    struct event *ev;    /* owned */
    px_hs_phase_t phase;
    size_t have; /* bytes of the current phase read */
    uint8_t head[8];
    uint8_t prefix[PX_HS_PREFIX_MAX];
    uint8_t *body; /* owned: the hello after the prefix */
    uint32_t len;  /* of body */
} px_hs_conn_t;

struct px_hs_listener {
    px_progress_t *p; /* borrowed */
    int fd;           /* owned */
    struct event *ev; /* owned */
    uint8_t prefix[PX_HS_PREFIX_MAX];
    size_t prefix_len;
    int timeout_ms;
    px_hs_accept_fn cb;
    void *cbdata;
    px_hs_conn_t *pending; /* owned: connections in handshake */
};

static void conn_free(px_hs_conn_t *c)
{
    px_hs_listener_t *l = c->l;

    if (c->prev != NULL) {
        c->prev->next = c->next;
    } else {
        l->pending = c->next;
    }
    if (c->next != NULL) {
        c->next->prev = c->prev;
    }
    event_free(c->ev);
    if (c->fd >= 0) {
        close(c->fd);
    }
    free(c->body);
    free(c);
}

static void answer(int fd, pmix_status_t st)
{
    uint8_t a[8] = {PX_HS_VERSION, 0, 0, 0};
    uint32_t be = htonl((uint32_t)st);

    memcpy(a + 4, &be, 4);
    /* 8 bytes on a fresh socket fit its buffer; a failure shows up at the connector. */
    (void)!send(fd, a, sizeof(a), MSG_NOSIGNAL);
}

static void conn_refuse(px_hs_conn_t *c, pmix_status_t st)
{
    answer(c->fd, st);
    conn_free(c);
}

/* Equal prefixes? Time does not depend on where they differ. */
static bool prefix_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
    uint8_t diff = 0;

    for (size_t i = 0; i < n; i++) {
        diff |= (uint8_t)(a[i] ^ b[i]);
    }
    return diff == 0;
}

static void conn_finish(px_hs_conn_t *c)
{
    px_hs_listener_t *l = c->l;
    pmix_data_buffer_t hello;
    pmix_status_t st;
    int flags;

    px_bfrops_buf_init(&hello);
    px_bfrops_buf_adopt(&hello, (char *)c->body, c->len);
    c->body = NULL;
    /* The fd goes over in blocking mode, as px_hs_connect leaves the other end. */
    flags = fcntl(c->fd, F_GETFL);
    fcntl(c->fd, F_SETFL, flags & ~O_NONBLOCK);
    st = l->cb(c->fd, &hello, l->cbdata);
    px_bfrops_buf_free(&hello);
    answer(c->fd, st);
    if (st == PMIX_SUCCESS) {
        c->fd = -1;
    }
    conn_free(c);
}

/* The current phase is complete: check it and start the next one. */
static void conn_step(px_hs_conn_t *c)
{
    px_hs_listener_t *l = c->l;

    if (c->phase == PX_HS_HEAD) {
        uint32_t be, total;

        if (c->head[0] != PX_HS_VERSION) {
            conn_refuse(c, PMIX_ERR_NOT_SUPPORTED); /* a payload of unknown layout: unread */
            return;
        }
        memcpy(&be, c->head + 4, 4);
        total = ntohl(be);
        if (total < l->prefix_len) {
            conn_refuse(c, PMIX_ERR_NO_PERMISSIONS); /* no room for the prefix */
            return;
        }
        if (total > PX_HS_HELLO_MAX) {
            conn_refuse(c, PMIX_ERR_BAD_PARAM);
            return;
        }
        c->len = total - (uint32_t)l->prefix_len;
        c->phase = PX_HS_PREFIX;
        c->have = 0;
        if (l->prefix_len > 0) {
            return;
        }
    }
    if (c->phase == PX_HS_PREFIX) {
        if (!prefix_equal(c->prefix, l->prefix, l->prefix_len)) {
            conn_refuse(c, PMIX_ERR_NO_PERMISSIONS); /* the hello is never read */
            return;
        }
        if (c->len > 0 && (c->body = malloc(c->len)) == NULL) {
            conn_free(c);
            return;
        }
        c->phase = PX_HS_BODY;
        c->have = 0;
        if (c->len > 0) {
            return;
        }
    }
    conn_finish(c);
}

static void conn_on_read(evutil_socket_t fd, short what, void *arg)
{
    px_hs_conn_t *c = arg;
    uint8_t *buf;
    size_t need;
    ssize_t n;

    if (what & EV_TIMEOUT) {
        conn_free(c); /* a silent peer does not keep its slot */
        return;
    }
    if (c->phase == PX_HS_HEAD) {
        buf = c->head;
        need = sizeof(c->head);
    } else if (c->phase == PX_HS_PREFIX) {
        buf = c->prefix;
        need = c->l->prefix_len;
    } else {
        buf = c->body;
        need = c->len;
    }
    n = recv(fd, buf + c->have, need - c->have, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        return;
    }
    if (n <= 0) {
        conn_free(c);
        return;
    }
    c->have += (size_t)n;
    if (c->have == need) {
        conn_step(c);
    }
}

static void on_accept(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    px_hs_listener_t *l = arg;
    struct timeval tv = {l->timeout_ms / 1000, (l->timeout_ms % 1000) * 1000};
    px_hs_conn_t *c;
    int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

    if (cfd < 0) {
        return; /* EAGAIN, or a connector that went away; EMFILE retries later */
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        close(cfd);
        return;
    }
    c->l = l;
    c->fd = cfd;
    c->ev = event_new(px_progress_base(l->p), cfd, EV_READ | EV_PERSIST, conn_on_read, c);
    if (c->ev == NULL) {
        close(cfd);
        free(c);
        return;
    }
    c->next = l->pending;
    if (l->pending != NULL) {
        l->pending->prev = c;
    }
    l->pending = c;
    if (event_add(c->ev, &tv) != 0) {
        conn_free(c);
    }
}

px_hs_listener_t *px_hs_listen(px_progress_t *p, int lfd, const void *prefix, size_t prefix_len,
                               px_hs_accept_fn cb, void *cbdata)
{
    px_hs_listener_t *l;

    if (prefix_len > PX_HS_PREFIX_MAX || (prefix == NULL && prefix_len > 0)) {
        errno = EINVAL;
        return NULL;
    }
    l = calloc(1, sizeof(*l));
    if (l == NULL) {
        return NULL;
    }
    l->p = p;
    l->fd = lfd;
    l->cb = cb;
    l->cbdata = cbdata;
    l->timeout_ms = PX_HS_TIMEOUT_MS;
    l->prefix_len = prefix_len;
    if (prefix_len > 0) {
        memcpy(l->prefix, prefix, prefix_len);
    }
    l->ev = event_new(px_progress_base(p), lfd, EV_READ | EV_PERSIST, on_accept, l);
    if (l->ev == NULL || event_add(l->ev, NULL) != 0) {
        if (l->ev != NULL) {
            event_free(l->ev);
        }
        free(l);
        errno = ENOMEM;
        return NULL;
    }
    return l;
}

void px_hs_set_timeout(px_hs_listener_t *l, int ms)
{
    l->timeout_ms = ms;
}

size_t px_hs_pending(const px_hs_listener_t *l)
{
    size_t n = 0;

    for (const px_hs_conn_t *c = l->pending; c != NULL; c = c->next) {
        n++;
    }
    return n;
}

void px_hs_listener_destroy(px_hs_listener_t *l)
{
    if (l == NULL) {
        return;
    }
    while (l->pending != NULL) {
        conn_free(l->pending);
    }
    event_free(l->ev);
    close(l->fd);
    explicit_bzero(l->prefix, sizeof(l->prefix));
    free(l);
}

/* ---- connector ---- */

void px_hs_deadline(struct timespec *deadline, int timeout_ms)
{
    clock_gettime(CLOCK_MONOTONIC, deadline);
    deadline->tv_sec += timeout_ms / 1000;
    deadline->tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline->tv_nsec >= 1000000000L) {
        deadline->tv_sec++;
        deadline->tv_nsec -= 1000000000L;
    }
}

/* Milliseconds left before deadline (>= 0). */
static int ms_left(const struct timespec *deadline)
{
    struct timespec now;
    long ms;

    clock_gettime(CLOCK_MONOTONIC, &now);
    ms = (deadline->tv_sec - now.tv_sec) * 1000L + (deadline->tv_nsec - now.tv_nsec) / 1000000L;
    return ms > 0 ? (int)ms : 0;
}

int px_hs_wait(int fd, short events, const struct timespec *deadline)
{
    for (;;) {
        struct pollfd pfd = {.fd = fd, .events = events};
        int pr = poll(&pfd, 1, ms_left(deadline));

        if (pr < 0 && errno == EINTR) {
            continue;
        }
        if (pr <= 0) {
            errno = pr == 0 ? ETIMEDOUT : errno;
            return -1;
        }
        return 0;
    }
}

static int io_all(int fd, const void *b, size_t n, bool out, const struct timespec *deadline)
{
    uint8_t *c = (uint8_t *)b; /* written to only when !out */

    while (n > 0) {
        ssize_t r;

        if (px_hs_wait(fd, out ? POLLOUT : POLLIN, deadline) != 0) {
            return -1;
        }
        r = out ? send(fd, c, n, MSG_NOSIGNAL | MSG_DONTWAIT) : recv(fd, c, n, MSG_DONTWAIT);
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            continue;
        }
        if (r <= 0) {
            errno = r == 0 ? EPROTO : errno;
            return -1;
        }
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

int px_hs_connect(int fd, uint8_t version, const void *prefix, size_t prefix_len,
                  const pmix_data_buffer_t *hello, const struct timespec *deadline,
                  pmix_status_t *status)
{
    size_t hlen = hello != NULL ? hello->bytes_used : 0;
    uint8_t head[8] = {version, 0, 0, 0};
    uint8_t ans[8];
    uint32_t be;
    int flags, send_err = 0;

    *status = PMIX_ERR_UNREACH;
    if (prefix_len + hlen > PX_HS_HELLO_MAX) {
        errno = EMSGSIZE;
        return -1;
    }
    be = htonl((uint32_t)(prefix_len + hlen));
    memcpy(head + 4, &be, 4);
    /* A listener refusing the header or the prefix answers and closes without reading
     * the rest, so a send may fail (EPIPE, ECONNRESET) with its answer already here:
     * read it anyway. */
    if (io_all(fd, head, sizeof(head), true, deadline) != 0 ||
        (prefix_len > 0 && io_all(fd, prefix, prefix_len, true, deadline) != 0) ||
        (hlen > 0 && io_all(fd, hello->base_ptr, hlen, true, deadline) != 0)) {
        send_err = errno;
        if (send_err != EPIPE && send_err != ECONNRESET) {
            return -1;
        }
    }
    if (io_all(fd, ans, sizeof(ans), false, deadline) != 0) {
        errno = send_err != 0 ? send_err : errno;
        return -1;
    }
    if (ans[0] != PX_HS_VERSION || ans[1] != 0 || ans[2] != 0 || ans[3] != 0) {
        errno = EPROTO;
        return -1;
    }
    memcpy(&be, ans + 4, 4);
    *status = (pmix_status_t)ntohl(be);
    if (*status != PMIX_SUCCESS) {
        errno = ECONNREFUSED;
        return -1;
    }
    flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return 0;
}
