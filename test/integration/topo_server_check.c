/* topo_server_check: the topology a host gives PMIx_server_init, seen from the host.
 * A PMIX_TOPOLOGY2 of another source is refused (PMIX_ERR_NOT_SUPPORTED) and one of the
 * wrong type is bad input; an hwloc one becomes the library's (PMIx_Load_topology gives a
 * copy of it, the host's stays the host's) and makes the locality strings of
 * PMIx_server_generate_locality_string; finalize drops it. Exit 0 when all hold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <pmix_server.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "topo_server_check: " __VA_ARGS__);                                    \
            fputc('\n', stderr);                                                                   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static pmix_status_t init_with(pmix_info_t *info)
{
    pmix_server_module_t module;
    memset(&module, 0, sizeof(module));
    return PMIx_server_init(&module, info, info != NULL ? 1 : 0);
}

static bool synthetic_backend(hwloc_topology_t t)
{
    const char *b = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t), "Backend");
    return b != NULL && strcmp(b, "Synthetic") == 0;
}

int main(void)
{
    hwloc_topology_t mine;
    if (hwloc_topology_init(&mine) != 0 ||
        hwloc_topology_set_synthetic(mine, "pack:2 core:2 pu:2") != 0 ||
        hwloc_topology_load(mine) != 0) {
        fprintf(stderr, "topo_server_check: no synthetic topology\n");
        return 1;
    }
    pmix_info_t info;
    pmix_topology_t other = {.source = "linux", .topology = mine};
    PMIx_Info_construct(&info);
    PMIx_Load_key(info.key, PMIX_TOPOLOGY2);
    info.value.type = PMIX_TOPO;
    info.value.data.topo = &other;
    pmix_status_t rc = init_with(&info);
    CHECK(rc == PMIX_ERR_NOT_SUPPORTED, "topology of source linux: %s", PMIx_Error_string(rc));
    PMIx_Info_load(&info, PMIX_TOPOLOGY2, "not a topology", PMIX_STRING);
    rc = init_with(&info);
    CHECK(rc == PMIX_ERR_BAD_PARAM, "PMIX_TOPOLOGY2 as a string: %s", PMIx_Error_string(rc));
    PMIx_Info_destruct(&info);

    pmix_topology_t given = {.source = "hwloc", .topology = mine};
    PMIx_Info_load(&info, PMIX_TOPOLOGY2, &given, PMIX_TOPO);
    rc = init_with(&info);
    PMIx_Info_destruct(&info);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "topo_server_check: PMIx_server_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_topology_t t;
    PMIx_Topology_construct(&t);
    rc = PMIx_Load_topology(&t);
    CHECK(rc == PMIX_SUCCESS && t.topology != NULL, "PMIx_Load_topology: %s",
          PMIx_Error_string(rc));
    if (rc == PMIX_SUCCESS) {
        CHECK(t.topology != (void *)mine, "the library kept the host's topology, not a copy");
        CHECK(synthetic_backend(t.topology), "PMIx_Load_topology: not the host's topology");
        PMIx_Topology_destruct(&t);
    }
    pmix_cpuset_t c;
    char *loc = NULL;
    PMIx_Cpuset_construct(&c);
    rc = PMIx_Parse_cpuset_string("hwloc:5", &c);
    CHECK(rc == PMIX_SUCCESS, "PMIx_Parse_cpuset_string: %s", PMIx_Error_string(rc));
    rc = PMIx_server_generate_locality_string(&c, &loc);
    CHECK(rc == PMIX_SUCCESS && loc != NULL && strcmp(loc, "hwloc:NM0:SK1:L3:L2:L1:CR2:HT5") == 0,
          "locality of PU 5: %s %s", PMIx_Error_string(rc), loc ? loc : "(none)");
    free(loc);
    PMIx_Cpuset_destruct(&c);
    rc = PMIx_server_finalize();
    CHECK(rc == PMIX_SUCCESS, "PMIx_server_finalize: %s", PMIx_Error_string(rc));
    /* the host's own topology is untouched */
    CHECK(hwloc_get_nbobjs_by_type(mine, HWLOC_OBJ_PU) == 8, "the host's topology changed");
    hwloc_topology_destroy(mine);
    return failures == 0 ? 0 : 1;
}
