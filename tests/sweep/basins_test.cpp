// tests/sweep/basins_test.cpp — attractors told apart and counted (sweep/basins.hpp) on a table
// whose answer is known by construction: at one belt speed two stick-slip cycles of the same class
// and period but different amplitude, a third of another period, an equilibrium and a case of no
// known class; at another two chaotic cases whose windows differ by 3 % of the extent (one
// attractor at the chaotic tolerance of 5 %).
#include "fivsim/sweep/basins.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "fivsim/analysis/classification.hpp"

namespace fivsim::sweep {
namespace {

constexpr double kPeriodic = static_cast<double>(CaseClass::periodic);
constexpr double kChaotic = static_cast<double>(CaseClass::chaotic);
constexpr double kSteady = static_cast<double>(CaseClass::no_stick_slip);
constexpr double kUnknown = static_cast<double>(CaseClass::undetermined);

struct Row {
  double v0, q0, klass, period_n, period, lo, hi;
};

NamedColumns table(const std::vector<Row>& rows) {
  NamedColumns c;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    c["case"].push_back(static_cast<double>(100 + i));
    c["/model/v0"].push_back(r.v0);
    c["/initial/q/0"].push_back(r.q0);
    c["class"].push_back(r.klass);
    c["period_n"].push_back(r.period_n);
    c["period"].push_back(r.period);
    c["min_q0"].push_back(r.lo);
    c["max_q0"].push_back(r.hi);
    c["min_u0"].push_back(r.lo / 2);
    c["max_u0"].push_back(r.hi / 2);
  }
  return c;
}

TEST(Basins, AttractorsAreToldApartByPeriodAndExtremesAtEachParameterValue) {
  const std::vector<Row> rows = {
      {1, 0.1, kPeriodic, 1, 10.0, -1.0, 1.0},   // cycle A
      {1, 0.2, kPeriodic, 1, 10.0, -2.0, 2.0},   // cycle B: twice A's amplitude
      {1, 0.3, kPeriodic, 1, 10.0, -1.03, 1.0},  // A again: 0.03 off, within 1 % of the extent 4
      {1, 0.4, kPeriodic, 1, 10.1, -1.0, 1.0},   // A's extremes, another period: C
      {1, 0.5, kSteady, 0, 0.0, 0.3, 0.3},       // the equilibrium
      {1, 0.6, kUnknown, 0, 0.0, -1.0, 1.0},     // no attractor
      {1, 0.7, kPeriodic, 1, 10.0, -2.0, 1.99},  // B again
      {2, 0.1, kChaotic, 0, 0.0, -1.0, 1.0},     // chaos
      {2, 0.2, kChaotic, 0, 0.0, -1.06, 1.0},    // the same chaos: 0.06 off, 3 % of the extent 2.06
  };
  const Basins b = find_basins({"/model/v0", "/initial/q/0"}, table(rows), 1);
  ASSERT_EQ(b.group_paths, std::vector<std::string>{"/model/v0"});
  ASSERT_EQ(b.groups.size(), 2u);
  EXPECT_EQ(b.groups[0].cases, 7);
  EXPECT_EQ(b.groups[0].unlabelled, 1);
  EXPECT_EQ(b.attractor, (std::vector<int>{1, 2, 1, 3, 4, 0, 2, 1, 1}));
  ASSERT_EQ(b.attractors.size(), 5u);
  EXPECT_EQ(b.attractors[0].cases, 2);
  EXPECT_EQ(b.attractors[0].first_case, 100);
  EXPECT_EQ(b.attractors[1].cases, 2);
  EXPECT_EQ(b.attractors[3].klass, static_cast<int>(CaseClass::no_stick_slip));
  EXPECT_EQ(b.attractors[4].group, 1);
  EXPECT_EQ(b.attractors[4].cases, 2);

  // basin stability: each attractor's share of its group's cases with √(p(1 − p)/n)
  const nlohmann::json j = basins_json(b);
  const nlohmann::json& a = j["groups"][0]["attractors"][0];
  EXPECT_EQ(a["class"], "periodic-1");
  EXPECT_NEAR(a["fraction"].get<double>(), 2.0 / 7.0, 1e-15);
  EXPECT_NEAR(a["standard_error"].get<double>(), std::sqrt(2.0 / 7.0 * 5.0 / 7.0 / 7.0), 1e-15);
  EXPECT_EQ(j["groups"][1]["attractors"][0]["fraction"], 1.0);

  const std::string csv = basins_csv(b);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "/model/v0,attractor,class,period_n,period,cases,fraction,standard_error,first_case");
  // one row per attractor, and the unknown case's row (attractor 0) in its group
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 5 + 1);
  EXPECT_NE(csv.find("\n1,0,none,0,0,1,"), std::string::npos) << csv;
  const std::string labels = attractors_csv(b);
  EXPECT_EQ(labels.substr(0, labels.find('\n', 15)), "case,attractor\n100,1");
}

TEST(Basins, OnlySweepsOverInitialConditionsHaveThem) {
  EXPECT_TRUE(sweeps_initial_conditions({"/model/Fn", "/initial/u/0"}));
  EXPECT_FALSE(sweeps_initial_conditions({"/model/Fn", "/model/v0"}));
  NamedColumns c = table({{1, 0.1, kPeriodic, 1, 10.0, -1.0, 1.0}});
  c.erase("period");
  EXPECT_THROW(find_basins({"/initial/q/0"}, c, 1), std::invalid_argument);
}

}  // namespace
}  // namespace fivsim::sweep
