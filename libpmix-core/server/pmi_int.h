/* server: the PMI server's internals shared by server_pmi.c (connections, reading,
 * writing, attach/detach) and server_pmi_cmd.c (the commands and their answers). Loop
 * only, px_srv->lock held.
 */
#ifndef PX_SRV_PMI_INT_H
#define PX_SRV_PMI_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <event2/event.h>

#include "pmi/px_pmi_wire.h"
#include "server/px_server.h"

/* What a connection waits for from the server's handlers (one request at a time). */
typedef enum {
    PMI_WAIT_NONE = 0,
    PMI_WAIT_FENCE,
    PMI_WAIT_GET,      /* kvs-get of a named rank's key (px_srv_get) */
    PMI_WAIT_FINALIZE, /* the host's client_finalized */
    PMI_WAIT_ABORT,    /* the host's abort: nothing is sent back */
    PMI_WAIT_PUBLISH,
    PMI_WAIT_LOOKUP,
    PMI_WAIT_UNPUBLISH,
    PMI_WAIT_NODEATTR, /* info-getnodeattr with wait=TRUE: until a local process puts it */
    PMI_WAIT_SPAWN,    /* the host's spawn */
} pmi_wait_t;

/* A PMI spawn being read (server_pmi_spawn.c): PMI-1 sends one mcmd=spawn block per
 * executable, PMI-2 the whole request in one message. */
typedef struct pmi_spawn {
    pmix_app_t *apps;    /* owned: total of them, napps filled */
    size_t napps, total; /* read so far, announced (totspawns, ncmds) */
    pmix_info_t *preput; /* owned: the keys for the new job's KVS */
    size_t npreput;
    uint32_t nprocs; /* the processes asked for (PMI-2 answers an errcode for each) */
} pmi_spawn_t;

typedef struct px_pmi_conn px_pmi_conn_t;
struct px_pmi_conn {
    px_pmi_conn_t *next;
    int fd;
    pmix_proc_t proc; /* whose process holds the other end */
    pid_t pid;
    px_srv_client_t *client; /* counted (the connection's reference) once bound at init */
    int wire;                /* 0 until the first bytes tell; PMI-1 switches to PMI-2 */
    bool finalized;
    bool port_pending; /* came to the PMI_PORT listener: no proc until its initack */
    bool dead;         /* read error, end of file or a protocol error: close */
    bool closing;      /* close once the output is written (after an error reply) */
    char *in;          /* owned: bytes read, not yet a whole message */
    size_t in_len, in_cap;
    char *out; /* owned: bytes to write, [out_off, out_len) */
    size_t out_off, out_len;
    struct event *ev_read, *ev_write, *ev_resume; /* owned */
    struct event *ev_timeout;                     /* owned: a pending port connection's */
    /* the request in the library's hands */
    pmi_wait_t wait;
    const struct pmi_cmd *cmd; /* what it answers (server_pmi_cmd.c's table) */
    uint32_t seq, next_seq;
    char *key;          /* owned: the key a get waits for */
    pmi_spawn_t *spawn; /* owned: a spawn being read or in the host's hands */
    char *thrid;        /* owned: PMI-2 thread id to echo in the reply */
};

/* A PMI-2 node attribute: shared by the processes of one job on this node. */
typedef struct pmi_nattr {
    struct pmi_nattr *next;
    char *nspace, *key, *val; /* owned */
} pmi_nattr_t;

/* A process offered PMI_PORT/PMI_ID (server_pmi_port.c): claimed by its initack. */
typedef struct pmi_offer {
    struct pmi_offer *next;
    uint32_t id; /* PMI_ID: random, 1..INT32_MAX, unique among the offers */
    pmix_proc_t proc;
    uint32_t size; /* the job's size, told in the initack answer */
    pid_t pid;     /* 0 until the process started */
} pmi_offer_t;

struct px_srv_pmi {
    px_pmi_conn_t *conns;
    pmi_nattr_t *nattrs;
    /* PMI_PORT (server_pmi_port.c) */
    pmi_offer_t *offers; /* owned */
    int port_fd;         /* the listener, valid when port_open */
    bool port_open;
    struct event *ev_accept; /* owned, loop only */
    char port[32];           /* "127.0.0.1:<port>" */
    unsigned npending;       /* accepted connections that have not said initack yet */
};

/* The server's PMI state, made on first use (NULL only when out of memory). */
struct px_srv_pmi *px_pmi_state(void);

/* Write what is queued; the rest when the socket takes it. A closing connection is
 * closed once everything is written. */
void px_pmi_conn_flush(px_pmi_conn_t *k);

/* Start an answer on the connection's wire (a PMI-2 thrid echoed); send it (a value the
 * wire cannot carry becomes an error answer). */
void px_pmi_reply_start(px_pmi_conn_t *k, px_pmi_out_t *o, const char *cmd);
void px_pmi_reply_send(px_pmi_conn_t *k, px_pmi_out_t *o);
/* An error answer: rc=-1 and the rendered help-pmi.txt topic, on one line. */
void px_pmi_reply_error(px_pmi_conn_t *k, const char *cmd, const char *topic, ...);

/* Serve one parsed message (server_pmi_cmd.c). */
void px_pmi_handle(px_pmi_conn_t *k, const px_pmi_msg_t *m);

/* A connection on fd (non-blocking from here; owned: closed on failure) of proc's process
 * pid, listed and read from now on. NULL when out of memory. */
px_pmi_conn_t *px_pmi_conn_new(int fd, const pmix_proc_t *proc, pid_t pid);

/* server_pmi_spawn.c. Read m (a PMI-1 mcmd=spawn block, a PMI-2 spawn) into k->spawn:
 * true and *ready once every executable is there; false after answering an error under
 * reply (k->spawn dropped). */
bool px_pmi_spawn_take(px_pmi_conn_t *k, const px_pmi_msg_t *m, const char *reply, bool *ready);
/* The SPAWN request payload for sp: job info (the preput keys as PX_PMI_PREPUT), apps. */
pmix_status_t px_pmi_spawn_payload(const pmi_spawn_t *sp, pmix_data_buffer_t *b);
void px_pmi_spawn_free(pmi_spawn_t *sp);

/* server_pmi_port.c. Claim (remove) the offer id: its process, job size and pid. */
bool px_pmi_port_claim(uint32_t id, pmix_proc_t *proc, uint32_t *size, pid_t *pid);
/* A pending port connection is no longer pending (it said initack, or it goes). */
void px_pmi_port_settled(px_pmi_conn_t *k);
/* Withdraw proc's offers (PMIX_RANK_WILDCARD: its namespace's). */
void px_pmi_port_drop(const pmix_proc_t *proc);
/* Close the listener, free the offers (server finalize). */
void px_pmi_port_fini(void);

#endif /* PX_SRV_PMI_INT_H */
