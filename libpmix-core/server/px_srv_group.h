/* server: what the library's group and connect code (server_group.c, server_connect.c)
 * tells its host beyond the Standard's attributes, and reads back from the host's answer.
 * Our DVM (launcher/dvm_group.c) understands these; another host ignores them and the
 * library falls back on what it knows itself. All keys are ours ("px." prefix).
 */
#ifndef PX_SRV_GROUP_H
#define PX_SRV_GROUP_H

/* In the `group` upcall's directives (and the `connect` upcall's info): the members of
 * this server that took part (PMIX_DATA_ARRAY of PMIX_PROC). A host adding the lists of
 * every server involved gets the participants of the whole operation. */
#define PX_GRP_PARTS "px.grp.parts"
/* In the directives and in the host's answer: PMIX_BYTE_OBJECT holding a blob (store/
 * px_store.h) of (proc, info[]) entries, each a participant's PMIX_GROUP_INFO
 * contribution. The host concatenates the blobs of every server involved. */
#define PX_GRP_GINFO "px.grp.ginfo"
/* In the directives: PMIX_BOOL true on each participant's upcall of a bootstrap (an added
 * member's carries no PMIX_GROUP_BOOTSTRAP: it does not know the number of leaders). */
#define PX_GRP_BOOT "px.grp.boot"
/* In the directives: PMIX_BOOL true when the participants passed their member arrays in
 * different orders (the final membership is then sorted by namespace and rank). */
#define PX_GRP_UNORDERED "px.grp.unord"

/* The Standard's attributes used the same way: PMIX_GROUP_ENDPT_DATA (a blob of the local
 * participants' remote-visible posted data; the host answers with every server's,
 * concatenated), PMIX_GROUP_CONTEXT_ID and PMIX_GROUP_MEMBERSHIP in the answer. */

#endif /* PX_SRV_GROUP_H */
