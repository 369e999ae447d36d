/*
 * kernel_fuzz.c - libFuzzer target for the kernel image parsing of
 * vm/kernel.c: the input is the start of a file given to `vm -k` (a
 * bzImage's setup header and version string, vm_kernel_parse) and an ELF
 * image searched for its PVH entry note (vm_kernel_haspvh) and its section
 * headers for UML's (vm_uml_is, vm/uml_kernel.c), as a hostile or damaged
 * kernel might hand them over. None may crash or read past
 * the input (ASan and UBSan watch), and what the parser fills in must be
 * what it promises: terminated strings, a release that is a plain file
 * name, a payload wholly inside the file.
 *
 *	make fuzz-kernel FUZZ_SECONDS=60
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vm/vm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vm_bzimage b;
	char err[256];

	vm_kernel_haspvh(data, size);
	vm_uml_is(data, size);
	if (vm_kernel_parse(data, size, size, &b, err, sizeof(err)) == -1) {
		if (err[0] == '\0' || memchr(err, '\0', sizeof(err)) == NULL)
			abort(); /* a failure must say why */
		return 0;
	}
	if (memchr(b.version, '\0', sizeof(b.version)) == NULL ||
	    memchr(b.release, '\0', sizeof(b.release)) == NULL ||
	    b.release[0] == '\0' || strchr(b.release, '/') != NULL ||
	    strchr(b.release, '\n') != NULL)
		abort();
	if (b.payload_len == 0) {
		if (b.nopayload[0] == '\0')
			abort();
		return 0;
	}
	if (b.payload_off > size || b.payload_len > size - b.payload_off)
		abort();
	/* The payload as the unpacked ELF: its bytes must all be there. */
	vm_kernel_haspvh(data + b.payload_off, (size_t)b.payload_len);
	return 0;
}
