/*
 * mdl's walk over a level's working set (src/mdl/walk.c): what a stream
 * touches per iteration, its lanes, and the cycle of blocks and lanes.
 * The lanes are checked by simulation: for every alignment of the base,
 * no two lanes touch a common line, and each lane touches the lines it
 * is counted for.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/mdl/mdl-int.h"

TestSuite(mdl_walk);

static void touch(long long stride, const long long *off,
		  const long long *size, size_t n, struct mdl_touch *t)
{
	struct mdl_span sp[16];
	size_t i;

	cr_assert(n <= 16);
	for (i = 0; i < n; i++) {
		sp[i].off = off[i];
		sp[i].size = size[i];
	}
	mdl_stream_touch(stride, sp, n, t);
}

Test(mdl_walk, dense_under_a_line)
{
	long long off[] = {0, 8, -8}, size[] = {8, 8, 8};
	struct mdl_touch t;

	touch(8, off, size, 3, &t);
	cr_assert_eq(t.touched, 8);
	cr_assert_eq(t.lanes, 1);
	touch(-32, off, size, 1, &t);
	cr_assert_eq(t.touched, 32);
	cr_assert_eq(t.lanes, 1);
}

Test(mdl_walk, contiguous_vectors_are_dense)
{
	long long off[] = {0, 32, 64, 96}, size[] = {32, 32, 32, 32};
	struct mdl_touch t;

	touch(128, off, size, 4, &t);
	cr_assert_eq(t.touched, 128);
	cr_assert_eq(t.lanes, 1);
}

Test(mdl_walk, column_touches_a_line)
{
	long long off[] = {0}, size[] = {8};
	struct mdl_touch t;

	touch(3200, off, size, 1, &t);
	cr_assert_eq(t.touched, 64);
	cr_assert_eq(t.lane_step, 64);
	/* 1 + floor((3200 - 8 - 63) / 64) */
	cr_assert_eq(t.lanes, 49);
	touch(-3200, off, size, 1, &t);
	cr_assert_eq(t.touched, 64);
	cr_assert_eq(t.lanes, 49);
}

Test(mdl_walk, column_stencil_reuses_its_neighbours)
{
	/* a[i-1][j], a[i][j], a[i+1][j] walking i: one new line each. */
	long long off[] = {-576, 0, 576}, size[] = {8, 8, 8};
	struct mdl_touch t;

	touch(576, off, size, 3, &t);
	cr_assert_eq(t.touched, 64);
	cr_assert_eq(t.lanes, 8);
}

Test(mdl_walk, two_lines_apart)
{
	/* the kernelified covariance: two columns 160 bytes apart */
	long long off[] = {0, 160}, size[] = {8, 8};
	struct mdl_touch t;

	touch(576, off, size, 2, &t);
	cr_assert_eq(t.touched, 128);
	cr_assert_eq(t.lanes, 2);
}

Test(mdl_walk, unrolled_column)
{
	/* a column walk unrolled 4 times: the accesses 320 bytes apart */
	long long off[] = {0, 320, 640, 960}, size[] = {8, 8, 8, 8};
	struct mdl_touch t;

	touch(1280, off, size, 4, &t);
	cr_assert_eq(t.touched, 256);
	cr_assert_eq(t.lanes, 4);
	cr_assert_eq(t.lane_step, 64);
}

Test(mdl_walk, two_line_cluster_steps_two_lines)
{
	long long off[] = {0, 64}, size[] = {8, 8};
	struct mdl_touch t;

	touch(1024, off, size, 2, &t);
	cr_assert_eq(t.touched, 128);
	cr_assert_eq(t.lane_step, 128);
	cr_assert_eq(t.lanes, 1 + (1024 - 72 - 63) / 128);
}

Test(mdl_walk, straddling_access_spaces_its_lanes)
{
	/* 16 bytes at 24: one line from a line-aligned base, two from a
	 * base at 56 (mod 64), so the lanes step two lines */
	long long off[] = {24}, size[] = {16};
	struct mdl_touch t;

	touch(3200, off, size, 1, &t);
	cr_assert_eq(t.touched, 64);
	cr_assert_eq(t.lane_step, 128);
	cr_assert_eq(t.lanes, 1 + (3200 - 40 - 63) / 128);
}

Test(mdl_walk, wrapping_cluster)
{
	/* offsets 0 and stride - 8: one cluster across the period's end */
	long long off[] = {0, 568}, size[] = {8, 8};
	struct mdl_touch t;

	touch(576, off, size, 2, &t);
	cr_assert_eq(t.touched, 128);     /* lines -1 and 0 */
	cr_assert_eq(t.lane_step, 128);
	cr_assert_eq(t.lanes, 1 + (576 - 16 - 63) / 128);
}

/*
 * For every alignment of the base, lanes 0..lanes-1 of a stream over
 * iterations 0..iters-1: no line is touched by two lanes, and each lane
 * touches at most touched / 64 new lines per iteration (plus one line
 * per cluster for a misaligned base).
 */
static void check_disjoint(long long stride, const long long *off,
			   const long long *size, size_t n, long iters)
{
	struct mdl_touch t;
	long long s = llabs(stride), lo = 0, hi = 0, a, nlines;
	unsigned char *owner;
	long lane, it;
	size_t i;

	touch(stride, off, size, n, &t);
	for (i = 0; i < n; i++) {
		if (off[i] < lo)
			lo = off[i];
		if (off[i] + size[i] > hi)
			hi = off[i] + size[i];
	}
	nlines = (s * iters + hi - lo + t.lanes * t.lane_step) / 64 + 4;
	owner = malloc((size_t)nlines);
	cr_assert(owner);
	for (a = 0; a < 64; a += 8) {
		memset(owner, 0xff, (size_t)nlines);
		for (lane = 0; lane < t.lanes; lane++) {
			long count = 0;

			for (it = 0; it < iters; it++)
				for (i = 0; i < n; i++) {
					long long b = a - lo + it * s +
						      off[i] +
						      lane * t.lane_step;
					long long l, first = b / 64,
						     last = (b + size[i] - 1) / 64;

					for (l = first; l <= last; l++) {
						cr_assert(l >= 0 && l < nlines);
						if (owner[l] == 0xff) {
							owner[l] = (unsigned char)lane;
							count++;
						}
						cr_assert_eq(owner[l], lane,
							     "stride %lld lane %ld "
							     "meets lane %d at "
							     "alignment %lld",
							     stride, lane,
							     owner[l], a);
					}
				}
			cr_assert_leq(count * 64, iters * (t.touched + 64 *
							   (long long)n) + 128);
		}
	}
	free(owner);
}

Test(mdl_walk, lanes_never_share_a_line)
{
	long long o1[] = {0}, s1[] = {8};
	long long o2[] = {0, 160}, s2[] = {8, 8};
	long long o3[] = {0, 320, 640, 960}, s3[] = {8, 8, 8, 8};
	long long o4[] = {-576, 0, 576}, s4[] = {8, 8, 8};
	long long o5[] = {0, 64}, s5[] = {32, 8};
	long long o6[] = {24, 1600}, s6[] = {16, 32};
	long long o7[] = {0, 568}, s7[] = {8, 8};
	long long o8[] = {4, 700}, s8[] = {4, 4};

	check_disjoint(3200, o1, s1, 1, 20);
	check_disjoint(704, o1, s1, 1, 20);
	check_disjoint(576, o2, s2, 2, 20);
	check_disjoint(1280, o3, s3, 4, 20);
	check_disjoint(576, o4, s4, 3, 20);
	check_disjoint(1024, o5, s5, 2, 20);
	check_disjoint(3200, o6, s6, 2, 20);
	check_disjoint(576, o7, s7, 2, 20);
	check_disjoint(-2368, o1, s1, 1, 20);
	check_disjoint(1344, o8, s8, 2, 20);
}

Test(mdl_walk, cycle_covers_every_call_once)
{
	long chunks, lanes, blocks, used;

	for (chunks = 1; chunks <= 300; chunks++)
		for (lanes = 1; lanes <= 60; lanes++) {
			mdl_walk_cycle(chunks, lanes, &blocks, &used);
			cr_assert(used >= 1 && used <= lanes);
			cr_assert(blocks >= 1);
			cr_assert_geq(blocks * used, chunks);
			/* every lane used has a call */
			cr_assert_lt(blocks * (used - 1), chunks);
			if (chunks >= lanes)
				cr_assert_eq(blocks, (chunks + lanes - 1) /
							     lanes);
			else
				cr_assert_eq(used, chunks);
		}
}
