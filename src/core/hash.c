/* Content hashing: XXH3-128, the library made for it. */
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "loopkit/core.h"

void lk_hash_init(struct lk_hash *h)
{
	h->state = XXH3_createState();
	if (!h->state)
		LK_BUG("XXH3_createState");
	XXH3_128bits_reset(h->state);
}

void lk_hash_add(struct lk_hash *h, const void *data, size_t len)
{
	XXH3_128bits_update(h->state, data, len);
}

void lk_hash_add_str(struct lk_hash *h, const char *s)
{
	uint64_t len = s ? strlen(s) : UINT64_MAX;

	lk_hash_add(h, &len, sizeof(len));
	if (s)
		lk_hash_add(h, s, (size_t)len);
}

static void to_hex(XXH128_hash_t v, char out[LK_HASH_HEX])
{
	snprintf(out, LK_HASH_HEX, "%016llx%016llx",
		 (unsigned long long)v.high64, (unsigned long long)v.low64);
}

void lk_hash_final(struct lk_hash *h, char out[LK_HASH_HEX])
{
	to_hex(XXH3_128bits_digest(h->state), out);
	XXH3_freeState(h->state);
	h->state = NULL;
}

void lk_hash_buf(const void *data, size_t len, char out[LK_HASH_HEX])
{
	to_hex(XXH3_128bits(data, len), out);
}
