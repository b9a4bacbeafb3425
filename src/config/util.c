/* String utilities behind the config messages: did-you-mean, duplicates. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config-int.h"

#define SUGGEST_MAXLEN 64

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

/* Levenshtein distance with two rows; both strings < SUGGEST_MAXLEN. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t prev[SUGGEST_MAXLEN + 1], cur[SUGGEST_MAXLEN + 1];
	size_t la = strlen(a), lb = strlen(b), i, j;

	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++)
			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1,
				      prev[j - 1] + (a[i - 1] != b[j - 1]));
		memcpy(prev, cur, (lb + 1) * sizeof(*cur));
	}
	return prev[lb];
}

const char *lk_suggest(const char *word, const char *const *candidates)
{
	const char *best = NULL;
	size_t best_d = 0, len = strlen(word);

	if (len >= SUGGEST_MAXLEN)
		return NULL;
	for (; *candidates; candidates++) {
		size_t d;

		if (strlen(*candidates) >= SUGGEST_MAXLEN)
			continue;
		d = edit_distance(word, *candidates);
		if (!best || d < best_d) {
			best = *candidates;
			best_d = d;
		}
	}
	/* Two typos at most, and never "suggest" by replacing all of it. */
	if (!best || best_d > 2 || best_d >= len)
		return NULL;
	return best;
}

void lk_suggest_hint(struct lk_buf *b, const char *word,
		     const char *const *candidates)
{
	const char *best = lk_suggest(word, candidates);
	const char *const *c;

	if (best) {
		lk_buf_addf(b, "(did you mean '%s'?)", best);
		return;
	}
	lk_buf_adds(b, "(allowed:");
	for (c = candidates; *c; c++)
		lk_buf_addf(b, "%s %s", c == candidates ? "" : ",", *c);
	lk_buf_adds(b, ")");
}

struct dup_entry {
	const char *s;
	size_t index;
};

static int dup_cmp(const void *pa, const void *pb)
{
	const struct dup_entry *a = pa, *b = pb;
	int c = strcmp(a->s, b->s);

	if (c)
		return c;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* Sorting keeps this O(n log n): axes may hold 100000 values. */
size_t lk_find_duplicate(const char *const *strs, size_t n)
{
	struct dup_entry *e;
	size_t i, first = n;

	if (n < 2)
		return n;
	e = lk_reallocarray(NULL, n, sizeof(*e));
	for (i = 0; i < n; i++) {
		e[i].s = strs[i];
		e[i].index = i;
	}
	qsort(e, n, sizeof(*e), dup_cmp);
	for (i = 1; i < n; i++)
		if (!strcmp(e[i - 1].s, e[i].s) && e[i].index < first)
			first = e[i].index;
	free(e);
	return first;
}

int lk_parse_decimal(const char *s, long *out)
{
	const char *p = s;
	char *end;
	long v;

	if (*p == '-' || *p == '+')
		p++;
	if (*p < '0' || *p > '9')
		return LK_EINPUT;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end)
		return LK_EINPUT;
	*out = v;
	return 0;
}

int lk_is_identifier(const char *s)
{
	if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
	      (*s >= 'A' && *s <= 'Z')))
		return 0;
	for (s++; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
			return 0;
	return 1;
}

int lk_parse_number(const char *s, double *out)
{
	/* strtod would also take " 1", "nan" and "inf". */
	if (!*s || !strchr("+-.0123456789", *s))
		return LK_EINPUT;
	if (lk_parse_double(s, out) || !isfinite(*out))
		return LK_EINPUT;
	return 0;
}

int lk_parse_bool(const char *s, int *out)
{
	static const char *const yes[] = {"true", "yes", "on", "1"};
	static const char *const no[] = {"false", "no", "off", "0"};
	size_t i;

	for (i = 0; i < LK_ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
			*out = !strcasecmp(s, yes[i]);
			return 0;
		}
	}
	return LK_EINPUT;
}
