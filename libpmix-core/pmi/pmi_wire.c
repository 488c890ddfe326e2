/* pmi: the PMI-1 and PMI-2 wires (px_pmi_wire.h) — framing, parsing, formatting. Pure
 * functions over caller-owned bytes; any thread.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmi/px_pmi_wire.h"

/* ---- sniffing and framing ---- */

/* Does data[0..len) begin like lit (as far as it goes)? */
static bool begins(const char *data, size_t len, const char *lit)
{
    size_t n = strlen(lit);
    return memcmp(data, lit, len < n ? len : n) == 0;
}

/* A PMI-2 length header: digits and spaces only, one run of digits. The value, or -1. */
static long hdr_value(const char *h)
{
    long v = 0;
    int state = 0; /* 0 leading spaces, 1 digits, 2 trailing spaces */
    for (int i = 0; i < PX_PMI2_HDR; i++) {
        char ch = h[i];
        if (ch >= '0' && ch <= '9') {
            if (state == 2) {
                return -1;
            }
            state = 1;
            v = v * 10 + (ch - '0');
        } else if (ch == ' ') {
            if (state == 1) {
                state = 2;
            }
        } else {
            return -1;
        }
    }
    return state == 0 ? -1 : v;
}

int px_pmi_sniff(const char *data, size_t len)
{
    if (len == 0) {
        return 0;
    }
    bool one = begins(data, len, "cmd=") || begins(data, len, "mcmd=");
    bool two = true;
    for (size_t i = 0; i < len && i < PX_PMI2_HDR; i++) {
        two = two && ((data[i] >= '0' && data[i] <= '9') || data[i] == ' ');
    }
    if (two && len > PX_PMI2_HDR) {
        two = begins(data + PX_PMI2_HDR, len - PX_PMI2_HDR, "cmd=");
    }
    if (!one && !two) {
        errno = EPROTO;
        return -1;
    }
    if (one && len >= 5) {
        return PX_PMI_WIRE1; /* "cmd=x" or "mcmd=" whole: no header starts with 'c'/'m' */
    }
    if (two && len >= PX_PMI2_HDR + 4) {
        return hdr_value(data) > 0 ? PX_PMI_WIRE2 : (errno = EPROTO, -1);
    }
    return 0;
}

ssize_t px_pmi_frame(px_pmi_wire_t wire, const char *data, size_t len)
{
    if (wire == PX_PMI_WIRE2) {
        if (len < PX_PMI2_HDR) {
            return 0;
        }
        long n = hdr_value(data);
        if (n <= 0) {
            errno = EPROTO;
            return -1;
        }
        if (n > PX_PMI2_MSG_MAX) {
            errno = EMSGSIZE;
            return -1;
        }
        return len >= PX_PMI2_HDR + (size_t)n ? (ssize_t)(PX_PMI2_HDR + (size_t)n) : 0;
    }
    size_t look = len < PX_PMI1_LINE_MAX ? len : PX_PMI1_LINE_MAX;
    const char *nl = memchr(data, '\n', look);
    if (nl == NULL) {
        if (len >= PX_PMI1_LINE_MAX) {
            errno = EMSGSIZE;
            return -1;
        }
        return 0;
    }
    if (!begins(data, len, "mcmd=")) {
        return (ssize_t)(nl - data + 1);
    }
    /* an mcmd block: through the line "endcmd" */
    look = len < PX_PMI1_MCMD_MAX ? len : PX_PMI1_MCMD_MAX;
    static const char end[] = "\nendcmd\n";
    for (const char *p = nl; p != NULL && (size_t)(p - data) + sizeof(end) - 1 <= look;
         p = memchr(p + 1, '\n', look - (size_t)(p + 1 - data))) {
        if (memcmp(p, end, sizeof(end) - 1) == 0) {
            return (ssize_t)(p - data) + (ssize_t)sizeof(end) - 1;
        }
    }
    if (len >= PX_PMI1_MCMD_MAX) {
        errno = EMSGSIZE;
        return -1;
    }
    return 0;
}

/* ---- parsing ---- */

static bool key_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == '-' || ch == '/' || ch == '.';
}

static int fail(px_pmi_msg_t *m, const char **why, const char *reason, int err)
{
    px_pmi_msg_fini(m);
    if (why != NULL) {
        *why = reason;
    }
    errno = err;
    return -1;
}

/* Split buf (NUL-terminated, no NUL inside) into tokens separated by sep. In PMI-1
 * (esc false) a value runs to the next sep; in PMI-2 (esc true) a doubled sep is one
 * literal sep. Keys must be non-empty; PMI-1 keys use key_char() only. */
static int split(px_pmi_msg_t *m, char *p, char sep, bool esc, bool keys_strict, const char **why)
{
    size_t cap = 1;
    for (const char *q = p; *q != '\0'; q++) {
        cap += *q == sep;
    }
    m->pairs = calloc(cap, sizeof(*m->pairs));
    if (m->pairs == NULL) {
        return fail(m, why, "out of memory", ENOMEM);
    }
    while (*p != '\0') {
        if (*p == sep) {
            p++;
            continue;
        }
        char *key = p;
        while (*p != '\0' && *p != '=' && *p != sep) {
            if (keys_strict && !key_char(*p)) {
                return fail(m, why, "a key holds a character keys cannot have", EPROTO);
            }
            p++;
        }
        if (p == key) {
            return fail(m, why, "a token has no key before its '='", EPROTO);
        }
        char *val = NULL;
        if (*p == '=') {
            *p++ = '\0';
            val = p;
            char *w = p;
            while (*p != '\0') {
                if (*p == sep) {
                    if (esc && p[1] == sep) {
                        *w++ = sep;
                        p += 2;
                        continue;
                    }
                    break;
                }
                *w++ = *p++;
            }
            bool more = (*p == sep);
            *w = '\0';
            if (more) {
                p++;
            }
        } else if (*p == sep) {
            *p++ = '\0';
        }
        if (m->cmd == NULL) {
            if (val == NULL || *val == '\0' ||
                (strcmp(key, "cmd") != 0 && strcmp(key, "mcmd") != 0)) {
                return fail(m, why, "the message does not begin with cmd=<command>", EPROTO);
            }
            m->cmd = val;
            continue;
        }
        m->pairs[m->npairs].key = key;
        m->pairs[m->npairs].val = val;
        m->npairs++;
    }
    if (m->cmd == NULL) {
        return fail(m, why, "the message does not begin with cmd=<command>", EPROTO);
    }
    return 0;
}

int px_pmi_parse(px_pmi_wire_t wire, const char *data, size_t len, px_pmi_msg_t *m,
                 const char **why)
{
    memset(m, 0, sizeof(*m));
    size_t off = 0;
    if (wire == PX_PMI_WIRE2) {
        if (len < PX_PMI2_HDR) {
            return fail(m, why, "a message shorter than its length header", EPROTO);
        }
        off = PX_PMI2_HDR;
    } else if (len == 0 || data[len - 1] != '\n') {
        return fail(m, why, "a line without its newline", EPROTO);
    } else {
        len--; /* the '\n' */
    }
    if (memchr(data + off, '\0', len - off) != NULL) {
        return fail(m, why, "a message holding a NUL byte", EPROTO);
    }
    m->buf = malloc(len - off + 1);
    if (m->buf == NULL) {
        return fail(m, why, "out of memory", ENOMEM);
    }
    memcpy(m->buf, data + off, len - off);
    m->buf[len - off] = '\0';
    if (wire == PX_PMI_WIRE2) {
        if (strncmp(m->buf, "cmd=", 4) != 0) {
            return fail(m, why, "the message does not begin with cmd=<command>", EPROTO);
        }
        return split(m, m->buf, ';', true, false, why);
    }
    if (strncmp(m->buf, "mcmd=", 5) == 0) {
        /* key=value lines (values may hold spaces); the last line is "endcmd" */
        size_t blen = len - off;
        if (blen < 7 || memcmp(m->buf + blen - 7, "\nendcmd", 7) != 0) {
            return fail(m, why, "an mcmd block not ended by endcmd", EPROTO);
        }
        m->buf[blen - 7] = '\0';
        return split(m, m->buf, '\n', false, true, why);
    }
    if (strncmp(m->buf, "cmd=", 4) != 0) {
        return fail(m, why, "the message does not begin with cmd=<command>", EPROTO);
    }
    return split(m, m->buf, ' ', false, true, why);
}

void px_pmi_msg_fini(px_pmi_msg_t *m)
{
    if (m == NULL) {
        return;
    }
    free(m->buf);
    free(m->pairs);
    memset(m, 0, sizeof(*m));
}

const char *px_pmi_get(const px_pmi_msg_t *m, const char *key)
{
    for (size_t i = 0; i < m->npairs; i++) {
        if (strcmp(m->pairs[i].key, key) == 0) {
            return m->pairs[i].val != NULL ? m->pairs[i].val : "";
        }
    }
    return NULL;
}

/* ---- formatting ---- */

static void out_put(px_pmi_out_t *o, const char *s, size_t n)
{
    if (o->err != 0) {
        return;
    }
    if (o->len + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap : 128;
        while (cap < o->len + n + 1) {
            cap *= 2;
        }
        char *b = realloc(o->buf, cap);
        if (b == NULL) {
            o->err = ENOMEM;
            return;
        }
        o->buf = b;
        o->cap = cap;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = '\0';
}

/* key=val, the separator first (PMI-1) or after (PMI-2, its ';' doubled). */
static void out_pair(px_pmi_out_t *o, const char *key, const char *val)
{
    if (o->wire == PX_PMI_WIRE1) {
        if (strpbrk(val, " \n") != NULL) {
            o->err = o->err ? o->err : EINVAL;
            return;
        }
        if (o->len > 0) {
            out_put(o, " ", 1);
        }
        out_put(o, key, strlen(key));
        out_put(o, "=", 1);
        out_put(o, val, strlen(val));
        return;
    }
    out_put(o, key, strlen(key));
    out_put(o, "=", 1);
    for (const char *p = val; *p != '\0';) {
        const char *semi = strchr(p, ';');
        size_t n = semi ? (size_t)(semi - p) + 1 : strlen(p);
        out_put(o, p, n);
        if (semi != NULL) {
            out_put(o, ";", 1); /* doubled */
        }
        p += n;
    }
    out_put(o, ";", 1);
}

void px_pmi_out_start(px_pmi_out_t *o, px_pmi_wire_t wire, const char *cmd)
{
    memset(o, 0, sizeof(*o));
    o->wire = wire;
    if (wire == PX_PMI_WIRE2) {
        out_put(o, "      ", PX_PMI2_HDR); /* the length, written at the end */
    }
    out_pair(o, "cmd", cmd);
}

void px_pmi_out_add(px_pmi_out_t *o, const char *key, const char *val)
{
    out_pair(o, key, val);
}

void px_pmi_out_add_int(px_pmi_out_t *o, const char *key, long long v)
{
    char num[32];
    snprintf(num, sizeof(num), "%lld", v);
    px_pmi_out_add(o, key, num);
}

void px_pmi_out_add_text(px_pmi_out_t *o, const char *key, const char *text)
{
    if (o->wire == PX_PMI_WIRE2) {
        px_pmi_out_add(o, key, text);
        return;
    }
    char *t = strdup(text);
    if (t == NULL) {
        o->err = o->err ? o->err : ENOMEM;
        return;
    }
    for (char *p = t; *p != '\0'; p++) {
        if (*p == ' ' || (unsigned char)*p < 0x20) {
            *p = '_';
        }
    }
    px_pmi_out_add(o, key, t);
    free(t);
}

int px_pmi_out_finish(px_pmi_out_t *o, char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    if (o->wire == PX_PMI_WIRE1) {
        out_put(o, "\n", 1);
    } else if (o->err == 0) {
        size_t body = o->len - PX_PMI2_HDR;
        if (body > PX_PMI2_MSG_MAX) {
            o->err = EMSGSIZE;
        } else {
            char hdr[PX_PMI2_HDR + 1];
            snprintf(hdr, sizeof(hdr), "%6zu", body);
            memcpy(o->buf, hdr, PX_PMI2_HDR);
        }
    }
    int err = o->err;
    if (err != 0) {
        px_pmi_out_fini(o);
        errno = err;
        return -1;
    }
    *buf = o->buf;
    *len = o->len;
    memset(o, 0, sizeof(*o));
    return 0;
}

void px_pmi_out_fini(px_pmi_out_t *o)
{
    free(o->buf);
    memset(o, 0, sizeof(*o));
}
