/* Printable text of PMIx data: px_print_elem (one element of any type) and the public
 * printers PMIx_Value_string, PMIx_Info_string, PMIx_Proc_string, PMIx_App_string and
 * PMIx_Resource_unit_string (malloc'd; the caller frees). Any thread; formats are listed
 * in px_print.h. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "pmix.h"
#include "types/px_hwtypes.h"
#include "types/px_type_ops.h"
#include "types/px_types_int.h"
#include "util/px_names.h"
#include "util/px_print.h"

/* Nested arrays/values deeper than this print "..." (guards against absurd input). */
#define PX_PRINT_MAX_DEPTH 32

/* A growing string; once an allocation fails it stays failed and is freed at the end. */
struct px_sbuf {
    char *s;
    size_t len;
    size_t cap;
    bool failed;
};

static void px_sbuf_vadd(struct px_sbuf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    int n;

    if (b->failed) {
        return;
    }
    va_copy(ap2, ap);
    n = vsnprintf(b->s != NULL ? b->s + b->len : NULL, b->s != NULL ? b->cap - b->len : 0, fmt,
                  ap2);
    va_end(ap2);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if (b->s == NULL || b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap > 0 ? b->cap : 64;
        char *s;

        while (cap < b->len + (size_t)n + 1) {
            cap *= 2;
        }
        s = realloc(b->s, cap);
        if (s == NULL) {
            b->failed = true;
            return;
        }
        b->s = s;
        b->cap = cap;
        vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    }
    b->len += (size_t)n;
}

__attribute__((format(printf, 2, 3))) static void px_sbuf_add(struct px_sbuf *b, const char *fmt,
                                                              ...)
{
    va_list ap;

    va_start(ap, fmt);
    px_sbuf_vadd(b, fmt, ap);
    va_end(ap);
}

static char *px_sbuf_finish(struct px_sbuf *b)
{
    if (!b->failed && b->s == NULL) {
        px_sbuf_add(b, "%s", "");
    }
    if (b->failed) {
        free(b->s);
        return NULL;
    }
    return b->s;
}

static const char *px_print_str(const char *s)
{
    return s != NULL ? s : "(null)";
}

static void px_print_flags(struct px_sbuf *b, const struct px_abi_enum *e, uint64_t v,
                           const char *none)
{
    char buf[1024];

    px_names_flags(e, v, none, buf, sizeof(buf));
    px_sbuf_add(b, "%s", buf);
}

static void px_print_enum(struct px_sbuf *b, const struct px_abi_enum *e, int64_t v)
{
    const char *name = px_names_enum(e, v);

    if (name != NULL) {
        px_sbuf_add(b, "%s", name);
    } else {
        px_sbuf_add(b, "%" PRId64, v);
    }
}

/* Ranks up to PMIX_RANK_VALID are plain numbers; the reserved ones above it print their
 * constant name without "PMIX_RANK_" (WILDCARD, UNDEF, LOCAL_NODE, ...). */
static void px_put_rank(struct px_sbuf *b, pmix_rank_t rank)
{
    const char *name = rank > PMIX_RANK_VALID ? px_names_enum(&px_abi_rank, rank) : NULL;

    if (name != NULL && strncmp(name, "PMIX_RANK_", 10) == 0) {
        px_sbuf_add(b, "%s", name + 10);
    } else {
        px_sbuf_add(b, "%" PRIu32, rank);
    }
}

static void px_put_proc(struct px_sbuf *b, const pmix_proc_t *p)
{
    px_sbuf_add(b, "%.*s:", PMIX_MAX_NSLEN, p->nspace);
    px_put_rank(b, p->rank);
}

static void px_print_argv(struct px_sbuf *b, char **argv)
{
    if (argv == NULL) {
        px_sbuf_add(b, "(null)");
        return;
    }
    px_sbuf_add(b, "{");
    for (size_t i = 0; argv[i] != NULL; i++) {
        px_sbuf_add(b, "%s%s", i > 0 ? ", " : "", argv[i]);
    }
    px_sbuf_add(b, "}");
}

/* Where a pmix_value_t keeps its datum, as a pointer to one element: inline members are
 * at &v->data, boxed ones point to the element. A known type without a union member
 * (never put in a value by the registry) is read, should one be built by hand, as
 * data.ptr; an unknown type prints as unprintable. */
static const void *px_print_value_elem(const pmix_value_t *v)
{
    enum px_value_storage vs = px_value_storage(v->type);

    return vs == PX_VS_INLINE || !px_type_known(v->type) ? (const void *)&v->data : v->data.ptr;
}

static void px_print_to(struct px_sbuf *b, const void *elem, pmix_data_type_t t, int depth);
static void px_put_bytes(struct px_sbuf *b, const pmix_byte_object_t *bo);

static void px_put_value(struct px_sbuf *b, const pmix_value_t *v, int depth)
{
    px_sbuf_add(b, "%s", PMIx_Data_type_string(v->type));
    if (v->type == PMIX_REGEX) {
        /* held as a byte object (types/px_types.h): its text when it is one string */
        const char *text = px_value_regex_text(v);
        px_sbuf_add(b, ": ");
        if (text != NULL) {
            px_sbuf_add(b, "%s", text);
        } else {
            px_put_bytes(b, &v->data.bo);
        }
    } else if (v->type != PMIX_UNDEF) {
        px_sbuf_add(b, ": ");
        px_print_to(b, px_print_value_elem(v), v->type, depth + 1);
    }
}

static void px_put_info(struct px_sbuf *b, const pmix_info_t *info, int depth)
{
    px_sbuf_add(b, "%.*s = ", PMIX_MAX_KEYLEN, info->key);
    px_put_value(b, &info->value, depth);
    if (info->flags != 0) {
        px_sbuf_add(b, " (flags: ");
        px_print_flags(b, &px_abi_info_directives, info->flags, "NONE");
        px_sbuf_add(b, ")");
    }
}

static void px_put_infos(struct px_sbuf *b, const pmix_info_t *info, size_t n, int depth)
{
    if (info == NULL) {
        px_sbuf_add(b, "(null)");
        return;
    }
    px_sbuf_add(b, "{");
    for (size_t i = 0; i < n; i++) {
        if (i > 0) {
            px_sbuf_add(b, ", ");
        }
        px_put_info(b, &info[i], depth + 1);
    }
    px_sbuf_add(b, "}");
}

static void px_put_array(struct px_sbuf *b, const pmix_data_array_t *d, int depth)
{
    size_t sz = px_type_size(d->type);

    px_sbuf_add(b, "%s[%zu] {", PMIx_Data_type_string(d->type), d->size);
    if (d->size > 0 && (d->array == NULL || sz == 0)) {
        px_sbuf_add(b, d->array == NULL ? "(null)" : "...");
    } else {
        for (size_t i = 0; i < d->size; i++) {
            if (i > 0) {
                px_sbuf_add(b, ", ");
            }
            px_print_to(b, (const char *)d->array + i * sz, d->type, depth + 1);
        }
    }
    px_sbuf_add(b, "}");
}

static void px_put_bytes(struct px_sbuf *b, const pmix_byte_object_t *bo)
{
    px_sbuf_add(b, "%zu bytes", bo->bytes != NULL ? bo->size : (size_t)0);
}

static void px_put_app(struct px_sbuf *b, const pmix_app_t *app, int depth)
{
    px_sbuf_add(b, "cmd=%s argv=", px_print_str(app->cmd));
    px_print_argv(b, app->argv);
    px_sbuf_add(b, " env=");
    px_print_argv(b, app->env);
    px_sbuf_add(b, " cwd=%s maxprocs=%d info=", px_print_str(app->cwd), app->maxprocs);
    px_put_infos(b, app->info, app->ninfo, depth);
}

/* ---- one element per type (the print operation of each row of types/px_type_table.c) ---- */

/* The signature every printer shares; o and depth are unused by most. */
#define PX_PRINT_FN(n)                                                                             \
    void px_print_##n(struct px_sbuf *b, const void *e,                                            \
                      const struct px_type_ops *o __attribute__((unused)),                         \
                      int depth __attribute__((unused)))

PX_PRINT_FN(bool)
{
    px_sbuf_add(b, "%s", *(const bool *)e ? "true" : "false");
}

PX_PRINT_FN(byte)
{
    px_sbuf_add(b, "0x%02x", *(const uint8_t *)e);
}

PX_PRINT_FN(sint)
{
    px_sbuf_add(b, "%" PRId64, px_types_read_sint(e, o->size));
}

PX_PRINT_FN(uint)
{
    px_sbuf_add(b, "%" PRIu64, px_types_read_uint(e, o->size));
}

PX_PRINT_FN(flt)
{
    px_sbuf_add(b, "%g", sizeof(float) == o->size ? (double)*(const float *)e : *(const double *)e);
}

PX_PRINT_FN(string)
{
    px_sbuf_add(b, "%s", px_print_str(*(char *const *)e));
}

PX_PRINT_FN(timeval)
{
    const struct timeval *tv = e;

    px_sbuf_add(b, "%lld.%06ld", (long long)tv->tv_sec, (long)tv->tv_usec);
}

PX_PRINT_FN(status)
{
    px_sbuf_add(b, "%s", PMIx_Error_string(*(const pmix_status_t *)e));
}

PX_PRINT_FN(rank)
{
    px_put_rank(b, *(const pmix_rank_t *)e);
}

PX_PRINT_FN(nspace)
{
    px_sbuf_add(b, "%.*s", PMIX_MAX_NSLEN, (const char *)e);
}

PX_PRINT_FN(pointer)
{
    px_sbuf_add(b, "%p", *(void *const *)e);
}

PX_PRINT_FN(bo)
{
    px_put_bytes(b, e);
}

/* Enumerations with a PMIx_*_string function. */

PX_PRINT_FN(persist)
{
    px_sbuf_add(b, "%s", PMIx_Persistence_string(*(const uint8_t *)e));
}

PX_PRINT_FN(scope)
{
    px_sbuf_add(b, "%s", PMIx_Scope_string(*(const uint8_t *)e));
}

PX_PRINT_FN(range)
{
    px_sbuf_add(b, "%s", PMIx_Data_range_string(*(const uint8_t *)e));
}

PX_PRINT_FN(pstate)
{
    px_sbuf_add(b, "%s", PMIx_Proc_state_string(*(const uint8_t *)e));
}

PX_PRINT_FN(jstate)
{
    px_sbuf_add(b, "%s", PMIx_Job_state_string(*(const uint8_t *)e));
}

PX_PRINT_FN(lstate)
{
    px_sbuf_add(b, "%s", PMIx_Link_state_string(*(const uint8_t *)e));
}

PX_PRINT_FN(allocdir)
{
    px_sbuf_add(b, "%s", PMIx_Alloc_directive_string(*(const uint8_t *)e));
}

PX_PRINT_FN(resblock)
{
    px_sbuf_add(b, "%s", PMIx_Resource_block_directive_string(*(const uint8_t *)e));
}

PX_PRINT_FN(inherit)
{
    px_sbuf_add(b, "%s", PMIx_Alloc_inheritance_string(*(const uint8_t *)e));
}

PX_PRINT_FN(dtype)
{
    px_sbuf_add(b, "%s", PMIx_Data_type_string(*(const pmix_data_type_t *)e));
}

/* Flag sets, by the names of their bits. */

PX_PRINT_FN(infodir)
{
    px_print_flags(b, &px_abi_info_directives, *(const pmix_info_directives_t *)e, "NONE");
}

PX_PRINT_FN(iof)
{
    px_print_flags(b, &px_abi_iof_channel, *(const pmix_iof_channel_t *)e, "PMIX_FWD_NO_CHANNELS");
}

PX_PRINT_FN(devtype)
{
    px_print_flags(b, &px_abi_device_type, *(const pmix_device_type_t *)e, "PMIX_DEVTYPE_UNKNOWN");
}

PX_PRINT_FN(loctype)
{
    px_print_flags(b, &px_abi_locality, *(const pmix_locality_t *)e, "NONE");
}

PX_PRINT_FN(stormed)
{
    px_print_flags(b, &px_abi_storage_medium, *(const uint64_t *)e, "NONE");
}

PX_PRINT_FN(storacc)
{
    px_print_flags(b, &px_abi_storage_accessibility, *(const uint64_t *)e, "NONE");
}

PX_PRINT_FN(storpers)
{
    px_print_flags(b, &px_abi_storage_persistence, *(const uint64_t *)e, "NONE");
}

PX_PRINT_FN(storacctype)
{
    px_print_flags(b, &px_abi_storage_access_type, *(const uint16_t *)e, "NONE");
}

/* Structures. */

PX_PRINT_FN(value)
{
    px_put_value(b, e, depth);
}

PX_PRINT_FN(info)
{
    px_put_info(b, e, depth); /* PMIX_KVAL too: stored as a pmix_info_t */
}

PX_PRINT_FN(darray)
{
    px_put_array(b, e, depth);
}

PX_PRINT_FN(proc)
{
    px_put_proc(b, e);
}

PX_PRINT_FN(app)
{
    px_put_app(b, e, depth);
}

PX_PRINT_FN(pdata)
{
    const pmix_pdata_t *p = e;

    px_put_proc(b, &p->proc);
    px_sbuf_add(b, " %.*s = ", PMIX_MAX_KEYLEN, p->key);
    px_put_value(b, &p->value, depth);
}

PX_PRINT_FN(pinfo)
{
    const pmix_proc_info_t *p = e;

    px_sbuf_add(b, "proc=");
    px_put_proc(b, &p->proc);
    px_sbuf_add(b, " host=%s exe=%s pid=%d exit_code=%d state=%s", px_print_str(p->hostname),
                px_print_str(p->executable_name), (int)p->pid, p->exit_code,
                PMIx_Proc_state_string(p->state));
}

PX_PRINT_FN(query)
{
    const pmix_query_t *q = e;

    px_sbuf_add(b, "keys=");
    px_print_argv(b, q->keys);
    px_sbuf_add(b, " qualifiers=");
    px_put_infos(b, q->qualifiers, q->nqual, depth);
}

PX_PRINT_FN(envar)
{
    const pmix_envar_t *v = e;

    px_sbuf_add(b, "%s=%s", px_print_str(v->envar), px_print_str(v->value));
    if (v->separator != '\0') {
        px_sbuf_add(b, " (separator '%c')", v->separator);
    }
}

PX_PRINT_FN(coord)
{
    const pmix_coord_t *c = e;

    px_print_enum(b, &px_abi_coord_view, c->view);
    px_sbuf_add(b, " (");
    for (size_t i = 0; c->coord != NULL && i < c->dims; i++) {
        px_sbuf_add(b, "%s%" PRIu32, i > 0 ? ", " : "", c->coord[i]);
    }
    px_sbuf_add(b, ")");
}

PX_PRINT_FN(regattr)
{
    const pmix_regattr_t *r = e;

    px_sbuf_add(b, "name=%s key=%.*s type=%s description=", px_print_str(r->name), PMIX_MAX_KEYLEN,
                r->string, PMIx_Data_type_string(r->type));
    px_print_argv(b, r->description);
}

/* Appends a malloc'd description and frees it (NULL: out of memory, nothing added). */
static void px_print_owned(struct px_sbuf *b, char *text)
{
    if (text != NULL) {
        px_sbuf_add(b, "%s", text);
        free(text);
    }
}

PX_PRINT_FN(cpuset)
{
    px_print_owned(b, px_hw_cpuset_describe(e));
}

PX_PRINT_FN(topo)
{
    px_print_owned(b, px_hw_topology_describe(e));
}

PX_PRINT_FN(geometry)
{
    const pmix_geometry_t *g = e;

    px_sbuf_add(b, "fabric=%zu uuid=%s osname=%s coordinates={", g->fabric, px_print_str(g->uuid),
                px_print_str(g->osname));
    for (size_t i = 0; g->coordinates != NULL && i < g->ncoords; i++) {
        px_sbuf_add(b, "%s", i > 0 ? ", " : "");
        px_print_to(b, &g->coordinates[i], PMIX_COORD, depth + 1);
    }
    px_sbuf_add(b, "}");
}

PX_PRINT_FN(devdist)
{
    const pmix_device_distance_t *d = e;

    px_sbuf_add(b, "uuid=%s osname=%s type=%s mindist=%u maxdist=%u", px_print_str(d->uuid),
                px_print_str(d->osname), PMIx_Device_type_string(d->type), d->mindist, d->maxdist);
}

PX_PRINT_FN(endpoint)
{
    const pmix_endpoint_t *p = e;

    px_sbuf_add(b, "uuid=%s osname=%s endpt=", px_print_str(p->uuid), px_print_str(p->osname));
    px_put_bytes(b, &p->endpt);
}

PX_PRINT_FN(dbuf)
{
    /* PMIX_BUFFER too: stored as a pmix_data_buffer_t */
    px_sbuf_add(b, "%zu bytes", ((const pmix_data_buffer_t *)e)->bytes_used);
}

PX_PRINT_FN(pstats)
{
    const pmix_proc_stats_t *s = e;

    px_sbuf_add(b, "node=%s proc=", px_print_str(s->node));
    px_put_proc(b, &s->proc);
    px_sbuf_add(b, " pid=%d cmd=%s state=%c cpu=%g%% rss=%g", (int)s->pid, px_print_str(s->cmd),
                s->state != '\0' ? s->state : '-', (double)s->percent_cpu, (double)s->rss);
}

PX_PRINT_FN(dkstats)
{
    const pmix_disk_stats_t *s = e;

    px_sbuf_add(b, "disk=%s reads=%" PRIu64 " writes=%" PRIu64, px_print_str(s->disk),
                s->num_reads_completed, s->num_writes_completed);
}

PX_PRINT_FN(netstats)
{
    const pmix_net_stats_t *s = e;

    px_sbuf_add(b, "interface=%s bytes_recvd=%" PRIu64 " bytes_sent=%" PRIu64,
                px_print_str(s->net_interface), s->num_bytes_recvd, s->num_bytes_sent);
}

PX_PRINT_FN(ndstats)
{
    const pmix_node_stats_t *s = e;

    px_sbuf_add(b, "node=%s load=%g free_mem=%g total_mem=%g", px_print_str(s->node), (double)s->la,
                (double)s->free_mem, (double)s->total_mem);
}

PX_PRINT_FN(device)
{
    const pmix_device_t *d = e;

    px_sbuf_add(b, "uuid=%s osname=%s type=%s", px_print_str(d->uuid), px_print_str(d->osname),
                PMIx_Device_type_string(d->type));
}

PX_PRINT_FN(resunit)
{
    const pmix_resource_unit_t *u = e;

    px_sbuf_add(b, "type=%s count=%zu", PMIx_Device_type_string(u->type), u->count);
}

PX_PRINT_FN(nodepid)
{
    const pmix_node_pid_t *p = e;

    px_sbuf_add(b, "hostname=%s nodeid=%" PRIu32 " pid=%d", px_print_str(p->hostname), p->nodeid,
                (int)p->pid);
}

PX_PRINT_FN(regex2)
{
    const pmix_regex2_t *r = e;

    px_sbuf_add(b, "type=%s %zu bytes", px_print_str(r->type),
                r->bytes != NULL ? r->len : (size_t)0);
}

#undef PX_PRINT_FN

static void px_print_to(struct px_sbuf *b, const void *elem, pmix_data_type_t t, int depth)
{
    const struct px_type_ops *o = px_type_ops(t);

    if (elem == NULL) {
        px_sbuf_add(b, "(null)");
    } else if (depth > PX_PRINT_MAX_DEPTH) {
        px_sbuf_add(b, "...");
    } else if (o == NULL) {
        px_sbuf_add(b, "(unprintable type %u)", (unsigned)t);
    } else {
        o->print(b, elem, o, depth);
    }
}

char *px_print_elem(const void *elem, pmix_data_type_t t)
{
    struct px_sbuf b = {0};

    px_print_to(&b, elem, t, 0);
    return px_sbuf_finish(&b);
}

char *PMIx_Value_string(const pmix_value_t *value)
{
    return value != NULL ? px_print_elem(value, PMIX_VALUE) : NULL;
}

char *PMIx_Info_string(const pmix_info_t *info)
{
    return info != NULL ? px_print_elem(info, PMIX_INFO) : NULL;
}

char *PMIx_Proc_string(const pmix_proc_t *proc)
{
    return proc != NULL ? px_print_elem(proc, PMIX_PROC) : NULL;
}

char *PMIx_App_string(const pmix_app_t *app)
{
    return app != NULL ? px_print_elem(app, PMIX_APP) : NULL;
}

char *PMIx_Resource_unit_string(const pmix_resource_unit_t *unit)
{
    return unit != NULL ? px_print_elem(unit, PMIX_RESOURCE_UNIT) : NULL;
}
