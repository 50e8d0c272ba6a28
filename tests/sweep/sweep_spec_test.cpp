// tests/sweep/sweep_spec_test.cpp — sweep blocks: grid, zip, random and grid-with-draws expansion
// against hand-listed cases, the reproducibility of random draws, and the pointer named by each kind of bad block.
#include "fivsim/sweep/sweep_spec.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace fivsim {
namespace {

json base_with(const json& sweep) {
  json doc = {{"name", "s"},
              {"model", {{"type", "slider_belt"}, {"m", 1.0}, {"k", 1.0}, {"v0", 0.5}, {"Fn", 10.0}}},
              {"initial", {{"q", {0.0}}, {"u", {0.0}}}}};
  doc["sweep"] = sweep;
  return doc;
}

std::string error_of(const json& sweep) {
  try {
    parse_sweep(base_with(sweep));
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(SweepSpec, GridIsCartesianWithTheLastParameterFastest) {
  const SweepSpec s = parse_sweep(base_with(
      {{"mode", "grid"},
       {"parameters",
        {{{"path", "/model/Fn"}, {"values", {1, 2}}}, {{"path", "/model/v0"}, {"linspace", {0.1, 0.3, 3}}}}}}));
  ASSERT_EQ(s.n_cases(), 6);
  const double expected[6][2] = {{1, 0.1}, {1, 0.2}, {1, 0.3}, {2, 0.1}, {2, 0.2}, {2, 0.3}};
  std::vector<double> v;
  for (long i = 0; i < 6; ++i) {
    s.case_values(i, v);
    EXPECT_EQ(v[0], expected[i][0]) << i;
    EXPECT_NEAR(v[1], expected[i][1], 1e-15) << i;
  }
  s.case_values(5, v);
  EXPECT_EQ(v[1], 0.3);  // end points exactly as written
}

TEST(SweepSpec, LogspaceHitsPowersOfTen) {
  const SweepSpec s = parse_sweep(
      base_with({{"mode", "grid"}, {"parameters", {{{"path", "/model/k"}, {"logspace", {0.01, 100, 5}}}}}}));
  std::vector<double> v;
  for (long i = 0; i < 5; ++i) {
    s.case_values(i, v);
    EXPECT_NEAR(v[0], std::pow(10.0, -2.0 + i), 1e-12 * std::pow(10.0, -2.0 + i));
  }
}

TEST(SweepSpec, ZipPairsValues) {
  const SweepSpec s = parse_sweep(base_with(
      {{"mode", "zip"},
       {"parameters",
        {{{"path", "/model/Fn"}, {"values", {1, 2, 3}}}, {{"path", "/initial/q/0"}, {"values", {-1, 0, 1}}}}}}));
  ASSERT_EQ(s.n_cases(), 3);
  std::vector<double> v;
  s.case_values(2, v);
  EXPECT_EQ(v[0], 3);
  EXPECT_EQ(v[1], 1);
}

TEST(SweepSpec, RandomDrawsDependOnlyOnSeedCaseAndParameter) {
  const json block = {{"mode", "random"},
                      {"samples", 20000},
                      {"seed", 7},
                      {"parameters",
                       {{{"path", "/model/Fn"}, {"range", {1, 30}}},
                        {{"path", "/model/k"}, {"logrange", {0.1, 10}}},
                        {{"path", "/model/v0"}, {"values", {0.2, 0.4}}}}}};
  const SweepSpec s = parse_sweep(base_with(block));
  ASSERT_EQ(s.n_cases(), 20000);
  std::vector<double> v, w;
  double mean_fn = 0, mean_log_k = 0, share_02 = 0;
  for (long i = 0; i < 20000; ++i) {
    s.case_values(i, v);
    ASSERT_GE(v[0], 1);
    ASSERT_LE(v[0], 30);
    ASSERT_GE(v[1], 0.1 * (1 - 1e-12));
    ASSERT_LE(v[1], 10 * (1 + 1e-12));
    ASSERT_TRUE(v[2] == 0.2 || v[2] == 0.4);
    mean_fn += v[0] / 20000;
    mean_log_k += std::log10(v[1]) / 20000;
    share_02 += (v[2] == 0.2) / 20000.0;
  }
  // uniform moments: mean 15.5 with σ/√n ≈ 0.06; log-uniform mean of log10 k = 0 (σ/√n ≈ 0.004)
  EXPECT_NEAR(mean_fn, 15.5, 0.3);
  EXPECT_NEAR(mean_log_k, 0.0, 0.02);
  EXPECT_NEAR(share_02, 0.5, 0.02);
  // the same case drawn again, out of order, and from a second parse gives the same values
  const SweepSpec again = parse_sweep(base_with(block));
  s.case_values(12345, v);
  again.case_values(12345, w);
  EXPECT_EQ(v, w);
  // another seed draws other values
  json other = block;
  other["seed"] = 8;
  parse_sweep(base_with(other)).case_values(12345, w);
  EXPECT_NE(v[0], w[0]);
}

// a basin sweep: initial conditions drawn `samples` times at each grid point of the parameters,
// the grid point's draws consecutive, each draw in its range and as a random sweep of the same
// seed draws that case's parameter
TEST(SweepSpec, GridWithRangesDrawsSamplesAtEachGridPoint) {
  const json block = {{"mode", "grid"},
                      {"samples", 5},
                      {"seed", 3},
                      {"parameters",
                       {{{"path", "/model/Fn"}, {"values", {1, 2, 3}}},
                        {{"path", "/initial/q/0"}, {"range", {-2, 2}}},
                        {{"path", "/initial/u/0"}, {"range", {0, 1}}}}}};
  const SweepSpec s = parse_sweep(base_with(block));
  ASSERT_EQ(s.n_cases(), 15);
  json random = block;
  random["mode"] = "random";
  random["samples"] = 15;
  random["parameters"][0] = {{"path", "/model/Fn"}, {"range", {0, 1}}};
  const SweepSpec r = parse_sweep(base_with(random));
  std::vector<double> v, w;
  for (long i = 0; i < 15; ++i) {
    s.case_values(i, v);
    r.case_values(i, w);
    EXPECT_EQ(v[0], static_cast<double>(1 + i / 5)) << i;
    EXPECT_GE(v[1], -2.0);
    EXPECT_LE(v[1], 2.0);
    EXPECT_GE(v[2], 0.0);
    EXPECT_LE(v[2], 1.0);
    EXPECT_EQ(v[1], w[1]) << i;
    EXPECT_EQ(v[2], w[2]) << i;
  }
  // the draws differ between the grid points' cases
  s.case_values(0, v);
  s.case_values(5, w);
  EXPECT_NE(v[1], w[1]);
}

TEST(SweepSpec, BadBlocksNameTheirPointer) {
  EXPECT_NE(error_of({{"mode", "grid"}, {"parameters", {{{"path", "/model/Fn"}, {"values", {1}}, {"step", 1}}}}})
                .find("/sweep/parameters/0/step: unknown key"),
            std::string::npos);
  EXPECT_NE(
      error_of({{"mode", "sideways"}, {"parameters", {{{"path", "/model/Fn"}, {"values", {1}}}}}}).find("/sweep/mode"),
      std::string::npos);
  EXPECT_NE(error_of({{"mode", "grid"}, {"parameters", {{{"path", "/model/nope"}, {"values", {1}}}}}})
                .find("/sweep/parameters/0/path: must point to a number"),
            std::string::npos);
  EXPECT_NE(error_of({{"mode", "grid"}, {"parameters", {{{"path", "model/Fn"}, {"values", {1}}}}}})
                .find("/sweep/parameters/0/path: must be a JSON pointer"),
            std::string::npos);
  EXPECT_NE(
      error_of({{"mode", "grid"}, {"parameters", {{{"path", "/model/Fn"}, {"values", {1}}, {"linspace", {1, 2, 3}}}}}})
          .find("/sweep/parameters/0: needs exactly one of"),
      std::string::npos);
  EXPECT_NE(error_of({{"mode", "zip"}, {"parameters", {{{"path", "/model/Fn"}, {"range", {1, 2}}}}}})
                .find("/sweep/parameters/0/range: ranges are drawn from in random mode, or at each grid point"),
            std::string::npos);
  EXPECT_NE(error_of({{"mode", "grid"}, {"parameters", {{{"path", "/model/Fn"}, {"range", {1, 2}}}}}})
                .find("/sweep/samples: is required in grid mode with a range"),
            std::string::npos);
  EXPECT_NE(error_of({{"mode", "grid"}, {"samples", 4}, {"parameters", {{{"path", "/model/Fn"}, {"values", {1, 2}}}}}})
                .find("/sweep/samples: draws the range parameters"),
            std::string::npos);
  EXPECT_NE(error_of({{"mode", "grid"}, {"parameters", {{{"path", "/model/Fn"}, {"logspace", {0, 2, 3}}}}}})
                .find("/sweep/parameters/0/logspace: logspace bounds must be > 0"),
            std::string::npos);
  EXPECT_NE(error_of({{"mode", "grid"}, {"parameters", {{{"path", "/model/Fn"}, {"linspace", {1, 2, 2.5}}}}}})
                .find("/sweep/parameters/0/linspace/2: must be a whole number"),
            std::string::npos);
  EXPECT_NE(
      error_of({{"mode", "zip"},
                {"parameters", {{{"path", "/model/Fn"}, {"values", {1, 2}}}, {{"path", "/model/k"}, {"values", {1}}}}}})
          .find("/sweep/parameters/1: zip mode needs parameters of equal length"),
      std::string::npos);
  EXPECT_NE(error_of({{"mode", "random"}, {"parameters", {{{"path", "/model/Fn"}, {"range", {1, 2}}}}}})
                .find("/sweep/samples"),
            std::string::npos);
  EXPECT_NE(error_of({{"mode", "grid"}, {"parameters", json::array()}}).find("/sweep/parameters: must be a non-empty"),
            std::string::npos);
  EXPECT_NE(
      error_of({{"mode", "grid"},
                {"parameters", {{{"path", "/model/Fn"}, {"values", {1}}}, {{"path", "/model/Fn"}, {"values", {2}}}}}})
          .find("is swept twice"),
      std::string::npos);
}

}  // namespace
}  // namespace fivsim
