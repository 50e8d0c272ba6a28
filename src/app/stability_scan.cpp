// src/app/stability_scan.cpp — a stability scan over one parameter (app/stability_scan.hpp).
#include "fivsim/app/stability_scan.hpp"

#include <algorithm>
#include <cmath>

#include "fivsim/analysis/stability.hpp"
#include "fivsim/io/scenario.hpp"

namespace fivsim {
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

}  // namespace

StabilityScan scan_stability(const json& document, std::string param, const std::vector<double>& linspace) {
  const json& base = document;
  if (param.empty()) param = default_parameter(base);
  json::json_pointer ptr;
  try {
    ptr = json::json_pointer(param);
  } catch (const json::exception&) {
    throw InputError("--param", "'" + param + "' is not a JSON pointer");
  }
  if (!base.contains(ptr) || !base[ptr].is_number())
    throw InputError("--param", "'" + param + "' is not a number in the scenario");
  if (linspace.size() != 3) throw InputError("--linspace", "needs three values: start stop count");
  const double a = linspace[0], b = linspace[1], count = linspace[2];
  if (!std::isfinite(a) || !std::isfinite(b) || !(b > a)) throw InputError("--linspace", "needs finite start < stop");
  if (!(count >= 2) || count != std::floor(count) || count > 1e6)
    throw InputError("--linspace", "the count must be a whole number from 2 to 1e6");
  const long n = static_cast<long>(count);
  std::vector<double> values;
  for (long k = 0; k < n; ++k) values.push_back(a + (b - a) * static_cast<double>(k) / static_cast<double>(n - 1));
  // every value must give a valid scenario: the first failure names its pointer
  {
    json doc = base;
    for (double v : {values.front(), values.back()}) {
      doc[ptr] = v;
      if (parse_scenario(doc).model.has_dynamic_friction())
        throw InputError("/friction/law",
                         "stability linearises static friction laws; dahl, lugre and gms are not "
                         "linearised (their steady sliding involves the bristle states)");
    }
  }

  auto linearize_at = [&](double v) {
    json doc = base;
    doc[ptr] = v;
    return linearize_sliding(parse_scenario(doc).model);
  };
  std::vector<SlidingLinearization> lin;
  for (double v : values) lin.push_back(linearize_at(v));
  const int m = static_cast<int>(lin.front().eigenvalues.size());
  // a real part counts as positive beyond rounding of the eigenvalue computation
  auto margin = [](const SlidingLinearization& l) { return 1e-9 * std::max(1.0, l.eigenvalues.cwiseAbs().maxCoeff()); };
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

  StabilityScan scan;
  scan.parameter = param;
  NamedColumns& t = scan.table;
  t.add(param, values);
  std::vector<double> max_real, consistent;
  for (const auto& l : lin) {
    max_real.push_back(l.max_real);
    consistent.push_back(l.consistent ? 1.0 : 0.0);
  }
  t.add("max_real", max_real);
  t.add("consistent", consistent);
  for (int i = 0; i < m; ++i) {
    std::vector<double> re, im;
    for (const auto& l : lin) {
      re.push_back(l.eigenvalues(i).real());
      im.push_back(l.eigenvalues(i).imag());
    }
    t.add("re" + std::to_string(i), re);
    t.add("im" + std::to_string(i), im);
  }
  json& j = scan.report;
  j["name"] = base.value("name", std::string("scenario"));
  j["parameter"] = param;
  j["values"] = {{"start", values.front()}, {"stop", values.back()}, {"count", values.size()}};
  j["crossings"] = crossings;
  j["critical"] = crossings.empty() ? json(nullptr) : crossings[0]["value"];
  std::string note;
  for (const auto& l : lin)
    if (!l.note.empty()) note = l.note;
  j["note"] = note;
  j["scenario"] = base;
  return scan;
}

}  // namespace fivsim
