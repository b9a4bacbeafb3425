/*
 * The walk over a level's working set, shared by concretisation (the
 * seeds) and replay (the loops), so that a level means the same on both
 * sides (doc/loopkit-mdl.md, "Levels: the bytes a loop touches"): the
 * level's working set is the bytes of the cache lines the calls touch,
 * not the bytes the stream pointers span. A stream walking a column
 * (a stride of a line or more) touches a line per access and skips the
 * rest of its span; its calls therefore cycle through lanes, the base
 * shifted a line at a time, so that over a sweep the lines between its
 * accesses are touched too and the array is no larger than the lines
 * it holds.
 */
#include <stdlib.h>
#include <string.h>

#include "mdl-int.h"

#define LINE 64LL

static int by_offset(const void *a, const void *b)
{
	const struct mdl_span *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

struct cluster {
	long long start, end;
};

/* The accesses (offsets modulo s, sorted) grouped into clusters: an
 * access starting less than a line after the current cluster's end
 * joins it (it may share a line with it). Returns the count. */
static size_t clusters_of(long long s, const struct mdl_span *p, size_t n,
			  struct cluster *c)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (k && p[i].off - c[k - 1].end < LINE) {
			if (p[i].off + p[i].size > c[k - 1].end)
				c[k - 1].end = p[i].off + p[i].size;
			continue;
		}
		c[k].start = p[i].off;
		c[k++].end = p[i].off + p[i].size;
	}
	/* The last cluster may run into the first one of the next period. */
	if (k > 1 && c[0].start + s - c[k - 1].end < LINE) {
		c[0].start = c[k - 1].start - s;
		if (c[k - 1].end - s > c[0].end)
			c[0].end = c[k - 1].end - s;
		k--;
	}
	return k;
}

static long long gcd(long long a, long long b)
{
	while (b) {
		long long t = a % b;

		a = b;
		b = t;
	}
	return a < 0 ? -a : a;
}

/* The line of byte b (rounding down below 0 too). */
static long long line_of(long long b)
{
	return b >= 0 ? b / LINE : -((-b + LINE - 1) / LINE);
}

/* The lines the accesses of cluster c (offsets modulo s) cover, the
 * base at a line's start; in *most, the most they cover with the base
 * aligned to any multiple of g. */
static long long cluster_lines(long long s, const struct mdl_span *acc,
			       size_t n, const struct cluster *c, long long g,
			       long long *most)
{
	long long a, l, first, aligned = 0,
		  span = (c->end - c->start) / LINE + 3;
	unsigned char *seen = lk_calloc((size_t)span, 1);
	size_t i;

	for (a = 0; a < LINE; a += g) {
		long long count = 0;

		memset(seen, 0, (size_t)span);
		first = line_of(c->start + a);
		for (i = 0; i < n; i++) {
			long long o = (acc[i].off % s + s) % s;

			if (o >= c->end)
				o -= s;       /* the part of a wrapped cluster */
			if (o < c->start || o >= c->end)
				continue;
			for (l = line_of(o + a);
			     l <= line_of(o + a + acc[i].size - 1); l++)
				if (!seen[l - first]) {
					seen[l - first] = 1;
					count++;
				}
		}
		if (!a)
			aligned = count;
		if (count > *most)
			*most = count;
	}
	free(seen);
	return aligned;
}

void mdl_stream_touch(long long stride, const struct mdl_span *acc,
		      size_t n, struct mdl_touch *out)
{
	long long s = llabs(stride), lines = 0, widest = 0, lanes = 0;
	long long g = LINE;
	struct mdl_span *sorted;
	struct cluster *c;
	size_t i, k;

	out->touched = s;
	out->lanes = 1;
	out->lane_step = 0;
	if (s < LINE || !n)
		return;
	/* the base's alignment: a multiple of every offset and size */
	for (i = 0; i < n; i++)
		g = gcd(gcd(g, acc[i].off), acc[i].size > 0 ? acc[i].size : 1);
	sorted = lk_calloc(n + 1, sizeof(*sorted));
	for (i = 0; i < n; i++) {
		sorted[i].off = (acc[i].off % s + s) % s;
		sorted[i].size = acc[i].size > 0 ? acc[i].size : 1;
	}
	qsort(sorted, n, sizeof(*sorted), by_offset);
	c = lk_calloc(n + 1, sizeof(*c));
	k = clusters_of(s, sorted, n, c);
	for (i = 0; i < k; i++) {
		long long most = 0;

		lines += cluster_lines(s, sorted, n, &c[i], g, &most);
		if (most > widest)
			widest = most;
	}
	/* Lanes a line-multiple apart, each cluster's last lane at least a
	 * line before the next cluster, whatever the base's alignment. */
	for (i = 0; i < k; i++) {
		long long next = i + 1 < k ? c[i + 1].start : c[0].start + s;
		long long room = next - c[i].end - (LINE - 1);
		long long fit = 1 + (room > 0 ? room / (widest * LINE) : 0);

		if (!lanes || fit < lanes)
			lanes = fit;
	}
	free(c);
	free(sorted);
	if (lines * LINE >= s)
		return;              /* every line of the span: dense */
	out->touched = lines * LINE;
	out->lanes = lanes;
	out->lane_step = widest * LINE;
}

long mdl_walk_trips(long sweep, long per_call, long t_min, long lanes)
{
	long t = sweep < per_call ? sweep : per_call;
	long all = lanes > 1 ? sweep / lanes : t;

	if (all < t)
		t = all > t_min ? all : t_min < t ? t_min : t;
	return t >= 1 ? t : 1;
}

void mdl_walk_cycle(long chunks, long lanes, long *blocks, long *used)
{
	if (chunks < 1)
		chunks = 1;
	if (lanes < 1)
		lanes = 1;
	*blocks = (chunks + lanes - 1) / lanes;
	*used = (chunks + *blocks - 1) / *blocks;
}

const char mdl_walk_lane_c[] =
	"/* Lane i of n in the order 0, 2, 4, ..., 1, 3, ...: a lane's\n"
	" * neighbours, whose lines an adjacent-line prefetcher fetches with\n"
	" * its own, come half a sweep later. */\n"
	"static long lk_mdl_lane(long i, long n)\n"
	"{\n"
	"\tlong h = (n + 1) / 2;\n"
	"\n"
	"\treturn i < h ? 2 * i : 2 * (i - h) + 1;\n"
	"}\n\n";
