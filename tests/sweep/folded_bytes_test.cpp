// tests/sweep/folded_bytes_test.cpp — the bytes a specialised kernel folds in
// (sweep/folded_bytes.hpp): every member of each folded struct is listed (checked against the
// struct's layout), bytes that are not a value's (padding, entries past a vector's size or the
// model's contacts) do not change them, and a member's value does. GCC 12's
// __builtin_clear_padding is no oracle here: on CaseSetup it leaves padding and clears bytes of a
// friction law's first parameter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "fivsim/io/json_reader.hpp"
#include "fivsim/io/scenario.hpp"
#include "fivsim/sweep/folded_bytes.hpp"
#include "fivsim/sweep/sweep.hpp"
#include "fivsim/sweep/sweep_plan.hpp"
#include "fivsim/sweep/sweep_spec.hpp"

namespace fivsim::sweep {
namespace {

// the leaves of a struct whose every byte is 0x11 (so that each size reads as its capacity and
// every entry is put) cover it but for padding: each gap ends where the next member's alignment
// puts it and is shorter than that alignment, the tail shorter than the struct's
template <class T>
void expect_listed_whole(const char* name) {
  auto x = std::make_unique<T>();
  std::memset(static_cast<void*>(x.get()), 0x11, sizeof(T));
  const FoldedBytes f(*x);
  auto leaves = f.leaves();
  std::sort(leaves.begin(), leaves.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
  // the alignment at an offset: the largest of the members that start there
  const auto align_at = [&](std::size_t offset) {
    std::size_t a = 1;
    for (const auto& s : f.starts())
      if (s.offset == offset) a = std::max(a, s.align);
    return a;
  };
  std::size_t end = 0;
  for (const auto& l : leaves) {
    ASSERT_GE(l.offset, end) << name << ": members overlap at " << l.offset;
    const std::size_t gap = l.offset - end, align = align_at(l.offset);
    EXPECT_TRUE(gap == 0 || (gap < align && l.offset % align == 0))
        << name << ": " << gap << " bytes before offset " << l.offset << " are no member's";
    end = l.offset + l.size;
  }
  EXPECT_LT(sizeof(T) - end, f.root_align()) << name << ": the last " << sizeof(T) - end << " bytes are no member's";
}

TEST(FoldedBytes, EveryListCoversItsStruct) {
  const auto each = [](auto tag) {
    using D = typename decltype(tag)::type;
    const std::string dims = std::to_string(D::max_dof) + "x" + std::to_string(D::max_contacts);
    expect_listed_whole<CaseSetup<D>>(("CaseSetup " + dims).c_str());
    expect_listed_whole<CaseBatch<D>>(("CaseBatch " + dims).c_str());
    expect_listed_whole<BeltModel<D>>(("BeltModel " + dims).c_str());
  };
  each(DimsTag<SweepDimsExact2<double>>{});
  each(DimsTag<SweepDimsGeneric<double>>{});
  each(DimsTag<SweepDims1<float>>{});
  expect_listed_whole<SweepAnalysis>("SweepAnalysis");
  expect_listed_whole<StepOptions>("StepOptions");
  expect_listed_whole<MlpLayout>("MlpLayout");
  expect_listed_whole<OptimizerOptions>("OptimizerOptions");
}

// a bundled scenario's first case's setup, as a sweep prepares it
template <class D>
std::unique_ptr<CaseSetup<D>> first_setup(const std::string& scenario) {
  const nlohmann::json doc = load_json_file(FIVSIM_SOURCE_DIR "/scenarios/" + scenario);
  const Scenario sc = parse_scenario(doc);
  const SweepSpec spec = parse_sweep(doc);  // the plan keeps a reference to it
  const SweepPlan plan(sc, spec);
  const auto shared = std::make_unique<SweepShared<D>>(plan, sweep_step_options(sc, false).stick_tol);
  const auto cases = std::make_unique<PreparedCases<D>>();
  prepare_cases(plan, *shared, 0, 1, *cases);
  return std::make_unique<CaseSetup<D>>(cases->batch().setups[0]);
}

template <class D>
void expect_values_alone_count(const std::string& scenario) {
  const auto x = first_setup<D>(scenario);
  ASSERT_TRUE(holds_model<D>(x->model.n_dof, x->model.n_contacts)) << scenario;
  const FoldedBytes fx(*x);
  const std::vector<unsigned char>& folded = fx.bytes();
  // a copy whose padding (the bytes no member covers, EveryListCoversItsStruct) and whose entries
  // past a vector's size or the model's contacts hold other bytes
  std::vector<bool> member(sizeof(CaseSetup<D>), false);
  for (const auto& l : fx.leaves()) std::fill_n(member.begin() + l.offset, l.size, true);
  // an exact instantiation's sizes are its capacities: every entry is a value
  if constexpr (D::exact) {
    auto whole = std::make_unique<CaseSetup<D>>();
    std::memset(static_cast<void*>(whole.get()), 0x11, sizeof *whole);
    EXPECT_EQ(fx.leaves().size(), FoldedBytes(*whole).leaves().size()) << scenario;
  }
  auto y = std::make_unique<CaseSetup<D>>(*x);
  auto* yb = reinterpret_cast<unsigned char*>(y.get());
  for (std::size_t i = 0; i < sizeof *y; ++i)
    if (!member[i]) yb[i] = 0xcd;
  for (int i = y->start.q.n; i < D::max_dof; ++i) y->start.q.v[i] = 12345.0;
  for (int i = y->model.n_contacts; i < D::max_contacts; ++i) y->model.kc[i] = 6789.0;
  ASSERT_NE(std::memcmp(x.get(), y.get(), sizeof *y), 0) << scenario << ": the copy differs in no byte";
  const std::vector<unsigned char> other = FoldedBytes(*y).bytes();
  for (std::size_t i = 0; i < folded.size(); ++i) EXPECT_EQ(other[i], folded[i]) << scenario << ": byte " << i;
  // and a member's value changes them
  const auto changed = [&](auto&& change) {
    auto z = std::make_unique<CaseSetup<D>>(*x);
    change(*z);
    return FoldedBytes(*z).bytes() != folded;
  };
  EXPECT_TRUE(changed([](CaseSetup<D>& s) { s.model.decoupled_friction = !s.model.decoupled_friction; })) << scenario;
  EXPECT_TRUE(changed([](CaseSetup<D>& s) { s.model.K(0, 0) += 1.0; })) << scenario;
  EXPECT_TRUE(changed([](CaseSetup<D>& s) { s.model.law[s.model.n_contacts - 1].p[0] += 0.25; })) << scenario;
  EXPECT_TRUE(changed([](CaseSetup<D>& s) { s.start.contact[0] = ContactState::slip_pos; })) << scenario;
  EXPECT_TRUE(changed([](CaseSetup<D>& s) { s.t_transient += 1.0; })) << scenario;
}

TEST(FoldedBytes, OnlyTheValuesCount) {
  // sliders on a belt in their exact instantiation; Model II in the capacity one
  expect_values_alone_count<SweepDimsExact2<double>>("chain2_bifurcation.json");
  expect_values_alone_count<SweepDims2<double>>("model2_mu_scan.json");
}

}  // namespace
}  // namespace fivsim::sweep
