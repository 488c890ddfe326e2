/* bfrops: a small byte-oriented LZ77 compressor for PMIx_Data_compress/decompress (no
 * zlib dependency). Format in ENCODING.md; decompression trusts nothing. Any thread. */
#include <stdlib.h>
#include <string.h>

#include "bfrops/bfrops_int.h"
#include "bfrops/px_bfrops.h"

#define PXZ_MAGIC     "PXZ1"
#define PXZ_HDR       16 /* magic(4) + original length(8) + checksum(4) */
#define PXZ_MIN_MATCH 4
#define PXZ_MAX_MATCH (0x7F + PXZ_MIN_MATCH)
#define PXZ_MAX_LIT   0x80
#define PXZ_MAX_DIST  0xFFFF
#define PXZ_HASH_BITS 14
/* Most output one input byte can produce: a 3-byte match token yields 131 bytes. */
#define PXZ_MAX_RATIO 44

/* FNV-1a, 32 bits: catches corruption the token checks let through. */
static uint32_t pxz_check(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;

    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    return h;
}

static uint32_t pxz_hash(const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;

    return (v * 2654435761u) >> (32 - PXZ_HASH_BITS);
}

/* Emit literals [from, to) as runs of at most PXZ_MAX_LIT bytes. */
static size_t pxz_literals(uint8_t *out, size_t o, const uint8_t *in, size_t from, size_t to)
{
    while (from < to) {
        size_t run = to - from > PXZ_MAX_LIT ? PXZ_MAX_LIT : to - from;
        out[o++] = (uint8_t)(run - 1);
        memcpy(out + o, in + from, run);
        o += run;
        from += run;
    }
    return o;
}

bool px_bfrops_compress(const uint8_t *in, size_t size, uint8_t **out, size_t *outsize)
{
    size_t *table = NULL, cap, o = PXZ_HDR, lit = 0, i = 0;
    uint8_t *buf = NULL;
    bool ok = false;

    *out = NULL;
    *outsize = 0;
    if (size <= PXZ_HDR || size > SIZE_MAX / 2)
        goto out;
    /* worst case: every byte a literal, one control byte per run */
    cap = PXZ_HDR + size + size / PXZ_MAX_LIT + 1;
    buf = malloc(cap);
    table = malloc(sizeof(size_t) << PXZ_HASH_BITS);
    if (!buf || !table)
        goto out;
    for (size_t k = 0; k < ((size_t)1 << PXZ_HASH_BITS); k++)
        table[k] = SIZE_MAX;
    while (i + PXZ_MIN_MATCH <= size) {
        uint32_t h = pxz_hash(in + i);
        size_t cand = table[h], len = 0;

        table[h] = i;
        if (cand != SIZE_MAX && i - cand <= PXZ_MAX_DIST && !memcmp(in + cand, in + i, 4)) {
            len = PXZ_MIN_MATCH;
            while (len < PXZ_MAX_MATCH && i + len < size && in[cand + len] == in[i + len])
                len++;
        }
        if (!len) {
            i++;
            continue;
        }
        o = pxz_literals(buf, o, in, lit, i);
        buf[o++] = (uint8_t)(0x80 | (len - PXZ_MIN_MATCH));
        px_bfrops_put_be(buf + o, i - cand, 2);
        o += 2;
        for (size_t k = i + 1; k < i + len && k + PXZ_MIN_MATCH <= size; k++)
            table[pxz_hash(in + k)] = k;
        i += len;
        lit = i;
        if (o >= size)
            goto out; /* already no smaller than the input */
    }
    o = pxz_literals(buf, o, in, lit, size);
    if (o >= size)
        goto out;
    memcpy(buf, PXZ_MAGIC, 4);
    px_bfrops_put_be(buf + 4, size, 8);
    px_bfrops_put_be(buf + 12, pxz_check(in, size), 4);
    *out = buf;
    *outsize = o;
    buf = NULL;
    ok = true;
out:
    free(buf);
    free(table);
    return ok;
}

bool px_bfrops_decompress(const uint8_t *in, size_t size, uint8_t **out, size_t *outsize)
{
    uint64_t orig;
    size_t i = PXZ_HDR, o = 0;
    uint8_t *buf = NULL;

    *out = NULL;
    *outsize = 0;
    if (size <= PXZ_HDR || memcmp(in, PXZ_MAGIC, 4) != 0)
        return false;
    orig = px_bfrops_get_be(in + 4, 8);
    if (orig == 0 || orig / PXZ_MAX_RATIO > size - PXZ_HDR || orig > SIZE_MAX)
        return false;
    buf = malloc((size_t)orig);
    if (!buf)
        return false;
    while (i < size) {
        uint8_t c = in[i++];
        if (c < 0x80) {
            size_t run = (size_t)c + 1;
            if (run > size - i || run > orig - o)
                goto error;
            memcpy(buf + o, in + i, run);
            i += run;
            o += run;
        } else {
            size_t len = (size_t)(c & 0x7F) + PXZ_MIN_MATCH, dist;
            if (size - i < 2)
                goto error;
            dist = (size_t)px_bfrops_get_be(in + i, 2);
            i += 2;
            if (dist == 0 || dist > o || len > orig - o)
                goto error;
            for (size_t k = 0; k < len; k++, o++)
                buf[o] = buf[o - dist]; /* may overlap: byte by byte */
        }
    }
    if (o != orig || pxz_check(buf, o) != (uint32_t)px_bfrops_get_be(in + 12, 4))
        goto error;
    *out = buf;
    *outsize = o;
    return true;
error:
    free(buf);
    return false;
}
