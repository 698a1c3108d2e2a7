/* rng.c: xoshiro256** with splitmix64 seeding and the generator's distributions (see rng.h). */
#include "rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void sim_rng_seed(sim_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t sim_rng_next(sim_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double sim_rng_uniform(sim_rng *r)
{
    return (double)(sim_rng_next(r) >> 11) * 0x1.0p-53;
}

double sim_rng_range(sim_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * sim_rng_uniform(r);
}

uint64_t sim_rng_below(sim_rng *r, uint64_t n)
{
    if (n <= 1)
        return 0;
    /* Rejection sampling: no modulo bias. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = sim_rng_next(r);
    while (x >= limit);
    return x % n;
}

double sim_rng_normal(sim_rng *r)
{
    /* Box-Muller; one value per call keeps the stream position simple. */
    double u1 = sim_rng_uniform(r);
    double u2 = sim_rng_uniform(r);
    if (u1 < 1e-300)
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

double sim_rng_exponential(sim_rng *r, double rate)
{
    double u = sim_rng_uniform(r);
    return -log1p(-u) / rate;
}

double sim_rng_lognormal(sim_rng *r, double median, double sigma)
{
    return median * exp(sigma * sim_rng_normal(r));
}
