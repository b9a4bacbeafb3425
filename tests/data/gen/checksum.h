/* The test kernels' bit-exact checksum: FNV-1a over the doubles' bits. */
#include <stdio.h>
#include <string.h>

static unsigned long long lk_test_hash = 1469598103934665603ULL;

static void lk_test_add(const double *v, long n)
{
	for (long i = 0; i < n; i++) {
		unsigned long long b;

		memcpy(&b, &v[i], sizeof(b));
		lk_test_hash = (lk_test_hash ^ b) * 1099511628211ULL;
	}
}

static int lk_test_checksum(int argc, char **argv)
{
	return argc > 1 && !strcmp(argv[1], "--checksum");
}
