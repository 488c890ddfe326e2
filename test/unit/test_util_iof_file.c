/* Unit tests of libpmix-core/util iof_file.c: the names the Tools chapter gives a job's
 * output files (PMIX_IOF_OUTPUT_TO_DIRECTORY, _TO_FILE, PMIX_IOF_FILE_PATTERN, merged
 * stderr), directories made on open, a fresh open truncating and a later one appending.
 * Single-threaded; files under a private directory in /tmp. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmix_common.h"
#include "util/px_iof_file.h"

static void expect_path(const char *dir, const char *file, bool pattern, const char *ns,
                        pmix_rank_t rank, bool err, bool merge, const char *want)
{
    char path[256];
    cr_assert_eq(px_iof_file_path(path, sizeof(path), dir, file, pattern, ns, rank, err, merge), 0,
                 "want %s", want);
    cr_assert_str_eq(path, want);
}

Test(iof_file, directory)
{
    expect_path("/o", NULL, false, "job@1", 3, false, false, "/o/job@1/rank.3/stdout");
    expect_path("/o", NULL, false, "job@1", 3, true, false, "/o/job@1/rank.3/stderr");
    expect_path("/o", NULL, false, "job@1", 3, true, true, "/o/job@1/rank.3/stdout");
    expect_path("/o", "/f", false, "a/b", 0, false, false, "/o/a_b/rank.0/stdout");
}

Test(iof_file, file)
{
    expect_path(NULL, "/f/out", false, "job@1", 7, false, false, "/f/out.job@1.7.stdout");
    expect_path(NULL, "/f/out", false, "job@1", 7, true, false, "/f/out.job@1.7.stderr");
    expect_path(NULL, "/f/out", false, "job@1", 7, true, true, "/f/out.job@1.7.stdout");
}

Test(iof_file, pattern)
{
    expect_path(NULL, "/f/%n-%r.log", true, "job@1", 12, false, false, "/f/job@1-12.log.stdout");
    expect_path(NULL, "/f/%r%r%x%", true, "j", 5, true, false, "/f/55%x%.stderr");
    expect_path(NULL, "/f/plain", true, "j", 5, false, false, "/f/plain.stdout");
}

Test(iof_file, errors)
{
    char path[16];
    errno = 0;
    cr_assert_eq(px_iof_file_path(path, sizeof(path), "/a/very/long/directory", NULL, false, "j", 0,
                                  false, false),
                 -1);
    cr_assert_eq(errno, ENAMETOOLONG);
    cr_assert_eq(
        px_iof_file_path(path, sizeof(path), NULL, "/p/%n%n%n", true, "namespace", 0, false, false),
        -1);
    cr_assert_eq(errno, ENAMETOOLONG);
    cr_assert_eq(px_iof_file_path(path, sizeof(path), NULL, NULL, false, "j", 0, false, false), -1);
    cr_assert_eq(errno, EINVAL);
}

static char *slurp(const char *path)
{
    static char buf[256];
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

Test(iof_file, open_fresh_then_append)
{
    char dir[] = "/tmp/test_iof_fileXXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[512];
    snprintf(path, sizeof(path), "%s/a/b/out", dir);
    int fd = px_iof_file_open(path, true);
    cr_assert_geq(fd, 0, "%s", strerror(errno));
    cr_assert_eq(px_iof_file_write(fd, "one\n", 4), 0);
    close(fd);
    fd = px_iof_file_open(path, false);
    cr_assert_eq(px_iof_file_write(fd, "two\n", 4), 0);
    close(fd);
    cr_assert_str_eq(slurp(path), "one\ntwo\n");
    fd = px_iof_file_open(path, true);
    cr_assert_eq(px_iof_file_write(fd, "three\n", 6), 0);
    close(fd);
    cr_assert_str_eq(slurp(path), "three\n");
    cr_assert_eq(px_iof_file_open("/proc/none/x", true), -1);
    unlink(path);
    snprintf(path, sizeof(path), "%s/a/b", dir);
    rmdir(path);
    snprintf(path, sizeof(path), "%s/a", dir);
    rmdir(path);
    rmdir(dir);
}
