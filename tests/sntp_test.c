/*
 * sntp_test.c - the SNTP client on a recorded exchange with chronyd
 * (fixtures/sntp_test/chronyd.txt, made by record.py there, whose offset and
 * delay were computed apart from traces/sntp.c with exact fractions), the
 * checks of RFC 4330 section 5 on damaged copies of it, and a server that
 * never answers.
 */
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <atf-c.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../traces/sntp.h"
#include "testlib.h"

struct exchange {
	unsigned char request[SNTP_PACKET_BYTES];
	unsigned char reply[SNTP_PACKET_BYTES];
	int64_t t1_ns, t4_ns, offset_ns, delay_ns;
};

static void
unhex(const char *hex, unsigned char *out, size_t len)
{
	ATF_REQUIRE_EQ_MSG(strlen(hex), len * 2, "hex of %zu bytes", len);
	for (size_t i = 0; i < len; i++) {
		unsigned v;

		ATF_REQUIRE(sscanf(hex + 2 * i, "%2x", &v) == 1);
		out[i] = (unsigned char)v;
	}
}

static void
load(const atf_tc_t *tc, struct exchange *x)
{
	char *text = tl_read(tc, "fixtures/sntp_test/chronyd.txt");
	char key[32], val[256];
	const char *p = text;
	int seen = 0, used;

	while (sscanf(p, "%31s %255s%n", key, val, &used) == 2) {
		p += used;
		if (strcmp(key, "request") == 0)
			unhex(val, x->request, sizeof(x->request));
		else if (strcmp(key, "reply") == 0)
			unhex(val, x->reply, sizeof(x->reply));
		else if (strcmp(key, "t1_ns") == 0)
			x->t1_ns = strtoll(val, NULL, 10);
		else if (strcmp(key, "t4_ns") == 0)
			x->t4_ns = strtoll(val, NULL, 10);
		else if (strcmp(key, "offset_ns") == 0)
			x->offset_ns = strtoll(val, NULL, 10);
		else if (strcmp(key, "delay_ns") == 0)
			x->delay_ns = strtoll(val, NULL, 10);
		else
			continue;
		seen++;
	}
	free(text);
	ATF_REQUIRE_EQ_MSG(seen, 6, "chronyd.txt has %d of 6 keys", seen);
}

static uint64_t
be64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

ATF_TC_WITHOUT_HEAD(timestamps);
ATF_TC_BODY(timestamps, tc)
{
	/* The Unix epoch is 2208988800 s after the NTP one. */
	ATF_CHECK_EQ(sntp_ts_from_unix_ns(0), (uint64_t)2208988800u << 32);
	ATF_CHECK_EQ(sntp_ts_to_unix_ns((uint64_t)2208988800u << 32), 0);
	/* Half a second is 2^31 in the fraction. */
	ATF_CHECK_EQ(
	    sntp_ts_from_unix_ns(500000000) & 0xffffffffu, 0x80000000u);
	/* Era 1 begins 2036-02-07T06:28:16Z, 2085978496 s after 1970. */
	ATF_CHECK_EQ(sntp_ts_to_unix_ns(0), 2085978496LL * 1000000000);
	ATF_CHECK_EQ(
	    sntp_ts_from_unix_ns(2085978496LL * 1000000000 + 1000000000),
	    (uint64_t)1 << 32);
	/* A round trip loses less than a nanosecond. */
	ATF_CHECK(sntp_ts_to_unix_ns(sntp_ts_from_unix_ns(
	              1795984705102099634LL)) >= 1795984705102099633LL);
}

ATF_TC_WITHOUT_HEAD(encode_request);
ATF_TC_BODY(encode_request, tc)
{
	unsigned char buf[SNTP_PACKET_BYTES];
	struct exchange x;
	uint64_t ts;

	load(tc, &x);
	ts = sntp_encode_request(buf, x.t1_ns);
	ATF_CHECK(memcmp(buf, x.request, sizeof(buf)) == 0);
	ATF_CHECK_EQ(ts, be64(x.request + 40));
}

ATF_TC_WITHOUT_HEAD(decode_reply);
ATF_TC_BODY(decode_reply, tc)
{
	struct exchange x;
	struct sntp_packet p;
	char err[256];

	load(tc, &x);
	ATF_REQUIRE(
	    sntp_decode(x.reply, sizeof(x.reply), &p, err, sizeof(err)) == 0);
	ATF_CHECK_EQ(p.leap, 0);
	ATF_CHECK_EQ(p.version, 4);
	ATF_CHECK_EQ(p.mode, 4);
	ATF_CHECK_EQ(p.stratum, 10);        /* chrony.conf: local stratum 10 */
	ATF_CHECK_EQ(p.refid, 0x7f7f0101u); /* chronyd's local reference */
	ATF_CHECK_EQ(p.precision, -26);
	ATF_CHECK_EQ(p.originate_ts, be64(x.request + 40));
	ATF_CHECK(
	    sntp_check_reply(&p, be64(x.request + 40), err, sizeof(err)) == 0);
}

ATF_TC_WITHOUT_HEAD(offset_recorded);
ATF_TC_BODY(offset_recorded, tc)
{
	struct exchange x;
	struct sntp_packet p;
	int64_t off, delay;
	char err[256];

	load(tc, &x);
	ATF_REQUIRE(
	    sntp_decode(x.reply, sizeof(x.reply), &p, err, sizeof(err)) == 0);
	sntp_offset(
	    x.t1_ns, p.receive_ts, p.transmit_ts, x.t4_ns, &off, &delay);
	/* Timestamps quantize to 2^-32 s; the reference is exact. */
	ATF_CHECK_MSG(llabs(off - x.offset_ns) <= 2,
	    "offset %" PRId64 " ns where %" PRId64 " was computed", off,
	    x.offset_ns);
	ATF_CHECK_MSG(llabs(delay - x.delay_ns) <= 2,
	    "delay %" PRId64 " ns where %" PRId64 " was computed", delay,
	    x.delay_ns);
}

ATF_TC_WITHOUT_HEAD(offset_across_eras);
ATF_TC_BODY(offset_across_eras, tc)
{
	/*
	 * The client sends a second before the 2036 rollover, the server
	 * receives and answers after it, 3 s ahead: offset 3 s, delay 0.
	 */
	int64_t roll = 2085978496LL * 1000000000, off, delay;
	uint64_t t2 = sntp_ts_from_unix_ns(roll - 1000000000 + 3000000000LL);

	ATF_REQUIRE_EQ(t2, (uint64_t)2 << 32);
	sntp_offset(roll - 1000000000, t2, t2, roll - 1000000000, &off, &delay);
	ATF_CHECK_EQ(off, 3000000000LL);
	ATF_CHECK_EQ(delay, 0);
}

/* The recorded reply, damaged at one byte, must fail with message want. */
static void
check_damaged(
    const atf_tc_t *tc, size_t at, unsigned char value, const char *want)
{
	struct exchange x;
	struct sntp_packet p;
	char err[256] = "";

	load(tc, &x);
	x.reply[at] = value;
	ATF_REQUIRE(
	    sntp_decode(x.reply, sizeof(x.reply), &p, err, sizeof(err)) == 0);
	ATF_CHECK(
	    sntp_check_reply(&p, be64(x.request + 40), err, sizeof(err)) == -1);
	ATF_CHECK_MSG(
	    strstr(err, want) != NULL, "'%s' does not say '%s'", err, want);
}

ATF_TC_WITHOUT_HEAD(bad_replies);
ATF_TC_BODY(bad_replies, tc)
{
	struct exchange x;
	struct sntp_packet p;
	char err[256];

	check_damaged(tc, 0, (4 << 3) | 3, "mode 3");
	check_damaged(tc, 0, 3 << 6 | (4 << 3) | 4, "not synchronized");
	check_damaged(tc, 0, (0 << 3) | 4, "version 0");
	check_damaged(tc, 1, 0, "kiss-o'-death");
	check_damaged(tc, 31, 0, "originate timestamp");

	/* A kiss-o'-death names its code. */
	load(tc, &x);
	x.reply[1] = 0;
	memcpy(x.reply + 12, "RATE", 4);
	ATF_REQUIRE(
	    sntp_decode(x.reply, sizeof(x.reply), &p, err, sizeof(err)) == 0);
	ATF_CHECK(
	    sntp_check_reply(&p, be64(x.request + 40), err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "RATE") != NULL, "%s", err);

	ATF_CHECK(sntp_decode(x.reply, 47, &p, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "47 bytes") != NULL, "%s", err);
}

ATF_TC_WITHOUT_HEAD(parse_server);
ATF_TC_BODY(parse_server, tc)
{
	char host[64], port[16], err[256];

	ATF_CHECK(sntp_parse_server("ntp.example", host, sizeof(host), port,
	              sizeof(port), err, sizeof(err)) == 0);
	ATF_CHECK_STREQ(host, "ntp.example");
	ATF_CHECK_STREQ(port, "123");
	ATF_CHECK(sntp_parse_server("127.0.0.1:11123", host, sizeof(host), port,
	              sizeof(port), err, sizeof(err)) == 0);
	ATF_CHECK_STREQ(host, "127.0.0.1");
	ATF_CHECK_STREQ(port, "11123");
	ATF_CHECK(sntp_parse_server("[::1]:9", host, sizeof(host), port,
	              sizeof(port), err, sizeof(err)) == 0);
	ATF_CHECK_STREQ(host, "::1");
	ATF_CHECK_STREQ(port, "9");
	ATF_CHECK(sntp_parse_server("::1", host, sizeof(host), port,
	              sizeof(port), err, sizeof(err)) == -1);
	ATF_CHECK(sntp_parse_server("host:", host, sizeof(host), port,
	              sizeof(port), err, sizeof(err)) == -1);
	ATF_CHECK(sntp_parse_server("host:x1", host, sizeof(host), port,
	              sizeof(port), err, sizeof(err)) == -1);
	ATF_CHECK(sntp_parse_server(":123", host, sizeof(host), port,
	              sizeof(port), err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "no host") != NULL, "%s", err);
}

/* A UDP socket on loopback that is never read: a server that never answers. */
static int
silent_server(char *spec, size_t len)
{
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	int fd;

	ATF_REQUIRE((fd = socket(AF_INET, SOCK_DGRAM, 0)) != -1);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ATF_REQUIRE(bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0);
	ATF_REQUIRE(getsockname(fd, (struct sockaddr *)&sin, &sl) == 0);
	snprintf(spec, len, "127.0.0.1:%u", ntohs(sin.sin_port));
	return fd;
}

ATF_TC_WITHOUT_HEAD(no_answer);
ATF_TC_BODY(no_answer, tc)
{
	struct sntp_lossage l;
	struct sntp_sample s;
	char spec[64], err[256];
	int fd = silent_server(spec, sizeof(spec));

	ATF_CHECK(sntp_query(spec, 200000000, &s, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, "no answer from NTP server") != NULL &&
	        strstr(err, spec) != NULL,
	    "%s", err);

	/* A lossage without answers says so, and still reads the clocks. */
	sntp_lossage_begin(&l, spec, 100000000);
	sntp_lossage_end(&l);
	ATF_CHECK_EQ(l.ok, 0);
	ATF_CHECK_MSG(strstr(l.error, "before the run: no answer") != NULL,
	    "%s", l.error);
	ATF_CHECK(l.clocks_end.monotonic_ns >= l.clocks_begin.monotonic_ns);
	close(fd);
}

ATF_TC_WITHOUT_HEAD(refused);
ATF_TC_BODY(refused, tc)
{
	struct sntp_sample s;
	char spec[64], err[256];

	/* A port that was free a moment ago: the kernel refuses. */
	close(silent_server(spec, sizeof(spec)));
	ATF_CHECK(sntp_query(spec, 2000000000, &s, err, sizeof(err)) == -1);
	ATF_CHECK_MSG(strstr(err, spec) != NULL, "%s", err);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, timestamps);
	ATF_TP_ADD_TC(tp, encode_request);
	ATF_TP_ADD_TC(tp, decode_reply);
	ATF_TP_ADD_TC(tp, offset_recorded);
	ATF_TP_ADD_TC(tp, offset_across_eras);
	ATF_TP_ADD_TC(tp, bad_replies);
	ATF_TP_ADD_TC(tp, parse_server);
	ATF_TP_ADD_TC(tp, no_answer);
	ATF_TP_ADD_TC(tp, refused);
	return atf_no_error();
}
