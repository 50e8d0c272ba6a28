// tests/identify/record_test.cpp — identification records (identify/record.hpp): Savitzky–Golay
// derivatives against closed forms, noise levels, CSV reading and its errors, and a simulated
// record against the closed-form free response.
#include "fivsim/identify/record.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "fivsim/io/json_reader.hpp"
#include "fivsim/model/presets.hpp"

namespace fivsim {
namespace {

Eigen::VectorXd grid(long n, double dt) {
  Eigen::VectorXd t(n);
  for (long i = 0; i < n; ++i) t(i) = static_cast<double>(i) * dt;
  return t;
}

TEST(SavitzkyGolay, DifferentiatesACubicExactlyEverywhere) {
  // a cubic lies in the fitted space: interior and edge derivatives are exact
  const double dt = 0.01;
  const Eigen::VectorXd t = grid(200, dt);
  const Eigen::VectorXd y = (2.0 - 3.0 * t.array() + 0.5 * t.array().square() + 1.5 * t.array().cube()).matrix();
  const Eigen::VectorXd d = savitzky_golay_derivative(y, dt, 11, 3);
  for (long i = 0; i < t.size(); ++i) EXPECT_NEAR(d(i), -3.0 + t(i) + 4.5 * t(i) * t(i), 1e-9) << i;
}

TEST(SavitzkyGolay, DifferentiatesASineToTheFilterError) {
  // window 35 at 1 kHz: the cubic fit's truncation error is O(ω⁴ (h·dt)⁴) relative to ω
  const double dt = 1e-3, w = 2.0 * M_PI * 2.0;
  const Eigen::VectorXd t = grid(3000, dt);
  const Eigen::VectorXd y = (w * t.array()).sin().matrix();
  const Eigen::VectorXd d = savitzky_golay_derivative(y, dt, 35, 3);
  double worst = 0.0;
  for (long i = 17; i < t.size() - 17; ++i) worst = std::max(worst, std::abs(d(i) - w * std::cos(w * t(i))));
  EXPECT_LT(worst / w, 2e-3);
  EXPECT_GT(worst / w, 1e-6);  // it is a filter, not an exact derivative
}

TEST(SavitzkyGolay, RejectsAnEvenOrTooShortWindow) {
  const Eigen::VectorXd y = Eigen::VectorXd::Zero(20);
  EXPECT_THROW(savitzky_golay_derivative(y, 0.1, 10, 3), std::invalid_argument);
  EXPECT_THROW(savitzky_golay_derivative(y, 0.1, 3, 3), std::invalid_argument);
  EXPECT_THROW(savitzky_golay_derivative(y, 0.1, 21, 3), std::invalid_argument);
}

TEST(Noise, HasTheRequestedLevelAndRepeatsForASeed) {
  Eigen::VectorXd a = Eigen::VectorXd::Zero(200000), b = a, c = a;
  add_noise(a, 0.5, 7);
  add_noise(b, 0.5, 7);
  add_noise(c, 0.5, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  const double mean = a.mean(), sd = std::sqrt((a.array() - mean).square().mean());
  EXPECT_NEAR(mean, 0.0, 0.01);      // 5 standard errors
  EXPECT_NEAR(sd, 0.5, 0.5 * 0.01);  // 3 standard errors of the sample deviation
  // σ for an SNR: rms 2 at 20 dB → 0.2
  const Eigen::VectorXd s = Eigen::VectorXd::Constant(10, 2.0);
  EXPECT_NEAR(noise_sigma_for_snr(s, 20.0), 0.2, 1e-15);
}

class RecordCsv : public ::testing::Test {
 protected:
  std::filesystem::path path_ =
      std::filesystem::temp_directory_path() / ("fivsim_record_" + std::to_string(::getpid()) + ".csv");
  void write(const std::string& text) { std::ofstream(path_) << text; }
  void TearDown() override { std::filesystem::remove(path_); }
  std::string error_of(const RecordColumns& c) {
    try {
      (void)read_record_csv(path_.string(), c, "/data");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(RecordCsv, ReadsNamedColumnsInAnyOrder) {
  write("x,t,u\n1,0,5\n2,0.5,6\n3,1.0,7\n");
  RecordColumns c;
  c.u = "u";
  const Record r = read_record_csv(path_.string(), c, "/data");
  EXPECT_EQ(r.size(), 3);
  EXPECT_DOUBLE_EQ(r.x(2), 3.0);
  EXPECT_DOUBLE_EQ(r.u(1), 6.0);
  EXPECT_DOUBLE_EQ(r.sample_dt(), 0.5);
  EXPECT_EQ(r.v.size(), 0);
}

TEST_F(RecordCsv, NamesWhatIsWrong) {
  write("t,x\n0,1\n0.5,2\n1.0,3\n");
  RecordColumns c;
  c.v = "v";
  EXPECT_EQ(error_of(c), "/data/v: no column 'v' in '" + path_.string() + "'");
  write("t,x\n0,1\n0.5,nan\n1.0,3\n");
  EXPECT_NE(error_of(RecordColumns{}).find("/data/path: '" + path_.string() + "' line 3: 'nan' is not a finite number"),
            std::string::npos);
  write("t,x\n0,1\n0.5,2\n1.2,3\n");
  EXPECT_NE(error_of(RecordColumns{}).find("/data/t: the samples"), std::string::npos);
  write("t,x\n0,1\n");
  EXPECT_NE(error_of(RecordColumns{}).find("fewer than 3 rows"), std::string::npos);
}

TEST(SimulateRecord, MatchesTheClosedFormFreeResponse) {
  // an SDOF without friction released from x0: x = x0 e^{−ζωt}(cos ω_d t + ζω/ω_d sin ω_d t)
  BaseExcitedParams p;
  p.m = 1.0;
  p.k = 100.0;
  p.c = 0.4;
  p.A = 0.0;
  p.f_hz = 1.0;
  p.Fn = 0.0;
  const Record r = simulate_record(make_base_excited_sdof(p), 0.01, 0.0, 2.0, 1e-3);
  ASSERT_EQ(r.size(), 2001);
  const double w = 10.0, zeta = 0.4 / (2.0 * w), wd = w * std::sqrt(1 - zeta * zeta);
  for (long i = 0; i < r.size(); i += 97) {
    const double t = r.t(i);
    const double x = 0.01 * std::exp(-zeta * w * t) * (std::cos(wd * t) + zeta * w / wd * std::sin(wd * t));
    EXPECT_NEAR(r.x(i), x, 1e-11) << t;
  }
}

TEST(SimulateRecord, CarriesTheFrictionForceOfStickAndSlip) {
  // m ẍ = −k x − F_f with Coulomb friction μ·Fn = 1: released from k·x0 = 0.5 it sticks and the
  // friction holds the spring (F_f = −k x0); from k·x0 = 10 it slips back with F_f = μ Fn sgn(ẋ)
  BaseExcitedParams p;
  p.k = 100.0;
  p.Fn = 10.0;
  p.law.kind = FrictionLawKind::coulomb;
  p.law.p[0] = 0.1;
  const ModelDescription m = make_base_excited_sdof(p);
  const Record stuck = simulate_record(m, 0.005, 0.0, 0.5, 1e-2);
  ASSERT_EQ(stuck.friction.size(), stuck.size());
  for (long i = 0; i < stuck.size(); ++i) EXPECT_NEAR(stuck.friction(i), -0.5, 1e-12) << stuck.t(i);
  const Record slip = simulate_record(m, 0.1, 0.0, 0.1, 1e-3);
  long checked = 0;
  for (long i = 1; i < slip.size(); ++i)
    if (std::abs(slip.v(i)) > 1e-6) {
      EXPECT_NEAR(slip.friction(i), slip.v(i) > 0 ? 1.0 : -1.0, 1e-12) << slip.t(i);
      ++checked;
    }
  EXPECT_GT(checked, 50);
}

TEST_F(RecordCsv, ReadsAFrictionColumn) {
  write("t,x,F\n0,1,0.5\n0.5,2,0.25\n1.0,3,-1\n");
  RecordColumns c;
  c.friction = "F";
  const Record r = read_record_csv(path_.string(), c, "/data");
  ASSERT_TRUE(r.has_friction());
  EXPECT_DOUBLE_EQ(r.friction(2), -1.0);
  c.friction = "G";
  EXPECT_EQ(error_of(c), "/data/friction: no column 'G' in '" + path_.string() + "'");
}

}  // namespace
}  // namespace fivsim
