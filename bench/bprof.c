/*
 * bench/bprof.sh's driver: measure each block (its machine code in a
 * file, its AT&T text in another) REPEATS times with the bprof predictor,
 * each time in a fresh sandboxed child, and print per block the median,
 * minimum and maximum prediction, their spread and the time per block.
 *   bprof REPEATS NAME CODE.bin TEXT.s [NAME CODE.bin TEXT.s ...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/bprof.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int bench_one(struct lk_ctx *ctx, struct lk_predictor *p, int repeats,
		     const char *name, const char *bin, const char *text)
{
	struct lk_pblock b = {.hash = name, .addr = 0x401000};
	double *v = calloc(repeats, sizeof(*v)), secs = 0;
	char *code = NULL, *att = NULL, *status = NULL, *reason = NULL;
	size_t len, tlen;
	int i, n = 0;

	if (lk_file_read(ctx, bin, &code, &len) ||
	    lk_file_read(ctx, text, &att, &tlen))
		return -1;
	b.bytes = (const uint8_t *)code;
	b.len = len;
	b.att = b.intel = att;
	for (i = 0; i < repeats; i++) {
		struct lk_pred out = {0};

		if (p->predict(ctx, p, &b, 1, &out))
			return -1;
		secs += out.seconds;
		if (!strcmp(out.status, "ok"))
			v[n++] = out.value;
		free(status);
		free(reason);
		status = strdup(out.status);
		reason = strdup(out.reason);
		lk_pred_release(&out);
	}
	qsort(v, n, sizeof(*v), cmp);
	if (n)
		printf("%-12s %8.3f %8.3f %8.3f %7.2f%% %8.2f  %d/%d ok\n",
		       name, v[n / 2], v[0], v[n - 1],
		       (v[n - 1] / v[0] - 1) * 100, secs / repeats * 1e3, n,
		       repeats);
	else
		printf("%-12s %s: %s\n", name, status, reason);
	free(status);
	free(reason);
	free(code);
	free(att);
	free(v);
	return 0;
}

int main(int argc, char **argv)
{
	struct lk_predictor *p;
	struct lk_ctx ctx;
	int repeats, i;

	if (argc < 5 || (argc - 2) % 3) {
		fprintf(stderr, "usage: %s REPEATS NAME CODE.bin TEXT.s ...\n",
			argv[0]);
		return 2;
	}
	lk_ctx_init(&ctx);
	repeats = atoi(argv[1]);
	if (lk_bprof_predictor(&ctx, NULL, &p)) {
		fprintf(stderr, "bprof: %s\n", ctx.msg);
		return 1;
	}
	printf("# bprof %s: %s\n", p->version, p->params);
	printf("%-12s %8s %8s %8s %8s %8s\n", "block", "median", "min", "max",
	       "spread", "ms/block");
	for (i = 2; i + 2 < argc; i += 3)
		if (bench_one(&ctx, p, repeats, argv[i], argv[i + 1],
			      argv[i + 2])) {
			fprintf(stderr, "bprof: %s\n", ctx.msg);
			return 1;
		}
	lk_predictor_free(p);
	return 0;
}
