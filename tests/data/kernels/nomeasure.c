/* A benchmark that never reaches LK_MEASURE: nothing to report as ok. */
#include <lkrt.h>

int main(int argc, char **argv)
{
	lk_init(argc, argv);
	return lk_finish();
}
