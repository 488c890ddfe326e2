/* daemon: PMI for the processes a node agent starts (px_pmi_child.h): the socketpair,
 * the PMI_* variables, handing the server's end to the server. Daemon's loop. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pmix.h>

#include "daemon/px_odls.h"
#include "daemon/px_pmi_child.h"
#include "server/px_srv_pmi.h"

px_pmi_offer_t px_pmi_offer(char *const *env)
{
    if (!px_srv_pmi_ready()) {
        return PX_PMI_OFFER_NONE;
    }
    static const char var[] = "PX_PMI"; /* documented in pmix-runtime(7) */
    const size_t len = sizeof(var) - 1;
    for (size_t i = 0; env != NULL && env[i] != NULL; i++) {
        if (strncmp(env[i], var, len) == 0 && env[i][len] == '=') {
            const char *v = env[i] + len + 1;
            if (strcmp(v, "0") == 0 || strcmp(v, "no") == 0 || strcmp(v, "off") == 0) {
                return PX_PMI_OFFER_NONE;
            }
            return strcmp(v, "port") == 0 ? PX_PMI_OFFER_PORT : PX_PMI_OFFER_FD;
        }
    }
    return PX_PMI_OFFER_FD;
}

/* PMI_PORT, PMI_ID: the server's port and an offer for this process. */
static void prepare_port(px_pmi_child_t *pc, const pmix_proc_t *proc, uint32_t size, char ***env)
{
    char port[64], id[16];
    uint32_t n = 0;
    if (px_srv_pmi_offer_port(proc, size, port, sizeof(port), &n) != 0) {
        return;
    }
    snprintf(id, sizeof(id), "%u", n);
    if (PMIx_Setenv("PMI_PORT", port, true, env) != PMIX_SUCCESS ||
        PMIx_Setenv("PMI_ID", id, true, env) != PMIX_SUCCESS) {
        px_srv_pmi_port_started(n, proc, 0); /* withdrawn */
        return;
    }
    pc->port_id = n;
}

void px_pmi_child_prepare(px_pmi_child_t *pc, const pmix_proc_t *proc, uint32_t size, bool spawned,
                          char ***env)
{
    pc->child_fd = pc->server_fd = -1;
    pc->port_id = 0;
    px_pmi_offer_t how = px_pmi_offer(*env);
    if (how == PX_PMI_OFFER_NONE) {
        return;
    }
    char rank[16], sz[16];
    snprintf(rank, sizeof(rank), "%u", proc->rank);
    snprintf(sz, sizeof(sz), "%u", size);
    if (PMIx_Setenv("PMI_RANK", rank, true, env) != PMIX_SUCCESS ||
        PMIx_Setenv("PMI_SIZE", sz, true, env) != PMIX_SUCCESS ||
        (spawned && PMIx_Setenv("PMI_SPAWNED", "1", true, env) != PMIX_SUCCESS)) {
        return;
    }
    if (how == PX_PMI_OFFER_PORT) {
        prepare_port(pc, proc, size, env);
        return;
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        return;
    }
    char fd[16];
    snprintf(fd, sizeof(fd), "%d", PX_ODLS_PASS_FD);
    if (PMIx_Setenv("PMI_FD", fd, true, env) != PMIX_SUCCESS) {
        close(sv[0]);
        close(sv[1]);
        return;
    }
    pc->child_fd = sv[1];
    pc->server_fd = sv[0];
}

const int *px_pmi_child_fd(const px_pmi_child_t *pc)
{
    return pc->child_fd >= 0 ? &pc->child_fd : NULL;
}

void px_pmi_child_started(px_pmi_child_t *pc, const pmix_proc_t *proc, pid_t pid)
{
    if (pc->child_fd >= 0) {
        close(pc->child_fd);
        pc->child_fd = -1;
    }
    if (pc->port_id != 0) {
        px_srv_pmi_port_started(pc->port_id, proc, pid);
        pc->port_id = 0;
    }
    if (pc->server_fd < 0) {
        return;
    }
    if (pid > 0) {
        px_srv_pmi_attach(pc->server_fd, proc, pid); /* closes it on failure */
    } else {
        close(pc->server_fd);
    }
    pc->server_fd = -1;
}

void px_pmi_child_ended(const pmix_proc_t *proc)
{
    if (px_srv_pmi_ready()) {
        px_srv_pmi_detach(proc);
    }
}
