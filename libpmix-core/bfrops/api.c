/* bfrops: the Standard's PMIx_Data_pack/unpack/copy/print/compress/decompress on top of
 * px_bfrops_* and the type registry. Any thread; no shared state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "types/px_types.h"
#include "util/px_print.h"

/* Every process we talk to uses this encoding, so the peer (target/source) does not
 * change anything. */
pmix_status_t PMIx_Data_pack(const pmix_proc_t *target, pmix_data_buffer_t *buffer, void *src,
                             int32_t num_vals, pmix_data_type_t type)
{
    (void)target;
    return px_bfrops_pack(buffer, src, num_vals, type);
}

pmix_status_t PMIx_Data_unpack(const pmix_proc_t *source, pmix_data_buffer_t *buffer, void *dest,
                               int32_t *max_num_values, pmix_data_type_t type)
{
    (void)source;
    return px_bfrops_unpack(buffer, dest, max_num_values, type);
}

/* src is the element itself, except that a PMIX_STRING or PMIX_REGEX is passed as the
 * char * (and *dest receives the new char *), as the Standard's examples (and OpenPMIx
 * 4.2.2 for regexes) do. */
pmix_status_t PMIx_Data_copy(void **dest, void *src, pmix_data_type_t type)
{
    void *e;
    pmix_status_t rc;

    if (!dest || !src)
        return PMIX_ERR_BAD_PARAM;
    if (!px_type_known(type))
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    if (type == PMIX_STRING || type == PMIX_REGEX) {
        *dest = strdup(src);
        return *dest ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    e = calloc(1, px_type_size(type));
    if (!e)
        return PMIX_ERR_NOMEM;
    rc = px_type_copy(e, src, type);
    if (rc != PMIX_SUCCESS) {
        free(e);
        return rc;
    }
    *dest = e;
    return PMIX_SUCCESS;
}

/* Same convention for src as PMIx_Data_copy. */
pmix_status_t PMIx_Data_print(char **output, char *prefix, void *src, pmix_data_type_t type)
{
    char *text;
    const void *elem = type == PMIX_STRING || type == PMIX_REGEX ? (const void *)&src : src;
    int n;

    if (!output)
        return PMIX_ERR_BAD_PARAM;
    if (!px_type_known(type))
        return PMIX_ERR_BAD_PARAM;
    text = px_print_elem(src ? elem : NULL, type);
    if (!text)
        return PMIX_ERR_NOMEM;
    n = asprintf(output, "%s%s", prefix ? prefix : "", text);
    free(text);
    if (n < 0) {
        *output = NULL;
        return PMIX_ERR_NOMEM;
    }
    return PMIX_SUCCESS;
}

bool PMIx_Data_compress(const uint8_t *inbytes, size_t size, uint8_t **outbytes, size_t *nbytes)
{
    if (!inbytes || !outbytes || !nbytes)
        return false;
    return px_bfrops_compress(inbytes, size, outbytes, nbytes);
}

bool PMIx_Data_decompress(const uint8_t *inbytes, size_t size, uint8_t **outbytes, size_t *nbytes)
{
    if (!inbytes || !outbytes || !nbytes)
        return false;
    return px_bfrops_decompress(inbytes, size, outbytes, nbytes);
}
