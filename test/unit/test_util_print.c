/* Unit tests of libpmix-core/util print.c: px_print_elem for every data type and the
 * public printers (PMIx_Value/Info/Proc/App/Resource_unit_string). Values are built by
 * hand, so these tests do not depend on the types area. Single-threaded. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "pmix.h"
#include "util/px_abi_tables.h"
#include "util/px_print.h"

/* Compare a malloc'd result with want and free it. */
static void expect(char *got, const char *want)
{
    cr_assert_not_null(got, "want %s", want);
    cr_assert_str_eq(got, want);
    free(got);
}

Test(print, scalars)
{
    bool t = true;
    uint8_t byte = 0x1f;
    int i = -3;
    int8_t i8 = -8;
    int16_t i16 = -16;
    int32_t i32 = -32;
    int64_t i64 = -64;
    unsigned int ui = 3;
    uint16_t u16 = 16;
    uint32_t u32 = 32;
    uint64_t u64 = UINT64_MAX;
    size_t sz = 12;
    pid_t pid = 4321;
    float f = 2.5f;
    double d = 0.125;
    struct timeval tv = {12, 345};
    time_t tm = 1000;
    pmix_status_t st = PMIX_ERR_NOMEM;
    pmix_rank_t rank = 7;
    pmix_rank_t wild = PMIX_RANK_WILDCARD;

    expect(px_print_elem(&t, PMIX_BOOL), "true");
    expect(px_print_elem(&byte, PMIX_BYTE), "0x1f");
    expect(px_print_elem(&i, PMIX_INT), "-3");
    expect(px_print_elem(&i8, PMIX_INT8), "-8");
    expect(px_print_elem(&i16, PMIX_INT16), "-16");
    expect(px_print_elem(&i32, PMIX_INT32), "-32");
    expect(px_print_elem(&i64, PMIX_INT64), "-64");
    expect(px_print_elem(&ui, PMIX_UINT), "3");
    expect(px_print_elem(&byte, PMIX_UINT8), "31");
    expect(px_print_elem(&u16, PMIX_UINT16), "16");
    expect(px_print_elem(&u32, PMIX_UINT32), "32");
    expect(px_print_elem(&u64, PMIX_UINT64), "18446744073709551615");
    expect(px_print_elem(&sz, PMIX_SIZE), "12");
    expect(px_print_elem(&pid, PMIX_PID), "4321");
    expect(px_print_elem(&f, PMIX_FLOAT), "2.5");
    expect(px_print_elem(&d, PMIX_DOUBLE), "0.125");
    expect(px_print_elem(&tv, PMIX_TIMEVAL), "12.000345");
    expect(px_print_elem(&tm, PMIX_TIME), "1000");
    expect(px_print_elem(&st, PMIX_STATUS), "PMIX_ERR_NOMEM");
    expect(px_print_elem(&rank, PMIX_PROC_RANK), "7");
    expect(px_print_elem(&wild, PMIX_PROC_RANK), "WILDCARD");
}

Test(print, strings_and_null)
{
    char *s = "text";
    char *null = NULL;
    pmix_nspace_t ns = "job.1";

    expect(px_print_elem(&s, PMIX_STRING), "text");
    expect(px_print_elem(&null, PMIX_STRING), "(null)");
    expect(px_print_elem(NULL, PMIX_STRING), "(null)");
    expect(px_print_elem(ns, PMIX_PROC_NSPACE), "job.1");
    expect(px_print_elem(&s, 4999), "(unprintable type 4999)");
}

Test(print, enums_and_flags)
{
    uint8_t scope = PMIX_REMOTE, range = PMIX_RANGE_GLOBAL, persist = PMIX_PERSIST_PROC;
    uint8_t pstate = PMIX_PROC_STATE_ABORTED, jstate = PMIX_JOB_STATE_SUSPENDED;
    uint8_t link = PMIX_LINK_DOWN, adir = PMIX_ALLOC_NEW;
    pmix_data_type_t dt = PMIX_ENVAR;
    pmix_info_directives_t dir = PMIX_INFO_REQD | PMIX_INFO_QUALIFIER;
    pmix_iof_channel_t ch = PMIX_FWD_STDERR_CHANNEL;
    pmix_device_type_t dev = PMIX_DEVTYPE_GPU | PMIX_DEVTYPE_DMA;
    pmix_locality_t loc = PMIX_LOCALITY_SHARE_CORE | PMIX_LOCALITY_SHARE_NODE;
    pmix_storage_medium_t med = PMIX_STORAGE_MEDIUM_SSD;
    pmix_storage_access_type_t acc = PMIX_STORAGE_ACCESS_RDWR;

    expect(px_print_elem(&scope, PMIX_SCOPE), "PMIX_REMOTE");
    expect(px_print_elem(&range, PMIX_DATA_RANGE), "PMIX_RANGE_GLOBAL");
    expect(px_print_elem(&persist, PMIX_PERSIST), "PMIX_PERSIST_PROC");
    expect(px_print_elem(&pstate, PMIX_PROC_STATE), "PMIX_PROC_STATE_ABORTED");
    expect(px_print_elem(&jstate, PMIX_JOB_STATE), "PMIX_JOB_STATE_SUSPENDED");
    expect(px_print_elem(&link, PMIX_LINK_STATE), "PMIX_LINK_DOWN");
    expect(px_print_elem(&adir, PMIX_ALLOC_DIRECTIVE), "PMIX_ALLOC_NEW");
    expect(px_print_elem(&dt, PMIX_DATA_TYPE), "PMIX_ENVAR");
    expect(px_print_elem(&dir, PMIX_INFO_DIRECTIVES), "PMIX_INFO_REQD|PMIX_INFO_QUALIFIER");
    expect(px_print_elem(&ch, PMIX_IOF_CHANNEL), "PMIX_FWD_STDERR_CHANNEL");
    expect(px_print_elem(&dev, PMIX_DEVTYPE), "PMIX_DEVTYPE_GPU|PMIX_DEVTYPE_DMA");
    expect(px_print_elem(&loc, PMIX_LOCTYPE), "PMIX_LOCALITY_SHARE_CORE|PMIX_LOCALITY_SHARE_NODE");
    expect(px_print_elem(&med, PMIX_STOR_MEDIUM), "PMIX_STORAGE_MEDIUM_SSD");
    expect(px_print_elem(&acc, PMIX_STOR_ACCESS_TYPE), "PMIX_STORAGE_ACCESS_RDWR");
}

Test(print, proc_string)
{
    pmix_proc_t p;

    memset(&p, 0, sizeof(p));
    strcpy(p.nspace, "myjob");
    p.rank = 3;
    expect(PMIx_Proc_string(&p), "myjob:3");
    p.rank = PMIX_RANK_WILDCARD;
    expect(PMIx_Proc_string(&p), "myjob:WILDCARD");
    p.rank = PMIX_RANK_UNDEF;
    expect(PMIx_Proc_string(&p), "myjob:UNDEF");
    p.rank = PMIX_RANK_LOCAL_PEERS;
    expect(PMIx_Proc_string(&p), "myjob:LOCAL_PEERS");
    p.rank = PMIX_RANK_VALID;
    expect(PMIx_Proc_string(&p), "myjob:4294967245");
    /* an nspace filling the whole array without NUL stays bounded */
    memset(p.nspace, 'n', sizeof(p.nspace));
    p.rank = 0;
    {
        char *s = PMIx_Proc_string(&p);

        cr_assert_eq(strlen(s), PMIX_MAX_NSLEN + 2);
        free(s);
    }
    cr_assert_null(PMIx_Proc_string(NULL));
}

Test(print, value_string)
{
    pmix_value_t v;
    pmix_proc_t p;

    memset(&v, 0, sizeof(v));
    expect(PMIx_Value_string(&v), "PMIX_UNDEF");
    v.type = PMIX_UINT32;
    v.data.uint32 = 42;
    expect(PMIx_Value_string(&v), "PMIX_UINT32: 42");
    v.type = PMIX_STRING;
    v.data.string = "abc";
    expect(PMIx_Value_string(&v), "PMIX_STRING: abc");
    v.type = PMIX_BOOL;
    v.data.flag = false;
    expect(PMIx_Value_string(&v), "PMIX_BOOL: false");
    memset(&p, 0, sizeof(p));
    strcpy(p.nspace, "ns");
    p.rank = 1;
    v.type = PMIX_PROC;
    v.data.proc = &p;
    expect(PMIx_Value_string(&v), "PMIX_PROC: ns:1");
    v.data.proc = NULL;
    expect(PMIx_Value_string(&v), "PMIX_PROC: (null)");
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = "xyz";
    v.data.bo.size = 3;
    expect(PMIx_Value_string(&v), "PMIX_BYTE_OBJECT: 3 bytes");
    v.type = PMIX_ENVAR;
    v.data.envar.envar = "PATH";
    v.data.envar.value = "/bin";
    v.data.envar.separator = ':';
    expect(PMIx_Value_string(&v), "PMIX_ENVAR: PATH=/bin (separator ':')");
    cr_assert_null(PMIx_Value_string(NULL));
}

Test(print, info_string)
{
    pmix_info_t info;

    memset(&info, 0, sizeof(info));
    strcpy(info.key, PMIX_JOB_SIZE);
    info.value.type = PMIX_UINT32;
    info.value.data.uint32 = 4;
    expect(PMIx_Info_string(&info), "pmix.job.size = PMIX_UINT32: 4");
    info.flags = PMIX_INFO_REQD;
    expect(PMIx_Info_string(&info), "pmix.job.size = PMIX_UINT32: 4 (flags: PMIX_INFO_REQD)");
    cr_assert_null(PMIx_Info_string(NULL));
}

Test(print, data_arrays)
{
    uint16_t nums[] = {1, 2, 3};
    char *strs[] = {"a", NULL};
    pmix_info_t infos[2];
    pmix_data_array_t inner = {PMIX_UINT16, 3, nums};
    pmix_data_array_t outer[2] = {{PMIX_STRING, 2, strs}, {PMIX_DATA_ARRAY, 1, &inner}};
    pmix_data_array_t all = {PMIX_DATA_ARRAY, 2, outer};
    pmix_data_array_t bad = {PMIX_UINT8, 4, NULL};
    pmix_data_array_t empty = {PMIX_INFO, 0, NULL};
    pmix_data_array_t ia = {PMIX_INFO, 2, infos};
    pmix_value_t v;

    expect(px_print_elem(&inner, PMIX_DATA_ARRAY), "PMIX_UINT16[3] {1, 2, 3}");
    expect(px_print_elem(&all, PMIX_DATA_ARRAY), "PMIX_DATA_ARRAY[2] {PMIX_STRING[2] {a, (null)}, "
                                                 "PMIX_DATA_ARRAY[1] {PMIX_UINT16[3] {1, 2, 3}}}");
    expect(px_print_elem(&bad, PMIX_DATA_ARRAY), "PMIX_UINT8[4] {(null)}");
    expect(px_print_elem(&empty, PMIX_DATA_ARRAY), "PMIX_INFO[0] {}");

    memset(infos, 0, sizeof(infos));
    strcpy(infos[0].key, "k1");
    infos[0].value.type = PMIX_INT;
    infos[0].value.data.integer = -1;
    strcpy(infos[1].key, "k2");
    infos[1].value.type = PMIX_DATA_ARRAY;
    infos[1].value.data.darray = &inner;
    infos[1].flags = PMIX_INFO_ARRAY_END;
    memset(&v, 0, sizeof(v));
    v.type = PMIX_DATA_ARRAY;
    v.data.darray = &ia;
    expect(PMIx_Value_string(&v),
           "PMIX_DATA_ARRAY: PMIX_INFO[2] {k1 = PMIX_INT: -1, k2 = PMIX_DATA_ARRAY: "
           "PMIX_UINT16[3] {1, 2, 3} (flags: PMIX_INFO_ARRAY_END)}");
}

Test(print, app_string)
{
    char *argv[] = {"a.out", "-v", NULL};
    char *env[] = {"X=1", NULL};
    pmix_info_t info;
    pmix_app_t app;

    memset(&info, 0, sizeof(info));
    strcpy(info.key, "pmix.wdir");
    info.value.type = PMIX_STRING;
    info.value.data.string = "/tmp";
    memset(&app, 0, sizeof(app));
    app.cmd = "a.out";
    app.argv = argv;
    app.env = env;
    app.maxprocs = 4;
    app.info = &info;
    app.ninfo = 1;
    expect(PMIx_App_string(&app), "cmd=a.out argv={a.out, -v} env={X=1} cwd=(null) maxprocs=4 "
                                  "info={pmix.wdir = PMIX_STRING: /tmp}");
    memset(&app, 0, sizeof(app));
    expect(PMIx_App_string(&app),
           "cmd=(null) argv=(null) env=(null) cwd=(null) maxprocs=0 info=(null)");
    cr_assert_null(PMIx_App_string(NULL));
}

Test(print, resource_unit_string)
{
    pmix_resource_unit_t u = {PMIX_DEVTYPE_GPU, 4};

    expect(PMIx_Resource_unit_string(&u), "type=PMIX_DEVTYPE_GPU count=4");
    u.type = PMIX_DEVTYPE_CORE | PMIX_DEVTYPE_HWT;
    u.count = 0;
    expect(PMIx_Resource_unit_string(&u), "type=PMIX_DEVTYPE_CORE|PMIX_DEVTYPE_HWT count=0");
    cr_assert_null(PMIx_Resource_unit_string(NULL));
}

Test(print, structs)
{
    uint32_t xyz[] = {1, 2, 3};
    pmix_coord_t coord = {PMIX_COORD_LOGICAL_VIEW, xyz, 3};
    pmix_proc_info_t pi;
    pmix_pdata_t pd;
    char *keys[] = {"k", NULL};
    pmix_query_t q = {keys, NULL, 0};
    pmix_endpoint_t ep = {"u", "eth0", {"ab", 2}};
    pmix_device_distance_t dd = {"u", "mlx5", PMIX_DEVTYPE_NETWORK, 1, 9};
    pmix_geometry_t geo = {2, "g", "os", &coord, 1};
    pmix_cpuset_t cs = {"hwloc", NULL};
    pmix_node_pid_t np = {"node1", 5, 99};
    pmix_device_t dev = {"id", "gpu0", PMIX_DEVTYPE_GPU};
    pmix_data_buffer_t db;
    char *desc[] = {"d", NULL};
    pmix_regattr_t ra;
    void *ptr = NULL;

    expect(px_print_elem(&coord, PMIX_COORD), "PMIX_COORD_LOGICAL_VIEW (1, 2, 3)");
    memset(&pi, 0, sizeof(pi));
    strcpy(pi.proc.nspace, "j");
    pi.proc.rank = 2;
    pi.hostname = "h";
    pi.executable_name = "e";
    pi.pid = 10;
    pi.state = PMIX_PROC_STATE_RUNNING;
    expect(px_print_elem(&pi, PMIX_PROC_INFO),
           "proc=j:2 host=h exe=e pid=10 exit_code=0 state=PMIX_PROC_STATE_RUNNING");
    memset(&pd, 0, sizeof(pd));
    strcpy(pd.proc.nspace, "j");
    strcpy(pd.key, "key");
    pd.value.type = PMIX_UINT8;
    pd.value.data.uint8 = 1;
    expect(px_print_elem(&pd, PMIX_PDATA), "j:0 key = PMIX_UINT8: 1");
    expect(px_print_elem(&q, PMIX_QUERY), "keys={k} qualifiers=(null)");
    expect(px_print_elem(&ep, PMIX_ENDPOINT), "uuid=u osname=eth0 endpt=2 bytes");
    expect(px_print_elem(&dd, PMIX_DEVICE_DIST),
           "uuid=u osname=mlx5 type=PMIX_DEVTYPE_NETWORK mindist=1 maxdist=9");
    expect(px_print_elem(&geo, PMIX_GEOMETRY),
           "fabric=2 uuid=g osname=os coordinates={PMIX_COORD_LOGICAL_VIEW (1, 2, 3)}");
    expect(px_print_elem(&cs, PMIX_PROC_CPUSET), "source=hwloc cpus=(none)");
    expect(px_print_elem(&np, PMIX_NODE_PID), "hostname=node1 nodeid=5 pid=99");
    expect(px_print_elem(&dev, PMIX_DEVICE), "uuid=id osname=gpu0 type=PMIX_DEVTYPE_GPU");
    memset(&db, 0, sizeof(db));
    db.bytes_used = 17;
    expect(px_print_elem(&db, PMIX_DATA_BUFFER), "17 bytes");
    memset(&ra, 0, sizeof(ra));
    ra.name = "PMIX_X";
    strcpy(ra.string, "pmix.x");
    ra.type = PMIX_BOOL;
    ra.description = desc;
    expect(px_print_elem(&ra, PMIX_REGATTR),
           "name=PMIX_X key=pmix.x type=PMIX_BOOL description={d}");
    expect(px_print_elem(&ptr, PMIX_POINTER), "(nil)");
}

/* Every data type of the ABI tables prints something (no crash, no NULL) from a zeroed
 * element large enough for any type. */
Test(print, every_type_from_zeroed_element)
{
    static unsigned char zero[1024];
    const struct px_abi_enum *e = &px_abi_data_type;

    for (size_t i = 0; i < e->len; i++) {
        char *s = px_print_elem(zero, (pmix_data_type_t)e->names[i].value);

        cr_assert_not_null(s, "%s", e->names[i].name);
        free(s);
    }
}

Test(print, long_output_grows)
{
    char big[5000];
    char *p = big;
    char *s;

    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    s = px_print_elem(&p, PMIX_STRING);
    cr_assert_str_eq(s, big);
    free(s);
}

Test(print, kval_buffer_and_unknown_array)
{
    pmix_info_t kv[1];
    pmix_data_array_t kva = {PMIX_KVAL, 1, kv};
    pmix_data_buffer_t buf;
    int dummy[2] = {0, 0};
    pmix_data_array_t unknown = {4999, 2, dummy};

    memset(kv, 0, sizeof(kv));
    strcpy(kv[0].key, "k");
    kv[0].value.type = PMIX_BOOL;
    kv[0].value.data.flag = true;
    expect(px_print_elem(&kva, PMIX_DATA_ARRAY), "PMIX_KVAL[1] {k = PMIX_BOOL: true}");
    memset(&buf, 0, sizeof(buf));
    buf.bytes_used = 3;
    expect(px_print_elem(&buf, PMIX_BUFFER), "3 bytes");
    expect(px_print_elem(&unknown, PMIX_DATA_ARRAY), "UNKNOWN DATA TYPE[2] {...}");
}

/* A PMIX_REGEX element is a string; a value holds it as a byte object with its NUL and
 * prints its text, or "N bytes" when the bytes are not one string. */
Test(print, regex)
{
    pmix_value_t v;
    char *s = "pmix:pxnode[1:0-3]", *out = NULL;

    expect(px_print_elem(&s, PMIX_REGEX), "pmix:pxnode[1:0-3]");
    cr_assert_eq(PMIx_Data_print(&out, "map ", s, PMIX_REGEX), PMIX_SUCCESS);
    cr_expect_str_eq(out, "map pmix:pxnode[1:0-3]");
    free(out);
    cr_assert_eq(PMIx_Value_load(&v, s, PMIX_REGEX), PMIX_SUCCESS);
    expect(PMIx_Value_string(&v), "PMIX_REGEX: pmix:pxnode[1:0-3]");
    PMIx_Value_destruct(&v);
    memset(&v, 0, sizeof(v));
    v.type = PMIX_REGEX;
    v.data.bo.bytes = "blob:\0\1\2";
    v.data.bo.size = 8;
    expect(PMIx_Value_string(&v), "PMIX_REGEX: 8 bytes");
}
