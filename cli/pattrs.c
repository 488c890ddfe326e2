/* pattrs: the attributes a running DVM supports, per function, as it answers
 * PMIX_QUERY_ATTRIBUTE_SUPPORT (the client and server library levels and what the DVM
 * registered as host); every function it reports, or those of --function. Main thread only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_tool.h>

#include "cli/px_cli.h"
#include "help/px_help.h"

static const char *const fn_levels[] = {PMIX_CLIENT_FUNCTIONS, PMIX_SERVER_FUNCTIONS,
                                        PMIX_HOST_FUNCTIONS, PMIX_TOOL_FUNCTIONS};
static const char *const at_levels[] = {PMIX_CLIENT_ATTRIBUTES, PMIX_SERVER_ATTRIBUTES,
                                        PMIX_HOST_ATTRIBUTES, PMIX_TOOL_ATTRIBUTES};
static const char *const words[] = {"client", "server", "host", "tool"};

/* Ask keys (keys[0] = PMIX_QUERY_ATTRIBUTE_SUPPORT) with every level in levels[4] set
 * true; the answer's inner info array in *inner (borrowed from *res). */
static pmix_status_t ask(char **keys, const char *const *levels, pmix_info_t **res, size_t *nres,
                         const pmix_data_array_t **inner)
{
    pmix_query_t q;
    pmix_info_t qual[4];
    bool yes = true;
    PMIX_QUERY_CONSTRUCT(&q);
    for (int l = 0; l < 4; l++) {
        PMIX_INFO_LOAD(&qual[l], levels[l], &yes, PMIX_BOOL);
    }
    q.keys = keys;
    q.qualifiers = qual;
    q.nqual = 4;
    pmix_status_t rc = PMIx_Query_info(&q, 1, res, nres);
    for (int l = 0; l < 4; l++) {
        PMIX_INFO_DESTRUCT(&qual[l]);
    }
    *inner = NULL;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < *nres; i++) {
        if (PMIX_CHECK_KEY(&(*res)[i], PMIX_QUERY_ATTRIBUTE_SUPPORT) &&
            (*res)[i].value.type == PMIX_DATA_ARRAY && (*res)[i].value.data.darray != NULL &&
            (*res)[i].value.data.darray->type == PMIX_INFO) {
            *inner = (*res)[i].value.data.darray;
        }
    }
    return rc == PMIX_SUCCESS && *inner == NULL ? PMIX_ERR_NOT_FOUND : rc;
}

/* The functions the DVM reports at any level, in order, each once. */
static pmix_status_t functions(char ***fns)
{
    pmix_info_t *res = NULL;
    size_t nres = 0;
    const pmix_data_array_t *in = NULL;
    char *keys[] = {PMIX_QUERY_ATTRIBUTE_SUPPORT, NULL};
    pmix_status_t rc = ask(keys, fn_levels, &res, &nres, &in);
    const pmix_info_t *it = in != NULL ? in->array : NULL;
    for (size_t i = 0; in != NULL && i < in->size; i++) {
        if (it[i].value.type != PMIX_STRING || it[i].value.data.string == NULL) {
            continue;
        }
        char **some = PMIx_Argv_split(it[i].value.data.string, ',');
        for (size_t k = 0; some != NULL && some[k] != NULL; k++) {
            PMIx_Argv_append_unique_nosize(fns, some[k]);
        }
        PMIx_Argv_free(some);
    }
    if (res != NULL) {
        PMIx_Info_free(res, nres);
    }
    /* an answer naming no function (another server, an empty level) is none found */
    return rc == PMIX_SUCCESS && *fns == NULL ? PMIX_ERR_NOT_FOUND : rc;
}

static void print_fn(const px_cmd_t *cmd, const pmix_info_t *fn)
{
    const pmix_data_array_t *lv = fn->value.type == PMIX_DATA_ARRAY ? fn->value.data.darray : NULL;
    const pmix_info_t *levels = lv != NULL && lv->type == PMIX_INFO ? lv->array : NULL;
    size_t shown = 0;
    if (!cmd->parsable) {
        printf("%s:\n", fn->key);
    }
    for (size_t l = 0; levels != NULL && l < lv->size; l++) {
        const char *word = levels[l].key;
        for (int w = 0; w < 4; w++) {
            if (PMIX_CHECK_KEY(&levels[l], at_levels[w])) {
                word = words[w];
            }
        }
        const pmix_data_array_t *ra =
            levels[l].value.type == PMIX_DATA_ARRAY ? levels[l].value.data.darray : NULL;
        if (ra == NULL || ra->type != PMIX_REGATTR) {
            continue;
        }
        const pmix_regattr_t *r = ra->array;
        for (size_t i = 0; i < ra->size; i++, shown++) {
            const char *type = PMIx_Data_type_string(r[i].type);
            if (cmd->parsable) {
                printf("%s:%s:%s:%s:%s\n", fn->key, word, r[i].name ? r[i].name : "", r[i].string,
                       type);
            } else {
                printf("  %-7s %-34s %-28s %s\n", word, r[i].name ? r[i].name : "", r[i].string,
                       type);
            }
        }
    }
    if (shown == 0) {
        if (cmd->parsable) {
            printf("%s:none\n", fn->key);
        } else {
            printf("  (no attributes)\n");
        }
    }
}

int main(int argc, char **argv)
{
    px_cmd_t cmd;
    pmix_proc_t me;
    char **fns = NULL;
    int ret = 1;
    int done = px_cli_tool_start(PX_CMD_PATTRS, argc, argv, &cmd, &me);
    if (done >= 0) {
        return done;
    }
    pmix_status_t rc = functions(&fns);
    if (rc != PMIX_SUCCESS) {
        px_show_help("help-prte-cli.txt", "pattrs-failed", cmd.prog, PMIx_Error_string(rc));
        goto out;
    }
    for (size_t i = 0; cmd.functions != NULL && cmd.functions[i] != NULL; i++) {
        bool known = false;
        for (size_t k = 0; fns[k] != NULL && !known; k++) {
            known = strcmp(fns[k], cmd.functions[i]) == 0;
        }
        if (!known) {
            px_show_help("help-prte-cli.txt", "pattrs-unknown-function", cmd.prog,
                         cmd.functions[i]);
            goto out;
        }
    }
    char **want = cmd.functions != NULL ? cmd.functions : fns;
    char **keys = NULL;
    PMIx_Argv_append_nosize(&keys, PMIX_QUERY_ATTRIBUTE_SUPPORT);
    for (size_t i = 0; want[i] != NULL; i++) {
        PMIx_Argv_append_nosize(&keys, want[i]);
    }
    pmix_info_t *res = NULL;
    size_t nres = 0;
    const pmix_data_array_t *in = NULL;
    rc = ask(keys, at_levels, &res, &nres, &in);
    PMIx_Argv_free(keys);
    if (rc != PMIX_SUCCESS) {
        px_show_help("help-prte-cli.txt", "pattrs-failed", cmd.prog, PMIx_Error_string(rc));
    } else {
        const pmix_info_t *it = in->array;
        for (size_t i = 0; i < in->size; i++) {
            print_fn(&cmd, &it[i]);
        }
        ret = 0;
    }
    if (res != NULL) {
        PMIx_Info_free(res, nres);
    }
out:
    fflush(stdout);
    PMIx_Argv_free(fns);
    PMIx_tool_finalize();
    px_opts_fini(&cmd);
    return ret;
}
