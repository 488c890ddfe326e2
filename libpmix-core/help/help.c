/* Help catalog lookup/rendering (px_help_lookup, px_show_help) and the de-duplication
 * table. Callable from any thread: the catalog is read-only and each dedup table has
 * its own mutex. Output goes through stdio, one locked write per framed block. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "help/px_help.h"
#include "help/px_help_table.h"

const char px_help_rule[] =
    "--------------------------------------------------------------------------";

/* Shown when a (file, topic) is missing from the build. Normally this text comes from
 * help-px-util.txt [missing-topic]; this copy is used if even that is missing. */
static const char px_help_missing_file[] = "help-px-util.txt";
static const char px_help_missing_topic[] = "missing-topic";
static const char px_help_missing_builtin[] =
    "Internal error: this program wanted to show the help message \"%s\"\n"
    "from the catalog %s, but that message is not part of this build.\n"
    "Please report this as a bug in pmix-runtime, with the command you ran.\n";

static int px_help_entry_cmp(const void *key, const void *elem)
{
    const struct px_help_entry *k = key;
    const struct px_help_entry *e = elem;
    int c = strcmp(k->file, e->file);

    return c != 0 ? c : strcmp(k->topic, e->topic);
}

static const struct px_help_entry *px_help_find(const char *file, const char *topic)
{
    struct px_help_entry key = {.file = file, .topic = topic};
    const struct px_help_entry *e = NULL;

    if (file != NULL && topic != NULL && px_help_table_len > 0) {
        e = bsearch(&key, px_help_table, px_help_table_len, sizeof(px_help_table[0]),
                    px_help_entry_cmp);
    }
    if (e == NULL) {
        errno = ENOENT;
    }
    return e;
}

const char *px_help_lookup(const char *file, const char *topic)
{
    const struct px_help_entry *e = px_help_find(file, topic);

    return e != NULL ? e->text : NULL;
}

int px_help_nargs(const char *file, const char *topic)
{
    const struct px_help_entry *e = px_help_find(file, topic);

    return e != NULL ? e->nargs : -1;
}

/* The catalog text is a printf format by design; gen_help.py has validated every
 * conversion in it, and check_help_refs.py compares argument counts with callers. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static char *px_help_vformat(const char *fmt, va_list ap)
{
    char *s = NULL;

    if (vasprintf(&s, fmt, ap) < 0) {
        errno = ENOMEM;
        return NULL;
    }
    return s;
}

static char *px_help_format(const char *fmt, ...)
{
    va_list ap;
    char *s;

    va_start(ap, fmt);
    s = px_help_vformat(fmt, ap);
    va_end(ap);
    return s;
}
#pragma GCC diagnostic pop

char *px_help_vrender(const char *file, const char *topic, va_list ap)
{
    const char *text = px_help_lookup(file, topic);

    return text != NULL ? px_help_vformat(text, ap) : NULL;
}

char *px_help_render(const char *file, const char *topic, ...)
{
    va_list ap;
    char *s;

    va_start(ap, topic);
    s = px_help_vrender(file, topic, ap);
    va_end(ap);
    return s;
}

/* The message shown in place of a missing (file, topic). Never returns NULL unless
 * memory is exhausted. */
static char *px_help_render_missing(const char *file, const char *topic)
{
    const char *fmt = px_help_lookup(px_help_missing_file, px_help_missing_topic);

    if (fmt == NULL || px_help_nargs(px_help_missing_file, px_help_missing_topic) != 2) {
        fmt = px_help_missing_builtin;
    }
    return px_help_format(fmt, topic != NULL ? topic : "(null)", file != NULL ? file : "(null)");
}

int px_help_fput(FILE *out, const char *text)
{
    size_t len;
    int rc = 0;

    if (out == NULL || text == NULL) {
        errno = EINVAL;
        return -1;
    }
    len = strlen(text);
    errno = 0;
    flockfile(out);
    if (fprintf(out, "%s\n%s%s%s\n", px_help_rule, text,
                len > 0 && text[len - 1] == '\n' ? "" : "\n", px_help_rule) < 0 ||
        fflush(out) != 0) {
        rc = -1;
        if (errno == 0) {
            errno = EIO;
        }
    }
    funlockfile(out);
    return rc;
}

/* Render (file, topic) or, if missing, the missing-topic message. *missing tells which. */
static char *px_help_vrender_or_missing(const char *file, const char *topic, va_list ap,
                                        int *missing)
{
    char *s = px_help_vrender(file, topic, ap);

    *missing = 0;
    if (s == NULL && errno == ENOENT) {
        *missing = 1;
        s = px_help_render_missing(file, topic);
    }
    return s;
}

int px_help_vfshow(FILE *out, const char *file, const char *topic, va_list ap)
{
    int missing;
    int rc;
    char *s = px_help_vrender_or_missing(file, topic, ap, &missing);

    if (s == NULL) {
        return -1;
    }
    rc = px_help_fput(out, s);
    free(s);
    if (rc == 0 && missing) {
        errno = ENOENT;
        rc = -1;
    }
    return rc;
}

int px_help_fshow(FILE *out, const char *file, const char *topic, ...)
{
    va_list ap;
    int rc;

    va_start(ap, topic);
    rc = px_help_vfshow(out, file, topic, ap);
    va_end(ap);
    return rc;
}

/* Where px_show_help's messages go instead of stderr (px_help_set_sink). */
static pthread_mutex_t px_help_sink_lock = PTHREAD_MUTEX_INITIALIZER;
static px_help_sink_fn px_help_sink;
static void *px_help_sink_arg;

void px_help_set_sink(px_help_sink_fn fn, void *arg)
{
    pthread_mutex_lock(&px_help_sink_lock);
    px_help_sink = fn;
    px_help_sink_arg = arg;
    pthread_mutex_unlock(&px_help_sink_lock);
}

int px_show_help(const char *file, const char *topic, ...)
{
    va_list ap;
    int rc;

    pthread_mutex_lock(&px_help_sink_lock);
    px_help_sink_fn fn = px_help_sink;
    void *arg = px_help_sink_arg;
    pthread_mutex_unlock(&px_help_sink_lock);
    if (fn != NULL) {
        int missing;
        va_start(ap, topic);
        char *s = px_help_vrender_or_missing(file, topic, ap, &missing);
        va_end(ap);
        if (s != NULL && !missing && fn(file, topic, s, arg) == 0) {
            free(s);
            return 0;
        }
        free(s); /* not taken: written here as without a sink */
    }
    va_start(ap, topic);
    rc = px_help_vfshow(stderr, file, topic, ap);
    va_end(ap);
    return rc;
}

/* ---- De-duplication table ----------------------------------------------------------
 * Entries live in an array in first-seen order (the summary order); an open-addressing
 * hash of entry indices (power-of-two size, at most half full) finds them. */

struct px_help_dedup_entry {
    char *file;  /* owned */
    char *topic; /* owned */
    char *text;  /* owned; "" unless PX_HELP_DEDUP_BY_TEXT */
    uint64_t hash;
    unsigned long count;   /* all occurrences */
    unsigned long pending; /* repeats not yet reported by a summary */
};

struct px_help_dedup {
    pthread_mutex_t lock;
    int flags;
    struct px_help_dedup_entry *entries; /* owned, n used of cap */
    size_t n, cap;
    size_t *slots; /* owned; entry index + 1, 0 = empty; nslots is a power of two */
    size_t nslots;
};

static uint64_t px_help_hash_str(uint64_t h, const char *s)
{
    /* FNV-1a, with a separator so ("ab","c") and ("a","bc") differ. */
    for (; *s != '\0'; s++) {
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    }
    return (h ^ 0xff) * 1099511628211ULL;
}

static uint64_t px_help_dedup_hash(const char *file, const char *topic, const char *text)
{
    uint64_t h = 14695981039346656037ULL;

    h = px_help_hash_str(h, file);
    h = px_help_hash_str(h, topic);
    return px_help_hash_str(h, text);
}

px_help_dedup_t *px_help_dedup_create(int flags)
{
    px_help_dedup_t *d;

    if ((flags & ~PX_HELP_DEDUP_BY_TEXT) != 0) {
        errno = EINVAL;
        return NULL;
    }
    d = calloc(1, sizeof(*d));
    if (d == NULL) {
        goto error;
    }
    d->flags = flags;
    d->nslots = 16;
    d->slots = calloc(d->nslots, sizeof(d->slots[0]));
    if (d->slots == NULL) {
        goto error;
    }
    if ((errno = pthread_mutex_init(&d->lock, NULL)) != 0) {
        goto error;
    }
    return d;
error:
    if (d != NULL) {
        free(d->slots);
        free(d);
    }
    if (errno == 0) {
        errno = ENOMEM;
    }
    return NULL;
}

void px_help_dedup_destroy(px_help_dedup_t *d)
{
    if (d == NULL) {
        return;
    }
    for (size_t i = 0; i < d->n; i++) {
        free(d->entries[i].file);
        free(d->entries[i].topic);
        free(d->entries[i].text);
    }
    free(d->entries);
    free(d->slots);
    pthread_mutex_destroy(&d->lock);
    free(d);
}

/* Slot holding (file, topic, text) or the empty slot where it would go. Locked. */
static size_t px_help_dedup_slot(const px_help_dedup_t *d, uint64_t h, const char *file,
                                 const char *topic, const char *text)
{
    size_t mask = d->nslots - 1;
    size_t i = (size_t)h & mask;

    while (d->slots[i] != 0) {
        const struct px_help_dedup_entry *e = &d->entries[d->slots[i] - 1];

        if (e->hash == h && strcmp(e->file, file) == 0 && strcmp(e->topic, topic) == 0 &&
            strcmp(e->text, text) == 0) {
            break;
        }
        i = (i + 1) & mask;
    }
    return i;
}

/* Double the hash and re-insert every entry. Locked. */
static int px_help_dedup_grow_slots(px_help_dedup_t *d)
{
    size_t nslots = d->nslots * 2;
    size_t *slots = calloc(nslots, sizeof(slots[0]));

    if (slots == NULL) {
        return -1;
    }
    for (size_t k = 0; k < d->n; k++) {
        size_t i = (size_t)d->entries[k].hash & (nslots - 1);

        while (slots[i] != 0) {
            i = (i + 1) & (nslots - 1);
        }
        slots[i] = k + 1;
    }
    free(d->slots);
    d->slots = slots;
    d->nslots = nslots;
    return 0;
}

/* Add an entry for the empty slot; returns it, or NULL with errno. Locked. */
static struct px_help_dedup_entry *px_help_dedup_add(px_help_dedup_t *d, size_t slot, uint64_t h,
                                                     const char *file, const char *topic,
                                                     const char *text)
{
    struct px_help_dedup_entry e = {.hash = h};

    if (d->n == d->cap) {
        size_t cap = d->cap != 0 ? d->cap * 2 : 8;
        struct px_help_dedup_entry *p = realloc(d->entries, cap * sizeof(*p));

        if (p == NULL) {
            return NULL;
        }
        d->entries = p;
        d->cap = cap;
    }
    e.file = strdup(file);
    e.topic = strdup(topic);
    e.text = strdup(text);
    if (e.file == NULL || e.topic == NULL || e.text == NULL) {
        goto error;
    }
    if (2 * (d->n + 1) > d->nslots) {
        if (px_help_dedup_grow_slots(d) < 0) {
            goto error;
        }
        slot = px_help_dedup_slot(d, h, file, topic, text);
    }
    d->entries[d->n] = e;
    d->slots[slot] = ++d->n;
    return &d->entries[d->n - 1];
error:
    free(e.file);
    free(e.topic);
    free(e.text);
    errno = ENOMEM;
    return NULL;
}

/* Key text for this table: the message text only when keyed by text. */
static const char *px_help_dedup_key_text(const px_help_dedup_t *d, const char *text)
{
    return (d->flags & PX_HELP_DEDUP_BY_TEXT) != 0 && text != NULL ? text : "";
}

int px_help_dedup_note(px_help_dedup_t *d, const char *file, const char *topic, const char *text)
{
    struct px_help_dedup_entry *e;
    uint64_t h;
    size_t slot;
    int rc;

    if (d == NULL || file == NULL || topic == NULL) {
        errno = EINVAL;
        return -1;
    }
    text = px_help_dedup_key_text(d, text);
    h = px_help_dedup_hash(file, topic, text);
    pthread_mutex_lock(&d->lock);
    slot = px_help_dedup_slot(d, h, file, topic, text);
    if (d->slots[slot] != 0) {
        e = &d->entries[d->slots[slot] - 1];
        e->count++;
        e->pending++;
        rc = 0;
    } else if ((e = px_help_dedup_add(d, slot, h, file, topic, text)) != NULL) {
        e->count = 1;
        rc = 1;
    } else {
        rc = -1;
    }
    pthread_mutex_unlock(&d->lock);
    return rc;
}

unsigned long px_help_dedup_count(px_help_dedup_t *d, const char *file, const char *topic,
                                  const char *text)
{
    unsigned long count = 0;
    uint64_t h;
    size_t slot;

    if (d == NULL || file == NULL || topic == NULL) {
        return 0;
    }
    text = px_help_dedup_key_text(d, text);
    h = px_help_dedup_hash(file, topic, text);
    pthread_mutex_lock(&d->lock);
    slot = px_help_dedup_slot(d, h, file, topic, text);
    if (d->slots[slot] != 0) {
        count = d->entries[d->slots[slot] - 1].count;
    }
    pthread_mutex_unlock(&d->lock);
    return count;
}

int px_help_dedup_show_text(px_help_dedup_t *d, FILE *out, const char *file, const char *topic,
                            const char *text)
{
    int first;

    if (text == NULL) {
        errno = EINVAL;
        return -1;
    }
    first = px_help_dedup_note(d, file, topic, text);
    if (first == 1 && px_help_fput(out, text) < 0) {
        return -1;
    }
    return first;
}

int px_help_dedup_show(px_help_dedup_t *d, const char *file, const char *topic, ...)
{
    va_list ap;
    int missing;
    int rc;
    char *s;

    va_start(ap, topic);
    s = px_help_vrender_or_missing(file, topic, ap, &missing);
    va_end(ap);
    if (s == NULL) {
        return -1;
    }
    rc = px_help_dedup_show_text(d, stderr, file != NULL ? file : "(null)",
                                 topic != NULL ? topic : "(null)", s);
    free(s);
    if (rc >= 0 && missing) {
        errno = ENOENT;
        rc = -1;
    }
    return rc;
}

char *px_help_dedup_summary(px_help_dedup_t *d)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem;

    if (d == NULL) {
        errno = EINVAL;
        return NULL;
    }
    mem = open_memstream(&buf, &len);
    if (mem == NULL) {
        return NULL;
    }
    pthread_mutex_lock(&d->lock);
    /* With PX_HELP_DEDUP_BY_TEXT one (file, topic) may have several entries; report
     * their sum once, on the first of them. n is small (distinct messages). */
    for (size_t i = 0; i < d->n; i++) {
        struct px_help_dedup_entry *e = &d->entries[i];
        unsigned long pending = e->pending;

        if (pending == 0) {
            continue;
        }
        for (size_t j = i + 1; j < d->n; j++) {
            struct px_help_dedup_entry *f = &d->entries[j];

            if (f->pending != 0 && strcmp(f->file, e->file) == 0 &&
                strcmp(f->topic, e->topic) == 0) {
                pending += f->pending;
                f->pending = 0;
            }
        }
        e->pending = 0;
        fprintf(mem, "%lu more %s sent help message %s / %s\n", pending,
                pending == 1 ? "process" : "processes", e->file, e->topic);
    }
    pthread_mutex_unlock(&d->lock);
    if (fclose(mem) != 0) {
        free(buf);
        errno = ENOMEM;
        return NULL;
    }
    return buf;
}

int px_help_dedup_flush(px_help_dedup_t *d, FILE *out)
{
    char *s = px_help_dedup_summary(d);
    int lines = 0;

    if (s == NULL) {
        return -1;
    }
    for (const char *p = s; *p != '\0'; p++) {
        lines += *p == '\n';
    }
    if (lines > 0 && (fputs(s, out) == EOF || fflush(out) != 0)) {
        lines = -1;
    }
    free(s);
    return lines;
}
