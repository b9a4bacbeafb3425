/*
 * report: how well each code analyzer's lifted prediction matches the
 * measured kernel, over a whole campaign. Error statistics (MAPE,
 * quantiles of the relative error, RMSE, Kendall's tau-b), per analyzer
 * and per group of variants, plotted with gnuplot into one self-contained
 * HTML page, with CSV and JSON of the same tables.
 */
#ifndef LOOPKIT_REPORT_H
#define LOOPKIT_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "core.h"
#include "stats.h"
#include "store.h"

struct lk_store;

/* ---- The report's model: what the tables and plots show. ---- */

/* A code analyzer: one (tool, version, params) of the lifted table. */
struct lk_report_analyzer {
	char *tool, *version, *params;
	char *unit;          /* of its lifted values ("" unknown) */
	char *label;         /* "tool version params", for people */
};

/*
 * What a variant's measured figure is in. Basis 0 is always core cycles
 * (PMU or TSC-calibrated, the sources seen listed), the only basis a
 * prediction (in cycles) is compared with. A variant without a
 * trustworthy cycles figure shows its run's primary figure instead, each
 * such metric:source pair a basis of its own, and is never compared:
 * it is counted apart (LK_OUT_NO_CYCLES) with its reason.
 */
struct lk_report_basis {
	char *metric;        /* cycles, tsc, ... */
	char *sources;       /* "tsc-calibrated", "pmu, tsc-calibrated" */
	char *unit;          /* cycles/step, ticks/step */
	size_t nvariants;    /* measured on this basis */
};

/* A variant's measured figure. */
enum lk_report_meas {
	LK_MEAS_CYCLES,      /* a cycles figure, basis 0 */
	LK_MEAS_FALLBACK,    /* the run's primary figure, another basis:
				shown, never compared */
	LK_MEAS_NONE,        /* not measured: 'note' says why */
};

/* Why a (variant, analyzer) pair is or is not compared; by precedence. */
enum lk_report_outcome {
	LK_OUT_EXCLUDED,     /* a filter verdict excludes the variant */
	LK_OUT_FAILED,       /* the lift was excluded (a block failed) */
	LK_OUT_MISSING,      /* no lifted row for this analyzer */
	LK_OUT_UNMEASURED,   /* no measured figure at all */
	LK_OUT_NO_CYCLES,    /* measured, but no trustworthy core-cycle
				figure to compare a prediction with */
	LK_OUT_COMPARED,     /* compared with core cycles (basis 0) */
};

struct lk_report_pred {
	enum lk_report_outcome outcome;
	int has_value;
	double value;        /* lifted, per kernel call */
	double rel_error;    /* (value - measured) / measured, if compared */
	char *reason;        /* lift's reason when failed, else "" */
};

struct lk_report_variant {
	int64_t id;
	char *hash, *source, *compiler, *flagset;
	char *source_name;   /* lk_variant_source_name: a generated
				variant's kernel, else the file's base name;
				family/kernel or the path if two sources
				share one */
	char *name;          /* lk_variant_name, for people */
	struct lk_param *params;  /* owned strings */
	size_t nparams;
	enum lk_report_meas meas;
	size_t basis;        /* index into bases, when measured */
	double measured;     /* per kernel call */
	char *measured_source; /* pmu, tsc-calibrated, tsc ...; "" none */
	char *region;        /* the measured region */
	char *note;          /* why not measured, or why no trustworthy
				cycles ("no trustworthy core-cycle figure:
				calibration unreliable"); "" */
	int no_cycles;       /* run ok, but no trustworthy core-cycle
				figure: never compared, counted apart */
	int excluded;        /* a filter said exclude */
	int unknown;         /* a filter could not decide (kept) */
	char *verdict;       /* "l1: exclude, reason; ..." (exclude and
				unknown verdicts), "" */
	struct lk_report_pred *preds; /* one per analyzer */
};

/* One line of the statistics table. */
struct lk_report_row {
	size_t analyzer;
	size_t basis;        /* always 0: predictions meet cycles only */
	char *key;           /* group-by key; "" for every variant */
	char *value;         /* its value in this group; "" for all */
	/* Counts over the group's variants for this analyzer. */
	long variants, excluded, failed, missing, unmeasured, no_cycles;
	long compared;
	long unknown;        /* compared despite a filter's "unknown" */
	struct lk_err_stats st;
};

/* A reason and how many variants it applies to. */
struct lk_report_reason {
	char *what;          /* "exclude", "failed", "unmeasured", "unknown",
				"no-cycles" */
	long analyzer;       /* for "failed"; -1 otherwise */
	char *reason;
	long count;
};

struct lk_report {
	char *campaign;      /* its name */
	char *title;
	char *store_dir;
	double generated;    /* Unix seconds */
	struct lk_report_analyzer *analyzers;
	size_t nanalyzers;
	struct lk_report_basis *bases;
	size_t nbases;
	struct lk_report_variant *variants;
	size_t nvariants;
	struct lk_strv group_by;   /* keys the rows are grouped by */
	struct lk_strv param_names; /* every variant parameter, in order */
	struct lk_report_row *rows; /* "all" rows first, then per key */
	size_t nrows;
	struct lk_report_reason *reasons;
	size_t nreasons;
	long compared;       /* (variant, analyzer) pairs compared */
};

/*
 * Read a campaign's variants, measurements, lifted predictions and
 * filter verdicts from the store and compute every table. cfg (may be
 * NULL) gives the report: section (title, group-by keys). A group-by key
 * that is neither compiler, flagset, source nor any variant's parameter
 * is LK_EINPUT naming the config's file:line. Nothing to compare is not
 * an error here: r->compared is 0, the rows are the per-analyzer ones
 * and group-by keys are not checked (lk_report_campaign refuses it).
 */
int lk_report_build(struct lk_ctx *ctx, struct lk_store *s, int64_t campaign,
		    const struct lk_sweep *cfg, LK_GIVE struct lk_report **out);
void lk_report_free(struct lk_report *r);

/* The statistics table as CSV (header, RFC 4180, LF; empty cell for
 * undefined) and as JSON (the whole report: analyzers, bases, rows,
 * reasons, variants; null for undefined). Relative errors in percent. */
void lk_report_csv(const struct lk_report *r, struct lk_buf *out);
/* One row per variant and analyzer: measured, predicted, error, why. */
void lk_report_variants_csv(const struct lk_report *r, struct lk_buf *out);
void lk_report_json(const struct lk_report *r, struct lk_buf *out);

/*
 * Each analyzer's figures over every variant, one line each, the same
 * as the rows of report.csv without a group: "LABEL: C/V kernels
 * compared (E excluded by a filter, F failed, M without prediction, U
 * not measured, N without a trustworthy cycles figure), MAPE x %,
 * median |error| y %, Kendall tau-b t" (MAPE and the median of the
 * absolute relative error to 0.1 %, tau-b to 0.001, "n/a" where
 * undefined).
 */
void lk_report_summary(const struct lk_report *r, struct lk_buf *out);

/*
 * The two plots as SVG (gnuplot, svg terminal): predicted against
 * measured (log-log, a series per analyzer, y = x) and the CDF of the
 * relative error per analyzer, on basis 0 only. gnuplot is the program
 * to run (a name looked up in PATH or a path). *scatter and *cdf get the
 * SVG documents, NULL when there are no points to draw. Data and script
 * go through a temporary directory, removed afterwards. LK_ECHILD when
 * gnuplot fails, LK_ENOTFOUND when it cannot be started.
 */
int lk_report_plots(struct lk_ctx *ctx, const struct lk_report *r,
		    const char *gnuplot, LK_GIVE char **scatter,
		    LK_GIVE char **cdf);

/* One memory level of loopkit mdl eval's rows (store.h): MDL's error
 * against the replays, and llvm-mca's on those of the same loops it
 * predicted; rows: the rows at that level, compared or not. */
struct lk_report_mdl_level {
	size_t rows;
	struct lk_err_stats mdl, mca;
	const char *mca_tool;     /* borrowed from the rows, "" for none */
};
struct lk_mdl_eval_row;
void lk_report_mdl_level(const struct lk_mdl_eval_row *rows, size_t n,
			 const char *level, struct lk_report_mdl_level *out);
/* The rows not compared, grouped by (status, reason) in order of
 * first appearance, with their counts; *out (strings borrowed from the
 * rows) is the caller's to free. */
struct lk_report_mdl_reason {
	const char *status, *reason;
	size_t count;
};
size_t lk_report_mdl_reasons(const struct lk_mdl_eval_row *rows, size_t n,
			     struct lk_report_mdl_reason **out);
/*
 * The report's MDL section of campaign into out (nothing when the store
 * has no mdl eval rows for it): a table per level, the rows not
 * compared and why, and a plot when gnuplot (NULL or "": none) is given.
 */
int lk_report_mdl_html(struct lk_ctx *ctx, struct lk_store *s,
		       int64_t campaign, const char *gnuplot,
		       struct lk_buf *out);

/*
 * The HTML page: self-contained (CSS and SVG inline, no script, no
 * external resource), every name escaped. scatter and cdf are gnuplot's
 * SVG documents (or NULL: the page says why, 'plot_note'); their ids are
 * made unique to the page.
 */
void lk_report_html(const struct lk_report *r, const char *scatter,
		    const char *cdf, const char *plot_note,
		    struct lk_buf *out);

struct lk_report_opts {
	const char *out_dir;  /* NULL: cfg's report.output, else
				 <store dir>/report */
	const char *html;     /* NULL: <out_dir>/report.html */
	const char *csv;      /* NULL: <out_dir>/report.csv */
	const char *json;     /* NULL: <out_dir>/report.json */
	const char *variants_csv; /* NULL: <out_dir>/variants.csv */
	FILE *dash;           /* where a path "-" writes; NULL: "-" is a
				 file name */
	const char *gnuplot;  /* NULL: "gnuplot" from PATH; "": no plots */
	struct lk_buf *summary; /* non-NULL: gets lk_report_summary once
				   the files are written */
};

enum lk_report_file {
	LK_REPORT_HTML, LK_REPORT_CSV, LK_REPORT_JSON, LK_REPORT_VARIANTS_CSV,
	LK_REPORT_NFILES
};

/* Where lk_report_campaign writes one of its files (to free). */
LK_GIVE char *lk_report_output_path(const struct lk_store *s,
				    const struct lk_sweep *cfg,
				    const struct lk_report_opts *opts,
				    enum lk_report_file which);

/*
 * Build the report of a campaign and write its four files (each through
 * a temporary file and rename). Without gnuplot in PATH the page says
 * the plots are missing and a warning is logged. A campaign where no
 * prediction could be compared with a measurement writes nothing and is
 * LK_ENOTFOUND, the message saying what is missing (no variant, no
 * measurement, no lifted prediction, everything excluded ...). cfg and
 * opts may be NULL (defaults: every file in <store dir>/report, gnuplot
 * from PATH).
 */
int lk_report_campaign(struct lk_ctx *ctx, struct lk_store *s,
		       int64_t campaign, const struct lk_sweep *cfg,
		       const struct lk_report_opts *opts);

/*
 * The report stage (lk_stage_fn): lk_report_campaign with every file
 * where cfg->report says (else <store dir>/report) and gnuplot from
 * PATH; no items; the campaign's line is the page's path, then each
 * analyzer's figures (lk_report_summary) indented on lines of their own.
 */
lk_stage_fn lk_report_stage;

#endif
