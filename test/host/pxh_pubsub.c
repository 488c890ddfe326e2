/*
 * pxh_pubsub.c - publish/lookup/unpublish: node 0 keeps the store, other nodes forward
 * their requests to it and deliver its answers. Loop thread only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pxh_node.h"

/* Origin side: a request waiting for node 0's answer. */
typedef struct pxh_pending {
    uint32_t id;
    int kind;
    pmix_op_cbfunc_t op;
    pmix_lookup_cbfunc_t lookup;
    void *cbdata;
    struct pxh_pending *next;
} pxh_pending_t;

/* Node 0: one published key. */
typedef struct pxh_pubentry {
    pmix_pdata_t pd; /* owner proc, key, value */
    struct pxh_pubentry *next;
} pxh_pubentry_t;

/* Node 0: a lookup waiting for keys (PMIX_WAIT). */
typedef struct pxh_waitlookup {
    int origin;
    uint32_t id;
    char **keys;
    int need; /* number of keys that must be found */
    double deadline;
    struct pxh_waitlookup *next;
} pxh_waitlookup_t;

static bool is_directive(const char *key)
{
    return strncmp(key, "pmix.", 5) == 0;
}

static bool info_int(const pmix_info_t *info, size_t n, const char *key, int *out)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(info[i].key, key) != 0)
            continue;
        if (info[i].value.type == PMIX_BOOL) {
            *out = info[i].value.data.flag ? 0 : -1;
            return true;
        }
        return PMIx_Value_get_number(&info[i].value, out, PMIX_INT) == PMIX_SUCCESS;
    }
    return false;
}

/* Deliver node 0's answer to the request id of this node. */
static void deliver(uint32_t id, pmix_status_t status, pmix_pdata_t *pd, size_t n)
{
    pxh_pending_t *p = NULL;

    for (pxh_pending_t **pp = &pxh_node.pending; *pp; pp = &(*pp)->next) {
        if ((*pp)->id == id) {
            p = *pp;
            *pp = p->next;
            break;
        }
    }
    if (!p) {
        pxh_host_error("answer for unknown publish/lookup request %u", id);
        return;
    }
    if (p->kind == PXH_W_LOOKUP) {
        if (p->lookup)
            p->lookup(status, pd, n, p->cbdata);
    } else if (p->op) {
        p->op(status, p->cbdata);
    }
    free(p);
}

static void reply(int origin, uint32_t id, pmix_status_t status, pmix_pdata_t *pd, size_t n)
{
    pmix_data_buffer_t *b;
    int32_t st = status;

    if (origin == pxh_node.id) {
        deliver(id, status, pd, n);
        return;
    }
    b = pxh_msg_new(PXH_MSG_PUBSUB_RESP);
    pxh_pack(b, &id, 1, PMIX_UINT32);
    pxh_pack(b, &st, 1, PMIX_INT32);
    pxh_pack(b, &n, 1, PMIX_SIZE);
    if (n)
        pxh_pack(b, pd, (int32_t)n, PMIX_PDATA);
    pxh_send(origin, b);
}

static pxh_pubentry_t *find(const char *key)
{
    for (pxh_pubentry_t *e = pxh_node.store; e; e = e->next) {
        if (strncmp(e->pd.key, key, PMIX_MAX_KEYLEN) == 0)
            return e;
    }
    return NULL;
}

/* Answer a lookup if enough keys are there (or force it); true when answered. */
static bool try_lookup(int origin, uint32_t id, char **keys, int need, bool force)
{
    int nkeys = PMIx_Argv_count(keys), found = 0;
    pmix_pdata_t *pd;

    if (need <= 0 || need > nkeys)
        need = nkeys;
    for (int i = 0; i < nkeys; i++)
        found += find(keys[i]) != NULL;
    if (found < need && !force)
        return false;
    if (found == 0) {
        reply(origin, id, PMIX_ERR_NOT_FOUND, NULL, 0);
        return true;
    }
    pd = PMIx_Pdata_create((size_t)found);
    found = 0;
    for (int i = 0; i < nkeys; i++) {
        pxh_pubentry_t *e = find(keys[i]);
        if (e)
            PMIx_Pdata_xfer(&pd[found++], &e->pd);
    }
    reply(origin, id, PMIX_SUCCESS, pd, (size_t)found);
    PMIx_Pdata_free(pd, (size_t)found);
    return true;
}

static void recheck_waiting(void)
{
    pxh_waitlookup_t **pp = &pxh_node.waiting;

    while (*pp) {
        pxh_waitlookup_t *wl = *pp;
        if (try_lookup(wl->origin, wl->id, wl->keys, wl->need, false)) {
            *pp = wl->next;
            PMIx_Argv_free(wl->keys);
            free(wl);
        } else {
            pp = &wl->next;
        }
    }
}

static void do_publish(int origin, uint32_t id, const pmix_proc_t *proc, pmix_info_t *info,
                       size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!is_directive(info[i].key) && find(info[i].key)) {
            reply(origin, id, PMIX_ERR_DUPLICATE_KEY, NULL, 0);
            return;
        }
    }
    for (size_t i = 0; i < n; i++) {
        pxh_pubentry_t *e;

        if (is_directive(info[i].key))
            continue;
        e = calloc(1, sizeof(*e));
        PMIx_Pdata_construct(&e->pd);
        e->pd.proc = *proc;
        PMIx_Load_key(e->pd.key, info[i].key);
        PMIx_Value_xfer(&e->pd.value, &info[i].value);
        e->next = pxh_node.store;
        pxh_node.store = e;
    }
    reply(origin, id, PMIX_SUCCESS, NULL, 0);
    recheck_waiting();
}

static void do_lookup(int origin, uint32_t id, char **keys, pmix_info_t *info, size_t n)
{
    int wait = -1, timeout = 0;
    pxh_waitlookup_t *wl;

    if (PMIx_Argv_count(keys) == 0) {
        reply(origin, id, PMIX_ERR_BAD_PARAM, NULL, 0);
        return;
    }
    if (!info_int(info, n, PMIX_WAIT, &wait))
        wait = -1;
    info_int(info, n, PMIX_TIMEOUT, &timeout);
    if (try_lookup(origin, id, keys, wait, wait < 0))
        return;
    wl = calloc(1, sizeof(*wl));
    wl->origin = origin;
    wl->id = id;
    wl->keys = PMIx_Argv_copy(keys);
    wl->need = wait;
    wl->deadline = timeout > 0 ? pxh_now() + timeout : 0;
    wl->next = pxh_node.waiting;
    pxh_node.waiting = wl;
}

static void do_unpublish(int origin, uint32_t id, const pmix_proc_t *proc, char **keys)
{
    bool any = false;

    for (pxh_pubentry_t **pp = &pxh_node.store; *pp;) {
        pxh_pubentry_t *e = *pp;
        bool match = PMIx_Check_procid(&e->pd.proc, proc);

        if (match && keys) {
            match = false;
            for (int k = 0; keys[k]; k++)
                match |= strncmp(keys[k], e->pd.key, PMIX_MAX_KEYLEN) == 0;
        }
        if (match) {
            *pp = e->next;
            PMIx_Pdata_destruct(&e->pd);
            free(e);
            any = true;
        } else {
            pp = &e->next;
        }
    }
    reply(origin, id, any || !keys ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND, NULL, 0);
}

static void process(int origin, uint32_t id, int kind, const pmix_proc_t *proc, char **keys,
                    pmix_info_t *info, size_t n)
{
    if (kind == PXH_W_PUBLISH)
        do_publish(origin, id, proc, info, n);
    else if (kind == PXH_W_LOOKUP)
        do_lookup(origin, id, keys, info, n);
    else
        do_unpublish(origin, id, proc, keys);
}

void pxh_pubsub_work(pxh_work_t *w)
{
    static const char *names[] = {
        [PXH_W_PUBLISH] = "publish", [PXH_W_LOOKUP] = "lookup", [PXH_W_UNPUBLISH] = "unpublish"};
    static const uint8_t cmds[] = {[PXH_W_PUBLISH] = PXH_MSG_PUB_REQ,
                                   [PXH_W_LOOKUP] = PXH_MSG_LOOKUP_REQ,
                                   [PXH_W_UNPUBLISH] = PXH_MSG_UNPUB_REQ};
    pxh_pending_t *p = calloc(1, sizeof(*p));
    pmix_data_buffer_t *b;

    pxh_check_ids(names[w->kind], w->proc.rank, w->info, w->ninfo);
    p->id = pxh_node.next_id++;
    p->kind = w->kind;
    if (w->kind == PXH_W_LOOKUP)
        p->lookup = w->cb.lookup;
    else
        p->op = w->cb.op;
    p->cbdata = w->cbdata;
    p->next = pxh_node.pending;
    pxh_node.pending = p;
    if (pxh_node.id == 0) {
        process(0, p->id, w->kind, &w->proc, w->keys, w->info, w->ninfo);
        return;
    }
    b = pxh_msg_new(cmds[w->kind]);
    pxh_pack(b, &p->id, 1, PMIX_UINT32);
    pxh_pack(b, &w->proc, 1, PMIX_PROC);
    pxh_pack_keys(b, w->keys);
    pxh_pack_infos(b, w->info, w->ninfo);
    pxh_send(0, b);
}

void pxh_pubsub_msg(int from, uint8_t cmd, pmix_data_buffer_t *buf)
{
    uint32_t id;
    pmix_proc_t proc;
    char **keys = NULL;
    pmix_info_t *info = NULL;
    size_t n = 0;

    if (cmd == PXH_MSG_PUBSUB_RESP) {
        int32_t st;
        pmix_pdata_t *pd = NULL;

        if (!pxh_unpack(buf, &id, 1, PMIX_UINT32) || !pxh_unpack(buf, &st, 1, PMIX_INT32) ||
            !pxh_unpack(buf, &n, 1, PMIX_SIZE))
            return;
        if (n) {
            pd = PMIx_Pdata_create(n);
            if (!pxh_unpack(buf, pd, (int32_t)n, PMIX_PDATA)) {
                PMIx_Pdata_free(pd, n);
                return;
            }
        }
        deliver(id, st, pd, n);
        if (pd)
            PMIx_Pdata_free(pd, n);
        return;
    }
    if (cmd != PXH_MSG_PUB_REQ && cmd != PXH_MSG_LOOKUP_REQ && cmd != PXH_MSG_UNPUB_REQ) {
        pxh_host_error("unknown message %u from node %d", cmd, from);
        return;
    }
    if (pxh_unpack(buf, &id, 1, PMIX_UINT32) && pxh_unpack(buf, &proc, 1, PMIX_PROC) &&
        pxh_unpack_keys(buf, &keys) && pxh_unpack_infos(buf, &info, &n)) {
        int kind = cmd == PXH_MSG_PUB_REQ      ? PXH_W_PUBLISH
                   : cmd == PXH_MSG_LOOKUP_REQ ? PXH_W_LOOKUP
                                               : PXH_W_UNPUBLISH;
        if (keys && !keys[0]) {
            free(keys);
            keys = NULL;
        }
        process(from, id, kind, &proc, keys, info, n);
    }
    PMIx_Argv_free(keys);
    if (info)
        PMIx_Info_free(info, n);
}

int pxh_pubsub_deadline_ms(void)
{
    double now = pxh_now(), first = 0;

    for (pxh_waitlookup_t *wl = pxh_node.waiting; wl; wl = wl->next) {
        if (wl->deadline > 0 && (first == 0 || wl->deadline < first))
            first = wl->deadline;
    }
    if (first == 0)
        return -1;
    return first <= now ? 0 : (int)((first - now) * 1000) + 1;
}

void pxh_pubsub_expire(void)
{
    double now = pxh_now();
    pxh_waitlookup_t **pp = &pxh_node.waiting;

    while (*pp) {
        pxh_waitlookup_t *wl = *pp;
        if (wl->deadline > 0 && wl->deadline <= now) {
            *pp = wl->next;
            try_lookup(wl->origin, wl->id, wl->keys, wl->need, true);
            PMIx_Argv_free(wl->keys);
            free(wl);
        } else {
            pp = &wl->next;
        }
    }
}
