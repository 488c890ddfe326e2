/* pmix_info: describe the PMIx library of this installation — version and API level, the
 * build configuration (prefix, compiler, dependencies), the temporary directories it
 * uses, and every function with the attributes the library supports for it (the same
 * table PMIX_QUERY_ATTRIBUTE_SUPPORT answers from at the client and server levels).
 * Local only: no server is contacted. Single-threaded command-line program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_version.h>

#include "cli/px_build_info.h"
#include "cli/px_opts.h"
#include "client/px_tool.h"
#include "common/px_common.h"
#include "common/px_query.h"
#include "help/px_help.h"

/* One library level: the *_FUNCTIONS key naming its functions, the *_ATTRIBUTES key of
 * their attributes, and the word printed for it. */
typedef struct {
    const char *functions;
    const char *attributes;
    const char *word;
} px_info_level_t;

static const px_info_level_t px_info_levels[] = {
    {PMIX_CLIENT_FUNCTIONS, PMIX_CLIENT_ATTRIBUTES, "client"},
    {PMIX_SERVER_FUNCTIONS, PMIX_SERVER_ATTRIBUTES, "server"},
};
#define PX_INFO_NLEVELS (sizeof(px_info_levels) / sizeof(px_info_levels[0]))

static void px_info_kv(const px_cmd_t *cmd, const char *section, const char *key, const char *value)
{
    if (cmd->parsable) {
        printf("%s:%s:%s\n", section, key, value);
    } else {
        printf("  %-24s %s\n", key, value);
    }
}

static void px_info_header(const px_cmd_t *cmd, const char *title)
{
    if (!cmd->parsable) {
        printf("%s:\n", title);
    }
}

static void px_info_versions(const px_cmd_t *cmd)
{
    char api[32];
    snprintf(api, sizeof(api), "%ld.%ld.%ld", PMIX_VERSION_MAJOR, PMIX_VERSION_MINOR,
             PMIX_VERSION_RELEASE);
    px_info_header(cmd, "Version");
    px_info_kv(cmd, "version", "package", "pmix-runtime " PMIX_RUNTIME_VERSION);
    px_info_kv(cmd, "version", "api", api);
    px_info_kv(cmd, "version", "library", PMIx_Get_version());
}

static void px_info_build(const px_cmd_t *cmd)
{
    px_info_header(cmd, "Build");
    px_info_kv(cmd, "build", "prefix", PX_BUILD_PREFIX);
    px_info_kv(cmd, "build", "libdir", PX_BUILD_LIBDIR);
    px_info_kv(cmd, "build", "buildtype", PX_BUILD_TYPE);
    px_info_kv(cmd, "build", "compiler", PX_BUILD_CC);
    px_info_kv(cmd, "build", "compiler-version", PX_BUILD_CC_VERSION);
    px_info_header(cmd, "Dependencies");
    px_info_kv(cmd, "dependency", "libevent", PX_DEP_LIBEVENT);
    px_info_kv(cmd, "dependency", "hwloc", PX_DEP_HWLOC);
    px_info_kv(cmd, "dependency", "libssh2", PX_DEP_LIBSSH2);
}

/* The directories the library picks when nobody names one: a server's session and system
 * directories, and where a tool's rendezvous chain looks for a server's files (the tool
 * library's own function, so what is printed is what it searches). */
static void px_info_tmpdirs(const px_cmd_t *cmd)
{
    const char *search = NULL, *sys = NULL;
    px_tool_rndz_dirs(NULL, 0, &search, &sys);
    px_info_header(cmd, "Temporary directories");
    px_info_kv(cmd, "tmpdir", "server", px_tmpdir_default());
    px_info_kv(cmd, "tmpdir", "system", px_tmpdir_default());
    px_info_kv(cmd, "tmpdir", "tool-search", search);
    px_info_kv(cmd, "tmpdir", "tool-system", sys);
}

/* fn is wanted: no --param given, or named by one. */
static bool px_info_wanted(const px_cmd_t *cmd, const char *fn)
{
    if (cmd->functions == NULL) {
        return true;
    }
    for (size_t i = 0; cmd->functions[i] != NULL; i++) {
        if (strcmp(cmd->functions[i], fn) == 0) {
            return true;
        }
    }
    return false;
}

static void px_info_attr(const px_cmd_t *cmd, const char *level, const char *fn, const char *key)
{
    pmix_regattr_t r;
    PMIX_REGATTR_CONSTRUCT(&r);
    px_query_regattr(&r, key);
    const char *type = PMIx_Data_type_string(r.type);
    const char *desc = r.description != NULL && r.description[0] != NULL ? r.description[0] : "";
    if (cmd->parsable) {
        printf("attribute:%s:%s:%s:%s", level, fn, r.name, key);
        if (cmd->all) {
            printf(":%s:%s", type, desc);
        }
        printf("\n");
    } else if (cmd->all) {
        printf("    %-34s %-28s %-16s %s\n", r.name, key, type, desc);
    } else {
        printf("    %-34s %s\n", r.name, key);
    }
    PMIX_REGATTR_DESTRUCT(&r);
}

/* Every function of every level with its attributes. */
static void px_info_functions(const px_cmd_t *cmd)
{
    px_info_header(cmd, "Functions and the attributes the library supports");
    for (size_t l = 0; l < PX_INFO_NLEVELS; l++) {
        const px_info_level_t *lv = &px_info_levels[l];
        char **fns = PMIx_Argv_split(px_query_lib_functions(lv->functions), ',');
        for (size_t i = 0; fns != NULL && fns[i] != NULL; i++) {
            if (!px_info_wanted(cmd, fns[i])) {
                continue;
            }
            const char *const *attrs = px_query_lib_attrs(lv->attributes, fns[i]);
            if (cmd->parsable) {
                printf("function:%s:%s\n", lv->word, fns[i]);
            } else {
                printf("  %s (%s)%s\n", fns[i], lv->word,
                       attrs == NULL || attrs[0] == NULL ? ": no attributes" : "");
            }
            for (size_t a = 0; attrs != NULL && attrs[a] != NULL; a++) {
                px_info_attr(cmd, lv->word, fns[i], attrs[a]);
            }
        }
        PMIx_Argv_free(fns);
    }
}

/* A --param name no level knows. NULL when all are known. */
static const char *px_info_unknown_param(const px_cmd_t *cmd)
{
    for (size_t i = 0; cmd->functions != NULL && cmd->functions[i] != NULL; i++) {
        bool found = false;
        for (size_t l = 0; l < PX_INFO_NLEVELS && !found; l++) {
            char **fns = PMIx_Argv_split(px_query_lib_functions(px_info_levels[l].functions), ',');
            for (size_t k = 0; fns != NULL && fns[k] != NULL; k++) {
                found = found || strcmp(fns[k], cmd->functions[i]) == 0;
            }
            PMIx_Argv_free(fns);
        }
        if (!found) {
            return cmd->functions[i];
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    px_cmd_t cmd;
    px_opts_result_t r = px_opts_parse(PX_CMD_PMIX_INFO, argc, argv, &cmd);
    if (r != PX_OPTS_RUN) {
        return r == PX_OPTS_EXIT_OK ? 0 : 1;
    }
    const char *bad = px_info_unknown_param(&cmd);
    if (bad != NULL) {
        px_show_help("help-prte-cli.txt", "pmix-info-unknown-function", cmd.prog, bad, cmd.prog);
        px_opts_fini(&cmd);
        return 1;
    }
    if (cmd.functions == NULL) { /* --param: only the functions asked for */
        px_info_versions(&cmd);
        px_info_build(&cmd);
        px_info_tmpdirs(&cmd);
    }
    px_info_functions(&cmd);
    fflush(stdout);
    px_opts_fini(&cmd);
    return 0;
}
