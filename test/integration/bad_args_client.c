/* bad_args_client: the client API's answers to bad input.
 *   bad_args_client pre     no server in the environment: every call before PMIx_Init is
 *                           PMIX_ERR_INIT, PMIx_Init is PMIX_ERR_UNREACH (quietly)
 *   bad_args_client badenv  PMIX_SERVER_URI that is not ours: PMIx_Init is
 *                           PMIX_ERR_BAD_PARAM with the help message (checked by the test)
 *   bad_args_client post    under pxhost: malformed arguments after PMIx_Init are
 *                           PMIX_ERR_BAD_PARAM and leave the connection usable
 * Exit 0 when every answer is the expected one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

static int failures = 0;

static void expect(pmix_status_t got, pmix_status_t want, const char *what)
{
    if (got != want) {
        fprintf(stderr, "bad_args_client: %s: expected %s, got %s\n", what, PMIx_Error_string(want),
                PMIx_Error_string(got));
        failures++;
    }
}

static void never_cb(pmix_status_t status, void *cbdata)
{
    (void)status;
    (void)cbdata;
    fprintf(stderr, "bad_args_client: a callback came for a refused call\n");
    failures++;
}

static void never_op(pmix_status_t status, void *cbdata)
{
    (void)status;
    (void)cbdata;
    fprintf(stderr, "bad_args_client: a callback came for a refused call\n");
    failures++;
}

static void never_info(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                       pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    (void)status;
    (void)info;
    (void)ninfo;
    (void)cbdata;
    (void)release_fn;
    (void)release_cbdata;
    fprintf(stderr, "bad_args_client: a callback came for a refused call\n");
    failures++;
}

static int pre(void)
{
    unsetenv("PMIX_NAMESPACE");
    unsetenv("PMIX_RANK");
    unsetenv("PMIX_SERVER_URI");
    pmix_value_t v, *out = NULL;
    PMIx_Value_load(&v, "x", PMIX_STRING);
    pmix_proc_t p;
    PMIx_Load_procid(&p, "nowhere", 0);
    expect(PMIx_Initialized(), 0, "PMIx_Initialized before init");
    expect(PMIx_Put(PMIX_GLOBAL, "k", &v), PMIX_ERR_INIT, "PMIx_Put before init");
    expect(PMIx_Commit(), PMIX_ERR_INIT, "PMIx_Commit before init");
    expect(PMIx_Get(&p, "k", NULL, 0, &out), PMIX_ERR_INIT, "PMIx_Get before init");
    expect(PMIx_Fence(NULL, 0, NULL, 0), PMIX_ERR_INIT, "PMIx_Fence before init");
    expect(PMIx_Fence_nb(NULL, 0, NULL, 0, never_cb, NULL), PMIX_ERR_INIT,
           "PMIx_Fence_nb before init");
    expect(PMIx_Abort(1, "x", NULL, 0), PMIX_ERR_INIT, "PMIx_Abort before init");
    expect(PMIx_Group_construct("g", &p, 1, NULL, 0, NULL, NULL), PMIX_ERR_INIT,
           "PMIx_Group_construct before init");
    expect(PMIx_Group_leave("g", NULL, 0), PMIX_ERR_INIT, "PMIx_Group_leave before init");
    expect(PMIx_Connect(&p, 1, NULL, 0), PMIX_ERR_INIT, "PMIx_Connect before init");
    expect(PMIx_Disconnect_nb(&p, 1, NULL, 0, never_op, NULL), PMIX_ERR_INIT,
           "PMIx_Disconnect_nb before init");
    expect(PMIx_Finalize(NULL, 0), PMIX_ERR_INIT, "PMIx_Finalize before init");
    pmix_proc_t me;
    expect(PMIx_Init(&me, NULL, 0), PMIX_ERR_UNREACH, "PMIx_Init without a server");
    expect(PMIx_Initialized(), 0, "PMIx_Initialized after a failed init");
    PMIx_Value_destruct(&v);
    return failures ? 1 : 0;
}

static int badenv(void)
{
    setenv("PMIX_NAMESPACE", "job", 1);
    setenv("PMIX_RANK", "0", 1);
    setenv("PMIX_SERVER_URI", "tcp4://10.0.0.1:5000", 1);
    pmix_proc_t me;
    expect(PMIx_Init(&me, NULL, 0), PMIX_ERR_BAD_PARAM, "PMIx_Init with a foreign URI");
    return failures ? 1 : 0;
}

static int badrank(void)
{
    setenv("PMIX_NAMESPACE", "job", 1);
    setenv("PMIX_SERVER_URI", "job.0;usock:/tmp/x", 1);
    setenv("PMIX_RANK", "zero", 1);
    pmix_proc_t me;
    expect(PMIx_Init(&me, NULL, 0), PMIX_ERR_BAD_PARAM, "PMIx_Init with PMIX_RANK=zero");
    setenv("PMIX_RANK", "4294967295", 1);
    expect(PMIx_Init(&me, NULL, 0), PMIX_ERR_BAD_PARAM, "PMIx_Init with a wildcard rank");
    return failures ? 1 : 0;
}

static int post(void)
{
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "bad_args_client: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_value_t v, *out = NULL;
    PMIx_Value_load(&v, "x", PMIX_STRING);
    char longkey[PMIX_MAX_KEYLEN + 8];
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    expect(PMIx_Put(PMIX_GLOBAL, NULL, &v), PMIX_ERR_BAD_PARAM, "PMIx_Put(NULL key)");
    expect(PMIx_Put(PMIX_GLOBAL, "", &v), PMIX_ERR_BAD_PARAM, "PMIx_Put(empty key)");
    expect(PMIx_Put(PMIX_GLOBAL, longkey, &v), PMIX_ERR_BAD_PARAM, "PMIx_Put(over-long key)");
    expect(PMIx_Put((pmix_scope_t)77, "k", &v), PMIX_ERR_BAD_PARAM, "PMIx_Put(unknown scope)");
    expect(PMIx_Put(PMIX_GLOBAL, "k", NULL), PMIX_ERR_BAD_PARAM, "PMIx_Put(NULL value)");
    expect(PMIx_Get(&me, NULL, NULL, 0, &out), PMIX_ERR_BAD_PARAM, "PMIx_Get(NULL key)");
    expect(PMIx_Get(&me, longkey, NULL, 0, &out), PMIX_ERR_BAD_PARAM, "PMIx_Get(over-long key)");
    expect(PMIx_Get(&me, "k", NULL, 0, NULL), PMIX_ERR_BAD_PARAM, "PMIx_Get(NULL result)");
    expect(PMIx_Get(&me, "k", NULL, 2, &out), PMIX_ERR_BAD_PARAM, "PMIx_Get(NULL info, n=2)");
    expect(PMIx_Get_nb(&me, "k", NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM, "PMIx_Get_nb(NULL cb)");
    expect(PMIx_Fence(NULL, 2, NULL, 0), PMIX_ERR_BAD_PARAM, "PMIx_Fence(NULL procs, n=2)");
    expect(PMIx_Fence_nb(NULL, 0, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
           "PMIx_Fence_nb(NULL cb)");
    expect(PMIx_Publish(NULL, 0), PMIX_ERR_BAD_PARAM, "PMIx_Publish(nothing)");
    expect(PMIx_Lookup(NULL, 0, NULL, 0), PMIX_ERR_BAD_PARAM, "PMIx_Lookup(nothing)");
    expect(PMIx_Lookup_nb(NULL, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
           "PMIx_Lookup_nb(no keys)");
    expect(PMIx_Log(NULL, 0, NULL, 0), PMIX_ERR_BAD_PARAM, "PMIx_Log(nothing)");
    expect(PMIx_Abort(1, "x", NULL, 3), PMIX_ERR_BAD_PARAM, "PMIx_Abort(NULL procs, n=3)");
    expect(PMIx_Store_internal(NULL, "k", &v), PMIX_ERR_BAD_PARAM,
           "PMIx_Store_internal(NULL proc)");
    expect(PMIx_Resolve_peers(NULL, NULL, NULL, NULL), PMIX_ERR_BAD_PARAM,
           "PMIx_Resolve_peers(NULL results)");
    /* groups and connect: refused before anything is sent (no callback) */
    char longgrp[PMIX_MAX_NSLEN + 8];
    memset(longgrp, 'g', sizeof(longgrp) - 1);
    longgrp[sizeof(longgrp) - 1] = '\0';
    pmix_info_t *res = NULL;
    size_t nres = 0;
    expect(PMIx_Group_construct(NULL, &me, 1, NULL, 0, &res, &nres), PMIX_ERR_BAD_PARAM,
           "PMIx_Group_construct(NULL id)");
    expect(PMIx_Group_construct("", &me, 1, NULL, 0, &res, &nres), PMIX_ERR_BAD_PARAM,
           "PMIx_Group_construct(empty id)");
    expect(PMIx_Group_construct(longgrp, &me, 1, NULL, 0, &res, &nres), PMIX_ERR_BAD_PARAM,
           "PMIx_Group_construct(over-long id)");
    expect(PMIx_Group_construct("g", NULL, 2, NULL, 0, &res, &nres), PMIX_ERR_BAD_PARAM,
           "PMIx_Group_construct(NULL procs, n=2)");
    expect(PMIx_Group_construct("g", &me, 1, NULL, 2, &res, &nres), PMIX_ERR_BAD_PARAM,
           "PMIx_Group_construct(NULL directives, n=2)");
    expect(PMIx_Group_construct_nb("g", &me, 1, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
           "PMIx_Group_construct_nb(NULL cb)");
    expect(PMIx_Group_invite("g", NULL, 0, NULL, 0, &res, &nres), PMIX_ERR_BAD_PARAM,
           "PMIx_Group_invite(nobody)");
    expect(PMIx_Group_join("g", &me, (pmix_group_opt_t)7, NULL, 0, &res, &nres), PMIX_ERR_BAD_PARAM,
           "PMIx_Group_join(unknown accept/decline value)");
    expect(PMIx_Group_join_nb(NULL, &me, PMIX_GROUP_ACCEPT, NULL, 0, never_info, NULL),
           PMIX_ERR_BAD_PARAM, "PMIx_Group_join_nb(NULL id)");
    expect(PMIx_Group_destruct_nb("g", NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
           "PMIx_Group_destruct_nb(NULL cb)");
    expect(PMIx_Group_leave(longgrp, NULL, 0), PMIX_ERR_BAD_PARAM,
           "PMIx_Group_leave(over-long id)");
    expect(PMIx_Group_leave_nb("g", NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
           "PMIx_Group_leave_nb(NULL cb)");
    expect(PMIx_Connect(NULL, 0, NULL, 0), PMIX_ERR_BAD_PARAM, "PMIx_Connect(nobody)");
    expect(PMIx_Connect_nb(&me, 1, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM,
           "PMIx_Connect_nb(NULL cb)");
    expect(PMIx_Disconnect(&me, 1, NULL, 3), PMIX_ERR_BAD_PARAM, "PMIx_Disconnect(NULL info, n=3)");
    /* answered by the server: not a member, not connected, no such group */
    pmix_proc_t other = me;
    other.rank = me.rank == 0 ? 1 : 0;
    expect(PMIx_Group_construct("g", &other, 1, NULL, 0, &res, &nres), PMIX_ERR_NOT_A_MEMBER,
           "PMIx_Group_construct without the caller");
    expect(PMIx_Group_destruct("nosuch", NULL, 0), PMIX_ERR_NOT_FOUND,
           "PMIx_Group_destruct(unknown group)");
    expect(PMIx_Disconnect(&me, 1, NULL, 0), PMIX_ERR_INVALID_OPERATION,
           "PMIx_Disconnect without a connect");
    /* this host has no `group` function: a group of this node's processes is built by
     * the library alone, a context id is refused */
    pmix_proc_t job;
    PMIx_Load_procid(&job, me.nspace, PMIX_RANK_WILDCARD);
    expect(PMIx_Group_construct("here", &job, 1, NULL, 0, &res, &nres), PMIX_SUCCESS,
           "PMIx_Group_construct of this node's job without the host");
    PMIx_Info_free(res, nres);
    res = NULL;
    nres = 0;
    expect(PMIx_Group_destruct("here", NULL, 0), PMIX_SUCCESS, "PMIx_Group_destruct");
    bool yes = true;
    pmix_info_t ctx;
    PMIx_Info_load(&ctx, PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    expect(PMIx_Group_construct("ctx", &job, 1, &ctx, 1, &res, &nres), PMIX_ERR_NOT_SUPPORTED,
           "PMIx_Group_construct with a context id, the host has no group function");
    PMIx_Info_destruct(&ctx);
    /* the connection is still good */
    expect(PMIx_Put(PMIX_GLOBAL, "k", &v), PMIX_SUCCESS, "PMIx_Put after the bad calls");
    expect(PMIx_Commit(), PMIX_SUCCESS, "PMIx_Commit after the bad calls");
    expect(PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS, "PMIx_Fence after the bad calls");
    expect(PMIx_Finalize(NULL, 0), PMIX_SUCCESS, "PMIx_Finalize");
    expect(PMIx_Finalize(NULL, 0), PMIX_ERR_INIT, "a second PMIx_Finalize");
    PMIx_Value_destruct(&v);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "pre") == 0) {
        return pre();
    }
    if (strcmp(mode, "badenv") == 0) {
        return badenv();
    }
    if (strcmp(mode, "badrank") == 0) {
        return badrank();
    }
    if (strcmp(mode, "post") == 0) {
        return post();
    }
    fprintf(stderr, "usage: %s pre|badenv|badrank|post\n", argv[0]);
    return 2;
}
