/*
 * ffs_image_fuzz.c - libFuzzer target for ffs_image_layout (traces/
 * ffs_image.h): the input is an FFS image, its size the image's. Seeded
 * with small real images (fixtures/ffs_image_fuzz: makefs's UFS1 and UFS2,
 * both byte orders). The decoder must never crash, read or allocate past
 * what the image bounds, or loop; what it returns must hold: an error is a
 * terminated message and an empty layout, a layout is sorted, disjoint and
 * inside the image.
 *
 *	make fuzz-ffs_image FUZZ_SECONDS=120
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz/fuzzfile.h"
#include "traces/ffs_image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct layout l;
	char err[256];
	int fd = open(fuzz_input_file(data, size), O_RDONLY);
	uint64_t end = 0;

	if (fd == -1)
		abort();
	layout_init(&l, "ffs");
	if (ffs_image_layout(fd, &l, err, sizeof(err)) == -1) {
		if (memchr(err, '\0', sizeof(err)) == NULL || l.n != 0)
			abort();
	} else {
		if (!l.finished)
			abort();
		for (size_t i = 0; i < l.n; i++) {
			if (l.ext[i].off < end || l.ext[i].len == 0 ||
			    l.ext[i].off + l.ext[i].len > size ||
			    l.ext[i].cls >= LAYOUT_NCLASS)
				abort();
			end = l.ext[i].off + l.ext[i].len;
		}
		if (memchr(l.note, '\0', sizeof(l.note)) == NULL)
			abort();
	}
	layout_free(&l);
	close(fd);
	return 0;
}
