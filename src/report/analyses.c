/*
 * The report's link to the campaign's analyses. The report does not know
 * the analyze stage; it finds its pages by the directory convention of
 * doc/design.md: <store dir>/analyze/<name>/analysis.html, with
 * campaign.txt there naming the campaign. The analyses the campaign file
 * names are listed too, since the analyze stage runs after the report.
 */
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopkit/plot.h"
#include "report-int.h"

/* href from the directory of the page at 'from' to the file 'to'
 * (absolute): "../analyze/x/analysis.html"; 'to' itself when the
 * page's directory cannot be resolved. */
static char *relative(const char *from, const char *to)
{
	char a[PATH_MAX], *dir = lk_path_dirname(from);
	char *up = lk_path_dirname(dir), *base = strrchr(dir, '/');
	struct lk_buf b = LK_BUF_INIT;
	size_t common = 0, i;

	/* The page's directory may not exist yet: resolve its parent. */
	if (!realpath(dir, a) && !(base && realpath(up, a) &&
				   strlen(a) + strlen(base) < sizeof(a) &&
				   strcat(a, base))) {
		free(dir);
		free(up);
		return lk_strdup(to);
	}
	free(dir);
	free(up);
	for (i = 0; a[i] && a[i] == to[i]; i++)
		if (a[i] == '/')
			common = i;
	if (!a[i] && to[i] == '/')
		common = i;
	for (i = common; a[i]; i++)
		if (a[i] == '/')
			lk_buf_adds(&b, "../");
	lk_buf_adds(&b, to + common + 1);
	return lk_buf_detach(&b);
}

/* Does dir/campaign.txt name the campaign? */
static int of_campaign(const char *dir, const char *campaign)
{
	char *path = lk_path_join(dir, "campaign.txt"), *text = NULL;
	struct lk_ctx quiet;
	size_t len;
	int yes;

	lk_ctx_init(&quiet);
	yes = !lk_file_read(&quiet, path, &text, &len) &&
	      len == strlen(campaign) + 1 &&
	      !strncmp(text, campaign, len - 1);
	free(text);
	free(path);
	return yes;
}

static void item(struct lk_buf *b, const char *html, const char *page,
		 const char *name, int written)
{
	char *href = relative(html, page);

	lk_buf_adds(b, "<li><a href=\"");
	lk_html_add_text(b, href);
	lk_buf_adds(b, "\">");
	lk_html_add_text(b, name);
	lk_buf_adds(b, "</a>");
	if (!written)
		lk_buf_adds(b, " (the analyze stage writes it after this "
			    "report)");
	lk_buf_adds(b, "</li>\n");
	free(href);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has(const struct lk_strv *v, const char *s)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return 1;
	return 0;
}

/* Names under root whose page belongs to the campaign, sorted. */
static void written(const char *root, const char *campaign,
		    struct lk_strv *names)
{
	DIR *d = opendir(root);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *dir, *page;

		if (e->d_name[0] == '.')
			continue;
		dir = lk_path_join(root, e->d_name);
		page = lk_path_join(dir, "analysis.html");
		if (of_campaign(dir, campaign) && !access(page, R_OK))
			lk_strv_push(names, e->d_name);
		free(dir);
		free(page);
	}
	if (d)
		closedir(d);
	if (names->n)
		qsort(names->v, names->n, sizeof(*names->v), cmp_str);
}

void lk_report_analyses_html(const struct lk_report *r,
			     const struct lk_sweep *cfg, const char *html,
			     struct lk_buf *out)
{
	char root[PATH_MAX];
	struct lk_strv names = LK_STRV_INIT;
	size_t i;

	if (!realpath(r->store_dir, root))
		return;
	strncat(root, "/analyze", sizeof(root) - strlen(root) - 1);
	written(root, r->campaign, &names);
	for (i = 0; cfg && i < cfg->analyze.n; i++)
		if (!has(&names, cfg->analyze.list[i].name))
			lk_strv_push(&names, cfg->analyze.list[i].name);
	if (names.n)
		lk_buf_adds(out, "<h2>Analyses</h2>\n<p>Which parameters "
			    "explain a metric (loopkit analyze):</p>\n<ul>\n");
	for (i = 0; i < names.n; i++) {
		char *dir = lk_path_join(root, names.v[i]);
		char *page = lk_path_join(dir, "analysis.html");

		item(out, html, page, names.v[i], !access(page, R_OK));
		free(dir);
		free(page);
	}
	if (names.n)
		lk_buf_adds(out, "</ul>\n");
	lk_strv_release(&names);
}
