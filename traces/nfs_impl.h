/*
 * nfs_impl.h - what the two halves of the NFS decoder share: the packet and
 * stream half (nfs_decode.c) hands whole RPC messages to the RPC and NFS half
 * (nfs_rpc.c). Not for use outside traces/nfs_*.c.
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
