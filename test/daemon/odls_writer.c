/* test helper: writes a deterministic byte stream (NULs included, no trailing newline)
 * to stdout or stderr and exits at once; odls_check compares what px_odls delivered.
 * Usage: odls_writer <bytes> <seed> [out|err|both] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "odls_pattern.h"

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    unsigned long long total = strtoull(argv[1], NULL, 10);
    uint32_t seed = (uint32_t)strtoul(argv[2], NULL, 10);
    const char *where = argc > 3 ? argv[3] : "out";
    static unsigned char buf[256 * 1024];
    px_pattern_t po, pe;
    px_pattern_init(&po, seed);
    px_pattern_init(&pe, seed + 1);
    while (total > 0) {
        size_t n = total < sizeof(buf) ? (size_t)total : sizeof(buf);
        if (strcmp(where, "err") != 0) {
            px_pattern_fill(&po, buf, n);
            if (write_all(1, buf, n) < 0)
                return 3;
        }
        if (strcmp(where, "out") != 0) {
            px_pattern_fill(&pe, buf, n);
            if (write_all(2, buf, n) < 0)
                return 3;
        }
        total -= n;
    }
    return 0;
}
