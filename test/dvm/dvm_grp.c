/* dvm_grp - the group/connect client the DVM tests launch (test/dvm/t_groups.sh,
 * t_connect.sh): runs its arguments as operations in order, public PMIx API only, and
 * prints one line per operation, "rank R OP: STATUS[ details]", and one per event
 * received, "rank R event NAME grp=G proc=P". Processes are printed as A:r (this job),
 * B:r (the job found with peer) or S (the DVM).
 *   fence                 PMIx_Fence over this job
 *   put:K=V               PMIx_Put(PMIX_GLOBAL, K, V) (no commit: a construct commits)
 *   peer:MINE:THEIRS      rank 0 publishes MINE = this namespace; every rank looks up
 *                         THEIRS (waiting up to 30 s): the other job of the test
 *   ev[:MODE,...]         register for every group event (and PROC/JOB_TERM_WO_SYNC).
 *                         MODE: abort (answer MEMBER_FAILED / INVITE_DECLINED with
 *                         PMIX_GROUP_CONSTRUCT_ABORT), lead (answer LEADER_FAILED with
 *                         PMIX_GROUP_LEADER: this process leads), accept / decline (answer
 *                         an invitation with PMIx_Group_join_nb from the handler)
 *   c:ID[:OPT,...]        PMIx_Group_construct of this job's ranks; prints ctx= and
 *                         members=. OPT: ctx opt notify ft lead (rank 0 leads) to=N gi
 *                         (PMIX_GROUP_INFO: PMIX_GROUP_LOCAL_CID 1000+rank) rev (odd ranks
 *                         name the members in reverse) both (and every rank of the peer
 *                         job) wild (the job as a wildcard) order (FINAL_MEMBERSHIP_ORDER:
 *                         reversed) local (PMIX_GROUP_LOCAL_ONLY) notme (leave myself
 *                         out) nb (the _nb form) reqd (a required unknown directive)
 *   boot:ID:N[:OPT,...]   bootstrap: rank 0 leads (PMIX_GROUP_BOOTSTRAP N) and adds the rest
 *                         of its job; the others construct with no procs
 *   inv:ID:R+R..[:OPT]    rank 0 invites those ranks of its job (OPT: to=N ctx); others
 *                         skip
 *   join                  wait (60 s) for the join the handler made (ev:accept/decline)
 *   jn:ID                 PMIx_Group_join(ID, rank 0, accept) from the main thread
 *   d:ID[:to=N]           PMIx_Group_destruct      l:ID   PMIx_Group_leave
 *   get:R:K / getb:R:K    PMIx_Get of K posted by rank R of this / the peer job
 *   gcid                  PMIx_Get of every member's PMIX_GROUP_LOCAL_CID, qualified by the
 *                         last construct's context id: cids=
 *   names                 PMIx_Get(me, PMIX_GROUP_NAMES)
 *   q:ID                  query PMIX_QUERY_NUM_GROUPS, _GROUP_NAMES, _GROUP_MEMBERSHIP of ID
 *   gf:ID                 PMIx_Fence over {ID, wildcard}
 *   conn[:to=N,nb] / disc[:to=N,nb]  PMIx_Connect / PMIx_Disconnect of both jobs
 *                         (wildcards; nb: the _nb form); "rank R > OP" before the call
 *   connme / discme       the same with this job only
 *   kill:R / exit:R:C     rank R raises SIGKILL / exits with C without finalizing
 *   sleep:S   waitev:NAME:N (until N events NAME arrived, 60 s)   wait:FILE (30 s)
 *   exists:FILE           print whether FILE exists
 *   nofin                 end without PMIx_Finalize (exit 0)
 *   spawn:N:OPT:OPS       PMIx_Spawn N more dvm_grp (PMIX_NOTIFY_COMPLETION) running OPS
 *                         ('+' between operations, '%' for ':' inside one); prints
 *                         "spawn: STATUS child=J" (J: the child job's number). OPT ('-'
 *                         for none): nohup, env (app env FOO=child), pset=NAME, mapby=P,
 *                         bad (an executable that does not exist)
 *   waitend               wait (60 s) for the spawned job's PMIX_EVENT_JOB_END: "jobend
 *                         child=J status=S exit=C"
 *   job / parent          "job: J" / "parent: parent=J:R spawned=true|false" (PMIX_PARENT_ID,
 *                         PMIX_SPAWNED)     env:VAR / psets / mapby   what this process has
 *   touch:FILE            create FILE
 * An operation prefixed @R/ runs on rank R only, @-R/ on every rank but R. Construct
 * option kill=R: rank R uses the _nb form, waits until the server has taken the request
 * (a later request on the same connection is answered), then raises SIGKILL (a member
 * dying during the construct). Option sync=PATH: the _nb form; once the server has taken
 * the request, create PATH, then wait for the answer (another process then knows this one
 * is in). Invitees of inv may be the peer job's: bR.
 */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

static pmix_proc_t me;
static uint32_t nme;
static pmix_nspace_t other;
static uint32_t nother;
static size_t last_ctx;
static bool have_ctx;
static pmix_proc_t *last_members;
static size_t nlast;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static bool ev_abort, ev_lead, ev_accept, ev_decline;
static int join_done = -1000; /* the handler's join status, when done */
static char join_line[4096];
static struct {
    pmix_status_t code;
    int n;
} seen[32];

static void die(const char *what, pmix_status_t rc)
{
    fprintf(stderr, "dvm_grp rank %u: %s: %s\n", me.rank, what, PMIx_Error_string(rc));
    exit(99);
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pthread_mutex_lock(&lock);
    printf("rank %u ", me.rank);
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    pthread_mutex_unlock(&lock);
    va_end(ap);
}

static void proc_name(const pmix_proc_t *p, char *out, size_t len)
{
    if (PMIx_Check_nspace(p->nspace, me.nspace)) {
        snprintf(out, len, "A:%u", p->rank);
    } else if (other[0] != '\0' && PMIx_Check_nspace(p->nspace, other)) {
        snprintf(out, len, "B:%u", p->rank);
    } else {
        snprintf(out, len, "S");
    }
    if (p->rank == PMIX_RANK_WILDCARD && out[0] != 'S') {
        snprintf(out + 2, len - 2, "*");
    }
}

/* "A:0,A:1,..." */
static void procs_text(const pmix_proc_t *p, size_t n, char *out, size_t len)
{
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char one[32];
        proc_name(&p[i], one, sizeof(one));
        strncat(out, i ? "," : "", len - strlen(out) - 1);
        strncat(out, one, len - strlen(out) - 1);
    }
}

/* "9:0,9:1,..." : each member as its job's number (after the '@' of our DVM's namespaces)
 * and rank, the same text in every job */
static void procs_abs(const pmix_proc_t *p, size_t n, char *out, size_t len)
{
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *at = strrchr(p[i].nspace, '@');
        char one[PMIX_MAX_NSLEN + 32];
        snprintf(one, sizeof(one), "%s%s:%u", i ? "," : "", at ? at + 1 : p[i].nspace, p[i].rank);
        strncat(out, one, len - strlen(out) - 1);
    }
}

/* The ctx=, members= (and abs=) of a group answer; remembered for gcid. */
static void results_text(const pmix_info_t *res, size_t nres, char *out, size_t len)
{
    char ctx[32] = "-", mem[2048] = "-", abs[2048] = "-";
    for (size_t i = 0; i < nres; i++) {
        if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_CONTEXT_ID)) {
            PMIx_Value_get_number(&res[i].value, &last_ctx, PMIX_SIZE);
            have_ctx = true;
            snprintf(ctx, sizeof(ctx), "%zu", last_ctx);
        } else if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_MEMBERSHIP) &&
                   res[i].value.type == PMIX_DATA_ARRAY) {
            pmix_data_array_t *da = res[i].value.data.darray;
            procs_text(da->array, da->size, mem, sizeof(mem));
            procs_abs(da->array, da->size, abs, sizeof(abs));
            free(last_members);
            last_members = calloc(da->size + 1, sizeof(pmix_proc_t));
            memcpy(last_members, da->array, da->size * sizeof(pmix_proc_t));
            nlast = da->size;
        }
    }
    snprintf(out, len, " ctx=%s members=%s first=%s abs=%s", ctx, mem, nres > 0 ? res[0].key : "-",
             abs);
}

/* ---- events ---- */

static const pmix_status_t codes[] = {PMIX_GROUP_INVITED,
                                      PMIX_GROUP_LEFT,
                                      PMIX_GROUP_INVITE_ACCEPTED,
                                      PMIX_GROUP_INVITE_DECLINED,
                                      PMIX_GROUP_INVITE_FAILED,
                                      PMIX_GROUP_MEMBERSHIP_UPDATE,
                                      PMIX_GROUP_CONSTRUCT_ABORT,
                                      PMIX_GROUP_CONSTRUCT_COMPLETE,
                                      PMIX_GROUP_LEADER_SELECTED,
                                      PMIX_GROUP_LEADER_FAILED,
                                      PMIX_GROUP_CONTEXT_ID_ASSIGNED,
                                      PMIX_GROUP_MEMBER_FAILED,
                                      PMIX_ERR_PROC_TERM_WO_SYNC,
                                      PMIX_ERR_JOB_TERM_WO_SYNC};
#define NCODES (sizeof(codes) / sizeof(codes[0]))

static void join_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                    pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)cbdata;
    char text[3000];
    results_text(info, ninfo, text, sizeof(text));
    pthread_mutex_lock(&lock);
    snprintf(join_line, sizeof(join_line), "join: %s%s", PMIx_Error_string(status), text);
    join_done = status;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (release_fn != NULL) {
        release_fn(release_cbdata);
    }
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t *source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)results;
    (void)nresults;
    const char *grp = "-";
    char about[32] = "-", src[32], mem[1024] = "";
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID) && info[i].value.type == PMIX_STRING) {
            grp = info[i].value.data.string;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) &&
                   info[i].value.type == PMIX_PROC) {
            proc_name(info[i].value.data.proc, about, sizeof(about));
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_MEMBERSHIP) &&
                   info[i].value.type == PMIX_DATA_ARRAY) {
            char m[1000];
            procs_text(info[i].value.data.darray->array, info[i].value.data.darray->size, m,
                       sizeof(m));
            snprintf(mem, sizeof(mem), " members=%s", m);
        }
    }
    proc_name(source, src, sizeof(src));
    say("event %s grp=%s proc=%s src=%s%s", PMIx_Error_string(status), grp, about, src, mem);
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < NCODES; i++) {
        if (seen[i].code == status) {
            seen[i].n++;
        }
    }
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    pmix_status_t rc = PMIX_SUCCESS;
    pmix_info_t *res = NULL;
    size_t nres = 0;
    if (ev_abort && (status == PMIX_GROUP_MEMBER_FAILED || status == PMIX_GROUP_INVITE_DECLINED)) {
        rc = PMIX_GROUP_CONSTRUCT_ABORT;
    } else if (ev_lead && status == PMIX_GROUP_LEADER_FAILED) {
        res = PMIx_Info_create(1);
        bool yes = true;
        PMIx_Info_load(&res[0], PMIX_GROUP_LEADER, &yes, PMIX_BOOL);
        nres = 1;
    } else if ((ev_accept || ev_decline) && status == PMIX_GROUP_INVITED) {
        pmix_status_t jrc =
            PMIx_Group_join_nb(grp, source, ev_accept ? PMIX_GROUP_ACCEPT : PMIX_GROUP_DECLINE,
                               NULL, 0, join_cb, NULL);
        if (jrc != PMIX_SUCCESS) {
            join_cb(jrc, NULL, 0, NULL, NULL, NULL);
        }
    }
    if (cbfunc != NULL) {
        cbfunc(rc, res, nres, NULL, NULL, cbdata);
    }
    PMIx_Info_free(res, nres); /* the library copied them */
}

static int code_of(const char *name)
{
    for (size_t i = 0; i < NCODES; i++) {
        if (strcmp(PMIx_Error_string(codes[i]), name) == 0) {
            return (int)i;
        }
    }
    fprintf(stderr, "dvm_grp: unknown event %s\n", name);
    exit(2);
}

/* Wait (60 s at most) until *v is no longer `unset` (set by a callback); its value. */
static int wait_set(const int *v, int unset)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 60;
    pthread_mutex_lock(&lock);
    while (*v == unset && pthread_cond_timedwait(&cond, &lock, &ts) == 0) {
    }
    int got = *v;
    pthread_mutex_unlock(&lock);
    return got;
}

/* ---- helpers ---- */

static uint32_t job_size(const char *ns)
{
    pmix_proc_t wild;
    PMIx_Load_procid(&wild, ns, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    uint32_t n = 0;
    pmix_status_t rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) {
        die("job size", rc);
    }
    PMIx_Value_get_number(v, &n, PMIX_UINT32);
    PMIx_Value_free(v, 1);
    return n;
}

static bool has_opt(const char *opts, const char *o)
{
    if (opts == NULL) {
        return false;
    }
    size_t n = strlen(o);
    for (const char *p = opts; (p = strstr(p, o)) != NULL; p += n) {
        if ((p == opts || p[-1] == ',') && (p[n] == '\0' || p[n] == ',' || p[n] == '=')) {
            return true;
        }
    }
    return false;
}

static int opt_num(const char *opts, const char *o, int dflt)
{
    if (!has_opt(opts, o)) {
        return dflt;
    }
    const char *p = strstr(opts, o);
    return p[strlen(o)] == '=' ? atoi(p + strlen(o) + 1) : dflt;
}

/* Directives from OPT: the info list (caller destructs n entries). */
static size_t directives(const char *opts, pmix_info_t *info, size_t *gi_cid)
{
    size_t n = 0;
    bool yes = true;
    if (has_opt(opts, "ctx")) {
        PMIx_Info_load(&info[n++], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    }
    if (has_opt(opts, "opt")) {
        PMIx_Info_load(&info[n++], PMIX_GROUP_OPTIONAL, &yes, PMIX_BOOL);
    }
    if (has_opt(opts, "notify")) {
        PMIx_Info_load(&info[n++], PMIX_GROUP_NOTIFY_TERMINATION, &yes, PMIX_BOOL);
    }
    if (has_opt(opts, "ft")) {
        PMIx_Info_load(&info[n++], PMIX_GROUP_FT_COLLECTIVE, &yes, PMIX_BOOL);
    }
    if (has_opt(opts, "lead") && me.rank == 0) {
        PMIx_Info_load(&info[n++], PMIX_GROUP_LEADER, &yes, PMIX_BOOL);
    }
    if (has_opt(opts, "local")) {
        PMIx_Info_load(&info[n++], PMIX_GROUP_LOCAL_ONLY, &yes, PMIX_BOOL);
    }
    int to = opt_num(opts, "to", 0);
    if (to > 0) {
        PMIx_Info_load(&info[n++], PMIX_TIMEOUT, &to, PMIX_INT);
    }
    if (has_opt(opts, "gi")) {
        *gi_cid = 1000 + me.rank;
        pmix_info_t *inner = PMIx_Info_create(1);
        PMIx_Info_load(&inner[0], PMIX_GROUP_LOCAL_CID, gi_cid, PMIX_SIZE);
        pmix_data_array_t da = {.type = PMIX_INFO, .size = 1, .array = inner};
        PMIx_Info_load(&info[n++], PMIX_GROUP_INFO, &da, PMIX_DATA_ARRAY);
        PMIx_Info_free(inner, 1);
    }
    if (has_opt(opts, "reqd")) {
        PMIx_Info_load(&info[n], "px.test.unknown", &yes, PMIX_BOOL);
        PMIx_Info_required(&info[n++]);
    }
    return n;
}

/* This job's ranks (and the peer's with both) in order; reversed with rev on odd ranks. */
static pmix_proc_t *members(const char *opts, size_t *n)
{
    size_t total = nme + (has_opt(opts, "both") ? nother : 0);
    pmix_proc_t *p = calloc(total + 1, sizeof(*p));
    size_t k = 0;
    if (has_opt(opts, "wild")) {
        PMIx_Load_procid(&p[k++], me.nspace, PMIX_RANK_WILDCARD);
    } else {
        for (uint32_t r = 0; r < nme; r++) {
            if (r != me.rank || !has_opt(opts, "notme")) {
                PMIx_Load_procid(&p[k++], me.nspace, r);
            }
        }
    }
    if (has_opt(opts, "both")) {
        for (uint32_t r = 0; r < nother; r++) {
            PMIx_Load_procid(&p[k++], other, r);
        }
    }
    if (has_opt(opts, "rev") && me.rank % 2 == 1) {
        for (size_t i = 0; i < k / 2; i++) {
            pmix_proc_t t = p[i];
            p[i] = p[k - 1 - i];
            p[k - 1 - i] = t;
        }
    }
    *n = k;
    return p;
}

typedef struct {
    pmix_status_t status;
    char text[3000];
    bool done;
} nbwait_t;

static void construct_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                         pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    nbwait_t *w = cbdata;
    pthread_mutex_lock(&lock);
    w->status = status;
    pthread_mutex_unlock(&lock);
    results_text(info, ninfo, w->text, sizeof(w->text));
    pthread_mutex_lock(&lock);
    w->done = true;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (release_fn != NULL) {
        release_fn(release_cbdata);
    }
}

static void op_construct(const char *label, const char *id, const char *opts)
{
    pmix_info_t info[12];
    size_t cid = 0;
    size_t n = directives(opts, info, &cid);
    size_t np = 0;
    pmix_proc_t *procs = members(opts, &np);
    if (has_opt(opts, "order")) {
        pmix_proc_t *rev = calloc(np + 1, sizeof(*rev));
        for (size_t i = 0; i < np; i++) {
            rev[i] = procs[np - 1 - i];
        }
        pmix_data_array_t da = {.type = PMIX_PROC, .size = np, .array = rev};
        PMIx_Info_load(&info[n++], PMIX_GROUP_FINAL_MEMBERSHIP_ORDER, &da, PMIX_DATA_ARRAY);
        free(rev);
    }
    char text[3000] = "";
    pmix_status_t rc;
    if (has_opt(opts, "kill") && opt_num(opts, "kill", -1) == (int)me.rank) {
        nbwait_t w = {0};
        rc = PMIx_Group_construct_nb(id, procs, np, info, n, construct_cb, &w);
        pmix_value_t *v = NULL;
        PMIx_Get(&me, PMIX_GROUP_NAMES, NULL, 0, &v); /* answered after the construct was taken */
        if (v != NULL) {
            PMIx_Value_free(v, 1);
        }
        say("%s: %s, dying", label, PMIx_Error_string(rc));
        raise(SIGKILL);
    }
    if (has_opt(opts, "nb") || has_opt(opts, "sync")) {
        nbwait_t w = {0};
        rc = PMIx_Group_construct_nb(id, procs, np, info, n, construct_cb, &w);
        const char *sync = has_opt(opts, "sync") ? strstr(opts, "sync=") + 5 : NULL;
        if (rc == PMIX_SUCCESS && sync != NULL) {
            pmix_value_t *v = NULL;
            PMIx_Get(&me, PMIX_GROUP_NAMES, NULL, 0, &v); /* after the construct was taken */
            if (v != NULL) {
                PMIx_Value_free(v, 1);
            }
            char path[1024];
            snprintf(path, sizeof(path), "%.*s", (int)strcspn(sync, ","), sync);
            FILE *f = fopen(path, "w");
            if (f != NULL) {
                fclose(f);
            }
        }
        if (rc == PMIX_SUCCESS) {
            pthread_mutex_lock(&lock);
            while (!w.done) {
                pthread_cond_wait(&cond, &lock);
            }
            pthread_mutex_unlock(&lock);
            rc = w.status;
            memcpy(text, w.text, sizeof(text));
        }
    } else {
        pmix_info_t *res = NULL;
        size_t nres = 0;
        rc = PMIx_Group_construct(id, procs, np, info, n, &res, &nres);
        results_text(res, nres, text, sizeof(text));
        PMIx_Info_free(res, nres);
    }
    say("%s: %s%s", label, PMIx_Error_string(rc), text);
    for (size_t i = 0; i < n; i++) {
        PMIx_Info_destruct(&info[i]);
    }
    free(procs);
}

static void op_boot(const char *label, const char *id, size_t nleaders, const char *opts)
{
    pmix_info_t info[14];
    size_t cid = 0;
    size_t n = directives(opts, info, &cid);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc;
    if (me.rank == 0) {
        PMIx_Info_load(&info[n++], PMIX_GROUP_BOOTSTRAP, &nleaders, PMIX_SIZE);
        if (nme > 1) {
            pmix_proc_t *add = calloc(nme, sizeof(*add));
            for (uint32_t r = 1; r < nme; r++) {
                PMIx_Load_procid(&add[r - 1], me.nspace, r);
            }
            pmix_data_array_t da = {.type = PMIX_PROC, .size = nme - 1, .array = add};
            PMIx_Info_load(&info[n++], PMIX_GROUP_ADD_MEMBERS, &da, PMIX_DATA_ARRAY);
            free(add);
        }
        rc = PMIx_Group_construct(id, &me, 1, info, n, &res, &nres);
    } else {
        rc = PMIx_Group_construct(id, NULL, 0, info, n, &res, &nres);
    }
    char text[3000];
    results_text(res, nres, text, sizeof(text));
    PMIx_Info_free(res, nres);
    say("%s: %s%s", label, PMIx_Error_string(rc), text);
    for (size_t i = 0; i < n; i++) {
        PMIx_Info_destruct(&info[i]);
    }
}

static void op_invite(const char *label, const char *id, char *list, const char *opts)
{
    if (me.rank != 0) {
        return;
    }
    pmix_proc_t procs[64];
    size_t np = 0;
    for (char *t = strtok(list, "+"); t != NULL && np < 64; t = strtok(NULL, "+")) {
        if (t[0] == 'b') {
            PMIx_Load_procid(&procs[np++], other, (pmix_rank_t)atoi(t + 1));
        } else {
            PMIx_Load_procid(&procs[np++], me.nspace, (pmix_rank_t)atoi(t));
        }
    }
    pmix_info_t info[12];
    size_t cid = 0;
    size_t n = directives(opts, info, &cid);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc = PMIx_Group_invite(id, procs, np, info, n, &res, &nres);
    char text[3000];
    results_text(res, nres, text, sizeof(text));
    PMIx_Info_free(res, nres);
    say("%s: %s%s", label, PMIx_Error_string(rc), text);
    for (size_t i = 0; i < n; i++) {
        PMIx_Info_destruct(&info[i]);
    }
}

static void op_get(const char *label, const char *ns, pmix_rank_t r, const char *key)
{
    pmix_proc_t p;
    PMIx_Load_procid(&p, ns, r);
    pmix_value_t *v = NULL;
    int to = 10;
    pmix_info_t info;
    PMIx_Info_load(&info, PMIX_TIMEOUT, &to, PMIX_INT);
    pmix_status_t rc = PMIx_Get(&p, key, &info, 1, &v);
    PMIx_Info_destruct(&info);
    say("%s: %s %s", label, PMIx_Error_string(rc),
        rc == PMIX_SUCCESS && v->type == PMIX_STRING ? v->data.string : "-");
    if (v != NULL) {
        PMIx_Value_free(v, 1);
    }
}

static void op_gcid(const char *label)
{
    char out[2048] = "";
    pmix_status_t worst = PMIX_SUCCESS;
    for (size_t i = 0; i < nlast; i++) {
        pmix_info_t q;
        PMIx_Info_load(&q, PMIX_GROUP_CONTEXT_ID, &last_ctx, PMIX_SIZE);
        PMIx_Info_qualifier(&q);
        pmix_value_t *v = NULL;
        pmix_status_t rc = PMIx_Get(&last_members[i], PMIX_GROUP_LOCAL_CID, &q, 1, &v);
        PMIx_Info_destruct(&q);
        char one[32] = "?";
        size_t cid = 0;
        if (rc == PMIX_SUCCESS && PMIx_Value_get_number(v, &cid, PMIX_SIZE) == PMIX_SUCCESS) {
            snprintf(one, sizeof(one), "%zu", cid);
        } else {
            worst = rc;
        }
        if (v != NULL) {
            PMIx_Value_free(v, 1);
        }
        strncat(out, i ? "," : "", sizeof(out) - strlen(out) - 1);
        strncat(out, one, sizeof(out) - strlen(out) - 1);
    }
    say("%s: %s cids=%s", label, PMIx_Error_string(have_ctx ? worst : PMIX_ERR_NOT_FOUND), out);
}

static void strings_text(const pmix_value_t *v, char *out, size_t len)
{
    out[0] = '\0';
    if (v == NULL || v->type != PMIX_DATA_ARRAY || v->data.darray == NULL) {
        return;
    }
    char **s = v->data.darray->array;
    for (size_t i = 0; i < v->data.darray->size; i++) {
        strncat(out, i ? "," : "", len - strlen(out) - 1);
        strncat(out, s[i], len - strlen(out) - 1);
    }
}

static void op_names(const char *label)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&me, PMIX_GROUP_NAMES, NULL, 0, &v);
    char out[1024];
    strings_text(v, out, sizeof(out));
    say("%s: %s names=%s", label, PMIx_Error_string(rc), out[0] ? out : "-");
    if (v != NULL) {
        PMIx_Value_free(v, 1);
    }
}

static void op_query(const char *label, const char *id)
{
    pmix_query_t q[2];
    PMIx_Query_construct(&q[0]);
    PMIx_Query_construct(&q[1]);
    q[0].keys = PMIx_Argv_split(PMIX_QUERY_NUM_GROUPS "," PMIX_QUERY_GROUP_NAMES, ',');
    q[1].keys = PMIx_Argv_split(PMIX_QUERY_GROUP_MEMBERSHIP, ',');
    q[1].qualifiers = PMIx_Info_create(1);
    q[1].nqual = 1;
    PMIx_Info_load(&q[1].qualifiers[0], PMIX_GROUP_ID, id, PMIX_STRING);
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc = PMIx_Query_info(q, 2, &res, &nres);
    size_t num = 0;
    char names[1024] = "-", mem[2048] = "-";
    for (size_t i = 0; i < nres; i++) {
        if (PMIX_CHECK_KEY(&res[i], PMIX_QUERY_NUM_GROUPS)) {
            PMIx_Value_get_number(&res[i].value, &num, PMIX_SIZE);
        } else if (PMIX_CHECK_KEY(&res[i], PMIX_QUERY_GROUP_NAMES)) {
            strings_text(&res[i].value, names, sizeof(names));
        } else if (PMIX_CHECK_KEY(&res[i], PMIX_QUERY_GROUP_MEMBERSHIP) &&
                   res[i].value.type == PMIX_DATA_ARRAY) {
            procs_text(res[i].value.data.darray->array, res[i].value.data.darray->size, mem,
                       sizeof(mem));
        }
    }
    say("%s: %s num=%zu names=%s members=%s", label, PMIx_Error_string(rc), num,
        names[0] ? names : "-", mem);
    PMIx_Info_free(res, nres);
    PMIx_Query_destruct(&q[0]);
    PMIx_Query_destruct(&q[1]);
}

static void op_done(pmix_status_t status, void *cbdata)
{
    nbwait_t *w = cbdata;
    pthread_mutex_lock(&lock);
    w->status = status;
    w->done = true;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

static void op_connect(const char *label, bool connect, bool both, const char *opts)
{
    pmix_proc_t p[2];
    size_t np = 0;
    PMIx_Load_procid(&p[np++], me.nspace, PMIX_RANK_WILDCARD);
    if (both) {
        PMIx_Load_procid(&p[np++], other, PMIX_RANK_WILDCARD);
    }
    pmix_info_t info[2];
    size_t n = 0;
    int to = opt_num(opts, "to", 0);
    if (to > 0) {
        PMIx_Info_load(&info[n++], PMIX_TIMEOUT, &to, PMIX_INT);
    }
    say("> %s", label); /* about to call (tests wait on it) */
    pmix_status_t rc;
    if (has_opt(opts, "nb")) {
        nbwait_t w = {0};
        rc = connect ? PMIx_Connect_nb(p, np, info, n, op_done, &w)
                     : PMIx_Disconnect_nb(p, np, info, n, op_done, &w);
        if (rc == PMIX_SUCCESS) {
            pthread_mutex_lock(&lock);
            while (!w.done) {
                pthread_cond_wait(&cond, &lock);
            }
            pthread_mutex_unlock(&lock);
            rc = w.status;
        }
    } else {
        rc = connect ? PMIx_Connect(p, np, info, n) : PMIx_Disconnect(p, np, info, n);
    }
    say("%s: %s", label, PMIx_Error_string(rc));
    for (size_t i = 0; i < n; i++) {
        PMIx_Info_destruct(&info[i]);
    }
}

static void op_peer(const char *mine, const char *theirs)
{
    if (me.rank == 0) {
        /* kept for the DVM's life: the publisher may be gone when the peer looks */
        pmix_persistence_t keep = PMIX_PERSIST_SESSION;
        pmix_info_t info[2];
        char val[PMIX_MAX_NSLEN + 16]; /* "nspace size": nobody need ask the job later */
        snprintf(val, sizeof(val), "%s %u", me.nspace, nme);
        PMIx_Info_load(&info[0], mine, val, PMIX_STRING);
        PMIx_Info_load(&info[1], PMIX_PERSISTENCE, &keep, PMIX_PERSIST);
        pmix_status_t rc = PMIx_Publish(info, 2);
        PMIx_Info_destruct(&info[0]);
        PMIx_Info_destruct(&info[1]);
        if (rc != PMIX_SUCCESS) {
            die("publish", rc);
        }
    }
    pmix_pdata_t pd;
    PMIx_Pdata_construct(&pd);
    PMIx_Load_key(pd.key, theirs);
    pmix_info_t w[2];
    int all = 0, secs = 30;
    PMIx_Info_load(&w[0], PMIX_WAIT, &all, PMIX_INT);
    PMIx_Info_load(&w[1], PMIX_TIMEOUT, &secs, PMIX_INT);
    pmix_status_t rc = PMIx_Lookup(&pd, 1, w, 2);
    if (rc != PMIX_SUCCESS || pd.value.type != PMIX_STRING) {
        die("lookup", rc);
    }
    char *sp = strchr(pd.value.data.string, ' ');
    if (sp == NULL) {
        die("lookup value", PMIX_ERR_BAD_PARAM);
    }
    *sp = '\0';
    PMIX_LOAD_NSPACE(other, pd.value.data.string);
    nother = (uint32_t)atoi(sp + 1);
    PMIx_Pdata_destruct(&pd);
    PMIx_Info_destruct(&w[0]);
    PMIx_Info_destruct(&w[1]);
    say("peer: %u processes", nother);
}

static void register_events(const char *modes)
{
    ev_abort = has_opt(modes, "abort");
    ev_lead = has_opt(modes, "lead");
    ev_accept = has_opt(modes, "accept");
    ev_decline = has_opt(modes, "decline");
    for (size_t i = 0; i < NCODES; i++) {
        seen[i].code = codes[i];
    }
    pmix_status_t rc =
        PMIx_Register_event_handler((pmix_status_t *)codes, NCODES, NULL, 0, on_event, NULL, NULL);
    if (rc < 0) {
        die("register", rc);
    }
    say("ev: ready");
}

/* ---- spawn from inside a job ---- */

static char *self_path;
static int jobend = -1000; /* the child's exit code once its JOB_END came */
static char jobend_line[512];

static const char *jobnum(const char *ns)
{
    const char *at = strrchr(ns, '@');
    return at != NULL ? at + 1 : ns;
}

static void on_jobend(size_t id, pmix_status_t status, const pmix_proc_t *source,
                      pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                      pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id;
    (void)status;
    (void)source;
    (void)results;
    (void)nresults;
    int code = -1;
    pmix_status_t term = PMIX_SUCCESS;
    const char *ns = "?";
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EXIT_CODE)) {
            PMIx_Value_get_number(&info[i].value, &code, PMIX_INT);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_JOB_TERM_STATUS)) {
            term = info[i].value.data.status;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && info[i].value.type == PMIX_STRING) {
            ns = info[i].value.data.string;
        }
    }
    pthread_mutex_lock(&lock);
    snprintf(jobend_line, sizeof(jobend_line), "jobend child=%s status=%s exit=%d", jobnum(ns),
             PMIx_Error_string(term), code);
    jobend = code;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    if (cbfunc != NULL) {
        cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
    }
}

static void op_spawn(const char *label, int n, const char *opts, const char *ops)
{
    static bool registered;
    if (!registered) {
        pmix_status_t code = PMIX_EVENT_JOB_END;
        if (PMIx_Register_event_handler(&code, 1, NULL, 0, on_jobend, NULL, NULL) < 0) {
            die("register JOB_END", PMIX_ERROR);
        }
        registered = true;
    }
    pmix_app_t app;
    PMIx_App_construct(&app);
    app.cmd = strdup(has_opt(opts, "bad") ? "/nonexistent/px-no-such-program" : self_path);
    PMIx_Argv_append_nosize(&app.argv, app.cmd);
    char *copy = strdup(ops);
    for (char *t = strtok(copy, "+"); t != NULL && strcmp(ops, "-") != 0; t = strtok(NULL, "+")) {
        for (char *c = t; *c != '\0'; c++) {
            *c = *c == '%' ? ':' : *c;
        }
        PMIx_Argv_append_nosize(&app.argv, t);
    }
    free(copy);
    app.maxprocs = n;
    if (has_opt(opts, "env")) {
        PMIx_Argv_append_nosize(&app.env, "FOO=child");
    }
    pmix_info_t ainfo[1];
    size_t na = 0;
    const char *pset = has_opt(opts, "pset") ? strstr(opts, "pset=") + 5 : NULL;
    char pname[64];
    if (pset != NULL) {
        snprintf(pname, sizeof(pname), "%.*s", (int)strcspn(pset, ","), pset);
        PMIx_Info_load(&ainfo[na++], PMIX_PSET_NAME, pname, PMIX_STRING);
        app.info = ainfo;
        app.ninfo = na;
    }
    pmix_info_t jinfo[3];
    size_t nj = 0;
    bool yes = true;
    PMIx_Info_load(&jinfo[nj++], PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
    if (has_opt(opts, "nohup")) {
        PMIx_Info_load(&jinfo[nj++], PMIX_NOHUP, &yes, PMIX_BOOL);
    }
    const char *mapby = has_opt(opts, "mapby") ? strstr(opts, "mapby=") + 6 : NULL;
    char mname[64];
    if (mapby != NULL) {
        snprintf(mname, sizeof(mname), "%.*s", (int)strcspn(mapby, ","), mapby);
        PMIx_Info_load(&jinfo[nj++], PMIX_MAPBY, mname, PMIX_STRING);
    }
    pthread_mutex_lock(&lock);
    jobend = -1000; /* waitend waits for this child's end */
    pthread_mutex_unlock(&lock);
    pmix_nspace_t child;
    memset(child, 0, sizeof(child));
    pmix_status_t rc = PMIx_Spawn(jinfo, nj, &app, 1, child);
    say("%s: %s child=%s", label, PMIx_Error_string(rc), rc == PMIX_SUCCESS ? jobnum(child) : "-");
    for (size_t i = 0; i < nj; i++) {
        PMIx_Info_destruct(&jinfo[i]);
    }
    app.info = NULL; /* ours, on the stack */
    app.ninfo = 0;
    for (size_t i = 0; i < na; i++) {
        PMIx_Info_destruct(&ainfo[i]);
    }
    PMIx_App_destruct(&app);
}

static void op_parent(const char *label)
{
    pmix_value_t *v = NULL;
    char parent[PMIX_MAX_NSLEN + 32] = "-";
    if (PMIx_Get(&me, PMIX_PARENT_ID, NULL, 0, &v) == PMIX_SUCCESS && v->type == PMIX_PROC) {
        snprintf(parent, sizeof(parent), "%s:%u", jobnum(v->data.proc->nspace), v->data.proc->rank);
    }
    if (v != NULL) {
        PMIx_Value_free(v, 1);
        v = NULL;
    }
    bool spawned = false;
    if (PMIx_Get(&me, PMIX_SPAWNED, NULL, 0, &v) == PMIX_SUCCESS) {
        spawned = PMIx_Value_true(v) == PMIX_SUCCESS;
    }
    if (v != NULL) {
        PMIx_Value_free(v, 1);
    }
    say("%s: parent=%s spawned=%s", label, parent, spawned ? "true" : "false");
}

static void op_strings(const char *label, const char *key, bool job)
{
    pmix_proc_t p = me;
    if (job) {
        p.rank = PMIX_RANK_WILDCARD;
    }
    pmix_value_t *v = NULL;
    char out[512] = "-";
    if (PMIx_Get(&p, key, NULL, 0, &v) == PMIX_SUCCESS) {
        if (v->type == PMIX_STRING) {
            snprintf(out, sizeof(out), "%s", v->data.string);
        } else {
            strings_text(v, out, sizeof(out));
        }
    }
    if (v != NULL) {
        PMIx_Value_free(v, 1);
    }
    say("%s: %s", label, out[0] ? out : "-");
}

int main(int argc, char **argv)
{
    self_path = argv[0];
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        die("PMIx_Init", rc);
    }
    nme = job_size(me.nspace);
    bool finalize = true;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (arg[0] == '@') {
            /* @R/op: rank R only; @-R/op: every rank but R */
            bool but = arg[1] == '-';
            pmix_rank_t r = (pmix_rank_t)atoi(arg + (but ? 2 : 1));
            const char *slash = strchr(arg, '/');
            if (slash == NULL) {
                fprintf(stderr, "dvm_grp: bad operation %s\n", arg);
                exit(2);
            }
            if ((r == me.rank) == but) {
                continue;
            }
            arg = slash + 1;
        }
        char *label = strdup(arg);
        char *op = strdup(arg);
        char *kind = strtok(op, ":");
        char *x1 = strtok(NULL, ":");
        char *x2 = strtok(NULL, ":");
        char *x3 = strtok(NULL, ":");
        if (strcmp(kind, "fence") == 0) {
            rc = PMIx_Fence(NULL, 0, NULL, 0);
            say("%s: %s", label, PMIx_Error_string(rc));
        } else if (strcmp(kind, "put") == 0 && x1 != NULL && strchr(x1, '=') != NULL) {
            char *eq = strchr(x1, '=');
            *eq = '\0';
            pmix_value_t v = {.type = PMIX_STRING, .data.string = eq + 1};
            rc = PMIx_Put(PMIX_GLOBAL, x1, &v);
            say("%s: %s", label, PMIx_Error_string(rc));
        } else if (strcmp(kind, "peer") == 0 && x2 != NULL) {
            op_peer(x1, x2);
        } else if (strcmp(kind, "ev") == 0) {
            register_events(x1);
        } else if (strcmp(kind, "c") == 0 && x1 != NULL) {
            op_construct(label, x1, x2);
        } else if (strcmp(kind, "boot") == 0 && x2 != NULL) {
            op_boot(label, x1, (size_t)atoi(x2), x3);
        } else if (strcmp(kind, "inv") == 0 && x2 != NULL) {
            op_invite(label, x1, x2, x3);
        } else if (strcmp(kind, "join") == 0) {
            say("%s", wait_set(&join_done, -1000) == -1000 ? "join: never answered" : join_line);
        } else if (strcmp(kind, "jn") == 0 && x1 != NULL) {
            pmix_proc_t ldr;
            PMIx_Load_procid(&ldr, me.nspace, 0);
            pmix_info_t *res = NULL;
            size_t nres = 0;
            rc = PMIx_Group_join(x1, &ldr, PMIX_GROUP_ACCEPT, NULL, 0, &res, &nres);
            PMIx_Info_free(res, nres);
            say("%s: %s", label, PMIx_Error_string(rc));
        } else if (strcmp(kind, "d") == 0 && x1 != NULL) {
            pmix_info_t info[12];
            size_t cid = 0, n = directives(x2, info, &cid);
            rc = PMIx_Group_destruct(x1, info, n);
            say("%s: %s", label, PMIx_Error_string(rc));
            for (size_t i = 0; i < n; i++) {
                PMIx_Info_destruct(&info[i]);
            }
        } else if (strcmp(kind, "l") == 0 && x1 != NULL) {
            rc = PMIx_Group_leave(x1, NULL, 0);
            say("%s: %s", label, PMIx_Error_string(rc));
        } else if ((strcmp(kind, "get") == 0 || strcmp(kind, "getb") == 0) && x2 != NULL) {
            op_get(label, kind[3] == 'b' ? other : me.nspace, (pmix_rank_t)atoi(x1), x2);
        } else if (strcmp(kind, "gcid") == 0) {
            op_gcid(label);
        } else if (strcmp(kind, "names") == 0) {
            op_names(label);
        } else if (strcmp(kind, "q") == 0 && x1 != NULL) {
            op_query(label, x1);
        } else if (strcmp(kind, "gf") == 0 && x1 != NULL) {
            pmix_proc_t g;
            PMIx_Load_procid(&g, x1, PMIX_RANK_WILDCARD);
            rc = PMIx_Fence(&g, 1, NULL, 0);
            say("%s: %s", label, PMIx_Error_string(rc));
        } else if (strcmp(kind, "conn") == 0 || strcmp(kind, "disc") == 0 ||
                   strcmp(kind, "connme") == 0 || strcmp(kind, "discme") == 0) {
            op_connect(label, kind[0] == 'c', kind[4] == '\0', x1);
        } else if (strcmp(kind, "kill") == 0 && x1 != NULL) {
            if ((pmix_rank_t)atoi(x1) == me.rank) {
                say("%s: dying", label);
                raise(SIGKILL);
            }
        } else if (strcmp(kind, "exit") == 0 && x2 != NULL) {
            if ((pmix_rank_t)atoi(x1) == me.rank) {
                say("%s: exiting", label);
                _exit(atoi(x2));
            }
        } else if (strcmp(kind, "sleep") == 0 && x1 != NULL) {
            sleep((unsigned)atoi(x1));
        } else if (strcmp(kind, "waitev") == 0 && x2 != NULL) {
            int i = code_of(x1), want = atoi(x2);
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec += 60;
            pthread_mutex_lock(&lock);
            while (seen[i].n < want && pthread_cond_timedwait(&cond, &lock, &ts) == 0) {
            }
            int got = seen[i].n;
            pthread_mutex_unlock(&lock);
            say("%s: %s (%d)", label, got >= want ? "seen" : "timed out", got);
        } else if (strcmp(kind, "wait") == 0 && x1 != NULL) {
            struct stat st;
            for (int i = 0; i < 600 && stat(x1, &st) != 0; i++) {
                usleep(50000);
            }
        } else if (strcmp(kind, "exists") == 0 && x1 != NULL) {
            struct stat st;
            say("%s: %s", label, stat(x1, &st) == 0 ? "yes" : "no");
        } else if (strcmp(kind, "spawn") == 0 && x3 != NULL) {
            op_spawn(label, atoi(x1), x2, x3);
        } else if (strcmp(kind, "waitend") == 0) {
            say("%s", wait_set(&jobend, -1000) == -1000 ? "jobend: never came" : jobend_line);
        } else if (strcmp(kind, "job") == 0) {
            say("job: %s", jobnum(me.nspace));
        } else if (strcmp(kind, "parent") == 0) {
            op_parent(label);
        } else if (strcmp(kind, "env") == 0 && x1 != NULL) {
            say("%s: %s", label, getenv(x1) ? getenv(x1) : "-");
        } else if (strcmp(kind, "psets") == 0) {
            op_strings(label, PMIX_PSET_NAMES, false);
        } else if (strcmp(kind, "mapby") == 0) {
            op_strings(label, PMIX_MAPBY, true);
        } else if (strcmp(kind, "touch") == 0 && x1 != NULL) {
            FILE *f = fopen(x1, "w");
            if (f != NULL) {
                fclose(f);
            }
        } else if (strcmp(kind, "nofin") == 0) {
            finalize = false;
        } else {
            fprintf(stderr, "dvm_grp: bad operation %s\n", label);
            exit(2);
        }
        free(label);
        free(op);
    }
    if (finalize) {
        rc = PMIx_Finalize(NULL, 0);
        if (rc != PMIX_SUCCESS) {
            die("PMIx_Finalize", rc);
        }
    }
    free(last_members);
    return 0;
}
