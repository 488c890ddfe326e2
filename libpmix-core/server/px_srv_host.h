/* server: what this library offers its own host (our DVM, which links the internal archive)
 * beyond the Standard: the keys the group and connect code (server_group*.c,
 * server_connect.c) adds to its upcalls and reads back from the host's answer (another
 * host ignores them and the library falls back on what it knows itself; all keys are
 * ours, "px." prefix), and a few calls. Kept apart from px_server.h, whose types a host
 * does not need.
 */
#ifndef PX_SRV_HOST_H
#define PX_SRV_HOST_H

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

/* In the info of PMIx_Notify_event called by the host: PMIX_BOOL true makes the event
 * reach, beside its range, every connection that registered for its code with
 * PMIX_EVENT_AFFECTED_PROC(S) naming one of the event's PMIX_EVENT_AFFECTED_PROC(S) (a
 * wildcard rank on either side matches any rank), also from the event cache when the
 * registration comes later. A job's lifecycle events go to attached tools this way
 * (launcher/job_events.c). The key stays in the info, so servers the host passes the
 * event to act the same. */
#define PX_EVT_TO_INTERESTED "px.evt.interest"

/* In PMIx_server_IOF_deliver's info: PMIX_BOOL true when the host also writes this
 * output somewhere itself (prterun prints its own job's output): no sink holds the
 * host's bytes beyond what one that keeps up would (server_iof.c, "a sink that lags"),
 * as if another sink kept up. */
#define PX_IOF_HOST_SINK "px.iof.hostsink"

/* Does any connected process take channel of source's output now (a sink: a spawn's
 * PMIX_FWD_* or a pull)? A host that prints a job's output itself asks before handing it
 * to PMIx_server_IOF_deliver too. Any thread. */
bool px_srv_iof_wanted(const pmix_proc_t *source, pmix_iof_channel_t channel);
/* Does a connected tool's pull with PMIX_IOF_REDIRECT take channel of source's output
 * now? A host that prints the output itself then stops printing it (the Tools chapter:
 * delivered to the tool instead of its final destination, restored when the pull is
 * deregistered or its tool leaves). Any thread. */
bool px_srv_iof_redirected(const pmix_proc_t *source, pmix_iof_channel_t channel);

/* A server init attribute (PMIX_BOOL): with PMIX_SERVER_TOOL_SUPPORT, tools connect only
 * through the URI the host hands them (a node daemon's fork/exec agents: their
 * PMIX_LAUNCHER_RNDZ_URI): no rendezvous file is written and no TCP listener opened, so
 * a tool's default search never finds this server beside the DVM's controller. */
#define PX_SRV_NO_RNDZ "px.srv.nordz"

/* Every connection that is a sink of namespace `from` becomes a sink of `to` (the same
 * channels, every rank), and so does every connection that becomes one later, until
 * either namespace is deregistered: a job spawned by a process of `from` has its output
 * go where its parent's goes. Any thread; done on the server's loop in call order, so before any
 * later PMIx_server_IOF_deliver (server_iof.c). */
void px_srv_iof_inherit(const char *from, const char *to);

/* The pid of the process that connected as registered client proc (its socket's
 * credentials), 0 when none has. A host hears of the connection through the
 * client_connected upcall, which carries no pid; a process started by a fork/exec agent
 * is known by it (the host started the agent). Any thread but under the library's lock
 * (not from inside a callback the library runs with it held). */
pid_t px_srv_client_pid(const pmix_proc_t *proc);

#endif /* PX_SRV_HOST_H */
