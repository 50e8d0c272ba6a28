// tests/gpu/case_table_gpu_test.cpp — a chunk's case table and counts made on the device
// (sweep/sweep_backend.hpp DeviceTable: only they come back) are, bit for bit, what the host makes
// from the same chunk's results (sweep/result_table.hpp case_columns, the chunk loop's counts): on
// the belt kernel, and on the general kernel with Lyapunov exponents and the chunk run in two parts
// into one table. Skips without a device
// (ctest label gpu).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "fivsim/sweep/result_table.hpp"
#include "sweep_gpu_cases.hpp"

namespace fivsim {
namespace {

using gpu_test::prepare;
using gpu_test::Prepared;

template <class D>
void device_table_is_the_hosts(const json& doc, long parts) {
  const auto info = cuda_device_info();
  if (!info.available) GTEST_SKIP() << "no CUDA device: " << info.description;
  const Prepared<D> p = prepare<D>(doc, false);
  const long n = p.cases.n;
  const CaseBatch<D> batch = p.cases.batch();
  CaseTableLayout layout;
  layout.n_dof = p.base.model.dof();
  layout.n_contacts = p.base.model.n_contacts();
  layout.n_params = batch.n_params;
  layout.observers = p.an.observers;
  layout.lyapunov = p.an.lyapunov_every > 0;
  const long first = 1000;  // a chunk's first case is rarely case 0
  // the host's: the results back, then their columns and counts
  const auto pipeline = sweep::cuda_pipeline(D{}, nullptr, sweep::KernelOptions{false, {}});
  std::vector<CaseResult<D>> results(n);
  std::vector<double> points(n * case_points_size(layout.n_dof, p.an));
  double s = 0.0;
  ASSERT_EQ(pipeline->launch(0, batch, p.an, p.opt).error, "");
  ASSERT_EQ(pipeline->finish(0, results.data(), points.data(), s).error, "");
  sweep::ColumnBlock host;
  sweep::case_columns(layout, first, n, results.data(), batch.rows, nullptr, host);
  CaseCounts host_counts{};
  sweep::count_cases(results.data(), n, host_counts);
  // the device's, in `parts` launches into one table
  sweep::ColumnBlock device;
  device.resize(n, case_column_count(layout));
  std::memset(device.values.data(), 0xff, device.values.size() * sizeof(double));
  CaseCounts device_counts{};
  const sweep::DeviceTable table{layout, first, device.values.data(), n, &device_counts};
  for (long k = 0; k < parts; ++k) {
    const long at = n * k / parts, count = n * (k + 1) / parts - at;
    ASSERT_EQ(pipeline->launch(0, batch.part(at, count), p.an, p.opt, table.part(at)).error, "");
    ASSERT_EQ(pipeline->finish(0, nullptr, points.data(), s).error, "");
  }
  ASSERT_EQ(device.values.size(), host.values.size());
  EXPECT_EQ(std::memcmp(device.values.data(), host.values.data(), host.values.size() * sizeof(double)), 0);
  for (std::size_t i = 0; i < host.values.size(); ++i)
    if (std::memcmp(&device.values[i], &host.values[i], sizeof(double)) != 0) {
      ADD_FAILURE() << "column " << i / n << ", case " << i % n << ": " << device.values[i] << " against "
                    << host.values[i];
      break;
    }
  EXPECT_EQ(std::memcmp(&device_counts, &host_counts, sizeof(CaseCounts)), 0);
  EXPECT_EQ(device_counts.steps, host_counts.steps);
}

TEST(CaseTableGpu, TheBeltKernelsTableIsTheHosts) {
  device_table_is_the_hosts<SweepDimsExact2<double>>(gpu_test::model_for<SweepDimsExact2<double>>(), 1);
}

TEST(CaseTableGpu, TheGeneralKernelsTableIsTheHostsInTwoParts) {
  json doc = gpu_test::model_for<SweepDimsGeneric<double>>();
  doc["analysis"]["lyapunov"] = {{"every", 10}};
  device_table_is_the_hosts<SweepDimsGeneric<double>>(doc, 2);
}

}  // namespace
}  // namespace fivsim
