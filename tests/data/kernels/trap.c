/* A kernel that reaches the compiler's trap (ud2) inside the measured
 * region: SIGILL, as an instruction this CPU lacks would give. */
#include <lkrt.h>

static volatile int armed = 1;

static void kernel(void)
{
	if (armed)
		__builtin_trap();
}

int main(int argc, char **argv)
{
	lk_init(argc, argv);
	LK_MEASURE(kernel());
	return lk_finish();
}
