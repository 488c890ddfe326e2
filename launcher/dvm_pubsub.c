/* launcher: the host's publish / lookup / unpublish upcalls — the MPI name service
 * between the jobs of one DVM; another daemon's servers' calls arrive as PUBSUB requests
 * and take the same path. Upcalls arrive on the server library's thread; their
 * directives are read there, the work is shifted to the controller's loop, where the
 * datastore (pubsub.c) lives. The library's arrays stay borrowed until our callback.
 */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "daemon/px_dproto.h"
#include "launcher/dvm_int.h"
#include "launcher/px_daemons.h"
#include "launcher/px_pubsub.h"

typedef enum { PS_PUBLISH, PS_LOOKUP, PS_UNPUBLISH } ps_kind_t;

typedef struct {
    px_dvm_t *dvm;
    ps_kind_t kind;
    px_pubsub_who_t who;
    pmix_data_range_t range;
    pmix_persistence_t persist;
    int wait; /* < 0: no PMIX_WAIT */
    int timeout;
    pmix_info_t *data; /* publish: the non-directive entries, owned copies */
    size_t ndata;
    char **keys; /* borrowed from the library until the callback */
    pmix_op_cbfunc_t opcb;
    pmix_lookup_cbfunc_t lookupcb;
    void *cbdata;
} ps_req_t;

static void req_free(ps_req_t *r)
{
    if (r->data != NULL) {
        PMIx_Info_free(r->data, r->ndata);
    }
    free(r);
}

/* A range or persistence: its own type, or any number that fits in 8 bits. */
static pmix_status_t get_u8(const pmix_value_t *v, uint8_t *out)
{
    if (v->type == PMIX_DATA_RANGE) {
        *out = v->data.range;
        return PMIX_SUCCESS;
    }
    if (v->type == PMIX_PERSIST) {
        *out = v->data.persist;
        return PMIX_SUCCESS;
    }
    return PMIx_Value_get_number(v, out, PMIX_UINT8);
}

/* The directives each call honours: the one table read_info reads with and
 * px_dvm_pubsub_keys lists (the host attributes of PMIx_Publish/Lookup/Unpublish,
 * dvm_attrs.c). The ids are the library's additions, not a caller's directives. */
enum { PA_UID, PA_GID, PA_RANGE, PA_PERSIST, PA_TIMEOUT, PA_WAIT, PA_COUNT };
#define PS_ALL ((1u << PS_PUBLISH) | (1u << PS_LOOKUP) | (1u << PS_UNPUBLISH))
static const struct {
    const char *key;
    unsigned kinds; /* bit (1u << ps_kind_t) for each call that reads it */
    bool directive; /* a caller's directive (else added by the library) */
} ps_attrs[PA_COUNT] = {
    [PA_UID] = {PMIX_USERID, PS_ALL, false},
    [PA_GID] = {PMIX_GRPID, PS_ALL, false},
    [PA_RANGE] = {PMIX_RANGE, PS_ALL, true},
    [PA_PERSIST] = {PMIX_PERSISTENCE, 1u << PS_PUBLISH, true},
    [PA_TIMEOUT] = {PMIX_TIMEOUT, PS_ALL, true},
    [PA_WAIT] = {PMIX_WAIT, 1u << PS_LOOKUP, true},
};

char **px_dvm_pubsub_keys(int kind)
{
    char **keys = NULL;
    for (size_t i = 0; i < PA_COUNT; i++) {
        if (ps_attrs[i].directive && (ps_attrs[i].kinds & (1u << kind)) &&
            PMIx_Argv_append_nosize(&keys, ps_attrs[i].key) != PMIX_SUCCESS) {
            PMIx_Argv_free(keys);
            return NULL;
        }
    }
    return keys;
}

/* The directives of the three calls. Keys in the "pmix." namespace we do not honour are
 * refused; every other key of a publish is data. */
static pmix_status_t read_info(ps_req_t *r, const pmix_info_t info[], size_t ninfo)
{
    size_t ndata = 0;
    for (size_t i = 0; i < ninfo; i++) {
        const pmix_info_t *in = &info[i];
        pmix_status_t rc = PMIX_SUCCESS;
        size_t k = 0;
        while (k < PA_COUNT &&
               !(PMIX_CHECK_KEY(in, ps_attrs[k].key) && (ps_attrs[k].kinds & (1u << r->kind)))) {
            k++;
        }
        if (k == PA_UID) {
            rc = PMIx_Value_get_number(&in->value, &r->who.uid, PMIX_UINT32);
        } else if (k == PA_GID) {
            rc = PMIx_Value_get_number(&in->value, &r->who.gid, PMIX_UINT32);
        } else if (k == PA_RANGE) {
            rc = get_u8(&in->value, &r->range);
        } else if (k == PA_PERSIST) {
            rc = get_u8(&in->value, &r->persist);
        } else if (k == PA_TIMEOUT) {
            /* publish and unpublish complete at once; a lookup waits at most this */
            rc = PMIx_Value_get_number(&in->value, &r->timeout, PMIX_INT);
        } else if (k == PA_WAIT) {
            /* a number of keys (0: all); a bool true means all */
            if (in->value.type == PMIX_BOOL) {
                r->wait = in->value.data.flag ? 0 : -1;
            } else {
                rc = PMIx_Value_get_number(&in->value, &r->wait, PMIX_INT);
            }
        } else if (strncmp(in->key, "pmix.", 5) == 0) {
            px_dvm_log(r->dvm, 1, "name service: attribute %s is not supported", in->key);
            return PMIX_ERR_NOT_SUPPORTED;
        } else if (r->kind == PS_PUBLISH) {
            ndata++;
        }
        if (rc != PMIX_SUCCESS) {
            return PMIX_ERR_BAD_PARAM;
        }
    }
    if (r->kind != PS_PUBLISH) {
        return PMIX_SUCCESS;
    }
    if (ndata == 0) {
        return PMIX_ERR_BAD_PARAM;
    }
    r->data = PMIx_Info_create(ndata);
    if (r->data == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < ninfo; i++) {
        if (strncmp(info[i].key, "pmix.", 5) != 0) {
            PMIx_Info_xfer(&r->data[r->ndata++], &info[i]);
        }
    }
    return PMIX_SUCCESS;
}

static void ps_on_loop(void *arg)
{
    ps_req_t *r = arg;
    px_dvm_t *dvm = r->dvm;
    pmix_status_t rc;
    if (r->kind == PS_PUBLISH) {
        rc = px_pubsub_publish(dvm->pubsub, &r->who, r->range, r->persist, r->data, r->ndata);
    } else if (r->kind == PS_UNPUBLISH) {
        rc = px_pubsub_unpublish(dvm->pubsub, &r->who, r->range, r->keys);
    } else {
        rc = px_pubsub_lookup(dvm->pubsub, &r->who, r->range, r->keys, r->wait, r->timeout,
                              r->lookupcb, r->cbdata);
        if (rc == PMIX_SUCCESS) {
            req_free(r); /* the datastore calls back */
            return;
        }
    }
    if (r->kind == PS_LOOKUP) {
        r->lookupcb(rc, NULL, 0, r->cbdata);
    } else {
        r->opcb(rc, r->cbdata);
    }
    req_free(r);
}

static pmix_status_t post(ps_kind_t kind, const pmix_proc_t *proc, char **keys,
                          const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t opcb,
                          pmix_lookup_cbfunc_t lookupcb, void *cbdata)
{
    ps_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        return PMIX_ERR_NOMEM;
    }
    r->dvm = px_dvm_served();
    r->kind = kind;
    r->who.proc = *proc;
    r->who.uid = r->who.gid = UINT32_MAX; /* unknown: sees only the global range */
    r->range = PMIX_RANGE_UNDEF;
    r->persist = PMIX_PERSIST_INVALID;
    r->wait = -1;
    r->keys = keys;
    r->opcb = opcb;
    r->lookupcb = lookupcb;
    r->cbdata = cbdata;
    pmix_status_t rc = read_info(r, info, ninfo);
    if (rc == PMIX_SUCCESS && px_dvm_shift(r->dvm, ps_on_loop, r) != 0) {
        rc = PMIX_ERR_OUT_OF_RESOURCE;
    }
    if (rc != PMIX_SUCCESS) {
        req_free(r);
    }
    return rc;
}

pmix_status_t px_dvm_publish(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                             pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return post(PS_PUBLISH, proc, NULL, info, ninfo, cbfunc, NULL, cbdata);
}

pmix_status_t px_dvm_lookup(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                            size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    if (keys == NULL || keys[0] == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    return post(PS_LOOKUP, proc, keys, info, ninfo, NULL, cbfunc, cbdata);
}

pmix_status_t px_dvm_unpublish(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                               size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    return post(PS_UNPUBLISH, proc, keys, info, ninfo, cbfunc, NULL, cbdata);
}

/* ---- another daemon's server's calls (PUBSUB requests) ---- */

typedef struct {
    px_dvm_t *dvm;
    unsigned id;
    uint32_t seq;
    char **keys; /* owned: borrowed by the request until its answer */
} ps_remote_t;

static void remote_answer(ps_remote_t *x, pmix_status_t status, const pmix_pdata_t *data, size_t n)
{
    pmix_data_buffer_t b;
    px_bfrops_buf_init(&b);
    if (px_dp_pubsub_reply_pack(&b, status, data, n) != PMIX_SUCCESS ||
        px_daemons_reply(x->dvm->daemons, x->id, x->seq, PX_DP_PUBSUB, &b) != 0) {
        px_dvm_log(x->dvm, 1, "name service: an answer to daemon %u was not sent", x->id);
    }
    px_bfrops_buf_free(&b);
    PMIx_Argv_free(x->keys);
    free(x);
}

static void remote_op(pmix_status_t status, void *cbdata)
{
    remote_answer(cbdata, status, NULL, 0);
}

static void remote_lookup(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata)
{
    remote_answer(cbdata, status, data, ndata);
}

void px_dvm_pubsub_remote(px_dvm_t *dvm, unsigned id, uint32_t seq, const px_dp_dmn_msg_t *m)
{
    static const ps_kind_t kinds[] = {[PX_DP_PS_PUBLISH] = PS_PUBLISH,
                                      [PX_DP_PS_LOOKUP] = PS_LOOKUP,
                                      [PX_DP_PS_UNPUBLISH] = PS_UNPUBLISH};
    ps_remote_t *x = calloc(1, sizeof(*x));
    pmix_status_t rc = PMIX_ERR_NOMEM;
    if (x != NULL) {
        *x = (ps_remote_t){.dvm = dvm, .id = id, .seq = seq};
        if (m->keys == NULL || (x->keys = PMIx_Argv_copy(m->keys)) != NULL) {
            rc = post(kinds[m->kind], &m->proc, x->keys, m->info, m->ninfo, remote_op,
                      remote_lookup, x);
        }
    }
    if (rc != PMIX_SUCCESS && x != NULL) {
        remote_answer(x, rc, NULL, 0);
    }
}
