/*
 * pxh_link.c - the job layout, framed non-blocking links between pxhost processes and
 * message packing helpers. Used by the single loop thread of each pxhost process.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pxhost.h"

pxh_opts_t pxh_opts;

int pxh_node_count(int node)
{
    int base = pxh_opts.nranks / pxh_opts.nnodes;
    int extra = pxh_opts.nranks % pxh_opts.nnodes;
    return base + (node < extra ? 1 : 0);
}

int pxh_node_start(int node)
{
    int start = 0;
    for (int i = 0; i < node; i++)
        start += pxh_node_count(i);
    return start;
}

int pxh_node_of(int rank)
{
    for (int i = 0; i < pxh_opts.nnodes; i++) {
        if (rank < pxh_node_start(i) + pxh_node_count(i))
            return i;
    }
    return -1;
}

void pxh_link_init(pxh_link_t *l, int fd)
{
    memset(l, 0, sizeof(*l));
    l->fd = fd;
    l->closed = fd < 0;
}

void pxh_link_close(pxh_link_t *l)
{
    if (l->fd >= 0)
        close(l->fd);
    free(l->in);
    free(l->out);
    pxh_link_init(l, -1);
}

static int grow(char **p, size_t *cap, size_t need)
{
    size_t ncap = *cap ? *cap : 4096;
    char *np;

    while (ncap < need)
        ncap *= 2;
    if (ncap == *cap)
        return 0;
    np = realloc(*p, ncap);
    if (!np)
        return -1;
    *p = np;
    *cap = ncap;
    return 0;
}

int pxh_link_send(pxh_link_t *l, pmix_data_buffer_t *buf)
{
    pmix_byte_object_t bo = {NULL, 0};
    uint32_t len;

    if (l->closed)
        return -1;
    if (PMIx_Data_unload(buf, &bo) != PMIX_SUCCESS)
        return -1;
    if (grow(&l->out, &l->outcap, l->outlen + 4 + bo.size) < 0) {
        free(bo.bytes);
        return -1;
    }
    len = htonl((uint32_t)bo.size);
    memcpy(l->out + l->outlen, &len, 4);
    if (bo.size)
        memcpy(l->out + l->outlen + 4, bo.bytes, bo.size);
    l->outlen += 4 + bo.size;
    free(bo.bytes);
    return pxh_link_flush(l);
}

int pxh_link_flush(pxh_link_t *l)
{
    while (l->outlen > 0 && !l->closed) {
        ssize_t n = write(l->fd, l->out, l->outlen);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            l->closed = true;
            return -1;
        }
        memmove(l->out, l->out + n, l->outlen - (size_t)n);
        l->outlen -= (size_t)n;
    }
    return l->closed ? -1 : 0;
}

int pxh_link_read(pxh_link_t *l)
{
    for (;;) {
        ssize_t n;

        if (grow(&l->in, &l->incap, l->inlen + 65536) < 0)
            return -1;
        n = read(l->fd, l->in + l->inlen, l->incap - l->inlen);
        if (n > 0) {
            l->inlen += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        l->closed = true;
        return -1;
    }
}

bool pxh_link_next(pxh_link_t *l, pmix_data_buffer_t *buf)
{
    uint32_t len;
    pmix_byte_object_t bo;

    if (l->inlen < 4)
        return false;
    memcpy(&len, l->in, 4);
    len = ntohl(len);
    if (l->inlen < 4 + (size_t)len)
        return false;
    PMIx_Data_buffer_construct(buf);
    bo.bytes = l->in + 4;
    bo.size = len;
    PMIx_Data_embed(buf, &bo);
    memmove(l->in, l->in + 4 + len, l->inlen - 4 - len);
    l->inlen -= 4 + (size_t)len;
    return true;
}

pmix_data_buffer_t *pxh_msg_new(uint8_t cmd)
{
    pmix_data_buffer_t *b = PMIx_Data_buffer_create();

    if (!b) {
        fprintf(stderr, "pxhost: out of memory\n");
        exit(1);
    }
    pxh_pack(b, &cmd, 1, PMIX_UINT8);
    return b;
}

void pxh_pack(pmix_data_buffer_t *b, const void *src, int32_t n, pmix_data_type_t t)
{
    pmix_status_t rc = PMIx_Data_pack(NULL, b, (void *)src, n, t);

    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "pxhost: PMIx_Data_pack(%s) failed: %s\n", PMIx_Data_type_string(t),
                PMIx_Error_string(rc));
        exit(1);
    }
}

bool pxh_unpack(pmix_data_buffer_t *b, void *dst, int32_t n, pmix_data_type_t t)
{
    int32_t got = n;
    pmix_status_t rc = PMIx_Data_unpack(NULL, b, dst, &got, t);

    if (rc != PMIX_SUCCESS || got != n) {
        fprintf(stderr, "pxhost: malformed message: PMIx_Data_unpack(%s) failed: %s\n",
                PMIx_Data_type_string(t), PMIx_Error_string(rc));
        return false;
    }
    return true;
}

void pxh_pack_keys(pmix_data_buffer_t *b, char **keys)
{
    int32_t n = 0;

    while (keys && keys[n])
        n++;
    pxh_pack(b, &n, 1, PMIX_INT32);
    if (n > 0)
        pxh_pack(b, keys, n, PMIX_STRING);
}

bool pxh_unpack_keys(pmix_data_buffer_t *b, char ***keys)
{
    int32_t n;

    *keys = NULL;
    if (!pxh_unpack(b, &n, 1, PMIX_INT32) || n < 0)
        return false;
    *keys = calloc((size_t)n + 1, sizeof(char *));
    if (!*keys)
        return false;
    return n == 0 || pxh_unpack(b, *keys, n, PMIX_STRING);
}

void pxh_pack_infos(pmix_data_buffer_t *b, const pmix_info_t *info, size_t n)
{
    pxh_pack(b, &n, 1, PMIX_SIZE);
    if (n > 0)
        pxh_pack(b, info, (int32_t)n, PMIX_INFO);
}

bool pxh_unpack_infos(pmix_data_buffer_t *b, pmix_info_t **info, size_t *n)
{
    *info = NULL;
    if (!pxh_unpack(b, n, 1, PMIX_SIZE))
        return false;
    if (*n == 0)
        return true;
    if (*n > 100000)
        return false;
    *info = PMIx_Info_create(*n);
    return *info && pxh_unpack(b, *info, (int32_t)*n, PMIX_INFO);
}
