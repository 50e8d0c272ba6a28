// tests/cases/case_orbit_test.cpp — the orbit observer (cases/case_orbit.hpp) in a sweep: near the
// demo chain's period doubling (7.4–8.3 N) the README's adaptive run stops on slowly converging
// samples and calls loads periodic-2, quasi-periodic or undetermined; the class of each load's
// exact orbit must be what runs of 40 000 s settle on, its period the long run's, and where it
// converges slowest the predicted settling time must lie past the adaptive run's 3000 s; with the
// orbit shot as the cases run, they stop in well under half the steps their samples alone take.
#include "fivsim/cases/case_orbit.hpp"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fivsim/sweep/sweep_runner.hpp"
#include "fivsim/io/scenario.hpp"

namespace fivsim {
namespace {

using nlohmann::json;

struct Columns {
  sweep::SweepTables tables;
  std::vector<double> operator[](const std::string& name) const {
    const int c = tables.cases_schema.column(name);
    EXPECT_GE(c, 0) << name;
    return c < 0 ? std::vector<double>() : tables.cases[static_cast<std::size_t>(c)];
  }
};

void sweep(json doc, Columns& out) {
  sweep::SweepOptions options;
  options.device = sweep::SweepDevice::cpu;
  options.tables = &out.tables;
  sweep::Ranks ranks;
  sweep::run_sweep(doc, options, ranks);
}

json demo_near_the_doubling() {
  json doc = load_json_file(FIVSIM_SOURCE_DIR "/scenarios/chain2_bifurcation.json");
  doc["sweep"]["parameters"][0]["linspace"] = {7.4, 8.3, 10};
  return doc;
}

TEST(OrbitObserver, ClassesAreWhatLongRunsSettleOn) {
  Columns adaptive, orbit, long_run;
  json doc = demo_near_the_doubling();
  doc["analysis"]["orbit"] = false;
  sweep(doc, adaptive);
  doc["analysis"]["orbit"] = true;
  sweep(doc, orbit);
  // the long runs: 40 000 s, the classes from the samples of the last 5000 s
  json slow = demo_near_the_doubling();
  slow["analysis"]["adaptive"] = false;
  slow["analysis"]["orbit"] = false;
  slow["integrator"]["t_end"] = 40000.0;
  slow["analysis"]["t_transient"] = 35000.0;
  slow["sweep"]["parameters"][0]["linspace"] = {7.6, 8.0, 3};  // loads 2, 4, 6 of the ten
  sweep(slow, long_run);

  const std::vector<double> klass = orbit["class"], n = orbit["period_n"], period = orbit["orbit_period"];
  const std::vector<double> multiplier = orbit["orbit_multiplier"], settle = orbit["orbit_settle_t"];
  const std::vector<double> long_class = long_run["class"], long_n = long_run["period_n"],
                            long_period = long_run["period"], sample_class = adaptive["class"],
                            sample_n = adaptive["period_n"];
  ASSERT_EQ(klass.size(), 10u);
  int samples_wrong = 0;
  for (int k = 0; k < 3; ++k) {
    const std::size_t i = static_cast<std::size_t>(2 + 2 * k), j = static_cast<std::size_t>(k);
    ASSERT_EQ(long_class[j], static_cast<double>(CaseClass::periodic)) << "load " << i;
    EXPECT_EQ(klass[i], long_class[j]) << "load " << i;
    EXPECT_EQ(n[i], long_n[j]) << "load " << i;
    // the orbit's period is the long run's mean return time (its samples still settle at 7.6 N)
    EXPECT_NEAR(period[i], long_period[j], 1e-5 * long_period[j]) << "load " << i;
    EXPECT_LT(multiplier[i], 1.0);
    samples_wrong += sample_class[i] != long_class[j] || sample_n[i] != long_n[j];
  }
  // the samples alone were wrong somewhere here (else this test shows nothing)
  EXPECT_GT(samples_wrong, 0);
  // below the doubling periodic-2, above it periodic-1 with a multiplier near −1 at 7.6 N: the
  // samples come within the tolerance only after the adaptive run's 3000 s, before the long run's
  // window
  EXPECT_EQ(n[0], 2.0);
  EXPECT_EQ(n[9], 1.0);
  EXPECT_GT(settle[2], 3000.0);
  EXPECT_LT(settle[2], 35000.0);
  EXPECT_NEAR(std::abs(orbit["orbit_multiplier_arg"][2]), M_PI, 1e-9);
  // the adaptive stop on the orbit: a case stops once a stable orbit its samples contract onto is
  // shot, never later than on its samples alone (the same trajectory up to there), and these
  // loads, whose samples creep, in well under half their time
  const std::vector<double> steps = orbit["steps"], sample_steps = adaptive["steps"];
  double total = 0.0, sample_total = 0.0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    EXPECT_LE(steps[i], sample_steps[i]) << "load " << i;
    total += steps[i];
    sample_total += sample_steps[i];
  }
  std::printf("steps of the ten loads: %.0f with the orbit, %.0f on the samples alone (%.2f)\n", total, sample_total,
              total / sample_total);
  EXPECT_LT(total, 0.5 * sample_total);
}

// two loads of the README diagram whose samples come to an unstable period-1 orbit along its stable
// manifold and then leave it slowly: at 29.507 N (multiplier −1.039) they alternate about it, which
// ten confirmations took for period 2, at 6.890 N (1.014) they repeat. The orbit observer finds that
// unstable orbit by the samples, so they confirm nothing and the case runs to its 3000 s, undetermined.
// Runs of 20 000 s settle elsewhere: on period-2 orbits, at 29.507 N one of period 83.40 s, not twice
// the unstable orbit's 41.78
TEST(OrbitObserver, SamplesByAnUnstableOrbitHaveNotSettled) {
  json doc = load_json_file(FIVSIM_SOURCE_DIR "/scenarios/chain2_bifurcation.json");
  doc["sweep"] = {{"mode", "grid"},
                  {"parameters", {{{"path", "/model/Fn"}, {"values", {29.506753376688344, 6.889944972486243}}}}}};
  Columns orbit, samples, long_run;
  sweep(doc, orbit);
  doc["analysis"]["orbit"] = false;
  sweep(doc, samples);
  doc["analysis"]["adaptive"] = false;
  doc["integrator"]["t_end"] = 20000.0;
  doc["analysis"]["t_transient"] = 15000.0;
  sweep(doc, long_run);
  const std::vector<double> klass = orbit["class"], n = orbit["orbit_n"], multiplier = orbit["orbit_multiplier"],
                            period = orbit["orbit_period"], steps = orbit["steps"];
  const std::vector<double> sample_class = samples["class"], long_class = long_run["class"],
                            long_n = long_run["period_n"], long_period = long_run["period"];
  ASSERT_EQ(klass.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(n[i], 1.0) << i;
    EXPECT_GT(multiplier[i], 1.0) << i;
    EXPECT_EQ(klass[i], static_cast<double>(CaseClass::undetermined)) << i;
    EXPECT_EQ(steps[i], 300000.0) << i;  // the whole 3000 s
    // the samples alone stop early on a class the long run does not settle on
    EXPECT_EQ(sample_class[i], static_cast<double>(CaseClass::periodic)) << i;
    EXPECT_EQ(long_class[i], static_cast<double>(CaseClass::periodic)) << i;
    EXPECT_EQ(long_n[i], 2.0) << i;
  }
  EXPECT_GT(std::abs(long_period[0] - 2.0 * period[0]), 1e-3 * long_period[0]);
}

}  // namespace
}  // namespace fivsim
