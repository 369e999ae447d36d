/*
 * nfs_fuzz.c - libFuzzer target for the NFS decoder (traces/nfs.h). The
 * input is read as a classic pcap file, so the fixtures' captures are its
 * seeds: the file header gives the link type, each record a packet, its
 * captured and wire lengths. Records are handed over as they are, however
 * they lie about their lengths within the input; the decoder must neither
 * crash nor read outside them (ASan and UBSan watch).
 *
 *	make fuzz FUZZ_SECONDS=60
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "traces/nfs.h"
#include "../model/le.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
count_call(const struct nfs_call *c, void *arg)
{
	/* Touch every field so that uninitialised ones would show. */
	*(uint64_t *)arg += c->offset + c->count + c->reply_count +
	    c->reply_data_len + c->have + strlen(c->op);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nfs_decoder *d;
	uint64_t sum = 0;
	int linktype;
	size_t off = 24;

	if (size < 24)
		return 0;
	linktype = (int)le32(data + 20);
	if (!nfs_link_supported(linktype))
		linktype = NFS_LINK_EN10MB;
	if ((d = nfs_decoder_new()) == NULL)
		return 0;
	nfs_decoder_on_call(d, count_call, &sum);
	while (off + 16 <= size) {
		uint32_t caplen = le32(data + off + 8);
		uint32_t wirelen = le32(data + off + 12);
		size_t have = size - off - 16;
		uint8_t *pkt;

		if (caplen > have)
			caplen = (uint32_t)have;
		/* A copy of exactly caplen bytes, so ASan sees any overread. */
		pkt = malloc(caplen ? caplen : 1);
		if (pkt == NULL)
			break;
		memcpy(pkt, data + off + 16, caplen);
		nfs_decoder_packet(d, linktype,
		    (int64_t)le32(data + off) * 1000000000, pkt, caplen,
		    wirelen);
		free(pkt);
		off += 16 + caplen;
	}
	nfs_decoder_finish(d);
	/* Every followed call was judged once, by a reply or a request. */
	for (int i = 0; i < DIR_N; i++) {
		const struct nfs_xfer *x = &nfs_decoder_stats(d)->xfer[i];

		if (x->sequential > x->followed || x->followed > x->calls ||
		    x->judged_by_reply + x->judged_by_request != x->followed)
			abort();
	}
	nfs_decoder_free(d);
	return sum == 1 ? 1 : 0;
}
