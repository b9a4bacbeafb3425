/* A benchmark whose grandchild leaves its session: setsid(), then sleeps. */
#include <lkrt.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long x;

static void kernel(void) { x++; }

int main(int argc, char **argv)
{
	pid_t child = fork();

	if (child == 0) {
		if (fork() == 0) {
			setsid();
			sleep(60);
			_exit(0);
		}
		_exit(0);
	}
	waitpid(child, NULL, 0);
	lk_init(argc, argv);
	LK_MEASURE(kernel());
	return lk_finish();
}
