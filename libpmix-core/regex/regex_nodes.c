/* regex: node-name lists <-> "pmix:" node regex (PMIX_NODE_MAP); grammar and canonical
 * form are described in px_regex.h. Pure functions, any thread. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "regex/px_regex.h"
#include "regex/regex_int.h"

/* Longest digit run we treat as a number: 18 digits always fit in uint64_t, and
 * value + 1 cannot overflow. */
#define PX_REGEX_MAX_DIGITS 18

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Parse a bracket item "A" or "A-B" of n bytes. *width is the digit count of A. */
static int parse_item(const char *s, size_t n, uint64_t *first, uint64_t *last, size_t *width)
{
    uint64_t v[2] = {0, 0};
    size_t i = 0, k, nd;

    for (k = 0; k < 2; k++) {
        nd = 0;
        while (i < n && is_digit(s[i])) {
            if (++nd > PX_REGEX_MAX_DIGITS)
                return -1;
            v[k] = v[k] * 10 + (uint64_t)(s[i] - '0');
            i++;
        }
        if (nd == 0)
            return -1;
        if (k == 0) {
            *width = nd;
            if (i == n) {
                v[1] = v[0];
                break;
            }
            if (s[i] != '-')
                return -1;
            i++;
        }
    }
    if (i != n || v[1] < v[0])
        return -1;
    *first = v[0];
    *last = v[1];
    return 0;
}

/* Expand one element of a list ("name" or "pre[items]suf") into out. */
static int expand_element(const char *e, size_t n, struct px_regex_strlist *out)
{
    const char *open, *close, *items, *p, *comma;
    size_t pre_len, suf_len, items_len, width, ilen;
    uint64_t first, last, v, count = 0, bytes = 0;
    int pass, err = EINVAL;

    if (n == 0)
        goto error;
    open = memchr(e, '[', n);
    if (!open) {
        if (out->text.len + n + 1 > PX_REGEX_MAX_BYTES || out->n >= PX_REGEX_MAX_ENTRIES) {
            err = E2BIG;
            goto error;
        }
        px_regex_strlist_begin(out);
        px_regex_buf_append(&out->text, e, n);
        px_regex_strlist_end(out);
        return 0;
    }
    /* The caller checked that brackets are balanced and not nested. */
    close = memchr(open, ']', n - (size_t)(open - e));
    pre_len = (size_t)(open - e);
    items = open + 1;
    items_len = (size_t)(close - items);
    suf_len = n - pre_len - items_len - 2;
    if (memchr(close + 1, '[', suf_len))
        goto error; /* one bracket group per name */

    /* Pass 0 validates and bounds the expansion; pass 1 emits it. */
    for (pass = 0; pass < 2; pass++) {
        p = items;
        do {
            comma = memchr(p, ',', items_len - (size_t)(p - items));
            ilen = comma ? (size_t)(comma - p) : items_len - (size_t)(p - items);
            if (parse_item(p, ilen, &first, &last, &width) < 0)
                goto error;
            if (pass == 0) {
                /* count stays <= the limit, so neither sum can overflow */
                count += last - first + 1;
                if (count > PX_REGEX_MAX_ENTRIES - out->n) {
                    err = E2BIG;
                    goto error;
                }
                /* bytes per name: prefix, suffix, at most 18 digits, NUL */
                bytes += (last - first + 1) * (pre_len + suf_len + PX_REGEX_MAX_DIGITS + 1);
                if (bytes > PX_REGEX_MAX_BYTES - out->text.len) {
                    err = E2BIG;
                    goto error;
                }
            } else {
                for (v = first;; v++) {
                    px_regex_strlist_begin(out);
                    px_regex_buf_append(&out->text, e, pre_len);
                    px_regex_buf_put_u64(&out->text, v, width);
                    px_regex_buf_append(&out->text, close + 1, suf_len);
                    px_regex_strlist_end(out);
                    if (v == last)
                        break;
                }
            }
            p = comma ? comma + 1 : NULL;
        } while (p);
    }
    return 0;
error:
    errno = err;
    return -1;
}

/* Expand a ',' separated list whose elements may carry one bracket group each. */
static int expand_list(const char *s, struct px_regex_strlist *out)
{
    size_t i, start = 0;
    int depth = 0;

    for (i = 0;; i++) {
        char c = s[i];
        if (c == '[') {
            if (depth)
                goto error;
            depth = 1;
        } else if (c == ']') {
            if (!depth)
                goto error;
            depth = 0;
        } else if ((c == ',' && !depth) || c == '\0') {
            if (c == '\0' && depth)
                goto error;
            if (expand_element(s + start, i - start, out) < 0)
                return -1;
            start = i + 1;
            if (c == '\0')
                break;
        }
    }
    if (out->failed || out->text.failed) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
error:
    errno = EINVAL;
    return -1;
}

/* A name split at its last digit run: name = prefix + digits + suffix. */
struct name_parts {
    const char *name; /* borrowed from the expanded list */
    size_t len;
    size_t pre_len;
    size_t dig_len; /* 0: not numbered (no digits, or too many) */
    uint64_t val;
};

static void split_name(const char *name, struct name_parts *np)
{
    size_t end, start, i;

    np->name = name;
    np->len = strlen(name);
    np->dig_len = 0;
    np->val = 0;
    end = np->len;
    while (end > 0 && !is_digit(name[end - 1]))
        end--;
    start = end;
    while (start > 0 && is_digit(name[start - 1]))
        start--;
    if (end == 0 || end - start > PX_REGEX_MAX_DIGITS)
        return;
    np->pre_len = start;
    np->dig_len = end - start;
    for (i = start; i < end; i++)
        np->val = np->val * 10 + (uint64_t)(name[i] - '0');
}

static int same_affixes(const struct name_parts *a, const struct name_parts *b)
{
    size_t a_suf = a->len - a->pre_len - a->dig_len;
    size_t b_suf = b->len - b->pre_len - b->dig_len;

    return b->dig_len && a->pre_len == b->pre_len && a_suf == b_suf &&
           !memcmp(a->name, b->name, a->pre_len) &&
           !memcmp(a->name + a->len - a_suf, b->name + b->len - b_suf, a_suf);
}

static size_t num_digits(uint64_t v)
{
    size_t n = 1;

    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* Write the bracket items of names [i, j) that share prefix and suffix. A run "A-B" is
 * taken while values go up by one and each name's digits are exactly its value printed
 * with at least A's width, which is how the parser expands it back. */
static void put_items(struct px_regex_buf *b, const struct name_parts *np, size_t i, size_t j)
{
    size_t k = i, m, w, nd;

    while (k < j) {
        w = np[k].dig_len;
        for (m = k + 1; m < j; m++) {
            nd = num_digits(np[m].val);
            if (np[m].val != np[m - 1].val + 1 || np[m].dig_len != (nd > w ? nd : w))
                break;
        }
        if (k != i)
            px_regex_buf_putc(b, ',');
        px_regex_buf_append(b, np[k].name + np[k].pre_len, np[k].dig_len);
        if (m - k > 1) {
            px_regex_buf_putc(b, '-');
            px_regex_buf_append(b, np[m - 1].name + np[m - 1].pre_len, np[m - 1].dig_len);
        }
        k = m;
    }
}

int px_regex_generate_nodes(const char *input, char **out)
{
    struct px_regex_strlist names;
    struct px_regex_buf b;
    struct name_parts *np = NULL;
    size_t i, j, suf;
    int saved;

    px_regex_strlist_init(&names);
    px_regex_buf_init(&b);
    if (!out) {
        errno = EINVAL;
        return -1;
    }
    *out = NULL;
    if (!input) {
        errno = EINVAL;
        goto error;
    }
    if (expand_list(input, &names) < 0)
        goto error;
    np = malloc(names.n * sizeof(*np));
    if (!np) {
        errno = ENOMEM;
        goto error;
    }
    for (i = 0; i < names.n; i++)
        split_name(names.text.data + names.off[i], &np[i]);

    px_regex_buf_append(&b, PX_REGEX_PREFIX, strlen(PX_REGEX_PREFIX));
    for (i = 0; i < names.n; i = j) {
        for (j = i + 1; np[i].dig_len && j < names.n && same_affixes(&np[i], &np[j]); j++)
            ;
        if (i)
            px_regex_buf_putc(&b, ',');
        if (j - i == 1) {
            px_regex_buf_append(&b, np[i].name, np[i].len);
            continue;
        }
        suf = np[i].len - np[i].pre_len - np[i].dig_len;
        px_regex_buf_append(&b, np[i].name, np[i].pre_len);
        px_regex_buf_putc(&b, '[');
        put_items(&b, np, i, j);
        px_regex_buf_putc(&b, ']');
        px_regex_buf_append(&b, np[i].name + np[i].len - suf, suf);
    }
    if (px_regex_buf_finish(&b, out) < 0)
        goto error;
    free(np);
    px_regex_strlist_release(&names);
    return 0;
error:
    saved = errno;
    free(np);
    px_regex_buf_release(&b);
    px_regex_strlist_release(&names);
    errno = saved;
    return -1;
}

int px_regex_parse_nodes(const char *regex, char ***names)
{
    struct px_regex_strlist list;
    const char *body;
    int is_raw, saved;

    px_regex_strlist_init(&list);
    if (!names) {
        errno = EINVAL;
        return -1;
    }
    *names = NULL;
    if (!regex) {
        errno = EINVAL;
        return -1;
    }
    /* "raw:" carries an unprocessed generator input, which has the same grammar. */
    body = px_regex_body(regex, &is_raw);
    if (!body)
        return -1;
    if (expand_list(body, &list) < 0 || px_regex_strlist_to_argv(&list, names) < 0)
        goto error;
    px_regex_strlist_release(&list);
    return 0;
error:
    saved = errno;
    px_regex_strlist_release(&list);
    errno = saved;
    return -1;
}
