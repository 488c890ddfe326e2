/* Unit tests of libpmix-core/util argv.c: PMIx_Argv_*, PMIx_Setenv and the internal
 * px_argv_* / px_env_* helpers, on private arrays and on the real environ.
 * Single-threaded. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <unistd.h>
#include <limits.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pmix_common.h"
#include "common/px_common.h"
#include "util/px_argv.h"

/* Assert argv equals the NULL-terminated list of expected strings. */
static void expect_argv(char **argv, const char *const *want)
{
    int n = 0;

    while (want[n] != NULL) {
        n++;
    }
    cr_assert_not_null(argv);
    cr_assert_eq(PMIx_Argv_count(argv), n, "count %d, want %d", PMIx_Argv_count(argv), n);
    for (int i = 0; i < n; i++) {
        cr_assert_str_eq(argv[i], want[i], "entry %d", i);
    }
    cr_assert_null(argv[n]);
}

Test(argv, count)
{
    char *a[] = {"x", "y", "z", NULL};
    char *empty[] = {NULL};

    cr_assert_eq(PMIx_Argv_count(NULL), 0);
    cr_assert_eq(PMIx_Argv_count(empty), 0);
    cr_assert_eq(PMIx_Argv_count(a), 3);
}

Test(argv, append_prepend)
{
    char **argv = NULL;

    cr_assert_eq(PMIx_Argv_append_nosize(&argv, "b"), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Argv_append_nosize(&argv, "c"), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Argv_prepend_nosize(&argv, "a"), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Argv_append_nosize(&argv, ""), PMIX_SUCCESS);
    expect_argv(argv, (const char *const[]){"a", "b", "c", "", NULL});
    PMIx_Argv_free(argv);

    argv = NULL;
    cr_assert_eq(PMIx_Argv_prepend_nosize(&argv, "only"), PMIX_SUCCESS);
    expect_argv(argv, (const char *const[]){"only", NULL});
    PMIx_Argv_free(argv);
}

Test(argv, append_copies_the_string)
{
    char **argv = NULL;
    char buf[] = "mutable";

    cr_assert_eq(PMIx_Argv_append_nosize(&argv, buf), PMIX_SUCCESS);
    buf[0] = 'X';
    cr_assert_str_eq(argv[0], "mutable");
    cr_assert_neq(argv[0], buf);
    PMIx_Argv_free(argv);
}

Test(argv, bad_params)
{
    char **argv = NULL;

    cr_assert_eq(PMIx_Argv_append_nosize(NULL, "a"), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Argv_append_nosize(&argv, NULL), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Argv_prepend_nosize(NULL, "a"), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Argv_prepend_nosize(&argv, NULL), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Argv_append_unique_nosize(NULL, "a"), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Argv_append_unique_nosize(&argv, NULL), PMIX_ERR_BAD_PARAM);
    cr_assert_null(argv);
    PMIx_Argv_free(NULL);
}

Test(argv, append_unique)
{
    char **argv = NULL;

    cr_assert_eq(PMIx_Argv_append_unique_nosize(&argv, "a"), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Argv_append_unique_nosize(&argv, "b"), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Argv_append_unique_nosize(&argv, "a"), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Argv_append_unique_nosize(&argv, "ab"), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Argv_append_unique_nosize(&argv, "b"), PMIX_SUCCESS);
    expect_argv(argv, (const char *const[]){"a", "b", "ab", NULL});
    PMIx_Argv_free(argv);
}

Test(argv, split_basic)
{
    char **argv = PMIx_Argv_split("a:bb:ccc", ':');

    expect_argv(argv, (const char *const[]){"a", "bb", "ccc", NULL});
    PMIx_Argv_free(argv);

    argv = PMIx_Argv_split("single", ':');
    expect_argv(argv, (const char *const[]){"single", NULL});
    PMIx_Argv_free(argv);
}

Test(argv, split_empty_and_null)
{
    cr_assert_null(PMIx_Argv_split(NULL, ':'));
    cr_assert_null(PMIx_Argv_split("", ':'));
    cr_assert_null(PMIx_Argv_split_with_empty(NULL, ':'));
    cr_assert_null(PMIx_Argv_split_with_empty("", ':'));
    cr_assert_null(PMIx_Argv_split(":::", ':'));
}

Test(argv, split_consecutive_delimiters)
{
    char **argv = PMIx_Argv_split(":a::b:", ':');

    expect_argv(argv, (const char *const[]){"a", "b", NULL});
    PMIx_Argv_free(argv);

    argv = PMIx_Argv_split_with_empty(":a::b:", ':');
    expect_argv(argv, (const char *const[]){"", "a", "", "b", NULL});
    PMIx_Argv_free(argv);

    argv = PMIx_Argv_split_with_empty("::", ':');
    expect_argv(argv, (const char *const[]){"", "", NULL});
    PMIx_Argv_free(argv);
}

Test(argv, split_inter)
{
    char **argv = PMIx_Argv_split_inter("x,,y", ',', true);

    expect_argv(argv, (const char *const[]){"x", "", "y", NULL});
    PMIx_Argv_free(argv);
    argv = PMIx_Argv_split_inter("x,,y", ',', false);
    expect_argv(argv, (const char *const[]){"x", "y", NULL});
    PMIx_Argv_free(argv);
    argv = PMIx_Argv_split_inter("no delimiter", 0, false);
    expect_argv(argv, (const char *const[]){"no delimiter", NULL});
    PMIx_Argv_free(argv);
}

Test(argv, join)
{
    char *a[] = {"a", "", "c", NULL};
    char *one[] = {"one", NULL};
    char *empty[] = {NULL};
    char *s;

    s = PMIx_Argv_join(a, ',');
    cr_assert_str_eq(s, "a,,c");
    free(s);
    s = PMIx_Argv_join(one, ',');
    cr_assert_str_eq(s, "one");
    free(s);
    s = PMIx_Argv_join(empty, ',');
    cr_assert_str_eq(s, "");
    free(s);
    s = PMIx_Argv_join(NULL, ',');
    cr_assert_str_eq(s, "");
    free(s);
}

Test(argv, split_join_round_trip)
{
    const char *src = "a b  c";
    char **argv = PMIx_Argv_split_with_empty(src, ' ');
    char *s = PMIx_Argv_join(argv, ' ');

    cr_assert_str_eq(s, src);
    free(s);
    PMIx_Argv_free(argv);
}

Test(argv, copy)
{
    char *a[] = {"x", "y", NULL};
    char *empty[] = {NULL};
    char **c;

    cr_assert_null(PMIx_Argv_copy(NULL));
    c = PMIx_Argv_copy(empty);
    cr_assert_not_null(c);
    cr_assert_null(c[0]);
    PMIx_Argv_free(c);
    c = PMIx_Argv_copy(a);
    expect_argv(c, (const char *const[]){"x", "y", NULL});
    cr_assert_neq(c[0], a[0]);
    PMIx_Argv_free(c);
}

Test(argv, px_argv_len)
{
    char *a[] = {"ab", "", NULL};
    char *empty[] = {NULL};

    cr_assert_eq(px_argv_len(NULL), 0);
    cr_assert_eq(px_argv_len(empty), sizeof(char *));
    cr_assert_eq(px_argv_len(a), 3 * sizeof(char *) + 3 + 1);
}

Test(argv, px_argv_delete)
{
    char **argv = PMIx_Argv_split("a,b,c,d,e", ',');

    cr_assert_eq(px_argv_delete(&argv, 1, 2), 0);
    expect_argv(argv, (const char *const[]){"a", "d", "e", NULL});
    cr_assert_eq(px_argv_delete(&argv, 2, 100), 0);
    expect_argv(argv, (const char *const[]){"a", "d", NULL});
    cr_assert_eq(px_argv_delete(&argv, 5, 1), 0);
    cr_assert_eq(px_argv_delete(&argv, 0, 0), 0);
    expect_argv(argv, (const char *const[]){"a", "d", NULL});
    cr_assert_eq(px_argv_delete(&argv, 0, 2), 0);
    cr_assert_not_null(argv);
    cr_assert_null(argv[0]);
    errno = 0;
    cr_assert_eq(px_argv_delete(&argv, -1, 1), -1);
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(px_argv_delete(NULL, 0, 1), -1);
    PMIx_Argv_free(argv);

    argv = NULL;
    cr_assert_eq(px_argv_delete(&argv, 0, 1), 0);
    cr_assert_null(argv);
}

Test(env, setenv_private_array)
{
    char **env = NULL;

    cr_assert_eq(PMIx_Setenv("A", "1", true, &env), PMIX_SUCCESS);
    cr_assert_eq(PMIx_Setenv("B", "2", true, &env), PMIX_SUCCESS);
    expect_argv(env, (const char *const[]){"A=1", "B=2", NULL});

    /* overwrite replaces in place, no duplicate */
    cr_assert_eq(PMIx_Setenv("A", "one", true, &env), PMIX_SUCCESS);
    expect_argv(env, (const char *const[]){"A=one", "B=2", NULL});

    /* without overwrite an existing entry is kept */
    cr_assert_eq(PMIx_Setenv("B", "two", false, &env), PMIX_ERR_EXISTS);
    expect_argv(env, (const char *const[]){"A=one", "B=2", NULL});
    cr_assert_eq(PMIx_Setenv("C", "3", false, &env), PMIX_SUCCESS);

    /* NULL value -> empty; a name that is a prefix of another is a different name */
    cr_assert_eq(PMIx_Setenv("AB", NULL, true, &env), PMIX_SUCCESS);
    expect_argv(env, (const char *const[]){"A=one", "B=2", "C=3", "AB=", NULL});
    cr_assert_str_eq(px_env_get(env, "A"), "one");
    cr_assert_str_eq(px_env_get(env, "AB"), "");
    cr_assert_null(px_env_get(env, "D"));
    PMIx_Argv_free(env);
}

Test(env, setenv_bad_params)
{
    char **env = NULL;

    cr_assert_eq(PMIx_Setenv(NULL, "v", true, &env), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Setenv("", "v", true, &env), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Setenv("A=B", "v", true, &env), PMIX_ERR_BAD_PARAM);
    cr_assert_eq(PMIx_Setenv("A", "v", true, NULL), PMIX_ERR_BAD_PARAM);
    cr_assert_null(env);
}

Test(env, setenv_environ)
{
    char **env = environ;

    unsetenv("PX_TEST_UTIL_VAR");
    cr_assert_eq(PMIx_Setenv("PX_TEST_UTIL_VAR", "first", true, &env), PMIX_SUCCESS);
    cr_assert_eq(env, environ);
    cr_assert_str_eq(getenv("PX_TEST_UTIL_VAR"), "first");
    cr_assert_eq(PMIx_Setenv("PX_TEST_UTIL_VAR", "second", false, &env), PMIX_ERR_EXISTS);
    cr_assert_str_eq(getenv("PX_TEST_UTIL_VAR"), "first");
    cr_assert_eq(PMIx_Setenv("PX_TEST_UTIL_VAR", "second", true, &environ), PMIX_SUCCESS);
    cr_assert_str_eq(getenv("PX_TEST_UTIL_VAR"), "second");
    cr_assert_str_eq(px_env_get(environ, "PX_TEST_UTIL_VAR"), "second");

    env = environ;
    cr_assert_eq(px_env_unset(&env, "PX_TEST_UTIL_VAR"), 0);
    cr_assert_null(getenv("PX_TEST_UTIL_VAR"));
    cr_assert_eq(env, environ);
}

Test(env, env_get_and_unset)
{
    char **env = NULL;

    cr_assert_null(px_env_get(NULL, "A"));
    PMIx_Argv_append_nosize(&env, "A=1");
    PMIx_Argv_append_nosize(&env, "BARE");
    PMIx_Argv_append_nosize(&env, "B=x=y");
    PMIx_Argv_append_nosize(&env, "A=again");
    cr_assert_str_eq(px_env_get(env, "A"), "1");
    cr_assert_str_eq(px_env_get(env, "BARE"), "");
    cr_assert_str_eq(px_env_get(env, "B"), "x=y");
    cr_assert_null(px_env_get(env, "A=1"));
    cr_assert_null(px_env_get(env, NULL));

    cr_assert_eq(px_env_unset(&env, "A"), 0);
    expect_argv(env, (const char *const[]){"BARE", "B=x=y", NULL});
    cr_assert_eq(px_env_unset(&env, "BARE"), 0);
    cr_assert_eq(px_env_unset(&env, "NOT_THERE"), 0);
    expect_argv(env, (const char *const[]){"B=x=y", NULL});
    errno = 0;
    cr_assert_eq(px_env_unset(&env, "X=Y"), -1);
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(px_env_unset(NULL, "A"), -1);
    PMIx_Argv_free(env);
}

/* The required-directive check PMIx_Init, PMIx_tool_init and the DVM use. */
Test(common, info_unhonoured_names_the_first_required_unknown_key)
{
    pmix_info_t info[3];
    bool yes = true;
    PMIX_INFO_LOAD(&info[0], "px.known", &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], "px.optional", &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[2], "px.unknown", &yes, PMIX_BOOL);
    const char *const honoured[] = {"px.known", NULL};
    cr_expect_null(px_info_unhonoured(info, 3, honoured), "nothing required yet");
    PMIx_Info_required(&info[0]);
    cr_expect_null(px_info_unhonoured(info, 3, honoured), "a required key that is honoured");
    PMIx_Info_required(&info[2]);
    cr_expect_str_eq(px_info_unhonoured(info, 3, honoured), "px.unknown");
    cr_expect_str_eq(px_info_unhonoured(info, 3, NULL), "px.known", "nothing honoured");
    cr_expect_null(px_info_unhonoured(NULL, 0, honoured));
    for (size_t i = 0; i < 3; i++) {
        PMIX_INFO_DESTRUCT(&info[i]);
    }
}

Test(common, pid_gone)
{
    cr_expect(!px_pid_gone(0), "no pid is not a gone process");
    cr_expect(!px_pid_gone(-1));
    cr_expect(!px_pid_gone(getpid()), "we are alive");
    cr_expect(px_pid_gone((pid_t)INT_MAX), "a pid past pid_max is no process");
}
