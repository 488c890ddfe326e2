/* Unit tests of libpmix-core/net/px_hs, the handshake both listeners share: a listener
 * with a prefix over a loopback TCP socket driven by raw writes (pieces, an empty
 * hello, a wrong or short prefix refused before the hello, the other refusals), and
 * the connector over socketpairs (a refusal read after the send failed, malformed or
 * missing answers, an oversized hello). The listener runs on an engine thread; every
 * wait is bounded.
 */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bfrops/px_bfrops.h"
#include "net/px_hs.h"
#include "net/px_progress.h"

#include "net_test.h"

#define PREFIX "prefix-0123456789"

typedef struct hl {
    px_progress_t *p;
    px_hs_listener_t *l;
    uint16_t port;
    int err;
    int naccept;
    int fd;
    char hello[64];
    size_t hello_len;
    pmix_status_t answer;
    size_t pending;
} hl_t;

static pmix_status_t on_accept(int fd, pmix_data_buffer_t *hello, void *cbdata)
{
    hl_t *s = cbdata;

    s->naccept++;
    s->hello_len = hello->bytes_used;
    if (hello->bytes_used > 0 && hello->bytes_used < sizeof(s->hello)) {
        memcpy(s->hello, hello->base_ptr, hello->bytes_used);
    }
    if (s->answer == PMIX_SUCCESS) {
        s->fd = fd;
    }
    return s->answer;
}

static void do_listen(void *arg)
{
    hl_t *s = arg;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 8) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
        s->err = errno;
        close(fd);
        return;
    }
    s->port = ntohs(sa.sin_port);
    s->l = px_hs_listen(s->p, fd, PREFIX, strlen(PREFIX), on_accept, s);
    if (s->l == NULL) {
        s->err = errno;
        close(fd);
    }
}

static void do_unlisten(void *arg)
{
    hl_t *s = arg;

    px_hs_listener_destroy(s->l);
    s->l = NULL;
}

static void do_pending(void *arg)
{
    hl_t *s = arg;

    s->pending = px_hs_pending(s->l);
}

static void hl_setup(hl_t *s)
{
    memset(s, 0, sizeof(*s));
    s->fd = -1;
    s->p = px_progress_create(NULL);
    cr_assert_not_null(s->p);
    cr_assert_eq(px_progress_start(s->p), 0);
    on_loop(s->p, do_listen, s);
    cr_assert_not_null(s->l, "listen: %s", strerror(s->err));
}

static void hl_fini(hl_t *s)
{
    on_loop(s->p, do_unlisten, s);
    px_progress_destroy(s->p);
}

static int raw_connect(const hl_t *s)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(s->port)};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_geq(fd, 0);
    cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    return fd;
}

static void raw_write(int fd, const void *b, size_t n)
{
    cr_assert_eq(write(fd, b, n), (ssize_t)n);
}

/* The 8-byte header announcing len payload bytes. */
static void raw_head(int fd, uint8_t version, uint32_t len)
{
    uint8_t head[8] = {version, 0, 0, 0};
    uint32_t be = htonl(len);

    memcpy(head + 4, &be, 4);
    raw_write(fd, head, sizeof(head));
}

/* Read the listener's answer (bounded); its status. */
static pmix_status_t raw_answer(int fd)
{
    uint8_t a[8];
    size_t have = 0;
    uint32_t be;

    while (have < sizeof(a)) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        cr_assert_eq(poll(&pfd, 1, WAIT_MS), 1, "no answer");
        ssize_t n = read(fd, a + have, sizeof(a) - have);
        cr_assert_gt(n, 0, "closed before the answer");
        have += (size_t)n;
    }
    cr_assert_eq(a[0], PX_HS_VERSION);
    memcpy(&be, a + 4, 4);
    return (pmix_status_t)ntohl(be);
}

/* A connection announcing len payload bytes with version and sending only the n bytes
 * of b gets the answer expect, then the listener's end of stream (bounded). */
static void refused(const hl_t *s, uint8_t version, uint32_t len, const void *b, size_t n,
                    pmix_status_t expect)
{
    int fd = raw_connect(s);
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    char c;

    raw_head(fd, version, len);
    if (n > 0) {
        raw_write(fd, b, n);
    }
    cr_assert_eq(raw_answer(fd), expect);
    cr_assert_eq(poll(&pfd, 1, WAIT_MS), 1);
    cr_assert_eq(read(fd, &c, 1), 0);
    close(fd);
}

Test(net_hs, prefix_and_hello_in_pieces_accepted)
{
    int fds0 = count_fds();
    hl_t s;
    const char *hello = "the hello proper";
    uint8_t head[8] = {PX_HS_VERSION, 0, 0, 0};
    uint32_t be = htonl((uint32_t)(strlen(PREFIX) + strlen(hello)));

    hl_setup(&s);
    int fd = raw_connect(&s);
    memcpy(head + 4, &be, 4);
    /* every phase boundary falls inside a write or between two */
    raw_write(fd, head, 3);
    on_loop(s.p, do_pending, &s);
    raw_write(fd, head + 3, 5);
    raw_write(fd, PREFIX, 4);
    on_loop(s.p, do_pending, &s);
    raw_write(fd, PREFIX + 4, strlen(PREFIX) - 4);
    raw_write(fd, hello, 1);
    on_loop(s.p, do_pending, &s);
    cr_assert_eq(s.pending, 1);
    cr_assert_eq(s.naccept, 0);
    raw_write(fd, hello + 1, strlen(hello) - 1);
    cr_assert_eq(raw_answer(fd), PMIX_SUCCESS);
    on_loop(s.p, do_pending, &s);
    cr_assert_eq(s.pending, 0);
    cr_assert_eq(s.naccept, 1);
    cr_assert_eq(s.hello_len, strlen(hello), "the prefix is not part of the hello");
    cr_assert_eq(memcmp(s.hello, hello, strlen(hello)), 0);
    /* the fd is the callee's, in blocking mode, and connected to ours */
    raw_write(fd, "x", 1);
    char c = 0;
    cr_assert_eq(read(s.fd, &c, 1), 1);
    cr_assert_eq(c, 'x');
    close(s.fd);
    close(fd);
    hl_fini(&s);
    cr_assert_eq(count_fds(), fds0);
}

Test(net_hs, prefix_only_gives_an_empty_hello)
{
    hl_t s;

    hl_setup(&s);
    int fd = raw_connect(&s);
    raw_head(fd, PX_HS_VERSION, (uint32_t)strlen(PREFIX));
    raw_write(fd, PREFIX, strlen(PREFIX));
    cr_assert_eq(raw_answer(fd), PMIX_SUCCESS);
    on_loop(s.p, do_pending, &s);
    cr_assert_eq(s.naccept, 1);
    cr_assert_eq(s.hello_len, 0);
    close(s.fd);
    close(fd);
    hl_fini(&s);
}

/* A wrong or short prefix is refused without the hello (announced, never sent), as are
 * a wrong version and an oversized length; the callback's refusal is the answer. */
Test(net_hs, refusals_before_and_from_the_callback)
{
    int fds0 = count_fds();
    hl_t s;
    char wrong[] = PREFIX;
    uint32_t plen = (uint32_t)strlen(PREFIX);

    hl_setup(&s);
    wrong[sizeof(wrong) - 2] ^= 1;
    refused(&s, PX_HS_VERSION, plen + 100, wrong, plen, PMIX_ERR_NO_PERMISSIONS);
    refused(&s, PX_HS_VERSION, plen - 1, NULL, 0, PMIX_ERR_NO_PERMISSIONS);
    refused(&s, PX_HS_VERSION + 1, 1000, NULL, 0, PMIX_ERR_NOT_SUPPORTED);
    refused(&s, PX_HS_VERSION, PX_HS_HELLO_MAX + 1, NULL, 0, PMIX_ERR_BAD_PARAM);
    on_loop(s.p, do_pending, &s);
    cr_assert_eq(s.naccept, 0);
    cr_assert_eq(s.pending, 0);
    s.answer = PMIX_ERR_NOT_FOUND;
    refused(&s, PX_HS_VERSION, plen, PREFIX, plen, PMIX_ERR_NOT_FOUND);
    on_loop(s.p, do_pending, &s);
    cr_assert_eq(s.naccept, 1);
    cr_assert_eq(s.pending, 0);
    hl_fini(&s);
    cr_assert_eq(count_fds(), fds0);
}

Test(net_hs, listen_refuses_an_overlong_prefix_and_leaves_the_fd)
{
    char big[PX_HS_PREFIX_MAX + 1];
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    px_progress_t *p = px_progress_create(NULL);

    memset(big, 'k', sizeof(big));
    errno = 0;
    cr_assert_null(px_hs_listen(p, fd, big, sizeof(big), on_accept, NULL));
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(fcntl(fd, F_GETFD), FD_CLOEXEC); /* still open */
    close(fd);
    px_progress_destroy(p);
}

/* ---- connector ---- */

static void answer_into(int fd, uint8_t version, pmix_status_t st)
{
    uint8_t a[8] = {version, 0, 0, 0};
    uint32_t be = htonl((uint32_t)st);

    memcpy(a + 4, &be, 4);
    raw_write(fd, a, sizeof(a));
}

/* The listener answered and closed before taking the hello: the send fails (EPIPE),
 * the refusal is still what the caller gets. */
Test(net_hs, connect_reads_the_refusal_after_a_failed_send)
{
    int sv[2];
    struct timespec d;
    pmix_status_t st;
    pmix_data_buffer_t hello;
    const char *str = "never read";

    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    answer_into(sv[1], PX_HS_VERSION, PMIX_ERR_NO_PERMISSIONS);
    close(sv[1]);
    px_bfrops_buf_init(&hello);
    cr_assert_eq(px_bfrops_pack(&hello, &str, 1, PMIX_STRING), PMIX_SUCCESS);
    px_hs_deadline(&d, WAIT_MS);
    errno = 0;
    cr_assert_eq(px_hs_connect(sv[0], PX_HS_VERSION, PREFIX, strlen(PREFIX), &hello, &d, &st), -1);
    cr_assert_eq(errno, ECONNREFUSED);
    cr_assert_eq(st, PMIX_ERR_NO_PERMISSIONS);
    px_bfrops_buf_free(&hello);
    close(sv[0]);
}

Test(net_hs, connect_rejects_malformed_or_missing_answers)
{
    int sv[2];
    struct timespec d;
    pmix_status_t st;

    /* not a handshake answer, though its status field says success */
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    answer_into(sv[1], PX_HS_VERSION + 7, PMIX_SUCCESS);
    px_hs_deadline(&d, WAIT_MS);
    errno = 0;
    cr_assert_eq(px_hs_connect(sv[0], PX_HS_VERSION, NULL, 0, NULL, &d, &st), -1);
    cr_assert_eq(errno, EPROTO);
    cr_assert_eq(st, PMIX_ERR_UNREACH);
    close(sv[0]);
    close(sv[1]);
    /* cut short */
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    raw_write(sv[1], "\1\0\0", 3);
    cr_assert_eq(shutdown(sv[1], SHUT_WR), 0); /* end of stream, our header still taken */
    errno = 0;
    cr_assert_eq(px_hs_connect(sv[0], PX_HS_VERSION, NULL, 0, NULL, &d, &st), -1);
    cr_assert_eq(errno, EPROTO);
    close(sv[0]);
    close(sv[1]);
    /* none: the deadline */
    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    px_hs_deadline(&d, 100);
    errno = 0;
    cr_assert_eq(px_hs_connect(sv[0], PX_HS_VERSION, NULL, 0, NULL, &d, &st), -1);
    cr_assert_eq(errno, ETIMEDOUT);
    close(sv[0]);
    close(sv[1]);
}

Test(net_hs, connect_refuses_an_oversized_hello_before_sending)
{
    int sv[2];
    struct timespec d;
    pmix_status_t st;
    pmix_data_buffer_t hello;
    char c;

    cr_assert_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    px_bfrops_buf_init(&hello);
    hello.bytes_used = PX_HS_HELLO_MAX - strlen(PREFIX) + 1; /* only its size is looked at */
    px_hs_deadline(&d, WAIT_MS);
    errno = 0;
    cr_assert_eq(px_hs_connect(sv[0], PX_HS_VERSION, PREFIX, strlen(PREFIX), &hello, &d, &st), -1);
    cr_assert_eq(errno, EMSGSIZE);
    cr_assert_eq(recv(sv[1], &c, 1, MSG_DONTWAIT), -1); /* nothing was sent */
    cr_assert_eq(errno, EAGAIN);
    close(sv[0]);
    close(sv[1]);
}
