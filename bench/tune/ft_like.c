/* ft_like.c: an FT-like MPI program for the tuning library's benchmarks
 * (bench/tune_bench.sh; docs/tune.md, Benchmarks). A 3-D complex FFT of an NX
 * x NY x NZ grid split in z-slabs, as NPB FT does it: 1-D radix-2 FFTs along
 * x and y on the local planes, one MPI_Alltoall transpose to y-slabs, FFTs
 * along z. One forward transform, then ITER times: evolve in spectral space,
 * inverse transform (one transpose), checksum: ITER + 1 alltoalls, all from
 * one call site with NX NY NZ / P^2 complex numbers (16 B each) per peer.
 *
 *   ft_like [NX [NY [NZ [ITER [CHECK]]]]]    (defaults 64 64 64 20 0)
 *
 * NX, NY, NZ powers of two, P dividing NY and NZ. CHECK=1 adds a forward
 * and inverse transform of the initial data and says on stderr how far the
 * result is from it (two more alltoalls). Rank 0 prints one line: sizes,
 * alltoalls, bytes per peer, the slowest rank's elapsed time from after
 * MPI_Init to the end, its time inside MPI_Alltoall, and a checksum that is
 * the same under every algorithm (the same bytes move). */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <complex.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef double complex cplx;

static const double PI = 3.14159265358979323846;

static int nx, ny, nz, nproc, me, lz, ly; /* lz, ly: local planes */
static double a2a_seconds;                /* this rank's time in MPI_Alltoall */
static long a2a_calls;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int is_pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }

/* twiddles for one length: w[k] = exp(-2 pi i k / n), k < n/2 */
typedef struct {
    int n;
    cplx *w;
} twiddles;

static twiddles tw_make(int n)
{
    twiddles t = {n, malloc(sizeof(cplx) * (size_t)(n / 2 + 1))};
    if (!t.w) {
        fprintf(stderr, "ft_like: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int k = 0; k < n / 2; k++)
        t.w[k] = cexp(-2.0 * PI * I * (double)k / (double)n);
    return t;
}

/* in-place iterative radix-2 FFT of a contiguous vector; sign -1 forward,
 * +1 inverse (unnormalised: the caller scales) */
static void fft1(cplx *a, const twiddles *t, int sign)
{
    int n = t->n;
    for (int i = 1, j = 0; i < n; i++) { /* bit reversal */
        int bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j |= bit;
        if (i < j) {
            cplx x = a[i];
            a[i] = a[j];
            a[j] = x;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        int step = n / len;
        for (int s = 0; s < n; s += len)
            for (int k = 0; k < len / 2; k++) {
                cplx w = t->w[k * step];
                if (sign > 0)
                    w = conj(w);
                cplx u = a[s + k], v = a[s + k + len / 2] * w;
                a[s + k] = u + v;
                a[s + k + len / 2] = u - v;
            }
    }
}

/* FFT of count vectors of length t->n, element i of vector v at
 * base[v * vstride + i * stride]; strided ones go through tmp */
static void fft_many(cplx *base, int count, long vstride, long stride, const twiddles *t, int sign, cplx *tmp)
{
    for (int v = 0; v < count; v++) {
        cplx *p = base + (long)v * vstride;
        if (stride == 1) {
            fft1(p, t, sign);
            continue;
        }
        for (int i = 0; i < t->n; i++)
            tmp[i] = p[(long)i * stride];
        fft1(tmp, t, sign);
        for (int i = 0; i < t->n; i++)
            p[(long)i * stride] = tmp[i];
    }
}

static void alltoall(const cplx *s, cplx *r, int n)
{
    double t0 = now();
    MPI_Alltoall(s, 2 * n, MPI_DOUBLE, r, 2 * n, MPI_DOUBLE, MPI_COMM_WORLD);
    a2a_seconds += now() - t0;
    a2a_calls++;
}

/* Layouts: u, z-slabs, u[zl][y][x]; v, y-slabs, v[yl][x][z] (z contiguous).
 * A block to or from one peer holds lz x ly x nx numbers. */

/* u (z-slabs, x and y already transformed) -> v (y-slabs), through s and r */
static void transpose_zy(const cplx *u, cplx *v, cplx *s, cplx *r)
{
    long blk = (long)lz * ly * nx;
    for (int d = 0; d < nproc; d++) /* peer d gets y in [d ly, d ly + ly) */
        for (int zl = 0; zl < lz; zl++)
            for (int yl = 0; yl < ly; yl++)
                memcpy(s + d * blk + ((long)zl * ly + yl) * nx, u + ((long)zl * ny + d * ly + yl) * nx,
                       sizeof(cplx) * (size_t)nx);
    alltoall(s, r, (int)blk);
    for (int src = 0; src < nproc; src++) /* from src: z in [src lz, src lz + lz) */
        for (int zl = 0; zl < lz; zl++)
            for (int yl = 0; yl < ly; yl++) {
                const cplx *q = r + src * blk + ((long)zl * ly + yl) * nx;
                cplx *p = v + (long)yl * nx * nz + src * lz + zl;
                for (int x = 0; x < nx; x++)
                    p[(long)x * nz] = q[x];
            }
}

/* v (y-slabs) -> u (z-slabs), the inverse of transpose_zy */
static void transpose_yz(const cplx *v, cplx *u, cplx *s, cplx *r)
{
    long blk = (long)lz * ly * nx;
    for (int d = 0; d < nproc; d++) /* peer d gets z in [d lz, d lz + lz) */
        for (int zl = 0; zl < lz; zl++)
            for (int yl = 0; yl < ly; yl++) {
                cplx *q = s + d * blk + ((long)zl * ly + yl) * nx;
                const cplx *p = v + (long)yl * nx * nz + d * lz + zl;
                for (int x = 0; x < nx; x++)
                    q[x] = p[(long)x * nz];
            }
    alltoall(s, r, (int)blk);
    for (int src = 0; src < nproc; src++) /* from src: y in [src ly, src ly + ly) */
        for (int zl = 0; zl < lz; zl++)
            for (int yl = 0; yl < ly; yl++)
                memcpy(u + ((long)zl * ny + src * ly + yl) * nx, r + src * blk + ((long)zl * ly + yl) * nx,
                       sizeof(cplx) * (size_t)nx);
}

typedef struct {
    twiddles tx, ty, tz;
    cplx *s, *r, *tmp;
} plan;

/* u (z-slabs) -> v (y-slabs), forward */
static void forward(plan *p, cplx *u, cplx *v)
{
    for (int zl = 0; zl < lz; zl++) {
        cplx *pl = u + (long)zl * ny * nx;
        fft_many(pl, ny, nx, 1, &p->tx, -1, p->tmp); /* along x */
        fft_many(pl, nx, 1, nx, &p->ty, -1, p->tmp); /* along y */
    }
    transpose_zy(u, v, p->s, p->r);
    fft_many(v, ly * nx, nz, 1, &p->tz, -1, p->tmp); /* along z */
}

/* v (y-slabs) -> u (z-slabs), inverse, normalised; v is overwritten */
static void inverse(plan *p, cplx *v, cplx *u)
{
    fft_many(v, ly * nx, nz, 1, &p->tz, 1, p->tmp);
    transpose_yz(v, u, p->s, p->r);
    double scale = 1.0 / ((double)nx * ny * nz);
    for (int zl = 0; zl < lz; zl++) {
        cplx *pl = u + (long)zl * ny * nx;
        fft_many(pl, nx, 1, nx, &p->ty, 1, p->tmp);
        fft_many(pl, ny, nx, 1, &p->tx, 1, p->tmp);
        for (long i = 0; i < (long)ny * nx; i++)
            pl[i] *= scale;
    }
}

/* the initial field: a hash of the global index, so every P gives the same */
static void init_field(cplx *u)
{
    for (int zl = 0; zl < lz; zl++)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++) {
                unsigned long long h = ((unsigned long long)(me * lz + zl) * ny + y) * nx + x;
                h = (h + 0x9e3779b97f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL;
                h ^= h >> 31;
                h *= 0x94d049bb133111ebULL;
                h ^= h >> 29;
                u[((long)zl * ny + y) * nx + x] =
                    (double)(h & 0xffff) / 65536.0 - 0.5 + I * ((double)((h >> 16) & 0xffff) / 65536.0 - 0.5);
            }
}

/* signed wave number of index i of n */
static int wave(int i, int n) { return i < n / 2 ? i : i - n; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    nx = argc > 1 ? atoi(argv[1]) : 64;
    ny = argc > 2 ? atoi(argv[2]) : 64;
    nz = argc > 3 ? atoi(argv[3]) : 64;
    int iter = argc > 4 ? atoi(argv[4]) : 20;
    int check = argc > 5 ? atoi(argv[5]) : 0;
    if (!is_pow2(nx) || !is_pow2(ny) || !is_pow2(nz) || ny % nproc || nz % nproc || iter < 0 ||
        (double)nx * ny * nz / nproc / nproc * 16 > 2147483647.0 / 2) {
        if (me == 0)
            fprintf(stderr, "usage: ft_like [NX [NY [NZ [ITER [CHECK]]]]]: powers of two, the %d ranks dividing "
                            "NY and NZ, under 1 GiB per peer\n",
                    nproc);
        MPI_Finalize();
        return 2;
    }
    lz = nz / nproc;
    ly = ny / nproc;
    long local = (long)lz * ny * nx; /* = ly * nx * nz */
    plan p = {tw_make(nx), tw_make(ny), tw_make(nz), NULL, NULL, NULL};
    cplx *u = malloc(sizeof(cplx) * (size_t)local), *v = malloc(sizeof(cplx) * (size_t)local),
         *w = malloc(sizeof(cplx) * (size_t)local), *u0 = check ? malloc(sizeof(cplx) * (size_t)local) : NULL;
    int big = nx > ny ? nx : ny;
    big = big > nz ? big : nz;
    p.s = malloc(sizeof(cplx) * (size_t)local);
    p.r = malloc(sizeof(cplx) * (size_t)local);
    p.tmp = malloc(sizeof(cplx) * (size_t)big);
    if (!u || !v || !w || !p.s || !p.r || !p.tmp || (check && !u0)) {
        fprintf(stderr, "ft_like: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    init_field(u);
    if (check) { /* forward and back: the transforms and transposes are right */
        memcpy(u0, u, sizeof(cplx) * (size_t)local);
        forward(&p, u, v);
        inverse(&p, v, u);
        double err = 0, gerr;
        for (long i = 0; i < local; i++)
            err = fmax(err, cabs(u[i] - u0[i]));
        MPI_Reduce(&err, &gerr, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (me == 0)
            fprintf(stderr, "ft_like: check: forward + inverse differs from the input by %.3g at most (%s)\n",
                    gerr, gerr < 1e-9 ? "ok" : "WRONG");
        memcpy(u, u0, sizeof(cplx) * (size_t)local);
    }
    forward(&p, u, v);

    /* evolve as NPB FT: exp(-4 alpha pi^2 |k|^2 t), alpha 1e-6 */
    double sum_re = 0, sum_im = 0;
    for (int it = 1; it <= iter; it++) {
        double f = -4.0 * 1e-6 * PI * PI * it;
        for (int yl = 0; yl < ly; yl++) {
            int ky = wave(me * ly + yl, ny);
            for (int x = 0; x < nx; x++) {
                int kx = wave(x, nx);
                long base = ((long)yl * nx + x) * nz;
                for (int z = 0; z < nz; z++) {
                    int kz = wave(z, nz);
                    w[base + z] = v[base + z] * exp(f * (double)(kx * kx + ky * ky + kz * kz));
                }
            }
        }
        inverse(&p, w, u);
        /* NPB-like checksum: 1024 scattered points of the global grid */
        double c[2] = {0, 0}, g[2];
        for (int j = 1; j <= 1024; j++) {
            int x = (5 * j) % nx, y = (3 * j) % ny, z = j % nz;
            if (z / lz == me) {
                cplx e = u[((long)(z % lz) * ny + y) * nx + x];
                c[0] += creal(e);
                c[1] += cimag(e);
            }
        }
        MPI_Allreduce(c, g, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        sum_re += g[0];
        sum_im += g[1];
    }
    double el = now() - t0, mx[2], mine[2] = {el, a2a_seconds};
    MPI_Reduce(mine, mx, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("ft_like: ranks %d grid %dx%dx%d iterations %d alltoalls %ld bytes_per_peer %ld elapsed %.6f s "
               "alltoall %.6f s checksum %.12e %.12e\n",
               nproc, nx, ny, nz, iter, a2a_calls, (long)lz * ly * nx * 16, mx[0], mx[1], sum_re, sum_im);
    free(u);
    free(v);
    free(w);
    free(u0);
    free(p.s);
    free(p.r);
    free(p.tmp);
    free(p.tx.w);
    free(p.ty.w);
    free(p.tz.w);
    MPI_Finalize();
    return 0;
}
