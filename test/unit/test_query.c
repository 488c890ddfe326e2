/* Unit tests of common/query.c: the flat result form (keys, order, no qualifiers, status),
 * the wire form of answers, input checks, the rendezvous scan of AVAIL_SERVERS. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "common/px_query.h"

static void mkquery(pmix_query_t *q, const char *k1, const char *k2, const char *qual)
{
    PMIX_QUERY_CONSTRUCT(q);
    PMIx_Argv_append_nosize(&q->keys, k1);
    if (k2 != NULL) {
        PMIx_Argv_append_nosize(&q->keys, k2);
    }
    if (qual != NULL) {
        q->qualifiers = PMIx_Info_create(1);
        q->nqual = 1;
        PMIx_Info_load(&q->qualifiers[0], PMIX_NSPACE, qual, PMIX_STRING);
    }
}

static void add_str(px_qans_t *a, const char *key, const char *s)
{
    pmix_value_t v;
    PMIx_Value_construct(&v);
    PMIx_Value_load(&v, s, PMIX_STRING);
    cr_assert_eq(px_qans_add(a, key, &v), PMIX_SUCCESS);
    PMIx_Value_destruct(&v);
}

/* A debugger's capability query (OpenPMIx examples/debugger.c): one query with two keys
 * must give two results, each under its query key, in the order asked, with no
 * PMIX_QUERY_RESULTS wrapping and no qualifiers echoed. */
Test(query, assemble_is_flat_in_the_order_asked)
{
    pmix_query_t q[2];
    mkquery(&q[0], PMIX_QUERY_SPAWN_SUPPORT, PMIX_QUERY_DEBUG_SUPPORT, NULL);
    mkquery(&q[1], "k.c", NULL, "ns1");
    px_qans_t ans[2] = {{0}};
    add_str(&ans[0], PMIX_QUERY_DEBUG_SUPPORT, "D"); /* arrives first, reported second */
    add_str(&ans[0], PMIX_QUERY_SPAWN_SUPPORT, "S");
    add_str(&ans[1], "k.c", "C");
    add_str(&ans[1], "k.stray", "X"); /* a key query 1 did not ask: dropped */
    pmix_info_t *res;
    size_t n;
    cr_assert_eq(px_query_assemble(q, 2, ans, &res, &n), PMIX_SUCCESS);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(res[0].key, PMIX_QUERY_SPAWN_SUPPORT);
    cr_assert_str_eq(res[0].value.data.string, "S");
    cr_assert_str_eq(res[1].key, PMIX_QUERY_DEBUG_SUPPORT);
    cr_assert_str_eq(res[1].value.data.string, "D");
    cr_assert_str_eq(res[2].key, "k.c");
    cr_assert_eq(res[2].value.type, PMIX_STRING);
    cr_assert_str_eq(res[2].value.data.string, "C");
    PMIx_Info_free(res, n);
    px_qans_free(NULL, 0);
    for (int i = 0; i < 2; i++) {
        px_bfrops_info_array_free(ans[i].kv, ans[i].n);
        PMIX_QUERY_DESTRUCT(&q[i]);
    }
}

Test(query, assemble_key_asked_twice_gets_two_entries)
{
    pmix_query_t q[2];
    mkquery(&q[0], PMIX_QUERY_PROC_TABLE, NULL, "ns1");
    mkquery(&q[1], PMIX_QUERY_PROC_TABLE, NULL, "ns2");
    px_qans_t ans[2] = {{0}};
    add_str(&ans[0], PMIX_QUERY_PROC_TABLE, "one");
    add_str(&ans[1], PMIX_QUERY_PROC_TABLE, "two");
    pmix_info_t *res;
    size_t n;
    cr_assert_eq(px_query_assemble(q, 2, ans, &res, &n), PMIX_SUCCESS);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(res[0].value.data.string, "one");
    cr_assert_str_eq(res[1].value.data.string, "two");
    PMIx_Info_free(res, n);
    for (int i = 0; i < 2; i++) {
        px_bfrops_info_array_free(ans[i].kv, ans[i].n);
        PMIX_QUERY_DESTRUCT(&q[i]);
    }
}

/* An attribute-support query is one unit: one PMIX_QUERY_ATTRIBUTE_SUPPORT entry holding
 * its answers (the form OpenPMIx's pattrs reads). */
Test(query, assemble_attribute_support_is_one_entry)
{
    pmix_query_t q;
    mkquery(&q, PMIX_QUERY_ATTRIBUTE_SUPPORT, "PMIx_Fence", NULL);
    px_qans_t ans[1] = {{0}};
    add_str(&ans[0], PMIX_CLIENT_FUNCTIONS, "PMIx_Init");
    add_str(&ans[0], "PMIx_Fence", "levels");
    pmix_info_t *res;
    size_t n;
    cr_assert_eq(px_query_assemble(&q, 1, ans, &res, &n), PMIX_SUCCESS);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(res[0].key, PMIX_QUERY_ATTRIBUTE_SUPPORT);
    cr_assert_eq(res[0].value.type, PMIX_DATA_ARRAY);
    cr_assert_eq(res[0].value.data.darray->type, PMIX_INFO);
    cr_assert_eq(res[0].value.data.darray->size, 2);
    const pmix_info_t *e = res[0].value.data.darray->array;
    cr_assert_str_eq(e[0].key, PMIX_CLIENT_FUNCTIONS);
    cr_assert_str_eq(e[1].key, "PMIx_Fence");
    PMIx_Info_free(res, n);
    px_bfrops_info_array_free(ans[0].kv, ans[0].n);
    PMIX_QUERY_DESTRUCT(&q);
}

Test(query, assemble_partial_and_not_found)
{
    pmix_query_t q[2];
    mkquery(&q[0], "k.a", "k.dup", NULL);
    mkquery(&q[1], "k.x", NULL, NULL);
    px_qans_t ans[2] = {{0}};
    pmix_info_t *res = (pmix_info_t *)1;
    size_t n = 3;
    cr_assert_eq(px_query_assemble(q, 2, ans, &res, &n), PMIX_ERR_NOT_FOUND);
    cr_assert_null(res);
    cr_assert_eq(n, 0);
    add_str(&ans[0], "k.a", "A");
    cr_assert_eq(px_query_assemble(q, 2, ans, &res, &n), PMIX_QUERY_PARTIAL_SUCCESS);
    cr_assert_eq(n, 1); /* only what was found: no entry for a query that found nothing */
    cr_assert_str_eq(res[0].key, "k.a");
    PMIx_Info_free(res, n);
    px_bfrops_info_array_free(ans[0].kv, ans[0].n);
    PMIX_QUERY_DESTRUCT(&q[0]);
    PMIX_QUERY_DESTRUCT(&q[1]);
}

Test(query, check_refuses_bad_input)
{
    pmix_query_t q;
    char *none[] = {NULL};
    mkquery(&q, "k.a", NULL, NULL);
    cr_assert_eq(px_query_check(&q, 1), PMIX_SUCCESS);
    cr_assert_eq(px_query_check(NULL, 1), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(px_query_check(&q, 0), PMIX_ERR_BAD_PARAM);
    q.nqual = 1; /* qualifiers NULL */
    cr_assert_eq(px_query_check(&q, 1), PMIX_ERR_BAD_PARAM);
    q.nqual = 0;
    char **keys = q.keys;
    q.keys = none;
    cr_assert_eq(px_query_check(&q, 1), PMIX_ERR_BAD_PARAM);
    q.keys = NULL;
    cr_assert_eq(px_query_check(&q, 1), PMIX_ERR_BAD_PARAM);
    q.keys = keys;
    PMIX_QUERY_DESTRUCT(&q);
}

Test(query, answers_survive_the_wire)
{
    px_qans_t ans[3] = {{0}};
    add_str(&ans[0], "k.a", "A");
    add_str(&ans[2], "k.c", "C");
    add_str(&ans[2], "k.d", "D");
    pmix_data_buffer_t buf;
    px_bfrops_buf_init(&buf);
    cr_assert_eq(px_qans_pack(&buf, ans, 3), PMIX_SUCCESS);
    px_qans_t *got;
    size_t n;
    cr_assert_eq(px_qans_unpack(&buf, &got, &n), PMIX_SUCCESS);
    cr_assert_eq(n, 3);
    cr_assert_eq(got[0].n, 1);
    cr_assert_eq(got[1].n, 0);
    cr_assert_eq(got[2].n, 2);
    cr_assert_str_eq(got[2].kv[1].value.data.string, "D");
    px_qans_free(got, n);
    px_bfrops_buf_free(&buf);
    for (int i = 0; i < 3; i++) {
        px_bfrops_info_array_free(ans[i].kv, ans[i].n);
    }
}

static void write_rndz(const char *dir, const char *name, const char *uri, long pid)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "%s\n4.2.2\n%ld\ntcp://127.0.0.1:1\n", uri, pid);
    fclose(f);
}

Test(query, avail_servers_scans_live_files_once_per_server)
{
    char dir[] = "/tmp/pxqunit.XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    const char *host = px_hostname();
    char name[300];
    /* the same live server under three names, one of them the system file */
    snprintf(name, sizeof(name), "pmix.%s.tool", host);
    write_rndz(dir, name, "srv.a.0;usock:/x/a.sock", (long)getpid());
    snprintf(name, sizeof(name), "pmix.%s.tool.%d", host, (int)getpid());
    write_rndz(dir, name, "srv.a.0;usock:/x/a.sock", (long)getpid());
    snprintf(name, sizeof(name), "pmix.sys.%s", host);
    write_rndz(dir, name, "srv.a.0;usock:/x/a.sock", (long)getpid());
    /* a dead server and a file of another node are not listed */
    snprintf(name, sizeof(name), "pmix.%s.tool.dead", host);
    write_rndz(dir, name, "srv.dead.0;usock:/x/d.sock", 999999999L);
    write_rndz(dir, "pmix.othernode.tool", "srv.o.0;usock:/x/o.sock", (long)getpid());
    const char *dirs[] = {dir, dir, NULL};
    pmix_value_t v;
    PMIx_Value_construct(&v);
    cr_assert_eq(px_query_avail_servers(dirs, &v), PMIX_SUCCESS);
    cr_assert_eq(v.type, PMIX_DATA_ARRAY);
    cr_assert_eq(v.data.darray->size, 1);
    const pmix_info_t *srv = v.data.darray->array;
    cr_assert_str_eq(srv[0].key, PMIX_SERVER_INFO_ARRAY);
    const pmix_info_t *e = srv[0].value.data.darray->array;
    size_t m = srv[0].value.data.darray->size;
    cr_assert_eq(m, 6);
    cr_assert_str_eq(e[0].key, PMIX_NSPACE);
    cr_assert_str_eq(e[0].value.data.string, "srv.a");
    cr_assert_eq(e[1].value.data.rank, 0);
    cr_assert_str_eq(e[2].value.data.string, "srv.a.0;usock:/x/a.sock");
    cr_assert_eq(e[4].value.data.pid, getpid());
    cr_assert_str_eq(e[5].key, PMIX_SERVER_SYSTEM_SUPPORT);
    PMIx_Value_destruct(&v);
    const char *empty[] = {"/nonexistent-dir", NULL};
    cr_assert_eq(px_query_avail_servers(empty, &v), PMIX_ERR_NOT_FOUND);
    DIR *d = opendir(dir);
    for (struct dirent *de; d != NULL && (de = readdir(d)) != NULL;) {
        if (de->d_name[0] != '.') {
            snprintf(name, sizeof(name), "%s/%s", dir, de->d_name);
            unlink(name);
        }
    }
    closedir(d);
    cr_assert_eq(rmdir(dir), 0);
}

Test(query, library_tables)
{
    cr_assert(px_query_key_library(PMIX_QUERY_NUM_PSETS));
    cr_assert(!px_query_key_library("pxhost.qry.test"));
    cr_assert(px_query_key_local(PMIX_QUERY_AVAIL_SERVERS));
    const char *const *a = px_query_lib_attrs(PMIX_CLIENT_ATTRIBUTES, "PMIx_Fence");
    cr_assert_not_null(a);
    cr_assert_str_eq(a[0], PMIX_COLLECT_DATA);
    cr_assert_null(px_query_lib_attrs(PMIX_HOST_ATTRIBUTES, "PMIx_Fence"));
    pmix_regattr_t r;
    memset(&r, 0, sizeof(r));
    px_query_regattr(&r, PMIX_TIMEOUT);
    cr_assert_str_eq(r.name, "PMIX_TIMEOUT");
    cr_assert_eq(r.type, PMIX_INT);
    PMIX_REGATTR_DESTRUCT(&r);
}
