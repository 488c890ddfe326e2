/* client: what one PMIx_IOF_pull asks of the output it receives ("The PMIx client in the
 * tool is responsible for formatting the output stream", Tools chapter): prefixes
 * (PMIX_IOF_TAG_OUTPUT "[nspace,rank]<stdout>: ", PMIX_IOF_RANK_OUTPUT "[rank]<stdout>: ",
 * PMIX_IOF_TIMESTAMP_OUTPUT "<local time> " first), PMIX_IOF_XML_OUTPUT (one element per
 * line, <stdout nspace="N" rank="R">text</stdout> with & < > escaped and the timestamp as
 * an attribute), complete lines unless PMIX_IOF_OUTPUT_RAW, and aggregation
 * (PMIX_IOF_BUFFERING_SIZE bytes, or PMIX_IOF_BUFFERING_TIME seconds, whichever first;
 * what is held goes out at deregistration). One state per (source, channel).
 * Client loop only: px_cl_iof_recv, the timers, the flush at deregistration or teardown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include <event2/event.h>

#include "client/px_client.h"
#include "client/px_iof_fmt.h"
#include "common/px_common.h"

/* A partial line is held up to this much, then goes out as a piece (bounded memory). */
#define PX_IOF_FMT_LINE_MAX (64 * 1024)

typedef struct {
    char *p;
    size_t len, cap;
} buf_t;

typedef struct fmt_stream {
    struct fmt_stream *next;
    struct px_iof_fmt *f; /* borrowed: its owner */
    pmix_proc_t source;
    pmix_iof_channel_t channel;
    buf_t line;          /* a partial line (line mode) */
    bool mid_line;       /* raw mode: the next byte does not start a line */
    buf_t agg;           /* formatted bytes held for aggregation */
    struct event *timer; /* owned: PMIX_IOF_BUFFERING_TIME */
    bool armed;
} fmt_stream_t;

struct px_iof_fmt {
    px_iof_fmt_opts_t o;
    px_iof_fmt_deliver_fn deliver;
    void *arg;
    struct event_base *base; /* borrowed: the client loop's */
    fmt_stream_t *streams;   /* owned */
};

static bool get_flag(const pmix_info_t *in)
{
    return in->value.type == PMIX_UNDEF || PMIX_INFO_TRUE(in);
}

pmix_status_t px_iof_fmt_parse(const pmix_info_t *dirs, size_t n, px_iof_fmt_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    for (size_t i = 0; i < n; i++) {
        const pmix_info_t *in = &dirs[i];
        if (PMIX_CHECK_KEY(in, PMIX_IOF_TAG_OUTPUT)) {
            o->tag = get_flag(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_IOF_RANK_OUTPUT)) {
            o->rank = get_flag(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_IOF_TIMESTAMP_OUTPUT)) {
            o->timestamp = get_flag(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_IOF_XML_OUTPUT)) {
            o->xml = get_flag(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_IOF_OUTPUT_RAW)) {
            o->raw = get_flag(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_IOF_BUFFERING_SIZE) ||
                   PMIX_CHECK_KEY(in, PMIX_IOF_BUFFERING_TIME)) {
            uint32_t v = 0;
            if (PMIx_Value_get_number(&in->value, &v, PMIX_UINT32) != PMIX_SUCCESS) {
                return PMIX_ERR_BAD_PARAM;
            }
            *(PMIX_CHECK_KEY(in, PMIX_IOF_BUFFERING_SIZE) ? &o->bsize : &o->btime) = v;
        } else if ((PMIX_CHECK_KEY(in, PMIX_IOF_OUTPUT_TO_FILE) ||
                    PMIX_CHECK_KEY(in, PMIX_IOF_OUTPUT_TO_DIRECTORY)) &&
                   in->value.type == PMIX_STRING && in->value.data.string != NULL) {
            return PMIX_ERR_NOT_SUPPORTED; /* a pull's output to files: not done */
        } else if ((PMIX_CHECK_KEY(in, PMIX_IOF_FILE_ONLY) ||
                    PMIX_CHECK_KEY(in, PMIX_IOF_FILE_PATTERN) ||
                    PMIX_CHECK_KEY(in, PMIX_IOF_MERGE_STDERR_STDOUT)) &&
                   get_flag(in)) {
            return PMIX_ERR_NOT_SUPPORTED;
        }
    }
    return PMIX_SUCCESS;
}

bool px_iof_fmt_active(const px_iof_fmt_opts_t *o)
{
    return o->tag || o->rank || o->timestamp || o->xml || o->bsize > 0 || o->btime > 0;
}

px_iof_fmt_t *px_iof_fmt_create(const px_iof_fmt_opts_t *o, struct event_base *base,
                                px_iof_fmt_deliver_fn deliver, void *arg)
{
    px_iof_fmt_t *f = calloc(1, sizeof(*f));
    if (f != NULL) {
        *f = (px_iof_fmt_t){*o, deliver, arg, base, NULL};
    }
    return f;
}

static int buf_add(buf_t *b, const char *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n) {
            cap *= 2;
        }
        char *q = realloc(b->p, cap);
        if (q == NULL) {
            return -1;
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}

/* Hand what aggregation holds to the owner. */
static void agg_flush(fmt_stream_t *s)
{
    if (s->armed) {
        event_del(s->timer);
        s->armed = false;
    }
    if (s->agg.len > 0) {
        size_t n = s->agg.len;
        s->agg.len = 0; /* the deliverer may push again */
        s->f->deliver(&s->source, s->channel, s->agg.p, n, s->f->arg);
    }
}

static void agg_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    fmt_stream_t *s = arg;
    s->armed = false;
    agg_flush(s);
}

/* Formatted bytes: to the owner, or held by aggregation. */
static void out(fmt_stream_t *s, const char *p, size_t n)
{
    const px_iof_fmt_opts_t *o = &s->f->o;
    if (n == 0) {
        return;
    }
    if (o->bsize == 0 && o->btime == 0) {
        s->f->deliver(&s->source, s->channel, p, n, s->f->arg);
        return;
    }
    if (buf_add(&s->agg, p, n) != 0) {
        agg_flush(s); /* no memory to hold more: out at once */
        s->f->deliver(&s->source, s->channel, p, n, s->f->arg);
        return;
    }
    if (o->bsize > 0 && s->agg.len >= o->bsize) {
        agg_flush(s);
        return;
    }
    if (o->btime > 0 && !s->armed) {
        if (s->timer == NULL) {
            s->timer = evtimer_new(s->f->base, agg_timeout, s);
        }
        struct timeval tv = {(time_t)o->btime, 0};
        s->armed = s->timer != NULL && evtimer_add(s->timer, &tv) == 0;
    }
}

static const char *channel_name(pmix_iof_channel_t ch)
{
    return ch & PMIX_FWD_STDOUT_CHANNEL   ? "stdout"
           : ch & PMIX_FWD_STDERR_CHANNEL ? "stderr"
                                          : "stddiag";
}

static void stamp(char *ts, size_t size)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    localtime_r(&tv.tv_sec, &tm);
    size_t n = strftime(ts, size, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(ts + n, size - n, ".%06ld", (long)tv.tv_usec);
}

/* One line (or piece of one) with its decoration. */
static void emit(fmt_stream_t *s, const char *p, size_t n, bool starts_line, const char *ts)
{
    const px_iof_fmt_opts_t *o = &s->f->o;
    char pre[PMIX_MAX_NSLEN + 128];
    const char *ch = channel_name(s->channel);
    if (o->xml) {
        if (o->timestamp) {
            snprintf(pre, sizeof(pre), "<%s nspace=\"%s\" rank=\"%u\" timestamp=\"%s\">", ch,
                     s->source.nspace, s->source.rank, ts);
        } else {
            snprintf(pre, sizeof(pre), "<%s nspace=\"%s\" rank=\"%u\">", ch, s->source.nspace,
                     s->source.rank);
        }
        out(s, pre, strlen(pre));
        bool nl = n > 0 && p[n - 1] == '\n';
        size_t body = nl ? n - 1 : n, from = 0;
        for (size_t i = 0; i < body; i++) {
            const char *esc = p[i] == '&'   ? "&amp;"
                              : p[i] == '<' ? "&lt;"
                              : p[i] == '>' ? "&gt;"
                                            : NULL;
            if (esc != NULL) {
                out(s, p + from, i - from);
                out(s, esc, strlen(esc));
                from = i + 1;
            }
        }
        out(s, p + from, body - from);
        snprintf(pre, sizeof(pre), "</%s>%s", ch, nl ? "\n" : "");
        out(s, pre, strlen(pre));
        return;
    }
    if (starts_line) {
        size_t k = 0;
        if (o->timestamp) {
            k += (size_t)snprintf(pre + k, sizeof(pre) - k, "%s ", ts);
        }
        if (o->tag) {
            snprintf(pre + k, sizeof(pre) - k, "[%s,%u]<%s>: ", s->source.nspace, s->source.rank,
                     ch);
        } else if (o->rank) {
            snprintf(pre + k, sizeof(pre) - k, "[%u]<%s>: ", s->source.rank, ch);
        }
        out(s, pre, strlen(pre));
    }
    out(s, p, n);
}

static fmt_stream_t *stream_get(px_iof_fmt_t *f, const pmix_proc_t *source,
                                pmix_iof_channel_t channel)
{
    for (fmt_stream_t *s = f->streams; s != NULL; s = s->next) {
        if (s->channel == channel && s->source.rank == source->rank &&
            PMIx_Check_nspace(s->source.nspace, source->nspace)) {
            return s;
        }
    }
    fmt_stream_t *s = calloc(1, sizeof(*s));
    if (s != NULL) {
        s->f = f;
        s->source = *source;
        s->channel = channel;
        s->next = f->streams;
        f->streams = s;
    }
    return s;
}

void px_iof_fmt_push(px_iof_fmt_t *f, const pmix_proc_t *source, pmix_iof_channel_t channel,
                     const char *bytes, size_t n)
{
    fmt_stream_t *s = stream_get(f, source, channel);
    if (s == NULL) {
        f->deliver(source, channel, bytes, n, f->arg); /* as it came */
        return;
    }
    const px_iof_fmt_opts_t *o = &f->o;
    if (!o->tag && !o->rank && !o->timestamp && !o->xml) {
        out(s, bytes, n); /* aggregation only */
        return;
    }
    char ts[48] = "";
    if (o->timestamp) {
        stamp(ts, sizeof(ts)); /* when the bytes arrived */
    }
    size_t at = 0;
    while (at < n) {
        const char *nl = memchr(bytes + at, '\n', n - at);
        size_t len = nl != NULL ? (size_t)(nl - (bytes + at)) + 1 : n - at;
        if (o->raw) {
            emit(s, bytes + at, len, !s->mid_line, ts);
            s->mid_line = nl == NULL;
        } else if (nl == NULL) {
            /* a partial line: held, up to a bound */
            if (buf_add(&s->line, bytes + at, len) != 0) {
                emit(s, s->line.p, s->line.len, !s->mid_line, ts);
                emit(s, bytes + at, len, s->line.len == 0 && !s->mid_line, ts);
                s->mid_line = true;
                s->line.len = 0;
            } else if (s->line.len >= PX_IOF_FMT_LINE_MAX) {
                emit(s, s->line.p, s->line.len, !s->mid_line, ts);
                s->mid_line = true;
                s->line.len = 0;
            }
        } else if (s->line.len > 0) {
            if (buf_add(&s->line, bytes + at, len) == 0) {
                emit(s, s->line.p, s->line.len, !s->mid_line, ts);
            } else {
                emit(s, s->line.p, s->line.len, !s->mid_line, ts);
                emit(s, bytes + at, len, false, ts);
            }
            s->line.len = 0;
            s->mid_line = false;
        } else {
            emit(s, bytes + at, len, !s->mid_line, ts);
            s->mid_line = false;
        }
        at += len;
    }
}

void px_iof_fmt_destroy(px_iof_fmt_t *f, bool flush)
{
    if (f == NULL) {
        return;
    }
    while (f->streams != NULL) {
        fmt_stream_t *s = f->streams;
        f->streams = s->next;
        if (flush && s->line.len > 0) {
            char ts[48] = "";
            if (f->o.timestamp) {
                stamp(ts, sizeof(ts));
            }
            emit(s, s->line.p, s->line.len, !s->mid_line, ts); /* as is: no newline added */
        }
        if (flush) {
            agg_flush(s);
        }
        if (s->timer != NULL) {
            event_free(s->timer);
        }
        free(s->line.p);
        free(s->agg.p);
        free(s);
    }
    free(f);
}
