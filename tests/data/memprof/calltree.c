/*
 * Also the program t0500 instruments: recursion, sibling calls, early
 * returns, a loop at the very top of a function (its first block has two
 * predecessors, so the entry call needs a block of its own), a returned
 * call, and an lk_ function that is never instrumented. main returns 0
 * when the calls computed what they should.
 *
 * Calls, by hand: main 1; countdown 1; fib(5) 15 (fib(n) makes
 * 1 + calls(n-1) + calls(n-2): 1, 1, 3, 5, 9, 15); twice 2; classify 4
 * (two per twice); lk_internal 1 call, never traced. 23 traced calls.
 *
 * Static counts, by hand:
 *   countdown  `if (--*p > 0)` in a goto loop whose exit depends on
 *              memory, so no count: GCC reads *p, writes it, then reads
 *              it again for the test (the value of an assignment is its
 *              left-hand side): 2 * (unknown) load, 1 * (unknown) store;
 *              then visits++ after the loop: 1 load, 1 store
 *   fib        no memory: the function line alone
 *   classify, twice
 *              visits++: 1 load, 1 store
 *   main       k is a local (address taken, still not counted); reads
 *              visits once: 1 load
 */
int visits;

void countdown(int *p)
{
again:
	if (--*p > 0)
		goto again;
	visits++;
}

int fib(int n)
{
	if (n < 2)
		return n;
	return fib(n - 1) + fib(n - 2);
}

int classify(int x)
{
	visits++;
	if (x < 0)
		return -1;
	if (x == 0)
		return 0;
	return 1;
}

int twice(int x)
{
	visits++;
	return classify(x) + classify(-x);
}

int lk_internal(void)
{
	return 7;
}

int main(void)
{
	int k = 3;

	countdown(&k);
	if (fib(5) != 5 || twice(0) != 0 || twice(4) != 0)
		return 1;
	return k == 0 && lk_internal() == 7 && visits == 7 ? 0 : 1;
}
