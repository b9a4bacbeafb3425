/* A fitted tree as text (scikit-learn's export_text), DOT and JSON. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/analyze.h"

static int argmax(const struct lk_tree *t, const struct lk_tree_node *n)
{
	int c, best = 0;

	for (c = 1; c < t->nclasses; c++)
		if (n->value[c] > n->value[best])
			best = c;
	return best;
}

static double mean(const struct lk_tree_node *n)
{
	return n->weight > 0 ? n->value[0] / n->weight : 0;
}

static void indent(struct lk_buf *out, int depth)
{
	int i;

	for (i = 1; i < depth; i++)
		lk_buf_adds(out, "|   ");
	lk_buf_adds(out, "|---");
}

#define LABELS_SHOWN 6

/* " (a, b)": the labels of a categorical split's side (left: codes <=
 * threshold); nothing for a numeric column. */
static void side_labels(const struct lk_column *c, double threshold,
			int left, struct lk_buf *out)
{
	size_t i, shown = 0;

	if (!c || !c->categorical)
		return;
	for (i = 0; i < c->nlabels; i++) {
		if (((double)i <= threshold) != left)
			continue;
		if (shown++ == LABELS_SHOWN) {
			lk_buf_adds(out, ", ...");
			break;
		}
		lk_buf_addf(out, "%s%s", shown > 1 ? ", " : " (", c->labels[i]);
	}
	if (shown)
		lk_buf_adds(out, ")");
}

struct text_args {
	const struct lk_tree *t;
	const char *const *feat;
	const struct lk_column *const *cols;
	const char *const *cls;
};

static void text_node(const struct text_args *a, int i, int depth,
		      struct lk_buf *out)
{
	const struct lk_tree_node *n = &a->t->nodes[i];
	const struct lk_column *c;

	if (n->feature < 0) {
		indent(out, depth);
		if (a->t->nclasses)
			lk_buf_addf(out, " class: %s\n",
				    a->cls[argmax(a->t, n)]);
		else
			lk_buf_addf(out, " value: [%.2f]\n", mean(n));
		return;
	}
	c = a->cols ? a->cols[n->feature] : NULL;
	indent(out, depth);
	lk_buf_addf(out, " %s <= %.2f", a->feat[n->feature], n->threshold);
	side_labels(c, n->threshold, 1, out);
	lk_buf_adds(out, "\n");
	text_node(a, n->left, depth + 1, out);
	indent(out, depth);
	lk_buf_addf(out, " %s >  %.2f", a->feat[n->feature], n->threshold);
	side_labels(c, n->threshold, 0, out);
	lk_buf_adds(out, "\n");
	text_node(a, n->right, depth + 1, out);
}

void lk_tree_text(const struct lk_tree *t, const char *const *feat,
		  const struct lk_column *const *cols,
		  const char *const *class_names, struct lk_buf *out)
{
	const struct text_args a = {t, feat, cols, class_names};

	if (t->n)
		text_node(&a, 0, 1, out);
}

static void dot_escape(struct lk_buf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			lk_buf_addch(out, '\\');
		lk_buf_addch(out, *s);
	}
}

static void dot_value(const struct lk_tree *t, const struct lk_tree_node *n,
		      struct lk_buf *out)
{
	int c;

	if (!t->nclasses) {
		lk_buf_addf(out, "value = %.3f", mean(n));
		return;
	}
	lk_buf_adds(out, "value = [");
	for (c = 0; c < t->nclasses; c++)
		lk_buf_addf(out, "%s%g", c ? ", " : "", n->value[c]);
	lk_buf_adds(out, "]");
}

void lk_tree_dot(const struct lk_tree *t, const char *const *feat,
		 const struct lk_column *const *cols,
		 const char *const *class_names, struct lk_buf *out)
{
	size_t i;

	lk_buf_adds(out, "digraph Tree {\nnode [shape=box, style=\"rounded\", "
		    "fontname=\"helvetica\"] ;\nedge [fontname=\"helvetica\"] ;\n");
	for (i = 0; i < t->n; i++) {
		const struct lk_tree_node *n = &t->nodes[i];

		lk_buf_addf(out, "%zu [label=\"", i);
		if (n->feature >= 0) {
			struct lk_buf side = LK_BUF_INIT;

			dot_escape(out, feat[n->feature]);
			lk_buf_addf(out, " <= %.4f", n->threshold);
			side_labels(cols ? cols[n->feature] : NULL,
				    n->threshold, 1, &side);
			dot_escape(out, lk_buf_str(&side));
			lk_buf_adds(out, "\\n");
			lk_buf_release(&side);
		}
		lk_buf_addf(out, "%s = %.4f\\nsamples = %zu\\n",
			    t->nclasses ? "impurity" : "squared_error",
			    n->impurity, n->samples);
		dot_value(t, n, out);
		if (t->nclasses) {
			lk_buf_adds(out, "\\nclass = ");
			dot_escape(out, class_names[argmax(t, n)]);
		}
		lk_buf_adds(out, "\"] ;\n");
		if (n->feature >= 0)
			lk_buf_addf(out, "%zu -> %d [label=\"<=\"] ;\n"
				    "%zu -> %d [label=\">\"] ;\n", i, n->left,
				    i, n->right);
	}
	lk_buf_adds(out, "}\n");
}

void lk_tree_json(const struct lk_tree *t, const char *const *feat,
		  struct lk_buf *out)
{
	size_t i;
	int c;

	lk_buf_adds(out, "[");
	for (i = 0; i < t->n; i++) {
		const struct lk_tree_node *n = &t->nodes[i];

		lk_buf_addf(out, "%s\n    {\"id\": %zu, \"feature\": ", i ? "," : "",
			    i);
		if (n->feature >= 0) {
			lk_buf_add_json_str(out, feat[n->feature]);
			lk_buf_addf(out, ", \"threshold\": %.17g, \"left\": %d, "
				    "\"right\": %d", n->threshold, n->left,
				    n->right);
		} else {
			lk_buf_adds(out, "null");
		}
		lk_buf_addf(out, ", \"impurity\": %.17g, \"samples\": %zu, "
			    "\"weight\": %.17g, \"value\": [", n->impurity,
			    n->samples, n->weight);
		if (!t->nclasses)
			lk_buf_addf(out, "%.17g", mean(n));
		for (c = 0; c < t->nclasses; c++)
			lk_buf_addf(out, "%s%.17g", c ? ", " : "", n->value[c]);
		lk_buf_adds(out, "]}");
	}
	lk_buf_adds(out, "\n  ]");
}
