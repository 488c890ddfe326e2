/* net: a descriptor watched for its closure (px_closewatch.h). Loop thread only. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "net/px_closewatch.h"

struct px_closewatch {
    struct event *ev;
    void (*closed)(void *arg);
    void *arg;
};

static void on_read(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    px_closewatch_t *w = arg;
    char buf[256];
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR))) {
        return; /* data is no news; only the closure is */
    }
    event_del(w->ev);
    w->closed(w->arg);
}

px_closewatch_t *px_closewatch_start(struct event_base *base, int fd, void (*closed)(void *arg),
                                     void *arg)
{
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) {
        return NULL; /* errno EBADF */
    }
    px_closewatch_t *w = calloc(1, sizeof(*w));
    if (w == NULL) {
        return NULL;
    }
    fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    w->closed = closed;
    w->arg = arg;
    w->ev = event_new(base, fd, EV_READ | EV_PERSIST, on_read, w);
    if (w->ev == NULL || event_add(w->ev, NULL) != 0) {
        if (w->ev != NULL) {
            event_free(w->ev);
        }
        free(w);
        errno = ENOMEM;
        return NULL;
    }
    return w;
}

void px_closewatch_stop(px_closewatch_t *w)
{
    if (w != NULL) {
        event_free(w->ev);
        free(w);
    }
}
