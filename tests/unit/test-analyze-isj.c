/*
 * src/analyze: the 'isj' bandwidth (Botev, Grotowski and Kroese 2010)
 * against Botev's own values.
 *
 * The references were computed with kde1d() of john-hen/KDE-diffusion
 * (kde_diffusion/kde1d.py at commit f39809edc80a09ba1ba15ff3e41f17f416f7fe00,
 * a port of Botev's kde.m checked there against MATLAB output), run with
 * Debian 12's numpy 1.24.2 and scipy 1.10.1 on exactly the data sets
 * below, regenerated in Python with the same arithmetic. kde1d was given
 * kde.m's defaults as loopkit uses them: n = 2^14 grid points and the
 * interval [min - R/2, max + R/2] (R the data range), binned the way
 * kde.m's histc bins it (n bins of width R'/(n-1) from the interval's
 * lower end, R' = 2R, i.e. limits (MIN, MIN + n R'/(n-1))), and its
 * bandwidth times (n-1)/n, since kde.m scales sqrt(t*) by R', not by
 * n R'/(n-1). kde1d counts all points where kde.m counts distinct ones;
 * the data sets have no ties, so both are N. kde1d solves the fixed
 * point with brentq on [0, 0.1] (kde.m's older fzero bracket); loopkit,
 * like kde.m's later root(), searches from a small bracket upwards.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>

#include "loopkit/analyze.h"

/* A 64-bit LCG (Knuth's MMIX constants) and Irwin-Hall normals: only
 * +, - and *, so Python's floats reproduce every value to the bit. */
static double uniform(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(*s >> 11) * 0x1p-53;
}

static double normal(uint64_t *s)
{
	double z = -6;
	int i;

	for (i = 0; i < 12; i++)
		z += uniform(s);
	return z;
}

/* 60 % N(0, 1) and 40 % N(5, 0.7^2). */
static size_t bimodal(double *x)
{
	uint64_t s = 1;
	size_t i;

	for (i = 0; i < 400; i++) {
		double z = normal(&s);

		x[i] = i < 240 ? z : 5.0 + 0.7 * z;
	}
	return 400;
}

/* Chi-square with 3 degrees of freedom: skewed, bounded below by 0. */
static size_t skewed(double *x)
{
	uint64_t s = 2;
	size_t i;

	for (i = 0; i < 300; i++) {
		double a = normal(&s), b = normal(&s), c = normal(&s);

		x[i] = a * a + b * b + c * c;
	}
	return 300;
}

/* kde.m's own example: N(0, 1), N(35, 2^2), N(55, 1), widely apart. */
static size_t separated(double *x)
{
	uint64_t s = 3;
	size_t i;

	for (i = 0; i < 300; i++) {
		double z = normal(&s);

		x[i] = i < 100 ? z : i < 200 ? 35.0 + 2.0 * z : 55.0 + z;
	}
	return 300;
}

/* Marron and Wand's claw: N(0, 1) and five narrow N(k/2, 0.1^2). */
static size_t claw(double *x)
{
	uint64_t s = 4;
	size_t i;

	for (i = 0; i < 500; i++) {
		double z = normal(&s);
		double centre = (double)((int)(i / 2 % 5) - 2) * 0.5;

		x[i] = i % 2 == 0 ? z : centre + 0.1 * z;
	}
	return 500;
}

static void check(const char *name, size_t (*make)(double *), double sum,
		  double botev)
{
	double x[500], h, got_sum = 0;
	size_t n = make(x), i;

	for (i = 0; i < n; i++)
		got_sum += x[i];
	/* The data are those the reference was computed on (summed from
	 * the first; equal to the bit unless the compiler contracts to
	 * fused multiply-adds). */
	cr_assert(fabs(got_sum - sum) <= 1e-12 * fabs(sum),
		  "%s: sum %.17g, not %.17g", name, got_sum, sum);
	cr_assert_eq(lk_kde_isj(x, n, &h), 0, "%s", name);
	cr_log_info("%s: isj %.17g, kde.m %.17g, %+.2e", name, h, botev,
		    (h - botev) / botev);
	/* The issue asks 1 %; measured: 2.4e-10 at most (the solvers'
	 * tolerances). 1e-6 also tells kde.m's R/2 margins from the R/10
	 * of its older version (1e-5 to 9e-4 apart here). */
	cr_assert(fabs(h - botev) / botev < 1e-6,
		  "%s: isj %.17g, Botev's kde.m gives %.17g", name, h, botev);
}

Test(analyze_isj, bimodal)
{
	check("bimodal", bimodal, 818.2277616921963, 0.32619108970387684);
}

Test(analyze_isj, skewed)
{
	check("skewed", skewed, 890.1752976352541, 0.24462867984713588);
}

Test(analyze_isj, separated)
{
	check("separated", separated, 9026.15872201956, 0.53934964685992);
}

Test(analyze_isj, claw)
{
	check("claw", claw, -8.527005774221088, 0.06771631816262748);
}
