/* net: TCP listener (accept + secret-checked handshake on the engine's loop thread,
 * non-blocking, bounded) and a blocking connector with a timeout (never on a loop).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "bfrops/px_bfrops.h"
#include "net/px_tcp.h"
#include "net/px_usock.h"

/* A connection in handshake: header, then the secret, then the hello. */
typedef struct px_ths {
    struct px_ths *next, *prev;
    px_tcp_listener_t *l; /* borrowed */
    int fd;               /* owned until handed over */
    struct event *ev;     /* owned */
    uint8_t head[8];
    size_t have;
    char secret[PX_TCP_SECRET_HEX];
    size_t secret_have;
    uint8_t *body; /* owned: the hello after the secret */
    uint32_t len;  /* of body */
    size_t body_have;
} px_ths_t;

struct px_tcp_listener {
    px_progress_t *p; /* borrowed */
    int fd;
    struct event *ev; /* owned */
    char secret[PX_TCP_SECRET_HEX];
    char addr[INET_ADDRSTRLEN];
    uint16_t port;
    int hs_timeout_ms;
    px_tcp_accept_fn cb;
    void *cbdata;
    px_ths_t *pending; /* owned */
};

int px_tcp_secret_new(char *out)
{
    uint8_t raw[PX_TCP_SECRET_BYTES];
    size_t got = 0;

    while (got < sizeof(raw)) {
        ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n < 0) {
            return -1;
        }
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof(raw); i++) {
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
    }
    return 0;
}

static void nodelay(int fd)
{
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* Equal secrets? Time does not depend on where they differ. */
static int secret_equal(const char *a, const char *b)
{
    unsigned char diff = 0;
    for (size_t i = 0; i < PX_TCP_SECRET_HEX; i++) {
        diff |= (unsigned char)(a[i] ^ b[i]);
    }
    return diff == 0;
}

static void ths_free(px_ths_t *h)
{
    px_tcp_listener_t *l = h->l;

    if (h->prev != NULL) {
        h->prev->next = h->next;
    } else {
        l->pending = h->next;
    }
    if (h->next != NULL) {
        h->next->prev = h->prev;
    }
    event_free(h->ev);
    if (h->fd >= 0) {
        close(h->fd);
    }
    free(h->body);
    free(h);
}

static void ths_answer(int fd, pmix_status_t st)
{
    uint8_t a[8] = {PX_USOCK_VERSION, 0, 0, 0};
    uint32_t be = htonl((uint32_t)st);

    memcpy(a + 4, &be, 4);
    (void)!send(fd, a, sizeof(a), MSG_NOSIGNAL); /* fits a fresh socket's buffer */
}

static void ths_refuse(px_ths_t *h, pmix_status_t st)
{
    ths_answer(h->fd, st);
    ths_free(h);
}

static void ths_done(px_ths_t *h)
{
    px_tcp_listener_t *l = h->l;
    pmix_data_buffer_t hello;
    pmix_status_t st;
    int flags;

    px_bfrops_buf_init(&hello);
    px_bfrops_buf_adopt(&hello, (char *)h->body, h->len);
    h->body = NULL;
    flags = fcntl(h->fd, F_GETFL);
    fcntl(h->fd, F_SETFL, flags & ~O_NONBLOCK);
    st = l->cb(l, h->fd, &hello, l->cbdata);
    px_bfrops_buf_free(&hello);
    ths_answer(h->fd, st);
    if (st == PMIX_SUCCESS) {
        h->fd = -1;
    }
    ths_free(h);
}

/* Header complete: check it and size the rest. 0 to go on, -1 when h is gone. */
static int ths_header(px_ths_t *h)
{
    uint32_t be, total;

    if (h->head[0] != PX_USOCK_VERSION) {
        ths_refuse(h, PMIX_ERR_NOT_SUPPORTED);
        return -1;
    }
    memcpy(&be, h->head + 4, 4);
    total = ntohl(be);
    if (total < PX_TCP_SECRET_HEX) {
        ths_refuse(h, PMIX_ERR_NO_PERMISSIONS); /* no room for a secret */
        return -1;
    }
    if (total > PX_USOCK_HELLO_MAX) {
        ths_refuse(h, PMIX_ERR_BAD_PARAM);
        return -1;
    }
    h->len = total - PX_TCP_SECRET_HEX;
    return 0;
}

static void ths_on_read(evutil_socket_t fd, short what, void *arg)
{
    px_ths_t *h = arg;
    uint8_t *dst;
    size_t want;
    ssize_t n;

    if (what & EV_TIMEOUT) {
        ths_free(h); /* a silent peer does not keep its slot */
        return;
    }
    if (h->have < sizeof(h->head)) {
        dst = h->head + h->have;
        want = sizeof(h->head) - h->have;
    } else if (h->secret_have < PX_TCP_SECRET_HEX) {
        dst = (uint8_t *)h->secret + h->secret_have;
        want = PX_TCP_SECRET_HEX - h->secret_have;
    } else {
        dst = h->body + h->body_have;
        want = h->len - h->body_have;
    }
    n = recv(fd, dst, want, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        return;
    }
    if (n <= 0) {
        ths_free(h);
        return;
    }
    if (h->have < sizeof(h->head)) {
        h->have += (size_t)n;
        if (h->have == sizeof(h->head) && ths_header(h) != 0) {
            return;
        }
        return;
    }
    if (h->secret_have < PX_TCP_SECRET_HEX) {
        h->secret_have += (size_t)n;
        if (h->secret_have < PX_TCP_SECRET_HEX) {
            return;
        }
        if (!secret_equal(h->secret, h->l->secret)) {
            ths_refuse(h, PMIX_ERR_NO_PERMISSIONS);
            return;
        }
        if (h->len > 0 && (h->body = malloc(h->len)) == NULL) {
            ths_free(h);
            return;
        }
    } else {
        h->body_have += (size_t)n;
    }
    if (h->body_have == h->len) {
        ths_done(h);
    }
}

static void tcp_on_accept(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    px_tcp_listener_t *l = arg;
    struct timeval tv = {l->hs_timeout_ms / 1000, (l->hs_timeout_ms % 1000) * 1000};
    px_ths_t *h;
    int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

    if (cfd < 0) {
        return;
    }
    nodelay(cfd);
    h = calloc(1, sizeof(*h));
    if (h == NULL) {
        close(cfd);
        return;
    }
    h->l = l;
    h->fd = cfd;
    h->ev = event_new(px_progress_base(l->p), cfd, EV_READ | EV_PERSIST, ths_on_read, h);
    if (h->ev == NULL) {
        close(cfd);
        free(h);
        return;
    }
    h->next = l->pending;
    if (l->pending != NULL) {
        l->pending->prev = h;
    }
    l->pending = h;
    if (event_add(h->ev, &tv) != 0) {
        ths_free(h);
    }
}

/* A non-loopback IPv4 address of an interface that is up, else 127.0.0.1. */
static void local_addr(char *out)
{
    struct ifaddrs *ifs = NULL;

    strcpy(out, "127.0.0.1");
    if (getifaddrs(&ifs) != 0) {
        return;
    }
    for (struct ifaddrs *i = ifs; i != NULL; i = i->ifa_next) {
        if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET ||
            (i->ifa_flags & IFF_LOOPBACK) || !(i->ifa_flags & IFF_UP)) {
            continue;
        }
        const struct sockaddr_in *sin = (const struct sockaddr_in *)i->ifa_addr;
        if (inet_ntop(AF_INET, &sin->sin_addr, out, INET_ADDRSTRLEN) != NULL) {
            break;
        }
        strcpy(out, "127.0.0.1");
    }
    freeifaddrs(ifs);
}

px_tcp_listener_t *px_tcp_listen(px_progress_t *p, bool remote, const char *secret,
                                 px_tcp_accept_fn cb, void *cbdata)
{
    struct sockaddr_in sa;
    socklen_t salen = sizeof(sa);
    px_tcp_listener_t *l;
    int saved;

    if (secret == NULL || strlen(secret) != PX_TCP_SECRET_HEX) {
        errno = EINVAL;
        return NULL;
    }
    l = calloc(1, sizeof(*l));
    if (l == NULL) {
        return NULL;
    }
    l->p = p;
    l->cb = cb;
    l->cbdata = cbdata;
    l->hs_timeout_ms = PX_TCP_HS_TIMEOUT_MS;
    memcpy(l->secret, secret, PX_TCP_SECRET_HEX);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = 0;
    sa.sin_addr.s_addr = htonl(remote ? INADDR_ANY : INADDR_LOOPBACK);
    l->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (l->fd < 0 || bind(l->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        listen(l->fd, SOMAXCONN) != 0 || getsockname(l->fd, (struct sockaddr *)&sa, &salen) != 0) {
        goto error;
    }
    l->port = ntohs(sa.sin_port);
    if (remote) {
        local_addr(l->addr);
    } else {
        strcpy(l->addr, "127.0.0.1");
    }
    l->ev = event_new(px_progress_base(p), l->fd, EV_READ | EV_PERSIST, tcp_on_accept, l);
    if (l->ev == NULL || event_add(l->ev, NULL) != 0) {
        errno = ENOMEM;
        goto error;
    }
    return l;

error:
    saved = errno;
    if (l->ev != NULL) {
        event_free(l->ev);
    }
    if (l->fd >= 0) {
        close(l->fd);
    }
    free(l);
    errno = saved;
    return NULL;
}

const char *px_tcp_listener_addr(const px_tcp_listener_t *l)
{
    return l->addr;
}

uint16_t px_tcp_listener_port(const px_tcp_listener_t *l)
{
    return l->port;
}

void px_tcp_listener_set_hs_timeout(px_tcp_listener_t *l, int ms)
{
    l->hs_timeout_ms = ms;
}

size_t px_tcp_listener_pending(const px_tcp_listener_t *l)
{
    size_t n = 0;
    for (const px_ths_t *h = l->pending; h != NULL; h = h->next) {
        n++;
    }
    return n;
}

void px_tcp_listener_destroy(px_tcp_listener_t *l)
{
    if (l == NULL) {
        return;
    }
    while (l->pending != NULL) {
        ths_free(l->pending);
    }
    event_free(l->ev);
    close(l->fd);
    free(l);
}

/* ---- connector ---- */

static int ms_left(const struct timespec *deadline)
{
    struct timespec now;
    long ms;

    clock_gettime(CLOCK_MONOTONIC, &now);
    ms = (deadline->tv_sec - now.tv_sec) * 1000L + (deadline->tv_nsec - now.tv_nsec) / 1000000L;
    return ms > 0 ? (int)ms : 0;
}

static int wait_fd(int fd, short events, const struct timespec *deadline)
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

static int io_all(int fd, void *b, size_t n, int out, const struct timespec *deadline)
{
    uint8_t *c = b;

    while (n > 0) {
        if (wait_fd(fd, out ? POLLOUT : POLLIN, deadline) != 0) {
            return -1;
        }
        ssize_t r =
            out ? send(fd, c, n, MSG_NOSIGNAL | MSG_DONTWAIT) : recv(fd, c, n, MSG_DONTWAIT);
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

int px_tcp_connect(const char *addr, uint16_t port, const char *secret,
                   const pmix_data_buffer_t *hello, int timeout_ms, pmix_status_t *status)
{
    struct sockaddr_in sa;
    struct timespec deadline;
    size_t slen = secret != NULL ? strlen(secret) : 0;
    size_t hlen = hello != NULL ? hello->bytes_used : 0;
    uint8_t head[8] = {PX_USOCK_VERSION, 0, 0, 0};
    uint8_t ans[8];
    uint32_t be;
    int fd = -1, err = 0, flags;
    socklen_t elen = sizeof(err);

    *status = PMIX_ERR_UNREACH;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    if (addr == NULL || inet_pton(AF_INET, addr, &sa.sin_addr) != 1 || port == 0 ||
        slen > PX_TCP_SECRET_HEX) {
        errno = EINVAL;
        return -1;
    }
    if (slen + hlen > PX_USOCK_HELLO_MAX) {
        errno = EMSGSIZE;
        return -1;
    }
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        goto error;
    }
    nodelay(fd);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        if (errno != EINPROGRESS || wait_fd(fd, POLLOUT, &deadline) != 0) {
            goto error;
        }
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) != 0 || err != 0) {
            errno = err != 0 ? err : errno;
            goto error;
        }
    }
    be = htonl((uint32_t)(slen + hlen));
    memcpy(head + 4, &be, 4);
    /* A listener refusing the secret answers and closes without reading the rest, so
     * a send may fail (EPIPE, ECONNRESET) with its answer already here: read it anyway. */
    int sent = io_all(fd, head, sizeof(head), 1, &deadline) == 0 &&
               (slen == 0 || io_all(fd, (void *)secret, slen, 1, &deadline) == 0) &&
               (hlen == 0 || io_all(fd, hello->base_ptr, hlen, 1, &deadline) == 0);
    int send_err = sent ? 0 : errno;
    if ((!sent && send_err != EPIPE && send_err != ECONNRESET) ||
        io_all(fd, ans, sizeof(ans), 0, &deadline) != 0) {
        errno = send_err != 0 ? send_err : errno;
        goto error;
    }
    memcpy(&be, ans + 4, 4);
    *status = (pmix_status_t)ntohl(be);
    if (ans[0] != PX_USOCK_VERSION) {
        *status = PMIX_ERR_UNREACH;
        errno = EPROTO;
        goto error;
    }
    if (*status != PMIX_SUCCESS) {
        errno = ECONNREFUSED;
        goto error;
    }
    flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;

error:
    if (fd >= 0) {
        int saved = errno;
        close(fd);
        errno = saved;
    }
    return -1;
}
