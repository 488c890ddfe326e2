/* server: PMI spawn (docs/PMI.md, "Spawn") — PMI-1's mcmd=spawn blocks (one per
 * executable, totspawns of them) and PMI-2's spawn command read into pmix_app_t's and the
 * preput keys, which server_pmi_cmd.c hands to the server's own SPAWN handler as the
 * process's request: the same path, the same host upcall, as PMIx_Spawn. The preput
 * keys travel in the job info as PX_PMI_PREPUT; the launcher registers them as job-level
 * data of the new job, where a child's PMI get finds them. Loop only, px_srv->lock held.
 *
 * Every count is checked against the message before it is used (a count larger than the
 * message's tokens is malformed), so a request never makes us allocate more than the
 * message's own size in apps and strings.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "server/pmi_int.h"
#include "server/px_server.h"
#include "server/px_srv_pmi.h"

#define PX_PMI_SPAWN_MAX_CMDS  64
#define PX_PMI_SPAWN_MAX_PROCS (1 << 20)

void px_pmi_spawn_free(pmi_spawn_t *sp)
{
    if (sp == NULL) {
        return;
    }
    if (sp->apps != NULL) {
        PMIx_App_free(sp->apps, sp->total);
    }
    if (sp->preput != NULL) {
        PMIx_Info_free(sp->preput, sp->npreput);
    }
    free(sp);
}

/* The value of key within pairs [from, to) of m, or NULL. */
static const char *seg_get(const px_pmi_msg_t *m, size_t from, size_t to, const char *key)
{
    for (size_t i = from; i < to && i < m->npairs; i++) {
        if (strcmp(m->pairs[i].key, key) == 0) {
            return m->pairs[i].val ? m->pairs[i].val : "";
        }
    }
    return NULL;
}

/* key (suffixed by n when n >= 0) in [from, to) as a number in [lo, hi]. */
static bool seg_num(const px_pmi_msg_t *m, size_t from, size_t to, const char *key, long n, long lo,
                    long hi, long *out)
{
    char name[64];
    if (n >= 0) {
        snprintf(name, sizeof(name), "%s%ld", key, n);
    } else {
        snprintf(name, sizeof(name), "%s", key);
    }
    const char *v = seg_get(m, from, to, name);
    char *end = NULL;
    errno = 0;
    long x = v != NULL ? strtol(v, &end, 10) : 0;
    if (v == NULL || errno != 0 || end == v || *end != '\0' || x < lo || x > hi) {
        return false;
    }
    *out = x;
    return true;
}

/* A string argument key<n> in [from, to). */
static const char *seg_str(const px_pmi_msg_t *m, size_t from, size_t to, const char *key, long n)
{
    char name[64];
    snprintf(name, sizeof(name), "%s%ld", key, n);
    return seg_get(m, from, to, name);
}

typedef struct {
    const char *topic; /* help-pmi.txt */
    const char *arg;
} spawn_err_t;

static bool bad(spawn_err_t *e, const char *topic, const char *arg)
{
    e->topic = topic;
    e->arg = arg;
    return false;
}

/* The preput pairs (PMI-1 preput_key_<i>/preput_val_<i>, PMI-2 ppkey<i>/ppval<i>). */
static bool take_preput(pmi_spawn_t *sp, const px_pmi_msg_t *m, size_t from, size_t to,
                        const char *count, const char *kname, const char *vname, spawn_err_t *e)
{
    long n = 0;
    if (seg_get(m, from, to, count) != NULL &&
        !seg_num(m, from, to, count, -1, 0, (long)m->npairs, &n)) {
        return bad(e, "spawn-bad", count);
    }
    if (n == 0) {
        return true;
    }
    sp->preput = PMIx_Info_create((size_t)n);
    if (sp->preput == NULL) {
        return bad(e, "spawn-bad", "out of memory");
    }
    sp->npreput = (size_t)n;
    for (long i = 0; i < n; i++) {
        const char *k = seg_str(m, from, to, kname, i), *v = seg_str(m, from, to, vname, i);
        if (k == NULL || v == NULL) {
            return bad(e, "spawn-bad", kname);
        }
        if (*k == '\0' || strlen(k) > PX_PMI_KEYLEN_MAX) {
            return bad(e, "spawn-bad", "a preput key is empty or too long");
        }
        if (strncmp(k, "pmix.", 5) == 0) {
            return bad(e, "reserved-key", k);
        }
        if (strlen(v) > PX_PMI_VALLEN_MAX) {
            return bad(e, "spawn-bad", "a preput value is too long");
        }
        PMIx_Info_load(&sp->preput[i], k, v, PMIX_STRING);
    }
    return true;
}

/* One executable from pairs [from, to): its name, process count, arguments (PMI-1: argcnt
 * and arg1..argN; PMI-2: argc and argv0..argv(N-1)) and info keys (only "wdir" is
 * honoured: any other is refused, never ignored). */
static bool take_app(pmix_app_t *app, const px_pmi_msg_t *m, size_t from, size_t to, int wire,
                     spawn_err_t *e)
{
    const char *exe = seg_get(m, from, to, wire == PX_PMI_WIRE1 ? "execname" : "subcmd");
    long nprocs = 0, argc = 0, ninfo = 0;
    if (exe == NULL || *exe == '\0') {
        return bad(e, "spawn-bad", wire == PX_PMI_WIRE1 ? "execname" : "subcmd");
    }
    const char *np = wire == PX_PMI_WIRE1 ? "nprocs" : "maxprocs";
    if (!seg_num(m, from, to, np, -1, 1, PX_PMI_SPAWN_MAX_PROCS, &nprocs)) {
        return bad(e, "spawn-bad", np);
    }
    const char *ac = wire == PX_PMI_WIRE1 ? "argcnt" : "argc";
    if (seg_get(m, from, to, ac) != NULL &&
        !seg_num(m, from, to, ac, -1, 0, (long)m->npairs, &argc)) {
        return bad(e, "spawn-bad", ac);
    }
    const char *ic = wire == PX_PMI_WIRE1 ? "info_num" : "infokeycount";
    if (seg_get(m, from, to, ic) != NULL &&
        !seg_num(m, from, to, ic, -1, 0, (long)m->npairs, &ninfo)) {
        return bad(e, "spawn-bad", ic);
    }
    app->cmd = strdup(exe);
    app->maxprocs = (int)nprocs;
    if (app->cmd == NULL || PMIx_Argv_append_nosize(&app->argv, exe) != PMIX_SUCCESS) {
        return bad(e, "spawn-bad", "out of memory");
    }
    for (long i = 0; i < argc; i++) {
        const char *a = wire == PX_PMI_WIRE1 ? seg_str(m, from, to, "arg", i + 1)
                                             : seg_str(m, from, to, "argv", i);
        if (a == NULL) {
            return bad(e, "spawn-bad", "an argument its count announces is missing");
        }
        if (PMIx_Argv_append_nosize(&app->argv, a) != PMIX_SUCCESS) {
            return bad(e, "spawn-bad", "out of memory");
        }
    }
    for (long i = 0; i < ninfo; i++) {
        const char *k = wire == PX_PMI_WIRE1 ? seg_str(m, from, to, "info_key_", i)
                                             : seg_str(m, from, to, "infokey", i);
        const char *v = wire == PX_PMI_WIRE1 ? seg_str(m, from, to, "info_val_", i)
                                             : seg_str(m, from, to, "infoval", i);
        if (k == NULL || v == NULL) {
            return bad(e, "spawn-bad", "an info key its count announces is missing");
        }
        if (strcmp(k, "wdir") != 0) {
            return bad(e, "spawn-info", k);
        }
        free(app->cwd);
        app->cwd = strdup(v);
    }
    return true;
}

/* PMI-1: one mcmd=spawn block, the spawnssofar-th of totspawns. */
static bool take_pmi1(px_pmi_conn_t *k, const px_pmi_msg_t *m, spawn_err_t *e)
{
    long tot = 0, sofar = 0;
    size_t n = m->npairs;
    if (!seg_num(m, 0, n, "totspawns", -1, 1, PX_PMI_SPAWN_MAX_CMDS, &tot)) {
        return bad(e, "spawn-bad", "totspawns");
    }
    if (!seg_num(m, 0, n, "spawnssofar", -1, 1, tot, &sofar)) {
        return bad(e, "spawn-bad", "spawnssofar");
    }
    if (sofar == 1) { /* a new request (what an unfinished one left is dropped) */
        px_pmi_spawn_free(k->spawn);
        k->spawn = calloc(1, sizeof(*k->spawn));
        if (k->spawn == NULL || (k->spawn->apps = PMIx_App_create((size_t)tot)) == NULL) {
            return bad(e, "spawn-bad", "out of memory");
        }
        k->spawn->total = (size_t)tot;
        if (!take_preput(k->spawn, m, 0, n, "preput_num", "preput_key_", "preput_val_", e)) {
            return false;
        }
    }
    pmi_spawn_t *sp = k->spawn;
    if (sp == NULL || (size_t)tot != sp->total || (size_t)sofar != sp->napps + 1) {
        return bad(e, "spawn-bad", "spawnssofar does not follow the blocks sent before");
    }
    if (!take_app(&sp->apps[sp->napps], m, 0, n, PX_PMI_WIRE1, e)) {
        return false;
    }
    sp->nprocs += (uint32_t)sp->apps[sp->napps].maxprocs;
    sp->napps++;
    return true;
}

/* PMI-2: the whole request in one message; each executable's keys start at a subcmd. */
static bool take_pmi2(px_pmi_conn_t *k, const px_pmi_msg_t *m, spawn_err_t *e)
{
    long ncmds = 0;
    size_t n = m->npairs, first = n;
    if (!seg_num(m, 0, n, "ncmds", -1, 1, PX_PMI_SPAWN_MAX_CMDS, &ncmds)) {
        return bad(e, "spawn-bad", "ncmds");
    }
    for (size_t i = 0; i < n && first == n; i++) {
        first = strcmp(m->pairs[i].key, "subcmd") == 0 ? i : n;
    }
    px_pmi_spawn_free(k->spawn);
    k->spawn = calloc(1, sizeof(*k->spawn));
    if (k->spawn == NULL || (k->spawn->apps = PMIx_App_create((size_t)ncmds)) == NULL) {
        return bad(e, "spawn-bad", "out of memory");
    }
    pmi_spawn_t *sp = k->spawn;
    sp->total = (size_t)ncmds;
    if (!take_preput(sp, m, 0, first, "preputcount", "ppkey", "ppval", e)) {
        return false;
    }
    size_t at = first;
    while (at < n) {
        size_t end = at + 1;
        while (end < n && strcmp(m->pairs[end].key, "subcmd") != 0) {
            end++;
        }
        if (sp->napps == sp->total) {
            return bad(e, "spawn-bad", "more subcmd than ncmds");
        }
        if (!take_app(&sp->apps[sp->napps], m, at, end, PX_PMI_WIRE2, e)) {
            return false;
        }
        sp->nprocs += (uint32_t)sp->apps[sp->napps].maxprocs;
        sp->napps++;
        at = end;
    }
    if (sp->napps != sp->total) {
        return bad(e, "spawn-bad", "fewer subcmd than ncmds");
    }
    return true;
}

bool px_pmi_spawn_take(px_pmi_conn_t *k, const px_pmi_msg_t *m, const char *reply, bool *ready)
{
    spawn_err_t e = {NULL, NULL};
    bool ok = k->wire == PX_PMI_WIRE1 ? take_pmi1(k, m, &e) : take_pmi2(k, m, &e);
    if (!ok) {
        px_pmi_spawn_free(k->spawn);
        k->spawn = NULL;
        px_pmi_reply_error(k, reply, e.topic, e.arg); /* each topic takes one string */
        return false;
    }
    *ready = k->spawn->napps == k->spawn->total;
    return true;
}

pmix_status_t px_pmi_spawn_payload(const pmi_spawn_t *sp, pmix_data_buffer_t *b)
{
    pmix_info_t jinfo;
    size_t nj = 0;
    PMIx_Info_construct(&jinfo);
    if (sp->npreput > 0) {
        pmix_data_array_t da = {.type = PMIX_INFO, .size = sp->npreput, .array = sp->preput};
        PMIx_Info_load(&jinfo, PX_PMI_PREPUT, &da, PMIX_DATA_ARRAY);
        nj = 1;
    }
    pmix_status_t rc = px_bfrops_pack_info_array(b, nj ? &jinfo : NULL, nj);
    PMIx_Info_destruct(&jinfo);
    size_t napps = sp->napps;
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(b, &napps, 1, PMIX_SIZE);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_bfrops_pack(b, sp->apps, (int32_t)napps, PMIX_APP);
    }
    return rc;
}
