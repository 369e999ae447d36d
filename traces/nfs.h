/*
 * nfs.h - NFS transfers on the wire: decode captured packets into NFS
 * READ, WRITE and COMMIT calls matched to their replies, and reduce them to
 * the same log2 histograms the disk probes report.
 *
 * The decoder takes packets as bytes (a link type, a timestamp, the bytes
 * captured and the length on the wire); where they come from is the
 * caller's business (nfs_pcap.c reads them with libpcap, the tests and the
 * fuzzer hand them over directly). It understands:
 *
 *	link	Ethernet (with 802.1Q tags), Linux cooked SLL and SLL2,
 *		BSD loopback/null, raw IPv4/IPv6
 *	network	IPv4 (first fragments only), IPv6 (skipping the common
 *		extension headers)
 *	transport UDP (one RPC message per datagram) and TCP, with ONC RPC
 *		record marking (RFC 5531 section 11) reassembled per
 *		direction: messages over many segments, many messages in one
 *		segment, out-of-order and duplicated segments, records of many
 *		fragments; after a gap it resynchronises on the next plausible
 *		record mark and counts the bytes it skipped
 *	RPC	RFC 5531 section 9 calls and replies, matched by (connection,
 *		xid) in a bounded table
 *	NFS	v2 (RFC 1094) READ and WRITE, v3 (RFC 1813) READ, WRITE and
 *		COMMIT, v4.0, v4.1 and v4.2 (RFC 7530, 8881, 7862) COMPOUND
 *		with its READ, WRITE and COMMIT operations and v4.2's
 *		READ_PLUS, a READ whose bytes returned are its data segments'
 *		plus what its holes stand for; every other procedure and
 *		operation is counted by name
 *
 * Every byte is read through traces/cursor.h: no input makes it read outside
 * the packet. What could not be decoded is counted, never guessed: truncated
 * (the capture stopped early) apart from malformed (a length larger than the
 * message), calls without replies, replies without calls, bytes skipped.
 *
 *	struct nfs_decoder *d = nfs_decoder_new();
 *	nfs_decoder_on_call(d, print_call, NULL);	optional, per call
 *	while (next packet)
 *		nfs_decoder_packet(d, NFS_LINK_EN10MB, ts_ns, bytes, caplen,
 *		    len);
 *	nfs_decoder_finish(d);			unanswered calls are counted now
 *	const struct nfs_stats *s = nfs_decoder_stats(d);
 *	nfs_decoder_free(d);
 */
#ifndef UBC_NFS_H
#define UBC_NFS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "../model/devstats.h"
#include "../model/hist.h"

/* Link types, numbered as pcap's LINKTYPE_ and DLT_ values. */
enum {
	NFS_LINK_NULL = 0, /* BSD loopback: 4-byte host-order family */
	NFS_LINK_EN10MB = 1,
	NFS_LINK_RAW_DLT = 12,   /* DLT_RAW on most systems */
	NFS_LINK_RAW_DLT14 = 14, /* DLT_RAW on OpenBSD */
	NFS_LINK_RAW = 101,      /* LINKTYPE_RAW in files */
	NFS_LINK_LOOP = 108,     /* OpenBSD loopback: network-order family */
	NFS_LINK_LINUX_SLL = 113,
	NFS_LINK_IPV4 = 228,
	NFS_LINK_IPV6 = 229,
	NFS_LINK_LINUX_SLL2 = 276,
};

/* Whether nfs_decoder_packet understands this link type. */
int nfs_link_supported(int linktype);

/* stable_how (RFC 1813 section 3.3.7, RFC 7530 section 16.36). */
enum { NFS_UNSTABLE, NFS_DATA_SYNC, NFS_FILE_SYNC, NFS_NSTABLE };

/* Which fields of a struct nfs_call are known. */
enum {
	NFS_HAVE_OFFSET = 1 << 0,
	NFS_HAVE_COUNT = 1 << 1,
	NFS_HAVE_STABLE = 1 << 2,
	NFS_HAVE_DATA_LEN = 1 << 3, /* write_data_len */
	NFS_HAVE_REPLY = 1 << 4,    /* a reply was matched */
	NFS_HAVE_STATUS = 1 << 5,   /* reply_status */
	NFS_HAVE_REPLY_COUNT = 1 << 6,
	NFS_HAVE_REPLY_DATA = 1 << 7, /* reply_data_len */
	NFS_HAVE_COMMITTED = 1 << 8,
	NFS_HAVE_EOF = 1 << 9,
};

/*
 * One NFSv2/v3 call, or one operation of an NFSv4 COMPOUND, with what its
 * reply said. Frames count packets from 1 in the order they were given.
 */
struct nfs_call {
	uint64_t call_frame;  /* the packet that completed the call */
	uint64_t reply_frame; /* 0 without a reply */
	uint64_t stream;      /* connection, numbered from 0 as first seen */
	int64_t call_ns;
	int64_t reply_ns;
	uint32_t xid;
	uint32_t vers;    /* NFS version: 2, 3 or 4 */
	uint32_t proc;    /* RPC procedure */
	int32_t op_index; /* place in the COMPOUND; -1 for v2 and v3 */
	const char *op;   /* "WRITE", "PUTFH", ...; "?" unknown */
	uint32_t have;    /* NFS_HAVE_ bits */
	uint64_t offset;
	uint32_t count;          /* requested: v3 count3, v4 READ count or
	                            WRITE data length */
	uint32_t stable;         /* stable_how asked for */
	uint32_t write_data_len; /* WRITE data carried by the call */
	uint32_t reply_status;   /* nfsstat3 / nfsstat4 of the operation */
	uint32_t reply_count;    /* bytes the server says it wrote (v3, v4)
	                            or read (v2, v3) */
	uint32_t reply_data_len; /* READ data returned */
	uint32_t committed;      /* stable_how the server reached */
	uint32_t eof;
	int call_truncated; /* the call was cut by the capture */
	uint16_t client_port;
	uint16_t server_port;
	uint32_t call_segments; /* TCP segments the call spanned */
	uint32_t reply_segments;
};

/* One direction of transfer (reads, or writes) as seen on the wire. */
struct nfs_xfer {
	uint64_t calls;
	uint64_t size_unknown; /* calls whose size was not captured */
	uint64_t bytes_requested;
	uint64_t bytes_done; /* writes: acknowledged; reads: returned */
	struct hist size_requested;
	struct hist size_done;
	uint64_t replies;
	uint64_t errors;        /* replies with a status other than OK */
	uint64_t short_replies; /* done < requested */
	struct hist latency_ns;
	/*
	 * Calls that had a previous one on the same file handle (followed),
	 * and those of them that began where it ended (sequential): where
	 * its reply was matched, it ended where the server's acknowledged
	 * (or returned) bytes did (judged_by_reply); otherwise where it
	 * asked to (judged_by_request: the reply not captured, without a
	 * count, or more than 32 calls on the file awaiting theirs).
	 */
	uint64_t sequential;
	uint64_t followed;
	uint64_t judged_by_reply;
	uint64_t judged_by_request;
};

/* What was lost or could not be decoded. */
struct nfs_loss {
	uint64_t pcap_drops; /* pcap_stats ps_drop (set by the reader) */
	uint64_t pcap_ifdrops;
	uint64_t truncated;        /* messages the capture cut short */
	uint64_t malformed;        /* messages with a length past their end */
	uint64_t bad_record_marks; /* included in malformed */
	uint64_t calls_without_reply;
	uint64_t replies_without_call;
	uint64_t bytes_skipped;   /* TCP bytes passed over to resynchronise */
	uint64_t resyncs;         /* times a direction lost the record marks */
	uint64_t table_evictions; /* calls pushed out of the full table */
	uint64_t conns_evicted;   /* idle connections dropped when full */
	uint64_t packets_truncated; /* headers below RPC cut by the capture */
	uint64_t packets_malformed; /* headers below RPC that lie */
	uint64_t ip_fragments;      /* non-first IP fragments, not decoded */
	uint64_t duplicate_segments;
	uint64_t out_of_order_segments;
};

#define NFS_NOPS 76 /* NFSv4.2 opcodes 0..75, with RFC 8276 xattrs */

struct nfs_stats {
	uint64_t packets;
	uint64_t packets_other;    /* not IP, or not UDP/TCP */
	uint64_t rpc_calls;        /* to the NFS program */
	uint64_t rpc_replies;      /* matched to an NFS call */
	uint64_t rpc_errors;       /* replies not accepted or not SUCCESS */
	uint64_t calls_by_vers[5]; /* NFS version 0..4 */
	uint64_t ops_v2[18];       /* per procedure */
	uint64_t ops_v3[22];
	uint64_t ops_v4[NFS_NOPS];       /* per operation; [0] the NULL proc */
	uint64_t ops_v4_other;           /* opcodes above 75 */
	struct nfs_xfer xfer[DIR_N];     /* DIR_READ, DIR_WRITE */
	uint64_t stable[NFS_NSTABLE];    /* WRITEs by stable_how asked */
	uint64_t committed[NFS_NSTABLE]; /* WRITE replies by stable_how */
	uint64_t commits;
	uint64_t commit_replies;
	struct hist commit_latency_ns;
	/*
	 * Per file handle, bytes written since its previous COMMIT: what
	 * the server acknowledged of each WRITE whose reply came before the
	 * COMMIT (between_by_reply counts those WRITEs), what the others
	 * asked for (between_by_request). bytes_between is their sum.
	 */
	struct hist bytes_between_commits;
	uint64_t bytes_between;
	uint64_t between_by_reply;
	uint64_t between_by_request;
	uint64_t file_handles; /* distinct file handles written or read */
	struct nfs_loss loss;
};

struct nfs_decoder;

/* A new decoder, or NULL when out of memory. */
struct nfs_decoder *nfs_decoder_new(void);
void nfs_decoder_free(struct nfs_decoder *d);

/*
 * Calls fn once per completed call (or COMPOUND operation): when its reply
 * arrives, or at nfs_decoder_finish for those never answered.
 */
void nfs_decoder_on_call(struct nfs_decoder *d,
    void (*fn)(const struct nfs_call *, void *), void *arg);

/*
 * Decodes one packet: caplen bytes captured of wirelen on the wire. Packets
 * of other protocols are counted and passed over.
 */
void nfs_decoder_packet(struct nfs_decoder *d, int linktype, int64_t ts_ns,
    const uint8_t *pkt, size_t caplen, size_t wirelen);

/* Ends the input: flushes the streams, counts unanswered calls. */
void nfs_decoder_finish(struct nfs_decoder *d);

/* The statistics so far; loss.pcap_* are the reader's to fill. */
struct nfs_stats *nfs_decoder_stats(struct nfs_decoder *d);

/* The name of an NFSv4 operation, or NULL. */
const char *nfs_v4_op_name(uint32_t op);
/* The name of an NFSv2 or v3 procedure, or NULL. */
const char *nfs_proc_name(uint32_t vers, uint32_t proc);

/*
 * Reading packets with libpcap (nfs_pcap.c): from a capture file (pcap or
 * pcapng) or live from an interface, through a BPF filter, into a decoder.
 *
 *	struct nfs_capture cap = {.file = "nfs.pcap"};
 *	if (nfs_capture_run(&cap, d, err, sizeof(err)) == -1)
 *		warnx("%s", err);
 */
#define NFS_DEFAULT_FILTER "port 2049"

struct nfs_capture {
	const char *file;    /* a capture file, or NULL */
	const char *iface;   /* or an interface to capture live on */
	const char *filter;  /* BPF; NULL for NFS_DEFAULT_FILTER (and
	                        the same inside 802.1Q on Ethernet) */
	int64_t duration_ns; /* live: stop after this long; 0 no limit */
	volatile sig_atomic_t *stop; /* stops the capture when set */
	/*
	 * Live, optional: called once when packets are being captured (the
	 * filter is set), and whenever *mark is found set (it is cleared),
	 * with the decoder, so that the caller can take the statistics so
	 * far and reset them (nfs_watch.c). pcap's drop counts are stored in
	 * the statistics before each call, as counted since the previous.
	 */
	void (*on_ready)(void *arg);
	volatile sig_atomic_t *mark;
	void (*on_mark)(struct nfs_decoder *d, void *arg);
	void *arg;
	/* filled in by nfs_capture_run */
	const char *filter_used;
	int linktype;
	const char *linktype_name;
	int snaplen;
	int interrupted; /* stopped by *stop */
};

/*
 * Feeds every packet of the capture to d, then calls nfs_decoder_finish and
 * stores pcap's drop counts in the decoder's statistics. Returns 0, or -1
 * with the reason in err (a file that cannot be read, a filter that does
 * not compile, a link type the decoder does not know, missing privileges).
 */
int nfs_capture_run(
    struct nfs_capture *cap, struct nfs_decoder *d, char *err, size_t errlen);

/*
 * Watching an interface while a workload runs (nfs_watch.c): a child
 * captures from nfs_watch_start (which returns once packets are being
 * captured, or fails with the reason) to the last nfs_watch_take; each take
 * returns the statistics since the previous one, so each run gets its
 * share and nothing falls between them.
 *
 *	struct nfs_watch w;
 *	nfs_watch_start(&w, "eth0", NULL, err, sizeof(err));
 *	for each run: ...; nfs_watch_take(&w, last_run, &stats, err, ...);
 *	nfs_watch_kill(&w);		on an error or an interruption
 */
struct nfs_watch {
	const char *iface;
	int pid;
	int fd;
};

int nfs_watch_start(struct nfs_watch *w, const char *iface, const char *filter,
    char *err, size_t errlen);
int nfs_watch_take(struct nfs_watch *w, int last, struct nfs_stats *out,
    char *err, size_t errlen);
void nfs_watch_kill(struct nfs_watch *w);

#endif
