/* loopkit: kernel=adi family=stencils */
/*
 * adi: TSTEPS steps of the Peaceman-Rachford alternating direction
 * implicit method for the 2-D heat equation u_t = u_xx + u_yy on an
 * N x N grid with the boundary held at 1. Each step makes two half
 * steps, implicit along one axis and explicit along the other:
 * (1 - rx/2 dxx) v = (1 + ry/2 dyy) u column by column, then
 * (1 - ry/2 dyy) u = (1 + rx/2 dxx) v row by row. Each tridiagonal
 * system is solved by the Thomas algorithm: a forward elimination
 * into p (multipliers) and q (right-hand sides), then a backward
 * substitution (decreasing loop). The coefficients a..f are scalars
 * computed in the region from the grid spacings dx, dy and the time
 * step dt (1/N, 1/N, 1/TSTEPS).
 *
 * The scheme is unconditionally stable: repeated calls converge
 * towards u = 1 and stay finite.
 */
#include "kernels.h"

#ifndef TSTEPS
#define TSTEPS LKK_SIZE(20, 40, 100, 500)
#endif
#ifndef N
#define N LKK_SIZE(20, 60, 200, 1000)
#endif

static void init(int n, double u[N][N])
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			u[i][j] = i == 0 || j == 0 || i == n - 1 || j == n - 1
				      ? 1.0
				      : (double)(i + n - j) / n;
}

LKK_KERNEL void kernel_adi(int tsteps, int n, double dx, double dy, double dt,
			   double u[N][N], double v[N][N], double p[N][N],
			   double q[N][N])
{
	int t, i, j;
	double rx, ry, a, b, c, d, e, f;

#pragma scop
	rx = dt / (dx * dx);
	ry = dt / (dy * dy);
	a = -rx / 2.0;
	b = 1.0 + rx;
	c = a;
	d = -ry / 2.0;
	e = 1.0 + ry;
	f = d;

	for (t = 1; t <= tsteps; t++) {
		for (i = 1; i < n - 1; i++) {
			v[0][i] = 1.0;
			p[i][0] = 0.0;
			q[i][0] = v[0][i];
			for (j = 1; j < n - 1; j++) {
				p[i][j] = -c / (a * p[i][j - 1] + b);
				q[i][j] = (-d * u[j][i - 1] +
					   (1.0 + 2.0 * d) * u[j][i] -
					   f * u[j][i + 1] - a * q[i][j - 1]) /
					  (a * p[i][j - 1] + b);
			}
			v[n - 1][i] = 1.0;
			for (j = n - 2; j >= 1; j--)
				v[j][i] = p[i][j] * v[j + 1][i] + q[i][j];
		}
		for (i = 1; i < n - 1; i++) {
			u[i][0] = 1.0;
			p[i][0] = 0.0;
			q[i][0] = u[i][0];
			for (j = 1; j < n - 1; j++) {
				p[i][j] = -f / (d * p[i][j - 1] + e);
				q[i][j] = (-a * v[i - 1][j] +
					   (1.0 + 2.0 * a) * v[i][j] -
					   c * v[i + 1][j] - d * q[i][j - 1]) /
					  (d * p[i][j - 1] + e);
			}
			u[i][n - 1] = 1.0;
			for (j = n - 2; j >= 1; j--)
				u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
		}
	}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*u)[N], (*v)[N], (*p)[N], (*q)[N];

	lkk_start(&run, argc, argv, "adi");
	u = lkk_alloc(&run, sizeof(double[N][N]));
	v = lkk_alloc(&run, sizeof(double[N][N]));
	p = lkk_alloc(&run, sizeof(double[N][N]));
	q = lkk_alloc(&run, sizeof(double[N][N]));
	init(N, u);
	LKK_RUN(&run, kernel_adi(TSTEPS, N, 1.0 / N, 1.0 / N, 1.0 / TSTEPS, u,
				 v, p, q));
	LKK_SUM_F64(&run, u, N * N);
	LKK_SUM_F64(&run, v, N * N);
	LKK_SUM_F64(&run, p, N * N);
	LKK_SUM_F64(&run, q, N * N);
	lkk_free(u);
	lkk_free(v);
	lkk_free(p);
	lkk_free(q);
	return lkk_finish(&run);
}
