/* cli: printing the answers of PMIx_Query_info (px_query_print.h) for pquery and pattrs.
 * Main thread only.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "cli/px_query_print.h"

/* A scalar as text (malloc'd), NULL for out of memory. */
static char *scalar(const pmix_value_t *v)
{
    char *s = NULL;
    int n = -1;
    switch (v->type) {
    case PMIX_STRING:
        return strdup(v->data.string != NULL ? v->data.string : "");
    case PMIX_BOOL:
        return strdup(v->data.flag ? "true" : "false");
    case PMIX_UINT32:
        n = asprintf(&s, "%" PRIu32, v->data.uint32);
        break;
    case PMIX_INT32:
        n = asprintf(&s, "%" PRId32, v->data.int32);
        break;
    case PMIX_INT:
        n = asprintf(&s, "%d", v->data.integer);
        break;
    case PMIX_UINT64:
        n = asprintf(&s, "%" PRIu64, v->data.uint64);
        break;
    case PMIX_SIZE:
        n = asprintf(&s, "%zu", v->data.size);
        break;
    case PMIX_PID:
        n = asprintf(&s, "%d", (int)v->data.pid);
        break;
    case PMIX_PROC_RANK:
        n = asprintf(&s, "%" PRIu32, v->data.rank);
        break;
    case PMIX_PROC:
        if (v->data.proc != NULL) {
            n = asprintf(&s, "%s.%" PRIu32, v->data.proc->nspace, v->data.proc->rank);
        }
        break;
    case PMIX_UNDEF:
        return strdup("(none)");
    default:
        return PMIx_Value_string(v);
    }
    return n < 0 ? NULL : s;
}

static void line(FILE *f, const char *path, const char *label, int indent, const char *text,
                 bool parsable)
{
    if (parsable) {
        fprintf(f, "%s:%s\n", path, text);
    } else {
        fprintf(f, "%*s%s: %s\n", indent, "", label, text);
    }
}

static void proc_infos(FILE *f, const char *path, int indent, const pmix_proc_info_t *pi, size_t n,
                       bool parsable)
{
    if (!parsable) {
        fprintf(f, "%*s%-24s %6s %8s  %-16s %-12s %s\n", indent, "", "NAMESPACE", "RANK", "PID",
                "NODE", "STATE", "EXECUTABLE");
    }
    for (size_t i = 0; i < n; i++) {
        const char *st = px_qprint_state(pi[i].state);
        if (parsable) {
            fprintf(f, "%s:%zu:nspace=%s:rank=%" PRIu32 ":pid=%d:node=%s:state=%s:exec=%s\n", path,
                    i, pi[i].proc.nspace, pi[i].proc.rank, (int)pi[i].pid,
                    pi[i].hostname ? pi[i].hostname : "", st,
                    pi[i].executable_name ? pi[i].executable_name : "");
        } else {
            fprintf(f, "%*s%-24s %6" PRIu32 " %8d  %-16s %-12s %s\n", indent, "", pi[i].proc.nspace,
                    pi[i].proc.rank, (int)pi[i].pid, pi[i].hostname ? pi[i].hostname : "", st,
                    pi[i].executable_name ? pi[i].executable_name : "");
        }
    }
}

static void regattrs(FILE *f, const char *path, int indent, const pmix_regattr_t *r, size_t n,
                     bool parsable)
{
    for (size_t i = 0; i < n; i++) {
        const char *type = PMIx_Data_type_string(r[i].type);
        if (parsable) {
            fprintf(f, "%s:%s:%s:%s\n", path, r[i].name ? r[i].name : "", r[i].string, type);
        } else {
            fprintf(f, "%*s%-34s %-28s %s\n", indent, "", r[i].name ? r[i].name : "", r[i].string,
                    type);
        }
    }
}

static void px_qprint_value(FILE *f, const char *path, const char *label, int indent,
                            const pmix_value_t *v, bool parsable);

const char *px_qprint_state(pmix_proc_state_t st)
{
    const char *s = PMIx_Proc_state_string(st);
    const char *prefix = "PMIX_PROC_STATE_";
    return strncmp(s, prefix, strlen(prefix)) == 0 ? s + strlen(prefix) : s;
}

static void array(FILE *f, const char *path, const char *label, int indent,
                  const pmix_data_array_t *da, bool parsable)
{
    char *sub = NULL;
    if (!parsable) {
        fprintf(f, "%*s%s:%s\n", indent, "", label, da->size == 0 ? " (empty)" : "");
    }
    switch (da->type) {
    case PMIX_INFO: {
        const pmix_info_t *in = da->array;
        for (size_t i = 0; i < da->size; i++) {
            if (asprintf(&sub, "%s:%s", path, in[i].key) >= 0) {
                px_qprint_value(f, sub, in[i].key, indent + 2, &in[i].value, parsable);
                free(sub);
            }
        }
        return;
    }
    case PMIX_PROC_INFO:
        proc_infos(f, path, indent + 2, da->array, da->size, parsable);
        return;
    case PMIX_REGATTR:
        regattrs(f, path, indent + 2, da->array, da->size, parsable);
        return;
    case PMIX_DATA_ARRAY: {
        const pmix_data_array_t *inner = da->array;
        for (size_t i = 0; i < da->size; i++) {
            pmix_value_t v = {.type = PMIX_DATA_ARRAY};
            char idx[32];
            v.data.darray = (pmix_data_array_t *)&inner[i];
            snprintf(idx, sizeof(idx), "%zu", i);
            if (asprintf(&sub, "%s:%zu", path, i) >= 0) {
                px_qprint_value(f, sub, idx, indent + 2, &v, parsable);
                free(sub);
            }
        }
        return;
    }
    case PMIX_STRING: {
        char **s = da->array;
        for (size_t i = 0; i < da->size; i++) {
            if (parsable) {
                fprintf(f, "%s:%s\n", path, s[i] ? s[i] : "");
            } else {
                fprintf(f, "%*s%s\n", indent + 2, "", s[i] ? s[i] : "");
            }
        }
        return;
    }
    case PMIX_PROC: {
        const pmix_proc_t *p = da->array;
        for (size_t i = 0; i < da->size; i++) {
            if (parsable) {
                fprintf(f, "%s:%s.%" PRIu32 "\n", path, p[i].nspace, p[i].rank);
            } else {
                fprintf(f, "%*s%s.%" PRIu32 "\n", indent + 2, "", p[i].nspace, p[i].rank);
            }
        }
        return;
    }
    default:
        if (parsable) {
            fprintf(f, "%s:(%zu elements of type %s)\n", path, da->size,
                    PMIx_Data_type_string(da->type));
        } else {
            fprintf(f, "%*s(%zu elements of type %s)\n", indent + 2, "", da->size,
                    PMIx_Data_type_string(da->type));
        }
        return;
    }
}

/* One value under path (borrowed) at an indent, readable or parsable. */
static void px_qprint_value(FILE *f, const char *path, const char *label, int indent,
                            const pmix_value_t *v, bool parsable)
{
    if (v->type == PMIX_DATA_ARRAY && v->data.darray != NULL) {
        array(f, path, label, indent, v->data.darray, parsable);
        return;
    }
    /* a comma list (namespaces, supported attributes): one item per line when read */
    if (!parsable && v->type == PMIX_STRING && v->data.string != NULL &&
        strchr(v->data.string, ',') != NULL) {
        char **items = PMIx_Argv_split(v->data.string, ',');
        fprintf(f, "%*s%s:\n", indent, "", label);
        for (size_t i = 0; items != NULL && items[i] != NULL; i++) {
            fprintf(f, "%*s%s\n", indent + 2, "", items[i]);
        }
        PMIx_Argv_free(items);
        return;
    }
    char *text = scalar(v);
    line(f, path, label, indent, text != NULL ? text : "(unprintable)", parsable);
    free(text);
}

void px_qprint_results(FILE *f, const pmix_info_t *res, size_t n, bool parsable)
{
    for (size_t i = 0; i < n; i++) {
        px_qprint_value(f, res[i].key, res[i].key, 0, &res[i].value, parsable);
    }
    fflush(f);
}
