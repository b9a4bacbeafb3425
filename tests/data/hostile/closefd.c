/* A benchmark that closes the runtime's result descriptor. */
#include <lkrt.h>
#include <unistd.h>

static volatile long x;

static void kernel(void) { x++; }

int main(int argc, char **argv)
{
	lk_init(argc, argv);
	close(3);
	LK_MEASURE(kernel());
	return lk_finish();
}
