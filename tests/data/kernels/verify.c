/*
 * verify.c: check a kernel of the suite against its mathematics, computed
 * here another way (a textbook formula, another loop order or another
 * algorithm), after one call at the dataset it is built for.
 *
 *	cc -DV_gemm -DKFILE='"kernels/gemm.c"' -I rt -I kernels verify.c \
 *		build/lib/liblkrt.a -lm && ./a.out
 *
 * Prints `ok <kernel> <max relative error>` and exits 0, or exits 1.
 * The kernel file's main() is renamed away; its init() is used as is.
 */
#define main kernel_file_main
#include KFILE
#undef main

static double max_err, max_ref;

/* Record a computed value against its reference. */
static void cmp(double got, double want)
{
	double e = fabs(got - want);

	if (!(e <= max_err))
		max_err = e; /* also catches NaN */
	if (fabs(want) > max_ref)
		max_ref = fabs(want);
}

static int verdict(const char *name, double tolerance)
{
	double rel = max_ref > 0 ? max_err / max_ref : max_err;

	printf("%s %s %.3g\n", rel <= tolerance ? "ok" : "FAIL", name, rel);
	return !(rel <= tolerance);
}

#define COPY(dst, src) memcpy(dst, src, sizeof(dst))

#if defined(V_gemm)
static double C[NI][NJ], C0[NI][NJ], A[NI][NK], B[NK][NJ];
int main(void)
{
	int i, j, k;

	init(NI, NJ, NK, C, A, B);
	COPY(C0, C);
	kernel_gemm(NI, NJ, NK, 1.5, 0.8, C, A, B);
	for (i = 0; i < NI; i++)
		for (j = 0; j < NJ; j++) {
			double s = 0;
			for (k = 0; k < NK; k++)
				s += A[i][k] * B[k][j];
			cmp(C[i][j], 1.5 * s + 0.8 * C0[i][j]);
		}
	return verdict("gemm", 1e-13);
}
#elif defined(V_2mm)
static double tmp[NI][NJ], A[NI][NK], B[NK][NJ], C[NJ][NL], D[NI][NL],
	D0[NI][NL], AB[NI][NJ];
int main(void)
{
	int i, j, k;

	init(NI, NJ, NK, NL, A, B, C, D);
	COPY(D0, D);
	kernel_2mm(NI, NJ, NK, NL, 1.5, 0.8, tmp, A, B, C, D);
	for (i = 0; i < NI; i++)
		for (j = 0; j < NJ; j++)
			for (k = 0; k < NK; k++)
				AB[i][j] += A[i][k] * B[k][j];
	for (i = 0; i < NI; i++)
		for (j = 0; j < NL; j++) {
			double s = 0;
			for (k = 0; k < NJ; k++)
				s += AB[i][k] * C[k][j];
			cmp(D[i][j], 1.5 * s + 0.8 * D0[i][j]);
		}
	return verdict("2mm", 1e-13);
}
#elif defined(V_3mm)
static double E[NI][NJ], A[NI][NK], B[NK][NJ], F[NJ][NL], C[NJ][NM],
	D[NM][NL], G[NI][NL];
int main(void)
{
	int i, j, k, l;

	init(NI, NJ, NK, NL, NM, A, B, C, D);
	kernel_3mm(NI, NJ, NK, NL, NM, E, A, B, F, C, D, G);
	/* G = A (B (C D)) summed as one quadruple sum */
	for (i = 0; i < NI; i++)
		for (l = 0; l < NL; l++) {
			double s = 0;
			for (k = 0; k < NK; k++)
				for (j = 0; j < NJ; j++) {
					double cd = 0;
					int m;
					for (m = 0; m < NM; m++)
						cd += C[j][m] * D[m][l];
					s += A[i][k] * B[k][j] * cd;
				}
			cmp(G[i][l], s);
		}
	return verdict("3mm", 1e-13);
}
#elif defined(V_atax)
static double A[M][N], x[N], y[N], tmp[M];
int main(void)
{
	int i, j, k;

	init(M, N, A, x);
	kernel_atax(M, N, A, x, y, tmp);
	for (j = 0; j < N; j++) { /* y_j = sum_i A_ij sum_k A_ik x_k */
		double s = 0;
		for (i = 0; i < M; i++) {
			double ax = 0;
			for (k = 0; k < N; k++)
				ax += A[i][k] * x[k];
			s += A[i][j] * ax;
		}
		cmp(y[j], s);
	}
	return verdict("atax", 1e-13);
}
#elif defined(V_bicg)
static double A[N][M], s[M], q[N], p[M], r[N];
int main(void)
{
	int i, j;

	init(M, N, A, r, p);
	kernel_bicg(M, N, A, s, q, p, r);
	for (j = 0; j < M; j++) {
		double t = 0;
		for (i = N - 1; i >= 0; i--)
			t += A[i][j] * r[i];
		cmp(s[j], t);
	}
	for (i = 0; i < N; i++) {
		double t = 0;
		for (j = M - 1; j >= 0; j--)
			t += A[i][j] * p[j];
		cmp(q[i], t);
	}
	return verdict("bicg", 1e-13);
}
#elif defined(V_doitgen)
static double A[NR][NQ][NP], A0[NR][NQ][NP], C4[NP][NP], sum[NP];
int main(void)
{
	int r, q, p, s;

	init(NR, NQ, NP, A, C4);
	COPY(A0, A);
	kernel_doitgen(NR, NQ, NP, A, C4, sum);
	for (r = 0; r < NR; r++)
		for (q = 0; q < NQ; q++)
			for (p = 0; p < NP; p++) {
				double t = 0;
				for (s = 0; s < NP; s++)
					t += A0[r][q][s] * C4[s][p];
				cmp(A[r][q][p], t);
			}
	return verdict("doitgen", 1e-13);
}
#elif defined(V_mvt)
static double x1[N], x2[N], y1_[N], y2[N], A[N][N], x10[N], x20[N];
int main(void)
{
	int i, j;

	init(N, x1, x2, y1_, y2, A);
	COPY(x10, x1);
	COPY(x20, x2);
	kernel_mvt(N, x1, x2, y1_, y2, A);
	for (i = 0; i < N; i++) {
		double s = 0, t = 0;
		for (j = 0; j < N; j++) {
			s += A[i][j] * y1_[j];
			t += A[j][i] * y2[j];
		}
		cmp(x1[i], x10[i] + s);
		cmp(x2[i], x20[i] + t);
	}
	return verdict("mvt", 1e-13);
}
#elif defined(V_gemver)
static double A[N][N], u1[N], v1[N], u2[N], v2[N], w[N], x[N], y[N], z[N],
	Ah[N][N], xr[N];
int main(void)
{
	int i, j;

	init(N, A, u1, v1, u2, v2, w, x, y, z);
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			Ah[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
	for (i = 0; i < N; i++) {
		double s = 0;
		for (j = 0; j < N; j++)
			s += Ah[j][i] * y[j];
		xr[i] = x[i] + 1.2 * s + z[i];
	}
	kernel_gemver(N, 1.5, 1.2, A, u1, v1, u2, v2, w, x, y, z);
	for (i = 0; i < N; i++) {
		double s = 0;
		for (j = 0; j < N; j++) {
			cmp(A[i][j], Ah[i][j]);
			s += Ah[i][j] * xr[j];
		}
		cmp(x[i], xr[i]);
		cmp(w[i], 1.5 * s); /* w starts at 0 */
	}
	return verdict("gemver", 1e-13);
}
#elif defined(V_gesummv)
static double A[N][N], B[N][N], tmp[N], x[N], y[N];
int main(void)
{
	int i, j;

	init(N, A, B, x);
	kernel_gesummv(N, 1.5, 1.2, A, B, tmp, x, y);
	for (i = 0; i < N; i++) {
		double s = 0;
		for (j = 0; j < N; j++)
			s += (1.5 * A[i][j] + 1.2 * B[i][j]) * x[j];
		cmp(y[i], s);
	}
	return verdict("gesummv", 1e-13);
}
#elif defined(V_symm)
static double C[M][N], C0[M][N], A[M][M], B[M][N];
int main(void)
{
	int i, j, k;

	init(M, N, C, A, B);
	COPY(C0, C);
	kernel_symm(M, N, 1.5, 0.8, C, A, B);
	for (i = 0; i < M; i++)
		for (j = 0; j < N; j++) {
			double s = 0;
			for (k = 0; k < M; k++) /* A from its lower triangle */
				s += (k <= i ? A[i][k] : A[k][i]) * B[k][j];
			cmp(C[i][j], 1.5 * s + 0.8 * C0[i][j]);
		}
	return verdict("symm", 1e-13);
}
#elif defined(V_syrk)
static double C[N][N], C0[N][N], A[N][M];
int main(void)
{
	int i, j, k;

	init(M, N, C, A);
	COPY(C0, C);
	kernel_syrk(M, N, 1.5, 0.8, C, A);
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++) {
			double s = 0;
			for (k = 0; k < M; k++)
				s += A[i][k] * A[j][k];
			cmp(C[i][j], j <= i ? 1.5 * s + 0.8 * C0[i][j] : C0[i][j]);
		}
	return verdict("syrk", 1e-13);
}
#elif defined(V_syr2k)
static double C[N][N], C0[N][N], A[N][M], B[N][M];
int main(void)
{
	int i, j, k;

	init(M, N, C, A, B);
	COPY(C0, C);
	kernel_syr2k(M, N, 1.5, 0.8, C, A, B);
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++) {
			double s = 0;
			for (k = 0; k < M; k++)
				s += A[i][k] * B[j][k] + B[i][k] * A[j][k];
			cmp(C[i][j], j <= i ? 1.5 * s + 0.8 * C0[i][j] : C0[i][j]);
		}
	return verdict("syr2k", 1e-13);
}
#elif defined(V_trmm)
static double A[M][M], B[M][N], B0[M][N];
int main(void)
{
	int i, j, k;

	init(M, N, A, B);
	COPY(B0, B);
	kernel_trmm(M, N, 1.0, A, B);
	for (i = 0; i < M; i++)
		for (j = 0; j < N; j++) {
			double s = 0; /* (A^T B0)[i][j], A unit lower */
			for (k = 0; k < M; k++)
				s += (k == i ? 1.0 : k > i ? A[k][i] : 0.0) *
				     B0[k][j];
			cmp(B[i][j], s);
		}
	return verdict("trmm", 1e-13);
}
#elif defined(V_cholesky)
static double A[N][N], L[N][N];
int main(void)
{
	int i, j, k;

	init(N, A);
	kernel_cholesky(N, A, L);
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++) {
			double s = 0;
			for (k = 0; k < N; k++)
				s += L[i][k] * L[j][k];
			cmp(s, A[i][j]); /* L L^T = A, L lower */
			if (j > i)
				cmp(L[i][j], 0.0);
		}
	return verdict("cholesky", 1e-13);
}
#elif defined(V_lu)
static double A[N][N], LU[N][N];
int main(void)
{
	int i, j, k;

	init(N, A);
	kernel_lu(N, A, LU);
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++) {
			double s = 0;
			for (k = 0; k < N; k++)
				s += (k < i ? LU[i][k] : k == i ? 1.0 : 0.0) *
				     (k <= j ? LU[k][j] : 0.0);
			cmp(s, A[i][j]);
		}
	return verdict("lu", 1e-13);
}
#elif defined(V_ludcmp)
static double A[N][N], LU[N][N], b[N], x[N], y[N];
int main(void)
{
	int i, j;

	init(N, A, b);
	kernel_ludcmp(N, A, LU, b, x, y);
	for (i = 0; i < N; i++) {
		double s = 0;
		for (j = 0; j < N; j++)
			s += A[i][j] * x[j];
		cmp(s, b[i]);
	}
	return verdict("ludcmp", 1e-13);
}
#elif defined(V_trisolv)
static double L[N][N], x[N], b[N];
int main(void)
{
	int i, j;

	init(N, L, b);
	kernel_trisolv(N, L, x, b);
	for (i = 0; i < N; i++) {
		double s = 0;
		for (j = 0; j <= i; j++)
			s += L[i][j] * x[j];
		cmp(s, b[i]);
	}
	return verdict("trisolv", 1e-13);
}
#elif defined(V_durbin)
static double r[N], y[N], z[N];
int main(void)
{
	int i, j;

	init(N, r);
	kernel_durbin(N, r, y, z);
	for (i = 0; i < N; i++) { /* T y = -r, T[i][j] = c(|i-j|) */
		double s = 0;
		for (j = 0; j < N; j++) {
			int d = i > j ? i - j : j - i;
			s += (d == 0 ? 1.0 : r[d - 1]) * y[j];
		}
		cmp(s, -r[i]);
	}
	return verdict("durbin", 1e-13);
}
#elif defined(V_gramschmidt)
static double A[M][N], A0[M][N], R[N][N], Q[M][N];
int main(void)
{
	int i, j, k;

	init(M, N, A, R, Q);
	COPY(A0, A);
	kernel_gramschmidt(M, N, A, R, Q);
	for (i = 0; i < M; i++)
		for (j = 0; j < N; j++) {
			double s = 0;
			for (k = 0; k <= j; k++)
				s += Q[i][k] * R[k][j];
			cmp(s, A0[i][j]);
		}
	for (j = 0; j < N; j++)
		for (k = 0; k < N; k++) {
			double s = 0;
			for (i = 0; i < M; i++)
				s += Q[i][j] * Q[i][k];
			cmp(s, j == k ? 1.0 : 0.0);
			if (k < j)
				cmp(R[j][k], 0.0);
		}
	return verdict("gramschmidt", 1e-13);
}
#elif defined(V_correlation)
static double data[N][M], data0[N][M], corr[M][M], mean[M], stddev[M];
int main(void)
{
	int i, j, k;

	init(M, N, data);
	COPY(data0, data);
	kernel_correlation(M, N, (double)N, data, corr, mean, stddev);
	for (i = 0; i < M; i++)
		for (j = 0; j < M; j++) { /* Pearson, from the raw data */
			double mi = 0, mj = 0, sij = 0, sii = 0, sjj = 0;
			for (k = 0; k < N; k++) {
				mi += data0[k][i] / N;
				mj += data0[k][j] / N;
			}
			for (k = 0; k < N; k++) {
				double di = data0[k][i] - mi, dj = data0[k][j] - mj;
				sij += di * dj;
				sii += di * di;
				sjj += dj * dj;
			}
			cmp(corr[i][j], i == j ? 1.0 : sij / sqrt(sii * sjj));
		}
	return verdict("correlation", 1e-12);
}
#elif defined(V_covariance)
static double data[N][M], data0[N][M], cov[M][M], mean[M];
int main(void)
{
	int i, j, k;

	init(M, N, data);
	COPY(data0, data);
	kernel_covariance(M, N, (double)N, data, cov, mean);
	for (i = 0; i < M; i++)
		for (j = 0; j < M; j++) { /* sum x_i x_j - N mean_i mean_j */
			double mi = 0, mj = 0, sij = 0;
			for (k = 0; k < N; k++) {
				mi += data0[k][i] / N;
				mj += data0[k][j] / N;
				sij += data0[k][i] * data0[k][j];
			}
			cmp(cov[i][j], (sij - N * mi * mj) / (N - 1));
		}
	return verdict("covariance", 1e-11);
}
#elif defined(V_deriche)
static double in[W][H], out[W][H], y1_[W][H], y2_[W][H], rows[W][H];
/* The filter's impulse response: k (1 + alpha |n|) e^(-alpha |n|). */
static double h(int n, double a)
{
	double k = (1 - exp(-a)) * (1 - exp(-a)) /
		   (1 + 2 * a * exp(-a) - exp(-2 * a));

	n = n < 0 ? -n : n;
	return k * (1 + a * n) * exp(-a * n);
}
int main(void)
{
	int i, j, m;

	init(W, H, in);
	kernel_deriche(W, H, 0.25, in, out, y1_, y2_);
	for (i = 0; i < W; i++) /* zero-padded separable convolution */
		for (j = 0; j < H; j++)
			for (m = 0; m < H; m++)
				rows[i][j] += in[i][m] * h(j - m, 0.25);
	for (i = 0; i < W; i++)
		for (j = 0; j < H; j++) {
			double s = 0;
			for (m = 0; m < W; m++)
				s += rows[m][j] * h(i - m, 0.25);
			cmp(out[i][j], s);
		}
	return verdict("deriche", 1e-12);
}
#elif defined(V_floyd_warshall)
static int paths[N][N], dist[N][N], w[N][N];
int main(void)
{
	int s, i, j, changed;

	init(N, paths);
	memcpy(w, paths, sizeof(w));
	kernel_floyd_warshall(N, paths);
	for (s = 0; s < N; s++) { /* Bellman-Ford from every source */
		for (j = 0; j < N; j++)
			dist[s][j] = j == s ? 0 : 1000000;
		do {
			changed = 0;
			for (i = 0; i < N; i++)
				for (j = 0; j < N; j++)
					if (i != j && w[i][j] < 1000000 &&
					    dist[s][i] + w[i][j] < dist[s][j]) {
						dist[s][j] = dist[s][i] + w[i][j];
						changed = 1;
					}
		} while (changed);
		for (j = 0; j < N; j++)
			cmp(paths[s][j], dist[s][j]);
	}
	return verdict("floyd-warshall", 0);
}
#elif defined(V_nussinov)
static int seq[N], table[N][N], best[N][N];
static int max2(int a, int b)
{
	return a > b ? a : b;
}
int main(void)
{
	int len, i, j, k;

	init(N, seq, table);
	kernel_nussinov(N, seq, table);
	for (len = 1; len < N; len++) /* by increasing span */
		for (i = 0; i + len < N; i++) {
			j = i + len;
			best[i][j] = max2(best[i + 1][j], best[i][j - 1]);
			if (len > 1)
				best[i][j] = max2(best[i][j],
						  best[i + 1][j - 1] +
							  (seq[i] + seq[j] == 3));
			for (k = i + 1; k < j; k++)
				best[i][j] = max2(best[i][j],
						  best[i][k] + best[k + 1][j]);
		}
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			cmp(table[i][j], best[i][j]);
	if (best[0][N - 1] < 1) {
		printf("FAIL nussinov: no base pair at all\n");
		return 1;
	}
	return verdict("nussinov", 0);
}
#elif defined(V_adi)
static double u[N][N], v[N][N], p[N][N], q[N][N], ur[N][N], vr[N][N];
/* Solve the n x n system (lo, di, up) x = b by Gaussian elimination. */
static void tridiag(int n, double lo, double di, double up, double *b,
		    double *x)
{
	double d[N], c[N];
	int k;

	for (k = 0; k < n; k++) {
		d[k] = di;
		c[k] = b[k];
	}
	for (k = 1; k < n; k++) {
		double f = lo / d[k - 1];
		d[k] -= f * up;
		c[k] -= f * c[k - 1];
	}
	x[n - 1] = c[n - 1] / d[n - 1];
	for (k = n - 2; k >= 0; k--)
		x[k] = (c[k] - up * x[k + 1]) / d[k];
}
int main(void)
{
	double r = (1.0 / TSTEPS) * N * N, b[N], x[N];
	int t, i, j;

	init(N, u);
	COPY(ur, u);
	kernel_adi(TSTEPS, N, 1.0 / N, 1.0 / N, 1.0 / TSTEPS, u, v, p, q);
	for (t = 0; t < TSTEPS; t++) {
		for (i = 1; i < N - 1; i++) { /* implicit along columns */
			for (j = 1; j < N - 1; j++)
				b[j - 1] = r / 2 * ur[j][i - 1] +
					   (1 - r) * ur[j][i] +
					   r / 2 * ur[j][i + 1];
			b[0] += r / 2;
			b[N - 3] += r / 2; /* the boundary, 1 */
			tridiag(N - 2, -r / 2, 1 + r, -r / 2, b, x);
			for (j = 1; j < N - 1; j++)
				vr[j][i] = x[j - 1];
		}
		for (i = 0; i < N; i++)
			vr[0][i] = vr[N - 1][i] = 1.0;
		for (i = 1; i < N - 1; i++) { /* implicit along rows */
			for (j = 1; j < N - 1; j++)
				b[j - 1] = r / 2 * vr[i - 1][j] +
					   (1 - r) * vr[i][j] +
					   r / 2 * vr[i + 1][j];
			b[0] += r / 2;
			b[N - 3] += r / 2;
			tridiag(N - 2, -r / 2, 1 + r, -r / 2, b, x);
			for (j = 1; j < N - 1; j++)
				ur[i][j] = x[j - 1];
		}
	}
	for (i = 1; i < N - 1; i++)
		for (j = 0; j < N; j++)
			cmp(u[i][j], ur[i][j]);
	return verdict("adi", 1e-12);
}
#elif defined(V_jacobi_2d) || defined(V_jacobi_1d) || defined(V_heat_3d)
/* 2 * TSTEPS steps of the plain iteration with a fixed boundary, keeping
 * the last two grids: A holds the last, B the one before. */
#if defined(V_jacobi_1d)
static double A[N], B[N], cur[N], nxt[N], prev[N];
static void step(void)
{
	int i;
	for (i = 1; i < N - 1; i++)
		nxt[i] = 0.33333 * (cur[i - 1] + cur[i] + cur[i + 1]);
}
#define NAME "jacobi-1d"
#define CALL kernel_jacobi_1d(TSTEPS, N, A, B)
#define INIT init(N, A, B)
#elif defined(V_jacobi_2d)
static double A[N][N], B[N][N], cur[N][N], nxt[N][N], prev[N][N];
static void step(void)
{
	int i, j;
	for (i = 1; i < N - 1; i++)
		for (j = 1; j < N - 1; j++)
			nxt[i][j] = 0.2 * (cur[i][j] + cur[i][j - 1] +
					   cur[i][j + 1] + cur[i + 1][j] +
					   cur[i - 1][j]);
}
#define NAME "jacobi-2d"
#define CALL kernel_jacobi_2d(TSTEPS, N, A, B)
#define INIT init(N, A, B)
#else
static double A[N][N][N], B[N][N][N], cur[N][N][N], nxt[N][N][N],
	prev[N][N][N];
static void step(void)
{
	int i, j, k;
	for (i = 1; i < N - 1; i++)
		for (j = 1; j < N - 1; j++)
			for (k = 1; k < N - 1; k++) /* one Laplacian */
				nxt[i][j][k] =
					cur[i][j][k] +
					0.125 * (cur[i + 1][j][k] +
						 cur[i - 1][j][k] +
						 cur[i][j + 1][k] +
						 cur[i][j - 1][k] +
						 cur[i][j][k + 1] +
						 cur[i][j][k - 1] -
						 6.0 * cur[i][j][k]);
}
#define NAME "heat-3d"
#define CALL kernel_heat_3d(TSTEPS, N, A, B)
#define INIT init(N, A, B)
#endif
int main(void)
{
	double *a = (double *)A, *b = (double *)B, *c = (double *)cur,
	       *p = (double *)prev;
	size_t i, n = sizeof(A) / sizeof(double);
	int t;

	INIT;
	COPY(cur, A);
	COPY(nxt, A);
	CALL;
	for (t = 0; t < 2 * TSTEPS; t++) {
		step();
		COPY(prev, cur);
		COPY(cur, nxt);
	}
	for (i = 0; i < n; i++) {
		cmp(a[i], c[i]);
		cmp(b[i], p[i]);
	}
	return verdict(NAME, 1e-12);
}
#else
#error "no check for this kernel"
#endif
