/* Unit tests of libpmix-core/regex: the Standard's examples, round trips over generated
 * node and rank lists (fixed seed), and rejection of malformed input. Single thread. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

#include "regex/px_regex.h"

/* ---- helpers ---------------------------------------------------------------------- */

/* Deterministic generator so failures reproduce. */
static uint64_t rng_state;

static void rng_seed(uint64_t s)
{
    rng_state = s;
}

static uint32_t rng(uint32_t n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((rng_state >> 33) % n);
}

/* Growable string for building test inputs. */
struct tbuf {
    char *s;
    size_t len, cap;
};

static void tb_add(struct tbuf *b, const char *s)
{
    size_t n = strlen(s);

    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->s = realloc(b->s, b->cap);
        cr_assert_not_null(b->s);
    }
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

static char *join(char **v, const char *sep)
{
    struct tbuf b = {0};
    size_t i;

    tb_add(&b, "");
    for (i = 0; v[i]; i++) {
        if (i)
            tb_add(&b, sep);
        tb_add(&b, v[i]);
    }
    return b.s;
}

static size_t argv_len(char **v)
{
    size_t n = 0;

    while (v[n])
        n++;
    return n;
}

static char *gen_nodes(const char *input)
{
    char *out = NULL;

    cr_assert_eq(px_regex_generate_nodes(input, &out), 0, "generate_nodes(%.200s): errno %d", input,
                 errno);
    cr_assert_not_null(out);
    return out;
}

static char *gen_ppn(const char *input)
{
    char *out = NULL;

    cr_assert_eq(px_regex_generate_ppn(input, &out), 0, "generate_ppn(%.200s): errno %d", input,
                 errno);
    cr_assert_not_null(out);
    return out;
}

/* generate then parse must give back exactly the names of the plain list `names`
 * (comma separated, no brackets); also checks the canonical form is a fixed point. */
static void check_nodes_roundtrip(const char *names)
{
    char *re = gen_nodes(names), *re2, **out = NULL, *joined;

    cr_assert_eq(strncmp(re, "pmix:", 5), 0);
    cr_assert_eq(px_regex_parse_nodes(re, &out), 0, "parse(%.200s): errno %d", re, errno);
    joined = join(out, ",");
    cr_assert_str_eq(joined, names, "round trip of %.200s via %.200s", names, re);
    re2 = gen_nodes(re + 5);
    cr_assert_str_eq(re2, re, "canonical form is not a fixed point");
    free(re2);
    free(joined);
    px_regex_argv_free(out);
    free(re);
}

static void expect_nodes(const char *input, const char *regex)
{
    char *re = gen_nodes(input);

    cr_assert_str_eq(re, regex, "generate_nodes(%s)", input);
    free(re);
}

static void expect_ppn(const char *input, const char *regex)
{
    char *re = gen_ppn(input);

    cr_assert_str_eq(re, regex, "generate_ppn(%s)", input);
    free(re);
}

/* Expand "1-3,7" into "1,2,3,7" (test's own reference implementation). */
static void expand_field(const char *f, struct tbuf *b)
{
    char num[24];
    unsigned long a, z, v;
    int first = 1;

    while (*f && *f != ';') {
        a = strtoul(f, (char **)&f, 10);
        z = a;
        if (*f == '-')
            z = strtoul(f + 1, (char **)&f, 10);
        for (v = a; v <= z; v++) {
            snprintf(num, sizeof(num), first ? "%lu" : ",%lu", v);
            tb_add(b, num);
            first = 0;
        }
        if (*f == ',')
            f++;
    }
}

/* generate then parse must give each node's ranks, expanded, in listed order. */
static void check_ppn_roundtrip(const char *input)
{
    char *re = gen_ppn(input), **out = NULL, *re2, *joined;
    const char *f = input;
    size_t i = 0;
    struct tbuf b;

    cr_assert_eq(px_regex_parse_ppn(re, &out), 0, "parse_ppn(%.200s): errno %d", re, errno);
    for (;;) {
        memset(&b, 0, sizeof(b));
        tb_add(&b, "");
        expand_field(f, &b);
        cr_assert_not_null(out[i], "too few nodes from %.200s", re);
        cr_assert_str_eq(out[i], b.s, "node %zu of %.200s via %.200s", i, input, re);
        free(b.s);
        i++;
        f = strchr(f, ';');
        if (!f)
            break;
        f++;
    }
    cr_assert_null(out[i], "too many nodes from %.200s", re);
    /* the canonical form does not depend on how the input wrote the ranks */
    joined = join(out, ";");
    re2 = gen_ppn(joined);
    cr_assert_str_eq(re2, re, "expanded %.200s gives %.200s", joined, re2);
    free(joined);
    free(re2);
    px_regex_argv_free(out);
    free(re);
}

/* ---- the Standard's examples ------------------------------------------------------ */

Test(regex, standard_node_example)
{
    char *re = NULL, **names = NULL, *joined;

    cr_assert_eq(PMIx_generate_regex(
                     "odin009.org,odin010.org,odin011.org,odin012.org,odin[102-107].org", &re),
                 PMIX_SUCCESS);
    cr_assert_str_eq(re, "pmix:odin[009-012,102-107].org");
    cr_assert_eq(px_regex_parse_nodes(re, &names), 0);
    joined = join(names, ",");
    cr_assert_str_eq(joined, "odin009.org,odin010.org,odin011.org,odin012.org,odin102.org,"
                             "odin103.org,odin104.org,odin105.org,odin106.org,odin107.org");
    free(joined);
    px_regex_argv_free(names);
    free(re);
}

Test(regex, standard_ppn_example)
{
    char *re = NULL, **nodes = NULL;

    cr_assert_eq(PMIx_generate_ppn("1-4;2-5;8,10,11,12;6,7,9", &re), PMIX_SUCCESS);
    cr_assert_str_eq(re, "pmix:2x(3);8,10-12;6-7,9");
    cr_assert_eq(px_regex_parse_ppn(re, &nodes), 0);
    cr_assert_eq(argv_len(nodes), 4);
    cr_assert_str_eq(nodes[0], "1,2,3,4");
    cr_assert_str_eq(nodes[1], "2,3,4,5");
    cr_assert_str_eq(nodes[2], "8,10,11,12");
    cr_assert_str_eq(nodes[3], "6,7,9");
    px_regex_argv_free(nodes);
    free(re);
}

/* ---- node lists: specific shapes -------------------------------------------------- */

Test(regex, node_shapes)
{
    expect_nodes("n1", "pmix:n1");
    expect_nodes("login", "pmix:login");
    expect_nodes("a,b,c", "pmix:a,b,c");
    expect_nodes("n1,n2,n3", "pmix:n[1-3]");
    expect_nodes("n1,n2", "pmix:n[1-2]");
    expect_nodes("n8,n9,n10,n11", "pmix:n[8-11]");
    expect_nodes("n08,n09,n10,n11", "pmix:n[08-11]");
    expect_nodes("n098,n099,n100", "pmix:n[098-100]");
    expect_nodes("n01,n1,n02,n2", "pmix:n[01,1,02,2]");
    expect_nodes("n9,n010", "pmix:n[9,010]");
    expect_nodes("n3,n1,n2", "pmix:n[3,1-2]");
    expect_nodes("n1,n1,n2", "pmix:n[1,1-2]");
    expect_nodes("n1,m1,n2", "pmix:n1,m1,n2");
    expect_nodes("rack1-node05.ib,rack1-node06.ib", "pmix:rack1-node[05-06].ib");
    expect_nodes("r1n1,r1n2,r2n1,r2n2", "pmix:r1n[1-2],r2n[1-2]");
    expect_nodes("n[1-3]x5", "pmix:n1x5,n2x5,n3x5");
    expect_nodes("c[0-2],c3,c[4-5]", "pmix:c[0-5]");
    expect_nodes("n[00-02,7]", "pmix:n[00-02,7]");
    expect_nodes("n[5]", "pmix:n5");
    expect_nodes("n0,n00,n000", "pmix:n[0,00,000]");
    expect_nodes("x1234567890123456789,x1234567890123456790",
                 "pmix:x1234567890123456789,x1234567890123456790");
    expect_nodes("pmix:a", "pmix:pmix:a");
}

Test(regex, node_roundtrips_fixed)
{
    check_nodes_roundtrip("n1");
    check_nodes_roundtrip("a,b,a,b");
    check_nodes_roundtrip("n01,n1,n001,n2,n02,n3");
    check_nodes_roundtrip("n99,n100,n101,n099,n0100");
    check_nodes_roundtrip("n0,n0,n0");
    check_nodes_roundtrip("a-1.b,a-2.b,a-3.c,a-4.c");
    check_nodes_roundtrip("123,124,125");
    check_nodes_roundtrip("x999999999999999999,x1000000000000000000");
}

Test(regex, node_raw_identifier)
{
    char **names = NULL;

    cr_assert_eq(px_regex_parse_nodes("raw:a,b[1-2]", &names), 0);
    cr_assert_eq(argv_len(names), 3);
    cr_assert_str_eq(names[2], "b2");
    px_regex_argv_free(names);
}

/* Random host lists: prefixes, suffixes, zero padding, mixed widths, runs, shuffles,
 * duplicates, hosts without digits, digit runs in the middle. */
static void random_hosts(struct tbuf *b, size_t n)
{
    static const char *pre[] = {"n", "node", "odin", "r1n", "a-", "x.y", "c", ""};
    static const char *suf[] = {"", ".org", "-ib", "x", ".cluster.local", ""};
    char name[96];
    size_t i = 0;
    unsigned v = 0;
    int w = 0, p = 0, s = 0;

    while (i < n) {
        size_t run = 1 + rng(12);
        p = (int)rng(8);
        s = (int)rng(6);
        w = (int)rng(5);
        v = rng(3) ? v + 1 : rng(100000);
        for (; run > 0 && i < n; run--, i++) {
            switch (rng(10)) {
            case 0:
                snprintf(name, sizeof(name), "login%s", suf[s]);
                break;
            case 1:
                w = (int)rng(5);
                /* fall through */
            default:
                if (!pre[p][0] && !suf[s][0] && rng(2))
                    snprintf(name, sizeof(name), "h%0*u", w, v);
                else
                    snprintf(name, sizeof(name), "%s%0*u%s", pre[p], w, v, suf[s]);
                break;
            }
            if (rng(20) == 0)
                v = rng(1000);
            else if (rng(30) != 0) /* sometimes a duplicate */
                v++;
            if (i)
                tb_add(b, ",");
            tb_add(b, name);
        }
    }
}

Test(regex, node_roundtrips_random)
{
    int t;

    rng_seed(20240501);
    for (t = 0; t < 300; t++) {
        struct tbuf b = {0};
        tb_add(&b, "");
        random_hosts(&b, 1 + rng(60));
        check_nodes_roundtrip(b.s);
        free(b.s);
    }
}

Test(regex, node_10k_hosts)
{
    struct tbuf b = {0};
    char name[32], *re;
    int i;

    tb_add(&b, "");
    for (i = 0; i < 10000; i++) {
        snprintf(name, sizeof(name), i ? ",nid%05d" : "nid%05d", i);
        tb_add(&b, name);
    }
    re = gen_nodes(b.s);
    cr_assert_str_eq(re, "pmix:nid[00000-09999]");
    free(re);
    check_nodes_roundtrip(b.s);
    free(b.s);

    rng_seed(7);
    memset(&b, 0, sizeof(b));
    tb_add(&b, "");
    random_hosts(&b, 10000);
    check_nodes_roundtrip(b.s);
    free(b.s);
}

Test(regex, node_large_range_parse)
{
    char **names = NULL;

    cr_assert_eq(px_regex_parse_nodes("pmix:n[0000000-0099999]", &names), 0);
    cr_assert_eq(argv_len(names), 100000);
    cr_assert_str_eq(names[0], "n0000000");
    cr_assert_str_eq(names[99999], "n0099999");
    px_regex_argv_free(names);
}

/* ---- node lists: malformed input -------------------------------------------------- */

static void expect_nodes_error(const char *input, int err)
{
    char *re = (char *)1, **names = (char **)1;
    char buf[512];

    errno = 0;
    cr_assert_eq(px_regex_generate_nodes(input, &re), -1, "generate accepted %s", input);
    cr_assert_eq(errno, err, "generate(%s): errno %d, expected %d", input, errno, err);
    cr_assert_null(re);
    cr_assert_eq(PMIx_generate_regex(input, &re), PMIX_ERR_BAD_PARAM);
    if (!input)
        return;
    snprintf(buf, sizeof(buf), "pmix:%s", input);
    errno = 0;
    cr_assert_eq(px_regex_parse_nodes(buf, &names), -1, "parse accepted %s", buf);
    cr_assert_eq(errno, err, "parse(%s): errno %d, expected %d", buf, errno, err);
    cr_assert_null(names);
}

Test(regex, node_bad_input)
{
    static const char *bad[] = {
        "",         ",",
        "a,",       ",a",
        "a,,b",     "n[",
        "n[1",      "n]",
        "n1]",      "n[1]]",
        "n[[1]]",   "n[1[2]]",
        "n[]",      "n[,]",
        "n[1,]",    "n[,1]",
        "n[-1]",    "n[1-]",
        "n[1-2-3]", "n[5-3]",
        "a[5-3]",   "n[a]",
        "n[1a]",    "n[ 1]",
        "n[1 - 2]", "n[+1]",
        "n[1]b[2]", "n[1],m[",
        "n[1,2",    "[",
        "]",        "n[1-0x5]",
        "n[1--2]",  "n[0000000000000000001]",
    };
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        expect_nodes_error(bad[i], EINVAL);
    expect_nodes_error(NULL, EINVAL);
}

Test(regex, node_too_large)
{
    expect_nodes_error("n[0-99999999999]", E2BIG);
    expect_nodes_error("n[0-999999999999999999]", E2BIG);
    /* 5M names of 40+ bytes exceed the byte bound before anything is allocated */
    expect_nodes_error("a-rather-long-host-name-prefix-for-tests[0-4999999]", E2BIG);
}

Test(regex, node_bad_regex)
{
    char **names = (char **)1;

    cr_assert_eq(px_regex_parse_nodes("odin[1-2]", &names), -1);
    cr_assert_eq(errno, EINVAL);
    cr_assert_null(names);
    cr_assert_eq(px_regex_parse_nodes("pmix", &names), -1);
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(px_regex_parse_nodes("blob:xyz", &names), -1);
    cr_assert_eq(errno, ENOTSUP);
    cr_assert_eq(px_regex_parse_nodes("pmix:", &names), -1);
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(px_regex_parse_nodes(NULL, &names), -1);
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(px_regex_parse_nodes("pmix:a", NULL), -1);
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(px_regex_generate_nodes("a", NULL), -1);
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(PMIx_generate_regex("a", NULL), PMIX_ERR_BAD_PARAM);
}

/* ---- ppn -------------------------------------------------------------------------- */

Test(regex, ppn_shapes)
{
    expect_ppn("0", "pmix:0");
    expect_ppn("0-3", "pmix:0-3");
    expect_ppn("1-4", "pmix:1-4");
    /* a single matching node is not a group */
    expect_ppn("1-4;9", "pmix:1-4;9");
    expect_ppn("1;2;3", "pmix:3x(0)");
    expect_ppn("1-3,4-6", "pmix:1-6");
    expect_ppn("5,4,3", "pmix:5,4,3");
    expect_ppn("0-3;4-7;8-11", "pmix:0-3;4-7;8-11");
    expect_ppn("0,3,6;1,4,7;2,5,8", "pmix:0,3,6;1,4,7;2,5,8");
    /* a group may follow any field: starts one after that field's first rank */
    expect_ppn("7,9;8-10;9-11;20", "pmix:7,9;2x(2);20");
    expect_ppn("1-4;2-5;3-6;4;5-8", "pmix:3x(3);4;5-8");
    expect_ppn("1-4;2-5;3-7", "pmix:2x(3);3-7");
    expect_ppn("1-2;2-3;3-4;4-5", "pmix:4x(1)");
    expect_ppn("007", "pmix:7");
    expect_ppn("4294967244", "pmix:4294967244");
}

Test(regex, ppn_roundtrips_fixed)
{
    check_ppn_roundtrip("1-4;2-5;8,10,11,12;6,7,9");
    check_ppn_roundtrip("0-3;4-7;8-11");
    check_ppn_roundtrip("1;2;3;5;6");
    check_ppn_roundtrip("3,3,3;1-2,2-3");
    check_ppn_roundtrip("7,9;8-10;9-11;20;21;22-30");
    check_ppn_roundtrip("4294967240-4294967244");
}

Test(regex, ppn_roundtrips_random)
{
    int t;

    rng_seed(99);
    for (t = 0; t < 300; t++) {
        struct tbuf b = {0};
        char f[64];
        unsigned nodes = 1 + rng(40), i, k, start = 0, prev_first = 0, d = rng(4);

        tb_add(&b, "");
        for (i = 0; i < nodes; i++) {
            if (i)
                tb_add(&b, ";");
            switch (rng(4)) {
            case 0: /* the sliding form */
                snprintf(f, sizeof(f), "%u-%u", prev_first + 1, prev_first + 1 + d);
                prev_first = prev_first + 1;
                tb_add(&b, f);
                break;
            case 1: /* a block after the last one */
                snprintf(f, sizeof(f), "%u-%u", start, start + d);
                prev_first = start;
                start += d + 1;
                tb_add(&b, f);
                break;
            default: /* a random list */
                for (k = 0; k < 1 + rng(5); k++) {
                    unsigned a = rng(50), z = a + rng(3);
                    if (k == 0)
                        prev_first = a;
                    snprintf(f, sizeof(f), k ? ",%u-%u" : "%u-%u", a, z);
                    if (a == z)
                        snprintf(f, sizeof(f), k ? ",%u" : "%u", a);
                    tb_add(&b, f);
                }
                break;
            }
        }
        check_ppn_roundtrip(b.s);
        free(b.s);
    }
}

Test(regex, ppn_10k_nodes)
{
    struct tbuf b = {0};
    char f[64], *re, **out = NULL;
    int i;

    tb_add(&b, "");
    for (i = 0; i < 10000; i++) {
        snprintf(f, sizeof(f), i ? ";%d-%d" : "%d-%d", i * 4, i * 4 + 3);
        tb_add(&b, f);
    }
    re = gen_ppn(b.s);
    cr_assert_eq(px_regex_parse_ppn(re, &out), 0);
    cr_assert_eq(argv_len(out), 10000);
    cr_assert_str_eq(out[9999], "39996,39997,39998,39999");
    px_regex_argv_free(out);
    free(re);
    free(b.s);
}

static void expect_ppn_error(const char *input, int err)
{
    char *re = (char *)1, **out = (char **)1;
    char buf[512];

    errno = 0;
    cr_assert_eq(px_regex_generate_ppn(input, &re), -1, "generate_ppn accepted %s", input);
    cr_assert_eq(errno, err, "generate_ppn(%s): errno %d, expected %d", input, errno, err);
    cr_assert_null(re);
    cr_assert_eq(PMIx_generate_ppn(input, &re), PMIX_ERR_BAD_PARAM);
    if (!input)
        return;
    snprintf(buf, sizeof(buf), "raw:%s", input);
    cr_assert_eq(px_regex_parse_ppn(buf, &out), -1, "parse_ppn accepted %s", buf);
    cr_assert_null(out);
}

static void expect_ppn_regex_error(const char *regex, int err)
{
    char **out = (char **)1;

    errno = 0;
    cr_assert_eq(px_regex_parse_ppn(regex, &out), -1, "parse_ppn accepted %s", regex);
    cr_assert_eq(errno, err, "parse_ppn(%s): errno %d, expected %d", regex, errno, err);
    cr_assert_null(out);
}

Test(regex, ppn_bad_input)
{
    static const char *bad[] = {
        "",
        ";",
        "1;",
        ";1",
        "1;;2",
        "1,",
        ",1",
        "1,,2",
        "-1",
        "1-",
        "1-2-3",
        "5-3",
        "a",
        "1 ",
        " 1",
        "1, 2",
        "+1",
        "1-x",
        "2x(3)",
        "4294967245",
        "99999999999999999999",
        "1-4294967295",
        "1;2;x",
    };
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        expect_ppn_error(bad[i], EINVAL);
    expect_ppn_error(NULL, EINVAL);
}

Test(regex, ppn_bad_regex)
{
    static const char *bad[] = {
        "pmix:",
        "pmix:0x(3)",
        "pmix:2x(3",
        "pmix:2x3)",
        "pmix:2x()",
        "pmix:x(3)",
        "pmix:2(3)",
        "pmix:2x(3)1",
        "pmix:2x(-1)",
        "pmix:2x(3);",
        "pmix:2y(3)",
        "pmix:2xx(3)",
        "1-4",
        "pmix:1;;2",
        "pmix:4294967240;9x(0)",
        "pmix:1x(4294967245)",
        "pmix:2x(3),1",
    };
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        expect_ppn_regex_error(bad[i], EINVAL);
    expect_ppn_regex_error(NULL, EINVAL);
    expect_ppn_regex_error("blob:abc", ENOTSUP);
    expect_ppn_regex_error("pmix:10000001x(0)", EINVAL);
    expect_ppn_regex_error("pmix:0-99999999", E2BIG);
    expect_ppn_regex_error("pmix:10000000x(1)", E2BIG);
    expect_ppn_regex_error("pmix:1;10000000x(0)", E2BIG);
    expect_ppn_regex_error("pmix:0-5000000;5000000-9999999", E2BIG);
}
