/* Unit tests of libpmix-core/net/px_tcp: the secret, the loopback listener, the
 * handshake (accepted, refused without / with a wrong secret before the hello is read,
 * oversized, silent peers timed out) and the connector's timeout. The listener runs on
 * an engine thread; every wait is bounded.
 */
#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bfrops/px_bfrops.h"
#include "net/px_progress.h"
#include "net/px_tcp.h"
#include "net/px_usock.h"

#include "net_test.h"

typedef struct tl {
    px_progress_t *p;
    px_tcp_listener_t *l;
    char secret[PX_TCP_SECRET_HEX + 1];
    bool remote;
    int naccept;
    int fd;
    char hello[32];
    pmix_status_t answer;
    int hs_ms;
    size_t pending;
} tl_t;

static pmix_status_t on_accept(px_tcp_listener_t *l, int fd, pmix_data_buffer_t *hello,
                               void *cbdata)
{
    (void)l;
    tl_t *s = cbdata;
    char *str = NULL;
    int32_t n = 1;

    s->naccept++;
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
    tl_t *s = arg;
    s->l = px_tcp_listen(s->p, s->remote, s->secret, on_accept, s);
    if (s->l != NULL && s->hs_ms > 0) {
        px_tcp_listener_set_hs_timeout(s->l, s->hs_ms);
    }
}

static void do_unlisten(void *arg)
{
    tl_t *s = arg;
    px_tcp_listener_destroy(s->l);
    s->l = NULL;
}

static void do_pending(void *arg)
{
    tl_t *s = arg;
    s->pending = px_tcp_listener_pending(s->l);
}

static void tl_setup(tl_t *s, bool remote, int hs_ms)
{
    memset(s, 0, sizeof(*s));
    s->fd = -1;
    s->remote = remote;
    s->hs_ms = hs_ms;
    cr_assert_eq(px_tcp_secret_new(s->secret), 0);
    s->p = px_progress_create(NULL);
    cr_assert_not_null(s->p);
    cr_assert_eq(px_progress_start(s->p), 0);
    on_loop(s->p, do_listen, s);
    cr_assert_not_null(s->l, "listen: %s", strerror(errno));
}

static void tl_fini(tl_t *s)
{
    on_loop(s->p, do_unlisten, s);
    px_progress_destroy(s->p);
}

static int connect_hello(tl_t *s, const char *secret, const char *str, pmix_status_t *st)
{
    pmix_data_buffer_t hello;
    px_bfrops_buf_init(&hello);
    cr_assert_eq(px_bfrops_pack(&hello, &str, 1, PMIX_STRING), PMIX_SUCCESS);
    int fd = px_tcp_connect(px_tcp_listener_addr(s->l), px_tcp_listener_port(s->l), secret, &hello,
                            WAIT_MS, st);
    px_bfrops_buf_free(&hello);
    return fd;
}

Test(net_tcp, secret_is_128_bit_hex_and_fresh)
{
    char a[PX_TCP_SECRET_HEX + 1], b[PX_TCP_SECRET_HEX + 1];
    cr_assert_eq(px_tcp_secret_new(a), 0);
    cr_assert_eq(px_tcp_secret_new(b), 0);
    cr_assert_eq(strlen(a), 32);
    cr_assert_eq(strspn(a, "0123456789abcdef"), 32);
    cr_assert_str_neq(a, b);
}

Test(net_tcp, loopback_handshake_accepted_nodelay)
{
    int fds0 = count_fds();
    tl_t s;
    pmix_status_t st;
    int one = 0;
    socklen_t len = sizeof(one);

    tl_setup(&s, false, 0);
    cr_assert_str_eq(px_tcp_listener_addr(s.l), "127.0.0.1");
    cr_assert_gt(px_tcp_listener_port(s.l), 0);
    int fd = connect_hello(&s, s.secret, "tool hello", &st);
    cr_assert_geq(fd, 0, "connect: %s", strerror(errno));
    cr_assert_eq(st, PMIX_SUCCESS);
    cr_assert_eq(getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, &len), 0);
    cr_assert_neq(one, 0);
    on_loop(s.p, do_pending, &s);
    cr_assert_eq(s.naccept, 1);
    cr_assert_str_eq(s.hello, "tool hello");
    cr_assert_geq(s.fd, 0);
    one = 0;
    cr_assert_eq(getsockopt(s.fd, IPPROTO_TCP, TCP_NODELAY, &one, &len), 0);
    cr_assert_neq(one, 0);
    cr_assert_eq(write(fd, "x", 1), 1);
    char c = 0;
    cr_assert_eq(read(s.fd, &c, 1), 1);
    cr_assert_eq(c, 'x');
    close(s.fd);
    close(fd);
    tl_fini(&s);
    cr_assert_eq(count_fds(), fds0);
}

Test(net_tcp, remote_listener_names_a_non_loopback_address)
{
    tl_t s;
    pmix_status_t st;
    struct in_addr a;

    tl_setup(&s, true, 0);
    cr_assert_eq(inet_pton(AF_INET, px_tcp_listener_addr(s.l), &a), 1);
    /* reachable on loopback too: it listens on every interface */
    int fd = px_tcp_connect("127.0.0.1", px_tcp_listener_port(s.l), s.secret, NULL, WAIT_MS, &st);
    cr_assert_geq(fd, 0, "connect: %s", strerror(errno));
    on_loop(s.p, do_pending, &s);
    close(s.fd);
    close(fd);
    tl_fini(&s);
}

Test(net_tcp, missing_or_wrong_secret_refused_before_hello)
{
    int fds0 = count_fds();
    tl_t s;
    pmix_status_t st;
    char wrong[PX_TCP_SECRET_HEX + 1];

    tl_setup(&s, false, 0);
    errno = 0;
    cr_assert_eq(connect_hello(&s, NULL, "no secret", &st), -1);
    cr_assert_eq(errno, ECONNREFUSED);
    cr_assert_eq(st, PMIX_ERR_NO_PERMISSIONS);
    strcpy(wrong, s.secret);
    wrong[31] = wrong[31] == '0' ? '1' : '0';
    cr_assert_eq(connect_hello(&s, wrong, "wrong secret", &st), -1);
    cr_assert_eq(errno, ECONNREFUSED);
    cr_assert_eq(st, PMIX_ERR_NO_PERMISSIONS);
    cr_assert_eq(connect_hello(&s, "abc", "short secret", &st), -1);
    cr_assert_eq(st, PMIX_ERR_NO_PERMISSIONS);
    on_loop(s.p, do_pending, &s);
    cr_assert_eq(s.naccept, 0);
    cr_assert_eq(s.pending, 0);
    tl_fini(&s);
    cr_assert_eq(count_fds(), fds0);
}

/* Raw: a header announcing more than the bound is refused at once. */
Test(net_tcp, oversized_hello_refused)
{
    tl_t s;
    struct sockaddr_in sa = {.sin_family = AF_INET};
    uint8_t head[8] = {PX_HS_VERSION, 0, 0, 0}, ans[8];
    uint32_t be = htonl(PX_HS_HELLO_MAX + PX_TCP_SECRET_HEX + 1);
    int32_t st;

    tl_setup(&s, false, 0);
    sa.sin_port = htons(px_tcp_listener_port(s.l));
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    memcpy(head + 4, &be, 4);
    cr_assert_eq(write(fd, head, 8), 8);
    cr_assert_eq(read(fd, ans, 8), 8);
    memcpy(&be, ans + 4, 4);
    st = (int32_t)ntohl(be);
    cr_assert_eq(st, PMIX_ERR_BAD_PARAM);
    cr_assert_eq(read(fd, ans, 1), 0); /* closed */
    close(fd);
    on_loop(s.p, do_pending, &s);
    cr_assert_eq(s.naccept, 0);
    tl_fini(&s);
}

Test(net_tcp, silent_peer_dropped_after_timeout)
{
    tl_t s;
    struct sockaddr_in sa = {.sin_family = AF_INET};
    char c;

    tl_setup(&s, false, 300);
    sa.sin_port = htons(px_tcp_listener_port(s.l));
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    cr_assert_eq(write(fd, "\1\0", 2), 2); /* a partial header, then silence */
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    cr_assert_eq(poll(&pfd, 1, WAIT_MS), 1);
    cr_assert_eq(read(fd, &c, 1), 0); /* the listener hung up */
    on_loop(s.p, do_pending, &s);
    cr_assert_eq(s.pending, 0);
    close(fd);
    tl_fini(&s);
}

Test(net_tcp, connector_times_out_on_silent_listener)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t len = sizeof(sa);
    pmix_status_t st;

    /* a listening socket nobody accepts from: the handshake answer never comes */
    int l = socket(AF_INET, SOCK_STREAM, 0);
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    cr_assert_eq(bind(l, (struct sockaddr *)&sa, sizeof(sa)), 0);
    cr_assert_eq(listen(l, 4), 0);
    cr_assert_eq(getsockname(l, (struct sockaddr *)&sa, &len), 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    errno = 0;
    cr_assert_eq(px_tcp_connect("127.0.0.1", ntohs(sa.sin_port), "0123456789abcdef0123456789abcdef",
                                NULL, 200, &st),
                 -1);
    cr_assert_eq(errno, ETIMEDOUT);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    cr_assert_lt(t1.tv_sec - t0.tv_sec, 5);
    close(l);
}

Test(net_tcp, connect_bad_arguments)
{
    pmix_status_t st;
    errno = 0;
    cr_assert_eq(px_tcp_connect("not-an-address", 1234, NULL, NULL, 100, &st), -1);
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(px_tcp_connect("127.0.0.1", 0, NULL, NULL, 100, &st), -1);
    cr_assert_eq(errno, EINVAL);
}
