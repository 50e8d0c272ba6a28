// tests/cases/prepared_sweep.hpp — a scenario file's sweep prepared as `fivsim sweep` prepares one
// chunk of it (plan, shared setup, the chunk's cases, observers, step options), and two runs' results
// compared bit for bit, for the tests that run the CPU backend's runners on it and compare them.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "fivsim/sweep/sweep.hpp"

namespace fivsim::sweep {

inline json scenario_file(const std::string& file) { return load_json_file(FIVSIM_SOURCE_DIR "/scenarios/" + file); }

// every case of the sweep in one chunk, in instantiation D (single: the float step options)
template <class D>
struct PreparedSweep {
  Scenario base;
  SweepSpec spec;
  std::unique_ptr<SweepPlan> plan;
  std::unique_ptr<SweepShared<D>> shared;
  PreparedCases<D> cases;
  SweepAnalysis an;
  StepOptions opt;
  PreparedSweep(const json& doc, bool single) {
    base = parse_scenario(doc);
    spec = parse_sweep(doc);
    plan = std::make_unique<SweepPlan>(base, spec);
    an = sweep_analysis(base);
    opt = sweep_step_options(base, single);
    shared = std::make_unique<SweepShared<D>>(*plan, opt.stick_tol);
    prepare_cases(*plan, *shared, 0, spec.n_cases(), cases);
  }
};

inline bool same_bits(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

// case c's results of two runs, equal bit for bit: every series of the model's nq DoF and nc
// contacts, every count, the class and its evidence
template <class D>
void expect_same_case_bits(const CaseResult<D>& a, const CaseResult<D>& b, long c, int nq, int nc) {
  EXPECT_EQ(a.status, b.status) << "case " << c;
  EXPECT_EQ(a.steps, b.steps) << "case " << c;
  EXPECT_TRUE(same_bits(a.failed_at, b.failed_at)) << "case " << c;
  for (int s = 0; s < 2 * nq + 2 * nc; ++s) {
    const RunningStats &x = a.series[s], &y = b.series[s];
    EXPECT_TRUE(same_bits(x.sum_sq, y.sum_sq) && same_bits(x.min, y.min) && same_bits(x.max, y.max) &&
                x.count == y.count)
        << "case " << c << " series " << s << ": " << x.rms() << " " << y.rms() << " " << x.min << " " << y.min;
  }
  for (int s = 0; s < 2 * nq; ++s) EXPECT_TRUE(same_bits(a.max_step_change[s], b.max_step_change[s])) << "case " << c;
  for (int k = 0; k < 4; ++k) EXPECT_EQ(a.in_state[k], b.in_state[k]) << "case " << c;
  EXPECT_EQ(a.transitions, b.transitions) << "case " << c;
  EXPECT_EQ(a.section_hits, b.section_hits) << "case " << c;
  EXPECT_EQ(a.points_seen[0], b.points_seen[0]) << "case " << c;
  EXPECT_EQ(a.points_seen[1], b.points_seen[1]) << "case " << c;
  EXPECT_TRUE(same_bits(a.max_lcp_residual, b.max_lcp_residual)) << "case " << c;
  EXPECT_TRUE(same_bits(a.lyapunov, b.lyapunov)) << "case " << c;
  EXPECT_TRUE(same_bits(a.lyapunov_time, b.lyapunov_time)) << "case " << c;
  EXPECT_EQ(a.klass, b.klass) << "case " << c;
  EXPECT_EQ(a.period_n, b.period_n) << "case " << c;
  EXPECT_TRUE(same_bits(a.period_s, b.period_s)) << "case " << c;
  EXPECT_TRUE(same_bits(a.recurrence, b.recurrence)) << "case " << c;
}

}  // namespace fivsim::sweep
