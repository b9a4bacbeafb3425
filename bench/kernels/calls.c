/* Many small calls: a recursive fib and a loop of leaf calls. The cost
 * per instrumented call is what memprof's tracing adds to each. */
#include <stdio.h>

__attribute__((noinline)) int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) void leaf(volatile int *x)
{
	*x += 1;
}

int main(void)
{
	volatile int x = 0;

	for (int i = 0; i < 1000000; i++)
		leaf(&x);
	printf("%d %d\n", fib(27), x);
	return 0;
}
