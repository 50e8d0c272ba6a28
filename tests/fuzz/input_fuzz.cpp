// tests/fuzz/input_fuzz.cpp — libFuzzer harness over fivsim's input path: any byte string is read
// as the commands read a JSON file (parse_json_text: strict about duplicate keys, numbers beyond a
// double and nesting) and, when it is a document, as a scenario (parse_scenario, the model built
// and validated as `fivsim validate` does, the sweep block expanded for its first and last case) and
// as an identification config (parse_identify_config, relative files from scenarios/identify/).
// Bad input may only end in the errors the commands turn into exit code 2 — InputError,
// ModelError; any other exception (a json::exception escaping the strict reader included), a
// crash or a sanitizer report is a finding. A custom mutator adds to libFuzzer's byte mutations
// the inputs that once crashed fivsim: a number beyond a double, deep nesting, a key given twice.
//
// build: CC=clang CXX=clang++ cmake -S . -B build-fuzz -DFIVSIM_FUZZ=ON -DFIVSIM_CUDA=OFF
// run:   build-fuzz/fivsim_fuzz_input -max_total_time=60 tests/fuzz/corpus scenarios scenarios/identify
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fivsim/sweep/sweep.hpp"
#include "fivsim/io/identify_config.hpp"
#include "fivsim/io/json_reader.hpp"
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
      (void)fivsim::sweep::case_scenario(doc, spec, i, values);
    } catch (const fivsim::ModelError&) {
    }
  }
  // the plan's probes and checks of every case, and the first case made from it
  const fivsim::sweep::SweepPlan plan(sc, spec);
  const fivsim::sweep::SweepShared<fivsim::SweepDimsGeneric<double>> shared(plan, 1e-9);
  fivsim::sweep::PreparedCases<fivsim::SweepDimsGeneric<double>> cases;
  fivsim::sweep::prepare_cases(plan, shared, 0, 1, cases);
}

// the structured mutations, at a place chosen by `seed`: true when `text` changed
bool mutate_structure(std::string& text, unsigned seed) {
  const auto at = [&](std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(seed >> 3) % n; };
  switch (seed % 4) {
    case 0: {
      // a number (the first digit after a chosen place) made one past a double's range
      const std::size_t from = at(text.size() + 1);
      const std::size_t digit = text.find_first_of("0123456789", from);
      if (digit == std::string::npos) return false;
      const std::size_t end = text.find_first_not_of("0123456789.eE+-", digit);
      text.replace(digit, (end == std::string::npos ? text.size() : end) - digit, (seed & 8) ? "1e400" : "-17e999");
      return true;
    }
    case 1: {
      // a key given twice: the chosen key's member repeated before it
      const std::size_t quote = text.find("\":", at(text.size() + 1));
      if (quote == std::string::npos) return false;
      const std::size_t open = text.rfind('"', quote - 1 < text.size() ? quote - 1 : 0);
      if (open == std::string::npos || open >= quote) return false;
      text.insert(open, text.substr(open, quote + 2 - open) + " 0, ");
      return true;
    }
    case 2: {
      // nesting around the whole text, near and past the limit
      const int depth = fivsim::kMaxJsonDepth - 2 + static_cast<int>(at(6));
      text =
          std::string(static_cast<std::size_t>(depth), '[') + text + std::string(static_cast<std::size_t>(depth), ']');
      return true;
    }
    default: {
      // nesting inside a chosen value
      const std::size_t colon = text.find(':', at(text.size() + 1));
      if (colon == std::string::npos) return false;
      const int depth = fivsim::kMaxJsonDepth + static_cast<int>(at(4));
      text.insert(colon + 1, std::string(static_cast<std::size_t>(depth), '['));
      const std::size_t end = text.find_first_of(",}", colon + 1 + static_cast<std::size_t>(depth));
      text.insert(end == std::string::npos ? text.size() : end, std::string(static_cast<std::size_t>(depth), ']'));
      return true;
    }
  }
}

}  // namespace

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

// one time in four a structured mutation, else libFuzzer's own
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned seed) {
  if (seed % 4 != 0) return LLVMFuzzerMutate(data, size, max_size);
  std::string text(reinterpret_cast<const char*>(data), size);
  if (!mutate_structure(text, seed / 4) || text.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  json doc;
  try {
    doc = fivsim::parse_json_text(std::string_view(reinterpret_cast<const char*>(data), size), "input");
  } catch (const fivsim::InputError&) {
    return 0;
  }
  // past the reader, the parsers check every type themselves: a json::exception escaping them
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
