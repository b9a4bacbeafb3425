/*
 * Traces in memory: interning function names, the duplicate-id check,
 * sorting, loading a file of either form, rendering as text or binary.
 * (Not trace.c: make's built-in rules would make that from trace.y.)
 */
#include <stdlib.h>
#include <string.h>

#include "memprof-int.h"

static const char binary_magic[8] = "LKTRACE1";

/* FNV-1a: names are short, and this runs once per trace line. */
static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static void name_table_grow(struct name_table *nt)
{
	size_t nslots = nt->mask ? (nt->mask + 1) * 2 : 64;
	struct name_slot *slots = lk_calloc(nslots, sizeof(*slots));
	size_t i, j;

	for (i = 0; nt->mask && i <= nt->mask; i++) {
		if (!nt->slots[i].index_plus1)
			continue;
		j = nt->slots[i].hash & (nslots - 1);
		while (slots[j].index_plus1)
			j = (j + 1) & (nslots - 1);
		slots[j] = nt->slots[i];
	}
	free(nt->slots);
	nt->slots = slots;
	nt->mask = nslots - 1;
}

int64_t name_intern(struct name_table *nt, struct lk_trace *t, const char *s,
		    size_t len, int *added)
{
	uint64_t h = name_hash(s, len);
	struct name_slot *slot;
	size_t i;

	*added = 0;
	if (!nt->mask || (nt->used + 1) * 2 > nt->mask + 1)
		name_table_grow(nt);
	for (i = h & nt->mask;; i = (i + 1) & nt->mask) {
		slot = &nt->slots[i];
		if (!slot->index_plus1)
			break;
		if (slot->hash == h && slot->len == len &&
		    !memcmp(t->names.v[slot->index_plus1 - 1], s, len))
			return slot->index_plus1 - 1;
	}
	if (t->names.n >= UINT32_MAX - 1 || len >= UINT32_MAX)
		return -1;
	lk_strv_push_take(&t->names, lk_strndup(s, len));
	slot->hash = h;
	slot->len = (uint32_t)len;
	slot->index_plus1 = (uint32_t)t->names.n;
	nt->used++;
	*added = 1;
	return (int64_t)t->names.n - 1;
}

void name_table_release(struct name_table *nt)
{
	free(nt->slots);
	memset(nt, 0, sizeof(*nt));
}

static size_t id_slot(uint64_t id, size_t mask)
{
	/* Ids are dense and sequential: mix them so runs do not cluster. */
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	return (size_t)id & mask;
}

/* Insert call 'index'; 1 if its id is there already. */
static int id_set_insert(struct id_set *ids, const struct lk_trace *t,
			 size_t index)
{
	uint64_t id = t->calls[index].id;
	size_t i;

	for (i = id_slot(id, ids->mask); ids->slots[i];
	     i = (i + 1) & ids->mask)
		if (t->calls[ids->slots[i] - 1].id == id)
			return 1;
	ids->slots[i] = index + 1;
	return 0;
}

/* (Re)build the set from calls [0, n), at most half full. */
static void id_set_rebuild(struct id_set *ids, const struct lk_trace *t,
			   size_t n)
{
	size_t nslots = 1024, i;

	while (nslots < 2 * (n + 1))
		nslots *= 2;
	free(ids->slots);
	ids->slots = lk_calloc(nslots, sizeof(*ids->slots));
	ids->mask = nslots - 1;
	for (i = 0; i < n; i++)
		id_set_insert(ids, t, i);
}

int id_set_add_last(struct id_set *ids, const struct lk_trace *t)
{
	size_t last = t->ncalls - 1;
	uint64_t id = t->calls[last].id;

	if (!ids->any || id > ids->max_id) {
		if (!ids->any)
			ids->sorted = 1;
		ids->any = 1;
		ids->max_id = id;
		if (!ids->slots)
			return 0;
	} else {
		ids->sorted = 0;
		if (!ids->slots)
			id_set_rebuild(ids, t, last);
	}
	if (4 * (last + 1) > 3 * (ids->mask + 1))
		id_set_rebuild(ids, t, last);
	return id_set_insert(ids, t, last);
}

void id_set_release(struct id_set *ids)
{
	free(ids->slots);
	memset(ids, 0, sizeof(*ids));
}

static int call_cmp(const void *a, const void *b)
{
	const struct lk_call *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* A call and its line, sorted together (the id first, for call_cmp). */
struct call_line {
	struct lk_call call;
	uint32_t line;
};

static void sort_with_lines(struct lk_trace *t)
{
	struct call_line *cl = lk_calloc(t->ncalls, sizeof(*cl));
	size_t i;

	for (i = 0; i < t->ncalls; i++)
		cl[i] = (struct call_line){t->calls[i], t->lines[i]};
	qsort(cl, t->ncalls, sizeof(*cl), call_cmp);
	for (i = 0; i < t->ncalls; i++) {
		t->calls[i] = cl[i].call;
		t->lines[i] = cl[i].line;
	}
	free(cl);
}

void trace_sort_calls(struct lk_trace *t, int sorted)
{
	if (sorted || t->ncalls < 2)
		return;
	if (t->lines)
		sort_with_lines(t);
	else
		qsort(t->calls, t->ncalls, sizeof(*t->calls), call_cmp);
}

void lk_trace_release(struct lk_trace *t)
{
	if (!t)
		return;
	lk_strv_release(&t->names);
	free(t->calls);
	free(t->source);
	free(t->lines);
	memset(t, 0, sizeof(*t));
}

int lk_trace_load(struct lk_ctx *ctx, const char *path, int strict,
		  struct lk_trace *out, struct lk_buf *warnings)
{
	char *data;
	size_t len;
	int ret = lk_file_read_max(ctx, path, LK_FILE_MAX_TRACE, &data, &len);

	if (ret) {
		memset(out, 0, sizeof(*out));
		return ret;
	}
	if (len >= sizeof(binary_magic) &&
	    !memcmp(data, binary_magic, sizeof(binary_magic)))
		ret = lk_trace_read_binary(ctx, path, data, len, out);
	else
		ret = lk_trace_parse_text(ctx, path, data, len, strict, out,
					  warnings);
	free(data);
	return ret;
}

void lk_trace_text(const struct lk_trace *t, struct lk_buf *out)
{
	size_t i;

	for (i = 0; i < t->ncalls; i++) {
		const struct lk_call *c = &t->calls[i];

		lk_buf_addf(out,
			    "Call %llu to function %s enter cycle %llu "
			    "exit cycle %llu\n",
			    (unsigned long long)c->id, t->names.v[c->func],
			    (unsigned long long)c->enter,
			    (unsigned long long)c->exit);
	}
}

static void add_le(struct lk_buf *b, uint64_t v, int bytes)
{
	unsigned char le[8];
	int i;

	for (i = 0; i < bytes; i++)
		le[i] = (unsigned char)(v >> (8 * i));
	lk_buf_add(b, le, (size_t)bytes);
}

void lk_trace_write_binary(const struct lk_trace *t, struct lk_buf *out)
{
	size_t i, len;

	lk_buf_add(out, binary_magic, sizeof(binary_magic));
	add_le(out, 1, 4);
	add_le(out, t->names.n, 4);
	add_le(out, t->ncalls, 8);
	add_le(out, t->tsc_hz, 8);
	for (i = 0; i < t->names.n; i++) {
		len = strlen(t->names.v[i]);
		add_le(out, len, 4);
		lk_buf_add(out, t->names.v[i], len);
	}
	for (i = 0; i < t->ncalls; i++) {
		const struct lk_call *c = &t->calls[i];

		add_le(out, c->id, 8);
		add_le(out, c->func, 4);
		add_le(out, c->depth, 4);
		add_le(out, c->enter, 8);
		add_le(out, c->exit, 8);
	}
}
