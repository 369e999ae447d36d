/*
 * nfs_report.h - the NFS wire statistics (traces/nfs.h) in the result
 * model: the "nfs" object of a run (docs/json.md) and its text rendering,
 * made from the JSON alone so a stored result renders as a live one did.
 *
 *	json_t *o = nfs_stats_json(nfs_decoder_stats(d));
 *	nfs_report_text(o, stdout);
 */
#ifndef UBC_NFS_REPORT_H
#define UBC_NFS_REPORT_H

#include <stdio.h>

#include <jansson.h>

#include "../traces/nfs.h"

/* The statistics as the "nfs" object; NULL if out of memory. */
json_t *nfs_stats_json(const struct nfs_stats *s);

/* Prints an "nfs" object: totals, histograms, what was lost. */
void nfs_report_text(const json_t *nfs, FILE *fp);

#endif
