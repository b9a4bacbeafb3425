/* A kernel that never returns. */
#include <lkrt.h>

static volatile int forever = 1;

static void kernel(void)
{
	while (forever)
		;
}

int main(int argc, char **argv)
{
	lk_init(argc, argv);
	LK_MEASURE(kernel());
	return lk_finish();
}
