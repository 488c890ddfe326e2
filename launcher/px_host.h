/* launcher: one host the DVM may use (a --host entry or a hostfile line), as the command
 * lines hand it to the controller. A type only; cli/px_opts.h fills an array of them.
 */
#ifndef PX_HOST_H
#define PX_HOST_H

/* One --host entry or hostfile line. */
typedef struct {
    char *name;    /* owned */
    int slots;     /* 0: not given */
    int max_slots; /* hostfile max_slots=M: the host never runs more; 0: no limit */
} px_host_t;

#endif /* PX_HOST_H */
