// scripts/bench/fp64_peak.cpp — the cores' FP64 peak, measured: the roofline's roof for
// scripts/bench/bench_sweep_cpu.py. Each thread updates 64 independent doubles a ← a·m + c (one
// fused multiply-add each, two flops) in a loop the compiler vectorises: with -O3 -march=native
// and contraction allowed (-ffp-contract=fast), eight AVX-512 registers or sixteen AVX2 ones of
// independent chains, enough to keep both FMA pipes of a core busy through their latency. The
// values converge to c/(1 − m) and stay normal numbers.
//
// usage: fp64_peak SECONDS THREADS
// prints: {"threads": …, "seconds": …, "flops_per_s": …, "flops_per_s_per_thread": …}
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s SECONDS THREADS\n", argv[0]);
    return 2;
  }
  const double seconds = std::atof(argv[1]);
  const int threads = std::atoi(argv[2]);
  constexpr int kChains = 64;
  constexpr long kRound = 1 << 20;  // updates of each chain between clock reads
  double total_flops = 0.0, sink = 0.0;
  const auto t0 = std::chrono::steady_clock::now();
  double elapsed = 0.0;
#pragma omp parallel num_threads(threads) reduction(+ : total_flops, sink)
  {
    double a[kChains];
    for (int k = 0; k < kChains; ++k) a[k] = 1.0 + 1e-3 * k;
    const double m = 0.999999, c = 1e-6 * (1 + omp_get_thread_num());
    long rounds = 0;
    for (;;) {
      for (long it = 0; it < kRound; ++it)
#pragma omp simd
        for (int k = 0; k < kChains; ++k) a[k] = a[k] * m + c;
      ++rounds;
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (t >= seconds) break;
    }
    total_flops += 2.0 * kChains * static_cast<double>(kRound) * static_cast<double>(rounds);
    for (int k = 0; k < kChains; ++k) sink += a[k];
  }
  elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "{\"threads\": %d, \"seconds\": %.6g, \"flops_per_s\": %.6g, \"flops_per_s_per_thread\": %.6g, "
      "\"checksum\": %.6g}\n",
      threads, elapsed, total_flops / elapsed, total_flops / elapsed / threads, sink);
  return 0;
}
