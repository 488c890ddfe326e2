/* server: what the host registers — namespaces, clients, process sets, attributes —
 * and what it asks for a child (setup_fork, setup_application, local support).
 * Synchronous work runs on the caller's thread under px_srv->lock; callbacks are always
 * delivered later from the loop; anything touching a connection is shifted there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix_server.h>

#include "common/px_common.h"
#include "common/px_proto.h"
#include "server/px_server.h"
#include "server/px_srv_topo.h"

/* ---- namespaces ---- */

/* Per-namespace server extension: the job's environment directives (several
 * PMIX_SET_ENVAR entries may be given; the store keeps only one value per key). */
typedef struct {
    pmix_info_t *envs;
    size_t nenvs;
} srv_ns_t;

static void srv_ns_free(px_nspace_t *ns)
{
    srv_ns_t *x = ns->ext;
    if (x != NULL) {
        PMIx_Info_free(x->envs, x->nenvs);
        free(x);
        ns->ext = NULL;
    }
}

static bool is_env_directive(const pmix_info_t *in)
{
    return PMIX_CHECK_KEY(in, PMIX_SET_ENVAR) || PMIX_CHECK_KEY(in, PMIX_ADD_ENVAR) ||
           PMIX_CHECK_KEY(in, PMIX_UNSET_ENVAR) || PMIX_CHECK_KEY(in, PMIX_PREPEND_ENVAR) ||
           PMIX_CHECK_KEY(in, PMIX_APPEND_ENVAR);
}

static pmix_status_t keep_env_directives(px_nspace_t *ns, const pmix_info_t *info, size_t ninfo)
{
    size_t n = 0;
    for (size_t i = 0; i < ninfo; i++) {
        n += is_env_directive(&info[i]);
    }
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    srv_ns_t *x = ns->ext ? ns->ext : calloc(1, sizeof(*x));
    if (x == NULL) {
        return PMIX_ERR_NOMEM;
    }
    ns->ext = x;
    pmix_info_t *envs = PMIx_Info_create(x->nenvs + n);
    if (envs == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < x->nenvs; i++) {
        PMIx_Info_xfer(&envs[i], &x->envs[i]);
    }
    size_t k = x->nenvs;
    for (size_t i = 0; i < ninfo; i++) {
        if (is_env_directive(&info[i])) {
            PMIx_Info_xfer(&envs[k++], &info[i]);
        }
    }
    PMIx_Info_free(x->envs, x->nenvs);
    x->envs = envs;
    x->nenvs = k;
    return PMIX_SUCCESS;
}

PMIX_EXPORT pmix_status_t PMIx_server_register_nspace(const pmix_nspace_t nspace, int nlocalprocs,
                                                      pmix_info_t info[], size_t ninfo,
                                                      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (px_srv == NULL) {
        return PMIX_ERR_INIT;
    }
    if (nspace == NULL || nspace[0] == '\0' || (ninfo > 0 && info == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    /* PMIX_REGISTER_NODATA (required of every library): the namespace only, none of the
     * job data given with it */
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_REGISTER_NODATA) && PMIX_INFO_TRUE(&info[i])) {
            info = NULL;
            ninfo = 0;
            break;
        }
    }
    pthread_mutex_lock(&px_srv->lock);
    pmix_status_t rc = PMIX_ERR_NOMEM;
    px_nspace_t *ns = px_store_find(&px_srv->store, nspace);
    if (ns != NULL && ns->complete) {
        /* registering again adds to what is there (e.g. after a spawn added apps) */
        px_debug(2, "server", "namespace %s registered again: merging", nspace);
    }
    ns = px_store_add(&px_srv->store, nspace);
    if (ns != NULL) {
        ns->nlocal_expected = nlocalprocs;
        rc = px_ns_register(&px_srv->store, ns, info, ninfo);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_srv_topo_ns(ns);
    }
    if (rc == PMIX_SUCCESS) {
        rc = keep_env_directives(ns, info, ninfo);
    }
    /* The session's temporary directories, unless the host named others. */
    if (rc == PMIX_SUCCESS) {
        rc = px_kvset_put_str(&ns->job, PMIX_TMPDIR, px_srv->tmpdir, true);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_kvset_put_str(&ns->job, PMIX_SERVER_TMPDIR, px_srv->tmpdir, true);
    }
    if (rc == PMIX_SUCCESS) {
        rc = px_kvset_put_str(&ns->job, PMIX_SYSTEM_TMPDIR, px_srv->systmpdir, true);
    }
    if (rc == PMIX_SUCCESS) {
        px_debug(2, "server", "registered namespace %s (%d local procs, %zu nodes)", nspace,
                 nlocalprocs, ns->nnodes);
        rc = px_progress_op_later(px_srv->prog, cbfunc, cbdata, PMIX_SUCCESS);
    } else if (ns != NULL) {
        srv_ns_free(ns);
        px_store_remove(&px_srv->store, nspace);
    }
    pthread_mutex_unlock(&px_srv->lock);
    return rc;
}

/* ---- clients ---- */

static void client_unregister(px_srv_client_t *c)
{
    for (px_srv_client_t **pp = &px_srv->clients; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    c->registered = false;
    if (c->peer != NULL || c->pmi != NULL) {
        if (c->peer != NULL) {
            px_peer_destroy(c->peer);
            c->peer = NULL;
        }
        px_srv_pmi_unbind(c); /* a PMI process's connection */
        c->departed = true;
        px_srv_run_cleanup(c);
        px_srv_client_release(c); /* connection's reference */
    }
    px_srv_data_client_gone(c, true);
    px_srv_iof_client_gone(c); /* its sinks hold references */
    px_srv_client_release(c);  /* registration's reference */
}

PMIX_EXPORT pmix_status_t PMIx_server_register_client(const pmix_proc_t *proc, uid_t uid, gid_t gid,
                                                      void *server_object, pmix_op_cbfunc_t cbfunc,
                                                      void *cbdata)
{
    if (px_srv == NULL) {
        return PMIX_ERR_INIT;
    }
    if (proc == NULL || proc->rank >= PMIX_RANK_VALID) {
        return PMIX_ERR_BAD_PARAM;
    }
    pthread_mutex_lock(&px_srv->lock);
    pmix_status_t rc = PMIX_SUCCESS;
    px_srv_client_t *c = px_srv_client_find(proc->nspace, proc->rank);
    if (c != NULL) {
        rc = PMIX_EXISTS;
        goto out;
    }
    c = calloc(1, sizeof(*c));
    if (c == NULL) {
        rc = PMIX_ERR_NOMEM;
        goto out;
    }
    c->proc = *proc;
    c->uid = uid;
    c->gid = gid;
    c->server_object = server_object;
    c->registered = true;
    c->refs = 1; /* the registration's */
    c->next = px_srv->clients;
    px_srv->clients = c;
    px_nspace_t *ns = px_store_add(&px_srv->store, proc->nspace);
    px_ns_rank_t *pr = ns ? px_ns_rank(ns, proc->rank) : NULL;
    if (pr != NULL) {
        pr->ext = c;
    }
    rc = px_progress_op_later(px_srv->prog, cbfunc, cbdata, PMIX_SUCCESS);
out:
    pthread_mutex_unlock(&px_srv->lock);
    return rc;
}

typedef struct {
    pmix_proc_t proc; /* rank wildcard: the whole namespace */
    pmix_op_cbfunc_t cb;
    void *cbdata;
} dereg_t;

static void dereg_on_loop(void *arg)
{
    dereg_t *d = arg;
    px_srv_client_t *c = px_srv->clients;
    while (c != NULL) {
        px_srv_client_t *next = c->next;
        if (PMIx_Check_procid(&c->proc, &d->proc)) {
            client_unregister(c);
        }
        c = next;
    }
    if (d->proc.rank == PMIX_RANK_WILDCARD) {
        px_nspace_t *ns = px_store_find(&px_srv->store, d->proc.nspace);
        if (ns != NULL) {
            srv_ns_free(ns);
            px_store_remove(&px_srv->store, d->proc.nspace);
        }
        px_srv_pmi_ns_gone(d->proc.nspace);
        px_srv_iof_ns_gone(d->proc.nspace);
    }
    if (d->cb != NULL) {
        d->cb(PMIX_SUCCESS, d->cbdata);
    }
    free(d);
}

static void dereg(const char *nspace, pmix_rank_t rank, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    dereg_t *d = malloc(sizeof(*d));
    if (d == NULL) {
        return;
    }
    PMIx_Load_procid(&d->proc, nspace, rank);
    d->cb = cbfunc;
    d->cbdata = cbdata;
    if (px_srv_shift(dereg_on_loop, d) != 0) {
        free(d);
    }
}

PMIX_EXPORT void PMIx_server_deregister_client(const pmix_proc_t *proc, pmix_op_cbfunc_t cbfunc,
                                               void *cbdata)
{
    if (px_srv == NULL || proc == NULL) {
        return;
    }
    dereg(proc->nspace, proc->rank, cbfunc, cbdata);
}

PMIX_EXPORT void PMIx_server_deregister_nspace(const pmix_nspace_t nspace, pmix_op_cbfunc_t cbfunc,
                                               void *cbdata)
{
    if (px_srv == NULL || nspace == NULL) {
        return;
    }
    dereg(nspace, PMIX_RANK_WILDCARD, cbfunc, cbdata);
}

/* Free server extensions of every namespace (finalize). */
void px_srv_reg_fini(void)
{
    for (px_nspace_t *ns = px_srv->store.nspaces; ns != NULL; ns = ns->next) {
        srv_ns_free(ns);
    }
}

/* ---- a child's environment ---- */

static pmix_status_t apply_env_directive(const pmix_info_t *in, char ***env)
{
    if (PMIX_CHECK_KEY(in, PMIX_UNSET_ENVAR)) {
        if (in->value.type == PMIX_STRING && in->value.data.string != NULL) {
            char **e = *env;
            size_t len = strlen(in->value.data.string);
            for (size_t i = 0; e != NULL && e[i] != NULL; i++) {
                if (strncmp(e[i], in->value.data.string, len) == 0 && e[i][len] == '=') {
                    free(e[i]);
                    memmove(&e[i], &e[i + 1], (PMIx_Argv_count(&e[i + 1]) + 1) * sizeof(char *));
                    break;
                }
            }
        }
        return PMIX_SUCCESS;
    }
    if (in->value.type != PMIX_ENVAR || in->value.data.envar.envar == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    const pmix_envar_t *ev = &in->value.data.envar;
    const char *val = ev->value ? ev->value : "";
    if (PMIX_CHECK_KEY(in, PMIX_SET_ENVAR) || PMIX_CHECK_KEY(in, PMIX_ADD_ENVAR)) {
        return PMIx_Setenv(ev->envar, val, PMIX_CHECK_KEY(in, PMIX_SET_ENVAR), env);
    }
    const char *old = NULL;
    size_t len = strlen(ev->envar);
    for (size_t i = 0; *env != NULL && (*env)[i] != NULL; i++) {
        if (strncmp((*env)[i], ev->envar, len) == 0 && (*env)[i][len] == '=') {
            old = (*env)[i] + len + 1;
        }
    }
    if (old == NULL || *old == '\0') {
        return PMIx_Setenv(ev->envar, val, true, env);
    }
    char sep = ev->separator ? ev->separator : ':';
    char *joined = NULL;
    int n = PMIX_CHECK_KEY(in, PMIX_PREPEND_ENVAR) ? asprintf(&joined, "%s%c%s", val, sep, old)
                                                   : asprintf(&joined, "%s%c%s", old, sep, val);
    if (n < 0) {
        return PMIX_ERR_NOMEM;
    }
    pmix_status_t rc = PMIx_Setenv(ev->envar, joined, true, env);
    free(joined);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_server_setup_fork(const pmix_proc_t *proc, char ***env)
{
    if (px_srv == NULL) {
        return PMIX_ERR_INIT;
    }
    if (proc == NULL || env == NULL || proc->rank >= PMIX_RANK_VALID) {
        return PMIX_ERR_BAD_PARAM;
    }
    char rank[16];
    snprintf(rank, sizeof(rank), "%u", proc->rank);
    pthread_mutex_lock(&px_srv->lock);
    pmix_status_t rc = PMIX_SUCCESS;
    const char *uri_vars[] = PX_ENV_URI_NAMES;
    for (size_t i = 0; i < sizeof(uri_vars) / sizeof(uri_vars[0]) && rc == PMIX_SUCCESS; i++) {
        rc = PMIx_Setenv(uri_vars[i], px_srv->uri, true, env);
    }
    const char *hostname = px_srv->store.my_hostname;
    struct {
        const char *name, *value;
    } vars[] = {
        {PX_ENV_NSPACE, proc->nspace},
        {PX_ENV_RANK, rank},
        {PX_ENV_TMPDIR, px_srv->tmpdir},
        {PX_ENV_SYSTMPDIR, px_srv->systmpdir},
        {PX_ENV_VERSION, PMIX_RUNTIME_API_LEVEL},
        {PX_ENV_HOSTNAME, hostname ? hostname : px_hostname()},
        {"PMIX_SECURITY_MODE", "native"},
    };
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]) && rc == PMIX_SUCCESS; i++) {
        rc = PMIx_Setenv(vars[i].name, vars[i].value, true, env);
    }
    px_nspace_t *ns = px_store_find(&px_srv->store, proc->nspace);
    srv_ns_t *x = ns ? ns->ext : NULL;
    for (size_t i = 0; x != NULL && i < x->nenvs && rc == PMIX_SUCCESS; i++) {
        rc = apply_env_directive(&x->envs[i], env);
    }
    /* The launcher rendezvous variables this process inherited are its own, never its
     * children's; the same names with other values were put in the app's environment by
     * the requester (a tool starting a launcher through us) and stay. */
    const char *private_vars[] = {PMIX_LAUNCHER_RNDZ_URI, PMIX_LAUNCHER_RNDZ_FILE,
                                  PMIX_KEEPALIVE_PIPE};
    const char *inherited[] = {px_srv->launcher_rndz_uri, px_srv->launcher_rndz_file,
                               px_srv->keepalive_str};
    for (size_t i = 0; i < 3 && rc == PMIX_SUCCESS; i++) {
        size_t len = strlen(private_vars[i]);
        for (size_t k = 0; inherited[i] != NULL && (*env)[k] != NULL; k++) {
            if (strncmp((*env)[k], private_vars[i], len) == 0 && (*env)[k][len] == '=' &&
                strcmp((*env)[k] + len + 1, inherited[i]) == 0) {
                pmix_info_t un;
                PMIx_Info_construct(&un);
                PMIx_Info_load(&un, PMIX_UNSET_ENVAR, private_vars[i], PMIX_STRING);
                rc = apply_env_directive(&un, env);
                PMIx_Info_destruct(&un);
                break;
            }
        }
    }
    pthread_mutex_unlock(&px_srv->lock);
    return rc;
}

/* ---- setup_application / setup_local_support ---- */

/* What PMIx_server_setup_application returns (Server chapter), for the host to hand to
 * PMIx_server_setup_local_support on each node before its processes are forked:
 *   - environment (PMIX_SETUP_APP_ENVARS or _ALL, the default when neither kind is
 *     named): one PMIX_SET_ENVAR per variable of the launcher's environment that PMIx
 *     clients read and a remote node would not have: PMIX_RUNTIME_DEBUG (our developer
 *     logging) and every PMIX_MCA_* (the conventional PMIx library parameters);
 *   - other data (PMIX_SETUP_APP_NONENVARS or _ALL): the programming model the host named
 *     (PMIX_PROGRAMMING_MODEL, PMIX_MODEL_LIBRARY_NAME/_VERSION), recorded for the job.
 * This library manages no fabric: the PMIX_ALLOC_FABRIC* / bandwidth / QoS requests are
 * refused with PMIX_ERR_NOT_SUPPORTED. PMIX_NODE_MAP / PMIX_PROC_MAP describe the job;
 * nothing here depends on them yet (no per-node resources to assign). */
typedef struct {
    pmix_setup_application_cbfunc_t cb;
    void *cbdata;
    pmix_info_t *info; /* owned until the host's release callback */
    size_t ninfo;
} setup_app_t;

static bool is_model_key(const pmix_info_t *in)
{
    return PMIX_CHECK_KEY(in, PMIX_PROGRAMMING_MODEL) ||
           PMIX_CHECK_KEY(in, PMIX_MODEL_LIBRARY_NAME) ||
           PMIX_CHECK_KEY(in, PMIX_MODEL_LIBRARY_VERSION);
}

static bool is_fabric_request(const pmix_info_t *in)
{
    static const char *keys[] = {PMIX_ALLOC_FABRIC,
                                 PMIX_ALLOC_FABRIC_ID,
                                 PMIX_ALLOC_FABRIC_SEC_KEY,
                                 PMIX_ALLOC_FABRIC_TYPE,
                                 PMIX_ALLOC_FABRIC_PLANE,
                                 PMIX_ALLOC_FABRIC_ENDPTS,
                                 PMIX_ALLOC_FABRIC_ENDPTS_NODE,
                                 PMIX_ALLOC_BANDWIDTH,
                                 PMIX_ALLOC_FABRIC_QOS};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        if (PMIX_CHECK_KEY(in, keys[i])) {
            return true;
        }
    }
    return false;
}

static bool harvested(const char *var)
{
    return strncmp(var, "PMIX_MCA_", 9) == 0 || strncmp(var, "PMIX_RUNTIME_DEBUG=", 19) == 0;
}

/* The setup data for info (see above) into *out / *nout. */
static pmix_status_t setup_app_data(const pmix_info_t *info, size_t ninfo, pmix_info_t **out,
                                    size_t *nout)
{
    bool env = false, other = false;
    size_t nmodel = 0;
    for (size_t i = 0; i < ninfo; i++) {
        if (is_fabric_request(&info[i])) {
            px_debug(1, "server", "setup_application: %s is not supported (no fabric support)",
                     info[i].key);
            return PMIX_ERR_NOT_SUPPORTED;
        }
        if (PMIX_CHECK_KEY(&info[i], PMIX_SETUP_APP_ENVARS)) {
            env |= PMIX_INFO_TRUE(&info[i]);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_SETUP_APP_NONENVARS)) {
            other |= PMIX_INFO_TRUE(&info[i]);
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_SETUP_APP_ALL) && PMIX_INFO_TRUE(&info[i])) {
            env = other = true;
        }
        nmodel += is_model_key(&info[i]);
    }
    if (!env && !other) {
        env = other = true;
    }
    size_t nenv = 0;
    for (size_t i = 0; env && environ[i] != NULL; i++) {
        nenv += harvested(environ[i]);
    }
    size_t n = nenv + (other ? nmodel : 0);
    *out = NULL;
    *nout = 0;
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    pmix_info_t *res = PMIx_Info_create(n);
    if (res == NULL) {
        return PMIX_ERR_NOMEM;
    }
    size_t k = 0;
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; env && environ[i] != NULL && k < nenv && rc == PMIX_SUCCESS; i++) {
        const char *eq = strchr(environ[i], '=');
        if (!harvested(environ[i]) || eq == NULL) {
            continue;
        }
        char *name = strndup(environ[i], (size_t)(eq - environ[i]));
        pmix_envar_t var = {.envar = name, .value = (char *)eq + 1, .separator = ':'};
        rc = name ? PMIx_Info_load(&res[k++], PMIX_SET_ENVAR, &var, PMIX_ENVAR) : PMIX_ERR_NOMEM;
        free(name);
    }
    for (size_t i = 0; other && i < ninfo && rc == PMIX_SUCCESS; i++) {
        if (is_model_key(&info[i])) {
            rc = PMIx_Info_xfer(&res[k++], &info[i]);
        }
    }
    if (rc != PMIX_SUCCESS) {
        PMIx_Info_free(res, n);
        return rc;
    }
    *out = res;
    *nout = k;
    return PMIX_SUCCESS;
}

/* The host is done with the data (pmix_op_cbfunc_t). */
static void setup_app_release(pmix_status_t status, void *arg)
{
    (void)status;
    setup_app_t *s = arg;
    PMIx_Info_free(s->info, s->ninfo);
    free(s);
}

static void setup_app_run(void *arg)
{
    setup_app_t *s = arg;
    s->cb(PMIX_SUCCESS, s->info, s->ninfo, s->cbdata, setup_app_release, s);
}

PMIX_EXPORT pmix_status_t PMIx_server_setup_application(const pmix_nspace_t nspace,
                                                        pmix_info_t info[], size_t ninfo,
                                                        pmix_setup_application_cbfunc_t cbfunc,
                                                        void *cbdata)
{
    if (px_srv == NULL) {
        return PMIX_ERR_INIT;
    }
    if (nspace == NULL || cbfunc == NULL || (ninfo > 0 && info == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    setup_app_t *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return PMIX_ERR_NOMEM;
    }
    s->cb = cbfunc;
    s->cbdata = cbdata;
    pmix_status_t rc = setup_app_data(info, ninfo, &s->info, &s->ninfo);
    if (rc == PMIX_SUCCESS && px_progress_shift(px_srv->prog, setup_app_run, s) != 0) {
        rc = PMIX_ERR_OUT_OF_RESOURCE;
    }
    if (rc != PMIX_SUCCESS) {
        PMIx_Info_free(s->info, s->ninfo);
        free(s);
    }
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_server_setup_local_support(const pmix_nspace_t nspace,
                                                          pmix_info_t info[], size_t ninfo,
                                                          pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (px_srv == NULL) {
        return PMIX_ERR_INIT;
    }
    if (nspace == NULL || (ninfo > 0 && info == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    /* what setup_application returned: environment directives for setup_fork, the
     * programming model for the job realm; anything else came from a library we do not
     * know how to serve */
    for (size_t i = 0; i < ninfo; i++) {
        if (!is_env_directive(&info[i]) && !is_model_key(&info[i])) {
            px_debug(1, "server", "setup_local_support: %s is not supported", info[i].key);
            return PMIX_ERR_NOT_SUPPORTED;
        }
    }
    pthread_mutex_lock(&px_srv->lock);
    pmix_status_t rc = PMIX_SUCCESS;
    px_nspace_t *ns = px_store_find(&px_srv->store, nspace);
    if (ns == NULL) {
        rc = PMIX_ERR_NOT_FOUND; /* the host registers the namespace first */
    }
    if (rc == PMIX_SUCCESS) {
        rc = keep_env_directives(ns, info, ninfo);
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < ninfo; i++) {
        if (is_model_key(&info[i])) {
            rc = px_kvset_put(&ns->job, info[i].key, &info[i].value);
        }
    }
    pthread_mutex_unlock(&px_srv->lock);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    return px_progress_op_later(px_srv->prog, cbfunc, cbdata, PMIX_SUCCESS);
}

/* ---- process sets ---- */

/* Tell the local processes (Chap_API_Process_Sets: PMIX_PSET_NAME, and PMIX_PSET_MEMBERS
 * for a definition) that registered for the code: PMIX_EVENT_NON_DEFAULT keeps it from
 * default handlers, as OpenPMIx does — Open MPI 4.1 aborts on any event its default
 * handler gets. */
static void pset_event(pmix_status_t code, const px_pset_t *p)
{
    pmix_info_t info[3];
    size_t n = 2;
    bool yes = true;
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_PSET_NAME, p->name, PMIX_STRING);
    pmix_data_array_t members = {.type = PMIX_PROC, .size = p->nmembers, .array = p->members};
    if (code == PMIX_PROCESS_SET_DEFINE) {
        PMIX_INFO_LOAD(&info[2], PMIX_PSET_MEMBERS, &members, PMIX_DATA_ARRAY);
        n = 3;
    }
    px_srv_event_raise(code, PMIX_RANGE_LOCAL, info, n);
    for (size_t i = 0; i < n; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
}

PMIX_EXPORT pmix_status_t PMIx_server_define_process_set(const pmix_proc_t *members,
                                                         size_t nmembers, const char *pset_name)
{
    if (px_srv == NULL) {
        return PMIX_ERR_INIT;
    }
    if (pset_name == NULL || pset_name[0] == '\0' || (nmembers > 0 && members == NULL)) {
        return PMIX_ERR_BAD_PARAM;
    }
    pthread_mutex_lock(&px_srv->lock);
    pmix_status_t rc = PMIX_SUCCESS;
    for (px_pset_t *p = px_srv->psets; p != NULL; p = p->next) {
        if (strcmp(p->name, pset_name) == 0) {
            rc = PMIX_EXISTS;
            goto out;
        }
    }
    px_pset_t *p = calloc(1, sizeof(*p));
    if (p == NULL || (p->name = strdup(pset_name)) == NULL ||
        (nmembers > 0 && (p->members = malloc(nmembers * sizeof(*members))) == NULL)) {
        if (p != NULL) {
            free(p->name);
        }
        free(p);
        rc = PMIX_ERR_NOMEM;
        goto out;
    }
    if (nmembers > 0) {
        memcpy(p->members, members, nmembers * sizeof(*members));
    }
    p->nmembers = nmembers;
    p->next = px_srv->psets;
    px_srv->psets = p;
    pset_event(PMIX_PROCESS_SET_DEFINE, p);
out:
    pthread_mutex_unlock(&px_srv->lock);
    return rc;
}

PMIX_EXPORT pmix_status_t PMIx_server_delete_process_set(char *pset_name)
{
    if (px_srv == NULL) {
        return PMIX_ERR_INIT;
    }
    if (pset_name == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pthread_mutex_lock(&px_srv->lock);
    pmix_status_t rc = PMIX_ERR_NOT_FOUND;
    for (px_pset_t **pp = &px_srv->psets; *pp != NULL; pp = &(*pp)->next) {
        if (strcmp((*pp)->name, pset_name) == 0) {
            px_pset_t *p = *pp;
            *pp = p->next;
            pset_event(PMIX_PROCESS_SET_DELETE, p);
            free(p->name);
            free(p->members);
            free(p);
            rc = PMIX_SUCCESS;
            break;
        }
    }
    pthread_mutex_unlock(&px_srv->lock);
    return rc;
}

pmix_status_t px_srv_pset_names(const pmix_proc_t *proc, pmix_value_t *val)
{
    size_t n = 0;
    for (px_pset_t *p = px_srv->psets; p != NULL; p = p->next) {
        for (size_t i = 0; i < p->nmembers; i++) {
            if (PMIx_Check_procid(&p->members[i], proc)) {
                n++;
                break;
            }
        }
    }
    pmix_data_array_t *arr = n ? PMIx_Data_array_create(n, PMIX_STRING) : calloc(1, sizeof(*arr));
    if (arr == NULL) {
        return PMIX_ERR_NOMEM;
    }
    arr->type = PMIX_STRING; /* an empty array: member of no set */
    char **names = arr->array;
    size_t k = 0;
    for (px_pset_t *p = px_srv->psets; p != NULL; p = p->next) {
        for (size_t i = 0; i < p->nmembers; i++) {
            if (PMIx_Check_procid(&p->members[i], proc)) {
                names[k++] = strdup(p->name);
                break;
            }
        }
    }
    val->type = PMIX_DATA_ARRAY;
    val->data.darray = arr;
    return PMIX_SUCCESS;
}

/* ---- attributes ---- */

PMIX_EXPORT pmix_status_t PMIx_Register_attributes(char *function, char *attrs[])
{
    if (px_srv == NULL) {
        return PMIX_ERR_INIT;
    }
    if (function == NULL || attrs == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    char *joined = PMIx_Argv_join(attrs, ',');
    if (joined == NULL) {
        return PMIX_ERR_NOMEM;
    }
    pthread_mutex_lock(&px_srv->lock);
    pmix_status_t rc = PMIX_ERR_NOMEM;
    pmix_info_t *a = realloc(px_srv->attrs, (px_srv->nattrs + 1) * sizeof(*a));
    if (a != NULL) {
        px_srv->attrs = a;
        PMIx_Info_construct(&a[px_srv->nattrs]);
        PMIx_Info_load(&a[px_srv->nattrs++], function, joined, PMIX_STRING);
        rc = PMIX_SUCCESS;
    }
    pthread_mutex_unlock(&px_srv->lock);
    free(joined);
    return rc;
}
