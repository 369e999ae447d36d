/*
 * sha256.c - SHA-256 as FIPS 180-4 defines it, for the kernel's digest in
 * the result (the digest says which image ran, whatever its file is
 * called) and a plan's cell identities (vm/plan.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vm_impl.h"

static const uint32_t K[64] = {0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5,
    0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
    0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa,
    0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138,
    0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624,
    0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
    0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f,
    0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t
ror(uint32_t x, int n)
{
	return x >> n | x << (32 - n);
}

static void
block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], v[8];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 =
		    ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ w[i - 15] >> 3;
		uint32_t s1 =
		    ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ w[i - 2] >> 10;

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, h, sizeof(v));
	for (int i = 0; i < 64; i++) {
		uint32_t s1 = ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25);
		uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
		uint32_t t1 = v[7] + s1 + ch + K[i] + w[i];
		uint32_t s0 = ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22);
		uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);

		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + s0 + maj;
	}
	for (int i = 0; i < 8; i++)
		h[i] += v[i];
}

/* The running state of one digest: up to 63 bytes wait for a block. */
struct sha {
	uint32_t h[8];
	unsigned char buf[64];
	size_t have;
	uint64_t total;
};

static void
sha_init(struct sha *s)
{
	static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
	    0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

	memcpy(s->h, iv, sizeof(iv));
	s->have = 0;
	s->total = 0;
}

static void
sha_update(struct sha *s, const unsigned char *p, size_t len)
{
	s->total += len;
	while (len > 0) {
		size_t n = 64 - s->have < len ? 64 - s->have : len;

		memcpy(s->buf + s->have, p, n);
		s->have += n;
		p += n;
		len -= n;
		if (s->have == 64) {
			block(s->h, s->buf);
			s->have = 0;
		}
	}
}

/* Padding: 0x80, zeros, and the length in bits, big-endian. */
static void
sha_final(struct sha *s, char hex[65])
{
	unsigned char pad[72] = {0x80};
	uint64_t bits = s->total * 8;
	size_t n = (s->have < 56 ? 56 : 120) - s->have;

	for (int i = 0; i < 8; i++)
		pad[n + (size_t)i] = (unsigned char)(bits >> (8 * (7 - i)));
	sha_update(s, pad, n + 8);
	for (int i = 0; i < 8; i++)
		snprintf(hex + 8 * i, 9, "%08x", (unsigned)s->h[i]);
}

void
vm_sha256(const void *data, size_t len, char hex[65])
{
	struct sha s;

	sha_init(&s);
	sha_update(&s, data, len);
	sha_final(&s, hex);
}

int
vm_sha256_file(const char *path, char hex[65], char *err, size_t errlen)
{
	unsigned char buf[65536];
	struct sha s;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(
		    err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	sha_init(&s);
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			snprintf(err, errlen, "cannot read '%s': %s", path,
			    strerror(errno));
			close(fd);
			return -1;
		}
		sha_update(&s, buf, (size_t)n);
	}
	close(fd);
	sha_final(&s, hex);
	return 0;
}
