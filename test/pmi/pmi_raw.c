/* test/pmi: a client that speaks the PMI wires itself, byte by byte, on the inherited
 * PMI_FD — to say what no PMI library would (garbage, limits, keys, the pset names key)
 * and print what the server answers. Modes:
 *   psets          PMI-1: pmix.pset.nms, PMI_process_mapping, universe size, publish/
 *                  lookup/unpublish of a service per rank, barriers, finalize
 *   mapping        PMI-1: prints "mapping <PMI_process_mapping>", barrier, finalize
 *   bad            PMI-1: rank 0 sends framed bad requests first (each answered with
 *                  rc=-1 and a message, printed "reply: ..."), then every rank does a
 *                  put/barrier/get/finalize that must still work
 *   pmi2-bad       the same on PMI-2 (fullinit naming another rank, unknown command,
 *                  reserved key), then put/fence/get/finalize
 *   unframed       rank 0 sends a line longer than the limit (PMI-1); the others init and
 *                  wait in a barrier
 *   pmi2-unframed  rank 0 switches to PMI-2 and sends a length header that is no number
 *   notpmi         rank 0 sends something that is not PMI at all
 *   mixed          PMI-1 in a job with PMIx processes (pmix_peer): put "k<rank>" =
 *                  "v<rank>", barrier, get every rank's key, print "pmi rank R got N of N"
 *   noinit-exit    init, then exit 0 without finalize
 *   env            print PMI_FD/PMI_RANK/PMI_SIZE or "no PMI_FD", and PMI_PORT/PMI_ID
 *                  when set
 *   port           (PX_PMI=port) connect to PMI_PORT, initack with PMI_ID, check the
 *                  size and rank it answers ("port rank R size N"), then put/barrier/
 *                  get/finalize as "bad" does
 *   port-bad       as port, but rank 0 first makes connections the server must refuse
 *                  and close: one whose first line is not initack, one naming a wrong
 *                  PMI_ID; then, once its own initack succeeded, one naming its own
 *                  PMI_ID again (used once); each prints "reply: ..." and "closed by the
 *                  server"
 *   spawn          PMI-1: rank 0 spawns, in two mcmd=spawn blocks, 2 x "pmi_raw child"
 *                  (arguments "a" and "two words", info wdir=/) and 1 x "pmi_raw child"
 *                  ("b"), with the preput keys PARENT_KEY=from-<kvs> and OTHER=x, prints
 *                  "parent 0 spawned", then waits (bounded) until each child published
 *                  child-done-<rank>, publishes "release" and waits until the children's
 *                  job ended (their names withdrawn); barrier, finalize
 *   child          (spawned) prints "child R of N spawned=S appnum=A args=... cwd=D",
 *                  "child R preput PARENT_KEY=..." and OTHER=..., exchanges keys with its
 *                  siblings, publishes child-done-R, waits for "release", finalize
 *   spawn-bad      PMI-1: rank 0 sends spawn requests the server must refuse (rc=-1,
 *                  "reply: ..."): an info key it cannot honour, a preput key starting with
 *                  pmix., nprocs 0, a second block out of order
 *   pmi2-spawn     PMI-2: rank 0 spawns 2 x "pmi_raw child2" with the preput key
 *                  PARENT_KEY=v;semi (a ';' the wire doubles), prints "spawned jobid J",
 *                  waits for child2-done-<rank>, "release2", as spawn; fence, finalize
 *   child2         (spawned, PMI-2) prints "child2 R spawner=J" (fullinit's spawner-jobid)
 *                  and "child2 R preput PARENT_KEY=...", publishes child2-done-R, waits
 *                  for "release2", finalize
 * For the three unframed modes rank 0 prints the answer and "closed by the server" when
 * the server closes the connection, and exits 3. Any failed check prints "FAIL ..." and
 * makes the exit code 2.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int fd = -1, rank, size, wire = 1, bad, quiet;
static char kvs[300];

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    exit(2);
}

static void say(const char *s, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, s, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            die("write: %s", strerror(errno));
        }
        s += n;
        len -= (size_t)n;
    }
}

/* PMI-1: a line with its newline; PMI-2: "cmd=...;" with its length header. */
static void send_cmd(const char *fmt, ...)
{
    char body[70000];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(body, sizeof(body), fmt, ap);
    va_end(ap);
    if (wire == 1) {
        say(body, (size_t)n);
        say("\n", 1);
    } else {
        char hdr[8];
        snprintf(hdr, sizeof(hdr), "%-6d", n);
        say(hdr, 6);
        say(body, (size_t)n);
    }
}

/* Exactly len bytes, or 0 at end of file. */
static int hear_bytes(char *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, buf + got, len - got);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return 0;
        }
        got += (size_t)n;
    }
    return 1;
}

/* The next answer (its text, static), or NULL at end of file. */
static char *hear(void)
{
    static char line[70000];
    if (wire == 2) {
        char hdr[7] = {0};
        if (!hear_bytes(hdr, 6)) {
            return NULL;
        }
        int n = atoi(hdr);
        if (n <= 0 || n >= (int)sizeof(line) || !hear_bytes(line, (size_t)n)) {
            return NULL;
        }
        line[n] = '\0';
        return line;
    }
    size_t len = 0;
    while (len + 1 < sizeof(line)) {
        if (!hear_bytes(line + len, 1)) {
            return NULL;
        }
        if (line[len] == '\n') {
            break;
        }
        len++;
    }
    line[len] = '\0';
    return line;
}

/* The value of key in an answer (static copy), or NULL. */
static const char *val(const char *msg, const char *key)
{
    static char v[4096];
    char sep = wire == 1 ? ' ' : ';';
    size_t kl = strlen(key);
    for (const char *p = msg; *p != '\0';) {
        if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
            const char *s = p + kl + 1;
            size_t n = 0;
            size_t at = 0;
            while (s[at] != '\0' && n + 1 < sizeof(v)) {
                if (s[at] == sep && !(wire == 2 && s[at + 1] == sep)) {
                    break;
                }
                at += s[at] == sep ? 2 : 1; /* PMI-2: ";;" is one ';' of the value */
                v[n++] = s[at - 1];
            }
            v[n] = '\0';
            return v;
        }
        const char *next = strchr(p, sep);
        if (next == NULL) {
            break;
        }
        p = next + 1;
    }
    return NULL;
}

/* Send, hear, check the command of the answer and its rc; returns the answer. */
static char *ask(const char *expect_cmd, int expect_ok, const char *fmt, ...)
{
    char body[70000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof(body), fmt, ap);
    va_end(ap);
    send_cmd("%s", body);
    char *a = hear();
    if (a == NULL) {
        die("no answer to \"%s\" (connection closed)", body);
    }
    const char *cmd = val(a, "cmd");
    if (cmd == NULL || strcmp(cmd, expect_cmd) != 0) {
        die("answer to \"%s\" is \"%s\", expected cmd=%s", body, a, expect_cmd);
    }
    const char *rc = val(a, "rc");
    int ok = rc != NULL && strcmp(rc, "0") == 0;
    if (expect_ok >= 0 && ok != expect_ok) {
        printf("FAIL \"%s\" answered \"%s\"\n", body, a);
        bad = 1;
    }
    if (!ok && !quiet) {
        printf("reply: %s\n", a);
    }
    return a;
}

static void init1(void)
{
    ask("response_to_init", 1, "cmd=init pmi_version=1 pmi_subversion=1");
    strcpy(kvs, val(ask("my_kvsname", 1, "cmd=get_my_kvsname"), "kvsname"));
}

/* put own key, barrier, get the next rank's key, finalize */
static void exchange(void)
{
    int next = (rank + 1) % size;
    char want[64];
    snprintf(want, sizeof(want), "v%d", next);
    const char *got;
    if (wire == 1) {
        ask("put_result", 1, "cmd=put kvsname=%s key=k%d value=v%d", kvs, rank, rank);
        ask("barrier_out", 1, "cmd=barrier_in");
        got = val(ask("get_result", 1, "cmd=get kvsname=%s key=k%d", kvs, next), "value");
    } else {
        ask("kvs-put-response", 1, "cmd=kvs-put;key=k%d;value=v%d;", rank, rank);
        ask("kvs-fence-response", 1, "cmd=kvs-fence;");
        got = val(ask("kvs-get-response", 1, "cmd=kvs-get;jobid=%s;srcid=-1;key=k%d;", kvs, next),
                  "value");
    }
    if (got == NULL || strcmp(got, want) != 0) {
        printf("FAIL rank %d got \"%s\" for k%d\n", rank, got ? got : "(none)", next);
        bad = 1;
    }
    if (wire == 1) {
        ask("finalize_ack", -1, "cmd=finalize");
    } else {
        ask("finalize-response", 1, "cmd=finalize;");
    }
}

/* rank 0 of the unframed modes: the answer, then the server closes. */
static int after_garbage(void)
{
    char *a = hear();
    printf("reply: %s\n", a ? a : "(none)");
    printf("%s\n", a != NULL && hear() == NULL ? "closed by the server" : "FAIL still open");
    fflush(stdout);
    return 3;
}

/* This program's path, for spawning copies of itself. */
static const char *self_exe(void)
{
    static char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    if (n <= 0) {
        die("readlink /proc/self/exe: %s", strerror(errno));
    }
    path[n] = '\0';
    return path;
}

/* Until each of n services "<prefix><i>" (n < 0: the service "<prefix>") is published, or
 * with gone set is no longer (PMI-1 lookup_name, or PMI-2 name-lookup): poll every 20 ms,
 * at most 60 s each. */
static void wait_published(const char *prefix, int n, int gone)
{
    for (int i = 0; i < (n < 0 ? 1 : n); i++) {
        char name[128];
        if (n < 0) {
            snprintf(name, sizeof(name), "%s", prefix);
        } else {
            snprintf(name, sizeof(name), "%s%d", prefix, i);
        }
        int want = !gone, found = gone;
        quiet = 1;
        for (int t = 0; t < 3000; t++) {
            char *a = wire == 1 ? ask("lookup_result", -1, "cmd=lookup_name service=%s", name)
                                : ask("name-lookup-response", -1, "cmd=name-lookup;name=%s;", name);
            const char *rc = val(a, "rc");
            found = rc != NULL && strcmp(rc, "0") == 0;
            if (found == want) {
                break;
            }
            usleep(20000);
        }
        quiet = 0;
        if (found != want) {
            die("%s was never %s", name, gone ? "withdrawn" : "published");
        }
    }
}

/* The parent's side of a spawn test: until each of n children published "<done><rank>",
 * then publish release (they wait for it) and wait until their names are withdrawn —
 * their job ended (this job's end would kill them first). */
static void release_children(const char *done, int n, const char *release)
{
    wait_published(done, n, 0);
    if (wire == 1) {
        ask("publish_result", 1, "cmd=publish_name service=%s port=yes", release);
    } else {
        ask("name-publish-response", 1, "cmd=name-publish;name=%s;port=yes;", release);
    }
    wait_published(done, n, 1);
}

/* A new TCP connection to PMI_PORT ("a.b.c.d:port"). */
static int port_connect(void)
{
    const char *p = getenv("PMI_PORT");
    const char *colon = p ? strrchr(p, ':') : NULL;
    if (colon == NULL) {
        die("PMI_PORT must be set as host:port");
    }
    char host[64];
    snprintf(host, sizeof(host), "%.*s", (int)(colon - p), p);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(colon + 1))};
    int s = socket(AF_INET, SOCK_STREAM, 0);
    if (s < 0 || inet_pton(AF_INET, host, &sa.sin_addr) != 1 ||
        connect(s, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        die("cannot connect to PMI_PORT %s: %s", p, strerror(errno));
    }
    return s;
}

/* initack on the current connection with id; the answer's four lines checked. */
static void initack(const char *id)
{
    ask("initack", 1, "cmd=initack pmiid=%s", id);
    const char *want[] = {"size", "rank", "debug"};
    int got[3] = {-1, -1, -1};
    for (int i = 0; i < 3; i++) {
        char *a = hear();
        const char *c = a ? val(a, "cmd") : NULL;
        if (c == NULL || strcmp(c, "set") != 0 || val(a, want[i]) == NULL) {
            die("initack answer line %d is \"%s\", expected cmd=set %s=", i + 2, a ? a : "(none)",
                want[i]);
        }
        got[i] = atoi(val(a, want[i]));
    }
    rank = got[1];
    size = got[0];
    printf("port rank %d size %d debug %d\n", rank, size, got[2]);
}

/* A connection that the server must answer rc=-1 and close after the line fmt. */
static void refused_conn(const char *fmt, const char *arg)
{
    int keep = fd;
    fd = port_connect();
    send_cmd(fmt, arg);
    char *a = hear();
    printf("reply: %s\n", a ? a : "(none)");
    printf("%s\n", a != NULL && hear() == NULL ? "closed by the server" : "FAIL still open");
    close(fd);
    fd = keep;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "env";
    const char *f = getenv("PMI_FD"), *r = getenv("PMI_RANK"), *s = getenv("PMI_SIZE");
    if (strcmp(mode, "env") == 0) {
        if (f == NULL) {
            printf("no PMI_FD\n");
        } else {
            printf("PMI_FD=%s PMI_RANK=%s PMI_SIZE=%s\n", f, r ? r : "", s ? s : "");
        }
        if (getenv("PMI_PORT") != NULL) {
            printf("PMI_PORT=%s PMI_ID=%s\n", getenv("PMI_PORT"),
                   getenv("PMI_ID") ? getenv("PMI_ID") : "");
        }
        return 0;
    }
    if (strcmp(mode, "port") == 0 || strcmp(mode, "port-bad") == 0) {
        const char *id = getenv("PMI_ID");
        setvbuf(stdout, NULL, _IOLBF, 0);
        if (f != NULL || id == NULL) {
            die("PMI_PORT and PMI_ID, not PMI_FD, must be set (PX_PMI=port)");
        }
        int me = r ? atoi(r) : -1;
        if (strcmp(mode, "port-bad") == 0 && me == 0) {
            refused_conn("cmd=init pmi_version=1 pmi_subversion=1%s", "");
            refused_conn("cmd=initack pmiid=%s", strcmp(id, "12345") ? "12345" : "54321");
        }
        fd = port_connect();
        initack(id);
        if (rank != me) {
            printf("FAIL initack said rank %d, PMI_RANK is %d\n", rank, me);
            bad = 1;
        }
        if (strcmp(mode, "port-bad") == 0 && rank == 0) {
            refused_conn("cmd=initack pmiid=%s", id); /* used once */
        }
        init1();
        exchange();
        printf("rank %d %s done\n", rank, mode);
        fflush(stdout);
        return bad ? 2 : 0;
    }
    if (f == NULL || r == NULL || s == NULL) {
        die("PMI_FD, PMI_RANK and PMI_SIZE must be set");
    }
    fd = atoi(f);
    rank = atoi(r);
    size = atoi(s);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(mode, "psets") == 0) {
        init1();
        const char *ps =
            val(ask("get_result", -1, "cmd=get kvsname=%s key=pmix.pset.nms", kvs), "value");
        printf("psets %s\n", ps ? ps : "(none)");
        printf(
            "mapping %s\n",
            val(ask("get_result", 1, "cmd=get kvsname=%s key=PMI_process_mapping", kvs), "value"));
        printf("universe %s\n", val(ask("universe_size", 1, "cmd=get_universe_size"), "size"));
        printf("maxes %s\n", val(ask("maxes", 1, "cmd=get_maxes"), "vallen_max"));
        ask("publish_result", 1, "cmd=publish_name service=svc-%d port=port-%d", rank, rank);
        ask("barrier_out", 1, "cmd=barrier_in");
        printf("lookup %s\n",
               val(ask("lookup_result", 1, "cmd=lookup_name service=svc-%d", (rank + 1) % size),
                   "port"));
        ask("barrier_out", 1, "cmd=barrier_in");
        ask("unpublish_result", 1, "cmd=unpublish_name service=svc-%d", rank);
        ask("lookup_result", 0, "cmd=lookup_name service=svc-%d", rank);
        ask("finalize_ack", -1, "cmd=finalize");
    } else if (strcmp(mode, "mapping") == 0) {
        init1();
        printf(
            "mapping %s\n",
            val(ask("get_result", 1, "cmd=get kvsname=%s key=PMI_process_mapping", kvs), "value"));
        ask("barrier_out", 1, "cmd=barrier_in");
        ask("finalize_ack", 1, "cmd=finalize");
    } else if (strcmp(mode, "bad") == 0) {
        if (rank == 0) {
            ask("maxes", 0, "cmd=get_maxes");
        }
        init1();
        if (rank == 0) {
            char longkey[80];
            memset(longkey, 'k', 65);
            longkey[65] = '\0';
            ask("error", 0, "cmd=frobnicate");
            ask("error", 0, "put key=a value=b");
            ask("error", 0, "cmd=put kvsname=%s ke(y=a value=b", kvs);
            ask("put_result", 0, "cmd=put kvsname=%s key=pmix.mine value=1", kvs);
            ask("put_result", 0, "cmd=put kvsname=not-my-job key=a value=1");
            ask("put_result", 0, "cmd=put kvsname=%s key=%s value=1", kvs, longkey);
            ask("put_result", 0, "cmd=put kvsname=%s key=a", kvs);
            ask("get_result", 0, "cmd=get kvsname=%s key=nobody-put-this", kvs);
            ask("get_result", 0, "cmd=get kvsname=no-such-job key=a");
            ask("response_to_init", 0, "cmd=init pmi_version=1 pmi_subversion=1");
            ask("response_to_init", 0, "cmd=init pmi_version=3 pmi_subversion=0");
            ask("spawn_result", 0, "mcmd=spawn\nnprocs=1\nexecname=/bin/true\nendcmd");
            ask("initack", 0, "cmd=initack pmiid=1"); /* not a PMI_PORT connection */
        }
        exchange();
        printf("rank %d bad done\n", rank);
    } else if (strcmp(mode, "spawn") == 0) {
        init1();
        if (rank == 0) {
            const char *me = self_exe();
            char pre[400];
            snprintf(pre, sizeof(pre),
                     "preput_num=2\npreput_key_0=PARENT_KEY\npreput_val_0=from-%s\n"
                     "preput_key_1=OTHER\npreput_val_1=x",
                     kvs);
            send_cmd("mcmd=spawn\nnprocs=2\nexecname=%s\ntotspawns=2\nspawnssofar=1\nargcnt=3\n"
                     "arg1=child\narg2=a\narg3=two "
                     "words\n%s\ninfo_num=1\ninfo_key_0=wdir\ninfo_val_0=/\n"
                     "endcmd",
                     me, pre);
            ask("spawn_result", 1,
                "mcmd=spawn\nnprocs=1\nexecname=%s\ntotspawns=2\nspawnssofar=2\nargcnt=2\n"
                "arg1=child\narg2=b\n%s\ninfo_num=0\nendcmd",
                me, pre);
            printf("parent 0 spawned\n");
            release_children("child-done-", 3, "release");
        }
        ask("barrier_out", 1, "cmd=barrier_in");
        ask("finalize_ack", 1, "cmd=finalize");
    } else if (strcmp(mode, "child") == 0) {
        init1();
        char cwd[4096], args[512] = "";
        for (int i = 2; i < argc; i++) {
            snprintf(args + strlen(args), sizeof(args) - strlen(args), "%s[%s]", i > 2 ? "," : "",
                     argv[i]);
        }
        const char *sp = getenv("PMI_SPAWNED");
        printf("child %d of %d spawned=%s appnum=%s args=%s cwd=%s\n", rank, size, sp ? sp : "-",
               val(ask("appnum", 1, "cmd=get_appnum"), "appnum"), args,
               getcwd(cwd, sizeof(cwd)) ? cwd : "?");
        const char *keys[] = {"PARENT_KEY", "OTHER"};
        for (int i = 0; i < 2; i++) {
            const char *v =
                val(ask("get_result", 1, "cmd=get kvsname=%s key=%s", kvs, keys[i]), "value");
            printf("child %d preput %s=%s\n", rank, keys[i], v ? v : "(none)");
        }
        ask("put_result", 1, "cmd=put kvsname=%s key=k%d value=v%d", kvs, rank, rank);
        ask("barrier_out", 1, "cmd=barrier_in");
        const char *got = val(
            ask("get_result", 1, "cmd=get kvsname=%s key=k%d", kvs, (rank + 1) % size), "value");
        printf("child %d got %s\n", rank, got ? got : "(none)");
        ask("publish_result", 1, "cmd=publish_name service=child-done-%d port=yes", rank);
        wait_published("release", -1, 0);
        ask("finalize_ack", 1, "cmd=finalize");
    } else if (strcmp(mode, "spawn-bad") == 0) {
        init1();
        if (rank == 0) {
            ask("spawn_result", 0,
                "mcmd=spawn\nnprocs=1\nexecname=/bin/true\ntotspawns=1\nspawnssofar=1\n"
                "info_num=1\ninfo_key_0=host\ninfo_val_0=elsewhere\nendcmd");
            ask("spawn_result", 0,
                "mcmd=spawn\nnprocs=1\nexecname=/bin/true\ntotspawns=1\nspawnssofar=1\n"
                "preput_num=1\npreput_key_0=pmix.mine\npreput_val_0=1\nendcmd");
            ask("spawn_result", 0,
                "mcmd=spawn\nnprocs=0\nexecname=/bin/true\ntotspawns=1\nspawnssofar=1\nendcmd");
            ask("spawn_result", 0,
                "mcmd=spawn\nnprocs=1\nexecname=/bin/true\ntotspawns=2\nspawnssofar=2\nendcmd");
            ask("spawn_result", 0,
                "mcmd=spawn\nnprocs=1\nexecname=/bin/true\nargcnt=2\n"
                "arg1=x\ntotspawns=1\nspawnssofar=1\nendcmd");
        }
        exchange();
        printf("rank %d spawn-bad done\n", rank);
    } else if (strcmp(mode, "pmi2-spawn") == 0 || strcmp(mode, "child2") == 0) {
        ask("response_to_init", 1, "cmd=init pmi_version=2 pmi_subversion=0");
        wire = 2;
        char *a = ask("fullinit-response", 1, "cmd=fullinit;pmirank=%d;threaded=FALSE;", rank);
        const char *spawner = val(a, "spawner-jobid");
        char sp[300];
        snprintf(sp, sizeof(sp), "%s", spawner ? spawner : "(none)");
        strcpy(kvs, val(ask("job-getid-response", 1, "cmd=job-getid;"), "jobid"));
        if (strcmp(mode, "child2") == 0) {
            printf("child2 %d spawner=%s\n", rank, sp);
            const char *v = val(
                ask("kvs-get-response", 1, "cmd=kvs-get;jobid=%s;srcid=-1;key=PARENT_KEY;", kvs),
                "value");
            printf("child2 %d preput PARENT_KEY=%s\n", rank, v ? v : "(none)");
            ask("name-publish-response", 1, "cmd=name-publish;name=child2-done-%d;port=yes;", rank);
            wait_published("release2", -1, 0);
        } else {
            printf("parent2 %d spawner=%s\n", rank, sp);
            if (rank == 0) {
                char *r = ask("spawn-response", 1,
                              "cmd=spawn;ncmds=1;preputcount=1;ppkey0=PARENT_KEY;ppval0=v;;semi;"
                              "subcmd=%s;maxprocs=2;argc=1;argv0=child2;infokeycount=0;",
                              self_exe());
                const char *j = val(r, "jobid");
                printf("spawned jobid %s\n", j ? j : "(none)");
                release_children("child2-done-", 2, "release2");
            }
            ask("kvs-fence-response", 1, "cmd=kvs-fence;");
        }
        ask("finalize-response", 1, "cmd=finalize;");
    } else if (strcmp(mode, "pmi2-bad") == 0) {
        ask("response_to_init", 1, "cmd=init pmi_version=2 pmi_subversion=0");
        wire = 2;
        if (rank == 0) {
            ask("fullinit-response", 0, "cmd=fullinit;pmirank=%d;threaded=FALSE;", rank + 1);
            ask("kvs-put-response", 0, "cmd=kvs-put;key=a;value=b;");
        }
        ask("fullinit-response", 1, "cmd=fullinit;pmirank=%d;threaded=FALSE;", rank);
        strcpy(kvs, val(ask("job-getid-response", 1, "cmd=job-getid;thrid=7;"), "jobid"));
        if (rank == 0) {
            char *a = ask("error", 0, "cmd=frobnicate;thrid=0x1234;");
            const char *t = val(a, "thrid");
            if (t == NULL || strcmp(t, "0x1234") != 0) {
                printf("FAIL thrid not echoed: %s\n", a);
                bad = 1;
            }
            ask("kvs-put-response", 0, "cmd=kvs-put;key=pmix.mine;value=1;");
            ask("spawn-response", 0, "cmd=spawn;ncmds=1;subcmd=/bin/true;maxprocs=0;argc=0;");
            ask("job-connect-response", 0, "cmd=job-connect;jobid=x;");
            ask("info-getjobattr-response", 1, "cmd=info-getjobattr;key=no-such-attr;");
        }
        exchange();
        printf("rank %d pmi2-bad done\n", rank);
    } else if (strcmp(mode, "unframed") == 0 || strcmp(mode, "pmi2-unframed") == 0 ||
               strcmp(mode, "notpmi") == 0) {
        if (rank != 0) {
            init1();
            ask("barrier_out", 1, "cmd=barrier_in"); /* rank 0 never comes */
            die("rank %d passed a barrier rank 0 never entered", rank);
        }
        if (strcmp(mode, "unframed") == 0) {
            static char big[5000];
            memset(big, 'x', sizeof(big));
            memcpy(big, "cmd=put key=", 12);
            say(big, sizeof(big));
        } else if (strcmp(mode, "pmi2-unframed") == 0) {
            ask("response_to_init", 1, "cmd=init pmi_version=2 pmi_subversion=0");
            wire = 2;
            say("abcdefcmd=kvs-fence;", 20);
        } else {
            say("GET / HTTP/1.0\r\n\r\n", 18);
        }
        return after_garbage();
    } else if (strcmp(mode, "mixed") == 0) {
        init1();
        ask("put_result", 1, "cmd=put kvsname=%s key=k%d value=v%d", kvs, rank, rank);
        ask("barrier_out", 1, "cmd=barrier_in");
        int got = 0;
        for (int q = 0; q < size; q++) {
            char want[32];
            snprintf(want, sizeof(want), "v%d", q);
            const char *v =
                val(ask("get_result", 1, "cmd=get kvsname=%s key=k%d", kvs, q), "value");
            got += v != NULL && strcmp(v, want) == 0;
        }
        printf("pmi rank %d got %d of %d\n", rank, got, size);
        bad = bad || got != size;
        ask("finalize_ack", -1, "cmd=finalize");
    } else if (strcmp(mode, "noinit-exit") == 0) {
        init1();
        printf("rank %d leaves without finalize\n", rank);
        return 0;
    } else {
        die("unknown mode %s", mode);
    }
    fflush(stdout);
    return bad ? 2 : 0;
}
