// tests/cli/sweep_command_test.cpp — `fivsim sweep` end to end on the CPU backend: files that do not
// depend on chunk size or thread count, a one-case sweep equal to `fivsim run`, the observers'
// columns, results.h5, decimated trajectories, and one clear error (exit 2, nothing
// written) for each kind of bad sweep. Across processes and failures: sweep_processes_test.cpp;
// basins: sweep_basins_test.cpp.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.hpp"
#include "cli/sweep_test_util.hpp"
#include "fivsim/sweep/results_h5.hpp"
#include "fivsim/sweep/sweep.hpp"

namespace {

// pinn_single4 vs irk4 sweep metrics, relative: measured 1.0e-10 (training tolerance 1e-24 on the
// squared residual), so 10x margin
constexpr double kPinnVsIrk = 1e-9;

using namespace fivsim_test;
using nlohmann::json;

// summary.json says where the host's time went, stage by stage, within the command's wall time
// (the kernel's time is the backend's own, as compute_s); -v prints the same line
TEST(SweepCommand, TheStagesTimesAreInTheSummaryAndInTheVerboseLine) {
  const fs::path out = fresh_dir("fivsim_sweep_stages");
  const Result r =
      run_fivsim("sweep " + kScenarios + "chain2_load_sweep.json --device cpu --threads 2 --chunk 5 -v --out " +
                 out.string() + kShortLoadSweep);
  ASSERT_EQ(r.code, 0) << r.err;
  const json s = json::parse(slurp(out / "summary.json"));
  const json& st = s["stages"];
  double sum = 0.0;
  for (const char* key : {"prepare_s", "launch_s", "wait_s", "columns_s", "write_s"}) {
    ASSERT_TRUE(st.contains(key)) << key;
    EXPECT_GE(st[key].get<double>(), 0.0) << key;
    sum += st[key].get<double>();
  }
  EXPECT_EQ(st["kernel_s"], s["compute_s"]);
  // on the CPU the stepping is within the launches; the stages are parts of the wall time
  EXPECT_GT(st["launch_s"].get<double>(), 0.0);
  EXPECT_LE(sum, s["wall_s"].get<double>() * 1.01);
  EXPECT_NE(r.out.find("  stages: prepare "), std::string::npos) << r.out;
  fs::remove_all(out);
}

TEST(SweepCommand, FilesDoNotDependOnChunksOrThreads) {
  const fs::path one = fresh_dir("fivsim_sweep_one"), chunked = fresh_dir("fivsim_sweep_chunked");
  const Result a = run_fivsim("sweep " + kScenarios + "chain2_load_sweep.json --device cpu --threads 1 --out " +
                              one.string() + kShortLoadSweep);
  ASSERT_EQ(a.code, 0) << a.err;
  const Result b =
      run_fivsim("sweep " + kScenarios + "chain2_load_sweep.json --device cpu --threads 2 --chunk 5 --out " +
                 chunked.string() + kShortLoadSweep);
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(slurp(one / "cases.csv"), slurp(chunked / "cases.csv"));
  EXPECT_EQ(slurp(one / "points.csv"), slurp(chunked / "points.csv"));
  const json s = json::parse(slurp(chunked / "summary.json"));
  EXPECT_EQ(s["cases"], 24);
  EXPECT_EQ(s["chunks"], 5);
  EXPECT_EQ(s["backend"], "cpu");
  EXPECT_EQ(s["case_steps"].get<double>(), 24.0 * 30000);
  // the memory one case of a chunk takes: its result (the exact 2-DoF instantiation), its swept
  // value and its rings of 32 points of each kind; the load reaches the one model as it is, so the
  // case has no setup of its own
  using D = fivsim::SweepDimsExact2<double>;
  EXPECT_EQ(s["case_bytes"].get<double>(), sizeof(fivsim::CaseResult<D>) + 8.0 * (1 + fivsim::case_rings_size(2, 32)));
  const std::string cases = slurp(one / "cases.csv");
  EXPECT_EQ(cases.substr(0, cases.find('\n')).substr(0, 217),
            "case,/model/Fn,class,period_n,period,samples,recurrence,settled_at,settled_min_q0,settled_min_q1,"
            "settled_min_u0,settled_min_u1,settled_max_q0,settled_max_q1,settled_max_u0,settled_max_u1,n_transitions,"
            "n_section,rms_q0");
  EXPECT_EQ(std::count(cases.begin(), cases.end(), '\n'), 25);
}

// `initial` is optional (the scenario starts at rest): a sweep may vary /initial/q/0 of a scenario
// that leaves it out, with the rows of the same sweep given the zeros explicitly
TEST(SweepCommand, AScenarioWithoutInitialMaySweepItsStart) {
  const fs::path dir = fresh_dir("fivsim_sweep_no_initial");
  fs::create_directories(dir);
  json doc = json::parse(slurp(kScenarios + "chain2_load_sweep.json"));
  doc["sweep"] = {{"mode", "grid"}, {"parameters", {{{"path", "/initial/q/0"}, {"values", {0.1, 0.4}}}}}};
  doc["initial"] = {{"q", {0.0, 0.0}}, {"u", {0.0, 0.0}}};
  std::ofstream(dir / "explicit.json") << doc.dump();
  doc.erase("initial");
  std::ofstream(dir / "implicit.json") << doc.dump();
  for (const char* name : {"explicit", "implicit"}) {
    const Result r = run_fivsim("sweep " + (dir / (std::string(name) + ".json")).string() +
                                " --device cpu -q --set /integrator/t_end=30 --set /analysis/t_transient=10 --out " +
                                (dir / name).string());
    ASSERT_EQ(r.code, 0) << r.err;
  }
  EXPECT_EQ(slurp(dir / "implicit" / "cases.csv"), slurp(dir / "explicit" / "cases.csv"));
  fs::remove_all(dir);
}

// an unstable case (negative stiffness) overflows to Inf/NaN: its row says nonfinite with the
// time and number of the failing step, as `fivsim run` of that case reports them, and NaN for its
// statistics (they cover only the steps before it failed) in cases.csv and results.h5 alike; the
// others finish. No row here is periodic: its period is NaN, not 0
TEST(SweepCommand, NonFiniteCasesAreFlaggedWithTheirStep) {
  const fs::path dir = fresh_dir("fivsim_sweep_blowup");
  fs::create_directories(dir);
  const std::string model = R"("model": {"type": "linear_multibody", "M": [[1]], "K": [[-1e6]], "contacts": []},
    "initial": {"q": [1e-3]}, "integrator": {"dt": 0.1, "t_end": 100})";
  std::ofstream(dir / "run.json") << R"({"name": "blowup", )" << model << "}";
  std::ofstream(dir / "sweep.json")
      << R"({"name": "blowup_sweep", )" << model
      << R"(, "sweep": {"mode": "grid", "parameters": [{"path": "/model/K/0/0", "values": [4, -1e6, 9]}]}})";
  const Result run = run_fivsim("run " + (dir / "run.json").string() + " -q --out " + (dir / "run").string());
  ASSERT_EQ(run.code, 3) << run.err;
  const json rs = json::parse(slurp(dir / "run" / "summary.json"));
  const Result sw = run_fivsim("sweep " + (dir / "sweep.json").string() + " --device cpu -q --format both --out " +
                               (dir / "sweep").string());
  ASSERT_EQ(sw.code, 0) << sw.err;
  std::ifstream csv(dir / "sweep" / "cases.csv");
  std::string header, line;
  std::getline(csv, header);
  const auto column = [&](const std::string& row, const std::string& name) {
    std::vector<std::string> h, v;
    std::stringstream hs(header), vs(row);
    for (std::string c; std::getline(hs, c, ',');) h.push_back(c);
    for (std::string c; std::getline(vs, c, ',');) v.push_back(c);
    return v.at(static_cast<std::size_t>(std::find(h.begin(), h.end(), name) - h.begin()));
  };
  std::vector<std::string> rows;
  while (std::getline(csv, line)) rows.push_back(line);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(column(rows[1], "status"), "nonfinite");
  EXPECT_EQ(column(rows[1], "class"), "diverged");
  const long steps = rs["steps"].get<long>();
  EXPECT_EQ(std::stol(column(rows[1], "steps")), steps);
  EXPECT_EQ(std::stol(column(rows[1], "failed_step")), steps + 1);
  EXPECT_NEAR(std::stod(column(rows[1], "failed_at")), rs["failure"]["t"].get<double>(), 1e-12);
  for (const int ok : {0, 2}) {
    EXPECT_EQ(column(rows[static_cast<std::size_t>(ok)], "status"), "ok");
    EXPECT_EQ(column(rows[static_cast<std::size_t>(ok)], "failed_step"), "0");
    EXPECT_GT(std::stod(column(rows[static_cast<std::size_t>(ok)], "rms_q0")), 0.0);
    EXPECT_EQ(column(rows[static_cast<std::size_t>(ok)], "class"), "no-stick-slip");
  }
  for (const char* stat : {"rms_q0", "rms_u0", "min_q0", "max_u0", "frac_free"})
    EXPECT_EQ(column(rows[1], stat), "nan") << stat;
  for (const std::string& row : rows) EXPECT_EQ(column(row, "period"), "nan");
  const fivsim::sweep::H5TableData h5 = fivsim::sweep::read_results_h5(dir / "sweep" / "results.h5", "cases");
  const int rms = h5.schema.column("rms_q0"), period = h5.schema.column("period");
  EXPECT_TRUE(std::isnan(h5.rows.column(rms)[1]));
  EXPECT_DOUBLE_EQ(h5.rows.column(rms)[0], std::stod(column(rows[0], "rms_q0")));
  for (long r = 0; r < 3; ++r) EXPECT_TRUE(std::isnan(h5.rows.column(period)[r]));
  const json s = json::parse(slurp(dir / "sweep" / "summary.json"));
  EXPECT_EQ(s["status"]["nonfinite"], 1);
  EXPECT_EQ(s["status"]["ok"], 2);
  fs::remove_all(dir);
}

// Moreau, and Gauss IRK-LCP with 4 stages and interpolated stage forces
class OneCase : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(SweepCommand, OneCase,
                         ::testing::Values("",
                                           " --set /integrator/method='\"irk\"' --set /integrator/order=4"
                                           " --set /integrator/stage_forces='\"interpolated\"'"));

// the rows of a sweep's cases.csv (the header first), split into fields
std::vector<std::vector<std::string>> case_rows(const fs::path& dir) {
  std::istringstream text(slurp(dir / "cases.csv"));
  std::vector<std::vector<std::string>> rows;
  for (std::string line, field; std::getline(text, line);) {
    rows.emplace_back();
    for (std::istringstream f(line); std::getline(f, field, ',');) rows.back().push_back(field);
  }
  return rows;
}

// the header and first data row of a cases.csv
std::pair<std::vector<std::string>, std::vector<std::string>> first_case(const fs::path& dir) {
  const auto rows = case_rows(dir);
  EXPECT_GE(rows.size(), 2u);
  return rows.size() >= 2 ? std::make_pair(rows[0], rows[1])
                          : std::make_pair(std::vector<std::string>(), std::vector<std::string>());
}

// the rms_ columns of a one-case sweep against the rms block of `fivsim run`'s summary.json;
// returns how many were compared
int expect_rms_as_run(const fs::path& sweep, const fs::path& run, double rel_tol) {
  const json summary = json::parse(slurp(run / "summary.json"));
  const auto [names, values] = first_case(sweep);
  EXPECT_EQ(names.size(), values.size());
  int compared = 0;
  for (std::size_t i = 0; i < names.size() && i < values.size(); ++i) {
    if (names[i].rfind("rms_", 0) != 0) continue;
    const double want = summary["rms"][names[i].substr(4)].get<double>();
    EXPECT_NEAR(std::stod(values[i]), want, rel_tol * (1 + std::abs(want))) << names[i];
    ++compared;
  }
  return compared;
}

TEST_P(OneCase, EqualsRun) {
  const fs::path sweep = fresh_dir("fivsim_sweep_single"), run = fresh_dir("fivsim_sweep_run");
  const std::string common = " --set /integrator/t_end=60 --set /analysis/t_transient=20 -q" + GetParam();
  const Result a =
      run_fivsim("sweep " + kScenarios +
                 "chain2_load_sweep.json --device cpu"
                 " --set '/sweep={\"mode\":\"grid\",\"parameters\":[{\"path\":\"/model/Fn\",\"values\":[15]}]}'"
                 " --out " +
                 sweep.string() + common);
  ASSERT_EQ(a.code, 0) << a.err;
  const Result b =
      run_fivsim("run " + kScenarios + "chain2_load_sweep.json --set /model/Fn=15 --out " + run.string() + common);
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(expect_rms_as_run(sweep, run, 1e-12), 8);
  const json summary = json::parse(slurp(run / "summary.json"));
  const auto [names, values] = first_case(sweep);
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] != "frac_stick") continue;
    EXPECT_NEAR(
        std::stod(values[i]),
        (summary["time_fraction"][0]["stick"].get<double>() + summary["time_fraction"][1]["stick"].get<double>()) / 2,
        1e-12);
  }
}

// a PINN sweep trains each case's networks from the scenario's seed: a one-case sweep is the run
TEST(SweepCommand, PinnCaseEqualsRun) {
  const fs::path sweep = fresh_dir("fivsim_sweep_pinn_one"), run = fresh_dir("fivsim_sweep_pinn_run");
  const std::string common = " --set /integrator/t_end=12 --set /analysis/t_transient=4 -q";
  const Result a = run_fivsim("sweep " + kScenarios +
                              "model1_pinn_v0_sweep.json --set '/sweep/parameters/0/linspace=[0.7,0.7,1]'"
                              " --out " +
                              sweep.string() + common);
  ASSERT_EQ(a.code, 0) << a.err;
  const Result b =
      run_fivsim("run " + kScenarios + "model1_pinn_v0_sweep.json --set /model/v0=0.7 --out " + run.string() + common);
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(expect_rms_as_run(sweep, run, 1e-12), 4);
  const auto [names, values] = first_case(sweep);
  ASSERT_GE(names.size(), 4u);
  EXPECT_EQ(names[names.size() - 4], "pinn_iterations");
  const json summary = json::parse(slurp(run / "summary.json"));
  EXPECT_EQ(std::stol(values[values.size() - 4]), summary["pinn"]["dynamic_iterations"].get<long>());
  EXPECT_EQ(std::stol(values[values.size() - 1]), 0);  // no unconverged step
}

// with the classical LCP and its trainings converged, pinn_single4 is the Gauss IRK-LCP step with
// 4 stages (pinn_step.hpp): its sweep gives the IRK sweep's metrics case by case
TEST(SweepCommand, PinnSweepMatchesIrkSweep) {
  const fs::path pinn = fresh_dir("fivsim_sweep_pinn"), irk = fresh_dir("fivsim_sweep_irk");
  const std::string common = " --set '/sweep/parameters/0/linspace=[0.3,1.1,3]' --set /analysis/t_transient=6 -q";
  const Result a = run_fivsim("sweep " + kScenarios +
                              "model1_pinn_v0_sweep.json --set /integrator/method=\\\"pinn_single\\\""
                              " --set /integrator/t_end=20 --out " +
                              pinn.string() + common);
  ASSERT_EQ(a.code, 0) << a.err;
  const Result b = run_fivsim("sweep " + kScenarios +
                              "model1_pinn_v0_sweep.json"
                              " --set '/integrator={\"method\":\"irk\",\"order\":4,\"dt\":0.01,\"t_end\":20}' --out " +
                              irk.string() + common);
  ASSERT_EQ(b.code, 0) << b.err;
  const auto p = case_rows(pinn), q = case_rows(irk);
  ASSERT_EQ(p.size(), 4u);  // header and 3 cases
  ASSERT_EQ(q.size(), 4u);
  const std::vector<std::string>& names = q[0];
  for (std::size_t c = 1; c < q.size(); ++c)
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == "class" || names[i] == "status") {
        EXPECT_EQ(p[c][i], q[c][i]) << "case " << c - 1 << " " << names[i];
      } else if (names[i].rfind("rms_", 0) == 0 || names[i] == "n_transitions") {
        const double want = std::stod(q[c][i]);
        EXPECT_NEAR(std::stod(p[c][i]), want, kPinnVsIrk * (1 + std::abs(want))) << "case " << c - 1 << " " << names[i];
      }
    }
}

TEST(SweepCommand, WritesDecimatedTrajectories) {
  const fs::path out = fresh_dir("fivsim_sweep_traj");
  const Result r = run_fivsim("sweep " + kScenarios +
                              "chain2_load_sweep.json --device cpu --set '/output/trajectories=[3]'"
                              " --set /output/every=100 --out " +
                              out.string() + kShortLoadSweep);
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string ts = slurp(out / "trajectories" / "case_3.csv");
  EXPECT_EQ(ts.substr(0, ts.find('\n')), "t,q0,q1,u0,u1,lamN0,lamN1,lamT0,lamT1,state0,state1");
  EXPECT_EQ(std::count(ts.begin(), ts.end(), '\n'), 1 + 301);  // header, t = 0, 0.1, …, 30
}

TEST(SweepCommand, LyapunovColumnWhenAsked) {
  const fs::path out = fresh_dir("fivsim_sweep_lyap");
  const Result r = run_fivsim("sweep " + kScenarios +
                              "chain2_load_sweep.json --device cpu --set '/analysis/lyapunov={\"every\":10}'"
                              " --out " +
                              out.string() + kShortLoadSweep);
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream rows(slurp(out / "cases.csv"));
  std::string header, row;
  std::getline(rows, header);
  EXPECT_NE(header.find(",frac_slip_pos,lyapunov,lyapunov_err,max_lcp_residual,"), std::string::npos) << header;
  const json s = json::parse(slurp(out / "summary.json"));
  EXPECT_EQ(s["lyapunov"]["every"], 10);
}

// the columns of a cases.csv by header name
std::map<std::string, std::vector<std::string>> columns_of(const fs::path& dir) {
  const auto rows = case_rows(dir);
  std::map<std::string, std::vector<std::string>> cols;
  for (std::size_t r = 1; r < rows.size(); ++r)
    for (std::size_t c = 0; c < rows[0].size(); ++c) cols[rows[0][c]].push_back(rows[r][c]);
  return cols;
}

// the observers choose the columns; what a leaner set keeps is what the full set computes, on the
// belt runner (the chain) and the general one (Model II)
TEST(SweepCommand, ObserversChooseTheColumnsAndKeepTheirValues) {
  const std::pair<std::string, std::string> sweeps[] = {
      {"chain2_load_sweep.json", kShortLoadSweep},
      {"model2_mu_scan.json", " --set '/sweep/parameters/0/linspace=[0.9,1.3,9]' --set /integrator/t_end=12 -q"}};
  for (const auto& [file, cut] : sweeps) {
    const fs::path full = fresh_dir("fivsim_obs_full");
    ASSERT_EQ(run_fivsim("sweep " + kScenarios + file + " --device cpu --out " + full.string() + cut).code, 0);
    const auto all = columns_of(full);
    for (const auto& [observers, header] :
         {std::pair{std::string("\"lean\""), std::string("rms_q0")},
          std::pair{std::string("\"statistics\""), std::string("rms_q0")},
          std::pair{std::string("[\"transitions\",\"poincare\",\"min_max\"]"),
                    std::string("class,period_n,period,samples,recurrence,settled_at,settled_min_q0")}}) {
      const fs::path out = fresh_dir("fivsim_obs_some");
      const Result r =
          run_fivsim("sweep " + kScenarios + file + " --device cpu --set '/analysis/observers=" + observers +
                     "' --out " + out.string() + cut);
      ASSERT_EQ(r.code, 0) << r.err;
      const std::string cases = slurp(out / "cases.csv");
      const std::string head = cases.substr(0, cases.find('\n'));
      EXPECT_NE(head.find("," + header + ","), std::string::npos) << observers << ": " << head;
      if (header.rfind("class", 0) == 0) {
        EXPECT_NE(head.find(",n_transitions,n_section,rms_q0,"), std::string::npos) << head;
      }
      const auto some = columns_of(out);
      for (const auto& [name, values] : some) {
        ASSERT_TRUE(all.count(name)) << name;
        EXPECT_EQ(values, all.at(name)) << file << " " << observers << " " << name;
      }
      const bool extremes = observers != "\"lean\"";
      EXPECT_EQ(some.count("min_u1"), extremes ? 1u : 0u) << observers;
      EXPECT_EQ(some.count("frac_stick"), 0u) << observers;
      EXPECT_EQ(some.count("max_lcp_residual"), 0u) << observers;
      EXPECT_EQ(fs::exists(out / "points.csv"), observers.find("transitions") != std::string::npos) << observers;
      fs::remove_all(out);
    }
    fs::remove_all(full);
  }
}

// results.h5 holds the values of cases.csv and points.csv (rendered back, byte for byte), and a
// sweep written as results.h5 alone holds the same whether it ran whole, in shards merged, killed
// and resumed, or on two MPI ranks
TEST(SweepCommand, ResultsH5HoldsTheCsvValuesInEveryWayOfRunning) {
  const std::string sweep = "sweep " + kScenarios + "chain2_load_sweep.json --device cpu" + kShortLoadSweep;
  const fs::path both = fresh_dir("fivsim_h5_both");
  ASSERT_EQ(run_fivsim(sweep + " --format both --out " + both.string()).code, 0);
  const std::string cases = slurp(both / "cases.csv"), points = slurp(both / "points.csv");
  EXPECT_EQ(h5_as_csv(both / "results.h5", "cases"), cases);
  EXPECT_EQ(h5_as_csv(both / "results.h5", "points"), points);
  const json s = json::parse(slurp(both / "summary.json"));
  EXPECT_EQ(s["files"], json({"cases.csv", "points.csv", "results.h5"}));
  // summary.json adds the checksums of the files, results.h5 among them
  json without_checksums = s;
  without_checksums.erase("checksums");
  EXPECT_EQ(fivsim::sweep::results_h5_summary(both / "results.h5"), without_checksums);
  EXPECT_EQ(s["checksums"]["cases.csv"]["bytes"].get<std::size_t>(), cases.size());
  EXPECT_EQ(s["checksums"]["results.h5"]["bytes"].get<std::uintmax_t>(), fs::file_size(both / "results.h5"));
  // whole, as results.h5 alone (the default from 10^6 cases): no CSV, no spill left
  const fs::path h5 = fresh_dir("fivsim_h5_only");
  ASSERT_EQ(run_fivsim(sweep + " --format h5 --out " + h5.string()).code, 0);
  EXPECT_FALSE(fs::exists(h5 / "cases.csv"));
  EXPECT_FALSE(fs::exists(h5 / "cases.bin"));
  EXPECT_EQ(h5_as_csv(h5 / "results.h5", "cases"), cases);
  EXPECT_FALSE(fivsim::sweep::real_columns_deflated(h5 / "results.h5", "cases"));
  // shards with their real columns deflated, merged: the merged file deflates them too
  std::vector<fs::path> parts;
  std::string dirs;
  for (int i = 0; i < 3; ++i) {
    parts.push_back(fresh_dir("fivsim_h5_shard" + std::to_string(i)));
    ASSERT_EQ(run_fivsim(sweep + " --format h5 --compression deflate --shard " + std::to_string(i) + "/3 --out " +
                         parts.back().string())
                  .code,
              0);
    dirs += " " + parts.back().string();
  }
  const fs::path merged = fresh_dir("fivsim_h5_merged");
  const Result m = run_fivsim("merge" + dirs + " --out " + merged.string());
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_EQ(h5_as_csv(merged / "results.h5", "cases"), cases);
  EXPECT_EQ(h5_as_csv(merged / "results.h5", "points"), points);
  EXPECT_EQ(fivsim::sweep::results_h5_summary(merged / "results.h5")["cases"], 24);
  EXPECT_TRUE(fivsim::sweep::real_columns_deflated(merged / "results.h5", "cases"));
  const Result bad = run_fivsim(sweep + " --format h5 --compression zip --out " + merged.string() + "x");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--compression"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(merged.string() + "x"));
  // killed after two chunks, then resumed
  const fs::path resumed = fresh_dir("fivsim_h5_resumed");
  fs::remove_all(resumed.string() + ".partial");
  EXPECT_EQ(run_killed_after(sweep + " --format h5 --chunk 5 --out " + resumed.string(), 2).code, 137);
  std::ofstream(resumed.string() + ".partial/cases.bin", std::ios::app) << "half a block";
  const Result r = run_fivsim(sweep + " --format h5 --chunk 5 --resume --out " + resumed.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(h5_as_csv(resumed / "results.h5", "cases"), cases);
  EXPECT_EQ(h5_as_csv(resumed / "results.h5", "points"), points);
  // two MPI ranks
  if (FIVSIM_TEST_MPI) {
    const fs::path ranks = fresh_dir("fivsim_h5_ranks");
    const Result mr = run_fivsim_ranks(2, sweep + " --threads 1 --format h5 --chunk 3 --out " + ranks.string());
    ASSERT_EQ(mr.code, 0) << mr.err;
    EXPECT_EQ(h5_as_csv(ranks / "results.h5", "cases"), cases);
    fs::remove_all(ranks);
  }
  for (const auto& d : parts) fs::remove_all(d);
  for (const auto& d : {both, h5, merged, resumed}) fs::remove_all(d);
}

// counts are integers in the files a notebook reads: cases.csv's steps of a 3·10^5-step case is
// 300000 (not 3e+05), summary.json's case_steps an integer
TEST(SweepCommand, CountsAreWrittenAsIntegers) {
  const fs::path out = fresh_dir("fivsim_integers");
  const Result r = run_fivsim("sweep " + kScenarios +
                              "chain2_load_sweep.json --device cpu -q --set "
                              "'/sweep/parameters/0/linspace=[1,30,2]' --set /integrator/t_end=300 --out " +
                              out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream csv(slurp(out / "cases.csv"));
  std::string header, row;
  std::getline(csv, header);
  std::getline(csv, row);
  const auto field = [](const std::string& line, long k) {
    std::istringstream in(line);
    std::string f;
    for (long i = 0; i <= k; ++i) std::getline(in, f, ',');
    return f;
  };
  long steps_col = -1;
  for (long k = 0; !field(header, k).empty() && steps_col < 0; ++k)
    if (field(header, k) == "steps") steps_col = k;
  ASSERT_GE(steps_col, 0) << header;
  EXPECT_EQ(field(row, steps_col), "300000");
  EXPECT_EQ(field(row, 0), "0");
  const json s = json::parse(slurp(out / "summary.json"));
  EXPECT_TRUE(s["case_steps"].is_number_integer()) << s["case_steps"];
  EXPECT_EQ(s["case_steps"], 600000);
  fs::remove_all(out);
}

void expect_bad(const std::string& args, const std::string& message) {
  const fs::path out = fresh_dir("fivsim_sweep_bad");
  const Result r = run_fivsim("sweep " + args + " -q --out " + out.string());
  EXPECT_EQ(r.code, 2) << args;
  EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(SweepCommand, BadSweepsAreRejectedByPointer) {
  expect_bad(kScenarios + "chain2_F15.json", "/sweep: is required by `fivsim sweep`");
  expect_bad(kScenarios + "chain2_load_sweep.json --set '/sweep/parameters/0/linspace=[-1,30,5]'",
             "/model/Fn: must be >= 0, got -1 in case 0 (/model/Fn = -1)");
  expect_bad(kScenarios + "chain2_load_sweep.json --set /sweep/parameters/0/path=/model/nope",
             "/sweep/parameters/0/path: must point to a number");
  expect_bad(kScenarios + "chain2_load_sweep.json --set /sweep/extra=1", "/sweep/extra: unknown key");
  expect_bad(kScenarios + "chain2_load_sweep.json --set /integrator/method=\\\"switching\\\" --precision float",
             "--precision: the switching method runs in double precision only");
  expect_bad(kScenarios + "chain2_load_sweep.json --set /integrator/rel_tol=1e-9",
             "/integrator/rel_tol: applies to the event-driven methods (switching, root_shooting) only");
  expect_bad(kScenarios + "chain2_load_sweep.json --set '/output/trajectories=[10000]'",
             "/output/trajectories: case 10000 does not exist");
  expect_bad(kScenarios + "chain2_load_sweep.json --set /analysis/poincare/section=\\\"sideways\\\"",
             "/analysis/poincare/section");
  expect_bad(kScenarios + "chain2_load_sweep.json --set '/analysis/lyapunov={\"every\":0}'",
             "/analysis/lyapunov/every");
  expect_bad(kScenarios + "chain2_load_sweep.json --set '/analysis/observers=[\"rms\",\"rainbow\"]'",
             "/analysis/observers/1: unknown observer 'rainbow' (one of: rms, min_max, transitions, poincare, "
             "contact_fractions, lcp_residual, output_error, orbit)");
  // the orbit observer shoots from break-away samples with the switching model
  expect_bad(kScenarios +
                 "chain2_load_sweep.json --set /analysis/orbit=true --set '/analysis/poincare={\"section\": "
                 "\"velocity\", \"dof\": 0, \"value\": 0}'",
             "/analysis/orbit: the orbit observer shoots from break-away samples");
  expect_bad(kScenarios + "chain2_load_sweep.json --set '/analysis/observers=[\"rms\",\"orbit\"]'",
             "/analysis/observers: the orbit observer shoots from break-away samples");
  expect_bad(kScenarios + "chain2_load_sweep.json --set /analysis/observers=\\\"skinny\\\"",
             "/analysis/observers: unknown value 'skinny'");
  expect_bad(kScenarios + "chain2_load_sweep.json --set '/sweep/parameters/0/path=\"/analysis/points\"'",
             "/sweep/parameters/0/path: '/analysis/points' cannot be swept");
}

TEST(SweepCommand, PinnSweepsSayWhatTheyNeed) {
  expect_bad(kScenarios + "model1_pinn_v0_sweep.json --precision float",
             "--precision: the PINN methods run in double precision only, not float");
  expect_bad(kScenarios + "chain2_load_sweep.json --set /integrator/lcp_solver=\\\"lcp_pinn\\\"",
             "/integrator/lcp_solver: sweeps solve the contact LCPs of moreau, rk4lcp and irk");
}

// a GPU whose compute capability the build has no kernel image for (stubbed: an RTX A6000, 8.6,
// which neither this build nor the old Hopper-only default can run): --device auto says so in one
// line and runs on the CPU (the files of --device cpu, summary.json's device_fallback); --device
// cuda is bad input naming the GPU, its capability and what to rebuild with
TEST(SweepCommand, AutoRunsOnTheCpuBesideAGpuItCannotUse) {
  const std::string sweep = "sweep " + kScenarios + "chain2_load_sweep.json -q" + kShortLoadSweep;
  const fs::path cpu = fresh_dir("fivsim_stub_cpu"), fallback = fresh_dir("fivsim_stub_auto");
  ASSERT_EQ(run_fivsim(sweep + " --device cpu --out " + cpu.string()).code, 0);
  const std::string stub = "FIVSIM_SWEEP_STUB_GPU='NVIDIA RTX A6000:8.6' ";
  const std::string why =
      "no usable CUDA device: NVIDIA RTX A6000 (compute capability 8.6) cannot run this build's "
      "kernels (built for ";
  const Result r = run_command_line(stub, sweep + " --device auto --out " + fallback.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("fivsim sweep: warning: running on the CPU: " + why, 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(slurp(cpu / "cases.csv"), slurp(fallback / "cases.csv"));
  const json s = json::parse(slurp(fallback / "summary.json"));
  EXPECT_EQ(s["device"], "cpu");
  EXPECT_EQ(s["device_fallback"].get<std::string>().rfind(why, 0), 0u);
  const fs::path refused = fresh_dir("fivsim_stub_cuda");
  const Result c = run_command_line(stub, sweep + " --device cuda --out " + refused.string());
  EXPECT_EQ(c.code, 2);
  EXPECT_EQ(c.err.rfind("fivsim sweep: --device: cuda, but there is " + why, 0), 0u) << c.err;
  EXPECT_NE(c.err.find("rebuild with -DCMAKE_CUDA_ARCHITECTURES=86 (or native)"), std::string::npos) << c.err;
  EXPECT_FALSE(fs::exists(refused));
  fs::remove_all(cpu);
  fs::remove_all(fallback);
}

// bad input, one line: that there is no device and what to run instead, nothing written
TEST(SweepCommand, CudaWithoutADeviceSaysSo) {
  if (fivsim::cuda_device_info().available) GTEST_SKIP() << "a CUDA device is present";
  const fs::path out = fresh_dir("fivsim_sweep_nocuda");
  const Result r = run_fivsim("sweep " + kScenarios + "chain2_load_sweep.json --device cuda -q --out " + out.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.rfind("fivsim sweep: --device: cuda, but there is no CUDA device", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("; --device cpu (or auto) runs the sweep on the CPU cores\n"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out.string() + ".partial"));
  EXPECT_FALSE(fs::exists(out.string() + ".lock"));
}

}  // namespace
