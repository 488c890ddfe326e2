/* cli: prte's and prterun's --prtemca <key> <value> (PRRTE's spelling of its parameters)
 * and the PRTE_MCA_<key> environment variables. Only the keys of the table below are
 * known; any other key on the command line is refused (we would not honour it). Other
 * PRTE_MCA_* variables in the environment are not ours to judge and are left alone.
 * Single-threaded; called while parsing the command line. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/opts_int.h"
#include "help/px_help.h"

typedef enum {
    PX_PRTEMCA_CMD,     /* a command */
    PX_PRTEMCA_SECONDS, /* a number of seconds, 0..3600, decimals allowed */
    PX_PRTEMCA_RADIX,   /* an integer 1..4096 */
} px_prtemca_kind_t;

typedef struct {
    const char *key;
    size_t field; /* offset of the char * in px_cmd_t */
    px_prtemca_kind_t kind;
} px_prtemca_key_t;

static const px_prtemca_key_t px_prtemca_keys[] = {
    {"plm_ssh_agent", offsetof(px_cmd_t, plm_ssh_agent), PX_PRTEMCA_CMD},
    {"dvm_heartbeat_interval", offsetof(px_cmd_t, hb_interval), PX_PRTEMCA_SECONDS},
    {"dvm_heartbeat_timeout", offsetof(px_cmd_t, hb_timeout), PX_PRTEMCA_SECONDS},
    {"plm_ssh_tree_radix", offsetof(px_cmd_t, tree_radix), PX_PRTEMCA_RADIX},
    {"routed_radix", offsetof(px_cmd_t, routed_radix), PX_PRTEMCA_RADIX},
};
#define PX_PRTEMCA_NKEYS (sizeof(px_prtemca_keys) / sizeof(px_prtemca_keys[0]))

static char **px_prtemca_slot(px_cmd_t *cmd, const px_prtemca_key_t *k)
{
    return (char **)(void *)((char *)cmd + k->field);
}

/* Store value (from: the option or variable that gave it, for the message). */
static int px_prtemca_set(px_cmd_t *cmd, const px_prtemca_key_t *k, const char *from,
                          const char *value)
{
    char **slot = px_prtemca_slot(cmd, k);
    char *copy;

    if (value[strspn(value, " \t")] == '\0') {
        px_show_help("help-prte-cli.txt", "bad-prtemca-value", cmd->prog, from, k->key);
        return -1;
    }
    if (k->kind == PX_PRTEMCA_SECONDS) {
        char *end = NULL;
        errno = 0;
        double v = strtod(value, &end);
        if (errno != 0 || end == value || *end != '\0' || !isfinite(v) || v < 0 || v > 3600) {
            px_show_help("help-prte-cli.txt", "bad-prtemca-seconds", cmd->prog, from, k->key, value,
                         k->key);
            return -1;
        }
    }
    if (k->kind == PX_PRTEMCA_RADIX) {
        int v = 0;
        if (px_opts_posint(value, &v) < 0 || v > 4096) {
            px_show_help("help-prte-cli.txt", "bad-prtemca-radix", cmd->prog, from, k->key, value);
            return -1;
        }
    }
    if ((copy = strdup(value)) == NULL)
        return -1;
    free(*slot);
    *slot = copy;
    return 0;
}

int px_opts_prtemca(px_cmd_t *cmd, const char *opt, const char *key, const char *value)
{
    char known[256] = "";

    for (size_t i = 0; i < PX_PRTEMCA_NKEYS; i++) {
        if (strcmp(px_prtemca_keys[i].key, key) == 0)
            return px_prtemca_set(cmd, &px_prtemca_keys[i], opt, value);
    }
    for (size_t i = 0; i < PX_PRTEMCA_NKEYS; i++) {
        if (known[0] != '\0')
            strncat(known, ", ", sizeof(known) - strlen(known) - 1);
        strncat(known, px_prtemca_keys[i].key, sizeof(known) - strlen(known) - 1);
    }
    px_show_help("help-prte-cli.txt", "unknown-prtemca", cmd->prog, opt, key, known);
    return -1;
}

int px_opts_prtemca_env(px_cmd_t *cmd)
{
    for (size_t i = 0; i < PX_PRTEMCA_NKEYS; i++) {
        const px_prtemca_key_t *k = &px_prtemca_keys[i];
        char var[128];
        const char *value;

        if (*px_prtemca_slot(cmd, k) != NULL)
            continue; /* the command line wins */
        snprintf(var, sizeof(var), "PRTE_MCA_%s", k->key);
        if ((value = getenv(var)) != NULL && px_prtemca_set(cmd, k, var, value) < 0)
            return -1;
    }
    return 0;
}

/* A seconds key in ms; dflt when not given. */
static unsigned px_prtemca_ms(const char *value, unsigned dflt)
{
    return value != NULL ? (unsigned)lround(strtod(value, NULL) * 1000) : dflt;
}

void px_opts_heartbeat(const px_cmd_t *cmd, unsigned *interval_ms, unsigned *timeout_ms)
{
    *interval_ms = px_prtemca_ms(cmd->hb_interval, PX_HB_INTERVAL_MS);
    *timeout_ms = px_prtemca_ms(cmd->hb_timeout, PX_HB_TIMEOUT_MS);
    if (*interval_ms == 0 || *timeout_ms == 0) {
        *interval_ms = *timeout_ms = 0; /* either 0: heartbeats off */
    }
}

const char *px_opts_prted_prefix(const px_cmd_t *cmd)
{
    const char *env = getenv("PRTE_PREFIX");
    if (cmd->noprefix)
        return NULL;
    if (cmd->prefix != NULL)
        return cmd->prefix;
    return env != NULL && env[0] != '\0' ? env : NULL;
}

unsigned px_opts_tree_radix(const px_cmd_t *cmd)
{
    return cmd->tree_radix != NULL ? (unsigned)atoi(cmd->tree_radix) : PX_TREE_RADIX_DEFAULT;
}

void px_opts_dvm(const px_cmd_t *cmd, px_dvm_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->hosts = cmd->hosts;
    o->nhosts = cmd->nhosts;
    o->ssh_agent = cmd->plm_ssh_agent;
    px_opts_heartbeat(cmd, &o->hb_interval_ms, &o->hb_timeout_ms);
    o->debug_daemons = cmd->debug_daemons;
    o->prted_prefix = px_opts_prted_prefix(cmd);
    o->noprefix = cmd->noprefix;
    o->tree_radix = px_opts_tree_radix(cmd);
    o->radix = cmd->routed_radix != NULL ? (unsigned)atoi(cmd->routed_radix) : 0;
    o->srun = cmd->slurm && cmd->plm_ssh_agent == NULL; /* an allocation, no agent given */
    o->allow_uids = cmd->allow_uids;
    o->nallow_uids = cmd->nallow_uids;
    o->allow_gids = cmd->allow_gids;
    o->nallow_gids = cmd->nallow_gids;
    o->verbose = cmd->verbose + (cmd->debug_daemons ? 1 : 0);
    o->prog = cmd->prog;
}
