/* The stand-in harness's allocator (see polybench.h). */
#include <stdlib.h>
#include <string.h>

#include "polybench.h"

void *polybench_alloc_data(unsigned long long n, int elt_size)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, (size_t)n * (size_t)elt_size))
		abort();
	memset(p, 0, (size_t)n * (size_t)elt_size);
	return p;
}

void polybench_free_data(void *p)
{
	free(p);
}
