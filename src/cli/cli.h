/*
 * The command-line layer: the command table, a declarative option table
 * over getopt_long, and the conversion of library errors to exit codes.
 * Only this layer writes to stdout or calls exit().
 */
#ifndef LOOPKIT_CLI_H
#define LOOPKIT_CLI_H

#include <stdio.h>

#include "loopkit/core.h"

enum lk_opt_type {
	LK_OPT_BOOL,   /* int *, set to 1 */
	LK_OPT_STRING, /* const char **, last one wins */
	LK_OPT_LONG,   /* long * */
	LK_OPT_LIST,   /* struct lk_strv *, repeatable */
};

struct lk_opt {
	int short_name;        /* 0: long only */
	const char *long_name;
	enum lk_opt_type type;
	void *value;
	const char *arg_name;  /* shown in help: "DIR", "N" */
	const char *help;
};

#define LK_OPT_END {0, NULL, LK_OPT_BOOL, NULL, NULL, NULL}

/*
 * Parse argv[1..] against opts (a -h/--help is always understood).
 * Options may come before, between or after the operands; "--" ends
 * them (the rest are operands). argv is reordered in place: options
 * first, then the operands in their order, argc unchanged. Returns the
 * index of the first operand, -1 after printing help (exit 0), or -2
 * after an error message (exit 2).
 */
int lk_opts_parse(const char *cmd, const char *usage, const struct lk_opt *opts,
		  int argc, char **argv);
/*
 * lk_opts_parse, except that once pass_after operands have been seen, an
 * argument that looks like an option but is none of opts is an operand
 * (compiler flags after the source file); one of opts is still ours.
 */
int lk_opts_parse_pass(const char *cmd, const char *usage,
		       const struct lk_opt *opts, int pass_after, int argc,
		       char **argv);
void lk_opts_usage(FILE *out, const char *cmd, const char *usage,
		   const struct lk_opt *opts);

/* Print ctx's error as "loopkit: error: ..." and map it to an exit code:
 * 2 for bad input, 1 otherwise. */
int lk_cli_fail(const struct lk_ctx *ctx);
/* The same for a command that looks up what the user named: ret
 * LK_ENOTFOUND (no such function, loop, database) is the user's input
 * too, exit 2. */
int lk_cli_fail_named(const struct lk_ctx *ctx, int ret);
/* Print a usage error (exit code 2). */
int lk_cli_usage_error(const char *cmd, const char *fmt, ...) LK_PRINTF(2, 3);

/* The commands. */
int cmd_run(int argc, char **argv);
int cmd_campaign(int argc, char **argv);
int cmd_env(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_memprof(int argc, char **argv);
int cmd_blocks(int argc, char **argv);
int cmd_count(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_lift(int argc, char **argv);
int cmd_filter(int argc, char **argv);
int cmd_mdl(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_asm(int argc, char **argv);           /* cmd-asm.c */

int cmd_mdl_extract(int argc, char **argv);  /* cmd-mdl-extract.c */
/* A binary operand of mdl extract, replay, predict: a .s file is
 * assembled into a temporary object first (its function: --function or
 * its first .globl symbol). */
struct mdl_input {
	const char *path;       /* as given */
	char dir[32];           /* the temporary directory, or "" */
	char *binary, *name;    /* the ELF to read; the function or NULL */
};
int cmd_mdl_input(struct lk_ctx *ctx, const char *path, const char *function,
		  struct mdl_input *in);
/* Name the assembly file in ctx's message instead of the object. */
void cmd_mdl_input_error(struct lk_ctx *ctx, const struct mdl_input *in);
void cmd_mdl_input_release(struct mdl_input *in);
/* --loop ADDR of an mdl command into *addr (text NULL: none, 0); 2
 * after the usage error for text that is no address (cmd-mdl.c). */
int cmd_mdl_loop_addr(const char *cmd, const char *text, uint64_t *addr);
struct lk_mdl_pick;
/* With several innermost loops in fn, a note on stderr naming the one
 * lk_mdl_pick_loop took, and why (cmd-mdl.c). */
void cmd_mdl_pick_note(const struct lk_mdl_pick *p, const char *fn);
int cmd_mdl_replay(int argc, char **argv);   /* cmd-mdl-replay.c */
/* Measure the replay campaign's variants not measured yet (the default
 * method); *sum filled even on failure (release it). */
struct lk_run_summary;
struct lk_store;
int cmd_mdl_replay_measure(struct lk_ctx *ctx, struct lk_store *s,
			   int64_t campaign, const char *name, int quiet,
			   struct lk_run_summary *sum);
/* loopkit mdl eval and the campaign's mdl stage (mdl-eval.c). */
int cmd_mdl_eval(int argc, char **argv);
struct lk_sweep;
struct lk_stage_opts;
struct lk_stage_summary;
int lk_cli_mdl_eval_stage(struct lk_ctx *ctx, struct lk_store *s,
			  int64_t campaign, const struct lk_sweep *cfg,
			  const struct lk_stage_opts *opts,
			  struct lk_stage_summary *sum);
/* loopkit mdl db ... and mdl predict (cmd-mdl-db.c, cmd-mdl-predict.c). */
int cmd_mdl_db(int argc, char **argv);
int cmd_mdl_predict(int argc, char **argv);

/*
 * Campaign mode of the analysis commands: load the campaign file (for
 * its name) and find its campaign in the existing store in dir; config
 * NULL: the store's only campaign with variants, *sw NULL (defaults).
 * On failure nothing is left open.
 */
struct lk_sweep;
struct lk_store;
struct lk_stage_summary;
int lk_cli_campaign_open(struct lk_ctx *ctx, const char *config,
			 const char *dir, struct lk_sweep **sw,
			 struct lk_store **s, int64_t *campaign);
/*
 * The store in dir, created if need be, and sw's campaign in it (made
 * if new, its config path remembered): where gen, run, predict -c and
 * campaign run their stages. *s NULL on failure.
 */
int lk_cli_campaign_create(struct lk_ctx *ctx, const char *dir,
			   const struct lk_sweep *sw, struct lk_store **s,
			   int64_t *campaign);
/* Each --method KEY=VALUE of settings into sw's method (where names
 * the source in messages); LK_EINPUT for a setting without '='. */
int lk_cli_apply_methods(struct lk_ctx *ctx, struct lk_sweep *sw,
			 const struct lk_strv *settings, const char *where);
/* One line per variant on stdout, the tallies on stderr. */
void lk_cli_print_stage(const char *stage, const char *store_dir,
			const struct lk_stage_summary *sum);

/* ---- After an asm: sweep is measured (asm-post.c). ---- */

struct lk_asm_plan;

/* The key of the first (newest) llvm-mca's predictions, NULLs when none
 * ran. */
struct lk_cli_asm_mca {
	char *tool, *version, *params;
	size_t ntools;          /* llvm-mca versions that predicted */
};

/*
 * For the units of plan, after lk_run_sweep measured them into campaign
 * of s: with asm.difference, the result row cycles/copy = (cycles of
 * region kernel-2u - cycles of region kernel) / unroll, source
 * "n/2n:<theirs>", added to the variant's latest run (and to its report
 * in sum, when sum is given and shows that run); a warning on ctx's log
 * for a kernel the decoded-op cache cannot hold; with predict, every
 * installed llvm-mca's prediction of one copy of each body (-mcpu the
 * host's unless the sweep's predict: says), stored under the tool's key
 * and linked to the variant times its unroll (what the report compares
 * with the measured cycles per call); *mca gets the newest tool's key
 * (release it). A body llvm-mca rejects is its stored status; < 0 only
 * when the store or a tool cannot run at all.
 */
int lk_cli_asm_post(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		    const struct lk_sweep *sw, const struct lk_asm_plan *plan,
		    struct lk_run_summary *sum, int predict,
		    struct lk_cli_asm_mca *mca);
void lk_cli_asm_mca_release(struct lk_cli_asm_mca *m);
/*
 * The campaign's asm stage (after measure): lk_cli_asm_post over the
 * asm: section's variants, one item per variant. A sweep without one
 * has nothing to do (0, the line says so).
 */
int lk_cli_asm_stage(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		     const struct lk_sweep *cfg,
		     const struct lk_stage_opts *opts,
		     struct lk_stage_summary *sum);

/* Set by the dispatcher from -v before the command runs. */
extern int lk_cli_verbose;

#endif
