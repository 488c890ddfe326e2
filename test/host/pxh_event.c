/*
 * pxh_event.c - events in the test host: the notify_event upcall (an event a client sent
 * with a range beyond its node) is printed and relayed to every other node, which hands
 * it to its server with PMIx_Notify_event (the server passes it down to its local
 * clients); --host-event makes each node raise an event of its own before its clients
 * start, so that they can only hear of it through the server's event cache. The
 * register_events / deregister_events upcalls print the codes the library asks for and
 * check that it asks once per code and releases only what it asked for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

#include "pxh_node.h"

/* Codes the library asked for (progress thread; the lock keeps the table whole). */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pmix_status_t reg_codes[64];
static size_t nreg;
/* how often each code was asked for / released, for the printed "CODE#N" */
static struct {
    pmix_status_t code;
    int asked, released;
} seen_codes[64];
static size_t nseen_codes;

static int *times(pmix_status_t code, bool asked)
{
    size_t i = 0;
    while (i < nseen_codes && seen_codes[i].code != code)
        i++;
    if (i == nseen_codes && nseen_codes < sizeof(seen_codes) / sizeof(seen_codes[0]))
        seen_codes[nseen_codes++].code = code;
    if (i == sizeof(seen_codes) / sizeof(seen_codes[0]))
        i = 0; /* more codes than any test uses: counts merge */
    return asked ? &seen_codes[i].asked : &seen_codes[i].released;
}

/* "register_events -231#2": the code and how often it was asked for (released) so far. */
static void print_codes(const char *what, const pmix_status_t *codes, size_t ncodes)
{
    char line[512];
    bool asked = strcmp(what, "register_events") == 0;
    int len = snprintf(line, sizeof(line), "pxhost: node %d: %s", pxh_node.id, what);
    for (size_t i = 0; i < ncodes && len > 0 && (size_t)len < sizeof(line); i++) {
        int *n = times(codes[i], asked);
        len += snprintf(line + len, sizeof(line) - (size_t)len, " %d#%d", codes[i], ++*n);
    }
    fprintf(stderr, "%s\n", line);
}

pmix_status_t pxh_up_register_events(pmix_status_t *codes, size_t ncodes, const pmix_info_t info[],
                                     size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pxh_reenter("register_events");
    (void)cbfunc;
    (void)cbdata;
    pthread_mutex_lock(&reg_lock);
    print_codes("register_events", codes, ncodes);
    pxh_check_ids("register_events", PMIX_RANK_UNDEF, info, ninfo);
    for (size_t i = 0; i < ncodes; i++) {
        for (size_t k = 0; k < nreg; k++) {
            if (reg_codes[k] == codes[i])
                pxh_host_error("register_events: code %d asked for twice", codes[i]);
        }
        if (nreg < sizeof(reg_codes) / sizeof(reg_codes[0]))
            reg_codes[nreg++] = codes[i];
    }
    pthread_mutex_unlock(&reg_lock);
    return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t pxh_up_deregister_events(pmix_status_t *codes, size_t ncodes, pmix_op_cbfunc_t cbfunc,
                                       void *cbdata)
{
    pxh_reenter("deregister_events");
    (void)cbfunc;
    (void)cbdata;
    pthread_mutex_lock(&reg_lock);
    print_codes("deregister_events", codes, ncodes);
    for (size_t i = 0; i < ncodes; i++) {
        bool found = false;
        for (size_t k = 0; k < nreg && !found; k++) {
            if (reg_codes[k] == codes[i]) {
                reg_codes[k] = reg_codes[--nreg];
                found = true;
            }
        }
        if (!found)
            pxh_host_error("deregister_events: code %d was never asked for", codes[i]);
    }
    pthread_mutex_unlock(&reg_lock);
    return PMIX_OPERATION_SUCCEEDED;
}

/* Progress thread: copy, post, return. */
pmix_status_t pxh_up_notify_event(pmix_status_t code, const pmix_proc_t *source,
                                  pmix_data_range_t range, pmix_info_t info[], size_t ninfo,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    pxh_reenter("notify_event");
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
