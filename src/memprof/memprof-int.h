/*
 * memprof internals shared by the trace readers (text grammar, scanner,
 * binary reader): name interning, the duplicate-id check, the text
 * parser's state and token values.
 */
#ifndef LOOPKIT_MEMPROF_INT_H
#define LOOPKIT_MEMPROF_INT_H

#include <stdint.h>

#include "loopkit/memprof.h"

/*
 * Function names to their index in lk_trace.names, by open addressing.
 * A trace has millions of calls and a few hundred functions, so every
 * line looks a name up here instead of scanning the list.
 */
struct name_slot {
	uint64_t hash;
	uint32_t len;
	uint32_t index_plus1;   /* 0: empty */
};

struct name_table {
	struct name_slot *slots;
	size_t mask;            /* number of slots - 1; 0 when not set up */
	size_t used;
};

/*
 * The index of name s[0..len) in t->names, adding it when new (*added
 * says which). Returns -1 when the trace already holds UINT32_MAX names.
 */
int64_t name_intern(struct name_table *nt, struct lk_trace *t, const char *s,
		    size_t len, int *added);
void name_table_release(struct name_table *nt);

/*
 * Call ids seen so far. Traces normally arrive in id order, where
 * "greater than the largest id so far" proves an id new; the hash set
 * is only built at the first id that comes out of order.
 */
struct id_set {
	size_t *slots;          /* call index + 1; 0: empty */
	size_t mask;
	uint64_t max_id;
	int any;                /* some id was seen (max_id is valid) */
	int sorted;             /* every id so far was above the previous */
};

/* 1 if call t->calls[t->ncalls - 1]'s id was already seen (it is then
 * not recorded); 0 after recording it. */
int id_set_add_last(struct id_set *ids, const struct lk_trace *t);
void id_set_release(struct id_set *ids);

/* Sort t->calls by id unless the ids are known to be in order. */
void trace_sort_calls(struct lk_trace *t, int sorted);

/* ---- The text trace parser (trace.l, trace.y, trace-text.c). ---- */

/* The value of every token: where its text is (in the scanner's copy of
 * the input, valid for the whole parse), and for numbers their value. */
struct lktrace_tok {
	const char *s;
	uint32_t len;
	int overflow;           /* NUMBER: more than 64 bits */
	uint64_t num;
	long line;
};

struct trace_parser {
	struct lk_ctx *ctx;
	const char *name;
	int strict;
	struct lk_trace *out;
	struct lk_buf *warnings;
	long line;              /* scanner: the current line */
	int at_bol;             /* scanner: nothing seen on this line yet */
	int failed;             /* strict: an error is in ctx */
	long shown;             /* warnings written */
	struct lktrace_tok prev, cur; /* the last two tokens, for messages */
	int prev_kind, cur_kind;
	uint64_t max_tsc;
	struct name_table names;
	struct id_set ids;
};

/* A malformed line: a warning, or in strict mode the error (and 1 so
 * the grammar aborts). */
int trace_bad_line(struct trace_parser *p, long line, const char *fmt, ...)
	LK_PRINTF(3, 4);
/* Record one well-formed line's call; 1 to abort (strict, bad line). */
int trace_add_call(struct trace_parser *p, const struct lktrace_tok *id,
		   const struct lktrace_tok *func, const struct lktrace_tok *enter,
		   const struct lktrace_tok *exit);
/* Up to 'max' bytes of s as a printable, quoted string into b. */
void trace_quote(struct lk_buf *b, const char *s, size_t len, size_t max);

#endif
