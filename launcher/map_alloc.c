/* launcher: --display allocation: the DVM's nodes as the mapper sees them (slots, where
 * they come from, max_slots, what the running jobs hold), as text. Pure computation on
 * the controller's loop; the words come from help-prte-map.txt.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "help/px_help.h"
#include "launcher/px_map.h"

/* A topic's text with its final newline, or "" (a missing topic leaves a gap, not a
 * crash; the help test checks every topic exists). */
static void px_alloc_put(FILE *f, char *text)
{
    if (text != NULL)
        fputs(text, f);
    free(text);
}

char *px_map_render_alloc(const px_map_node_t *nodes, size_t nnodes)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    long slots = 0, inuse = 0;

    if (f == NULL)
        return NULL;
    for (size_t i = 0; i < nnodes; i++) {
        slots += nodes[i].slots;
        inuse += nodes[i].slots_inuse > 0 ? nodes[i].slots_inuse : 0;
    }
    px_alloc_put(f, px_help_render("help-prte-map.txt", "alloc-header", (unsigned)nnodes,
                                   (int)slots, (int)inuse));
    for (size_t i = 0; i < nnodes; i++) {
        const px_map_node_t *n = &nodes[i];
        char max[32] = "none";
        if (n->max_slots > 0)
            snprintf(max, sizeof(max), "%d", n->max_slots);
        px_alloc_put(f, px_help_render("help-prte-map.txt", "alloc-node", n->name, n->slots,
                                       n->slots_given ? "given" : "hwloc's cores", max,
                                       n->slots_inuse > 0 ? n->slots_inuse : 0));
    }
    px_alloc_put(f, px_help_render("help-prte-map.txt", "map-footer"));
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
