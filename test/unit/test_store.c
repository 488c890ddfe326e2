/* Unit tests for store/: kvsets, registration with derivation from the maps, lookup
 * across realms, the registration transfer, and posted-data blobs. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

#include "bfrops/px_bfrops.h"
#include "common/px_common.h"
#include "store/px_store.h"

static uint64_t num(const pmix_value_t *v)
{
    cr_assert_not_null(v);
    uint64_t out = 0;
    cr_assert_eq(PMIx_Value_get_number(v, &out, PMIX_UINT64), PMIX_SUCCESS);
    return out;
}

static const char *str(const pmix_value_t *v)
{
    cr_assert_not_null(v);
    cr_assert_eq(v->type, PMIX_STRING);
    return v->data.string;
}

Test(store, kvset_put_replaces_and_types_come_from_the_table)
{
    px_kvset_t s;
    px_kvset_init(&s);
    cr_assert_eq(px_kvset_put_num(&s, PMIX_LOCAL_RANK, 3, false), PMIX_SUCCESS);
    cr_assert_eq(px_kvset_get(&s, PMIX_LOCAL_RANK)->type, PMIX_UINT16);
    cr_assert_eq(px_kvset_put_num(&s, PMIX_JOB_SIZE, 9, false), PMIX_SUCCESS);
    cr_assert_eq(px_kvset_get(&s, PMIX_JOB_SIZE)->type, PMIX_UINT32);
    cr_assert_eq(px_kvset_put_num(&s, PMIX_LOCALLDR, 4, false), PMIX_SUCCESS);
    cr_assert_eq(px_kvset_get(&s, PMIX_LOCALLDR)->type, PMIX_PROC_RANK);
    /* only_if_absent keeps the first value; a plain put replaces it */
    cr_assert_eq(px_kvset_put_num(&s, PMIX_LOCAL_RANK, 5, true), PMIX_SUCCESS);
    cr_assert_eq(num(px_kvset_get(&s, PMIX_LOCAL_RANK)), 3);
    cr_assert_eq(px_kvset_put_num(&s, PMIX_LOCAL_RANK, 5, false), PMIX_SUCCESS);
    cr_assert_eq(num(px_kvset_get(&s, PMIX_LOCAL_RANK)), 5);
    cr_assert_eq(s.n, 3);
    cr_assert_null(px_kvset_get(&s, "nope"));
    px_kvset_fini(&s);
}

/* Register a 5-rank job over nodes n0 (ranks 0,1) and n1 (ranks 2,3,4) with only the
 * maps and the job size, plus optional extra infos. */
static void register_job(px_store_t *st, px_nspace_t **out, const pmix_info_t *extra, size_t nextra,
                         bool with_size)
{
    char *nodes = NULL, *ppn = NULL;
    cr_assert_eq(PMIx_generate_regex("n0,n1", &nodes), PMIX_SUCCESS);
    cr_assert_eq(PMIx_generate_ppn("0,1;2,3,4", &ppn), PMIX_SUCCESS);
    size_t n = 2 + (with_size ? 1 : 0) + nextra;
    pmix_info_t *info = PMIx_Info_create(n);
    size_t k = 0;
    PMIx_Info_load(&info[k++], PMIX_NODE_MAP, nodes, PMIX_STRING);
    PMIx_Info_load(&info[k++], PMIX_PROC_MAP, ppn, PMIX_STRING);
    if (with_size) {
        uint32_t size = 5;
        PMIx_Info_load(&info[k++], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    }
    for (size_t i = 0; i < nextra; i++) {
        PMIx_Info_xfer(&info[k++], &extra[i]);
    }
    px_nspace_t *ns = px_store_add(st, "job");
    cr_assert_not_null(ns);
    cr_assert_eq(px_ns_register(st, ns, info, n), PMIX_SUCCESS);
    PMIx_Info_free(info, n);
    free(nodes);
    free(ppn);
    *out = ns;
}

Test(store, derives_node_and_proc_realms_from_the_maps)
{
    px_store_t st;
    px_store_init(&st, "n1");
    px_nspace_t *ns;
    register_job(&st, &ns, NULL, 0, false);
    cr_assert_eq(ns->nnodes, 2);
    cr_assert_eq(ns->my_node, 1);
    /* job size derived from the highest rank, and the sizes that follow from it */
    cr_assert_eq(num(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL)), 5);
    cr_assert_eq(num(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE, NULL)), 5);
    cr_assert_eq(num(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_MAX_PROCS, NULL)), 5);
    cr_assert_eq(num(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_NUM_NODES, NULL)), 2);
    cr_assert_str_eq(str(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_NODE_LIST, NULL)), "n0,n1");
    /* node-level keys asked with the wildcard rank are about the asker's node */
    cr_assert_eq(num(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, NULL)), 3);
    cr_assert_str_eq(str(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, NULL)), "2,3,4");
    cr_assert_eq(num(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_LOCALLDR, NULL)), 2);
    /* process realm */
    const pmix_value_t *lr = px_ns_lookup(ns, 3, PMIX_LOCAL_RANK, NULL);
    cr_assert_eq(lr->type, PMIX_UINT16);
    cr_assert_eq(num(lr), 1);
    cr_assert_eq(num(px_ns_lookup(ns, 4, PMIX_NODE_RANK, NULL)), 2);
    cr_assert_str_eq(str(px_ns_lookup(ns, 0, PMIX_HOSTNAME, NULL)), "n0");
    cr_assert_eq(num(px_ns_lookup(ns, 3, PMIX_NODEID, NULL)), 1);
    cr_assert_eq(num(px_ns_lookup(ns, 1, PMIX_APPNUM, NULL)), 0);
    cr_assert_eq(num(px_ns_lookup(ns, 1, PMIX_RANK, NULL)), 1);
    /* a rank's node-level keys are its own node's */
    cr_assert_eq(num(px_ns_lookup(ns, 0, PMIX_LOCAL_SIZE, NULL)), 2);
    cr_assert(px_ns_rank_is_local(ns, 2));
    cr_assert_not(px_ns_rank_is_local(ns, 1));
    px_store_fini(&st);
}

Test(store, explicit_values_win_over_derived_ones)
{
    px_store_t st;
    px_store_init(&st, "n0");
    pmix_info_t *arr = PMIx_Info_create(2);
    pmix_rank_t r = 2;
    uint16_t lr = 7;
    PMIx_Info_load(&arr[0], PMIX_RANK, &r, PMIX_PROC_RANK);
    PMIx_Info_load(&arr[1], PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
    pmix_data_array_t da = {.type = PMIX_INFO, .size = 2, .array = arr};
    pmix_info_t extra[2];
    PMIx_Info_construct(&extra[0]);
    PMIx_Info_load(&extra[0], PMIX_PROC_INFO_ARRAY, &da, PMIX_DATA_ARRAY);
    uint32_t univ = 64;
    PMIx_Info_construct(&extra[1]);
    PMIx_Info_load(&extra[1], PMIX_UNIV_SIZE, &univ, PMIX_UINT32);
    px_nspace_t *ns;
    register_job(&st, &ns, extra, 2, true);
    cr_assert_eq(num(px_ns_lookup(ns, 2, PMIX_LOCAL_RANK, NULL)), 7);
    cr_assert_eq(num(px_ns_lookup(ns, 3, PMIX_LOCAL_RANK, NULL)), 1);
    cr_assert_eq(num(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE, NULL)), 64);
    cr_assert_eq(ns->my_node, 0);
    PMIx_Info_destruct(&extra[0]);
    PMIx_Info_destruct(&extra[1]);
    PMIx_Info_free(arr, 2);
    px_store_fini(&st);
}

Test(store, qualifiers_select_the_node_and_app_realms)
{
    px_store_t st;
    px_store_init(&st, "n1");
    px_nspace_t *ns;
    register_job(&st, &ns, NULL, 0, true);
    pmix_info_t q[2];
    PMIx_Info_construct(&q[0]);
    PMIx_Info_construct(&q[1]);
    PMIx_Info_load(&q[0], PMIX_NODE_INFO, NULL, PMIX_BOOL);
    PMIx_Info_load(&q[1], PMIX_HOSTNAME, "n0", PMIX_STRING);
    px_getq_t gq;
    px_getq_parse(&gq, q, 2);
    cr_assert(gq.node);
    cr_assert_eq(num(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, &gq)), 2);
    /* a key the node realm does not have is not taken from another realm */
    cr_assert_null(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, &gq));
    PMIx_Info_destruct(&q[0]);
    PMIx_Info_destruct(&q[1]);
    uint32_t appnum = 0;
    PMIx_Info_load(&q[0], PMIX_APPNUM, &appnum, PMIX_UINT32);
    px_getq_parse(&gq, q, 1);
    cr_assert(gq.app);
    cr_assert_eq(num(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_APP_SIZE, &gq)), 5);
    PMIx_Info_destruct(&q[0]);
    px_store_fini(&st);
}

/* An info array (key = PMIX_APP_INFO_ARRAY / PMIX_PROC_INFO_ARRAY) from list. */
static void load_array(pmix_info_t *out, const char *key, void *list)
{
    pmix_data_array_t da = PMIX_DATA_ARRAY_STATIC_INIT;
    cr_assert_eq(PMIx_Info_list_convert(list, &da), PMIX_SUCCESS);
    PMIx_Info_list_release(list);
    cr_assert_eq(PMIx_Info_load(out, key, &da, PMIX_DATA_ARRAY), PMIX_SUCCESS);
    PMIx_Data_array_destruct(&da);
}

Test(store, wildcard_app_keys_come_from_the_callers_app)
{
    /* two apps: ranks 0,1 are app 0 ("ocean"), ranks 2,3,4 app 1 ("ice") */
    pmix_info_t extra[5];
    const char *names[2] = {"ocean", "ice"};
    uint32_t sizes[2] = {2, 3};
    for (uint32_t a = 0; a < 2; a++) {
        void *l = PMIx_Info_list_start();
        PMIx_Info_list_add(l, PMIX_APPNUM, &a, PMIX_UINT32);
        PMIx_Info_list_add(l, PMIX_APP_SIZE, &sizes[a], PMIX_UINT32);
        PMIx_Info_list_add(l, PMIX_PSET_NAME, names[a], PMIX_STRING);
        load_array(&extra[a], PMIX_APP_INFO_ARRAY, l);
    }
    for (pmix_rank_t r = 2; r < 5; r++) {
        void *l = PMIx_Info_list_start();
        uint32_t one = 1;
        PMIx_Info_list_add(l, PMIX_RANK, &r, PMIX_PROC_RANK);
        PMIx_Info_list_add(l, PMIX_APPNUM, &one, PMIX_UINT32);
        load_array(&extra[r], PMIX_PROC_INFO_ARRAY, l);
    }
    px_store_t st;
    px_store_init(&st, "n1");
    px_nspace_t *ns;
    register_job(&st, &ns, extra, 5, true);
    for (size_t i = 0; i < 5; i++) {
        PMIx_Info_destruct(&extra[i]);
    }
    /* no caller known and two apps: no application realm to read */
    px_getq_t gq;
    px_getq_parse(&gq, NULL, 0);
    cr_assert_null(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_PSET_NAME, &gq));
    /* the caller's own app, with or without PMIX_APP_INFO */
    gq.have_self = true;
    gq.self = 3;
    cr_assert_str_eq(str(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_PSET_NAME, &gq)), "ice");
    cr_assert_eq(num(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_APP_SIZE, &gq)), 3);
    gq.self = 1;
    cr_assert_str_eq(str(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_PSET_NAME, &gq)), "ocean");
    gq.app = true;
    cr_assert_eq(num(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_APP_SIZE, &gq)), 2);
    /* PMIX_APPNUM names another app: that app's value */
    pmix_info_t q[2];
    uint32_t appnum = 1;
    PMIx_Info_load(&q[0], PMIX_APP_INFO, NULL, PMIX_BOOL);
    PMIx_Info_load(&q[1], PMIX_APPNUM, &appnum, PMIX_UINT32);
    px_getq_parse(&gq, q, 2);
    gq.have_self = true;
    gq.self = 0;
    cr_assert_str_eq(str(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_PSET_NAME, &gq)), "ice");
    PMIx_Info_destruct(&q[0]);
    PMIx_Info_destruct(&q[1]);
    px_store_fini(&st);
}

Test(store, posted_data_visibility_follows_locality)
{
    px_store_t st;
    px_store_init(&st, "n1");
    px_nspace_t *ns;
    register_job(&st, &ns, NULL, 0, true);
    pmix_value_t v;
    PMIx_Value_load(&v, "here", PMIX_STRING);
    /* rank 2 is local: its local set answers; rank 0 is remote: its remote set */
    px_kvset_put(&px_ns_rank(ns, 2)->local, "k", &v);
    px_kvset_put(&px_ns_rank(ns, 0)->local, "k", &v);
    cr_assert_not_null(px_ns_lookup(ns, 2, "k", NULL));
    cr_assert_null(px_ns_lookup(ns, 0, "k", NULL));
    px_kvset_put(&px_ns_rank(ns, 0)->remote, "k", &v);
    cr_assert_str_eq(str(px_ns_lookup(ns, 0, "k", NULL)), "here");
    PMIx_Value_destruct(&v);
    px_store_fini(&st);
}

Test(store, registration_transfer_round_trips)
{
    px_store_t a, b;
    px_store_init(&a, "n0");
    px_store_init(&b, "n1");
    px_nspace_t *ns;
    register_job(&a, &ns, NULL, 0, true);
    pmix_data_buffer_t buf;
    px_bfrops_buf_init(&buf);
    cr_assert_eq(px_ns_pack(&buf, ns), PMIX_SUCCESS);
    px_nspace_t *copy = px_store_add(&b, "job");
    cr_assert_eq(px_ns_unpack(&buf, copy), PMIX_SUCCESS);
    px_ns_locate(&b, copy);
    cr_assert(copy->complete);
    cr_assert_eq(copy->my_node, 1);
    cr_assert_eq(num(px_ns_lookup(copy, 4, PMIX_LOCAL_RANK, NULL)), 2);
    cr_assert_str_eq(str(px_ns_lookup(copy, PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, NULL)), "2,3,4");
    cr_assert_eq(copy->nodes[1].nranks, 3);
    px_bfrops_buf_free(&buf);
    /* a truncated transfer is an error, not a crash */
    px_bfrops_buf_init(&buf);
    cr_assert_eq(px_ns_pack(&buf, ns), PMIX_SUCCESS);
    buf.bytes_used /= 2;
    buf.pack_ptr = buf.base_ptr + buf.bytes_used;
    px_nspace_t *bad = px_store_add(&b, "bad");
    cr_assert_neq(px_ns_unpack(&buf, bad), PMIX_SUCCESS);
    cr_assert_not(bad->complete);
    px_bfrops_buf_free(&buf);
    px_store_fini(&a);
    px_store_fini(&b);
}

Test(store, blobs_concatenate_and_end_cleanly)
{
    px_kvset_t s;
    px_kvset_init(&s);
    pmix_value_t v;
    PMIx_Value_load(&v, "x", PMIX_STRING);
    px_kvset_put(&s, "a", &v);
    PMIx_Value_destruct(&v);
    pmix_data_buffer_t buf;
    px_bfrops_buf_init(&buf);
    cr_assert_eq(px_blob_pack(&buf, "ns1", 3, &s), PMIX_SUCCESS);
    cr_assert_eq(px_blob_pack(&buf, "ns2", 0, &s), PMIX_SUCCESS);
    pmix_proc_t p;
    pmix_info_t *info;
    size_t n;
    cr_assert_eq(px_blob_next(&buf, &p, &info, &n), PMIX_SUCCESS);
    cr_assert_str_eq(p.nspace, "ns1");
    cr_assert_eq(p.rank, 3);
    cr_assert_eq(n, 1);
    px_bfrops_info_array_free(info, n);
    cr_assert_eq(px_blob_next(&buf, &p, &info, &n), PMIX_SUCCESS);
    cr_assert_str_eq(p.nspace, "ns2");
    px_bfrops_info_array_free(info, n);
    cr_assert_eq(px_blob_next(&buf, &p, &info, &n), PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    px_bfrops_buf_free(&buf);
    px_kvset_fini(&s);
}

Test(common, server_uri_round_trips_and_rejects_garbage)
{
    pmix_proc_t srv, back;
    PMIx_Load_procid(&srv, "my.ns.with.dots", 7);
    char *uri = px_uri_make(&srv, "/tmp/x/pmix-1.sock");
    cr_assert_str_eq(uri, "my.ns.with.dots.7;usock:/tmp/x/pmix-1.sock");
    char *path = NULL;
    cr_assert_eq(px_uri_parse(uri, &back, &path), 0);
    cr_assert_str_eq(back.nspace, "my.ns.with.dots");
    cr_assert_eq(back.rank, 7);
    cr_assert_str_eq(path, "/tmp/x/pmix-1.sock");
    free(path);
    free(uri);
    const char *bad[] = {
        "",           "noseparator", "ns.1;tcp4://1.2.3.4:5", "ns.x;usock:/p", "ns.1;usock:rel",
        ".1;usock:/p"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_assert_eq(px_uri_parse(bad[i], &back, &path), -1, "accepted \"%s\"", bad[i]);
    }
    cr_assert_eq(px_uri_parse(NULL, &back, &path), -1);
}

Test(common, tcp_uri_round_trips_and_rejects_bad_forms)
{
    pmix_proc_t srv;
    px_uri_t u;
    const char *sec = "0123456789abcdef0123456789abcdef";
    PMIx_Load_procid(&srv, "srv.ns", 3);
    char *uri = px_uri_make_tcp(&srv, "10.1.2.3", 40001, sec);
    cr_assert_str_eq(uri, "srv.ns.3;tcp4://10.1.2.3:40001;secret=0123456789abcdef0123456789abcdef");
    cr_assert_eq(px_uri_parse_any(uri, &u), 0);
    cr_assert(u.tcp);
    cr_assert_null(u.path);
    cr_assert_str_eq(u.server.nspace, "srv.ns");
    cr_assert_eq(u.server.rank, 3);
    cr_assert_str_eq(u.addr, "10.1.2.3");
    cr_assert_eq(u.port, 40001);
    cr_assert_str_eq(u.secret, sec);
    px_uri_fini(&u);
    /* a client only takes a socket URI */
    pmix_proc_t back;
    char *path = NULL;
    cr_assert_eq(px_uri_parse(uri, &back, &path), -1);
    free(uri);
    cr_assert_eq(px_uri_parse_any("a.b.0;usock:/tmp/s", &u), 0);
    cr_assert(!u.tcp);
    cr_assert_str_eq(u.path, "/tmp/s");
    cr_assert_str_eq(u.server.nspace, "a.b");
    px_uri_fini(&u);
    const char *bad[] = {
        "ns.1;tcp4://1.2.3.4:5",                                             /* no secret */
        "ns.1;tcp4://1.2.3.4:5;secret=",                                     /* empty secret */
        "ns.1;tcp4://1.2.3.4:5;secret=0123456789abcdef0123456789abcde",      /* short */
        "ns.1;tcp4://1.2.3.4:5;secret=0123456789abcdef0123456789abcdef0",    /* long */
        "ns.1;tcp4://1.2.3.4:5;secret=0123456789ABCDEF0123456789abcdef",     /* upper case */
        "ns.1;tcp4://1.2.3.4:5;key=0123456789abcdef0123456789abcdef",        /* wrong field */
        "ns.1;tcp4://1.2.3.4;secret=0123456789abcdef0123456789abcdef",       /* no port */
        "ns.1;tcp4://1.2.3.4:0;secret=0123456789abcdef0123456789abcdef",     /* port 0 */
        "ns.1;tcp4://1.2.3.4:65536;secret=0123456789abcdef0123456789abcdef", /* port range */
        "ns.1;tcp4://1.2.3.4:5x;secret=0123456789abcdef0123456789abcdef",    /* port garbage */
        "ns.1;tcp4://host:5;secret=0123456789abcdef0123456789abcdef",        /* not dotted */
        "ns.1;tcp4://1.2.3:5;secret=0123456789abcdef0123456789abcdef",       /* short quad */
        "ns.1;tcp4://:5;secret=0123456789abcdef0123456789abcdef",            /* no address */
        "ns.1;tcp6://[::1]:5;secret=0123456789abcdef0123456789abcdef",       /* not ours */
        "ns;tcp4://1.2.3.4:5;secret=0123456789abcdef0123456789abcdef",       /* no rank */
        "ns.-1;tcp4://1.2.3.4:5;secret=0123456789abcdef0123456789abcdef",    /* negative */
        "ns.99999999999;usock:/p",                                           /* rank range */
        "ns.1;usock:",
        "",
        "ns.1;",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_assert_eq(px_uri_parse_any(bad[i], &u), -1, "accepted \"%s\"", bad[i]);
        cr_assert_null(u.path);
    }
    cr_assert_eq(px_uri_parse_any(NULL, &u), -1);
}

/* Hosts written against pmix_server.h register the maps as PMIX_REGEX values loaded from
 * the strings PMIx_generate_regex/ppn return (the Standard's example); a regex whose
 * bytes are not one string is refused. */
Test(store, maps_registered_as_regex_values)
{
    char *nodes = NULL, *ppn = NULL;
    cr_assert_eq(PMIx_generate_regex("n0,n1", &nodes), PMIX_SUCCESS);
    cr_assert_eq(PMIx_generate_ppn("0,1;2,3,4", &ppn), PMIX_SUCCESS);
    pmix_info_t info[2];
    PMIx_Info_construct(&info[0]);
    PMIx_Info_construct(&info[1]);
    cr_assert_eq(PMIx_Info_load(&info[0], PMIX_NODE_MAP, nodes, PMIX_REGEX), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Info_load(&info[1], PMIX_PROC_MAP, ppn, PMIX_REGEX), PMIX_SUCCESS);
    px_store_t st;
    px_store_init(&st, "n1");
    px_nspace_t *ns = px_store_add(&st, "job");
    cr_assert_not_null(ns);
    cr_assert_eq(px_ns_register(&st, ns, info, 2), PMIX_SUCCESS);
    cr_assert_eq(num(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, NULL)), 5);
    cr_assert_str_eq(str(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_NODE_LIST, NULL)), "n0,n1");
    cr_assert_str_eq(str(px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, NULL)), "2,3,4");
    cr_assert_str_eq(str(px_ns_lookup(ns, 0, PMIX_HOSTNAME, NULL)), "n0");
    const pmix_value_t *nm = px_ns_lookup(ns, PMIX_RANK_WILDCARD, PMIX_NODE_MAP, NULL);
    cr_assert_not_null(nm);
    cr_assert_eq(nm->type, PMIX_REGEX);
    cr_assert_eq(nm->data.bo.size, strlen(nodes) + 1);
    cr_assert_str_eq(nm->data.bo.bytes, nodes);

    /* bytes without a terminating NUL: not a map we can read */
    px_nspace_t *bad = px_store_add(&st, "bad");
    cr_assert_not_null(bad);
    info[0].value.data.bo.size = strlen(nodes);
    cr_assert_eq(px_ns_register(&st, bad, info, 1), PMIX_ERR_BAD_PARAM);
    info[0].value.data.bo.size = strlen(nodes) + 1;
    px_store_fini(&st);
    PMIx_Info_destruct(&info[0]);
    PMIx_Info_destruct(&info[1]);
    free(nodes);
    free(ppn);
}

/* A registration whose counts announce more than the message holds is refused before
 * anything is sized by them (the client's rank table used to be allocated from the count). */
Test(store, registration_counts_are_checked_against_the_bytes)
{
    px_store_t st;
    px_store_init(&st, "n0");
    uint32_t zero = 0, huge = 0x40000000u, id = 0;
    char *host = "n0";
    pmix_data_buffer_t buf;

    /* no job infos, no apps, no nodes, 2^30 ranks and nothing after */
    px_bfrops_buf_init(&buf);
    cr_assert_eq(px_bfrops_pack_info_array(&buf, NULL, 0), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_pack(&buf, &zero, 1, PMIX_UINT32), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_pack(&buf, &zero, 1, PMIX_UINT32), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_pack(&buf, &huge, 1, PMIX_UINT32), PMIX_SUCCESS);
    px_nspace_t *ns = px_store_add(&st, "ranks");
    cr_assert_eq(px_ns_unpack(&buf, ns), PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    cr_assert_not(ns->complete);
    cr_assert_eq(ns->nranks, 0);
    px_bfrops_buf_free(&buf);

    /* one node claiming 2^30 ranks */
    uint32_t one = 1;
    px_bfrops_buf_init(&buf);
    cr_assert_eq(px_bfrops_pack_info_array(&buf, NULL, 0), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_pack(&buf, &zero, 1, PMIX_UINT32), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_pack(&buf, &one, 1, PMIX_UINT32), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_pack(&buf, &host, 1, PMIX_STRING), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_pack(&buf, &id, 1, PMIX_UINT32), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_pack(&buf, &huge, 1, PMIX_UINT32), PMIX_SUCCESS);
    ns = px_store_add(&st, "nodes");
    cr_assert_eq(px_ns_unpack(&buf, ns), PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    cr_assert_not(ns->complete);
    px_bfrops_buf_free(&buf);

    /* 2^30 apps */
    px_bfrops_buf_init(&buf);
    cr_assert_eq(px_bfrops_pack_info_array(&buf, NULL, 0), PMIX_SUCCESS);
    cr_assert_eq(px_bfrops_pack(&buf, &huge, 1, PMIX_UINT32), PMIX_SUCCESS);
    ns = px_store_add(&st, "apps");
    cr_assert_eq(px_ns_unpack(&buf, ns), PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER);
    px_bfrops_buf_free(&buf);
    px_store_fini(&st);
}
