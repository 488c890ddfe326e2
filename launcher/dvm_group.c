/* launcher: the DVM's collectives for process groups and connect/disconnect — the host's
 * `group`, `connect` and `disconnect` upcalls. Each server hosting participants (one per
 * daemon) makes one upcall per operation (a bootstrap: one per participant); the DVM
 * gathers those contributions for the daemons involved, then answers every one of them
 * with the result: a context id unique across the DVM (never reused), the final
 * membership, the members' endpoint data and PMIX_GROUP_INFO. The connected sets are
 * remembered: a member that ends without disconnecting is reported to the others
 * (PMIX_ERR_PROC_TERM_WO_SYNC) and, when its end fails its job, the connected jobs end with
 * it (PMIX_ERR_JOB_TERM_WO_SYNC). Upcalls arrive on the library's thread and are shifted
 * to the controller's loop, where all of this lives.
 *
 * Daemon 0's contributions are this process's own server's upcalls; another daemon's
 * arrive as its GROUP_UP request (docs/PROTOCOL.md) and enter through the same
 * contribute(); their answers go back as GROUP_REL replies. A member that ends while a
 * collective waits is dropped (a construct with PMIX_GROUP_OPTIONAL, FT_COLLECTIVE or
 * NOTIFY_TERMINATION: the member's own server raises the events) or fails it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <pmix.h>
#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "daemon/px_dproto.h"
#include "launcher/dvm_int.h"
#include "launcher/px_daemons.h"
#include "server/px_srv_host.h"
#include "types/px_types.h"

/* One answer owed to a contribution: this process's server's callback, or (id != 0)
 * another daemon's GROUP_UP request, answered with GROUP_REL. */
typedef struct {
    pmix_info_cbfunc_t icb; /* group */
    pmix_op_cbfunc_t ocb;   /* connect / disconnect */
    void *cbdata;
    unsigned id; /* the daemon that asked (0: this process's server) */
    uint32_t seq;
} owed_t;

typedef enum { COLL_GROUP, COLL_DESTRUCT, COLL_CONNECT, COLL_DISCONNECT } coll_kind_t;

typedef struct px_coll {
    coll_kind_t kind;
    char *key;            /* owned: the group id, or the participants' signature */
    pmix_proc_t *members; /* owned: the membership (the first contribution's, less what a
                           * later one no longer lists) */
    size_t nmembers;
    bool *involved, *in; /* owned, by daemon id: hosts a member / has contributed */
    size_t ndaemons;
    owed_t *owed; /* owned */
    size_t nowed;
    /* group construct */
    bool ctx, unordered, tolerant;
    bool optional;    /* PMIX_GROUP_OPTIONAL: a timeout builds the group of those who called */
    bool notify;      /* PMIX_GROUP_NOTIFY_TERMINATION: a member that ends is dropped */
    bool boot;        /* a bootstrap: counted, not gathered per daemon */
    size_t bootstrap; /* leaders expected (0: not known yet) */
    pmix_proc_t *parts, *leaders, *adds; /* owned: bootstrap counting */
    size_t nparts, nleaders, nadds;
    pmix_proc_t *gone; /* owned: members their server reported gone (its group event) */
    size_t ngone;
    pmix_data_buffer_t endpt, ginfo; /* concatenated contributions */
    struct event *timer;
    px_dvm_t *dvm;
    struct px_coll *next;
} px_coll_t;

/* A connected set (PMIx_Connect completed, no PMIx_Disconnect yet). */
typedef struct px_connset {
    pmix_proc_t *procs; /* owned, as given (wildcards stand for every rank) */
    size_t nprocs;
    size_t count; /* connects not yet disconnected */
    char *sig;    /* owned */
    /* every member's job is an Open MPI 4.1 one (px_job_t.ompi): its MPI_Comm_disconnect
     * is a fence, never PMIx_Disconnect, so a member's normal end is not reported */
    bool ompi;
    struct px_connset *next;
} px_connset_t;

/* ---- helpers ---- */

static bool same_proc(const pmix_proc_t *a, const pmix_proc_t *b)
{
    return PMIx_Check_nspace(a->nspace, b->nspace) && a->rank == b->rank;
}

static bool names(const pmix_proc_t *list, size_t n, const pmix_proc_t *p)
{
    for (size_t i = 0; i < n; i++) {
        if (PMIx_Check_nspace(list[i].nspace, p->nspace) &&
            (list[i].rank == PMIX_RANK_WILDCARD || list[i].rank == p->rank)) {
            return true;
        }
    }
    return false;
}

static int cmp_proc(const void *a, const void *b)
{
    const pmix_proc_t *x = a, *y = b;
    int c = strncmp(x->nspace, y->nspace, PMIX_MAX_NSLEN);
    return c != 0 ? c : (x->rank < y->rank ? -1 : x->rank > y->rank);
}

/* Add p to a list (no duplicates). 0 / -1. */
static int list_add(pmix_proc_t **list, size_t *n, const pmix_proc_t *p)
{
    for (size_t i = 0; i < *n; i++) {
        if (same_proc(&(*list)[i], p)) {
            return 0;
        }
    }
    pmix_proc_t *grown = realloc(*list, (*n + 1) * sizeof(*grown));
    if (grown == NULL) {
        return -1;
    }
    grown[(*n)++] = *p;
    *list = grown;
    return 0;
}

static bool proc_ended(const px_proc_t *p)
{
    return p->state == PX_PROC_DONE;
}

/* A member that has ended: its process (a wildcard: any process of its job), or its job
 * is over (or was never this DVM's). */
static bool member_ended(px_dvm_t *dvm, const pmix_proc_t *p)
{
    px_job_t *j = px_job_find(dvm, p->nspace);
    if (j == NULL) {
        return true;
    }
    if (p->rank != PMIX_RANK_WILDCARD) {
        return p->rank < j->nprocs && proc_ended(&j->procs[p->rank]);
    }
    for (size_t r = 0; r < j->nprocs; r++) {
        if (proc_ended(&j->procs[r])) {
            return true;
        }
    }
    return false;
}

/* An answer to one contribution. */
static void owed_answer(px_dvm_t *dvm, const owed_t *o, pmix_status_t status,
                        const pmix_info_t *info, size_t ninfo);

/* ---- collectives ---- */

static void coll_free(px_coll_t *k)
{
    if (k->timer != NULL) {
        event_free(k->timer);
    }
    free(k->key);
    free(k->members);
    free(k->involved);
    free(k->in);
    free(k->owed);
    free(k->parts);
    free(k->leaders);
    free(k->adds);
    free(k->gone);
    px_bfrops_buf_free(&k->endpt);
    px_bfrops_buf_free(&k->ginfo);
    free(k);
}

static void coll_unlink(px_coll_t *k)
{
    for (px_coll_t **pp = &k->dvm->colls; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == k) {
            *pp = k->next;
            return;
        }
    }
}

/* An answer's info, released by the server library once it has read it. */
typedef struct {
    pmix_info_t *info;
    size_t ninfo;
} answer_t;

static void answer_release(void *arg)
{
    answer_t *a = arg;
    PMIx_Info_free(a->info, a->ninfo);
    free(a);
}

/* Answer every contribution, then drop the collective. */
static void coll_answer(px_coll_t *k, pmix_status_t status, const pmix_info_t *info, size_t ninfo)
{
    px_dvm_log(k->dvm, 2, "%s %s: %s (%zu answers)",
               k->kind == COLL_GROUP      ? "group construct"
               : k->kind == COLL_DESTRUCT ? "group destruct"
               : k->kind == COLL_CONNECT  ? "connect"
                                          : "disconnect",
               k->key, PMIx_Error_string(status), k->nowed);
    coll_unlink(k);
    for (size_t i = 0; i < k->nowed; i++) {
        owed_answer(k->dvm, &k->owed[i], status, info, ninfo);
    }
    coll_free(k);
}

static void owed_answer(px_dvm_t *dvm, const owed_t *o, pmix_status_t status,
                        const pmix_info_t *info, size_t ninfo)
{
    if (o->id != 0) {
        pmix_data_buffer_t b;
        px_bfrops_buf_init(&b);
        if (px_dp_status_info_pack(&b, status, info, ninfo) != PMIX_SUCCESS ||
            px_daemons_reply(dvm->daemons, o->id, o->seq, PX_DP_GROUP_REL, &b) != 0) {
            px_dvm_log(dvm, 1, "a group answer to daemon %u was not sent", o->id);
        }
        px_bfrops_buf_free(&b);
        return;
    }
    if (o->ocb != NULL) {
        o->ocb(status, o->cbdata);
        return;
    }
    answer_t *a = calloc(1, sizeof(*a));
    if (a != NULL && ninfo > 0 && px_info_array_dup(info, ninfo, &a->info) == PMIX_SUCCESS) {
        a->ninfo = ninfo;
    }
    o->icb(status, a != NULL ? a->info : NULL, a != NULL ? a->ninfo : 0, o->cbdata, answer_release,
           a);
}

static void group_done(px_coll_t *k, pmix_status_t status);

static void coll_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    px_coll_t *k = arg;
    event_free(k->timer);
    k->timer = NULL;
    if (k->kind == COLL_GROUP && k->optional && !k->boot && k->nparts > 0) {
        /* participation is optional: whoever called forms the group */
        size_t m = 0;
        for (size_t i = 0; i < k->nmembers; i++) {
            if (names(k->parts, k->nparts, &k->members[i])) {
                k->members[m++] = k->members[i];
            }
        }
        k->nmembers = m;
        group_done(k, PMIX_ERR_PARTIAL_SUCCESS);
        return;
    }
    coll_answer(k, PMIX_ERR_TIMEOUT, NULL, 0);
}

/* The result of a group construct: context id, id, membership, endpoint data, group
 * info. */
static void group_done(px_coll_t *k, pmix_status_t status)
{
    pmix_info_t res[5];
    size_t n = 0;
    size_t nmem = k->boot ? k->nparts : k->nmembers;
    pmix_proc_t *mem = k->boot ? k->parts : k->members;
    if (k->boot || k->unordered) {
        qsort(mem, nmem, sizeof(*mem), cmp_proc); /* a defined order when none was given */
    }
    if (k->ctx) {
        size_t id = ++k->dvm->next_ctxid; /* unique across the DVM, never reused */
        PMIx_Info_load(&res[n++], PMIX_GROUP_CONTEXT_ID, &id, PMIX_SIZE);
    }
    PMIx_Info_load(&res[n++], PMIX_GROUP_ID, k->key, PMIX_STRING);
    pmix_data_array_t da = {.type = PMIX_PROC, .size = nmem, .array = mem};
    PMIx_Info_load(&res[n++], PMIX_GROUP_MEMBERSHIP, &da, PMIX_DATA_ARRAY);
    pmix_byte_object_t bo = {.bytes = k->endpt.base_ptr, .size = k->endpt.bytes_used};
    PMIx_Info_load(&res[n++], PMIX_GROUP_ENDPT_DATA, &bo, PMIX_BYTE_OBJECT);
    bo = (pmix_byte_object_t){.bytes = k->ginfo.base_ptr, .size = k->ginfo.bytes_used};
    PMIx_Info_load(&res[n++], PX_GRP_GINFO, &bo, PMIX_BYTE_OBJECT);
    coll_answer(k, status, res, n);
    for (size_t i = 0; i < n; i++) {
        PMIx_Info_destruct(&res[i]);
    }
}

/* Complete when every daemon involved has contributed (a bootstrap: when every leader
 * and every added member has). */
static void coll_check(px_coll_t *k)
{
    if (k->boot) {
        if (k->bootstrap == 0 || k->nleaders < k->bootstrap) {
            return; /* no leader has said how many they are yet, or not all are in */
        }
        for (size_t i = 0; i < k->nadds; i++) {
            if (!names(k->parts, k->nparts, &k->adds[i])) {
                return;
            }
        }
        group_done(k, PMIX_SUCCESS);
        return;
    }
    for (size_t d = 0; d < k->ndaemons; d++) {
        if (k->involved[d] && !k->in[d]) {
            return;
        }
    }
    if (k->kind == COLL_GROUP) {
        group_done(k, PMIX_SUCCESS);
        return;
    }
    if (k->kind == COLL_CONNECT || k->kind == COLL_DISCONNECT) {
        px_dvm_connected(k->dvm, k->members, k->nmembers, k->key, k->kind == COLL_CONNECT);
    }
    coll_answer(k, PMIX_SUCCESS, NULL, 0);
}

static px_coll_t *coll_find(px_dvm_t *dvm, coll_kind_t kind, const char *key)
{
    for (px_coll_t *k = dvm->colls; k != NULL; k = k->next) {
        if (k->kind == kind && strcmp(k->key, key) == 0) {
            return k;
        }
    }
    return NULL;
}

/* What one server sends for an operation (an upcall here; a GROUP_UP message from
 * another daemon later). */
typedef struct {
    coll_kind_t kind;
    char *key;          /* owned */
    pmix_proc_t *procs; /* owned */
    size_t nprocs;
    pmix_info_t *dirs; /* owned */
    size_t ndirs;
    owed_t owed;
    px_dvm_t *dvm;
} contrib_t;

static void contrib_free(contrib_t *c)
{
    free(c->key);
    free(c->procs);
    PMIx_Info_free(c->dirs, c->ndirs);
    free(c);
}

static void fail_contrib(contrib_t *c, pmix_status_t rc)
{
    owed_answer(c->dvm, &c->owed, rc, NULL, 0);
}

/* Read a contribution's directives into k. */
static pmix_status_t take_dirs(px_coll_t *k, const contrib_t *c)
{
    int timeout = 0;
    for (size_t i = 0; i < c->ndirs; i++) {
        const pmix_info_t *x = &c->dirs[i];
        size_t n = 0;
        const pmix_proc_t *p;
        if (PMIX_CHECK_KEY(x, PMIX_GROUP_ASSIGN_CONTEXT_ID)) {
            k->ctx |= PMIX_INFO_TRUE(x);
        } else if (PMIX_CHECK_KEY(x, PX_GRP_BOOT)) {
            k->boot |= PMIX_INFO_TRUE(x);
        } else if (PMIX_CHECK_KEY(x, PX_GRP_UNORDERED)) {
            k->unordered |= PMIX_INFO_TRUE(x);
        } else if (PMIX_CHECK_KEY(x, PMIX_GROUP_OPTIONAL) ||
                   PMIX_CHECK_KEY(x, PMIX_GROUP_FT_COLLECTIVE)) {
            k->tolerant |= PMIX_INFO_TRUE(x);
            k->optional |= PMIX_CHECK_KEY(x, PMIX_GROUP_OPTIONAL) && PMIX_INFO_TRUE(x);
        } else if (PMIX_CHECK_KEY(x, PMIX_GROUP_NOTIFY_TERMINATION)) {
            k->notify |= PMIX_INFO_TRUE(x);
        } else if (PMIX_CHECK_KEY(x, PMIX_TIMEOUT)) {
            PMIx_Value_get_number(&x->value, &timeout, PMIX_INT);
        } else if (PMIX_CHECK_KEY(x, PMIX_GROUP_BOOTSTRAP)) {
            size_t b = 0;
            PMIx_Value_get_number(&x->value, &b, PMIX_SIZE);
            if (k->bootstrap != 0 && b != k->bootstrap) {
                return PMIX_ERR_BAD_PARAM; /* leaders disagree on their number */
            }
            k->bootstrap = b;
            for (size_t j = 0; j < c->nprocs; j++) {
                if (list_add(&k->leaders, &k->nleaders, &c->procs[j]) != 0) {
                    return PMIX_ERR_NOMEM;
                }
            }
        } else if (PMIX_CHECK_KEY(x, PMIX_GROUP_ADD_MEMBERS) &&
                   (p = px_value_procs(&x->value, &n)) != NULL) {
            for (size_t j = 0; j < n; j++) {
                if (list_add(&k->adds, &k->nadds, &p[j]) != 0) {
                    return PMIX_ERR_NOMEM;
                }
            }
        } else if (PMIX_CHECK_KEY(x, PX_GRP_PARTS) && (p = px_value_procs(&x->value, &n)) != NULL) {
            for (size_t j = 0; j < n; j++) {
                if (list_add(&k->parts, &k->nparts, &p[j]) != 0) {
                    return PMIX_ERR_NOMEM;
                }
            }
        } else if ((PMIX_CHECK_KEY(x, PMIX_GROUP_ENDPT_DATA) || PMIX_CHECK_KEY(x, PX_GRP_GINFO)) &&
                   x->value.type == PMIX_BYTE_OBJECT && x->value.data.bo.size > 0) {
            pmix_data_buffer_t *b = PMIX_CHECK_KEY(x, PX_GRP_GINFO) ? &k->ginfo : &k->endpt;
            if (px_bfrops_buf_append(b, x->value.data.bo.bytes, x->value.data.bo.size) !=
                PMIX_SUCCESS) {
                return PMIX_ERR_NOMEM;
            }
        }
    }
    if (timeout > 0 && k->timer == NULL) {
        k->timer = evtimer_new(k->dvm->base, coll_timeout, k);
        struct timeval tv = {timeout, 0};
        if (k->timer != NULL) {
            evtimer_add(k->timer, &tv);
        }
    }
    return PMIX_SUCCESS;
}

/* Room for daemon ids below nd in k's per-daemon arrays. 0 / -1. */
static int daemons_room(px_coll_t *k, size_t nd)
{
    if (nd <= k->ndaemons) {
        return 0;
    }
    bool *inv = realloc(k->involved, nd * sizeof(*inv));
    if (inv == NULL) {
        return -1;
    }
    k->involved = inv;
    bool *in = realloc(k->in, nd * sizeof(*in));
    if (in == NULL) {
        return -1;
    }
    k->in = in;
    for (size_t j = k->ndaemons; j < nd; j++) {
        k->involved[j] = k->in[j] = false;
    }
    k->ndaemons = nd;
    return 0;
}

/* Daemon d hosts a member of k that still runs. 0 / -1. */
static int involve(px_coll_t *k, const px_job_t *j, size_t r)
{
    unsigned d = j->map.procs[r].node;
    if (proc_ended(&j->procs[r])) {
        return 0; /* its server will not contribute for it */
    }
    if (daemons_room(k, (size_t)d + 1) != 0) {
        return -1;
    }
    k->involved[d] = true;
    return 0;
}

/* Which daemons host running members of k (a wildcard: every rank of its job); the marks
 * are made again from scratch. */
static pmix_status_t mark_involved(px_coll_t *k)
{
    for (size_t d = 0; d < k->ndaemons; d++) {
        k->involved[d] = false;
    }
    for (size_t i = 0; i < k->nmembers; i++) {
        const pmix_proc_t *p = &k->members[i];
        px_job_t *j = px_job_find(k->dvm, p->nspace);
        if (j == NULL || (p->rank != PMIX_RANK_WILDCARD && p->rank >= j->nprocs)) {
            return PMIX_ERR_NOT_FOUND; /* no process of this DVM */
        }
        for (size_t r = p->rank == PMIX_RANK_WILDCARD ? 0 : p->rank;
             r < (p->rank == PMIX_RANK_WILDCARD ? j->nprocs : (size_t)p->rank + 1); r++) {
            if (involve(k, j, r) != 0) {
                return PMIX_ERR_NOMEM;
            }
        }
    }
    return PMIX_SUCCESS;
}

/* Members that ended: a construct that tolerates it (OPTIONAL, FT_COLLECTIVE,
 * NOTIFY_TERMINATION: the member's own server raised the events) goes on without them;
 * any other collective fails (PMIX_ERR_PROC_TERM_WO_SYNC). PMIX_SUCCESS, or the status
 * to fail k with. */
static pmix_status_t drop_ended(px_coll_t *k)
{
    size_t m = 0;
    for (size_t i = 0; i < k->nmembers; i++) {
        if (!member_ended(k->dvm, &k->members[i]) && !names(k->gone, k->ngone, &k->members[i])) {
            k->members[m++] = k->members[i];
        } else if (k->kind != COLL_GROUP || !(k->tolerant || k->notify)) {
            px_dvm_log(k->dvm, 1, "%s: member %s:%u ended", k->key, k->members[i].nspace,
                       k->members[i].rank);
            return PMIX_ERR_PROC_TERM_WO_SYNC;
        }
    }
    k->nmembers = m;
    return mark_involved(k);
}

/* A server's contribution from daemon `daemon`: gather it; answer everyone when complete.
 * c is consumed. */
static void contribute(px_dvm_t *dvm, unsigned daemon, contrib_t *c)
{
    px_coll_t *k = coll_find(dvm, c->kind, c->key);
    pmix_status_t rc = PMIX_ERR_NOMEM;
    bool fresh = k == NULL;
    if (fresh) {
        k = calloc(1, sizeof(*k));
        if (k == NULL) {
            goto fail;
        }
        k->kind = c->kind;
        k->dvm = dvm;
        px_bfrops_buf_init(&k->endpt);
        px_bfrops_buf_init(&k->ginfo);
        k->key = strdup(c->key);
        k->members = calloc(c->nprocs ? c->nprocs : 1, sizeof(*k->members));
        if (k->key == NULL || k->members == NULL) {
            coll_free(k);
            goto fail;
        }
        if (c->nprocs > 0) {
            memcpy(k->members, c->procs, c->nprocs * sizeof(*k->members));
        }
        k->nmembers = c->nprocs;
        k->next = dvm->colls;
        dvm->colls = k;
    } else {
        /* a member another server no longer lists (it ended there) is out */
        size_t m = 0;
        for (size_t i = 0; i < k->nmembers; i++) {
            if (c->nprocs == 0 || names(c->procs, c->nprocs, &k->members[i])) {
                k->members[m++] = k->members[i];
            }
        }
        k->nmembers = m;
    }
    owed_t *grown = realloc(k->owed, (k->nowed + 1) * sizeof(*grown));
    if (grown == NULL) {
        if (fresh) {
            coll_unlink(k);
            coll_free(k);
        }
        goto fail;
    }
    k->owed = grown;
    k->owed[k->nowed++] = c->owed;
    rc = take_dirs(k, c);
    if (rc == PMIX_SUCCESS && !k->boot) {
        rc = drop_ended(k);
    }
    if (rc == PMIX_SUCCESS && daemons_room(k, (size_t)daemon + 1) != 0) {
        rc = PMIX_ERR_NOMEM;
    }
    if (rc == PMIX_SUCCESS) {
        k->in[daemon] = true;
    }
    contrib_free(c);
    if (rc != PMIX_SUCCESS) {
        coll_answer(k, rc, NULL, 0);
        return;
    }
    coll_check(k);
    return;
fail:
    fail_contrib(c, rc);
    contrib_free(c);
}

static void contribute_on_loop(void *arg)
{
    contrib_t *c = arg;
    contribute(c->dvm, 0, c); /* this process's server is daemon 0's */
}

void px_dvm_group_up(px_dvm_t *dvm, unsigned id, uint32_t seq, const px_dp_dmn_msg_t *m)
{
    static const coll_kind_t kinds[] = {[PX_DP_GRP_CONSTRUCT] = COLL_GROUP,
                                        [PX_DP_GRP_DESTRUCT] = COLL_DESTRUCT,
                                        [PX_DP_GRP_CONNECT] = COLL_CONNECT,
                                        [PX_DP_GRP_DISCONNECT] = COLL_DISCONNECT};
    contrib_t *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        owed_t o = {.id = id, .seq = seq};
        owed_answer(dvm, &o, PMIX_ERR_NOMEM, NULL, 0);
        return;
    }
    *c = (contrib_t){.kind = kinds[m->kind], .dvm = dvm, .owed = {.id = id, .seq = seq}};
    c->key = strdup(m->key);
    c->procs = calloc(m->nprocs ? m->nprocs : 1, sizeof(*c->procs));
    if (c->key == NULL || c->procs == NULL || id == 0 ||
        (m->ninfo > 0 && px_info_array_dup(m->info, m->ninfo, &c->dirs) != PMIX_SUCCESS)) {
        fail_contrib(c, id == 0 ? PMIX_ERR_BAD_PARAM : PMIX_ERR_NOMEM);
        contrib_free(c);
        return;
    }
    if (m->nprocs > 0) {
        memcpy(c->procs, m->procs, m->nprocs * sizeof(*c->procs));
    }
    c->nprocs = m->nprocs;
    c->ndirs = m->ninfo;
    px_dvm_log(dvm, 3, "daemon %u: group contribution %s (%zu procs)", id, c->key, c->nprocs);
    contribute(dvm, id, c);
}

/* Copy an upcall and shift it to the loop. Library thread. */
static pmix_status_t post(coll_kind_t kind, const char *key, const pmix_proc_t procs[],
                          size_t nprocs, const pmix_info_t info[], size_t ninfo, owed_t owed)
{
    px_dvm_t *dvm = px_dvm_served();
    if (dvm == NULL) {
        return PMIX_ERR_INIT;
    }
    contrib_t *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        return PMIX_ERR_NOMEM;
    }
    c->kind = kind;
    c->dvm = dvm;
    c->owed = owed;
    c->key = strdup(key != NULL ? key : "");
    c->procs = calloc(nprocs ? nprocs : 1, sizeof(*c->procs));
    if (c->key == NULL || c->procs == NULL ||
        (ninfo > 0 && px_info_array_dup(info, ninfo, &c->dirs) != PMIX_SUCCESS)) {
        contrib_free(c);
        return PMIX_ERR_NOMEM;
    }
    if (nprocs > 0) {
        memcpy(c->procs, procs, nprocs * sizeof(*procs));
    }
    c->nprocs = nprocs;
    c->ndirs = ninfo;
    if (px_dvm_shift(dvm, contribute_on_loop, c) != 0) {
        contrib_free(c);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

pmix_status_t px_dvm_group(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[],
                           size_t nprocs, const pmix_info_t directives[], size_t ndirs,
                           pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    if (op != PMIX_GROUP_CONSTRUCT && op != PMIX_GROUP_DESTRUCT) {
        return PMIX_ERR_NOT_SUPPORTED; /* a cancel (OpenPMIx master's) is not implemented */
    }
    if (grp == NULL || grp[0] == '\0' || cbfunc == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    owed_t o = {.icb = cbfunc, .cbdata = cbdata};
    return post(op == PMIX_GROUP_CONSTRUCT ? COLL_GROUP : COLL_DESTRUCT, grp, procs, nprocs,
                directives, ndirs, o);
}

static pmix_status_t post_connect(bool connect, const pmix_proc_t procs[], size_t nprocs,
                                  const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                  void *cbdata)
{
    pmix_status_t rc = PMIX_ERR_BAD_PARAM;
    char *sig = cbfunc != NULL ? px_dp_connect_key(procs, nprocs, &rc) : NULL;
    if (sig == NULL) {
        return rc;
    }
    owed_t o = {.ocb = cbfunc, .cbdata = cbdata};
    rc = post(connect ? COLL_CONNECT : COLL_DISCONNECT, sig, procs, nprocs, info, ninfo, o);
    free(sig);
    return rc;
}

pmix_status_t px_dvm_connect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                             size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return post_connect(true, procs, nprocs, info, ninfo, cbfunc, cbdata);
}

pmix_status_t px_dvm_disconnect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                                size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return post_connect(false, procs, nprocs, info, ninfo, cbfunc, cbdata);
}

/* ---- connected sets ---- */

void px_dvm_connected(px_dvm_t *dvm, const pmix_proc_t *procs, size_t nprocs, const char *sig,
                      bool connect)
{
    px_connset_t **pp = &dvm->connsets;
    while (*pp != NULL && strcmp((*pp)->sig, sig) != 0) {
        pp = &(*pp)->next;
    }
    px_connset_t *s = *pp;
    if (!connect) {
        if (s != NULL && --s->count == 0) {
            *pp = s->next;
            free(s->procs);
            free(s->sig);
            free(s);
        }
        return;
    }
    if (s != NULL) {
        s->count++;
        return;
    }
    s = calloc(1, sizeof(*s));
    if (s == NULL || (s->procs = calloc(nprocs ? nprocs : 1, sizeof(*procs))) == NULL ||
        (s->sig = strdup(sig)) == NULL) {
        if (s != NULL) {
            free(s->procs);
        }
        free(s);
        px_dvm_log(dvm, 1, "connect %s: not remembered (out of memory)", sig);
        return;
    }
    memcpy(s->procs, procs, nprocs * sizeof(*procs));
    s->nprocs = nprocs;
    s->count = 1;
    s->ompi = nprocs > 0;
    for (size_t i = 0; i < nprocs && s->ompi; i++) {
        const px_job_t *j = px_job_find(dvm, procs[i].nspace);
        s->ompi = j != NULL && j->ompi;
    }
    s->next = dvm->connsets;
    dvm->connsets = s;
}

/* An event from the DVM to the members of s but `except` (custom range). */
static void notify_set(px_dvm_t *dvm, const px_connset_t *s, pmix_status_t code,
                       const pmix_proc_t *affected, const char *except_ns)
{
    pmix_proc_t *t = calloc(s->nprocs, sizeof(*t));
    size_t n = 0;
    for (size_t i = 0; t != NULL && i < s->nprocs; i++) {
        if (except_ns == NULL || !PMIx_Check_nspace(s->procs[i].nspace, except_ns) ||
            s->procs[i].rank != affected->rank) {
            t[n++] = s->procs[i];
        }
    }
    if (n > 0) {
        pmix_proc_t source;
        PMIx_Load_procid(&source, dvm->nspace, 0);
        pmix_data_array_t da = {.type = PMIX_PROC, .size = n, .array = t};
        pmix_info_t info[2];
        PMIx_Info_load(&info[0], PMIX_EVENT_CUSTOM_RANGE, &da, PMIX_DATA_ARRAY);
        PMIx_Info_load(&info[1], PMIX_EVENT_AFFECTED_PROC, affected, PMIX_PROC);
        pmix_status_t rc = PMIx_Notify_event(code, &source, PMIX_RANGE_CUSTOM, info, 2, NULL, NULL);
        if (rc != PMIX_SUCCESS) {
            px_dvm_log(dvm, 1, "%s about %s:%u not raised: %s", PMIx_Error_string(code),
                       affected->nspace, affected->rank, PMIx_Error_string(rc));
        }
        PMIx_Info_destruct(&info[0]);
        PMIx_Info_destruct(&info[1]);
    }
    free(t);
}

/* A process ended (job.c). Connected: its end without a disconnect is reported to the
 * others; when its end fails its job, the assemblage is one application: the connected
 * jobs end too. A bootstrap still counting on it cannot complete. */
void px_dvm_group_proc_ended(px_dvm_t *dvm, const pmix_proc_t *proc, bool failed_job)
{
    for (px_connset_t *s = dvm->connsets; s != NULL; s = s->next) {
        if (!names(s->procs, s->nprocs, proc)) {
            continue;
        }
        if (s->ompi && !failed_job) {
            px_dvm_log(dvm, 1, "%s:%u ended while connected (%s): not reported (Open MPI 4.1)",
                       proc->nspace, proc->rank, s->sig);
            continue;
        }
        px_dvm_log(dvm, 1, "%s:%u ended while connected (%s)", proc->nspace, proc->rank, s->sig);
        notify_set(dvm, s, PMIX_ERR_PROC_TERM_WO_SYNC, proc, proc->nspace);
        if (!failed_job) {
            continue;
        }
        for (size_t i = 0; i < s->nprocs; i++) {
            px_job_t *j = px_job_find(dvm, s->procs[i].nspace);
            if (j == NULL || px_job_ending(j)) {
                continue;
            }
            pmix_proc_t all;
            PMIx_Load_procid(&all, j->nspace, PMIX_RANK_WILDCARD);
            px_dvm_log(dvm, 1, "%s: connected to failed %s: terminating it", j->nspace,
                       proc->nspace);
            notify_set(dvm, s, PMIX_ERR_JOB_TERM_WO_SYNC, &all, NULL);
            px_job_fail_connected(j, proc);
        }
    }
    for (px_coll_t *k = dvm->colls; k != NULL;) {
        px_coll_t *next = k->next;
        if (!k->boot) {
            /* a member of a collective in progress (its server may already have
             * contributed for it) */
            if (names(k->members, k->nmembers, proc)) {
                pmix_status_t rc = drop_ended(k);
                if (rc != PMIX_SUCCESS) {
                    coll_answer(k, rc, NULL, 0);
                } else {
                    coll_check(k);
                }
            }
            k = next;
            continue;
        }
        bool awaited =
            k->boot && names(k->adds, k->nadds, proc) && !names(k->parts, k->nparts, proc);
        if (awaited && !k->tolerant) {
            coll_answer(k, PMIX_ERR_PROC_TERM_WO_SYNC, NULL, 0);
        } else if (awaited) {
            for (size_t i = 0; i < k->nadds; i++) {
                if (same_proc(&k->adds[i], proc)) {
                    k->adds[i] = k->adds[--k->nadds]; /* no longer awaited */
                    break;
                }
            }
            coll_check(k);
        }
        k = next;
    }
}

void px_dvm_group_event(px_dvm_t *dvm, pmix_status_t code, const pmix_info_t *info, size_t ninfo)
{
    if (code != PMIX_GROUP_CONSTRUCT_ABORT && code != PMIX_GROUP_MEMBER_FAILED &&
        code != PMIX_GROUP_LEADER_FAILED) {
        return;
    }
    px_coll_t *k = NULL;
    const pmix_proc_t *about = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) && info[i].value.type == PMIX_STRING) {
            k = coll_find(dvm, COLL_GROUP, info[i].value.data.string);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) &&
                   info[i].value.type == PMIX_PROC) {
            about = info[i].value.data.proc;
        }
    }
    if (k == NULL || (k->boot && code != PMIX_GROUP_CONSTRUCT_ABORT)) {
        return; /* (a bootstrap counts its participants, not members) */
    }
    if (code == PMIX_GROUP_CONSTRUCT_ABORT) {
        coll_answer(k, PMIX_GROUP_CONSTRUCT_ABORT, NULL, 0);
        return;
    }
    /* a member's server saw it go after contributing for it: it is out now, before its
     * daemon's exit report comes (the others may complete the collective meanwhile) */
    pmix_status_t rc =
        about != NULL && list_add(&k->gone, &k->ngone, about) != 0 ? PMIX_ERR_NOMEM : drop_ended(k);
    if (rc != PMIX_SUCCESS) {
        coll_answer(k, rc, NULL, 0);
    } else {
        coll_check(k);
    }
}

void px_dvm_group_daemon_lost(px_dvm_t *dvm, unsigned id)
{
    for (px_coll_t *k = dvm->colls; k != NULL;) {
        px_coll_t *next = k->next;
        if (id < k->ndaemons && (k->involved[id] || k->in[id])) {
            coll_answer(k, PMIX_ERR_LOST_CONNECTION, NULL, 0);
        }
        k = next;
    }
}

void px_dvm_group_fini(px_dvm_t *dvm)
{
    while (dvm->colls != NULL) {
        coll_answer(dvm->colls, PMIX_ERR_LOST_CONNECTION, NULL, 0); /* the DVM is going */
    }
    while (dvm->connsets != NULL) {
        px_connset_t *s = dvm->connsets;
        dvm->connsets = s->next;
        free(s->procs);
        free(s->sig);
        free(s);
    }
}
