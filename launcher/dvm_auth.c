/* launcher: who may use the DVM. A tool is approved when its uid (SO_PEERCRED, handed
 * up by the server library as PMIX_USERID/PMIX_GRPID) is the controller's own, or names
 * a user or group prte was told to serve (--allow-users, --allow-groups). Tools of those
 * other users may look (queries, events) but not start, signal or feed jobs: the DVM
 * starts processes under its own uid only. Runs on the controller's loop.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/dvm_int.h"

/* An approved tool of another user (allowed by the options), until its connection goes. */
typedef struct foreign {
    pmix_proc_t proc;
    uid_t uid;
    struct foreign *next;
} foreign_t;

struct px_dvm_auth {
    uid_t *uids; /* owned: --allow-users */
    size_t nuids;
    gid_t *gids; /* owned: --allow-groups */
    size_t ngids;
    foreign_t *foreign; /* owned */
};

int px_dvm_auth_init(px_dvm_t *dvm, const px_dvm_opts_t *o)
{
    px_dvm_auth_t *auth = calloc(1, sizeof(*auth));
    if (auth == NULL) {
        return -1;
    }
    dvm->auth = auth;
    if (o->nallow_uids > 0) {
        auth->uids = calloc(o->nallow_uids, sizeof(*auth->uids));
        if (auth->uids == NULL) {
            goto error;
        }
        memcpy(auth->uids, o->allow_uids, o->nallow_uids * sizeof(*auth->uids));
        auth->nuids = o->nallow_uids;
    }
    if (o->nallow_gids > 0) {
        auth->gids = calloc(o->nallow_gids, sizeof(*auth->gids));
        if (auth->gids == NULL) {
            goto error;
        }
        memcpy(auth->gids, o->allow_gids, o->nallow_gids * sizeof(*auth->gids));
        auth->ngids = o->nallow_gids;
    }
    return 0;

error:
    px_dvm_auth_fini(dvm);
    errno = ENOMEM;
    return -1;
}

void px_dvm_auth_fini(px_dvm_t *dvm)
{
    px_dvm_auth_t *auth = dvm->auth;
    if (auth == NULL) {
        return;
    }
    while (auth->foreign != NULL) {
        foreign_t *f = auth->foreign;
        auth->foreign = f->next;
        free(f);
    }
    free(auth->uids);
    free(auth->gids);
    free(auth);
    dvm->auth = NULL;
}

/* Is any of the allowed groups the user's (uid, primary group gid)? The primary group,
 * then the group database's supplementary groups of that user, looked up once (a name
 * service call: it may be slow, so not once per allowed group). */
static bool in_allowed_group(const px_dvm_auth_t *auth, uid_t uid, gid_t gid)
{
    for (size_t i = 0; i < auth->ngids; i++) {
        if (auth->gids[i] == gid) {
            return true;
        }
    }
    struct passwd pw, *pwp = NULL;
    char buf[4096];
    if (auth->ngids == 0 || getpwuid_r(uid, &pw, buf, sizeof(buf), &pwp) != 0 || pwp == NULL) {
        return false; /* no name: only the primary group counts */
    }
    gid_t groups[256];
    int n = (int)(sizeof(groups) / sizeof(groups[0]));
    if (getgrouplist(pw.pw_name, gid, groups, &n) < 0) {
        return false; /* more than we look at: not a member as far as we know */
    }
    for (int k = 0; k < n; k++) {
        for (size_t i = 0; i < auth->ngids; i++) {
            if (groups[k] == auth->gids[i]) {
                return true;
            }
        }
    }
    return false;
}

/* Served by the options (not the owner)? */
static bool allowed_other(const px_dvm_auth_t *auth, uid_t uid, gid_t gid)
{
    for (size_t i = 0; i < auth->nuids; i++) {
        if (auth->uids[i] == uid) {
            return true;
        }
    }
    return in_allowed_group(auth, uid, gid);
}

pmix_status_t px_dvm_auth_tool(const px_dvm_t *dvm, bool have_cred, uid_t uid, gid_t gid,
                               bool *foreign)
{
    *foreign = false;
    if (!have_cred) {
        /* Over TCP: no peer credentials, but the tool presented the listener's secret,
         * which only the rendezvous files (mode 0600, ours) hold. */
        return PMIX_SUCCESS;
    }
    if (uid == geteuid()) {
        return PMIX_SUCCESS;
    }
    if (allowed_other(dvm->auth, uid, gid)) {
        *foreign = true;
        return PMIX_SUCCESS;
    }
    return PMIX_ERR_NO_PERMISSIONS;
}

int px_dvm_auth_add_foreign(px_dvm_t *dvm, const pmix_proc_t *proc, uid_t uid)
{
    px_dvm_auth_t *auth = dvm->auth;
    foreign_t *f = calloc(1, sizeof(*f));
    if (f == NULL) {
        return -1;
    }
    f->proc = *proc;
    f->uid = uid;
    f->next = auth->foreign;
    auth->foreign = f;
    return 0;
}

void px_dvm_auth_forget(px_dvm_t *dvm, const pmix_proc_t *proc)
{
    px_dvm_auth_t *auth = dvm->auth;
    for (foreign_t **pp = &auth->foreign; *pp != NULL; pp = &(*pp)->next) {
        if (PMIx_Check_procid(&(*pp)->proc, proc)) {
            foreign_t *f = *pp;
            *pp = f->next;
            free(f);
            return;
        }
    }
}

bool px_dvm_auth_may_act(const px_dvm_t *dvm, const pmix_proc_t *requester, const char *what)
{
    if (requester == NULL) {
        return true; /* this process (prterun) */
    }
    for (const foreign_t *f = dvm->auth->foreign; f != NULL; f = f->next) {
        if (PMIx_Check_procid(&f->proc, requester)) {
            px_dvm_log(dvm, 1,
                       "%s refused to tool %s:%u of uid %u: the DVM serves that user's "
                       "tools for queries only",
                       what, requester->nspace, requester->rank, (unsigned)f->uid);
            return false;
        }
    }
    return true;
}
