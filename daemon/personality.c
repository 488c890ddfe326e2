/* daemon: personalities (px_personality.h) — which MPI family a process belongs to (the
 * spawn's PMIX_PERSONALITY, else the ELF DT_NEEDED entries of its executable) and the
 * environment that family needs. No state beyond the library directory computed once;
 * called on the daemon's loop (node agent) and the controller's (refusals).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix.h>

#include "common/px_common.h"
#include "daemon/px_odls.h"
#include "daemon/px_libdir.h" /* generated: where our libpmix.so.2 is */
#include "daemon/px_personality.h"
#include "help/px_help.h"
#include "util/px_argv.h"

static const char *const pers_names[PX_PERS_COUNT] = {"prte", "ompi"};

/* The libraries that say which family an executable belongs to. Open MPI 3.0 to 5.0 keep
 * the soname libmpi.so.40; Fortran and C++ programs may name only their bindings'. */
static const struct {
    const char *soname;
    px_personality_t pers;
} sonames[] = {
    {"libmpi.so.40", PX_PERS_OMPI},
    {"libmpi_mpifh.so.40", PX_PERS_OMPI},
    {"libmpi_usempif08.so.40", PX_PERS_OMPI},
    {"libmpi_cxx.so.40", PX_PERS_OMPI},
};

int px_personality_parse(const char *name, px_personality_t *out)
{
    for (int p = 0; name != NULL && p < PX_PERS_COUNT; p++) {
        if (strcmp(name, pers_names[p]) == 0) {
            *out = (px_personality_t)p;
            return 0;
        }
    }
    return -1;
}

const char *px_personality_name(px_personality_t p)
{
    return p < PX_PERS_COUNT ? pers_names[p] : "?";
}

/* ---- ELF: the DT_NEEDED entries of a native executable ---- */

#define ELF_MAX_PHDRS 512
#define ELF_MAX_DYN   (64 * 1024)   /* bytes of the dynamic section read */
#define ELF_MAX_STR   (1024 * 1024) /* bytes of the dynamic string table read */

/* Read exactly len bytes at off, which must lie within size. 0, or -1 (EINVAL/EIO). */
static int read_at(int fd, off_t size, uint64_t off, void *buf, size_t len)
{
    if (off > (uint64_t)size || len > (uint64_t)size - off) {
        errno = EINVAL;
        return -1;
    }
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));
        if (n <= 0) {
            errno = n == 0 ? EINVAL : errno;
            return -1;
        }
        got += (size_t)n;
    }
    return 0;
}

/* The file offset of virtual address vaddr holding len bytes: the PT_LOAD segment that
 * maps it from the file. 0, or -1 (EINVAL). */
static int vaddr_to_off(const Elf64_Phdr *ph, size_t n, uint64_t vaddr, uint64_t len, uint64_t *off)
{
    for (size_t i = 0; i < n; i++) {
        if (ph[i].p_type != PT_LOAD || vaddr < ph[i].p_vaddr) {
            continue;
        }
        uint64_t rel = vaddr - ph[i].p_vaddr;
        if (rel <= ph[i].p_filesz && len <= ph[i].p_filesz - rel) {
            *off = ph[i].p_offset + rel;
            return 0;
        }
    }
    errno = EINVAL;
    return -1;
}

int px_elf_needs(const char *path, const char *soname)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    Elf64_Phdr *ph = NULL;
    Elf64_Dyn *dyn = NULL;
    char *str = NULL;
    int found = -1;
    struct stat st;
    Elf64_Ehdr eh;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        errno = ENOEXEC;
        goto out;
    }
    if (read_at(fd, st.st_size, 0, &eh, sizeof(eh)) < 0 ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_ident[EI_DATA] !=
            (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB)) {
        errno = ENOEXEC; /* a script, or not an executable this machine runs */
        goto out;
    }
    if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > ELF_MAX_PHDRS) {
        errno = EINVAL;
        goto out;
    }
    size_t nph = eh.e_phnum;
    ph = calloc(nph, sizeof(*ph));
    if (ph == NULL || read_at(fd, st.st_size, eh.e_phoff, ph, nph * sizeof(*ph)) < 0) {
        goto out;
    }
    const Elf64_Phdr *dp = NULL;
    for (size_t i = 0; i < nph && dp == NULL; i++) {
        dp = ph[i].p_type == PT_DYNAMIC ? &ph[i] : NULL;
    }
    if (dp == NULL) {
        found = 0; /* statically linked: it needs nothing */
        goto out;
    }
    size_t dynlen = dp->p_filesz < ELF_MAX_DYN ? (size_t)dp->p_filesz : ELF_MAX_DYN;
    size_t ndyn = dynlen / sizeof(Elf64_Dyn);
    dyn = calloc(ndyn ? ndyn : 1, sizeof(*dyn));
    if (dyn == NULL || read_at(fd, st.st_size, dp->p_offset, dyn, ndyn * sizeof(*dyn)) < 0) {
        goto out;
    }
    uint64_t strtab = 0, strsz = 0;
    bool have_strtab = false;
    for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL; i++) {
        if (dyn[i].d_tag == DT_STRTAB) {
            strtab = dyn[i].d_un.d_ptr;
            have_strtab = true;
        } else if (dyn[i].d_tag == DT_STRSZ) {
            strsz = dyn[i].d_un.d_val;
        }
    }
    uint64_t stroff = 0;
    if (!have_strtab || strsz == 0 || strsz > ELF_MAX_STR ||
        vaddr_to_off(ph, nph, strtab, strsz, &stroff) < 0) {
        errno = EINVAL;
        goto out;
    }
    str = malloc(strsz + 1);
    if (str == NULL || read_at(fd, st.st_size, stroff, str, strsz) < 0) {
        goto out;
    }
    str[strsz] = '\0'; /* an unterminated last name ends at the table's end */
    found = 0;
    for (size_t i = 0; i < ndyn && dyn[i].d_tag != DT_NULL && found == 0; i++) {
        if (dyn[i].d_tag == DT_NEEDED && dyn[i].d_un.d_val < strsz) {
            found = strcmp(str + dyn[i].d_un.d_val, soname) == 0;
        }
    }
out:
    free(str);
    free(dyn);
    free(ph);
    int err = errno;
    close(fd);
    errno = err;
    return found;
}

px_personality_t px_personality_detect(const char *path)
{
    for (size_t i = 0; i < sizeof(sonames) / sizeof(sonames[0]); i++) {
        if (px_elf_needs(path, sonames[i].soname) == 1) {
            return sonames[i].pers;
        }
    }
    return PX_PERS_NONE;
}

/* ---- which personality a process has ---- */

/* The PMIX_PERSONALITY of info[], NULL when it names none. */
static const char *named(const pmix_info_t *info, size_t ninfo)
{
    const char *name = NULL;
    for (size_t i = 0; info != NULL && i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_PERSONALITY) && info[i].value.type == PMIX_STRING) {
            name = info[i].value.data.string;
        }
    }
    return name;
}

/* What app's executable links, found as the exec will find it (env's PATH; relative
 * paths from the app's directory). */
static px_personality_t detect_app(const pmix_app_t *app, char *const *env)
{
    const char *argv0 = app->cmd != NULL ? app->cmd : (app->argv ? app->argv[0] : NULL);
    char **cands = argv0 != NULL ? px_odls_candidates(argv0, env) : NULL;
    px_personality_t p = PX_PERS_NONE;
    for (size_t i = 0; cands != NULL && cands[i] != NULL; i++) {
        char full[PATH_MAX];
        const char *c = cands[i];
        if (c[0] != '/' && app->cwd != NULL &&
            snprintf(full, sizeof(full), "%s/%s", app->cwd, c) < (int)sizeof(full)) {
            c = full;
        }
        if (access(c, X_OK) == 0) {
            p = px_personality_detect(c);
            break; /* the one execve runs */
        }
    }
    px_odls_free_cands(cands);
    return p;
}

int px_personality_of(const px_dp_launch_t *l, uint32_t a, char *const *env, px_personality_t *out)
{
    const pmix_app_t *app = &l->apps[a];
    const char *name = named(app->info, app->ninfo);
    if (name == NULL) {
        name = named(l->info, l->ninfo);
    }
    if (name != NULL) {
        if (px_personality_parse(name, out) < 0) {
            errno = EINVAL;
            return -1;
        }
        return 0;
    }
    *out = detect_app(app, env);
    return 0;
}

bool px_personality_job_has(const px_dp_launch_t *l, px_personality_t want)
{
    extern char **environ;
    size_t nours = 0;
    while (environ[nours] != NULL) {
        nours++;
    }
    for (uint32_t a = 0; a < l->napps; a++) {
        const pmix_app_t *app = &l->apps[a];
        size_t nown = app->env != NULL ? PMIx_Argv_count(app->env) : 0;
        char **env = calloc(nown + nours + 1, sizeof(*env));
        px_personality_t p = PX_PERS_NONE;
        if (env != NULL) {
            if (nown > 0) {
                memcpy(env, app->env, nown * sizeof(*env));
            }
            memcpy(env + nown, environ, nours * sizeof(*env));
            if (px_personality_of(l, a, env, &p) != 0) {
                p = PX_PERS_NONE;
            }
        }
        free(env);
        if (p == want) {
            return true;
        }
    }
    return false;
}

/* ---- the environment ---- */

const char *px_personality_libdir(void)
{
    static bool done;
    static const char *dir;
    if (done) {
        return dir;
    }
    done = true;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[n > 0 ? n : 0] = '\0';
    size_t rootlen = strlen(PX_BUILD_ROOT);
    bool in_build = n > 0 && strncmp(exe, PX_BUILD_ROOT, rootlen) == 0 && exe[rootlen] == '/';
    const char *cand = in_build ? PX_BUILD_LIBDIR : PX_INSTALL_LIBDIR;
    char lib[PATH_MAX];
    snprintf(lib, sizeof(lib), "%s/libpmix.so.2", cand);
    dir = access(lib, R_OK) == 0 ? cand : NULL;
    px_debug(2, "nagent", "our libpmix.so.2: %s", dir ? lib : "not found");
    return dir;
}

/* name=value unless the environment has name already (force: always). 0, or -1. */
static int put(char ***env, const char *name, const char *value, bool force)
{
    pmix_status_t rc = PMIx_Setenv(name, value, force, env);
    return rc == PMIX_SUCCESS || rc == PMIX_ERR_EXISTS ? 0 : -1;
}

static int put_u(char ***env, const char *name, unsigned long v)
{
    char num[24];
    snprintf(num, sizeof(num), "%lu", v);
    return put(env, name, num, true);
}

/* Our library's directory first in LD_LIBRARY_PATH (unless it is first already). */
static int prepend_libdir(char ***env)
{
    const char *dir = px_personality_libdir();
    if (dir == NULL) {
        return 0; /* nothing to point at: the system's libpmix.so.2 is used */
    }
    const char *old = px_env_get(*env, "LD_LIBRARY_PATH");
    size_t dl = strlen(dir);
    if (old != NULL && strncmp(old, dir, dl) == 0 && (old[dl] == ':' || old[dl] == '\0')) {
        return 0;
    }
    char *v = NULL;
    if (asprintf(&v, "%s%s%s", dir, old && *old ? ":" : "", old && *old ? old : "") < 0) {
        return -1;
    }
    int rc = put(env, "LD_LIBRARY_PATH", v, true);
    free(v);
    return rc;
}

/* Open MPI 4.1 run by a launcher it does not know decides it is a singleton: its
 * schizo framework's "orte" component, having no ORTE daemon to talk to, sets
 * OMPI_MCA_ess=singleton over whatever the environment says, and the singleton then
 * tries to start an ORTE daemon of its own. Restricting schizo to its "ompi" component
 * (which only serves mpirun and declares nothing) leaves the ess choice to us: "pmi",
 * the direct-launch component that takes everything from PMIx (the path Slurm's srun
 * gets by SLURM_* detection). No other resource manager is impersonated. */
static int ompi_env(const px_dp_launch_t *l, pmix_rank_t r, char ***env)
{
    const px_dp_lproc_t *me = &l->procs[r];
    unsigned long local_size = 0;
    for (size_t k = 0; k < l->nprocs; k++) {
        local_size += l->procs[k].node == me->node;
    }
    /* more of the job's processes here than CPUs we may run on: Open MPI then yields the
     * processor while it waits (what mpirun tells it when it oversubscribes a node) */
    cpu_set_t cpus;
    bool over = sched_getaffinity(0, sizeof(cpus), &cpus) == 0 &&
                local_size > (unsigned long)CPU_COUNT(&cpus);
    if ((over && put(env, "OMPI_MCA_mpi_oversubscribe", "1", false) < 0) ||
        put(env, "OMPI_MCA_schizo", "ompi", false) < 0 ||
        put(env, "OMPI_MCA_ess", "pmi", false) < 0 ||
        put_u(env, "OMPI_COMM_WORLD_SIZE", l->nprocs) < 0 ||
        put_u(env, "OMPI_COMM_WORLD_RANK", r) < 0 ||
        put_u(env, "OMPI_COMM_WORLD_LOCAL_RANK", me->local_rank) < 0 ||
        put_u(env, "OMPI_COMM_WORLD_LOCAL_SIZE", local_size) < 0 ||
        put_u(env, "OMPI_COMM_WORLD_NODE_RANK", me->node_rank) < 0 ||
        put_u(env, "OMPI_UNIVERSE_SIZE", l->nprocs) < 0 || prepend_libdir(env) < 0) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

int px_personality_env(const px_dp_launch_t *l, pmix_rank_t r, char ***env)
{
    px_personality_t p;
    if (r >= l->nprocs || px_personality_of(l, l->procs[r].app, *env, &p) < 0) {
        errno = EINVAL;
        return -1;
    }
    px_debug(2, "nagent", "%s rank %u: personality %s", l->nspace, r, px_personality_name(p));
    return p == PX_PERS_OMPI ? ompi_env(l, r, env) : 0;
}

char *px_personality_refusal(const char *nspace, const pmix_info_t *info, size_t ninfo,
                             const pmix_app_t *apps, size_t napps)
{
    px_personality_t p;
    const char *bad = NULL, *name = named(info, ninfo);
    if (name != NULL && px_personality_parse(name, &p) < 0) {
        bad = name;
    }
    for (size_t a = 0; bad == NULL && a < napps; a++) {
        name = named(apps[a].info, apps[a].ninfo);
        bad = name != NULL && px_personality_parse(name, &p) < 0 ? name : NULL;
    }
    if (bad == NULL) {
        return NULL;
    }
    char list[64] = "";
    for (int k = 0; k < PX_PERS_COUNT; k++) {
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", k ? ", " : "",
                 pers_names[k]);
    }
    return px_help_render("help-prte.txt", "personality-unknown", nspace, bad, list);
}
