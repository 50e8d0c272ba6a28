// src/cli/stability_command.cpp — `fivsim stability`: eigenvalues of the linearised steady-sliding
// system versus one scenario parameter and the critical values where the largest real part
// crosses zero (seed 000 Fig. 19). stability.csv (one row per value) and stability.json.
#include <cmath>
#include <cstdio>
#include <limits>

#include "cli_common.hpp"
#include "fivsim/analysis/stability.hpp"
#include "fivsim/io/output.hpp"

namespace fivsim::cli {
namespace {

// the default parameter: the first coefficient of the top-level friction law
std::string default_parameter(const json& doc) {
  if (doc.contains("friction") && doc["friction"].is_object() && doc["friction"].contains("law")) {
    const std::string law = doc["friction"]["law"].is_string() ? doc["friction"]["law"].get<std::string>() : "";
    for (const auto& info : kFrictionLawInfo)
      if (law == info.name) return std::string("/friction/") + info.params[0];
  }
  if (doc.contains("model") && doc["model"].is_object()) {
    for (const char* key : {"Ff", "mu"})
      if (doc["model"].contains(key)) return std::string("/model/") + key;
  }
  return "/friction/mu";
}

std::string format_value(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

int stability_command(const StabilityArgs& args) {
  json base;
  std::string param = args.param;
  std::vector<double> values;
  try {
    base = load_json_file(args.scenario);
    for (const auto& s : args.set) apply_override(base, s);
    if (param.empty()) param = default_parameter(base);
    json::json_pointer ptr;
    try {
      ptr = json::json_pointer(param);
    } catch (const json::exception&) {
      throw InputError("--param", "'" + param + "' is not a JSON pointer");
    }
    if (!base.contains(ptr) || !base[ptr].is_number())
      throw InputError("--param", "'" + param + "' is not a number in the scenario");
    if (args.linspace.size() != 3) throw InputError("--linspace", "needs three values: start stop count");
    const double a = args.linspace[0], b = args.linspace[1], count = args.linspace[2];
    if (!std::isfinite(a) || !std::isfinite(b) || !(b > a))
      throw InputError("--linspace", "needs finite start < stop");
    if (!(count >= 2) || count != std::floor(count) || count > 1e6)
      throw InputError("--linspace", "the count must be a whole number from 2 to 1e6");
    const long n = static_cast<long>(count);
    for (long k = 0; k < n; ++k) values.push_back(a + (b - a) * static_cast<double>(k) / static_cast<double>(n - 1));
    // every value must give a valid scenario: the first failure names its pointer
    json doc = base;
    for (double v : {values.front(), values.back()}) {
      doc[ptr] = v;
      if (parse_scenario(doc).model.has_dynamic_friction())
        throw InputError("/friction/law", "stability linearises static friction laws; dahl, lugre and gms are not "
                                          "linearised (their steady sliding involves the bristle states)");
    }
  } catch (const InputError& e) {
    std::fprintf(stderr, "fivsim stability: %s\n", e.what());
    return kExitBadInput;
  }

  const json::json_pointer ptr(param);
  auto linearize_at = [&](double v) {
    json doc = base;
    doc[ptr] = v;
    return linearize_sliding(parse_scenario(doc).model);
  };
  try {
    const std::string name = base.value("name", std::string("scenario"));
    StagedDirectory dir(args.out.empty() ? std::filesystem::path("runs") / (name + "_stability")
                                         : std::filesystem::path(args.out));
    std::vector<SlidingLinearization> lin;
    for (double v : values) lin.push_back(linearize_at(v));
    const int m = static_cast<int>(lin.front().eigenvalues.size());
    // a real part counts as positive beyond rounding of the eigenvalue computation
    auto margin = [](const SlidingLinearization& l) {
      return 1e-9 * std::max(1.0, l.eigenvalues.cwiseAbs().maxCoeff());
    };
    auto unstable = [&](double v) {
      const SlidingLinearization l = linearize_at(v);
      return l.max_real - margin(l);
    };

    // crossings between neighbouring values, refined by bisection
    json crossings = json::array();
    for (std::size_t k = 1; k < values.size(); ++k) {
      const bool was = lin[k - 1].max_real > margin(lin[k - 1]);
      const bool is = lin[k].max_real > margin(lin[k]);
      if (was == is) continue;
      const double scale = std::max(std::abs(values[k]), 1.0);
      double at;
      if (is) {
        at = locate_crossing(unstable, values[k - 1], values[k], 1e-12 * scale);
      } else {
        at = locate_crossing([&](double v) { return unstable(-v); }, -values[k], -values[k - 1], 1e-12 * scale);
        at = -at;
      }
      crossings.push_back({{"value", at}, {"becomes", is ? "unstable" : "stable"}});
    }

    {
      CsvWriter csv(dir.file("stability.csv"));
      csv.field(param.c_str());
      csv.field("max_real");
      csv.field("consistent");
      for (int i = 0; i < m; ++i) {
        csv.field(("re" + std::to_string(i)).c_str());
        csv.field(("im" + std::to_string(i)).c_str());
      }
      csv.end_row();
      for (std::size_t k = 0; k < values.size(); ++k) {
        csv.field(values[k]);
        csv.field(lin[k].max_real);
        csv.field(lin[k].consistent ? 1.0 : 0.0);
        for (int i = 0; i < m; ++i) {
          csv.field(lin[k].eigenvalues(i).real());
          csv.field(lin[k].eigenvalues(i).imag());
        }
        csv.end_row();
      }
      csv.close();
    }
    json j;
    j["name"] = name;
    j["parameter"] = param;
    j["values"] = {{"start", values.front()}, {"stop", values.back()}, {"count", values.size()}};
    j["crossings"] = crossings;
    j["critical"] = crossings.empty() ? json(nullptr) : crossings[0]["value"];
    std::string note;
    for (const auto& l : lin)
      if (!l.note.empty()) note = l.note;
    j["note"] = note;
    j["scenario"] = base;
    write_json_file(dir.file("stability.json"), j);
    dir.commit();

    if (crossings.empty()) {
      std::printf("stability %s: %s from %s to %s: no crossing of the imaginary axis (max real part %s at the start) -> %s\n",
                  name.c_str(), param.c_str(), format_value(values.front()).c_str(),
                  format_value(values.back()).c_str(), format_value(lin.front().max_real).c_str(),
                  dir.final_path().c_str());
    } else {
      for (const auto& c : crossings)
        std::printf("stability %s: critical %s = %.10g (the sliding equilibrium becomes %s) -> %s\n", name.c_str(),
                    param.c_str(), c["value"].get<double>(), c["becomes"].get<std::string>().c_str(),
                    dir.final_path().c_str());
    }
    if (!note.empty()) std::printf("note: %s\n", note.c_str());
    return kExitOk;
  } catch (const InputError& e) {
    std::fprintf(stderr, "fivsim stability: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fivsim stability: %s\n", e.what());
    return kExitError;
  }
}

}  // namespace fivsim::cli
