/* A minimal thread pool: n independent jobs, work taken from a counter. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "loopkit/core.h"

struct pool {
	void (*fn)(void *arg, size_t i);
	void *arg;
	size_t n, next;
	pthread_mutex_t lock;
};

static void *worker(void *p)
{
	struct pool *pool = p;

	for (;;) {
		size_t i;

		pthread_mutex_lock(&pool->lock);
		i = pool->next++;
		pthread_mutex_unlock(&pool->lock);
		if (i >= pool->n)
			return NULL;
		pool->fn(pool->arg, i);
	}
}

int lk_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

void lk_pool_run(int jobs, size_t n, void (*fn)(void *arg, size_t i), void *arg)
{
	struct pool pool = {fn, arg, n, 0, PTHREAD_MUTEX_INITIALIZER};
	pthread_t *threads;
	int i, started = 0;

	if (jobs <= 0)
		jobs = lk_cpu_count();
	if ((size_t)jobs > n)
		jobs = (int)n;
	if (jobs <= 1) {
		worker(&pool);
		return;
	}
	threads = lk_calloc((size_t)jobs, sizeof(*threads));
	for (i = 0; i < jobs; i++)
		if (!pthread_create(&threads[started], NULL, worker, &pool))
			started++;
	if (!started)
		worker(&pool);
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	pthread_mutex_destroy(&pool.lock);
}
