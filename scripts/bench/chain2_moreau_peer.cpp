// scripts/bench/chain2_moreau_peer.cpp — the CPU peer of fivsim's sweep benchmark: a hand-written,
// specialised scalar Moreau loop of seed 001's 2-DoF chain, as a researcher would write it in
// C++ for one model and compile with -O3 -march=native (g++'s defaults then fuse multiply-adds).
// No fivsim code: the model is written out (m = k = 1, no damping, belt speed v0, Stribeck law
// mu = mu_d + (mu_s - mu_d) exp(-alpha |v|); compiled with -DPEER_RATIONAL the rational law
// mu = mu_s / (1 + delta |v|), mu_s 0.2, delta 3, belt speed 0.5; with -DPEER_TANH the smooth law
// mu = mu_0 tanh(eps |v|), mu_0 0.1, eps 20, belt speed 0.8; with -DPEER_ASYMMETRIC seed 002's
// asymmetric law, its two directions' values bounding the impulse; with -DPEER_STRIBECK seed 002's
// general Stribeck law, mu_s 0.12, mu_c 0.045, v_s 0.1, alpha 1.5, mu_v 0.01, belt speed 0.8),
// each case one loop over its steps, the cases spread over OpenMP threads. Each case draws Fn, q0[0], q0[1] as
// scenarios/chain2_bench_random.json does (uniform in [1, 30], [0, 1], [0, 1] from splitmix64 counters, seed 1), runs
// `steps` steps of dt and keeps the RMS of q0, q1, u0, u1, lamT0, lamT1 over the steps after t_transient (lamN is the
// constant Fn) — what fivsim's lean observers keep.
//
// usage: fivsim_bench_chain2_peer CASES STEPS DT T_TRANSIENT THREADS [RMS_CSV]
// prints: cases, steps, threads, seconds, case-steps/s, and the mean of each RMS; RMS_CSV gets
// every case's RMS (case,rms_q0,rms_q1,rms_u0,rms_u1,rms_lamT0,rms_lamT1) for a check against
// fivsim's cases.csv.
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

uint64_t mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
double draw(uint64_t seed, uint64_t index, uint64_t parameter) {
  return static_cast<double>(mix(mix(seed ^ mix(index)) + parameter) >> 11) * (1.0 / 9007199254740992.0);
}

struct Rms {
  double v[6];
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    std::fprintf(stderr, "usage: %s CASES STEPS DT T_TRANSIENT THREADS [RMS_CSV]\n", argv[0]);
    return 2;
  }
  const long cases = std::atol(argv[1]), steps = std::atol(argv[2]);
  const double dt = std::atof(argv[3]), t_transient = std::atof(argv[4]);
  const int threads = std::atoi(argv[5]);
  // the chain: K = [[k1 + k2, -k2], [-k2, k2]] with k1 = k2 = 1, M = I
  const double K00 = 2.0, K01 = -1.0, K10 = -1.0, K11 = 1.0;
#if defined(PEER_RATIONAL)
  const double v0 = 0.5, mu_s = 0.2, delta = 3.0;
  const auto mu = [&](double v) { return mu_s / (1.0 + delta * std::fabs(v - v0)); };
#elif defined(PEER_TANH)
  const double v0 = 0.8, mu_0 = 0.1, eps = 20.0;
  const auto mu = [&](double v) { return mu_0 * std::tanh(eps * std::fabs(v - v0)); };
#elif defined(PEER_ASYMMETRIC)
  // seed 002's identified law: its forward and backward values at |v − v0| bound the two directions
  const double v0 = 0.8, ts_l = 0.2328, ts_r = 0.0928, t0_l = 0.2188, t0_r = 0.0917, a = 92.6465, beta = 0.0928;
  const auto law = [&](double s, double ts, double t0) {
    return ts / (1.0 + t0 * s) * (1.0 + beta / std::cosh(a * s)) * std::tanh(a * s);
  };
  const auto mu = [&](double v) { return law(std::fabs(v - v0), ts_l, t0_l); };
  const auto mu_minus = [&](double v) { return law(std::fabs(v - v0), ts_r, t0_r); };
#elif defined(PEER_STRIBECK)
  // seed 002's general Stribeck law, glibc's pow and exp
  const double v0 = 0.8, mu_s = 0.12, mu_c = 0.045, v_s = 0.1, alpha = 1.5, mu_v = 0.01;
  const auto mu = [&](double v) {
    const double s = std::fabs(v - v0);
    return mu_c + (mu_s - mu_c) * std::exp(-std::pow(s / v_s, alpha)) + mu_v * s;
  };
#else
  const double v0 = 0.8, mu_s = 0.12, mu_d = 0.045, alpha = 6.0;
  const auto mu = [&](double v) { return mu_d + (mu_s - mu_d) * std::exp(-alpha * std::fabs(v - v0)); };
#endif
  // the first step whose end time is in the statistics window
  long first_kept = 1;
  while (first_kept <= steps && static_cast<double>(first_kept) * dt < t_transient) ++first_kept;
  const double kept = static_cast<double>(steps - first_kept + 1);
  std::vector<Rms> rms(static_cast<std::size_t>(cases));

  const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
  for (long c = 0; c < cases; ++c) {
    const double Fn = 1.0 + draw(1, static_cast<uint64_t>(c), 0) * 29.0;
    double q0 = draw(1, static_cast<uint64_t>(c), 1), q1 = draw(1, static_cast<uint64_t>(c), 2), u0 = 0.0, u1 = 0.0;
    const double pn = Fn * dt;
    double s[6] = {0, 0, 0, 0, 0, 0};
    for (long k = 1; k <= steps; ++k) {
      const double h0 = -(K00 * q0 + K01 * q1), h1 = -(K10 * q0 + K11 * q1);
      const double uf0 = u0 + dt * h0, uf1 = u1 + dt * h1;
      // the friction bound at the start-of-step slip velocity
      const double b0 = mu(u0) * pn;
      const double b1 = mu(u1) * pn;
#if defined(PEER_ASYMMETRIC)
      const double c0 = mu_minus(u0) * pn, c1 = mu_minus(u1) * pn;
#else
      const double c0 = b0, c1 = b1;
#endif
      // the decoupled friction LCP's solution: stick if the bounds allow, else slide at a bound
      const double p0 = std::fmin(std::fmax(-(uf0 - v0), -b0), c0);
      const double p1 = std::fmin(std::fmax(-(uf1 - v0), -b1), c1);
      u0 = uf0 + p0;
      u1 = uf1 + p1;
      q0 += dt * u0;
      q1 += dt * u1;
      if (k >= first_kept) {
        const double l0 = p0 / dt, l1 = p1 / dt;
        s[0] += q0 * q0;
        s[1] += q1 * q1;
        s[2] += u0 * u0;
        s[3] += u1 * u1;
        s[4] += l0 * l0;
        s[5] += l1 * l1;
      }
    }
    for (int i = 0; i < 6; ++i) rms[static_cast<std::size_t>(c)].v[i] = std::sqrt(s[i] / kept);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  double mean[6] = {0, 0, 0, 0, 0, 0};
  for (const Rms& r : rms)
    for (int i = 0; i < 6; ++i) mean[i] += r.v[i] / static_cast<double>(cases);
  std::printf(
      "{\"cases\": %ld, \"steps\": %ld, \"threads\": %d, \"seconds\": %.6g, \"case_steps_per_s\": %.6g, "
      "\"mean_rms\": [%.17g, %.17g, %.17g, %.17g, %.17g, %.17g]}\n",
      cases, steps, threads, seconds, static_cast<double>(cases) * static_cast<double>(steps) / seconds, mean[0],
      mean[1], mean[2], mean[3], mean[4], mean[5]);
  if (argc > 6) {
    std::FILE* f = std::fopen(argv[6], "w");
    if (!f) return 1;
    std::fprintf(f, "case,rms_q0,rms_q1,rms_u0,rms_u1,rms_lamT0,rms_lamT1\n");
    for (long c = 0; c < cases; ++c) {
      const Rms& r = rms[static_cast<std::size_t>(c)];
      std::fprintf(f, "%ld,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", c, r.v[0], r.v[1], r.v[2], r.v[3], r.v[4], r.v[5]);
    }
    std::fclose(f);
  }
  return 0;
}
