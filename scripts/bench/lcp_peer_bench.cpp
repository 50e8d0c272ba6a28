// scripts/bench/lcp_peer_bench.cpp — fivsim's Lemke against Siconos' Lemke on the same 10^5 small
// LCPs (n = 2, 4, 6: one-step friction LCPs of 1-, 2- and 3-slider chains, seed 000 Eq. 28),
// both timed in this process. Siconos is called through linearComplementarity_driver (its raw
// Lemke can report success on a ray, docs/DESIGN.md §9). Prints rates, their ratio and the largest
// natural-map residual of each side. Set OPENBLAS_NUM_THREADS=1 so that Siconos runs on one core
// like fivsim.
//
//   fivsim_bench_lcp [--dump FILE] [--json FILE]
// --dump writes the problem set (float64 records n, A row-major, b) for the Python peer
// (scripts/bench/bench_lcp_siconos.py); --json writes the measured rates.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fivsim/integrate/moreau.hpp"
#include "fivsim/model/presets.hpp"

#ifdef FIVSIM_WITH_SICONOS
#include <LinearComplementarityProblem.h>
#include <NonSmoothDrivers.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <lcp_cst.h>
#endif

namespace {

using namespace fivsim;
using Clock = std::chrono::steady_clock;
constexpr int kPasses = 5;  // each side's time is the fastest of these passes over the whole set

struct Problem {
  int n;
  std::vector<double> A;  // row-major
  std::vector<double> b;
};

// the LCPs met while stepping an n-slider chain (Fn = 15 N, Stribeck friction) through
// stick-slip, one per step
std::vector<Problem> chain_problems(int sliders, int count) {
  SliderChainParams p;
  p.m = p.k = std::vector<double>(sliders, 1.0);
  p.c = std::vector<double>(sliders, 0.0);
  p.Fn = std::vector<double>(sliders, 15.0);
  p.v0 = 0.5;
  p.law.kind = FrictionLawKind::stribeck_rational;
  p.law.p[0] = 0.1;
  p.law.p[1] = 1.0;
  using D = Dims<double, 3, 3>;
  auto m = std::make_unique<Model<D>>();
  make_model(make_slider_chain(p), *m);
  State<D> s{};
  s.q.resize(sliders, 0.5);
  s.u.resize(sliders, 0.0);
  MoreauWorkspace<D> ws;
  std::vector<Problem> out;
  for (int k = 0; k < count; ++k) {
    moreau_step(*m, s, 1e-3, StepOptions{}, ws);
    Problem pr;
    pr.n = ws.lcp.A.rows;
    for (int i = 0; i < pr.n; ++i) {
      pr.b.push_back(ws.lcp.b[i]);
      for (int j = 0; j < pr.n; ++j) pr.A.push_back(ws.lcp.A(i, j));
    }
    out.push_back(std::move(pr));
  }
  return out;
}

double natural_residual(const Problem& p, const double* x) {
  double r = 0.0;
  for (int i = 0; i < p.n; ++i) {
    double y = p.b[i];
    for (int j = 0; j < p.n; ++j) y += p.A[i * p.n + j] * x[j];
    r = std::max(r, std::abs(std::min(x[i], y)));
  }
  return r;
}

struct Side {
  double seconds = 0.0;
  double max_residual = 0.0;
  int failures = 0;
};

// cold: every LCP from scratch; warm: each LCP first tries the previous one's active set, as
// the Moreau stepper does between consecutive steps (integrate/moreau.hpp). Cap is the storage
// capacity: the problem size itself, so that fivsim reads as little memory as Siconos does.
template <int kCap>
Side run_fivsim(const std::vector<Problem>& problems, bool warm) {
  std::vector<LcpMatrix<double, kCap>> A(problems.size());
  std::vector<LcpVector<double, kCap>> b(problems.size());
  for (std::size_t k = 0; k < problems.size(); ++k) {
    const auto& p = problems[k];
    A[k].resize(p.n, p.n);
    b[k].resize(p.n);
    for (int i = 0; i < p.n; ++i) {
      b[k][i] = p.b[i];
      for (int j = 0; j < p.n; ++j) A[k](i, j) = p.A[i * p.n + j];
    }
  }
  std::vector<LcpVector<double, kCap>> x(problems.size());
  std::vector<int> status(problems.size());
  Side s;
  s.seconds = 1e300;
  for (int pass = 0; pass < kPasses; ++pass) {
    LcpOptions opt;
    const auto t0 = Clock::now();
    for (std::size_t k = 0; k < problems.size(); ++k) {
      LcpVector<double, kCap> y;
      const LcpResult r = lemke_solve(A[k], b[k], x[k], y, opt);
      status[k] = static_cast<int>(r.status);
      opt.use_basis_hint = warm;
      opt.basis_hint = r.basis;
    }
    s.seconds = std::min(s.seconds, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  for (std::size_t k = 0; k < problems.size(); ++k) {
    s.failures += status[k] != 0;
    s.max_residual = std::max(s.max_residual, natural_residual(problems[k], x[k].v));
  }
  return s;
}

#ifdef FIVSIM_WITH_SICONOS
Side run_siconos(const std::vector<Problem>& problems) {
  // column-major copies and problem structs are made before the clock starts
  std::vector<std::vector<double>> cm(problems.size()), q(problems.size());
  std::vector<LinearComplementarityProblem> lcp(problems.size());
  for (std::size_t k = 0; k < problems.size(); ++k) {
    const auto& p = problems[k];
    cm[k].resize(p.n * p.n);
    for (int i = 0; i < p.n; ++i)
      for (int j = 0; j < p.n; ++j) cm[k][j * p.n + i] = p.A[i * p.n + j];
    q[k] = p.b;
    lcp[k].size = p.n;
    lcp[k].M = NM_create_from_data(NM_DENSE, p.n, p.n, cm[k].data());
    lcp[k].q = q[k].data();
  }
  SolverOptions* options = solver_options_create(SICONOS_LCP_LEMKE);
  std::vector<std::vector<double>> z(problems.size(), std::vector<double>(6)), w = z;
  std::vector<int> info(problems.size());
  Side s;
  s.seconds = 1e300;
  for (int pass = 0; pass < kPasses; ++pass) {
    const auto t0 = Clock::now();
    for (std::size_t k = 0; k < problems.size(); ++k)
      info[k] = linearComplementarity_driver(&lcp[k], z[k].data(), w[k].data(), options);
    s.seconds = std::min(s.seconds, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  for (std::size_t k = 0; k < problems.size(); ++k) {
    s.failures += info[k] != 0;
    s.max_residual = std::max(s.max_residual, natural_residual(problems[k], z[k].data()));
    lcp[k].M->matrix0 = nullptr;  // the data belongs to cm
    NM_clear(lcp[k].M);
    free(lcp[k].M);
  }
  solver_options_delete(options);
  return s;
}
#endif

// one record per problem, all float64: n, the n×n entries of A row by row, the n entries of b
void dump_problems(std::ofstream& out, const std::vector<Problem>& problems) {
  for (const auto& p : problems) {
    const double n = p.n;
    out.write(reinterpret_cast<const char*>(&n), sizeof n);
    out.write(reinterpret_cast<const char*>(p.A.data()), static_cast<std::streamsize>(p.A.size() * sizeof(double)));
    out.write(reinterpret_cast<const char*>(p.b.data()), static_cast<std::streamsize>(p.b.size() * sizeof(double)));
  }
}

bool is_trivial(const Problem& p) {
  for (double v : p.b)
    if (v < 0) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dump_path, json_path;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--dump") && has_value) {
      dump_path = argv[++i];
    } else if (!std::strcmp(argv[i], "--json") && has_value) {
      json_path = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--dump FILE] [--json FILE]\n", argv[0]);
      return 2;
    }
  }
  std::ofstream dump;
  if (!dump_path.empty()) dump.open(dump_path, std::ios::binary);
  nlohmann::json report = {{"sizes", nlohmann::json::array()}};

  const int per_size = 33334;
  std::printf("LCP peer benchmark: %d one-step friction LCPs per size from slider chains (seed 000 Eq. 28)\n",
              per_size);
  std::printf("rates in LCP/s, each the best of %d passes; 'b>=0' counts the problems whose answer is x = 0\n",
              kPasses);
  std::printf("%3s %7s %7s | %12s %12s %9s | %12s %9s | %9s %9s\n", "n", "count", "b>=0", "fivsim cold", "fivsim warm",
              "max resid", "Siconos", "max resid", "cold/Sic", "warm/Sic");
  double total_cold = 0, total_warm = 0, total_sic = 0;
  long total = 0;
  for (int sliders = 1; sliders <= 3; ++sliders) {
    const auto problems = chain_problems(sliders, per_size);
    if (dump.is_open()) dump_problems(dump, problems);
    long trivial = 0;
    for (const auto& p : problems) trivial += is_trivial(p);
    const auto run = sliders == 1 ? run_fivsim<2> : sliders == 2 ? run_fivsim<4> : run_fivsim<6>;
    const Side cold = run(problems, false);
    const Side warm = run(problems, true);
    const double count = static_cast<double>(problems.size());
    total_cold += cold.seconds;
    total_warm += warm.seconds;
    total += static_cast<long>(problems.size());
    if (cold.failures + warm.failures > 0)
      std::printf("fivsim failures: cold %d, warm %d\n", cold.failures, warm.failures);
    double sic_rate = 0.0, sic_residual = 0.0;
#ifdef FIVSIM_WITH_SICONOS
    const Side sic = run_siconos(problems);
    total_sic += sic.seconds;
    sic_rate = count / sic.seconds;
    sic_residual = sic.max_residual;
    if (sic.failures > 0) std::printf("Siconos failures: %d\n", sic.failures);
    std::printf("%3d %7zu %7ld | %12.4g %12.4g %9.2g | %12.4g %9.2g | %8.1fx %8.1fx\n", 2 * sliders, problems.size(),
                trivial, count / cold.seconds, count / warm.seconds, std::max(cold.max_residual, warm.max_residual),
                sic_rate, sic_residual, sic.seconds / cold.seconds, sic.seconds / warm.seconds);
#else
    std::printf("%3d %7zu %7ld | %12.4g %12.4g %9.2g | %12s %9s |\n", 2 * sliders, problems.size(), trivial,
                count / cold.seconds, count / warm.seconds, std::max(cold.max_residual, warm.max_residual), "n/a", "");
#endif
    report["sizes"].push_back({{"n", 2 * sliders},
                               {"count", problems.size()},
                               {"trivial", trivial},
                               {"fivsim_cold_per_s", count / cold.seconds},
                               {"fivsim_warm_per_s", count / warm.seconds},
                               {"fivsim_max_residual", std::max(cold.max_residual, warm.max_residual)},
                               {"siconos_c_per_s", sic_rate},
                               {"siconos_c_max_residual", sic_residual}});
  }
  std::printf("all %ld LCPs (LCP/s): fivsim cold %.4g, fivsim warm %.4g", total, total / total_cold,
              total / total_warm);
  if (total_sic > 0)
    std::printf(", Siconos %.4g; ratio cold %.1fx, warm %.1fx\n", total / total_sic, total_sic / total_cold,
                total_sic / total_warm);
  else
    std::printf(" (built without Siconos: no peer)\n");
  if (!json_path.empty()) {
    report["total"] = total;
    report["fivsim_cold_per_s"] = total / total_cold;
    report["fivsim_warm_per_s"] = total / total_warm;
    report["siconos_c_per_s"] = total_sic > 0 ? total / total_sic : 0.0;
    std::ofstream(json_path) << report.dump(2) << "\n";
  }
  return 0;
}
