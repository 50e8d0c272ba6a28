// src/sweep/sweep_spec.cpp — sweep blocks: parsing, case expansion, applying a case's values.
#include "fivsim/sweep/sweep_spec.hpp"

#include <cmath>

#include "fivsim/core/random.hpp"

namespace fivsim {
namespace {

std::vector<double> spaced(JsonObject& p, const std::string& key, bool log) {
  const std::string at = p.pointer_of(key);
  const auto abn = p.numbers(key, 3);
  const double a = abn[0], b = abn[1], n = abn[2];
  if (!(n >= 1) || n != std::floor(n) || n > kSweepMaxCases)
    throw InputError(pointer_join(at, 2), "must be a whole number of points in 1..1e8");
  if (log && !(a > 0 && b > 0)) throw InputError(at, "logspace bounds must be > 0");
  const long count = static_cast<long>(n);
  std::vector<double> v(static_cast<std::size_t>(count));
  for (long i = 0; i < count; ++i) {
    const double f = count == 1 ? 0.0 : static_cast<double>(i) / static_cast<double>(count - 1);
    v[static_cast<std::size_t>(i)] =
        log ? std::pow(10.0, std::log10(a) + f * (std::log10(b) - std::log10(a))) : a + f * (b - a);
  }
  // end points exactly as given (no rounding drift at the last value)
  if (count > 1) v.back() = b;
  v.front() = a;
  return v;
}

}  // namespace

long SweepSpec::n_cases() const {
  if (mode == SweepMode::random) return samples;
  if (mode == SweepMode::zip) return parameters.empty() ? 0 : static_cast<long>(parameters[0].values.size());
  long n = 1;
  for (const auto& p : parameters)
    if (!p.draw_range) n *= static_cast<long>(p.values.size());
  return n * (samples > 0 ? samples : 1);
}

namespace {

// a drawn parameter's value for the unit draw u
double drawn_value(const SweepParameter& p, double u) {
  if (!p.draw_range) {
    const auto n = p.values.size();
    return p.values[std::min(n - 1, static_cast<std::size_t>(u * static_cast<double>(n)))];
  }
  if (p.log_range) return std::pow(10.0, std::log10(p.lo) + u * (std::log10(p.hi) - std::log10(p.lo)));
  return p.lo + u * (p.hi - p.lo);
}

}  // namespace

void SweepSpec::case_values(long index, std::vector<double>& out) const {
  out.resize(parameters.size());
  if (mode == SweepMode::zip) {
    for (std::size_t k = 0; k < parameters.size(); ++k) out[k] = parameters[k].values[static_cast<std::size_t>(index)];
    return;
  }
  if (mode == SweepMode::grid) {
    // with samples: the grid point's draws are consecutive cases
    long rest = samples > 0 ? index / samples : index;
    for (std::size_t k = parameters.size(); k-- > 0;) {
      const SweepParameter& p = parameters[k];
      if (p.draw_range) {
        out[k] = drawn_value(p, unit_draw(seed, static_cast<uint64_t>(index), k));
        continue;
      }
      const long n = static_cast<long>(p.values.size());
      out[k] = p.values[static_cast<std::size_t>(rest % n)];
      rest /= n;
    }
    return;
  }
  for (std::size_t k = 0; k < parameters.size(); ++k)
    out[k] = drawn_value(parameters[k], unit_draw(seed, static_cast<uint64_t>(index), k));
}

SweepSpec parse_sweep(const json& doc) {
  if (!doc.is_object() || !doc.contains("sweep")) throw InputError("/sweep", "is required by `fivsim sweep`");
  JsonObject sw(doc.at("sweep"), "/sweep");
  SweepSpec spec;
  const std::string mode = sw.choice("mode", {"grid", "zip", "random"});
  spec.mode = mode == "grid" ? SweepMode::grid : mode == "zip" ? SweepMode::zip : SweepMode::random;
  // random: the cases; grid: the draws of the range parameters at each grid point
  if (spec.mode == SweepMode::random || (spec.mode == SweepMode::grid && sw.has("samples"))) {
    spec.samples = sw.integer("samples", 1);
    if (spec.samples > kSweepMaxCases) throw InputError(sw.pointer_of("samples"), "must be <= 1e8");
    spec.seed = static_cast<uint64_t>(sw.integer_or("seed", 0, 0));
  }
  const std::string list_at = sw.pointer_of("parameters");
  if (!sw.has("parameters") || !doc["sweep"]["parameters"].is_array() || doc["sweep"]["parameters"].empty())
    throw InputError(list_at, "must be a non-empty array of {path, values|linspace|logspace|range|logrange}");
  const json& list = doc["sweep"]["parameters"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    JsonObject p(list[i], pointer_join(list_at, i));
    SweepParameter par;
    par.path = p.string("path");
    try {
      const json::json_pointer ptr(par.path);
      if (par.path.empty() || par.path.rfind("/sweep", 0) == 0) throw InputError(p.pointer_of("path"), "");
      if (!doc.contains(ptr) || !doc.at(ptr).is_number())
        throw InputError(p.pointer_of("path"), "must point to a number in the scenario, '" + par.path + "' does not");
    } catch (const json::exception&) {
      throw InputError(p.pointer_of("path"), "must be a JSON pointer such as /model/Fn, got '" + par.path + "'");
    } catch (const InputError& e) {
      if (e.rule.empty()) throw InputError(p.pointer_of("path"), "must point to a number outside /sweep");
      throw;
    }
    for (const auto& earlier : spec.parameters)
      if (earlier.path == par.path) throw InputError(p.pointer_of("path"), "'" + par.path + "' is swept twice");
    int given = 0;
    if (p.has("values")) {
      ++given;
      par.values = p.numbers("values", -1);
      if (par.values.empty()) throw InputError(p.pointer_of("values"), "must not be empty");
    }
    if (p.has("linspace")) ++given, par.values = spaced(p, "linspace", false);
    if (p.has("logspace")) ++given, par.values = spaced(p, "logspace", true);
    for (const char* key : {"range", "logrange"}) {
      if (!p.has(key)) continue;
      ++given;
      if (spec.mode == SweepMode::zip)
        throw InputError(p.pointer_of(key),
                         "ranges are drawn from in random mode, or at each grid point in grid mode with samples; use "
                         "linspace or logspace");
      if (spec.mode == SweepMode::grid && spec.samples <= 0)
        throw InputError(sw.pointer_of("samples"),
                         "is required in grid mode with a range: how many draws of the range parameters each grid "
                         "point gets");
      const auto ab = p.numbers(key, 2);
      par.draw_range = true;
      par.log_range = std::string(key) == "logrange";
      par.lo = ab[0];
      par.hi = ab[1];
      if (!(par.hi >= par.lo)) throw InputError(p.pointer_of(key), "must be [low, high] with low <= high");
      if (par.log_range && !(par.lo > 0)) throw InputError(p.pointer_of(key), "logrange bounds must be > 0");
    }
    if (given != 1) throw InputError(p.pointer(), "needs exactly one of values, linspace, logspace, range, logrange");
    p.finish();
    spec.parameters.push_back(std::move(par));
  }
  if (spec.mode == SweepMode::zip) {
    for (std::size_t i = 1; i < spec.parameters.size(); ++i)
      if (spec.parameters[i].values.size() != spec.parameters[0].values.size())
        throw InputError(pointer_join(list_at, i), "zip mode needs parameters of equal length (" +
                                                       std::to_string(spec.parameters[0].values.size()) +
                                                       " values in the first)");
  }
  if (spec.mode == SweepMode::grid) {
    double n = spec.samples > 0 ? static_cast<double>(spec.samples) : 1.0;
    bool drawn = false;
    for (const auto& p : spec.parameters) {
      drawn = drawn || p.draw_range;
      if (!p.draw_range) n *= static_cast<double>(p.values.size());
    }
    if (spec.samples > 0 && !drawn)
      throw InputError(sw.pointer_of("samples"),
                       "draws the range parameters at each grid point in grid mode, and no parameter has a range");
    if (n > static_cast<double>(kSweepMaxCases)) throw InputError(list_at, "the grid has more than 1e8 cases");
  }
  sw.finish();
  return spec;
}

void apply_sweep_values(const SweepSpec& spec, const std::vector<double>& values, json& doc) {
  for (std::size_t k = 0; k < spec.parameters.size(); ++k) doc[json::json_pointer(spec.parameters[k].path)] = values[k];
}

}  // namespace fivsim
