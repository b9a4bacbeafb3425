/*
 * The store's schema, as an ordered list of migrations. The schema version
 * is PRAGMA user_version: the number of migrations applied. To change the
 * schema, append a script to 'migrations' (never edit one that shipped):
 * every store, old or new, then replays exactly the scripts it lacks.
 */
#include <stdlib.h>

#include "store-int.h"

#define NOW STORE_NOW

static const char migration_1[] =
	/* One campaign per config; the config fields record where from. */
	"CREATE TABLE campaigns ("
	" id INTEGER PRIMARY KEY,"
	" name TEXT NOT NULL UNIQUE,"
	" config_path TEXT,"
	" config_hash TEXT,"
	" created REAL NOT NULL DEFAULT " NOW ");"

	"CREATE TABLE environments ("
	" id INTEGER PRIMARY KEY,"
	" campaign_id INTEGER NOT NULL"
	"  REFERENCES campaigns(id) ON DELETE CASCADE,"
	" hash TEXT NOT NULL,"
	" snapshot TEXT NOT NULL,"
	" created REAL NOT NULL DEFAULT " NOW ","
	" UNIQUE (campaign_id, hash));"

	"CREATE TABLE variants ("
	" id INTEGER PRIMARY KEY,"
	" campaign_id INTEGER NOT NULL"
	"  REFERENCES campaigns(id) ON DELETE CASCADE,"
	" hash TEXT NOT NULL,"
	" source TEXT,"
	" source_hash TEXT,"
	" compiler TEXT,"
	" flagset TEXT,"
	" cflags TEXT,"
	" created REAL NOT NULL DEFAULT " NOW ","
	" UNIQUE (campaign_id, hash));"

	/* position keeps the -D order of the config: exports follow it. */
	"CREATE TABLE variant_params ("
	" variant_id INTEGER NOT NULL"
	"  REFERENCES variants(id) ON DELETE CASCADE,"
	" position INTEGER NOT NULL,"
	" name TEXT NOT NULL,"
	" value TEXT,"
	" PRIMARY KEY (variant_id, name),"
	" UNIQUE (variant_id, position)) WITHOUT ROWID;"

	/* Builds are shared between campaigns: keyed by the inputs' hash. */
	"CREATE TABLE builds ("
	" id INTEGER PRIMARY KEY,"
	" hash TEXT NOT NULL UNIQUE,"
	" compiler TEXT,"
	" compiler_version TEXT,"
	" command TEXT,"
	" ok INTEGER NOT NULL,"
	" reason TEXT,"
	" log TEXT,"
	" binary TEXT,"
	" seconds REAL,"
	" created REAL NOT NULL DEFAULT " NOW ");"

	"CREATE TABLE runs ("
	" id INTEGER PRIMARY KEY,"
	" variant_id INTEGER NOT NULL"
	"  REFERENCES variants(id) ON DELETE CASCADE,"
	" build_id INTEGER REFERENCES builds(id) ON DELETE SET NULL,"
	" env_id INTEGER REFERENCES environments(id) ON DELETE SET NULL,"
	" method_hash TEXT NOT NULL,"
	" method TEXT,"
	" status TEXT NOT NULL,"
	" reason TEXT,"
	" attempts INTEGER NOT NULL DEFAULT 0,"
	" started REAL,"
	" finished REAL,"
	" UNIQUE (variant_id, method_hash));"
	/* Foreign-key children need an index, or deleting a parent scans. */
	"CREATE INDEX runs_build ON runs(build_id);"
	"CREATE INDEX runs_env ON runs(env_id);"

	/* The bulk of the store: no primary key, so inserts only append. */
	"CREATE TABLE samples ("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" process INTEGER NOT NULL,"
	" attempt INTEGER NOT NULL,"
	" region TEXT,"
	" idx INTEGER NOT NULL,"
	" steps INTEGER NOT NULL,"
	" metric TEXT NOT NULL,"
	" raw REAL,"
	" value REAL);"
	"CREATE INDEX samples_run ON samples(run_id);"

	"CREATE TABLE run_info ("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" process INTEGER NOT NULL,"
	" attempt INTEGER NOT NULL,"
	" key TEXT NOT NULL,"
	" value TEXT);"
	"CREATE INDEX run_info_run ON run_info(run_id);"

	"CREATE TABLE results ("
	" run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	" position INTEGER NOT NULL,"
	" region TEXT,"
	" metric TEXT NOT NULL,"
	" source TEXT,"
	" unit TEXT,"
	" value REAL,"
	" reducer TEXT,"
	" n INTEGER,"
	" spread REAL,"
	" flags TEXT,"
	" is_primary INTEGER NOT NULL DEFAULT 0,"
	" PRIMARY KEY (run_id, position)) WITHOUT ROWID;"

	"PRAGMA application_id = 1280004948;"; /* LK_STORE_APP_ID */

/* memprof: one row per profiled run of a program, one per function. */
static const char migration_2[] =
	"CREATE TABLE memprof_runs ("
	" id INTEGER PRIMARY KEY,"
	" campaign_id INTEGER NOT NULL REFERENCES campaigns(id)"
	"  ON DELETE CASCADE,"
	" program TEXT NOT NULL,"
	" program_hash TEXT NOT NULL,"
	" cflags TEXT NOT NULL,"
	" env_id INTEGER REFERENCES environments(id) ON DELETE SET NULL,"
	" calls INTEGER NOT NULL,"
	" tsc_hz REAL,"
	" fit TEXT," /* JSON of the latency fit, NULL if none */
	" created REAL NOT NULL DEFAULT (" NOW "));"
	"CREATE INDEX memprof_runs_campaign ON memprof_runs(campaign_id);"

	"CREATE TABLE memprof_functions ("
	" run_id INTEGER NOT NULL REFERENCES memprof_runs(id)"
	"  ON DELETE CASCADE,"
	" name TEXT NOT NULL,"
	" calls INTEGER NOT NULL,"
	" total REAL NOT NULL,"
	" self REAL NOT NULL,"
	" min_self REAL, max_self REAL, mean_self REAL,"
	" loads TEXT, stores TEXT," /* per call: a number or an expression */
	" residual REAL,"
	" PRIMARY KEY (run_id, name)) WITHOUT ROWID;";

/*
 * The code-analyzer harness. Blocks and counts belong to a binary (by
 * content hash), predictions to a block's text (the same block in two
 * binaries is predicted once), lifted predictions and filter verdicts to
 * a variant.
 */
static const char migration_3[] =
	"CREATE TABLE bb_functions ("
	" id INTEGER PRIMARY KEY,"
	" binary_hash TEXT NOT NULL,"
	" function TEXT NOT NULL,"   /* the symbol decoded */
	" addr INTEGER NOT NULL,"    /* link-time address */
	" size INTEGER NOT NULL,"
	" inlined INTEGER NOT NULL DEFAULT 0," /* the markers are inside */
	" created REAL NOT NULL DEFAULT (" NOW "),"
	" UNIQUE (binary_hash, function));"

	"CREATE TABLE bb_blocks ("
	" function_id INTEGER NOT NULL REFERENCES bb_functions(id)"
	"  ON DELETE CASCADE,"
	" idx INTEGER NOT NULL,"
	" start INTEGER NOT NULL,"   /* [start, end), link-time */
	" end INTEGER NOT NULL,"
	" ninsns INTEGER NOT NULL,"
	" hash TEXT NOT NULL,"       /* of att: predictions are keyed by it */
	" att TEXT NOT NULL,"        /* one instruction per line */
	" intel TEXT NOT NULL,"
	" succ TEXT NOT NULL,"       /* successor indices, space-separated */
	" PRIMARY KEY (function_id, idx)) WITHOUT ROWID;"
	"CREATE INDEX bb_blocks_hash ON bb_blocks(hash);"

	/* One count per function: occurrences in ONE kernel call. */
	"CREATE TABLE bb_count_runs ("
	" function_id INTEGER PRIMARY KEY REFERENCES bb_functions(id)"
	"  ON DELETE CASCADE,"
	" status TEXT NOT NULL,"     /* ok, failed, timed-out */
	" reason TEXT,"
	" regions INTEGER,"          /* roi pairs seen */
	" traps INTEGER,"
	" seconds REAL,"
	" created REAL NOT NULL DEFAULT (" NOW "));"

	"CREATE TABLE bb_counts ("
	" function_id INTEGER NOT NULL REFERENCES bb_functions(id)"
	"  ON DELETE CASCADE,"
	" idx INTEGER NOT NULL,"
	" count INTEGER NOT NULL,"
	" via TEXT NOT NULL,"        /* derived, int3, hwbp */
	" PRIMARY KEY (function_id, idx)) WITHOUT ROWID;"

	"CREATE TABLE predictions ("
	" id INTEGER PRIMARY KEY,"
	" block_hash TEXT NOT NULL,"
	" tool TEXT NOT NULL,"       /* llvm-mca, bprof, an adapter's name */
	" tool_version TEXT NOT NULL,"
	" params TEXT NOT NULL,"     /* canonical text: -mcpu, iterations */
	" status TEXT NOT NULL,"     /* ok, failed, unsupported, timed-out */
	" value REAL,"               /* per block iteration */
	" unit TEXT,"                /* cycles/iter, tsc-calibrated ... */
	" reason TEXT,"
	" raw TEXT,"                 /* the tool's output for this block */
	" seconds REAL,"
	" created REAL NOT NULL DEFAULT (" NOW "),"
	" UNIQUE (block_hash, tool, tool_version, params));"

	/* lifted(K) = sum over blocks of occurrences x prediction. */
	"CREATE TABLE lifted ("
	" variant_id INTEGER NOT NULL REFERENCES variants(id)"
	"  ON DELETE CASCADE,"
	" function_id INTEGER NOT NULL REFERENCES bb_functions(id)"
	"  ON DELETE CASCADE,"
	" tool TEXT NOT NULL,"
	" tool_version TEXT NOT NULL,"
	" params TEXT NOT NULL,"
	" status TEXT NOT NULL,"     /* ok, excluded */
	" value REAL,"               /* per kernel call */
	" unit TEXT,"
	" nblocks INTEGER,"          /* blocks with a non-zero count */
	" nfailed INTEGER,"          /* of those, without a prediction */
	" reason TEXT,"
	" created REAL NOT NULL DEFAULT (" NOW "),"
	" PRIMARY KEY (variant_id, tool, tool_version, params))"
	" WITHOUT ROWID;"
	"CREATE INDEX lifted_function ON lifted(function_id);"

	/* Why a variant is kept out of (or in) the evaluation. */
	"CREATE TABLE verdicts ("
	" variant_id INTEGER NOT NULL REFERENCES variants(id)"
	"  ON DELETE CASCADE,"
	" filter TEXT NOT NULL,"     /* l1 */
	" verdict TEXT NOT NULL,"    /* pass, exclude, unknown */
	" value REAL,"               /* e.g. the D1 miss ratio */
	" source TEXT,"              /* cachegrind, generator, ... */
	" reason TEXT,"
	" created REAL NOT NULL DEFAULT (" NOW "),"
	" PRIMARY KEY (variant_id, filter)) WITHOUT ROWID;";

/*
 * Each variant's latest build, whether or not a run used it yet: gen -c
 * builds before anything is measured (runs.build_id is what a run
 * measured).
 */
static const char migration_4[] =
	"CREATE TABLE variant_builds ("
	" variant_id INTEGER PRIMARY KEY REFERENCES variants(id)"
	"  ON DELETE CASCADE,"
	" build_id INTEGER NOT NULL REFERENCES builds(id) ON DELETE CASCADE);";

/* The memory limit a run's launches were under (bytes of address space,
 * 0: none; NULL: not recorded). Not in the method text: a run's key does
 * not change with the machine's memory. */
static const char migration_5[] =
	"ALTER TABLE runs ADD COLUMN memory_limit INTEGER;";

/*
 * The memprof stage of a campaign (src/memprof/stage.c): a program's run
 * is keyed by its source's content, its flags, the plugin and its name,
 * so a rerun skips it; a program that failed is stored too, with its
 * reason. Runs of 'loopkit memprof run PROG.c' leave the three NULL.
 */
static const char migration_6[] =
	"ALTER TABLE memprof_runs ADD COLUMN stage_key TEXT;"
	"ALTER TABLE memprof_runs ADD COLUMN status TEXT;" /* ok, failed */
	"ALTER TABLE memprof_runs ADD COLUMN reason TEXT;"
	"CREATE INDEX memprof_runs_key ON memprof_runs(campaign_id,"
	" stage_key);";

/* A block's machine code, so that predict and the L1 filter read a
 * kernel from the store instead of decoding its binary again. NULL in
 * blocks stored before it: their readers go back to the binary. */
static const char migration_7[] =
	"ALTER TABLE bb_blocks ADD COLUMN code BLOB;";

/*
 * The MDL seed database (src/store/mdl.c): a database per build (ISA
 * class, levels, exploration, method), its seeds with their k-NN
 * features and their value per level. The benchmarks behind the values
 * are ordinary variants and runs of the campaign mdl-db:<isa>.
 */
static const char migration_8[] =
	"CREATE TABLE mdl_dbs ("
	" id INTEGER PRIMARY KEY,"
	" hash TEXT NOT NULL UNIQUE,"
	" machine TEXT NOT NULL,"
	" isa TEXT NOT NULL,"
	" levels TEXT NOT NULL,"
	" params TEXT NOT NULL,"
	" campaign_id INTEGER REFERENCES campaigns(id) ON DELETE SET NULL,"
	" env_id INTEGER REFERENCES environments(id) ON DELETE SET NULL,"
	" created REAL NOT NULL DEFAULT (" NOW "));"
	"CREATE INDEX mdl_dbs_isa ON mdl_dbs(isa, created);"
	"CREATE TABLE mdl_seeds ("
	" db_id INTEGER NOT NULL REFERENCES mdl_dbs(id) ON DELETE CASCADE,"
	" name TEXT NOT NULL,"
	" kind TEXT NOT NULL,"
	" mdl TEXT NOT NULL,"
	" f_load REAL, f_store REAL, f_streams REAL, f_add REAL, f_mul REAL,"
	" PRIMARY KEY (db_id, name)) WITHOUT ROWID;"
	"CREATE TABLE mdl_seed_perf ("
	" db_id INTEGER NOT NULL REFERENCES mdl_dbs(id) ON DELETE CASCADE,"
	" name TEXT NOT NULL,"
	" level TEXT NOT NULL,"
	" value REAL,"
	" unit TEXT,"
	" source TEXT,"
	" best_unroll INTEGER,"
	" best_bundles INTEGER,"
	" variant_id INTEGER REFERENCES variants(id) ON DELETE SET NULL,"
	" spread REAL,"
	" variants INTEGER,"
	" flags TEXT,"
	" PRIMARY KEY (db_id, name, level)) WITHOUT ROWID;";

/*
 * loopkit mdl eval (src/store/mdl.c): per campaign, each variant's
 * innermost loops at each level, MDL's prediction beside the replay and
 * llvm-mca's figure; a refused loop has one row with level ''. The
 * replays are ordinary variants of the campaign <campaign>:mdl-replay.
 * And the seeds' sixth feature.
 */
static const char migration_9[] =
	"CREATE TABLE mdl_evals ("
	" campaign_id INTEGER NOT NULL REFERENCES campaigns(id)"
	"  ON DELETE CASCADE,"
	" variant_id INTEGER NOT NULL REFERENCES variants(id)"
	"  ON DELETE CASCADE,"
	" variant TEXT NOT NULL,"
	" function TEXT NOT NULL,"
	" loop INTEGER NOT NULL,"
	" level TEXT NOT NULL,"
	" isa TEXT NOT NULL,"
	" status TEXT NOT NULL,"
	" reason TEXT NOT NULL,"
	" unroll INTEGER NOT NULL,"
	" predicted REAL,"
	" replayed REAL,"
	" mca REAL,"
	" mca_tool TEXT NOT NULL,"
	" db_hash TEXT NOT NULL,"
	" replay_variant_id INTEGER REFERENCES variants(id) ON DELETE SET NULL,"
	" PRIMARY KEY (campaign_id, variant_id, loop, level)) WITHOUT ROWID;"
	/* The sixth k-NN feature: streams of a stride of a cache line or
	 * more (0 for the databases stored before it). */
	"ALTER TABLE mdl_seeds ADD COLUMN f_far REAL NOT NULL DEFAULT 0;";

/*
 * The campaign's variants as its sweep now is: gen and asm mark them, and
 * run -c and the analysis stages read only those (a variant the sweep
 * dropped keeps its runs). A variant's prediction by a tool as one
 * predicted block times its iterations per kernel call: an asm
 * variant's body (src/cli/asm-post.c); the report reads it with the
 * lifted rows.
 */
static const char migration_10[] =
	"ALTER TABLE variants ADD COLUMN current INTEGER NOT NULL DEFAULT 1;"
	"CREATE TABLE variant_predictions ("
	" variant_id INTEGER NOT NULL REFERENCES variants(id)"
	"  ON DELETE CASCADE,"
	" tool TEXT NOT NULL,"
	" tool_version TEXT NOT NULL,"
	" params TEXT NOT NULL,"
	" block_hash TEXT NOT NULL," /* its row in predictions */
	" copies REAL NOT NULL,"     /* block iterations per kernel call */
	" created REAL NOT NULL DEFAULT (" NOW "),"
	" PRIMARY KEY (variant_id, tool, tool_version, params))"
	" WITHOUT ROWID;";

/* Append only. Entry i takes the schema from version i to i + 1. */
static const char *const migrations[] = {
	migration_1,
	migration_2,
	migration_3,
	migration_4,
	migration_5,
	migration_6,
	migration_7,
	migration_8,
	migration_9,
	migration_10,
};

int lk_store_latest_version(void)
{
	return (int)LK_ARRAY_SIZE(migrations);
}

static int db_fail(struct lk_ctx *ctx, sqlite3 *db, const char *path,
		   const char *what, int version)
{
	return lk_error_at(ctx, LK_ESTORE, path, 0, "%s %d: %s", what,
			   version, sqlite3_errmsg(db));
}

static int read_version(sqlite3 *db, int *version)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*version = sqlite3_column_int(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

/*
 * Apply migration 'to - 1' unless another process got there first: the
 * version is read again under the write lock that BEGIN IMMEDIATE takes.
 */
static int apply_one(struct lk_ctx *ctx, sqlite3 *db, const char *path,
		     const char *script, int to)
{
	char bump[64];
	int current = 0;

	if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(ctx, db, path,
			       "cannot lock to migrate to schema", to);
	if (read_version(db, &current) != SQLITE_OK)
		goto fail;
	if (current >= to)
		goto commit;
	snprintf(bump, sizeof(bump), "PRAGMA user_version = %d", to);
	if (sqlite3_exec(db, script, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, bump, NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
commit:
	if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	return 0;
fail:
	db_fail(ctx, db, path, "cannot migrate to schema", to);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return LK_ESTORE;
}

/* Read the version; one newer than the n scripts we have is refused. */
static int read_known_version(struct lk_ctx *ctx, sqlite3 *db,
			      const char *path, int n, int *version)
{
	if (read_version(db, version) != SQLITE_OK)
		return db_fail(ctx, db, path, "cannot read schema version",
			       n);
	if (*version > n)
		return lk_error_at(ctx, LK_EUNSUP, path, 0,
				   "schema version %d is newer than this "
				   "loopkit knows (%d); use a newer loopkit",
				   *version, n);
	return 0;
}

int lk_store_migrate_with(struct lk_ctx *ctx, sqlite3 *db, const char *path,
			  const char *const *scripts, int n, int *version)
{
	int v = 0, ret;

	ret = read_known_version(ctx, db, path, n, &v);
	for (; !ret && v < n; v++)
		ret = apply_one(ctx, db, path, scripts[v], v + 1);
	/* Read again: a newer loopkit may have migrated further meanwhile. */
	if (!ret)
		ret = read_known_version(ctx, db, path, n, version);
	return ret;
}

int lk_store_migrate(struct lk_ctx *ctx, sqlite3 *db, const char *path,
		     int *version)
{
	return lk_store_migrate_with(ctx, db, path, migrations,
				     lk_store_latest_version(), version);
}
