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
#include "types/px_types.h"
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
static void px_print_rank(struct px_sbuf *b, pmix_rank_t rank)
{
    const char *name = rank > PMIX_RANK_VALID ? px_names_enum(&px_abi_rank, rank) : NULL;

    if (name != NULL && strncmp(name, "PMIX_RANK_", 10) == 0) {
        px_sbuf_add(b, "%s", name + 10);
    } else {
        px_sbuf_add(b, "%" PRIu32, rank);
    }
}

static void px_print_proc(struct px_sbuf *b, const pmix_proc_t *p)
{
    px_sbuf_add(b, "%.*s:", PMIX_MAX_NSLEN, p->nspace);
    px_print_rank(b, p->rank);
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

/* Where a pmix_value_t keeps its datum, as a pointer to one element (see px_print.h):
 * by-value members are at &v->data, pointer members point to the element themselves. */
/* Appends a malloc'd description and frees it (NULL: out of memory, nothing added). */
static bool px_print_owned(struct px_sbuf *b, char *text)
{
    if (text != NULL) {
        px_sbuf_add(b, "%s", text);
        free(text);
    }
    return true;
}

static const void *px_print_value_elem(const pmix_value_t *v)
{
    switch (v->type) {
    case PMIX_PROC:
        return v->data.proc;
    case PMIX_PROC_NSPACE:
        return v->data.nspace;
    case PMIX_PROC_INFO:
        return v->data.pinfo;
    case PMIX_DATA_ARRAY:
        return v->data.darray;
    case PMIX_COORD:
        return v->data.coord;
    case PMIX_TOPO:
        return v->data.topo;
    case PMIX_PROC_CPUSET:
        return v->data.cpuset;
    case PMIX_GEOMETRY:
        return v->data.geometry;
    case PMIX_DEVICE_DIST:
        return v->data.devdist;
    case PMIX_ENDPOINT:
        return v->data.endpoint;
    case PMIX_DATA_BUFFER:
        return v->data.dbuf;
    case PMIX_PROC_STATS:
        return v->data.pstats;
    case PMIX_DISK_STATS:
        return v->data.dkstats;
    case PMIX_NET_STATS:
        return v->data.netstats;
    case PMIX_NODE_STATS:
        return v->data.ndstats;
    case PMIX_DEVICE:
        return v->data.device;
    case PMIX_RESOURCE_UNIT:
        return v->data.resunit;
    case PMIX_NODE_PID:
        return v->data.nodepid;
    case PMIX_REGEX2:
        return v->data.regex2;
    case PMIX_VALUE:
    case PMIX_APP:
    case PMIX_INFO:
    case PMIX_PDATA:
    case PMIX_QUERY:
    case PMIX_REGATTR:
    case PMIX_KVAL:
    case PMIX_BUFFER:
        /* The types registry never puts these in a value (no union member); should one
         * be built by hand anyway, data.ptr is read as a pointer to the element. */
        return v->data.ptr;
    default:
        return &v->data;
    }
}

static void px_print_to(struct px_sbuf *b, const void *elem, pmix_data_type_t t, int depth);
static void px_print_bytes(struct px_sbuf *b, const pmix_byte_object_t *bo);

static void px_print_value(struct px_sbuf *b, const pmix_value_t *v, int depth)
{
    px_sbuf_add(b, "%s", PMIx_Data_type_string(v->type));
    if (v->type == PMIX_REGEX) {
        /* held as a byte object (types/px_types.h): its text when it is one string */
        const pmix_byte_object_t *bo = &v->data.bo;
        px_sbuf_add(b, ": ");
        if (bo->bytes != NULL && bo->size > 0 &&
            memchr(bo->bytes, '\0', bo->size) == bo->bytes + bo->size - 1) {
            px_sbuf_add(b, "%s", bo->bytes);
        } else {
            px_print_bytes(b, bo);
        }
    } else if (v->type != PMIX_UNDEF) {
        px_sbuf_add(b, ": ");
        px_print_to(b, px_print_value_elem(v), v->type, depth + 1);
    }
}

static void px_print_info(struct px_sbuf *b, const pmix_info_t *info, int depth)
{
    px_sbuf_add(b, "%.*s = ", PMIX_MAX_KEYLEN, info->key);
    px_print_value(b, &info->value, depth);
    if (info->flags != 0) {
        px_sbuf_add(b, " (flags: ");
        px_print_flags(b, &px_abi_info_directives, info->flags, "NONE");
        px_sbuf_add(b, ")");
    }
}

static void px_print_infos(struct px_sbuf *b, const pmix_info_t *info, size_t n, int depth)
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
        px_print_info(b, &info[i], depth + 1);
    }
    px_sbuf_add(b, "}");
}

static void px_print_array(struct px_sbuf *b, const pmix_data_array_t *d, int depth)
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

static void px_print_bytes(struct px_sbuf *b, const pmix_byte_object_t *bo)
{
    px_sbuf_add(b, "%zu bytes", bo->bytes != NULL ? bo->size : (size_t)0);
}

static void px_print_app(struct px_sbuf *b, const pmix_app_t *app, int depth)
{
    px_sbuf_add(b, "cmd=%s argv=", px_print_str(app->cmd));
    px_print_argv(b, app->argv);
    px_sbuf_add(b, " env=");
    px_print_argv(b, app->env);
    px_sbuf_add(b, " cwd=%s maxprocs=%d info=", px_print_str(app->cwd), app->maxprocs);
    px_print_infos(b, app->info, app->ninfo, depth);
}

static void px_print_resunit(struct px_sbuf *b, const pmix_resource_unit_t *u)
{
    px_sbuf_add(b, "type=%s count=%zu", PMIx_Device_type_string(u->type), u->count);
}

/* Structured types, one case each (kept apart from the scalars for readability). */
static bool px_print_struct(struct px_sbuf *b, const void *elem, pmix_data_type_t t, int depth)
{
    switch (t) {
    case PMIX_VALUE:
        px_print_value(b, elem, depth);
        return true;
    case PMIX_INFO:
    case PMIX_KVAL: /* stored as a pmix_info_t (types registry) */
        px_print_info(b, elem, depth);
        return true;
    case PMIX_DATA_ARRAY:
        px_print_array(b, elem, depth);
        return true;
    case PMIX_PROC:
        px_print_proc(b, elem);
        return true;
    case PMIX_APP:
        px_print_app(b, elem, depth);
        return true;
    case PMIX_PDATA: {
        const pmix_pdata_t *p = elem;

        px_print_proc(b, &p->proc);
        px_sbuf_add(b, " %.*s = ", PMIX_MAX_KEYLEN, p->key);
        px_print_value(b, &p->value, depth);
        return true;
    }
    case PMIX_PROC_INFO: {
        const pmix_proc_info_t *p = elem;

        px_sbuf_add(b, "proc=");
        px_print_proc(b, &p->proc);
        px_sbuf_add(b, " host=%s exe=%s pid=%d exit_code=%d state=%s", px_print_str(p->hostname),
                    px_print_str(p->executable_name), (int)p->pid, p->exit_code,
                    PMIx_Proc_state_string(p->state));
        return true;
    }
    case PMIX_QUERY: {
        const pmix_query_t *q = elem;

        px_sbuf_add(b, "keys=");
        px_print_argv(b, q->keys);
        px_sbuf_add(b, " qualifiers=");
        px_print_infos(b, q->qualifiers, q->nqual, depth);
        return true;
    }
    case PMIX_ENVAR: {
        const pmix_envar_t *e = elem;

        px_sbuf_add(b, "%s=%s", px_print_str(e->envar), px_print_str(e->value));
        if (e->separator != '\0') {
            px_sbuf_add(b, " (separator '%c')", e->separator);
        }
        return true;
    }
    case PMIX_COORD: {
        const pmix_coord_t *c = elem;

        px_print_enum(b, &px_abi_coord_view, c->view);
        px_sbuf_add(b, " (");
        for (size_t i = 0; c->coord != NULL && i < c->dims; i++) {
            px_sbuf_add(b, "%s%" PRIu32, i > 0 ? ", " : "", c->coord[i]);
        }
        px_sbuf_add(b, ")");
        return true;
    }
    case PMIX_REGATTR: {
        const pmix_regattr_t *r = elem;

        px_sbuf_add(b, "name=%s key=%.*s type=%s description=", px_print_str(r->name),
                    PMIX_MAX_KEYLEN, r->string, PMIx_Data_type_string(r->type));
        px_print_argv(b, r->description);
        return true;
    }
    case PMIX_PROC_CPUSET:
        return px_print_owned(b, px_hw_cpuset_describe(elem));
    case PMIX_TOPO:
        return px_print_owned(b, px_hw_topology_describe(elem));
    case PMIX_GEOMETRY: {
        const pmix_geometry_t *g = elem;

        px_sbuf_add(b, "fabric=%zu uuid=%s osname=%s coordinates={", g->fabric,
                    px_print_str(g->uuid), px_print_str(g->osname));
        for (size_t i = 0; g->coordinates != NULL && i < g->ncoords; i++) {
            px_sbuf_add(b, "%s", i > 0 ? ", " : "");
            px_print_to(b, &g->coordinates[i], PMIX_COORD, depth + 1);
        }
        px_sbuf_add(b, "}");
        return true;
    }
    case PMIX_DEVICE_DIST: {
        const pmix_device_distance_t *d = elem;

        px_sbuf_add(b, "uuid=%s osname=%s type=%s mindist=%u maxdist=%u", px_print_str(d->uuid),
                    px_print_str(d->osname), PMIx_Device_type_string(d->type), d->mindist,
                    d->maxdist);
        return true;
    }
    case PMIX_ENDPOINT: {
        const pmix_endpoint_t *e = elem;

        px_sbuf_add(b, "uuid=%s osname=%s endpt=", px_print_str(e->uuid), px_print_str(e->osname));
        px_print_bytes(b, &e->endpt);
        return true;
    }
    case PMIX_DATA_BUFFER:
    case PMIX_BUFFER: /* stored as a pmix_data_buffer_t (types registry) */
        px_sbuf_add(b, "%zu bytes", ((const pmix_data_buffer_t *)elem)->bytes_used);
        return true;
    case PMIX_PROC_STATS: {
        const pmix_proc_stats_t *s = elem;

        px_sbuf_add(b, "node=%s proc=", px_print_str(s->node));
        px_print_proc(b, &s->proc);
        px_sbuf_add(b, " pid=%d cmd=%s state=%c cpu=%g%% rss=%g", (int)s->pid, px_print_str(s->cmd),
                    s->state != '\0' ? s->state : '-', (double)s->percent_cpu, (double)s->rss);
        return true;
    }
    case PMIX_DISK_STATS: {
        const pmix_disk_stats_t *s = elem;

        px_sbuf_add(b, "disk=%s reads=%" PRIu64 " writes=%" PRIu64, px_print_str(s->disk),
                    s->num_reads_completed, s->num_writes_completed);
        return true;
    }
    case PMIX_NET_STATS: {
        const pmix_net_stats_t *s = elem;

        px_sbuf_add(b, "interface=%s bytes_recvd=%" PRIu64 " bytes_sent=%" PRIu64,
                    px_print_str(s->net_interface), s->num_bytes_recvd, s->num_bytes_sent);
        return true;
    }
    case PMIX_NODE_STATS: {
        const pmix_node_stats_t *s = elem;

        px_sbuf_add(b, "node=%s load=%g free_mem=%g total_mem=%g", px_print_str(s->node),
                    (double)s->la, (double)s->free_mem, (double)s->total_mem);
        return true;
    }
    case PMIX_DEVICE: {
        const pmix_device_t *d = elem;

        px_sbuf_add(b, "uuid=%s osname=%s type=%s", px_print_str(d->uuid), px_print_str(d->osname),
                    PMIx_Device_type_string(d->type));
        return true;
    }
    case PMIX_RESOURCE_UNIT:
        px_print_resunit(b, elem);
        return true;
    case PMIX_NODE_PID: {
        const pmix_node_pid_t *p = elem;

        px_sbuf_add(b, "hostname=%s nodeid=%" PRIu32 " pid=%d", px_print_str(p->hostname),
                    p->nodeid, (int)p->pid);
        return true;
    }
    case PMIX_REGEX2: {
        const pmix_regex2_t *r = elem;

        px_sbuf_add(b, "type=%s %zu bytes", px_print_str(r->type),
                    r->bytes != NULL ? r->len : (size_t)0);
        return true;
    }
    default:
        return false;
    }
}

static void px_print_to(struct px_sbuf *b, const void *elem, pmix_data_type_t t, int depth)
{
    if (elem == NULL) {
        px_sbuf_add(b, "(null)");
        return;
    }
    if (depth > PX_PRINT_MAX_DEPTH) {
        px_sbuf_add(b, "...");
        return;
    }
    if (px_print_struct(b, elem, t, depth)) {
        return;
    }
    switch (t) {
    case PMIX_BOOL:
        px_sbuf_add(b, "%s", *(const bool *)elem ? "true" : "false");
        break;
    case PMIX_BYTE:
        px_sbuf_add(b, "0x%02x", *(const uint8_t *)elem);
        break;
    case PMIX_STRING:
        px_sbuf_add(b, "%s", px_print_str(*(char *const *)elem));
        break;
    case PMIX_SIZE:
        px_sbuf_add(b, "%zu", *(const size_t *)elem);
        break;
    case PMIX_PID:
        px_sbuf_add(b, "%d", (int)*(const pid_t *)elem);
        break;
    case PMIX_INT:
        px_sbuf_add(b, "%d", *(const int *)elem);
        break;
    case PMIX_INT8:
        px_sbuf_add(b, "%d", *(const int8_t *)elem);
        break;
    case PMIX_INT16:
        px_sbuf_add(b, "%d", *(const int16_t *)elem);
        break;
    case PMIX_INT32:
        px_sbuf_add(b, "%" PRId32, *(const int32_t *)elem);
        break;
    case PMIX_INT64:
        px_sbuf_add(b, "%" PRId64, *(const int64_t *)elem);
        break;
    case PMIX_UINT:
        px_sbuf_add(b, "%u", *(const unsigned int *)elem);
        break;
    case PMIX_UINT8:
    case PMIX_COMMAND:
        px_sbuf_add(b, "%u", *(const uint8_t *)elem);
        break;
    case PMIX_UINT16:
        px_sbuf_add(b, "%u", *(const uint16_t *)elem);
        break;
    case PMIX_UINT32:
        px_sbuf_add(b, "%" PRIu32, *(const uint32_t *)elem);
        break;
    case PMIX_UINT64:
        px_sbuf_add(b, "%" PRIu64, *(const uint64_t *)elem);
        break;
    case PMIX_FLOAT:
        px_sbuf_add(b, "%g", (double)*(const float *)elem);
        break;
    case PMIX_DOUBLE:
        px_sbuf_add(b, "%g", *(const double *)elem);
        break;
    case PMIX_TIMEVAL: {
        const struct timeval *tv = elem;

        px_sbuf_add(b, "%lld.%06ld", (long long)tv->tv_sec, (long)tv->tv_usec);
        break;
    }
    case PMIX_TIME:
        px_sbuf_add(b, "%lld", (long long)*(const time_t *)elem);
        break;
    case PMIX_STATUS:
        px_sbuf_add(b, "%s", PMIx_Error_string(*(const pmix_status_t *)elem));
        break;
    case PMIX_PROC_RANK:
        px_print_rank(b, *(const pmix_rank_t *)elem);
        break;
    case PMIX_PROC_NSPACE:
        px_sbuf_add(b, "%.*s", PMIX_MAX_NSLEN, (const char *)elem);
        break;
    case PMIX_POINTER:
        px_sbuf_add(b, "%p", *(void *const *)elem);
        break;
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING:
    case PMIX_COMPRESSED_BYTE_OBJECT:
        px_print_bytes(b, elem);
        break;
    case PMIX_REGEX:
        px_sbuf_add(b, "%s", px_print_str(*(char *const *)elem));
        break;
    case PMIX_PERSIST:
        px_sbuf_add(b, "%s", PMIx_Persistence_string(*(const uint8_t *)elem));
        break;
    case PMIX_SCOPE:
        px_sbuf_add(b, "%s", PMIx_Scope_string(*(const uint8_t *)elem));
        break;
    case PMIX_DATA_RANGE:
        px_sbuf_add(b, "%s", PMIx_Data_range_string(*(const uint8_t *)elem));
        break;
    case PMIX_PROC_STATE:
        px_sbuf_add(b, "%s", PMIx_Proc_state_string(*(const uint8_t *)elem));
        break;
    case PMIX_JOB_STATE:
        px_sbuf_add(b, "%s", PMIx_Job_state_string(*(const uint8_t *)elem));
        break;
    case PMIX_LINK_STATE:
        px_sbuf_add(b, "%s", PMIx_Link_state_string(*(const uint8_t *)elem));
        break;
    case PMIX_ALLOC_DIRECTIVE:
        px_sbuf_add(b, "%s", PMIx_Alloc_directive_string(*(const uint8_t *)elem));
        break;
    case PMIX_RESBLOCK_DIRECTIVE:
        px_sbuf_add(b, "%s", PMIx_Resource_block_directive_string(*(const uint8_t *)elem));
        break;
    case PMIX_ALLOC_INHERIT:
        px_sbuf_add(b, "%s", PMIx_Alloc_inheritance_string(*(const uint8_t *)elem));
        break;
    case PMIX_DATA_TYPE:
        px_sbuf_add(b, "%s", PMIx_Data_type_string(*(const pmix_data_type_t *)elem));
        break;
    case PMIX_INFO_DIRECTIVES:
        px_print_flags(b, &px_abi_info_directives, *(const pmix_info_directives_t *)elem, "NONE");
        break;
    case PMIX_IOF_CHANNEL:
        px_print_flags(b, &px_abi_iof_channel, *(const pmix_iof_channel_t *)elem,
                       "PMIX_FWD_NO_CHANNELS");
        break;
    case PMIX_DEVTYPE:
        px_print_flags(b, &px_abi_device_type, *(const pmix_device_type_t *)elem,
                       "PMIX_DEVTYPE_UNKNOWN");
        break;
    case PMIX_LOCTYPE:
        px_print_flags(b, &px_abi_locality, *(const pmix_locality_t *)elem, "NONE");
        break;
    case PMIX_STOR_MEDIUM:
        px_print_flags(b, &px_abi_storage_medium, *(const uint64_t *)elem, "NONE");
        break;
    case PMIX_STOR_ACCESS:
        px_print_flags(b, &px_abi_storage_accessibility, *(const uint64_t *)elem, "NONE");
        break;
    case PMIX_STOR_PERSIST:
        px_print_flags(b, &px_abi_storage_persistence, *(const uint64_t *)elem, "NONE");
        break;
    case PMIX_STOR_ACCESS_TYPE:
        px_print_flags(b, &px_abi_storage_access_type, *(const uint16_t *)elem, "NONE");
        break;
    default:
        px_sbuf_add(b, "(unprintable type %u)", (unsigned)t);
        break;
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
