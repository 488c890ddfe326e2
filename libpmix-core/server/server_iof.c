/* server: IO forwarding — which connected clients and tools are sinks of which
 * processes' output (IOF_PULL, DEREG, a spawn's PMIX_FWD_* flags), the host's
 * PMIx_server_IOF_deliver fanning output out to them (IOF_DATA, sent from the host's
 * buffer; the host's callback runs once every copy is written, which is what lets a
 * host pace its reading of the output), and stdin a tool pushes
 * (IOF_PUSH -> the host's push_stdin). Handlers and deliveries run on the loop with
 * px_srv->lock held; PMIx_server_IOF_deliver is called on any host thread and shifted
 * there, in call order, like PMIx_Notify_event and the host's spawn callbacks, so a
 * spawn reply, the job's output and a later event reach a tool in the order the host
 * made the calls.
 *
 * Redirect and copy. The requester of a spawn with PMIX_FWD_* is the output's default
 * destination; a pull with PMIX_IOF_REDIRECT (the default) takes the output from default
 * destinations while it lasts (deregistration or the tool's end gives it back), one with
 * PMIX_IOF_COPY only taps it. A pull is checked by the host's iof_pull when it has one,
 * and only then gets its sinks, after the output kept for late pulls: the last
 * PX_IOF_JOB_CACHE bytes (the spawn's PMIX_IOF_CACHE_SIZE) of each channel of each
 * namespace, until the namespace is deregistered.
 *
 * A sink that lags. Output is sent from the host's buffer and the host waits until every
 * sink wrote it: one slow sink slows the source (backpressure, as `cmd | cat`). That is
 * right while all sinks are slow, never when one stops reading and others keep up. So a
 * connection holds at most PX_IOF_HOLD bytes of the host's buffers while another sink of
 * the same output keeps up: past that it lags, its pieces in the host's buffers are
 * copied and given back to the host, and later pieces are copies, up to its cap
 * (PMIX_IOF_CACHE_SIZE, default PX_IOF_CAP); past the cap it is behind: pieces are dropped
 * per its policy (PMIX_IOF_DROP_NEWEST: the new one, the default; PMIX_IOF_DROP_OLDEST:
 * its oldest unwritten ones) and it gets one PMIX_ERR_IOF_FAILURE (naming the source and
 * channel); a sink behind takes only copies (never holding the host again) until it has
 * caught up to half its cap, and is told again only after that. It also lags when a sink that
 * shared a piece with it has written everything while it holds more than PX_IOF_HOLD (the
 * host may have stopped reading the source, so no new piece would tell). A sink alone on
 * its output never lags: backpressure, nothing lost.
 */
#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "help/px_help.h"
#include "server/px_server.h"
#include "server/px_srv_host.h"
#include "types/px_types.h"

/* The output channels a sink can ask for. */
#define PX_IOF_OUT_CHANNELS                                                                        \
    (PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL | PMIX_FWD_STDDIAG_CHANNEL)
/* One IOF_DATA message carries at most this much (far below px_msg's 64 MiB limit);
 * a larger delivery goes out as several messages, the info with the last one. */
#define PX_IOF_MAX_CHUNK (16u * 1024 * 1024)
/* Bytes of the host's buffers a connection may hold while another sink keeps up (below
 * what our DVM lets a process have in the library before it stops reading it: 4 MiB). */
#define PX_IOF_HOLD (1024u * 1024)
/* Default bytes kept for a lagging sink (PMIX_IOF_CACHE_SIZE of its pull). */
#define PX_IOF_CAP (4u * 1024 * 1024)
/* Default bytes of each channel of a namespace kept for late pulls (PMIX_IOF_CACHE_SIZE
 * of its spawn). */
#define PX_IOF_JOB_CACHE (256u * 1024)

/* c wants channels of proc (rank may be the wildcard). */
typedef struct px_iof_sink {
    px_srv_client_t *c; /* counted */
    pmix_proc_t proc;
    pmix_iof_channel_t channels;
    px_srv_iof_opts_t opts;
    struct px_iof_sink *next;
} px_iof_sink_t;

/* A job whose output goes where its parent job's goes (px_srv_iof_inherit). */
typedef struct px_iof_link {
    pmix_nspace_t from, to;
    struct px_iof_link *next;
} px_iof_link_t;
/* One IOF_DATA message queued to a connection (release argument of px_peer_send_ext). */
typedef struct px_iof_send {
    struct px_iof_send *prev, *next; /* the connection's list, oldest first */
    px_srv_client_t *c;              /* counted */
    struct iof_deliver *d;           /* while its bytes are the host's (d's reference), or NULL */
    const char *bytes;               /* the host's, borrowed while d is set */
    char *own;                       /* owned: the copy sent instead */
    size_t size;
} px_iof_send_t;

/* The output of a namespace kept for late pulls: its last pieces in arrival order, at
 * most cap bytes per channel (a pull replays what it asks for before live output). */
typedef struct px_iof_piece {
    struct px_iof_piece *next;
    pmix_rank_t rank;
    pmix_iof_channel_t channel;
    size_t size;
    char data[];
} px_iof_piece_t;

typedef struct px_iof_cache {
    struct px_iof_cache *next;
    pmix_nspace_t nspace;
    size_t cap;
    size_t bytes[3]; /* per channel: stdout, stderr, stddiag */
    px_iof_piece_t *head, *tail;
} px_iof_cache_t;

static struct {
    px_iof_sink_t *sinks; /* every sink of every connection; newest first */
    uint64_t mark;        /* deliveries so far: one copy per connection per delivery */
    px_iof_link_t *links; /* owned: until either namespace is deregistered */
    px_iof_cache_t *caches;
} iof;

pmix_status_t px_srv_iof_opts(const pmix_info_t *info, size_t ninfo, px_srv_iof_opts_t *o)
{
    *o = (px_srv_iof_opts_t){PX_IOF_CAP, false, false, false};
    bool oldest = false, newest = false, redirect = false;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_IOF_CACHE_SIZE)) {
            uint32_t n = 0;
            if (PMIx_Value_get_number(&info[i].value, &n, PMIX_UINT32) != PMIX_SUCCESS || n == 0) {
                return PMIX_ERR_BAD_PARAM;
            }
            o->cap = n;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_IOF_DROP_OLDEST)) {
            oldest = PMIX_INFO_TRUE(&info[i]);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_IOF_DROP_NEWEST)) {
            newest = PMIX_INFO_TRUE(&info[i]);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_IOF_COPY)) {
            o->copy = PMIX_INFO_TRUE(&info[i]);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_IOF_REDIRECT)) {
            redirect = PMIX_INFO_TRUE(&info[i]);
        }
    }
    if ((oldest && newest) || (o->copy && redirect)) {
        return PMIX_ERR_BAD_PARAM;
    }
    o->drop_oldest = oldest;
    return PMIX_SUCCESS;
}

pmix_status_t px_srv_iof_add_sink(px_srv_client_t *c, const pmix_proc_t *proc,
                                  pmix_iof_channel_t channels, const px_srv_iof_opts_t *o)
{
    /* a sink of a parent job is one of the children it has already: a job may spawn
     * before its requester became a sink of it (prun's sink comes with the spawn's
     * answer, once every process started; a rank may spawn before its siblings did) */
    for (px_iof_link_t *l = iof.links; l != NULL; l = l->next) {
        if (PMIx_Check_nspace(l->from, proc->nspace)) {
            pmix_proc_t all;
            PMIx_Load_procid(&all, l->to, PMIX_RANK_WILDCARD);
            pmix_status_t rc = px_srv_iof_add_sink(c, &all, channels, o);
            if (rc != PMIX_SUCCESS) {
                return rc;
            }
        }
    }
    px_iof_sink_t *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return PMIX_ERR_NOMEM;
    }
    s->c = c;
    px_srv_client_retain(c);
    s->proc = *proc;
    s->channels = channels;
    s->opts = o != NULL ? *o : (px_srv_iof_opts_t){PX_IOF_CAP, false, false, false};
    s->next = iof.sinks;
    iof.sinks = s;
    px_debug(2, "server", "%s:%u is a sink of %s:%u channels %s", c->proc.nspace, c->proc.rank,
             proc->nspace, proc->rank, PMIx_IOF_channel_string(channels));
    return PMIX_SUCCESS;
}

/* Remove one sink of c for exactly (proc, channels); false if none. */
static bool remove_sink(px_srv_client_t *c, const pmix_proc_t *proc, pmix_iof_channel_t channels)
{
    for (px_iof_sink_t **pp = &iof.sinks; *pp != NULL; pp = &(*pp)->next) {
        px_iof_sink_t *s = *pp;
        if (s->c == c && s->channels == channels && s->proc.rank == proc->rank &&
            PMIx_Check_nspace(s->proc.nspace, proc->nspace)) {
            *pp = s->next;
            px_srv_client_release(s->c);
            free(s);
            return true;
        }
    }
    return false;
}

void px_srv_iof_client_gone(px_srv_client_t *c)
{
    px_iof_sink_t **pp = &iof.sinks;
    while (*pp != NULL) {
        px_iof_sink_t *s = *pp;
        if (s->c == c) {
            *pp = s->next;
            px_srv_client_release(s->c);
            free(s);
        } else {
            pp = &s->next;
        }
    }
}

static void cache_free(px_iof_cache_t *k)
{
    while (k->head != NULL) {
        px_iof_piece_t *p = k->head;
        k->head = p->next;
        free(p);
    }
    free(k);
}

void px_srv_iof_fini(void)
{
    while (iof.links != NULL) {
        px_iof_link_t *l = iof.links;
        iof.links = l->next;
        free(l);
    }
    while (iof.sinks != NULL) {
        px_iof_sink_t *s = iof.sinks;
        iof.sinks = s->next;
        px_srv_client_release(s->c);
        free(s);
    }
    iof.mark = 0;
    while (iof.caches != NULL) {
        px_iof_cache_t *k = iof.caches;
        iof.caches = k->next;
        cache_free(k);
    }
}

/* ---- output kept for late pulls ---- */

static int channel_index(pmix_iof_channel_t ch)
{
    return ch & PMIX_FWD_STDOUT_CHANNEL ? 0 : ch & PMIX_FWD_STDERR_CHANNEL ? 1 : 2;
}

static px_iof_cache_t *cache_find(const char *nspace, bool add)
{
    for (px_iof_cache_t *k = iof.caches; k != NULL; k = k->next) {
        if (PMIx_Check_nspace(k->nspace, nspace)) {
            return k;
        }
    }
    px_iof_cache_t *k = add ? calloc(1, sizeof(*k)) : NULL;
    if (k != NULL) {
        PMIX_LOAD_NSPACE(k->nspace, nspace);
        k->cap = PX_IOF_JOB_CACHE;
        k->next = iof.caches;
        iof.caches = k;
    }
    return k;
}

/* Drop the oldest pieces of channel index ci until its bytes fit the cap. */
static void cache_trim(px_iof_cache_t *k, int ci)
{
    px_iof_piece_t **pp = &k->head, *prev = NULL;
    while (k->bytes[ci] > k->cap && *pp != NULL) {
        px_iof_piece_t *p = *pp;
        if (channel_index(p->channel) != ci) {
            prev = p;
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        if (k->tail == p) {
            k->tail = prev;
        }
        k->bytes[ci] -= p->size;
        free(p);
    }
}

/* Keep (the last cap bytes of) a delivered piece. Loop, lock held. */
static void cache_add(const pmix_proc_t *source, pmix_iof_channel_t channel, const char *bytes,
                      size_t size)
{
    px_iof_cache_t *k = size > 0 ? cache_find(source->nspace, true) : NULL;
    if (k == NULL) {
        return;
    }
    size_t n = size > k->cap ? k->cap : size;
    px_iof_piece_t *p = malloc(sizeof(*p) + n);
    if (p == NULL) {
        return;
    }
    *p = (px_iof_piece_t){NULL, source->rank, channel, n};
    memcpy(p->data, bytes + (size - n), n);
    if (k->tail != NULL) {
        k->tail->next = p;
    } else {
        k->head = p;
    }
    k->tail = p;
    int ci = channel_index(channel);
    k->bytes[ci] += n;
    cache_trim(k, ci);
}

typedef struct {
    pmix_nspace_t nspace;
    size_t size;
} cache_size_t;

static void cache_size_on_loop(void *arg)
{
    cache_size_t *z = arg;
    px_iof_cache_t *k = cache_find(z->nspace, true);
    if (k != NULL) {
        k->cap = z->size;
        for (int ci = 0; ci < 3; ci++) {
            cache_trim(k, ci);
        }
    }
    free(z);
}

void px_srv_iof_cache_size(const char *nspace, size_t size)
{
    cache_size_t *z = calloc(1, sizeof(*z));
    if (z == NULL) {
        return;
    }
    PMIX_LOAD_NSPACE(z->nspace, nspace);
    z->size = size;
    if (px_srv_on_loop()) {
        cache_size_on_loop(z); /* keeps its place before later output */
    } else if (px_srv_shift(cache_size_on_loop, z) != 0) {
        free(z);
    }
}

void px_srv_iof_ns_gone(const char *nspace)
{
    for (px_iof_link_t **pp = &iof.links; *pp != NULL;) {
        px_iof_link_t *l = *pp;
        if (strncmp(l->from, nspace, PMIX_MAX_NSLEN) == 0 ||
            strncmp(l->to, nspace, PMIX_MAX_NSLEN) == 0) {
            *pp = l->next;
            free(l);
        } else {
            pp = &l->next;
        }
    }
    for (px_iof_cache_t **pp = &iof.caches; *pp != NULL; pp = &(*pp)->next) {
        if (PMIx_Check_nspace((*pp)->nspace, nspace)) {
            px_iof_cache_t *k = *pp;
            *pp = k->next;
            cache_free(k);
            return;
        }
    }
}

static bool sink_matches(const px_iof_sink_t *s, const pmix_proc_t *source,
                         pmix_iof_channel_t channel);

/* Is c a sink of source's channel already (it got that output live)? */
static bool already_sink(const px_srv_client_t *c, const pmix_proc_t *source,
                         pmix_iof_channel_t channel)
{
    for (const px_iof_sink_t *s = iof.sinks; s != NULL; s = s->next) {
        if (s->c == c && sink_matches(s, source, channel)) {
            return true;
        }
    }
    return false;
}

/* Does a pull of procs[0..n) take this piece of namespace ns? */
static bool pull_takes(const pmix_proc_t *procs, size_t n, const char *ns, pmix_rank_t rank)
{
    for (size_t i = 0; i < n; i++) {
        if (PMIx_Check_nspace(procs[i].nspace, ns) && PMIx_Check_rank(procs[i].rank, rank)) {
            return true;
        }
    }
    return false;
}

/* Send c what is kept of the channels of procs[0..n) (ranks may be the wildcard) in the
 * namespace of procs[first], oldest first: a pull's first output; not what a sink c
 * already has got live (before its new sinks are added). */
static void cache_replay(px_srv_client_t *c, const pmix_proc_t *procs, size_t n, size_t first,
                         pmix_iof_channel_t channels)
{
    px_iof_cache_t *k = cache_find(procs[first].nspace, false);
    for (px_iof_piece_t *p = k != NULL ? k->head : NULL; p != NULL && c->peer != NULL;
         p = p->next) {
        if ((p->channel & channels) == 0 || !pull_takes(procs, n, k->nspace, p->rank)) {
            continue;
        }
        pmix_proc_t source;
        PMIx_Load_procid(&source, k->nspace, p->rank);
        if (already_sink(c, &source, p->channel)) {
            continue;
        }
        pmix_data_buffer_t msg;
        px_bfrops_buf_init(&msg);
        pmix_byte_object_t bo = {p->data, p->size};
        pmix_status_t rc = px_bfrops_pack(&msg, &source, 1, PMIX_PROC);
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_pack(&msg, &p->channel, 1, PMIX_IOF_CHANNEL);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_pack(&msg, &bo, 1, PMIX_BYTE_OBJECT);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_pack_info_array(&msg, NULL, 0);
        }
        if (rc != PMIX_SUCCESS || px_peer_send(c->peer, PX_TAG_IOF_DATA, &msg) != 0) {
            px_debug(1, "server", "kept output of %s:%u for %s:%u dropped", source.nspace,
                     source.rank, c->proc.nspace, c->proc.rank);
        }
        px_bfrops_buf_free(&msg);
    }
}

/* ---- a child job's output goes where its parent's goes ---- */

typedef struct {
    pmix_nspace_t from, to;
} inherit_t;

static void inherit_on_loop(void *arg)
{
    inherit_t *h = arg;
    px_iof_link_t *l = calloc(1, sizeof(*l)); /* the sinks the parent gets later */
    if (l != NULL) {
        PMIX_LOAD_NSPACE(l->from, h->from);
        PMIX_LOAD_NSPACE(l->to, h->to);
        l->next = iof.links;
        iof.links = l;
    }
    /* one sink per connection (at its newest sink of the parent): every channel it takes
     * of any of the parent's processes */
    for (px_iof_sink_t *s = iof.sinks; s != NULL; s = s->next) {
        if (!PMIx_Check_nspace(s->proc.nspace, h->from)) {
            continue;
        }
        bool seen = false;
        for (px_iof_sink_t *t = iof.sinks; t != s && !seen; t = t->next) {
            seen = t->c == s->c && PMIx_Check_nspace(t->proc.nspace, h->from);
        }
        if (seen) {
            continue;
        }
        pmix_iof_channel_t ch = 0;
        for (px_iof_sink_t *t = s; t != NULL; t = t->next) {
            if (t->c == s->c && PMIx_Check_nspace(t->proc.nspace, h->from)) {
                ch |= t->channels;
            }
        }
        pmix_proc_t all;
        PMIx_Load_procid(&all, h->to, PMIX_RANK_WILDCARD);
        px_srv_iof_add_sink(s->c, &all, ch, &s->opts);
    }
    free(h);
}

void px_srv_iof_inherit(const char *from, const char *to)
{
    inherit_t *h = calloc(1, sizeof(*h));
    if (h == NULL || px_srv == NULL) {
        free(h);
        return;
    }
    PMIX_LOAD_NSPACE(h->from, from);
    PMIX_LOAD_NSPACE(h->to, to);
    if (px_srv_shift(inherit_on_loop, h) != 0) {
        free(h);
    }
}

static bool sink_matches(const px_iof_sink_t *s, const pmix_proc_t *source,
                         pmix_iof_channel_t channel)
{
    return (s->channels & channel) != 0 &&
           (s->proc.rank == PMIX_RANK_WILDCARD || s->proc.rank == source->rank) &&
           PMIx_Check_nspace(s->proc.nspace, source->nspace);
}

/* Is a connected sink of channel of source there (only a redirecting pull's: taking)? */
static bool any_sink(const pmix_proc_t *source, pmix_iof_channel_t channel, bool taking)
{
    if (px_srv == NULL) {
        return false;
    }
    pthread_mutex_lock(&px_srv->lock);
    bool any = false;
    for (px_iof_sink_t *s = iof.sinks; s != NULL && !any; s = s->next) {
        any = s->c->peer != NULL && (!taking || (!s->opts.is_default && !s->opts.copy)) &&
              sink_matches(s, source, channel);
    }
    pthread_mutex_unlock(&px_srv->lock);
    return any;
}

bool px_srv_iof_wanted(const pmix_proc_t *source, pmix_iof_channel_t channel)
{
    return any_sink(source, channel, false);
}

bool px_srv_iof_redirected(const pmix_proc_t *source, pmix_iof_channel_t channel)
{
    return any_sink(source, channel, true);
}

/* ---- PMIx_server_IOF_deliver ---- */

typedef struct iof_deliver {
    pmix_proc_t source;
    pmix_iof_channel_t channel;
    const char *bytes; /* borrowed from the host until cbfunc, or own_bytes */
    size_t size;
    const pmix_info_t *info; /* borrowed until cbfunc, or own_info */
    size_t ninfo;
    bool host_sink;        /* PX_IOF_HOST_SINK: the host keeps up with it itself */
    char *own_bytes;       /* owned: the copy made for a NULL cbfunc */
    pmix_info_t *own_info; /* owned: idem */
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
    size_t refs; /* loop only: the delivery itself + each message still holding bytes */
} iof_deliver_t;

/* The head of one IOF_DATA message: source, channel, and the byte object's head; its
 * bytes follow straight from the host's buffer (px_peer_send_ext), then the tail: the
 * info (or none). */
static pmix_status_t pack_data(pmix_data_buffer_t *head, pmix_data_buffer_t *tail,
                               const iof_deliver_t *d, size_t size, bool with_info)
{
    pmix_status_t rc = px_bfrops_pack(head, &d->source, 1, PMIX_PROC);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(head, &d->channel, 1, PMIX_IOF_CHANNEL);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_bo_head(head, size);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(tail, with_info ? d->info : NULL, with_info ? d->ninfo : 0);
    }
    return rc;
}

/* A message holding d's bytes was written or dropped; the last one completes d: the
 * host hears of it (it may release bo and info, and read more from the source). */
static void deliver_release(void *arg)
{
    iof_deliver_t *d = arg;
    if (--d->refs > 0) {
        return;
    }
    if (d->cbfunc != NULL) {
        d->cbfunc(PMIX_SUCCESS, d->cbdata);
    }
    free(d->own_bytes);
    px_bfrops_info_array_free(d->own_info, d->own_info != NULL ? d->ninfo : 0);
    free(d);
}

/* ---- sending to the sinks, and a sink that lags ---- */

static void send_unlink(px_iof_send_t *x)
{
    px_srv_client_t *c = x->c;
    if (x->prev != NULL) {
        x->prev->next = x->next;
    } else {
        c->iof_sends = x->next;
    }
    if (x->next != NULL) {
        x->next->prev = x->prev;
    } else {
        c->iof_sends_tail = x->prev;
    }
    c->iof_queued -= x->size;
    if (x->d != NULL) {
        c->iof_held -= x->size;
    }
}

static void lag(px_srv_client_t *c);

/* Does c still hold bytes of delivery d (a send from the host's buffer)? */
static bool holds(const px_srv_client_t *c, const iof_deliver_t *d)
{
    for (const px_iof_send_t *x = c->iof_sends; x != NULL; x = x->next) {
        if (x->d == d) {
            return true;
        }
    }
    return false;
}

/* x was written or dropped (peer). */
static void send_release(void *arg)
{
    px_iof_send_t *x = arg;
    px_srv_client_t *c = x->c;
    iof_deliver_t *d = x->d;
    send_unlink(x);
    if (c->iof_behind && !c->iof_dropping && c->iof_queued <= c->iof_rearm) {
        c->iof_behind = false; /* caught up: a later overflow is told again */
    }
    if (d != NULL && c->iof_held == 0 && d->refs > 1) {
        /* c wrote all it held while others still hold this piece: those holding more
         * than PX_IOF_HOLD lag behind c (the host may have stopped reading the source) */
        for (px_iof_sink_t *s = iof.sinks; s != NULL; s = s->next) {
            if (s->c != c && s->c->iof_held > PX_IOF_HOLD && holds(s->c, d)) {
                lag(s->c);
            }
        }
    }
    if (d != NULL) {
        deliver_release(d);
    }
    free(x->own);
    px_srv_client_release(c);
    free(x);
}

/* c lags: every piece it holds in the host's buffers becomes a copy of its own, and
 * the host gets it back (no copy, out of memory: it keeps waiting for c). */
static void lag(px_srv_client_t *c)
{
    for (px_iof_send_t *x = c->iof_sends; x != NULL; x = x->next) {
        if (x->d == NULL || (x->own = malloc(x->size)) == NULL) {
            continue;
        }
        memcpy(x->own, x->bytes, x->size);
        if (c->peer == NULL || px_peer_ext_move(c->peer, x, x->own) != 0) {
            free(x->own);
            x->own = NULL;
            continue;
        }
        iof_deliver_t *d = x->d;
        x->d = NULL;
        c->iof_held -= x->size;
        deliver_release(d);
    }
}

/* Queue one message to c: from the host's buffer (bytes, d waits for it), or, copy, from
 * a copy of its own. */
static void send_piece(px_srv_client_t *c, iof_deliver_t *d, const pmix_data_buffer_t *head,
                       const pmix_data_buffer_t *tail, const char *bytes, size_t size, bool copy)
{
    px_iof_send_t *x = calloc(1, sizeof(*x));
    if (x == NULL || (copy && size > 0 && (x->own = malloc(size)) == NULL)) {
        free(x);
        px_debug(1, "server", "output of %s:%u for %s:%u dropped: out of memory", d->source.nspace,
                 d->source.rank, c->proc.nspace, c->proc.rank);
        return;
    }
    x->c = c;
    px_srv_client_retain(c);
    x->size = size;
    if (copy) {
        memcpy(x->own, bytes, size);
    } else {
        x->d = d;
        x->bytes = bytes;
        d->refs++;
        c->iof_held += size;
    }
    x->prev = c->iof_sends_tail;
    if (c->iof_sends_tail != NULL) {
        c->iof_sends_tail->next = x;
    } else {
        c->iof_sends = x;
    }
    c->iof_sends_tail = x;
    c->iof_queued += size;
    /* the release may run inside the call (written at once) */
    if (px_peer_send_ext(c->peer, PX_TAG_IOF_DATA, head, copy ? x->own : bytes, size, tail,
                         send_release, x) != 0) {
        send_unlink(x);
        if (x->d != NULL) {
            d->refs--;
        }
        free(x->own);
        px_srv_client_release(c);
        free(x);
        px_debug(1, "server", "output of %s:%u for %s:%u dropped: cannot queue it",
                 d->source.nspace, d->source.rank, c->proc.nspace, c->proc.rank);
    }
}

/* c (sink s) is past its cap: told once (PMIX_ERR_IOF_FAILURE), until it catches up. */
static void fall_behind(px_srv_client_t *c, const px_iof_sink_t *s, const iof_deliver_t *d)
{
    if (c->iof_behind) {
        return;
    }
    c->iof_behind = true;
    c->iof_rearm = s->opts.cap / 2;
    const char *ch = d->channel & PMIX_FWD_STDOUT_CHANNEL   ? "stdout"
                     : d->channel & PMIX_FWD_STDERR_CHANNEL ? "stderr"
                                                            : "stddiag";
    const char *key = d->channel & PMIX_FWD_STDOUT_CHANNEL   ? PMIX_FWD_STDOUT
                      : d->channel & PMIX_FWD_STDERR_CHANNEL ? PMIX_FWD_STDERR
                                                             : PMIX_FWD_STDDIAG;
    px_debug(1, "server", "%s:%u does not keep up with the %s of %s:%u: dropping %s output",
             c->proc.nspace, c->proc.rank, ch, d->source.nspace, d->source.rank,
             s->opts.drop_oldest ? "its oldest" : "new");
    char *msg = px_help_render("help-pmix-iof.txt", "sink-behind", ch, d->source.nspace,
                               d->source.rank, s->opts.cap,
                               s->opts.drop_oldest ? "the oldest output kept for you"
                                                   : "output that arrives until you catch up");
    bool yes = true;
    pmix_info_t info[3];
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_AFFECTED_PROC, &d->source, PMIX_PROC);
    PMIX_INFO_LOAD(&info[1], key, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[2], PMIX_EVENT_TEXT_MESSAGE, msg != NULL ? msg : "", PMIX_STRING);
    px_srv_event_emit(PMIX_ERR_IOF_FAILURE, &px_srv->myproc, &c->proc, 1, info, 3);
    for (int i = 0; i < 3; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
    free(msg);
}

/* Drop c's oldest unwritten pieces until size more bytes fit in cap (or none is left
 * that can go: a piece partly written stays). */
static void make_room(px_srv_client_t *c, size_t size, size_t cap)
{
    px_iof_send_t *x = c->iof_sends;
    c->iof_dropping = true; /* what is dropped is not caught up */
    while (x != NULL && c->iof_queued + size > cap) {
        px_iof_send_t *next = x->next;
        (void)px_peer_drop_unsent(c->peer, x); /* releases x when dropped */
        x = next;
    }
    c->iof_dropping = false;
}

/* A connection to send one message to, with the sink that matched. */
typedef struct {
    px_srv_client_t *c;
    const px_iof_sink_t *s;
} target_t;

/* Send one message to every connection with a matching sink, once each: from the host's
 * buffer, or, for a sink that lags, as a copy, or not at all once it is behind. */
static void fan_out(const pmix_data_buffer_t *head, const pmix_data_buffer_t *tail,
                    iof_deliver_t *d, const char *bytes, size_t size)
{
    uint64_t mark = ++iof.mark;
    target_t stack[8], *t = stack;
    size_t n = 0, cap = sizeof(stack) / sizeof(stack[0]), keeping = 0;
    /* a pull that redirects (PMIX_IOF_REDIRECT, the default) takes the output from its
     * default destination (the requester of the spawn) while it lasts */
    bool redirected = false;
    for (px_iof_sink_t *s = iof.sinks; s != NULL && !redirected; s = s->next) {
        redirected = !s->opts.is_default && !s->opts.copy && s->c->peer != NULL &&
                     sink_matches(s, &d->source, d->channel);
    }
    for (px_iof_sink_t *s = iof.sinks; s != NULL; s = s->next) {
        px_srv_client_t *c = s->c;
        if (c->iof_mark == mark || c->peer == NULL || (redirected && s->opts.is_default) ||
            !sink_matches(s, &d->source, d->channel)) {
            continue;
        }
        if (n == cap) {
            target_t *more = malloc(2 * cap * sizeof(*more));
            if (more == NULL) {
                break; /* the rest get nothing of this piece */
            }
            memcpy(more, t, n * sizeof(*t));
            if (t != stack) {
                free(t);
            }
            t = more;
            cap *= 2;
        }
        c->iof_mark = mark;
        t[n++] = (target_t){c, s};
        keeping += c->iof_held + size <= PX_IOF_HOLD;
    }
    keeping += d->host_sink; /* the host's own sink keeps up */
    for (size_t i = 0; i < n; i++) {
        px_srv_client_t *c = t[i].c;
        bool lags = c->iof_held + size > PX_IOF_HOLD;
        if (!c->iof_behind && (!lags || keeping == 0)) {
            /* it keeps up, or nobody does (backpressure): from the host's buffer */
            send_piece(c, d, head, tail, bytes, size, false);
            continue;
        }
        lag(c);
        if (c->iof_queued + size > t[i].s->opts.cap) {
            fall_behind(c, t[i].s, d);
            if (!t[i].s->opts.drop_oldest) {
                continue; /* PMIX_IOF_DROP_NEWEST: this piece is not for c */
            }
            make_room(c, size, t[i].s->opts.cap);
        }
        send_piece(c, d, head, tail, bytes, size, true);
    }
    if (t != stack) {
        free(t);
    }
}

static void deliver_on_loop(void *arg)
{
    iof_deliver_t *d = arg;
    cache_add(&d->source, d->channel, d->bytes, d->size);
    bool any = false;
    for (px_iof_sink_t *s = iof.sinks; s != NULL && !any; s = s->next) {
        any = s->c->peer != NULL && sink_matches(s, &d->source, d->channel);
    }
    d->refs = 1;
    size_t off = 0;
    do { /* at least one message, even for no bytes (a PMIX_IOF_COMPLETE marker) */
        size_t n = d->size - off > PX_IOF_MAX_CHUNK ? PX_IOF_MAX_CHUNK : d->size - off;
        bool last = off + n == d->size;
        if (!any) {
            break;
        }
        pmix_data_buffer_t head, tail;
        px_bfrops_buf_init(&head);
        px_bfrops_buf_init(&tail);
        pmix_status_t rc = pack_data(&head, &tail, d, n, last);
        if (rc == PMIX_SUCCESS) {
            fan_out(&head, &tail, d, d->bytes + off, n);
        } else {
            px_debug(1, "server", "output of %s:%u dropped: %s", d->source.nspace, d->source.rank,
                     PMIx_Error_string(rc));
        }
        px_bfrops_buf_free(&head);
        px_bfrops_buf_free(&tail);
        off += n;
    } while (off < d->size);
    deliver_release(d); /* the delivery's own reference */
}

PMIX_EXPORT pmix_status_t PMIx_server_IOF_deliver(const pmix_proc_t *source,
                                                  pmix_iof_channel_t channel,
                                                  const pmix_byte_object_t *bo,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (px_srv == NULL) {
        return PMIX_ERR_INIT;
    }
    if (source == NULL || channel == 0 || (channel & ~PX_IOF_OUT_CHANNELS) != 0 ||
        (bo != NULL && bo->size > 0 && bo->bytes == NULL) || (ninfo > 0 && info == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    iof_deliver_t *d = calloc(1, sizeof(*d));
    if (d == NULL) {
        return PMIX_ERR_NOMEM;
    }
    d->source = *source;
    d->channel = channel;
    d->size = bo != NULL ? bo->size : 0;
    d->bytes = d->size > 0 ? bo->bytes : "";
    d->info = info;
    d->ninfo = ninfo;
    d->cbfunc = cbfunc;
    d->cbdata = cbdata;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PX_IOF_HOST_SINK)) {
            d->host_sink = PMIX_INFO_TRUE(&info[i]);
        }
    }
    if (cbfunc == NULL) {
        /* The blocking form: once we return the host may reuse its buffers. */
        if (d->size > 0 && (d->own_bytes = malloc(d->size)) == NULL) {
            free(d);
            return PMIX_ERR_NOMEM;
        }
        if (d->size > 0) {
            memcpy(d->own_bytes, bo->bytes, d->size);
            d->bytes = d->own_bytes;
        }
        if (ninfo > 0 && px_info_array_dup(info, ninfo, &d->own_info) != PMIX_SUCCESS) {
            free(d->own_bytes);
            free(d);
            return PMIX_ERR_NOMEM;
        }
        d->info = d->own_info;
    }
    if (px_srv_shift(deliver_on_loop, d) != 0) {
        free(d->own_bytes);
        px_bfrops_info_array_free(d->own_info, d->own_info != NULL ? ninfo : 0);
        free(d);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return cbfunc == NULL ? PMIX_OPERATION_SUCCEEDED : PMIX_SUCCESS;
}

/* ---- requests of connected processes ---- */

/* One request in the host's hands (iof_pull or push_stdin). */
typedef struct {
    px_srv_client_t *client; /* counted */
    uint32_t seq;
    uint32_t tag;
    pmix_proc_t *procs; /* owned */
    size_t nprocs;
    pmix_iof_channel_t channels;
    pmix_info_t *info; /* owned */
    size_t ninfo;
    pmix_byte_object_t bo;  /* owned */
    px_srv_iof_opts_t opts; /* a pull's */
    pmix_status_t status;
} iof_req_t;

static iof_req_t *req_new(px_srv_client_t *c, uint32_t seq, uint32_t tag)
{
    iof_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        px_srv_reply(c, seq, tag, PMIX_ERR_NOMEM, NULL);
        return NULL;
    }
    r->client = c;
    px_srv_client_retain(c);
    r->seq = seq;
    r->tag = tag;
    return r;
}

/* A pull the host accepted (or without a host check): its sinks from now on, after what
 * is kept of the output it asks for. Loop, lock held. */
static pmix_status_t pull_accepted(iof_req_t *r)
{
    for (size_t i = 0; i < r->nprocs; i++) {
        bool seen = false; /* one replay per namespace */
        for (size_t j = 0; j < i && !seen; j++) {
            seen = PMIx_Check_nspace(r->procs[j].nspace, r->procs[i].nspace);
        }
        if (!seen) {
            cache_replay(r->client, r->procs, r->nprocs, i, r->channels);
        }
    }
    size_t added = 0;
    pmix_status_t rc = PMIX_SUCCESS;
    for (; rc == PMIX_SUCCESS && added < r->nprocs; added++) {
        rc = px_srv_iof_add_sink(r->client, &r->procs[added], r->channels, &r->opts);
    }
    if (rc != PMIX_SUCCESS) {
        for (size_t i = 0; i + 1 < added; i++) {
            remove_sink(r->client, &r->procs[i], r->channels);
        }
        return rc;
    }
    return PMIX_SUCCESS;
}

/* Reply with r->status and free r. An accepted pull gets its sinks first. */
static void req_finish(iof_req_t *r)
{
    if (r->tag == PX_TAG_IOF_PULL && r->status == PMIX_SUCCESS) {
        r->status = pull_accepted(r);
    }
    px_srv_reply(r->client, r->seq, r->tag, r->status, NULL);
    px_srv_client_release(r->client);
    free(r->procs);
    px_bfrops_info_array_free(r->info, r->ninfo);
    free(r->bo.bytes);
    free(r);
}

static void req_finish_on_loop(void *arg)
{
    req_finish(arg);
}

/* The host's answer, any thread. */
static void req_host_cb(pmix_status_t status, void *cbdata)
{
    iof_req_t *r = cbdata;
    r->status = status;
    if (px_srv_shift(req_finish_on_loop, r) != 0) {
        px_debug(1, "server", "cannot deliver the host's answer (tag %u)", r->tag);
    }
}

/* The upcall's immediate answer: PMIX_SUCCESS means its callback will come. */
static void req_started(iof_req_t *r, pmix_status_t rc)
{
    if (rc != PMIX_SUCCESS) {
        r->status = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
        req_finish(r);
    }
}

/* Loop, no lock held (px_srv_upcall): iof_pull or push_stdin by r->tag; the immediate
 * answer is handled under the lock. */
static void req_upcall(void *arg)
{
    iof_req_t *r = arg;
    pmix_status_t rc;
    if (r->tag == PX_TAG_IOF_PULL) {
        rc = px_srv->module.iof_pull(r->procs, r->nprocs, r->info, r->ninfo, r->channels,
                                     req_host_cb, r);
    } else {
        /* bo is never NULL for the host: end of input is size 0 + PMIX_IOF_COMPLETE */
        rc = px_srv->module.push_stdin(&r->client->proc, r->procs, r->nprocs, r->info, r->ninfo,
                                       &r->bo, req_host_cb, r);
    }
    pthread_mutex_lock(&px_srv->lock);
    req_started(r, rc);
    pthread_mutex_unlock(&px_srv->lock);
}

static void req_launch(iof_req_t *r)
{
    if (px_srv_upcall(req_upcall, r) != 0) {
        req_started(r, PMIX_ERR_OUT_OF_RESOURCE);
    }
}

/* "size n, proc[n], uint16 channels": n >= 1, output channels only. */
static pmix_status_t unpack_procs_channels(pmix_data_buffer_t *payload, iof_req_t *r)
{
    int32_t one = 1;
    pmix_status_t rc = px_srv_unpack_procs(payload, &r->procs, &r->nprocs);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack(payload, &r->channels, &one, PMIX_IOF_CHANNEL);
    }
    if (rc == PMIX_SUCCESS &&
        (r->nprocs == 0 || r->channels == 0 || (r->channels & ~PX_IOF_OUT_CHANNELS) != 0)) {
        rc = PMIX_ERR_BAD_PARAM;
    }
    return rc;
}

void px_srv_iof_pull(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    iof_req_t *r = req_new(c, seq, PX_TAG_IOF_PULL);
    if (r == NULL) {
        return;
    }
    pmix_status_t rc = unpack_procs_channels(payload, r);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(payload, &r->info, &r->ninfo);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_srv_iof_opts(r->info, r->ninfo, &r->opts);
    }
    if (rc != PMIX_SUCCESS) {
        r->status = rc;
        req_finish(r);
        return;
    }
    /* The host checks the request (a job spawned to forward those channels) if it wants
     * to; once accepted, the sinks exist, after the output kept for the pull (no output
     * in between is lost: it is kept too). */
    if (px_srv->module.iof_pull == NULL) {
        req_started(r, PMIX_OPERATION_SUCCEEDED);
        return;
    }
    req_launch(r);
}

void px_srv_iof_dereg(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    iof_req_t *r = req_new(c, seq, PX_TAG_IOF_DEREG);
    if (r == NULL) {
        return;
    }
    r->status = unpack_procs_channels(payload, r);
    for (size_t i = 0; r->status == PMIX_SUCCESS && i < r->nprocs; i++) {
        if (!remove_sink(c, &r->procs[i], r->channels)) {
            r->status = PMIX_ERR_NOT_FOUND;
        }
    }
    req_finish(r);
}

void px_srv_iof_push(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    iof_req_t *r = req_new(c, seq, PX_TAG_IOF_PUSH);
    if (r == NULL) {
        return;
    }
    int32_t one = 1;
    pmix_status_t rc = px_srv_unpack_procs(payload, &r->procs, &r->nprocs);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack(payload, &r->bo, &one, PMIX_BYTE_OBJECT);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(payload, &r->info, &r->ninfo);
    }
    if (rc == PMIX_SUCCESS && r->nprocs == 0) {
        rc = PMIX_ERR_BAD_PARAM;
    }
    if (rc == PMIX_SUCCESS && px_srv->module.push_stdin == NULL) {
        rc = PMIX_ERR_NOT_SUPPORTED;
    }
    if (rc == PMIX_SUCCESS) {
        req_launch(r);
        return;
    }
    req_started(r, rc);
}
