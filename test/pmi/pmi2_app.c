/* test/pmi: a PMI-2 program on Slurm's client library (Debian's libpmi2-0-dev), so it
 * reaches the DVM over the PMI-2 wire (PMI_FD). Modes:
 *   kvs       each rank puts "key<r>" = "v;<r>;x" (a ';' the wire escapes), fences, gets
 *             every rank's key back (by PMI2_ID_NULL and by its rank), and prints the job
 *             attributes PMI_process_mapping, universeSize and pmix.pset.nms
 *   nodeattr  rank 0 puts a node attribute after a fence; the others wait for it
 *   names     rank 0 publishes a port, fence, the others look it up; rank 0 unpublishes
 *             after a second fence and looks it up again (gone)
 *   abort     the last rank calls PMI2_Abort(1, message): Slurm's library then exits with
 *             1 (the wire carries no exit code)
 *   spawn     rank 0 spawns 2 x "pmi2_app child" with PMI2_Job_Spawn and the preput key
 *             PARENT_KEY=from-<jobid>, prints "spawned <jobid>", waits (bounded) until
 *             each child published done-<its jobid>-<rank>, publishes release-<child
 *             jobid>, waits until the children's job ended (their names withdrawn)
 *   child     (spawned) prints "child R preput PARENT_KEY=...", publishes
 *             done-<jobid>-<rank>, waits for release-<jobid>
 * Every check that fails prints "FAIL ..." and makes the exit code 2.
 */
#include <slurm/pmi2.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int bad;

static void check(int cond, const char *what, int rc)
{
    if (!cond) {
        printf("FAIL %s (rc %d)\n", what, rc);
        bad = 1;
    }
}

/* Until service is published (gone 0) or no longer is (gone 1): every 20 ms, 60 s at most. */
static void wait_name(const char *service, int gone)
{
    char port[PMI2_MAX_VALLEN];
    for (int t = 0; t < 3000; t++) {
        int found = PMI2_Nameserv_lookup(service, NULL, port, sizeof(port)) == PMI2_SUCCESS;
        if (found != gone) {
            return;
        }
        usleep(20000);
    }
    printf("FAIL %s was never %s\n", service, gone ? "withdrawn" : "published");
    bad = 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "kvs";
    int spawned = -1, size = 0, rank = -1, appnum = -1;
    int rc = PMI2_Init(&spawned, &size, &rank, &appnum);
    check(rc == PMI2_SUCCESS && size > 0 && rank >= 0, "PMI2_Init", rc);
    if (rc != PMI2_SUCCESS) {
        return 2;
    }
    printf("rank %d size %d appnum %d spawned %d\n", rank, size, appnum, spawned);
    char jobid[256] = "";
    rc = PMI2_Job_GetId(jobid, sizeof(jobid));
    check(rc == PMI2_SUCCESS && jobid[0] != '\0', "PMI2_Job_GetId", rc);
    char key[PMI2_MAX_KEYLEN], val[PMI2_MAX_VALLEN], want[PMI2_MAX_VALLEN];
    int found = 0, len = 0;
    if (strcmp(mode, "kvs") == 0) {
        snprintf(key, sizeof(key), "key%d", rank);
        snprintf(val, sizeof(val), "v;%d;x", rank);
        rc = PMI2_KVS_Put(key, val);
        check(rc == PMI2_SUCCESS, "PMI2_KVS_Put", rc);
        rc = PMI2_KVS_Fence();
        check(rc == PMI2_SUCCESS, "PMI2_KVS_Fence", rc);
        int got = 0;
        for (int r = 0; r < size; r++) {
            snprintf(key, sizeof(key), "key%d", r);
            snprintf(want, sizeof(want), "v;%d;x", r);
            for (int by_rank = 0; by_rank < 2; by_rank++) {
                val[0] = '\0';
                rc = PMI2_KVS_Get(jobid, by_rank ? r : PMI2_ID_NULL, key, val, sizeof(val), &len);
                check(rc == PMI2_SUCCESS && strcmp(val, want) == 0, key, rc);
                got += rc == PMI2_SUCCESS && strcmp(val, want) == 0;
            }
        }
        printf("got %d of %d\n", got, 2 * size);
        rc = PMI2_KVS_Get(jobid, PMI2_ID_NULL, "nobody-put-this", val, sizeof(val), &len);
        check(rc != PMI2_SUCCESS, "a key nobody put is not found", rc);
        const char *attrs[] = {"PMI_process_mapping", "universeSize", "pmix.pset.nms"};
        for (int i = 0; i < 3; i++) {
            found = 0;
            val[0] = '\0';
            rc = PMI2_Info_GetJobAttr(attrs[i], val, sizeof(val), &found);
            check(rc == PMI2_SUCCESS, attrs[i], rc);
            printf("%s %s\n", attrs[i], found ? val : "(not found)");
        }
    } else if (strcmp(mode, "nodeattr") == 0) {
        rc = PMI2_KVS_Fence();
        check(rc == PMI2_SUCCESS, "PMI2_KVS_Fence", rc);
        if (rank == 0) {
            rc = PMI2_Info_PutNodeAttr("shm-name", "seg;0");
            check(rc == PMI2_SUCCESS, "PMI2_Info_PutNodeAttr", rc);
        }
        found = 0;
        rc = PMI2_Info_GetNodeAttr("shm-name", val, sizeof(val), &found, 1);
        check(rc == PMI2_SUCCESS && found && strcmp(val, "seg;0") == 0, "PMI2_Info_GetNodeAttr",
              rc);
        printf("nodeattr %s\n", found ? val : "(not found)");
        found = 1;
        rc = PMI2_Info_GetNodeAttr("never-put", val, sizeof(val), &found, 0);
        check(rc == PMI2_SUCCESS && !found, "a node attribute nobody put is not found", rc);
    } else if (strcmp(mode, "names") == 0) {
        char service[64];
        snprintf(service, sizeof(service), "svc-%s", jobid);
        if (rank == 0) {
            rc = PMI2_Nameserv_publish(service, NULL, "port-1234");
            check(rc == PMI2_SUCCESS, "PMI2_Nameserv_publish", rc);
        }
        rc = PMI2_KVS_Fence();
        check(rc == PMI2_SUCCESS, "PMI2_KVS_Fence", rc);
        val[0] = '\0';
        rc = PMI2_Nameserv_lookup(service, NULL, val, sizeof(val));
        check(rc == PMI2_SUCCESS && strcmp(val, "port-1234") == 0, "PMI2_Nameserv_lookup", rc);
        printf("lookup %s\n", val);
        rc = PMI2_KVS_Fence();
        check(rc == PMI2_SUCCESS, "PMI2_KVS_Fence", rc);
        if (rank == 0) {
            rc = PMI2_Nameserv_unpublish(service, NULL);
            check(rc == PMI2_SUCCESS, "PMI2_Nameserv_unpublish", rc);
            rc = PMI2_Nameserv_lookup(service, NULL, val, sizeof(val));
            check(rc != PMI2_SUCCESS, "a lookup after unpublish fails", rc);
        }
    } else if (strcmp(mode, "spawn") == 0) {
        if (rank == 0) {
            char self[4096], child_job[256] = "", pre[300], svc[400];
            ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
            self[n > 0 ? n : 0] = '\0';
            snprintf(pre, sizeof(pre), "from-%s", jobid);
            MPID_Info kv = {.key = "PARENT_KEY", .value = pre};
            const MPID_Info *preput[] = {&kv};
            const char *cmds[] = {self}, *cargv[] = {"child"};
            const char **argvs[] = {cargv};
            int argcs[] = {1}, maxprocs[] = {2}, ninfo[] = {0}, errors[2] = {-1, -1};
            const MPID_Info *infos[] = {NULL};
            rc = PMI2_Job_Spawn(1, cmds, argcs, argvs, maxprocs, ninfo, infos, 1, preput, child_job,
                                sizeof(child_job), errors);
            check(rc == PMI2_SUCCESS && child_job[0] != '\0', "PMI2_Job_Spawn", rc);
            printf("spawned %s errors %d,%d\n", child_job, errors[0], errors[1]);
            for (int r = 0; r < 2; r++) {
                snprintf(svc, sizeof(svc), "done-%s-%d", child_job, r);
                wait_name(svc, 0);
            }
            snprintf(svc, sizeof(svc), "release-%s", child_job);
            rc = PMI2_Nameserv_publish(svc, NULL, "go");
            check(rc == PMI2_SUCCESS, "PMI2_Nameserv_publish", rc);
            for (int r = 0; r < 2; r++) { /* their job's end withdraws what they published */
                snprintf(svc, sizeof(svc), "done-%s-%d", child_job, r);
                wait_name(svc, 1);
            }
        }
        rc = PMI2_KVS_Fence();
        check(rc == PMI2_SUCCESS, "PMI2_KVS_Fence", rc);
    } else if (strcmp(mode, "child") == 0) {
        char svc[400];
        val[0] = '\0';
        rc = PMI2_KVS_Get(jobid, PMI2_ID_NULL, "PARENT_KEY", val, sizeof(val), &len);
        check(rc == PMI2_SUCCESS, "PMI2_KVS_Get PARENT_KEY", rc);
        printf("child %d preput PARENT_KEY=%s\n", rank, rc == PMI2_SUCCESS ? val : "(none)");
        snprintf(svc, sizeof(svc), "done-%s-%d", jobid, rank);
        rc = PMI2_Nameserv_publish(svc, NULL, "yes");
        check(rc == PMI2_SUCCESS, "PMI2_Nameserv_publish", rc);
        snprintf(svc, sizeof(svc), "release-%s", jobid);
        wait_name(svc, 0);
    } else if (strcmp(mode, "abort") == 0) {
        if (rank == size - 1) {
            fflush(stdout);
            PMI2_Abort(1, "pmi2_app aborts on purpose");
        }
        /* never completes: the job is ended. Whether the process is killed first or
         * the fence fails first (its server ends the job's connections) is a race; only
         * a fence that succeeds after a peer aborted is wrong. */
        rc = PMI2_KVS_Fence();
        if (rc == PMI2_SUCCESS) {
            printf("rank %d passed a fence it should not have (rc %d)\n", rank, rc);
        } else {
            printf("rank %d: the fence failed as its job ended (rc %d)\n", rank, rc);
        }
        bad = 1;
    } else {
        printf("FAIL unknown mode %s\n", mode);
        bad = 1;
    }
    rc = PMI2_Finalize();
    check(rc == PMI2_SUCCESS, "PMI2_Finalize", rc);
    fflush(stdout);
    return bad ? 2 : 0;
}
