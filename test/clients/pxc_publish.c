/*
 * pxc_publish.c - PMIx_Publish/Lookup/Unpublish through the host: a lookup that waits for
 * a later publish, duplicate keys, unpublish, unknown keys, and the _nb forms.
 * Usage: pxc_publish   (needs at least 2 ranks)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pxc_common.h"

static pmix_proc_t me;
static int nranks;

static void fence_all(void)
{
    pmix_proc_t all;
    pmix_status_t rc;

    PMIx_Load_procid(&all, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Fence(&all, 1, NULL, 0);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Fence failed: %s", PMIx_Error_string(rc));
}

static void publish_str(const char *key, const char *value, pmix_status_t want)
{
    pmix_info_t info;
    pmix_status_t rc;

    PMIx_Info_load(&info, key, value, PMIX_STRING);
    rc = PMIx_Publish(&info, 1);
    PMIx_Info_destruct(&info);
    if (rc != want)
        pxc_fail("PMIx_Publish(%s = \"%s\"): expected %s, got %s", key, value,
                 PMIx_Error_string(want), PMIx_Error_string(rc));
}

static void lookup_immediate(const char *key, pmix_status_t want)
{
    pmix_pdata_t pd;
    pmix_status_t rc;
    double t0 = pxc_now();

    PMIx_Pdata_construct(&pd);
    PMIx_Load_key(pd.key, key);
    rc = PMIx_Lookup(&pd, 1, NULL, 0);
    if (rc != want)
        pxc_fail("PMIx_Lookup(%s) without PMIX_WAIT: expected %s, got %s", key,
                 PMIx_Error_string(want), PMIx_Error_string(rc));
    if (pxc_now() - t0 > 3)
        pxc_fail("PMIx_Lookup(%s) without PMIX_WAIT took %.1f s", key, pxc_now() - t0);
    PMIx_Pdata_destruct(&pd);
}

static void lookup_wait(const char *key, const char *want_value, pmix_rank_t publisher)
{
    pmix_pdata_t pd;
    pmix_info_t info[2];
    int wait = 0, timeout = 10;
    pmix_status_t rc;

    PMIx_Pdata_construct(&pd);
    PMIx_Load_key(pd.key, key);
    PMIx_Info_load(&info[0], PMIX_WAIT, &wait, PMIX_INT);
    PMIx_Info_load(&info[1], PMIX_TIMEOUT, &timeout, PMIX_INT);
    rc = PMIx_Lookup(&pd, 1, info, 2);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Lookup(%s, PMIX_WAIT, PMIX_TIMEOUT 10) failed: %s", key,
                 PMIx_Error_string(rc));
    if (pd.value.type != PMIX_STRING || !pd.value.data.string ||
        strcmp(pd.value.data.string, want_value) != 0)
        pxc_fail("PMIx_Lookup(%s): expected string \"%s\", got type %s \"%s\"", key, want_value,
                 PMIx_Data_type_string(pd.value.type),
                 pd.value.type == PMIX_STRING && pd.value.data.string ? pd.value.data.string : "");
    if (pd.proc.rank != publisher || strncmp(pd.proc.nspace, me.nspace, PMIX_MAX_NSLEN))
        pxc_fail("PMIx_Lookup(%s): expected publisher %s rank %u, got %s rank %u", key, me.nspace,
                 publisher, pd.proc.nspace, pd.proc.rank);
    PMIx_Info_destruct(&info[0]);
    PMIx_Info_destruct(&info[1]);
    PMIx_Pdata_destruct(&pd);
}

/* Check a callback came exactly once (and stays at once). */
static void expect_once(pxc_cb_t *cb, const char *what)
{
    if (!pxc_cb_wait(cb, 10))
        pxc_fail("%s: callback not called within 10 s", what);
    usleep(100000);
    if (cb->calls != 1)
        pxc_fail("%s: callback called %d times, expected once", what, cb->calls);
    if (cb->status != PMIX_SUCCESS)
        pxc_fail("%s: callback status %s, expected success", what, PMIx_Error_string(cb->status));
}

static void lookup_cb(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void *cbdata)
{
    pxc_cb_t *cb = cbdata;

    pthread_mutex_lock(&cb->lock);
    if (cb->calls == 0 && status == PMIX_SUCCESS && ndata > 0) {
        cb->pdata = PMIx_Pdata_create(ndata);
        for (size_t i = 0; i < ndata; i++)
            PMIx_Pdata_xfer(&cb->pdata[i], &data[i]);
        cb->npdata = ndata;
    }
    pthread_mutex_unlock(&cb->lock);
    pxc_cb_mark(cb, status);
}

static void nb_forms(void)
{
    char key[64], want[64];
    pmix_info_t info[2];
    pxc_cb_t cb;
    pmix_status_t rc;
    int next = ((int)me.rank + 1) % nranks, wait = 0, timeout = 10;
    char *keys[2] = {key, NULL};

    /* every rank publishes its own key */
    snprintf(key, sizeof(key), "nb.%u", me.rank);
    snprintf(want, sizeof(want), "nb-value-%u", me.rank);
    PMIx_Info_load(&info[0], key, want, PMIX_STRING);
    pxc_cb_init(&cb);
    rc = PMIx_Publish_nb(info, 1, pxc_cb_op, &cb);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Publish_nb(%s) failed: %s", key, PMIx_Error_string(rc));
    expect_once(&cb, "PMIx_Publish_nb");
    PMIx_Info_destruct(&info[0]);

    /* and looks up its neighbour's */
    snprintf(key, sizeof(key), "nb.%d", next);
    snprintf(want, sizeof(want), "nb-value-%d", next);
    PMIx_Info_load(&info[0], PMIX_WAIT, &wait, PMIX_INT);
    PMIx_Info_load(&info[1], PMIX_TIMEOUT, &timeout, PMIX_INT);
    pxc_cb_init(&cb);
    rc = PMIx_Lookup_nb(keys, info, 2, lookup_cb, &cb);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Lookup_nb(%s) failed: %s", key, PMIx_Error_string(rc));
    expect_once(&cb, "PMIx_Lookup_nb");
    if (cb.npdata != 1 || cb.pdata[0].value.type != PMIX_STRING ||
        strcmp(cb.pdata[0].value.data.string, want) != 0 ||
        strncmp(cb.pdata[0].key, key, PMIX_MAX_KEYLEN) != 0)
        pxc_fail("PMIx_Lookup_nb(%s): expected 1 result \"%s\", got %zu results", key, want,
                 cb.npdata);
    PMIx_Pdata_free(cb.pdata, cb.npdata);
    PMIx_Info_destruct(&info[0]);
    PMIx_Info_destruct(&info[1]);
    fence_all();

    /* everyone removes its own key */
    snprintf(key, sizeof(key), "nb.%u", me.rank);
    pxc_cb_init(&cb);
    rc = PMIx_Unpublish_nb(keys, NULL, 0, pxc_cb_op, &cb);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Unpublish_nb(%s) failed: %s", key, PMIx_Error_string(rc));
    expect_once(&cb, "PMIx_Unpublish_nb");
    lookup_immediate(key, PMIX_ERR_NOT_FOUND);
}

int main(int argc, char **argv)
{
    char value[PMIX_MAX_NSLEN + 32];
    char *keys[] = {"svc", NULL};
    pmix_status_t rc;

    pxc_name = "pxc_publish";
    pxc_init(&me, &nranks);
    if (nranks < 2)
        pxc_fail("needs at least 2 ranks, got %d", nranks);
    snprintf(value, sizeof(value), "port-%s-4242", me.nspace);
    if (me.rank == 0) {
        usleep(200000); /* the others are already waiting in their lookup */
        publish_str("svc", value, PMIX_SUCCESS);
    } else {
        lookup_wait("svc", value, 0);
    }
    fence_all();
    if (me.rank == 0) {
        publish_str("svc", "another-value", PMIX_ERR_DUPLICATE_KEY);
        rc = PMIx_Unpublish(keys, NULL, 0);
        if (rc != PMIX_SUCCESS)
            pxc_fail("PMIx_Unpublish(svc) failed: %s", PMIx_Error_string(rc));
        lookup_immediate("svc", PMIX_ERR_NOT_FOUND);
        lookup_immediate("no-such-service", PMIX_ERR_NOT_FOUND);
    }
    fence_all();
    nb_forms();
    fence_all();
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS)
        pxc_fail("PMIx_Finalize failed: %s", PMIx_Error_string(rc));
    return 0;
}
