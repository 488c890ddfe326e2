/* client: what one PMIx_IOF_pull asks of the output it receives ("The PMIx client in the
 * tool is responsible for formatting the output stream", Tools chapter): prefixes
 * (PMIX_IOF_TAG_OUTPUT "[nspace,rank]<stdout>: ", PMIX_IOF_RANK_OUTPUT "[rank]<stdout>: ",
 * PMIX_IOF_TIMESTAMP_OUTPUT "<local time> " first), PMIX_IOF_XML_OUTPUT (one element per
 * line, <stdout nspace="N" rank="R">text</stdout> with & < > escaped and the timestamp as
 * an attribute), complete lines unless PMIX_IOF_OUTPUT_RAW, and aggregation
 * (PMIX_IOF_BUFFERING_SIZE bytes, or PMIX_IOF_BUFFERING_TIME seconds, whichever first;
 * what is held goes out at deregistration); files (PMIX_IOF_OUTPUT_TO_FILE /
 * _TO_DIRECTORY, PMIX_IOF_FILE_PATTERN, PMIX_IOF_FILE_ONLY, named and written by
 * util/px_iof_file.h as the node agent's --output files are) get what goes out, and
 * PMIX_IOF_MERGE_STDERR_STDOUT sends stderr out as stdout (to one file). One state per
 * (source, channel).
 * Client loop only: px_cl_iof_recv, the timers, the flush at deregistration or teardown.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "client/px_client.h"
#include "client/px_iof_fmt.h"
#include "common/px_common.h"
#include "help/px_help.h"
#include "util/px_iof_file.h"

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
    int fd; /* its file, -1: none (or it failed) */
} fmt_stream_t;

/* A file path one of the streams opened (the first starts it afresh). */
typedef struct fmt_path {
    struct fmt_path *next;
    char path[];
} fmt_path_t;

struct px_iof_fmt {
    px_iof_fmt_opts_t o; /* o.dir, o.file owned */
    px_iof_fmt_deliver_fn deliver;
    void *arg;
    struct event_base *base; /* borrowed: the client loop's */
    fmt_stream_t *streams;   /* owned */
    fmt_path_t *paths;       /* owned */
};

static bool get_flag(const pmix_info_t *in)
{
    return in->value.type == PMIX_UNDEF || PMIX_INFO_TRUE(in);
}

/* A pull's files must have somewhere to go: the directory (or the file's, when it names
 * no rank or namespace pattern) is made now, so that a place that cannot hold them fails
 * the pull rather than its output. */
static pmix_status_t files_check(const px_iof_fmt_opts_t *o)
{
    char dir[PATH_MAX];
    if (o->dir != NULL) {
        snprintf(dir, sizeof(dir), "%s/.", o->dir);
    } else if (o->file != NULL && strchr(o->file, '%') == NULL) {
        snprintf(dir, sizeof(dir), "%s", o->file);
    } else {
        return PMIX_SUCCESS;
    }
    /* px_iof_file_open makes the directories above its path's last component */
    char probe[PATH_MAX + 32];
    char *slash = strrchr(dir, '/');
    if (slash == NULL) {
        return PMIX_SUCCESS; /* the working directory */
    }
    *slash = '\0';
    snprintf(probe, sizeof(probe), "%s/.px-iof-probe.%d", dir[0] != '\0' ? dir : "", (int)getpid());
    int fd = px_iof_file_open(probe, true);
    if (fd < 0) {
        int e = errno;
        px_show_help("help-pmix-iof.txt", "pull-no-file", dir, strerror(e));
        return e == EACCES || e == EPERM || e == EROFS ? PMIX_ERR_NO_PERMISSIONS
                                                       : PMIX_ERR_BAD_PARAM;
    }
    close(fd);
    unlink(probe);
    return PMIX_SUCCESS;
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
        } else if (PMIX_CHECK_KEY(in, PMIX_IOF_OUTPUT_TO_FILE) ||
                   PMIX_CHECK_KEY(in, PMIX_IOF_OUTPUT_TO_DIRECTORY)) {
            if (in->value.type != PMIX_STRING || in->value.data.string == NULL ||
                in->value.data.string[0] == '\0') {
                return PMIX_ERR_BAD_PARAM;
            }
            *(PMIX_CHECK_KEY(in, PMIX_IOF_OUTPUT_TO_FILE) ? &o->file : &o->dir) =
                in->value.data.string;
        } else if (PMIX_CHECK_KEY(in, PMIX_IOF_FILE_ONLY)) {
            o->file_only = get_flag(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_IOF_FILE_PATTERN)) {
            o->pattern = get_flag(in);
        } else if (PMIX_CHECK_KEY(in, PMIX_IOF_MERGE_STDERR_STDOUT)) {
            o->merge = get_flag(in);
        }
    }
    /* one place for the files; a pattern or "files only" needs a file to apply to */
    if ((o->dir != NULL && o->file != NULL) || (o->pattern && o->file == NULL) ||
        (o->file_only && o->dir == NULL && o->file == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    return files_check(o);
}

bool px_iof_fmt_active(const px_iof_fmt_opts_t *o)
{
    return o->tag || o->rank || o->timestamp || o->xml || o->bsize > 0 || o->btime > 0 ||
           o->dir != NULL || o->file != NULL || o->merge;
}

px_iof_fmt_t *px_iof_fmt_create(const px_iof_fmt_opts_t *o, struct event_base *base,
                                px_iof_fmt_deliver_fn deliver, void *arg)
{
    px_iof_fmt_t *f = calloc(1, sizeof(*f));
    if (f == NULL) {
        return NULL;
    }
    *f = (px_iof_fmt_t){*o, deliver, arg, base, NULL, NULL};
    f->o.dir = o->dir != NULL ? strdup(o->dir) : NULL;
    f->o.file = o->file != NULL ? strdup(o->file) : NULL;
    if ((o->dir != NULL && f->o.dir == NULL) || (o->file != NULL && f->o.file == NULL)) {
        px_iof_fmt_destroy(f, false);
        return NULL;
    }
    return f;
}

/* Open s's file, if the pull asked for files: the first stream of a path starts it
 * afresh, the others (stderr merged into stdout's) append. */
static void file_open(fmt_stream_t *s)
{
    const px_iof_fmt_opts_t *o = &s->f->o;
    s->fd = -1;
    if (o->dir == NULL && o->file == NULL) {
        return;
    }
    char path[PATH_MAX];
    if (px_iof_file_path(path, sizeof(path), o->dir, o->file, o->pattern, s->source.nspace,
                         s->source.rank, (s->channel & PMIX_FWD_STDOUT_CHANNEL) == 0,
                         o->merge) != 0) {
        px_show_help("help-pmix-iof.txt", "pull-file-failed", path, s->source.nspace,
                     s->source.rank, strerror(errno));
        return;
    }
    bool fresh = true;
    for (fmt_path_t *p = s->f->paths; p != NULL && fresh; p = p->next) {
        fresh = strcmp(p->path, path) != 0;
    }
    s->fd = px_iof_file_open(path, fresh);
    if (s->fd < 0) {
        px_show_help("help-pmix-iof.txt", "pull-file-failed", path, s->source.nspace,
                     s->source.rank, strerror(errno));
        return;
    }
    fmt_path_t *p = fresh ? malloc(sizeof(*p) + strlen(path) + 1) : NULL;
    if (p != NULL) {
        strcpy(p->path, path);
        p->next = s->f->paths;
        s->f->paths = p;
    }
}

/* What goes out of s: into its file, and to the owner unless the pull wants files only
 * (stderr as stdout when merged). */
static void sink(fmt_stream_t *s, const char *p, size_t n)
{
    const px_iof_fmt_opts_t *o = &s->f->o;
    if (s->fd >= 0 && px_iof_file_write(s->fd, p, n) != 0) {
        px_show_help("help-pmix-iof.txt", "pull-file-failed", "(its file)", s->source.nspace,
                     s->source.rank, strerror(errno));
        close(s->fd);
        s->fd = -1;
    }
    if (!o->file_only) {
        pmix_iof_channel_t ch = o->merge ? PMIX_FWD_STDOUT_CHANNEL : s->channel;
        s->f->deliver(&s->source, ch, p, n, s->f->arg);
    }
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
        sink(s, s->agg.p, n);
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
        sink(s, p, n);
        return;
    }
    if (buf_add(&s->agg, p, n) != 0) {
        agg_flush(s); /* no memory to hold more: out at once */
        sink(s, p, n);
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
        file_open(s);
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
        if (!f->o.file_only) {
            f->deliver(source, channel, bytes, n, f->arg); /* as it came */
        }
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
        if (s->fd >= 0) {
            close(s->fd);
        }
        free(s->line.p);
        free(s->agg.p);
        free(s);
    }
    while (f->paths != NULL) {
        fmt_path_t *p = f->paths;
        f->paths = p->next;
        free(p);
    }
    free((char *)f->o.dir);
    free((char *)f->o.file);
    free(f);
}
