/*
 * Extraction: one loop's extraction as a JSON line (status, meta,
 * streams, µkernels, canonical body; doc/loopkit-mdl.md, "extract").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extract-int.h"

/* ---- JSON. ---- */

static const char *attr_of(const struct lk_mdl_flow *f, const char *key)
{
	const struct lk_mdl_attr *a = lk_mdl_attr_find(f->attrs, f->nattrs,
						       key);

	return a ? a->text : NULL;
}

static void json_accesses(const struct lk_mdl *m, const struct lk_mdl_access *a,
			  size_t n, struct lk_buf *out)
{
	size_t i;

	lk_buf_addch(out, '[');
	for (i = 0; i < n; i++) {
		lk_buf_adds(out, i ? ", " : "");
		lk_buf_adds(out, "{\"flow\": ");
		lk_buf_add_json_str(out, m->flows[a[i].flow].name);
		lk_buf_addf(out, ", \"stride\": %lld, \"offset\": %lld, "
				 "\"size\": %lld}",
			    a[i].stride.num, a[i].offset.num, a[i].size.num);
	}
	lk_buf_addch(out, ']');
}

static void json_meta(const struct lk_mdl *m, struct lk_buf *out)
{
	size_t i;

	lk_buf_adds(out, "{");
	for (i = 0; i < m->nmeta; i++) {
		lk_buf_adds(out, i ? ", " : "");
		lk_buf_add_json_str(out, m->meta[i].key);
		lk_buf_adds(out, ": ");
		if (m->meta[i].kind == LK_MDL_INT || m->meta[i].kind == LK_MDL_DEC)
			lk_buf_adds(out, m->meta[i].text);
		else
			lk_buf_add_json_str(out, m->meta[i].text);
	}
	lk_buf_adds(out, "}");
}

static void json_streams(const struct lk_mdl *m, struct lk_buf *out)
{
	size_t i, u, k;

	lk_buf_adds(out, "[");
	for (i = 0; i < m->nflows; i++) {
		const struct lk_mdl_flow *f = &m->flows[i];
		const char *idx = attr_of(f, "index");
		long long stride = 0;

		for (u = 0; u < m->body.nukernels; u++) {
			const struct lk_mdl_ukernel *uk = &m->body.ukernels[u];

			for (k = 0; k < uk->nin; k++)
				if (uk->in[k].flow == i)
					stride = uk->in[k].stride.num;
			for (k = 0; k < uk->nout; k++)
				if (uk->out[k].flow == i)
					stride = uk->out[k].stride.num;
		}
		lk_buf_adds(out, i ? ", " : "");
		lk_buf_adds(out, "{\"name\": ");
		lk_buf_add_json_str(out, f->name);
		lk_buf_adds(out, ", \"base\": ");
		lk_buf_add_json_str(out, attr_of(f, "base"));
		if (idx) {
			lk_buf_adds(out, ", \"index\": ");
			lk_buf_add_json_str(out, idx);
			lk_buf_addf(out, ", \"scale\": %s",
				    attr_of(f, "scale"));
		}
		lk_buf_addf(out, ", \"stride\": %lld, \"asm_stride\": %s",
			    stride, attr_of(f, "stride"));
		if (attr_of(f, "disp"))
			lk_buf_addf(out, ", \"disp\": %s", attr_of(f, "disp"));
		lk_buf_adds(out, "}");
	}
	lk_buf_adds(out, "]");
}

void lk_mdl_extraction_json(const struct lk_mdl_extraction *x,
			    struct lk_buf *out)
{
	const struct lk_mdl *m = &x->mdl;
	struct lk_buf body = LK_BUF_INIT;
	size_t i;

	lk_buf_addf(out, "{\"status\": \"%s\", \"loop\": \"0x%llx\", "
			 "\"depth\": %d, \"reason\": ",
		    x->refused ? "refused" : "ok", (unsigned long long)x->loop,
		    x->depth);
	if (x->refused) {
		lk_buf_add_json_str(out, x->reason);
		lk_buf_adds(out, "}\n");
		return;
	}
	lk_buf_adds(out, "null, \"meta\": ");
	json_meta(m, out);
	lk_buf_adds(out, ", \"streams\": ");
	json_streams(m, out);
	lk_buf_adds(out, ", \"ukernels\": [");
	for (i = 0; i < m->body.nukernels; i++) {
		const struct lk_mdl_ukernel *u = &m->body.ukernels[i];

		lk_buf_adds(out, i ? ", " : "");
		lk_buf_adds(out, "{\"in\": ");
		json_accesses(m, u->in, u->nin, out);
		lk_buf_adds(out, ", \"out\": ");
		json_accesses(m, u->out, u->nout, out);
		lk_buf_addf(out, ", \"add\": %lld, \"mul\": %lld}",
			    u->add.num, u->mul.num);
	}
	lk_buf_adds(out, "], \"canonical\": ");
	lk_mdl_canonical_body(m, &body);
	lk_buf_add_json_str(out, lk_buf_str(&body));
	lk_buf_release(&body);
	lk_buf_adds(out, "}\n");
}
