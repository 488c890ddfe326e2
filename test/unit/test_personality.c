/* unit tests of daemon/personality.c: the ELF DT_NEEDED reader on a small ELF image
 * written here (its needed libraries found; every truncation and corrupted field refused
 * or read as "not needed", never a crash), on a script and on this test's own binary;
 * personality names; the environment a process of each personality gets; refusals. */
#include <criterion/criterion.h>

#include <elf.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix.h>

#include "daemon/px_libdir.h"
#include "daemon/px_personality.h"
#include "util/px_argv.h"

/* ---- a minimal ELF64 executable image: one PT_LOAD mapping the whole file at
 * 0x400000, a PT_DYNAMIC with DT_NEEDED of each name, DT_STRTAB, DT_STRSZ, DT_NULL ---- */

#define BASE    0x400000u
#define STR_OFF 256u
#define DYN_OFF 512u

typedef struct {
    unsigned char bytes[1024];
    size_t len;
    Elf64_Ehdr *eh;
    Elf64_Phdr *load, *dynp;
    Elf64_Dyn *dyn; /* ndyn entries, the last DT_NULL */
    size_t ndyn;
} image_t;

static void make_image(image_t *im, const char *const *needed, size_t n, bool dynamic)
{
    memset(im, 0, sizeof(*im));
    im->eh = (Elf64_Ehdr *)im->bytes;
    memcpy(im->eh->e_ident, ELFMAG, SELFMAG);
    im->eh->e_ident[EI_CLASS] = ELFCLASS64;
    im->eh->e_ident[EI_DATA] = ELFDATA2LSB;
    im->eh->e_ident[EI_VERSION] = EV_CURRENT;
    im->eh->e_type = ET_EXEC;
    im->eh->e_machine = EM_X86_64;
    im->eh->e_version = EV_CURRENT;
    im->eh->e_phoff = sizeof(Elf64_Ehdr);
    im->eh->e_ehsize = sizeof(Elf64_Ehdr);
    im->eh->e_phentsize = sizeof(Elf64_Phdr);
    im->eh->e_phnum = dynamic ? 2 : 1;
    im->load = (Elf64_Phdr *)(im->bytes + sizeof(Elf64_Ehdr));
    im->dynp = im->load + 1;
    char *str = (char *)im->bytes + STR_OFF;
    size_t strlen_used = 1; /* offset 0: the empty name */
    im->dyn = (Elf64_Dyn *)(im->bytes + DYN_OFF);
    for (size_t i = 0; i < n; i++) {
        im->dyn[im->ndyn].d_tag = DT_NEEDED;
        im->dyn[im->ndyn++].d_un.d_val = strlen_used;
        strcpy(str + strlen_used, needed[i]);
        strlen_used += strlen(needed[i]) + 1;
    }
    im->dyn[im->ndyn].d_tag = DT_STRTAB;
    im->dyn[im->ndyn++].d_un.d_ptr = BASE + STR_OFF;
    im->dyn[im->ndyn].d_tag = DT_STRSZ;
    im->dyn[im->ndyn++].d_un.d_val = strlen_used;
    im->dyn[im->ndyn++].d_tag = DT_NULL;
    im->len = DYN_OFF + im->ndyn * sizeof(Elf64_Dyn);
    *im->load = (Elf64_Phdr){.p_type = PT_LOAD,
                             .p_flags = PF_R | PF_X,
                             .p_offset = 0,
                             .p_vaddr = BASE,
                             .p_paddr = BASE,
                             .p_filesz = im->len,
                             .p_memsz = im->len,
                             .p_align = 0x1000};
    if (dynamic) {
        *im->dynp = (Elf64_Phdr){.p_type = PT_DYNAMIC,
                                 .p_flags = PF_R,
                                 .p_offset = DYN_OFF,
                                 .p_vaddr = BASE + DYN_OFF,
                                 .p_filesz = im->ndyn * sizeof(Elf64_Dyn),
                                 .p_memsz = im->ndyn * sizeof(Elf64_Dyn),
                                 .p_align = 8};
    }
}

static char dir[] = "/tmp/px_pers.XXXXXX";

static void setup(void)
{
    cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "%s", dir);
    /* the files this suite writes */
    const char *names[] = {"elf", "script", "plain", "bin/ompi_app", "bin"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char p[256];
        snprintf(p, sizeof(p), "%s/%s", cmd, names[i]);
        if (unlink(p) != 0) {
            rmdir(p);
        }
    }
    rmdir(dir);
}

static const char *write_file(const char *name, const void *data, size_t len, mode_t mode)
{
    static char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(data, 1, len, f), len);
    fclose(f);
    chmod(path, mode);
    return path;
}

static const char *const ompi_libs[] = {"libc.so.6", "libmpi.so.40"};

TestSuite(personality, .init = setup, .fini = teardown);

Test(personality, elf_needed_found)
{
    image_t im;
    make_image(&im, ompi_libs, 2, true);
    const char *p = write_file("elf", im.bytes, im.len, 0755);
    cr_assert_eq(px_elf_needs(p, "libmpi.so.40"), 1);
    cr_assert_eq(px_elf_needs(p, "libc.so.6"), 1);
    cr_assert_eq(px_elf_needs(p, "libmpi.so.12"), 0);
    cr_assert_eq(px_elf_needs(p, "libmpi.so"), 0, "a prefix of a name is not the name");
    cr_assert_eq(px_personality_detect(p), PX_PERS_OMPI);
}

Test(personality, elf_fortran_bindings_only)
{
    const char *libs[] = {"libmpi_mpifh.so.40"};
    image_t im;
    make_image(&im, libs, 1, true);
    cr_assert_eq(px_personality_detect(write_file("elf", im.bytes, im.len, 0755)), PX_PERS_OMPI);
}

Test(personality, elf_static_needs_nothing)
{
    image_t im;
    make_image(&im, ompi_libs, 2, false);
    const char *p = write_file("elf", im.bytes, im.len, 0755);
    cr_assert_eq(px_elf_needs(p, "libmpi.so.40"), 0);
    cr_assert_eq(px_personality_detect(p), PX_PERS_NONE);
}

Test(personality, not_elf)
{
    const char script[] = "#!/bin/sh\nexec ./hello\n";
    const char *p = write_file("script", script, sizeof(script) - 1, 0755);
    errno = 0;
    cr_assert_eq(px_elf_needs(p, "libmpi.so.40"), -1);
    cr_assert_eq(errno, ENOEXEC);
    cr_assert_eq(px_personality_detect(p), PX_PERS_NONE);
    errno = 0;
    cr_assert_eq(px_elf_needs("/nonexistent/px_pers", "libmpi.so.40"), -1);
    cr_assert_eq(errno, ENOENT);
    cr_assert_eq(px_elf_needs(dir, "libmpi.so.40"), -1, "a directory is not an executable");
    image_t im;
    make_image(&im, ompi_libs, 2, true);
    im.eh->e_ident[EI_CLASS] = ELFCLASS32;
    p = write_file("elf", im.bytes, im.len, 0755);
    errno = 0;
    cr_assert_eq(px_elf_needs(p, "libmpi.so.40"), -1);
    cr_assert_eq(errno, ENOEXEC, "another class is not ours to run");
}

Test(personality, own_binary)
{
    cr_assert_eq(px_elf_needs("/proc/self/exe", "libc.so.6"), 1);
    cr_assert_eq(px_elf_needs("/proc/self/exe", "libmpi.so.40"), 0);
    cr_assert_eq(px_personality_detect("/proc/self/exe"), PX_PERS_NONE);
}

/* Every prefix of the file: refused or "not needed", never found, never a crash. */
Test(personality, elf_truncated)
{
    image_t im;
    make_image(&im, ompi_libs, 2, true);
    for (size_t len = 0; len < im.len; len++) {
        const char *p = write_file("elf", im.bytes, len, 0755);
        cr_assert_neq(px_elf_needs(p, "libmpi.so.40"), 1, "found in %zu of %zu bytes", len, im.len);
    }
}

Test(personality, elf_corrupted)
{
    image_t im;
    const char *p;

    make_image(&im, ompi_libs, 2, true);
    im.eh->e_phnum = 60000;
    p = write_file("elf", im.bytes, im.len, 0755);
    cr_assert_eq(px_elf_needs(p, "libmpi.so.40"), -1, "program header count beyond the bound");

    make_image(&im, ompi_libs, 2, true);
    im.eh->e_phoff = 1u << 30;
    p = write_file("elf", im.bytes, im.len, 0755);
    cr_assert_eq(px_elf_needs(p, "libmpi.so.40"), -1, "program headers past the end");

    make_image(&im, ompi_libs, 2, true);
    im.eh->e_phentsize = 32;
    p = write_file("elf", im.bytes, im.len, 0755);
    cr_assert_eq(px_elf_needs(p, "libmpi.so.40"), -1, "program header size");

    make_image(&im, ompi_libs, 2, true);
    im.dynp->p_offset = (uint64_t)-8;
    p = write_file("elf", im.bytes, im.len, 0755);
    cr_assert_eq(px_elf_needs(p, "libmpi.so.40"), -1, "dynamic section offset wraps");

    make_image(&im, ompi_libs, 2, true);
    im.dyn[im.ndyn - 2].d_un.d_val = 1u << 30; /* DT_STRSZ */
    p = write_file("elf", im.bytes, im.len, 0755);
    cr_assert_eq(px_elf_needs(p, "libmpi.so.40"), -1, "string table beyond the bound");

    make_image(&im, ompi_libs, 2, true);
    im.dyn[im.ndyn - 2].d_un.d_val = im.len; /* DT_STRSZ past the load segment */
    p = write_file("elf", im.bytes, im.len, 0755);
    cr_assert_eq(px_elf_needs(p, "libmpi.so.40"), -1, "string table past the segment");

    make_image(&im, ompi_libs, 2, true);
    im.dyn[im.ndyn - 3].d_un.d_ptr = 0x10; /* DT_STRTAB mapped by no segment */
    p = write_file("elf", im.bytes, im.len, 0755);
    cr_assert_eq(px_elf_needs(p, "libmpi.so.40"), -1, "string table address unmapped");

    make_image(&im, ompi_libs, 2, true);
    im.dyn[im.ndyn - 2].d_tag = DT_NULL; /* no DT_STRSZ */
    p = write_file("elf", im.bytes, im.len, 0755);
    cr_assert_eq(px_elf_needs(p, "libmpi.so.40"), -1, "no string table size");

    make_image(&im, ompi_libs, 2, true);
    im.dyn[1].d_un.d_val = 4096; /* the libmpi DT_NEEDED points past the table */
    p = write_file("elf", im.bytes, im.len, 0755);
    cr_assert_eq(px_elf_needs(p, "libmpi.so.40"), 0, "a name outside the table is skipped");
    cr_assert_eq(px_elf_needs(p, "libc.so.6"), 1);

    make_image(&im, ompi_libs, 2, true);
    im.dyn[im.ndyn - 2].d_un.d_val = 15; /* cuts "libmpi.so.40" to "libm" */
    p = write_file("elf", im.bytes, im.len, 0755);
    cr_assert_eq(px_elf_needs(p, "libmpi.so.40"), 0, "a name cut by the table's end");

    make_image(&im, ompi_libs, 2, true);
    im.dynp->p_filesz = 3; /* smaller than one entry: nothing read, no string table */
    p = write_file("elf", im.bytes, im.len, 0755);
    cr_assert_eq(px_elf_needs(p, "libmpi.so.40"), -1);
}

Test(personality, names)
{
    px_personality_t p = PX_PERS_COUNT;
    cr_assert_eq(px_personality_parse("ompi", &p), 0);
    cr_assert_eq(p, PX_PERS_OMPI);
    cr_assert_eq(px_personality_parse("prte", &p), 0);
    cr_assert_eq(p, PX_PERS_NONE);
    cr_assert_eq(px_personality_parse("OMPI", &p), -1);
    cr_assert_eq(px_personality_parse("", &p), -1);
    cr_assert_eq(px_personality_parse(NULL, &p), -1);
    cr_assert_str_eq(px_personality_name(PX_PERS_OMPI), "ompi");
    cr_assert_str_eq(px_personality_name(PX_PERS_NONE), "prte");
}

/* ---- the environment of a process ---- */

typedef struct {
    px_dp_launch_t l;
    px_dp_lnode_t nodes[2];
    px_dp_lproc_t procs[5];
    pmix_app_t app;
    pmix_info_t jinfo;
} launch_t;

/* 5 ranks: 0-2 on node 0, 3-4 on node 1; one app running cmd from dir. */
static void make_launch(launch_t *t, const char *cmd, const char *job_pers, const char *app_pers)
{
    memset(t, 0, sizeof(*t));
    PMIX_LOAD_NSPACE(t->l.nspace, "pers@1");
    t->nodes[0] = (px_dp_lnode_t){.name = "n0", .daemon = 0};
    t->nodes[1] = (px_dp_lnode_t){.name = "n1", .daemon = 1};
    for (uint16_t r = 0; r < 5; r++) {
        t->procs[r] = (px_dp_lproc_t){.node = r < 3 ? 0 : 1,
                                      .local_rank = r < 3 ? r : (uint16_t)(r - 3),
                                      .node_rank = (uint16_t)(r < 3 ? r + 10 : r + 7),
                                      .app = 0};
    }
    t->app.cmd = strdup(cmd);
    t->app.cwd = strdup(dir);
    t->app.maxprocs = 5;
    if (app_pers != NULL) {
        PMIx_App_info_create(&t->app, 1);
        PMIx_Info_load(&t->app.info[0], PMIX_PERSONALITY, app_pers, PMIX_STRING);
    }
    if (job_pers != NULL) {
        PMIx_Info_load(&t->jinfo, PMIX_PERSONALITY, job_pers, PMIX_STRING);
        t->l.info = &t->jinfo;
        t->l.ninfo = 1;
    }
    t->l.nodes = t->nodes;
    t->l.nnodes = 2;
    t->l.procs = t->procs;
    t->l.nprocs = 5;
    t->l.apps = &t->app;
    t->l.napps = 1;
}

static void free_launch(launch_t *t)
{
    free(t->app.cmd);
    free(t->app.cwd);
    if (t->app.info != NULL) {
        PMIx_Info_free(t->app.info, t->app.ninfo);
    }
    if (t->l.ninfo) {
        PMIx_Info_destruct(&t->jinfo);
    }
}

static char **base_env(const char *path_dir)
{
    char **env = NULL;
    char path[512];
    snprintf(path, sizeof(path), "/usr/bin:%s", path_dir);
    PMIx_Setenv("PATH", path, true, &env);
    PMIx_Setenv("HOME", "/root", true, &env);
    return env;
}

/* An Open MPI executable found by name through PATH (bin/ompi_app). */
static void install_ompi_app(void)
{
    image_t im;
    char bin[256];
    snprintf(bin, sizeof(bin), "%s/bin", dir);
    cr_assert_eq(mkdir(bin, 0700), 0);
    make_image(&im, ompi_libs, 2, true);
    write_file("bin/ompi_app", im.bytes, im.len, 0755);
}

static const char *get(char **env, const char *name)
{
    return px_env_get(env, name);
}

Test(personality, ompi_env_by_detection)
{
    launch_t t;
    char bin[256];
    install_ompi_app();
    snprintf(bin, sizeof(bin), "%s/bin", dir);
    make_launch(&t, "ompi_app", NULL, NULL);
    char **env = base_env(bin);
    PMIx_Setenv("OMPI_MCA_ess", "user-choice", true, &env); /* -x OMPI_MCA_ess=... */
    PMIx_Setenv("LD_LIBRARY_PATH", "/opt/x", true, &env);
    PMIx_Setenv("OMPI_COMM_WORLD_RANK", "99", true, &env); /* stale, from outside */
    cr_assert_eq(px_personality_env(&t.l, 4, &env), 0);
    cr_assert_str_eq(get(env, "OMPI_MCA_schizo"), "ompi");
    cr_assert_str_eq(get(env, "OMPI_MCA_ess"), "user-choice", "what the user set is kept");
    cr_assert_str_eq(get(env, "OMPI_COMM_WORLD_SIZE"), "5");
    cr_assert_str_eq(get(env, "OMPI_COMM_WORLD_RANK"), "4");
    cr_assert_str_eq(get(env, "OMPI_COMM_WORLD_LOCAL_RANK"), "1");
    cr_assert_str_eq(get(env, "OMPI_COMM_WORLD_LOCAL_SIZE"), "2");
    cr_assert_str_eq(get(env, "OMPI_COMM_WORLD_NODE_RANK"), "11");
    cr_assert_str_eq(get(env, "OMPI_UNIVERSE_SIZE"), "5");
    /* this test runs from the build tree, where libpmix.so.2 is built */
    cr_assert_str_eq(px_personality_libdir(), PX_BUILD_LIBDIR);
    char want[1024];
    snprintf(want, sizeof(want), "%s:/opt/x", PX_BUILD_LIBDIR);
    cr_assert_str_eq(get(env, "LD_LIBRARY_PATH"), want);
    /* twice: the directory is not prepended again */
    cr_assert_eq(px_personality_env(&t.l, 4, &env), 0);
    cr_assert_str_eq(get(env, "LD_LIBRARY_PATH"), want);
    PMIx_Argv_free(env);

    env = base_env(bin);
    cr_assert_eq(px_personality_env(&t.l, 0, &env), 0);
    cr_assert_str_eq(get(env, "OMPI_MCA_ess"), "pmi");
    cr_assert_str_eq(get(env, "OMPI_COMM_WORLD_LOCAL_SIZE"), "3");
    /* 3 processes on node 0: oversubscribed when this process may use fewer CPUs */
    cpu_set_t cpus;
    cr_assert_eq(sched_getaffinity(0, sizeof(cpus), &cpus), 0);
    if (CPU_COUNT(&cpus) < 3)
        cr_assert_str_eq(get(env, "OMPI_MCA_mpi_oversubscribe"), "1");
    else
        cr_assert_null(get(env, "OMPI_MCA_mpi_oversubscribe"));
    cr_assert_str_eq(get(env, "LD_LIBRARY_PATH"), PX_BUILD_LIBDIR);
    PMIx_Argv_free(env);
    free_launch(&t);
}

/* The controller's view of a job: detected through the app's PATH (then ours), or named */
Test(personality, job_has)
{
    launch_t t;
    char bin[256];
    install_ompi_app();
    snprintf(bin, sizeof(bin), "%s/bin", dir);
    make_launch(&t, "ompi_app", NULL, NULL);
    cr_assert(!px_personality_job_has(&t.l, PX_PERS_OMPI), "not on our PATH, no app env");
    t.app.env = base_env(bin);
    cr_assert(px_personality_job_has(&t.l, PX_PERS_OMPI), "found through the app's PATH");
    cr_assert(!px_personality_job_has(&t.l, PX_PERS_NONE));
    PMIx_Argv_free(t.app.env);
    t.app.env = NULL;
    free_launch(&t);
    make_launch(&t, "/bin/true", "ompi", NULL);
    cr_assert(px_personality_job_has(&t.l, PX_PERS_OMPI), "named by the job");
    free_launch(&t);
    make_launch(&t, "/bin/true", NULL, "prte");
    cr_assert(!px_personality_job_has(&t.l, PX_PERS_OMPI));
    free_launch(&t);
}

Test(personality, relative_path_from_the_app_dir)
{
    launch_t t;
    install_ompi_app();
    make_launch(&t, "./bin/ompi_app", NULL, NULL);
    char **env = base_env("/nonexistent");
    cr_assert_eq(px_personality_env(&t.l, 1, &env), 0);
    cr_assert_str_eq(get(env, "OMPI_MCA_ess"), "pmi");
    PMIx_Argv_free(env);
    free_launch(&t);
}

Test(personality, plain_program_gets_nothing)
{
    launch_t t;
    make_launch(&t, "true", NULL, NULL); /* /usr/bin/true, through PATH */
    char **env = base_env(dir);
    size_t before = PMIx_Argv_count(env);
    cr_assert_eq(px_personality_env(&t.l, 0, &env), 0);
    cr_assert_eq(PMIx_Argv_count(env), before);
    cr_assert_null(get(env, "OMPI_MCA_ess"));
    PMIx_Argv_free(env);
    free_launch(&t);
}

Test(personality, asked_for_wins)
{
    launch_t t;
    install_ompi_app();
    char bin[256];
    snprintf(bin, sizeof(bin), "%s/bin", dir);

    make_launch(&t, "ompi_app", "prte", NULL); /* --personality prte: nothing */
    char **env = base_env(bin);
    cr_assert_eq(px_personality_env(&t.l, 0, &env), 0);
    cr_assert_null(get(env, "OMPI_MCA_ess"));
    PMIx_Argv_free(env);
    free_launch(&t);

    make_launch(&t, "true", "ompi", NULL); /* a wrapper: asked for by the job */
    env = base_env(bin);
    cr_assert_eq(px_personality_env(&t.l, 2, &env), 0);
    cr_assert_str_eq(get(env, "OMPI_COMM_WORLD_RANK"), "2");
    PMIx_Argv_free(env);
    free_launch(&t);

    make_launch(&t, "true", "prte", "ompi"); /* the app's own wins over the job's */
    env = base_env(bin);
    cr_assert_eq(px_personality_env(&t.l, 2, &env), 0);
    cr_assert_str_eq(get(env, "OMPI_MCA_ess"), "pmi");
    PMIx_Argv_free(env);
    free_launch(&t);

    make_launch(&t, "true", "bogus", NULL);
    env = base_env(bin);
    errno = 0;
    cr_assert_eq(px_personality_env(&t.l, 0, &env), -1);
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(px_personality_env(&t.l, 5, &env), -1, "a rank past the job");
    PMIx_Argv_free(env);
    free_launch(&t);
}

Test(personality, refusal)
{
    pmix_info_t info;
    pmix_app_t app;
    memset(&app, 0, sizeof(app));
    cr_assert_null(px_personality_refusal("pers@1", NULL, 0, &app, 1));
    PMIx_Info_load(&info, PMIX_PERSONALITY, "ompi", PMIX_STRING);
    cr_assert_null(px_personality_refusal("pers@1", &info, 1, &app, 1));
    PMIx_Info_destruct(&info);

    PMIx_Info_load(&info, PMIX_PERSONALITY, "mvapich", PMIX_STRING);
    char *msg = px_personality_refusal("pers@1", &info, 1, &app, 1);
    cr_assert_not_null(msg);
    cr_assert_not_null(strstr(msg, "pers@1"));
    cr_assert_not_null(strstr(msg, "\"mvapich\""));
    cr_assert_not_null(strstr(msg, "prte, ompi"), "%s", msg);
    free(msg);
    PMIx_Info_destruct(&info);

    PMIx_App_info_create(&app, 1);
    PMIx_Info_load(&app.info[0], PMIX_PERSONALITY, "", PMIX_STRING);
    msg = px_personality_refusal("pers@1", NULL, 0, &app, 1);
    cr_assert_not_null(msg, "an empty name is no personality");
    free(msg);
    PMIx_Info_free(app.info, app.ninfo);
}
