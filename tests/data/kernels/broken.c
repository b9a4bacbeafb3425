/* A kernel that does not compile. */
#include <lkrt.h>

int main(int argc, char **argv)
{
	lk_init(argc, argv);
	LK_MEASURE(undeclared_kernel());
	return lk_finish();
}
