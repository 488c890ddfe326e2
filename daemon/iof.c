/* daemon: formatting of one child's stdout/stderr stream as the job's --output options ask
 * (prefixes, xml, merge, raw, copies to files). Pure byte processing; runs on whatever
 * thread owns the stream (the daemon's loop). Formats are described in px_iof.h. */
#include "daemon/px_iof.h"
#include "util/px_iof_file.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* Flush the formatted output once it grows past this (bounds memory on huge pushes). */
#define PX_IOF_OUT_FLUSH PX_IOF_LINE_MAX

typedef struct {
    char *data;
    size_t len;
    size_t cap;
} px_iof_buf_t;

struct px_iof_stream {
    int channel;      /* the process's channel (what the prefix shows) */
    int emit_channel; /* what emit() is given (stdout when merging stderr) */
    bool line_mode;   /* a prefix or xml: output is reformatted */
    bool raw;         /* pieces as they arrive, no holding */
    bool xml;
    bool timestamp;
    bool emit_on; /* false with nocopy */
    char *prefix; /* owned: "[job,rank]<stdout>: " etc., "" when none */
    size_t prefix_len;
    char *xml_open; /* owned: "<stdout rank=\"N\"" (the '>' is added per piece) */
    const char *xml_name;
    bool at_line_start;
    char ts[64]; /* timestamp of the current push, computed lazily */
    size_t ts_len;
    px_iof_buf_t hold; /* the partial line, at most PX_IOF_LINE_MAX */
    px_iof_buf_t out;  /* formatted bytes waiting to be emitted */
    int fd;            /* the output file, -1 if none */
    bool fd_failed;    /* a write failed: stop writing (the stream keeps emitting) */
    px_iof_emit_fn emit;
    void *arg;
};

static __thread char px_iof_path[PATH_MAX];
static __thread bool px_iof_path_set;

/* ---- Options ------------------------------------------------------------------- */

static bool px_iof_info_bool(const pmix_info_t *i)
{
    switch (i->value.type) {
    case PMIX_UNDEF:
        return true;
    case PMIX_BOOL:
        return i->value.data.flag;
    case PMIX_STRING:
        if (i->value.data.string == NULL)
            return true;
        return strcasecmp(i->value.data.string, "true") == 0 ||
               strcasecmp(i->value.data.string, "yes") == 0 ||
               strcmp(i->value.data.string, "1") == 0;
    default:
        return false;
    }
}

static bool px_iof_key_is(const pmix_info_t *i, const char *key)
{
    return strncmp(i->key, key, PMIX_MAX_KEYLEN) == 0;
}

static void px_iof_set_string(char **dst, const pmix_info_t *i)
{
    if (i->value.type != PMIX_STRING || i->value.data.string == NULL)
        return;
    char *s = strdup(i->value.data.string);
    if (s == NULL)
        return;
    free(*dst);
    *dst = s;
}

void px_iof_opts_from_info(px_iof_opts_t *o, const pmix_info_t *info, size_t ninfo)
{
    memset(o, 0, sizeof(*o));
    for (size_t n = 0; info != NULL && n < ninfo; n++) {
        const pmix_info_t *i = &info[n];
        if (px_iof_key_is(i, PMIX_IOF_TAG_OUTPUT))
            o->tag = px_iof_info_bool(i);
        else if (px_iof_key_is(i, PMIX_IOF_RANK_OUTPUT))
            o->rank = px_iof_info_bool(i);
        else if (px_iof_key_is(i, PMIX_IOF_TIMESTAMP_OUTPUT))
            o->timestamp = px_iof_info_bool(i);
        else if (px_iof_key_is(i, PMIX_IOF_XML_OUTPUT))
            o->xml = px_iof_info_bool(i);
        else if (px_iof_key_is(i, PMIX_IOF_MERGE_STDERR_STDOUT))
            o->merge = px_iof_info_bool(i);
        else if (px_iof_key_is(i, PMIX_IOF_OUTPUT_RAW))
            o->raw = px_iof_info_bool(i);
        else if (px_iof_key_is(i, PMIX_IOF_FILE_ONLY))
            o->nocopy = px_iof_info_bool(i);
        else if (px_iof_key_is(i, PMIX_IOF_OUTPUT_TO_DIRECTORY))
            px_iof_set_string(&o->dir, i);
        else if (px_iof_key_is(i, PMIX_IOF_OUTPUT_TO_FILE))
            px_iof_set_string(&o->file, i);
    }
}

void px_iof_opts_fini(px_iof_opts_t *o)
{
    if (o == NULL)
        return;
    free(o->dir);
    free(o->file);
    o->dir = NULL;
    o->file = NULL;
}

/* ---- Buffers ------------------------------------------------------------------- */

static int px_iof_buf_reserve(px_iof_buf_t *b, size_t more)
{
    if (b->len + more <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more)
        cap *= 2;
    char *d = realloc(b->data, cap);
    if (d == NULL)
        return -1;
    b->data = d;
    b->cap = cap;
    return 0;
}

static void px_iof_buf_add(px_iof_buf_t *b, const char *data, size_t len)
{
    if (len == 0 || px_iof_buf_reserve(b, len) < 0)
        return; /* out of memory: the bytes are dropped, nothing else breaks */
    memcpy(b->data + b->len, data, len);
    b->len += len;
}

/* ---- Files (names, directories and writes: util/px_iof_file.h) ------------------ */

/* Open the stream's file per the options; -1 + errno on failure, fd when done, and
 * -2 when the options ask for no file. The path tried is left in px_iof_path. */
static int px_iof_open_file(const px_iof_opts_t *o, const char *job, pmix_rank_t rank, int channel)
{
    bool shared; /* both channels go to this file */
    if (o->dir != NULL) {
        /* the Tools chapter's PMIX_IOF_OUTPUT_TO_DIRECTORY names */
        px_iof_path_set = true;
        if (px_iof_file_path(px_iof_path, sizeof(px_iof_path), o->dir, NULL, false, job, rank,
                             channel == PMIX_FWD_STDERR_CHANNEL, o->merge) < 0)
            return -1;
        shared = o->merge;
    } else if (o->file != NULL) {
        /* --output file=FILE: FILE.<job>.<rank>, both channels (PRRTE's form) */
        char label[256];
        px_iof_file_label(label, sizeof(label), job);
        int n =
            snprintf(px_iof_path, sizeof(px_iof_path), "%s.%s.%u", o->file, label, (unsigned)rank);
        px_iof_path_set = true;
        if (n < 0 || (size_t)n >= sizeof(px_iof_path)) {
            errno = ENAMETOOLONG;
            return -1;
        }
        shared = true;
    } else {
        return -2;
    }
    /* The stdout stream starts the file afresh; a stderr stream sharing it appends, so
     * creating it after the stdout stream never truncates what was written. */
    return px_iof_file_open(px_iof_path, !shared || channel != PMIX_FWD_STDERR_CHANNEL);
}

static void px_iof_write_file(px_iof_stream_t *s, const char *data, size_t len)
{
    if (s->fd >= 0 && !s->fd_failed && len > 0 && px_iof_file_write(s->fd, data, len) < 0)
        s->fd_failed = true;
}

/* ---- Streams ------------------------------------------------------------------- */

const char *px_iof_last_path(void)
{
    return px_iof_path_set ? px_iof_path : NULL;
}

px_iof_stream_t *px_iof_stream_create(const px_iof_opts_t *o, const char *job, pmix_rank_t rank,
                                      int channel, px_iof_emit_fn emit, void *arg)
{
    px_iof_stream_t *s = calloc(1, sizeof(*s));
    if (s == NULL)
        return NULL;
    px_iof_path_set = false;
    s->fd = -1;
    s->channel = channel;
    s->emit_channel =
        (o->merge && channel == PMIX_FWD_STDERR_CHANNEL) ? PMIX_FWD_STDOUT_CHANNEL : channel;
    s->xml = o->xml;
    s->timestamp = o->timestamp;
    s->line_mode = o->tag || o->rank || o->timestamp || o->xml;
    s->raw = o->raw;
    s->emit_on = !o->nocopy && emit != NULL;
    s->emit = emit;
    s->arg = arg;
    s->at_line_start = true;
    const char *chname = channel == PMIX_FWD_STDERR_CHANNEL ? "stderr" : "stdout";
    s->xml_name = chname;
    char pfx[512];
    if (o->tag)
        snprintf(pfx, sizeof(pfx), "[%s,%u]<%s>: ", job ? job : "", (unsigned)rank, chname);
    else if (o->rank)
        snprintf(pfx, sizeof(pfx), "[%u]<%s>: ", (unsigned)rank, chname);
    else
        pfx[0] = '\0';
    s->prefix = strdup(pfx);
    char xo[128];
    snprintf(xo, sizeof(xo), "<%s rank=\"%u\"", chname, (unsigned)rank);
    s->xml_open = strdup(xo);
    if (s->prefix == NULL || s->xml_open == NULL)
        goto error;
    s->prefix_len = strlen(s->prefix);
    int fd = px_iof_open_file(o, job, rank, channel);
    if (fd == -1)
        goto error;
    s->fd = fd >= 0 ? fd : -1;
    return s;
error : {
    int e = errno ? errno : ENOMEM;
    free(s->prefix);
    free(s->xml_open);
    free(s);
    errno = e;
    return NULL;
}
}

static void px_iof_flush_out(px_iof_stream_t *s)
{
    if (s->out.len == 0)
        return;
    if (s->emit_on)
        s->emit(s->emit_channel, s->out.data, s->out.len, s->arg);
    px_iof_write_file(s, s->out.data, s->out.len);
    s->out.len = 0;
}

static void px_iof_stamp(px_iof_stream_t *s)
{
    if (s->ts_len > 0)
        return;
    struct timeval tv;
    struct tm tm;
    gettimeofday(&tv, NULL);
    localtime_r(&tv.tv_sec, &tm);
    size_t n = strftime(s->ts, sizeof(s->ts), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(s->ts + n, sizeof(s->ts) - n, ".%06ld", (long)tv.tv_usec);
    s->ts_len = strlen(s->ts);
}

static void px_iof_add_escaped(px_iof_buf_t *b, const char *data, size_t len)
{
    const char *start = data;
    const char *end = data + len;
    for (const char *p = data; p < end; p++) {
        const char *rep;
        switch (*p) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        default:
            continue;
        }
        px_iof_buf_add(b, start, (size_t)(p - start));
        px_iof_buf_add(b, rep, strlen(rep));
        start = p + 1;
    }
    px_iof_buf_add(b, start, (size_t)(end - start));
}

/* Format one piece of a line; ends_line: data ends with the line's '\n'. */
static void px_iof_piece(px_iof_stream_t *s, const char *data, size_t len, bool ends_line)
{
    if (len == 0)
        return;
    if (s->xml) {
        size_t body = ends_line ? len - 1 : len;
        px_iof_buf_add(&s->out, s->xml_open, strlen(s->xml_open));
        if (s->timestamp) {
            px_iof_stamp(s);
            px_iof_buf_add(&s->out, " timestamp=\"", 12);
            px_iof_buf_add(&s->out, s->ts, s->ts_len);
            px_iof_buf_add(&s->out, "\"", 1);
        }
        px_iof_buf_add(&s->out, ">", 1);
        px_iof_add_escaped(&s->out, data, body);
        px_iof_buf_add(&s->out, "</", 2);
        px_iof_buf_add(&s->out, s->xml_name, strlen(s->xml_name));
        px_iof_buf_add(&s->out, ">", 1);
        if (ends_line)
            px_iof_buf_add(&s->out, "\n", 1);
    } else {
        if (s->at_line_start) {
            if (s->timestamp) {
                px_iof_stamp(s);
                px_iof_buf_add(&s->out, s->ts, s->ts_len);
                px_iof_buf_add(&s->out, " ", 1);
            }
            px_iof_buf_add(&s->out, s->prefix, s->prefix_len);
        }
        px_iof_buf_add(&s->out, data, len);
    }
    s->at_line_start = ends_line;
    if (s->out.len >= PX_IOF_OUT_FLUSH)
        px_iof_flush_out(s);
}

/* Line mode: complete lines are formatted whole; a partial one is held up to
 * PX_IOF_LINE_MAX bytes, then formatted as a piece. Each byte is copied at most once
 * into hold and once into out. */
static void px_iof_push_lines(px_iof_stream_t *s, const char *p, const char *end)
{
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t seg = nl ? (size_t)(nl + 1 - p) : (size_t)(end - p);
        if (nl != NULL) {
            if (s->hold.len == 0) {
                px_iof_piece(s, p, seg, true);
            } else if (s->hold.len + seg <= PX_IOF_LINE_MAX) {
                px_iof_buf_add(&s->hold, p, seg);
                px_iof_piece(s, s->hold.data, s->hold.len, true);
                s->hold.len = 0;
            } else {
                px_iof_piece(s, s->hold.data, s->hold.len, false);
                s->hold.len = 0;
                px_iof_piece(s, p, seg, true);
            }
        } else if (s->hold.len + seg < PX_IOF_LINE_MAX) {
            px_iof_buf_add(&s->hold, p, seg);
        } else {
            /* Fill the hold to the limit, emit it, continue with the rest. */
            size_t take = PX_IOF_LINE_MAX - s->hold.len;
            if (s->hold.len == 0) {
                px_iof_piece(s, p, take, false);
            } else {
                px_iof_buf_add(&s->hold, p, take);
                px_iof_piece(s, s->hold.data, s->hold.len, false);
                s->hold.len = 0;
            }
            seg = take;
        }
        p += seg;
    }
}

static void px_iof_push_raw(px_iof_stream_t *s, const char *p, const char *end)
{
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t seg = nl ? (size_t)(nl + 1 - p) : (size_t)(end - p);
        px_iof_piece(s, p, seg, nl != NULL);
        p += seg;
    }
}

void px_iof_stream_push(px_iof_stream_t *s, const char *data, size_t len)
{
    if (s == NULL || data == NULL || len == 0)
        return;
    if (!s->line_mode) {
        if (s->emit_on)
            s->emit(s->emit_channel, data, len, s->arg);
        px_iof_write_file(s, data, len);
        return;
    }
    s->ts_len = 0; /* one timestamp per arrival */
    if (s->raw)
        px_iof_push_raw(s, data, data + len);
    else
        px_iof_push_lines(s, data, data + len);
    px_iof_flush_out(s);
}

void px_iof_stream_close(px_iof_stream_t *s)
{
    if (s == NULL)
        return;
    if (s->hold.len > 0) {
        s->ts_len = 0;
        px_iof_piece(s, s->hold.data, s->hold.len, false);
        s->hold.len = 0;
    }
    px_iof_flush_out(s);
    if (s->fd >= 0)
        close(s->fd);
    free(s->hold.data);
    free(s->out.data);
    free(s->prefix);
    free(s->xml_open);
    free(s);
}
