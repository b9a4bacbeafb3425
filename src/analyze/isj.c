/*
 * Bandwidth rules of a Gaussian KDE, as KDEpy 1.1.9 computes them
 * (bw_selection.py), and the Improved Sheather-Jones selector of Botev,
 * Grotowski and Kroese (2010) in two variants: Botev's kde.m (grid range)
 * and KDEpy's (data range, about half as wide).
 */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/analyze.h"
#include "loopkit/stats.h"

static double std_ddof1(const double *x, size_t n)
{
	double m = lk_mean(x, n), s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s += (x[i] - m) * (x[i] - m);
	return sqrt(s / (double)(n - 1));
}

static double iqr_sigma(const double *x, size_t n)
{
	return (lk_quantile(x, n, 0.75) - lk_quantile(x, n, 0.25)) /
	       1.3489795003921634;
}

double lk_kde_silverman(const double *x, size_t n)
{
	double sigma, range, f;

	if (n <= 1)
		return 1.0;
	sigma = fmin(std_ddof1(x, n), iqr_sigma(x, n));
	f = pow((double)n * 3 / 4.0, -1 / 5.0);
	if (sigma > 0)
		return sigma * f;
	range = (lk_quantile(x, n, 0.99) - lk_quantile(x, n, 0.01)) /
		4.6526957480816815;
	return range > 0 ? range * f : 1.0;
}

double lk_kde_scott(const double *x, size_t n)
{
	double sigma;

	if (n <= 1)
		return 1.0;
	sigma = fmin(std_ddof1(x, n), iqr_sigma(x, n));
	return sigma > 0 ? sigma * pow((double)n, -1 / 5.0) : 1.0;
}

/* In-place radix-2 FFT, n a power of two. */
static void fft(double complex *a, size_t n)
{
	size_t i, j, len, k;

	for (i = 1, j = 0; i < n; i++) {
		size_t bit = n >> 1;

		for (; j & bit; bit >>= 1)
			j ^= bit;
		j ^= bit;
		if (i < j) {
			double complex t = a[i];

			a[i] = a[j];
			a[j] = t;
		}
	}
	for (len = 2; len <= n; len <<= 1) {
		double complex w = cexp(-2 * M_PI * I / (double)len);

		for (i = 0; i < n; i += len) {
			double complex wk = 1;

			for (k = 0; k < len / 2; k++, wk *= w) {
				double complex u = a[i + k];
				double complex v = a[i + k + len / 2] * wk;

				a[i + k] = u + v;
				a[i + k + len / 2] = u - v;
			}
		}
	}
}

/* scipy's unnormalised DCT-II, y_k = 2 sum x_j cos(pi k (2j+1) / 2n),
 * by Makhoul's reordering and one FFT. */
static void dct2(const double *x, double *y, size_t n)
{
	double complex *v = lk_calloc(n, sizeof(*v));
	size_t j;

	for (j = 0; j < n / 2; j++) {
		v[j] = x[2 * j];
		v[n - 1 - j] = x[2 * j + 1];
	}
	fft(v, n);
	for (j = 0; j < n; j++)
		y[j] = 2 * creal(v[j] * cexp(-I * M_PI * (double)j /
					      (2.0 * (double)n)));
	free(v);
}

static double plancherel(int s, double t, const double *isq,
			 const double *a2, size_t n)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += pow(isq[i], s) * a2[i] * exp(-isq[i] * M_PI * M_PI * t);
	return 0.5 * pow(M_PI, 2 * s) * sum;
}

double lk_kde_isj_fixed_point(double t, double nunique, const double *isq,
			      const double *a2, size_t n)
{
	const int ell = 7;
	double f = plancherel(ell, t, isq, a2, n);
	int s;

	if (f <= 0)
		return -1;
	for (s = ell - 1; s >= 2; s--) {
		double odd = 1, k0, c, time;
		int k;

		for (k = 1; k <= 2 * s - 1; k += 2)
			odd *= k;
		k0 = odd / sqrt(2 * M_PI);
		c = (1 + pow(0.5, s + 0.5)) / 3;
		time = pow(2 * c * k0 / (nunique * f), 2.0 / (3.0 + 2.0 * s));
		f = plancherel(s, time, isq, a2, n);
	}
	return t - pow(2 * nunique * sqrt(M_PI) * f, -2.0 / 5);
}

/* A root of the fixed point in [0, tol], tol doubled until there is a
 * sign change (KDEpy's _root); bisection to the last bit, which it
 * reaches when the midpoint is one of the ends (some 60 steps). */
static int root(double nunique, const double *isq, const double *a2,
		size_t n, double *t)
{
	double nn = fmax(fmin(1050, nunique), 50);
	double tol = 1e-11 + 0.01 * (nn - 50) / 1000, lo, hi, flo;
	int i;

	for (; tol < 1; tol *= 2) {
		lo = 0;
		hi = tol;
		flo = lk_kde_isj_fixed_point(lo, nunique, isq, a2, n);
		if ((flo < 0) == (lk_kde_isj_fixed_point(hi, nunique, isq, a2,
							  n) < 0))
			continue;
		for (i = 0; i < 200 && hi - lo > 1e-300; i++) {
			double mid = lo + (hi - lo) / 2, fm;

			if (mid == lo || mid == hi)
				break;
			fm = lk_kde_isj_fixed_point(mid, nunique, isq, a2, n);
			if ((fm < 0) == (flo < 0))
				lo = mid;
			else
				hi = mid;
		}
		*t = lo + (hi - lo) / 2;
		return *t > 0 ? 0 : -1;
	}
	return -1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static size_t unique_count(const double *x, size_t n)
{
	double *s = lk_malloc((n + 1) * sizeof(*s));
	size_t i, u = n ? 1 : 0;

	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	for (i = 1; i < n; i++)
		u += s[i] != s[i - 1];
	free(s);
	return u;
}

/* t* of binned data (weights summing to 1) on n grid points. */
static int isj_t(const double *binned, size_t n, size_t nunique, double *t)
{
	double *a = lk_calloc(n, sizeof(*a)), *isq = lk_calloc(n, sizeof(*a));
	double *a2 = lk_calloc(n, sizeof(*a));
	size_t i;
	int ret;

	dct2(binned, a, n);
	for (i = 1; i < n; i++) {
		isq[i - 1] = (double)i * (double)i;
		a2[i - 1] = a[i] * a[i];
	}
	ret = root((double)nunique, isq, a2, n - 1, t);
	free(a);
	free(isq);
	free(a2);
	return ret;
}

static void minmax(const double *x, size_t n, double *lo, double *hi)
{
	size_t i;

	*lo = *hi = x[0];
	for (i = 1; i < n; i++) {
		*lo = fmin(*lo, x[i]);
		*hi = fmax(*hi, x[i]);
	}
}

int lk_kde_isj_kdepy(const double *x, size_t n, double *h)
{
	const size_t g = 1024;
	double *bins, lo, hi, border, dx;
	size_t i;
	int ret;

	if (n < 2)
		return -1;
	minmax(x, n, &lo, &hi);
	border = fmax(6, 0.5 * (hi - lo));
	dx = (hi - lo + 2 * border) / (double)(g - 1);
	bins = lk_calloc(g + 1, sizeof(*bins));
	for (i = 0; i < n; i++) {
		double pos = (x[i] - (lo - border)) / dx;
		size_t k = (size_t)pos;
		double frac = pos - (double)k;

		if (k >= g - 1) {
			bins[g - 1] += 1.0 / (double)n;
			continue;
		}
		bins[k] += (1 - frac) / (double)n;
		bins[k + 1] += frac / (double)n;
	}
	ret = isj_t(bins, g, unique_count(x, n), h);
	if (!ret)
		*h = sqrt(*h) * (hi - lo);
	free(bins);
	return ret;
}

int lk_kde_isj(const double *x, size_t n, double *h)
{
	const size_t g = 1 << 14;
	double *bins, lo, hi, range, dx;
	size_t i;
	int ret;

	if (n < 2)
		return -1;
	minmax(x, n, &lo, &hi);
	range = hi - lo;
	lo -= range / 2;
	range *= 2;
	if (range <= 0)
		return -1;
	dx = range / (double)(g - 1);
	bins = lk_calloc(g + 1, sizeof(*bins));
	/* histc over the grid's points as edges: [x_k, x_k+1). */
	for (i = 0; i < n; i++) {
		size_t k = (size_t)((x[i] - lo) / dx);

		bins[k < g ? k : g - 1] += 1.0 / (double)n;
	}
	ret = isj_t(bins, g, unique_count(x, n), h);
	if (!ret)
		*h = sqrt(*h) * range;
	free(bins);
	return ret;
}
