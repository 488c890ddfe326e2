/* common: query helpers shared by the client and the server side of PMIx_Query_info —
 * answer lists, the flat result form, their wire form, the rendezvous scan for
 * PMIX_QUERY_AVAIL_SERVERS, the library's attribute table. Any thread; no state.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_query.h"
#include "util/px_abi_tables.h"
#include "util/px_names.h"

/* ---- answer lists ---- */

static pmix_info_t *qans_slot(px_qans_t *a)
{
    pmix_info_t *kv = realloc(a->kv, (a->n + 1) * sizeof(*kv));
    if (kv == NULL) {
        return NULL;
    }
    a->kv = kv;
    PMIx_Info_construct(&kv[a->n]);
    return &kv[a->n++];
}

pmix_status_t px_qans_add(px_qans_t *a, const char *key, const pmix_value_t *val)
{
    pmix_info_t *slot = qans_slot(a);
    if (slot == NULL) {
        return PMIX_ERR_NOMEM;
    }
    PMIX_LOAD_KEY(slot->key, key);
    pmix_status_t rc = PMIx_Value_xfer(&slot->value, val);
    if (rc != PMIX_SUCCESS) {
        a->n--;
    }
    return rc;
}

pmix_status_t px_qans_add_info(px_qans_t *a, const pmix_info_t *info)
{
    return px_qans_add(a, info->key, &info->value);
}

pmix_status_t px_qans_take(px_qans_t *a, const char *key, pmix_value_t *val)
{
    pmix_info_t *slot = qans_slot(a);
    if (slot == NULL) {
        PMIx_Value_destruct(val);
        return PMIX_ERR_NOMEM;
    }
    PMIX_LOAD_KEY(slot->key, key);
    slot->value = *val;
    val->type = PMIX_UNDEF;
    return PMIX_SUCCESS;
}

void px_qans_free(px_qans_t *a, size_t n)
{
    for (size_t i = 0; a != NULL && i < n; i++) {
        px_bfrops_info_array_free(a[i].kv, a[i].n);
    }
    free(a);
}

/* ---- keys ---- */

bool px_query_key_local(const char *key)
{
    return strcmp(key, PMIX_QUERY_AVAIL_SERVERS) == 0;
}

bool px_query_key_library(const char *key)
{
    static const char *const keys[] = {
        PMIX_QUERY_NAMESPACES,        PMIX_QUERY_NUM_PSETS,  PMIX_QUERY_PSET_NAMES,
        PMIX_QUERY_PSET_MEMBERSHIP,   PMIX_SERVER_URI,       PMIX_QUERY_AVAIL_SERVERS,
        PMIX_QUERY_ATTRIBUTE_SUPPORT, PMIX_QUERY_NUM_GROUPS, PMIX_QUERY_GROUP_NAMES,
        PMIX_QUERY_GROUP_MEMBERSHIP,
    };
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        if (strcmp(key, keys[i]) == 0) {
            return true;
        }
    }
    return false;
}

bool px_query_is_attr_support(const pmix_query_t *q)
{
    return q->keys != NULL && q->keys[0] != NULL &&
           strcmp(q->keys[0], PMIX_QUERY_ATTRIBUTE_SUPPORT) == 0;
}

bool px_query_refresh(const pmix_query_t *q)
{
    for (size_t i = 0; i < q->nqual; i++) {
        if (PMIX_CHECK_KEY(&q->qualifiers[i], PMIX_QUERY_REFRESH_CACHE)) {
            return PMIX_INFO_TRUE(&q->qualifiers[i]);
        }
    }
    return false;
}

bool px_query_has_target(const pmix_query_t *q)
{
    for (size_t i = 0; i < q->nqual; i++) {
        if (!PMIX_CHECK_KEY(&q->qualifiers[i], PMIX_QUERY_REFRESH_CACHE) &&
            !PMIX_CHECK_KEY(&q->qualifiers[i], PMIX_QUERY_LOCAL_ONLY)) {
            return true;
        }
    }
    return false;
}

pmix_query_t *px_query_dup(const pmix_query_t *q, size_t n)
{
    pmix_query_t *d = PMIx_Query_create(n);
    for (size_t i = 0; d != NULL && i < n; i++) {
        d[i].keys = PMIx_Argv_copy(q[i].keys);
        if (q[i].nqual > 0) {
            d[i].qualifiers = PMIx_Info_create(q[i].nqual);
            if (d[i].qualifiers == NULL) {
                PMIx_Query_free(d, n);
                return NULL;
            }
            d[i].nqual = q[i].nqual;
            for (size_t j = 0; j < q[i].nqual; j++) {
                PMIx_Info_xfer(&d[i].qualifiers[j], &q[i].qualifiers[j]);
            }
        }
        if (d[i].keys == NULL) {
            PMIx_Query_free(d, n);
            return NULL;
        }
    }
    return d;
}

pmix_status_t px_query_check(const pmix_query_t *q, size_t n)
{
    if (q == NULL || n == 0) {
        return PMIX_ERR_BAD_PARAM;
    }
    for (size_t i = 0; i < n; i++) {
        if (q[i].keys == NULL || q[i].keys[0] == NULL ||
            (q[i].nqual > 0 && q[i].qualifiers == NULL)) {
            return PMIX_ERR_BAD_PARAM;
        }
        for (size_t k = 0; q[i].keys[k] != NULL; k++) {
            if (q[i].keys[k][0] == '\0' || strlen(q[i].keys[k]) > PMIX_MAX_KEYLEN) {
                return PMIX_ERR_BAD_PARAM;
            }
        }
    }
    return PMIX_SUCCESS;
}

/* ---- the result form ---- */

static pmix_status_t darray_of_infos(pmix_value_t *val, pmix_info_t *infos, size_t n)
{
    pmix_data_array_t *da = calloc(1, sizeof(*da));
    if (da == NULL) {
        px_bfrops_info_array_free(infos, n);
        return PMIX_ERR_NOMEM;
    }
    da->type = PMIX_INFO;
    da->size = n;
    da->array = infos;
    val->type = PMIX_DATA_ARRAY;
    val->data.darray = da;
    return PMIX_SUCCESS;
}

/* Why flat and not the v5.0 text's PMIX_QUERY_RESULTS wrapping: see px_query.h. */
pmix_status_t px_query_assemble(const pmix_query_t *q, size_t n, const px_qans_t *ans,
                                pmix_info_t **results, size_t *nresults)
{
    *results = NULL;
    *nresults = 0;
    size_t cap = 0, nkeys = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        cap += px_query_is_attr_support(&q[i]) ? 1 : (size_t)PMIx_Argv_count(q[i].keys);
    }
    pmix_info_t *res = PMIx_Info_create(cap > 0 ? cap : 1);
    if (res == NULL) {
        return PMIX_ERR_NOMEM;
    }
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < n && rc == PMIX_SUCCESS; i++) {
        const px_qans_t *a = &ans[i];
        if (px_query_is_attr_support(&q[i])) {
            /* one unit: its answers (levels, functions) under the query's own key */
            nkeys++;
            if (a->n == 0) {
                continue;
            }
            pmix_info_t *arr = PMIx_Info_create(a->n);
            if (arr == NULL) {
                rc = PMIX_ERR_NOMEM;
                break;
            }
            for (size_t j = 0; j < a->n; j++) {
                PMIx_Info_xfer(&arr[j], &a->kv[j]);
            }
            PMIX_LOAD_KEY(res[m].key, PMIX_QUERY_ATTRIBUTE_SUPPORT);
            rc = darray_of_infos(&res[m].value, arr, a->n);
            m++;
            continue;
        }
        /* each answer is used once: a key asked twice takes two answers */
        bool *used = calloc(a->n + 1, sizeof(*used));
        if (used == NULL) {
            rc = PMIX_ERR_NOMEM;
            break;
        }
        for (size_t k = 0; q[i].keys[k] != NULL; k++) {
            nkeys++;
            for (size_t j = 0; j < a->n; j++) {
                if (!used[j] && PMIX_CHECK_KEY(&a->kv[j], q[i].keys[k])) {
                    used[j] = true;
                    PMIx_Info_xfer(&res[m++], &a->kv[j]);
                    break;
                }
            }
        }
        for (size_t j = 0; j < a->n; j++) {
            if (!used[j]) {
                px_debug(1, "query", "dropping an answer under %s, a key query %zu did not ask",
                         a->kv[j].key, i);
            }
        }
        free(used);
    }
    /* res has cap slots, m used; the spare ones are constructed and empty, so the caller
     * freeing m of them (PMIx_Info_free(res, m)) releases everything */
    if (rc != PMIX_SUCCESS || m == 0) {
        PMIx_Info_free(res, cap > 0 ? cap : 1);
        return rc != PMIX_SUCCESS ? rc : PMIX_ERR_NOT_FOUND;
    }
    *results = res;
    *nresults = m;
    return m == nkeys ? PMIX_SUCCESS : PMIX_QUERY_PARTIAL_SUCCESS;
}

/* ---- wire form ---- */

pmix_status_t px_qans_pack(pmix_data_buffer_t *buf, const px_qans_t *ans, size_t n)
{
    pmix_status_t rc = px_bfrops_pack(buf, &n, 1, PMIX_SIZE);
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        rc = px_bfrops_pack_info_array(buf, ans[i].kv, ans[i].n);
    }
    return rc;
}

pmix_status_t px_qans_unpack(pmix_data_buffer_t *buf, px_qans_t **ans, size_t *n)
{
    size_t m = 0;
    *ans = NULL;
    *n = 0;
    pmix_status_t rc =
        px_bfrops_unpack_count(buf, PMIX_SIZE, px_bfrops_wire_item(PMIX_INFO, 0), 0, &m);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    px_qans_t *a = calloc(m + 1, sizeof(*a));
    if (a == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < m; i++) {
        rc = px_bfrops_unpack_info_array(buf, &a[i].kv, &a[i].n);
    }
    if (rc != PMIX_SUCCESS) {
        px_qans_free(a, m);
        return rc;
    }
    *ans = a;
    *n = m;
    return PMIX_SUCCESS;
}

/* ---- PMIX_QUERY_AVAIL_SERVERS ---- */

/* A rendezvous file's first three lines: URI, version, pid (later lines ignored). */
static bool rndz_read(const char *path, char **uri, char **version, pid_t *pid)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return false;
    }
    char line[3][4096];
    int got = 0;
    while (got < 3 && fgets(line[got], sizeof(line[got]), f) != NULL) {
        line[got][strcspn(line[got], "\r\n")] = '\0';
        got++;
    }
    fclose(f);
    if (got < 3 || line[0][0] == '\0') {
        return false;
    }
    char *end = NULL;
    long p = strtol(line[2], &end, 10);
    if (end == line[2] || p <= 0) {
        return false;
    }
    *uri = strdup(line[0]);
    *version = strdup(line[1]);
    *pid = (pid_t)p;
    return *uri != NULL && *version != NULL;
}

static bool alive(pid_t pid)
{
    return kill(pid, 0) == 0 || errno == EPERM;
}

bool px_query_rndz_name(const char *name, const char *host, bool *sys)
{
    size_t nlen = strlen(name), hlen = strlen(host);
    *sys = strncmp(name, "pmix.sys.", 9) == 0 && strcmp(name + 9, host) == 0;
    if (*sys) {
        return true;
    }
    if (nlen > 4 && strcmp(name + nlen - 4, ".tmp") == 0) {
        return false; /* being written */
    }
    if (strncmp(name, "pmix.", 5) != 0 || strncmp(name + 5, host, hlen) != 0 ||
        strncmp(name + 5 + hlen, ".tool", 5) != 0) {
        return false;
    }
    const char *rest = name + 5 + hlen + 5;
    return *rest == '\0' || (*rest == '.' && rest[1] != '\0');
}

static pmix_status_t server_entry(pmix_info_t *out, const char *uri, const char *version, pid_t pid,
                                  bool sys)
{
    /* "<nspace>.<rank>;<transport>:<address>" */
    char nspace[PMIX_MAX_NSLEN + 1] = "";
    pmix_rank_t rank = PMIX_RANK_UNDEF;
    const char *semi = strchr(uri, ';');
    if (semi != NULL) {
        const char *dot = semi;
        while (dot > uri && *dot != '.') {
            dot--;
        }
        if (*dot == '.' && (size_t)(dot - uri) <= PMIX_MAX_NSLEN) {
            memcpy(nspace, uri, (size_t)(dot - uri));
            nspace[dot - uri] = '\0';
            rank = (pmix_rank_t)strtoul(dot + 1, NULL, 10);
        }
    }
    size_t n = sys ? 6 : 5;
    pmix_info_t *arr = PMIx_Info_create(n);
    if (arr == NULL) {
        return PMIX_ERR_NOMEM;
    }
    PMIx_Info_load(&arr[0], PMIX_NSPACE, nspace, PMIX_STRING);
    PMIx_Info_load(&arr[1], PMIX_RANK, &rank, PMIX_PROC_RANK);
    PMIx_Info_load(&arr[2], PMIX_SERVER_URI, uri, PMIX_STRING);
    PMIx_Info_load(&arr[3], PMIX_VERSION_INFO, version, PMIX_STRING);
    PMIx_Info_load(&arr[4], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    if (sys) {
        bool t = true;
        PMIx_Info_load(&arr[5], PMIX_SERVER_SYSTEM_SUPPORT, &t, PMIX_BOOL);
    }
    PMIX_LOAD_KEY(out->key, PMIX_SERVER_INFO_ARRAY);
    return darray_of_infos(&out->value, arr, n);
}

pmix_status_t px_query_avail_servers(const char *const *dirs, pmix_value_t *val)
{
    const char *host = px_hostname();
    char **seen_dirs = NULL, **uris = NULL;
    pmix_info_t *out = NULL;
    size_t nout = 0;
    bool *sysflags = NULL;
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t d = 0; dirs != NULL && dirs[d] != NULL && rc == PMIX_SUCCESS; d++) {
        bool dup = false;
        for (size_t s = 0; seen_dirs != NULL && seen_dirs[s] != NULL; s++) {
            dup = dup || strcmp(seen_dirs[s], dirs[d]) == 0;
        }
        if (dup) {
            continue;
        }
        PMIx_Argv_append_nosize(&seen_dirs, dirs[d]);
        struct dirent **ents = NULL;
        int nents = scandir(dirs[d], &ents, NULL, alphasort);
        for (int e = 0; e < nents; e++) {
            bool sys = false;
            char *path = NULL, *uri = NULL, *version = NULL;
            pid_t pid = 0;
            if (rc == PMIX_SUCCESS && px_query_rndz_name(ents[e]->d_name, host, &sys) &&
                asprintf(&path, "%s/%s", dirs[d], ents[e]->d_name) >= 0 &&
                rndz_read(path, &uri, &version, &pid) && alive(pid)) {
                size_t known = 0;
                while (uris != NULL && uris[known] != NULL && strcmp(uris[known], uri) != 0) {
                    known++;
                }
                if (uris != NULL && uris[known] != NULL) {
                    if (sys && !sysflags[known]) { /* seen before without the system flag */
                        PMIx_Info_destruct(&out[known]);
                        rc = server_entry(&out[known], uri, version, pid, true);
                        sysflags[known] = true;
                    }
                } else {
                    pmix_info_t *o = realloc(out, (nout + 1) * sizeof(*o));
                    bool *sf = realloc(sysflags, (nout + 1) * sizeof(*sf));
                    if (o != NULL) {
                        out = o;
                    }
                    if (sf != NULL) {
                        sysflags = sf;
                    }
                    if (o == NULL || sf == NULL) {
                        rc = PMIX_ERR_NOMEM;
                    } else {
                        PMIx_Info_construct(&out[nout]);
                        sysflags[nout] = sys;
                        rc = server_entry(&out[nout], uri, version, pid, sys);
                        nout++;
                        PMIx_Argv_append_nosize(&uris, uri);
                    }
                }
            }
            free(path);
            free(uri);
            free(version);
            free(ents[e]);
        }
        free(ents);
    }
    PMIx_Argv_free(seen_dirs);
    PMIx_Argv_free(uris);
    free(sysflags);
    if (rc == PMIX_SUCCESS && nout == 0) {
        rc = PMIX_ERR_NOT_FOUND;
    }
    if (rc != PMIX_SUCCESS) {
        px_bfrops_info_array_free(out, nout);
        return rc;
    }
    return darray_of_infos(val, out, nout);
}

/* ---- the library's own attribute support ---- */

typedef struct {
    const char *fn;
    const char *const *attrs;
} lib_fn_t;

#define ATTRS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define GROUP_ATTRS                                                                                \
    ATTRS(PMIX_GROUP_LEADER, PMIX_GROUP_OPTIONAL, PMIX_GROUP_NOTIFY_TERMINATION,                   \
          PMIX_GROUP_FT_COLLECTIVE, PMIX_GROUP_LOCAL_ONLY, PMIX_GROUP_ASSIGN_CONTEXT_ID,           \
          PMIX_GROUP_INFO, PMIX_GROUP_BOOTSTRAP, PMIX_GROUP_ADD_MEMBERS,                           \
          PMIX_GROUP_FINAL_MEMBERSHIP_ORDER, PMIX_TIMEOUT)

/* What client/ handles itself (see client/README.md and docs/ARCHITECTURE.md). */
static const lib_fn_t client_fns[] = {
    /* read from the job's data its launcher registered, not from PMIx_Init's info: the
     * hold of client/client_debug.c (the Tools chapter has debuggers look for it here) */
    {"PMIx_Init", ATTRS(PMIX_DEBUG_STOP_IN_INIT)},
    {"PMIx_Finalize", NULL},
    {"PMIx_Abort", NULL},
    {"PMIx_Put", NULL},
    {"PMIx_Commit", NULL},
    {"PMIx_Fence", ATTRS(PMIX_COLLECT_DATA, PMIX_TIMEOUT)},
    {"PMIx_Fence_nb", ATTRS(PMIX_COLLECT_DATA, PMIX_TIMEOUT)},
    {"PMIx_Get", ATTRS(PMIX_OPTIONAL, PMIX_IMMEDIATE, PMIX_TIMEOUT, PMIX_NODE_INFO, PMIX_APP_INFO,
                       PMIX_HOSTNAME, PMIX_NODEID, PMIX_APPNUM)},
    {"PMIx_Get_nb", ATTRS(PMIX_OPTIONAL, PMIX_IMMEDIATE, PMIX_TIMEOUT, PMIX_NODE_INFO,
                          PMIX_APP_INFO, PMIX_HOSTNAME, PMIX_NODEID, PMIX_APPNUM)},
    {"PMIx_Publish", ATTRS(PMIX_TIMEOUT)},
    {"PMIx_Lookup", ATTRS(PMIX_TIMEOUT)},
    {"PMIx_Unpublish", ATTRS(PMIX_TIMEOUT)},
    {"PMIx_Job_control",
     ATTRS(PMIX_REGISTER_CLEANUP, PMIX_REGISTER_CLEANUP_DIR, PMIX_CLEANUP_RECURSIVE, PMIX_TIMEOUT)},
    {"PMIx_Log", ATTRS(PMIX_LOG_STDERR, PMIX_LOG_STDOUT, PMIX_TIMEOUT)},
    {"PMIx_Query_info",
     ATTRS(PMIX_QUERY_REFRESH_CACHE, PMIX_PSET_NAME, PMIX_CLIENT_FUNCTIONS, PMIX_CLIENT_ATTRIBUTES,
           PMIX_SERVER_FUNCTIONS, PMIX_SERVER_ATTRIBUTES, PMIX_HOST_FUNCTIONS, PMIX_HOST_ATTRIBUTES,
           PMIX_TOOL_FUNCTIONS, PMIX_TOOL_ATTRIBUTES)},
    {"PMIx_Query_info_nb", ATTRS(PMIX_QUERY_REFRESH_CACHE, PMIX_PSET_NAME)},
    /* the group calls' directives the library acts on (server/server_group*.c); a context
     * id needs the host */
    {"PMIx_Group_construct", GROUP_ATTRS},
    {"PMIx_Group_construct_nb", GROUP_ATTRS},
    {"PMIx_Group_destruct", ATTRS(PMIX_TIMEOUT)},
    {"PMIx_Group_destruct_nb", ATTRS(PMIX_TIMEOUT)},
    {"PMIx_Group_invite", ATTRS(PMIX_GROUP_ASSIGN_CONTEXT_ID, PMIX_GROUP_INFO, PMIX_TIMEOUT)},
    {"PMIx_Group_invite_nb", ATTRS(PMIX_GROUP_ASSIGN_CONTEXT_ID, PMIX_GROUP_INFO, PMIX_TIMEOUT)},
    {"PMIx_Group_join", ATTRS(PMIX_GROUP_INFO, PMIX_TIMEOUT)},
    {"PMIx_Group_join_nb", ATTRS(PMIX_GROUP_INFO, PMIX_TIMEOUT)},
    {"PMIx_Group_leave", NULL},
    {"PMIx_Group_leave_nb", NULL},
    {"PMIx_Connect", ATTRS(PMIX_TIMEOUT)},
    {"PMIx_Connect_nb", ATTRS(PMIX_TIMEOUT)},
    {"PMIx_Disconnect", ATTRS(PMIX_TIMEOUT)},
    {"PMIx_Disconnect_nb", ATTRS(PMIX_TIMEOUT)},
    {NULL, NULL},
};

/* What server/ handles itself. */
static const lib_fn_t server_fns[] = {
    {"PMIx_server_init", ATTRS(PMIX_SERVER_TMPDIR, PMIX_SYSTEM_TMPDIR, PMIX_SERVER_TOOL_SUPPORT,
                               PMIX_SERVER_SYSTEM_SUPPORT, PMIX_EVENT_BASE, PMIX_SERVER_NSPACE,
                               PMIX_SERVER_RANK, PMIX_HOSTNAME, PMIX_LAUNCHER_RENDEZVOUS_FILE)},
    {"PMIx_server_finalize", NULL},
    {"PMIx_server_register_nspace",
     ATTRS(PMIX_NODE_MAP, PMIX_PROC_MAP, PMIX_JOB_SIZE, PMIX_APP_INFO_ARRAY, PMIX_NODE_INFO_ARRAY,
           PMIX_PROC_INFO_ARRAY, PMIX_SESSION_INFO_ARRAY)},
    {"PMIx_server_register_client", NULL},
    {"PMIx_server_setup_fork", NULL},
    {"PMIx_server_dmodex_request", NULL},
    {"PMIx_server_define_process_set", NULL},
    {"PMIx_server_delete_process_set", NULL},
    {"PMIx_Register_attributes", NULL},
    {"PMIx_Query_info", ATTRS(PMIX_PSET_NAME, PMIX_CLIENT_FUNCTIONS, PMIX_CLIENT_ATTRIBUTES,
                              PMIX_SERVER_FUNCTIONS, PMIX_SERVER_ATTRIBUTES, PMIX_HOST_FUNCTIONS,
                              PMIX_HOST_ATTRIBUTES, PMIX_TOOL_FUNCTIONS, PMIX_TOOL_ATTRIBUTES)},
    {NULL, NULL},
};

static const lib_fn_t *lib_table(const char *level)
{
    if (strcmp(level, PMIX_CLIENT_ATTRIBUTES) == 0 || strcmp(level, PMIX_CLIENT_FUNCTIONS) == 0) {
        return client_fns;
    }
    if (strcmp(level, PMIX_SERVER_ATTRIBUTES) == 0 || strcmp(level, PMIX_SERVER_FUNCTIONS) == 0) {
        return server_fns;
    }
    return NULL;
}

const char *const *px_query_lib_attrs(const char *level, const char *fn)
{
    const lib_fn_t *t = lib_table(level);
    for (size_t i = 0; t != NULL && t[i].fn != NULL; i++) {
        if (strcmp(t[i].fn, fn) == 0) {
            return t[i].attrs;
        }
    }
    return NULL;
}

const char *px_query_lib_functions(const char *level)
{
    if (strcmp(level, PMIX_CLIENT_FUNCTIONS) == 0) {
        return "PMIx_Init,PMIx_Finalize,PMIx_Abort,PMIx_Put,PMIx_Commit,PMIx_Fence,PMIx_Fence_nb,"
               "PMIx_Get,PMIx_Get_nb,PMIx_Publish,PMIx_Lookup,PMIx_Unpublish,PMIx_Job_control,"
               "PMIx_Log,PMIx_Group_construct,PMIx_Group_construct_nb,PMIx_Group_destruct,"
               "PMIx_Group_destruct_nb,PMIx_Group_invite,PMIx_Group_invite_nb,PMIx_Group_join,"
               "PMIx_Group_join_nb,PMIx_Group_leave,PMIx_Group_leave_nb,PMIx_Connect,"
               "PMIx_Connect_nb,PMIx_Disconnect,PMIx_Disconnect_nb,PMIx_Query_info,"
               "PMIx_Query_info_nb";
    }
    if (strcmp(level, PMIX_SERVER_FUNCTIONS) == 0) {
        return "PMIx_server_init,PMIx_server_finalize,PMIx_server_register_nspace,"
               "PMIx_server_register_client,PMIx_server_setup_fork,PMIx_server_dmodex_request,"
               "PMIx_server_define_process_set,PMIx_server_delete_process_set,"
               "PMIx_Register_attributes,PMIx_Query_info";
    }
    return NULL;
}

void px_query_regattr(pmix_regattr_t *r, const char *k)
{
    const struct px_abi_attr *a = px_names_attr_by_key(k);
    PMIx_Regattr_load(r, a != NULL ? a->name : k, k, a != NULL ? a->type : PMIX_UNDEF,
                      a != NULL ? a->description : NULL);
}
