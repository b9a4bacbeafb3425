// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Static load/store counts per basic block, weighted by loop trip counts
 * (doc/memprof-formats.md).
 *
 * The pass runs right after "ssa". The IL is then what the gimplifier made
 * of the source: no inlining, no loop header copying, no unrolling yet, so
 * -O0 and -O2 see the same statements and the same loops. (What -O can
 * still change is the source itself, through the preprocessor:
 * __OPTIMIZE__, or _FORTIFY_SOURCE in glibc's headers.)
 *
 * Classification. A statement is a load when it reads, and a store when it
 * writes, a memory reference that is
 *   - an array element: an ARRAY_REF anywhere in the reference (`a[i]`,
 *     `a[i].f`, `s.v[i]`), on a local array as well as a global one;
 *   - through a pointer: the base is a MEM_REF or TARGET_MEM_REF (`*p`,
 *     `p->f`, `p[i]`, which C lowers to `*(p + i)`);
 *   - a global in memory: the base is a variable with static storage
 *     (file-scope or function `static`), not a hard register.
 * Plain locals are not counted even when they live in memory (an
 * address-taken scalar, a local struct's field, a whole-array `a = {}`):
 * they are the compiler's business, not the program's data. Reads come from
 * the right-hand side of a single assignment or an aggregate passed by value
 * to a call; writes from the left-hand side of an assignment or a call.
 * A statement counts at most once per kind (`*p = *q` on structs is one
 * load and one store). Clobbers, debug statements and asm are not counted.
 *
 * Trip counts. loop_optimizer_init (LOOPS_NORMAL | recorded exits) gives
 * preheaders, single latches and exits; number_of_latch_executions gives
 * the latch count N of a loop with a single exit. Per entry of the loop,
 * blocks that run before the exit test in an iteration (the header always;
 * the whole body of a do-while) run N + 1 times, blocks after it N times.
 * For `for` and `while` loops the test is in the header, so that is the
 * doc's "header N + 1, body N". A block's factors are, for each loop around
 * it from the outermost, the count for the block's position in that loop;
 * for an enclosing loop the block stands where its inner loop is entered.
 * Blocks outside loops have no factor. Blocks in conditionals get the
 * loop's count: the numbers are per loop trip, not per branch taken.
 */
#include "gcc-plugin.h"
#include "tree.h"
#include "tree-pass.h"
#include "context.h"
#include "function.h"
#include "basic-block.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "cfgloop.h"
#include "tree-chrec.h"
#include "tree-scalar-evolution.h"
#include "tree-ssa-loop-niter.h"
#include "tree-pretty-print.h"
#include "fold-const.h"
#include "gimplify.h"
#include "cfgexpand.h"
#include "ssa.h"

#include "lkmemprof.h"

/* A trip-count factor: a decimal number or an expression GCC printed. */
struct factor {
	bool numeric;
	char *text;
};

/* What one loop contributes to the blocks inside it. */
struct loop_trip {
	struct factor after;    /* blocks after the exit test: N */
	struct factor before;   /* blocks before it, the header: N + 1 */
	sbitmap before_exit;    /* NULL when the exit is unknown */
};

/* Budget of SSA definitions substituted into one printed expression. */
#define EXPAND_BUDGET 8

/* ---- Classification ---- */

static bool counted_ref(tree ref)
{
	bool element = false;

	if (TREE_CODE(ref) == WITH_SIZE_EXPR)
		ref = TREE_OPERAND(ref, 0);
	while (handled_component_p(ref)) {
		if (TREE_CODE(ref) == ARRAY_REF ||
		    TREE_CODE(ref) == ARRAY_RANGE_REF)
			element = true;
		ref = TREE_OPERAND(ref, 0);
	}
	switch (TREE_CODE(ref)) {
	case MEM_REF:
	case TARGET_MEM_REF:
		return true;
	case STRING_CST:
		return element;
	case VAR_DECL:
		if (DECL_HARD_REGISTER(ref))
			return false;
		return element || is_global_var(ref);
	case PARM_DECL:
	case RESULT_DECL:
		return element;
	default:
		return false;
	}
}

static bool stmt_loads(gimple *stmt)
{
	if (is_gimple_assign(stmt))
		return gimple_assign_single_p(stmt) &&
		       counted_ref(gimple_assign_rhs1(stmt));
	if (is_gimple_call(stmt)) {
		for (unsigned i = 0; i < gimple_call_num_args(stmt); i++)
			if (counted_ref(gimple_call_arg(stmt, i)))
				return true;
	}
	return false;
}

static bool stmt_stores(gimple *stmt)
{
	if (!is_gimple_assign(stmt) && !is_gimple_call(stmt))
		return false;
	tree lhs = gimple_get_lhs(stmt);
	return lhs && counted_ref(lhs);
}

static void count_block(basic_block bb, long *loads, long *stores)
{
	*loads = *stores = 0;
	for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi);
	     gsi_next(&gsi)) {
		gimple *stmt = gsi_stmt(gsi);
		if (is_gimple_debug(stmt) || gimple_clobber_p(stmt))
			continue;
		*loads += stmt_loads(stmt);
		*stores += stmt_stores(stmt);
	}
}

/* ---- Printing symbolic counts ---- */

/*
 * walk_tree callback: make an expression readable. SSA names of user
 * variables print as the variable (`n`, not `n_5(D)`: version numbers
 * mean nothing to the reader), compiler temporaries as the expression
 * that defined them, within a budget.
 */
static tree name_ssa(tree *tp, int *walk_subtrees, void *data)
{
	int *budget = (int *)data;
	tree t = *tp;

	if (TYPE_P(t)) {
		*walk_subtrees = 0;
		return NULL_TREE;
	}
	if (TREE_CODE(t) != SSA_NAME)
		return NULL_TREE;
	tree var = SSA_NAME_VAR(t);
	if (var && DECL_NAME(var) && !DECL_ARTIFICIAL(var)) {
		*tp = var;
		return NULL_TREE;
	}
	gimple *def = SSA_NAME_DEF_STMT(t);
	if (*budget > 0 && is_gimple_assign(def)) {
		--*budget;
		/* A copy: the walk goes on into it and edits only the copy. */
		*tp = unshare_expr(gimple_assign_rhs_to_tree(def));
	}
	return NULL_TREE;
}

/* The expression on one line, without the characters the machine form
 * reserves (tab, ';'). */
static char *print_expr(tree expr)
{
	int budget = EXPAND_BUDGET;
	tree copy = unshare_expr(expr);

	walk_tree(&copy, name_ssa, &budget, NULL);
	char *text = print_generic_expr_to_str(copy);
	for (char *c = text; *c; c++)
		if (*c == '\t' || *c == '\n' || *c == '\r' || *c == ';')
			*c = ' ';
	return text;
}

static struct factor numeric_factor(unsigned HOST_WIDE_INT value)
{
	struct factor f = { true, NULL };

	f.text = xasprintf(HOST_WIDE_INT_PRINT_UNSIGNED, value);
	return f;
}

static struct factor symbolic_factor(tree expr)
{
	struct factor f = { false, NULL };

	f.text = expr ? print_expr(expr) : xstrdup("unknown");
	return f;
}

/* N, or N + 1 when plus_one: numeric when GCC folded it to a constant. */
static struct factor trip_factor(tree latch, bool plus_one)
{
	if (!latch || chrec_contains_undetermined(latch))
		return symbolic_factor(NULL_TREE);
	if (tree_fits_uhwi_p(latch)) {
		unsigned HOST_WIDE_INT n = tree_to_uhwi(latch);
		if (!plus_one)
			return numeric_factor(n);
		if (n != HOST_WIDE_INT_M1U)
			return numeric_factor(n + 1);
	}
	if (!plus_one)
		return symbolic_factor(latch);
	tree type = TREE_TYPE(latch);
	if (!INTEGRAL_TYPE_P(type))
		return symbolic_factor(NULL_TREE);
	return symbolic_factor(fold_build2(PLUS_EXPR, type, latch,
					   build_one_cst(type)));
}

static bool factor_is_zero(const struct factor *f)
{
	return f->numeric && strcmp(f->text, "0") == 0;
}

/* ---- Loops ---- */

/*
 * The blocks of LOOP that an iteration runs before (or at) its exit test
 * EXIT_SRC: reachable from the header without leaving EXIT_SRC, nor taking
 * the back edge. Blocks of inner loops are included, so an inner loop
 * entered before the test is entered N + 1 times.
 */
static sbitmap blocks_before_exit(function *fun, class loop *loop,
				  basic_block exit_src)
{
	int nblocks = last_basic_block_for_fn(fun);
	sbitmap seen = sbitmap_alloc(nblocks);
	basic_block *stack = XNEWVEC(basic_block, nblocks);
	int top = 0;

	bitmap_clear(seen);
	bitmap_set_bit(seen, loop->header->index);
	stack[top++] = loop->header;
	while (top > 0) {
		basic_block bb = stack[--top];
		edge e;
		edge_iterator ei;
		if (bb == exit_src)
			continue;
		FOR_EACH_EDGE(e, ei, bb->succs) {
			basic_block next = e->dest;
			if (next == loop->header ||
			    !flow_bb_inside_loop_p(loop, next) ||
			    bitmap_bit_p(seen, next->index))
				continue;
			bitmap_set_bit(seen, next->index);
			stack[top++] = next;
		}
	}
	XDELETEVEC(stack);
	return seen;
}

static void analyse_loop(function *fun, class loop *loop,
			 struct loop_trip *trip)
{
	tree latch = number_of_latch_executions(loop);
	edge exit = single_exit(loop);

	if (chrec_contains_undetermined(latch) || !exit) {
		trip->after = symbolic_factor(NULL_TREE);
		trip->before = symbolic_factor(NULL_TREE);
		trip->before_exit = NULL;
		return;
	}
	trip->after = trip_factor(latch, false);
	trip->before = trip_factor(latch, true);
	trip->before_exit = blocks_before_exit(fun, loop, exit->src);
}

static struct loop_trip *analyse_loops(function *fun)
{
	unsigned n = number_of_loops(fun);
	struct loop_trip *trips = XCNEWVEC(struct loop_trip, n);

	/* Loop 0 is the whole function: no factor. */
	for (unsigned i = 1; i < n; i++) {
		class loop *loop = get_loop(fun, i);
		if (loop)
			analyse_loop(fun, loop, &trips[i]);
	}
	return trips;
}

static void free_trips(function *fun, struct loop_trip *trips)
{
	for (unsigned i = 0; i < number_of_loops(fun); i++) {
		free(trips[i].after.text);
		free(trips[i].before.text);
		if (trips[i].before_exit)
			sbitmap_free(trips[i].before_exit);
	}
	XDELETEVEC(trips);
}

static const struct factor *block_factor(const struct loop_trip *trip,
					 basic_block bb)
{
	if (trip->before_exit && bitmap_bit_p(trip->before_exit, bb->index))
		return &trip->before;
	return &trip->after;
}

/* BB's factors, outermost loop first, into out[] (loop_depth entries).
 * Returns the number, or -1 when a factor is 0 (the block never runs). */
static int block_factors(const struct loop_trip *trips, basic_block bb,
			 const struct factor **out)
{
	int depth = bb_loop_depth(bb);

	for (class loop *l = bb->loop_father; loop_outer(l); l = loop_outer(l))
		out[loop_depth(l) - 1] = block_factor(&trips[l->num], bb);
	for (int i = 0; i < depth; i++)
		if (factor_is_zero(out[i]))
			return -1;
	return depth;
}

/* ---- Output ---- */

static void print_block(FILE *machine, FILE *readable, basic_block bb,
			long loads, long stores, const struct factor **fs,
			int nfs)
{
	fprintf(machine, "block\t%d\t%ld\t%ld\t", bb->index, loads, stores);
	for (int i = 0; i < nfs; i++)
		fprintf(machine, "%s%s%s", i ? ";" : "",
			fs[i]->numeric ? "" : "sym:", fs[i]->text);
	fputc('\n', machine);

	for (int kind = 0; kind < 2; kind++) {
		long n = kind ? stores : loads;
		if (n == 0)
			continue;
		fprintf(readable, "%ld", n);
		for (int i = 0; i < nfs; i++)
			fprintf(readable, fs[i]->numeric ? " * %s" : " * (%s)",
				fs[i]->text);
		fprintf(readable, " %s\n", kind ? "store" : "load");
	}
}

static const char *clean_file_name(const char *file)
{
	/* A tab would split the machine line; such names are not worth
	 * more than a placeholder. */
	return strpbrk(file, "\t\n") ? "?" : file;
}

static void count_function(function *fun)
{
	struct memprof_record rec;
	size_t msize, rsize;
	FILE *machine = open_memstream(&rec.machine, &msize);
	FILE *readable = open_memstream(&rec.readable, &rsize);
	const char *name = DECL_NAME(fun->decl)
				   ? IDENTIFIER_POINTER(DECL_NAME(fun->decl))
				   : "?";
	struct loop_trip *trips = analyse_loops(fun);
	const struct factor **fs =
		XNEWVEC(const struct factor *, number_of_loops(fun) + 1);
	basic_block bb;

	rec.file = xstrdup(clean_file_name(DECL_SOURCE_FILE(fun->decl)));
	rec.line = DECL_SOURCE_LINE(fun->decl);
	fprintf(machine, "function\t%s\t%s\t%d\n", name, rec.file, rec.line);
	fprintf(readable, "function '%s'\n", name);
	FOR_EACH_BB_FN(bb, fun) {
		long loads, stores;
		count_block(bb, &loads, &stores);
		if (loads == 0 && stores == 0)
			continue;
		int nfs = block_factors(trips, bb, fs);
		if (nfs >= 0)
			print_block(machine, readable, bb, loads, stores, fs,
				    nfs);
	}
	fclose(machine);
	fclose(readable);
	XDELETEVEC(fs);
	free_trips(fun, trips);
	memprof_add_record(&rec);
}

/* ---- The pass ---- */

static unsigned int count_execute(function *fun)
{
	loop_optimizer_init(LOOPS_NORMAL | LOOPS_HAVE_RECORDED_EXITS);
	scev_initialize();
	count_function(fun);
	/* Forget the latch counts cached in the loops (they name SSA
	 * versions later passes may rewrite) and leave the loop state as
	 * the pass manager expects it. */
	free_numbers_of_iterations_estimates(fun);
	scev_finalize();
	loop_optimizer_finalize(fun);
	return 0;
}

static const pass_data count_pass_data = {
	GIMPLE_PASS,
	"lkmemprof",            /* name (dumps: -fdump-tree-lkmemprof) */
	OPTGROUP_NONE,
	TV_NONE,
	PROP_cfg | PROP_ssa,    /* properties_required */
	0, 0, 0, 0,
};

struct count_pass : gimple_opt_pass {
	count_pass(gcc::context *ctxt)
		: gimple_opt_pass(count_pass_data, ctxt)
	{
	}
	unsigned int execute(function *fun) final override
	{
		return count_execute(fun);
	}
};

opt_pass *memprof_make_count_pass(gcc::context *ctxt)
{
	return new count_pass(ctxt);
}
