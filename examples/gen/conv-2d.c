/* loopkit: kernel=conv-2d family=user */
/*
 * conv-2d.c: a user's kernel, not part of loopkit's suite: the "valid"
 * 2-D convolution (cross-correlation, as in neural networks) of an
 * NI x NJ image with a K x K filter, out[i][j] = sum_{p,q}
 * in[i+p][j+q] * w[p][q], for the (NI-K+1) x (NJ-K+1) outputs.
 *
 * It follows the conventions of loopkit's kernels (kernels/README.md)
 * without using their header: one kernel function (kernel_conv_2d) with
 * one scop region, sizes selectable with -DMINI_DATASET ...
 * -DLARGE_DATASET or -DNI=..., and `--checksum` calls the kernel once
 * and prints `checksum <16 hex digits>` (FNV-1a over the output's bytes).
 *
 *	cc -O2 -I rt examples/gen/conv-2d.c build/lib/liblkrt.a -lm
 *	loopkit run examples/gen/conv-2d.c
 */
#include <lkrt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(MINI_DATASET)
#define DEFAULT_NI 24
#define DEFAULT_NJ 32
#elif defined(MEDIUM_DATASET)
#define DEFAULT_NI 256
#define DEFAULT_NJ 320
#elif defined(LARGE_DATASET)
#define DEFAULT_NI 1024
#define DEFAULT_NJ 1280
#else
#define DEFAULT_NI 64
#define DEFAULT_NJ 96
#endif
#ifndef NI
#define NI DEFAULT_NI
#endif
#ifndef NJ
#define NJ DEFAULT_NJ
#endif
#ifndef K
#define K 5
#endif

__attribute__((noinline)) void kernel_conv_2d(int ni, int nj, int k,
					      double in[NI][NJ], double w[K][K],
					      double out[NI][NJ])
{
	int i, j, p, q;

#pragma scop
	for (i = 0; i <= ni - k; i++)
		for (j = 0; j <= nj - k; j++) {
			out[i][j] = 0.0;
			for (p = 0; p < k; p++)
				for (q = 0; q < k; q++)
					out[i][j] += in[i + p][j + q] * w[p][q];
		}
#pragma endscop
}

#define FNV_START UINT64_C(0xcbf29ce484222325)

/* FNV-1a over bytes, continuing from the hash h. */
static uint64_t fnv1a(uint64_t h, const void *p, size_t bytes)
{
	const unsigned char *c = p;

	while (bytes--) {
		h ^= *c++;
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

int main(int argc, char **argv)
{
	static double in[NI][NJ], w[K][K], out[NI][NJ];
	int i, j, checksum = argc == 2 && !strcmp(argv[1], "--checksum");

	if (argc > 1 && !checksum) {
		fprintf(stderr, "usage: %s [--checksum]\n", argv[0]);
		return 2;
	}
	for (i = 0; i < NI; i++)
		for (j = 0; j < NJ; j++)
			in[i][j] = (double)((i * 7 + j * 3) % 17) / 17.0;
	for (i = 0; i < K; i++)
		for (j = 0; j < K; j++)
			w[i][j] = (double)(1 + i + j) / (K * K);
	if (checksum) {
		kernel_conv_2d(NI, NJ, K, in, w, out);
		printf("checksum %016llx\n",
		       (unsigned long long)fnv1a(FNV_START, out, sizeof(out)));
		return 0;
	}
	lk_init(argc, argv);
	LK_MEASURE_NAMED("conv-2d", kernel_conv_2d(NI, NJ, K, in, w, out));
	return lk_finish();
}
