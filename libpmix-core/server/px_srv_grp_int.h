/* server: what server_group.c (building groups: construct, invite, join, the host's
 * group upcall) and server_group_use.c (groups once built: destruct, leave, departures,
 * decisions, the table the rest of the library reads) share. Loop, px_srv->lock held.
 */
#ifndef PX_SRV_GRP_INT_H
#define PX_SRV_GRP_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <event2/event.h>

#include <pmix_server.h>

#include "server/px_server.h"

/* A group's life on this server.
 *
 *   COLLECTING ──▶ IN_HOST ──▶ ACTIVE ──▶ DESTRUCTING ──▶ DESTRUCT_IN_HOST ──▶ ENDED
 *       │  └───────────────────▲  │  ▲         │  └──────────────────────────────▲
 *       └──▶ ENDED (failed,       │  └─────────┘ (destruct failed: still active)  │
 *            aborted, timed out)  └──▶ ENDED (every member left or failed) ───────┘
 *
 * COLLECTING: a construct waits for this server's members, an invitation for the
 * invitees' answers, a bootstrap for its leaders and added members. IN_HOST: the host's
 * `group` upcall runs the collective across servers (a bootstrap stays COLLECTING: each
 * participant goes to the host on its own and the host counts). ENDED groups are off the
 * table and freed when no upcall holds them. */
typedef enum {
    GRP_COLLECTING,
    GRP_IN_HOST,
    GRP_ACTIVE,
    GRP_DESTRUCTING,
    GRP_DESTRUCT_IN_HOST,
    GRP_ENDED,
    GRP_NSTATES
} grp_state_t;

/* How the group is being built. */
typedef enum { KIND_COLLECTIVE, KIND_BOOTSTRAP, KIND_INVITE } grp_kind_t;

/* A member as this server sees it. */
typedef enum {
    MEM_WAITING,  /* named or invited, not heard from (a remote member stays so) */
    MEM_IN,       /* called construct/destruct or accepted: its request is parked */
    MEM_DONE,     /* a member of the active group */
    MEM_DECLINED, /* declined the invitation */
    MEM_FAILED,   /* ended before the group was built, or a member that ended */
    MEM_LEFT,
} mem_state_t;

typedef struct {
    pmix_proc_t proc;
    mem_state_t st;
    bool local;
    bool leader;             /* a bootstrap leader (counted against PMIX_GROUP_BOOTSTRAP) */
    bool up;                 /* handed to the host (a bootstrap's participants go one by one) */
    bool gone;               /* a local member whose connection is gone */
    size_t order;            /* its place when named; added members come after */
    px_srv_client_t *client; /* counted while its request is parked */
    uint32_t seq, tag;       /* the parked request */
    pmix_info_t *ginfo;      /* owned: its PMIX_GROUP_INFO contribution */
    size_t nginfo;
} mem_t;

/* What a request's directives ask. */
typedef struct {
    bool optional, notify, ft, ctx, local_only, leader;
    bool local_only_given;
    int timeout;
    size_t bootstrap;       /* PMIX_GROUP_BOOTSTRAP: number of leaders, 0 = none */
    const pmix_proc_t *add; /* borrowed: PMIX_GROUP_ADD_MEMBERS */
    size_t nadd;
    const pmix_proc_t *order; /* borrowed: PMIX_GROUP_FINAL_MEMBERSHIP_ORDER */
    size_t norder;
    const pmix_info_t *ginfo; /* borrowed: PMIX_GROUP_INFO */
    size_t nginfo;
} dirs_t;

typedef struct px_grp {
    char id[PMIX_MAX_NSLEN + 1];
    grp_state_t state;
    grp_kind_t kind;
    bool kind_known; /* false while only added members (no procs) have called */
    mem_t *m;        /* owned: members in the group's order */
    size_t nm, cap;
    bool has_leader; /* a declared leader (PMIX_GROUP_LEADER, the inviter, a new one) */
    pmix_proc_t leader;
    bool leader_reselected; /* a new leader was declared after the first failed */
    bool optional, notify, ft, ctx_wanted, unordered;
    size_t bootstrap;
    size_t named; /* members named at the start (a smaller final group: partial) */
    bool has_ctx;
    size_t ctxid;
    pmix_info_t *dirs; /* owned: the first request's directives, passed to the host */
    size_t ndirs;
    pmix_proc_t *order; /* owned: PMIX_GROUP_FINAL_MEMBERSHIP_ORDER, or NULL */
    pmix_proc_t *raw;   /* owned: the first collective caller's procs, as given */
    size_t nraw;
    size_t nchecked; /* members whose connection was checked when they were added */
    size_t norder;
    pmix_data_buffer_t ginfo; /* the members' PMIX_GROUP_INFO blob once built */
    struct event *timer;
    int upcalls; /* host upcalls in flight holding this record */
    struct px_grp *next;
} px_grp_t;

/* The table of a group's moves (the diagram above): may a group go from -> to? */
bool px_grp_state_allowed(grp_state_t from, grp_state_t to);
/* Shared by the two files; each is described at its definition. */
const char *px_grp_state_name(grp_state_t st);
pmix_proc_t *px_grp_alive_procs(const px_grp_t *g, size_t *n, const pmix_proc_t *except);
void px_grp_answer_all(px_grp_t *g, pmix_status_t status);
void px_grp_construct_check(px_grp_t *g);
void px_grp_member_gone(px_grp_t *g, mem_t *m, pmix_status_t why);
pmix_status_t px_grp_fail_status(const px_srv_client_t *c);
void px_grp_end(px_grp_t *g, const char *why);
void px_grp_event(px_grp_t *g, pmix_status_t code, const pmix_proc_t *source,
                  const pmix_proc_t *about, const pmix_proc_t *targets, size_t ntargets,
                  bool membership);
void px_grp_event_leader(px_grp_t *g, pmix_status_t code, const pmix_proc_t *source,
                         const pmix_proc_t *about);
bool px_grp_exists(const px_grp_t *g);
px_grp_t *px_grp_find(const char *id);
void px_grp_free(px_grp_t *g);
void px_grp_move(px_grp_t *g, grp_state_t to, const char *why);
void px_grp_timeout(evutil_socket_t fd, short what, void *arg);
bool px_grp_mem_alive(const mem_t *m);
mem_t *px_grp_mem_find(px_grp_t *g, const pmix_proc_t *p);
void px_grp_mem_release(mem_t *m);
void px_grp_park(mem_t *m, px_srv_client_t *c, uint32_t seq, uint32_t tag);
pmix_status_t px_grp_parse_dirs(const pmix_info_t *info, size_t n, dirs_t *d);
bool px_grp_same_proc(const pmix_proc_t *a, const pmix_proc_t *b);
void px_grp_timer_start(px_grp_t *g, int secs);
void px_grp_timer_stop(px_grp_t *g);
pmix_status_t px_grp_to_host(px_grp_t *g, pmix_group_operation_t op, const mem_t *const *carried,
                             size_t ncarried);
pmix_status_t px_grp_unpack_req(pmix_data_buffer_t *payload, bool with_procs, char **grp,
                                pmix_proc_t **procs, size_t *nprocs, pmix_info_t **info,
                                size_t *ninfo);

#endif /* PX_SRV_GRP_INT_H */
