/*
 * sntp_fuzz.c - libFuzzer target for the SNTP client's parsers (sntp.h):
 * the input is a reply datagram as the network delivers it, any length,
 * decoded and checked against a request; then, as a string, a server spec
 * as the command line gives it (host, host:port, [v6]:port).
 *
 *	make fuzz FUZZ_SECONDS=60
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "traces/sntp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256], host[256], port[32], *spec;
	struct sntp_packet p;
	int64_t off, delay;

	if (sntp_decode(data, size, &p, err, sizeof(err)) == 0) {
		/* The reply to the request it claims to answer, and to another.
		 */
		(void)sntp_check_reply(&p, p.originate_ts, err, sizeof(err));
		(void)sntp_check_reply(&p, 1, err, sizeof(err));
		sntp_offset(sntp_ts_to_unix_ns(p.originate_ts), p.receive_ts,
		    p.transmit_ts, sntp_ts_to_unix_ns(p.originate_ts) + 1000,
		    &off, &delay);
	}
	if ((spec = malloc(size + 1)) == NULL)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (sntp_parse_server(spec, host, sizeof(host), port, sizeof(port), err,
	        sizeof(err)) == 0) {
		if (memchr(host, '\0', sizeof(host)) == NULL ||
		    memchr(port, '\0', sizeof(port)) == NULL)
			abort();
	}
	free(spec);
	return 0;
}
