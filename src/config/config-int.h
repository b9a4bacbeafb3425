/*
 * Private to src/config: the YAML walking helpers the loader's files
 * share, and the small string utilities behind its messages.
 */
#ifndef LOOPKIT_CONFIG_INT_H
#define LOOPKIT_CONFIG_INT_H

#include <yaml.h>

#include "loopkit/config.h"

/* Limits that keep a hostile or mistaken file from eating the machine. */
#define LK_RANGE_MAX 100000L        /* values one range may produce */
#define LK_AXIS_VALUES_MAX 1000000L /* values over all axes */
#define LK_VARIANTS_MAX 1000000L    /* combinations before filtering */
#define LK_AXES_MAX 1000L           /* -D axes in one sweep */
#define LK_SELECTOR_VALUES_MAX 100000L /* values over all filter conditions */
/*
 * libyaml's scanner slows down quadratically with flow nesting depth
 * (200,000 '[' take a minute); no sweep needs more than 5 levels.
 */
#define LK_YAML_DEPTH_MAX 64

/* One load in progress: where messages go and what they name. */
struct lk_loader {
	struct lk_ctx *ctx;
	const char *file;        /* the name used in messages */
	yaml_document_t *doc;
	struct lk_sweep *sweep;
	long axis_values;        /* running total, see LK_AXIS_VALUES_MAX */
	long selector_values;      /* see LK_SELECTOR_VALUES_MAX */
};

long lk_yaml_line(const yaml_node_t *n);
/* LK_EINPUT as "file:line: message" at node n. */
int lk_yaml_error(struct lk_loader *ld, const yaml_node_t *n,
		  const char *fmt, ...) LK_PRINTF(3, 4);
yaml_node_t *lk_yaml_node(struct lk_loader *ld, yaml_node_item_t id);
/* A plain ~, null or empty scalar: YAML's "no value". */
int lk_yaml_is_null(const yaml_node_t *n);
/*
 * The text of scalar n, "" for a null. LK_EINPUT (naming 'what') if n is
 * not a scalar or the text holds a NUL byte.
 */
int lk_yaml_scalar(struct lk_loader *ld, const yaml_node_t *n,
		   const char *what, const char **out);
/* Scalar n as a whole number in [lo, hi] into *out; else LK_EINPUT
 * naming 'what' and the range. */
int lk_yaml_long(struct lk_loader *ld, const yaml_node_t *n, const char *what,
		 long lo, long hi, long *out);
/*
 * Check that n is a map whose keys are distinct strings; with 'allowed'
 * (NULL-terminated) also that every key is one of them. 'where' names
 * the map in messages ("method", "top level").
 */
int lk_yaml_check_map(struct lk_loader *ld, const yaml_node_t *n,
		      const char *const *allowed, const char *where);
/* The value for 'key' in map n (already checked), NULL if absent. */
yaml_node_t *lk_yaml_get(struct lk_loader *ld, const yaml_node_t *n,
			 const char *key);
/*
 * A string or a non-empty list of strings: *items gets the scalar nodes
 * (free it). Nulls and empty strings are refused.
 */
int lk_yaml_strings(struct lk_loader *ld, const yaml_node_t *n,
		    const char *what, yaml_node_t ***items, size_t *nitems);

/* The candidate closest to 'word' by edit distance, if close enough. */
const char *lk_suggest(const char *word, const char *const *candidates);
/* Append "(did you mean 'x'?)" or "(allowed: a, b, c)" to b. */
void lk_suggest_hint(struct lk_buf *b, const char *word,
		     const char *const *candidates);
/* Index of the first string equal to an earlier one, n if none. */
size_t lk_find_duplicate(const char *const *strs, size_t n);
/* Parse a plain base-10 integer (no spaces, no 0x, no octal). */
int lk_parse_decimal(const char *s, long *out);
/* Parse a finite decimal number as filters compare them. */
int lk_parse_number(const char *s, double *out);
int lk_is_identifier(const char *s);

/*
 * Resolve 'written' against 'dir' and append it to s->sources (absolute)
 * and s->source_names (as written). NULL on success, else what is wrong
 * with it, to complete "source '<written>' ...".
 */
const char *lk_sweep_source_problem(struct lk_sweep *s, const char *dir,
				    const char *written);

/*
 * Resolve 'written' against 'dir' into paths (absolute, checked to be an
 * existing regular file not listed yet) and names (as written). NULL on
 * success, else what is wrong, as lk_sweep_source_problem.
 */
const char *lk_path_list_problem(struct lk_strv *paths, struct lk_strv *names,
				 const char *dir, const char *written);
/* true/false, yes/no, on/off, 1/0 (any case): 0, else LK_EINPUT. */
int lk_parse_bool(const char *s, int *out);

/* Drop the flag sets (the loader replaces the default ones). */
void lk_sweep_clear_flagsets(struct lk_sweep *s);

/* The loader's parts, one per file. */
int lk_load_axes(struct lk_loader *ld, const yaml_node_t *defines);
int lk_load_gen(struct lk_loader *ld, const yaml_node_t *gen);
int lk_load_selectors(struct lk_loader *ld, const yaml_node_t *list,
		    const char *what, struct lk_selector **out, size_t *n);
void lk_selectors_free(struct lk_selector *f, size_t n);
int lk_load_report(struct lk_loader *ld, const yaml_node_t *n);
void lk_report_cfg_release(struct lk_report_cfg *r);
int lk_load_predict(struct lk_loader *ld, const yaml_node_t *n);
void lk_axes_free(struct lk_axis *a, size_t n);
int lk_axis_is_reserved(const char *name);
/* The 'filter:' section (l1-filter.c). */
int lk_load_l1_filter(struct lk_loader *ld, const yaml_node_t *n);
/* The 'memprof:' section (memprof.c). */
int lk_load_memprof(struct lk_loader *ld, const yaml_node_t *n);
void lk_memprof_cfg_release(struct lk_memprof_cfg *m);
/* The 'mdl:' section (mdl.c). */
int lk_load_mdl(struct lk_loader *ld, const yaml_node_t *n);
/* The 'asm:' section (asm-load.c, asm.c, asm-regs.c). */
int lk_load_asm(struct lk_loader *ld, const yaml_node_t *n);
/* Is s one of sv's strings? */
int lk_asm_strv_has(const struct lk_strv *sv, const char *s);
/* The operands of one instruction into ops: the text after the mnemonic
 * (lower case into mnemonic, at most msize - 1 characters), split at
 * the commas outside parentheses and brackets. */
void lk_asm_split_operands(const char *text, struct lk_strv *ops,
			   char *mnemonic, size_t msize);
/* The destination among ops (AT&T: the last; Intel: the first), NULL
 * for none. */
const char *lk_asm_dest_operand(const struct lk_strv *ops, int intel);
/* The 'threads:' key (threads.c): the implicit axis threads. */
int lk_load_threads(struct lk_loader *ld, const yaml_node_t *n);
/* The 'analyze:' section (analyze.c). */
int lk_load_analyze(struct lk_loader *ld, const yaml_node_t *n);
void lk_analyze_cfg_release(struct lk_analyze_cfg *a);

#endif
