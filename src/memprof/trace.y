/*
 * The text trace grammar: one call per line,
 *   Call ID to function NAME enter cycle TSC exit cycle TSC
 * Blank lines and comments are allowed. A malformed line is skipped by
 * the 'error NL' rule after its reason has been reported, unless strict.
 */
%define api.pure full
%define api.prefix {lktrace_}
%define api.value.type {union lktrace_value}
%define parse.error custom
%param {yyscan_t scanner}
%parse-param {struct trace_parser *p}

%code requires {
/* Library files include this header first: they are not built with -I
 * src/memprof, so the include is only for the scanner and the parser. */
#ifndef LOOPKIT_MEMPROF_INT_H
#include "memprof-int.h"
#endif

union lktrace_value {
	struct lktrace_tok tok;
};

#ifndef YY_TYPEDEF_YY_SCANNER_T
#define YY_TYPEDEF_YY_SCANNER_T
typedef void *yyscan_t;
#endif
}

%code {
int lktrace_lex(LKTRACE_STYPE *val, yyscan_t scanner);
static void lktrace_error(yyscan_t scanner, struct trace_parser *p,
			  const char *msg);
}

%token <tok> CALL "'Call'" TO "'to'" FUNCTION "'function'"
%token <tok> ENTER "'enter'" EXIT "'exit'" CYCLE "'cycle'"
%token <tok> NUMBER "a number" NAME "a function name"
%token <tok> NL "the end of the line" JUNK "a stray character"
%nterm <tok> name

%%

lines:	%empty
	| lines line
	;

line:	NL
	| CALL NUMBER TO FUNCTION name ENTER CYCLE NUMBER EXIT CYCLE NUMBER NL
		{
			if (trace_add_call(p, &$2, &$5, &$8, &$11))
				YYABORT;
		}
	| error NL
		{
			yyerrok;
			if (p->failed)
				YYABORT;
		}
	;

/* A function may be called like a keyword ('exit' is common). */
name:	NAME | CALL | TO | FUNCTION | ENTER | EXIT | CYCLE
	;

%%

static void lktrace_error(yyscan_t scanner, struct trace_parser *p,
			  const char *msg)
{
	(void)scanner;
	trace_bad_line(p, p->cur.line, "%s", msg);
}

/* The token as the message shows it: its text, or what it stands for. */
static void describe(struct lk_buf *b, int kind, const struct lktrace_tok *t)
{
	if (kind == NL)
		lk_buf_adds(b, "the end of the line");
	else
		trace_quote(b, t->s, t->len, 32);
}

/* What the parser wanted: "a function name" rather than all seven words
 * that can be one, and the end of the line only when nothing else fits. */
static void expected(struct lk_buf *msg, const yypcontext_t *yyctx)
{
	yysymbol_kind_t kinds[YYNTOKENS];
	int n = yypcontext_expected_tokens(yyctx, kinds, YYNTOKENS);
	int i, shown = 0;

	for (i = 0; i < n; i++)
		if (kinds[i] == YYSYMBOL_NAME) {
			lk_buf_adds(msg, "expected a function name");
			return;
		}
	lk_buf_adds(msg, "expected ");
	for (i = 0; i < n; i++) {
		if (n > 1 && (kinds[i] == YYSYMBOL_NL ||
			      kinds[i] == YYSYMBOL_YYEOF))
			continue;
		lk_buf_addf(msg, "%s%s", shown++ ? " or " : "",
			    yysymbol_name(kinds[i]));
	}
	if (!shown)
		lk_buf_adds(msg, "nothing more");
}

/* "expected 'exit' after '1200', got 'exot'" */
static int yyreport_syntax_error(const yypcontext_t *yyctx, yyscan_t scanner,
				 struct trace_parser *p)
{
	struct lk_buf msg = LK_BUF_INIT;

	(void)scanner;
	expected(&msg, yyctx);
	if (p->prev_kind && p->prev_kind != NL) {
		lk_buf_adds(&msg, " after ");
		describe(&msg, p->prev_kind, &p->prev);
	} else {
		lk_buf_adds(&msg, " at the start of the line");
	}
	lk_buf_adds(&msg, ", got ");
	describe(&msg, p->cur_kind, &p->cur);
	/* Strict mode stops in the 'error NL' rule, once the parser has
	 * recovered: aborting here would skip bison's cleanup. */
	trace_bad_line(p, p->cur.line, "%s", lk_buf_str(&msg));
	lk_buf_release(&msg);
	return 0;
}
