/* regex: growable text, string lists and identifier handling shared by the node and
 * ppn code of this area. Any thread; no shared state. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "regex/px_regex.h"
#include "regex/regex_int.h"

void px_regex_buf_init(struct px_regex_buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->failed = 0;
}

/* Make room for n more bytes plus a terminating NUL. */
static int buf_reserve(struct px_regex_buf *b, size_t n)
{
    size_t need, cap;
    char *p;

    if (b->failed)
        return -1;
    if (n > SIZE_MAX - b->len - 1)
        goto error;
    need = b->len + n + 1;
    if (need <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    p = realloc(b->data, cap);
    if (!p)
        goto error;
    b->data = p;
    b->cap = cap;
    return 0;
error:
    b->failed = 1;
    return -1;
}

void px_regex_buf_append(struct px_regex_buf *b, const char *s, size_t n)
{
    if (buf_reserve(b, n) < 0)
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
}

void px_regex_buf_putc(struct px_regex_buf *b, char c)
{
    if (buf_reserve(b, 1) < 0)
        return;
    b->data[b->len++] = c;
}

void px_regex_buf_put_u64(struct px_regex_buf *b, uint64_t v, size_t width)
{
    char tmp[24];
    size_t i = sizeof(tmp);

    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v && i > 0);
    while (sizeof(tmp) - i < width && i > 0)
        tmp[--i] = '0';
    px_regex_buf_append(b, tmp + i, sizeof(tmp) - i);
}

int px_regex_buf_finish(struct px_regex_buf *b, char **out)
{
    *out = NULL;
    if (buf_reserve(b, 0) < 0) {
        px_regex_buf_release(b);
        errno = ENOMEM;
        return -1;
    }
    b->data[b->len] = '\0';
    *out = b->data;
    px_regex_buf_init(b);
    return 0;
}

void px_regex_buf_release(struct px_regex_buf *b)
{
    free(b->data);
    px_regex_buf_init(b);
}

void px_regex_strlist_init(struct px_regex_strlist *l)
{
    px_regex_buf_init(&l->text);
    l->off = NULL;
    l->n = 0;
    l->cap = 0;
    l->failed = 0;
}

void px_regex_strlist_begin(struct px_regex_strlist *l)
{
    size_t *p;
    size_t cap;

    if (l->failed)
        return;
    if (l->n == l->cap) {
        cap = l->cap ? l->cap * 2 : 16;
        p = cap > SIZE_MAX / sizeof(*p) ? NULL : realloc(l->off, cap * sizeof(*p));
        if (!p) {
            l->failed = 1;
            return;
        }
        l->off = p;
        l->cap = cap;
    }
    l->off[l->n++] = l->text.len;
}

void px_regex_strlist_end(struct px_regex_strlist *l)
{
    px_regex_buf_putc(&l->text, '\0');
}

int px_regex_strlist_to_argv(struct px_regex_strlist *l, char ***argv)
{
    char **v = NULL;
    size_t i, len;

    *argv = NULL;
    if (l->failed || l->text.failed)
        goto error;
    v = calloc(l->n + 1, sizeof(*v));
    if (!v)
        goto error;
    for (i = 0; i < l->n; i++) {
        len = strlen(l->text.data + l->off[i]);
        v[i] = malloc(len + 1);
        if (!v[i])
            goto error;
        memcpy(v[i], l->text.data + l->off[i], len + 1);
    }
    *argv = v;
    return 0;
error:
    px_regex_argv_free(v);
    errno = ENOMEM;
    return -1;
}

void px_regex_strlist_release(struct px_regex_strlist *l)
{
    px_regex_buf_release(&l->text);
    free(l->off);
    px_regex_strlist_init(l);
}

void px_regex_argv_free(char **argv)
{
    size_t i;

    if (!argv)
        return;
    for (i = 0; argv[i]; i++)
        free(argv[i]);
    free(argv);
}

const char *px_regex_body(const char *regex, int *is_raw)
{
    *is_raw = 0;
    if (!strncmp(regex, PX_REGEX_PREFIX, strlen(PX_REGEX_PREFIX)))
        return regex + strlen(PX_REGEX_PREFIX);
    if (!strncmp(regex, "raw:", 4)) {
        *is_raw = 1;
        return regex + 4;
    }
    errno = strncmp(regex, "blob:", 5) ? EINVAL : ENOTSUP;
    return NULL;
}
