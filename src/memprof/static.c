/*
 * Static load/store counts: the plugin's machine-readable .lkmem files
 * (doc/memprof-formats.md), their totals per call, and the readable and
 * JSON renderings. The parser is strict: the files are written by our
 * plugin, so anything unexpected is a bug or a damaged file worth
 * stopping for.
 */
#include <stdlib.h>
#include <string.h>

#include "loopkit/memprof.h"

struct lkmem_parser {
	struct lk_ctx *ctx;
	const char *name;
	long line;
	int in_file;                    /* after "lkmem 1", before "end" */
	struct lk_mem_func *func;       /* the function blocks go to */
	struct lk_mem_static *out;
};

static int bad(struct lkmem_parser *p, const char *what, const char *field)
{
	if (field)
		return lk_error_at(p->ctx, LK_EINPUT, p->name, p->line,
				   "%s: '%.64s'", what, field);
	return lk_error_at(p->ctx, LK_EINPUT, p->name, p->line, "%s", what);
}

/* Digits only, no sign or spaces, and no more than fits in a long. */
static int parse_count(const char *s, long *out)
{
	long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' ||
		    __builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, *s - '0', &v))
			return -1;
	}
	*out = v;
	return 0;
}

/* Split line (modified in place) at tabs into at most max fields. */
static size_t split_tabs(char *line, char **fields, size_t max)
{
	size_t n = 0;

	fields[n++] = line;
	while ((line = strchr(line, '\t')) != NULL) {
		*line++ = '\0';
		if (n == max)
			return max + 1;
		fields[n++] = line;
	}
	return n;
}

static int parse_function(struct lkmem_parser *p, char **f, size_t n)
{
	struct lk_mem_static *s = p->out;
	struct lk_mem_func *fn;
	long line;

	if (n != 4)
		return bad(p, "'function' needs NAME, FILE and LINE, "
			      "tab-separated", NULL);
	if (!*f[1])
		return bad(p, "empty function name", NULL);
	if (parse_count(f[3], &line))
		return bad(p, "bad line number", f[3]);
	LK_GROW(s->funcs, s->nfuncs + 1, s->alloc);
	fn = &s->funcs[s->nfuncs++];
	memset(fn, 0, sizeof(*fn));
	fn->name = lk_strdup(f[1]);
	fn->file = lk_strdup(f[2]);
	fn->line = line;
	p->func = fn;
	return 0;
}

/* "10" or "sym:EXPR"; empty means 1, so the list may be empty too. */
static int parse_factors(struct lkmem_parser *p, char *list,
			 struct lk_strv *factors)
{
	char *factor, *next;
	long v;

	for (factor = list; *list && factor; factor = next) {
		next = strchr(factor, ';');
		if (next)
			*next++ = '\0';
		if (!strncmp(factor, "sym:", 4)) {
			if (!factor[4])
				return bad(p, "empty symbolic factor", NULL);
		} else if (parse_count(factor, &v) || v < 1) {
			return bad(p, "factor is neither a positive integer "
				      "nor sym:EXPR",
				   factor);
		}
		lk_strv_push(factors, factor);
	}
	return 0;
}

static int parse_block(struct lkmem_parser *p, char **f, size_t n)
{
	struct lk_mem_func *fn = p->func;
	struct lk_mem_block *b;

	if (!fn)
		return bad(p, "'block' before any 'function'", NULL);
	if (n != 5)
		return bad(p, "'block' needs INDEX, LOADS, STORES and "
			      "FACTORS, tab-separated", NULL);
	LK_GROW(fn->blocks, fn->nblocks + 1, fn->alloc);
	b = &fn->blocks[fn->nblocks];
	memset(b, 0, sizeof(*b));
	if (parse_count(f[1], &b->index))
		return bad(p, "bad block index", f[1]);
	if (parse_count(f[2], &b->loads))
		return bad(p, "bad load count", f[2]);
	if (parse_count(f[3], &b->stores))
		return bad(p, "bad store count", f[3]);
	fn->nblocks++;
	return parse_factors(p, f[4], &b->factors);
}

static int parse_line(struct lkmem_parser *p, char *line)
{
	char *f[6];
	size_t n;

	if (!p->in_file) {
		if (strcmp(line, "lkmem 1"))
			return bad(p, !strncmp(line, "lkmem ", 6) ?
				      "unsupported lkmem version" :
				      "expected 'lkmem 1'", NULL);
		p->in_file = 1;
		p->func = NULL;
		return 0;
	}
	if (!strcmp(line, "end")) {
		p->in_file = 0;
		return 0;
	}
	n = split_tabs(line, f, 5);
	if (!strcmp(f[0], "function"))
		return parse_function(p, f, n);
	if (!strcmp(f[0], "block"))
		return parse_block(p, f, n);
	return bad(p, "expected 'function', 'block' or 'end'", f[0]);
}

int lk_mem_static_parse(struct lk_ctx *ctx, const char *name, const char *text,
			size_t len, struct lk_mem_static *out)
{
	struct lkmem_parser p = {ctx, name, 0, 0, NULL, out};
	const char *end = text + len, *eol;
	char *line;
	int ret = 0;

	const char *nul = len ? memchr(text, '\0', len) : NULL;

	/* The lines become C strings: a NUL would cut one short unseen. */
	if (nul) {
		for (eol = text; eol < nul; eol++)
			p.line += *eol == '\n';
		return lk_error_at(ctx, LK_EINPUT, name, p.line + 1,
				   "NUL byte");
	}
	for (; text < end && !ret; text = eol + 1) {
		eol = memchr(text, '\n', (size_t)(end - text));
		if (!eol)
			eol = end;
		p.line++;
		if (eol == text)
			continue;       /* blank lines between files */
		line = lk_strndup(text, (size_t)(eol - text));
		ret = parse_line(&p, line);
		free(line);
	}
	if (!ret && p.in_file)
		ret = lk_error_at(ctx, LK_EINPUT, name, p.line,
				  "missing 'end' at the end of the file");
	return ret;
}

void lk_mem_static_release(struct lk_mem_static *s)
{
	size_t i, j;

	if (!s)
		return;
	for (i = 0; i < s->nfuncs; i++) {
		for (j = 0; j < s->funcs[i].nblocks; j++)
			lk_strv_release(&s->funcs[i].blocks[j].factors);
		free(s->funcs[i].blocks);
		free(s->funcs[i].name);
		free(s->funcs[i].file);
	}
	free(s->funcs);
	memset(s, 0, sizeof(*s));
}
