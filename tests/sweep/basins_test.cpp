// tests/sweep/basins_test.cpp — attractors told apart, counted and numbered across a swept
// parameter (sweep/basins.hpp) on tables whose answer is known by construction: at one belt speed
// two stick-slip cycles of the same class and period but different section ranges, a third of
// another period, an equilibrium and a case of no known class; at another two chaotic cases whose
// sample hulls overlap; steady cases still decaying onto one state by different amounts; and
// attractors that move, appear and vanish along the speed.
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
      {2, 0.2, kChaotic, 0, 0.0, -1.5, -0.9},    // the same chaos: a hull that overlaps the first
  };
  const Basins b = find_basins({"/model/v0", "/initial/q/0"}, table(rows), 1);
  ASSERT_EQ(b.group_paths, std::vector<std::string>{"/model/v0"});
  ASSERT_EQ(b.groups.size(), 2u);
  EXPECT_EQ(b.groups[0].cases, 7);
  EXPECT_EQ(b.groups[0].unlabelled, 1);
  // the chaos at the second speed continues none of the first speed's attractors: a new number
  EXPECT_EQ(b.attractor, (std::vector<int>{1, 2, 1, 3, 4, 0, 2, 5, 5}));
  ASSERT_EQ(b.attractors.size(), 5u);
  EXPECT_EQ(b.attractors[0].cases, 2);
  EXPECT_EQ(b.attractors[0].first_case, 100);
  EXPECT_EQ(b.attractors[1].cases, 2);
  EXPECT_EQ(b.attractors[3].klass, static_cast<int>(CaseClass::no_stick_slip));
  EXPECT_EQ(b.attractors[4].group, 1);
  EXPECT_EQ(b.attractors[4].cases, 2);
  EXPECT_TRUE(b.attractors[4].born);
  EXPECT_TRUE(b.attractors[0].dies);

  // basin stability: each attractor's share of its group's cases with √(p(1 − p)/n)
  const nlohmann::json j = basins_json(b);
  const nlohmann::json& a = j["groups"][0]["attractors"][0];
  EXPECT_EQ(a["class"], "periodic-1");
  EXPECT_NEAR(a["fraction"].get<double>(), 2.0 / 7.0, 1e-15);
  EXPECT_NEAR(a["standard_error"].get<double>(), std::sqrt(2.0 / 7.0 * 5.0 / 7.0 / 7.0), 1e-15);
  EXPECT_EQ(j["groups"][1]["attractors"][0]["fraction"], 1.0);

  const std::string csv = basins_csv(b);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "/model/v0,attractor,class,period_n,period,cases,fraction,standard_error,first_case,change");
  // one row per attractor, and the unknown case's row (attractor 0) in its group
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 5 + 1);
  EXPECT_NE(csv.find("\n1,0,none,0,0,1,"), std::string::npos) << csv;
  const std::string labels = attractors_csv(b);
  EXPECT_EQ(labels.substr(0, labels.find('\n', 15)), "case,attractor\n100,1");
}

// steady sliding still decaying near its Hopf point: each window's range holds the one state the
// case decays onto, some wide, some narrow, so all of them are one equilibrium; a state outside
// them (another equilibrium) is another attractor
TEST(Basins, AnEquilibriumIsKnownByTheStateItsCasesDecayOnto) {
  const std::vector<Row> rows = {
      {1, 0.1, kSteady, 0, 0.0, -0.8, 0.4},     // wide: a slow decay
      {1, 0.2, kSteady, 0, 0.0, -0.31, -0.29},  // arrived
      {1, 0.3, kSteady, 0, 0.0, -0.5, 0.0},    {1, 0.4, kSteady, 0, 0.0, -0.3, -0.3},
      {1, 0.5, kSteady, 0, 0.0, 1.5, 1.6},   // another state
      {1, 0.6, kSteady, 0, 0.0, -2.0, 2.0},  // the starts' spread, 4: its scale
  };
  const Basins b = find_basins({"/model/v0", "/initial/q/0"}, table(rows), 1);
  EXPECT_EQ(b.attractor, (std::vector<int>{1, 1, 1, 1, 2, 1}));
  ASSERT_EQ(b.attractors.size(), 2u);
  EXPECT_EQ(b.attractors[0].cases, 5);
}

// along the speed an attractor keeps its number while it moves a little from one value to the
// next (whichever case reaches it first), or however far where it is the only one of its class at
// both values; a cycle that appears is born and one that goes dies: steady sliding first at the
// first speed and second at the next is attractor 1 at both
TEST(Basins, AttractorsKeepTheirNumbersAlongTheSweptParameter) {
  const std::vector<Row> rows = {
      {1.0, 0.1, kSteady, 0, 0.0, -0.5, -0.5},     // equilibrium
      {1.0, 0.2, kPeriodic, 1, 6.0, -1.0, 1.0},    // cycle
      {1.1, 0.1, kPeriodic, 1, 6.1, -1.05, 1.02},  // the cycle, moved
      {1.1, 0.2, kSteady, 0, 0.0, -0.52, -0.52},   // the equilibrium, moved
      {1.1, 0.3, kPeriodic, 2, 13.0, -1.8, 1.8},   // a periodic-2 cycle appears
      {1.2, 0.1, kSteady, 0, 0.0, -0.54, -0.54},   // the cycles are gone
      {1.2, 0.2, kSteady, 0, 0.0, -0.55, -0.53},
      {2.0, 0.1, kSteady, 0, 0.0, -1.5, -1.5},  // a coarse step: the only equilibrium, far moved
  };
  const Basins b = find_basins({"/model/v0", "/initial/q/0"}, table(rows), 1);
  EXPECT_EQ(b.attractor, (std::vector<int>{1, 2, 2, 1, 3, 1, 1, 1}));
  ASSERT_EQ(b.attractors.size(), 7u);
  // by group, then number
  const auto at = [&](long group, int id) {
    for (const Attractor& a : b.attractors)
      if (a.group == group && a.id == id) return a;
    ADD_FAILURE() << "no attractor " << id << " at group " << group;
    return Attractor{};
  };
  EXPECT_FALSE(at(0, 1).born);
  EXPECT_FALSE(at(1, 2).born);
  EXPECT_TRUE(at(1, 3).born);
  EXPECT_TRUE(at(1, 3).dies);
  EXPECT_TRUE(at(1, 2).dies);
  EXPECT_FALSE(at(1, 1).dies);
  const nlohmann::json j = basins_json(b);
  ASSERT_EQ(j["attractors"].size(), 3u);
  EXPECT_EQ(j["attractors"][2]["class"], "periodic-2");
  EXPECT_EQ(j["attractors"][2]["born_at"], nlohmann::json::parse("[[1.1]]"));
  EXPECT_EQ(j["attractors"][1]["dies_after"], nlohmann::json::parse("[[1.1]]"));
  EXPECT_EQ(j["attractors"][0]["groups"], 4);
  const std::string csv = basins_csv(b);
  EXPECT_NE(
      csv.find("\n1.1000000000000001,3,periodic-2,2,13,1,0.33333333333333331,0.27216552697590868,104,\"born, dies\"\n"),
      std::string::npos)
      << csv;
}

// the settled ranges decide where a sweep has them: a periodic-2 case's window statistics still
// holding its transient do not split it from another on the same orbit
TEST(Basins, SettledRangesDecideOverTheWindowsExtremes) {
  NamedColumns c = table({{1, 0.1, kPeriodic, 2, 80.0, -1.0, 1.0}, {1, 0.2, kPeriodic, 2, 80.0, -3.0, 3.0}});
  c["settled_min_q0"] = {-0.9, -0.9};
  c["settled_max_q0"] = {0.8, 0.8};
  c["settled_min_u0"] = {0.2, 0.2};
  c["settled_max_u0"] = {0.2, 0.2};
  // the exact orbit's period decides over the samples'
  c["orbit_period"] = {83.6, 83.6};
  const Basins b = find_basins({"/model/v0", "/initial/q/0"}, c, 1);
  EXPECT_EQ(b.attractor, (std::vector<int>{1, 1}));
  EXPECT_EQ(b.attractors.at(0).period, 83.6);
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
