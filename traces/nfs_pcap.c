/*
 * nfs_pcap.c - packets for the NFS decoder from libpcap: a capture file
 * (pcap or pcapng, plain or gzip-compressed) or a live interface, through a
 * BPF filter. Reading is kept apart from decoding (nfs_decode.c), which
 * never sees libpcap.
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include <pcap/pcap.h>

#include "../model/clock.h"
#include "../model/infile.h"
#include "nfs.h"

/* Live captures wake up this often to look at the clock and *stop. */
#define LIVE_TIMEOUT_MS 100
#define LIVE_SNAPLEN    262144
#define FILE_BUFFER     (1 << 20)

/* Opens and activates a live capture, saying clearly what is missing. */
static pcap_t *
open_live(const char *iface, int *nano, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_create(iface, ebuf);
	int rc;

	if (p == NULL) {
		snprintf(
		    err, errlen, "cannot capture on '%s': %s", iface, ebuf);
		return NULL;
	}
	pcap_set_snaplen(p, LIVE_SNAPLEN);
	pcap_set_promisc(p, 0);
	pcap_set_timeout(p, LIVE_TIMEOUT_MS);
	pcap_set_buffer_size(p, 64 << 20);
	*nano = pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO) == 0;
	rc = pcap_activate(p);
	if (rc == PCAP_ERROR_PERM_DENIED) {
		snprintf(err, errlen,
		    "cannot capture on '%s': permission "
		    "denied (live capture needs root, or CAP_NET_RAW and "
		    "CAP_NET_ADMIN; or read a file with -r)",
		    iface);
		pcap_close(p);
		return NULL;
	}
	if (rc == PCAP_ERROR_NO_SUCH_DEVICE) {
		snprintf(err, errlen,
		    "cannot capture on '%s': no such "
		    "interface",
		    iface);
		pcap_close(p);
		return NULL;
	}
	if (rc < 0) {
		snprintf(err, errlen, "cannot capture on '%s': %s", iface,
		    pcap_geterr(p));
		pcap_close(p);
		return NULL;
	}
	if (pcap_setnonblock(p, 1, ebuf) == -1) {
		snprintf(
		    err, errlen, "cannot capture on '%s': %s", iface, ebuf);
		pcap_close(p);
		return NULL;
	}
	return p;
}

/*
 * Stores pcap's drop counts since the previous call (base) in the decoder's
 * statistics: pcap's own counts are cumulative over the handle.
 */
static void
store_drops(pcap_t *p, struct nfs_decoder *d, unsigned base[2])
{
	struct nfs_stats *st = nfs_decoder_stats(d);
	struct pcap_stat ps;

	if (pcap_stats(p, &ps) != 0)
		return;
	st->loss.pcap_drops = ps.ps_drop - base[0];
	st->loss.pcap_ifdrops = ps.ps_ifdrop - base[1];
	base[0] = ps.ps_drop;
	base[1] = ps.ps_ifdrop;
}

int
nfs_capture_run(
    struct nfs_capture *cap, struct nfs_decoder *d, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	const char *what = cap->file != NULL ? cap->file : cap->iface;
	const char *filter = cap->filter;
	struct bpf_program prog;
	struct pcap_pkthdr *h;
	struct infile in = {0};
	const u_char *bytes;
	int64_t start = clock_now_ns();
	unsigned drops[2] = {0, 0};
	int nano = 1, rc;
	pcap_t *p;

	if (cap->file != NULL) {
		/*
		 * Read through a large buffer of our own: libpcap's stdio
		 * default means a read(2) per few kilobytes.
		 */
		FILE *fp = infile_open(cap->file, "capture", &in, err, errlen);

		if (fp == NULL)
			return -1;
		setvbuf(fp, NULL, _IOFBF, FILE_BUFFER);
		p = pcap_fopen_offline_with_tstamp_precision(
		    fp, PCAP_TSTAMP_PRECISION_NANO, ebuf);
		if (p == NULL) {
			fclose(fp);
			if (in.why[0] != '\0')
				snprintf(err, errlen,
				    "cannot read capture '%s': %s", cap->file,
				    in.why);
			else if (in.gzip)
				snprintf(err, errlen,
				    "cannot read capture '%s': it is "
				    "gzip-compressed, but what it holds is not a "
				    "pcap or pcapng capture (%s)",
				    cap->file, ebuf);
			else
				snprintf(err, errlen,
				    "cannot read capture '%s': %s", cap->file,
				    ebuf);
			return -1;
		}
	} else if (cap->iface != NULL) {
		if ((p = open_live(cap->iface, &nano, err, errlen)) == NULL)
			return -1;
	} else {
		snprintf(err, errlen, "no capture file or interface given");
		return -1;
	}
	cap->linktype = pcap_datalink(p);
	cap->linktype_name = pcap_datalink_val_to_name(cap->linktype);
	cap->snaplen = pcap_snapshot(p);
	if (!nfs_link_supported(cap->linktype)) {
		snprintf(err, errlen,
		    "cannot decode '%s': link type %s (%d) is "
		    "not Ethernet, Linux cooked, loopback or raw IP",
		    what, cap->linktype_name ? cap->linktype_name : "unknown",
		    cap->linktype);
		pcap_close(p);
		return -1;
	}
	/*
	 * On Ethernet, NFS may travel in 802.1Q frames, which a plain port
	 * filter does not look into; other links have no VLAN tags.
	 */
	if (filter == NULL)
		filter = cap->linktype == NFS_LINK_EN10MB ? NFS_DEFAULT_FILTER
		    " or (vlan and " NFS_DEFAULT_FILTER ")"
		                                          : NFS_DEFAULT_FILTER;
	cap->filter_used = filter;
	if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) == -1) {
		snprintf(err, errlen, "cannot compile filter '%s': %s", filter,
		    pcap_geterr(p));
		pcap_close(p);
		return -1;
	}
	rc = pcap_setfilter(p, &prog);
	pcap_freecode(&prog);
	if (rc == -1) {
		snprintf(err, errlen, "cannot set filter '%s' on '%s': %s",
		    filter, what, pcap_geterr(p));
		pcap_close(p);
		return -1;
	}
	if (cap->on_ready != NULL)
		cap->on_ready(cap->arg);
	for (;;) {
		/*
		 * Live, wait in poll(2) rather than in libpcap: with no traffic
		 * at all, its read timeout may never fire (TPACKET_V3 retires
		 * no empty blocks), and the clock and *stop must be looked at.
		 */
		if (cap->iface != NULL) {
			struct pollfd pfd = {
			    .fd = pcap_get_selectable_fd(p), .events = POLLIN};

			if (poll(&pfd, 1, LIVE_TIMEOUT_MS) <= 0)
				rc = 0;
			else
				rc = pcap_next_ex(p, &h, &bytes);
		} else {
			rc = pcap_next_ex(p, &h, &bytes);
		}
		if (rc == 1) {
			int64_t ts = (int64_t)h->ts.tv_sec * 1000000000 +
			    (int64_t)h->ts.tv_usec * (nano ? 1 : 1000);

			nfs_decoder_packet(
			    d, cap->linktype, ts, bytes, h->caplen, h->len);
		} else if (rc == PCAP_ERROR_BREAK) {
			break; /* the end of the file */
		} else if (rc == PCAP_ERROR) {
			/* A cut or damaged .gz: zlib knows why, not libpcap. */
			snprintf(err, errlen,
			    "cannot read packets from '%s': "
			    "%s",
			    what, in.why[0] != '\0' ? in.why : pcap_geterr(p));
			pcap_close(p);
			return -1;
		}
		if (cap->mark != NULL && *cap->mark) {
			*cap->mark = 0;
			store_drops(p, d, drops);
			cap->on_mark(d, cap->arg);
		}
		if (cap->stop != NULL && *cap->stop) {
			cap->interrupted = 1;
			break;
		}
		if (cap->iface != NULL && cap->duration_ns > 0 &&
		    clock_now_ns() - start >= cap->duration_ns)
			break;
	}
	if (cap->iface != NULL)
		store_drops(p, d, drops);
	pcap_close(p);
	nfs_decoder_finish(d);
	return 0;
}
