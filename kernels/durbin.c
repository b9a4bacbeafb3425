/* loopkit: kernel=durbin family=linear-algebra/solvers */
/*
 * durbin: Durbin's algorithm (Levinson recursion) for the Yule-Walker
 * equations T * y = -r, where T is the symmetric positive definite
 * Toeplitz matrix T[i][j] = c(|i-j|) with c(0) = 1 and r[k] = c(k+1).
 * Step k extends the solution of order k by one: the reflection
 * coefficient alpha from r and the reversed y (r[k-i-1], y[k-i-1]),
 * the scaled error beta, the new y through the workspace z.
 *
 * c(k) = 1 / (k + 1), a mixture of AR(1) autocorrelations t^k over
 * t in [0, 1): T is positive definite with its smallest eigenvalue
 * above 2 ln 2 - 1, so |alpha| < 1 and beta > 0 at every step.
 * y is recomputed from r: calls are idempotent.
 */
#include "kernels.h"

#ifndef N
#define N LKK_SIZE(40, 120, 400, 2000)
#endif

static void init(int n, double r[N])
{
	int k;

	for (k = 0; k < n; k++)
		r[k] = 1.0 / (k + 2);
}

LKK_KERNEL void kernel_durbin(int n, double r[N], double y[N], double z[N])
{
	int i, k;
	double alpha, beta, sum;

#pragma scop
	y[0] = -r[0];
	beta = 1.0;
	alpha = -r[0];
	for (k = 1; k < n; k++) {
		beta = (1.0 - alpha * alpha) * beta;
		sum = 0.0;
		for (i = 0; i < k; i++)
			sum += r[k - i - 1] * y[i];
		alpha = -(r[k] + sum) / beta;
		for (i = 0; i < k; i++)
			z[i] = y[i] + alpha * y[k - i - 1];
		for (i = 0; i < k; i++)
			y[i] = z[i];
		y[k] = alpha;
	}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double *r, *y, *z;

	lkk_start(&run, argc, argv, "durbin");
	r = lkk_alloc(&run, sizeof(double[N]));
	y = lkk_alloc(&run, sizeof(double[N]));
	z = lkk_alloc(&run, sizeof(double[N]));
	init(N, r);
	LKK_RUN(&run, kernel_durbin(N, r, y, z));
	LKK_SUM_F64(&run, r, N);
	LKK_SUM_F64(&run, y, N);
	LKK_SUM_F64(&run, z, N);
	lkk_free(r);
	lkk_free(y);
	lkk_free(z);
	return lkk_finish(&run);
}
