/* server: events on the server side (Events chapter) — what each connected client or
 * tool registered for, relaying an event to the local processes in its target range, the
 * host's notify_event upcall for ranges beyond this node, and the event cache: every event
 * the server receives is kept (bounded, oldest dropped first) and handed, in arrival
 * order, to a process that registers for its code later.
 * Message handlers run on the loop with px_srv->lock held. The event engine
 * (event/px_event.h) is never called with that lock held: local delivery is shifted to a
 * loop item of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "event/px_event.h"
#include "server/px_server.h"
#include "server/px_srv_host.h"
#include "types/px_types.h"

/* Default number of events the cache holds; PX_ATTR_EVENT_CACHE at init changes it. */
/* Our own server init attribute (uint32): the event cache's size, 0 = no cache. */
#define PX_ATTR_EVENT_CACHE "px.srv.evcache"

typedef struct px_srv_event {
    uint64_t id;
    pmix_status_t status;
    pmix_proc_t source;
    pmix_data_range_t range;
    pmix_info_t *info; /* owned */
    size_t ninfo;
    pmix_proc_t *targets; /* owned: PMIX_EVENT_CUSTOM_RANGE */
    size_t ntargets;
    bool to_interested;    /* PX_EVT_TO_INTERESTED */
    pmix_proc_t *affected; /* owned: PMIX_EVENT_AFFECTED_PROC(S), when to_interested */
    size_t naffected;
    bool has_origin; /* came from a connected process: never sent back to it */
    pmix_proc_t origin;
    pmix_data_buffer_t wire; /* the PX_TAG_EVENT payload, packed once */
    struct px_srv_event *next;
} px_srv_event_t;

/* A connection's registration naming a process it is interested in (see
 * PX_EVT_TO_INTERESTED): the code (any, for a default handler) and the process. */
typedef struct px_srv_interest {
    pmix_status_t code;
    bool any;
    pmix_proc_t proc;
} px_srv_interest_t;

static struct {
    px_srv_event_t *head, *tail; /* the cache, oldest first */
    size_t n, max;
    uint64_t next_id;
    bool bound; /* we bound the event engine to the server's loop */
} ev;

/* Host-only event codes with the number of clients registered for each (see
 * host_only below). */
typedef struct {
    pmix_status_t code;
    size_t count;
} host_code_t;

static struct {
    host_code_t *codes;
    size_t n, cap;
} hc;

/* The server process's own registrations of host-only codes (PMIx_Register_event_handler
 * in the server), by handler id. Lock held. */
typedef struct own_reg {
    size_t id;
    pmix_status_t *codes; /* owned: its host-only codes, each once */
    size_t n;
    struct own_reg *next;
} own_reg_t;

static own_reg_t *own_regs;

static void event_free(px_srv_event_t *e)
{
    if (e != NULL) {
        px_bfrops_info_array_free(e->info, e->ninfo);
        free(e->targets);
        free(e->affected);
        px_bfrops_buf_free(&e->wire);
        free(e);
    }
}

/* ---- identity for the engine ---- */

static bool srv_is_local(const pmix_proc_t *proc)
{
    pthread_mutex_lock(&px_srv->lock);
    bool local = px_srv_client_find(proc->nspace, proc->rank) != NULL ||
                 PMIx_Check_procid(proc, &px_srv->myproc);
    for (px_srv_client_t *t = px_srv->tools; !local && t != NULL; t = t->next) {
        local = t->approved && PMIx_Check_procid(proc, &t->proc);
    }
    if (!local && proc->rank == PMIX_RANK_WILDCARD) {
        /* a whole job: local when every one of its processes is on this node */
        size_t n = 0;
        bool all = false;
        local = px_srv_count_local(proc, 1, &n, &all) == PMIX_SUCCESS && all;
    }
    pthread_mutex_unlock(&px_srv->lock);
    return local;
}

static bool srv_is_rm(const pmix_proc_t *proc)
{
    return PMIx_Check_nspace(proc->nspace, px_srv->myproc.nspace);
}

pmix_status_t px_srv_event_init(const pmix_info_t info[], size_t ninfo)
{
    memset(&ev, 0, sizeof(ev));
    ev.max = PX_EVENT_CACHE_DEFAULT;
    ev.next_id = 1;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PX_ATTR_EVENT_CACHE)) {
            uint32_t n = 0;
            if (PMIx_Value_get_number(&info[i].value, &n, PMIX_UINT32) != PMIX_SUCCESS) {
                return PMIX_ERR_BAD_PARAM;
            }
            ev.max = n;
        }
    }
    if (!px_evt_bound()) {
        px_evt_self_t self = {.is_local = srv_is_local, .is_rm = srv_is_rm};
        self.me = px_srv->myproc;
        pmix_status_t rc = px_evt_bind(px_srv->prog, &self);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
        ev.bound = true;
    }
    return PMIX_SUCCESS;
}

void px_srv_event_fini(void)
{
    if (ev.bound) {
        px_evt_unbind();
        ev.bound = false;
    }
    while (ev.head != NULL) {
        px_srv_event_t *e = ev.head;
        ev.head = e->next;
        event_free(e);
    }
    ev.tail = NULL;
    ev.n = 0;
    free(hc.codes);
    memset(&hc, 0, sizeof(hc));
    while (own_regs != NULL) {
        own_reg_t *o = own_regs;
        own_regs = o->next;
        free(o->codes);
        free(o);
    }
}

/* ---- building an event record ---- */

/* Append the procs of v (one PMIX_PROC, or a PMIX_DATA_ARRAY of PMIX_PROC) to *set. */
static pmix_status_t append_procs(const pmix_value_t *v, pmix_proc_t **set, size_t *n)
{
    const pmix_proc_t *src = NULL;
    size_t k = 0;
    if (v->type == PMIX_PROC && v->data.proc != NULL) {
        src = v->data.proc;
        k = 1;
    } else if (v->type == PMIX_DATA_ARRAY && v->data.darray != NULL &&
               v->data.darray->type == PMIX_PROC) {
        src = v->data.darray->array;
        k = v->data.darray->size;
    } else {
        return PMIX_ERR_BAD_PARAM;
    }
    if (k > 0 && src == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_proc_t *grown = realloc(*set, (*n + k + 1) * sizeof(**set)); /* never 0 bytes */
    if (grown == NULL) {
        return PMIX_ERR_NOMEM;
    }
    if (k > 0) {
        memcpy(&grown[*n], src, k * sizeof(*src));
    }
    *set = grown;
    *n += k;
    return PMIX_SUCCESS;
}

/* The custom range of an event's info, copied (the first PMIX_EVENT_CUSTOM_RANGE). */
static pmix_status_t custom_targets(px_srv_event_t *e)
{
    for (size_t i = 0; i < e->ninfo; i++) {
        if (PMIX_CHECK_KEY(&e->info[i], PMIX_EVENT_CUSTOM_RANGE)) {
            return append_procs(&e->info[i].value, &e->targets, &e->ntargets);
        }
    }
    return e->range == PMIX_RANGE_CUSTOM ? PMIX_ERR_BAD_PARAM : PMIX_SUCCESS;
}

/* The processes named by the PMIX_EVENT_AFFECTED_PROC(S) entries of info into *set. */
static pmix_status_t affected_procs(const pmix_info_t *info, size_t ninfo, pmix_proc_t **set,
                                    size_t *n)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) ||
            PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROCS)) {
            pmix_status_t rc = append_procs(&info[i].value, set, n);
            if (rc != PMIX_SUCCESS) {
                return rc;
            }
        }
    }
    return PMIX_SUCCESS;
}

static bool info_flag(const pmix_info_t *info, size_t ninfo, const char *key)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], key)) {
            return PMIX_INFO_TRUE(&info[i]);
        }
    }
    return false;
}

/* A new record owning info (taken). NULL: info freed. */
static px_srv_event_t *event_new(pmix_status_t status, const pmix_proc_t *source,
                                 pmix_data_range_t range, pmix_info_t *info, size_t ninfo)
{
    px_srv_event_t *e = calloc(1, sizeof(*e));
    if (e == NULL) {
        px_bfrops_info_array_free(info, ninfo);
        return NULL;
    }
    e->status = status;
    e->source = *source;
    e->range = range;
    e->info = info;
    e->ninfo = ninfo;
    px_bfrops_buf_init(&e->wire);
    pmix_status_t rc = custom_targets(e);
    e->to_interested = info_flag(info, ninfo, PX_EVT_TO_INTERESTED);
    if (rc == PMIX_SUCCESS && e->to_interested) {
        rc = affected_procs(info, ninfo, &e->affected, &e->naffected);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(&e->wire, &status, 1, PMIX_STATUS);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(&e->wire, &e->source, 1, PMIX_PROC);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(&e->wire, &range, 1, PMIX_DATA_RANGE);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack_info_array(&e->wire, info, ninfo);
    }
    if (rc != PMIX_SUCCESS) {
        px_debug(1, "server", "event %s dropped: %s", PMIx_Error_string(status),
                 PMIx_Error_string(rc));
        event_free(e);
        return NULL;
    }
    e->id = ev.next_id++;
    return e;
}

/* ---- who gets what ---- */

/* Is target within the event's target range? (Never the RM-only or process-local ones.) */
static bool in_range(const px_srv_event_t *e, const pmix_proc_t *target)
{
    switch (e->range) {
    case PMIX_RANGE_PROC_LOCAL:
    case PMIX_RANGE_RM:
        return false;
    case PMIX_RANGE_NAMESPACE:
        return PMIx_Check_nspace(e->source.nspace, target->nspace);
    case PMIX_RANGE_CUSTOM:
        for (size_t i = 0; i < e->ntargets; i++) {
            if (PMIx_Check_procid(&e->targets[i], target)) {
                return true;
            }
        }
        return false;
    default: /* LOCAL, SESSION, GLOBAL, UNDEF: everyone on this node */
        return true;
    }
}

/* Did c register for e's code naming one of e's affected processes? */
static bool interested(const px_srv_client_t *c, const px_srv_event_t *e)
{
    for (size_t i = 0; i < c->nev_int; i++) {
        const px_srv_interest_t *in = &c->ev_int[i];
        if (!in->any && in->code != e->status) {
            continue;
        }
        for (size_t k = 0; k < e->naffected; k++) {
            if (PMIx_Check_nspace(in->proc.nspace, e->affected[k].nspace) &&
                PMIx_Check_rank(in->proc.rank, e->affected[k].rank)) {
                return true;
            }
        }
    }
    return false;
}

/* Does e reach connection c: in its target range, or c is interested in it? */
static bool reaches(const px_srv_event_t *e, const px_srv_client_t *c)
{
    return in_range(e, &c->proc) || (e->to_interested && interested(c, e));
}

static bool wants(const pmix_status_t *codes, size_t ncodes, bool all, pmix_status_t code)
{
    if (all) {
        return true;
    }
    for (size_t i = 0; i < ncodes; i++) {
        if (codes[i] == code) {
            return true;
        }
    }
    return false;
}

static bool was_sent(const px_srv_client_t *c, uint64_t id)
{
    for (size_t i = 0; i < c->nev_sent; i++) {
        if (c->ev_sent[i] == id) {
            return true;
        }
    }
    return false;
}

static void mark_sent(px_srv_client_t *c, uint64_t id)
{
    if (c->nev_sent == c->cap_ev_sent) {
        /* forget what the cache no longer holds before growing */
        uint64_t oldest = ev.head != NULL ? ev.head->id : ev.next_id;
        size_t k = 0;
        for (size_t i = 0; i < c->nev_sent; i++) {
            if (c->ev_sent[i] >= oldest) {
                c->ev_sent[k++] = c->ev_sent[i];
            }
        }
        c->nev_sent = k;
    }
    if (c->nev_sent == c->cap_ev_sent) {
        size_t cap = c->cap_ev_sent ? 2 * c->cap_ev_sent : 16;
        uint64_t *p = realloc(c->ev_sent, cap * sizeof(*p));
        if (p == NULL) {
            return; /* at worst a replay sends it again */
        }
        c->ev_sent = p;
        c->cap_ev_sent = cap;
    }
    c->ev_sent[c->nev_sent++] = id;
}

static void send_event(px_srv_client_t *c, px_srv_event_t *e)
{
    if (c->peer != NULL && px_peer_send(c->peer, PX_TAG_EVENT, &e->wire) == 0) {
        mark_sent(c, e->id);
        px_debug(3, "server", "event %s sent to %s:%u", PMIx_Error_string(e->status),
                 c->proc.nspace, c->proc.rank);
    }
}

static bool is_origin(const px_srv_event_t *e, const px_srv_client_t *c)
{
    return e->has_origin && PMIx_Check_procid(&e->origin, &c->proc) &&
           e->origin.rank == c->proc.rank;
}

static void relay_to(px_srv_client_t *list, px_srv_event_t *e)
{
    for (px_srv_client_t *c = list; c != NULL; c = c->next) {
        if (c->peer != NULL && (!c->is_tool || c->approved) && !is_origin(e, c) &&
            wants(c->ev_codes, c->nev_codes, c->ev_all, e->status) && reaches(e, c)) {
            send_event(c, e);
        }
    }
}

/* ---- the server process's own handlers (outside the lock) ---- */

typedef struct {
    pmix_status_t status;
    pmix_proc_t source;
    pmix_data_range_t range;
    pmix_info_t *info;
    size_t ninfo;
} local_t;

static void local_deliver(void *arg)
{
    local_t *l = arg;
    const px_srv_embed_t *embed = px_srv != NULL ? px_srv->embed : NULL;
    if (embed != NULL) {
        embed->deliver(l->status, &l->source, l->range, l->info, l->ninfo);
    } else {
        px_evt_deliver(l->status, &l->source, l->range, l->info, l->ninfo, NULL, NULL);
    }
    px_bfrops_info_array_free(l->info, l->ninfo);
    free(l);
}

/* Does anyone here listen? An embedded server's process keeps every event for handlers
 * it may register later (its tool's event cache), so it always does. */
static bool heard_here(void)
{
    return px_srv->embed != NULL || (ev.bound && px_evt_count() > 0);
}

static void deliver_here(const px_srv_event_t *e)
{
    if (!heard_here()) {
        return;
    }
    bool mine;
    switch (e->range) {
    case PMIX_RANGE_PROC_LOCAL:
        mine = PMIx_Check_procid(&e->source, &px_srv->myproc);
        break;
    case PMIX_RANGE_NAMESPACE:
    case PMIX_RANGE_CUSTOM:
        mine = in_range(e, &px_srv->myproc);
        break;
    default: /* RM, LOCAL, SESSION, GLOBAL, UNDEF: the server is part of all of them */
        mine = true;
        break;
    }
    if (!mine) {
        return;
    }
    local_t *l = calloc(1, sizeof(*l));
    if (l == NULL) {
        return;
    }
    *l = (local_t){e->status, e->source, e->range, NULL, 0};
    if (e->ninfo > 0 && px_info_array_dup(e->info, e->ninfo, &l->info) != PMIX_SUCCESS) {
        free(l);
        return;
    }
    l->ninfo = e->ninfo;
    if (px_progress_shift(px_srv->prog, local_deliver, l) != 0) {
        px_bfrops_info_array_free(l->info, l->ninfo);
        free(l);
    }
}

void px_srv_event_local(pmix_status_t status, const pmix_proc_t *source, const pmix_info_t info[],
                        size_t ninfo)
{
    if (!heard_here()) {
        return;
    }
    local_t *l = calloc(1, sizeof(*l));
    if (l == NULL) {
        return;
    }
    *l = (local_t){status, *source, PMIX_RANGE_PROC_LOCAL, NULL, 0};
    if (ninfo > 0 && px_info_array_dup(info, ninfo, &l->info) != PMIX_SUCCESS) {
        free(l);
        return;
    }
    l->ninfo = ninfo;
    if (px_progress_shift(px_srv->prog, local_deliver, l) != 0) {
        px_bfrops_info_array_free(l->info, l->ninfo);
        free(l);
    }
}

/* ---- the host ---- */

typedef struct {
    pmix_status_t status;
    pmix_proc_t source;
    pmix_data_range_t range;
    pmix_info_t *info; /* owned */
    size_t ninfo;
} upcall_t;

static void upcall_done(pmix_status_t status, void *cbdata)
{
    (void)status;
    upcall_t *u = cbdata;
    px_bfrops_info_array_free(u->info, u->ninfo);
    free(u);
}

static bool beyond_node(pmix_data_range_t range)
{
    return range != PMIX_RANGE_LOCAL && range != PMIX_RANGE_PROC_LOCAL;
}

/* Does the event need the host to reach its targets? A custom range whose every target
 * is a process of this server does not. */
static bool needs_host(const px_srv_event_t *e)
{
    if (!beyond_node(e->range)) {
        return false;
    }
    if (e->range != PMIX_RANGE_CUSTOM) {
        return true;
    }
    for (size_t i = 0; i < e->ntargets; i++) {
        if (!srv_is_local(&e->targets[i])) {
            return true;
        }
    }
    return false;
}

/* Loop, no lock held (px_srv_upcall). */
static void notify_upcall(void *arg)
{
    upcall_t *u = arg;
    pmix_status_t rc = px_srv->module.notify_event(u->status, &u->source, u->range, u->info,
                                                   u->ninfo, upcall_done, u);
    if (rc != PMIX_SUCCESS) {
        upcall_done(rc, u);
    }
}

static void upcall(const px_srv_event_t *e)
{
    if (px_srv->module.notify_event == NULL) {
        px_debug(2, "server", "event %s: range beyond this node, host has no notify_event",
                 PMIx_Error_string(e->status));
        return;
    }
    upcall_t *u = calloc(1, sizeof(*u));
    if (u == NULL ||
        (e->ninfo > 0 && px_info_array_dup(e->info, e->ninfo, &u->info) != PMIX_SUCCESS)) {
        free(u);
        return;
    }
    u->ninfo = e->ninfo;
    u->status = e->status;
    u->source = e->source;
    u->range = e->range;
    if (px_srv_upcall(notify_upcall, u) != 0) {
        upcall_done(PMIX_ERR_OUT_OF_RESOURCE, u);
    }
}

/* A launcher started by a tool (server_uplink.c) tells that tool what is in its range
 * and did not come from it, while the tool is not connected to us itself (then it
 * registered here for what it wants, and gets it as any tool). */
static void to_uplink(const px_srv_event_t *e)
{
    pmix_proc_t parent;
    if (!px_srv_uplink_parent(&parent) || !in_range(e, &parent) ||
        (e->has_origin && PMIx_Check_procid(&e->origin, &parent) &&
         e->origin.rank == parent.rank)) {
        return;
    }
    if (!px_srv_tool_is_connected(&parent)) {
        px_srv_uplink_send(&e->wire);
    }
}

/* Deliver, relay, hand up, cache: the common path of every event the server sees
 * (here: to this process's handlers; false for an event they already had). */
static void process(px_srv_event_t *e, bool to_host, bool here)
{
    relay_to(px_srv->clients, e);
    relay_to(px_srv->tools, e);
    to_uplink(e);
    if (here) {
        deliver_here(e);
    }
    if (to_host && beyond_node(e->range)) {
        upcall(e);
    }
    if (ev.max == 0 || info_flag(e->info, e->ninfo, PMIX_EVENT_DO_NOT_CACHE)) {
        event_free(e);
        return;
    }
    if (ev.tail != NULL) {
        ev.tail->next = e;
    } else {
        ev.head = e;
    }
    ev.tail = e;
    if (++ev.n > ev.max) {
        px_srv_event_t *old = ev.head;
        ev.head = old->next;
        if (ev.head == NULL) {
            ev.tail = NULL;
        }
        ev.n--;
        event_free(old);
    }
}

/* ---- codes only the host can generate (register_events / deregister_events) ---- */

/* Environmental codes (PMIX_EVENT_SYS_BASE..PMIX_EVENT_SYS_OTHER) and codes outside the
 * PMIx range (at or below PMIX_EXTERNAL_ERR_BASE) come only from the host: the Server
 * chapter has the library ask the host for them once per code, when the first client
 * (or handler of the server process) registers, and release them when no registration
 * is left. Registrations are counted per client or handler and code; a client tells
 * the server (EVT_DEREGISTER) the codes none of its handlers names any more, and its
 * codes end with its connection. Lock held. */
static bool host_only(pmix_status_t code)
{
    return (code <= PMIX_EVENT_SYS_BASE && code >= PMIX_EVENT_SYS_OTHER) ||
           code <= PMIX_EXTERNAL_ERR_BASE;
}

static host_code_t *host_code(pmix_status_t code, bool add)
{
    for (size_t i = 0; i < hc.n; i++) {
        if (hc.codes[i].code == code) {
            return &hc.codes[i];
        }
    }
    if (!add) {
        return NULL;
    }
    if (hc.n == hc.cap) {
        size_t cap = hc.cap ? 2 * hc.cap : 8;
        host_code_t *p = realloc(hc.codes, cap * sizeof(*p));
        if (p == NULL) {
            return NULL;
        }
        hc.codes = p;
        hc.cap = cap;
    }
    hc.codes[hc.n] = (host_code_t){code, 0};
    return &hc.codes[hc.n++];
}

typedef struct {
    bool reg;             /* register_events, else deregister_events */
    pmix_status_t *codes; /* owned */
    size_t n;
    pmix_info_t *info; /* owned */
    size_t ninfo;
} host_reg_t;

static void host_reg_done(pmix_status_t status, void *cbdata)
{
    host_reg_t *r = cbdata;
    if (status != PMIX_SUCCESS) {
        px_debug(1, "server", "the host refused an event (de)registration: %s",
                 PMIx_Error_string(status));
    }
    px_bfrops_info_array_free(r->info, r->ninfo);
    free(r->codes);
    free(r);
}

/* Loop, no lock held (px_srv_upcall). */
static void host_reg_upcall(void *arg)
{
    host_reg_t *r = arg;
    pmix_status_t rc =
        r->reg ? px_srv->module.register_events(r->codes, r->n, r->info, r->ninfo, host_reg_done, r)
               : px_srv->module.deregister_events(r->codes, r->n, host_reg_done, r);
    if (rc != PMIX_SUCCESS) {
        host_reg_done(rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc, r);
    }
}

/* Hand codes (taken) to the host's register_events (ids = the registrant's uid and gid,
 * added to info) or, ids NULL, deregister_events. now: the caller holds no library lock
 * (the server process's own registration on its own thread), the upcall is made in
 * this call, so a blocking registration returns after the host heard of it; else it
 * is made later through px_srv_upcall. */
static void host_reg_call(const uint32_t *ids, pmix_status_t *codes, size_t n,
                          const pmix_info_t *info, size_t ninfo, bool now)
{
    bool reg = ids != NULL;
    if (n == 0 ||
        (reg ? px_srv->module.register_events == NULL : px_srv->module.deregister_events == NULL)) {
        free(codes);
        return;
    }
    host_reg_t *r = calloc(1, sizeof(*r));
    pmix_status_t rc = r != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS && reg) {
        r->info = PMIx_Info_create(ninfo + 2);
        rc = r->info != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
        for (size_t i = 0; rc == PMIX_SUCCESS && i < ninfo; i++) {
            rc = PMIx_Info_xfer(&r->info[i], &info[i]);
        }
        if (rc == PMIX_SUCCESS) {
            PMIx_Info_load(&r->info[ninfo], PMIX_USERID, &ids[0], PMIX_UINT32);
            PMIx_Info_load(&r->info[ninfo + 1], PMIX_GRPID, &ids[1], PMIX_UINT32);
            r->ninfo = ninfo + 2;
        }
    }
    if (rc != PMIX_SUCCESS) {
        px_debug(1, "server", "cannot ask the host for events: %s", PMIx_Error_string(rc));
        if (r != NULL) {
            r->codes = codes;
            host_reg_done(PMIX_SUCCESS, r);
        } else {
            free(codes);
        }
        return;
    }
    r->codes = codes;
    r->n = n;
    r->reg = reg;
    if (now) {
        host_reg_upcall(r);
    } else if (px_srv_upcall(host_reg_upcall, r) != 0) {
        px_debug(1, "server", "cannot ask the host for events: shutting down");
        host_reg_done(PMIX_SUCCESS, r);
    }
}

/* One more registrant for each host-only code of codes[0..n) (fresh[i] false: it holds
 * that code already; fresh NULL: all are new): the codes nobody held before, in a new
 * array (NULL when out of memory). Lock held. */
static pmix_status_t *count_up(const pmix_status_t *codes, const bool *fresh, size_t n,
                               size_t *nfirst)
{
    pmix_status_t *first = calloc(n ? n : 1, sizeof(*first));
    *nfirst = 0;
    for (size_t i = 0; first != NULL && i < n; i++) {
        bool is_new = fresh != NULL ? fresh[i] : true;
        host_code_t *h = is_new && host_only(codes[i]) ? host_code(codes[i], true) : NULL;
        if (h != NULL && h->count++ == 0) {
            first[(*nfirst)++] = codes[i];
        }
    }
    return first;
}

/* One registrant less for each host-only code of codes[0..n): the codes nobody holds any
 * more, in a new array. Lock held. */
static pmix_status_t *count_down(const pmix_status_t *codes, size_t n, size_t *nlast)
{
    pmix_status_t *last = calloc(n ? n : 1, sizeof(*last));
    *nlast = 0;
    for (size_t i = 0; i < n; i++) {
        host_code_t *h = host_only(codes[i]) ? host_code(codes[i], false) : NULL;
        if (h != NULL && h->count > 0 && --h->count == 0 && last != NULL) {
            last[(*nlast)++] = codes[i];
        }
    }
    return last;
}

void px_srv_evt_client_gone(px_srv_client_t *c)
{
    size_t nlast;
    pmix_status_t *last = count_down(c->ev_codes, c->nev_codes, &nlast);
    c->nev_codes = 0; /* counted out once */
    host_reg_call(NULL, last, nlast, NULL, 0, false);
}

static void own_register(size_t id, const pmix_status_t *codes, size_t ncodes,
                         const pmix_info_t *info, size_t ninfo)
{
    own_reg_t *o = calloc(1, sizeof(*o));
    pmix_status_t *mine = calloc(ncodes ? ncodes : 1, sizeof(*mine));
    if (o == NULL || mine == NULL) {
        free(o);
        free(mine);
        return;
    }
    for (size_t i = 0; i < ncodes; i++) {
        if (host_only(codes[i]) && !wants(mine, o->n, false, codes[i])) {
            mine[o->n++] = codes[i];
        }
    }
    if (o->n == 0) {
        free(o);
        free(mine);
        return;
    }
    o->id = id;
    o->codes = mine;
    pthread_mutex_lock(&px_srv->lock);
    o->next = own_regs;
    own_regs = o;
    size_t nfirst;
    pmix_status_t *first = count_up(o->codes, NULL, o->n, &nfirst);
    pthread_mutex_unlock(&px_srv->lock);
    uint32_t ids[2] = {(uint32_t)getuid(), (uint32_t)getgid()};
    host_reg_call(ids, first, nfirst, info, ninfo, !px_srv_on_loop());
}

static void own_deregister(size_t id)
{
    pthread_mutex_lock(&px_srv->lock);
    own_reg_t *o = NULL;
    for (own_reg_t **pp = &own_regs; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->id == id) {
            o = *pp;
            *pp = o->next;
            break;
        }
    }
    size_t nlast = 0;
    pmix_status_t *last = o != NULL ? count_down(o->codes, o->n, &nlast) : NULL;
    pthread_mutex_unlock(&px_srv->lock);
    if (o != NULL) {
        free(o->codes);
        free(o);
        host_reg_call(NULL, last, nlast, NULL, 0, !px_srv_on_loop());
    }
}

/* ---- requests of connected processes ---- */

/* Record the processes a registration names (PMIX_EVENT_AFFECTED_PROC(S)) for each of its
 * codes (none: any code). Lock held. */
static pmix_status_t add_interests(px_srv_client_t *c, const pmix_status_t *codes, size_t n,
                                   const pmix_info_t *info, size_t ninfo)
{
    pmix_proc_t *procs = NULL;
    size_t np = 0;
    pmix_status_t rc = affected_procs(info, ninfo, &procs, &np);
    size_t add = np * (n > 0 ? n : 1);
    if (rc == PMIX_SUCCESS && add > 0) {
        px_srv_interest_t *all = realloc(c->ev_int, (c->nev_int + add) * sizeof(*all));
        if (all == NULL) {
            rc = PMIX_ERR_NOMEM;
        } else {
            c->ev_int = all;
            for (size_t p = 0; p < np; p++) {
                for (size_t k = 0; k < (n > 0 ? n : 1); k++) {
                    all[c->nev_int++] = (px_srv_interest_t){n > 0 ? codes[k] : 0, n == 0, procs[p]};
                }
            }
        }
    }
    free(procs);
    return rc;
}

void px_srv_evt_register(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    size_t n = 0;
    int32_t one = 1;
    pmix_status_t *codes = NULL;
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    pmix_status_t rc = px_srv_count(payload, px_bfrops_wire_elem(PMIX_STATUS), 65536, &n);
    if (rc == PMIX_SUCCESS) {
        codes = calloc(n ? n : 1, sizeof(*codes));
        rc = codes != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    if (rc == PMIX_SUCCESS && n > 0) {
        one = (int32_t)n;
        rc = px_bfrops_unpack(payload, codes, &one, PMIX_STATUS);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(payload, &info, &ninfo);
    }
    bool *fresh = NULL;
    /* Codes are recorded even when a default handler already gets everything: the host
     * must hear of each host-only code a client asks for, and release it later. */
    if (rc == PMIX_SUCCESS && n > 0) {
        pmix_status_t *all = realloc(c->ev_codes, (c->nev_codes + n) * sizeof(*all));
        fresh = calloc(n, sizeof(*fresh));
        if (all != NULL) {
            c->ev_codes = all;
        }
        if (all == NULL || fresh == NULL) {
            rc = PMIX_ERR_NOMEM;
        } else {
            for (size_t i = 0; i < n; i++) {
                fresh[i] = !wants(c->ev_codes, c->nev_codes, false, codes[i]);
                if (fresh[i]) {
                    c->ev_codes[c->nev_codes++] = codes[i];
                }
            }
        }
    } else if (rc == PMIX_SUCCESS && n == 0) {
        c->ev_all = true; /* a default handler: it asks the host for no particular code */
    }
    if (rc == PMIX_SUCCESS) {
        rc = add_interests(c, codes, n, info, ninfo);
    }
    /* the reply first: the registration completes before anything it matches arrives */
    px_srv_reply(c, seq, PX_TAG_EVT_REGISTER, rc, NULL);
    if (rc == PMIX_SUCCESS && fresh != NULL) {
        size_t nfirst;
        pmix_status_t *first = count_up(codes, fresh, n, &nfirst);
        uint32_t ids[2] = {(uint32_t)c->uid, (uint32_t)c->gid};
        host_reg_call(ids, first, nfirst, info, ninfo, false);
    }
    free(fresh);
    if (rc == PMIX_SUCCESS) {
        for (px_srv_event_t *e = ev.head; e != NULL; e = e->next) {
            if (wants(codes, n, n == 0, e->status) && !was_sent(c, e->id) && !is_origin(e, c) &&
                reaches(e, c)) {
                send_event(c, e);
            }
        }
    }
    free(codes);
    px_bfrops_info_array_free(info, ninfo);
}

/* The client no longer wants codes: drop them from what it is sent; the host-only ones
 * it was the last to hold go to the host's deregister_events. */
void px_srv_evt_deregister(px_srv_client_t *c, pmix_data_buffer_t *payload)
{
    size_t n = 0;
    int32_t one = 1;
    pmix_status_t rc = px_srv_count(payload, px_bfrops_wire_elem(PMIX_STATUS), 65536, &n);
    if (rc != PMIX_SUCCESS || n == 0) {
        px_debug(1, "server", "malformed event deregistration from %s:%u", c->proc.nspace,
                 c->proc.rank);
        return;
    }
    pmix_status_t *codes = calloc(n, sizeof(*codes));
    one = (int32_t)n;
    if (codes == NULL || px_bfrops_unpack(payload, codes, &one, PMIX_STATUS) != PMIX_SUCCESS) {
        free(codes);
        return;
    }
    size_t ndropped = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < c->nev_codes; k++) {
            if (c->ev_codes[k] == codes[i]) {
                c->ev_codes[k] = c->ev_codes[--c->nev_codes];
                codes[ndropped++] = codes[i];
                break;
            }
        }
    }
    for (size_t i = 0; i < c->nev_int;) {
        if (!c->ev_int[i].any && wants(codes, ndropped, false, c->ev_int[i].code)) {
            c->ev_int[i] = c->ev_int[--c->nev_int];
        } else {
            i++;
        }
    }
    size_t nlast;
    pmix_status_t *last = count_down(codes, ndropped, &nlast);
    free(codes);
    host_reg_call(NULL, last, nlast, NULL, 0, false);
}

/* Unpack "int32 status, proc source, uint8 range, info[]". */
static pmix_status_t unpack_event(pmix_data_buffer_t *payload, pmix_status_t *status,
                                  pmix_proc_t *source, pmix_data_range_t *range, pmix_info_t **info,
                                  size_t *ninfo)
{
    int32_t one = 1;
    pmix_status_t rc = px_bfrops_unpack(payload, status, &one, PMIX_STATUS);
    if (rc == PMIX_SUCCESS) {
        one = 1;
        rc = px_bfrops_unpack(payload, source, &one, PMIX_PROC);
    }
    if (rc == PMIX_SUCCESS) {
        one = 1;
        rc = px_bfrops_unpack(payload, range, &one, PMIX_DATA_RANGE);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_unpack_info_array(payload, info, ninfo);
    }
    return rc;
}

void px_srv_notify(px_srv_client_t *c, pmix_data_buffer_t *payload)
{
    pmix_status_t status;
    pmix_proc_t source;
    pmix_data_range_t range;
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    if (unpack_event(payload, &status, &source, &range, &info, &ninfo) != PMIX_SUCCESS) {
        px_debug(1, "server", "malformed event notification from %s:%u", c->proc.nspace,
                 c->proc.rank);
        return;
    }
    px_debug(2, "server", "event %s from %s:%u (range %s)", PMIx_Error_string(status),
             c->proc.nspace, c->proc.rank, PMIx_Data_range_string(range));
    if (px_srv_group_notified(c, status, info, ninfo)) {
        px_bfrops_info_array_free(info, ninfo); /* a group decision: the group code acts */
        return;
    }
    px_srv_event_t *e = event_new(status, &source, range, info, ninfo);
    if (e != NULL) {
        e->has_origin = true;
        e->origin = c->proc;
        process(e, true, true);
    }
}

void px_srv_event_from_uplink(pmix_data_buffer_t *payload)
{
    pmix_status_t status;
    pmix_proc_t source, parent;
    pmix_data_range_t range;
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    if (unpack_event(payload, &status, &source, &range, &info, &ninfo) != PMIX_SUCCESS ||
        !px_srv_uplink_parent(&parent)) {
        px_debug(1, "server", "malformed event from the tool that started us");
        return;
    }
    px_debug(2, "server", "event %s from the tool that started us (range %s)",
             PMIx_Error_string(status), PMIx_Data_range_string(range));
    pthread_mutex_lock(&px_srv->lock);
    px_srv_event_t *e = event_new(status, &source, range, info, ninfo);
    if (e != NULL) {
        e->has_origin = true;
        e->origin = parent;
        process(e, false, true);
    }
    pthread_mutex_unlock(&px_srv->lock);
}

/* ---- events of the server process ---- */

typedef struct {
    px_srv_event_t *e;
    bool to_host;
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
    bool relay_only; /* px_srv_event_relay: not here, not to the host */
} api_notify_t;

static void api_notify_on_loop(void *arg)
{
    api_notify_t *a = arg;
    if (!a->to_host) {
        /* from the host: another server's group news updates our groups first */
        px_srv_group_host_event(a->e->status, a->e->info, a->e->ninfo);
    }
    process(a->e, a->to_host && !a->relay_only, !a->relay_only);
    if (a->cbfunc != NULL) {
        a->cbfunc(PMIX_SUCCESS, a->cbdata);
    }
    free(a);
}

pmix_status_t px_srv_api_notify(pmix_status_t status, const pmix_proc_t *source,
                                pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
                                pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pmix_info_t *copy = NULL;
    if (ninfo > 0 && px_info_array_dup(info, ninfo, &copy) != PMIX_SUCCESS) {
        return PMIX_ERR_NOMEM;
    }
    pthread_mutex_lock(&px_srv->lock);
    px_srv_event_t *e =
        event_new(status, source != NULL ? source : &px_srv->myproc, range, copy, ninfo);
    pthread_mutex_unlock(&px_srv->lock);
    if (e == NULL) {
        return PMIX_ERR_BAD_PARAM; /* a custom range without targets, or info we cannot carry */
    }
    api_notify_t *a = calloc(1, sizeof(*a));
    if (a == NULL) {
        event_free(e);
        return PMIX_ERR_NOMEM;
    }
    /* The host passes events down to us; what the server itself raises goes up. */
    *a = (api_notify_t){
        e, PMIx_Check_procid(&e->source, &px_srv->myproc) && e->source.rank == px_srv->myproc.rank,
        cbfunc, cbdata};
    if (a->to_host && px_srv->module.notify_event == NULL && needs_host(e)) {
        /* nobody could carry it beyond this node: refused, not dropped (Server chapter) */
        event_free(e);
        free(a);
        return PMIX_ERR_NOT_SUPPORTED;
    }
    if (px_srv_shift(api_notify_on_loop, a) != 0) {
        event_free(e);
        free(a);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

pmix_status_t px_srv_event_relay(pmix_status_t status, const pmix_proc_t *source,
                                 pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
                                 const pmix_proc_t *skip)
{
    pmix_info_t *copy = NULL;
    if (ninfo > 0 && px_info_array_dup(info, ninfo, &copy) != PMIX_SUCCESS) {
        return PMIX_ERR_NOMEM;
    }
    pthread_mutex_lock(&px_srv->lock);
    px_srv_event_t *e = event_new(status, source, range, copy, ninfo);
    pthread_mutex_unlock(&px_srv->lock);
    if (e == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (skip != NULL) {
        e->has_origin = true; /* relay_to never sends an event back to its origin */
        e->origin = *skip;
    }
    api_notify_t *a = calloc(1, sizeof(*a));
    if (a == NULL) {
        event_free(e);
        return PMIX_ERR_NOMEM;
    }
    *a = (api_notify_t){.e = e, .relay_only = true};
    if (px_srv_shift(api_notify_on_loop, a) != 0) {
        event_free(e);
        free(a);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

void px_srv_event_raise(pmix_status_t status, pmix_data_range_t range, const pmix_info_t info[],
                        size_t ninfo)
{
    pmix_status_t rc = px_srv_api_notify(status, &px_srv->myproc, range, info, ninfo, NULL, NULL);
    if (rc != PMIX_SUCCESS) {
        px_debug(1, "server", "cannot raise event %s: %s", PMIx_Error_string(status),
                 PMIx_Error_string(rc));
    }
}

/* An event the server raises for a few processes (the group code's events): a custom
 * range of targets, the given source, no origin to skip. On the loop, lock held; handed to
 * the host when a target is not this server's. info is copied. */
void px_srv_event_emit(pmix_status_t status, const pmix_proc_t *source, const pmix_proc_t *targets,
                       size_t ntargets, const pmix_info_t info[], size_t ninfo)
{
    if (ntargets == 0) {
        return;
    }
    pmix_info_t *copy = PMIx_Info_create(ninfo + 1);
    pmix_data_array_t *da = PMIx_Data_array_create(ntargets, PMIX_PROC);
    if (copy == NULL || da == NULL) {
        PMIx_Info_free(copy, ninfo + 1);
        PMIx_Data_array_free(da);
        return;
    }
    for (size_t i = 0; i < ninfo; i++) {
        PMIx_Info_xfer(&copy[i], &info[i]);
    }
    memcpy(da->array, targets, ntargets * sizeof(*targets));
    PMIX_LOAD_KEY(copy[ninfo].key, PMIX_EVENT_CUSTOM_RANGE);
    copy[ninfo].value.type = PMIX_DATA_ARRAY;
    copy[ninfo].value.data.darray = da;
    px_srv_event_t *e = event_new(status, source, PMIX_RANGE_CUSTOM, copy, ninfo + 1);
    if (e != NULL) {
        process(e, needs_host(e), true);
    }
}

/* ---- the server process's registrations ---- */

typedef struct {
    size_t id;
    pmix_hdlr_reg_cbfunc_t cbfunc;
    void *cbdata;
} api_reg_t;

static void api_reg_done(void *arg)
{
    api_reg_t *r = arg;
    r->cbfunc(PMIX_SUCCESS, r->id, r->cbdata);
    px_evt_activate(r->id); /* nothing reaches it before its callback returned */
    free(r);
}

pmix_status_t px_srv_api_register(const pmix_status_t codes[], size_t ncodes,
                                  const pmix_info_t info[], size_t ninfo, pmix_notification_fn_t fn,
                                  pmix_hdlr_reg_cbfunc_t cbfunc, void *cbdata)
{
    size_t id = 0;
    pmix_status_t rc = px_evt_register(codes, ncodes, info, ninfo, fn, &id);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    own_register(id, codes, ncodes, info, ninfo);
    if (cbfunc == NULL) {
        px_evt_activate(id);
        return (pmix_status_t)id;
    }
    api_reg_t *r = malloc(sizeof(*r));
    if (r == NULL) {
        px_evt_deregister(id);
        return PMIX_ERR_NOMEM;
    }
    *r = (api_reg_t){id, cbfunc, cbdata};
    if (px_progress_shift(px_srv->prog, api_reg_done, r) != 0) {
        px_evt_deregister(id);
        free(r);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

pmix_status_t px_srv_api_deregister(size_t id, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pmix_status_t rc = px_evt_deregister(id);
    if (rc == PMIX_SUCCESS) {
        own_deregister(id);
    }
    if (rc != PMIX_SUCCESS || cbfunc == NULL) {
        return rc;
    }
    return px_progress_op_later(px_srv->prog, cbfunc, cbdata, PMIX_SUCCESS);
}
