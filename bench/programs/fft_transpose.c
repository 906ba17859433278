/*
 * fft_transpose.c -- distributed 2-D complex FFT by the transpose method.
 *
 * The N x N array is distributed by rows (N/P rows per rank). A 2-D FFT is
 *   1. a 1-D FFT of every local row,
 *   2. a global transpose: each rank cuts its rows into P blocks of
 *      (N/P) x (N/P), MPI_Alltoall exchanges them, and each received block
 *      is transposed locally,
 *   3. a 1-D FFT of every local row again (the original columns).
 * The result is left transposed. The transforms alternate forward and
 * inverse (scaled by 1/N^2), so the data return to the input after an even
 * number of them; the last one is checked against the input when ITERS is
 * even.
 *
 * The 1-D FFT is an iterative in-place radix-2 Cooley-Tukey with a
 * precomputed twiddle table.
 *
 * usage: fft_transpose [N] [ITERS]
 *   N      global size, a power of two divisible by P  (default 1024)
 *   ITERS  2-D transforms                             (default 26)
 */
#include <complex.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

typedef double complex cplx;

static const double PI = 3.14159265358979323846;

static int ilog2(int n)
{
    int l = 0;
    while ((1 << l) < n) l++;
    return l;
}

/* w[k] = exp(-2 pi i k / n), k < n/2 */
static void make_twiddles(cplx *w, int n)
{
    for (int k = 0; k < n / 2; k++)
        w[k] = cexp(-2.0 * PI * I * (double)k / (double)n);
}

/* in-place radix-2 FFT of length n; sign -1 forward, +1 inverse (unscaled) */
static void fft1d(cplx *a, int n, const cplx *w, int sign)
{
    int lg = ilog2(n);
    for (int i = 0; i < n; i++) {          /* bit-reversal permutation */
        int r = 0;
        for (int b = 0; b < lg; b++)
            r |= ((i >> b) & 1) << (lg - 1 - b);
        if (r > i) {
            cplx t = a[i]; a[i] = a[r]; a[r] = t;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        int half = len / 2, stride = n / len;
        for (int s = 0; s < n; s += len)
            for (int k = 0; k < half; k++) {
                cplx tw = w[k * stride];
                if (sign > 0) tw = conj(tw);
                cplx x = a[s + k], y = tw * a[s + k + half];
                a[s + k] = x + y;
                a[s + k + half] = x - y;
            }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t0 = MPI_Wtime();

    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    int n = argc > 1 ? atoi(argv[1]) : 1024;
    int iters = argc > 2 ? atoi(argv[2]) : 26;
    if (n < 2 || (n & (n - 1)) || n % nprocs || iters < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: fft_transpose [N] [ITERS]; N a power of two divisible by P\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int b = n / nprocs;                     /* local rows, and block side */
    size_t nloc = (size_t)b * n;

    cplx *a = malloc(nloc * sizeof *a);
    cplx *a0 = malloc(nloc * sizeof *a0);
    cplx *sbuf = malloc(nloc * sizeof *sbuf);
    cplx *rbuf = malloc(nloc * sizeof *rbuf);
    cplx *w = malloc((size_t)(n / 2 > 0 ? n / 2 : 1) * sizeof *w);
    if (!a || !a0 || !sbuf || !rbuf || !w) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    make_twiddles(w, n);

    /* input: a few plane waves plus a deterministic pseudo-random part */
    unsigned long long seed = 12345ULL + (unsigned long long)rank * 7919ULL;
    for (int i = 0; i < b; i++) {
        int gi = rank * b + i;
        for (int j = 0; j < n; j++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            double noise = (double)(seed >> 11) / 9007199254740992.0 - 0.5;
            a[(size_t)i * n + j] = cos(2.0 * PI * 3 * gi / n) + sin(2.0 * PI * 5 * j / n) * I +
                                   0.1 * noise;
        }
    }
    for (size_t k = 0; k < nloc; k++)
        a0[k] = a[k];

    double scale = 1.0 / ((double)n * (double)n);
    for (int it = 0; it < iters; it++) {
        int sign = (it % 2 == 0) ? -1 : 1;

        for (int i = 0; i < b; i++)
            fft1d(&a[(size_t)i * n], n, w, sign);

        /* pack: block p holds columns p*b .. p*b+b-1 of the local rows */
        for (int p = 0; p < nprocs; p++)
            for (int i = 0; i < b; i++)
                for (int j = 0; j < b; j++)
                    sbuf[(size_t)p * b * b + (size_t)i * b + j] = a[(size_t)i * n + (size_t)p * b + j];
        MPI_Alltoall(sbuf, b * b, MPI_C_DOUBLE_COMPLEX, rbuf, b * b, MPI_C_DOUBLE_COMPLEX,
                     MPI_COMM_WORLD);
        /* unpack with a local transpose of every block */
        for (int p = 0; p < nprocs; p++)
            for (int i = 0; i < b; i++)
                for (int j = 0; j < b; j++)
                    a[(size_t)j * n + (size_t)p * b + i] = rbuf[(size_t)p * b * b + (size_t)i * b + j];

        for (int i = 0; i < b; i++)
            fft1d(&a[(size_t)i * n], n, w, sign);

        if (sign > 0)
            for (size_t k = 0; k < nloc; k++)
                a[k] *= scale;
    }

    /* after an even number of transforms the input must come back */
    if (iters % 2 == 0) {
        double err = 0.0, gerr;
        for (size_t k = 0; k < nloc; k++) {
            double e = cabs(a[k] - a0[k]);
            if (e > err) err = e;
        }
        MPI_Reduce(&err, &gerr, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0 && gerr > 1e-8)
            fprintf(stderr, "fft_transpose: round trip error %g\n", gerr);
    }

    double elapsed = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&elapsed, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("fft_transpose: ranks=%d iters=%d seconds=%.3f\n", nprocs, iters, tmax);

    free(a); free(a0); free(sbuf); free(rbuf); free(w);
    MPI_Finalize();
    return 0;
}
