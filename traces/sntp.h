/*
 * sntp.h - what the sntp module promises: the offset of this machine's clock
 * against an NTP server (an SNTP client, RFC 4330), and lossage, the time a
 * machine loses while it works.
 *
 * Lossage is measured the way it was measured by hand with ntpdate before
 * and after a run: the clock's offset against the server is taken before and
 * after, and the change is what the clock lost (positive) or gained
 * (negative) during the run. A kernel that spins with timer interrupts held
 * off loses time this way. Independently of any server, the change of
 * CLOCK_REALTIME against CLOCK_MONOTONIC over the run says how far the two
 * clocks disagreed (a step or slew of the wall clock).
 *
 *	struct sntp_lossage l;
 *	sntp_lossage_begin(&l, "127.0.0.1:11123", 2000000000);
 *	... the run ...
 *	sntp_lossage_end(&l);
 *	if (l.ok) ... l.lossage_ns
 *	else ... l.error: why there is no lossage (the run still counts)
 *
 * The packet encoding, decoding, checks and offset arithmetic are pure
 * functions (sntp_encode_request, sntp_decode, sntp_check_reply,
 * sntp_offset), tested on recorded packets; sntp_query does the network
 * exchange. Functions return 0 or -1 with a message in the caller's buffer;
 * nothing here prints or exits.
 */
#ifndef UBC_SNTP_H
#define UBC_SNTP_H

#include <stddef.h>
#include <stdint.h>

#define SNTP_PACKET_BYTES 48
#define SNTP_DEFAULT_PORT "123"

/* One NTP packet's header (RFC 4330 section 4), timestamps as on the wire. */
struct sntp_packet {
	unsigned leap;    /* LI: 3 is "clock not synchronized" */
	unsigned version; /* VN */
	unsigned mode;    /* 3 client, 4 server */
	unsigned stratum; /* 0 is a kiss-o'-death */
	int poll;
	int precision;
	uint32_t root_delay; /* 16.16 fixed point seconds */
	uint32_t root_dispersion;
	uint32_t refid;
	uint64_t reference_ts; /* 32.32 fixed point seconds since 1900 */
	uint64_t originate_ts;
	uint64_t receive_ts;
	uint64_t transmit_ts;
};

/* NTP timestamps (32.32 seconds since 1900) to and from Unix nanoseconds. */
uint64_t sntp_ts_from_unix_ns(int64_t unix_ns);
int64_t sntp_ts_to_unix_ns(uint64_t ts);

/*
 * Fills buf with a client request (version 4, mode 3) whose transmit
 * timestamp is xmit_unix_ns; the server echoes it as the reply's originate
 * timestamp, which is how the reply is matched. Returns that timestamp.
 */
uint64_t sntp_encode_request(
    unsigned char buf[SNTP_PACKET_BYTES], int64_t xmit_unix_ns);

/* Decodes len bytes (at least 48; extension fields are ignored). */
int sntp_decode(const unsigned char *buf, size_t len, struct sntp_packet *p,
    char *err, size_t errlen);

/*
 * The checks RFC 4330 section 5 asks of a client: a server reply (mode 4),
 * version 1 to 4, a stratum (0 is a kiss-o'-death: the message carries its
 * code), a synchronized server (LI not 3), the originate timestamp equal to
 * what was sent, and a non-zero transmit timestamp.
 */
int sntp_check_reply(const struct sntp_packet *reply, uint64_t sent_ts,
    char *err, size_t errlen);

/*
 * The clock offset and round-trip delay (RFC 4330 section 5), from the
 * client's send and receive times (t1, t4, Unix ns of the local clock) and
 * the server's receive and transmit timestamps (t2, t3):
 *	offset = ((t2 - t1) + (t3 - t4)) / 2	server minus local
 *	delay  = (t4 - t1) - (t3 - t2)
 */
void sntp_offset(int64_t t1_ns, uint64_t t2_ts, uint64_t t3_ts, int64_t t4_ns,
    int64_t *offset_ns, int64_t *delay_ns);

/*
 * Splits "HOST", "HOST:PORT", "[V6ADDR]" or "[V6ADDR]:PORT"; the port is
 * SNTP_DEFAULT_PORT when not given.
 */
int sntp_parse_server(const char *spec, char *host, size_t hostlen, char *port,
    size_t portlen, char *err, size_t errlen);

/* What one query found. */
struct sntp_sample {
	int64_t offset_ns; /* the server's clock minus ours */
	int64_t delay_ns;  /* round trip, less the server's own time */
	int64_t local_ns;  /* CLOCK_REALTIME when the reply came */
	unsigned stratum;
	char refid[16]; /* the reference, printable */
};

/*
 * Asks the server named by spec (sntp_parse_server) once, waiting at most
 * timeout_ns for a reply that passes sntp_check_reply. The error says
 * whether nothing came ("no answer from ... within ...") or what was wrong
 * with what came.
 */
int sntp_query(const char *spec, int64_t timeout_ns, struct sntp_sample *out,
    char *err, size_t errlen);

/* CLOCK_REALTIME and CLOCK_MONOTONIC read together. */
struct sntp_clocks {
	int64_t realtime_ns;
	int64_t monotonic_ns;
};

void sntp_clocks_now(struct sntp_clocks *c);

/*
 * How far the wall clock moved against the monotonic clock between two
 * readings: (realtime change) - (monotonic change). Positive: the wall clock
 * ran ahead (was stepped or slewed forward).
 */
int64_t sntp_clocks_drift_ns(
    const struct sntp_clocks *from, const struct sntp_clocks *to);

/* The lossage of one run. */
struct sntp_lossage {
	const char *server; /* NULL: no server, only the clock drift */
	int64_t timeout_ns;
	struct sntp_clocks clocks_begin, clocks_end;
	int64_t realtime_drift_ns; /* sntp_clocks_drift_ns over the run */
	int have_before, have_after;
	struct sntp_sample before, after;
	int ok;             /* both queries answered */
	int64_t lossage_ns; /* after.offset - before.offset, when ok */
	char error[256];    /* why not ok */
};

/*
 * Queries server (may be NULL) and reads the clocks just before a run, and
 * again just after it. A query that fails leaves ok at 0 and says why in
 * error; it never fails the run.
 */
void sntp_lossage_begin(
    struct sntp_lossage *l, const char *server, int64_t timeout_ns);
void sntp_lossage_end(struct sntp_lossage *l);

#endif
