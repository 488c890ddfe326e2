/* regex: per-node rank lists <-> "pmix:" ppn regex (PMIX_PROC_MAP); the grammar and our
 * reading of the Standard's "Kx(D)" form are described in px_regex.h. Pure functions,
 * any thread. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "regex/px_regex.h"
#include "regex/regex_int.h"

/* Ranks must stay below PMIX_RANK_VALID (UINT32_MAX - 50). */
#define PX_REGEX_MAX_RANK (UINT32_MAX - 51u)

struct ppn_range {
    uint32_t first;
    uint32_t last;
};

/* Ranges of all nodes back to back; node i owns ranges [node[i], node[i + 1]). Adjacent
 * ranges of a node that continue each other are merged as they are added, so a node's
 * ranges are its canonical ascending +1 runs. */
struct ppn_map {
    struct ppn_range *r; /* owned */
    size_t nr, rcap;
    size_t *node; /* owned; nn + 1 entries once complete */
    size_t nn, ncap;
    uint64_t nranks; /* ranks listed so far */
    int bounded;     /* enforce PX_REGEX_MAX_ENTRIES on nranks (expanding parsers) */
};

static void map_release(struct ppn_map *m)
{
    free(m->r);
    free(m->node);
    memset(m, 0, sizeof(*m));
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    size_t cap2;
    void *q;

    if (need <= *cap)
        return 0;
    cap2 = *cap ? *cap * 2 : 16;
    if (cap2 < need)
        cap2 = need;
    q = cap2 > SIZE_MAX / elem ? NULL : realloc(*p, cap2 * elem);
    if (!q) {
        errno = ENOMEM;
        return -1;
    }
    *p = q;
    *cap = cap2;
    return 0;
}

static int map_add_node(struct ppn_map *m)
{
    if (m->nn >= PX_REGEX_MAX_ENTRIES) {
        errno = E2BIG;
        return -1;
    }
    if (grow((void **)&m->node, &m->ncap, m->nn + 2, sizeof(*m->node)) < 0)
        return -1;
    m->node[m->nn++] = m->nr;
    m->node[m->nn] = m->nr;
    return 0;
}

static int map_add_range(struct ppn_map *m, uint32_t first, uint32_t last)
{
    m->nranks += (uint64_t)last - first + 1;
    if (m->bounded && m->nranks > PX_REGEX_MAX_ENTRIES) {
        errno = E2BIG;
        return -1;
    }
    if (m->nr > m->node[m->nn - 1] && m->r[m->nr - 1].last + 1ull == first) {
        m->r[m->nr - 1].last = last;
        return 0;
    }
    if (grow((void **)&m->r, &m->rcap, m->nr + 1, sizeof(*m->r)) < 0)
        return -1;
    m->r[m->nr].first = first;
    m->r[m->nr].last = last;
    m->nr++;
    m->node[m->nn] = m->nr;
    return 0;
}

/* Read a decimal number no larger than max; advances *s. */
static int read_num(const char **s, const char *end, uint64_t max, uint64_t *v)
{
    const char *p = *s;

    *v = 0;
    if (p == end || *p < '0' || *p > '9')
        return -1;
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        *v = *v * 10 + (uint64_t)(*p - '0');
        if (*v > max)
            return -1;
    }
    *s = p;
    return 0;
}

/* One field "R,R-S,..." of n bytes: adds a node. */
static int parse_list_field(const char *s, const char *end, struct ppn_map *m)
{
    uint64_t a, b;

    if (map_add_node(m) < 0)
        return -1;
    for (;;) {
        if (read_num(&s, end, PX_REGEX_MAX_RANK, &a) < 0)
            goto error;
        b = a;
        if (s < end && *s == '-') {
            s++;
            if (read_num(&s, end, PX_REGEX_MAX_RANK, &b) < 0 || b < a)
                goto error;
        }
        if (map_add_range(m, (uint32_t)a, (uint32_t)b) < 0)
            return -1;
        if (s == end)
            return 0;
        if (*s++ != ',')
            goto error;
    }
error:
    errno = EINVAL;
    return -1;
}

/* One field "Kx(D)": K nodes of D+1 ranks, each starting one after the previous node's
 * first rank (see px_regex.h); base is the first rank of the node before the field. */
static int parse_repeat_field(const char *s, const char *end, uint64_t base, struct ppn_map *m)
{
    uint64_t k, d, i, first;

    if (read_num(&s, end, PX_REGEX_MAX_ENTRIES, &k) < 0 || k == 0)
        goto error;
    if (end - s < 3 || s[0] != 'x' || s[1] != '(')
        goto error;
    s += 2;
    if (read_num(&s, end, PX_REGEX_MAX_RANK, &d) < 0 || end - s != 1 || *s != ')')
        goto error;
    /* last rank of the group: base + k + d */
    if (base + k + d > PX_REGEX_MAX_RANK)
        goto error;
    if (k > PX_REGEX_MAX_ENTRIES - m->nn ||
        (m->bounded && k * (d + 1) > PX_REGEX_MAX_ENTRIES - m->nranks)) {
        errno = E2BIG;
        return -1;
    }
    for (i = 0; i < k; i++) {
        first = base + 1 + i;
        if (map_add_node(m) < 0 || map_add_range(m, (uint32_t)first, (uint32_t)(first + d)) < 0)
            return -1;
    }
    return 0;
error:
    errno = EINVAL;
    return -1;
}

/* Parse ';' separated fields; "Kx(D)" fields only if allow_repeat. */
static int parse_map(const char *s, int allow_repeat, struct ppn_map *m)
{
    const char *end;
    uint64_t base = 0;
    int rc;

    for (;;) {
        end = strchr(s, ';');
        if (!end)
            end = s + strlen(s);
        if (end == s) {
            errno = EINVAL;
            return -1;
        }
        if (allow_repeat && memchr(s, 'x', (size_t)(end - s)))
            rc = parse_repeat_field(s, end, base, m);
        else
            rc = parse_list_field(s, end, m);
        if (rc < 0)
            return -1;
        base = m->r[m->node[m->nn - 1]].first;
        if (*end == '\0')
            return 0;
        s = end + 1;
    }
}

static void put_range(struct px_regex_buf *b, const struct ppn_range *r)
{
    px_regex_buf_put_u64(b, r->first, 0);
    if (r->last != r->first) {
        px_regex_buf_putc(b, '-');
        px_regex_buf_put_u64(b, r->last, 0);
    }
}

/* Does node i hold a single block of d+1 ranks starting at first? */
static int is_block(const struct ppn_map *m, size_t i, uint64_t first, uint64_t d)
{
    const struct ppn_range *r = &m->r[m->node[i]];

    return m->node[i + 1] - m->node[i] == 1 && r->first == first && r->last - r->first == d;
}

int px_regex_generate_ppn(const char *input, char **out)
{
    struct ppn_map m = {0};
    struct px_regex_buf b;
    uint64_t base = 0, d;
    size_t i, j, k;
    int saved;

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
    if (parse_map(input, 0, &m) < 0)
        goto error;

    px_regex_buf_append(&b, PX_REGEX_PREFIX, strlen(PX_REGEX_PREFIX));
    for (i = 0; i < m.nn; i = j) {
        if (i)
            px_regex_buf_putc(&b, ';');
        d = m.r[m.node[i]].last - (uint64_t)m.r[m.node[i]].first;
        j = i;
        while (j < m.nn && is_block(&m, j, base + 1 + (j - i), d))
            j++;
        if (j - i >= 2) {
            px_regex_buf_put_u64(&b, j - i, 0);
            px_regex_buf_append(&b, "x(", 2);
            px_regex_buf_put_u64(&b, d, 0);
            px_regex_buf_putc(&b, ')');
        } else {
            for (k = m.node[i]; k < m.node[i + 1]; k++) {
                if (k != m.node[i])
                    px_regex_buf_putc(&b, ',');
                put_range(&b, &m.r[k]);
            }
            j = i + 1;
        }
        base = m.r[m.node[j - 1]].first;
    }
    if (px_regex_buf_finish(&b, out) < 0)
        goto error;
    map_release(&m);
    return 0;
error:
    saved = errno;
    px_regex_buf_release(&b);
    map_release(&m);
    errno = saved;
    return -1;
}

int px_regex_parse_ppn(const char *regex, char ***per_node_ranks)
{
    struct ppn_map m = {0};
    struct px_regex_strlist list;
    const char *body;
    uint64_t v;
    size_t i, k;
    int is_raw, saved;

    px_regex_strlist_init(&list);
    if (!per_node_ranks) {
        errno = EINVAL;
        return -1;
    }
    *per_node_ranks = NULL;
    if (!regex) {
        errno = EINVAL;
        return -1;
    }
    body = px_regex_body(regex, &is_raw);
    if (!body)
        return -1;
    m.bounded = 1;
    if (parse_map(body, !is_raw, &m) < 0)
        goto error;
    for (i = 0; i < m.nn; i++) {
        px_regex_strlist_begin(&list);
        for (k = m.node[i]; k < m.node[i + 1]; k++) {
            for (v = m.r[k].first; v <= m.r[k].last; v++) {
                if (k != m.node[i] || v != m.r[k].first)
                    px_regex_buf_putc(&list.text, ',');
                px_regex_buf_put_u64(&list.text, v, 0);
            }
        }
        px_regex_strlist_end(&list);
    }
    if (px_regex_strlist_to_argv(&list, per_node_ranks) < 0)
        goto error;
    map_release(&m);
    px_regex_strlist_release(&list);
    return 0;
error:
    saved = errno;
    map_release(&m);
    px_regex_strlist_release(&list);
    errno = saved;
    return -1;
}
