// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * Entry/exit instrumentation: `lk_prof_enter (name)` at the entry of each
 * selected function, `lk_prof_exit (name)` before each return (liblkrt,
 * doc/memprof-formats.md).
 *
 * The pass runs right after "cfg", before SSA: inserting calls then needs
 * no virtual operands, and the cgraph edges to the runtime are built by
 * "*build_cgraph_edges" after us. The exit call goes before the return,
 * after any call whose value is returned, so `return g (x)` is no longer
 * a tail call and enter/exit pairs nest like the calls themselves.
 */
#include "gcc-plugin.h"
#include "tree.h"
#include "tree-pass.h"
#include "context.h"
#include "function.h"
#include "basic-block.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "cfghooks.h"
#include "stringpool.h"
#include "attribs.h"
#include "ggc.h"

#include "lkmemprof.h"

enum selection { SELECT_NONE, SELECT_ALL, SELECT_LIST };

static enum selection selection = SELECT_NONE;
static char **selected;         /* SELECT_LIST: the names */
static int nselected;

/* Built once, kept alive across functions as GC roots. */
static tree enter_decl;
static tree exit_decl;

const struct ggc_root_tab memprof_gc_roots[] = {
	{ &enter_decl, 1, sizeof(enter_decl), &gt_ggc_mx_tree_node,
	  &gt_pch_nx_tree_node },
	{ &exit_decl, 1, sizeof(exit_decl), &gt_ggc_mx_tree_node,
	  &gt_pch_nx_tree_node },
	LAST_GGC_ROOT_TAB
};

bool memprof_set_instrument(const char *value)
{
	if (!value || !*value)
		return false;
	if (strcmp(value, "none") == 0) {
		selection = SELECT_NONE;
		return true;
	}
	if (strcmp(value, "all") == 0) {
		selection = SELECT_ALL;
		return true;
	}
	selection = SELECT_LIST;
	char *list = xstrdup(value);
	for (char *name = strtok(list, ":"); name; name = strtok(NULL, ":")) {
		selected = XRESIZEVEC(char *, selected, nselected + 1);
		selected[nselected++] = xstrdup(name);
	}
	free(list);
	return nselected > 0;
}

bool memprof_instrument_enabled(void)
{
	return selection != SELECT_NONE;
}

static bool is_selected(const char *name)
{
	/* The runtime's own functions (and anything it may call that shares
	 * its prefix) would recurse into themselves. */
	if (strncmp(name, "lk_", 3) == 0)
		return false;
	if (selection == SELECT_ALL)
		return true;
	for (int i = 0; i < nselected; i++)
		if (strcmp(selected[i], name) == 0)
			return true;
	return false;
}

/* void NAME (const char *): nothrow (build_fn_decl's default) and leaf,
 * as the runtime never calls back into the program. */
static tree runtime_decl(tree *slot, const char *name)
{
	if (*slot)
		return *slot;
	/* const_char_ptr_type_node belongs to the C family: build it. */
	tree cstr = build_pointer_type(
		build_qualified_type(char_type_node, TYPE_QUAL_CONST));
	tree type = build_function_type_list(void_type_node, cstr, NULL_TREE);
	tree decl = build_fn_decl(name, type);
	DECL_ATTRIBUTES(decl) = tree_cons(get_identifier("leaf"), NULL_TREE,
					  DECL_ATTRIBUTES(decl));
	*slot = decl;
	return decl;
}

static gimple *build_prof_call(tree decl, const char *name, location_t loc)
{
	tree str = build_string_literal(strlen(name) + 1, name);
	gimple *call = gimple_build_call(decl, 1, str);

	gimple_set_location(call, loc);
	return call;
}

/* The first block runs once per call only if nothing else jumps to it (a
 * loop at the top of the function does): otherwise the call goes into a
 * new block on the entry edge. */
static void insert_enter(function *fun, const char *name)
{
	edge entry = single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fun));
	basic_block first = entry->dest;

	if (!single_pred_p(first))
		first = split_edge(entry);
	gimple_stmt_iterator gsi = gsi_after_labels(first);
	gsi_insert_before(&gsi,
			  build_prof_call(runtime_decl(&enter_decl,
						       "lk_prof_enter"),
					  name, DECL_SOURCE_LOCATION(fun->decl)),
			  GSI_SAME_STMT);
}

static void insert_exits(function *fun, const char *name)
{
	basic_block bb;

	FOR_EACH_BB_FN(bb, fun) {
		gimple_stmt_iterator gsi = gsi_last_bb(bb);
		if (gsi_end_p(gsi) || gimple_code(gsi_stmt(gsi)) != GIMPLE_RETURN)
			continue;
		gimple *ret = gsi_stmt(gsi);
		gsi_insert_before(&gsi,
				  build_prof_call(runtime_decl(&exit_decl,
							       "lk_prof_exit"),
						  name, gimple_location(ret)),
				  GSI_SAME_STMT);
	}
}

static unsigned int instrument_execute(function *fun)
{
	tree id = DECL_NAME(fun->decl);

	if (!id || !is_selected(IDENTIFIER_POINTER(id)))
		return 0;
	insert_enter(fun, IDENTIFIER_POINTER(id));
	insert_exits(fun, IDENTIFIER_POINTER(id));
	return 0;
}

static const pass_data instrument_pass_data = {
	GIMPLE_PASS,
	"lkmemprof-instrument", /* name */
	OPTGROUP_NONE,
	TV_NONE,
	PROP_cfg,               /* properties_required */
	0, 0, 0, 0,
};

struct instrument_pass : gimple_opt_pass {
	instrument_pass(gcc::context *ctxt)
		: gimple_opt_pass(instrument_pass_data, ctxt)
	{
	}
	bool gate(function *fun) final override
	{
		return memprof_instrument_enabled();
	}
	unsigned int execute(function *fun) final override
	{
		return instrument_execute(fun);
	}
};

opt_pass *memprof_make_instrument_pass(gcc::context *ctxt)
{
	return new instrument_pass(ctxt);
}
