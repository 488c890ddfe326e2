/* net: Unix-domain listener and connector: the socket file and SO_PEERCRED around the
 * shared handshake (px_hs). The listener's accept and handshake reads run on the
 * engine's loop thread; px_usock_connect blocks its caller (bounded by a timeout) and
 * must not be called on a loop thread.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "net/px_usock.h"

struct px_usock_listener {
    px_hs_listener_t *hs; /* owned: the socket and the connections in handshake */
    char *path;           /* owned */
    char *dir;            /* owned; set when we created the directory */
    px_usock_accept_fn cb;
    void *cbdata;
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

/* The handshake passed (px_hs): add the connector's credentials. */
static pmix_status_t usock_accept(int fd, pmix_data_buffer_t *hello, void *cbdata)
{
    px_usock_listener_t *l = cbdata;
    px_usock_cred_t cred;

    if (px_usock_peercred(fd, &cred) != 0) {
        return PMIX_ERR_INVALID_CRED;
    }
    return l->cb(l, fd, &cred, hello, l->cbdata);
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
    int fd = -1, saved;

    if (px_usock_addr(path, &sa) != 0) {
        return NULL;
    }
    l = calloc(1, sizeof(*l));
    if (l == NULL) {
        return NULL;
    }
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
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        goto error;
    }
    if (chmod(path, 0600) != 0 || listen(fd, SOMAXCONN) != 0 ||
        (l->hs = px_hs_listen(p, fd, NULL, 0, usock_accept, l)) == NULL) {
        saved = errno;
        unlink(path);
        errno = saved;
        goto error;
    }
    return l;

error:
    saved = errno;
    if (fd >= 0) {
        close(fd);
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
    px_hs_listener_destroy(l->hs);
    unlink(l->path);
    if (l->dir != NULL) {
        rmdir(l->dir);
        free(l->dir);
    }
    free(l->path);
    free(l);
}

int px_usock_connect_version(const char *path, uint8_t version, const pmix_data_buffer_t *hello,
                             int timeout_ms, pmix_status_t *status)
{
    struct sockaddr_un sa;
    struct timespec deadline;
    int fd = -1, saved;

    *status = PMIX_ERR_UNREACH;
    px_hs_deadline(&deadline, timeout_ms);
    if (px_usock_addr(path, &sa) != 0) {
        return -1;
    }
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        px_hs_connect(fd, version, NULL, 0, hello, &deadline, status) != 0) {
        saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int px_usock_connect(const char *path, const pmix_data_buffer_t *hello, int timeout_ms,
                     pmix_status_t *status)
{
    return px_usock_connect_version(path, PX_HS_VERSION, hello, timeout_ms, status);
}
