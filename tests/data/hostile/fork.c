/* A benchmark that leaves a child behind, in its own process group. */
#include <lkrt.h>
#include <unistd.h>

static volatile long x;

static void kernel(void) { x++; }

int main(int argc, char **argv)
{
	if (fork() == 0) {
		sleep(60);
		_exit(0);
	}
	lk_init(argc, argv);
	LK_MEASURE(kernel());
	return lk_finish();
}
