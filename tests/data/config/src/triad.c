void triad(double *a, const double *b, const double *c, double s, long n)
{
	for (long i = 0; i < n; i++)
		a[i] = b[i] + s * c[i];
}
