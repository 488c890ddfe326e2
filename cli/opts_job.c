/* cli: the job options of prun and prterun (-n, MPMD ":", --app, --pset, -x, --wdir,
 * --map-by, --rank-by, --bind-to, --display, --output, --stdin, --timeout ...) into the
 * pmix_app_t[] and job info of a PMIx_Spawn. Single-threaded, called from the parser. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <pmix.h>

#include "cli/opts_int.h"
#include "help/px_help.h"
#include "launcher/px_map.h"

/* ---- segments (one per app context) ---------------------------------------------- */

int px_opts_job_new_seg(px_job_state_t *js)
{
    px_seg_t *s = realloc(js->segs, (js->nsegs + 1) * sizeof(*s));

    if (s == NULL)
        return -1;
    js->segs = s;
    memset(&s[js->nsegs], 0, sizeof(*s));
    js->nsegs++;
    return 0;
}

px_seg_t *px_opts_job_seg(px_job_state_t *js)
{
    if (js->nsegs == 0 && px_opts_job_new_seg(js) < 0)
        return NULL;
    return &js->segs[js->nsegs - 1];
}

static int px_opts_vec_add(char ***vec, int *n, const char *s)
{
    char **v = realloc(*vec, (size_t)(*n + 2) * sizeof(char *));

    if (v == NULL)
        return -1;
    *vec = v;
    if ((v[*n] = strdup(s)) == NULL)
        return -1;
    v[++*n] = NULL;
    return 0;
}

static void px_opts_vec_free(char **v)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        free(v[i]);
    free(v);
}

int px_opts_seg_add_arg(px_seg_t *seg, const char *arg)
{
    return px_opts_vec_add(&seg->argv, &seg->argc, arg);
}

static void px_opts_seg_fini(px_seg_t *s)
{
    px_opts_vec_free(s->argv);
    px_opts_vec_free(s->env);
    free(s->pset);
    free(s->wdir);
}

void px_opts_job_state_fini(px_job_state_t *js)
{
    for (size_t i = 0; i < js->nsegs; i++)
        px_opts_seg_fini(&js->segs[i]);
    free(js->segs);
    free(js->mapby);
    free(js->rankby);
    free(js->bindto);
    free(js->dir);
    free(js->file);
    free(js->appfile);
    free(js->personality);
    free(js->fork_exec_agent);
    free(js->exec_agent);
    px_opts_vec_free(js->genv);
    memset(js, 0, sizeof(*js));
}

/* ---- option values --------------------------------------------------------------- */

static int px_opts_setstr(char **dst, const char *val)
{
    char *s = strdup(val);
    if (s == NULL)
        return -1;
    free(*dst);
    *dst = s;
    return 0;
}

/* Add "VAR=value" to vec (n entries; a later entry of the same VAR replaces the earlier
 * one): val is "VAR=value", or "VAR" with value given (-genv NAME VALUE), or "VAR" alone,
 * the value taken from our environment (-x VAR). opt names the option in messages. */
static int px_opts_env_entry(px_cmd_t *cmd, const char *opt, char ***vec, int *n, const char *val,
                             const char *value)
{
    size_t nlen = strcspn(val, "=");
    char *entry;
    int rc;

    if (nlen == 0 || isdigit((unsigned char)val[0])) {
        px_show_help("help-prte-cli.txt", "bad-env", cmd->prog, opt, val);
        return -1;
    }
    for (size_t i = 0; i < nlen; i++) {
        if (!isalnum((unsigned char)val[i]) && val[i] != '_') {
            px_show_help("help-prte-cli.txt", "bad-env", cmd->prog, opt, val);
            return -1;
        }
    }
    if (val[nlen] == '=') {
        entry = strdup(val);
    } else if (value != NULL) {
        if (asprintf(&entry, "%s=%s", val, value) < 0)
            entry = NULL;
    } else {
        const char *v = getenv(val);
        if (v == NULL) {
            px_show_help("help-prte-cli.txt", "env-not-set", cmd->prog, val, val, val);
            return -1;
        }
        if (asprintf(&entry, "%s=%s", val, v) < 0)
            entry = NULL;
    }
    if (entry == NULL)
        return -1;
    for (int i = 0; i < *n; i++) {
        if (strncmp((*vec)[i], entry, nlen + 1) == 0) {
            free((*vec)[i]);
            (*vec)[i] = entry;
            return 0;
        }
    }
    rc = px_opts_vec_add(vec, n, entry);
    free(entry);
    return rc;
}

int px_opts_job_genv(px_cmd_t *cmd, px_job_state_t *js, const char *name, const char *value)
{
    return px_opts_env_entry(cmd, "-genv", &js->genv, &js->ngenv, name, value);
}

/* Each -genv entry into every segment that has no -x of its own for the variable. */
static int px_opts_merge_genv(px_job_state_t *js)
{
    for (size_t s = 0; s < js->nsegs; s++) {
        px_seg_t *seg = &js->segs[s];
        for (int g = 0; g < js->ngenv; g++) {
            size_t nlen = strcspn(js->genv[g], "=") + 1;
            bool own = false;
            for (int i = 0; i < seg->nenv && !own; i++)
                own = strncmp(seg->env[i], js->genv[g], nlen) == 0;
            if (!own && px_opts_vec_add(&seg->env, &seg->nenv, js->genv[g]) < 0)
                return -1;
        }
    }
    return 0;
}

static bool px_opts_suffix(char *item, const char *suf)
{
    size_t n = strlen(item), m = strlen(suf);
    if (n >= m && strcasecmp(item + n - m, suf) == 0) {
        item[n - m] = '\0';
        return true;
    }
    return false;
}

/* --output tag,rank,timestamp,xml,merge-stderr-to-stdout,dir=D,file=F[:raw][:nocopy] */
static int px_opts_output(px_cmd_t *cmd, px_job_state_t *js, const char *val)
{
    char *copy = strdup(val), *save = NULL, *item;
    bool anyfile = js->dir != NULL || js->file != NULL;

    if (copy == NULL)
        return -1;
    if (val[0] == '\0' || val[strlen(val) - 1] == ',') {
        px_show_help("help-prte-cli.txt", "bad-output", cmd->prog, val, "");
        goto error;
    }
    for (item = strtok_r(copy, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
        char *typed = strdup(item);
        bool ok = true;
        if (typed == NULL)
            goto error;
        for (;;) {
            if (px_opts_suffix(item, ":raw"))
                js->raw = true;
            else if (px_opts_suffix(item, ":nocopy"))
                js->nocopy = true;
            else
                break;
        }
        if (strcasecmp(item, "tag") == 0)
            js->tag = true;
        else if (strcasecmp(item, "rank") == 0)
            js->rank = true;
        else if (strcasecmp(item, "timestamp") == 0)
            js->ts = true;
        else if (strcasecmp(item, "xml") == 0)
            js->xml = true;
        else if (strcasecmp(item, "merge-stderr-to-stdout") == 0)
            js->merge = true;
        else if (strncasecmp(item, "dir=", 4) == 0 && item[4] != '\0')
            ok = px_opts_setstr(&js->dir, item + 4) == 0 && (anyfile = true);
        else if (strncasecmp(item, "file=", 5) == 0 && item[5] != '\0')
            ok = px_opts_setstr(&js->file, item + 5) == 0 && (anyfile = true);
        else {
            px_show_help("help-prte-cli.txt", "bad-output", cmd->prog, val, typed);
            free(typed);
            goto error;
        }
        free(typed);
        if (!ok)
            goto error;
    }
    if (js->nocopy && !anyfile) {
        px_show_help("help-prte-cli.txt", "output-nocopy-without-file", cmd->prog, val);
        goto error;
    }
    free(copy);
    return 0;
error:
    free(copy);
    return -1;
}

static int px_opts_display(px_cmd_t *cmd, px_job_state_t *js, const char *val)
{
    char *copy = strdup(val), *save = NULL, *item;

    if (copy == NULL)
        return -1;
    if (val[0] == '\0') {
        px_show_help("help-prte-cli.txt", "bad-display", cmd->prog, val, "");
        free(copy);
        return -1;
    }
    for (item = strtok_r(copy, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
        if (strcasecmp(item, "map") == 0) {
            js->display_map = true;
        } else if (strcasecmp(item, "allocation") == 0 || strcasecmp(item, "alloc") == 0) {
            js->display_alloc = true;
        } else if (strcasecmp(item, "bind") == 0 || strcasecmp(item, "bindings") == 0) {
            js->report_bindings = true;
        } else {
            px_show_help("help-prte-cli.txt", "bad-display", cmd->prog, val, item);
            free(copy);
            return -1;
        }
    }
    free(copy);
    return 0;
}

static void px_opts_deprecated(const px_cmd_t *cmd, const char *old, const char *repl)
{
    char *text = px_help_render("help-prte-cli.txt", "deprecated-option", cmd->prog, old, repl);
    if (text != NULL) {
        fputs(text, stderr);
        free(text);
    }
}

int px_opts_job_option(px_cmd_t *cmd, px_job_state_t *js, px_opt_id_t id, const char *opt,
                       const char *val)
{
    px_seg_t *seg = px_opts_job_seg(js);
    px_map_policy_t pol;
    px_map_obj_t obj;
    char bad[128], *end;
    long v;

    if (seg == NULL)
        return -1;
    switch (id) {
    case PX_O_NP:
        if (px_opts_posint(val, &seg->np) < 0) {
            px_show_help("help-prte-cli.txt", "bad-np", cmd->prog, val);
            return -1;
        }
        return 0;
    case PX_O_APP:
        return px_opts_setstr(&js->appfile, val);
    case PX_O_PSET:
        /* a set needs a name the DVM can define and others can ask for */
        if (val[0] == '\0' || strchr(val, ',') != NULL) {
            px_show_help("help-prte-cli.txt", "bad-pset", cmd->prog, val);
            return -1;
        }
        return px_opts_setstr(&seg->pset, val);
    case PX_O_X:
        return px_opts_env_entry(cmd, "-x", &seg->env, &seg->nenv, val, NULL);
    case PX_O_WDIR:
        return px_opts_setstr(&seg->wdir, val);
    case PX_O_PPN: {
        /* Hydra's -ppn N: N consecutive ranks per node = ppr:N:node */
        int ppn;
        char spec[32];
        if (px_opts_posint(val, &ppn) < 0) {
            px_show_help("help-prte-cli.txt", "bad-ppn", cmd->prog, val, opt);
            return -1;
        }
        if (js->mapby != NULL) {
            px_show_help("help-prte-cli.txt", "conflicting-options", cmd->prog, opt,
                         js->ppn ? "-ppn" : "--map-by");
            return -1;
        }
        snprintf(spec, sizeof(spec), "ppr:%d:node", ppn);
        js->ppn = true;
        return px_opts_setstr(&js->mapby, spec);
    }
    case PX_O_MAPBY:
        if (js->ppn) {
            px_show_help("help-prte-cli.txt", "conflicting-options", cmd->prog, opt, "-ppn");
            return -1;
        }
        if (px_map_parse_mapby(val, &pol, bad, sizeof(bad)) < 0) {
            px_show_help("help-prte-cli.txt", "bad-map-by", cmd->prog, val, bad);
            return -1;
        }
        return px_opts_setstr(&js->mapby, val);
    case PX_O_RANKBY:
        if (px_map_parse_rankby(val, &obj) < 0) {
            px_show_help("help-prte-cli.txt", "bad-rank-by", cmd->prog, val);
            return -1;
        }
        return px_opts_setstr(&js->rankby, val);
    case PX_O_BINDTO:
        if (px_map_parse_bindto(val, &obj) < 0) {
            px_show_help("help-prte-cli.txt", "bad-bind-to", cmd->prog, val);
            return -1;
        }
        return px_opts_setstr(&js->bindto, val);
    case PX_O_REPORT_BINDINGS:
        js->report_bindings = true;
        return 0;
    case PX_O_DISPLAY:
        return px_opts_display(cmd, js, val);
    case PX_O_OUTPUT:
        return px_opts_output(cmd, js, val);
    case PX_O_TAG_OUTPUT:
        px_opts_deprecated(cmd, opt, "--output tag");
        js->tag = true;
        return 0;
    case PX_O_TIMESTAMP_OUTPUT:
        px_opts_deprecated(cmd, opt, "--output timestamp");
        js->ts = true;
        return 0;
    case PX_O_XML:
        px_opts_deprecated(cmd, opt, "--output xml");
        js->xml = true;
        return 0;
    case PX_O_MERGE:
        px_opts_deprecated(cmd, opt, "--output merge-stderr-to-stdout");
        js->merge = true;
        return 0;
    case PX_O_OUTPUT_FILENAME:
        px_opts_deprecated(cmd, opt, "--output dir=<dir>");
        return px_opts_setstr(&js->dir, val);
    case PX_O_STDIN:
        if (strcasecmp(val, "all") == 0) {
            js->stdin_none = false;
            js->stdin_rank = PMIX_RANK_WILDCARD;
            return 0;
        }
        if (strcasecmp(val, "none") == 0) {
            js->stdin_none = true;
            return 0;
        }
        errno = 0;
        v = strtol(val, &end, 10);
        if (!isdigit((unsigned char)val[0]) || *end != '\0' || errno != 0 || v > 0x7fffffff) {
            px_show_help("help-prte-cli.txt", "bad-stdin", cmd->prog, val);
            return -1;
        }
        js->stdin_none = false;
        js->stdin_rank = (uint32_t)v;
        return 0;
    case PX_O_TIMEOUT:
        if (px_opts_posint(val, &js->timeout) < 0) {
            px_show_help("help-prte-cli.txt", "bad-timeout", cmd->prog, val);
            return -1;
        }
        return 0;
    case PX_O_NOPREFIX:
        cmd->noprefix = true;
        return 0;
    case PX_O_PREFIX:
        if (val[0] != '/') {
            px_show_help("help-prte-cli.txt", "bad-prefix", cmd->prog, val);
            return -1;
        }
        return px_opts_setstr(&cmd->prefix, val);
    case PX_O_PERSONALITY:
        return px_opts_setstr(&js->personality, val);
    case PX_O_FORK_EXEC_AGENT:
        return px_opts_setstr(&js->fork_exec_agent, val);
    case PX_O_EXEC_AGENT:
        return px_opts_setstr(&js->exec_agent, val);
    case PX_O_NOHUP:
        js->nohup = true;
        return 0;
    case PX_O_STOP_ON_EXEC:
        js->stop_exec = true;
        return 0;
    case PX_O_STOP_IN_INIT:
        js->stop_init = true;
        return 0;
    case PX_O_STOP_IN_APP:
        js->stop_app = true;
        return 0;
    default:
        return 0;
    }
}

/* ---- appfile --------------------------------------------------------------------- */

/* Split a line into words: blanks separate, '...' and "..." quote. */
static int px_opts_split_line(const char *line, char ***words, int *n)
{
    char *buf = malloc(strlen(line) + 1);
    const char *p = line;

    if (buf == NULL)
        return -1;
    *words = NULL;
    *n = 0;
    while (*p != '\0') {
        char *o = buf, q = 0;
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            p++;
        if (*p == '\0')
            break;
        while (*p != '\0' && (q != 0 || (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n'))) {
            if (q == 0 && (*p == '\'' || *p == '"'))
                q = *p;
            else if (q != 0 && *p == q)
                q = 0;
            else
                *o++ = *p;
            p++;
        }
        *o = '\0';
        if (px_opts_vec_add(words, n, buf) < 0) {
            free(buf);
            return -1;
        }
    }
    free(buf);
    return 0;
}

static int px_opts_read_appfile(px_cmd_t *cmd, px_job_state_t *js)
{
    FILE *f = fopen(js->appfile, "r");
    char *line = NULL, **words = NULL;
    size_t cap = 0;
    int lineno = 0, nwords, rc = -1;
    px_opts_result_t res;

    if (f == NULL) {
        px_show_help("help-prte-cli.txt", "appfile-unreadable", cmd->prog, js->appfile,
                     strerror(errno));
        return -1;
    }
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        if (px_opts_split_line(line, &words, &nwords) < 0)
            goto out;
        if (nwords > 0 && words[0][0] != '#') {
            if (js->nsegs > 0 && js->segs[js->nsegs - 1].argv == NULL &&
                px_opts_job_seg(js)->np == 0) {
                /* reuse the empty segment */
            } else if (px_opts_job_new_seg(js) < 0) {
                goto out;
            }
            if (px_opts_parse_vec(cmd, js, nwords, words, true, &res) != 0 ||
                px_opts_job_seg(js)->argv == NULL) {
                if (px_opts_job_seg(js)->argv == NULL && res == PX_OPTS_RUN)
                    px_show_help("help-prte-cli.txt", "no-executable", cmd->prog, cmd->prog);
                px_show_help("help-prte-cli.txt", "appfile-bad-line", cmd->prog, js->appfile,
                             lineno);
                goto out;
            }
        }
        px_opts_vec_free(words);
        words = NULL;
    }
    if (ferror(f)) {
        px_show_help("help-prte-cli.txt", "appfile-unreadable", cmd->prog, js->appfile,
                     strerror(errno));
        goto out;
    }
    if (js->nsegs == 0 || js->segs[0].argv == NULL) {
        px_show_help("help-prte-cli.txt", "appfile-empty", cmd->prog, js->appfile);
        goto out;
    }
    rc = 0;
out:
    px_opts_vec_free(words);
    free(line);
    fclose(f);
    return rc;
}

/* ---- apps and job info ----------------------------------------------------------- */

typedef struct {
    const char *key;
    const void *data;
    pmix_data_type_t type;
} px_kv_t;

static int px_opts_build(px_cmd_t *cmd, px_job_state_t *js)
{
    static const bool yes = true;
    px_kv_t kv[32];
    size_t n = 0;
    char cwd[4096];

    if (getcwd(cwd, sizeof(cwd)) == NULL)
        snprintf(cwd, sizeof(cwd), ".");
    if ((cmd->apps = PMIx_App_create(js->nsegs)) == NULL)
        return -1;
    cmd->napps = js->nsegs;
    for (size_t i = 0; i < js->nsegs; i++) {
        px_seg_t *s = &js->segs[i];
        pmix_app_t *a = &cmd->apps[i];
        a->argv = s->argv;
        s->argv = NULL;
        a->env = s->env;
        s->env = NULL;
        if (a->env == NULL && (a->env = calloc(1, sizeof(char *))) == NULL)
            return -1;
        a->cmd = strdup(a->argv[0]);
        a->cwd = strdup(s->wdir != NULL ? s->wdir : cwd);
        if (a->cmd == NULL || a->cwd == NULL)
            return -1;
        a->maxprocs = s->np;
        if (s->pset != NULL) {
            PMIx_App_info_create(a, 1);
            if (a->info == NULL)
                return -1;
            PMIx_Info_load(&a->info[0], PMIX_PSET_NAME, s->pset, PMIX_STRING);
        }
    }

    if (js->mapby != NULL)
        kv[n++] = (px_kv_t){PMIX_MAPBY, js->mapby, PMIX_STRING};
    if (js->rankby != NULL)
        kv[n++] = (px_kv_t){PMIX_RANKBY, js->rankby, PMIX_STRING};
    if (js->bindto != NULL)
        kv[n++] = (px_kv_t){PMIX_BINDTO, js->bindto, PMIX_STRING};
    if (js->display_map)
        kv[n++] = (px_kv_t){PMIX_DISPLAY_MAP, &yes, PMIX_BOOL};
    if (js->report_bindings)
        kv[n++] = (px_kv_t){PMIX_REPORT_BINDINGS, &yes, PMIX_BOOL};
    if (js->display_alloc)
        kv[n++] = (px_kv_t){PMIX_DISPLAY_ALLOCATION, &yes, PMIX_BOOL};
    if (js->tag)
        kv[n++] = (px_kv_t){PMIX_IOF_TAG_OUTPUT, &yes, PMIX_BOOL};
    if (js->rank)
        kv[n++] = (px_kv_t){PMIX_IOF_RANK_OUTPUT, &yes, PMIX_BOOL};
    if (js->ts)
        kv[n++] = (px_kv_t){PMIX_IOF_TIMESTAMP_OUTPUT, &yes, PMIX_BOOL};
    if (js->xml)
        kv[n++] = (px_kv_t){PMIX_IOF_XML_OUTPUT, &yes, PMIX_BOOL};
    if (js->merge)
        kv[n++] = (px_kv_t){PMIX_IOF_MERGE_STDERR_STDOUT, &yes, PMIX_BOOL};
    if (js->dir != NULL)
        kv[n++] = (px_kv_t){PMIX_IOF_OUTPUT_TO_DIRECTORY, js->dir, PMIX_STRING};
    if (js->file != NULL)
        kv[n++] = (px_kv_t){PMIX_IOF_OUTPUT_TO_FILE, js->file, PMIX_STRING};
    if (js->raw)
        kv[n++] = (px_kv_t){PMIX_IOF_OUTPUT_RAW, &yes, PMIX_BOOL};
    if (js->nocopy)
        kv[n++] = (px_kv_t){PMIX_IOF_FILE_ONLY, &yes, PMIX_BOOL};
    if (!js->stdin_none)
        kv[n++] = (px_kv_t){PMIX_STDIN_TGT, &js->stdin_rank, PMIX_UINT32};
    if (js->timeout > 0)
        kv[n++] = (px_kv_t){PMIX_JOB_TIMEOUT, &js->timeout, PMIX_INT};
    if (js->nohup)
        kv[n++] = (px_kv_t){PMIX_NOHUP, &yes, PMIX_BOOL};
    if (js->personality != NULL)
        kv[n++] = (px_kv_t){PMIX_PERSONALITY, js->personality, PMIX_STRING};
    /* every rank; the DVM refuses two stop points for one process */
    if (js->stop_exec)
        kv[n++] = (px_kv_t){PMIX_DEBUG_STOP_ON_EXEC, &yes, PMIX_BOOL};
    if (js->stop_init)
        kv[n++] = (px_kv_t){PMIX_DEBUG_STOP_IN_INIT, &yes, PMIX_BOOL};
    if (js->stop_app)
        kv[n++] = (px_kv_t){PMIX_DEBUG_STOP_IN_APP, &yes, PMIX_BOOL};
    if (js->fork_exec_agent != NULL)
        kv[n++] = (px_kv_t){PMIX_FORKEXEC_AGENT, js->fork_exec_agent, PMIX_STRING};
    if (js->exec_agent != NULL)
        kv[n++] = (px_kv_t){PMIX_EXEC_AGENT, js->exec_agent, PMIX_STRING};
    kv[n++] = (px_kv_t){PMIX_FWD_STDOUT, &yes, PMIX_BOOL};
    kv[n++] = (px_kv_t){PMIX_FWD_STDERR, &yes, PMIX_BOOL};
    kv[n++] = (px_kv_t){PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL};
    kv[n++] = (px_kv_t){PMIX_NOTIFY_JOB_EVENTS, &yes, PMIX_BOOL};

    if ((cmd->jinfo = PMIx_Info_create(n)) == NULL)
        return -1;
    cmd->njinfo = n;
    for (size_t i = 0; i < n; i++) {
        if (PMIx_Info_load(&cmd->jinfo[i], kv[i].key, kv[i].data, kv[i].type) != PMIX_SUCCESS)
            return -1;
    }
    cmd->stdin_none = js->stdin_none;
    cmd->stdin_rank = js->stdin_rank;
    cmd->timeout = js->timeout;
    return 0;
}

int px_opts_job_finish(px_cmd_t *cmd, px_job_state_t *js)
{
    if (js->appfile != NULL) {
        for (size_t i = 0; i < js->nsegs; i++) {
            if (js->segs[i].argv != NULL) {
                px_show_help("help-prte-cli.txt", "app-and-executable", cmd->prog, js->appfile,
                             js->segs[i].argv[0]);
                return -1;
            }
        }
        /* options given on the command line for no executable are dropped */
        for (size_t i = 0; i < js->nsegs; i++)
            px_opts_seg_fini(&js->segs[i]);
        js->nsegs = 0;
        if (px_opts_read_appfile(cmd, js) < 0)
            return -1;
    }
    if ((cmd->kind == PX_CMD_PRTERUN || cmd->kind == PX_CMD_PRUN) &&
        getenv("PMIX_LAUNCHER_RNDZ_URI") != NULL && js->nsegs == 1 && js->segs[0].argv == NULL) {
        /* a launcher started by a tool that parses the command line itself (Tools chapter,
         * initiator-based parsing): the jobs come as that tool's spawn requests (prterun's
         * DVM takes them; prun passes them on to its DVM, libpmix-core tool_relay.c) */
        cmd->napps = 0;
        return 0;
    }
    for (size_t i = 0; i < js->nsegs; i++) {
        if (js->segs[i].argv != NULL)
            continue;
        if (js->nsegs == 1)
            px_show_help("help-prte-cli.txt", "no-executable", cmd->prog, cmd->prog);
        else
            px_show_help("help-prte-cli.txt", "empty-segment", cmd->prog, (int)i + 1);
        return -1;
    }
    if (js->nsegs == 0) {
        px_show_help("help-prte-cli.txt", "no-executable", cmd->prog, cmd->prog);
        return -1;
    }
    if (px_opts_merge_genv(js) < 0)
        return -1;
    return px_opts_build(cmd, js);
}
