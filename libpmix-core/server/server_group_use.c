/* server: process groups once built (Chap_API_Sets_Groups) — destruct and leave, timeouts,
 * members whose connection ends, the decisions of the application's handlers (abort, a
 * new leader), and what the rest of the library sees of groups: PMIX_GROUP_NAMES, the
 * group queries, fences over a group's id. Loop, px_srv->lock held.
 */
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_proto.h"
#include "common/px_query.h"
#include "server/px_server.h"
#include "server/px_srv_grp_int.h"
#include "types/px_types.h"

/* ---- destruct / leave ---- */

static void destruct_check(px_grp_t *g)
{
    if (g->state != GRP_DESTRUCTING) {
        return;
    }
    bool remote = false;
    const mem_t **carried = calloc(g->nm ? g->nm : 1, sizeof(*carried));
    size_t nc = 0;
    for (size_t i = 0; i < g->nm; i++) {
        const mem_t *m = &g->m[i];
        if (m->local && m->st == MEM_DONE) {
            free(carried);
            return; /* a member here has not called yet */
        }
        remote |= !m->local && px_grp_mem_alive(m);
        if (m->st == MEM_IN && carried != NULL) {
            carried[nc++] = m;
        }
    }
    px_grp_timer_stop(g);
    if (!remote) {
        free(carried);
        px_grp_answer_all(g, PMIX_SUCCESS);
        px_grp_end(g, "destructed");
        return;
    }
    pmix_status_t rc = PMIX_ERR_NOT_SUPPORTED;
    if (px_srv->module.group != NULL && carried != NULL) {
        px_grp_move(g, GRP_DESTRUCT_IN_HOST, "every local member is in");
        rc = px_grp_to_host(g, PMIX_GROUP_DESTRUCT, carried, nc);
    }
    free(carried);
    if (rc != PMIX_SUCCESS) {
        px_grp_answer_all(g, rc);
        px_grp_end(g, "cannot reach the host");
    }
}

/* Back to ACTIVE after a failed destruct: the members that called are members again. */
static void destruct_fail(px_grp_t *g, pmix_status_t status)
{
    px_grp_answer_all(g, status);
    for (size_t i = 0; i < g->nm; i++) {
        if (g->m[i].st == MEM_IN) {
            g->m[i].st = MEM_DONE;
        }
    }
    px_grp_timer_stop(g);
    px_grp_move(g, GRP_ACTIVE, PMIx_Error_string(status));
}

/* The prologue of a destruct or leave: unpack and read the request, find the group and
 * the caller among its members. PMIX_ERR_NOT_FOUND (no such group here),
 * PMIX_ERR_NOT_A_MEMBER; *id and *info are the caller's to free either way. */
static pmix_status_t member_request(px_srv_client_t *c, pmix_data_buffer_t *payload, char **id,
                                    pmix_info_t **info, size_t *ninfo, dirs_t *d, px_grp_t **g,
                                    mem_t **me)
{
    *g = NULL;
    *me = NULL;
    pmix_status_t rc = px_grp_unpack_req(payload, false, id, NULL, NULL, info, ninfo);
    if (rc == PMIX_SUCCESS) {
        rc = px_grp_parse_dirs(*info, *ninfo, d);
    }
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if ((*g = px_grp_find(*id)) == NULL) {
        return PMIX_ERR_NOT_FOUND;
    }
    *me = px_grp_mem_find(*g, &c->proc);
    return *me != NULL && px_grp_mem_alive(*me) ? PMIX_SUCCESS : PMIX_ERR_NOT_A_MEMBER;
}

void px_srv_grp_destruct(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    char *id = NULL;
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    dirs_t d;
    px_grp_t *g;
    mem_t *me;
    pmix_status_t rc = member_request(c, payload, &id, &info, &ninfo, &d, &g, &me);
    if (rc == PMIX_SUCCESS && g->state != GRP_ACTIVE && g->state != GRP_DESTRUCTING) {
        rc = PMIX_ERR_BAD_PARAM; /* not built yet, or already going */
    } else if (rc == PMIX_SUCCESS && me->st == MEM_IN) {
        rc = PMIX_EXISTS;
    }
    if (rc != PMIX_SUCCESS) {
        px_srv_reply(c, seq, PX_TAG_GRP_DESTRUCT, rc, NULL);
        goto out;
    }
    if (g->state == GRP_ACTIVE) {
        px_grp_move(g, GRP_DESTRUCTING, "first destruct call");
    }
    px_grp_park(me, c, seq, PX_TAG_GRP_DESTRUCT);
    px_grp_timer_start(g, d.timeout);
    /* members gone without leaving: events and tracking with NOTIFY_TERMINATION, else
     * the destruct cannot complete */
    for (size_t i = 0; i < g->nm && g->state == GRP_DESTRUCTING; i++) {
        mem_t *m = &g->m[i];
        if (m->local && m->st == MEM_DONE && m->gone) {
            if (!g->notify) {
                destruct_fail(g, PMIX_ERR_PROC_TERM_WO_SYNC);
                goto out;
            }
            m->st = MEM_FAILED;
        }
    }
    destruct_check(g);
out:
    free(id);
    px_bfrops_info_array_free(info, ninfo);
}

void px_srv_grp_leave(px_srv_client_t *c, uint32_t seq, pmix_data_buffer_t *payload)
{
    char *id = NULL;
    pmix_info_t *info = NULL;
    size_t ninfo = 0;
    dirs_t d;
    px_grp_t *g;
    mem_t *me;
    pmix_status_t rc = member_request(c, payload, &id, &info, &ninfo, &d, &g, &me);
    if (rc == PMIX_SUCCESS && g->state != GRP_ACTIVE) {
        /* Chap_API_Sets_Groups: no leaving a group under construction (nor one being
         * destructed: the destruct is the way out) */
        rc = PMIX_ERR_INVALID_OPERATION;
    }
    if (rc == PMIX_SUCCESS) {
        me->st = MEM_LEFT;
        px_grp_event(g, PMIX_GROUP_LEFT, &c->proc, &c->proc, NULL, 0, false);
        px_grp_event(g, PMIX_GROUP_MEMBERSHIP_UPDATE, NULL, &c->proc, NULL, 0, true);
        size_t n = 0;
        free(px_grp_alive_procs(g, &n, NULL));
        if (n == 0) {
            px_grp_end(g, "every member left");
        }
    }
    /* the event is generated locally: that is all the call waits for */
    px_srv_reply(c, seq, PX_TAG_GRP_LEAVE, rc, NULL);
    free(id);
    px_bfrops_info_array_free(info, ninfo);
}

/* ---- timeouts, departures, decisions ---- */

void px_grp_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    pthread_mutex_lock(&px_srv->lock);
    px_grp_t *g = arg;
    px_grp_timer_stop(g);
    px_debug(1, "server", "group %s: timed out in %s", g->id, px_grp_state_name(g->state));
    if (g->state == GRP_DESTRUCTING) {
        destruct_fail(g, PMIX_ERR_TIMEOUT);
    } else if (g->state == GRP_COLLECTING && g->kind == KIND_INVITE) {
        /* the invitees that did not answer are out (the leader hears of each) */
        for (size_t i = 0; i < g->nm; i++) {
            if (g->m[i].st == MEM_WAITING) {
                g->m[i].st = MEM_FAILED;
                px_grp_event_leader(g, PMIX_GROUP_INVITE_FAILED, NULL, &g->m[i].proc);
            }
        }
        px_grp_construct_check(g);
    } else if (g->state == GRP_COLLECTING && g->optional && g->kind == KIND_COLLECTIVE) {
        /* participation is optional: whoever is in forms the group */
        for (size_t i = 0; i < g->nm; i++) {
            if (g->m[i].st == MEM_WAITING && g->m[i].local) {
                g->m[i].st = MEM_FAILED;
            }
        }
        px_grp_construct_check(g);
    } else if (g->state == GRP_COLLECTING) {
        px_grp_answer_all(g, PMIX_ERR_TIMEOUT);
        px_grp_end(g, "timed out");
    }
    pthread_mutex_unlock(&px_srv->lock);
}

void px_srv_group_client_gone(px_srv_client_t *c)
{
    for (px_grp_t *g = px_srv->groups; g != NULL;) {
        px_grp_t *next = g->next;
        mem_t *m = px_grp_mem_find(g, &c->proc);
        if (m == NULL || !px_grp_mem_alive(m)) {
            g = next;
            continue;
        }
        if (m->client == c) {
            px_grp_mem_release(m);
        }
        bool was_gone = m->gone; /* a lost connection, then the deregistration */
        m->gone = true;
        switch (g->state) {
        case GRP_COLLECTING:
            px_grp_member_gone(g, m, px_grp_fail_status(c));
            break;
        case GRP_ACTIVE:
            /* a member ended without leaving: the others hear of it when they asked */
            if (g->notify) {
                m->st = MEM_FAILED;
                bool lead = g->has_leader && px_grp_same_proc(&g->leader, &c->proc);
                if (lead) {
                    g->has_leader = false;
                }
                px_grp_event(g, lead ? PMIX_GROUP_LEADER_FAILED : PMIX_GROUP_MEMBER_FAILED, NULL,
                             &c->proc, NULL, 0, false);
                px_grp_event(g, PMIX_GROUP_MEMBERSHIP_UPDATE, NULL, &c->proc, NULL, 0, true);
            }
            bool here = false; /* a group no member of which runs here any more is dropped */
            for (size_t i = 0; i < g->nm; i++) {
                here |= g->m[i].local && !g->m[i].gone && px_grp_mem_alive(&g->m[i]);
            }
            if (!here) {
                px_grp_end(g, "no member left on this server");
            }
            break;
        case GRP_DESTRUCTING:
            if (!g->notify) {
                destruct_fail(g, px_grp_fail_status(c));
                break;
            }
            m->st = MEM_FAILED;
            px_grp_event(g, PMIX_GROUP_MEMBER_FAILED, NULL, &c->proc, NULL, 0, false);
            destruct_check(g);
            break;
        case GRP_IN_HOST:
            /* the host's collective drops it or fails; the events are this server's to
             * raise (it hosted the member), as while collecting */
            if (g->notify && !was_gone) {
                bool lead = g->has_leader && px_grp_same_proc(&g->leader, &c->proc);
                if (lead) {
                    g->has_leader = false;
                    px_grp_event(g, PMIX_GROUP_LEADER_FAILED, NULL, &c->proc, NULL, 0, false);
                } else {
                    px_grp_event_leader(g, PMIX_GROUP_MEMBER_FAILED, NULL, &c->proc);
                }
            }
            break;
        default: /* with the host: its collective deals with it */
            break;
        }
        g = next;
    }
}

static const char *info_string(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&info[i], key) && info[i].value.type == PMIX_STRING) {
            return info[i].value.data.string;
        }
    }
    return NULL;
}

bool px_srv_group_notified(px_srv_client_t *c, pmix_status_t status, const pmix_info_t info[],
                           size_t ninfo)
{
    if (status != PMIX_GROUP_CONSTRUCT_ABORT && status != PMIX_GROUP_LEADER_SELECTED) {
        return false;
    }
    const char *id = info_string(info, ninfo, PMIX_GROUP_ID);
    px_grp_t *g = id != NULL ? px_grp_find(id) : NULL;
    mem_t *m = g != NULL ? px_grp_mem_find(g, &c->proc) : NULL;
    /* (a group with the host is still being built: the other servers hear of the
     * decision through the host, which ends its collective on an abort) */
    bool building = g != NULL && (g->state == GRP_COLLECTING || g->state == GRP_IN_HOST);
    bool active = g != NULL && g->state == GRP_ACTIVE && status == PMIX_GROUP_LEADER_SELECTED;
    if ((!building && !active) || m == NULL || !px_grp_mem_alive(m)) {
        px_debug(2, "server", "%s from %s:%u for no group being built here: ignored",
                 PMIx_Error_string(status), c->proc.nspace, c->proc.rank);
        return true;
    }
    if (status == PMIX_GROUP_LEADER_SELECTED) {
        if (g->has_leader || g->leader_reselected) {
            return true; /* a leader is in place: only one may declare itself the new one */
        }
        g->has_leader = true;
        g->leader_reselected = true;
        g->leader = c->proc;
        size_t n = 0;
        pmix_proc_t *all = px_grp_alive_procs(g, &n, NULL); /* the new leader hears of it too */
        if (all != NULL) {
            px_grp_event(g, PMIX_GROUP_LEADER_SELECTED, &c->proc, &c->proc, all, n, false);
        }
        free(all);
        return true;
    }
    px_debug(1, "server", "group %s: construction aborted by %s:%u", g->id, c->proc.nspace,
             c->proc.rank);
    px_grp_event(g, PMIX_GROUP_CONSTRUCT_ABORT, &c->proc, &c->proc, NULL, 0, false);
    px_grp_answer_all(g, PMIX_GROUP_CONSTRUCT_ABORT);
    px_grp_end(g, "aborted");
    return true;
}

/* ---- what other servers tell (through the host) ---- */

/* An event the host passed down (another server's): a group this server also tracks learns
 * of a member elsewhere that left or ended, or of a new leader, so its next collective
 * (destruct, fence over the group, queries) counts without it; a construct another
 * server's member aborted ends here too. The event itself is then
 * delivered as any other; nothing is raised again here. Loop, lock held. */
static void remote_event(pmix_status_t code, const pmix_info_t info[], size_t ninfo)
{
    const char *id = info_string(info, ninfo, PMIX_GROUP_ID);
    px_grp_t *g = id != NULL ? px_grp_find(id) : NULL;
    const pmix_proc_t *about = NULL;
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) && info[i].value.type == PMIX_PROC) {
            about = info[i].value.data.proc;
        }
    }
    mem_t *m = g != NULL && about != NULL ? px_grp_mem_find(g, about) : NULL;
    if (m == NULL || m->local || !px_grp_mem_alive(m)) {
        return; /* our own members' news we made ourselves */
    }
    if (code == PMIX_GROUP_CONSTRUCT_ABORT) {
        if (g->state == GRP_COLLECTING || g->state == GRP_IN_HOST) {
            px_grp_answer_all(g, PMIX_GROUP_CONSTRUCT_ABORT);
            px_grp_end(g, "aborted on another server");
        }
        return;
    }
    if (code == PMIX_GROUP_LEADER_SELECTED) {
        if (!g->has_leader && g->state != GRP_ENDED) {
            g->has_leader = g->leader_reselected = true;
            g->leader = *about;
        }
        return;
    }
    px_debug(2, "server", "group %s: %s:%u %s on another server", g->id, about->nspace, about->rank,
             code == PMIX_GROUP_LEFT ? "left" : "ended");
    m->st = code == PMIX_GROUP_LEFT ? MEM_LEFT : MEM_FAILED;
    if (g->has_leader && px_grp_same_proc(&g->leader, about)) {
        g->has_leader = false;
    }
    if (g->state == GRP_COLLECTING) {
        px_grp_construct_check(g);
    } else if (g->state == GRP_DESTRUCTING) {
        destruct_check(g);
    }
}

void px_srv_group_host_event(pmix_status_t code, const pmix_info_t info[], size_t ninfo)
{
    if (code != PMIX_GROUP_LEFT && code != PMIX_GROUP_MEMBER_FAILED &&
        code != PMIX_GROUP_LEADER_FAILED && code != PMIX_GROUP_LEADER_SELECTED &&
        code != PMIX_GROUP_CONSTRUCT_ABORT) {
        return;
    }
    pthread_mutex_lock(&px_srv->lock);
    remote_event(code, info, ninfo);
    pthread_mutex_unlock(&px_srv->lock);
}

/* ---- what the rest of the library sees ---- */

pmix_status_t px_srv_group_expand(pmix_proc_t **procs, size_t *nprocs)
{
    size_t extra = 0;
    bool any = false;
    for (size_t i = 0; i < *nprocs; i++) {
        px_grp_t *g = px_grp_find((*procs)[i].nspace);
        if (g != NULL && px_grp_exists(g)) {
            any = true;
            extra += g->nm;
        }
    }
    if (!any) {
        return PMIX_SUCCESS;
    }
    pmix_proc_t *out = calloc(*nprocs + extra + 1, sizeof(*out));
    if (out == NULL) {
        return PMIX_ERR_NOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < *nprocs; i++) {
        pmix_proc_t *p = &(*procs)[i];
        px_grp_t *g = px_grp_find(p->nspace);
        if (g == NULL || !px_grp_exists(g)) {
            out[k++] = *p;
            continue;
        }
        size_t n = 0;
        pmix_proc_t *mem = px_grp_alive_procs(g, &n, NULL);
        if (mem == NULL) {
            free(out);
            return PMIX_ERR_NOMEM;
        }
        if (p->rank == PMIX_RANK_WILDCARD) {
            memcpy(&out[k], mem, n * sizeof(*mem));
            k += n;
        } else if (p->rank < n) {
            out[k++] = mem[p->rank]; /* the member of that group rank */
        } else {
            free(mem);
            free(out);
            return PMIX_ERR_BAD_PARAM;
        }
        free(mem);
    }
    free(*procs);
    *procs = out;
    *nprocs = k;
    return PMIX_SUCCESS;
}

static pmix_data_array_t *string_array(size_t n)
{
    pmix_data_array_t *da =
        n > 0 ? PMIx_Data_array_create(n, PMIX_STRING) : calloc(1, sizeof(pmix_data_array_t));
    if (da != NULL) {
        da->type = PMIX_STRING;
    }
    return da;
}

pmix_status_t px_srv_group_names(const pmix_proc_t *proc, pmix_value_t *val)
{
    size_t n = 0;
    for (px_grp_t *g = px_srv->groups; g != NULL; g = g->next) {
        mem_t *m = px_grp_exists(g) ? px_grp_mem_find(g, proc) : NULL;
        n += m != NULL && px_grp_mem_alive(m);
    }
    pmix_data_array_t *da = string_array(n);
    if (da == NULL) {
        return PMIX_ERR_NOMEM;
    }
    char **names = da->array;
    size_t k = n; /* the table is newest first: oldest group first */
    for (px_grp_t *g = px_srv->groups; g != NULL; g = g->next) {
        mem_t *m = px_grp_exists(g) ? px_grp_mem_find(g, proc) : NULL;
        if (m != NULL && px_grp_mem_alive(m)) {
            names[--k] = strdup(g->id);
        }
    }
    val->type = PMIX_DATA_ARRAY;
    val->data.darray = da;
    return PMIX_SUCCESS;
}

pmix_status_t px_srv_group_query(const pmix_query_t *q, const char *key, px_qans_t *a)
{
    size_t n = 0;
    for (px_grp_t *g = px_srv->groups; g != NULL; g = g->next) {
        n += px_grp_exists(g);
    }
    if (strcmp(key, PMIX_QUERY_NUM_GROUPS) == 0) {
        pmix_value_t v = {.type = PMIX_SIZE, .data.size = n};
        return px_qans_add(a, key, &v);
    }
    if (strcmp(key, PMIX_QUERY_GROUP_NAMES) == 0) {
        pmix_data_array_t *da = string_array(n);
        if (da == NULL) {
            return PMIX_ERR_NOMEM;
        }
        char **names = da->array;
        size_t k = n;
        for (px_grp_t *g = px_srv->groups; g != NULL; g = g->next) {
            if (px_grp_exists(g)) {
                names[--k] = strdup(g->id);
            }
        }
        pmix_value_t v = {.type = PMIX_DATA_ARRAY, .data.darray = da};
        return px_qans_take(a, key, &v);
    }
    if (strcmp(key, PMIX_QUERY_GROUP_MEMBERSHIP) == 0) {
        const char *id = info_string(q->qualifiers, q->nqual, PMIX_GROUP_ID);
        px_grp_t *g = id != NULL ? px_grp_find(id) : NULL;
        if (g == NULL || !px_grp_exists(g)) {
            return PMIX_ERR_NOT_FOUND;
        }
        size_t nm = 0;
        pmix_proc_t *p = px_grp_alive_procs(g, &nm, NULL);
        pmix_data_array_t *da = p != NULL ? (nm > 0 ? PMIx_Data_array_create(nm, PMIX_PROC)
                                                    : calloc(1, sizeof(pmix_data_array_t)))
                                          : NULL;
        if (da == NULL) {
            free(p);
            return PMIX_ERR_NOMEM;
        }
        da->type = PMIX_PROC;
        if (nm > 0) {
            memcpy(da->array, p, nm * sizeof(*p));
        }
        free(p);
        pmix_value_t v = {.type = PMIX_DATA_ARRAY, .data.darray = da};
        return px_qans_take(a, key, &v);
    }
    return PMIX_ERR_NOT_FOUND;
}

void px_srv_group_fini(void)
{
    while (px_srv->groups != NULL) {
        px_grp_t *g = px_srv->groups;
        px_srv->groups = g->next;
        g->upcalls = 0; /* the host will not be heard from again */
        px_grp_free(g);
    }
}
