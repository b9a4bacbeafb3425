/* loopkit: kernel=blur-2d family=user */
/*
 * blur-2d.c: a user's kernel, not part of loopkit's suite: a separable
 * 3x3 blur with the binomial weights 1 2 1 / 4, first along the rows
 * into tmp, then along the columns of tmp into out, on the interior
 * of an H x W image (the border is copied).
 *
 * It follows the conventions of loopkit's kernels (kernels/README.md)
 * without using their header: one kernel function (kernel_blur_2d) with
 * one scop region, sizes selectable with -DMINI_DATASET ...
 * -DLARGE_DATASET or -DH=..., and `--checksum` calls the kernel once
 * and prints `checksum <16 hex digits>` (FNV-1a over the output's bytes).
 *
 *	cc -O2 -I rt examples/gen/blur-2d.c build/lib/liblkrt.a -lm
 *	loopkit run examples/gen/blur-2d.c
 */
#include <lkrt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(MINI_DATASET)
#define DEFAULT_H 20
#define DEFAULT_W 36
#elif defined(MEDIUM_DATASET)
#define DEFAULT_H 300
#define DEFAULT_W 400
#elif defined(LARGE_DATASET)
#define DEFAULT_H 1080
#define DEFAULT_W 1920
#else
#define DEFAULT_H 60
#define DEFAULT_W 100
#endif
#ifndef H
#define H DEFAULT_H
#endif
#ifndef W
#define W DEFAULT_W
#endif

__attribute__((noinline)) void kernel_blur_2d(int h, int w, double img[H][W],
					      double tmp[H][W],
					      double out[H][W])
{
	int y, x;

#pragma scop
	for (y = 0; y < h; y++) {
		tmp[y][0] = img[y][0];
		for (x = 1; x < w - 1; x++)
			tmp[y][x] = 0.25 * img[y][x - 1] + 0.5 * img[y][x] +
				    0.25 * img[y][x + 1];
		tmp[y][w - 1] = img[y][w - 1];
	}
	for (x = 0; x < w; x++) {
		out[0][x] = tmp[0][x];
		out[h - 1][x] = tmp[h - 1][x];
	}
	for (y = 1; y < h - 1; y++)
		for (x = 0; x < w; x++)
			out[y][x] = 0.25 * tmp[y - 1][x] + 0.5 * tmp[y][x] +
				    0.25 * tmp[y + 1][x];
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
	static double img[H][W], tmp[H][W], out[H][W];
	int y, x, checksum = argc == 2 && !strcmp(argv[1], "--checksum");

	if (argc > 1 && !checksum) {
		fprintf(stderr, "usage: %s [--checksum]\n", argv[0]);
		return 2;
	}
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++)
			img[y][x] = (double)((y * 31 + x * 17) % 64) / 63.0;
	if (checksum) {
		kernel_blur_2d(H, W, img, tmp, out);
		printf(
		    "checksum %016llx\n",
		    (unsigned long long)fnv1a(
			fnv1a(FNV_START, tmp, sizeof(tmp)), out, sizeof(out)));
		return 0;
	}
	lk_init(argc, argv);
	LK_MEASURE_NAMED("blur-2d", kernel_blur_2d(H, W, img, tmp, out));
	return lk_finish();
}
