/* pmi: the PMI-1 "simple" wire and the PMI-2 wire (docs/PMI.md) — framing, parsing and
 * formatting, nothing else: no I/O, no state. Untrusted bytes are framed and checked
 * against the limits below before anything is allocated for them. Any thread.
 *
 * PMI-1: one line of space-separated key=value tokens ending in '\n', the first being
 * cmd=<command>; values run to the next space (no escapes: MPICH 4.0 sends none). The
 * multi-line form MPICH uses for spawn ("mcmd=spawn\n" key=value lines, "endcmd\n") is
 * framed and parsed too, so it can be answered.
 * PMI-2: a 6-character decimal length (digits and spaces), then that many bytes of
 * "cmd=<command>;key=value;..." with ';' in a value doubled.
 */
#ifndef PX_PMI_WIRE_H
#define PX_PMI_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PX_PMI_KEYLEN_MAX  64   /* what get_maxes announces; longer keys are refused */
#define PX_PMI_VALLEN_MAX  1024 /* MPICH stores hex-encoded addresses of ~600 bytes */
#define PX_PMI_KVSNAME_MAX 256  /* a namespace: PMIX_MAX_NSLEN + 1 */
#define PX_PMI1_LINE_MAX   4096 /* one PMI-1 line, its '\n' included */
#define PX_PMI1_MCMD_MAX   65536
#define PX_PMI2_HDR        6
#define PX_PMI2_MSG_MAX    65536 /* a PMI-2 message's body (Slurm's client's limit) */

typedef enum { PX_PMI_WIRE1 = 1, PX_PMI_WIRE2 = 2 } px_pmi_wire_t;

typedef struct {
    char *key; /* into the message's buffer */
    char *val; /* into the buffer; NULL for a bare token (no '=') */
} px_pmi_pair_t;

typedef struct {
    char *buf;            /* owned: the message's text, split in place */
    char *cmd;            /* into buf: the command (cmd= or mcmd=) */
    px_pmi_pair_t *pairs; /* owned: the other tokens, in order */
    size_t npairs;
} px_pmi_msg_t;

/* Which wire the first bytes of a connection speak: PX_PMI_WIRE1 ("cmd=", "mcmd="),
 * PX_PMI_WIRE2 (a length header, then "cmd="), 0 when more bytes are needed to tell, -1
 * (errno EPROTO) when they are neither. */
int px_pmi_sniff(const char *data, size_t len);

/* The length of the first message of data[0..len): > 0 the whole message is there and
 * takes that many bytes (PMI-1: through its '\n', or an mcmd block through "endcmd\n";
 * PMI-2: header and body); 0 more bytes are needed; -1 + errno: EMSGSIZE the message is
 * longer than the wire's limit, EPROTO a PMI-2 header that is not a length. */
ssize_t px_pmi_frame(px_pmi_wire_t wire, const char *data, size_t len);

/* Parse one framed message (exactly what px_pmi_frame delimited) into m. 0, or -1 with
 * errno EPROTO (malformed: *why says how, a static string) or ENOMEM; m is then empty. */
int px_pmi_parse(px_pmi_wire_t wire, const char *data, size_t len, px_pmi_msg_t *m,
                 const char **why);
/* Free what m owns; an empty or zeroed m is fine. */
void px_pmi_msg_fini(px_pmi_msg_t *m);
/* The value of the first token named key: NULL when absent (a bare token has value ""). */
const char *px_pmi_get(const px_pmi_msg_t *m, const char *key);

/* A reply (or request) being formatted. */
typedef struct {
    char *buf; /* owned */
    size_t len, cap;
    px_pmi_wire_t wire;
    int err; /* first error (errno value): ENOMEM, or EINVAL for a PMI-1 value that holds
              * a space, a newline or a NUL, which that wire cannot carry */
} px_pmi_out_t;

void px_pmi_out_start(px_pmi_out_t *o, px_pmi_wire_t wire, const char *cmd);
/* key=val; PMI-2 doubles each ';' of val. */
void px_pmi_out_add(px_pmi_out_t *o, const char *key, const char *val);
void px_pmi_out_add_int(px_pmi_out_t *o, const char *key, long long v);
/* Human text (an error message): on PMI-1 its spaces and control characters become '_'. */
void px_pmi_out_add_text(px_pmi_out_t *o, const char *key, const char *text);
/* Finish (PMI-1: the '\n'; PMI-2: the length header) and hand over the bytes: 0 with
 * *buf (malloc'd, the caller frees) and *len, or -1 + errno (o->err); o is emptied
 * either way. */
int px_pmi_out_finish(px_pmi_out_t *o, char **buf, size_t *len);
void px_pmi_out_fini(px_pmi_out_t *o);

#endif /* PX_PMI_WIRE_H */
