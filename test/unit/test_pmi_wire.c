/* unit tests of libpmix-core/pmi/pmi_wire.c: which wire a connection speaks, framing of
 * both wires (every prefix of a message needs more bytes, limits refused before anything
 * is allocated), parsing (MPICH's and Slurm's forms, escapes, malformed input with its
 * reason), and formatting that parses back to what was said. */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pmi/px_pmi_wire.h"

static int parse_str(px_pmi_wire_t w, const char *s, px_pmi_msg_t *m, const char **why)
{
    return px_pmi_parse(w, s, strlen(s), m, why);
}

Test(pmi_wire, sniff_tells_the_wires_apart)
{
    cr_assert_eq(px_pmi_sniff("cmd=init pmi_version=1\n", 23), PX_PMI_WIRE1);
    cr_assert_eq(px_pmi_sniff("mcmd=spawn\n", 11), PX_PMI_WIRE1);
    cr_assert_eq(px_pmi_sniff("    36cmd=fullinit;", 19), PX_PMI_WIRE2);
    cr_assert_eq(px_pmi_sniff("36    cmd=fullinit;", 19), PX_PMI_WIRE2);
    cr_assert_eq(px_pmi_sniff("", 0), 0);
    cr_assert_eq(px_pmi_sniff("cm", 2), 0);
    cr_assert_eq(px_pmi_sniff("   3", 4), 0);
    errno = 0;
    cr_assert_eq(px_pmi_sniff("GET / HTTP/1.0\r\n", 16), -1);
    cr_assert_eq(errno, EPROTO);
    errno = 0;
    cr_assert_eq(px_pmi_sniff("      cmd=x;", 12), -1); /* a header of spaces only */
    cr_assert_eq(errno, EPROTO);
    cr_assert_eq(px_pmi_sniff("    12cmX", 9), -1);
}

Test(pmi_wire, frame_pmi1_lines)
{
    const char *two = "cmd=get_maxes\ncmd=get_appnum\n";
    cr_assert_eq(px_pmi_frame(PX_PMI_WIRE1, two, strlen(two)), 14);
    for (size_t cut = 0; cut < 14; cut++) {
        cr_assert_eq(px_pmi_frame(PX_PMI_WIRE1, two, cut), 0, "prefix %zu", cut);
    }
    char *big = malloc(PX_PMI1_LINE_MAX + 10);
    memset(big, 'a', PX_PMI1_LINE_MAX + 10);
    memcpy(big, "cmd=put ", 8);
    cr_assert_eq(px_pmi_frame(PX_PMI_WIRE1, big, PX_PMI1_LINE_MAX - 1), 0);
    errno = 0;
    cr_assert_eq(px_pmi_frame(PX_PMI_WIRE1, big, PX_PMI1_LINE_MAX), -1);
    cr_assert_eq(errno, EMSGSIZE);
    big[PX_PMI1_LINE_MAX - 1] = '\n'; /* exactly the limit, newline included */
    cr_assert_eq(px_pmi_frame(PX_PMI_WIRE1, big, PX_PMI1_LINE_MAX + 10), PX_PMI1_LINE_MAX);
    free(big);
}

Test(pmi_wire, frame_pmi1_mcmd_block)
{
    const char *m = "mcmd=spawn\nnprocs=2\nexecname=/bin/x y\nendcmd\ncmd=get_maxes\n";
    size_t blk = strlen("mcmd=spawn\nnprocs=2\nexecname=/bin/x y\nendcmd\n");
    cr_assert_eq(px_pmi_frame(PX_PMI_WIRE1, m, strlen(m)), (ssize_t)blk);
    for (size_t cut = 0; cut < blk; cut++) {
        cr_assert_eq(px_pmi_frame(PX_PMI_WIRE1, m, cut), 0, "prefix %zu", cut);
    }
    /* "endcmd" must be a whole line */
    const char *notyet = "mcmd=spawn\nx=endcmd\nendcmdx=1\n";
    cr_assert_eq(px_pmi_frame(PX_PMI_WIRE1, notyet, strlen(notyet)), 0);
}

Test(pmi_wire, frame_pmi2)
{
    const char *m = "    22cmd=kvs-fence;thrid=1;X";
    cr_assert_eq(px_pmi_frame(PX_PMI_WIRE2, m, strlen(m)), 28);
    for (size_t cut = 0; cut < 28; cut++) {
        cr_assert_eq(px_pmi_frame(PX_PMI_WIRE2, m, cut), 0, "prefix %zu", cut);
    }
    const char *slurm = "22    cmd=kvs-fence;thrid=1;";
    cr_assert_eq(px_pmi_frame(PX_PMI_WIRE2, slurm, strlen(slurm)), 28);
    errno = 0;
    cr_assert_eq(px_pmi_frame(PX_PMI_WIRE2, "  1 2 cmd=", 10), -1);
    cr_assert_eq(errno, EPROTO);
    errno = 0;
    cr_assert_eq(px_pmi_frame(PX_PMI_WIRE2, "     0", 6), -1);
    cr_assert_eq(errno, EPROTO);
    errno = 0;
    cr_assert_eq(px_pmi_frame(PX_PMI_WIRE2, "-00001", 6), -1);
    cr_assert_eq(errno, EPROTO);
    /* a length past the limit is refused from the header alone */
    errno = 0;
    cr_assert_eq(px_pmi_frame(PX_PMI_WIRE2, "999999", 6), -1);
    cr_assert_eq(errno, EMSGSIZE);
    cr_assert_eq(px_pmi_frame(PX_PMI_WIRE2, " 65536", 6), 0);
}

Test(pmi_wire, parse_pmi1)
{
    px_pmi_msg_t m;
    const char *why = NULL;
    cr_assert_eq(parse_str(PX_PMI_WIRE1, "cmd=init pmi_version=1 pmi_subversion=1\n", &m, &why), 0);
    cr_assert_str_eq(m.cmd, "init");
    cr_assert_eq(m.npairs, 2);
    cr_assert_str_eq(px_pmi_get(&m, "pmi_version"), "1");
    cr_assert_str_eq(px_pmi_get(&m, "pmi_subversion"), "1");
    cr_assert_null(px_pmi_get(&m, "rc"));
    px_pmi_msg_fini(&m);

    /* MPICH's keys start with '-'; values hold '=' and run to the next space */
    cr_assert_eq(parse_str(PX_PMI_WIRE1,
                           "cmd=put kvsname=job@1  key=-bcast-1-0 value=2F64=AB flag\n", &m, &why),
                 0);
    cr_assert_str_eq(m.cmd, "put");
    cr_assert_str_eq(px_pmi_get(&m, "kvsname"), "job@1");
    cr_assert_str_eq(px_pmi_get(&m, "key"), "-bcast-1-0");
    cr_assert_str_eq(px_pmi_get(&m, "value"), "2F64=AB");
    cr_assert_str_eq(px_pmi_get(&m, "flag"), "");
    cr_assert_null(m.pairs[3].val);
    px_pmi_msg_fini(&m);
    px_pmi_msg_fini(&m); /* twice is fine */
}

Test(pmi_wire, parse_pmi1_refusals)
{
    const char *bad[][2] = {
        {"cmd=put key=a\n", NULL}, /* fine: the control case */
        {"cmd=put key=a", "a line without its newline"},
        {"put key=a\n", "the message does not begin with cmd=<command>"},
        {"cmd= key=a\n", "the message does not begin with cmd=<command>"},
        {"key=a cmd=put\n", "the message does not begin with cmd=<command>"},
        {"cmd=abort message=application called MPI_Abort(MPI_COMM_WORLD, 7)\n",
         "a key holds a character keys cannot have"},
        {"cmd=put =a\n", "a token has no key before its '='"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        px_pmi_msg_t m;
        const char *why = NULL;
        errno = 0;
        int rc = parse_str(PX_PMI_WIRE1, bad[i][0], &m, &why);
        if (bad[i][1] == NULL) {
            cr_assert_eq(rc, 0);
            px_pmi_msg_fini(&m);
            continue;
        }
        cr_assert_eq(rc, -1, "%s", bad[i][0]);
        cr_assert_eq(errno, EPROTO);
        cr_assert_str_eq(why, bad[i][1], "%s", bad[i][0]);
        cr_assert_null(m.buf);
        cr_assert_null(m.pairs);
    }
    px_pmi_msg_t m;
    const char *why = NULL;
    const char nul[] = "cmd=put key=a\0b\n";
    cr_assert_eq(px_pmi_parse(PX_PMI_WIRE1, nul, sizeof(nul) - 1, &m, &why), -1);
    cr_assert_str_eq(why, "a message holding a NUL byte");
}

Test(pmi_wire, parse_pmi1_mcmd)
{
    px_pmi_msg_t m;
    const char *why = NULL;
    const char *s = "mcmd=spawn\nnprocs=2\nexecname=/bin/my prog\narg1=a b\nendcmd\n";
    cr_assert_eq(parse_str(PX_PMI_WIRE1, s, &m, &why), 0, "%s", why);
    cr_assert_str_eq(m.cmd, "spawn");
    cr_assert_eq(m.npairs, 3);
    cr_assert_str_eq(px_pmi_get(&m, "execname"), "/bin/my prog");
    cr_assert_str_eq(px_pmi_get(&m, "arg1"), "a b");
    px_pmi_msg_fini(&m);
    cr_assert_eq(parse_str(PX_PMI_WIRE1, "mcmd=spawn\nnprocs=2\n", &m, &why), -1);
    cr_assert_str_eq(why, "an mcmd block not ended by endcmd");
}

Test(pmi_wire, parse_pmi2)
{
    px_pmi_msg_t m;
    const char *why = NULL;
    const char *s = "    53cmd=kvs-put;key=k1;value=a;;b;;;;c;empty=;bare;last=x";
    cr_assert_eq(parse_str(PX_PMI_WIRE2, s, &m, &why), 0, "%s", why);
    cr_assert_str_eq(m.cmd, "kvs-put");
    cr_assert_str_eq(px_pmi_get(&m, "key"), "k1");
    cr_assert_str_eq(px_pmi_get(&m, "value"), "a;b;;c");
    cr_assert_str_eq(px_pmi_get(&m, "empty"), "");
    cr_assert_not_null(m.pairs[2].val);
    cr_assert_null(m.pairs[3].val);
    cr_assert_str_eq(px_pmi_get(&m, "last"), "x");
    px_pmi_msg_fini(&m);

    /* values may hold spaces and newlines on this wire */
    cr_assert_eq(parse_str(PX_PMI_WIRE2, "    28cmd=abort;msg=it broke\nhere;", &m, &why), 0);
    cr_assert_str_eq(px_pmi_get(&m, "msg"), "it broke\nhere");
    px_pmi_msg_fini(&m);

    cr_assert_eq(parse_str(PX_PMI_WIRE2, "    10kvs-fence;", &m, &why), -1);
    cr_assert_str_eq(why, "the message does not begin with cmd=<command>");
    cr_assert_eq(parse_str(PX_PMI_WIRE2, "    12cmd=a;=b;", &m, &why), -1);
    cr_assert_str_eq(why, "a token has no key before its '='");
    cr_assert_eq(parse_str(PX_PMI_WIRE2, "   1", &m, &why), -1);
    cr_assert_str_eq(why, "a message shorter than its length header");
}

static char *finish(px_pmi_out_t *o, size_t *len)
{
    char *buf = NULL;
    cr_assert_eq(px_pmi_out_finish(o, &buf, len), 0);
    return buf;
}

Test(pmi_wire, format_pmi1)
{
    px_pmi_out_t o;
    px_pmi_out_start(&o, PX_PMI_WIRE1, "get_result");
    px_pmi_out_add_int(&o, "rc", 0);
    px_pmi_out_add(&o, "value", "(vector,(0,1,4))");
    size_t len;
    char *b = finish(&o, &len);
    cr_assert_str_eq(b, "cmd=get_result rc=0 value=(vector,(0,1,4))\n");
    cr_assert_eq(len, strlen(b));
    px_pmi_msg_t m;
    const char *why;
    cr_assert_eq(px_pmi_parse(PX_PMI_WIRE1, b, len, &m, &why), 0);
    cr_assert_str_eq(px_pmi_get(&m, "value"), "(vector,(0,1,4))");
    px_pmi_msg_fini(&m);
    free(b);

    /* a value PMI-1 cannot carry is refused, not cut; text is made to fit */
    px_pmi_out_start(&o, PX_PMI_WIRE1, "get_result");
    px_pmi_out_add(&o, "value", "a b");
    char *none = (char *)1;
    errno = 0;
    cr_assert_eq(px_pmi_out_finish(&o, &none, &len), -1);
    cr_assert_eq(errno, EINVAL);
    cr_assert_null(none);
    px_pmi_out_start(&o, PX_PMI_WIRE1, "get_result");
    px_pmi_out_add_int(&o, "rc", -1);
    px_pmi_out_add_text(&o, "msg", "key x not\tfound");
    b = finish(&o, &len);
    cr_assert_str_eq(b, "cmd=get_result rc=-1 msg=key_x_not_found\n");
    free(b);
}

Test(pmi_wire, format_pmi2_roundtrip)
{
    px_pmi_out_t o;
    px_pmi_out_start(&o, PX_PMI_WIRE2, "kvs-get-response");
    px_pmi_out_add_int(&o, "rc", 0);
    px_pmi_out_add(&o, "found", "TRUE");
    px_pmi_out_add(&o, "value", "x;y;;z");
    px_pmi_out_add_text(&o, "errmsg", "two words");
    size_t len;
    char *b = finish(&o, &len);
    cr_assert_str_eq(b + PX_PMI2_HDR,
                     "cmd=kvs-get-response;rc=0;found=TRUE;value=x;;y;;;;z;errmsg=two words;");
    cr_assert_eq(px_pmi_frame(PX_PMI_WIRE2, b, len), (ssize_t)len);
    px_pmi_msg_t m;
    const char *why;
    cr_assert_eq(px_pmi_parse(PX_PMI_WIRE2, b, len, &m, &why), 0);
    cr_assert_str_eq(px_pmi_get(&m, "value"), "x;y;;z");
    cr_assert_str_eq(px_pmi_get(&m, "errmsg"), "two words");
    px_pmi_msg_fini(&m);
    free(b);
    px_pmi_out_fini(&o); /* already emptied: fine */
}
