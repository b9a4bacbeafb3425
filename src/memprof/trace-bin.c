/*
 * The binary trace reader (LKTRACE1, doc/memprof-formats.md). One pass
 * over the bytes, no allocation per record: the call array is sized from
 * the header once the header has been checked against the length.
 */
#include <stdlib.h>
#include <string.h>

#include "memprof-int.h"

#define HEADER_SIZE 32
#define RECORD_SIZE 32

static uint32_t le32(const unsigned char *p)
{
	uint32_t v;

	/* memcpy: any alignment; the compiler makes it a load. */
	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

static uint64_t le64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

struct bin_reader {
	struct lk_ctx *ctx;
	const char *name;
	const unsigned char *data;
	size_t len;
	struct lk_trace *out;
};

static int bad(struct bin_reader *r, size_t offset, const char *what)
{
	return lk_error(r->ctx, LK_EINPUT, "%s: offset %zu: %s", r->name,
			offset, what);
}

/* Header: magic, version, and counts that the length can hold. */
static int read_header(struct bin_reader *r, uint32_t *nfuncs, uint64_t *nrec)
{
	if (r->len < HEADER_SIZE)
		return bad(r, r->len, "truncated header (32 bytes needed)");
	if (memcmp(r->data, "LKTRACE1", 8))
		return bad(r, 0, "not a binary trace (no LKTRACE1 magic)");
	if (le32(r->data + 8) != 1)
		return lk_error(r->ctx, LK_EINPUT,
				"%s: offset 8: unsupported version %u", r->name,
				le32(r->data + 8));
	*nfuncs = le32(r->data + 12);
	*nrec = le64(r->data + 16);
	r->out->tsc_hz = le64(r->data + 24);
	/* Each name takes at least 4 bytes: a count the file cannot hold
	 * must not size an allocation. */
	if (*nfuncs > (r->len - HEADER_SIZE) / 4)
		return lk_error(r->ctx, LK_EINPUT,
				"%s: offset 12: %u functions do not fit in "
				"%zu bytes",
				r->name, *nfuncs, r->len);
	return 0;
}

static int read_names(struct bin_reader *r, uint32_t nfuncs, size_t *offset)
{
	struct name_table nt = {0};
	size_t off = *offset, len;
	uint32_t i;
	int added, ret = 0;

	for (i = 0; i < nfuncs && !ret; i++) {
		if (r->len - off < 4) {
			ret = bad(r, off, "truncated function name length");
			break;
		}
		len = le32(r->data + off);
		if (len == 0)
			ret = bad(r, off, "empty function name");
		else if (len > r->len - off - 4)
			ret = bad(r, off, "function name runs past the end");
		else if (memchr(r->data + off + 4, '\0', len))
			ret = bad(r, off + 4, "NUL byte in a function name");
		else if (name_intern(&nt, r->out, (const char *)r->data + off + 4,
				     len, &added) < 0 || !added)
			ret = bad(r, off + 4, "duplicate function name");
		off += 4 + len;
	}
	name_table_release(&nt);
	*offset = off;
	return ret;
}

/* Check one record; the call has been stored at t->calls[i]. */
static int check_record(struct bin_reader *r, size_t i, size_t off)
{
	const struct lk_call *c = &r->out->calls[i];

	if (c->func >= r->out->names.n)
		return lk_error(r->ctx, LK_EINPUT,
				"%s: offset %zu: function %u out of range "
				"(%zu functions)",
				r->name, off + 8, c->func, r->out->names.n);
	if (i > 0 && c->id <= r->out->calls[i - 1].id)
		return lk_error(r->ctx, LK_EINPUT,
				"%s: offset %zu: call id %llu not above the "
				"previous %llu (records must be in id order)",
				r->name, off, (unsigned long long)c->id,
				(unsigned long long)r->out->calls[i - 1].id);
	if (c->exit && c->exit < c->enter)
		return lk_error(r->ctx, LK_EINPUT,
				"%s: offset %zu: call %llu exits (%llu) before "
				"it enters (%llu)",
				r->name, off + 24, (unsigned long long)c->id,
				(unsigned long long)c->exit,
				(unsigned long long)c->enter);
	return 0;
}

static int read_records(struct bin_reader *r, uint64_t nrec, size_t off)
{
	struct lk_trace *t = r->out;
	const unsigned char *p;
	size_t i;
	int ret;

	/* Division, not nrec * 32: a huge count must not wrap around. */
	if ((r->len - off) / RECORD_SIZE < nrec)
		return lk_error(r->ctx, LK_EINPUT,
				"%s: offset 16: %llu records do not fit in the "
				"%zu bytes after the names",
				r->name, (unsigned long long)nrec, r->len - off);
	if ((r->len - off) != nrec * RECORD_SIZE)
		return bad(r, off + nrec * RECORD_SIZE,
			   "trailing bytes after the last record");
	t->alloc = nrec ? (size_t)nrec : 1;
	t->calls = lk_reallocarray(NULL, t->alloc, sizeof(*t->calls));
	for (i = 0; i < nrec; i++, off += RECORD_SIZE) {
		p = r->data + off;
		t->calls[i].id = le64(p);
		t->calls[i].func = le32(p + 8);
		t->calls[i].depth = le32(p + 12);
		t->calls[i].enter = le64(p + 16);
		t->calls[i].exit = le64(p + 24);
		ret = check_record(r, i, off);
		if (ret)
			return ret;
		t->ncalls = i + 1;
	}
	return 0;
}

int lk_trace_read_binary(struct lk_ctx *ctx, const char *name,
			 const void *data, size_t len, struct lk_trace *out)
{
	struct bin_reader r = {ctx, name, data, len, out};
	uint32_t nfuncs = 0;
	uint64_t nrec = 0;
	size_t off = HEADER_SIZE;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = read_header(&r, &nfuncs, &nrec);
	if (!ret)
		ret = read_names(&r, nfuncs, &off);
	if (!ret)
		ret = read_records(&r, nrec, off);
	out->source = lk_strdup(name);
	if (ret)
		lk_trace_release(out);
	return ret;
}
