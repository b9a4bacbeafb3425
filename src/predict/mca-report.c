/*
 * llvm-mca's input (one region per block) and its text report: regions,
 * their totals, and the errors that name an input line.
 */
#include <stdlib.h>
#include <string.h>

#include "predict-int.h"

static long count_lines(const char *s)
{
	long n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

void lk_mca_batch_text(const char *const *texts, size_t n, struct lk_buf *out,
		       long *first_line, long *last_line)
{
	long line = 1;
	size_t k;

	for (k = 0; k < n; k++) {
		long lines = count_lines(texts[k]);

		lk_buf_addf(out, "# LLVM-MCA-BEGIN " LK_MCA_REGION_FMT "\n",
			    k);
		first_line[k] = line + 1;
		last_line[k] = line + lines;
		lk_buf_adds(out, texts[k]);
		if (*texts[k] && texts[k][strlen(texts[k]) - 1] != '\n') {
			lk_buf_addch(out, '\n');
			last_line[k]++;
		}
		lk_buf_addf(out, "# LLVM-MCA-END " LK_MCA_REGION_FMT "\n", k);
		line = last_line[k] + 2;
	}
}

double lk_mca_difference(long i1, double c1, long i2, double c2)
{
	if (i2 <= i1 || i1 <= 0 || c1 < 0 || c2 < 0)
		return -1;
	return (c2 - c1) / (double)(i2 - i1);
}

void lk_mca_regions_free(struct lk_mca_region *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(r[i].name);
		free(r[i].section);
	}
	free(r);
}

/* "[12] Code Region - name": the name (to free), or NULL. */
static char *region_header(const char *line, size_t len)
{
	const char *p = line, *end = line + len;
	static const char tag[] = "] Code Region";

	if (len < 3 || *p != '[')
		return NULL;
	p++;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	if (p == line + 1 || (size_t)(end - p) < sizeof(tag) - 1 ||
	    memcmp(p, tag, sizeof(tag) - 1))
		return NULL;
	p += sizeof(tag) - 1;
	if (end - p >= 3 && !memcmp(p, " - ", 3))
		p += 3;
	while (end > p && (end[-1] == ' ' || end[-1] == '\r'))
		end--;
	return lk_strndup(p, (size_t)(end - p));
}

/* "Key:   value" → value when the line starts with key. */
static int field(const char *line, size_t len, const char *key, double *v)
{
	size_t k = strlen(key);
	char *num, *end;

	if (len <= k || memcmp(line, key, k))
		return 0;
	num = lk_strndup(line + k, len - k);
	*v = strtod(num, &end);
	if (end == num || *v < 0 || *v != *v) {
		free(num);
		return 0;
	}
	while (*end == ' ')
		end++;
	k = *end == '\0';
	free(num);
	return (int)k;
}

static struct lk_mca_region *new_region(struct lk_mca_region **r, size_t *n,
					size_t *cap, char *name)
{
	struct lk_mca_region *x;

	LK_GROW(*r, *n + 1, *cap);
	x = &(*r)[(*n)++];
	x->name = name;
	x->iterations = -1;
	x->total_cycles = -1;
	x->section = NULL;
	return x;
}

static void close_region(struct lk_mca_region *x, const char *from,
			 const char *to)
{
	if (x && !x->section)
		x->section = lk_strndup(from, (size_t)(to - from));
}

void lk_mca_parse(const char *report, struct lk_mca_region **out, size_t *n)
{
	struct lk_mca_region *cur = NULL;
	const char *p = report, *start = report;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	while (*p) {
		size_t len = strcspn(p, "\n");
		char *name = region_header(p, len);
		double v;

		if (name) {
			close_region(cur, start, p);
			cur = new_region(out, n, &cap, name);
			start = p;
		} else if (!cur && (field(p, len, "Iterations:", &v) ||
				    field(p, len, "Total Cycles:", &v))) {
			/* No regions: the whole report is one. */
			cur = new_region(out, n, &cap, lk_strdup(""));
			start = report;
		}
		if (cur && field(p, len, "Iterations:", &v) && v < 1e15)
			cur->iterations = (long)v;
		else if (cur && field(p, len, "Total Cycles:", &v))
			cur->total_cycles = v;
		p += len + (p[len] == '\n');
	}
	close_region(cur, start, p);
}

/* The line number of "FILE:LINE:COL: error:" at the start of line s. */
static long error_line(const char *s, size_t len)
{
	const char *e = memmem(s, len, ": error:", 8);
	const char *p;
	long line = -1;
	int colons = 0;

	if (!e)
		return -1;
	/* Back from ": error:" over ":COL" and ":LINE". */
	for (p = e - 1; p > s; p--) {
		if (*p == ':' && ++colons == 2) {
			line = strtol(p + 1, NULL, 10);
			break;
		}
		if (*p != ':' && (*p < '0' || *p > '9'))
			return -1;
	}
	return line > 0 ? line : -1;
}

void lk_mca_errors(const char *err, long **lines, size_t *nlines,
		   struct lk_strv *insns)
{
	static const char note[] = "note: instruction:";
	const char *p = err;
	size_t cap = 0;

	*lines = NULL;
	*nlines = 0;
	while (p && *p) {
		size_t len = strcspn(p, "\n");
		long line = error_line(p, len);

		if (line > 0) {
			LK_GROW(*lines, *nlines + 1, cap);
			(*lines)[(*nlines)++] = line;
		} else if (len > sizeof(note) - 1 &&
			   !memcmp(p, note, sizeof(note) - 1)) {
			char *text = lk_strndup(p + sizeof(note) - 1,
						len - (sizeof(note) - 1));

			lk_strv_push_take(insns, lk_squeeze(text));
			free(text);
		}
		p += len + (p[len] == '\n');
	}
}

char *lk_mca_error_at(const char *err, long line)
{
	const char *p = err;

	while (p && *p) {
		size_t len = strcspn(p, "\n");

		if (error_line(p, len) == line) {
			const char *e = (const char *)memmem(p, len,
							     ": error:", 8) + 8;
			const char *next = p + len + (p[len] == '\n');
			char *msg = lk_strndup(e, len - (size_t)(e - p));
			char *src = lk_strndup(next, strcspn(next, "\n"));
			char *m = lk_squeeze(msg), *sq = lk_squeeze(src);
			char *out = *sq ? lk_asprintf("%s: %s", m, sq)
					: lk_strdup(m);

			free(msg);
			free(src);
			free(m);
			free(sq);
			return out;
		}
		p += len + (p[len] == '\n');
	}
	return NULL;
}
