/* A benchmark that allocates without bound. */
#include <lkrt.h>
#include <stdlib.h>
#include <string.h>

static void kernel(void)
{
	for (;;) {
		char *p = malloc(1 << 20);

		memset(p, 1, 1 << 20);
	}
}

int main(int argc, char **argv)
{
	lk_init(argc, argv);
	LK_MEASURE(kernel());
	return lk_finish();
}
