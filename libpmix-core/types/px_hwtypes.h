/* types: pmix_cpuset_t and pmix_topology_t backed by hwloc (source "hwloc").
 * Element operations the type registry, bfrops and the printer call, the text forms
 * they travel in, and the process's one local topology. Any thread. */
#ifndef PX_HWTYPES_H
#define PX_HWTYPES_H

#include <stdbool.h>

#include <hwloc.h>
#include <pmix_common.h>

/* The only source we implement (compared case-insensitively, as the Standard says). */
#define PX_HW_SOURCE "hwloc"

/* Ownership (the registry rows of PMIX_PROC_CPUSET/PMIX_TOPO call these operations):
 *  - a cpuset whose source is "hwloc" owns its bitmap (an hwloc_bitmap_t): copy
 *    duplicates it, release frees it. A non-NULL bitmap of another source cannot be
 *    interpreted: copy and pack refuse it (PMIX_ERR_NOT_SUPPORTED), release leaves it.
 *  - a topology whose source is "hwloc" owns its hwloc_topology_t (copy duplicates it,
 *    release destroys it) - except the process's local topology (px_hw_local_topology),
 *    which PMIx_Load_topology hands out read-only (px_hw_local_lend), and the ones it
 *    handed out in earlier init/finalize cycles (px_hw_local_fini). */
bool px_hw_is_source(const char *source);

/* ---- element operations (dest constructed on entry; on error the caller destructs) ---- */
void px_hw_cpuset_release(pmix_cpuset_t *c);
pmix_status_t px_hw_cpuset_copy(pmix_cpuset_t *dest, const pmix_cpuset_t *src);
pmix_value_cmp_t px_hw_cpuset_cmp(const pmix_cpuset_t *a, const pmix_cpuset_t *b);
void px_hw_topology_release(pmix_topology_t *t);
pmix_status_t px_hw_topology_copy(pmix_topology_t *dest, const pmix_topology_t *src);
pmix_value_cmp_t px_hw_topology_cmp(const pmix_topology_t *a, const pmix_topology_t *b);

/* ---- text forms (wire and print) ---- */
/* The bitmap as hwloc's list string ("0-3,8"), malloc'd; *text NULL when there is no
 * bitmap. PMIX_ERR_NOT_SUPPORTED for a bitmap of another source. */
pmix_status_t px_hw_cpuset_text(const pmix_cpuset_t *c, char **text);
/* Load c->bitmap from a list string (c->source already set; text NULL: no bitmap).
 * Untrusted input: only digits, ',' and '-', indexes below PX_HW_MAX_PU, ranges in
 * order; else PMIX_ERR_BAD_PARAM. A non-NULL text needs source "hwloc". */
#define PX_HW_MAX_PU (1u << 20)
pmix_status_t px_hw_cpuset_from_text(pmix_cpuset_t *c, const char *text);
/* The topology as hwloc XML, malloc'd (NULL when there is none). */
pmix_status_t px_hw_topology_text(const pmix_topology_t *t, char **text);
/* Load t->topology from hwloc XML (t->source already set; NULL: none). */
pmix_status_t px_hw_topology_from_text(pmix_topology_t *t, const char *text);
/* One-line description for PMIx_Data_print / value printers, malloc'd or NULL. */
char *px_hw_cpuset_describe(const pmix_cpuset_t *c);
char *px_hw_topology_describe(const pmix_topology_t *t);

/* ---- the process's local topology ---- */
/* The topology the library hands out (PMIx_Load_topology), NULL until one is set. */
hwloc_topology_t px_hw_local_topology(void);
/* Install t (taken: the library destroys it at px_hw_local_fini) as the local topology
 * unless one is already there, in which case t is destroyed; returns the one in place. */
hwloc_topology_t px_hw_local_set(hwloc_topology_t t);
/* Discover this node's topology (caches kept for the locality string; no I/O devices),
 * or NULL with errno. */
hwloc_topology_t px_hw_discover(void);
/* Load a topology from XML that describes this node (binding queries allowed). */
hwloc_topology_t px_hw_from_xml(const char *xml, bool this_system);
/* The local topology for a caller to keep (PMIx_Load_topology): marked lent. */
hwloc_topology_t px_hw_local_lend(void);
/* The library finalizes: destroy the local topology, unless it was lent. A lent one is
 * retired instead: kept allocated and still recognised as the library's, so a caller
 * destructing its pmix_topology_t after PMIx_Finalize frees nothing twice (the next
 * init sets a new local topology). */
void px_hw_local_fini(void);

#endif /* PX_HWTYPES_H */
