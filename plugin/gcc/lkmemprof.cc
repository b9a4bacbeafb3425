// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * lkmemprof: the GCC plugin behind `loopkit memprof`. This file: the
 * arguments, pass registration and the output files (formats:
 * doc/memprof-formats.md). The plugin is GPL-3.0-or-later (COPYING here),
 * unlike the rest of loopkit, because GCC plugins must be GPL-compatible.
 *
 *   gcc -fplugin=lkmemprof.so -fplugin-arg-lkmemprof-out=FILE.lkmem \
 *       -fplugin-arg-lkmemprof-instrument=all|none|NAME[:NAME...] ...
 */
#include "gcc-plugin.h"
#include "plugin-version.h"
#include "tree.h"
#include "tree-pass.h"
#include "context.h"
#include "diagnostic-core.h"
#include "options.h"
#include "ggc.h"

#include "lkmemprof.h"

/* GCC refuses to load a plugin without this symbol. */
int plugin_is_GPL_compatible;

#define LKMEMPROF_VERSION "1"

static const char help_text[] =
	"lkmemprof " LKMEMPROF_VERSION
	": static load/store counts per function, entry/exit calls\n"
	"  -fplugin-arg-lkmemprof-out=FILE.lkmem\n"
	"      the counts, machine-readable; readable in FILE.lkmem.txt\n"
	"      (default: beside the object, as OBJECT.lkmem)\n"
	"  -fplugin-arg-lkmemprof-instrument=all|none|NAME[:NAME...]\n"
	"      call lk_prof_enter/lk_prof_exit (liblkrt) in these functions\n"
	"      (default: none)\n"
	"  -fplugin-arg-lkmemprof-help\n"
	"      this text\n";

static struct plugin_info lkmemprof_info = {
	LKMEMPROF_VERSION,
	help_text,
};

static char *out_path;                 /* NULL: from the dump base name */
static struct memprof_record *records;
static unsigned nrecords;

void memprof_add_record(struct memprof_record *rec)
{
	records = XRESIZEVEC(struct memprof_record, records, nrecords + 1);
	rec->order = nrecords;
	records[nrecords++] = *rec;
}

/* Source order: the main file's functions first, then by file and line;
 * the pass manager's own order (callees first) means little to a reader. */
static int compare_records(const void *pa, const void *pb)
{
	const struct memprof_record *a = (const struct memprof_record *)pa;
	const struct memprof_record *b = (const struct memprof_record *)pb;
	bool a_main = strcmp(a->file, main_input_filename) == 0;
	bool b_main = strcmp(b->file, main_input_filename) == 0;

	if (a_main != b_main)
		return a_main ? -1 : 1;
	int by_file = strcmp(a->file, b->file);
	if (by_file)
		return by_file;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static bool write_file(const char *path, bool machine)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		error("lkmemprof: cannot write %qs: %m", path);
		return false;
	}
	if (machine)
		fputs("lkmem 1\n", f);
	for (unsigned i = 0; i < nrecords; i++)
		fputs(machine ? records[i].machine : records[i].readable, f);
	if (machine)
		fputs("end\n", f);
	if (fclose(f) != 0) {
		error("lkmemprof: cannot write %qs: %m", path);
		return false;
	}
	return true;
}

static void free_records(void)
{
	for (unsigned i = 0; i < nrecords; i++) {
		free(records[i].file);
		free(records[i].machine);
		free(records[i].readable);
	}
	XDELETEVEC(records);
	records = NULL;
	nrecords = 0;
}

/* <dump base name>.lkmem without the source's extension, as GCC names its
 * own per-object files (-fstack-usage's .su): `-c a.c -o dir/x.o` gives
 * dir/x.lkmem, `gcc a.c` gives a.lkmem. */
static char *default_out_path(void)
{
	const char *base = dump_base_name;
	size_t len = strlen(base);
	size_t ext = dump_base_ext ? strlen(dump_base_ext) : 0;

	if (ext && ext < len && strcmp(base + len - ext, dump_base_ext) == 0)
		len -= ext;
	char *path = XNEWVEC(char, len + sizeof ".lkmem");
	memcpy(path, base, len);
	strcpy(path + len, ".lkmem");
	return path;
}

/* PLUGIN_FINISH: a failed compilation leaves no (partial) files. Nor
 * does lto1: with -flto the driver loads the plugin at link time too,
 * where no function is lowered again, and an empty file would replace the
 * counts the compile step wrote. */
static void write_outputs(void *gcc_data, void *user_data)
{
	if (!seen_error() && !flag_syntax_only && !in_lto_p) {
		char *path = out_path ? xstrdup(out_path)
				      : default_out_path();
		char *text_path = concat(path, ".txt", NULL);
		qsort(records, nrecords, sizeof *records, compare_records);
		if (write_file(path, true))
			write_file(text_path, false);
		free(text_path);
		free(path);
	}
	free_records();
}

static bool parse_arguments(const struct plugin_name_args *args)
{
	bool ok = true;

	for (int i = 0; i < args->argc; i++) {
		const char *key = args->argv[i].key;
		const char *value = args->argv[i].value;
		if (strcmp(key, "out") == 0 && value && *value) {
			free(out_path);
			out_path = xstrdup(value);
		} else if (strcmp(key, "instrument") == 0 &&
			   memprof_set_instrument(value)) {
			continue;
		} else if (strcmp(key, "help") == 0) {
			fputs(help_text, stderr);
		} else if (strcmp(key, "out") == 0 ||
			   strcmp(key, "instrument") == 0) {
			error("lkmemprof: argument %qs needs a value, as in "
			      "%<-fplugin-arg-lkmemprof-%s=VALUE%>", key, key);
			ok = false;
		} else {
			error("lkmemprof: unknown argument %qs (known: out, "
			      "instrument, help)", key);
			ok = false;
		}
	}
	return ok;
}

static void register_pass_after(const char *plugin, opt_pass *pass,
				const char *reference)
{
	struct register_pass_info info;

	info.pass = pass;
	info.reference_pass_name = reference;
	info.ref_pass_instance_number = 1;
	info.pos_op = PASS_POS_INSERT_AFTER;
	register_callback(plugin, PLUGIN_PASS_MANAGER_SETUP, NULL, &info);
}

int plugin_init(struct plugin_name_args *args,
		struct plugin_gcc_version *version)
{
	/* The plugin uses GCC's internal data structures, which change
	 * between releases and configurations: it only loads into the exact
	 * GCC build whose plugin headers it was compiled against. */
	if (!plugin_default_version_check(version, &gcc_version)) {
		error("lkmemprof: built against GCC %s (%s), cannot load "
		      "into this GCC %s (%s): rebuild it with this GCC%'s "
		      "plugin headers", gcc_version.basever,
		      gcc_version.datestamp, version->basever,
		      version->datestamp);
		return 1;
	}
	register_callback(args->base_name, PLUGIN_INFO, NULL,
			  &lkmemprof_info);
	if (!parse_arguments(args))
		return 1;
	register_callback(args->base_name, PLUGIN_REGISTER_GGC_ROOTS, NULL,
			  (void *)memprof_gc_roots);
	register_pass_after(args->base_name,
			    memprof_make_instrument_pass(g), "cfg");
	register_pass_after(args->base_name, memprof_make_count_pass(g),
			    "ssa");
	register_callback(args->base_name, PLUGIN_FINISH, write_outputs,
			  NULL);
	return 0;
}
