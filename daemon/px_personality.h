/* daemon: personalities — what a process of an MPI family needs from its launcher beyond
 * the PMIx connection, chosen per app: by the spawn's PMIX_PERSONALITY (job or app
 * info, `--personality`), else by the MPI library the executable links (ELF DT_NEEDED).
 * The node agent adds the personality's environment to each process it starts
 * (px_personality_env); the controller refuses a name it does not know before anything
 * is registered (px_personality_refusal). Pure functions, no state: any thread.
 *
 * Personalities (docs/ARCHITECTURE.md, "Personalities"):
 *   "prte"  plain PMIx programs: nothing added, no detection.
 *   "ompi"  Open MPI 4.1 (libmpi.so.40): the OMPI_MCA_* variables that make it take its
 *           PMIx-based direct-launch path instead of deciding it is a singleton (and
 *           yield the CPU when the node is oversubscribed), the OMPI_COMM_WORLD_*
 *           variables mpirun gives its processes, and our library's
 *           directory first in LD_LIBRARY_PATH so that its PMIx component loads our
 *           libpmix.so.2.
 */
#ifndef PX_PERSONALITY_H
#define PX_PERSONALITY_H

#include <pmix_common.h>

#include "daemon/px_dproto.h"

typedef enum {
    PX_PERS_NONE = 0, /* "prte": nothing added */
    PX_PERS_OMPI,     /* Open MPI 4.1 */
    PX_PERS_COUNT,
} px_personality_t;

/* The personality of a name ("ompi", "prte"); -1 when there is none of that name. */
int px_personality_parse(const char *name, px_personality_t *out);
const char *px_personality_name(px_personality_t p);

/* Whether the ELF executable at path lists soname among its DT_NEEDED entries: 1 yes,
 * 0 no, -1 with errno when it cannot be read or is not a native ELF executable (ENOEXEC;
 * a script, another class or byte order) or is malformed (EINVAL). Reads at most a few
 * hundred KiB, every offset checked against the file first. */
int px_elf_needs(const char *path, const char *soname);

/* The personality the executable at path implies by the MPI library it links (the
 * sonames table in personality.c); PX_PERS_NONE when none, or when it cannot be read. */
px_personality_t px_personality_detect(const char *path);

/* The personality of app a of l: its PMIX_PERSONALITY, else the job's, else what its
 * executable (app->cmd searched in env's PATH, relative to app->cwd) links. 0, or -1 with
 * errno EINVAL for a name there is no personality of. */
int px_personality_of(const px_dp_launch_t *l, uint32_t a, char *const *env, px_personality_t *out);

/* Whether an app of l has personality want, as px_personality_of finds it, with each
 * executable looked up in the app's environment first, then this process's: the
 * controller's view of a job (the nodes normally share the file system). */
bool px_personality_job_has(const px_dp_launch_t *l, px_personality_t want);

/* Add to *env (a NULL-ended "VAR=value" array, reallocated) what process r of l needs
 * from its personality. Variables the environment already sets (the DVM's or the app's
 * -x) are kept, except the per-process OMPI_COMM_WORLD_* ones and LD_LIBRARY_PATH, to
 * which our library's directory is prepended. 0, or -1 with errno (EINVAL: an unknown
 * personality name; ENOMEM). */
int px_personality_env(const px_dp_launch_t *l, pmix_rank_t r, char ***env);

/* The directory of the libpmix.so.2 that belongs to this program: the build tree's when
 * the running executable lives in the build tree, else the installed libdir; NULL when no
 * libpmix.so.2 is there. Computed once. */
const char *px_personality_libdir(void);

/* The refusal message (help-prte.txt "personality-unknown", malloc'd) for the first
 * PMIX_PERSONALITY of info[] or of an app's info that names no personality; NULL when
 * every one is known. */
char *px_personality_refusal(const char *nspace, const pmix_info_t *info, size_t ninfo,
                             const pmix_app_t *apps, size_t napps);

#endif /* PX_PERSONALITY_H */
