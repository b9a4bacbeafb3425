/* loopkit: kernel=fdtd-2d family=stencils */
/*
 * fdtd-2d: TMAX time steps of the 2-D finite-difference time-domain
 * method (Yee's scheme, TE mode) on an NX x NY grid: the electric
 * fields ex, ey are updated from the curl of the magnetic field hz
 * (coefficient 0.5), then hz from the curl of ex, ey (0.7); row 0 of
 * ey is driven by the source fict[t] at step t.
 *
 * 0.5 * 0.7 per axis is inside the scheme's stability limit and the
 * source is bounded, so repeated calls stay finite.
 */
#include "kernels.h"

#ifndef TMAX
#define TMAX LKK_SIZE(20, 40, 100, 500)
#endif
#ifndef NX
#define NX LKK_SIZE(20, 60, 200, 1000)
#endif
#ifndef NY
#define NY LKK_SIZE(30, 80, 240, 1200)
#endif

static void init(int tmax, int nx, int ny, double ex[NX][NY], double ey[NX][NY],
		 double hz[NX][NY], double fict[TMAX])
{
	int i, j;

	for (i = 0; i < tmax; i++)
		fict[i] = (double)(i % 8) / 8.0;
	for (i = 0; i < nx; i++)
		for (j = 0; j < ny; j++) {
			ex[i][j] = (double)(i * (j + 1) % nx) / nx;
			ey[i][j] = (double)(i * (j + 2) % ny) / ny;
			hz[i][j] = (double)(i * (j + 3) % nx) / nx;
		}
}

LKK_KERNEL void kernel_fdtd_2d(int tmax, int nx, int ny, double ex[NX][NY],
			       double ey[NX][NY], double hz[NX][NY],
			       double fict[TMAX])
{
	int t, i, j;

#pragma scop
	for (t = 0; t < tmax; t++) {
		for (j = 0; j < ny; j++)
			ey[0][j] = fict[t];
		for (i = 1; i < nx; i++)
			for (j = 0; j < ny; j++)
				ey[i][j] =
				    ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
		for (i = 0; i < nx; i++)
			for (j = 1; j < ny; j++)
				ex[i][j] =
				    ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
		for (i = 0; i < nx - 1; i++)
			for (j = 0; j < ny - 1; j++)
				hz[i][j] =
				    hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j] +
						      ey[i + 1][j] - ey[i][j]);
	}
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*ex)[NY], (*ey)[NY], (*hz)[NY], *fict;

	lkk_start(&run, argc, argv, "fdtd-2d");
	ex = lkk_alloc(&run, sizeof(double[NX][NY]));
	ey = lkk_alloc(&run, sizeof(double[NX][NY]));
	hz = lkk_alloc(&run, sizeof(double[NX][NY]));
	fict = lkk_alloc(&run, sizeof(double[TMAX]));
	init(TMAX, NX, NY, ex, ey, hz, fict);
	LKK_RUN(&run, kernel_fdtd_2d(TMAX, NX, NY, ex, ey, hz, fict));
	LKK_SUM_F64(&run, ex, NX * NY);
	LKK_SUM_F64(&run, ey, NX * NY);
	LKK_SUM_F64(&run, hz, NX * NY);
	LKK_SUM_F64(&run, fict, TMAX);
	lkk_free(ex);
	lkk_free(ey);
	lkk_free(hz);
	lkk_free(fict);
	return lkk_finish(&run);
}
