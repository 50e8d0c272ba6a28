// tests/fuzz/input_fuzz.cpp — libFuzzer harness over fivsim's input path (issue 7): any byte string
// is read as a JSON document and, when it is one, as a scenario (parse_scenario, the model built
// and validated as `fivsim validate` does, the sweep block expanded for its first and last case) and
// as an identification config (parse_identify_config, relative files from scenarios/identify/).
// Bad input may only end in the errors the commands turn into exit code 2 — a JSON syntax error,
// InputError, ModelError; any other exception, a crash or a sanitizer report is a finding.
//
// build: CC=clang CXX=clang++ cmake -S . -B build-fuzz -DFIVSIM_FUZZ=ON -DFIVSIM_CUDA=OFF
// run:   build-fuzz/fivsim_fuzz_input -max_total_time=60 tests/fuzz/corpus scenarios scenarios/identify
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fivsim/batch/sweep.hpp"
#include "fivsim/io/identify_config.hpp"
#include "fivsim/io/scenario.hpp"
#include "fivsim/model/model.hpp"

namespace {

using nlohmann::json;

void scenario_path(const json& doc) {
  const fivsim::Scenario sc = fivsim::parse_scenario(doc);
  auto model = std::make_unique<fivsim::Model<fivsim::HostDims>>();
  fivsim::make_model(sc.model, *model);
  if (!doc.contains("sweep")) return;
  const fivsim::SweepSpec spec = fivsim::parse_sweep(doc);
  std::vector<double> values;
  const long n = spec.n_cases();
  for (long i : {0L, n - 1}) {
    try {
      (void)fivsim::batch::case_scenario(doc, spec, i, values);
    } catch (const fivsim::ModelError&) {
    }
  }
  // the plan's probes and checks of every case, and the first case made from it
  const fivsim::batch::SweepPlan plan(sc, spec);
  const fivsim::batch::SweepShared<fivsim::batch::SweepDimsGeneric<double>> shared(plan, 1e-9);
  fivsim::batch::PreparedCases<fivsim::batch::SweepDimsGeneric<double>> cases;
  fivsim::batch::prepare_cases(plan, shared, 0, 1, cases);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  json doc;
  try {
    doc = json::parse(reinterpret_cast<const char*>(data), reinterpret_cast<const char*>(data) + size);
  } catch (const json::exception&) {
    return 0;
  }
  // past json::parse, the readers check every type themselves: a json::exception escaping them
  // would reach the commands as an internal error (exit 1), so it is a finding too
  try {
    scenario_path(doc);
  } catch (const fivsim::InputError&) {
  } catch (const fivsim::ModelError&) {
  }
  try {
    (void)fivsim::parse_identify_config(doc, FIVSIM_SOURCE_DIR "/scenarios/identify");
  } catch (const fivsim::InputError&) {
  } catch (const fivsim::ModelError&) {
  }
  return 0;
}
