/* Unit tests of the rendezvous file names (common/query.c px_query_rndz_name) and of the
 * server's sweep of files a dead server left (server/server.c): only this node's exact
 * names are ever touched, never those of a node whose name merely starts with ours. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix_server.h>

#include "common/px_common.h"
#include "common/px_query.h"

Test(rndz, names_of_this_node_only)
{
    bool sys = false;
    cr_assert(px_query_rndz_name("pmix.sys.node1", "node1", &sys));
    cr_assert(sys);
    cr_assert(px_query_rndz_name("pmix.node1.tool", "node1", &sys));
    cr_assert(!sys);
    cr_assert(px_query_rndz_name("pmix.node1.tool.1234", "node1", &sys));
    cr_assert(px_query_rndz_name("pmix.node1.tool.prte-x.0", "node1", &sys));
    /* another node whose name starts with ours */
    cr_assert(!px_query_rndz_name("pmix.sys.node10", "node1", &sys));
    cr_assert(!px_query_rndz_name("pmix.node10.tool", "node1", &sys));
    cr_assert(!px_query_rndz_name("pmix.node10.tool.1234", "node1", &sys));
    cr_assert(!px_query_rndz_name("pmix.node1.toolbox", "node1", &sys));
    /* files being written */
    cr_assert(!px_query_rndz_name("pmix.node1.tool.1234.tmp", "node1", &sys));
    cr_assert(!px_query_rndz_name("pmix.sys.node1.99.tmp", "node1", &sys));
    /* a namespace holding ".tmp" is still a name */
    cr_assert(px_query_rndz_name("pmix.node1.tool.a.tmp.b", "node1", &sys));
    cr_assert(!px_query_rndz_name("pmix.node1", "node1", &sys));
    cr_assert(!px_query_rndz_name("", "node1", &sys));
}

static void plant(const char *dir, const char *name, long pid)
{
    char path[600];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fprintf(f, "gone.0;usock:%s/pmix-%ld.sock\n4.2.2\n%ld\n", dir, pid, pid);
    fclose(f);
}

static bool exists(const char *dir, const char *name)
{
    char path[600];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static void remove_dir(const char *dir)
{
    char path[600];
    DIR *d = opendir(dir);
    for (struct dirent *de; d != NULL && (de = readdir(d)) != NULL;) {
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
            snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
            unlink(path);
        }
    }
    if (d != NULL) {
        closedir(d);
    }
    rmdir(dir);
}

/* A server starting up removes what a dead server of this node left (its system and tool
 * files), and leaves alone the dead files of node "<host>0" in the same directory. */
Test(rndz, sweep_spares_other_nodes)
{
    char dir[] = "/tmp/pxrndz.XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    const char *host = px_hostname();
    const long dead = 999999999L; /* above any pid_max */
    char own_sys[300], own_tool[300], other_sys[300], other_tool[300];
    snprintf(own_sys, sizeof(own_sys), "pmix.sys.%s", host);
    snprintf(own_tool, sizeof(own_tool), "pmix.%s.tool.%ld", host, dead);
    snprintf(other_sys, sizeof(other_sys), "pmix.sys.%s0", host);
    snprintf(other_tool, sizeof(other_tool), "pmix.%s0.tool.%ld", host, dead);
    plant(dir, own_sys, dead);
    plant(dir, own_tool, dead);
    plant(dir, other_sys, dead);
    plant(dir, other_tool, dead);

    pmix_info_t info[4];
    bool yes = true;
    PMIx_Info_load(&info[0], PMIX_SERVER_TMPDIR, dir, PMIX_STRING);
    PMIx_Info_load(&info[1], PMIX_SYSTEM_TMPDIR, dir, PMIX_STRING);
    PMIx_Info_load(&info[2], PMIX_SERVER_SYSTEM_SUPPORT, &yes, PMIX_BOOL);
    PMIx_Info_load(&info[3], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    pmix_status_t rc = PMIx_server_init(&module, info, 4);
    for (size_t i = 0; i < 4; i++) {
        PMIx_Info_destruct(&info[i]);
    }
    bool kept_sys = exists(dir, other_sys), kept_tool = exists(dir, other_tool);
    bool swept_tool = !exists(dir, own_tool);
    if (rc == PMIX_SUCCESS) {
        PMIx_server_finalize();
    }
    remove_dir(dir);
    cr_assert_eq(rc, PMIX_SUCCESS, "PMIx_server_init: %s", PMIx_Error_string(rc));
    cr_assert(kept_sys, "the sweep removed %s, another node's system file", other_sys);
    cr_assert(kept_tool, "the sweep removed %s, another node's tool file", other_tool);
    cr_assert(swept_tool, "the sweep left %s, a dead server's file of this node", own_tool);
}
