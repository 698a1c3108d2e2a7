/* rng.h: the simulator's deterministic pseudo-random numbers (xoshiro256** seeded by splitmix64)
 * and the distributions the workload generator draws from. Same seed, same sequence, on every
 * platform with IEEE doubles. */
#ifndef DAGSCHED_SIM_RNG_H
#define DAGSCHED_SIM_RNG_H

#include <stdint.h>

typedef struct sim_rng {
    uint64_t s[4];
} sim_rng;

/* Seed from a 64-bit seed and a stream number (independent streams for jobs, arrivals...). */
void sim_rng_seed(sim_rng *r, uint64_t seed, uint64_t stream);
uint64_t sim_rng_next(sim_rng *r);
double sim_rng_uniform(sim_rng *r);                     /* [0, 1) */
double sim_rng_range(sim_rng *r, double lo, double hi); /* [lo, hi) */
uint64_t sim_rng_below(sim_rng *r, uint64_t n);         /* [0, n), n > 0 */
double sim_rng_normal(sim_rng *r);                      /* N(0, 1) */
double sim_rng_exponential(sim_rng *r, double rate);    /* mean 1 / rate */
double sim_rng_lognormal(sim_rng *r, double median, double sigma);

#endif
