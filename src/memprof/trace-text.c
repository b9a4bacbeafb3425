/*
 * The text trace reader: runs the flex scanner (trace.l) and the bison
 * grammar (trace.y) over the text in memory, and checks each line's call
 * as the grammar hands it over.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "memprof-int.h"
#include "trace.tab.h"

/* The scanner's entry points (trace.lex.c); its header is not generated. */
struct yy_buffer_state;
int lktrace_lex_init_extra(struct trace_parser *p, yyscan_t *scanner);
int lktrace_lex_destroy(yyscan_t scanner);
struct yy_buffer_state *lktrace__scan_bytes(const char *bytes, int len,
					    yyscan_t scanner);

/* Past this many, malformed lines are only counted (a binary file read
 * as text would otherwise fill the warnings with noise). */
#define MAX_WARNINGS 100

void trace_quote(struct lk_buf *b, const char *s, size_t len, size_t max)
{
	size_t i;

	lk_buf_addch(b, '\'');
	for (i = 0; i < len && i < max; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\')
			lk_buf_addf(b, "\\x%02x", c);
		else
			lk_buf_addch(b, (char)c);
	}
	lk_buf_adds(b, i < len ? "...'" : "'");
}

int trace_bad_line(struct trace_parser *p, long line, const char *fmt, ...)
{
	char reason[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (p->failed)
		return 1;
	p->out->bad_lines++;
	if (p->strict) {
		p->failed = 1;
		lk_error_at(p->ctx, LK_EINPUT, p->name, line, "%s", reason);
		return 1;
	}
	if (p->warnings && p->shown++ < MAX_WARNINGS)
		lk_buf_addf(p->warnings, "%s:%ld: %s\n", p->name, line, reason);
	return 0;
}

static int check_numbers(struct trace_parser *p, const struct lktrace_tok *id,
			 const struct lktrace_tok *enter,
			 const struct lktrace_tok *exit)
{
	const struct lktrace_tok *n[3] = {id, enter, exit};
	int i;

	for (i = 0; i < 3; i++)
		if (n[i]->overflow)
			return trace_bad_line(p, id->line,
					      "number %.*s does not fit in 64 "
					      "bits",
					      (int)(n[i]->len > 40 ? 40 : n[i]->len),
					      n[i]->s) || 1;
	/* exit 0 is how a binary trace says "never returned", and
	 * lk_trace_text writes it so: keep that meaning here. */
	if (exit->num && exit->num < enter->num)
		return trace_bad_line(p, id->line,
				      "call %llu exits (%llu) before it enters "
				      "(%llu)",
				      (unsigned long long)id->num,
				      (unsigned long long)exit->num,
				      (unsigned long long)enter->num) || 1;
	return 0;
}

/* 0: recorded; 1: a bad line (reported). p->failed says whether to stop. */
static int add_call(struct trace_parser *p, const struct lktrace_tok *id,
		    const struct lktrace_tok *func,
		    const struct lktrace_tok *enter,
		    const struct lktrace_tok *exit)
{
	struct lk_trace *t = p->out;
	struct lk_call *c;
	size_t alloc;
	int64_t index;
	int added;

	if (check_numbers(p, id, enter, exit))
		return 1;
	index = name_intern(&p->names, t, func->s, func->len, &added);
	if (index < 0)
		return trace_bad_line(p, id->line, "too many functions") || 1;
	alloc = t->alloc;
	LK_GROW(t->calls, t->ncalls + 1, t->alloc);
	if (t->alloc != alloc || !t->lines)
		t->lines = lk_reallocarray(t->lines, t->alloc,
					   sizeof(*t->lines));
	/* Under 2 GiB of text (checked), a line number fits. */
	t->lines[t->ncalls] = (uint32_t)id->line;
	c = &t->calls[t->ncalls++];
	c->id = id->num;
	c->func = (uint32_t)index;
	c->depth = 0;
	c->enter = enter->num;
	c->exit = exit->num;
	if (id_set_add_last(&p->ids, t)) {
		t->ncalls--;
		return trace_bad_line(p, id->line, "duplicate call id %llu",
				      (unsigned long long)id->num) || 1;
	}
	return 0;
}

int trace_add_call(struct trace_parser *p, const struct lktrace_tok *id,
		   const struct lktrace_tok *func, const struct lktrace_tok *enter,
		   const struct lktrace_tok *exit)
{
	add_call(p, id, func, enter, exit);
	return p->failed;
}

int lk_trace_parse_text(struct lk_ctx *ctx, const char *name, const char *text,
			size_t len, int strict, struct lk_trace *out,
			struct lk_buf *warnings)
{
	struct trace_parser p = {0};
	yyscan_t scanner;
	int ret;

	memset(out, 0, sizeof(*out));
	if (len > INT32_MAX)
		return lk_error(ctx, LK_EINPUT, "%s: text trace over 2 GiB",
				name);
	out->source = lk_strdup(name);
	p.ctx = ctx;
	p.name = name;
	p.strict = strict;
	p.out = out;
	p.warnings = warnings;
	p.line = 1;
	p.at_bol = 1;
	if (lktrace_lex_init_extra(&p, &scanner))
		return lk_error_errno(ctx, "%s: cannot start the scanner", name);
	lktrace__scan_bytes(text, (int)len, scanner);
	ret = lktrace_parse(scanner, &p);
	lktrace_lex_destroy(scanner);
	if (!p.failed && ret)
		lk_error_at(ctx, LK_EINPUT, name, p.line, "cannot parse");
	if (!p.failed && !ret) {
		trace_sort_calls(out, p.ids.sorted || !p.ids.any);
		if (warnings && p.shown > MAX_WARNINGS)
			lk_buf_addf(warnings, "%s: %ld more malformed lines\n",
				    name, p.shown - MAX_WARNINGS);
	}
	name_table_release(&p.names);
	id_set_release(&p.ids);
	if (p.failed || ret) {
		lk_trace_release(out);
		return LK_EINPUT;
	}
	return 0;
}
