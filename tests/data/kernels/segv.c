/* A kernel that crashes inside the measured region. */
#include <lkrt.h>

static volatile int *volatile nowhere;

static void kernel(void)
{
	*nowhere = 1;
}

int main(int argc, char **argv)
{
	lk_init(argc, argv);
	LK_MEASURE(kernel());
	return lk_finish();
}
