/* test helper: the byte stream odls_writer writes and odls_check expects (xorshift, a
 * quarter of the bytes are NUL, some are '\n'). */
#ifndef ODLS_PATTERN_H
#define ODLS_PATTERN_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t x;
} px_pattern_t;

static inline void px_pattern_init(px_pattern_t *p, uint32_t seed)
{
    p->x = seed * 2654435761u + 1u;
}

static inline unsigned char px_pattern_next(px_pattern_t *p)
{
    uint32_t x = p->x;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    p->x = x;
    unsigned char b = (unsigned char)(x >> 24);
    return (x & 3) == 0 ? 0 : b;
}

static inline void px_pattern_fill(px_pattern_t *p, unsigned char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = px_pattern_next(p);
}

#endif
