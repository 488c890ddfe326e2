/*
 * pxc_garbage.c - a misbehaving client must not hurt the server or the other clients.
 * --mode conn: rank G initializes, then writes garbage on its own connection to the
 *   server; a following fence over itself must fail (the server drops it).
 * --mode handshake: rank G first opens raw connections to the server socket (truncated
 *   handshake kept open, garbage, connect-and-close), then initializes normally and
 *   takes part in the exchange like everybody else.
 * The other ranks exchange data over the ranks taking part and must succeed.
 * Usage: pxc_garbage [--mode conn|handshake] [--rank G]
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "pxc_common.h"

extern char **environ;

/* The server's socket path from the URI in the environment ("...;usock:PATH"). */
static const char *server_path(void)
{
    const char *uri = getenv("PMIX_SERVER_URI");

    for (char **e = environ; !uri && *e; e++) {
        if (strncmp(*e, "PMIX_", 5) == 0 && strstr(*e, "usock:"))
            uri = strchr(*e, '=') + 1;
    }
    if (!uri || !strstr(uri, "usock:"))
        pxc_fail("no PMIX_SERVER_URI=...;usock:PATH in the environment");
    return strstr(uri, "usock:") + 6;
}

static void fill_garbage(unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        buf[i] = (unsigned char)(seed >> 16);
    }
    /* no sane framing takes this for a length: the reader cannot wait for more */
    memset(buf, 0xff, n < 8 ? n : 8);
}

static int connect_raw(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
        pxc_fail("cannot connect to the server socket %s: %s", path, strerror(errno));
    return fd;
}

static void write_all(int fd, const void *buf, size_t n)
{
    /* the server may drop us half-way: errors are fine here */
    ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);
    (void)w;
}

/* The fd of our connection to the server: a Unix socket whose peer is the server path. */
static int find_server_fd(const char *path)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int found = -1;

    if (!d)
        pxc_fail("cannot open /proc/self/fd: %s", strerror(errno));
    while ((e = readdir(d)) != NULL && found < 0) {
        struct sockaddr_un sa;
        socklen_t len = sizeof(sa);
        int fd = atoi(e->d_name);

        if (e->d_name[0] == '.' || fd == dirfd(d))
            continue;
        memset(&sa, 0, sizeof(sa));
        if (getpeername(fd, (struct sockaddr *)&sa, &len) == 0 && sa.sun_family == AF_UNIX &&
            strcmp(sa.sun_path, path) == 0)
            found = fd;
    }
    closedir(d);
    if (found < 0)
        pxc_fail("no socket connected to %s among /proc/self/fd", path);
    return found;
}

static void garbage_on_connection(const pmix_proc_t *me)
{
    unsigned char buf[4096];
    pmix_info_t info;
    int fd = find_server_fd(server_path()), timeout = 5;
    pmix_status_t rc;
    double t0;

    fill_garbage(buf, sizeof(buf), 7);
    write_all(fd, buf, sizeof(buf));
    PMIx_Info_load(&info, PMIX_TIMEOUT, &timeout, PMIX_INT);
    t0 = pxc_now();
    rc = PMIx_Fence(me, 1, &info, 1);
    PMIx_Info_destruct(&info);
    if (rc == PMIX_SUCCESS)
        pxc_fail("PMIx_Fence over itself succeeded after writing garbage to the server");
    printf("pxc_garbage: rank %u: PMIx_Fence after garbage failed as expected after %.1f s: %s\n",
           me->rank, pxc_now() - t0, PMIx_Error_string(rc));
    PMIx_Finalize(NULL, 0);
}

static void garbage_handshakes(void)
{
    const char *path = server_path();
    unsigned char buf[65536];
    int held, fd;

    /* A: a truncated handshake (a version byte and a little), kept open meanwhile */
    held = connect_raw(path);
    fill_garbage(buf, 3, 11);
    buf[0] = 1;
    write_all(held, buf, 3);
    /* B: 64 KiB of garbage, then close */
    fd = connect_raw(path);
    fill_garbage(buf, sizeof(buf), 13);
    write_all(fd, buf, sizeof(buf));
    close(fd);
    /* C: connect and close at once */
    close(connect_raw(path));
    /* D: garbage, half-close, wait for the server to answer or drop */
    fd = connect_raw(path);
    fill_garbage(buf, 100, 17);
    write_all(fd, buf, 100);
    shutdown(fd, SHUT_WR);
    {
        struct timeval tv = {5, 0};
        ssize_t r;
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        while ((r = read(fd, buf, sizeof(buf))) > 0)
            ;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            pxc_fail("the server kept a half-closed garbage connection open for 5 s");
    }
    close(fd);
    /* leave A open: PMIx_Init must work while it lingers */
    (void)held;
}

int main(int argc, char **argv)
{
    const char *mode = "conn";
    int g = 1, nranks, *members, n = 0;
    pmix_proc_t me;
    pmix_status_t rc;

    pxc_name = "pxc_garbage";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc)
            mode = argv[++i];
        else if (strcmp(argv[i], "--rank") == 0 && i + 1 < argc)
            g = pxc_parse_int("--rank", argv[++i]);
        else {
            fprintf(stderr, "pxc_garbage: unknown argument \"%s\"\n", argv[i]);
            return 2;
        }
    }
    if (strcmp(mode, "conn") && strcmp(mode, "handshake")) {
        fprintf(stderr, "pxc_garbage: --mode wants conn or handshake\n");
        return 2;
    }
    if (strcmp(mode, "handshake") == 0) {
        /* which rank we are is only known after PMIx_Init: every rank does it (more
         * garbage, same expectations) */
        garbage_handshakes();
    }
    pxc_init(&me, &nranks);
    if (strcmp(mode, "conn") == 0 && (int)me.rank == g) {
        garbage_on_connection(&me);
        return 0;
    }
    members = calloc((size_t)nranks, sizeof(int));
    for (int r = 0; r < nranks; r++) {
        if (strcmp(mode, "handshake") == 0 || r != g)
            members[n++] = r;
    }
    pxc_exchange(&me, members, n);
    free(members);
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Finalize failed: %s", PMIx_Error_string(rc));
    return 0;
}
