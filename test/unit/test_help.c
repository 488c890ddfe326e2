/* Unit tests of libpmix-core/help: catalog lookup, rendering, framing, the missing-topic
 * fallback and the de-duplication table. Single-threaded except the dedup thread test. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "help/px_help.h"
#include "help/px_help_table.h"

/* A catalog file/topic that does not exist, kept in variables so that
 * tools/check_help_refs.py (which checks literal arguments) does not flag them. */
static const char *const no_file = "help-no-such-area.txt";
static const char *const no_topic = "no-such-topic";
/* Dedup tables accept any names; these are not catalog entries. */
static const char *const fa = "help-a.txt";
static const char *const fb = "help-b.txt";
static const char *const fc = "help-c.txt";

/* Capture what fn writes to a memory stream. */
static char *capture_fshow(const char *file, const char *topic, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);

    cr_assert_not_null(mem);
    *rc = px_help_fshow(mem, file, topic, "x", 1);
    cr_assert_eq(fclose(mem), 0);
    return buf;
}

Test(help, table_is_sorted)
{
    for (size_t i = 1; i < px_help_table_len; i++) {
        int c = strcmp(px_help_table[i - 1].file, px_help_table[i].file);

        if (c == 0) {
            c = strcmp(px_help_table[i - 1].topic, px_help_table[i].topic);
        }
        cr_assert_lt(c, 0, "entry %zu out of order", i);
    }
}

Test(help, lookup_hit)
{
    const char *t = px_help_lookup("help-px-util.txt", "test-plain");

    cr_assert_not_null(t);
    cr_assert_str_eq(t, "A message without arguments.\n"
                        "[It shows a line that starts with '['.]\n");
    cr_assert_eq(px_help_nargs("help-px-util.txt", "test-topic"), 2);
    cr_assert_eq(px_help_nargs("help-px-util.txt", "test-star"), 4);
    cr_assert_eq(px_help_nargs("help-px-util.txt", "test-plain"), 0);
}

Test(help, lookup_miss)
{
    errno = 0;
    cr_assert_null(px_help_lookup("help-px-util.txt", no_topic));
    cr_assert_eq(errno, ENOENT);
    errno = 0;
    cr_assert_null(px_help_lookup(no_file, "test-plain"));
    cr_assert_eq(errno, ENOENT);
    cr_assert_null(px_help_lookup(NULL, "test-plain"));
    cr_assert_null(px_help_lookup("help-px-util.txt", NULL));
    /* A prefix of a real name is not a match. */
    cr_assert_null(px_help_lookup("help-px-util.txt", "test")); /* help-check: ignore */
    cr_assert_eq(px_help_nargs("help-px-util.txt", no_topic), -1);
}

Test(help, render_with_arguments)
{
    char *s = px_help_render("help-px-util.txt", "test-topic", "node07", 42);

    cr_assert_not_null(s);
    cr_assert_str_eq(s, "Test message for node07: it was rendered with the number 42.\n"
                        "# This line starts with a literal '#', and 100% is a literal percent.\n");
    free(s);

    s = px_help_render("help-px-util.txt", "test-star", 4, 7, 3, "abcdef");
    cr_assert_not_null(s);
    cr_assert_str_eq(s, "|   7|abc|\n");
    free(s);
}

Test(help, render_missing)
{
    errno = 0;
    cr_assert_null(px_help_render("help-px-util.txt", no_topic));
    cr_assert_eq(errno, ENOENT);
}

Test(help, fshow_frames_message)
{
    int rc;
    char *out = capture_fshow("help-px-util.txt", "test-topic", &rc);
    char expect[512];

    cr_assert_eq(rc, 0);
    snprintf(expect, sizeof(expect),
             "%s\nTest message for x: it was rendered with the number 1.\n"
             "# This line starts with a literal '#', and 100%% is a literal percent.\n%s\n",
             px_help_rule, px_help_rule);
    cr_assert_str_eq(out, expect);
    free(out);
}

Test(help, fshow_missing_topic_fallback)
{
    int rc;
    char *out;

    errno = 0;
    out = capture_fshow(no_file, no_topic, &rc);
    cr_assert_eq(rc, -1);
    cr_assert_eq(errno, ENOENT);
    cr_assert_not_null(strstr(out, "\"no-such-topic\""), "got: %s", out);
    cr_assert_not_null(strstr(out, "help-no-such-area.txt"), "got: %s", out);
    cr_assert_eq(strncmp(out, px_help_rule, strlen(px_help_rule)), 0);
    free(out);
}

Test(help, show_help_missing_to_stderr, .init = cr_redirect_stderr)
{
    errno = 0;
    cr_assert_eq(px_show_help(no_file, no_topic), -1);
    cr_assert_eq(errno, ENOENT);
    fflush(stderr);
    cr_assert_stderr_neq_str("");
}

Test(help, show_help_to_stderr, .init = cr_redirect_stderr)
{
    char expect[256];

    snprintf(expect, sizeof(expect), "%s\n|  12|ab|\n%s\n", px_help_rule, px_help_rule);
    cr_assert_eq(px_show_help("help-px-util.txt", "test-star", 4, 12, 2, "abc"), 0);
    fflush(stderr);
    cr_assert_stderr_eq_str(expect);
}

Test(help, fput_adds_newline)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    char expect[256];

    cr_assert_eq(px_help_fput(mem, "no newline"), 0);
    cr_assert_eq(fclose(mem), 0);
    snprintf(expect, sizeof(expect), "%s\nno newline\n%s\n", px_help_rule, px_help_rule);
    cr_assert_str_eq(buf, expect);
    free(buf);
}

Test(help, dedup_counts)
{
    px_help_dedup_t *d = px_help_dedup_create(0);

    cr_assert_not_null(d);
    cr_assert_eq(px_help_dedup_count(d, fa, "t", NULL), 0);
    cr_assert_eq(px_help_dedup_note(d, fa, "t", "rank 0"), 1);
    cr_assert_eq(px_help_dedup_note(d, fa, "t", "rank 1"), 0);
    cr_assert_eq(px_help_dedup_note(d, fa, "t", NULL), 0);
    cr_assert_eq(px_help_dedup_note(d, fa, "u", NULL), 1);
    cr_assert_eq(px_help_dedup_note(d, fb, "t", NULL), 1);
    cr_assert_eq(px_help_dedup_count(d, fa, "t", NULL), 3);
    cr_assert_eq(px_help_dedup_count(d, fa, "u", NULL), 1);
    cr_assert_eq(px_help_dedup_count(d, fb, "t", NULL), 1);
    cr_assert_eq(px_help_dedup_count(d, fb, "u", NULL), 0);
    px_help_dedup_destroy(d);
    px_help_dedup_destroy(NULL);
}

Test(help, dedup_by_text)
{
    px_help_dedup_t *d = px_help_dedup_create(PX_HELP_DEDUP_BY_TEXT);
    char *s;

    cr_assert_not_null(d);
    cr_assert_eq(px_help_dedup_note(d, fa, "t", "rank 0"), 1);
    cr_assert_eq(px_help_dedup_note(d, fa, "t", "rank 1"), 1);
    cr_assert_eq(px_help_dedup_note(d, fa, "t", "rank 0"), 0);
    cr_assert_eq(px_help_dedup_note(d, fa, "t", "rank 1"), 0);
    cr_assert_eq(px_help_dedup_count(d, fa, "t", "rank 0"), 2);
    /* The summary reports one line per (file, topic), summing the texts. */
    s = px_help_dedup_summary(d);
    cr_assert_str_eq(s, "2 more processes sent help message help-a.txt / t\n");
    free(s);
    px_help_dedup_destroy(d);
}

Test(help, dedup_bad_args)
{
    px_help_dedup_t *d;

    errno = 0;
    cr_assert_null(px_help_dedup_create(0x100));
    cr_assert_eq(errno, EINVAL);
    d = px_help_dedup_create(0);
    errno = 0;
    cr_assert_eq(px_help_dedup_note(d, NULL, "t", NULL), -1);
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(px_help_dedup_note(NULL, fa, "t", NULL), -1);
    cr_assert_eq(px_help_dedup_show_text(d, stderr, fa, "t", NULL), -1);
    px_help_dedup_destroy(d);
}

Test(help, dedup_summary_resets_pending)
{
    px_help_dedup_t *d = px_help_dedup_create(0);
    char *s;

    s = px_help_dedup_summary(d);
    cr_assert_str_eq(s, "");
    free(s);
    for (int i = 0; i < 16; i++) {
        px_help_dedup_note(d, fa, "first", NULL);
    }
    px_help_dedup_note(d, fb, "once", NULL);
    px_help_dedup_note(d, fc, "twice", NULL);
    px_help_dedup_note(d, fc, "twice", NULL);
    s = px_help_dedup_summary(d);
    cr_assert_str_eq(s, "15 more processes sent help message help-a.txt / first\n"
                        "1 more process sent help message help-c.txt / twice\n");
    free(s);
    /* Nothing new: empty summary; totals kept; a shown message stays shown. */
    s = px_help_dedup_summary(d);
    cr_assert_str_eq(s, "");
    free(s);
    cr_assert_eq(px_help_dedup_count(d, fa, "first", NULL), 16);
    cr_assert_eq(px_help_dedup_note(d, fa, "first", NULL), 0);
    s = px_help_dedup_summary(d);
    cr_assert_str_eq(s, "1 more process sent help message help-a.txt / first\n");
    free(s);
    px_help_dedup_destroy(d);
}

Test(help, dedup_show_text_prints_once)
{
    px_help_dedup_t *d = px_help_dedup_create(0);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    char expect[512];

    cr_assert_eq(px_help_dedup_show_text(d, mem, fa, "t", "from rank 0\n"), 1);
    cr_assert_eq(px_help_dedup_show_text(d, mem, fa, "t", "from rank 1\n"), 0);
    cr_assert_eq(px_help_dedup_show_text(d, mem, fa, "t", "from rank 2\n"), 0);
    cr_assert_eq(px_help_dedup_flush(d, mem), 1);
    cr_assert_eq(px_help_dedup_flush(d, mem), 0);
    cr_assert_eq(fclose(mem), 0);
    snprintf(expect, sizeof(expect),
             "%s\nfrom rank 0\n%s\n2 more processes sent help message help-a.txt / t\n",
             px_help_rule, px_help_rule);
    cr_assert_str_eq(buf, expect);
    free(buf);
    px_help_dedup_destroy(d);
}

Test(help, dedup_show_renders, .init = cr_redirect_stderr)
{
    px_help_dedup_t *d = px_help_dedup_create(0);
    char expect[256];

    cr_assert_eq(px_help_dedup_show(d, "help-px-util.txt", "test-plain"), 1);
    cr_assert_eq(px_help_dedup_show(d, "help-px-util.txt", "test-plain"), 0);
    errno = 0;
    cr_assert_eq(px_help_dedup_show(d, no_file, no_topic), -1);
    cr_assert_eq(errno, ENOENT);
    cr_assert_eq(px_help_dedup_count(d, no_file, no_topic, NULL), 1);
    px_help_dedup_destroy(d);
    fflush(stderr);
    snprintf(expect, sizeof(expect), "%s\n%s%s\n", px_help_rule,
             px_help_lookup("help-px-util.txt", "test-plain"), px_help_rule);
    /* The first block is test-plain, shown once; then the missing-topic block. */
    FILE *err = cr_get_redirected_stderr();
    char got[2048];
    size_t n = fread(got, 1, sizeof(got) - 1, err);

    got[n] = '\0';
    cr_assert_eq(strncmp(got, expect, strlen(expect)), 0, "got: %s", got);
    cr_assert_not_null(strstr(got + strlen(expect), "no-such-topic"), "got: %s", got);
}

Test(help, dedup_many_entries_grow)
{
    px_help_dedup_t *d = px_help_dedup_create(0);
    char topic[32];

    for (int i = 0; i < 500; i++) {
        snprintf(topic, sizeof(topic), "topic-%d", i);
        cr_assert_eq(px_help_dedup_note(d, fa, topic, NULL), 1);
    }
    for (int i = 0; i < 500; i++) {
        snprintf(topic, sizeof(topic), "topic-%d", i);
        cr_assert_eq(px_help_dedup_note(d, fa, topic, NULL), 0);
        cr_assert_eq(px_help_dedup_count(d, fa, topic, NULL), 2);
    }
    px_help_dedup_destroy(d);
}

#define NTHREADS 4
#define NPER     1000

static void *dedup_worker(void *arg)
{
    px_help_dedup_t *d = arg;
    char topic[32];
    long firsts = 0;

    for (int i = 0; i < NPER; i++) {
        snprintf(topic, sizeof(topic), "t%d", i % 50);
        firsts += px_help_dedup_note(d, fa, topic, NULL) == 1;
    }
    return (void *)firsts;
}

Test(help, dedup_threads)
{
    px_help_dedup_t *d = px_help_dedup_create(0);
    pthread_t th[NTHREADS];
    long firsts = 0;
    unsigned long total = 0;
    char topic[32];

    for (int i = 0; i < NTHREADS; i++) {
        cr_assert_eq(pthread_create(&th[i], NULL, dedup_worker, d), 0);
    }
    for (int i = 0; i < NTHREADS; i++) {
        void *r;

        pthread_join(th[i], &r);
        firsts += (long)r;
    }
    /* Each of the 50 topics was "first" exactly once across all threads. */
    cr_assert_eq(firsts, 50);
    for (int i = 0; i < 50; i++) {
        snprintf(topic, sizeof(topic), "t%d", i);
        total += px_help_dedup_count(d, fa, topic, NULL);
    }
    cr_assert_eq(total, NTHREADS * NPER);
    px_help_dedup_destroy(d);
}
