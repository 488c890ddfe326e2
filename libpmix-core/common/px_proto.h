/* common: the client/server wire protocol — message tags and what each payload holds
 * (all in bfrops encoding, see bfrops/ENCODING.md; framing in net/px_msg.h). The table
 * in docs/ARCHITECTURE.md "Wire protocol" is the prose version of this file.
 */
#ifndef PX_PROTO_H
#define PX_PROTO_H

/* Handshake payload (px_usock hello): int32 kind, string nspace, uint32 rank, string
 * library version. The answer is the i32 status of the handshake. */
#define PX_HELLO_CLIENT 1
#define PX_HELLO_TOOL   2

/* Requests carry a sequence number and get one reply with the same tag whose payload
 * starts with an int32 status. "->" is the request payload, "<-" the reply's after the
 * status. COMMIT is a plain message (no reply); it is ordered before any later request
 * of the same client because a connection is processed in order. */
enum px_tag {
    PX_TAG_JOBINFO = 1,   /* -> string nspace            <- namespace registration (px_ns_pack) */
    PX_TAG_FINALIZE = 2,  /* -> (empty)                  <- (empty) */
    PX_TAG_COMMIT = 3,    /* -> info[] local-visible, info[] remote-visible (no reply) */
    PX_TAG_FENCE = 4,     /* -> size n, proc[n], info[]  <- blob of participants' data */
    PX_TAG_GET = 5,       /* -> proc, string key, info[] <- blob of the proc's data */
    PX_TAG_PUBLISH = 6,   /* -> info[]                   <- (empty) */
    PX_TAG_LOOKUP = 7,    /* -> size n, string[n], info[] <- size n, pdata[n] */
    PX_TAG_UNPUBLISH = 8, /* -> size n, string[n], info[] <- (empty) */
    PX_TAG_ABORT = 9,     /* -> int32 status, string msg, size n, proc[n] <- (empty) */
    PX_TAG_JOBCTL = 10,   /* -> size n, proc[n], info[]  <- info[] results */
    PX_TAG_LOG = 11,      /* -> info[] data, info[] directives <- (empty) */
    /* events (event/, client/client_event.c, server/server_event.c) */
    PX_TAG_EVT_REGISTER = 12, /* -> size n, int32 code[n] (n 0: every code), info[] <- (empty);
                               * cached events the registration matches follow the reply */
    PX_TAG_NOTIFY = 13,       /* -> int32 status, proc source, uint8 range, info[] (no reply) */
    PX_TAG_EVENT = 14,        /* server -> client, no reply: int32 status, proc source,
                               * uint8 range, info[] */
    /* queries (client/client_query.c, server/server_query.c) */
    PX_TAG_QUERY = 15, /* -> size n, query[n] <- size n, info[] answers of query i
                        * (key/values only; the client builds the Standard's form) */
    /* tools (client/tool*.c, server/server_tool.c): the first request of a tool
     * connection; nothing else is served before it is approved */
    PX_TAG_TOOL_ATTACH = 16, /* -> info[] (the tool's init attributes) <- proc assigned */
    /* spawn (client/client_spawn.c, server/server_spawn.c) */
    PX_TAG_SPAWN = 17, /* -> info[] job info, size n, app[n] <- string nspace. When the job
                        * info asks PMIX_FWD_STDOUT/STDERR/DIAG, the server makes the
                        * requester a sink of those channels of the new namespace before
                        * it sends the reply, so no output of the job can precede it. */
    /* IO forwarding (client/client_iof.c, server/server_iof.c) */
    PX_TAG_IOF_PULL = 18,  /* -> size n, proc[n], uint16 channels (STDOUT/STDERR/STDDIAG
                            * bits only), info[] <- (empty) */
    PX_TAG_IOF_DATA = 19,  /* server -> client/tool, no reply: proc source, uint16 channel,
                            * byte_object data, info[] (a delivery above 16 MiB is split,
                            * its info on the last part) */
    PX_TAG_IOF_PUSH = 20,  /* -> size n, proc[n] targets, byte_object data (size 0 with
                            * PMIX_IOF_COMPLETE = end of input), info[] <- (empty) */
    PX_TAG_IOF_DEREG = 21, /* -> size n, proc[n], uint16 channels <- (empty) */
    /* events, continued */
    PX_TAG_EVT_DEREGISTER = 22, /* -> size n, int32 code[n]: codes no handler of the sender
                                 * names any more (no reply) */
    /* topology */
    PX_TAG_TOPOLOGY = 23, /* -> (empty) <- string: the server's node topology as hwloc XML */
    /* process groups (client/client_group.c, server/server_group.c). A group reply is
     * "info[] results (PMIX_GROUP_CONTEXT_ID first when one was assigned, PMIX_GROUP_ID,
     * PMIX_GROUP_MEMBERSHIP), then a blob of (proc, info[]) entries: each member's
     * PMIX_GROUP_INFO contribution". Decisions taken in a group event's handlers
     * (PMIX_GROUP_CONSTRUCT_ABORT, a new PMIX_GROUP_LEADER) travel as NOTIFY. */
    PX_TAG_GRP_CONSTRUCT = 24, /* -> string grp, size n, proc[n] (n 0: an added member of a
                                * bootstrap), info[] <- group reply */
    PX_TAG_GRP_DESTRUCT = 25,  /* -> string grp, info[] <- (empty) */
    PX_TAG_GRP_INVITE = 26,    /* -> string grp, size n, proc[n], info[] <- group reply */
    PX_TAG_GRP_JOIN = 27,      /* -> string grp, proc leader, uint8 accept, info[]
                                * <- group reply (accepted) / (empty) (declined) */
    PX_TAG_GRP_LEAVE = 28,     /* -> string grp, info[] <- (empty) */
    /* connect / disconnect (client/client_group.c, server/server_connect.c) */
    PX_TAG_CONNECT = 29,    /* -> size n, proc[n], info[] <- blob of the participants' data */
    PX_TAG_DISCONNECT = 30, /* -> size n, proc[n], info[] <- (empty) */
};

/* Environment a server's setup_fork gives a child (read by PMIx_Init). */
#define PX_ENV_NSPACE "PMIX_NAMESPACE"
#define PX_ENV_RANK   "PMIX_RANK"
#define PX_ENV_URI    "PMIX_SERVER_URI"
/* Every name the URI is published under (ours first; the others are the names MPI
 * libraries test to detect a PMIx server). */
#define PX_ENV_URI_NAMES                                                                           \
    {                                                                                              \
        PX_ENV_URI, "PMIX_SERVER_URI41", "PMIX_SERVER_URI4", "PMIX_SERVER_URI3",                   \
            "PMIX_SERVER_URI21", "PMIX_SERVER_URI2"                                                \
    }
#define PX_ENV_TMPDIR    "PMIX_SERVER_TMPDIR"
#define PX_ENV_SYSTMPDIR "PMIX_SYSTEM_TMPDIR"
#define PX_ENV_VERSION   "PMIX_VERSION"
#define PX_ENV_HOSTNAME  "PMIX_HOSTNAME"

/* A server URI: "<nspace>.<rank>;usock:<absolute socket path>", or for the TCP
 * listener of a server with tool support (tools only; see net/px_tcp.h for its
 * handshake) "<nspace>.<rank>;tcp4://<dotted IPv4>:<port>;secret=<32 lower-case hex
 * digits>". The secret is the server's, fresh at each start (128 bits of getrandom); it
 * is what a TCP connector must present, so a TCP URI is as sensitive as the rendezvous
 * file (mode 0600) it is read from. */
#define PX_URI_USOCK  "usock:"
#define PX_URI_TCP4   "tcp4://"
#define PX_URI_SECRET "secret="

/* Rendezvous file (one line each): 1 usock URI, 2 API level, 3 server pid, 4 TCP URI
 * (only when the server has a TCP listener). Readers ignore lines past those they know. */

#endif /* PX_PROTO_H */
