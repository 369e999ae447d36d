/*
 * wtrace_fuzz.c - libFuzzer target for workload traces (`ubcreplay
 * record`, replayed by the main job): wtrace_load_mem and every record of
 * it through wtrace_next, the replay's order of it (wtrace_order_make,
 * and each record read again where it says), then the replay's own check
 * of the whole trace (replay_wtrace_identify) on the input as a file, plain
 * or gzip'd. Seeds: fixtures/wtrace_fuzz/, real recordings (bsdtar -x, a
 * shell script's renames and links).
 *
 *	make fuzz-wtrace FUZZ_SECONDS=60
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzzfile.h"
#include "model/wtrace.h"
#include "replay/replay.h"
#include "replay/wtrace_order.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct replay_wtrace_info info;
	struct wtrace_order o;
	struct wtrace_rec r;
	struct wtrace t;
	char err[512];

	if (wtrace_load_mem(data, size, "fuzz", &t, err, sizeof(err)) == 0) {
		while (wtrace_next(&t, &r, err, sizeof(err)) == 1)
			fprintf(fuzz_sink(), "%s %s\n", wtrace_op_name(r.op),
			    r.path);
		if (wtrace_order_make(&t, &o, err, sizeof(err)) == 0) {
			for (uint64_t i = 0; i < o.nops; i++)
				if (wtrace_read_at(&t, &o.place[i], &r, err,
				        sizeof(err)) == -1)
					abort();
			wtrace_order_free(&o);
		}
		wtrace_free(&t);
	}
	(void)replay_wtrace_identify(
	    fuzz_input_file(data, size), &info, err, sizeof(err));
	return 0;
}
