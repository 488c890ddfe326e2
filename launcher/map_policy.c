/* Parsers of the --map-by, --rank-by and --bind-to strings (PRRTE spellings), shared by
 * the mapper and the command lines so both accept the same things. Pure functions. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "launcher/px_map.h"

static const struct {
    const char *name;
    px_map_obj_t obj;
} px_map_objs[] = {
    {"slot", PX_MAP_OBJ_SLOT},      {"node", PX_MAP_OBJ_NODE}, {"package", PX_MAP_OBJ_PACKAGE},
    {"socket", PX_MAP_OBJ_PACKAGE}, {"core", PX_MAP_OBJ_CORE}, {"hwthread", PX_MAP_OBJ_HWTHREAD},
};

static int px_map_obj_lookup(const char *s, size_t len, px_map_obj_t *obj)
{
    for (size_t i = 0; i < sizeof(px_map_objs) / sizeof(px_map_objs[0]); i++) {
        if (strlen(px_map_objs[i].name) == len && strncasecmp(s, px_map_objs[i].name, len) == 0) {
            *obj = px_map_objs[i].obj;
            return 0;
        }
    }
    return -1;
}

const char *px_map_obj_name(px_map_obj_t obj)
{
    switch (obj) {
    case PX_MAP_OBJ_SLOT:
        return "slot";
    case PX_MAP_OBJ_NODE:
        return "node";
    case PX_MAP_OBJ_PACKAGE:
        return "package";
    case PX_MAP_OBJ_CORE:
        return "core";
    case PX_MAP_OBJ_HWTHREAD:
        return "hwthread";
    case PX_MAP_OBJ_PPR:
        return "ppr";
    default:
        return "none";
    }
}

/* A positive int from exactly len characters, or -1. */
static int px_map_posint(const char *s, size_t len)
{
    long v = 0;
    if (len == 0 || len > 9)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v > 0 ? (int)v : -1;
}

static void px_map_setbad(char *bad, size_t badlen, const char *s, size_t len)
{
    if (bad == NULL || badlen == 0)
        return;
    if (len >= badlen)
        len = badlen - 1;
    memcpy(bad, s, len);
    bad[len] = '\0';
}

int px_map_parse_mapby(const char *s, px_map_policy_t *p, char *bad, size_t badlen)
{
    const char *tok = s, *end;
    size_t len;
    int idx = 0;

    memset(p, 0, sizeof(*p));
    p->oversubscribe = -1;
    if (s == NULL || *s == '\0') {
        px_map_setbad(bad, badlen, "", 0);
        goto error;
    }
    for (;; tok = end + 1, idx++) {
        end = strchr(tok, ':');
        if (end == NULL)
            end = tok + strlen(tok);
        len = (size_t)(end - tok);
        if (idx == 0) {
            /* the policy; may be empty ("--map-by :OVERSUBSCRIBE") */
            if (len == 0) {
                p->by = PX_MAP_OBJ_NONE;
            } else if (len == 3 && strncasecmp(tok, "ppr", 3) == 0) {
                const char *n = end + 1, *o, *oend;
                if (*end != ':' || (o = strchr(n, ':')) == NULL) {
                    px_map_setbad(bad, badlen, tok, strlen(tok));
                    goto error;
                }
                p->ppr_n = px_map_posint(n, (size_t)(o - n));
                oend = strchr(o + 1, ':');
                if (oend == NULL)
                    oend = o + 1 + strlen(o + 1);
                if (p->ppr_n < 0 ||
                    px_map_obj_lookup(o + 1, (size_t)(oend - o - 1), &p->ppr_obj) < 0 ||
                    p->ppr_obj == PX_MAP_OBJ_SLOT) {
                    px_map_setbad(bad, badlen, tok, (size_t)(oend - tok));
                    goto error;
                }
                p->by = PX_MAP_OBJ_PPR;
                end = oend;
            } else if (px_map_obj_lookup(tok, len, &p->by) < 0) {
                px_map_setbad(bad, badlen, tok, len);
                goto error;
            }
        } else if (len == 13 && strncasecmp(tok, "OVERSUBSCRIBE", 13) == 0 &&
                   p->oversubscribe != 0) {
            p->oversubscribe = 1;
        } else if (len == 15 && strncasecmp(tok, "NOOVERSUBSCRIBE", 15) == 0 &&
                   p->oversubscribe != 1) {
            p->oversubscribe = 0;
        } else if (len > 3 && strncasecmp(tok, "PE=", 3) == 0 &&
                   (p->pe = px_map_posint(tok + 3, len - 3)) > 0) {
            /* ok */
        } else {
            px_map_setbad(bad, badlen, tok, len);
            goto error;
        }
        if (*end == '\0')
            break;
    }
    return 0;
error:
    errno = EINVAL;
    return -1;
}

int px_map_parse_rankby(const char *s, px_map_obj_t *obj)
{
    if (s != NULL && strcasecmp(s, "fill") == 0) {
        *obj = PX_MAP_OBJ_SLOT;
        return 0;
    }
    if (s != NULL && strcasecmp(s, "span") == 0) {
        *obj = PX_MAP_OBJ_NODE;
        return 0;
    }
    if (s == NULL || px_map_obj_lookup(s, strlen(s), obj) < 0) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

int px_map_parse_bindto(const char *s, px_map_obj_t *obj)
{
    if (s != NULL && strcasecmp(s, "none") == 0) {
        *obj = PX_MAP_OBJ_NONE;
        return 0;
    }
    if (s == NULL || px_map_obj_lookup(s, strlen(s), obj) < 0 || *obj == PX_MAP_OBJ_SLOT ||
        *obj == PX_MAP_OBJ_NODE) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}
