/* loopkit: kernel=deriche family=medley */
/*
 * deriche: Deriche's recursive Gaussian-like smoothing of an image
 * (W x H). A 1-D pass is the sum of a causal filter
 * y1[n] = a1 x[n] + a2 x[n-1] + b1 y1[n-1] + b2 y1[n-2] and an
 * anti-causal one y2[n] = a3 x[n+1] + a4 x[n+2] + b1 y2[n+1] +
 * b2 y2[n+2] (run with decreasing n); the image is filtered along its
 * rows, then the result along its columns. For a smoothing strength
 * alpha:
 *	k = (1 - e^-alpha)^2 / (1 + 2 alpha e^-alpha - e^-2alpha)
 *	a1 = k, a2 = k e^-alpha (alpha - 1), a3 = k e^-alpha (alpha + 1),
 *	a4 = -k e^-2alpha, b1 = 2 e^-alpha, b2 = -e^-2alpha,
 * computed in the region. The recursions carry their last inputs and
 * outputs in scalars.
 *
 * imgOut, y1 and y2 are recomputed from imgIn: calls are idempotent.
 */
#include "kernels.h"

#ifndef W
#define W LKK_SIZE(32, 96, 320, 1280)
#endif
#ifndef H
#define H LKK_SIZE(24, 64, 240, 720)
#endif

static void init(int w, int h, double imgIn[W][H])
{
	int i, j;

	for (i = 0; i < w; i++)
		for (j = 0; j < h; j++)
			imgIn[i][j] =
			    (double)((37 * i + 101 * j) % 256) / 255.0;
}

LKK_KERNEL void kernel_deriche(int w, int h, double alpha, double imgIn[W][H],
			       double imgOut[W][H], double y1[W][H],
			       double y2[W][H])
{
	int i, j;
	double k, a1, a2, a3, a4, b1, b2;
	double xm1, tm1, ym1, ym2, xp1, xp2, tp1, tp2, yp1, yp2;

#pragma scop
	k = (1.0 - exp(-alpha)) * (1.0 - exp(-alpha)) /
	    (1.0 + 2.0 * alpha * exp(-alpha) - exp(-2.0 * alpha));
	a1 = k;
	a2 = k * exp(-alpha) * (alpha - 1.0);
	a3 = k * exp(-alpha) * (alpha + 1.0);
	a4 = -k * exp(-2.0 * alpha);
	b1 = 2.0 * exp(-alpha);
	b2 = -exp(-2.0 * alpha);

	for (i = 0; i < w; i++) {
		xm1 = 0.0;
		ym1 = 0.0;
		ym2 = 0.0;
		for (j = 0; j < h; j++) {
			y1[i][j] =
			    a1 * imgIn[i][j] + a2 * xm1 + b1 * ym1 + b2 * ym2;
			xm1 = imgIn[i][j];
			ym2 = ym1;
			ym1 = y1[i][j];
		}
	}
	for (i = 0; i < w; i++) {
		xp1 = 0.0;
		xp2 = 0.0;
		yp1 = 0.0;
		yp2 = 0.0;
		for (j = h - 1; j >= 0; j--) {
			y2[i][j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2;
			xp2 = xp1;
			xp1 = imgIn[i][j];
			yp2 = yp1;
			yp1 = y2[i][j];
		}
	}
	for (i = 0; i < w; i++)
		for (j = 0; j < h; j++)
			imgOut[i][j] = y1[i][j] + y2[i][j];

	for (j = 0; j < h; j++) {
		tm1 = 0.0;
		ym1 = 0.0;
		ym2 = 0.0;
		for (i = 0; i < w; i++) {
			y1[i][j] =
			    a1 * imgOut[i][j] + a2 * tm1 + b1 * ym1 + b2 * ym2;
			tm1 = imgOut[i][j];
			ym2 = ym1;
			ym1 = y1[i][j];
		}
	}
	for (j = 0; j < h; j++) {
		tp1 = 0.0;
		tp2 = 0.0;
		yp1 = 0.0;
		yp2 = 0.0;
		for (i = w - 1; i >= 0; i--) {
			y2[i][j] = a3 * tp1 + a4 * tp2 + b1 * yp1 + b2 * yp2;
			tp2 = tp1;
			tp1 = imgOut[i][j];
			yp2 = yp1;
			yp1 = y2[i][j];
		}
	}
	for (i = 0; i < w; i++)
		for (j = 0; j < h; j++)
			imgOut[i][j] = y1[i][j] + y2[i][j];
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double (*imgIn)[H], (*imgOut)[H], (*y1)[H], (*y2)[H];

	lkk_start(&run, argc, argv, "deriche");
	imgIn = lkk_alloc(&run, sizeof(double[W][H]));
	imgOut = lkk_alloc(&run, sizeof(double[W][H]));
	y1 = lkk_alloc(&run, sizeof(double[W][H]));
	y2 = lkk_alloc(&run, sizeof(double[W][H]));
	init(W, H, imgIn);
	LKK_RUN(&run, kernel_deriche(W, H, 0.25, imgIn, imgOut, y1, y2));
	LKK_SUM_F64(&run, imgIn, W * H);
	LKK_SUM_F64(&run, imgOut, W * H);
	LKK_SUM_F64(&run, y1, W * H);
	LKK_SUM_F64(&run, y2, W * H);
	lkk_free(imgIn);
	lkk_free(imgOut);
	lkk_free(y1);
	lkk_free(y2);
	return lkk_finish(&run);
}
