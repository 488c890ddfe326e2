/* regex: compress node-name lists and per-node rank lists into the "pmix:" strings of
 * PMIx_generate_regex / PMIx_generate_ppn, and expand them back (PMIX_NODE_MAP,
 * PMIX_PROC_MAP). Pure string functions: no state, callable from any thread. */
#ifndef PX_REGEX_H
#define PX_REGEX_H

#include <stddef.h>

/*
 * Node lists
 * ----------
 * Input of px_regex_generate_nodes() (and body of a "pmix:" node regex): names separated
 * by ','. A name may carry one bracket group, "pre[items]suf", where items are ','
 * separated "A" or "A-B" (decimal, A <= B, at most 18 digits each). A group expands, in
 * order, to pre + each number + suf. The number of digits of A is the zero-padded
 * minimum width of every number of "A-B": "n[08-11]" = n08,n09,n10,n11 and
 * "n[8-11]" = n8,n9,n10,n11. Width is part of a name's identity ("n01" != "n1").
 *
 * Output: "pmix:" followed by the same grammar, in canonical form:
 *   - each name is split at its last run of digits (prefix, number, suffix); a name
 *     without digits, or with a run longer than 18 digits, is copied as is;
 *   - adjacent names with equal prefix and suffix share one bracket group;
 *   - inside a group, ascending +1 runs whose members all print with the width of
 *     the run's first member become "A-B" (any length >= 2), others stay single;
 *   - a group of one name is written as the plain name.
 * Order and duplicates are kept: parse(generate(x)) returns exactly the names of x.
 * Example (from the Standard):
 *   "odin009.org,odin010.org,odin011.org,odin012.org,odin[102-107].org"
 *   -> "pmix:odin[009-012,102-107].org"
 *
 * Rank lists (ppn)
 * ----------------
 * Input of px_regex_generate_ppn(): one field per node, separated by ';', in the order of
 * the node list; a field is a ',' separated list of ranks "R" or ranges "R-S" (R <= S,
 * both below PMIX_RANK_VALID). Empty fields are rejected.
 *
 * Output: "pmix:" followed by ';' separated fields, each either
 *   - the node's ranks in order, ascending +1 runs written "R-S" ("8,10-12", "6-7,9"),
 *   - or "Kx(D)", standing for K >= 1 consecutive nodes (the generator uses K >= 2).
 *
 * Our reading of "Kx(D)": the Standard only gives the example
 *   "1-4;2-5;8,10,11,12;6,7,9" -> "pmix:2x(3);8,10-12;6-7,9"
 * without defining the notation. Since "2x(3)" must stand for "1-4;2-5" and be
 * invertible, the start ranks have to be implied. We read it as: K nodes, each holding
 * one contiguous block of D+1 ranks, where each block starts one rank after the start
 * of the previous node's ranks. "Start of the previous node" is the first rank listed
 * for the field before the group, or 0 when the group opens the map (a virtual node).
 * So "2x(3)" at the head = [0+1 .. 0+1+3] = 1-4, then [2 .. 5] = 2-5. The generator
 * emits the form for every maximal run of two or more nodes that match it exactly, so
 * the round trip is exact (as rank sets per node, in the original order).
 *
 * The identifier and the expression form one printable NUL-terminated string, as in the
 * Standard's examples ("pmix:..."), so it can be passed around as a plain string.
 * Parsers accept "pmix:" (the forms above) and "raw:" (an unprocessed generator input).
 * Limits: at most PX_REGEX_MAX_ENTRIES names, nodes or ranks after expansion, and
 * PX_REGEX_MAX_BYTES bytes of expanded names; checked before allocating.
 *
 * All functions return 0, or -1 with errno: EINVAL (NULL argument or malformed input),
 * E2BIG (a limit above is exceeded), ENOTSUP ("blob:" regex), ENOMEM.
 * On error the out-pointer is set to NULL and nothing is leaked.
 */

#define PX_REGEX_MAX_ENTRIES 10000000u
#define PX_REGEX_MAX_BYTES   (256u * 1024u * 1024u)

/* Compress a ',' separated node list. *out: malloc'd NUL-terminated string (caller frees). */
int px_regex_generate_nodes(const char *input, char **out);

/* Expand a node regex. *names: malloc'd NULL-terminated array of malloc'd names, in order;
 * release with px_regex_argv_free(). */
int px_regex_parse_nodes(const char *regex, char ***names);

/* Compress a ';' separated per-node rank list. *out: malloc'd string (caller frees). */
int px_regex_generate_ppn(const char *input, char **out);

/* Expand a ppn regex. *per_node_ranks: malloc'd NULL-terminated array, one malloc'd
 * string per node holding its ranks fully expanded, ',' separated, in listed order
 * ("1,2,3,4"); release with px_regex_argv_free(). */
int px_regex_parse_ppn(const char *regex, char ***per_node_ranks);

/* Free a NULL-terminated array of strings and the strings; accepts NULL. */
void px_regex_argv_free(char **argv);

#endif /* PX_REGEX_H */
