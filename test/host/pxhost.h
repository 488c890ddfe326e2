/*
 * pxhost.h - shared declarations of the test host: options, the job layout, the framed
 * links between pxhost processes and the node process entry point.
 */
#ifndef PXHOST_H
#define PXHOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <pmix.h>
#include <pmix_server.h>

#define PXH_MAX_NODES 64
#define PXH_MAX_RANKS 4096

/* One --pset NAME:r1,r2,... */
typedef struct {
    char *name; /* borrowed from argv */
    int *ranks; /* owned */
    int nranks;
} pxh_pset_t;

/* One --rank-cmd R=PROGRAM ARGS... */
typedef struct {
    int rank;
    char **argv; /* owned, NULL-terminated */
} pxh_rankcmd_t;

/* Everything the command line says, plus the derived layout. Set once by the top
 * process before forking, read-only afterwards (each node process has its copy). */
typedef struct {
    int nranks;
    int nnodes;
    bool derive;
    bool regex_maps; /* --regex-maps: PMIX_NODE_MAP/PMIX_PROC_MAP as PMIX_REGEX values */
    bool no_query;   /* --no-query: the module has no query upcall */
    bool spawn;      /* --spawn: spawn and push_stdin upcalls (pxh_spawn.c) */
    int timeout;
    int unregistered; /* rank or -1 */
    int nobody;       /* rank or -1 */
    pxh_pset_t psets[16];
    int npsets;
    pxh_rankcmd_t rankcmds[16];
    int nrankcmds;
    char **client_argv; /* borrowed from argv */
    /* tools (pxh_tool.c): --tools approve|refuse|nohook (0: no tool support), --remote,
     * --system-server, --shared-tmpdir */
    int tools;
    bool remote, system_server, shared_tmpdir;
    char nspace[PMIX_MAX_NSLEN + 1];
    char tmpdirs[PXH_MAX_NODES][256]; /* created by the top process */
    pid_t top_pid;
    int evcache;       /* --evcache: the server's event cache size, -1 = default */
    int host_event;    /* --host-event: code each node raises before its clients start */
    bool reenter;      /* --reenter: every upcall calls back into the library (pxh_reenter.c) */
    bool unprivileged; /* --unprivileged: as root, the whole job runs as nobody */
    /* cpusets and topology: --topology DESC (an hwloc synthetic topology given to each
     * server as PMIX_TOPOLOGY2), --cpusets (local rank k registered with PMIX_CPUSET
     * "hwloc:k"), --no-share-topology (PMIX_SERVER_SHARE_TOPOLOGY false) */
    const char *topology; /* borrowed from argv, NULL: none */
    bool cpusets, no_share_topology;
} pxh_opts_t;

extern pxh_opts_t pxh_opts;

/* Block-wise layout: node i hosts ranks [pxh_node_start(i), +pxh_node_count(i)). */
int pxh_node_count(int node);
int pxh_node_start(int node);
int pxh_node_of(int rank);

/* A framed, non-blocking byte stream (socketpair end). Frames are a 4-byte big-endian
 * length followed by a payload packed with PMIx_Data_pack. Single thread only. */
typedef struct {
    int fd;   /* owned */
    char *in; /* owned: bytes read, not yet consumed */
    size_t inlen, incap;
    char *out; /* owned: bytes queued, not yet written */
    size_t outlen, outcap;
    bool closed; /* EOF or error seen */
} pxh_link_t;

void pxh_link_init(pxh_link_t *l, int fd);
void pxh_link_close(pxh_link_t *l);
/* Queue the unpacked contents of buf as one frame and try to write; 0 or -1. */
int pxh_link_send(pxh_link_t *l, pmix_data_buffer_t *buf);
/* Write what the socket takes now; -1 when the peer is gone. */
int pxh_link_flush(pxh_link_t *l);
/* Read what is available; -1 on error or EOF (l->closed set). */
int pxh_link_read(pxh_link_t *l);
/* Extract the next complete frame into *buf (constructed here); false if none. */
bool pxh_link_next(pxh_link_t *l, pmix_data_buffer_t *buf);

/* Message commands between pxhost processes. */
enum {
    /* node -> top */
    PXH_MSG_EXITED = 1, /* int32 rank, int32 wait status, uint8 killed-by-us */
    PXH_MSG_LOCAL_DONE, /* all local clients exited */
    PXH_MSG_ABORT,      /* int32 rank, int32 status */
    PXH_MSG_STARTED,    /* int32 rank */
    /* top -> node */
    PXH_MSG_KILL,     /* kill every local client */
    PXH_MSG_SHUTDOWN, /* deregister, finalize, exit */
    /* node -> node */
    PXH_MSG_FENCE,       /* string sig, uint32 seq, int32 status, byte object data */
    PXH_MSG_DMX_REQ,     /* uint32 id, proc */
    PXH_MSG_DMX_RESP,    /* uint32 id, int32 status, byte object data */
    PXH_MSG_PROC_DIED,   /* int32 rank */
    PXH_MSG_PUB_REQ,     /* uint32 id, proc, size_t n, info[n] */
    PXH_MSG_LOOKUP_REQ,  /* uint32 id, proc, keys, size_t n, info[n] */
    PXH_MSG_UNPUB_REQ,   /* uint32 id, proc, keys, size_t n, info[n] */
    PXH_MSG_PUBSUB_RESP, /* uint32 id, int32 status, size_t n, pdata[n] */
    PXH_MSG_EVENT,       /* int32 code, proc source, uint8 range, size_t n, info[n] */
};

/* Packing helpers over the public PMIx_Data_pack/unpack; the unpack ones return false
 * (and print why) when the message is malformed. */
pmix_data_buffer_t *pxh_msg_new(uint8_t cmd);
void pxh_pack(pmix_data_buffer_t *b, const void *src, int32_t n, pmix_data_type_t t);
bool pxh_unpack(pmix_data_buffer_t *b, void *dst, int32_t n, pmix_data_type_t t);
void pxh_pack_keys(pmix_data_buffer_t *b, char **keys);
bool pxh_unpack_keys(pmix_data_buffer_t *b, char ***keys);
void pxh_pack_infos(pmix_data_buffer_t *b, const pmix_info_t *info, size_t n);
bool pxh_unpack_infos(pmix_data_buffer_t *b, pmix_info_t **info, size_t *n);

/* The node process: never returns. links[j] is the socketpair end towards node j (-1
 * for itself), ctl the one towards the top process. */
void pxh_node_main(int node, int *links, int ctl) __attribute__((noreturn));

/* --tools modes */
enum { PXH_TOOLS_OFF = 0, PXH_TOOLS_APPROVE, PXH_TOOLS_REFUSE, PXH_TOOLS_NOHOOK };

/* Registration data for PMIx_server_register_nspace (pxh_reg.c). */
pmix_status_t pxh_reg_build(pmix_info_t **info, size_t *ninfo);

#endif /* PXHOST_H */
