/* types: pmix_cpuset_t / pmix_topology_t backed by hwloc: copy, release, compare, text
 * forms for the wire and the printer, and the process's local topology (px_hwtypes.h).
 * Pure functions on caller memory, any thread; the local topology is under a mutex. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "types/px_hwtypes.h"
#include "types/px_types.h"

bool px_hw_is_source(const char *source)
{
    return source != NULL && strcasecmp(source, PX_HW_SOURCE) == 0;
}

static pmix_status_t dup_source(char **dest, const char *src)
{
    return px_types_strdup(dest, src) ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

static pmix_value_cmp_t cmp_source(const char *a, const char *b)
{
    if (a == NULL || b == NULL) {
        return a == b ? PMIX_EQUAL : a == NULL ? PMIX_VALUE2_GREATER : PMIX_VALUE1_GREATER;
    }
    int c = strcasecmp(a, b);
    return c == 0 ? PMIX_EQUAL : c > 0 ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER;
}

/* ---- cpusets ---- */

void px_hw_cpuset_release(pmix_cpuset_t *c)
{
    if (c->bitmap != NULL && px_hw_is_source(c->source)) {
        hwloc_bitmap_free(c->bitmap);
    }
    free(c->source);
    c->source = NULL;
    c->bitmap = NULL;
}

pmix_status_t px_hw_cpuset_copy(pmix_cpuset_t *dest, const pmix_cpuset_t *src)
{
    if (src->bitmap != NULL && !px_hw_is_source(src->source)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    pmix_status_t rc = dup_source(&dest->source, src->source);
    if (rc == PMIX_SUCCESS && src->bitmap != NULL &&
        (dest->bitmap = hwloc_bitmap_dup(src->bitmap)) == NULL) {
        rc = PMIX_ERR_NOMEM;
    }
    return rc;
}

pmix_value_cmp_t px_hw_cpuset_cmp(const pmix_cpuset_t *a, const pmix_cpuset_t *b)
{
    pmix_value_cmp_t c = cmp_source(a->source, b->source);
    if (c != PMIX_EQUAL || a->bitmap == b->bitmap) {
        return c;
    }
    if (a->bitmap == NULL || b->bitmap == NULL) {
        return a->bitmap == NULL ? PMIX_VALUE2_GREATER : PMIX_VALUE1_GREATER;
    }
    if (!px_hw_is_source(a->source)) {
        return PMIX_VALUE_COMPARISON_NOT_AVAIL;
    }
    /* hwloc orders bitmaps by their highest index; equal ones compare 0 */
    int r = hwloc_bitmap_compare(a->bitmap, b->bitmap);
    return r == 0 ? PMIX_EQUAL : r > 0 ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER;
}

pmix_status_t px_hw_cpuset_text(const pmix_cpuset_t *c, char **text)
{
    *text = NULL;
    if (c->bitmap == NULL) {
        return PMIX_SUCCESS;
    }
    if (!px_hw_is_source(c->source)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    return hwloc_bitmap_list_asprintf(text, c->bitmap) < 0 ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

/* "", or comma-separated "a" / "a-b" (a <= b) with every index below PX_HW_MAX_PU; the
 * last may be "a-" (every index from a on: hwloc's infinite sets). */
static bool list_ok(const char *s)
{
    while (*s != '\0') {
        unsigned long lo = 0, hi;
        const char *p = s;
        while (*p >= '0' && *p <= '9' && lo < PX_HW_MAX_PU) {
            lo = lo * 10 + (unsigned long)(*p++ - '0');
        }
        if (p == s || lo >= PX_HW_MAX_PU) {
            return false;
        }
        if (*p == '-') {
            const char *q = ++p;
            hi = 0;
            while (*p >= '0' && *p <= '9' && hi < PX_HW_MAX_PU) {
                hi = hi * 10 + (unsigned long)(*p++ - '0');
            }
            if (p == q) {
                return *p == '\0'; /* "a-": only last */
            }
            if (hi >= PX_HW_MAX_PU || hi < lo) {
                return false;
            }
        }
        if (*p == ',') {
            p++;
            if (*p == '\0') {
                return false;
            }
        } else if (*p != '\0') {
            return false;
        }
        s = p;
    }
    return true;
}

pmix_status_t px_hw_cpuset_from_text(pmix_cpuset_t *c, const char *text)
{
    c->bitmap = NULL;
    if (text == NULL) {
        return PMIX_SUCCESS;
    }
    if (!px_hw_is_source(c->source)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    if (!list_ok(text)) {
        return PMIX_ERR_BAD_PARAM;
    }
    hwloc_bitmap_t bm = hwloc_bitmap_alloc();
    if (bm == NULL) {
        return PMIX_ERR_NOMEM;
    }
    if (hwloc_bitmap_list_sscanf(bm, text) != 0) {
        hwloc_bitmap_free(bm);
        return PMIX_ERR_BAD_PARAM;
    }
    c->bitmap = bm;
    return PMIX_SUCCESS;
}

char *px_hw_cpuset_describe(const pmix_cpuset_t *c)
{
    char *list = NULL, *out = NULL;
    if (px_hw_cpuset_text(c, &list) == PMIX_ERR_NOT_SUPPORTED) {
        list = strdup("(opaque)");
    }
    if (asprintf(&out, "source=%s cpus=%s", c->source ? c->source : "(null)",
                 list ? list : "(none)") < 0) {
        out = NULL;
    }
    free(list);
    return out;
}

/* ---- topologies ---- */

static pthread_mutex_t local_lock = PTHREAD_MUTEX_INITIALIZER;
static hwloc_topology_t local_topo; /* owned: the one PMIx_Load_topology hands out */
static bool local_lent;             /* local_topo was handed out (px_hw_local_lend) */
/* Lent local topologies of earlier init/finalize cycles: kept (never destroyed) so that a
 * caller's pmix_topology_t still pointing at one stays valid and its destruct leaves it;
 * one per cycle that lent one. Owned. */
static hwloc_topology_t *retired;
static size_t nretired;

hwloc_topology_t px_hw_local_topology(void)
{
    pthread_mutex_lock(&local_lock);
    hwloc_topology_t t = local_topo;
    pthread_mutex_unlock(&local_lock);
    return t;
}

hwloc_topology_t px_hw_local_set(hwloc_topology_t t)
{
    pthread_mutex_lock(&local_lock);
    if (local_topo == NULL) {
        local_topo = t;
        local_lent = false;
    } else if (t != NULL && t != local_topo) {
        hwloc_topology_destroy(t);
    }
    t = local_topo;
    pthread_mutex_unlock(&local_lock);
    return t;
}

hwloc_topology_t px_hw_local_lend(void)
{
    pthread_mutex_lock(&local_lock);
    hwloc_topology_t t = local_topo;
    local_lent = local_lent || t != NULL;
    pthread_mutex_unlock(&local_lock);
    return t;
}

/* t is the library's: the local topology or a retired one. Lock held. */
static bool library_owned(const void *t)
{
    if (t == (const void *)local_topo) {
        return true;
    }
    for (size_t i = 0; i < nretired; i++) {
        if (t == (const void *)retired[i]) {
            return true;
        }
    }
    return false;
}

void px_hw_local_fini(void)
{
    pthread_mutex_lock(&local_lock);
    if (local_topo != NULL && local_lent) {
        hwloc_topology_t *grown = realloc(retired, (nretired + 1) * sizeof(*grown));
        if (grown != NULL) {
            retired = grown;
            retired[nretired++] = local_topo;
        }
        /* out of memory: left allocated all the same (unreachable, never freed twice) */
    } else if (local_topo != NULL) {
        hwloc_topology_destroy(local_topo);
    }
    local_topo = NULL;
    local_lent = false;
    pthread_mutex_unlock(&local_lock);
}

hwloc_topology_t px_hw_discover(void)
{
    hwloc_topology_t t;
    if (hwloc_topology_init(&t) != 0) {
        return NULL;
    }
    /* caches stay (they make the locality string); I/O devices are not wanted */
    if (hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE) != 0 ||
        hwloc_topology_load(t) != 0) {
        int e = errno;
        hwloc_topology_destroy(t);
        errno = e;
        return NULL;
    }
    return t;
}

hwloc_topology_t px_hw_from_xml(const char *xml, bool this_system)
{
    hwloc_topology_t t;
    size_t len = strlen(xml);
    if (len >= (size_t)INT32_MAX || hwloc_topology_init(&t) != 0) {
        errno = EINVAL;
        return NULL;
    }
    /* what the XML holds is kept: set every type to keep-all */
    if (hwloc_topology_set_all_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL) != 0 ||
        hwloc_topology_set_xmlbuffer(t, xml, (int)len + 1) != 0 ||
        (this_system && hwloc_topology_set_flags(t, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM) != 0) ||
        hwloc_topology_load(t) != 0) {
        hwloc_topology_destroy(t);
        errno = EINVAL;
        return NULL;
    }
    return t;
}

void px_hw_topology_release(pmix_topology_t *t)
{
    pthread_mutex_lock(&local_lock);
    bool ours = t->topology != NULL && library_owned(t->topology);
    pthread_mutex_unlock(&local_lock);
    if (t->topology != NULL && px_hw_is_source(t->source) && !ours) {
        hwloc_topology_destroy(t->topology);
    }
    free(t->source);
    t->source = NULL;
    t->topology = NULL;
}

pmix_status_t px_hw_topology_copy(pmix_topology_t *dest, const pmix_topology_t *src)
{
    if (src->topology != NULL && !px_hw_is_source(src->source)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    pmix_status_t rc = dup_source(&dest->source, src->source);
    if (rc == PMIX_SUCCESS && src->topology != NULL) {
        hwloc_topology_t t;
        if (hwloc_topology_dup(&t, src->topology) != 0) {
            return PMIX_ERR_NOMEM;
        }
        dest->topology = t;
    }
    return rc;
}

pmix_status_t px_hw_topology_text(const pmix_topology_t *t, char **text)
{
    *text = NULL;
    if (t->topology == NULL) {
        return PMIX_SUCCESS;
    }
    if (!px_hw_is_source(t->source)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    char *xml;
    int len;
    if (hwloc_topology_export_xmlbuffer(t->topology, &xml, &len, 0) != 0) {
        return PMIX_ERR_PACK_FAILURE;
    }
    /* hwloc's buffer must go back to hwloc: hand out our own copy */
    *text = strdup(xml);
    hwloc_free_xmlbuffer(t->topology, xml);
    return *text != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

pmix_status_t px_hw_topology_from_text(pmix_topology_t *t, const char *text)
{
    t->topology = NULL;
    if (text == NULL) {
        return PMIX_SUCCESS;
    }
    if (!px_hw_is_source(t->source)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    t->topology = px_hw_from_xml(text, false);
    return t->topology != NULL ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM;
}

pmix_value_cmp_t px_hw_topology_cmp(const pmix_topology_t *a, const pmix_topology_t *b)
{
    pmix_value_cmp_t c = cmp_source(a->source, b->source);
    if (c != PMIX_EQUAL || a->topology == b->topology) {
        return c;
    }
    if (a->topology == NULL || b->topology == NULL) {
        return a->topology == NULL ? PMIX_VALUE2_GREATER : PMIX_VALUE1_GREATER;
    }
    /* two hwloc topologies are equal when they describe the same machine: the same
     * levels, each with the same objects (type, OS index, cpuset); there is no order
     * between different ones */
    hwloc_topology_t x = a->topology, y = b->topology;
    int depth = (int)hwloc_topology_get_depth(x);
    if (depth != (int)hwloc_topology_get_depth(y)) {
        return PMIX_VALUE_COMPARISON_NOT_AVAIL;
    }
    for (int d = 0; d < depth; d++) {
        unsigned n = hwloc_get_nbobjs_by_depth(x, d);
        if (n != hwloc_get_nbobjs_by_depth(y, d)) {
            return PMIX_VALUE_COMPARISON_NOT_AVAIL;
        }
        for (unsigned i = 0; i < n; i++) {
            hwloc_obj_t ox = hwloc_get_obj_by_depth(x, d, i);
            hwloc_obj_t oy = hwloc_get_obj_by_depth(y, d, i);
            if (ox->type != oy->type || ox->os_index != oy->os_index ||
                !hwloc_bitmap_isequal(ox->cpuset, oy->cpuset)) {
                return PMIX_VALUE_COMPARISON_NOT_AVAIL;
            }
        }
    }
    return PMIX_EQUAL;
}

char *px_hw_topology_describe(const pmix_topology_t *t)
{
    char *out = NULL;
    int r;
    if (t->topology != NULL && px_hw_is_source(t->source)) {
        hwloc_topology_t h = t->topology;
        r = asprintf(&out, "source=%s packages=%d cores=%d pus=%d", t->source,
                     hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PACKAGE),
                     hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE),
                     hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU));
    } else {
        r = asprintf(&out, "source=%s%s", t->source ? t->source : "(null)",
                     t->topology != NULL ? " (opaque)" : "");
    }
    return r < 0 ? NULL : out;
}
