/* server: the PMI-1 and PMI-2 commands (docs/PMI.md) of a connection of server_pmi.c,
 * served as its registered client: each is answered from the job's data or becomes a
 * request to the server's own handler (commit, fence, get, publish, lookup, unpublish,
 * abort, finalize), whose px_srv_reply px_srv_pmi_reply turns back into PMI text. Loop
 * only, px_srv->lock held.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "help/px_help.h"
#include "pmi/px_pmi_wire.h"
#include "server/pmi_int.h"
#include "server/px_server.h"

/* ---- the job's facts ---- */

static px_nspace_t *my_ns(px_pmi_conn_t *k)
{
    return px_store_find(&px_srv->store, k->proc.nspace);
}

static long long job_number(px_nspace_t *ns, pmix_rank_t rank, const char *key, long long dflt)
{
    px_getq_t q;
    memset(&q, 0, sizeof(q));
    const pmix_value_t *v = ns ? px_ns_lookup(ns, rank, key, &q) : NULL;
    int64_t n = 0;
    if (v == NULL || PMIx_Value_get_number(v, &n, PMIX_INT64) != PMIX_SUCCESS) {
        return dflt;
    }
    return (long long)n;
}

/* PMI_process_mapping from the job's map: (vector,(first node,nodes,ranks per node)...)
 * for runs of consecutive ranks, a block repeated over consecutive nodes merged, and the
 * whole list cut to its shortest repeating prefix (MPICH applies it cyclically). NULL
 * when a rank's node is unknown or the text is longer than a PMI value. */
static char *process_mapping(px_nspace_t *ns)
{
    long long size = job_number(ns, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, -1);
    if (size <= 0 || (size_t)size > ns->nranks) {
        return NULL; /* ranks[] has a record for every rank of a registered job */
    }
    size_t n = (size_t)size;
    long *blk = calloc(3 * n, sizeof(*blk)); /* first node, nodes, ranks per node */
    if (blk == NULL) {
        return NULL;
    }
    size_t nb = 0;
    for (size_t r = 0; r < n;) {
        int32_t node = ns->ranks[r].node;
        if (node < 0) {
            free(blk);
            return NULL;
        }
        size_t run = 1;
        while (r + run < n && ns->ranks[r + run].node == node) {
            run++;
        }
        long *last = nb > 0 ? &blk[3 * (nb - 1)] : NULL;
        if (last != NULL && last[2] == (long)run && last[0] + last[1] == node) {
            last[1]++;
        } else {
            blk[3 * nb] = node;
            blk[3 * nb + 1] = 1;
            blk[3 * nb + 2] = (long)run;
            nb++;
        }
        r += run;
    }
    size_t period = nb;
    for (size_t p = 1; p < nb; p++) {
        if (nb % p == 0 && memcmp(blk, blk + 3 * p, 3 * (nb - p) * sizeof(*blk)) == 0) {
            period = p;
            break;
        }
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL) {
        free(blk);
        return NULL;
    }
    fputs("(vector", f);
    for (size_t i = 0; i < period; i++) {
        fprintf(f, ",(%ld,%ld,%ld)", blk[3 * i], blk[3 * i + 1], blk[3 * i + 2]);
    }
    fputs(")", f);
    free(blk);
    if (fclose(f) != 0 || len > PX_PMI_VALLEN_MAX) {
        free(text);
        return NULL;
    }
    return text;
}

/* A PMIx value as PMI text: strings, numbers, booleans, arrays of strings (comma
 * separated). NULL for any other type. */
static char *value_text(const pmix_value_t *v)
{
    char *s = NULL;
    int64_t i = 0;
    uint64_t u = 0;
    switch (v->type) {
    case PMIX_STRING:
        return strdup(v->data.string ? v->data.string : "");
    case PMIX_BOOL:
        return strdup(v->data.flag ? "true" : "false");
    case PMIX_DATA_ARRAY: {
        const pmix_data_array_t *a = v->data.darray;
        if (a == NULL || a->type != PMIX_STRING) {
            return NULL;
        }
        size_t len = 1;
        char **names = a->array;
        for (size_t k = 0; k < a->size; k++) {
            len += strlen(names[k] ? names[k] : "") + 1;
        }
        s = malloc(len);
        if (s != NULL) {
            s[0] = '\0';
            for (size_t k = 0; k < a->size; k++) {
                strcat(s, k ? "," : "");
                strcat(s, names[k] ? names[k] : "");
            }
        }
        return s;
    }
    default:
        break;
    }
    if (PMIx_Value_get_number(v, &i, PMIX_INT64) == PMIX_SUCCESS) {
        return asprintf(&s, "%lld", (long long)i) < 0 ? NULL : s;
    }
    if (PMIx_Value_get_number(v, &u, PMIX_UINT64) == PMIX_SUCCESS) {
        return asprintf(&s, "%llu", (unsigned long long)u) < 0 ? NULL : s;
    }
    return NULL;
}

/* A job-level key a PMI process may ask for: PMI_process_mapping, universeSize, and
 * any PMIx key ("pmix." prefix) of the caller as its PMIx client would see it —
 * PMIX_PSET_NAMES among them. Malloc'd text, or NULL. */
static char *job_attr(px_pmi_conn_t *k, px_nspace_t *ns, const char *key)
{
    if (strcmp(key, "PMI_process_mapping") == 0) {
        return process_mapping(ns);
    }
    if (strcmp(key, "universeSize") == 0) {
        char *s = NULL;
        long long n = job_number(ns, PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE, -1);
        return n < 0 || asprintf(&s, "%lld", n) < 0 ? NULL : s;
    }
    if (strncmp(key, "pmix.", 5) != 0) {
        /* a PMI spawn's preput keys: job-level data of the spawned job (PX_PMI_PREPUT) */
        px_getq_t q;
        memset(&q, 0, sizeof(q));
        const pmix_value_t *v = px_ns_lookup(ns, PMIX_RANK_WILDCARD, key, &q);
        return v != NULL && v->type == PMIX_STRING ? value_text(v) : NULL;
    }
    bool mine = PMIx_Check_nspace(ns->name, k->proc.nspace);
    pmix_rank_t rank = mine ? k->proc.rank : PMIX_RANK_WILDCARD;
    if (strcmp(key, PMIX_PSET_NAMES) == 0) {
        pmix_proc_t who;
        PMIx_Load_procid(&who, ns->name, rank);
        pmix_value_t val;
        PMIx_Value_construct(&val);
        char *s = px_srv_pset_names(&who, &val) == PMIX_SUCCESS ? value_text(&val) : NULL;
        PMIx_Value_destruct(&val);
        return s;
    }
    px_getq_t q;
    memset(&q, 0, sizeof(q));
    q.have_self = mine;
    q.self = k->proc.rank;
    const pmix_value_t *v = px_ns_lookup(ns, rank, key, &q);
    return v != NULL ? value_text(v) : NULL;
}

/* key as some rank of ns posted it (the first rank that did), as this node sees it. */
static char *posted_text(px_nspace_t *ns, const char *key)
{
    for (size_t r = 0; r < ns->nranks; r++) {
        const px_ns_rank_t *pr = &ns->ranks[r];
        const px_kvset_t *set = NULL;
        if (px_ns_rank_is_local(ns, (pmix_rank_t)r)) {
            set = pr->have_local ? &pr->local : NULL;
        } else {
            set = pr->have_remote ? &pr->remote : NULL;
        }
        const pmix_value_t *v = set ? px_kvset_get(set, key) : NULL;
        if (v != NULL) {
            return value_text(v);
        }
    }
    return NULL;
}

/* ---- requests handed to the server's own handlers ---- */

static void finalize_req(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    (void)payload;
    px_srv_finalize_req(c, seq);
}

/* A payload of one (key, string) info array, as PMIx_Publish and Commit send them. */
static pmix_status_t pack_one_info(pmix_data_buffer_t *b, const char *key, const char *val)
{
    pmix_info_t in;
    PMIx_Info_construct(&in);
    PMIx_Info_load(&in, key, val, PMIX_STRING);
    pmix_status_t rc = px_bfrops_pack_info_array(b, &in, 1);
    PMIx_Info_destruct(&in);
    return rc;
}

/* size 1, the key, no directives: LOOKUP and UNPUBLISH. */
static pmix_status_t pack_one_key(pmix_data_buffer_t *b, const char *key)
{
    size_t one = 1;
    pmix_status_t rc = px_bfrops_pack(b, &one, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(b, &key, 1, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(b, NULL, 0);
    }
    return rc;
}

/* ---- command handlers ---- */

typedef struct pmi_cmd pmi_cmd_t;
typedef void (*pmi_handler_t)(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd);
struct pmi_cmd {
    int wire;
    const char *name;
    const char *reply; /* NULL: nothing is answered (abort) */
    bool need_init;
    pmi_handler_t fn;
};

/* Hand payload to fn as the bound client's request (its answer comes back through
 * px_srv_pmi_reply, maybe before this returns). rc is how building the payload went: a
 * failure is answered here (abort has no answer) and k->key dropped. */
static void request(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd, pmix_status_t rc,
                    pmi_wait_t wait, pmix_data_buffer_t *payload,
                    void (*fn)(px_srv_client_t *, uint32_t, pmix_data_buffer_t *))
{
    if (rc != PMIX_SUCCESS) {
        px_bfrops_buf_free(payload);
        free(k->key);
        k->key = NULL;
        if (cmd->reply != NULL) {
            px_pmi_reply_error(k, cmd->reply, "failed", m->cmd, PMIx_Error_string(rc));
        }
        return;
    }
    k->wait = wait;
    k->cmd = cmd;
    if (++k->next_seq == 0) {
        k->next_seq = 1; /* 0 is no request */
    }
    k->seq = k->next_seq;
    fn(k->client, k->seq, payload);
    px_bfrops_buf_free(payload);
}

static const char *arg(const px_pmi_msg_t *m, const char *key1, const char *key2)
{
    const char *v = px_pmi_get(m, key1);
    return v != NULL || key2 == NULL ? v : px_pmi_get(m, key2);
}

static bool is_true(const char *v)
{
    return v != NULL && (strcmp(v, "TRUE") == 0 || strcmp(v, "true") == 0 || strcmp(v, "1") == 0);
}

/* Parse a decimal int; dflt when absent, false when malformed. */
static bool int_arg(const char *v, long long dflt, long long *out)
{
    if (v == NULL) {
        *out = dflt;
        return true;
    }
    char *end = NULL;
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0') {
        return false;
    }
    *out = n;
    return true;
}

static void reply_ok(px_pmi_conn_t *k, const pmi_cmd_t *cmd)
{
    px_pmi_out_t o;
    px_pmi_reply_start(k, &o, cmd->reply);
    px_pmi_out_add_int(&o, "rc", 0);
    px_pmi_reply_send(k, &o);
}

/* A found/not-found answer (get, kvs-get, info-get*attr). */
static void reply_value(px_pmi_conn_t *k, const char *reply, const char *key, const char *text,
                        const char *where)
{
    if (text == NULL && k->wire == PX_PMI_WIRE1) {
        px_pmi_reply_error(k, reply, "key-not-found", key, where);
        return;
    }
    px_pmi_out_t o;
    px_pmi_reply_start(k, &o, reply);
    px_pmi_out_add_int(&o, "rc", 0);
    if (k->wire == PX_PMI_WIRE2) {
        px_pmi_out_add(&o, "found", text ? "TRUE" : "FALSE");
    }
    if (text != NULL) {
        px_pmi_out_add(&o, "value", text);
    }
    px_pmi_reply_send(k, &o);
}

/* Bind the connection to its registered client: from now on it is that process. */
static bool conn_bind(px_pmi_conn_t *k, const pmi_cmd_t *cmd)
{
    px_srv_client_t *c = px_srv_client_find(k->proc.nspace, k->proc.rank);
    if (c == NULL) {
        px_pmi_reply_error(k, cmd->reply, "not-registered", k->proc.rank, k->proc.nspace);
    } else if (c->pmi != NULL || c->peer != NULL || c->connected_once) {
        px_pmi_reply_error(k, cmd->reply, "already-connected", k->proc.rank, k->proc.nspace);
        c = NULL;
    }
    if (c == NULL) {
        k->closing = true;
        px_pmi_conn_flush(k);
        return false;
    }
    c->pmi = k;
    k->client = c;
    px_srv_client_retain(c); /* the connection's reference */
    c->connected_once = true;
    c->pid = k->pid;
    px_debug(2, "server", "%s:%u (pid %d) speaks PMI-%d", c->proc.nspace, c->proc.rank, (int)k->pid,
             k->wire);
    px_srv_client_connected(c);
    return true;
}

static void h_init(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    long long ver = 0, sub = 0;
    bool ok = int_arg(px_pmi_get(m, "pmi_version"), -1, &ver) &&
              int_arg(px_pmi_get(m, "pmi_subversion"), 0, &sub);
    if (!ok || (ver != 1 && ver != 2)) {
        px_pmi_out_t o;
        px_pmi_reply_start(k, &o, cmd->reply);
        px_pmi_out_add_int(&o, "pmi_version", 1);
        px_pmi_out_add_int(&o, "pmi_subversion", 1);
        px_pmi_out_add_int(&o, "rc", -1);
        char *text =
            px_help_render("help-pmi.txt", "bad-version",
                           px_pmi_get(m, "pmi_version") ? px_pmi_get(m, "pmi_version") : "(none)");
        if (text != NULL) {
            text[strcspn(text, "\n")] = '\0';
            px_pmi_out_add_text(&o, "msg", text);
        }
        free(text);
        px_pmi_reply_send(k, &o);
        return;
    }
    if (k->client != NULL) {
        px_pmi_reply_error(k, cmd->reply, "already-connected", k->proc.rank, k->proc.nspace);
        return;
    }
    if (ver == 1 && !conn_bind(k, cmd)) {
        return;
    }
    px_pmi_out_t o;
    px_pmi_reply_start(k, &o, cmd->reply);
    px_pmi_out_add_int(&o, "pmi_version", ver);
    px_pmi_out_add_int(&o, "pmi_subversion", ver == 1 ? 1 : 0);
    px_pmi_out_add_int(&o, "rc", 0);
    px_pmi_reply_send(k, &o);
    if (ver == 2) {
        k->wire = PX_PMI_WIRE2; /* what follows is framed; fullinit binds */
    }
}

static void h_fullinit(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    long long rank = 0;
    const char *r = px_pmi_get(m, "pmirank");
    if (!int_arg(r, k->proc.rank, &rank) || rank != (long long)k->proc.rank) {
        px_pmi_reply_error(k, cmd->reply, "wrong-rank", r ? r : "", k->proc.rank, k->proc.nspace);
        return;
    }
    if (k->client != NULL) {
        px_pmi_reply_error(k, cmd->reply, "already-connected", k->proc.rank, k->proc.nspace);
        return;
    }
    if (!conn_bind(k, cmd)) {
        return;
    }
    px_nspace_t *ns = my_ns(k);
    px_pmi_out_t o;
    px_pmi_reply_start(k, &o, cmd->reply);
    px_pmi_out_add_int(&o, "rc", 0);
    px_pmi_out_add_int(&o, "pmi-version", 2);
    px_pmi_out_add_int(&o, "pmi-subversion", 0);
    px_pmi_out_add_int(&o, "rank", k->proc.rank);
    px_pmi_out_add_int(&o, "size", job_number(ns, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, 1));
    px_pmi_out_add_int(&o, "appnum", job_number(ns, k->proc.rank, PMIX_APPNUM, 0));
    px_pmi_out_add(&o, "debugged", "FALSE");
    px_pmi_out_add(&o, "pmiverbose", "FALSE");
    /* a spawned job's: the spawner's job (PMIX_PARENT_ID), which makes PMI2_Init say
     * spawned */
    px_getq_t q;
    memset(&q, 0, sizeof(q));
    const pmix_value_t *parent =
        ns ? px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_PARENT_ID, &q) : NULL;
    if (parent != NULL && parent->type == PMIX_PROC && parent->data.proc != NULL) {
        px_pmi_out_add(&o, "spawner-jobid", parent->data.proc->nspace);
    }
    px_pmi_reply_send(k, &o);
}

static void h_maxes(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    (void)m;
    px_pmi_out_t o;
    px_pmi_reply_start(k, &o, cmd->reply);
    px_pmi_out_add_int(&o, "rc", 0);
    px_pmi_out_add_int(&o, "kvsname_max", PX_PMI_KVSNAME_MAX);
    px_pmi_out_add_int(&o, "keylen_max", PX_PMI_KEYLEN_MAX);
    px_pmi_out_add_int(&o, "vallen_max", PX_PMI_VALLEN_MAX);
    px_pmi_reply_send(k, &o);
}

static void h_appnum(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    (void)m;
    px_pmi_out_t o;
    px_pmi_reply_start(k, &o, cmd->reply);
    px_pmi_out_add_int(&o, "rc", 0);
    px_pmi_out_add_int(&o, "appnum", job_number(my_ns(k), k->proc.rank, PMIX_APPNUM, 0));
    px_pmi_reply_send(k, &o);
}

/* get_my_kvsname (PMI-1), job-getid (PMI-2): the namespace. */
static void h_kvsname(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    (void)m;
    px_pmi_out_t o;
    px_pmi_reply_start(k, &o, cmd->reply);
    px_pmi_out_add_int(&o, "rc", 0);
    px_pmi_out_add(&o, k->wire == PX_PMI_WIRE2 ? "jobid" : "kvsname", k->proc.nspace);
    px_pmi_reply_send(k, &o);
}

static void h_universe(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    (void)m;
    px_nspace_t *ns = my_ns(k);
    long long size = job_number(ns, PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE,
                                job_number(ns, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, 1));
    px_pmi_out_t o;
    px_pmi_reply_start(k, &o, cmd->reply);
    px_pmi_out_add_int(&o, "rc", 0);
    px_pmi_out_add_int(&o, "size", size);
    px_pmi_reply_send(k, &o);
}

/* A key and value a process may put: the limits get_maxes announced, not reserved. */
static bool check_kv(px_pmi_conn_t *k, const pmi_cmd_t *cmd, const char *key, const char *val)
{
    if (key == NULL || *key == '\0' || strlen(key) > PX_PMI_KEYLEN_MAX) {
        px_pmi_reply_error(k, cmd->reply, "bad-key", key ? key : "", PX_PMI_KEYLEN_MAX);
    } else if (strncmp(key, "pmix.", 5) == 0) {
        px_pmi_reply_error(k, cmd->reply, "reserved-key", key);
    } else if (val == NULL || strlen(val) > PX_PMI_VALLEN_MAX) {
        px_pmi_reply_error(k, cmd->reply, "bad-value", key, PX_PMI_VALLEN_MAX);
    } else {
        return true;
    }
    return false;
}

/* put (PMI-1) / kvs-put (PMI-2): the value becomes this process's posted data, visible
 * everywhere (a COMMIT of it, local and remote sets). */
static void h_put(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    const char *key = px_pmi_get(m, "key"), *val = px_pmi_get(m, "value");
    const char *kvs = px_pmi_get(m, "kvsname");
    if (kvs != NULL && strcmp(kvs, k->proc.nspace) != 0) {
        px_pmi_reply_error(k, cmd->reply, "bad-kvsname", kvs, k->proc.nspace);
        return;
    }
    if (!check_kv(k, cmd, key, val)) {
        return;
    }
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    pmix_status_t rc = pack_one_info(&b, key, val);
    if (rc == PMIX_SUCCESS) {
        rc = pack_one_info(&b, key, val);
    }
    if (rc == PMIX_SUCCESS) {
        px_srv_commit(k->client, &b);
        reply_ok(k, cmd);
    } else {
        px_pmi_reply_error(k, cmd->reply, "failed", m->cmd, PMIx_Error_string(rc));
    }
    px_bfrops_buf_free(&b);
}

/* barrier_in / kvs-fence: a fence of the whole namespace collecting the data (the same
 * tracker PMIx clients of the job join, and the host's fence_nb beyond this node). */
static void h_fence(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    size_t none = 0;
    pmix_info_t collect;
    PMIx_Info_construct(&collect);
    bool yes = true;
    PMIx_Info_load(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_status_t rc = px_bfrops_pack(&b, &none, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(&b, &collect, 1);
    }
    PMIx_Info_destruct(&collect);
    request(k, m, cmd, rc, PMI_WAIT_FENCE, &b, px_srv_fence);
}

/* get (PMI-1) / kvs-get (PMI-2): a job attribute, else what a rank of the namespace
 * posted. With a PMI-2 srcid, that rank's posted data through the server's GET (which
 * waits for a local rank's commit or asks the host for a remote one). */
static void h_get(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    const char *key = px_pmi_get(m, "key");
    const char *kvs = arg(m, "kvsname", "jobid");
    long long src = -1;
    if (kvs == NULL || *kvs == '\0') {
        kvs = k->proc.nspace;
    }
    if (key == NULL || *key == '\0' || strlen(key) > PX_PMI_KEYLEN_MAX) {
        px_pmi_reply_error(k, cmd->reply, "bad-key", key ? key : "", PX_PMI_KEYLEN_MAX);
        return;
    }
    if (!int_arg(px_pmi_get(m, "srcid"), -1, &src)) {
        px_pmi_reply_error(k, cmd->reply, "bad-number", "srcid", px_pmi_get(m, "srcid"));
        return;
    }
    px_nspace_t *ns = px_store_find(&px_srv->store, kvs);
    if (ns == NULL) {
        px_pmi_reply_error(k, cmd->reply, "unknown-kvsname", kvs);
        return;
    }
    char *text = job_attr(k, ns, key);
    if (text == NULL && src >= 0 && src < (long long)PMIX_RANK_VALID) {
        pmix_data_buffer_t b;
        px_bfrops_buf_init(&b);
        pmix_proc_t target;
        PMIx_Load_procid(&target, kvs, (pmix_rank_t)src);
        pmix_status_t rc = px_bfrops_pack(&b, &target, 1, PMIX_PROC);
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_pack(&b, &key, 1, PMIX_STRING);
        }
        if (rc == PMIX_SUCCESS) {
            rc = px_bfrops_pack_info_array(&b, NULL, 0);
        }
        k->key = strdup(key);
        if (rc == PMIX_SUCCESS && k->key == NULL) {
            rc = PMIX_ERR_NOMEM;
        }
        request(k, m, cmd, rc, PMI_WAIT_GET, &b, px_srv_get);
        return;
    }
    if (text == NULL) {
        text = posted_text(ns, key);
    }
    reply_value(k, cmd->reply, key, text, kvs);
    free(text);
}

static void h_getjobattr(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    const char *key = px_pmi_get(m, "key");
    if (key == NULL || *key == '\0') {
        px_pmi_reply_error(k, cmd->reply, "bad-key", "", PX_PMI_KEYLEN_MAX);
        return;
    }
    char *text = job_attr(k, my_ns(k), key);
    reply_value(k, cmd->reply, key, text, k->proc.nspace);
    free(text);
}

static pmi_nattr_t *nattr_find(const char *nspace, const char *key)
{
    for (pmi_nattr_t *a = px_pmi_state()->nattrs; a != NULL; a = a->next) {
        if (strcmp(a->nspace, nspace) == 0 && strcmp(a->key, key) == 0) {
            return a;
        }
    }
    return NULL;
}

/* info-putnodeattr: for this job's processes on this node (this server's); processes
 * waiting for the key get it. */
static void h_putnodeattr(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    const char *key = px_pmi_get(m, "key"), *val = px_pmi_get(m, "value");
    if (!check_kv(k, cmd, key, val)) {
        return;
    }
    pmi_nattr_t *a = nattr_find(k->proc.nspace, key);
    char *v = strdup(val);
    if (a == NULL && v != NULL && (a = calloc(1, sizeof(*a))) != NULL) {
        a->nspace = strdup(k->proc.nspace);
        a->key = strdup(key);
        a->next = px_pmi_state()->nattrs;
        px_pmi_state()->nattrs = a;
    }
    if (a == NULL || v == NULL || a->nspace == NULL || a->key == NULL) {
        free(v);
        px_pmi_reply_error(k, cmd->reply, "failed", m->cmd, PMIx_Error_string(PMIX_ERR_NOMEM));
        return;
    }
    free(a->val);
    a->val = v;
    reply_ok(k, cmd);
    for (px_pmi_conn_t *w = px_pmi_state()->conns; w != NULL; w = w->next) {
        if (w->wait == PMI_WAIT_NODEATTR && strcmp(w->key, key) == 0 &&
            PMIx_Check_nspace(w->proc.nspace, k->proc.nspace)) {
            w->wait = PMI_WAIT_NONE;
            reply_value(w, w->cmd->reply, key, v, w->proc.nspace);
            free(w->key);
            w->key = NULL;
            free(w->thrid);
            w->thrid = NULL;
            event_active(w->ev_resume, 0, 0);
        }
    }
}

static void h_getnodeattr(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    const char *key = px_pmi_get(m, "key");
    if (key == NULL || *key == '\0' || strlen(key) > PX_PMI_KEYLEN_MAX) {
        px_pmi_reply_error(k, cmd->reply, "bad-key", key ? key : "", PX_PMI_KEYLEN_MAX);
        return;
    }
    pmi_nattr_t *a = nattr_find(k->proc.nspace, key);
    if (a == NULL && is_true(px_pmi_get(m, "wait"))) {
        k->key = strdup(key);
        if (k->key != NULL) {
            k->wait = PMI_WAIT_NODEATTR; /* answered by a put of the key */
            k->cmd = cmd;
            return;
        }
    }
    reply_value(k, cmd->reply, key, a ? a->val : NULL, k->proc.nspace);
}

static void h_finalize(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    request(k, m, cmd, PMIX_SUCCESS, PMI_WAIT_FINALIZE, &b, finalize_req);
}

/* abort: PMIx_Abort's path (the host's abort upcall: the job ends with the code). */
static void h_abort(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    long long code = 1;
    if (!int_arg(px_pmi_get(m, "exitcode"), 1, &code) || code < INT32_MIN || code > INT32_MAX) {
        code = 1;
    }
    int32_t status = (int32_t)code;
    const char *msg = arg(m, "message", "msg");
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    size_t none = 0;
    pmix_status_t rc = px_bfrops_pack(&b, &status, 1, PMIX_INT32);
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(&b, &msg, 1, PMIX_STRING);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(&b, &none, 1, PMIX_SIZE);
    }
    request(k, m, cmd, rc, PMI_WAIT_ABORT, &b, px_srv_abort);
}

static void h_publish(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    const char *name = arg(m, "service", "name"), *port = px_pmi_get(m, "port");
    if (name == NULL || *name == '\0' || strlen(name) >= PMIX_MAX_KEYLEN ||
        strncmp(name, "pmix.", 5) == 0 || port == NULL || strlen(port) > PX_PMI_VALLEN_MAX) {
        px_pmi_reply_error(k, cmd->reply, "bad-service", name ? name : "");
        return;
    }
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    request(k, m, cmd, pack_one_info(&b, name, port), PMI_WAIT_PUBLISH, &b, px_srv_publish);
}

static void h_lookup_or_unpublish(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    const char *name = arg(m, "service", "name");
    if (name == NULL || *name == '\0' || strlen(name) >= PMIX_MAX_KEYLEN) {
        px_pmi_reply_error(k, cmd->reply, "bad-service", name ? name : "");
        return;
    }
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    pmix_status_t rc = pack_one_key(&b, name);
    k->key = strdup(name);
    if (rc == PMIX_SUCCESS && k->key == NULL) {
        rc = PMIX_ERR_NOMEM;
    }
    bool lookup = strstr(m->cmd, "lookup") != NULL;
    request(k, m, cmd, rc, lookup ? PMI_WAIT_LOOKUP : PMI_WAIT_UNPUBLISH, &b,
            lookup ? px_srv_lookup : px_srv_unpublish);
}

static void h_unsupported(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    px_pmi_reply_error(k, cmd->reply, "unsupported", m->cmd);
}

/* spawn (PMI-1: each mcmd=spawn block; PMI-2: spawn): once every executable is read, the
 * process's SPAWN request (PMIx_Spawn's path); answered when the host answers. */
static void h_spawn(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    bool ready = false;
    if (!px_pmi_spawn_take(k, m, cmd->reply, &ready) || !ready) {
        return; /* answered with an error, or more blocks to come (PMI-1) */
    }
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    pmix_status_t rc = px_pmi_spawn_payload(k->spawn, &b);
    request(k, m, cmd, rc, PMI_WAIT_SPAWN, &b, px_srv_spawn);
    if (rc != PMIX_SUCCESS) { /* answered by request() */
        px_pmi_spawn_free(k->spawn);
        k->spawn = NULL;
    }
}

/* The host's answer to a spawn: PMI-1 "spawn_result rc=0", PMI-2 "spawn-response;rc=0;
 * jobid=<the new namespace>" (no errcodes: a spawn starts every process or fails as a
 * whole, and the clients read a missing list as all zero). */
static void spawn_answer(px_pmi_conn_t *k, const pmi_cmd_t *cmd, pmix_status_t status,
                         const pmix_data_buffer_t *body)
{
    char *ns = NULL;
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    if (status == PMIX_SUCCESS && body != NULL && body->bytes_used > 0 &&
        px_bfrops_buf_append(&b, body->base_ptr, body->bytes_used) == PMIX_SUCCESS) {
        int32_t one = 1;
        if (px_bfrops_unpack(&b, &ns, &one, PMIX_STRING) != PMIX_SUCCESS) {
            ns = NULL;
        }
    }
    px_bfrops_buf_free(&b);
    if (ns == NULL) {
        px_pmi_reply_error(k, cmd->reply, "failed", cmd->name,
                           PMIx_Error_string(status != PMIX_SUCCESS ? status : PMIX_ERR_BAD_PARAM));
    } else {
        px_pmi_out_t o;
        px_pmi_reply_start(k, &o, cmd->reply);
        px_pmi_out_add_int(&o, "rc", 0);
        if (k->wire == PX_PMI_WIRE2) {
            px_pmi_out_add(&o, "jobid", ns);
        }
        px_pmi_reply_send(k, &o);
        px_debug(2, "server", "PMI spawn of %s:%u: %s", k->proc.nspace, k->proc.rank, ns);
    }
    free(ns);
    px_pmi_spawn_free(k->spawn);
    k->spawn = NULL;
}

/* initack (a PMI_PORT connection's first line): names the offer (PMI_ID) it came for; from
 * then on the connection is that process's, as a handed-over PMI_FD is. The answer is
 * what MPICH's client reads before it says init: "cmd=initack rc=0", then
 * "cmd=set size=N", "cmd=set rank=R", "cmd=set debug=0". An unknown, used or withdrawn
 * id is answered rc=-1 and the connection closed. */
static void h_initack(px_pmi_conn_t *k, const px_pmi_msg_t *m, const pmi_cmd_t *cmd)
{
    if (!k->port_pending) {
        px_pmi_reply_error(k, cmd->reply, "initack-not-port", k->proc.rank, k->proc.nspace);
        return;
    }
    const char *v = px_pmi_get(m, "pmiid");
    long long id = 0;
    pmix_proc_t proc;
    uint32_t size = 0;
    pid_t pid = 0;
    if (!int_arg(v, 0, &id) || id <= 0 || id > INT32_MAX ||
        !px_pmi_port_claim((uint32_t)id, &proc, &size, &pid)) {
        px_pmi_reply_error(k, cmd->reply, "bad-pmiid", v ? v : "");
        k->closing = true;
        px_pmi_conn_flush(k);
        return;
    }
    px_pmi_port_settled(k);
    k->proc = proc;
    k->pid = pid;
    px_debug(2, "server", "PMI_PORT connection is %s:%u (pid %d)", proc.nspace, proc.rank,
             (int)pid);
    px_pmi_out_t o;
    px_pmi_reply_start(k, &o, cmd->reply);
    px_pmi_out_add_int(&o, "rc", 0);
    px_pmi_reply_send(k, &o);
    const struct {
        const char *key;
        long long val;
    } set[] = {{"size", size}, {"rank", proc.rank}, {"debug", 0}};
    for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
        px_pmi_reply_start(k, &o, "set");
        px_pmi_out_add_int(&o, set[i].key, set[i].val);
        px_pmi_reply_send(k, &o);
    }
}

static const pmi_cmd_t pmi_cmds[] = {
    {PX_PMI_WIRE1, "init", "response_to_init", false, h_init},
    {PX_PMI_WIRE1, "get_maxes", "maxes", true, h_maxes},
    {PX_PMI_WIRE1, "get_appnum", "appnum", true, h_appnum},
    {PX_PMI_WIRE1, "get_my_kvsname", "my_kvsname", true, h_kvsname},
    {PX_PMI_WIRE1, "get_universe_size", "universe_size", true, h_universe},
    {PX_PMI_WIRE1, "put", "put_result", true, h_put},
    {PX_PMI_WIRE1, "barrier_in", "barrier_out", true, h_fence},
    {PX_PMI_WIRE1, "get", "get_result", true, h_get},
    {PX_PMI_WIRE1, "finalize", "finalize_ack", true, h_finalize},
    {PX_PMI_WIRE1, "abort", NULL, true, h_abort},
    {PX_PMI_WIRE1, "publish_name", "publish_result", true, h_publish},
    {PX_PMI_WIRE1, "unpublish_name", "unpublish_result", true, h_lookup_or_unpublish},
    {PX_PMI_WIRE1, "lookup_name", "lookup_result", true, h_lookup_or_unpublish},
    {PX_PMI_WIRE1, "spawn", "spawn_result", true, h_spawn},
    {PX_PMI_WIRE1, "initack", "initack", false, h_initack},
    {PX_PMI_WIRE2, "fullinit", "fullinit-response", false, h_fullinit},
    {PX_PMI_WIRE2, "job-getid", "job-getid-response", true, h_kvsname},
    {PX_PMI_WIRE2, "kvs-put", "kvs-put-response", true, h_put},
    {PX_PMI_WIRE2, "kvs-fence", "kvs-fence-response", true, h_fence},
    {PX_PMI_WIRE2, "kvs-get", "kvs-get-response", true, h_get},
    {PX_PMI_WIRE2, "info-putnodeattr", "info-putnodeattr-response", true, h_putnodeattr},
    {PX_PMI_WIRE2, "info-getnodeattr", "info-getnodeattr-response", true, h_getnodeattr},
    {PX_PMI_WIRE2, "info-getjobattr", "info-getjobattr-response", true, h_getjobattr},
    {PX_PMI_WIRE2, "finalize", "finalize-response", true, h_finalize},
    {PX_PMI_WIRE2, "abort", NULL, true, h_abort},
    {PX_PMI_WIRE2, "name-publish", "name-publish-response", true, h_publish},
    {PX_PMI_WIRE2, "name-unpublish", "name-unpublish-response", true, h_lookup_or_unpublish},
    {PX_PMI_WIRE2, "name-lookup", "name-lookup-response", true, h_lookup_or_unpublish},
    {PX_PMI_WIRE2, "spawn", "spawn-response", true, h_spawn},
    {PX_PMI_WIRE2, "job-connect", "job-connect-response", true, h_unsupported},
    {PX_PMI_WIRE2, "job-disconnect", "job-disconnect-response", true, h_unsupported},
    {PX_PMI_WIRE2, "ring", "ring-response", true, h_unsupported},
};

/* The command named by the message, on the connection's wire. */
static const pmi_cmd_t *cmd_find(int wire, const char *name)
{
    for (size_t i = 0; i < sizeof(pmi_cmds) / sizeof(pmi_cmds[0]); i++) {
        if (pmi_cmds[i].wire == wire && strcmp(pmi_cmds[i].name, name) == 0) {
            return &pmi_cmds[i];
        }
    }
    return NULL;
}

void px_pmi_handle(px_pmi_conn_t *k, const px_pmi_msg_t *m)
{
    free(k->thrid);
    k->thrid = NULL;
    const char *thrid = k->wire == PX_PMI_WIRE2 ? px_pmi_get(m, "thrid") : NULL;
    if (thrid != NULL) {
        k->thrid = strdup(thrid);
    }
    const pmi_cmd_t *cmd = cmd_find(k->wire, m->cmd);
    px_debug(3, "server", "PMI-%d from %s:%u: %s", k->wire, k->proc.nspace, k->proc.rank, m->cmd);
    if (k->port_pending && (cmd == NULL || cmd->fn != h_initack)) {
        /* a PMI_PORT connection is nobody's until it names its offer */
        px_pmi_reply_error(k, cmd && cmd->reply ? cmd->reply : "error", "initack-first", m->cmd);
        k->closing = true;
        px_pmi_conn_flush(k);
    } else if (cmd == NULL) {
        px_pmi_reply_error(k, "error", "unknown-command", m->cmd);
    } else if (cmd->need_init && k->client == NULL) {
        px_pmi_reply_error(k, cmd->reply ? cmd->reply : "error", "not-initialized", m->cmd);
    } else {
        cmd->fn(k, m, cmd);
    }
    if (k->wait == PMI_WAIT_NONE) {
        free(k->thrid);
        k->thrid = NULL;
    }
}

/* ---- answers of the server's handlers (px_srv_reply) ---- */

/* The value of key in a blob of posted data (a GET's answer), or NULL. */
static char *blob_value(const pmix_data_buffer_t *body, const char *key)
{
    if (body == NULL || body->bytes_used == 0) {
        return NULL;
    }
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    if (px_bfrops_buf_append(&b, body->base_ptr, body->bytes_used) != PMIX_SUCCESS) {
        return NULL;
    }
    char *text = NULL;
    pmix_proc_t p;
    pmix_info_t *info = NULL;
    size_t n = 0;
    while (text == NULL && px_blob_next(&b, &p, &info, &n) == PMIX_SUCCESS) {
        for (size_t i = 0; i < n && text == NULL; i++) {
            if (PMIX_CHECK_KEY(&info[i], key)) {
                text = value_text(&info[i].value);
            }
        }
        px_bfrops_info_array_free(info, n);
    }
    px_bfrops_buf_free(&b);
    return text;
}

/* The port a LOOKUP's answer holds for key, or NULL. */
static char *lookup_value(const pmix_data_buffer_t *body, const char *key)
{
    if (body == NULL || body->bytes_used == 0) {
        return NULL;
    }
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    if (px_bfrops_buf_append(&b, body->base_ptr, body->bytes_used) != PMIX_SUCCESS) {
        return NULL;
    }
    char *text = NULL;
    size_t n = 0;
    int32_t one = 1;
    if (px_bfrops_unpack_count(&b, PMIX_SIZE, px_bfrops_wire_elem(PMIX_PDATA), 0, &n) ==
        PMIX_SUCCESS) {
        for (size_t i = 0; i < n && text == NULL; i++) {
            pmix_pdata_t pd;
            PMIx_Pdata_construct(&pd);
            one = 1;
            if (px_bfrops_unpack(&b, &pd, &one, PMIX_PDATA) != PMIX_SUCCESS) {
                break;
            }
            if (PMIX_CHECK_KEY(&pd, key)) {
                text = value_text(&pd.value);
            }
            PMIx_Pdata_destruct(&pd);
        }
    }
    px_bfrops_buf_free(&b);
    return text;
}

void px_srv_pmi_reply(px_srv_client_t *c, uint32_t seq, uint32_t tag, pmix_status_t status,
                      const pmix_data_buffer_t *body)
{
    (void)tag;
    px_pmi_conn_t *k = c->pmi;
    if (k == NULL || k->wait == PMI_WAIT_NONE || k->wait == PMI_WAIT_NODEATTR || seq != k->seq) {
        return;
    }
    pmi_wait_t w = k->wait;
    k->wait = PMI_WAIT_NONE;
    const pmi_cmd_t *cmd = k->cmd;
    char *text = NULL;
    if (w == PMI_WAIT_GET) {
        text = status == PMIX_SUCCESS ? blob_value(body, k->key) : NULL;
        reply_value(k, cmd->reply, k->key, text, k->proc.nspace);
    } else if (w == PMI_WAIT_LOOKUP && status == PMIX_SUCCESS &&
               (text = lookup_value(body, k->key)) != NULL) {
        px_pmi_out_t o;
        px_pmi_reply_start(k, &o, cmd->reply);
        px_pmi_out_add_int(&o, "rc", 0);
        if (k->wire == PX_PMI_WIRE2) {
            px_pmi_out_add(&o, "found", "TRUE");
            px_pmi_out_add(&o, "value", text);
        }
        px_pmi_out_add(&o, "port", text);
        px_pmi_reply_send(k, &o);
    } else if (w == PMI_WAIT_LOOKUP) {
        px_pmi_reply_error(k, cmd->reply, "not-published", k->key);
    } else if (w == PMI_WAIT_SPAWN) {
        spawn_answer(k, cmd, status, body);
    } else if (cmd->reply != NULL && status != PMIX_SUCCESS) { /* abort has no answer */
        px_pmi_reply_error(k, cmd->reply, "failed", cmd->name, PMIx_Error_string(status));
    } else if (cmd->reply != NULL) {
        k->finalized = k->finalized || w == PMI_WAIT_FINALIZE;
        reply_ok(k, cmd);
    }
    free(text);
    free(k->key);
    k->key = NULL;
    free(k->thrid);
    k->thrid = NULL;
    /* the next request is read on a later turn: never from inside the handler that
     * answered (a fence answering its participants one after the other) */
    event_active(k->ev_resume, 0, 0);
}
