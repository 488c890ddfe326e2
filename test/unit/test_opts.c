/* Unit tests of cli/opts*.c: every option of prte, prterun, prun, pterm and pps in its
 * spellings, MPMD and appfiles, and the clear error of every malformed input. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "cli/opts_int.h"
#include "cli/px_opts.h"
#include "help/px_help.h"

/* ---- helpers ---------------------------------------------------------------------- */

static FILE *cap_file[3];
static int cap_saved[3] = {-1, -1, -1};

static void cap_start(int fd)
{
    fflush(fd == 1 ? stdout : stderr);
    cap_file[fd] = tmpfile();
    cr_assert_not_null(cap_file[fd]);
    cap_saved[fd] = dup(fd);
    dup2(fileno(cap_file[fd]), fd);
}

static char *cap_end(int fd)
{
    static char buf[3][16384];
    size_t n;

    fflush(fd == 1 ? stdout : stderr);
    dup2(cap_saved[fd], fd);
    close(cap_saved[fd]);
    rewind(cap_file[fd]);
    n = fread(buf[fd], 1, sizeof(buf[fd]) - 1, cap_file[fd]);
    buf[fd][n] = '\0';
    fclose(cap_file[fd]);
    return buf[fd];
}

static char g_out[16384], g_err[16384];
static bool g_keep_root_env; /* run() allows root through the environment unless set */

/* Parse a NULL-terminated list of arguments for kind; stdout and stderr land in g_out
 * and g_err. */
static px_opts_result_t run(px_cmd_kind_t kind, px_cmd_t *cmd, ...)
{
    char *argv[64];
    int argc = 0;
    va_list ap;
    px_opts_result_t r;

    va_start(ap, cmd);
    argv[argc++] = (char *)(kind == PX_CMD_PRUN      ? "/usr/bin/prun"
                            : kind == PX_CMD_PRTERUN ? "prterun"
                            : kind == PX_CMD_PRTE    ? "prte"
                            : kind == PX_CMD_PTERM   ? "pterm"
                                                     : "pps");
    for (char *a; (a = va_arg(ap, char *)) != NULL;)
        argv[argc++] = a;
    argv[argc] = NULL;
    va_end(ap);
    if (!g_keep_root_env) {
        setenv("PRTE_ALLOW_RUN_AS_ROOT", "1", 1);
        setenv("PRTE_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    }
    cap_start(1);
    cap_start(2);
    r = px_opts_parse(kind, argc, argv, cmd);
    snprintf(g_err, sizeof(g_err), "%s", cap_end(2));
    snprintf(g_out, sizeof(g_out), "%s", cap_end(1));
    return r;
}

static const pmix_info_t *jget(const px_cmd_t *cmd, const char *key)
{
    for (size_t i = 0; i < cmd->njinfo; i++) {
        if (strcmp(cmd->jinfo[i].key, key) == 0)
            return &cmd->jinfo[i];
    }
    return NULL;
}

static const char *jstr(const px_cmd_t *cmd, const char *key)
{
    const pmix_info_t *i = jget(cmd, key);
    cr_assert_not_null(i, "job info %s missing", key);
    cr_assert_eq(i->value.type, PMIX_STRING);
    return i->value.data.string;
}

static void jtrue(const px_cmd_t *cmd, const char *key)
{
    const pmix_info_t *i = jget(cmd, key);
    cr_assert_not_null(i, "job info %s missing", key);
    cr_assert_eq(i->value.type, PMIX_BOOL);
    cr_assert(i->value.data.flag);
}

#define EXPECT_ERR(kind, needle, ...)                                                              \
    do {                                                                                           \
        px_cmd_t c_;                                                                               \
        cr_assert_eq(run(kind, &c_, __VA_ARGS__, NULL), PX_OPTS_EXIT_ERR);                         \
        cr_assert(strstr(g_err, needle) != NULL, "stderr lacks \"%s\":\n%s", needle, g_err);       \
    } while (0)

#define EXPECT_RUN(kind, cmdp, ...)                                                                \
    cr_assert_eq(run(kind, cmdp, __VA_ARGS__, NULL), PX_OPTS_RUN, "stderr:\n%s", g_err)

static char *write_temp(const char *text)
{
    static char path[8][64];
    static int which;
    char *p = path[which++ % 8];
    int fd;

    snprintf(p, 64, "/tmp/px_test_opts_XXXXXX");
    fd = mkstemp(p);
    cr_assert(fd >= 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return p;
}

/* ---- -n -------------------------------------------------------------------------- */

Test(opts, np_every_spelling)
{
    const char *forms[][3] = {{"-n", "4", NULL},   {"--np", "4", NULL}, {"--np=4", NULL, NULL},
                              {"-np", "4", NULL},  {"-n4", NULL, NULL}, {"-np=4", NULL, NULL},
                              {"-n=4", NULL, NULL}};
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        px_cmd_t c;
        if (forms[i][1] != NULL)
            EXPECT_RUN(PX_CMD_PRUN, &c, forms[i][0], forms[i][1], "./a");
        else
            EXPECT_RUN(PX_CMD_PRUN, &c, forms[i][0], "./a");
        cr_assert_eq(c.napps, 1);
        cr_assert_eq(c.apps[0].maxprocs, 4, "form %s", forms[i][0]);
        px_opts_fini(&c);
    }
}

Test(opts, np_absent_is_zero)
{
    px_cmd_t c;
    EXPECT_RUN(PX_CMD_PRTERUN, &c, "hostname");
    cr_assert_eq(c.apps[0].maxprocs, 0);
    cr_assert_str_eq(c.apps[0].cmd, "hostname");
    cr_assert_str_eq(c.prog, "prterun");
    px_opts_fini(&c);
}

Test(opts, np_bad_values)
{
    EXPECT_ERR(PX_CMD_PRUN, "\"0\"", "-n", "0", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "\"-1\"", "-n", "-1", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "\"1x\"", "-n", "1x", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "\"\"", "--np=", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "positive integer", "--np", "", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "needs a value", "./a", ":", "-n");
    EXPECT_ERR(PX_CMD_PRUN, "\"-n\" needs a value", "-n");
}

/* ---- apps: argv, cwd, MPMD, -x, --pset, --wdir ---------------------------------- */

Test(opts, app_argv_and_defaults)
{
    px_cmd_t c;
    char cwd[4096];
    EXPECT_RUN(PX_CMD_PRUN, &c, "-n", "2", "./a.out", "-n", "5", "--map-by", "x");
    cr_assert_str_eq(c.apps[0].cmd, "./a.out");
    cr_assert_str_eq(c.apps[0].argv[0], "./a.out");
    cr_assert_str_eq(c.apps[0].argv[1], "-n");
    cr_assert_str_eq(c.apps[0].argv[4], "x");
    cr_assert_null(c.apps[0].argv[5]);
    cr_assert_not_null(c.apps[0].env);
    cr_assert_null(c.apps[0].env[0]);
    cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
    cr_assert_str_eq(c.apps[0].cwd, cwd);
    cr_assert_eq(c.apps[0].ninfo, 0);
    cr_assert_null(jget(&c, PMIX_MAPBY));
    px_opts_fini(&c);
}

Test(opts, mpmd_per_app_options)
{
    px_cmd_t c;
    setenv("PX_TEST_FROM_ENV", "envval", 1);
    EXPECT_RUN(PX_CMD_PRUN, &c, "-n", "2", "--pset", "lead", "-x", "FOO=1", "-x",
               "PX_TEST_FROM_ENV", "--wdir", "/tmp", "./a", "x", "y", ":", "--np=3", "--pset=work",
               "--map-by", "node", "-x=BAR=2", "./b", "z");
    cr_assert_eq(c.napps, 2);
    cr_assert_eq(c.apps[0].maxprocs, 2);
    cr_assert_eq(c.apps[1].maxprocs, 3);
    cr_assert_str_eq(c.apps[0].argv[2], "y");
    cr_assert_str_eq(c.apps[1].argv[0], "./b");
    cr_assert_str_eq(c.apps[1].argv[1], "z");
    cr_assert_str_eq(c.apps[0].env[0], "FOO=1");
    cr_assert_str_eq(c.apps[0].env[1], "PX_TEST_FROM_ENV=envval");
    cr_assert_null(c.apps[0].env[2]);
    cr_assert_str_eq(c.apps[1].env[0], "BAR=2");
    cr_assert_str_eq(c.apps[0].cwd, "/tmp");
    cr_assert_str_neq(c.apps[1].cwd, "/tmp");
    cr_assert_eq(c.apps[0].ninfo, 1);
    cr_assert_str_eq(c.apps[0].info[0].key, PMIX_PSET_NAME);
    cr_assert_str_eq(c.apps[0].info[0].value.data.string, "lead");
    cr_assert_str_eq(c.apps[1].info[0].value.data.string, "work");
    cr_assert_str_eq(jstr(&c, PMIX_MAPBY), "node"); /* global, from the second segment */
    px_opts_fini(&c);
}

Test(opts, x_forms_and_errors)
{
    px_cmd_t c;
    unsetenv("PX_TEST_UNSET_VAR");
    EXPECT_RUN(PX_CMD_PRUN, &c, "-x", "A=1", "-x", "A=2", "-xB=", "./a");
    cr_assert_str_eq(c.apps[0].env[0], "A=2"); /* replaced */
    cr_assert_str_eq(c.apps[0].env[1], "B=");
    px_opts_fini(&c);
    EXPECT_ERR(PX_CMD_PRUN, "PX_TEST_UNSET_VAR", "-x", "PX_TEST_UNSET_VAR", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "not set", "-x", "PX_TEST_UNSET_VAR", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "-x \"1A=2\" is not valid", "-x", "1A=2", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "-x \"=v\" is not valid", "-x", "=v", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "-x \"A-B=1\" is not valid", "-x", "A-B=1", "./a");
}

Test(opts, missing_executable_and_empty_segments)
{
    EXPECT_ERR(PX_CMD_PRUN, "no executable", "-n", "2");
    EXPECT_ERR(PX_CMD_PRTERUN, "no executable", "--map-by", "slot");
    EXPECT_ERR(PX_CMD_PRUN, "no executable", "-v");
    EXPECT_ERR(PX_CMD_PRUN, "app 2", "./a", ":");
    EXPECT_ERR(PX_CMD_PRUN, "app 2", "./a", ":", "-n", "2");
    EXPECT_ERR(PX_CMD_PRUN, "app 1", ":", "./b");
    EXPECT_ERR(PX_CMD_PRUN, "app 2", "./a", ":", ":", "./b");
}

Test(opts, double_dash_ends_options)
{
    px_cmd_t c;
    EXPECT_RUN(PX_CMD_PRUN, &c, "-n", "1", "--", "-weird-name", "arg");
    cr_assert_str_eq(c.apps[0].cmd, "-weird-name");
    px_opts_fini(&c);
}

/* ---- appfile --------------------------------------------------------------------- */

Test(opts, appfile)
{
    px_cmd_t c;
    char *f = write_temp("# an appfile\n\n-n 2 --pset lead ./leader -v\n"
                         "   # indented comment\n--np=3 -x Q=\"a b\" ./worker 'x y' z\n");
    EXPECT_RUN(PX_CMD_PRUN, &c, "--map-by", "core", "--app", f);
    cr_assert_eq(c.napps, 2);
    cr_assert_eq(c.apps[0].maxprocs, 2);
    cr_assert_str_eq(c.apps[0].argv[0], "./leader");
    cr_assert_str_eq(c.apps[0].argv[1], "-v");
    cr_assert_str_eq(c.apps[0].info[0].value.data.string, "lead");
    cr_assert_eq(c.apps[1].maxprocs, 3);
    cr_assert_str_eq(c.apps[1].env[0], "Q=a b");
    cr_assert_str_eq(c.apps[1].argv[1], "x y");
    cr_assert_str_eq(c.apps[1].argv[2], "z");
    cr_assert_str_eq(jstr(&c, PMIX_MAPBY), "core");
    px_opts_fini(&c);
    unlink(f);
}

Test(opts, appfile_errors)
{
    char *empty = write_temp("# nothing\n\n");
    char *bad = write_temp("-n 1 ./a\n-n zero ./b\n");
    char *noexe = write_temp("-n 1 ./a\n-n 2\n");
    char *nested = write_temp("--app other ./a\n");
    char *good = write_temp("./a\n");

    EXPECT_ERR(PX_CMD_PRUN, "cannot read the appfile /nonexistent/appfile", "--app",
               "/nonexistent/appfile");
    EXPECT_ERR(PX_CMD_PRUN, "names no executable", "--app", empty);
    EXPECT_ERR(PX_CMD_PRUN, "\"zero\"", "--app", bad);
    EXPECT_ERR(PX_CMD_PRUN, "line 2", "--app", bad);
    EXPECT_ERR(PX_CMD_PRUN, "line 2", "--app", noexe);
    EXPECT_ERR(PX_CMD_PRUN, "inside an appfile", "--app", nested);
    EXPECT_ERR(PX_CMD_PRUN, "both --app", "--app", good, "./b");
    EXPECT_ERR(PX_CMD_PRUN, "needs a value", "--app");
    unlink(empty);
    unlink(bad);
    unlink(noexe);
    unlink(nested);
    unlink(good);
}

/* ---- mapping options ------------------------------------------------------------- */

Test(opts, map_rank_bind_valid)
{
    const char *maps[] = {"slot",
                          "node",
                          "core",
                          "package",
                          "socket",
                          "hwthread",
                          "ppr:2:package",
                          "ppr:1:node",
                          "core:PE=2",
                          ":OVERSUBSCRIBE",
                          "package:NOOVERSUBSCRIBE",
                          "ppr:2:core:pe=1:oversubscribe"};
    for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++) {
        px_cmd_t c;
        EXPECT_RUN(PX_CMD_PRUN, &c, "--map-by", maps[i], "./a");
        cr_assert_str_eq(jstr(&c, PMIX_MAPBY), maps[i]);
        px_opts_fini(&c);
    }
    px_cmd_t c;
    EXPECT_RUN(PX_CMD_PRUN, &c, "--map-by=node", "--rank-by=span", "--bind-to=hwthread", "./a");
    cr_assert_str_eq(jstr(&c, PMIX_MAPBY), "node");
    cr_assert_str_eq(jstr(&c, PMIX_RANKBY), "span");
    cr_assert_str_eq(jstr(&c, PMIX_BINDTO), "hwthread");
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRTERUN, &c, "-map-by", "slot", "--rank-by", "core", "--bind-to", "none",
               "./a");
    cr_assert_str_eq(jstr(&c, PMIX_RANKBY), "core");
    cr_assert_str_eq(jstr(&c, PMIX_BINDTO), "none");
    px_opts_fini(&c);
}

Test(opts, map_rank_bind_bogus)
{
    EXPECT_ERR(PX_CMD_PRUN, "--map-by \"bogus\" is not valid: \"bogus\"", "--map-by", "bogus",
               "./a");
    EXPECT_ERR(PX_CMD_PRUN, "\"ppr:x:core\"", "--map-by", "ppr:x:core", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "\"ppr:2:slot\"", "--map-by", "ppr:2:slot", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "\"ppr:2\"", "--map-by", "ppr:2", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "\"PE=0\"", "--map-by", "core:PE=0", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "\"FOO\"", "--map-by", "slot:FOO", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "\"NOOVERSUBSCRIBE\"", "--map-by", "slot:OVERSUBSCRIBE:NOOVERSUBSCRIBE",
               "./a");
    EXPECT_ERR(PX_CMD_PRUN, "--map-by \"\"", "--map-by=", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "--rank-by \"bogus\" is not valid", "--rank-by", "bogus", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "--bind-to \"bogus\" is not valid", "--bind-to", "bogus", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "--bind-to \"node\" is not valid", "--bind-to", "node", "./a");
}

Test(opts, display_and_report_bindings)
{
    px_cmd_t c;
    EXPECT_RUN(PX_CMD_PRUN, &c, "--display", "map,bind", "./a");
    jtrue(&c, PMIX_DISPLAY_MAP);
    jtrue(&c, PMIX_REPORT_BINDINGS);
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRUN, &c, "--report-bindings", "--display=map", "./a");
    jtrue(&c, PMIX_DISPLAY_MAP);
    jtrue(&c, PMIX_REPORT_BINDINGS);
    px_opts_fini(&c);
    cr_assert_null(jget(&c, PMIX_DISPLAY_ALLOCATION));
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRUN, &c, "--display", "allocation,map,bind", "./a");
    jtrue(&c, PMIX_DISPLAY_ALLOCATION);
    jtrue(&c, PMIX_DISPLAY_MAP);
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRTERUN, &c, "--display=alloc", "./a");
    jtrue(&c, PMIX_DISPLAY_ALLOCATION);
    cr_assert_null(jget(&c, PMIX_DISPLAY_MAP));
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRUN, &c, "./a");
    cr_assert_null(jget(&c, PMIX_DISPLAY_MAP));
    cr_assert_null(jget(&c, PMIX_REPORT_BINDINGS));
    px_opts_fini(&c);
    EXPECT_ERR(PX_CMD_PRUN, "\"topo\" is not understood", "--display", "map,topo", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "--display \"\"", "--display=", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "takes no value", "--report-bindings=yes", "./a");
}

/* ---- output ---------------------------------------------------------------------- */

Test(opts, output_items)
{
    px_cmd_t c;
    EXPECT_RUN(PX_CMD_PRUN, &c, "--output", "tag,rank,timestamp,xml,merge-stderr-to-stdout", "./a");
    jtrue(&c, PMIX_IOF_TAG_OUTPUT);
    jtrue(&c, PMIX_IOF_RANK_OUTPUT);
    jtrue(&c, PMIX_IOF_TIMESTAMP_OUTPUT);
    jtrue(&c, PMIX_IOF_XML_OUTPUT);
    jtrue(&c, PMIX_IOF_MERGE_STDERR_STDOUT);
    cr_assert_null(jget(&c, PMIX_IOF_OUTPUT_RAW));
    cr_assert_null(jget(&c, PMIX_IOF_FILE_ONLY));
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRUN, &c, "--output=dir=/tmp/out:nocopy,file=/tmp/f:raw", "./a");
    cr_assert_str_eq(jstr(&c, PMIX_IOF_OUTPUT_TO_DIRECTORY), "/tmp/out");
    cr_assert_str_eq(jstr(&c, PMIX_IOF_OUTPUT_TO_FILE), "/tmp/f");
    jtrue(&c, PMIX_IOF_FILE_ONLY);
    jtrue(&c, PMIX_IOF_OUTPUT_RAW);
    cr_assert_null(jget(&c, PMIX_IOF_TAG_OUTPUT));
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRUN, &c, "--output", "tag:raw", "./a");
    jtrue(&c, PMIX_IOF_OUTPUT_RAW);
    px_opts_fini(&c);
}

Test(opts, output_bogus)
{
    EXPECT_ERR(PX_CMD_PRUN, "\"bogus\" is not understood", "--output", "tag,bogus", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "\"dir=\" is not understood", "--output", "dir=", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "\"tag:weird\" is not understood", "--output", "tag:weird", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "--output \"tag,\"", "--output", "tag,", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "names no file", "--output", "tag:nocopy", "./a");
}

Test(opts, output_deprecated_spellings)
{
    px_cmd_t c;
    EXPECT_RUN(PX_CMD_PRUN, &c, "--tag-output", "--timestamp-output", "--xml",
               "--merge-stderr-to-stdout", "--output-filename", "/tmp/d", "./a");
    jtrue(&c, PMIX_IOF_TAG_OUTPUT);
    jtrue(&c, PMIX_IOF_TIMESTAMP_OUTPUT);
    jtrue(&c, PMIX_IOF_XML_OUTPUT);
    jtrue(&c, PMIX_IOF_MERGE_STDERR_STDOUT);
    cr_assert_str_eq(jstr(&c, PMIX_IOF_OUTPUT_TO_DIRECTORY), "/tmp/d");
    cr_assert(strstr(g_err,
                     "prun: note: --tag-output is deprecated; use --output tag instead.\n") != NULL,
              "%s", g_err);
    cr_assert(strstr(g_err, "--output-filename is deprecated; use --output dir=<dir>") != NULL);
    cr_assert(strstr(g_err, "-----") == NULL, "one line, no frame: %s", g_err);
    px_opts_fini(&c);
}

/* ---- stdin, timeout, prefix, nohup, always-present keys -------------------------- */

static uint32_t stdin_of(const px_cmd_t *c)
{
    const pmix_info_t *i = jget(c, PMIX_STDIN_TGT);
    cr_assert_not_null(i);
    cr_assert_eq(i->value.type, PMIX_UINT32);
    return i->value.data.uint32;
}

Test(opts, stdin_values)
{
    px_cmd_t c;
    EXPECT_RUN(PX_CMD_PRUN, &c, "./a");
    cr_assert_eq(stdin_of(&c), 0);
    cr_assert_eq(c.stdin_rank, 0);
    cr_assert(!c.stdin_none);
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRUN, &c, "--stdin", "3", "./a");
    cr_assert_eq(stdin_of(&c), 3);
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRUN, &c, "--stdin=all", "./a");
    cr_assert_eq(stdin_of(&c), PMIX_RANK_WILDCARD);
    cr_assert_eq(c.stdin_rank, PMIX_RANK_WILDCARD);
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRUN, &c, "--stdin", "none", "./a");
    cr_assert_null(jget(&c, PMIX_STDIN_TGT));
    cr_assert(c.stdin_none);
    px_opts_fini(&c);
    EXPECT_ERR(PX_CMD_PRUN, "--stdin \"bogus\" is not valid", "--stdin", "bogus", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "--stdin \"-1\" is not valid", "--stdin", "-1", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "--stdin \"2x\" is not valid", "--stdin", "2x", "./a");
}

Test(opts, timeout_values)
{
    px_cmd_t c;
    const pmix_info_t *i;
    EXPECT_RUN(PX_CMD_PRUN, &c, "--timeout", "30", "./a");
    i = jget(&c, PMIX_JOB_TIMEOUT);
    cr_assert_not_null(i);
    cr_assert_eq(i->value.type, PMIX_INT);
    cr_assert_eq(i->value.data.integer, 30);
    cr_assert_eq(c.timeout, 30);
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRUN, &c, "./a");
    cr_assert_null(jget(&c, PMIX_JOB_TIMEOUT));
    px_opts_fini(&c);
    EXPECT_ERR(PX_CMD_PRUN, "--timeout \"0\" is not valid", "--timeout", "0", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "--timeout \"abc\" is not valid", "--timeout=abc", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "--timeout \"-5\" is not valid", "--timeout", "-5", "./a");
}

Test(opts, prefix_nohup_and_always_keys)
{
    px_cmd_t c;
    EXPECT_RUN(PX_CMD_PRUN, &c, "--nohup", "./a");
    jtrue(&c, PMIX_NOHUP);
    jtrue(&c, PMIX_FWD_STDOUT);
    jtrue(&c, PMIX_FWD_STDERR);
    jtrue(&c, PMIX_NOTIFY_COMPLETION);
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRUN, &c, "./a");
    cr_assert_null(jget(&c, PMIX_NOHUP));
    jtrue(&c, PMIX_NOTIFY_COMPLETION);
    jtrue(&c, PMIX_NOTIFY_JOB_EVENTS);
    cr_assert_eq(c.njinfo, 5); /* fwd stdout, fwd stderr, notify completion and job events,
                                  stdin 0 */
    px_opts_fini(&c);
}

/* a debugger's stop points: each a job-level bool true (every rank); not given, absent */
Test(opts, stop_points)
{
    px_cmd_t c;
    EXPECT_RUN(PX_CMD_PRUN, &c, "--stop-on-exec", "./a");
    jtrue(&c, PMIX_DEBUG_STOP_ON_EXEC);
    cr_assert_null(jget(&c, PMIX_DEBUG_STOP_IN_INIT));
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRTERUN, &c, "--stop-in-init", "-n", "2", "./a");
    jtrue(&c, PMIX_DEBUG_STOP_IN_INIT);
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRUN, &c, "--stop-in-app", "./a");
    jtrue(&c, PMIX_DEBUG_STOP_IN_APP);
    cr_assert_null(jget(&c, PMIX_DEBUG_STOP_ON_EXEC));
    px_opts_fini(&c);
    EXPECT_ERR(PX_CMD_PTERM, "\"--stop-on-exec\" is not an option of pterm", "--stop-on-exec");
}

/* ---- generic errors -------------------------------------------------------------- */

Test(opts, unknown_and_misplaced_options)
{
    EXPECT_ERR(PX_CMD_PRUN, "prun: unknown option \"--bogus\"", "--bogus", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "unknown option \"-q\"", "-q", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "unknown option \"--bogus\"", "--bogus=3", "./a");
    EXPECT_ERR(PX_CMD_PTERM, "\"-nfoo\" is not an option of pterm", "-nfoo");
    EXPECT_ERR(PX_CMD_PTERM, "unknown option \"-Z\"", "-Z");
    EXPECT_ERR(PX_CMD_PRUN, "\"--hostfile\" is not an option of prun (it is one of: prte, prterun)",
               "--hostfile", "a", "./a");
    EXPECT_ERR(PX_CMD_PRTE, "\"--add-host\" is not an option of prte (it is one of: prun)",
               "--add-host", "a");
    EXPECT_ERR(PX_CMD_PTERM, "not an option of pterm", "-n", "2");
    EXPECT_ERR(PX_CMD_PRTE, "not an option of prte", "--dvm-uri", "x");
    EXPECT_ERR(PX_CMD_PPS, "not an option of pps", "--daemonize");
    EXPECT_ERR(PX_CMD_PTERM, "unexpected argument \"extra\"", "extra");
    EXPECT_ERR(PX_CMD_PRTE, "unexpected argument \":\"", ":");
    EXPECT_ERR(PX_CMD_PRUN, "\"--map-by\" needs a value: --map-by <policy>", "./a", ":",
               "--map-by");
    EXPECT_ERR(PX_CMD_PRTE, "takes no value", "--daemonize=1");
}

/* ---- help and version ------------------------------------------------------------ */

Test(opts, help_lists_options)
{
    px_cmd_t c;
    cr_assert_eq(run(PX_CMD_PRUN, &c, "--help", NULL), PX_OPTS_EXIT_OK);
    cr_assert(strstr(g_out, "Usage: prun [options] <executable>") != NULL, "%s", g_out);
    cr_assert(strstr(g_out, "--map-by <policy>") != NULL);
    cr_assert(strstr(g_out, "--dvm-uri") != NULL);
    cr_assert(strstr(g_out, "--daemonize") == NULL);
    cr_assert_str_empty(g_err);
    cr_assert_eq(run(PX_CMD_PRTE, &c, "-h", NULL), PX_OPTS_EXIT_OK);
    cr_assert(strstr(g_out, "Usage: prte [options]") != NULL);
    cr_assert(strstr(g_out, "--report-uri") != NULL);
    cr_assert(strstr(g_out, "--np") == NULL);
    cr_assert_eq(run(PX_CMD_PTERM, &c, "--help", NULL), PX_OPTS_EXIT_OK);
    cr_assert(strstr(g_out, "Stop a running DVM") != NULL);
    cr_assert_eq(run(PX_CMD_PPS, &c, "--help", NULL), PX_OPTS_EXIT_OK);
    cr_assert(strstr(g_out, "--system-server-only") != NULL);
    cr_assert_eq(run(PX_CMD_PRTERUN, &c, "-n", "2", "--help", NULL), PX_OPTS_EXIT_OK);
    cr_assert(strstr(g_out, "--hostfile") != NULL);
}

Test(opts, help_for_one_option)
{
    px_cmd_t c;
    cr_assert_eq(run(PX_CMD_PRUN, &c, "--help", "map-by", NULL), PX_OPTS_EXIT_OK);
    cr_assert(strstr(g_out, ":OVERSUBSCRIBE") != NULL, "%s", g_out);
    cr_assert(strstr(g_out, "Usage") == NULL);
    cr_assert_eq(run(PX_CMD_PRUN, &c, "--help", "-n", NULL), PX_OPTS_EXIT_OK);
    cr_assert(strstr(g_out, "-n, --np, -np <N>") != NULL, "%s", g_out);
    cr_assert_eq(run(PX_CMD_PRUN, &c, "--help=--output", NULL), PX_OPTS_EXIT_OK);
    cr_assert(strstr(g_out, ":nocopy") != NULL);
    cr_assert_eq(run(PX_CMD_PRTE, &c, "--help", "report-pid", NULL), PX_OPTS_EXIT_OK);
    cr_assert(strstr(g_out, "--report-pid [file|-|+]") != NULL);
    cr_assert_eq(run(PX_CMD_PRUN, &c, "--help", "bogus", NULL), PX_OPTS_EXIT_ERR);
    cr_assert(strstr(g_err, "no option \"bogus\"") != NULL, "%s", g_err);
}

Test(opts, version)
{
    px_cmd_t c;
    cr_assert_eq(run(PX_CMD_PRUN, &c, "--version", NULL), PX_OPTS_EXIT_OK);
    cr_assert_str_eq(g_out, "prun (pmix-runtime) " PMIX_RUNTIME_VERSION "\n");
    cr_assert_eq(run(PX_CMD_PTERM, &c, "-V", NULL), PX_OPTS_EXIT_OK);
    cr_assert_str_eq(g_out, "pterm (pmix-runtime) " PMIX_RUNTIME_VERSION "\n");
    cr_assert_eq(run(PX_CMD_PRTE, &c, "--version", "--bogus", NULL), PX_OPTS_EXIT_OK);
}

Test(opts, every_option_has_help_text)
{
    for (size_t i = 0; i < px_opt_ndefs; i++) {
        const char *t = px_help_lookup("help-prte-cli.txt", px_opt_defs[i].topic);
        cr_assert_not_null(t, "no topic %s", px_opt_defs[i].topic);
        cr_assert(strchr(t, '\n') != strrchr(t, '\n') || strchr(t, '\n') != NULL);
        cr_assert(strstr(t, px_opt_defs[i].lng) != NULL, "%s names its option",
                  px_opt_defs[i].topic);
        cr_assert_eq(px_help_nargs("help-prte-cli.txt", px_opt_defs[i].topic), 0);
    }
}

/* ---- common options -------------------------------------------------------------- */

Test(opts, verbose_and_allow_root)
{
    px_cmd_t c;
    EXPECT_RUN(PX_CMD_PTERM, &c, "-v", "--verbose", "-vv", "--allow-run-as-root");
    cr_assert_eq(c.verbose, 4);
    cr_assert(c.allow_run_as_root);
    px_opts_fini(&c);
}

Test(opts, root_rule)
{
    cr_assert(px_opts_root_allowed(1000, false, NULL, NULL));
    cr_assert(!px_opts_root_allowed(0, false, NULL, NULL));
    cr_assert(px_opts_root_allowed(0, true, NULL, NULL));
    cr_assert(!px_opts_root_allowed(0, false, "1", NULL));
    cr_assert(!px_opts_root_allowed(0, false, NULL, "1"));
    cr_assert(!px_opts_root_allowed(0, false, "1", "0"));
    cr_assert(!px_opts_root_allowed(0, false, "yes", "1"));
    cr_assert(px_opts_root_allowed(0, false, "1", "1"));
    const char *t = px_help_lookup("help-prte-cli.txt", "run-as-root");
    cr_assert(strstr(t, "--allow-run-as-root") != NULL);
    cr_assert(strstr(t, "PRTE_ALLOW_RUN_AS_ROOT=1 and PRTE_ALLOW_RUN_AS_ROOT_CONFIRM=1") != NULL);
}

Test(opts, root_refused_or_allowed_by_flag)
{
    px_cmd_t c;
    g_keep_root_env = true;
    unsetenv("PRTE_ALLOW_RUN_AS_ROOT");
    unsetenv("PRTE_ALLOW_RUN_AS_ROOT_CONFIRM");
    if (geteuid() == 0) {
        EXPECT_ERR(PX_CMD_PTERM, "pterm: refusing to run as root", "-v");
        EXPECT_ERR(PX_CMD_PRUN, "PRTE_ALLOW_RUN_AS_ROOT_CONFIRM=1", "./a");
    } else {
        EXPECT_RUN(PX_CMD_PTERM, &c, "-v");
        px_opts_fini(&c);
    }
    EXPECT_RUN(PX_CMD_PTERM, &c, "--allow-run-as-root");
    px_opts_fini(&c);
    /* --help and --version work for root too */
    cr_assert_eq(run(PX_CMD_PRUN, &c, "--version", NULL), PX_OPTS_EXIT_OK);
}

/* ---- prte and DVM connection options --------------------------------------------- */

Test(opts, prte_options)
{
    px_cmd_t c;
    EXPECT_RUN(PX_CMD_PRTE, &c, "--daemonize", "--report-uri", "-", "--report-pid",
               "--system-server", "--debug-daemons", "--no-ready-msg");
    cr_assert(c.daemonize && c.system_server && c.debug_daemons && c.no_ready_msg);
    cr_assert_str_eq(c.report_uri, "-");
    cr_assert_str_eq(c.report_pid, "-");
    cr_assert_null(c.apps);
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRTE, &c, "--report-uri=/tmp/uri", "--report-pid", "/tmp/pid");
    cr_assert_str_eq(c.report_uri, "/tmp/uri");
    cr_assert_str_eq(c.report_pid, "/tmp/pid");
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRTE, &c, "--report-pid", "+", "--report-uri", "+");
    cr_assert_str_eq(c.report_pid, "+");
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRTE, &c, "--report-pid", "-v");
    cr_assert_str_eq(c.report_pid, "-");
    cr_assert_eq(c.verbose, 1);
    px_opts_fini(&c);
    EXPECT_ERR(PX_CMD_PRTE, "\"--report-uri\" needs a value", "--report-uri");
}

Test(opts, allow_users_and_groups)
{
    px_cmd_t c;
    /* root (uid/gid 0) is in every user and group database; numbers need no entry */
    EXPECT_RUN(PX_CMD_PRTE, &c, "--allow-users", "root,4242", "--allow-groups=root",
               "--allow-users", "7");
    cr_assert_eq(c.nallow_uids, 3);
    cr_assert_eq(c.allow_uids[0], 0);
    cr_assert_eq(c.allow_uids[1], 4242);
    cr_assert_eq(c.allow_uids[2], 7);
    cr_assert_eq(c.nallow_gids, 1);
    cr_assert_eq(c.allow_gids[0], 0);
    px_opts_fini(&c);
    cr_assert_null(c.allow_uids);
    EXPECT_RUN(PX_CMD_PRTERUN, &c, "--allow-groups", "0", "-n", "1", "./a");
    cr_assert_eq(c.nallow_gids, 1);
    px_opts_fini(&c);
    EXPECT_ERR(PX_CMD_PRTE, "no such user", "--allow-users", "root,no-such-user-px");
    EXPECT_ERR(PX_CMD_PRTE, "no such group", "--allow-groups", "no-such-group-px");
    EXPECT_ERR(PX_CMD_PRTE, "is not valid", "--allow-users", ",");
    EXPECT_ERR(PX_CMD_PRTE, "is not valid", "--allow-users", "4294967295");
    EXPECT_ERR(PX_CMD_PRTE, "needs a value", "--allow-users");
    EXPECT_ERR(PX_CMD_PRUN, "not an option of prun", "--allow-users", "root", "./a");
}

Test(opts, prtemca_ssh_agent)
{
    px_cmd_t c;
    unsetenv("PRTE_MCA_plm_ssh_agent");
    EXPECT_RUN(PX_CMD_PRTE, &c, "--daemonize");
    cr_assert_null(c.plm_ssh_agent);
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRTE, &c, "--prtemca", "plm_ssh_agent", "/x/agent -q", "--daemonize");
    cr_assert_str_eq(c.plm_ssh_agent, "/x/agent -q");
    cr_assert(c.daemonize);
    px_opts_fini(&c);
    cr_assert_null(c.plm_ssh_agent);
    /* PRRTE's single-dash spelling, "=" for the key, the last one wins; prterun too */
    EXPECT_RUN(PX_CMD_PRTERUN, &c, "-prtemca", "plm_ssh_agent", "a1", "--prtemca=plm_ssh_agent",
               "a2", "-n", "1", "./a");
    cr_assert_str_eq(c.plm_ssh_agent, "a2");
    cr_assert_eq(c.napps, 1);
    px_opts_fini(&c);
    /* the environment, and the command line over it */
    setenv("PRTE_MCA_plm_ssh_agent", "ssh -x", 1);
    EXPECT_RUN(PX_CMD_PRTE, &c, "-v");
    cr_assert_str_eq(c.plm_ssh_agent, "ssh -x");
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRTE, &c, "--prtemca", "plm_ssh_agent", "mine");
    cr_assert_str_eq(c.plm_ssh_agent, "mine");
    px_opts_fini(&c);
    setenv("PRTE_MCA_plm_ssh_agent", "", 1);
    EXPECT_ERR(PX_CMD_PRTE, "PRTE_MCA_plm_ssh_agent gives an empty value for \"plm_ssh_agent\"",
               "-v");
    unsetenv("PRTE_MCA_plm_ssh_agent");
    /* refusals: an unknown key, an empty value, a missing value, the wrong command */
    EXPECT_ERR(PX_CMD_PRTE, "--prtemca \"plm_rsh_agent\" is not a parameter this DVM knows",
               "--prtemca", "plm_rsh_agent", "ssh");
    cr_assert(strstr(g_err, "The known keys are: plm_ssh_agent, dvm_heartbeat_interval, "
                            "dvm_heartbeat_timeout, plm_ssh_tree_radix, routed_radix.") != NULL,
              "%s", g_err);
    EXPECT_ERR(PX_CMD_PRTE, "gives an empty value", "--prtemca", "plm_ssh_agent", " ");
    EXPECT_ERR(PX_CMD_PRTE, "\"--prtemca\" needs a value: --prtemca <key> <value>", "--prtemca",
               "plm_ssh_agent");
    EXPECT_ERR(PX_CMD_PRTE, "\"--prtemca\" needs a value", "--prtemca");
    EXPECT_ERR(PX_CMD_PRUN, "not an option of prun", "--prtemca", "plm_ssh_agent", "x", "./a");
    /* routed_radix: a number of children, 1..4096, into the DVM's options */
    px_dvm_opts_t o;
    EXPECT_RUN(PX_CMD_PRTE, &c, "--prtemca", "routed_radix", "2");
    px_opts_dvm(&c, &o);
    cr_assert_eq(o.radix, 2);
    px_opts_fini(&c);
    setenv("PRTE_MCA_routed_radix", "16", 1);
    EXPECT_RUN(PX_CMD_PRTE, &c, "-v");
    px_opts_dvm(&c, &o);
    cr_assert_eq(o.radix, 16);
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRTE, &c, "--prtemca", "routed_radix", "3");
    px_opts_dvm(&c, &o);
    cr_assert_eq(o.radix, 3); /* the command line wins */
    px_opts_fini(&c);
    unsetenv("PRTE_MCA_routed_radix");
    EXPECT_RUN(PX_CMD_PRTE, &c, "-v");
    px_opts_dvm(&c, &o);
    cr_assert_eq(o.radix, 0); /* not given: the DVM's default */
    px_opts_fini(&c);
    EXPECT_ERR(PX_CMD_PRTE, "\"routed_radix\" the value \"0\", which is not a radix", "--prtemca",
               "routed_radix", "0");
    EXPECT_ERR(PX_CMD_PRTE, "the value \"12x\", which is not a radix", "--prtemca", "routed_radix",
               "12x");
    /* --help prtemca explains it */
    cr_assert_eq(run(PX_CMD_PRTE, &c, "--help", "prtemca", NULL), PX_OPTS_EXIT_OK);
    cr_assert(strstr(g_out, "PRTE_MCA_plm_ssh_agent") != NULL, "%s", g_out);
    cr_assert_eq(run(PX_CMD_PRTE, &c, "--help", NULL), PX_OPTS_EXIT_OK);
    cr_assert(strstr(g_out, "--prtemca, -prtemca <key> <value>") != NULL, "%s", g_out);
}

/* --prefix / --noprefix of prte and prterun: where prted is on the other hosts */
Test(opts, prefix_rule)
{
    px_cmd_t c;
    unsetenv("PRTE_PREFIX");
    EXPECT_RUN(PX_CMD_PRTE, &c, "--prefix", "/opt/x");
    cr_assert_str_eq(px_opts_prted_prefix(&c), "/opt/x");
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRTE, &c, "-v");
    cr_assert_null(px_opts_prted_prefix(&c));
    px_opts_fini(&c);
    setenv("PRTE_PREFIX", "/env/p", 1);
    EXPECT_RUN(PX_CMD_PRTERUN, &c, "-n", "1", "./a");
    cr_assert_str_eq(px_opts_prted_prefix(&c), "/env/p");
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRTERUN, &c, "--prefix", "/opt/y", "-n", "1", "./a");
    cr_assert_str_eq(px_opts_prted_prefix(&c), "/opt/y"); /* the option over the variable */
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRTE, &c, "--prefix", "/opt/y", "--noprefix");
    cr_assert_null(px_opts_prted_prefix(&c)); /* --noprefix over both */
    cr_assert(c.noprefix);
    px_opts_fini(&c);
    unsetenv("PRTE_PREFIX");
    EXPECT_ERR(PX_CMD_PRTE, "--prefix \"opt/x\" is not valid", "--prefix", "opt/x");
    EXPECT_ERR(PX_CMD_PRUN, "\"--prefix\" is not an option of prun", "--prefix", "/o", "./a");
    EXPECT_ERR(PX_CMD_PRUN, "\"--noprefix\" is not an option of prun", "--noprefix", "./a");
}

/* --prtemca plm_ssh_tree_radix: 1..4096, the default otherwise */
Test(opts, prtemca_tree_radix)
{
    px_cmd_t c;
    unsetenv("PRTE_MCA_plm_ssh_tree_radix");
    EXPECT_RUN(PX_CMD_PRTE, &c, "-v");
    cr_assert_eq(px_opts_tree_radix(&c), PX_TREE_RADIX_DEFAULT);
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRTE, &c, "--prtemca", "plm_ssh_tree_radix", "2");
    cr_assert_eq(px_opts_tree_radix(&c), 2);
    px_opts_fini(&c);
    EXPECT_ERR(PX_CMD_PRTE, "\"plm_ssh_tree_radix\" the value \"0\", which is not a radix",
               "--prtemca", "plm_ssh_tree_radix", "0");
    EXPECT_ERR(PX_CMD_PRTE, "which is not a radix", "--prtemca", "plm_ssh_tree_radix", "4097");
    EXPECT_ERR(PX_CMD_PRTE, "which is not a radix", "--prtemca", "plm_ssh_tree_radix", "2x");
}

/* a Slurm allocation: the hostlist expression, the counts, the hosts of prte */
Test(opts, slurm_hostlist_and_counts)
{
    char **h = NULL;
    size_t n = 0;
    cr_assert_eq(px_opts_hostlist_expand("node[1-3,07],gpu01,x[9-10]y", &h, &n), 0);
    cr_assert_eq(n, 7);
    const char *want[] = {"node1", "node2", "node3", "node07", "gpu01", "x9y", "x10y"};
    for (size_t i = 0; i < n; i++)
        cr_assert_str_eq(h[i], want[i]);
    cr_assert_null(h[n]);
    PMIx_Argv_free(h);
    const char *bad[] = {"", "a,", "n[1-", "n[]", "n[3-1]", "n[a-b]", "n[1]]x", "n[1-2][3-4]"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        cr_assert_neq(px_opts_hostlist_expand(bad[i], &h, &n), 0, "\"%s\" accepted", bad[i]);
    int c[5];
    cr_assert_eq(px_opts_slurm_counts("2(x3),1,4", 5, c), 0);
    cr_assert(c[0] == 2 && c[2] == 2 && c[3] == 1 && c[4] == 4);
    cr_assert_neq(px_opts_slurm_counts("2(x3)", 4, c), 0);     /* too few */
    cr_assert_neq(px_opts_slurm_counts("2(x3),1,1", 4, c), 0); /* too many */
    cr_assert_neq(px_opts_slurm_counts("2(x", 2, c), 0);
    cr_assert_neq(px_opts_slurm_counts("0", 1, c), 0);

    px_cmd_t cmd;
    setenv("SLURM_JOB_ID", "42", 1);
    setenv("SLURM_JOB_NODELIST", "n[1-3]", 1);
    setenv("SLURM_TASKS_PER_NODE", "2(x2),1", 1);
    EXPECT_RUN(PX_CMD_PRTE, &cmd, "-v");
    cr_assert(cmd.slurm);
    cr_assert_eq(cmd.nhosts, 3);
    cr_assert_str_eq(cmd.hosts[2].name, "n3");
    cr_assert_eq(cmd.hosts[0].slots, 2);
    cr_assert_eq(cmd.hosts[2].slots, 1);
    px_opts_fini(&cmd);
    /* --host wins over the allocation */
    EXPECT_RUN(PX_CMD_PRTERUN, &cmd, "--host", "a", "-n", "1", "./x");
    cr_assert(!cmd.slurm);
    cr_assert_eq(cmd.nhosts, 1);
    px_opts_fini(&cmd);
    setenv("SLURM_TASKS_PER_NODE", "2(x5)", 1);
    EXPECT_ERR(PX_CMD_PRTE, "SLURM_TASKS_PER_NODE=\"2(x5)\" cannot be read", "-v");
    unsetenv("SLURM_TASKS_PER_NODE");
    setenv("SLURM_JOB_NODELIST", "n[1-", 1);
    EXPECT_ERR(PX_CMD_PRTE, "SLURM_JOB_NODELIST=\"n[1-\" cannot be read", "-v");
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURM_JOB_NODELIST");
    EXPECT_RUN(PX_CMD_PRTE, &cmd, "-v"); /* outside an allocation: nothing */
    cr_assert(!cmd.slurm);
    cr_assert_eq(cmd.nhosts, 0);
    px_opts_fini(&cmd);
}

/* prun --host / --add-host: each app's PMIX_HOST / PMIX_ADD_HOST, names checked */
static const char *app_str(const pmix_app_t *a, const char *key)
{
    for (size_t i = 0; i < a->ninfo; i++) {
        if (PMIx_Check_key(a->info[i].key, key))
            return a->info[i].value.data.string;
    }
    return NULL;
}

Test(opts, prun_hosts)
{
    px_cmd_t c;
    EXPECT_RUN(PX_CMD_PRUN, &c, "--host", "a:2,b", "--add-host", "c:4", "--add-host", "d", "-n",
               "1", "./x", ":", "--pset", "p", "-n", "1", "./y");
    cr_assert_eq(c.napps, 2);
    for (size_t i = 0; i < 2; i++) {
        cr_assert_str_eq(app_str(&c.apps[i], PMIX_HOST), "a:2,b");
        cr_assert_str_eq(app_str(&c.apps[i], PMIX_ADD_HOST), "c:4,d");
    }
    cr_assert_str_eq(app_str(&c.apps[1], PMIX_PSET_NAME), "p");
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRUN, &c, "./x");
    cr_assert_null(app_str(&c.apps[0], PMIX_HOST));
    px_opts_fini(&c);
    EXPECT_ERR(PX_CMD_PRUN, "--add-host \"c\" is not valid: it is named twice", "--add-host", "c,d",
               "--add-host", "c", "./x");
    EXPECT_ERR(PX_CMD_PRUN, "--add-host \"c:0\" is not valid", "--add-host", "c:0", "./x");
    EXPECT_ERR(PX_CMD_PRUN, "--host \"\" is not valid", "--host", "a,,b", "./x");
}

/* --prtemca dvm_heartbeat_interval / dvm_heartbeat_timeout: seconds, defaults, off */
Test(opts, prtemca_heartbeat)
{
    px_cmd_t c;
    unsigned iv = 1, to = 1;
    unsetenv("PRTE_MCA_dvm_heartbeat_interval");
    unsetenv("PRTE_MCA_dvm_heartbeat_timeout");
    EXPECT_RUN(PX_CMD_PRTE, &c, "-v");
    px_opts_heartbeat(&c, &iv, &to);
    cr_assert_eq(iv, PX_HB_INTERVAL_MS);
    cr_assert_eq(to, PX_HB_TIMEOUT_MS);
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRTERUN, &c, "--prtemca", "dvm_heartbeat_interval", "0.25", "--prtemca",
               "dvm_heartbeat_timeout", "3", "-n", "1", "./a");
    px_opts_heartbeat(&c, &iv, &to);
    cr_assert_eq(iv, 250);
    cr_assert_eq(to, 3000);
    px_opts_fini(&c);
    setenv("PRTE_MCA_dvm_heartbeat_timeout", "0", 1);
    EXPECT_RUN(PX_CMD_PRTE, &c, "-v");
    px_opts_heartbeat(&c, &iv, &to);
    cr_assert_eq(iv, 0);
    cr_assert_eq(to, 0);
    px_opts_fini(&c);
    unsetenv("PRTE_MCA_dvm_heartbeat_timeout");
    EXPECT_ERR(PX_CMD_PRTE,
               "--prtemca gives \"dvm_heartbeat_timeout\" the value \"5x\", which is not a "
               "number of seconds",
               "--prtemca", "dvm_heartbeat_timeout", "5x");
    EXPECT_ERR(PX_CMD_PRTE, "is not a number of seconds", "--prtemca", "dvm_heartbeat_interval",
               "-1");
    EXPECT_ERR(PX_CMD_PRTE, "is not a number of seconds", "--prtemca", "dvm_heartbeat_interval",
               "3601");
    EXPECT_ERR(PX_CMD_PRTE, "is not a number of seconds", "--prtemca", "dvm_heartbeat_interval",
               "nan");
}

Test(opts, connection_options)
{
    px_cmd_t c;
    EXPECT_RUN(PX_CMD_PRUN, &c, "--dvm-uri", "file:/tmp/dvm.uri", "--namespace", "prte-x",
               "--system-server-first", "--system-server-only", "./a");
    cr_assert_str_eq(c.dvm_uri, "file:/tmp/dvm.uri");
    cr_assert_str_eq(c.nspace, "prte-x");
    cr_assert(c.system_first && c.system_only);
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PTERM, &c, "--pid=1234");
    cr_assert_eq(c.pid, 1234);
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PPS, &c, "--dvm-uri=prte.0;tcp4://127.0.0.1:5000");
    cr_assert_str_eq(c.dvm_uri, "prte.0;tcp4://127.0.0.1:5000");
    px_opts_fini(&c);
    EXPECT_ERR(PX_CMD_PTERM, "--pid \"12ab\" is not valid", "--pid", "12ab");
    EXPECT_ERR(PX_CMD_PTERM, "--pid \"0\" is not valid", "--pid", "0");
    EXPECT_ERR(PX_CMD_PTERM, "--pid and --dvm-uri cannot be used together", "--pid", "5",
               "--dvm-uri", "x");
}

/* ---- hosts ----------------------------------------------------------------------- */

Test(opts, host_entries)
{
    px_cmd_t c;
    EXPECT_RUN(PX_CMD_PRTE, &c, "--host", "a,b:2", "-host", "c", "-H", "d:16", "--host=e");
    cr_assert_eq(c.nhosts, 5);
    cr_assert_str_eq(c.hosts[0].name, "a");
    cr_assert_eq(c.hosts[0].slots, 0);
    cr_assert_str_eq(c.hosts[1].name, "b");
    cr_assert_eq(c.hosts[1].slots, 2);
    cr_assert_str_eq(c.hosts[3].name, "d");
    cr_assert_eq(c.hosts[3].slots, 16);
    cr_assert_str_eq(c.hosts[4].name, "e");
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRTERUN, &c, "--host", "localhost:4", "-n", "4", "./a");
    cr_assert_eq(c.nhosts, 1);
    cr_assert_eq(c.hosts[0].slots, 4);
    px_opts_fini(&c);
}

Test(opts, host_nodes_for_the_mapper)
{
    px_cmd_t c;
    px_map_node_t *nodes = NULL;
    size_t n = 0;
    char *f = write_temp("b slots=3\nc\na slots=2\n");
    EXPECT_RUN(PX_CMD_PRTE, &c, "--host", "a,b:2,a", "--hostfile", f, "--host", "d:4,a");
    cr_assert_eq(px_opts_host_nodes(&c, &nodes, &n), 0);
    cr_assert_eq(n, 4);
    const char *want[] = {"a", "b", "c", "d"};
    int slots[] = {5, 5, 1, 4}; /* a: 1 + 1 + 2 + 1, b: 2 + 3 */
    for (size_t i = 0; i < n; i++) {
        cr_assert_str_eq(nodes[i].name, want[i]);
        cr_assert_eq(nodes[i].slots, slots[i], "%s: %d", want[i], nodes[i].slots);
        cr_assert(nodes[i].slots_given);
        cr_assert_null(nodes[i].topo);
        cr_assert_eq(nodes[i].slots_inuse, 0);
    }
    free(nodes);
    px_opts_fini(&c);
    unlink(f);
    EXPECT_RUN(PX_CMD_PRTE, &c, "--daemonize");
    cr_assert_eq(px_opts_host_nodes(&c, &nodes, &n), 0);
    cr_assert_eq(n, 0);
    free(nodes);
    px_opts_fini(&c);
}

Test(opts, host_bad)
{
    EXPECT_ERR(PX_CMD_PRTE, "--host \"a:0\" is not valid: the slot count", "--host", "a:0");
    EXPECT_ERR(PX_CMD_PRTE, "--host \"a:x\" is not valid", "--host", "a:x");
    EXPECT_ERR(PX_CMD_PRTE, "--host \"a:\" is not valid", "--host", "a:");
    EXPECT_ERR(PX_CMD_PRTE, "--host \"a:-2\" is not valid", "--host", "a:-2");
    EXPECT_ERR(PX_CMD_PRTE, "--host \"\" is not valid: the host name is empty", "--host", "a,,b");
    EXPECT_ERR(PX_CMD_PRTE, "--host \":4\" is not valid: the host name is empty", "--host", ":4");
    EXPECT_ERR(PX_CMD_PRTE, "\"--host\" needs a value", "--host");
}

Test(opts, hostfile)
{
    px_cmd_t c;
    char *f = write_temp("# nodes\nnode1 slots=4\n\n  node2   # no slots\nnode3 slots=1 # c\n");
    EXPECT_RUN(PX_CMD_PRTE, &c, "--hostfile", f, "--host", "x");
    cr_assert_eq(c.nhosts, 4);
    cr_assert_str_eq(c.hosts[0].name, "node1");
    cr_assert_eq(c.hosts[0].slots, 4);
    cr_assert_str_eq(c.hosts[1].name, "node2");
    cr_assert_eq(c.hosts[1].slots, 0);
    cr_assert_eq(c.hosts[2].slots, 1);
    cr_assert_str_eq(c.hosts[3].name, "x");
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRTERUN, &c, "-hostfile", f, "./a");
    cr_assert_eq(c.nhosts, 3);
    px_opts_fini(&c);
    unlink(f);
}

/* max_slots, repeated lines, bad lines: each reported as file:line with what is wrong */
Test(opts, hostfile_max_slots_and_repeats)
{
    px_cmd_t c;
    char *f = write_temp("a slots=2 max_slots=4\nb max-slots=3\n\na slots=1 # again\n"
                         "c max_slots=2\n");
    EXPECT_RUN(PX_CMD_PRTE, &c, "--hostfile", f, "--host", "a");
    cr_assert_eq(c.nhosts, 5);
    cr_assert_eq(c.hosts[0].max_slots, 4);
    cr_assert_eq(c.hosts[1].max_slots, 3);
    cr_assert_eq(c.hosts[1].slots, 0);
    cr_assert_str_eq(c.hosts[2].name, "a");
    cr_assert_eq(c.hosts[2].max_slots, 0);
    cr_assert_eq(c.hosts[4].max_slots, 0); /* --host gives no limit of its own */
    px_map_node_t *nodes = NULL;
    size_t n = 0;
    cr_assert_eq(px_opts_host_nodes(&c, &nodes, &n), 0);
    cr_assert_eq(n, 3);
    cr_assert_str_eq(nodes[0].name, "a");
    cr_assert_eq(nodes[0].slots, 4);
    cr_assert_eq(nodes[0].max_slots, 4);
    cr_assert_eq(nodes[1].max_slots, 3);
    cr_assert_eq(nodes[2].max_slots, 2);
    free(nodes);
    px_opts_fini(&c);
    /* a 2 + 1 + 1 = 4 = max_slots; one more --host a goes beyond it */
    EXPECT_ERR(PX_CMD_PRTE,
               "--host \"a\" is not valid: the host's entries add up to 5 slots, "
               "more than its max_slots=4",
               "--hostfile", f, "--host", "a,a");
    unlink(f);

    static const struct {
        const char *text, *line, *why;
    } bad[] = {
        {"a\nb slots=2 slots=3\n", ":2: \"b slots=2 slots=3\"", "slots is given twice"},
        {"a max_slots=2 max-slots=2\n", ":1: ", "max-slots is given twice"},
        {"a max_slots=0\n", ":1: ", "the value of max_slots is not a positive integer"},
        {"a max_slots=x\n", ":1: ", "the value of max_slots is not a positive integer"},
        {"a slots=3 max_slots=2\n", ":1: ", "max_slots=2 is less than slots=3"},
        {"a max_slots=2\n#\na slots=2\n", ":3: \"a slots=2\"",
         "add up to 3 slots, more than its max_slots=2"},
        {"a max_slots=2\na max_slots=3\n", ":2: ", "given max_slots=2 before and max_slots=3 here"},
        {"node1\nNODE1 slots=2\n", ":2: ", "same host as \"node1\" with other letter case"},
        {"slots=2\n", ":1: ", "the host name is empty"},
        {"a slots=2 junk\n", ":1: ", "\"junk\" is not understood"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *b = write_temp(bad[i].text), want[256];
        snprintf(want, sizeof(want), "%s%s", b, bad[i].line);
        EXPECT_ERR(PX_CMD_PRTE, want, "--hostfile", b);
        EXPECT_ERR(PX_CMD_PRTE, bad[i].why, "--hostfile", b);
        unlink(b);
    }
    EXPECT_ERR(PX_CMD_PRTE, "--host \"Ab\" is not valid: it names the same host as \"ab\"",
               "--host", "ab:2,Ab");
}

Test(opts, hostfile_bad)
{
    char *zero = write_temp("node1 slots=4\nnode2 slots=0\n");
    char *junk = write_temp("node1 cpus=4\n");
    char *nan = write_temp("node1 slots=four\n");
    char *empty = write_temp("# only a comment\n\n");

    EXPECT_ERR(PX_CMD_PRTE, "cannot read the hostfile /nonexistent/hosts", "--hostfile",
               "/nonexistent/hosts");
    EXPECT_ERR(PX_CMD_PRTE, "cannot read the hostfile /tmp", "--hostfile", "/tmp");
    char want[256];
    snprintf(want, sizeof(want), "%s:2: \"node2 slots=0\" is not valid: the value of slots", zero);
    EXPECT_ERR(PX_CMD_PRTE, want, "--hostfile", zero);
    EXPECT_ERR(PX_CMD_PRTE, "\"cpus=4\" is not understood: only \"slots=N\" and \"max_slots=M\"",
               "--hostfile", junk);
    snprintf(want, sizeof(want), "%s:1: ", nan);
    EXPECT_ERR(PX_CMD_PRTE, want, "--hostfile", nan);
    EXPECT_ERR(PX_CMD_PRTE, "names no host", "--hostfile", empty);
    unlink(zero);
    unlink(junk);
    unlink(nan);
    unlink(empty);
}

/* ---- mpiexec spellings (issue 19 part 4) and --personality ------------------------ */

Test(opts, mpiexec_spellings)
{
    px_cmd_t c;
    /* Open MPI's and MPICH's mpiexec lines, unchanged */
    EXPECT_RUN(PX_CMD_PRTERUN, &c, "-np", "4", "-H", "a:2,b:2", "-x", "A=1", "./a");
    cr_assert_eq(c.apps[0].maxprocs, 4);
    cr_assert_eq(c.nhosts, 2);
    cr_assert_str_eq(c.apps[0].env[0], "A=1");
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRTERUN, &c, "-n", "8", "-hosts", "a,b", "-ppn", "4", "-genv", "G", "v w",
               "./a");
    cr_assert_eq(c.nhosts, 2);
    cr_assert_str_eq(c.hosts[1].name, "b");
    cr_assert_str_eq(jstr(&c, PMIX_MAPBY), "ppr:4:node");
    cr_assert_str_eq(c.apps[0].env[0], "G=v w");
    cr_assert_str_eq(c.apps[0].argv[0], "./a", "the value of -genv is not the executable");
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRTERUN, &c, "--hosts=a:3", "--ppn=2", "--genv=H=1", "./a");
    cr_assert_eq(c.hosts[0].slots, 3);
    cr_assert_str_eq(jstr(&c, PMIX_MAPBY), "ppr:2:node");
    cr_assert_str_eq(c.apps[0].env[0], "H=1");
    px_opts_fini(&c);
}

Test(opts, genv_every_executable_x_wins)
{
    px_cmd_t c;
    EXPECT_RUN(PX_CMD_PRUN, &c, "-genv", "G", "1", "-x", "G=own", "./a", ":", "-genv", "K=2", "./b",
               ":", "./c");
    cr_assert_eq(c.napps, 3);
    /* app 0 has its own G; every app gets K, given after the first executable */
    cr_assert_str_eq(c.apps[0].env[0], "G=own");
    cr_assert_str_eq(c.apps[0].env[1], "K=2");
    cr_assert_null(c.apps[0].env[2]);
    cr_assert_str_eq(c.apps[1].env[0], "G=1");
    cr_assert_str_eq(c.apps[1].env[1], "K=2");
    cr_assert_str_eq(c.apps[2].env[0], "G=1");
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRUN, &c, "-genv", "G", "1", "-genv", "G", "2", "./a");
    cr_assert_str_eq(c.apps[0].env[0], "G=2", "a later -genv replaces the earlier");
    cr_assert_null(c.apps[0].env[1]);
    px_opts_fini(&c);
}

Test(opts, mpiexec_spellings_bad)
{
    EXPECT_ERR(PX_CMD_PRTERUN, "\"0\" (-ppn) is not valid", "-ppn", "0", "./a");
    EXPECT_ERR(PX_CMD_PRTERUN, "\"x\" (-ppn) is not valid", "-ppn", "x", "./a");
    EXPECT_ERR(PX_CMD_PRTERUN, "--map-by and -ppn cannot be used together", "-ppn", "2", "--map-by",
               "slot", "./a");
    EXPECT_ERR(PX_CMD_PRTERUN, "-ppn and --map-by cannot be used together", "--map-by", "slot",
               "-ppn", "2", "./a");
    EXPECT_ERR(PX_CMD_PRTERUN, "\"-genv\" needs a value: -genv <name> <value>", "-genv", "G");
    EXPECT_ERR(PX_CMD_PRTERUN, "-genv \"1X\" is not valid", "-genv", "1X", "y", "./a");
    EXPECT_ERR(PX_CMD_PRTERUN, "-genv \"A-B=1\" is not valid", "-genv", "A-B=1", "./a");
    EXPECT_ERR(PX_CMD_PRTERUN, "needs a value", "-hosts");
    EXPECT_ERR(PX_CMD_PRUN, "needs a value", "-hosts"); /* prun has --hosts too */
    EXPECT_ERR(PX_CMD_PRTERUN, "unknown option", "--hostz", "a", "./a");
}

Test(opts, personality_passed_on)
{
    px_cmd_t c;
    EXPECT_RUN(PX_CMD_PRUN, &c, "--personality", "ompi", "./a");
    cr_assert_str_eq(jstr(&c, PMIX_PERSONALITY), "ompi");
    px_opts_fini(&c);
    /* the DVM decides which names exist (help-prte.txt personality-unknown) */
    EXPECT_RUN(PX_CMD_PRTERUN, &c, "--personality=mvapich", "./a");
    cr_assert_str_eq(jstr(&c, PMIX_PERSONALITY), "mvapich");
    px_opts_fini(&c);
    EXPECT_RUN(PX_CMD_PRUN, &c, "./a");
    cr_assert_null(jget(&c, PMIX_PERSONALITY));
    px_opts_fini(&c);
    EXPECT_ERR(PX_CMD_PRUN, "needs a value", "--personality");
}
