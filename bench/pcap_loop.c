/*
 * pcap_loop.c - the ceiling for `ubcreplay nfs -r`: a bare libpcap read
 * loop over a capture that touches every packet's bytes and does nothing
 * else. Prints the packets and bytes it read.
 *
 *	pcap_loop FILE
 */
#include <stdint.h>
#include <stdio.h>

#include <pcap/pcap.h>

int
main(int argc, char **argv)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *b;
	uint64_t n = 0, bytes = 0, sum = 0;
	pcap_t *p;

	if (argc != 2) {
		fprintf(stderr, "usage: pcap_loop file\n");
		return 2;
	}
	if ((p = pcap_open_offline(argv[1], ebuf)) == NULL) {
		fprintf(stderr, "pcap_loop: cannot read capture '%s': %s\n",
		    argv[1], ebuf);
		return 1;
	}
	while (pcap_next_ex(p, &h, &b) == 1) {
		n++;
		bytes += h->caplen;
		/* As a decoder would, look at the headers. */
		if (h->caplen > 54)
			sum += b[12] + b[23] + b[53];
	}
	pcap_close(p);
	printf("%llu packets, %llu bytes (%llu)\n", (unsigned long long)n,
	    (unsigned long long)bytes, (unsigned long long)(sum & 1));
	return 0;
}
