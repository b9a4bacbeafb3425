/*
 * loopkit mdl replay: a binary's innermost loop re-run verbatim with its
 * bases walking the working set of a memory level (doc/loopkit-mdl.md,
 * "replay"). Like db build, it joins two stages through the store: mdl
 * writes the benchmark and records it as a variant of the campaign
 * <binary>:mdl-replay, measure runs it, and its figure is read back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loopkit/binary.h"
#include "loopkit/config.h"
#include "loopkit/mdl.h"
#include "loopkit/measure.h"

static const char usage[] =
	"BINARY|FILE.s --level L1|L2|L3|RAM [options]\n\n"
	"Re-run the loop's own bytes (default: of the measured kernel's\n"
	"innermost loops, the deepest that extraction accepts) with its base\n"
	"registers walking arrays of the level's working set, and print its\n"
	"tsc-calibrated cycles per iteration of the compiled loop and per\n"
	"canonical iteration (meta.unroll). A loop that cannot be replayed\n"
	"says why ('refused: REASON'; exit 0).";

struct rargs {
	const char *function, *loop, *level, *dir;
	long bytes, max_streams;
	int dry_run, json, quiet;
	uint64_t addr;
};

static int check_args(struct rargs *a, struct lk_mdl_replay_opts *o)
{
	const char *cmd = "mdl replay";

	if (!a->level)
		return lk_cli_usage_error(cmd, "--level: L1, L2, L3 or RAM "
					  "is required");
	if (lk_mdl_level_parse(a->level, &o->level))
		return lk_cli_usage_error(cmd, "--level: '%s' is not L1, L2, "
					  "L3 or RAM", a->level);
	if (a->bytes < 0 || (a->bytes > 0 && a->bytes < 64) ||
	    a->bytes > (1L << 40))
		return lk_cli_usage_error(cmd, "--bytes: %ld is not between "
					  "64 and 1 TiB", a->bytes);
	if (a->max_streams < 1 || a->max_streams > 14)
		return lk_cli_usage_error(cmd, "--max-streams: %ld is not "
					  "between 1 and 14", a->max_streams);
	if (cmd_mdl_loop_addr(cmd, a->loop, &a->addr))
		return 2;
	o->bytes = a->bytes;
	o->max_streams = (int)a->max_streams;
	return 0;
}

static void print_refusal(const struct rargs *a,
			  const struct lk_mdl_replay *r)
{
	struct lk_buf b = LK_BUF_INIT;

	if (!a->json) {
		printf("refused: %s\n", r->reason);
		return;
	}
	lk_buf_adds(&b, "{\"status\": \"refused\", \"reason\": ");
	lk_buf_add_json_str(&b, r->reason);
	lk_buf_addf(&b, ", \"loop\": \"0x%llx\", \"level\": \"%s\", "
		    "\"bytes\": %ld}\n", (unsigned long long)r->loop,
		    lk_mdl_level_name(r->level), r->bytes);
	fputs(lk_buf_str(&b), stdout);
	lk_buf_release(&b);
}

static char *campaign_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return lk_asprintf("%s:mdl-replay", slash ? slash + 1 : path);
}

int cmd_mdl_replay_measure(struct lk_ctx *ctx, struct lk_store *s,
			   int64_t campaign, const char *name, int quiet,
			   struct lk_run_summary *sum)
{
	struct lk_sweep *sw = lk_sweep_new();
	struct lk_run_opts o = {.jobs = 1, .quiet = quiet};
	int ret;

	free(sw->name);
	sw->name = lk_strdup(name);
	sw->gen.present = 1;      /* measure the variants the store holds */
	/* The default method (three launches): the ground truth must
	 * survive a busy sibling core, which one short launch does not. */
	ret = lk_run_sweep(ctx, s, campaign, sw, &o, sum);
	lk_sweep_free(sw);
	return ret;
}

static int print_result(struct lk_ctx *ctx, struct lk_store *s,
			const struct rargs *a, const struct lk_mdl_replay *r,
			const char *campaign, int64_t campaign_id,
			int64_t variant)
{
	struct lk_run_figure f = {0};
	struct lk_mdl_clock clock;
	double per, canon, at;
	int ret = lk_mdl_clock_read(ctx, s, campaign_id, &clock);

	if (!ret)
		ret = lk_mdl_figure(ctx, s, variant, r->level, &clock, &f);
	if (!ret)
		ret = lk_mdl_figure_clock(ctx, s, variant, &clock, &at);
	if (ret) {
		lk_run_figure_release(&f);
		return ret;
	}
	if (!lk_run_figure_usable(&f)) {
		ret = lk_error(ctx, LK_ECHILD, "%s: the replay of loop 0x%llx "
			       "did not measure (%s): see 'loopkit export -o "
			       "%s'", campaign, (unsigned long long)r->loop,
			       f.status ? f.status : "no run", a->dir);
		lk_run_figure_release(&f);
		return ret;
	}
	per = f.value / (double)r->trips;
	canon = per / (double)r->unroll;
	if (a->json)
		printf("{\"status\": \"ok\", \"reason\": null, \"loop\": "
		       "\"0x%llx\", \"level\": \"%s\", \"bytes\": %ld, "
		       "\"cycles_per_iteration\": %.17g, "
		       "\"cycles_per_canonical_iteration\": %.17g, \"source\": "
		       "\"%s\", \"unroll\": %ld, \"trips\": %ld, "
		       "\"kept_trips\": %s, \"chunks\": %ld, \"streams\": %zu, "
		       "\"run_status\": \"%s\", \"spread\": %.6g, "
		       "\"clock\": %.6g, \"campaign\": \"%s\", "
		       "\"variant\": %lld}\n",
		       (unsigned long long)r->loop, lk_mdl_level_name(r->level),
		       r->bytes, per, canon, f.source, r->unroll, r->trips,
		       r->kept ? "true" : "false", r->chunks, r->streams,
		       f.status, f.spread, at, campaign,
		       (long long)variant);
	else
		printf("%-4s %.6g cycles/iter, %.6g per canonical iteration "
		       "(unroll %ld; %s; loop 0x%llx, %ld bytes, "
		       "%ld iterations x %ld chunks, %zu streams%s)\n",
		       lk_mdl_level_name(r->level), per, canon, r->unroll,
		       f.source, (unsigned long long)r->loop, r->bytes,
		       r->trips, r->chunks, r->streams,
		       strcmp(f.status, "ok") ? "; unstable" : "");
	lk_run_figure_release(&f);
	return 0;
}

static int record_and_measure(struct lk_ctx *ctx, const struct rargs *a,
			      const struct mdl_input *in,
			      const struct lk_mdl_replay *r,
			      const struct lk_buf *c)
{
	char *name = campaign_name(in->path);
	struct lk_store *s = NULL;
	int64_t campaign, variant;
	int ret = lk_store_open(ctx, a->dir, LK_STORE_CREATE, &s);

	if (!ret)
		ret = lk_store_campaign(ctx, s, name, NULL, NULL, &campaign);
	if (!ret)
		ret = lk_mdl_replay_record(ctx, s, campaign, r, c, &variant);
	if (!ret) {
		struct lk_run_summary sum;

		ret = cmd_mdl_replay_measure(ctx, s, campaign, name,
					     a->quiet || a->json, &sum);
		lk_run_summary_release(&sum);
	}
	if (!ret)
		ret = print_result(ctx, s, a, r, name, campaign, variant);
	lk_store_close(s);
	free(name);
	return ret;
}

static int replay(struct lk_ctx *ctx, const struct rargs *a,
		  const struct mdl_input *in,
		  const struct lk_mdl_replay_opts *o)
{
	struct lk_mdl_replay_opts ro = *o;
	struct lk_buf c = LK_BUF_INIT;
	struct lk_mdl_replay r = {0};
	struct lk_function fn;
	struct lk_mdl_pick pick;
	struct lk_cfg cfg;
	size_t head = 0;
	int inlined = 0, ret;

	ret = in->name ? lk_elf_function(ctx, in->binary, in->name, &fn) :
			 lk_elf_roi_function(ctx, in->binary, &fn, &inlined);
	if (ret)
		return ret;
	if ((ret = lk_cfg_build(ctx, lk_decoder_x86_64(), &fn, &cfg)))
		return ret;
	ret = lk_mdl_pick_loop(ctx, &cfg, a->addr, in->path, &pick);
	if (!ret && !a->addr)
		cmd_mdl_pick_note(&pick, cfg.fn.name);
	head = pick.head;
	lk_mdl_pick_release(&pick);
	ro.source = in->path;
	if (!ret)
		ret = lk_mdl_replay(ctx, &cfg, head, &ro, &r, &c);
	if (!ret && r.refused)
		print_refusal(a, &r);
	else if (!ret && a->dry_run)
		printf("/* dry run: would record this file in campaign "
		       "%s:mdl-replay of %s and measure %ld iterations of loop "
		       "0x%llx per call (%ld canonical each), %ld chunks, %ld "
		       "bytes at %s */\n%s", strrchr(in->path, '/') ?
		       strrchr(in->path, '/') + 1 : in->path, a->dir, r.trips,
		       (unsigned long long)r.loop, r.unroll, r.chunks, r.bytes,
		       lk_mdl_level_name(r.level), lk_buf_str(&c));
	else if (!ret)
		ret = record_and_measure(ctx, a, in, &r, &c);
	lk_mdl_replay_release(&r);
	lk_buf_release(&c);
	lk_cfg_release(&cfg);
	if (!ret && fflush(stdout))
		ret = lk_error_errno(ctx, "writing the output");
	return ret;
}

int cmd_mdl_replay(int argc, char **argv)
{
	struct rargs a = {NULL, NULL, NULL, LK_STORE_DEFAULT_DIR, 0, 7, 0, 0,
			  0, 0};
	const struct lk_opt opts[] = {
		{'f', "function", LK_OPT_STRING, &a.function, "NAME",
		 "this function (default: the measured kernel)"},
		{0, "loop", LK_OPT_STRING, &a.loop, "ADDR",
		 "the loop whose first instruction is at ADDR"},
		{0, "level", LK_OPT_STRING, &a.level, "L",
		 "working set of L1, L2, L3 or RAM (required)"},
		{0, "bytes", LK_OPT_LONG, &a.bytes, "N",
		 "working set in bytes (overrides --level's size)"},
		{0, "max-streams", LK_OPT_LONG, &a.max_streams, "N",
		 "refuse loops with more base registers (default 7)"},
		{0, "dry-run", LK_OPT_BOOL, &a.dry_run, NULL,
		 "print the benchmark, record and measure nothing"},
		{0, "json", LK_OPT_BOOL, &a.json, NULL, "print JSON"},
		{'o', "output", LK_OPT_STRING, &a.dir, "DIR",
		 "the campaign store (default loopkit.d)"},
		{'q', "quiet", LK_OPT_BOOL, &a.quiet, NULL, "no progress"},
		LK_OPT_END};
	int first = lk_opts_parse("mdl replay", usage, opts, argc, argv);
	struct lk_mdl_replay_opts o;
	struct mdl_input in;
	struct lk_ctx ctx;
	int ret;

	if (first < 0)
		return first == -1 ? 0 : 2;
	if (first >= argc)
		return lk_cli_usage_error("mdl replay", "name a BINARY");
	if (first + 1 < argc)
		return lk_cli_usage_error("mdl replay", "unexpected argument "
					  "'%s'", argv[first + 1]);
	lk_mdl_replay_opts_init(&o);
	if ((ret = check_args(&a, &o)))
		return ret;
	lk_ctx_init(&ctx);
	ret = cmd_mdl_input(&ctx, argv[first], a.function, &in);
	if (!ret)
		ret = replay(&ctx, &a, &in, &o);
	if (ret)
		cmd_mdl_input_error(&ctx, &in);
	cmd_mdl_input_release(&in);
	return ret ? lk_cli_fail_named(&ctx, ret) : 0;
}
