// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * lkmemprof: the GCC plugin behind `loopkit memprof`. Shared declarations
 * of its three parts: lkmemprof.cc (arguments, registration, output files),
 * count.cc (static load/store counts after "ssa"), instrument.cc (entry/exit
 * calls after "cfg"). Formats: doc/memprof-formats.md.
 *
 * Include after gcc-plugin.h and the GCC headers the part needs.
 */
#ifndef LKMEMPROF_H
#define LKMEMPROF_H

/* One function's static counts, in both output forms, collected until
 * PLUGIN_FINISH so that the files come out in source order and are not
 * written at all when the compilation fails. */
struct memprof_record {
	char *file;
	int line;
	unsigned order;    /* arrival order: ties between equal lines */
	char *machine;     /* "function..." and "block..." lines */
	char *readable;    /* "function 'f'" and count lines */
};

/* Hand one function's record over (its strings become the list's). */
void memprof_add_record(struct memprof_record *rec);

/* The pass that counts; registered after "ssa". */
opt_pass *memprof_make_count_pass(gcc::context *ctxt);

/* Instrumentation: the pass (registered after "cfg") and the selection
 * it obeys, from the `instrument` argument ("all", "none" or names
 * separated by ':'). Returns false when the value is empty. */
opt_pass *memprof_make_instrument_pass(gcc::context *ctxt);
bool memprof_set_instrument(const char *value);
bool memprof_instrument_enabled(void);

/* GC roots for the runtime declarations instrument.cc keeps across
 * functions; registered with PLUGIN_REGISTER_GGC_ROOTS. */
extern const struct ggc_root_tab memprof_gc_roots[];

#endif
