/*
 * The predict tool 'mdl' (src/cli/predict-mdl.c): predict and mdl are
 * sibling stages and may not include each other, so the CLI, which sees
 * both, hands predict an lk_predict_family built on mdl's block API
 * (lk_mdl_block_predict) and the store holding the MDL databases.
 */
#ifndef LOOPKIT_CLI_PREDICT_MDL_H
#define LOOPKIT_CLI_PREDICT_MDL_H

#include "loopkit/mdl.h"
#include "loopkit/predict.h"

/* Where the tools find their databases; read once, when first asked. */
struct lk_cli_mdl_tools {
	struct lk_store *store;  /* borrowed, or opened here (owned) */
	int owned;
	char *dir;
	int loaded;              /* dbs read, or tried */
	int failed;              /* the store could not be read: why */
	struct lk_ctx why;
	struct lk_mdl_dbs dbs;
};

/*
 * Tools reading their databases from s (borrowed; it must outlive t and
 * the predictors made), or, s NULL, from the store in dir, opened as a
 * reader when first needed (a directory without a store has no
 * database). Release with lk_cli_mdl_tools_release.
 */
void lk_cli_mdl_tools_init(struct lk_cli_mdl_tools *t, struct lk_store *s,
			   const char *dir);
void lk_cli_mdl_tools_release(struct lk_cli_mdl_tools *t);

/*
 * The family for lk_predict_setup.extra: tools 'mdl' (level L1),
 * 'mdl-l2', 'mdl-l3', 'mdl-ram', each offered when a database has that
 * level; without any database, naming one is LK_ENOTFOUND saying how to
 * build one. t is borrowed.
 */
struct lk_predict_family lk_cli_mdl_family(struct lk_cli_mdl_tools *t);

/* The campaign's predict stage: lk_predict_stage_families with the mdl
 * family on the campaign's store. */
lk_stage_fn lk_cli_predict_stage;

#endif
