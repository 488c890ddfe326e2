/* libFuzzer target: arbitrary bytes as a controller-daemon protocol message. The first
 * four bytes are the tag (big-endian), the rest the payload, decoded by the daemon's
 * decoder (px_dp_ctl_decode) and the controller's (px_dp_dmn_decode); the whole input is
 * also decoded as a hello, a topology reply, a process-state report, a direct-modex
 * reply, a status-and-results reply (the controller's decoders of daemon input and the
 * daemon's of the replies to its requests: job control, groups), a spawn reply and a
 * name-service reply. Any
 * crash, sanitizer report, leak or allocation beyond -malloc_limit_mb is a bug in
 * daemon/dproto.c or the count checks it relies on. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "daemon/px_dproto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void load(pmix_data_buffer_t *b, const uint8_t *data, size_t size)
{
    char *copy = malloc(size ? size : 1);
    if (size)
        memcpy(copy, data, size);
    px_bfrops_buf_init(b);
    px_bfrops_buf_adopt(b, copy, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pmix_data_buffer_t b;
    if (size >= 4) {
        uint32_t tag =
            (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3];
        px_dp_ctl_msg_t m;
        load(&b, data + 4, size - 4);
        if (px_dp_ctl_decode(tag, &b, &m) == PMIX_SUCCESS)
            px_dp_ctl_msg_free(&m);
        px_bfrops_buf_free(&b);
        px_dp_dmn_msg_t d;
        load(&b, data + 4, size - 4);
        if (px_dp_dmn_decode(tag, &b, &d) == PMIX_SUCCESS)
            px_dp_dmn_msg_free(&d);
        px_bfrops_buf_free(&b);
    }
    px_dp_hello_t h;
    load(&b, data, size);
    if (px_dp_hello_unpack(&b, &h) == PMIX_SUCCESS)
        px_dp_hello_free(&h);
    px_bfrops_buf_free(&b);
    char *sig = NULL, *xml = NULL;
    load(&b, data, size);
    if (px_dp_topo_unpack(&b, &sig, &xml) == PMIX_SUCCESS) {
        free(sig);
        free(xml);
    }
    px_bfrops_buf_free(&b);
    px_dp_pstate_t ps;
    load(&b, data, size);
    if (px_dp_pstate_unpack(&b, &ps) == PMIX_SUCCESS)
        px_dp_pstate_free(&ps);
    px_bfrops_buf_free(&b);
    pmix_status_t st;
    pmix_byte_object_t bo;
    load(&b, data, size);
    (void)px_dp_dmodex_resp_unpack(&b, &st, &bo);
    px_bfrops_buf_free(&b);
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    load(&b, data, size);
    if (px_dp_status_info_unpack(&b, &st, &info, &ninfo) == PMIX_SUCCESS)
        px_bfrops_info_array_free(info, ninfo);
    px_bfrops_buf_free(&b);
    uint32_t cid;
    int32_t cst;
    char *why = NULL;
    load(&b, data, size); /* the controller's decoder of CHILD_END (tree spawn) */
    if (px_dp_child_end_unpack(&b, &cid, &cst, &why) == PMIX_SUCCESS)
        free(why);
    px_bfrops_buf_free(&b);
    char *ns = NULL;
    load(&b, data, size);
    if (px_dp_proc_spawn_reply_unpack(&b, &st, &ns) == PMIX_SUCCESS)
        free(ns);
    px_bfrops_buf_free(&b);
    pmix_pdata_t *pd = NULL;
    size_t npd = 0;
    load(&b, data, size);
    if (px_dp_pubsub_reply_unpack(&b, &st, &pd, &npd) == PMIX_SUCCESS && pd != NULL)
        PMIx_Pdata_free(pd, npd);
    px_bfrops_buf_free(&b);
    return 0;
}
