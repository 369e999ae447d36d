/*
 * nfs_impl.h - what the parts of the NFS decoder share. Not for use outside
 * traces/nfs_*.c. The parts, each a file:
 *
 *	nfs_decode.c	packets and TCP streams into whole RPC messages
 *	nfs_rpc.c	RPC framing: calls and replies matched by (connection,
 *			xid) in a bounded table
 *	nfs_v23.c	NFSv2 and v3 arguments and results
 *	nfs_v4.c	NFSv4 COMPOUND: one table of operations, each with
 *			its argument and result decoders
 *	nfs_names.c	procedure and operation names and numbers
 *	nfs_model.c	what the calls mean: the statistics, each file's run
 *			of READs and WRITEs and its bytes between COMMITs
 */
#ifndef UBC_NFS_IMPL_H
#define UBC_NFS_IMPL_H

#include "nfs.h"

/* Where a message came from and when it was complete. */
struct nfs_msg {
	uint64_t conn;         /* connection id, never reused */
	uint64_t stream;       /* its number in order of appearance */
	uint16_t sport, dport; /* of the sender */
	int64_t ts_ns;
	uint64_t frame;
	uint32_t segments;
};

struct nfs_conn;
struct nfs_pending;

#define NFS_RUN_MAX 32 /* calls per file and direction awaiting replies */

/*
 * A READ or WRITE on a file, kept until the call after it on the file has
 * been judged against where it ended.
 */
struct nfs_run_call {
	uint64_t seq; /* the decoder's count of READ, WRITE, COMMIT calls */
	uint64_t offset;
	uint64_t end;     /* offset + asked for; + done once the reply is in */
	uint8_t settled;  /* end is final: replied, or given up on */
	uint8_t by_reply; /* end came from the reply */
};

/* The READs or the WRITEs on one file, in call order, oldest first. */
struct nfs_run {
	uint32_t n;
	struct nfs_run_call c[NFS_RUN_MAX];
};

/* Direct-mapped per file handle state, keyed by a hash of the handle. */
struct nfs_fh_slot {
	uint64_t key;          /* 0 free */
	uint64_t born;         /* seq when the handle took the slot */
	uint64_t commit_seq;   /* seq of its last COMMIT, else 0 */
	uint64_t since_commit; /* bytes written since the last COMMIT */
	uint64_t by_reply;   /* of its WRITEs since: counted as acknowledged */
	uint64_t by_request; /* counted as asked for */
	struct nfs_run *run[DIR_N]; /* allocated on first use, kept */
};

#define NFS_FH_SLOTS      8192
#define NFS_CONN_BUCKETS  4096
#define NFS_CONN_MAX      16384 /* connections followed at once */
#define NFS_TABLE_BUCKETS 16384
#define NFS_TABLE_MAX     65536 /* calls awaiting a reply */

struct nfs_decoder {
	struct nfs_stats st;
	void (*on_call)(const struct nfs_call *, void *);
	void *on_call_arg;
	uint64_t frame; /* of the packet being decoded */
	int64_t ts_ns;

	/* nfs_decode.c: connections and their streams */
	struct nfs_conn *conns[NFS_CONN_BUCKETS];
	uint64_t next_conn;
	uint64_t nconns;
	uint64_t next_stream;
	uint64_t segment; /* counts stretches of stream fed */

	/* nfs_rpc.c: calls awaiting replies, oldest first */
	struct nfs_pending *table[NFS_TABLE_BUCKETS];
	struct nfs_pending *oldest, *newest;
	uint64_t pending;
	uint64_t seq; /* READ, WRITE and COMMIT calls folded so far */
	struct nfs_fh_slot fh[NFS_FH_SLOTS];
};

/* NFSv4 opcodes (RFC 7530 section 16, RFC 8881 section 18, RFC 7862
 * section 15, RFC 8276 section 8). */
enum {
	OP_ACCESS = 3,
	OP_CLOSE,
	OP_COMMIT,
	OP_CREATE,
	OP_DELEGPURGE,
	OP_DELEGRETURN,
	OP_GETATTR,
	OP_GETFH,
	OP_LINK,
	OP_LOCK,
	OP_LOCKT,
	OP_LOCKU,
	OP_LOOKUP,
	OP_LOOKUPP,
	OP_NVERIFY,
	OP_OPEN,
	OP_OPENATTR,
	OP_OPEN_CONFIRM,
	OP_OPEN_DOWNGRADE,
	OP_PUTFH,
	OP_PUTPUBFH,
	OP_PUTROOTFH,
	OP_READ,
	OP_READDIR,
	OP_READLINK,
	OP_REMOVE,
	OP_RENAME,
	OP_RENEW,
	OP_RESTOREFH,
	OP_SAVEFH,
	OP_SECINFO,
	OP_SETATTR,
	OP_SETCLIENTID,
	OP_SETCLIENTID_CONFIRM,
	OP_VERIFY,
	OP_WRITE,
	OP_RELEASE_LOCKOWNER,
	/* NFSv4.1 */
	OP_BACKCHANNEL_CTL,
	OP_BIND_CONN_TO_SESSION,
	OP_EXCHANGE_ID,
	OP_CREATE_SESSION,
	OP_DESTROY_SESSION,
	OP_FREE_STATEID,
	OP_GET_DIR_DELEGATION,
	OP_GETDEVICEINFO,
	OP_GETDEVICELIST,
	OP_LAYOUTCOMMIT,
	OP_LAYOUTGET,
	OP_LAYOUTRETURN,
	OP_SECINFO_NO_NAME,
	OP_SEQUENCE,
	OP_SET_SSV,
	OP_TEST_STATEID,
	OP_WANT_DELEGATION,
	OP_DESTROY_CLIENTID,
	OP_RECLAIM_COMPLETE,
	/* NFSv4.2 */
	OP_ALLOCATE,
	OP_COPY,
	OP_COPY_NOTIFY,
	OP_DEALLOCATE,
	OP_IO_ADVISE,
	OP_LAYOUTERROR,
	OP_LAYOUTSTATS,
	OP_OFFLOAD_CANCEL,
	OP_OFFLOAD_STATUS,
	OP_READ_PLUS,
	OP_SEEK,
	OP_WRITE_SAME,
	OP_CLONE,
	/* NFSv4.2 extended attributes */
	OP_GETXATTR,
	OP_SETXATTR,
	OP_LISTXATTRS,
	OP_REMOVEXATTR,
};

/* nfs_names.c: an NFSv4 operation's name for a call's op; "?" unknown. */
const char *nfsname_v4(uint32_t op);

/* The kind of transfer an operation is, for the statistics. */
enum { NFS_K_OTHER, NFS_K_READ, NFS_K_WRITE, NFS_K_COMMIT };

/* One operation of a call while it waits for its reply. */
struct nfs_op {
	struct nfs_call c;
	uint32_t opnum; /* the procedure, or the NFSv4 opcode */
	int kind;       /* NFS_K_ */
	uint64_t seq;   /* d->seq when folded */
	uint64_t fh;    /* its file's key when followed on the file; else 0 */
};

/* A call awaiting its reply: one op for v2 and v3, a COMPOUND's for v4. */
struct nfs_pending {
	struct nfs_pending *hnext; /* hash chain */
	struct nfs_pending *older, *newer;
	uint64_t conn;
	uint32_t xid;
	uint32_t prog, vers, proc;
	int wrapped; /* RPCSEC_GSS: arguments and results sealed */
	uint32_t nops;
	struct nfs_op ops[];
};

struct cursor;

/*
 * nfs_v23.c: a call of one operation, its arguments decoded unless wrapped
 * (NFSv2 and v3, v4's NULL, unknown versions), and its result.
 */
struct nfs_pending *nfsv23_call(struct nfs_decoder *d, struct cursor *c,
    const struct nfs_call *base, int wrapped);
void nfsv23_reply(struct cursor *c, struct nfs_op *o);

/* nfs_v4.c: a COMPOUND's operations, and its results. */
struct nfs_pending *nfsv4_call(
    struct nfs_decoder *d, struct cursor *c, const struct nfs_call *base);
void nfsv4_reply(struct cursor *c, struct nfs_pending *p);

/*
 * nfs_model.c: the statistics. count_op counts a procedure or operation by
 * number; call folds the request side of a READ, WRITE or COMMIT into the
 * statistics and the file's run (fh its handle's key, 0 unknown); reply
 * its reply; unanswered settles a READ or WRITE whose reply never came.
 * fh reads a file handle of at most max bytes and gives its key (0: none
 * read); pending_new a pending call with room for nops operations, or
 * NULL: what the decoders of every version share.
 */
uint64_t nfsmodel_fh_key(const uint8_t *fh, uint32_t len);
uint64_t nfsmodel_fh(struct cursor *c, uint32_t max);
struct nfs_pending *nfsmodel_pending_new(uint32_t nops);
void nfsmodel_count_op(struct nfs_stats *st, uint32_t vers, uint32_t op);
void nfsmodel_call(struct nfs_decoder *d, struct nfs_op *o, uint64_t fh);
void nfsmodel_reply(struct nfs_decoder *d, const struct nfs_op *o);
void nfsmodel_unanswered(struct nfs_decoder *d, const struct nfs_op *o);
void nfsmodel_free(struct nfs_decoder *d);

/* Decodes one complete RPC message of len bytes, the first cap captured. */
void nfsrpc_message(struct nfs_decoder *d, const struct nfs_msg *m,
    const uint8_t *buf, size_t cap, size_t len);

/*
 * Whether the cap bytes at p (just after a record mark) look like the start
 * of an RPC message on connection conn: a call of RPC version 2, or a reply
 * to a call this connection is waiting for.
 */
int nfsrpc_plausible(
    struct nfs_decoder *d, uint64_t conn, const uint8_t *p, size_t cap);

/* Counts and reports every call still waiting, and empties the table. */
void nfsrpc_finish(struct nfs_decoder *d);

/* Frees what nfs_rpc.c holds. */
void nfsrpc_free(struct nfs_decoder *d);

#endif
