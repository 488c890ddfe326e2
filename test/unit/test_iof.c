/* unit tests of daemon/iof.c: every --output option and combinations, partial and long
 * lines, binary data, flushing on close, files. No processes: streams are fed by hand. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon/px_iof.h"

typedef struct {
    char *data;
    size_t len, cap;
    int channels; /* OR of the channels emitted on */
    int calls;
} sink_t;

static void emit(int channel, const char *data, size_t len, void *arg)
{
    sink_t *s = arg;
    cr_assert(len > 0, "an empty emission");
    if (s->len + len + 1 > s->cap) {
        s->cap = (s->len + len + 1) * 2;
        s->data = realloc(s->data, s->cap);
    }
    memcpy(s->data + s->len, data, len);
    s->len += len;
    s->data[s->len] = '\0';
    s->channels |= channel;
    s->calls++;
}

static void sink_reset(sink_t *s)
{
    free(s->data);
    memset(s, 0, sizeof(*s));
}

static px_iof_stream_t *mk(const px_iof_opts_t *o, int channel, sink_t *s)
{
    px_iof_stream_t *st = px_iof_stream_create(o, "job1", 3, channel, emit, s);
    cr_assert_not_null(st, "create: %s", strerror(errno));
    return st;
}

static void push(px_iof_stream_t *st, const char *str)
{
    px_iof_stream_push(st, str, strlen(str));
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "open %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return b;
}

static char tmpdir[64];

static void mk_tmpdir(void)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_iofXXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void rm_tmpdir(void)
{
    nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

Test(iof, passthrough_binary_exact)
{
    px_iof_opts_t o = {0};
    sink_t s = {0};
    px_iof_stream_t *st = mk(&o, PMIX_FWD_STDOUT_CHANNEL, &s);
    const char bin[] = {'a', 0, '\n', (char)0xff, 0, 'z'};
    px_iof_stream_push(st, bin, sizeof(bin));
    cr_assert_eq(s.len, sizeof(bin), "passed through at once, unbuffered");
    px_iof_stream_close(st);
    cr_assert_eq(s.len, sizeof(bin));
    cr_assert(memcmp(s.data, bin, sizeof(bin)) == 0);
    cr_assert_eq(s.channels, PMIX_FWD_STDOUT_CHANNEL);
    sink_reset(&s);
}

Test(iof, tag_lines_and_partial)
{
    px_iof_opts_t o = {.tag = true};
    sink_t s = {0};
    px_iof_stream_t *st = mk(&o, PMIX_FWD_STDOUT_CHANNEL, &s);
    push(st, "one\ntw");
    cr_assert_str_eq(s.data, "[job1,3]<stdout>: one\n");
    push(st, "o\nthr");
    cr_assert_str_eq(s.data, "[job1,3]<stdout>: one\n[job1,3]<stdout>: two\n");
    px_iof_stream_close(st); /* the held partial line, no newline added */
    cr_assert_str_eq(s.data, "[job1,3]<stdout>: one\n[job1,3]<stdout>: two\n"
                             "[job1,3]<stdout>: thr");
    sink_reset(&s);
}

Test(iof, tag_stderr_and_rank)
{
    px_iof_opts_t o = {.tag = true};
    sink_t s = {0};
    px_iof_stream_t *st = mk(&o, PMIX_FWD_STDERR_CHANNEL, &s);
    push(st, "e\n");
    px_iof_stream_close(st);
    cr_assert_str_eq(s.data, "[job1,3]<stderr>: e\n");
    cr_assert_eq(s.channels, PMIX_FWD_STDERR_CHANNEL);
    sink_reset(&s);

    px_iof_opts_t r = {.rank = true};
    st = mk(&r, PMIX_FWD_STDOUT_CHANNEL, &s);
    push(st, "a\n\nb\n");
    px_iof_stream_close(st);
    cr_assert_str_eq(s.data, "[3]<stdout>: a\n[3]<stdout>: \n[3]<stdout>: b\n");
    sink_reset(&s);

    px_iof_opts_t both = {.rank = true, .tag = true};
    st = mk(&both, PMIX_FWD_STDOUT_CHANNEL, &s);
    push(st, "x\n");
    px_iof_stream_close(st);
    cr_assert_str_eq(s.data, "[job1,3]<stdout>: x\n", "tag wins over rank");
    sink_reset(&s);
}

static void assert_matches(const char *text, const char *re)
{
    regex_t rx;
    cr_assert_eq(regcomp(&rx, re, REG_EXTENDED | REG_NOSUB), 0);
    int rc = regexec(&rx, text, 0, NULL, 0);
    regfree(&rx);
    cr_assert_eq(rc, 0, "'%s' does not match /%s/", text, re);
}

#define TS "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}"

Test(iof, timestamp_alone_and_with_tag)
{
    px_iof_opts_t o = {.timestamp = true};
    sink_t s = {0};
    px_iof_stream_t *st = mk(&o, PMIX_FWD_STDOUT_CHANNEL, &s);
    push(st, "a\nb\n");
    px_iof_stream_close(st);
    assert_matches(s.data, "^" TS " a\n" TS " b\n$");
    sink_reset(&s);

    px_iof_opts_t t = {.timestamp = true, .tag = true};
    st = mk(&t, PMIX_FWD_STDERR_CHANNEL, &s);
    push(st, "x\n");
    px_iof_stream_close(st);
    assert_matches(s.data, "^" TS " \\[job1,3\\]<stderr>: x\n$");
    sink_reset(&s);
}

Test(iof, xml_escaped)
{
    px_iof_opts_t o = {.xml = true, .tag = true};
    sink_t s = {0};
    px_iof_stream_t *st = mk(&o, PMIX_FWD_STDOUT_CHANNEL, &s);
    push(st, "a<b>&c\n\npart");
    px_iof_stream_close(st);
    cr_assert_str_eq(s.data, "<stdout rank=\"3\">a&lt;b&gt;&amp;c</stdout>\n"
                             "<stdout rank=\"3\"></stdout>\n"
                             "<stdout rank=\"3\">part</stdout>");
    sink_reset(&s);

    px_iof_opts_t t = {.xml = true, .timestamp = true};
    st = mk(&t, PMIX_FWD_STDERR_CHANNEL, &s);
    push(st, "e\n");
    px_iof_stream_close(st);
    assert_matches(s.data, "^<stderr rank=\"3\" timestamp=\"" TS "\">e</stderr>\n$");
    sink_reset(&s);
}

Test(iof, merge)
{
    px_iof_opts_t o = {.merge = true};
    sink_t s = {0};
    px_iof_stream_t *st = mk(&o, PMIX_FWD_STDERR_CHANNEL, &s);
    push(st, "err");
    px_iof_stream_close(st);
    cr_assert_str_eq(s.data, "err");
    cr_assert_eq(s.channels, PMIX_FWD_STDOUT_CHANNEL, "stderr emitted on stdout");
    sink_reset(&s);

    px_iof_opts_t t = {.merge = true, .tag = true};
    st = mk(&t, PMIX_FWD_STDERR_CHANNEL, &s);
    push(st, "e\n");
    px_iof_stream_close(st);
    cr_assert_str_eq(s.data, "[job1,3]<stderr>: e\n");
    cr_assert_eq(s.channels, PMIX_FWD_STDOUT_CHANNEL);
    sink_reset(&s);
}

Test(iof, raw_pieces_prefixed_at_line_starts)
{
    px_iof_opts_t o = {.raw = true, .tag = true};
    sink_t s = {0};
    px_iof_stream_t *st = mk(&o, PMIX_FWD_STDOUT_CHANNEL, &s);
    push(st, "ab");
    cr_assert_str_eq(s.data, "[job1,3]<stdout>: ab", "raw emits at once");
    push(st, "c\nd");
    cr_assert_str_eq(s.data, "[job1,3]<stdout>: abc\n[job1,3]<stdout>: d");
    px_iof_stream_close(st);
    cr_assert_str_eq(s.data, "[job1,3]<stdout>: abc\n[job1,3]<stdout>: d");
    sink_reset(&s);

    px_iof_opts_t plain = {.raw = true};
    st = mk(&plain, PMIX_FWD_STDOUT_CHANNEL, &s);
    push(st, "xy");
    cr_assert_str_eq(s.data, "xy");
    px_iof_stream_close(st);
    sink_reset(&s);
}

Test(iof, binary_with_prefix)
{
    px_iof_opts_t o = {.rank = true};
    sink_t s = {0};
    px_iof_stream_t *st = mk(&o, PMIX_FWD_STDOUT_CHANNEL, &s);
    const char bin[] = {'a', 0, 'b', '\n', 0, 0};
    px_iof_stream_push(st, bin, sizeof(bin));
    px_iof_stream_close(st);
    const char want[] = "[3]<stdout>: a\0b\n[3]<stdout>: \0\0";
    cr_assert_eq(s.len, sizeof(want) - 1);
    cr_assert(memcmp(s.data, want, s.len) == 0);
    sink_reset(&s);
}

Test(iof, long_line_pieces)
{
    px_iof_opts_t o = {.tag = true};
    sink_t s = {0};
    px_iof_stream_t *st = mk(&o, PMIX_FWD_STDOUT_CHANNEL, &s);
    size_t n = PX_IOF_LINE_MAX * 2 + 10;
    char *big = malloc(n);
    memset(big, 'x', n);
    big[n - 1] = '\n';
    /* In small pushes: held until PX_IOF_LINE_MAX, then emitted as a piece. */
    for (size_t off = 0; off < n; off += 1000)
        px_iof_stream_push(st, big + off, n - off < 1000 ? n - off : 1000);
    px_iof_stream_close(st);
    const char *pfx = "[job1,3]<stdout>: ";
    cr_assert_eq(s.len, strlen(pfx) + n, "one prefix for the whole line: %zu vs %zu", s.len,
                 strlen(pfx) + n);
    cr_assert(strncmp(s.data, pfx, strlen(pfx)) == 0);
    cr_assert(memcmp(s.data + strlen(pfx), big, n) == 0);
    cr_assert_geq(s.calls, 2, "emitted in pieces, not held whole (%d calls)", s.calls);
    free(big);
    sink_reset(&s);
}

Test(iof, fifty_mb_line_is_linear)
{
    /* 50 MB without a newline through every line-mode option; quadratic code would take
     * minutes here (no timing assertion: the runner's timeout is the bound). */
    px_iof_opts_t o = {.tag = true, .timestamp = true};
    size_t emitted = 0;
    sink_t s = {0};
    px_iof_stream_t *st = mk(&o, PMIX_FWD_STDOUT_CHANNEL, &s);
    size_t chunk = 1 << 20;
    char *buf = malloc(chunk);
    memset(buf, 'y', chunk);
    for (int i = 0; i < 50; i++) {
        px_iof_stream_push(st, buf, chunk);
        emitted += s.len;
        s.len = 0; /* keep the sink small */
    }
    px_iof_stream_push(st, buf, 1);
    px_iof_stream_close(st);
    emitted += s.len;
    cr_assert_geq(emitted, 50 * chunk + 1);
    cr_assert_lt(emitted, 50 * chunk + 200, "one prefix, not one per piece");
    free(buf);
    sink_reset(&s);
}

Test(iof, xml_long_line_pieces_are_elements)
{
    px_iof_opts_t o = {.xml = true};
    sink_t s = {0};
    px_iof_stream_t *st = mk(&o, PMIX_FWD_STDOUT_CHANNEL, &s);
    size_t n = PX_IOF_LINE_MAX + 5;
    char *big = malloc(n);
    memset(big, '<', n);
    px_iof_stream_push(st, big, n);
    px_iof_stream_push(st, "\n", 1);
    px_iof_stream_close(st);
    size_t opens = 0;
    for (const char *p = s.data; (p = strstr(p, "<stdout rank=\"3\">")) != NULL; p++)
        opens++;
    cr_assert_eq(opens, 2);
    cr_assert(strstr(s.data, "<") == s.data);
    cr_assert_eq(s.data[s.len - 1], '\n');
    free(big);
    sink_reset(&s);
}

Test(iof, close_flushes_and_null)
{
    px_iof_stream_close(NULL);
    px_iof_opts_t o = {.rank = true};
    sink_t s = {0};
    px_iof_stream_t *st = mk(&o, PMIX_FWD_STDOUT_CHANNEL, &s);
    push(st, "held");
    cr_assert_eq(s.len, 0, "a partial line is held");
    px_iof_stream_close(st);
    cr_assert_str_eq(s.data, "[3]<stdout>: held");
    sink_reset(&s);
}

Test(iof, dir_files, .init = mk_tmpdir, .fini = rm_tmpdir)
{
    char dir[128];
    snprintf(dir, sizeof(dir), "%s/out", tmpdir); /* does not exist yet */
    px_iof_opts_t o = {.tag = true, .dir = dir};
    sink_t s = {0};
    px_iof_stream_t *so = mk(&o, PMIX_FWD_STDOUT_CHANNEL, &s);
    char p_out[256], p_err[256];
    snprintf(p_out, sizeof(p_out), "%s/job1/rank.3/stdout", dir);
    snprintf(p_err, sizeof(p_err), "%s/job1/rank.3/stderr", dir);
    cr_assert_str_eq(px_iof_last_path(), p_out);
    px_iof_stream_t *se = mk(&o, PMIX_FWD_STDERR_CHANNEL, &s);
    cr_assert_str_eq(px_iof_last_path(), p_err);
    push(so, "o\n");
    push(se, "e\n");
    px_iof_stream_close(so);
    px_iof_stream_close(se);
    cr_assert_str_eq(s.data, "[job1,3]<stdout>: o\n[job1,3]<stderr>: e\n", "copies emitted");
    char *a = slurp(p_out, NULL), *b = slurp(p_err, NULL);
    cr_assert_str_eq(a, "[job1,3]<stdout>: o\n");
    cr_assert_str_eq(b, "[job1,3]<stderr>: e\n");
    free(a);
    free(b);
    unlink(p_out);
    unlink(p_err);
    sink_reset(&s);
}

Test(iof, dir_merge_nocopy, .init = mk_tmpdir, .fini = rm_tmpdir)
{
    px_iof_opts_t o = {.merge = true, .nocopy = true, .dir = tmpdir};
    sink_t s = {0};
    px_iof_stream_t *so = mk(&o, PMIX_FWD_STDOUT_CHANNEL, &s);
    px_iof_stream_t *se = mk(&o, PMIX_FWD_STDERR_CHANNEL, &s);
    push(so, "out\n");
    push(se, "err\n");
    px_iof_stream_close(so);
    px_iof_stream_close(se);
    cr_assert_eq(s.len, 0, "nocopy emits nothing");
    char p[256];
    snprintf(p, sizeof(p), "%s/job1/rank.3/stdout", tmpdir);
    char *a = slurp(p, NULL);
    cr_assert_str_eq(a, "out\nerr\n", "both channels in stdout when merged");
    free(a);
    snprintf(p, sizeof(p), "%s/job1/rank.3/stderr", tmpdir);
    cr_assert_neq(access(p, F_OK), 0, "no stderr file when merged");
}

Test(iof, file_option_binary, .init = mk_tmpdir, .fini = rm_tmpdir)
{
    char base[128];
    snprintf(base, sizeof(base), "%s/sub/log", tmpdir);
    px_iof_opts_t o = {.file = base, .nocopy = true};
    sink_t s = {0};
    px_iof_stream_t *so = mk(&o, PMIX_FWD_STDOUT_CHANNEL, &s);
    px_iof_stream_t *se = mk(&o, PMIX_FWD_STDERR_CHANNEL, &s);
    char p[256];
    snprintf(p, sizeof(p), "%s.job1.3", base);
    cr_assert_str_eq(px_iof_last_path(), p);
    const char bin[] = {0, 1, 2, '\n', 0};
    px_iof_stream_push(so, bin, sizeof(bin));
    px_iof_stream_push(se, "E", 1);
    px_iof_stream_close(so);
    px_iof_stream_close(se);
    size_t len;
    char *a = slurp(p, &len);
    cr_assert_eq(len, sizeof(bin) + 1);
    cr_assert(memcmp(a, bin, sizeof(bin)) == 0);
    cr_assert_eq(a[sizeof(bin)], 'E');
    free(a);
    cr_assert_eq(s.len, 0);
}

Test(iof, file_truncated_by_stdout_stream, .init = mk_tmpdir, .fini = rm_tmpdir)
{
    char base[128];
    snprintf(base, sizeof(base), "%s/f", tmpdir);
    px_iof_opts_t o = {.file = base};
    sink_t s = {0};
    for (int round = 0; round < 2; round++) {
        px_iof_stream_t *so = mk(&o, PMIX_FWD_STDOUT_CHANNEL, &s);
        push(so, "again\n");
        px_iof_stream_close(so);
    }
    char p[256];
    snprintf(p, sizeof(p), "%s.job1.3", base);
    char *a = slurp(p, NULL);
    cr_assert_str_eq(a, "again\n");
    free(a);
    sink_reset(&s);
}

Test(iof, create_fails_with_path, .init = mk_tmpdir, .fini = rm_tmpdir)
{
    char file[128], dir[160];
    snprintf(file, sizeof(file), "%s/plain", tmpdir);
    int fd = open(file, O_CREAT | O_WRONLY, 0644);
    close(fd);
    snprintf(dir, sizeof(dir), "%s/below", file); /* a directory under a regular file */
    px_iof_opts_t o = {.dir = dir};
    sink_t s = {0};
    errno = 0;
    px_iof_stream_t *st = px_iof_stream_create(&o, "j", 0, PMIX_FWD_STDOUT_CHANNEL, emit, &s);
    cr_assert_null(st);
    cr_assert_eq(errno, ENOTDIR, "errno %d", errno);
    cr_assert_not_null(px_iof_last_path());
    cr_assert(strstr(px_iof_last_path(), "/below/j/rank.0/stdout") != NULL);
    px_iof_opts_t none = {0};
    st = mk(&none, PMIX_FWD_STDOUT_CHANNEL, &s);
    cr_assert_null(px_iof_last_path(), "no file, no path");
    px_iof_stream_close(st);
}

Test(iof, job_label_with_slash, .init = mk_tmpdir, .fini = rm_tmpdir)
{
    px_iof_opts_t o = {.dir = tmpdir, .nocopy = true};
    sink_t s = {0};
    px_iof_stream_t *st = px_iof_stream_create(&o, "a/b", 1, PMIX_FWD_STDOUT_CHANNEL, emit, &s);
    cr_assert_not_null(st);
    char p[256];
    snprintf(p, sizeof(p), "%s/a_b/rank.1/stdout", tmpdir);
    cr_assert_str_eq(px_iof_last_path(), p);
    px_iof_stream_close(st);
}

Test(iof, opts_from_info)
{
    pmix_info_t info[10];
    memset(info, 0, sizeof(info));
    const char *bools[] = {
        PMIX_IOF_TAG_OUTPUT, PMIX_IOF_RANK_OUTPUT,         PMIX_IOF_TIMESTAMP_OUTPUT,
        PMIX_IOF_XML_OUTPUT, PMIX_IOF_MERGE_STDERR_STDOUT, PMIX_IOF_OUTPUT_RAW,
        PMIX_IOF_FILE_ONLY};
    for (int i = 0; i < 7; i++) {
        snprintf(info[i].key, sizeof(info[i].key), "%s", bools[i]);
        info[i].value.type = PMIX_BOOL;
        info[i].value.data.flag = true;
    }
    info[1].value.data.flag = false;
    snprintf(info[7].key, sizeof(info[7].key), "%s", PMIX_IOF_OUTPUT_TO_DIRECTORY);
    info[7].value.type = PMIX_STRING;
    info[7].value.data.string = "/d";
    snprintf(info[8].key, sizeof(info[8].key), "%s", PMIX_IOF_OUTPUT_TO_FILE);
    info[8].value.type = PMIX_STRING;
    info[8].value.data.string = "/f";
    snprintf(info[9].key, sizeof(info[9].key), "%s", "pmix.unknown");
    px_iof_opts_t o;
    px_iof_opts_from_info(&o, info, 10);
    cr_assert(o.tag && !o.rank && o.timestamp && o.xml && o.merge && o.raw && o.nocopy);
    cr_assert_str_eq(o.dir, "/d");
    cr_assert_str_eq(o.file, "/f");
    px_iof_opts_fini(&o);
    cr_assert_null(o.dir);
    px_iof_opts_from_info(&o, NULL, 0);
    cr_assert(!o.tag && o.dir == NULL);
    px_iof_opts_fini(NULL);
}

Test(iof, combination_matrix)
{
    /* Every combination of the prefix flags: the line text survives, each line gets
     * exactly one prefix, pushes split anywhere give the same result. */
    const char *input = "l1\nline two\n\nx";
    for (int m = 0; m < 64; m++) {
        px_iof_opts_t o = {.tag = m & 1,
                           .rank = m & 2,
                           .timestamp = 0,
                           .xml = m & 4,
                           .merge = m & 8,
                           .raw = m & 16,
                           .nocopy = false};
        int ch = (m & 32) ? PMIX_FWD_STDERR_CHANNEL : PMIX_FWD_STDOUT_CHANNEL;
        sink_t whole = {0}, split = {0};
        px_iof_stream_t *a = mk(&o, ch, &whole);
        push(a, input);
        px_iof_stream_close(a);
        px_iof_stream_t *b = mk(&o, ch, &split);
        for (const char *p = input; *p; p++)
            px_iof_stream_push(b, p, 1);
        px_iof_stream_close(b);
        cr_assert(strstr(whole.data, "line two") != NULL, "m=%d: %s", m, whole.data);
        int want_ch = (o.merge && ch == PMIX_FWD_STDERR_CHANNEL) ? PMIX_FWD_STDOUT_CHANNEL : ch;
        cr_assert_eq(whole.channels, want_ch, "m=%d", m);
        if (!o.raw || !(o.xml))
            cr_assert_str_eq(whole.data, split.data, "m=%d split differs", m);
        sink_reset(&whole);
        sink_reset(&split);
    }
}
