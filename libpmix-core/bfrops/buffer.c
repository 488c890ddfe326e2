/* bfrops: pmix_data_buffer_t lifecycle and payload moves (PMIx_Data_buffer_*,
 * PMIx_Data_load/unload/embed/copy_payload). Any thread; a buffer has one owner. */
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/bfrops_int.h"
#include "bfrops/px_bfrops.h"

void px_bfrops_buf_init(pmix_data_buffer_t *buf)
{
    memset(buf, 0, sizeof(*buf));
}

void px_bfrops_buf_free(pmix_data_buffer_t *buf)
{
    if (!buf)
        return;
    free(buf->base_ptr);
    px_bfrops_buf_init(buf);
}

bool px_bfrops_buf_valid(const pmix_data_buffer_t *buf)
{
    if (!buf->base_ptr)
        return !buf->pack_ptr && !buf->unpack_ptr && buf->bytes_used == 0;
    return buf->bytes_used <= buf->bytes_allocated &&
           buf->pack_ptr == buf->base_ptr + buf->bytes_used && buf->unpack_ptr >= buf->base_ptr &&
           buf->unpack_ptr <= buf->pack_ptr;
}

size_t px_bfrops_buf_remaining(const pmix_data_buffer_t *buf)
{
    return buf->base_ptr ? (size_t)(buf->pack_ptr - buf->unpack_ptr) : 0;
}

void px_bfrops_buf_adopt(pmix_data_buffer_t *buf, char *bytes, size_t size)
{
    free(buf->base_ptr);
    px_bfrops_buf_init(buf);
    if (!bytes)
        return;
    buf->base_ptr = bytes;
    buf->unpack_ptr = bytes;
    buf->pack_ptr = bytes + size;
    buf->bytes_allocated = size;
    buf->bytes_used = size;
}

pmix_status_t px_bfrops_buf_append(pmix_data_buffer_t *buf, const void *bytes, size_t size)
{
    pmix_status_t rc;

    if (size == 0)
        return PMIX_SUCCESS;
    rc = px_bfrops_reserve(buf, size);
    if (rc != PMIX_SUCCESS)
        return rc;
    memcpy(buf->pack_ptr, bytes, size);
    buf->pack_ptr += size;
    buf->bytes_used += size;
    return PMIX_SUCCESS;
}

void px_bfrops_buf_take(pmix_data_buffer_t *buf, char **bytes, size_t *size)
{
    size_t n = px_bfrops_buf_remaining(buf);

    *bytes = NULL;
    *size = 0;
    if (n == 0) {
        px_bfrops_buf_free(buf);
        return;
    }
    if (buf->unpack_ptr != buf->base_ptr)
        memmove(buf->base_ptr, buf->unpack_ptr, n); /* keep only the unread part */
    *bytes = buf->base_ptr;
    *size = n;
    px_bfrops_buf_init(buf); /* the region now belongs to the caller */
}

/* ---- the Standard's API ---- */

void PMIx_Data_buffer_construct(pmix_data_buffer_t *b)
{
    if (b)
        px_bfrops_buf_init(b);
}

void PMIx_Data_buffer_destruct(pmix_data_buffer_t *b)
{
    px_bfrops_buf_free(b);
}

pmix_data_buffer_t *PMIx_Data_buffer_create(void)
{
    return calloc(1, sizeof(pmix_data_buffer_t));
}

void PMIx_Data_buffer_release(pmix_data_buffer_t *b)
{
    if (!b)
        return;
    px_bfrops_buf_free(b);
    free(b);
}

/* The buffer takes the malloc'd region over (PMIX_DATA_BUFFER_LOAD semantics). */
void PMIx_Data_buffer_load(pmix_data_buffer_t *b, char *bytes, size_t sz)
{
    if (!b)
        return;
    px_bfrops_buf_adopt(b, sz ? bytes : NULL, sz);
    if (!sz)
        free(bytes);
}

void PMIx_Data_buffer_unload(pmix_data_buffer_t *b, char **bytes, size_t *sz)
{
    if (!b || !bytes || !sz)
        return;
    if (!px_bfrops_buf_valid(b)) {
        *bytes = NULL;
        *sz = 0;
        return;
    }
    px_bfrops_buf_take(b, bytes, sz);
}

pmix_status_t PMIx_Data_load(pmix_data_buffer_t *buffer, pmix_byte_object_t *payload)
{
    if (!buffer || !payload)
        return PMIX_ERR_BAD_PARAM;
    px_bfrops_buf_adopt(buffer, payload->size ? payload->bytes : NULL, payload->size);
    if (!payload->size)
        free(payload->bytes);
    payload->bytes = NULL;
    payload->size = 0;
    return PMIX_SUCCESS;
}

pmix_status_t PMIx_Data_embed(pmix_data_buffer_t *buffer, const pmix_byte_object_t *payload)
{
    char *copy = NULL;

    if (!buffer || !payload || (payload->size && !payload->bytes))
        return PMIX_ERR_BAD_PARAM;
    if (payload->size) {
        copy = malloc(payload->size);
        if (!copy)
            return PMIX_ERR_NOMEM;
        memcpy(copy, payload->bytes, payload->size);
    }
    px_bfrops_buf_adopt(buffer, copy, payload->size);
    return PMIX_SUCCESS;
}

pmix_status_t PMIx_Data_unload(pmix_data_buffer_t *buffer, pmix_byte_object_t *payload)
{
    if (!buffer || !payload || !px_bfrops_buf_valid(buffer))
        return PMIX_ERR_BAD_PARAM;
    px_bfrops_buf_take(buffer, &payload->bytes, &payload->size);
    return PMIX_SUCCESS;
}

pmix_status_t PMIx_Data_copy_payload(pmix_data_buffer_t *dest, pmix_data_buffer_t *src)
{
    size_t n, off;
    pmix_status_t rc;

    if (!dest || !src || !px_bfrops_buf_valid(dest) || !px_bfrops_buf_valid(src))
        return PMIX_ERR_BAD_PARAM;
    if (dest != src)
        return px_bfrops_buf_append(dest, src->unpack_ptr, px_bfrops_buf_remaining(src));
    /* appending a buffer to itself: the region may move when it grows */
    n = px_bfrops_buf_remaining(src);
    if (n == 0)
        return PMIX_SUCCESS;
    off = (size_t)(src->unpack_ptr - src->base_ptr);
    rc = px_bfrops_reserve(dest, n);
    if (rc != PMIX_SUCCESS)
        return rc;
    memcpy(dest->pack_ptr, dest->base_ptr + off, n);
    dest->pack_ptr += n;
    dest->bytes_used += n;
    return PMIX_SUCCESS;
}
