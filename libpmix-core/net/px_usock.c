/* net: Unix-domain listener and connector. The listener's accept and handshake reads
 * run on the engine's loop thread (non-blocking); px_usock_connect blocks its caller
 * (bounded by a timeout) and must not be called on a loop thread.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "bfrops/px_bfrops.h"
#include "net/px_usock.h"

#define PX_USOCK_HS_TIMEOUT_S 10

typedef struct px_hs {
    struct px_hs *next, *prev;
    px_usock_listener_t *l; /* borrowed */
    int fd;                 /* owned until handed over */
    struct event *ev;       /* owned */
    uint8_t head[8];
    size_t have;
    uint8_t *body; /* owned */
    uint32_t len;
    size_t body_have;
} px_hs_t;

struct px_usock_listener {
    px_progress_t *p; /* borrowed */
    int fd;
    struct event *ev; /* owned */
    char *path;       /* owned */
    char *dir;        /* owned; set when we created the directory */
    px_usock_accept_fn cb;
    void *cbdata;
    px_hs_t *pending; /* owned: connections in handshake */
};

int px_usock_peercred(int fd, px_usock_cred_t *cred)
{
    struct ucred uc;
    socklen_t len = sizeof(uc);

    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) != 0) {
        return -1;
    }
    cred->uid = uc.uid;
    cred->gid = uc.gid;
    cred->pid = uc.pid;
    return 0;
}

static int px_usock_addr(const char *path, struct sockaddr_un *sa)
{
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(sa->sun_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(sa->sun_path, path);
    return 0;
}

static void px_hs_free(px_hs_t *h)
{
    px_usock_listener_t *l = h->l;

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

static void px_hs_answer(int fd, pmix_status_t st)
{
    uint8_t a[8] = {PX_USOCK_VERSION, 0, 0, 0};
    uint32_t be = htonl((uint32_t)st);

    memcpy(a + 4, &be, 4);
    /* 8 bytes on a fresh socket fit its buffer; a failure shows up at the connector. */
    (void)!send(fd, a, sizeof(a), MSG_NOSIGNAL);
}

static void px_hs_done(px_hs_t *h)
{
    px_usock_listener_t *l = h->l;
    px_usock_cred_t cred;
    pmix_data_buffer_t hello;
    pmix_status_t st;
    int flags;

    if (h->head[0] != PX_USOCK_VERSION) {
        px_hs_answer(h->fd, PMIX_ERR_NOT_SUPPORTED);
        px_hs_free(h);
        return;
    }
    if (px_usock_peercred(h->fd, &cred) != 0) {
        px_hs_answer(h->fd, PMIX_ERR_INVALID_CRED);
        px_hs_free(h);
        return;
    }
    px_bfrops_buf_init(&hello);
    px_bfrops_buf_adopt(&hello, (char *)h->body, h->len);
    h->body = NULL;
    /* Hand the fd over in blocking mode, as px_usock_connect does. */
    flags = fcntl(h->fd, F_GETFL);
    fcntl(h->fd, F_SETFL, flags & ~O_NONBLOCK);
    st = l->cb(l, h->fd, &cred, &hello, l->cbdata);
    px_bfrops_buf_free(&hello);
    if (st == PMIX_SUCCESS) {
        px_hs_answer(h->fd, PMIX_SUCCESS);
        h->fd = -1;
    } else {
        px_hs_answer(h->fd, st);
    }
    px_hs_free(h);
}

static void px_hs_on_read(evutil_socket_t fd, short what, void *arg)
{
    px_hs_t *h = arg;
    ssize_t n;

    if (what & EV_TIMEOUT) {
        px_hs_free(h);
        return;
    }
    if (h->have < sizeof(h->head)) {
        n = recv(fd, h->head + h->have, sizeof(h->head) - h->have, 0);
    } else {
        n = recv(fd, h->body + h->body_have, h->len - h->body_have, 0);
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        return;
    }
    if (n <= 0) {
        px_hs_free(h);
        return;
    }
    if (h->have < sizeof(h->head)) {
        uint32_t be;

        h->have += (size_t)n;
        if (h->have < sizeof(h->head)) {
            return;
        }
        if (h->head[0] != PX_USOCK_VERSION) {
            px_hs_done(h); /* refused before reading a payload of unknown layout */
            return;
        }
        memcpy(&be, h->head + 4, 4);
        h->len = ntohl(be);
        if (h->len > PX_USOCK_HELLO_MAX) {
            px_hs_answer(h->fd, PMIX_ERR_BAD_PARAM);
            px_hs_free(h);
            return;
        }
        if (h->len > 0) {
            h->body = malloc(h->len);
            if (h->body == NULL) {
                px_hs_free(h);
                return;
            }
        }
    } else {
        h->body_have += (size_t)n;
    }
    if (h->body_have == h->len) {
        px_hs_done(h);
    }
}

static void px_usock_on_accept(evutil_socket_t fd, short what, void *arg)
{
    px_usock_listener_t *l = arg;
    struct timeval tv = {PX_USOCK_HS_TIMEOUT_S, 0};
    px_hs_t *h;
    int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

    if (cfd < 0) {
        return; /* EAGAIN, or a connector that went away; EMFILE retries later */
    }
    h = calloc(1, sizeof(*h));
    if (h == NULL) {
        close(cfd);
        return;
    }
    h->l = l;
    h->fd = cfd;
    h->ev = event_new(px_progress_base(l->p), cfd, EV_READ | EV_PERSIST, px_hs_on_read, h);
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
        px_hs_free(h);
    }
}

/* A socket file at path that nobody accepts on is stale. */
static bool px_usock_is_stale(const struct sockaddr_un *sa)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool stale;

    if (fd < 0) {
        return false;
    }
    stale = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) != 0 && errno == ECONNREFUSED;
    close(fd);
    return stale;
}

px_usock_listener_t *px_usock_listen(px_progress_t *p, const char *path, px_usock_accept_fn cb,
                                     void *cbdata)
{
    px_usock_listener_t *l = NULL;
    struct sockaddr_un sa;
    struct stat st;
    char *slash;
    int saved;

    if (px_usock_addr(path, &sa) != 0) {
        return NULL;
    }
    l = calloc(1, sizeof(*l));
    if (l == NULL) {
        return NULL;
    }
    l->fd = -1;
    l->p = p;
    l->cb = cb;
    l->cbdata = cbdata;
    l->path = strdup(path);
    if (l->path == NULL) {
        goto error;
    }
    slash = strrchr(l->path, '/');
    if (slash != NULL && slash != l->path) {
        char *dir = strndup(l->path, (size_t)(slash - l->path));

        if (dir == NULL) {
            goto error;
        }
        if (mkdir(dir, 0700) == 0) {
            l->dir = dir;
        } else {
            free(dir);
            if (errno != EEXIST) {
                goto error;
            }
        }
    }
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode) || !px_usock_is_stale(&sa)) {
            errno = EADDRINUSE;
            goto error;
        }
        unlink(path);
    }
    l->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (l->fd < 0 || bind(l->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        goto error;
    }
    if (chmod(path, 0600) != 0 || listen(l->fd, SOMAXCONN) != 0) {
        unlink(path);
        goto error;
    }
    l->ev = event_new(px_progress_base(p), l->fd, EV_READ | EV_PERSIST, px_usock_on_accept, l);
    if (l->ev == NULL || event_add(l->ev, NULL) != 0) {
        unlink(path);
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
    if (l->dir != NULL) {
        rmdir(l->dir);
        free(l->dir);
    }
    free(l->path);
    free(l);
    errno = saved;
    return NULL;
}

void px_usock_listener_destroy(px_usock_listener_t *l)
{
    if (l == NULL) {
        return;
    }
    while (l->pending != NULL) {
        px_hs_free(l->pending);
    }
    event_free(l->ev);
    close(l->fd);
    unlink(l->path);
    if (l->dir != NULL) {
        rmdir(l->dir);
        free(l->dir);
    }
    free(l->path);
    free(l);
}

/* Milliseconds left before deadline (>= 0). */
static int px_usock_left(const struct timespec *deadline)
{
    struct timespec now;
    long ms;

    clock_gettime(CLOCK_MONOTONIC, &now);
    ms = (deadline->tv_sec - now.tv_sec) * 1000L + (deadline->tv_nsec - now.tv_nsec) / 1000000L;
    return ms > 0 ? (int)ms : 0;
}

static int px_usock_io(int fd, void *b, size_t n, bool out, const struct timespec *deadline)
{
    uint8_t *c = b;

    while (n > 0) {
        struct pollfd pfd = {.fd = fd, .events = out ? POLLOUT : POLLIN};
        ssize_t r;
        int pr = poll(&pfd, 1, px_usock_left(deadline));

        if (pr < 0 && errno == EINTR) {
            continue;
        }
        if (pr <= 0) {
            errno = pr == 0 ? ETIMEDOUT : errno;
            return -1;
        }
        r = out ? send(fd, c, n, MSG_NOSIGNAL | MSG_DONTWAIT) : recv(fd, c, n, MSG_DONTWAIT);
        if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
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

int px_usock_connect_version(const char *path, uint8_t version, const pmix_data_buffer_t *hello,
                             int timeout_ms, pmix_status_t *status)
{
    struct sockaddr_un sa;
    struct timespec deadline;
    size_t len = hello != NULL ? hello->bytes_used : 0;
    uint8_t head[8] = {version, 0, 0, 0};
    uint8_t ans[8];
    uint32_t be = htonl((uint32_t)len);
    int fd = -1;

    *status = PMIX_ERR_UNREACH;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    if (len > PX_USOCK_HELLO_MAX) {
        errno = EMSGSIZE;
        goto error;
    }
    if (px_usock_addr(path, &sa) != 0) {
        goto error;
    }
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        goto error;
    }
    memcpy(head + 4, &be, 4);
    if (px_usock_io(fd, head, sizeof(head), true, &deadline) != 0 ||
        (len > 0 && px_usock_io(fd, hello->base_ptr, len, true, &deadline) != 0) ||
        px_usock_io(fd, ans, sizeof(ans), false, &deadline) != 0) {
        goto error;
    }
    memcpy(&be, ans + 4, 4);
    *status = (pmix_status_t)ntohl(be);
    if (*status != PMIX_SUCCESS) {
        errno = ECONNREFUSED;
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

int px_usock_connect(const char *path, const pmix_data_buffer_t *hello, int timeout_ms,
                     pmix_status_t *status)
{
    return px_usock_connect_version(path, PX_USOCK_VERSION, hello, timeout_ms, status);
}
