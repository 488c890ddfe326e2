/* net: peer connections. All of it runs on the engine's loop thread: the libevent
 * read/write callbacks, the user callbacks they invoke, and the px_peer_* calls.
 */
#include <errno.h>
#include <poll.h>
#include <time.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <event2/event.h>

#include "net/px_msg.h"
#include "net/px_peer.h"

#define PX_PEER_READ_CHUNK  65536
#define PX_PEER_UNIX_SNDBUF (4 * 1024 * 1024)
/* A pending body at least this long is received directly into the message's buffer. */
#define PX_PEER_DIRECT_MIN 16384

/* One queued message: bytes[0, head) (the header and the payload's head), then ext (a
 * borrowed segment, released once written or dropped), then bytes[head, size - ext_size)
 * (the payload's tail). A message without ext is all in bytes[]. */
typedef struct px_out {
    struct px_out *next;
    size_t size, done; /* the whole message; bytes written so far */
    size_t head;
    const uint8_t *ext; /* borrowed until release(arg) */
    size_t ext_size;
    void (*release)(void *arg);
    void *arg;
    uint8_t bytes[];
} px_out_t;

typedef struct px_req {
    struct px_req *next;
    uint32_t seq;
    px_peer_reply_fn cb;
    void *cbdata; /* borrowed */
} px_req_t;

struct px_peer {
    int fd;                /* owned; -1 once lost */
    struct event *rd, *wr; /* owned */
    px_peer_recv_fn recv_cb;
    px_peer_lost_fn lost_cb;
    void *cbdata; /* borrowed */
    px_msg_reader_t reader;
    px_out_t *out_head, *out_tail; /* owned */
    size_t queued;
    px_req_t *reqs; /* owned */
    size_t nreqs;
    uint32_t next_seq;
    int busy;    /* nesting depth of user callbacks */
    bool doomed; /* destroy requested inside a callback */
};

static void px_out_free(px_out_t *o)
{
    if (o->release != NULL) {
        o->release(o->arg);
    }
    free(o);
}

/* Drop everything queued (each ext segment is released). */
static void px_peer_drop_queue(px_peer_t *peer)
{
    px_out_t *o = peer->out_head;

    peer->out_head = peer->out_tail = NULL;
    peer->queued = 0;
    while (o != NULL) {
        px_out_t *next = o->next;

        px_out_free(o);
        o = next;
    }
}

/* Write what is left of o with one sendmsg (up to three segments). */
static ssize_t px_out_send(int fd, const px_out_t *o)
{
    struct iovec iov[3];
    int n = 0;
    size_t at = o->done;
    size_t tail = o->size - o->head - o->ext_size;

    if (at < o->head) {
        iov[n++] = (struct iovec){(void *)(o->bytes + at), o->head - at};
        at = o->head;
    }
    if (o->ext_size > 0 && at < o->head + o->ext_size) {
        iov[n++] = (struct iovec){(void *)(o->ext + (at - o->head)), o->head + o->ext_size - at};
        at = o->head + o->ext_size;
    }
    if (tail > 0) {
        size_t t0 = at - o->head - o->ext_size; /* tail bytes already written */
        iov[n++] = (struct iovec){(void *)(o->bytes + o->head + t0), tail - t0};
    }
    struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)n};
    return sendmsg(fd, &mh, MSG_NOSIGNAL);
}

static void px_peer_free(px_peer_t *peer)
{
    px_peer_drop_queue(peer);
    px_msg_reader_reset(&peer->reader);
    free(peer);
}

/* Leave the callback section; true when the peer was freed meanwhile. */
static bool px_peer_leave(px_peer_t *peer)
{
    if (--peer->busy == 0 && peer->doomed) {
        px_peer_free(peer);
        return true;
    }
    return false;
}

/* Close the socket and complete every pending request with an error. */
static void px_peer_shutdown(px_peer_t *peer)
{
    px_req_t *r;

    if (peer->fd >= 0) {
        event_free(peer->rd);
        event_free(peer->wr);
        peer->rd = peer->wr = NULL;
        close(peer->fd);
        peer->fd = -1;
    }
    px_peer_drop_queue(peer); /* nothing can be written any more */
    while ((r = peer->reqs) != NULL) {
        peer->reqs = r->next;
        peer->nreqs--;
        r->cb(peer, PMIX_ERR_LOST_CONNECTION, NULL, r->cbdata);
        free(r);
    }
}

/* Returns true when the peer was freed. */
static bool px_peer_lost(px_peer_t *peer, int err)
{
    peer->busy++;
    px_peer_shutdown(peer);
    if (!peer->doomed && peer->lost_cb != NULL) {
        peer->lost_cb(peer, err, peer->cbdata);
    }
    return px_peer_leave(peer);
}

/* Returns true when the peer was freed or lost. */
static bool px_peer_dispatch(px_peer_t *peer, px_msg_t *m)
{
    bool gone;

    if (m->hdr.flags & PX_MSG_FLAG_REPLY) {
        px_req_t **pp = &peer->reqs, *r;

        while ((r = *pp) != NULL && r->seq != m->hdr.seq) {
            pp = &r->next;
        }
        if (r == NULL) {
            px_msg_free(m);
            px_peer_lost(peer, EPROTO);
            return true;
        }
        *pp = r->next;
        peer->nreqs--;
        peer->busy++;
        r->cb(peer, PMIX_SUCCESS, &m->payload, r->cbdata);
        free(r);
    } else {
        peer->busy++;
        if (peer->recv_cb != NULL) {
            peer->recv_cb(peer, m->hdr.tag, m->hdr.seq, &m->payload, peer->cbdata);
        }
    }
    px_msg_free(m);
    gone = peer->doomed || peer->fd < 0;
    return px_peer_leave(peer) || gone;
}

static void px_peer_on_read(evutil_socket_t fd, short what, void *arg)
{
    px_peer_t *peer = arg;
    uint8_t chunk[PX_PEER_READ_CHUNK];
    size_t room;
    uint8_t *body = px_msg_reader_room(&peer->reader, &room);
    ssize_t n;
    size_t off = 0;

    if (body != NULL && room >= PX_PEER_DIRECT_MIN) {
        /* the rest of a large message: straight into its buffer */
        n = recv(fd, body, room, 0);
        if (n > 0) {
            px_msg_t *m;

            px_msg_reader_filled(&peer->reader, (size_t)n, &m);
            if (m != NULL) {
                px_peer_dispatch(peer, m);
            }
            return;
        }
    } else {
        n = recv(fd, chunk, sizeof(chunk), 0);
    }

    if (n == 0) {
        px_peer_lost(peer, 0);
        return;
    }
    if (n < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            px_peer_lost(peer, errno);
        }
        return;
    }
    while (off < (size_t)n) {
        px_msg_t *m;
        ssize_t used = px_msg_reader_feed(&peer->reader, chunk + off, (size_t)n - off, &m);

        if (used < 0) {
            px_peer_lost(peer, errno);
            return;
        }
        off += (size_t)used;
        if (m != NULL && px_peer_dispatch(peer, m)) {
            return;
        }
    }
}

static void px_peer_on_write(evutil_socket_t fd, short what, void *arg)
{
    px_peer_t *peer = arg;

    while (peer->out_head != NULL) {
        px_out_t *o = peer->out_head;
        ssize_t n = px_out_send(fd, o);

        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
                return;
            }
            px_peer_lost(peer, errno);
            return;
        }
        o->done += (size_t)n;
        peer->queued -= (size_t)n;
        if (o->done < o->size) {
            continue;
        }
        peer->out_head = o->next;
        if (peer->out_head == NULL) {
            peer->out_tail = NULL;
        }
        px_out_free(o);
    }
    event_del(peer->wr);
}

px_peer_t *px_peer_create(px_progress_t *p, int fd, px_peer_recv_fn recv_cb,
                          px_peer_lost_fn lost_cb, void *cbdata)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    px_peer_t *peer = NULL;
    int flags = fcntl(fd, F_GETFL);

    if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
        goto error;
    }
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) != 0) {
        ss.ss_family = AF_UNSPEC;
    }
    if (ss.ss_family == AF_INET || ss.ss_family == AF_INET6) {
        int one = 1;

        if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0) {
            goto error;
        }
    } else if (ss.ss_family == AF_UNIX) {
        /* A local stream socket holds only sndbuf bytes in flight (default ~200 KiB):
         * bulk output (1 MiB pieces) then crosses in many wake-ups of both ends. Ask for
         * more; the kernel caps it at net.core.wmem_max. Best effort. */
        int sz = PX_PEER_UNIX_SNDBUF;

        (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
    }
    peer = calloc(1, sizeof(*peer));
    if (peer == NULL) {
        goto error;
    }
    peer->fd = fd;
    peer->recv_cb = recv_cb;
    peer->lost_cb = lost_cb;
    peer->cbdata = cbdata;
    peer->next_seq = 1;
    peer->rd = event_new(px_progress_base(p), fd, EV_READ | EV_PERSIST, px_peer_on_read, peer);
    peer->wr = event_new(px_progress_base(p), fd, EV_WRITE | EV_PERSIST, px_peer_on_write, peer);
    if (peer->rd == NULL || peer->wr == NULL || event_add(peer->rd, NULL) != 0) {
        errno = ENOMEM;
        goto error;
    }
    return peer;

error : {
    int saved = errno;

    if (peer != NULL) {
        if (peer->rd != NULL) {
            event_free(peer->rd);
        }
        if (peer->wr != NULL) {
            event_free(peer->wr);
        }
        free(peer);
    }
    close(fd);
    errno = saved;
}
    return NULL;
}

void px_peer_destroy(px_peer_t *peer)
{
    if (peer == NULL || peer->doomed) {
        return;
    }
    peer->doomed = true;
    peer->busy++;
    px_peer_shutdown(peer);
    px_peer_leave(peer);
}

/* Queue one message: header, head (copied), ext (borrowed until release), tail (copied).
 * An empty queue is written to at once, as far as the socket takes it; an error there is
 * left for the write event to report (no lost callback from inside a send call). On -1
 * release is not called. */
static int px_peer_enqueue(px_peer_t *peer, uint32_t tag, uint32_t seq, uint32_t flags,
                           const pmix_data_buffer_t *head, const void *ext, size_t ext_size,
                           const pmix_data_buffer_t *tail, void (*release)(void *), void *arg)
{
    size_t hlen = head != NULL ? head->bytes_used : 0;
    size_t tlen = tail != NULL ? tail->bytes_used : 0;
    size_t len = hlen + ext_size + tlen;
    px_msg_hdr_t hdr = {.tag = tag, .seq = seq, .flags = flags};
    px_out_t *o;

    if (peer->fd < 0 || peer->doomed) {
        errno = ENOTCONN;
        return -1;
    }
    if (len > PX_MSG_MAX_PAYLOAD) {
        errno = EMSGSIZE;
        return -1;
    }
    o = malloc(sizeof(*o) + PX_MSG_HDR_SIZE + hlen + tlen);
    if (o == NULL) {
        return -1;
    }
    hdr.len = (uint32_t)len;
    px_msg_hdr_encode(&hdr, o->bytes);
    if (hlen > 0) {
        memcpy(o->bytes + PX_MSG_HDR_SIZE, head->base_ptr, hlen);
    }
    if (tlen > 0) {
        memcpy(o->bytes + PX_MSG_HDR_SIZE + hlen, tail->base_ptr, tlen);
    }
    o->size = PX_MSG_HDR_SIZE + len;
    o->head = PX_MSG_HDR_SIZE + hlen;
    o->ext = ext;
    o->ext_size = ext_size;
    o->release = NULL; /* set once queued: a failure below must not release */
    o->arg = arg;
    o->done = 0;
    o->next = NULL;
    if (peer->out_head == NULL) {
        ssize_t n = px_out_send(peer->fd, o);

        if (n == (ssize_t)o->size) {
            free(o);
            if (release != NULL) {
                release(arg);
            }
            return 0;
        }
        if (n > 0) {
            o->done = (size_t)n;
        }
        if (event_add(peer->wr, NULL) != 0) {
            free(o);
            errno = ENOMEM;
            return -1;
        }
    }
    o->release = release;
    if (peer->out_tail != NULL) {
        peer->out_tail->next = o;
    } else {
        peer->out_head = o;
    }
    peer->out_tail = o;
    peer->queued += o->size - o->done;
    return 0;
}

int px_peer_send(px_peer_t *peer, uint32_t tag, const pmix_data_buffer_t *buf)
{
    return px_peer_enqueue(peer, tag, 0, 0, buf, NULL, 0, NULL, NULL, NULL);
}

int px_peer_send_ext(px_peer_t *peer, uint32_t tag, const pmix_data_buffer_t *head, const void *ext,
                     size_t ext_size, const pmix_data_buffer_t *tail, void (*release)(void *arg),
                     void *arg)
{
    if (ext_size > 0 && ext == NULL) {
        errno = EINVAL;
        return -1;
    }
    return px_peer_enqueue(peer, tag, 0, 0, head, ext, ext_size, tail, release, arg);
}

int px_peer_send_request(px_peer_t *peer, uint32_t tag, const pmix_data_buffer_t *buf,
                         px_peer_reply_fn reply_cb, void *cbdata)
{
    px_req_t *r = malloc(sizeof(*r));
    uint32_t seq = peer->next_seq++;

    if (r == NULL) {
        return -1;
    }
    if (peer->next_seq == 0) {
        peer->next_seq = 1;
    }
    if (px_peer_enqueue(peer, tag, seq, 0, buf, NULL, 0, NULL, NULL, NULL) != 0) {
        free(r);
        return -1;
    }
    r->seq = seq;
    r->cb = reply_cb;
    r->cbdata = cbdata;
    r->next = peer->reqs;
    peer->reqs = r;
    peer->nreqs++;
    return 0;
}

int px_peer_send_reply(px_peer_t *peer, uint32_t seq, uint32_t tag, const pmix_data_buffer_t *buf)
{
    return px_peer_enqueue(peer, tag, seq, PX_MSG_FLAG_REPLY, buf, NULL, 0, NULL, NULL, NULL);
}

int px_peer_flush(px_peer_t *peer, double deadline_ms)
{
    while (peer->fd >= 0 && peer->out_head != NULL) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        double left = deadline_ms - ((double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6);
        struct pollfd pfd = {peer->fd, POLLOUT, 0};
        if (left <= 0 || poll(&pfd, 1, (int)left + 1) <= 0) {
            return -1;
        }
        /* no lost callback from here: the caller is about to destroy the peer anyway */
        px_out_t *o = peer->out_head;
        ssize_t n = px_out_send(peer->fd, o);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            return -1;
        }
        if (n > 0) {
            o->done += (size_t)n;
            peer->queued -= (size_t)n;
        }
        if (o->done == o->size) {
            peer->out_head = o->next;
            if (peer->out_head == NULL) {
                peer->out_tail = NULL;
            }
            px_out_free(o);
        }
    }
    return peer->out_head == NULL ? 0 : -1;
}

/* The queued message whose release argument is arg, and the one before it. */
static px_out_t *px_peer_find_arg(px_peer_t *peer, const void *arg, px_out_t **prev)
{
    *prev = NULL;
    for (px_out_t *o = peer->out_head; o != NULL; *prev = o, o = o->next) {
        if (o->release != NULL && o->arg == arg) {
            return o;
        }
    }
    return NULL;
}

int px_peer_ext_move(px_peer_t *peer, const void *arg, const void *ext)
{
    px_out_t *prev;
    px_out_t *o = px_peer_find_arg(peer, arg, &prev);
    if (o == NULL) {
        return -1;
    }
    o->ext = ext;
    return 0;
}

int px_peer_drop_unsent(px_peer_t *peer, const void *arg)
{
    px_out_t *prev;
    px_out_t *o = px_peer_find_arg(peer, arg, &prev);
    if (o == NULL || o->done > 0) {
        return -1;
    }
    if (prev != NULL) {
        prev->next = o->next;
    } else {
        peer->out_head = o->next;
    }
    if (peer->out_tail == o) {
        peer->out_tail = prev;
    }
    peer->queued -= o->size;
    px_out_free(o); /* releases arg */
    return 0;
}

size_t px_peer_queued_bytes(const px_peer_t *peer)
{
    return peer->queued;
}

size_t px_peer_pending_requests(const px_peer_t *peer)
{
    return peer->nreqs;
}

int px_peer_fd(const px_peer_t *peer)
{
    return peer->fd;
}
