/*
 * Parse speed of memprof traces: builds a trace of N calls with known
 * nesting (main, then blocks of f > g > h, h), renders it as text and as
 * LKTRACE1 in memory, and times lk_trace_parse_text and
 * lk_trace_read_binary on them (best of a few runs), then checks the
 * tree of what was read. Prints lines/s and records/s.
 *
 *   memprof-parse [N]      (default 10000000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/memprof.h"

static void make_trace(struct lk_trace *t, size_t n)
{
	const uint32_t shape[4] = {1, 2, 3, 3};  /* f, g, h, h */
	uint64_t at = 1000;
	size_t i;

	memset(t, 0, sizeof(*t));
	lk_strv_push(&t->names, "main");
	lk_strv_push(&t->names, "compute_kernel_f");
	lk_strv_push(&t->names, "ns::helper_g");
	lk_strv_push(&t->names, "leaf_h");
	t->calls = lk_calloc(n, sizeof(*t->calls));
	t->ncalls = t->alloc = n;
	t->calls[0] = (struct lk_call){0, 0, 0, 0, 0};
	for (i = 1; i < n; i++) {
		uint32_t f = shape[(i - 1) % 4];
		struct lk_call *c = &t->calls[i];

		c->id = i;
		c->func = f;
		c->depth = f < 3 ? f : 3;
		c->enter = at;
		/* f [at, at+100), g [at+10, at+90), h [+20, +30), h [+40, +50) */
		switch ((i - 1) % 4) {
		case 0: c->exit = at + 100; break;
		case 1: c->enter = at + 10; c->exit = at + 90; break;
		case 2: c->enter = at + 20; c->exit = at + 30; break;
		default:
			c->enter = at + 40;
			c->exit = at + 50;
			at += 200;
		}
	}
	t->calls[0].exit = at + 1000;
}

static double best_of(int runs, int (*fn)(void *), void *arg)
{
	double best = 1e30, t0;
	int i;

	for (i = 0; i < runs; i++) {
		t0 = lk_now();
		if (fn(arg))
			return -1;
		t0 = lk_now() - t0;
		if (t0 < best)
			best = t0;
	}
	return best;
}

struct job {
	struct lk_ctx ctx;
	struct lk_buf data;
	struct lk_trace out;
};

static int parse_text(void *arg)
{
	struct job *j = arg;

	lk_trace_release(&j->out);
	return lk_trace_parse_text(&j->ctx, "bench", j->data.buf, j->data.len,
				   1, &j->out, NULL);
}

static int read_binary(void *arg)
{
	struct job *j = arg;

	lk_trace_release(&j->out);
	return lk_trace_read_binary(&j->ctx, "bench", j->data.buf, j->data.len,
				    &j->out);
}

/* The tree of what was read must be the generated one (text traces do
 * not carry the depth: compare with the generated calls). */
static int check(struct job *j, const struct lk_trace *want, size_t n)
{
	struct lk_call_node *nodes;
	uint64_t self;
	size_t i;
	int ret = 0;

	if (j->out.ncalls != n || lk_calltree_build(&j->ctx, &j->out, &nodes))
		return -1;
	for (i = 1; i < n && !ret; i++) {
		self = (i - 1) % 4 == 0 ? 20 : (i - 1) % 4 == 1 ? 60 : 10;
		if (nodes[i].self != self ||
		    nodes[i].depth != want->calls[i].depth)
			ret = -1;
	}
	free(nodes);
	return ret;
}

static int run(const char *what, const char *unit, struct job *j,
	       const struct lk_trace *want, int (*fn)(void *), double target)
{
	size_t n = want->ncalls;
	double s = best_of(3, fn, j);

	if (s < 0 || check(j, want, n)) {
		fprintf(stderr, "memprof-parse: %s: %s\n", what,
			j->ctx.msg[0] ? j->ctx.msg : "wrong result");
		return 1;
	}
	printf("%-7s %10zu %s  %7.3f s  %6.2f M %s/s  (target >= %.0f M/s) %s\n",
	       what, n, unit, s, (double)n / s / 1e6, unit, target,
	       (double)n / s / 1e6 >= target ? "ok" : "BELOW");
	return 0;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000000;
	struct lk_trace t;
	struct job j = {0};
	int ret;

	/* main and whole blocks of four, so every self time is known. */
	n = n < 5 ? 5 : n + (4 - (n - 1) % 4) % 4;
	make_trace(&t, n);
	lk_ctx_init(&j.ctx);
	lk_trace_text(&t, &j.data);
	printf("text trace: %.1f MB, binary: %.1f MB\n", j.data.len / 1e6,
	       (32.0 + 50 + 32.0 * (double)n) / 1e6);
	ret = run("text", "lines", &j, &t, parse_text, 2);
	lk_buf_reset(&j.data);
	lk_trace_write_binary(&t, &j.data);
	ret |= run("binary", "records", &j, &t, read_binary, 20);
	lk_trace_release(&j.out);
	lk_trace_release(&t);
	lk_buf_release(&j.data);
	return ret;
}
