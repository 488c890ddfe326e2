/* libFuzzer target: arbitrary bytes as what a process writes on its PMI_FD. First the
 * codec alone (libpmix-core/pmi): the bytes framed and parsed as PMI-1 and as PMI-2, each
 * message parsed formatted back and parsed again (the same command and tokens). Then the
 * server (libpmix-core/server/server_pmi*.c): one server (fuzz_host.c) runs for the whole
 * process on our own event base, with namespace "fz" of two ranks; per input rank 0 is
 * registered,
 * one end of a socketpair attached as its PMI connection, the bytes written and the end
 * half-closed, and the loop runs until the server has closed its end; then rank 0 is
 * deregistered. Any crash, sanitizer report, leak or allocation beyond -malloc_limit_mb
 * is a bug. The host module is empty: upcalls are refused, as by a host without them. */
#include <errno.h>
#include <event2/event.h>
#include <event2/thread.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pmix_server.h>

#include "pmi/px_pmi_wire.h"
#include "server/px_srv_pmi.h"

#include "fuzz_host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every message of data on wire: parsed, formatted back, parsed again, compared. */
static void codec(px_pmi_wire_t wire, const uint8_t *data, size_t size)
{
    const char *p = (const char *)data;
    size_t left = size;
    for (;;) {
        ssize_t n = px_pmi_frame(wire, p, left);
        if (n <= 0)
            return;
        px_pmi_msg_t m, again;
        const char *why = NULL;
        if (px_pmi_parse(wire, p, (size_t)n, &m, &why) == 0) {
            px_pmi_out_t o;
            px_pmi_out_start(&o, wire, m.cmd);
            for (size_t i = 0; i < m.npairs; i++)
                px_pmi_out_add(&o, m.pairs[i].key, m.pairs[i].val ? m.pairs[i].val : "");
            char *buf = NULL;
            size_t len = 0;
            /* an mcmd value may hold a space, which a PMI-1 line cannot carry */
            if (px_pmi_out_finish(&o, &buf, &len) == 0) {
                if (px_pmi_frame(wire, buf, len) != (ssize_t)len ||
                    px_pmi_parse(wire, buf, len, &again, &why) != 0 ||
                    strcmp(again.cmd, m.cmd) != 0 || again.npairs != m.npairs)
                    abort();
                for (size_t i = 0; i < m.npairs; i++)
                    if (strcmp(again.pairs[i].key, m.pairs[i].key) != 0 ||
                        strcmp(again.pairs[i].val, m.pairs[i].val ? m.pairs[i].val : "") != 0)
                        abort();
                px_pmi_msg_fini(&again);
                free(buf);
            }
            px_pmi_msg_fini(&m);
        }
        p += n;
        left -= (size_t)n;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int started;
    if (!started) {
        start_server();
        started = 1;
    }
    codec(PX_PMI_WIRE1, data, size);
    codec(PX_PMI_WIRE2, data, size);

    pmix_status_t done = PMIX_ERR_TIMEOUT;
    if (PMIx_server_register_client(&rank0, getuid(), getgid(), NULL, op_done, &done) !=
        PMIX_SUCCESS)
        abort();
    run_until(&done);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        abort();
    int bufsz = 1 << 20;
    setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &bufsz, sizeof(bufsz));
    if (px_srv_pmi_attach(sv[0], &rank0, getpid()) != 0)
        abort();
    for (size_t off = 0; off < size;) {
        ssize_t n = write(sv[1], data + off, size - off);
        if (n <= 0)
            abort(); /* inputs are far below the socket buffer */
        off += (size_t)n;
    }
    shutdown(sv[1], SHUT_WR);
    fcntl(sv[1], F_SETFL, O_NONBLOCK);
    /* until the server closed its end (answers are read and dropped) */
    for (;;) {
        char junk[4096];
        ssize_t n = read(sv[1], junk, sizeof(junk));
        if (n == 0)
            break;
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            break;
        if (n < 0)
            event_base_loop(base, EVLOOP_ONCE);
    }
    close(sv[1]);
    done = PMIX_ERR_TIMEOUT;
    PMIx_server_deregister_client(&rank0, op_done, &done);
    run_until(&done);
    return 0;
}
