/*
 * sntp.c - an SNTP client (RFC 4330): one request, one reply, the clock's
 * offset against the server; and lossage, the change of that offset over a
 * run.
 *
 * Timestamps are differenced as 32.32 fixed point before they become
 * nanoseconds, so the arithmetic holds across the 2036 rollover of the NTP
 * era (RFC 4330 section 3) as long as the two clocks are within 68 years.
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sntp.h"

/* Seconds from 1900-01-01 (NTP era 0) to 1970-01-01. */
#define NTP_UNIX_DELTA_S 2208988800LL
#define NS_PER_S         1000000000LL

uint64_t
sntp_ts_from_unix_ns(int64_t unix_ns)
{
	int64_t s = unix_ns / NS_PER_S, ns = unix_ns % NS_PER_S;
	uint64_t frac;

	if (ns < 0) {
		s--;
		ns += NS_PER_S;
	}
	frac = ((uint64_t)ns << 32) / (uint64_t)NS_PER_S;
	return ((uint64_t)(s + NTP_UNIX_DELTA_S) << 32) | frac;
}

int64_t
sntp_ts_to_unix_ns(uint64_t ts)
{
	int64_t s = (int64_t)(ts >> 32);
	uint64_t frac = ts & 0xffffffffu;

	/* RFC 4330 section 3: a clear top bit means era 1, from 2036. */
	if ((ts >> 63) == 0)
		s += (int64_t)1 << 32;
	return (s - NTP_UNIX_DELTA_S) * NS_PER_S +
	    (int64_t)((frac * (uint64_t)NS_PER_S) >> 32);
}

/* A signed 32.32 difference to nanoseconds. */
static int64_t
fixed_to_ns(int64_t d)
{
	int64_t s = d >> 32; /* floor: the fraction below is positive */
	uint64_t frac = (uint64_t)d & 0xffffffffu;

	return s * NS_PER_S + (int64_t)((frac * (uint64_t)NS_PER_S) >> 32);
}

static void
put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static uint32_t
get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static uint64_t
get_u64(const unsigned char *p)
{
	return (uint64_t)get_u32(p) << 32 | get_u32(p + 4);
}

uint64_t
sntp_encode_request(unsigned char buf[SNTP_PACKET_BYTES], int64_t xmit_unix_ns)
{
	uint64_t ts = sntp_ts_from_unix_ns(xmit_unix_ns);

	memset(buf, 0, SNTP_PACKET_BYTES);
	buf[0] = (0 << 6) | (4 << 3) | 3; /* LI 0, VN 4, mode 3 */
	/* RFC 4330 section 5: the transmit timestamp, at offset 40. */
	put_u32(buf + 40, (uint32_t)(ts >> 32));
	put_u32(buf + 44, (uint32_t)ts);
	return ts;
}

int
sntp_decode(const unsigned char *buf, size_t len, struct sntp_packet *p,
    char *err, size_t errlen)
{
	if (len < SNTP_PACKET_BYTES) {
		snprintf(err, errlen,
		    "short NTP packet: %zu bytes where %d were expected", len,
		    SNTP_PACKET_BYTES);
		return -1;
	}
	/* RFC 4330 section 4, figure 1. */
	memset(p, 0, sizeof(*p));
	p->leap = buf[0] >> 6;
	p->version = (buf[0] >> 3) & 7;
	p->mode = buf[0] & 7;
	p->stratum = buf[1];
	p->poll = (signed char)buf[2];
	p->precision = (signed char)buf[3];
	p->root_delay = get_u32(buf + 4);
	p->root_dispersion = get_u32(buf + 8);
	p->refid = get_u32(buf + 12);
	p->reference_ts = get_u64(buf + 16);
	p->originate_ts = get_u64(buf + 24);
	p->receive_ts = get_u64(buf + 32);
	p->transmit_ts = get_u64(buf + 40);
	return 0;
}

/* The reference identifier as text: four ASCII letters or an address. */
static void
refid_text(unsigned stratum, uint32_t refid, char *buf, size_t len)
{
	if (stratum <= 1) {
		char s[5];
		int i;

		for (i = 0; i < 4; i++) {
			unsigned char c =
			    (unsigned char)(refid >> (24 - 8 * i));

			s[i] = c >= 0x20 && c < 0x7f ? (char)c : '\0';
			if (s[i] == '\0')
				break;
		}
		s[i] = '\0';
		snprintf(buf, len, "%s", s);
	} else
		snprintf(buf, len, "%u.%u.%u.%u", refid >> 24,
		    (refid >> 16) & 0xff, (refid >> 8) & 0xff, refid & 0xff);
}

int
sntp_check_reply(
    const struct sntp_packet *r, uint64_t sent_ts, char *err, size_t errlen)
{
	/* RFC 4330 section 5, the checks a client must make. */
	if (r->mode != 4) {
		snprintf(err, errlen,
		    "bad NTP reply: mode %u where 4 (server) "
		    "was expected",
		    r->mode);
		return -1;
	}
	if (r->version < 1 || r->version > 4) {
		snprintf(err, errlen, "bad NTP reply: version %u", r->version);
		return -1;
	}
	if (r->stratum == 0) {
		char code[8];

		refid_text(0, r->refid, code, sizeof(code));
		snprintf(err, errlen, "NTP server sent a kiss-o'-death: %s",
		    code[0] != '\0' ? code : "(no code)");
		return -1;
	}
	if (r->stratum > 15) {
		snprintf(err, errlen, "bad NTP reply: stratum %u", r->stratum);
		return -1;
	}
	if (r->leap == 3) {
		snprintf(err, errlen,
		    "NTP server is not synchronized "
		    "(leap indicator 3)");
		return -1;
	}
	if (r->originate_ts != sent_ts) {
		snprintf(err, errlen,
		    "bad NTP reply: originate timestamp "
		    "%016llx does not match the request's %016llx",
		    (unsigned long long)r->originate_ts,
		    (unsigned long long)sent_ts);
		return -1;
	}
	if (r->transmit_ts == 0 || r->receive_ts == 0) {
		snprintf(err, errlen, "bad NTP reply: zero %s timestamp",
		    r->transmit_ts == 0 ? "transmit" : "receive");
		return -1;
	}
	return 0;
}

void
sntp_offset(int64_t t1_ns, uint64_t t2_ts, uint64_t t3_ts, int64_t t4_ns,
    int64_t *offset_ns, int64_t *delay_ns)
{
	uint64_t t1 = sntp_ts_from_unix_ns(t1_ns);
	uint64_t t4 = sntp_ts_from_unix_ns(t4_ns);
	/* Differences modulo 2^64, read as signed: era-independent. */
	int64_t d21 = fixed_to_ns((int64_t)(t2_ts - t1));
	int64_t d34 = fixed_to_ns((int64_t)(t3_ts - t4));
	int64_t d41 = fixed_to_ns((int64_t)(t4 - t1));
	int64_t d32 = fixed_to_ns((int64_t)(t3_ts - t2_ts));

	*offset_ns = (d21 + d34) / 2;
	*delay_ns = d41 - d32;
}

int
sntp_parse_server(const char *spec, char *host, size_t hostlen, char *port,
    size_t portlen, char *err, size_t errlen)
{
	const char *h = spec, *hend, *p = NULL;

	if (spec[0] == '[') {
		h = spec + 1;
		if ((hend = strchr(h, ']')) == NULL ||
		    (hend[1] != '\0' && hend[1] != ':')) {
			snprintf(err, errlen,
			    "bad NTP server '%s': expected "
			    "[ADDRESS] or [ADDRESS]:PORT",
			    spec);
			return -1;
		}
		if (hend[1] == ':')
			p = hend + 2;
	} else {
		hend = strchr(spec, ':');
		if (hend != NULL && strchr(hend + 1, ':') != NULL) {
			snprintf(err, errlen,
			    "bad NTP server '%s': write an "
			    "IPv6 address as [ADDRESS]:PORT",
			    spec);
			return -1;
		}
		if (hend != NULL)
			p = hend + 1;
		else
			hend = spec + strlen(spec);
	}
	if (hend == h) {
		snprintf(err, errlen, "bad NTP server '%s': no host", spec);
		return -1;
	}
	if (p != NULL &&
	    (*p == '\0' || strspn(p, "0123456789") != strlen(p) ||
	        strlen(p) > 5)) {
		snprintf(err, errlen,
		    "bad NTP server '%s': port is not a "
		    "number",
		    spec);
		return -1;
	}
	if ((size_t)(hend - h) >= hostlen) {
		snprintf(err, errlen,
		    "bad NTP server '%s': host name too "
		    "long",
		    spec);
		return -1;
	}
	memcpy(host, h, (size_t)(hend - h));
	host[hend - h] = '\0';
	snprintf(port, portlen, "%s", p != NULL ? p : SNTP_DEFAULT_PORT);
	return 0;
}

static int64_t
now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static int
open_socket(const char *spec, const char *host, const char *port, char *err,
    size_t errlen)
{
	struct addrinfo hints, *res, *ai;
	int fd = -1, rv, saved = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_DGRAM;
	if ((rv = getaddrinfo(host, port, &hints, &res)) != 0) {
		snprintf(err, errlen, "cannot resolve NTP server '%s': %s",
		    spec, gai_strerror(rv));
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol);
		if (fd == -1) {
			saved = errno;
			continue;
		}
		/* Connected: the kernel drops datagrams from anyone else. */
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		saved = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd == -1)
		snprintf(err, errlen, "cannot reach NTP server '%s': %s", spec,
		    strerror(saved));
	return fd;
}

int
sntp_query(const char *spec, int64_t timeout_ns, struct sntp_sample *out,
    char *err, size_t errlen)
{
	unsigned char req[SNTP_PACKET_BYTES], buf[512];
	char host[256], port[16], why[192] = "";
	struct sntp_packet r;
	int64_t t1, t4, deadline;
	uint64_t sent;
	int fd;

	memset(out, 0, sizeof(*out));
	if (sntp_parse_server(spec, host, sizeof(host), port, sizeof(port), err,
	        errlen) == -1)
		return -1;
	if ((fd = open_socket(spec, host, port, err, errlen)) == -1)
		return -1;
	deadline = now_ns(CLOCK_MONOTONIC) + timeout_ns;
	t1 = now_ns(CLOCK_REALTIME);
	sent = sntp_encode_request(req, t1);
	if (send(fd, req, sizeof(req), 0) != (ssize_t)sizeof(req)) {
		snprintf(err, errlen, "cannot send to NTP server '%s': %s",
		    spec, strerror(errno));
		close(fd);
		return -1;
	}
	for (;;) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		int64_t left = deadline - now_ns(CLOCK_MONOTONIC);
		ssize_t n;
		int rv;

		if (left <= 0) {
			snprintf(err, errlen,
			    "no answer from NTP server '%s' "
			    "within %.3f s%s%s",
			    spec, timeout_ns / 1e9,
			    why[0] ? "; discarded: " : "", why);
			close(fd);
			return -1;
		}
		rv = poll(&pf, 1, (int)((left + 999999) / 1000000));
		if (rv == -1 && errno != EINTR) {
			snprintf(err, errlen,
			    "cannot wait for NTP server "
			    "'%s': %s",
			    spec, strerror(errno));
			close(fd);
			return -1;
		}
		if (rv <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf), 0);
		t4 = now_ns(CLOCK_REALTIME);
		if (n == -1) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			snprintf(err, errlen, "no NTP server at '%s': %s", spec,
			    strerror(errno));
			close(fd);
			return -1;
		}
		if (sntp_decode(buf, (size_t)n, &r, why, sizeof(why)) == -1)
			continue;
		/* A reply to some other request is not ours: keep waiting. */
		if (r.mode == 4 && r.originate_ts != sent) {
			snprintf(
			    why, sizeof(why), "a reply to another request");
			continue;
		}
		if (sntp_check_reply(&r, sent, err, errlen) == -1) {
			char msg[256];

			snprintf(msg, sizeof(msg), "%s", err);
			snprintf(err, errlen, "NTP server '%s': %s", spec, msg);
			close(fd);
			return -1;
		}
		break;
	}
	close(fd);
	sntp_offset(t1, r.receive_ts, r.transmit_ts, t4, &out->offset_ns,
	    &out->delay_ns);
	out->local_ns = t4;
	out->stratum = r.stratum;
	refid_text(r.stratum, r.refid, out->refid, sizeof(out->refid));
	return 0;
}

void
sntp_clocks_now(struct sntp_clocks *c)
{
	int64_t best = INT64_MAX;

	/*
	 * The monotonic clock is read on both sides of the wall clock and
	 * averaged, so the pair stands for one instant; of a few tries, the
	 * one with the narrowest window is kept, since a slow first read
	 * (cold caches after a fork or a syscall) would bias the pair.
	 */
	for (int i = 0; i < 8; i++) {
		int64_t m0 = now_ns(CLOCK_MONOTONIC);
		int64_t r = now_ns(CLOCK_REALTIME);
		int64_t m1 = now_ns(CLOCK_MONOTONIC);

		if (m1 - m0 < best) {
			best = m1 - m0;
			c->realtime_ns = r;
			c->monotonic_ns = m0 + (m1 - m0) / 2;
		}
	}
}

int64_t
sntp_clocks_drift_ns(
    const struct sntp_clocks *from, const struct sntp_clocks *to)
{
	return (to->realtime_ns - from->realtime_ns) -
	    (to->monotonic_ns - from->monotonic_ns);
}

void
sntp_lossage_begin(
    struct sntp_lossage *l, const char *server, int64_t timeout_ns)
{
	memset(l, 0, sizeof(*l));
	l->server = server;
	l->timeout_ns = timeout_ns;
	if (server == NULL)
		snprintf(l->error, sizeof(l->error), "no NTP server given");
	else if (sntp_query(server, timeout_ns, &l->before, l->error,
	             sizeof(l->error)) == 0)
		l->have_before = 1;
	sntp_clocks_now(&l->clocks_begin);
}

void
sntp_lossage_end(struct sntp_lossage *l)
{
	char err[256];

	sntp_clocks_now(&l->clocks_end);
	l->realtime_drift_ns =
	    sntp_clocks_drift_ns(&l->clocks_begin, &l->clocks_end);
	if (l->server == NULL)
		return;
	/* Without the first offset a second one measures nothing. */
	if (!l->have_before) {
		snprintf(err, sizeof(err), "%s", l->error);
		snprintf(
		    l->error, sizeof(l->error), "before the run: %.200s", err);
		return;
	}
	if (sntp_query(l->server, l->timeout_ns, &l->after, err, sizeof(err)) ==
	    -1) {
		snprintf(
		    l->error, sizeof(l->error), "after the run: %.200s", err);
		return;
	}
	l->have_after = 1;
	l->ok = 1;
	l->lossage_ns = l->after.offset_ns - l->before.offset_ns;
}
