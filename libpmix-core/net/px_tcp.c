/* net: TCP listener and connector: the address, the port and the secret around the
 * shared handshake (px_hs, the secret its prefix). Accept and handshake run on the
 * engine's loop thread; the connector blocks its caller with a timeout (never on a loop).
 */
#include <arpa/inet.h>
#include <errno.h>
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

#include "net/px_hs.h"
#include "net/px_tcp.h"

struct px_tcp_listener {
    px_hs_listener_t *hs; /* owned: the socket and the connections in handshake */
    char addr[INET_ADDRSTRLEN];
    uint16_t port;
    px_tcp_accept_fn cb;
    void *cbdata;
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

/* The handshake passed (px_hs, the secret checked). */
static pmix_status_t tcp_accept(int fd, pmix_data_buffer_t *hello, void *cbdata)
{
    px_tcp_listener_t *l = cbdata;

    nodelay(fd);
    return l->cb(l, fd, hello, l->cbdata);
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
    int fd, saved;

    if (secret == NULL || strlen(secret) != PX_TCP_SECRET_HEX) {
        errno = EINVAL;
        return NULL;
    }
    l = calloc(1, sizeof(*l));
    if (l == NULL) {
        return NULL;
    }
    l->cb = cb;
    l->cbdata = cbdata;
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = 0;
    sa.sin_addr.s_addr = htonl(remote ? INADDR_ANY : INADDR_LOOPBACK);
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, SOMAXCONN) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &salen) != 0 ||
        (l->hs = px_hs_listen(p, fd, secret, PX_TCP_SECRET_HEX, tcp_accept, l)) == NULL) {
        goto error;
    }
    l->port = ntohs(sa.sin_port);
    if (remote) {
        local_addr(l->addr);
    } else {
        strcpy(l->addr, "127.0.0.1");
    }
    return l;

error:
    saved = errno;
    if (fd >= 0) {
        close(fd);
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
    px_hs_set_timeout(l->hs, ms);
}

size_t px_tcp_listener_pending(const px_tcp_listener_t *l)
{
    return px_hs_pending(l->hs);
}

void px_tcp_listener_destroy(px_tcp_listener_t *l)
{
    if (l == NULL) {
        return;
    }
    px_hs_listener_destroy(l->hs);
    free(l);
}

int px_tcp_connect(const char *addr, uint16_t port, const char *secret,
                   const pmix_data_buffer_t *hello, int timeout_ms, pmix_status_t *status)
{
    struct sockaddr_in sa;
    struct timespec deadline;
    size_t slen = secret != NULL ? strlen(secret) : 0;
    int fd = -1, err = 0;
    socklen_t elen = sizeof(err);

    *status = PMIX_ERR_UNREACH;
    px_hs_deadline(&deadline, timeout_ms);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_port = htons(port);
    if (addr == NULL || inet_pton(AF_INET, addr, &sa.sin_addr) != 1 || port == 0 ||
        slen > PX_TCP_SECRET_HEX) {
        errno = EINVAL;
        return -1;
    }
    fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        goto error;
    }
    nodelay(fd);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        if (errno != EINPROGRESS || px_hs_wait(fd, POLLOUT, &deadline) != 0) {
            goto error;
        }
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) != 0 || err != 0) {
            errno = err != 0 ? err : errno;
            goto error;
        }
    }
    /* The secret is sent as the prefix of the payload (a short one is refused there). */
    if (px_hs_connect(fd, PX_HS_VERSION, secret, slen, hello, &deadline, status) != 0) {
        goto error;
    }
    return fd;

error:
    if (fd >= 0) {
        int saved = errno;
        close(fd);
        errno = saved;
    }
    return -1;
}
