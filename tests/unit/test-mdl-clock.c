/*
 * The clock states of a database build (src/mdl/db.c, mdl.h's struct lk_mdl_clock):
 * one state where the clock holds still and a neighbour only slows some
 * runs' references; several where the core changes turbo state from run
 * to run; neither a cluster far below the fastest nor a handful of runs.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "loopkit/stats.h"
#include "../../src/mdl/mdl-int.h"

TestSuite(mdl_clock);

/* n runs at clock x, each off by up to jitter (deterministic). */
static size_t put(double *v, size_t k, size_t n, double x, double jitter)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[k++] = x * (1 - jitter * (double)(i % 7) / 6);
	return k;
}

/* The Emerald Rapids guest: one clock, 1.3015, and a third of the runs
 * with every reference slowed by a neighbour, anywhere below it. */
Test(mdl_clock, one_state_and_a_neighbour)
{
	double v[1000];
	struct lk_mdl_clock c = {0};
	size_t i, n = put(v, 0, 650, 1.3015, 0.0005);

	for (i = 0; i < 350; i++)
		v[n++] = 1.0 + 0.29 * (double)i / 350;
	lk_sort_doubles(v, n);
	mdl_clock_states(v, n, &c);
	cr_assert_eq(c.nstates, 1);
	cr_expect_float_eq(c.state[0], 1.3015, 0.001);
}

/* The guest of 2026-12-02: five turbo states from 3.6 to 4.1 GHz at a
 * 2.6 GHz TSC, a few runs between them and one faster than all. */
Test(mdl_clock, turbo_states)
{
	static const double at[] = {1.382, 1.420, 1.458, 1.535, 1.573};
	static const size_t share[] = {50, 160, 260, 250, 260};
	double v[1100];
	struct lk_mdl_clock c = {0};
	size_t i, n = 0;

	for (i = 0; i < 5; i++)
		n = put(v, n, share[i], at[i], 0.001);
	v[n++] = 1.340; /* a run whose every reference was slowed */
	v[n++] = 1.500;
	v[n++] = 1.610; /* faster than any state */
	lk_sort_doubles(v, n);
	mdl_clock_states(v, n, &c);
	cr_assert_eq(c.nstates, 5);
	for (i = 0; i < 5; i++)
		cr_expect_float_eq(c.state[i], at[i], 0.002, "state %zu: %g",
				   i, c.state[i]);
}

/* A cluster far below the fastest (a neighbour that halves the chain
 * every time) is not a clock; too few runs are not a state. */
Test(mdl_clock, not_states)
{
	double v[1000];
	struct lk_mdl_clock c = {0};
	size_t n = put(v, 0, 300, 0.65, 0.001);

	n = put(v, n, 660, 1.30, 0.001);
	n = put(v, n, 40, 1.40, 0.001); /* 4 % */
	lk_sort_doubles(v, n);
	mdl_clock_states(v, n, &c);
	cr_assert_eq(c.nstates, 1);
	cr_expect_float_eq(c.state[0], 1.30, 0.002);
	mdl_clock_states(v, 0, &c);
	cr_expect_eq(c.nstates, 0);
}
