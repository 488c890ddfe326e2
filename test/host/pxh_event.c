/*
 * pxh_event.c - events in the test host: the notify_event upcall (an event a client sent
 * with a range beyond its node) is printed and relayed to every other node, which hands
 * it to its server with PMIx_Notify_event (the server passes it down to its local
 * clients); --host-event makes each node raise an event of its own before its clients
 * start, so that they can only hear of it through the server's event cache.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pxh_node.h"

/* Progress thread: copy, post, return. */
pmix_status_t pxh_up_notify_event(pmix_status_t code, const pmix_proc_t *source,
                                  pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pxh_work_t *w = calloc(1, sizeof(*w));

    if (!w)
        return PMIX_ERR_NOMEM;
    w->kind = PXH_W_NOTIFY;
    w->proc = *source;
    w->status = code;
    w->id = range;
    w->info = pxh_info_dup(info, ninfo);
    w->ninfo = ninfo;
    w->cb.op = cbfunc;
    w->cbdata = cbdata;
    pxh_node_post(w);
    return PMIX_SUCCESS;
}

static void pack_event(pmix_data_buffer_t *b, int32_t code, const pmix_proc_t *source,
                       pmix_data_range_t range, const pmix_info_t *info, size_t ninfo)
{
    pxh_pack(b, &code, 1, PMIX_INT32);
    pxh_pack(b, source, 1, PMIX_PROC);
    pxh_pack(b, &range, 1, PMIX_DATA_RANGE);
    pxh_pack_infos(b, info, ninfo);
}

/* Loop thread: report, relay to the other nodes, release the library's copy. */
void pxh_event_work(pxh_work_t *w)
{
    pmix_data_range_t range = (pmix_data_range_t)w->id;

    fprintf(stderr, "pxhost: node %d: event %d from %s:%u range %s\n", pxh_node.id, w->status,
            w->proc.nspace, w->proc.rank, PMIx_Data_range_string(range));
    for (int j = 0; j < pxh_opts.nnodes; j++) {
        pmix_data_buffer_t *b;

        if (j == pxh_node.id)
            continue;
        b = pxh_msg_new(PXH_MSG_EVENT);
        pack_event(b, w->status, &w->proc, range, w->info, w->ninfo);
        pxh_send(j, b);
    }
    if (w->cb.op)
        w->cb.op(PMIX_SUCCESS, w->cbdata);
}

typedef struct {
    pmix_info_t *info;
    size_t ninfo;
} pxh_evhold_t;

static void notified(pmix_status_t status, void *cbdata)
{
    pxh_evhold_t *h = cbdata;

    (void)status;
    if (h->info)
        PMIx_Info_free(h->info, h->ninfo);
    free(h);
}

static void pass_down(pmix_status_t code, const pmix_proc_t *source, pmix_data_range_t range,
                      pmix_info_t *info, size_t ninfo)
{
    pxh_evhold_t *h = calloc(1, sizeof(*h));
    pmix_status_t rc;

    if (!h) {
        pxh_host_error("out of memory passing event %d down", code);
        return;
    }
    h->info = info;
    h->ninfo = ninfo;
    rc = PMIx_Notify_event(code, source, range, info, ninfo, notified, h);
    if (rc != PMIX_SUCCESS) {
        pxh_host_error("PMIx_Notify_event(%d): %s", code, PMIx_Error_string(rc));
        notified(rc, h);
    }
}

/* Loop thread: an event another node's clients raised. */
void pxh_event_msg(int from, pmix_data_buffer_t *buf)
{
    int32_t code;
    pmix_proc_t source;
    pmix_data_range_t range;
    pmix_info_t *info = NULL;
    size_t ninfo = 0;

    if (!pxh_unpack(buf, &code, 1, PMIX_INT32) || !pxh_unpack(buf, &source, 1, PMIX_PROC) ||
        !pxh_unpack(buf, &range, 1, PMIX_DATA_RANGE) || !pxh_unpack_infos(buf, &info, &ninfo)) {
        pxh_host_error("malformed event message from node %d", from);
        return;
    }
    pxh_debug("event %d from node %d passed down", code, from);
    pass_down(code, &source, range, info, ninfo);
}

void pxh_event_host_raise(void)
{
    pmix_proc_t rm;
    pmix_info_t *info;
    int32_t node = pxh_node.id;

    if (pxh_opts.host_event == 0)
        return;
    PMIx_Load_procid(&rm, "pxhost-rm", 0);
    info = PMIx_Info_create(1);
    PMIX_INFO_LOAD(&info[0], "pxhost.node", &node, PMIX_INT32);
    pass_down(pxh_opts.host_event, &rm, PMIX_RANGE_SESSION, info, 1);
}
